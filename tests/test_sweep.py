"""Sweeps: the resumable store, failures, executors, statistics, keys, CLI."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tcplab as tl
from scipy import stats
from tcplab.errors import StoreError
from tcplab.store import Store, run_key
from tcplab.sweep import EXEC_LOG_ENV, Sweep, load_study

STUDY = """
name = "{name}"
seeds = {seeds}

[scenario]
duration = "{duration}"
hosts = ["a", "b"]
routers = ["r"]

[[scenario.links]]
a = "a"
b = "r"
rate = "10Mbps"
delay = "45ms"

[[scenario.links]]
name = "bottleneck"
a = "r"
b = "b"
rate = "2Mbps"
delay = "10us"
loss = {{model = "uniform", per = 0.005}}

[[scenario.flows]]
kind = "tcp"
src = "a"
dst = "b"
cc = "newreno"

[grid]
"links.bottleneck.loss.per" = [0.001, 0.005, 0.01, 0.02]
"flows.tcp0.cc" = ["newreno", "westwoodplus"]
"""


def write_study(tmp_path: Path, name="s", seeds=2, duration="20s") -> Path:
    p = tmp_path / f"{name}.toml"
    p.write_text(STUDY.format(name=name, seeds=seeds, duration=duration))
    return p


def executed(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


def test_sweep_stores_every_run_and_a_rerun_computes_nothing(tmp_path, monkeypatch):
    log = tmp_path / "exec.log"
    monkeypatch.setenv(EXEC_LOG_ENV, str(log))
    sweep = load_study(write_study(tmp_path, duration="60s"))
    df = sweep.run(jobs=2, progress=False)
    assert len(df) == 4 * 2 * 2  # per x cc x seeds, one flow each
    assert set(df["per"]) == {0.001, 0.005, 0.01, 0.02}
    assert set(df["cc"]) == {"newreno", "westwoodplus"}
    first = executed(log)
    assert len(first) == 16 and len(set(first)) == 16
    sweep.run(jobs=2, progress=False)
    assert executed(log) == first  # nothing recomputed
    # Goodput falls with the loss rate, for NewReno (means over seeds).
    m = df[df["cc"] == "newreno"].groupby("per")["goodput_bps"].mean()
    assert m[0.001] > m[0.005] > m[0.02]


def test_sigkill_of_the_parent_midway_then_resume(tmp_path):
    # Runs of 6000 simulated seconds take a good fraction of a second each.
    study = write_study(tmp_path, name="killed", seeds=2, duration="6000s")
    db = tmp_path / "killed.db"
    log = tmp_path / "exec.log"
    env = dict(os.environ, **{EXEC_LOG_ENV: str(log)})
    cmd = [sys.executable, "-m", "tcplab.cli", "sweep", str(study), "--jobs", "1"]
    proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    stored_before: set[str] = set()
    while time.time() < deadline:
        time.sleep(0.2)
        if db.exists():
            try:
                with Store(db) as s:
                    stored_before = s.done_keys()
            except StoreError:
                # The sweep has made the file but not yet its tables.
                continue
            if len(stored_before) >= 5:
                break
    os.killpg(proc.pid, signal.SIGKILL)  # the parent and its workers, no cleanup
    proc.wait()
    with Store(db) as s:
        stored_before = s.done_keys()
        claims = s.claims()
    assert 5 <= len(stored_before) < 16, len(stored_before)
    # The killed sweep still holds its runs in flight...
    assert len(claims) >= 1 and set(claims["pid"]) == {proc.pid}
    n_before = len(executed(log))

    t0 = time.time()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    # ...which the next sweep takes over at once (its holder is gone), never
    # waiting for their leases to run out.
    assert time.time() - t0 < 25
    rerun = executed(log)[n_before:]
    assert not set(rerun) & stored_before  # no finished run recomputed
    with Store(db) as s:
        runs = s.runs()
    assert len(runs) == 16 and runs["key"].is_unique  # every run exactly once
    assert set(runs["status"]) == {"ok"}


def test_a_failing_configuration_is_recorded_and_the_rest_completes(tmp_path):
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="5ms", name="l")
    net.tcp(a, b)
    sweep = Sweep(net.scenario(duration="5s"), grid={"links.l.rate": ["10Mbps", "-1Mbps", "5Mbps"]},
                  seeds=[1, 2], db=tmp_path / "f.db")
    df = sweep.run(jobs=2, progress=False)
    assert sorted(set(df["rate"])) == ["10Mbps", "5Mbps"] and len(df) == 4
    with Store(sweep.db) as s:
        failed = s.failures()
    assert len(failed) == 2 and set(failed["seed"]) == {1, 2}
    assert all("links[0].rate" in e and "1 bit/s" in e for e in failed["error"])
    assert all(e.startswith("ScenarioError") for e in failed["error"])


def test_local_pool_and_dask_local_cluster_store_identical_results(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    study = write_study(tmp_path, name="same", seeds=2, duration="10s")
    local = load_study(study)
    local.db = tmp_path / "local.db"
    local.run(jobs=2, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            remote = load_study(study)
            remote.db = tmp_path / "dask.db"
            remote.run(dask=client, progress=False)

    def table(db):
        with Store(db) as s:
            f = s.flows()
        return f.sort_values(["key", "flow"]).reset_index(drop=True)

    a, b = table(local.db), table(remote.db)
    assert len(a) == 16
    pd.testing.assert_frame_equal(a, b)


def test_confidence_intervals_match_scipy_and_jain_index():
    x = [3.1, 2.7, 3.3, 2.9, 3.0, 3.6]
    for level in (0.90, 0.95):
        lo, hi = tl.t_interval(x, level)
        ref = stats.t.interval(level, len(x) - 1, loc=np.mean(x), scale=stats.sem(x))
        assert lo == pytest.approx(ref[0]) and hi == pytest.approx(ref[1])
    df = pd.DataFrame({"cc": ["a"] * 6 + ["b"] * 3, "g": x + [1.0, 2.0, 4.0]})
    s = tl.summarize(df, ["cc"], ["g"], ci=0.90).set_index("cc")
    assert s.loc["a", "g_count"] == 6 and s.loc["b", "g_max"] == 4.0
    assert s.loc["b", "g_std"] == pytest.approx(np.std([1, 2, 4], ddof=1))
    ref = stats.t.interval(0.90, 2, loc=7 / 3, scale=stats.sem([1, 2, 4]))
    assert (s.loc["b", "g_ci90_low"], s.loc["b", "g_ci90_high"]) == pytest.approx(ref)
    assert tl.jain_index([5, 5, 5, 5]) == pytest.approx(1.0)
    assert tl.jain_index([1, 0, 0, 0]) == pytest.approx(0.25)
    assert tl.jain_index([1, 2, 3]) == pytest.approx(36 / (3 * 14))


def test_run_key_changes_with_a_parameter_or_the_version_not_with_field_order():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="5ms")
    net.tcp(a, b, cc="vegas")
    resolved = net.scenario(duration="5s").check()
    k = run_key(resolved)
    assert run_key(json.loads(json.dumps(resolved, sort_keys=True))) == k
    reordered = dict(reversed(list(resolved.items())))
    reordered["links"] = [dict(reversed(list(resolved["links"][0].items())))]
    assert run_key(reordered) == k
    other = json.loads(json.dumps(resolved))
    other["flows"][0]["cc"]["alpha"] = 2.0
    assert run_key(other) != k
    assert run_key(resolved, version="9.9.9") != k
    # Defaults written out or left out resolve to the same configuration.
    explicit = net.scenario(duration="5s").to_dict()
    explicit["links"][0]["queue"] = "100p"
    assert run_key(tl.Scenario(explicit).check()) == k


def test_cli_sweep_results_and_plot(tmp_path, capsys):
    from tcplab.cli import main

    study = write_study(tmp_path, name="cli", seeds=2, duration="10s")
    assert main(["sweep", str(study), "--jobs", "2"]) == 0
    assert "16 of 16 runs stored" in capsys.readouterr().out
    db = tmp_path / "cli.db"
    out_csv, out_pq = tmp_path / "t.csv", tmp_path / "t.parquet"
    assert main(["results", str(db), "--group-by", "cc,per", "--ci", "0.90",
                 "--csv", str(out_csv), "--parquet", str(out_pq)]) == 0
    text = capsys.readouterr().out
    assert "goodput_bps_ci90_low" in text and "westwoodplus" in text
    t = pd.read_csv(out_csv)
    assert len(t) == 8 and (t["goodput_bps_count"] == 2).all()
    assert pd.read_parquet(out_pq).shape == t.shape
    png = tmp_path / "g.png"
    assert main(["plot", str(db), "--x", "per", "--y", "goodput", "--hue", "cc",
                 "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    svg = tmp_path / "g.svg"
    assert main(["plot", str(db), "--x", "per", "--y", "goodput_bps", "--out", str(svg)]) == 0
    assert svg.read_text().lstrip().startswith("<?xml")


def test_interval_goodput_and_interval_bars(tmp_path):
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="5ms")
    net.udp(a, b, rate="1Mbps", size="1000B", stop="25s", name="u")
    res = net.run(duration="40s", seed=1, interval="10s")
    iv = res.intervals
    assert list(iv["start_s"]) == [0, 10, 20, 30]
    assert iv["goodput_bps"].iloc[0] == pytest.approx(1e6, rel=0.01)
    assert iv["goodput_bps"].iloc[2] == pytest.approx(0.5e6, rel=0.02)  # stops at 25 s
    assert iv["goodput_bps"].iloc[3] == 0
    assert iv["delivered_bytes"].sum() == res.flow("u")["delivered_bytes"]
    from tcplab.plot import interval_bars, timeseries

    fig = interval_bars(iv, tmp_path / "iv.png")
    assert (tmp_path / "iv.png").stat().st_size > 5_000 and len(fig.axes[0].patches) == 4
    res2 = net.run(duration="5s", seed=1, trace=["queue"])
    t, q = res2.trace("queue", link="a-b")
    timeseries([("queue", t, q)], tmp_path / "q.pdf")
    assert (tmp_path / "q.pdf").read_bytes().startswith(b"%PDF")


def simple_sweep(tmp_path, **kw) -> Sweep:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="5ms", name="l", loss=tl.Uniform(0.01))
    net.tcp(a, b)
    kw.setdefault("grid", {"links.l.delay": ["5ms", "20ms"]})
    kw.setdefault("seeds", range(1, 7))
    return Sweep(net.scenario(duration="5s"), db=tmp_path / "s.db", **kw)


def test_a_crashing_run_is_isolated_and_innocent_runs_are_kept(tmp_path, monkeypatch):
    from tcplab.sweep import CRASH_SEED_ENV

    monkeypatch.setenv(CRASH_SEED_ENV, "3")
    sweep = simple_sweep(tmp_path)
    df = sweep.run(jobs=2, progress=False)
    with Store(sweep.db) as s:
        runs = s.runs()
    failed = runs[runs["status"] == "failed"]
    assert len(runs) == 12 and set(failed["seed"]) == {3} and len(failed) == 2
    assert all("crashed" in e for e in failed["error"])
    assert len(df) == 10  # every other run stored and returned


def test_ranges_seeds_and_rows_of_this_sweep_only(tmp_path):
    from tcplab.sweep import expand_values

    assert expand_values({"start": 1, "stop": 10, "step": 3}, "k") == [1, 4, 7, 10]
    assert all(isinstance(v, int) for v in expand_values({"start": 1, "stop": 4, "step": 1}, "k"))
    assert expand_values({"start": 0.0, "stop": 1.0, "num": 3}, "k") == [0.0, 0.5, 1.0]
    s = simple_sweep(tmp_path, grid={"flows.tcp0.initial_cwnd": {"start": 2, "stop": 4, "step": 1}},
                     seeds=(x for x in [1, 2]))  # a generator of seeds
    assert len(s.runs()) == 6 and len(s.runs()) == 6
    assert len(s.run(jobs=2, progress=False)) == 6
    narrower = simple_sweep(tmp_path, grid={"flows.tcp0.initial_cwnd": [2]}, seeds=[1])
    assert len(narrower.run(jobs=1, progress=False)) == 1  # only its own rows


def test_keys_cover_metrics_and_sweeps_refuse_pcap(tmp_path):
    a = simple_sweep(tmp_path, metrics=["goodput_bps"]).runs()[0].key
    b = simple_sweep(tmp_path, metrics=None).runs()[0].key
    assert a != b
    net = tl.Network()
    x, y = net.host("x"), net.host("y")
    net.link(x, y, rate="1Mbps", delay="1ms")
    net.udp(x, y, rate="100kbps", count=3)
    with pytest.raises(tl.ScenarioError, match="cannot write packet traces"):
        Sweep(net.scenario(pcap=tl.Pcap(dir=str(tmp_path))), db=tmp_path / "p.db").runs()


def test_checking_a_scenario_does_not_touch_its_pcap_files(tmp_path):
    net = tl.Network()
    x, y = net.host("x"), net.host("y")
    net.link(x, y, rate="1Mbps", delay="1ms", name="l")
    net.udp(x, y, rate="100kbps", count=50)
    sc = net.scenario(pcap=tl.Pcap(dir=str(tmp_path)))
    sc.run()
    size = (tmp_path / "l-0.pcap").stat().st_size
    assert size > 1000
    sc.check()
    assert (tmp_path / "l-0.pcap").stat().st_size == size


def test_results_warns_when_every_seed_of_a_point_is_identical(tmp_path, capsys):
    from tcplab.cli import main

    lossless = tmp_path / "lossless.toml"
    lossless.write_text(write_study(tmp_path, name="lossless", seeds=2, duration="5s")
                        .read_text().replace('loss = {model = "uniform", per = 0.005}', ""))
    lossless.write_text(lossless.read_text().replace(
        '"links.bottleneck.loss.per" = [0.001, 0.005, 0.01, 0.02]', ""))
    assert main(["sweep", str(lossless), "--jobs", "1"]) == 0
    capsys.readouterr()
    assert main(["results", str(tmp_path / "lossless.db"), "--group-by", "cc"]) == 0
    err = capsys.readouterr().err
    assert "identical results on every seed" in err and "2 of 2 groups" in err
    # With random loss, seeds differ: no warning.
    lossy = write_study(tmp_path, name="lossy", seeds=2, duration="20s")
    assert main(["sweep", str(lossy), "--jobs", "1"]) == 0
    capsys.readouterr()
    assert main(["results", str(tmp_path / "lossy.db"), "--group-by", "cc,per"]) == 0
    assert "identical" not in capsys.readouterr().err
