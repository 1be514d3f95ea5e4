"""Sweeps that nothing leaves hanging: killed parents, Ctrl-C, concurrent sweeps, retries."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tcplab as tl
from tcplab.store import Store
from tcplab.sweep import CRASH_SEED_ENV, EXEC_LOG_ENV, Sweep, load_study
from test_sweep import executed, write_study

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="counts processes through /proc")

CLI = [sys.executable, "-m", "tcplab.cli"]
# The command as a terminal starts it: Ctrl-C raises KeyboardInterrupt even
# when the tests run with SIGINT ignored (in the background of a shell).
CLI_CTRL_C = [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGINT, "
              "signal.default_int_handler); from tcplab.cli import main; "
              "sys.exit(main(sys.argv[1:]))"]


def _stat(pid: int) -> tuple[int, str, str] | None:
    """(parent pid, state, start time) of a process, or None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()
    return int(fields[1]), fields[0], fields[19]


def descendants(root: int) -> dict[int, str]:
    """Every process below ``root``, with its start time (to tell a reused pid)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit() and (st := _stat(int(d))) is not None:
            children.setdefault(st[0], []).append(int(d))
    out, todo = {}, [root]
    while todo:
        for kid in children.get(todo.pop(), []):
            st = _stat(kid)
            if st is not None:
                out[kid] = st[2]
                todo.append(kid)
    return out


def living(procs: dict[int, str]) -> list[int]:
    """Those of ``procs`` still running (not gone, not a zombie, not a reused pid)."""
    out = []
    for pid, start in procs.items():
        st = _stat(pid)
        if st is not None and st[1] not in "ZX" and st[2] == start:
            out.append(pid)
    return out


def stored(db: Path) -> set[str]:
    if not db.exists():
        return set()
    try:
        with Store(db) as s:
            return s.done_keys()
    except tl.TcplabError:
        return set()


def wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while not predicate():
        if time.time() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.1)


def test_a_sigkilled_sweep_leaves_no_process_behind(tmp_path):
    # Runs of 30000 simulated seconds take seconds each: the workers are busy
    # when the parent dies.
    study = write_study(tmp_path, name="orphans", seeds=2, duration="30000s")
    log = tmp_path / "exec.log"
    env = dict(os.environ, **{EXEC_LOG_ENV: str(log)})
    proc = subprocess.Popen([*CLI, "sweep", str(study), "--jobs", "2"], env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    procs: dict[int, str] = {}
    try:
        wait_for(lambda: len(executed(log)) >= 2)  # both workers are computing
        procs = descendants(proc.pid)
        assert len(procs) >= 3, procs  # two workers and multiprocessing's resource tracker
        os.kill(proc.pid, signal.SIGKILL)  # the parent alone, no cleanup
        proc.wait()
        time.sleep(2)
        assert living(procs) == []
    finally:
        for pid in living(procs):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()


def test_sigint_stops_a_sweep_with_one_line_and_keeps_every_finished_run(tmp_path):
    study = write_study(tmp_path, name="stopped", seeds=2, duration="3000s")
    db = tmp_path / "stopped.db"
    proc = subprocess.Popen([*CLI_CTRL_C, "sweep", str(study), "--jobs", "2"],
                            start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    procs: dict[int, str] = {}
    try:
        wait_for(lambda: len(stored(db)) >= 2)
        before = stored(db)
        procs = descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the whole group
        out, err = proc.communicate(timeout=30)
        after = stored(db)
        assert proc.returncode == 130, (out, err)
        assert err.splitlines() == [f"interrupted: {len(after)} of 16 runs stored; run the "
                                    "same command to resume"], err
        assert out == ""
        assert before <= after and len(after) < 16
        time.sleep(1)
        assert living(procs) == []
        with Store(db) as s:
            assert s.claims().empty  # released: a rerun starts at once
    finally:
        for pid in living(procs):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()


def test_two_sweeps_on_one_store_share_the_work(tmp_path):
    study = write_study(tmp_path, name="shared", seeds=2, duration="3000s")
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    procs = [subprocess.Popen([*CLI, "sweep", str(study), "--jobs", "1"],
                              env=dict(os.environ, **{EXEC_LOG_ENV: str(log)}),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for log in logs]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert "shared: 16 of 16 runs stored" in out
    a, b = executed(logs[0]), executed(logs[1])
    assert len(a) + len(b) == 16 and len(set(a) | set(b)) == 16  # each run computed once
    assert a and b  # and each sweep computed a share
    with Store(tmp_path / "shared.db") as s:
        assert len(s.runs()) == 16 and set(s.runs()["status"]) == {"ok"}
        assert s.claims().empty


def simple(tmp_path, **kw) -> Sweep:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="5ms", name="l", loss=tl.Uniform(0.01))
    net.tcp(a, b)
    kw.setdefault("grid", {"links.l.delay": ["5ms"]})
    kw.setdefault("seeds", [1, 2, 3])
    return Sweep(net.scenario(duration="5s"), db=tmp_path / "s.db", **kw)


def test_failed_runs_are_retried_on_the_next_invocation(tmp_path, monkeypatch):
    log = tmp_path / "exec.log"
    monkeypatch.setenv(EXEC_LOG_ENV, str(log))
    monkeypatch.setenv(CRASH_SEED_ENV, "3")  # the cause of the failure...
    sweep = simple(tmp_path)
    assert len(sweep.run(jobs=1, progress=False)) == 2
    assert list(sweep.status().failures["seed"]) == [3]
    failed_key = sweep.status().failures["key"][0]
    n = len(executed(log))
    monkeypatch.delenv(CRASH_SEED_ENV)  # ...is fixed
    assert len(sweep.run(jobs=1, progress=False, retry_failed=False)) == 2  # opted out
    assert len(executed(log)) == n
    df = sweep.run(jobs=1, progress=False)
    assert executed(log)[n:] == [failed_key]  # only the failed run, computed again
    assert len(df) == 3 and sweep.status().failed == 0


def test_the_cli_summary_groups_failures_by_error(tmp_path, capsys):
    from tcplab.cli import main

    study = write_study(tmp_path, name="bad", seeds=2, duration="5s")
    text = study.read_text().replace('"flows.tcp0.cc" = ["newreno", "westwoodplus"]',
                                     '"links.bottleneck.rate" = ["2Mbps", "-1Mbps"]')
    study.write_text(text)
    assert main(["sweep", str(study), "--jobs", "2"]) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith("bad: 16 of 16 runs stored") and "(8 failed)" in lines[0]
    assert len(lines) == 2 and lines[1].startswith("  failed, 8 runs (e.g. seed ")
    assert "links[1].rate" in lines[1]
    assert err.splitlines() == ["error: 8 of 16 runs failed; fix the cause and run the same "
                                "command to retry them"]


SCRIPT = """
import tcplab as tl

