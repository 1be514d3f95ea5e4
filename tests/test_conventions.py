"""One convention everywhere: run settings, confidence level, times and unlimited values."""

import inspect
import math

import numpy as np
import tcplab as tl
from tcplab import analysis, cli, plot, presets


def test_a_preset_runs_with_the_network_s_run_settings():
    sc = presets.westwood(cc="newreno", duration="600s")
    res = sc.run(seed=3, duration="5s", trace=["cwnd"])
    assert res.summary["sim_seconds"] == 5.0
    assert res.scenario["seed"] == 3
    t, w = res.trace("cwnd", flow=0)
    assert len(t) > 0 and t[-1] <= 5.0
    # The scenario itself is left as it was.
    assert sc.data["duration"] == "600s" and "trace" not in sc.data
    assert sc.run(duration="5s").scenario["seed"] == 1
    # Every run setting of Network.run is a run setting of Scenario.run.
    net = set(inspect.signature(tl.Network.run).parameters) - {"self"}
    assert net == set(inspect.signature(tl.Scenario.run).parameters) - {"self"}


def test_one_default_confidence_level_everywhere():
    assert tl.CI_LEVEL == 0.95
    assert inspect.signature(analysis.t_interval).parameters["level"].default == tl.CI_LEVEL
    assert inspect.signature(analysis.summarize).parameters["ci"].default == tl.CI_LEVEL
    assert inspect.signature(plot.line_ci).parameters["ci"].default == tl.CI_LEVEL
    p = cli.build_parser()
    for cmd in ("results", "plot"):
        sub = p._subparsers._group_actions[0].choices[cmd]
        assert sub.get_default("ci") == tl.CI_LEVEL, cmd
    import pandas as pd

    t = tl.summarize(pd.DataFrame({"g": ["a"] * 3, "x": [1.0, 2.0, 3.0]}), ["g"], ["x"])
    assert {"x_ci95_low", "x_ci95_high"} <= set(t.columns)


def _path() -> tl.Network:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="10ms")
    net.tcp(a, b)
    return net


def test_trace_times_carry_no_float_noise():
    res = _path().run(duration="1s", trace=["cwnd", "events"])
    frame = res.series_frame(period=0.1)
    times = frame[frame["series"] == "cwnd"]["time_s"].to_list()
    assert times == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert str(times[3]) == "0.3"
    # Every recorded time is the double nearest its decimal nanoseconds.
    t, _ = res.trace("cwnd", flow=0)
    assert len(t) > 2
    for x in t.tolist():
        assert len(repr(x).split(".")[-1]) <= 9, x  # at most nanosecond digits


def test_unlimited_ssthresh_is_infinite_not_two_to_the_53():
    res = _path().run(duration="1s", trace=["ssthresh"])
    _, v = res.trace("ssthresh", flow=0)
    assert math.isinf(v[0]) and not np.any(v == 2.0**53)
