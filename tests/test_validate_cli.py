"""`tcplab validate`'s arguments, exit codes and progress, and a reference that breaks.

A stand-in `ns` (a script first on PATH) plays ns-2: it answers the
version probe, and per agent prints a result, garbage, or crashes, so the
harness is tested without ns-2 and in seconds.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tcplab.validation as tv
from tcplab import errors

CLI = [sys.executable, "-m", "tcplab.cli", "validate"]

FAKE_NS = """#!{python}
import json, os, signal, sys
if sys.argv[1].endswith("ns2_version.tcl"):
    print("2.35 tcp-linux")
    sys.exit(0)
args = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a)
how = json.loads(os.environ.get("FAKE_NS", "{{}}")).get(args["agent"], "ok")
if how == "garbage":
    print('Segmentation fault? {{"flows": [oops')
elif how == "error":
    sys.stderr.write("ns: can't read \\"agent\\": no such variable\\n")
    sys.exit(1)
elif how == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
else:
    flow = {{"acked": 50000, "acked_3q": 40000, "cuts": 10, "cwnd_mean": 20.0,
             "cwnd_end": 10, "data": 50010, "retransmitted": 10, "timeouts": 1}}
    print(json.dumps({{"flows": [flow] * int(args.get("flows", 1)), "queue_drops": 3}}))
"""


@pytest.fixture
def fake_ns(tmp_path, monkeypatch):
    """A stand-in ns-2 first on PATH; set how it answers with set(agent=how)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    ns = bindir / "ns"
    ns.write_text(FAKE_NS.format(python=sys.executable))
    ns.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("TCPLAB_NS3_PYTHON", raising=False)
    monkeypatch.chdir(tmp_path)  # no .venv-ns3 here

    def set_(**how: str) -> None:
        monkeypatch.setenv("FAKE_NS", json.dumps({k.replace("_", ":", 1): v
                                                  for k, v in how.items()}))
    return set_


