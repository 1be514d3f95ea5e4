"""Scenario files that name code: check never imports it; run imports what the file names."""

import subprocess
import sys
import textwrap
from pathlib import Path

import tcplab as tl

ROOT = Path(__file__).resolve().parent.parent

SCENARIO = textwrap.dedent("""
    duration = "1s"
    hosts = ["a", "b"]
    trace = ["cc:acks"]
    links = [{ a = "a", b = "b", rate = "10Mbps", delay = "1ms" }]
    flows = [{ kind = "tcp", src = "a", dst = "b", cc = { name = "python", class = "%s" } }]
""")

MODULE = textwrap.dedent("""
    import pathlib

    import tcplab as tl

    pathlib.Path(__file__).with_name("imported.marker").write_text("ran")


    class Cc(tl.CongestionControl):
        probes = {"acks": ("ACKs", "ACKs seen")}

        def on_ack(self, tcb, ack):
            tcb.cwnd += max(1, tcb.mss * tcb.mss // tcb.cwnd)
""")


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "tcplab.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def test_check_never_imports_a_module_a_scenario_names(tmp_path):
    (tmp_path / "sidecc.py").write_text(MODULE)
    sc = tmp_path / "s.toml"
    sc.write_text(SCENARIO % "sidecc:Cc")
    r = cli("check", sc, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert '"class": "sidecc:Cc"' in r.stdout
    assert not (tmp_path / "imported.marker").exists()
    tl.load(sc).check()  # the Python API neither
    assert not (tmp_path / "imported.marker").exists()
    # The standard library's `this` prints the Zen of Python when imported.
    sc.write_text(SCENARIO % "this:X")
    r = cli("check", sc, cwd=tmp_path)
    assert r.returncode == 0 and "Beautiful is better" not in r.stdout + r.stderr
    # A malformed class path is still refused, naming the field.
    sc.write_text(SCENARIO % "nocolon")
    r = cli("check", sc, cwd=tmp_path)
    assert r.returncode == 2 and "flows[0].cc.class" in r.stderr
    # Running the file imports the class it names (documented: files run code).
    sc.write_text(SCENARIO % "sidecc:Cc")
    r = cli("run", sc, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "imported.marker").read_text() == "ran"


def test_outputs_are_checked_before_the_run(tmp_path):
    sc = tmp_path / "w.toml"
    sc.write_text((ROOT / "examples" / "westwood_path_newreno.toml").read_text())
    (tmp_path / "afile").write_text("")
    for args, message in (
            (["--out", "/proc/nope"], "--out: cannot write into /proc/nope"),
            (["--trace-out", tmp_path / "afile"], "is a file, not a directory"),
            (["--pcap", "/proc/x"], "--pcap: cannot write into /proc/x"),
            (["--trace", "cwnd", "--trace-out", "o", "--trace-period", "5x"],
             "--trace-period: '5x'")):
        r = cli("run", sc, *args, cwd=tmp_path)
        # Refused before anything ran: no table, exit 2, one line.
        assert r.returncode == 2 and r.stdout == "", (args, r.stdout, r.stderr)
        assert r.stderr.startswith("error: ") and message in r.stderr
        assert r.stderr.count("\n") == 1
    # A scenario file's own pcap.dir is where captures go, even without --pcap: checked too.
    sc.write_text(sc.read_text() + '\n[pcap]\ndir = "/proc/y"\n')
    r = cli("run", sc, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == "" and "w.toml: pcap.dir: cannot write" in r.stderr


def test_a_bad_flag_is_blamed_on_the_flag_not_on_the_file(tmp_path):
    sc = tmp_path / "w.toml"
    sc.write_text((ROOT / "examples" / "westwood_path_newreno.toml").read_text())
    for args, start in ((["--duration", "5x"], "error: --duration: '5x': unknown unit 'x'"),
                        (["--memory-budget", "3zz"], "error: --memory-budget: '3zz'")):
        for command in ("run", "check"):
            r = cli(command, sc, *args, cwd=tmp_path)
            assert r.returncode == 2 and r.stderr.startswith(start), r.stderr
            assert "line" not in r.stderr
    sc.write_text(sc.read_text().replace('duration = "600s"', 'duration = "6xx"'))
    r = cli("run", sc, cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("error: duration: '6xx'")
    assert "w.toml, line 6]" in r.stderr


def test_a_fifo_named_as_a_scenario_file_is_refused_at_once(tmp_path):
    import os

    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    for command in ("check", "run"):
        r = subprocess.run([sys.executable, "-m", "tcplab.cli", command, str(fifo)],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and "is a FIFO (named pipe), not a scenario file" in r.stderr
