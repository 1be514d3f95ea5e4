"""The results store: read-only readers, damaged files, claims, one study per name."""

import os
import subprocess
import sys
import time

import pytest
import tcplab as tl
from tcplab.store import Holder, Store, StoreError
from tcplab.sweep import EXEC_LOG_ENV, load_study
from test_sweep import executed, write_study

CLI = [sys.executable, "-m", "tcplab.cli"]


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_results_and_plot_of_a_missing_store_create_nothing(tmp_path):
    for args in (["results", "missing.db"],
                 ["plot", "missing.db", "--x", "per", "--y", "goodput", "--out", "p.png"]):
        r = cli(*args, cwd=tmp_path)
        assert r.returncode == 2
        assert r.stderr.splitlines() == ["error: no such results store: missing.db"]
        assert r.stdout == ""
        assert list(tmp_path.iterdir()) == []
    with pytest.raises(StoreError, match="no such results store"):
        Store(tmp_path / "missing.db")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def stored_db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("store")
    sweep = load_study(write_study(tmp, name="good", seeds=2, duration="5s"))
    sweep.run(jobs=2, progress=False)
    return sweep.db


@pytest.mark.parametrize("damage", ["truncated", "random bytes", "empty", "another database"])
def test_a_damaged_store_is_one_line_saying_how_to_recover(tmp_path, capsys, stored_db,
                                                           damage):
    db = tmp_path / "x.db"
    data = stored_db.read_bytes()
    if damage == "truncated":
        db.write_bytes(data[:len(data) // 2])
    elif damage == "random bytes":
        db.write_bytes(os.urandom(20_000))
    elif damage == "empty":
        db.write_bytes(b"")
    else:
        import sqlite3

        with sqlite3.connect(db) as c:
            c.execute("CREATE TABLE other (x)")
        c.close()
    from tcplab.cli import main

    for args in (["results", str(db)],
                 ["plot", str(db), "--x", "per", "--y", "goodput", "--out",
                  str(tmp_path / "p.png")]):
        assert main(args) == 2
        out, err = capsys.readouterr()
        [line] = err.splitlines()
        assert line.startswith(f"error: {db} is not a tcplab results store") and out == ""
        if damage in ("truncated", "random bytes"):
            assert line.endswith("move it aside and run the sweep again to recompute")
    assert not (tmp_path / "p.png").exists()
    if damage == "random bytes":  # a sweep into it says the same, and touches nothing
        study = write_study(tmp_path, name="x", seeds=1, duration="5s")
        r = cli("sweep", str(study), "--jobs", "1")
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
        assert "move it aside" in r.stderr


def test_a_claim_of_a_dead_or_silent_holder_expires(tmp_path, monkeypatch):
    import tcplab.store as store_module

    with Store(tmp_path / "c.db", write=True) as s:
        since = time.time()
        me, other = Holder.current(), Holder.current()
        assert s.claim("k1", me, since) == "claimed"
        assert s.claim("k1", other, since) == "busy"  # alive, same host
        # A process that is gone (or whose pid was reused) holds nothing.
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        ghost = Holder("ghost", me.host, me.boot, dead.pid, "1")
        assert s.claim("k2", ghost, since) == "claimed"
        assert s.claim("k2", other, since) == "claimed"
        reused = Holder("reused", me.host, me.boot, os.getpid(), "1")  # not our start time
        assert s.claim("k3", reused, since) == "claimed"
        assert s.claim("k3", other, since) == "claimed"
        # On another host only the lease tells: renewed, it holds; lapsed, it is free.
        far = Holder("far", "elsewhere.example", "", 1, "")
        assert s.claim("k4", far, since) == "claimed"
        assert s.claim("k4", other, since) == "busy"
        monkeypatch.setattr(store_module, "LEASE_S", -1.0)
        s.renew(far)  # the lease runs out at once
        assert s.claim("k4", other, since) == "claimed"
        # A run stored since the sweep began is not computed again.
        s.put(key="k5", study="s", params={}, seed=1, status="failed", scenario={},
              error="boom")
        assert s.claim("k5", other, since) == "stored"
        assert s.claim("k5", other, time.time() + 1) == "claimed"  # an older failure: retried


def test_two_different_studies_with_one_name_are_refused_and_a_wider_grid_resumes(
        tmp_path, capsys, monkeypatch):
    from tcplab.cli import main

    log = tmp_path / "exec.log"
    monkeypatch.setenv(EXEC_LOG_ENV, str(log))
    first = write_study(tmp_path, name="s", seeds=2, duration="5s")
    assert main(["sweep", str(first), "--jobs", "2"]) == 0
    assert "s: 16 of 16 runs stored" in capsys.readouterr().out
    # Another study file with the same name, in the same directory: same store.
    other = tmp_path / "other.toml"
    other.write_text(first.read_text().replace('duration = "5s"', 'duration = "6s"'))
    assert main(["sweep", str(other), "--jobs", "2"]) == 2
    out, err = capsys.readouterr()
    [line] = err.splitlines()
    assert line.startswith(f"error: {tmp_path / 's.db'} already holds a different study "
                           "named 's' (scenario.duration: \"5s\" there, \"6s\" here)")
    assert "another name" in line
    assert len(executed(log)) == 16  # nothing of the other study ran
    # The same study with more grid values and seeds resumes.
    wider = first.read_text().replace("seeds = 2", "seeds = 3").replace(
        "[0.001, 0.005, 0.01, 0.02]", "[0.001, 0.005, 0.01, 0.02, 0.03]")
    first.write_text(wider)
    assert main(["sweep", str(first), "--jobs", "2"]) == 0
    assert "s: 30 of 30 runs stored" in capsys.readouterr().out
    assert len(executed(log)) == 30  # 14 new runs, none of the first 16 again
    assert main(["results", str(tmp_path / "s.db"), "--group-by", "cc,per"]) == 0
    out = capsys.readouterr().out
    assert "s: 30 runs (0 failed)" in out
    # A narrower rerun shows only its own runs; the others are kept for later.
    first.write_text(wider.replace("seeds = 3", "seeds = 1"))
    assert main(["sweep", str(first), "--jobs", "2"]) == 0
    assert "s: 10 of 10 runs stored" in capsys.readouterr().out
    with Store(tmp_path / "s.db") as s:
        assert len(s.runs()) == 10 and len(s.runs(current=False)) == 30
        assert set(s.flows()["seed"]) == {1}
    assert len(executed(log)) == 30


def test_the_python_store_opens_read_only(tmp_path, stored_db):
    with Store(stored_db) as s:
        assert len(s.runs()) == 16 and s.studies() == ["good"]
        with pytest.raises(StoreError):
            s.put(key="k", study="s", params={}, seed=1, status="ok", scenario={})
    assert isinstance(StoreError("x"), tl.TcplabError)


def _open_at_once(path, barrier, errors: list) -> None:
    barrier.wait()
    try:
        with Store(path, write=True):
            pass
    except Exception as e:  # noqa: BLE001 - collected and asserted by the caller
        errors.append(e)


def test_sweeps_that_open_one_new_store_at_once_all_get_it(tmp_path):
    # Switching a new file to WAL mode takes an exclusive lock, and SQLite
    # answers a second opener "database is locked" at once, past its busy
    # timeout: two sweeps started together on a new store used to fail one
    # time in ten. Four openers at once, two hundred new files.
    import threading

    for i in range(200):
        barrier, errors = threading.Barrier(4), []
        threads = [threading.Thread(target=_open_at_once,
                                    args=(tmp_path / f"s{i}.db", barrier, errors))
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, f"file {i}: {errors[0]}"
