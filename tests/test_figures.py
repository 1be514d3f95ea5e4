"""Figures a reviewer accepts: bounded intervals, real x spacing, log axes, CDFs, boxes, sizes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from tcplab import plot
from tcplab.analysis import bounded_interval, bounds_of, summarize
from tcplab.cli import main
from test_sweep import write_study


def test_bounds_come_from_the_result_columns() -> None:
    assert bounds_of("goodput_bps") == (0.0, None)
    assert bounds_of("timeouts") == (0.0, None)
    assert bounds_of("retransmission_ratio") == (0.0, 1.0)
    assert bounds_of("jain") == (0.0, 1.0)
    assert bounds_of("per") == (None, None)


def test_a_t_interval_inside_the_bounds_is_kept() -> None:
    x = [1.0e6, 1.1e6, 0.9e6]
    lo, hi, method = bounded_interval(x, 0.95, (0.0, None))
    half = stats.t.ppf(0.975, 2) * np.std(x, ddof=1) / math.sqrt(3)
    assert method == "t" and lo == pytest.approx(1e6 - half) and hi == pytest.approx(1e6 + half)


def test_a_t_interval_crossing_a_bound_is_cut_there() -> None:
    # Two seeds, 0.1 and 3 Mb/s: mean 1.55, t(0.975, 1) = 12.706, standard
    # error |3 - 0.1| / 2 = 1.45 Mb/s: -16.87 to 19.97 Mb/s, cut at 0.
    x = [0.1e6, 3e6]
    assert bounded_interval(x, 0.95)[0] == pytest.approx(1.55e6 - 12.7062047 * 1.45e6)
    lo, hi, method = bounded_interval(x, 0.95, (0.0, None))
    assert method == "t-cut" and lo == 0
    assert hi == pytest.approx(1.55e6 + 12.7062047 * 1.45e6, rel=1e-7)
    lo, hi, method = bounded_interval([0.001, 0.3], 0.95, (0.0, 1.0))
    assert method == "t-cut" and lo == 0 and hi == 1
    lo, hi, method = bounded_interval([0.9, 0.99, 0.95], 0.90, (0.0, 1.0))
    assert method == "t-cut" and 0.8 < lo < 0.9 and hi == 1


def test_summarize_states_the_method_per_group() -> None:
    df = pd.DataFrame({"cc": ["a", "a", "b", "b"], "goodput_bps": [1e6, 1.01e6, 0.1e6, 3e6]})
    s = summarize(df, ["cc"], ["goodput_bps"])
    assert list(s["goodput_bps_ci95_method"]) == ["t", "t-cut"]
    assert (s["goodput_bps_ci95_low"] > 0).tolist() == [True, False]
    assert s["goodput_bps_ci95_low"][1] == 0
    raw = summarize(df, ["cc"], ["goodput_bps"], bounded=False)
    assert raw["goodput_bps_ci95_low"][1] < 0 and set(raw["goodput_bps_ci95_method"]) == {"t"}


@pytest.mark.parametrize(("values", "want", "unit"), [
    (["5ms", "25ms", "100ms"], [5, 25, 100], "ms"),
    (["0.5s", "2s"], [0.5, 2], "s"),
    (["1Mbps", "10Mbps"], [1, 10], "Mb/s"),
    (["400kbps", "1800kbps"], [0.4, 1.8], "Mb/s"),
    (["100kbps", "800kbps"], [100, 800], "kb/s"),
    (["10p", "49p"], [10, 49], "packets"),
    ([0, 0.001, 0.05], [0, 0.001, 0.05], ""),
    ([True, False], None, ""),
    (["reno", "cubic"], None, ""),
])
def test_parameter_values_get_positions_and_units(values, want, unit) -> None:
    xs, u = plot.x_values(values)
    assert (xs == want if want is None else xs == pytest.approx(want)) and u == unit


def _sweep_rows(x: str, values: list) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = [{"cc": cc, x: v, "goodput_bps": 1e6 + rng.normal(0, 1e5)}
            for cc in ("reno", "cubic") for v in values for _ in range(3)]
    return pd.DataFrame(rows)


def test_values_over_decades_get_a_log_axis_and_durations_their_unit() -> None:
    fig = plot.line_ci(_sweep_rows("per", [0, 0.001, 0.01, 0.05]), "per", "goodput_bps",
                       hue="cc")
    ax = fig.axes[0]
    assert ax.get_xscale() == "symlog"  # 0 is among the values
    assert ax.get_xlabel() == "packet error rate" and "Student-t" in ax.get_title()
    xs = ax.containers[0].lines[0].get_xdata()
    assert list(xs) == [0, 0.001, 0.01, 0.05]  # at their values, not evenly spaced
    fig = plot.line_ci(_sweep_rows("delay", ["1ms", "5ms", "25ms", "100ms"]), "delay",
                       "goodput_bps", hue="cc")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "one-way delay (ms)"
    narrow = plot.line_ci(_sweep_rows("m", [10, 20, 50]), "m", "goodput_bps", hue="cc")
    assert narrow.axes[0].get_xscale() == "linear"
    names = plot.line_ci(_sweep_rows("delayed_ack", [True, False]), "delayed_ack",
                         "goodput_bps", hue="cc")
    assert len(names.axes[0].patches) == 4  # categories: grouped bars


def test_figure_sizes_for_a_two_column_paper() -> None:
    df = _sweep_rows("per", [0.001, 0.01])
    col = plot.line_ci(df, "per", "goodput_bps", hue="cc")
    assert tuple(col.get_size_inches()) == (3.5, 2.6)
    assert col.axes[0].xaxis.label.get_size() == 9
    assert col.axes[0].get_xticklabels()[0].get_size() == 8
    page = plot.line_ci(df, "per", "goodput_bps", hue="cc", size="page")
    assert page.get_size_inches()[0] == pytest.approx(7.16)


def test_cdf_steps_to_one_and_counts_what_it_leaves_out() -> None:
    df = pd.DataFrame({"cc": ["a"] * 4 + ["b"] * 2,
                       "slowdown": [1.5, 2.0, 4.0, math.nan, 1.2, 100.0]})
    ax = plot.cdf(df, "slowdown", hue="cc").axes[0]
    a, b = ax.lines
    assert list(a.get_xdata()) == [1.5, 2.0, 4.0]
    assert list(a.get_ydata()) == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert a.get_label() == "a (1 NaN left out)" and b.get_label() == "b"
    assert ax.get_xscale() == "log"  # 1.2 to 100: nearly two decades
    narrow = plot.cdf(pd.DataFrame({"fct": [1.0, 2.0, 3.0, 4.0]}), "fct").axes[0]
    assert narrow.get_xscale() == "linear"


def test_box_plots_one_box_per_x_and_hue() -> None:
    df = _sweep_rows("per", [0.001, 0.01, 0.05])
    ax = plot.box(df, "per", "goodput_bps", hue="cc").axes[0]
    assert len(ax.patches) == 6
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.001", "0.01", "0.05"]
    assert ax.get_ylabel() == "goodput (Mb/s)"


def test_the_cli_draws_every_kind(tmp_path, capsys) -> None:
    study = write_study(tmp_path, name="k", seeds=2, duration="5s")
    assert main(["sweep", str(study), "--jobs", "2"]) == 0
    db = str(tmp_path / "k.db")
    for kind in ("line", "bar", "auto", "box"):
        out = tmp_path / f"{kind}.pdf"
        assert main(["plot", db, "--x", "per", "--y", "goodput", "--kind", kind,
                     "--out", str(out)]) == 0, kind
        assert out.read_bytes().startswith(b"%PDF")
    assert main(["plot", db, "--y", "goodput", "--kind", "cdf", "--size", "page",
                 "--out", str(tmp_path / "cdf.png")]) == 0
    assert (tmp_path / "cdf.png").stat().st_size > 1000
    capsys.readouterr()
    assert main(["plot", db, "--y", "goodput", "--kind", "box", "--out",
                 str(tmp_path / "b.png")]) == 2
    assert "--x: required with --kind box" in capsys.readouterr().err


def test_the_tradeoff_plot_names_close_points_without_overlapping_names() -> None:
    # The cellular study's Verizon LTE panel behind drop-tail: cubic and petra 21 ms
    # and 0.02 Mb/s apart, whose names at one fixed offset overlapped. Each name is
    # drawn where it covers no other name.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from tcplab.studies import _label_points

    fig = Figure(figsize=(3.5, 2.8))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    pts = [(429.0, 4.389, "newreno"), (501.0, 4.352, "cubic"), (258.0, 4.144, "bbr"),
           (123.0, 3.855, "vegas"), (409.0, 4.175, "westwoodplus"), (528.0, 4.335, "petra")]
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o")
    ax.set_xscale("log")
    ax.invert_xaxis()
    _label_points(ax, pts)
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    # The names' own boxes (an annotation's extent also spans its leader line).
    boxes = [Text.get_window_extent(t, renderer) for t in ax.texts]
    assert [t.get_text() for t in ax.texts] == [p[2] for p in pts]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)
