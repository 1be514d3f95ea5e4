"""A sweep's per-run time limit: a run that never ends is stopped, stored as failed with the
reason, and the sweep goes on; a worker that does not stop is killed."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import tcplab as tl
from tcplab import timeouts
from tcplab.store import Store
from tcplab.sweep import Sweep
from tcplab.timeouts import RunTimeout, time_limit

CONTROLLERS = textwrap.dedent("""
    import signal

    import tcplab as tl


    class Hang(tl.CongestionControl):
        \"\"\"Loops forever on its first ACK once `hang` is set; Reno otherwise.\"\"\"

        def __init__(self, hang=False, deaf=False):
            self.hang, self.deaf = hang, deaf

        def on_ack(self, tcb, ack):
            if self.deaf:  # a worker no signal stops: SIGALRM ignored
                signal.signal(signal.SIGALRM, signal.SIG_IGN)
            while self.hang:
                try:
                    pass
                except Exception:  # a controller's own catch-all must not swallow the limit
                    pass
            tcb.cwnd += max(1, tcb.mss * tcb.mss // tcb.cwnd)
""")


@pytest.fixture
def hangcc(tmp_path, monkeypatch):
    (tmp_path / "hangcc.py").write_text(CONTROLLERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    import hangcc

    return hangcc


def scenario(cc, duration="5s"):
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="5ms", loss=tl.Uniform(0.01))
    net.tcp(a, b, cc=cc)
    return net.scenario(duration=duration)


def test_a_run_that_never_ends_is_stopped_and_stored_as_failed(tmp_path, hangcc):
    cc = {"name": "python", "class": "hangcc:Hang"}
    sweep = Sweep(scenario(hangcc.Hang()), grid={"flows.tcp0.cc": [dict(cc, hang=True),
                                                                    dict(cc, hang=False)]},
                  seeds=[1, 2], db=tmp_path / "t.db", run_timeout=1.5)
    t0 = time.monotonic()
    flows = sweep.run(jobs=2, progress=False)
    assert time.monotonic() - t0 < 30
    assert len(flows) == 2 and set(flows["cc"]) == {"python:hangcc.Hang(hang=false)"}
    with Store(sweep.db) as store:
        failed = store.failures()
    assert len(failed) == 2
    assert failed["error"].str.startswith("RunTimeout: the run took longer than the sweep's run "
                                          "timeout (1.5 s of wall-clock time)").all()
    assert (failed["params"].map(lambda p: p["flows.tcp0.cc"]["hang"])).all()


def test_the_core_s_own_loop_is_stopped_too(tmp_path):
    sweep = Sweep(scenario("cubic", duration="100000s"), seeds=[1], db=tmp_path / "c.db",
                  run_timeout=1)
    t0 = time.monotonic()
    assert sweep.run(jobs=1, progress=False).empty
    assert time.monotonic() - t0 < 20
    with Store(sweep.db) as store:
        assert store.failures()["error"].str.startswith("RunTimeout").all()


def test_a_worker_that_does_not_stop_is_killed(tmp_path, hangcc, monkeypatch):
    monkeypatch.setattr(timeouts, "KILL_GRACE_S", 1.0)
    cc = {"name": "python", "class": "hangcc:Hang"}
    sweep = Sweep(scenario(hangcc.Hang()),
                  grid={"flows.tcp0.cc": [dict(cc, hang=True, deaf=True), dict(cc)]},
                  seeds=[1], db=tmp_path / "k.db", run_timeout=1)
    t0 = time.monotonic()
    flows = sweep.run(jobs=2, progress=False)
    assert time.monotonic() - t0 < 30
    assert len(flows) == 1  # the other run, computed again in a new pool
    with Store(sweep.db) as store:
        (error,) = store.failures()["error"]
    assert error.startswith("RunTimeout") and error.endswith("did not stop and was killed")


def test_a_limit_in_another_thread_stops_python_code():
    caught = []

    def spin():
        try:
            with time_limit(0.3):
                while True:
                    pass
        except RunTimeout:
            caught.append(True)
        time.sleep(0.5)  # nothing arrives after the block
        caught.append("after")

    t = threading.Thread(target=spin)
    t.start()
    t.join(10)
    assert caught == [True, "after"]


def test_cli_run_timeout(tmp_path, hangcc):
    study = tmp_path / "s.toml"
    study.write_text(textwrap.dedent("""
        name = "s"
        seeds = 1
        [scenario]
        duration = "5s"
        hosts = ["a", "b"]
        links = [{ a = "a", b = "b", rate = "10Mbps", delay = "5ms" }]
        flows = [{ kind = "tcp", src = "a", dst = "b", cc = { name = "python", class = "hangcc:Hang", hang = true } }]
    """))  # noqa: E501
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "sweep", str(study), "--jobs", "1",
                        "--run-timeout", "1"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=60)
    assert r.returncode == 1
    assert "RunTimeout: the run took longer" in r.stdout and "1 of 1 runs failed" in r.stderr
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "sweep", str(study),
                        "--run-timeout", "0"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "--run-timeout: '0' is not a number of seconds" in r.stderr
