"""One table of exit codes; every error one line on stderr, never a traceback."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tcplab as tl
from tcplab.cli import main
from test_sweep import write_study

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "udp_over_lossy_link.toml"


def one_error_line(capsys) -> str:
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_reproduce_of_an_unknown_study_is_bad_input(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "reproduce", "nosuch", "--out",
                        str(tmp_path / "x")], capture_output=True, text=True)
    assert r.returncode == 2
    [line] = r.stderr.splitlines()
    assert line.startswith("error: no study 'nosuch' (studies: channel, westwood")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("argv", [
    ["run"], ["bogus"], ["sweep", "x.toml", "--jobs", "0"], ["sweep", "x.toml", "--jobs", "a"],
    ["results", "x.db", "--ci", "95"], ["run", str(EXAMPLE), "--seed", "x"],
])
def test_bad_arguments_are_one_line_and_exit_2(argv, capsys):
    assert main(argv) == 2
    line = one_error_line(capsys)
    assert "--help" in line


def test_unreadable_files_are_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "dir.toml").mkdir()
    (tmp_path / "bytes.toml").write_bytes(b"\xff\xfe\x00garbage\x80\x81")
    for cmd in ("run", "check", "sweep"):
        for name in ("dir.toml", "bytes.toml", "missing.toml"):
            assert main([cmd, str(tmp_path / name)]) == 2, (cmd, name)
            one_error_line(capsys)


def test_unknown_columns_are_bad_input(tmp_path, capsys):
    study = write_study(tmp_path, name="c", seeds=1, duration="5s")
    assert main(["sweep", str(study), "--jobs", "2"]) == 0
    capsys.readouterr()
    db = str(tmp_path / "c.db")
    assert main(["results", db, "--group-by", "nosuch"]) == 2
    assert "--group-by: no column 'nosuch'" in one_error_line(capsys)
    assert main(["plot", db, "--x", "per", "--y", "nosuch", "--out",
                 str(tmp_path / "p.png")]) == 2
    assert "--y: no column 'nosuch'" in one_error_line(capsys)
    assert main(["plot", db, "--x", "per", "--y", "goodput", "--out",
                 str(tmp_path / "p.jpg")]) == 2
    assert ".png, .svg or .pdf" in one_error_line(capsys)
    assert main(["results", db, "--study", "nosuch"]) == 2
    assert "holds no study named 'nosuch'" in one_error_line(capsys)


def test_exports_never_follow_a_planted_symlink(tmp_path, capsys):
    study = write_study(tmp_path, name="e", seeds=1, duration="5s")
    assert main(["sweep", str(study), "--jobs", "2"]) == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    for option, name in (("--csv", "t.csv"), ("--parquet", "t.parquet")):
        (tmp_path / name).symlink_to(victim)
        assert main(["results", str(tmp_path / "e.db"), option, str(tmp_path / name)]) == 0
        assert not (tmp_path / name).is_symlink()
    (tmp_path / "p.png").symlink_to(victim)
    assert main(["plot", str(tmp_path / "e.db"), "--x", "per", "--y", "goodput", "--out",
                 str(tmp_path / "p.png")]) == 0
    assert not (tmp_path / "p.png").is_symlink()
    assert victim.read_text() == "keep me"


@pytest.mark.parametrize("raised, code, text", [
    (KeyboardInterrupt(), 130, "interrupted"),
    (MemoryError("the run's buffers"), 1, "error: out of memory: the run's buffers"),
    (tl.InternalError("invariant broken"), 1, "error: invariant broken"),
    (ZeroDivisionError("in on_ack"), 1, "error: ZeroDivisionError: in on_ack"),
    (tl.ScenarioError("links[0].rate: too small"), 2, "error: links[0].rate: too small"),
])
def test_what_a_run_raises_maps_to_one_exit_code(monkeypatch, capsys, raised, code, text):
    def run(self, **settings):
        raise raised

    monkeypatch.setattr(tl.Scenario, "run", run)
    assert main(["run", str(EXAMPLE)]) == code
    out, err = capsys.readouterr()
    assert err.splitlines() == [text]


def test_a_python_controller_that_raises_exits_1_in_one_line(tmp_path):
    (tmp_path / "badcc.py").write_text(
        "import tcplab as tl\n\n\nclass Bad(tl.CongestionControl):\n"
        "    def on_ack(self, tcb, ack):\n        raise ZeroDivisionError('divided by zero')\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text(EXAMPLE.read_text().split("[[flows]]")[0] + (
        '[[flows]]\nkind = "tcp"\nsrc = "a"\ndst = "b"\n'
        'cc = { name = "python", class = "badcc:Bad" }\n'))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # The controller's module is found beside the scenario file.
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(scenario)],
                       capture_output=True, text=True, cwd=elsewhere, env=env)
    assert r.returncode == 1
    assert r.stderr.splitlines() == ["error: ZeroDivisionError: divided by zero"]


@pytest.mark.parametrize("spec, problem", [
    ({"start": 1, "stop": 5, "step": 0}, "step = 0"),
    ({"start": 0.0, "stop": 1.0, "step": 0.0}, "step = 0"),
    ({"start": 1, "stop": 5, "step": -1}, "has no values"),
    ({"start": 1.0, "stop": 0.0, "step": 0.25}, "has no values"),
    ({"start": 0.0, "stop": 1.0, "num": 0}, "num = 0"),
    ({"start": 0.0, "stop": 1.0, "num": -3}, "num = -3"),
    ({"start": 0.0, "stop": 1.0, "num": 2.5}, "num = 2.5"),
    ({"start": 0.0, "stop": 1.0, "num": True}, "num = True"),
    ({"start": 0.0, "stop": 1.0, "num": 10**9}, "num = 1000000000"),
    ({"start": "a", "stop": 1.0, "num": 3}, "start = 'a' is not a number"),
    ({"start": 0, "stop": [1], "step": 1}, "stop = [1] is not a number"),
    ({"start": 0, "stop": 5, "step": "1"}, "step = '1' is not a number"),
    ({"start": 0, "stop": 5, "step": float("nan")}, "step = nan is not a number"),
    ({"start": 0, "stop": 5}, "exactly one of num and step"),
    ({"start": 0, "stop": 5, "num": 2, "step": 1}, "exactly one of num and step"),
    ({"start": 0, "stop": 5, "steps": 1}, "unknown range field 'steps'"),
    ({"start": 0, "stop": 10**9, "step": 1}, "1,000,000,001 values"),
    (5, "neither a list nor a range"),
    ([], "has no values"),
])
def test_bad_grid_ranges_name_the_key_and_what_is_allowed(spec, problem):
    from tcplab.sweep import expand_values

    with pytest.raises(tl.ScenarioError, match="allowed") as e:
        expand_values(spec, "links.l.rate")
    assert str(e.value).startswith("grid: 'links.l.rate': ")
    assert problem in str(e.value)
    assert e.value.path == "links.l.rate"


def test_ranges_that_count_down_work():
    from tcplab.sweep import expand_values

    assert expand_values({"start": 10, "stop": 1, "step": -3}, "k") == [10, 7, 4, 1]
    assert expand_values({"start": 1.0, "stop": 0.0, "step": -0.5}, "k") == [1.0, 0.5, 0.0]
    assert expand_values({"start": 3, "stop": 3, "step": -1}, "k") == [3]
    assert expand_values({"start": 2.0, "stop": 4.0, "num": 1}, "k") == [2.0]


def test_a_zero_step_in_a_study_file_is_one_line_exit_2(tmp_path, capsys):
    study = write_study(tmp_path, name="z", seeds=1, duration="5s")
    study.write_text(study.read_text().replace(
        '"flows.tcp0.cc" = ["newreno", "westwoodplus"]',
        '"flows.tcp0.initial_cwnd" = { start = 2, stop = 10, step = 0 }'))
    assert main(["sweep", str(study)]) == 2
    line = one_error_line(capsys)
    assert "flows.tcp0.initial_cwnd" in line and "step = 0" in line
    assert not (tmp_path / "z.db").exists()


def test_ctrl_c_of_tcplab_run_is_one_line_and_exit_130(tmp_path):
    import signal
    import time

    scenario = tmp_path / "long.toml"
    scenario.write_text('duration = "1000000s"\nhosts = ["a", "b"]\n'
                        '[[links]]\na = "a"\nb = "b"\nrate = "100Mbps"\ndelay = "1ms"\n'
                        '[[flows]]\nkind = "udp"\nsrc = "a"\ndst = "b"\nrate = "50Mbps"\n'
                        'size = "1000B"\n')
    # As a terminal starts it: Ctrl-C raises KeyboardInterrupt even when the
    # tests run with SIGINT ignored (in the background of a shell).
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from tcplab.cli import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.Popen([sys.executable, "-c", code, "run", str(scenario)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2)  # well into the run (the imports take a fraction of that)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.splitlines() == ["interrupted"] and out == ""