net = tl.Network()
a, b = net.host("a"), net.host("b")
net.link(a, b, rate="10Mbps", delay="5ms", name="l")
net.tcp(a, b)
sweep = tl.Sweep(net.scenario(duration="5s"), grid={{"links.l.delay": ["5ms", "10ms"]}},
                 seeds=range(1, 4), db={db!r})
{run}
"""
UNGUARDED = 'flows = sweep.run(jobs=2)\nprint("rows", len(flows))'
GUARDED = 'if __name__ == "__main__":\n    print("rows", len(sweep.run(jobs=2)))'


def test_an_unguarded_script_fails_fast_with_the_fix(tmp_path):
    script = tmp_path / "unguarded.py"
    db = tmp_path / "per.db"
    script.write_text(SCRIPT.format(db=str(db), run=UNGUARDED))
    t0 = time.time()
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=60, cwd=tmp_path)
    assert time.time() - t0 < 30
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("tcplab.errors.SweepError: ") and \
        'if __name__ == "__main__":' in last
    assert "RuntimeError" not in r.stderr  # multiprocessing's own complaint never shows
    with Store(db) as s:
        assert s.runs(current=False).empty and s.claims().empty
    # With the guard, the same script works.
    script.write_text(SCRIPT.format(db=str(db), run=GUARDED))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=60, cwd=tmp_path)
    assert r.returncode == 0 and "rows 6" in r.stdout, r.stderr


def test_dask_killed_worker_is_retried_then_recorded_failed(tmp_path, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    import dask

    monkeypatch.setenv(CRASH_SEED_ENV, "2")  # a worker dies on seed 2, every time
    sweep = simple(tmp_path)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as cluster:
            with distributed.Client(cluster) as client:
                df = sweep.run(dask=client, progress=False)
    assert sorted(df["seed"]) == [1, 3]
    status = sweep.status()
    assert status.ok == 2 and status.failed == 1
    error = status.failures["error"][0]
    assert error.startswith("KilledWorker") and "3 tries" in error


def test_reports_count_only_the_studys_own_runs(tmp_path, capsys):
    from tcplab.cli import main

    # Two studies, different names, one store (the reported "105 of 60").
    one = write_study(tmp_path, name="one", seeds=2, duration="5s")
    two = write_study(tmp_path, name="two", seeds=1, duration="5s")
    two.write_text(two.read_text().replace('name = "two"', 'name = "two"\ndb = "one.db"')
                   .replace('"flows.tcp0.cc" = ["newreno", "westwoodplus"]', ""))
    assert main(["sweep", str(one), "--jobs", "2"]) == 0
    assert main(["sweep", str(two), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "one: 16 of 16 runs stored" in out and "two: 4 of 4 runs stored" in out
    db = str(tmp_path / "one.db")
    # The reports never mix the two: name the study.
    assert main(["results", db]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"error: {db} holds 2 studies (one, two); choose one with "
                                "--study NAME"]
    assert main(["results", db, "--study", "two", "--group-by", "per"]) == 0
    out = capsys.readouterr().out
    assert "two: 4 runs (0 failed)" in out
    assert main(["results", db, "--study", "one", "--group-by", "cc,per"]) == 0
    assert "one: 16 runs (0 failed)" in capsys.readouterr().out


def test_a_study_file_is_read_with_every_mistake_named(tmp_path):
    p = tmp_path / "s.toml"
    for text, field in [('seeds = "abc"\n[scenario]\n', "seeds"),
                        ("seeds = [1, -2]\n[scenario]\n", "seeds"),
                        ("metrics = 3\n[scenario]\n", "metrics"),
                        ("grid = 3\n[scenario]\n", "grid"),
                        ("scenario = 3\n", "scenario"),
                        ("x = [", "not valid TOML")]:
        p.write_text(text)
        with pytest.raises(tl.ScenarioError, match=field):
            load_study(p)