@pytest.fixture
def no_references(tmp_path, monkeypatch):
    """Neither ns-2 nor ns-3: an empty PATH (the CLI runs by sys.executable)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TCPLAB_NS3_PYTHON"}
    env["PATH"] = str(empty)
    return env


def validate(*args: str, env: dict | None = None, cwd: Path | None = None):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120)


def test_an_unknown_section_is_a_usage_error_naming_it_and_the_allowed_names(tmp_path):
    r = validate("--only", "nosuchsection,reno", "--out", str(tmp_path / "v"))
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    [line] = r.stderr.splitlines()
    assert line.startswith("error: only: no section named 'nosuchsection' (allowed: ")
    for name in ("variants", "recoveries", "ns3", "theory", "reno", "cubic-2.6.22",
                 "ledbat", "nv"):
        assert re.search(rf"\b{re.escape(name)}\b", line), name
    assert not (tmp_path / "v").exists()  # nothing ran, nothing written


@pytest.mark.parametrize("args, message", [
    (["--seeds", "-3"], "error: seeds: -3 is not a number of seeds per lossy point "
                        "(allowed: 1 or more)"),
    (["--seeds", "0"], "error: seeds: 0 is not a number of seeds per lossy point "
                       "(allowed: 1 or more)"),
    (["--jobs", "0"], "error: jobs: 0 is not a number of reference runs in parallel "
                      "(allowed: 1 or more)"),
])
def test_seeds_and_jobs_below_1_are_usage_errors(tmp_path, args, message):
    r = validate("--quick", "--only", "theory", *args, "--out", str(tmp_path))
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.splitlines() == [message]
    with pytest.raises(errors.ScenarioError, match="seeds: -3"):
        tv.run(quick=True, only=["theory"], seeds=-3)


def test_comparing_nothing_exits_1_with_the_reason(tmp_path, no_references, monkeypatch):
    # reno needs ns-2 (TCP-Linux's reno, ns-2's Reno), not on this PATH.
    r = validate("--quick", "--only", "reno", "--out", str(tmp_path / "v"),
                 env=no_references, cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.splitlines()[-1] == (
        "error: tcplab validate compared nothing: the variants and recoveries need ns-2: "
        "ns-2 not found (apt-get install ns2)")
    assert "0 pass, 0 fail" not in r.stdout
    # ledbat has ns-3 alone, which --quick leaves out unless --only names ns3.
    r = validate("--quick", "--only", "ledbat", "--out", str(tmp_path / "v"),
                 env=no_references, cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "error: tcplab validate compared nothing: ledbat is compared with ns-3 alone, which "
        "--quick runs only when --only names ns3"]
    # Without --quick, ns-3 is what is missing.
    monkeypatch.setenv("PATH", no_references["PATH"])
    monkeypatch.delenv("TCPLAB_NS3_PYTHON", raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(errors.NothingCompared, match="compared nothing: the ns-3 sections need "
                                              "ns-3: no virtualenv with the ns3 wheel"):
        tv.run(only=["ledbat"])


def test_a_broken_reference_breaks_its_section_and_the_rest_still_runs(fake_ns, tmp_path):
    # TCP-Linux reno prints garbage, bic crashes at every run, ns-2's Reno
    # fails; cubic's module answers.
    fake_ns(linux_reno="garbage", linux_bic="kill", reno="error")
    lines: list[str] = []
    rep = tv.run(quick=True, only="reno,bic,cubic", seeds=1, progress=lines.append)
    got = {(s.kind, s.name): s for s in rep.sections}
    assert list(got) == [("variant", "reno"), ("variant", "cubic"), ("variant", "bic"),
                         ("recovery", "reno")]
    reno, cubic, bic, native = got.values()
    assert reno.broken.startswith("ns-2's result cannot be read (linux:reno, PER 0.001, "
                                  "seed 1: JSONDecodeError")
    assert reno.rows == [] and reno.figures == []
    assert bic.broken.startswith("ns-2 crashed (signal 9)")  # at every point
    assert native.broken.startswith("ns-2 exited with code 1 (reno, PER 0.001, seed 1): ns: "
                                    "can't read")
    assert not cubic.broken and len(cubic.rows) == 15
    assert all(r.verdict != "stalled" for r in cubic.rows)
    assert rep.broken == [reno, bic, native]
    # Each section's end says what became of it.
    assert f"variant reno: BROKEN reference, not compared: {reno.broken}" in "\n".join(lines)
    # In the report, the broken sections with their reasons.
    paths = tv.write(rep, tmp_path / "v")
    md = paths["markdown"].read_text()
    assert f"**The reference broke, so this section is not compared:** {reno.broken}" in md
    assert "The reference broke in 3 sections, not compared: variant reno, variant bic, " \
           "recovery reno." in md
    assert tv.load(paths["json"]).sections[0].broken == reno.broken


def test_the_command_exits_1_for_a_broken_section_and_0_for_open_misses(fake_ns, tmp_path,
                                                                        capsys):
    # lp's rows against the stand-in miss; lp's entries in OPEN and KNOWN
    # cover every point, so none FAILs: open misses do not fail the run.
    fake_ns()
    assert tv.command(quick=True, only="lp", seeds=1, out=tmp_path / "a") == 0
    out = capsys.readouterr().out
    assert re.search(r"\b0 fail, \d+ known differences, [1-9]\d* open misses", out), out
    fake_ns(linux_lp="garbage")
    assert tv.command(quick=True, only="lp,nv", seeds=1, out=tmp_path / "b") == 1
    out = capsys.readouterr().out
    assert "BROKEN variant lp: ns-2's result cannot be read" in out
    assert ", 1 sections whose reference broke" in out
    # Every section broken: nothing compared.
    with pytest.raises(errors.NothingCompared, match="compared nothing: variant lp: its reference "
                                              "broke"):
        tv.command(quick=True, only="lp", seeds=1, out=tmp_path / "c")


def test_each_section_prints_when_it_starts_and_when_it_ends(fake_ns, tmp_path):
    fake_ns()
    r = validate("--quick", "--only", "newreno,nv", "--seeds", "1", "--out", str(tmp_path))
    assert r.returncode in (0, 1), r.stderr  # the stand-in's numbers may miss
    err = r.stderr.splitlines()
    for label, start in [("recovery newreno", "tcplab (ns2 profile) against ns-2 newreno"),
                         ("variant nv", "behaviour checks (no runnable reference)")]:
        assert f"{label}: {start}" in err, err
        end = [x for x in err if re.fullmatch(
            rf"{label}: \d+ rows: .+ \(\d+(\.\d)? s\)", x)]
        assert len(end) == 1, err
        assert err.index(f"{label}: {start}") < err.index(end[0])


def test_bench_validate_refuses_docs_from_a_quick_run(tmp_path, monkeypatch, bench_script,
                                                      capsys):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "bench"))
    v = bench_script("validate")
    docs, readme = tmp_path / "validation.md", tmp_path / "README.md"
    docs.write_text(f"prose\n{v.BEGIN}\nthe full run's tables\n{v.END}\n")
    readme.write_text(f"{v.README_BEGIN}\nthe full run's table\n{v.README_END}\n")
    before = docs.read_text(), readme.read_text()
    monkeypatch.setattr(v, "DOCS", docs)
    monkeypatch.setattr(v, "README", readme)
    monkeypatch.setattr(v, "FIGURES", tmp_path / "figs")
    quick = tv.Report(mode="quick", date="2026-11-29", sections=[tv.Section(
        "theory", "Vegas queue", "one flow", ["Brakmo and Peterson"],
        rows=[tv.Row("1 flow", "mean queue", 2.2, 2.0, bounds=(1, 3))])])
    monkeypatch.setattr(v.tv, "run", lambda **kw: quick)  # the quick run, at once
    monkeypatch.setattr(sys, "argv", ["validate.py", "--quick", "--docs",
                                      "--out", str(tmp_path / "run")])
    with pytest.raises(SystemExit) as e:
        v.main()
    assert e.value.code == 2
    assert "--docs writes the full run's tables" in capsys.readouterr().err
    # A quick run's report given with --from-json is refused too.
    paths = tv.write(quick, tmp_path / "q")
    monkeypatch.setattr(sys, "argv", ["validate.py", "--from-json", str(paths["json"]),
                                      "--docs"])
    with pytest.raises(SystemExit) as e:
        v.main()
    assert e.value.code == 2
    assert "is a quick run's" in capsys.readouterr().err
    assert (docs.read_text(), readme.read_text()) == before
    assert not (tmp_path / "figs").exists()


FAKE_NS3 = """#!{python}
import json, sys
cc = sys.argv[sys.argv.index("--cc") + 1]
flows = int(sys.argv[sys.argv.index("--flows") + 1])
if cc == "TcpLedbat":
    print("{{not json")
else:
    print(json.dumps({{"rx_bytes": [100_000_000] * flows}}))
"""


def test_an_ns3_section_whose_runs_break_is_reported_and_the_others_run(tmp_path,
                                                                        monkeypatch):
    python = tmp_path / "python"
    python.write_text(FAKE_NS3.format(python=sys.executable))
    python.chmod(0o755)
    monkeypatch.setenv("TCPLAB_NS3_PYTHON", str(python))
    lines: list[str] = []
    rep = tv.run(only=["ledbat", "bbr"], seeds=1, progress=lines.append)
    ns3 = [s for s in rep.sections if s.kind == "ns-3"]
    assert [(s.name, bool(s.broken)) for s in ns3] == [("ledbat", True), ("bbr", False)]
    assert ns3[0].broken.startswith("ns-3's result cannot be read (TcpLedbat, 1 flow, PER 0, "
                                    "run 1: JSONDecodeError")
    assert [r.point for r in ns3[1].rows] == ["1 flow", "4 flows", "1 flow, PER 0.01"]
    assert any(re.fullmatch(r"ns-3 bbr: 3 rows: .+ \(\d+(\.\d)? s\)", x) for x in lines), lines
