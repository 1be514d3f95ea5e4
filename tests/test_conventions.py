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


def _two_flows(start, extra: bool = False) -> tl.Network:
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="10Mbps", delay="5ms")
    net.link(r, b, rate="2Mbps", delay="20ms", name="bottleneck")
    for name in ["x", "y", "z"][: 3 if extra else 2]:
        net.tcp(a, b, app=tl.Bulk(start=start), name=name)
    net.udp(a, b, rate="100kbps", start=start, name="u")
    return net


def test_a_uniform_start_makes_seeds_differ_without_random_loss():
    starts = {}
    for seed in (1, 2, 3):
        res = _two_flows(tl.UniformStart("1s", "3s")).run(duration="20s", seed=seed)
        starts[seed] = res.flows.set_index("flow")["start_s"]
        # Drawn from [1 s, 3 s), in whole nanoseconds, each flow its own.
        assert ((starts[seed] >= 1.0) & (starts[seed] < 3.0)).all()
        assert starts[seed].nunique() == 3
    assert not starts[1].equals(starts[2]) and not starts[2].equals(starts[3])
    # The same seed draws the same starts; a flow added leaves them alone.
    again = _two_flows(tl.UniformStart("1s", "3s")).run(duration="20s", seed=1)
    more = _two_flows(tl.UniformStart("1s", "3s"), extra=True).run(duration="20s", seed=1)
    assert again.flows.set_index("flow")["start_s"].equals(starts[1])
    kept = ["x", "y", "u"]
    assert more.flows.set_index("flow")["start_s"][kept].equals(starts[1][kept])
    # Without it, every seed gives the same bytes on this lossless path.
    fixed = [_two_flows("1s").run(duration="20s", seed=s).flows["delivered_bytes"].to_list()
             for s in (1, 2)]
    assert fixed[0] == fixed[1]


def test_a_uniform_start_is_start_plus_start_jitter_and_bad_ones_are_refused():
    sc = _two_flows(tl.UniformStart("1s", "3s")).scenario(duration="20s")
    f = sc.to_dict()["flows"][0]
    assert (f["start"], f["start_jitter"]) == ("1000000000ns", "2000000000ns")
    import pytest

    with pytest.raises(tl.ScenarioError, match="must be after low"):
        tl.UniformStart("2s", "1s").fields()
    late = _two_flows(tl.UniformStart("15s", "30s")).scenario(duration="20s")
    with pytest.raises(tl.ScenarioError, match=r"flows\[0\]\.start_jitter: .* after the end"):
        late.run()
    d = sc.to_dict()
    d["flows"][0]["start_jitter"] = "0s"
    with pytest.raises(tl.ScenarioError, match=r"flows\[0\]\.start_jitter: 0 s spreads nothing"):
        tl.Scenario(d).run()


def test_scenarios_and_results_display_as_html_tables():
    sc = _two_flows(tl.UniformStart("0s", "1s")).scenario(duration="5s")
    html = sc._repr_html_()
    assert "<b>tcplab scenario</b>" in html and "duration 5s" in html
    assert html.count("<tr>") == 1 + 2 + 1 + 3  # links header + 2 links, flows header + 3
    res = sc.run()
    html = res._repr_html_()
    assert "<b>tcplab results</b>" in html and "<th>goodput Mb/s</th>" in html
    # One row per flow and per link direction, the same cells as res.table().
    assert html.count("<tr>") == 1 + 3 + 1 + 4
    assert "x" in res.table() and "<td>x</td>" in html


def test_plots_draw_into_a_given_axes_return_the_figure_and_leave_the_backend_alone(tmp_path):
    import matplotlib

    # A backend that is not Agg, as a notebook's inline one is not: plotting
    # must leave it selected.
    before = matplotlib.get_backend()
    matplotlib.use("svg")
    from matplotlib.figure import Figure

    res = _two_flows("0s").run(duration="5s", trace=["cwnd"])
    t, w = res.trace("cwnd", flow=0)
    fig = Figure()
    ax = fig.subplots()
    got = plot.timeseries([("x", t, w)], ax=ax, ylabel="cwnd (B)")
    assert got is fig and ax.get_ylabel() == "cwnd (B)" and len(ax.lines) == 1
    # Without ax: a new figure, saved when asked, in PDF too.
    made = plot.timeseries([("x", t, w)], tmp_path / "c.pdf")
    assert made is not fig and (tmp_path / "c.pdf").read_bytes().startswith(b"%PDF")
    try:
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)


def test_line_ci_labels_units_styles_series_and_draws_bars_or_log_axes():
    import pandas as pd
    import pytest

    df = pd.DataFrame({"cc": ["a", "a", "b", "b"] * 2, "per": [0.001] * 4 + [0.01] * 4,
                       "goodput_bps": [1.0e6, 1.2e6, 0.8e6, 0.9e6, 0.5e6, 0.6e6, 0.3e6, 0.4e6]})
    fig = plot.line_ci(df, "per", "goodput_bps", hue="cc", logx=True)
    ax = fig.axes[0]
    assert ax.get_ylabel() == "goodput (Mb/s)" and ax.get_xscale() == "log"
    lines = [c.lines[0] for c in ax.containers]  # each series' data line
    assert len(lines) == 2 and lines[0].get_ydata()[0] == pytest.approx(1.1)  # Mb/s: mean 1.1
    assert lines[0].get_marker() != lines[1].get_marker()
    assert lines[0].get_linestyle() != lines[1].get_linestyle()
    bars = plot.line_ci(df, "per", "goodput_bps", hue="cc", kind="bar", xlabel="PER").axes[0]
    assert len(bars.patches) == 4 and bars.get_xlabel() == "PER"
    assert [t.get_text() for t in bars.get_xticklabels()] == ["0.001", "0.01"]
    assert plot.axis_label("delay_mean_s") == ("mean one-way delay (s)", 1.0)
    assert plot.axis_label("per") == ("packet error rate", 1.0)
    assert plot.axis_label("my_knob") == ("my_knob", 1.0)
