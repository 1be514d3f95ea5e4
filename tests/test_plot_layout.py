"""Figures for a paper by default: legends off the data, tick labels apart, words and units.

Each plot kind is rendered and measured with matplotlib's renderer in display
coordinates: the legend's box against every data artist (lines sampled
along their drawn path, markers, error bars, bars, boxes, point names), and
each axis's tick labels against each other. The checks here sample the
drawn geometry themselves rather than reuse tcplab.plot_layout's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cbook import STEP_LOOKUP_MAP
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.text import Text
from tcplab import plot


def _drawn(fig: Figure) -> object:
    """Draw ``fig`` on an Agg canvas (its layout runs) and return the renderer."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _samples(xy: np.ndarray, per: int = 40) -> np.ndarray:
    """Points along a polyline (display coordinates), ``per`` on each segment."""
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy) < 2:
        return xy
    t = np.linspace(0, 1, per)[None, :, None]
    return (xy[:-1, None, :] * (1 - t) + xy[1:, None, :] * t).reshape(-1, 2)


def _data_points(ax) -> list[np.ndarray]:
    """Every drawn data point of ``ax`` in display coordinates, lines sampled densely."""
    out = []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        xy = np.ma.filled(np.ma.asarray(line.get_xydata(), dtype=float), np.nan)
        if line.get_drawstyle().startswith("steps"):
            xy = np.column_stack(STEP_LOOKUP_MAP[line.get_drawstyle()](xy[:, 0], xy[:, 1]))
        d = line.get_transform().transform(xy)
        if line.get_linestyle() not in ("None", "none", "", " "):
            out.append(_samples(d))
        out.append(d[np.isfinite(d).all(axis=1)])
    for c in ax.collections:
        if isinstance(c, LineCollection):
            for s in c.get_segments():
                out.append(_samples(c.get_transform().transform(np.asarray(s, float))))
    return out


def _inside(points: np.ndarray, box, margin: float = 0.0) -> np.ndarray:
    return ((points[:, 0] > box.x0 - margin) & (points[:, 0] < box.x1 + margin)
            & (points[:, 1] > box.y0 - margin) & (points[:, 1] < box.y1 + margin))


