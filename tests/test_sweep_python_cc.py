"""Sweeping congestion controls written in Python: named by import path, keyed by source."""

import uuid

import pytest
import tcplab as tl
from tcplab.sweep import EXEC_LOG_ENV, Sweep
from test_sweep import executed

CONTROLLER = """
import tcplab as tl


class Aimd(tl.CongestionControl):
    def __init__(self, gain=1):
        self.gain = gain

    def on_ack(self, tcb, ack):
        if tcb.cwnd < tcb.ssthresh:
            tcb.cwnd += min(ack.bytes_acked, tcb.mss)
        else:
            tcb.cwnd += max(1, self.gain * tcb.mss * tcb.mss // tcb.cwnd)
"""


@pytest.fixture
def controller(tmp_path, monkeypatch):
    """A controller module of its own name in tmp_path, importable here and by workers."""
    name = f"sweepcc_{uuid.uuid4().hex[:8]}"
    path = tmp_path / f"{name}.py"
    path.write_text(CONTROLLER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return name, path


def network(cc) -> tl.Network:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="20ms", name="l", loss=tl.Uniform(0.01))
    net.tcp(a, b, cc=cc)
    return net


def test_a_python_controller_sweeps_and_an_edit_recomputes(tmp_path, monkeypatch, controller):
    import importlib

    name, path = controller
    module = importlib.import_module(name)
    log = tmp_path / "exec.log"
    monkeypatch.setenv(EXEC_LOG_ENV, str(log))

    def sweep() -> Sweep:
        return Sweep(network(module.Aimd(gain=2)).scenario(duration="10s"),
                     grid={"links.l.delay": ["5ms", "20ms"]},
                     seeds=[1, 2], db=tmp_path / "cc.db")

    df = sweep().run(jobs=2, progress=False)
    assert len(df) == 4 and (df["goodput_bps"] > 1e6).all()
    runs = sweep().runs()
    cc = runs[0].scenario["flows"][0]["cc"]
    assert cc["class"] == f"{name}:Aimd" and cc["gain"] == 2 and len(cc["source"]) == 16
    assert len(executed(log)) == 4
    sweep().run(jobs=2, progress=False)
    assert len(executed(log)) == 4  # stored: nothing recomputed
    path.write_text(CONTROLLER.replace("self.gain * tcb.mss", "2 * self.gain * tcb.mss"))
    edited = sweep().run(jobs=2, progress=False)
    assert len(executed(log)) == 8  # the edited controller never reuses stale results
    assert not set(executed(log)[4:]) & set(executed(log)[:4])
    assert len(edited) == 4
    assert edited["goodput_bps"].sum() != df["goodput_bps"].sum()


def test_a_grid_can_vary_python_controllers_and_their_parameters(tmp_path, controller):
    name, _ = controller
    grid = {"flows.tcp0.cc": [{"name": "python", "class": f"{name}:Aimd", "gain": 1},
                              {"name": "python", "class": f"{name}:Aimd", "gain": 4},
                              "newreno"]}
    sweep = Sweep(network("newreno").scenario(duration="10s"), grid=grid, seeds=[1],
                  db=tmp_path / "g.db")
    df = sweep.run(jobs=2, progress=False)
    assert len(df) == 3 and sweep.status().failed == 0
    keys = {s.key for s in sweep.runs()}
    assert len(keys) == 3


def test_a_controller_defined_in_a_function_is_refused_naming_the_flow(tmp_path):
    class Local(tl.CongestionControl):
        def on_ack(self, tcb, ack):
            tcb.cwnd += tcb.mss

    sweep = Sweep(network(Local()).scenario(duration="5s"), seeds=[1, 2], db=tmp_path / "l.db")
    with pytest.raises(tl.ScenarioError, match=r"flows\[0\]\.cc.*inside a function"):
        sweep.runs()
    assert not (tmp_path / "l.db").exists()


def test_tcplab_sweep_finds_a_controller_beside_the_study(tmp_path):
    import os
    import subprocess
    import sys

    from test_sweep import write_study

    name = f"besidecc_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(CONTROLLER)
    study = write_study(tmp_path, name="py", seeds=2, duration="5s")
    study.write_text(study.read_text().replace(
        '"flows.tcp0.cc" = ["newreno", "westwoodplus"]',
        f'"flows.tcp0.cc" = [{{name = "python", class = "{name}:Aimd", gain = 2}}]'))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "sweep", str(study), "--jobs", "2"],
                       capture_output=True, text=True, cwd=elsewhere, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "py: 8 of 8 runs stored" in r.stdout and "(0 failed)" in r.stdout


def test_a_grid_of_controller_objects_and_variants(tmp_path, controller):
    import importlib

    name, _ = controller
    module = importlib.import_module(name)
    grid = {"flows.tcp0.cc": [module.Aimd(gain=3), tl.Vegas(alpha=2, beta=4), "newreno"]}
    sweep = Sweep(network("newreno").scenario(duration="10s"), grid=grid, seeds=[1],
                  db=tmp_path / "o.db")
    ccs = [s.scenario["flows"][0]["cc"] for s in sweep.runs()]
    assert ccs[0]["class"] == f"{name}:Aimd" and ccs[0]["gain"] == 3
    assert ccs[1]["name"] == "vegas" and ccs[1]["alpha"] == 2
    assert len(sweep.run(jobs=2, progress=False)) == 3 and sweep.status().failed == 0