def _areas_meet(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def assert_legend_off_data(fig: Figure) -> int:
    """No legend of ``fig`` covers a data point, bar, box or point name; returns legends seen."""
    renderer = _drawn(fig)
    seen = 0
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not ax.get_visible():
            continue
        seen += 1
        box = legend.get_window_extent(renderer)
        for pts in _data_points(ax):
            hit = pts[_inside(pts, box)]
            assert not len(hit), f"legend {box} covers data at {hit[:3]}"
        for patch in ax.patches:
            assert not _areas_meet(patch.get_window_extent(renderer), box), patch
        for text in ax.texts:
            assert not _areas_meet(text.get_window_extent(renderer), box), text.get_text()
    return seen


def tick_label_boxes(axis, renderer) -> list:
    """Boxes of the tick labels ``axis`` draws (in its view), major and minor."""
    lo, hi = sorted(axis.get_view_interval())
    boxes = []
    for which in ("major", "minor"):
        locs = axis.get_majorticklocs() if which == "major" else axis.get_minorticklocs()
        for loc, label in zip(locs, axis.get_ticklabels(which=which), strict=False):
            if label.get_visible() and label.get_text() and lo <= loc <= hi:
                boxes.append((label.get_text(), label.get_window_extent(renderer)))
    return boxes


def assert_tick_labels_apart(fig: Figure) -> None:
    renderer = _drawn(fig)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis in (ax.xaxis, ax.yaxis):
            boxes = tick_label_boxes(axis, renderer)
            for i, (ta, a) in enumerate(boxes):
                for tb, b in boxes[i + 1:]:
                    assert not _areas_meet(a, b), f"tick labels {ta!r} and {tb!r} overlap"


# ---- every plot kind ----------------------------------------------------------


def _sweep(x: str, values: list, ys: dict, seeds: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    rows = []
    for cc, level in (("newreno", 1.0), ("vegas", 0.6), ("westwoodplus", 0.85)):
        for k, v in enumerate(values):
            for _ in range(seeds):
                rows.append({"cc": cc, x: v, "flow": "tcp0", **{
                    col: f(level, k) * (1 + rng.normal(0, 0.03)) for col, f in ys.items()}})
    return pd.DataFrame(rows)


def _goodput(level: float, k: int) -> float:
    return 1.9e6 * level * (1 - 0.08 * k)


def _sojourn(level: float, k: int) -> float:
    return 0.005 + 0.05 * level * k ** 2


def _reverse_traffic_intervals() -> pd.DataFrame:
    # The reverse-traffic study's figure, whose legend hid whole bars: every
    # flow near the top of the axes in the first and third intervals.
    g = {"newreno": 0.87, "vegas": 0.2, "westwoodplus": 0.99}
    return pd.DataFrame([{"flow": f, "start_s": s,
                          "goodput_bps": (1.88e6 if s in (0.0, 500.0) else v * 1e6)}
                         for f, v in g.items() for s in (0.0, 250.0, 500.0, 750.0)])


def _kinds() -> dict:
    per = _sweep("per", [0, 0.001, 0.005, 0.01, 0.05],
                 {"goodput_bps": _goodput, "sojourn_p99_s": _sojourn})
    names = _sweep("queue", ["red(min_th=20,max_th=60)", "codel(target=5ms)",
                             "fq_codel(flows=1024)", "pie(target=15ms)", "droptail(100p)"],
                   {"goodput_bps": _goodput, "sojourn_p99_s": _sojourn})
    narrow = _sweep("m", [10, 20, 50], {"goodput_bps": lambda lv, k: (3.8 + 0.2 * lv) * 1e6})
    t = np.linspace(0, 60, 3000)
    return {
        "line": lambda: plot.line_ci(per, "per", "goodput_bps", hue="cc"),
        "line ms": lambda: plot.line_ci(per, "per", "sojourn_p99_s", hue="cc"),
        "line log-y": lambda: plot.line_ci(per, "per", "sojourn_p99_s", hue="cc", logy=True),
        "line log-y narrow": lambda: plot.line_ci(narrow, "m", "goodput_bps", hue="cc",
                                                  logy=True),
        "bar": lambda: plot.line_ci(names, "queue", "goodput_bps", hue="cc", kind="bar"),
        "bar log-y": lambda: plot.line_ci(names, "queue", "sojourn_p99_s", hue="cc",
                                          kind="bar", logy=True),
        "bar page": lambda: plot.line_ci(per, "per", "goodput_bps", hue="cc", kind="bar",
                                         size="page"),
        "cdf": lambda: plot.cdf(per, "sojourn_p99_s", hue="cc"),
        "box": lambda: plot.box(per, "per", "goodput_bps", hue="cc"),
        "box log-y": lambda: plot.box(names, "queue", "sojourn_p99_s", hue="cc", logy=True),
        "timeseries": lambda: plot.timeseries(
            [(f"flow {i}", t, 20 + 10 * np.sin(t / 3 + i)) for i in range(3)],
            ylabel="cwnd (segments)"),
        "interval bars": lambda: plot.interval_bars(_reverse_traffic_intervals(),
                                                    size="column"),
    }


@pytest.mark.parametrize("kind", list(_kinds()))
def test_every_plot_kind_keeps_its_legend_off_the_data_and_its_tick_labels_apart(
        kind, tmp_path) -> None:
    fig = _kinds()[kind]()
    plot.save(fig, tmp_path / "f.png")
    assert assert_legend_off_data(fig) == 1
    assert_tick_labels_apart(fig)


def test_the_reverse_traffic_figure_shows_every_bar(tmp_path) -> None:
    # Its bars reach the top in two of four intervals: no corner is free, so
    # the legend goes below the axes (it hid the third interval's bars).
    fig = plot.interval_bars(_reverse_traffic_intervals(), tmp_path / "iv.png", size="column")
    renderer = _drawn(fig)
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent(renderer)
    assert legend.y1 < ax.get_window_extent(renderer).y0
    assert legend.y1 < ax.xaxis.label.get_window_extent(renderer).y0  # under the axis label
    assert fig.get_size_inches()[0] == pytest.approx(3.5)


def test_a_legend_with_room_stays_inside(tmp_path) -> None:
    df = pd.DataFrame({"cc": ["a"] * 4 + ["b"] * 4, "per": [0.001, 0.01] * 4,
                       "goodput_bps": [1.0e6, 0.2e6, 1.02e6, 0.21e6, 0.9e6, 0.1e6, 0.92e6,
                                       0.11e6]})
    fig = plot.line_ci(df, "per", "goodput_bps", hue="cc", logx=True)
    renderer = _drawn(fig)
    ax = fig.axes[0]
    assert ax.get_window_extent(renderer).contains(
        *ax.get_legend().get_window_extent(renderer).p0)
    assert_legend_off_data(fig)


_CELLULAR = {"newreno": (0.429, 4.389), "cubic": (0.501, 4.352), "bbr": (0.258, 4.144),
             "vegas": (0.123, 3.855), "westwoodplus": (0.409, 4.175), "petra": (0.528, 4.335)}


def _tradeoff_table(traces: dict[str, float]) -> pd.DataFrame:
    """The cellular study's table: its close points on Verizon LTE behind drop-tail."""
    from tcplab.analysis import summarize

    rng = np.random.default_rng(4)
    rows = [{"cc": cc, "trace": tr, "seed": s, "delay_p95_s": d * k * (1 + rng.normal(0, .05)),
             "goodput_bps": g * 1e6 / k * (1 + rng.normal(0, .01))}
            for cc, (d, g) in _CELLULAR.items() for tr, k in traces.items() for s in range(5)]
    return summarize(pd.DataFrame(rows), ["cc", "trace"], ["goodput_bps", "delay_p95_s"],
                     ci=0.9)


def test_the_studies_panels_keep_legends_off_the_data(tmp_path) -> None:
    from tcplab.analysis import summarize
    from tcplab.studies import STUDIES, _draw, _figure

    rng = np.random.default_rng(3)
    panel = STUDIES["fairness"].panels[1]
    rows = [{"cc": cc, "m": m, "seed": s, "jain": min(1.0, v + rng.normal(0, 0.01))}
            for cc, v in (("newreno", 0.74), ("vegas", 0.95), ("westwoodplus", 0.85))
            for m in (10, 20, 50, 100, 200) for s in range(3)]
    table = summarize(pd.DataFrame(rows), ["cc", "m"], ["jain"], ci=0.9)
    fig = _draw(panel, table, "fairness")
    assert fig.axes[0].get_ylabel() == "Jain's fairness index"
    assert assert_legend_off_data(fig) == 1
    assert_tick_labels_apart(fig)
    assert [p.suffix for p in _figure(panel, table, tmp_path, "fairness")] == [".png", ".svg"]


def test_the_tradeoff_names_cover_no_name_marker_or_error_bar() -> None:
    from tcplab.studies import STUDIES, _draw

    fig = _draw(STUDIES["cellular"].panels[0],
                _tradeoff_table({"Verizon-LTE-short": 1, "TMobile-UMTS-driving": 5}),
                "cellular")
    renderer = _drawn(fig)
    for ax in fig.axes[:2]:
        names = [(t.get_text(), Text.get_window_extent(t, renderer)) for t in ax.texts]
        assert sorted(n for n, _ in names) == sorted(_CELLULAR)
        frame = ax.get_window_extent(renderer)
        data = np.concatenate(_data_points(ax))
        for i, (name, box) in enumerate(names):
            assert frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1), name
            assert not _inside(data, box).any(), f"{name} covers a point or an error bar"
            for other, b in names[i + 1:]:
                assert not _areas_meet(box, b), (name, other)
    assert_tick_labels_apart(fig)
    unit = {ax.get_title(): ax.get_xlabel() for ax in fig.axes[:2]}
    assert unit == {"Verizon-LTE-short": "95th-percentile one-way delay (ms)",
                    "TMobile-UMTS-driving": "95th-percentile one-way delay (s)"}  # 0.6-2.6 s


# ---- log axes and bars ----------------------------------------------------------


def test_bars_on_a_log_axis_become_points_with_their_intervals() -> None:
    df = _sweep("queue", ["codel", "pie", "red"], {"sojourn_p99_s": _sojourn})
    ax = plot.line_ci(df, "queue", "sojourn_p99_s", hue="cc", kind="bar", logy=True).axes[0]
    assert ax.get_yscale() == "log" and not ax.patches
    assert len(ax.containers) == 3  # an error bar container per hue
    data = ax.containers[0].lines[0]
    assert data.get_linestyle() == "None" and data.get_marker() == "o"
    linear = plot.line_ci(df, "queue", "sojourn_p99_s", hue="cc", kind="bar").axes[0]
    assert len(linear.patches) == 9 and linear.get_ylim()[0] == 0  # bars start at 0


def test_a_log_axis_reads_as_plain_numbers_without_minor_labels() -> None:
    narrow = _sweep("m", [10, 20, 50], {"goodput_bps": lambda lv, k: (3.8 + 0.2 * lv) * 1e6})
    fig = plot.line_ci(narrow, "m", "goodput_bps", hue="cc", logy=True)
    renderer = _drawn(fig)
    ax = fig.axes[0]
    labels = [t for t, _ in tick_label_boxes(ax.yaxis, renderer)]
    assert len(labels) >= 2, labels  # less than a decade: still numbers to read
    assert all(t.replace(".", "").isdigit() for t in labels), labels
    assert not [t for t in ax.yaxis.get_ticklabels(which="minor") if t.get_text()]
    wide = plot.line_ci(_sweep("per", [0.001, 0.01, 0.05], {"sojourn_p99_s": _sojourn}),
                        "per", "sojourn_p99_s", hue="cc", logy=True)
    renderer = _drawn(wide)
    labels = [t for t, _ in tick_label_boxes(wide.axes[0].yaxis, renderer)]
    assert set(labels) >= {"10", "100"}, labels


# ---- labels in words and units ----------------------------------------------------


@pytest.mark.parametrize(("name", "values", "want"), [
    ("sojourn_p99_s", [0.005, 0.2], ("99th-percentile sojourn time (ms)", 1e3)),
    ("sojourn_p99_s", [0.5, 2.0], ("99th-percentile sojourn time (s)", 1.0)),
    ("delay_mean_s", [20e-6, 400e-6], ("mean one-way delay (\u00b5s)", 1e6)),
    ("delay_mean_s", None, ("mean one-way delay (s)", 1.0)),
    ("rtt_p50_s", [0.05], ("median RTT (ms)", 1e3)),
    ("completion_time_s", [0.01, 3.0], ("completion time (s)", 1.0)),
    ("goodput_bps", [1e6, 9e6], ("goodput (Mb/s)", 1e-6)),
    ("goodput_bps", [20e3, 60e3], ("goodput (kb/s)", 1e-3)),
    ("transfer_bytes", [1e3, 3e6], ("transfer size (MB)", 1e-6)),
    ("queue_max_packets", None, ("longest queue (packets)", 1.0)),
    ("drops_aqm", None, ("AQM drops (packets)", 1.0)),
    ("jain", [0.8], ("Jain's fairness index", 1.0)),
    ("retransmission_ratio", None, ("retransmission ratio", 1.0)),
    ("cc", None, ("congestion control", 1.0)),
    ("fct_s", [0.002, 0.3], ("fct (ms)", 1e3)),
    ("per", None, ("packet error rate", 1.0)),
    ("my_knob", None, ("my_knob", 1.0)),
])
def test_axis_labels_are_words_with_units_scaled_to_the_data(name, values, want) -> None:
    label, factor = plot.axis_label(name, values)
    assert (label, factor) == (want[0], pytest.approx(want[1]))


def test_sub_second_times_are_drawn_in_ms() -> None:
    df = _sweep("per", [0.001, 0.01], {"sojourn_p99_s": _sojourn})
    ax = plot.line_ci(df, "per", "sojourn_p99_s", hue="cc").axes[0]
    assert ax.get_ylabel() == "99th-percentile sojourn time (ms)"
    mean = df[(df["cc"] == "newreno") & (df["per"] == 0.001)]["sojourn_p99_s"].mean()
    assert ax.containers[0].lines[0].get_ydata()[0] == pytest.approx(mean * 1e3)
    assert ax.get_legend().get_title().get_text() == "congestion control"
    cdf = plot.cdf(df, "sojourn_p99_s", hue="cc").axes[0]
    assert cdf.get_xlabel() == "99th-percentile sojourn time (ms)"
    assert cdf.get_ylabel() == "fraction of flows (CDF)"
    assert max(cdf.lines[0].get_xdata()) > 1  # in ms


# ---- the same data, the same bytes -------------------------------------------------


@pytest.mark.parametrize("suffix", [".svg", ".pdf", ".png"])
def test_the_same_figure_gives_the_same_bytes(suffix, tmp_path) -> None:
    import matplotlib

    df = _sweep("per", [0.001, 0.01, 0.05], {"goodput_bps": _goodput})
    salt = matplotlib.rcParams["svg.hashsalt"]
    a = plot.line_ci(df, "per", "goodput_bps", tmp_path / f"a{suffix}", hue="cc")
    plot.line_ci(df, "per", "goodput_bps", tmp_path / f"b{suffix}", hue="cc")
    plot.save(a, tmp_path / f"c{suffix}")
    first = (tmp_path / f"a{suffix}").read_bytes()
    assert first == (tmp_path / f"b{suffix}").read_bytes() == (tmp_path / f"c{suffix}").read_bytes()
    assert matplotlib.rcParams["svg.hashsalt"] == salt  # set for the save only
    if suffix == ".svg":
        assert b"<dc:date>" not in first
    if suffix == ".pdf":
        assert b"CreationDate" not in first


def test_a_user_axes_gets_the_legend_placed_once(tmp_path: Path) -> None:
    fig = Figure(figsize=(3.5, 2.6))
    ax = fig.subplots()
    df = _sweep("per", [0.001, 0.01, 0.05], {"goodput_bps": _goodput})
    got = plot.line_ci(df, "per", "goodput_bps", hue="cc", ax=ax)
    assert got is fig and fig.get_layout_engine() is None  # your figure's layout is yours
    assert_legend_off_data(fig)


def test_a_long_axis_label_breaks_into_lines_and_the_figure_keeps_its_width(tmp_path) -> None:
    df = _sweep("per", [0.001, 0.01, 0.05], {"goodput_bps": _goodput})
    long = ("queue limit, every link (packets waiting; ns-2's default 49), window 160, "
            "UDP at 800 kb/s")
    fig = plot.line_ci(df, "per", "goodput_bps", tmp_path / "f.png", hue="cc", xlabel=long)
    assert "\n" in fig.axes[0].get_xlabel()
    assert fig.axes[0].get_xlabel().replace("\n", " ") == long
    from matplotlib.image import imread

    width = imread(tmp_path / "f.png").shape[1]
    assert width <= 3.5 * fig.dpi + 1  # one column, not wider
