"""Figures with matplotlib: metric vs parameter with CI bars, CDFs, boxes, time series.

Each function draws into ``ax`` (a matplotlib Axes of yours) or into a new
figure, saves it to ``out`` when given (PNG, SVG or PDF, by the suffix) and
returns the figure. Figures are made without pyplot, so nothing here changes
matplotlib's backend or its list of open figures: in a notebook, a returned
figure displays as the cell's value, and inline plotting keeps working.

What every figure gets by default, for a paper:

- **Legends never cover data.** A legend goes where it covers no line,
  marker, error bar or bar inside the axes, else below them
  (:func:`~tcplab.plot_layout.place_legend`, at every draw).
- **Tick labels never overlap**; log axes read as plain numbers, without
  labelled minor ticks (:mod:`tcplab.plot_layout`).
- **Labels in words with units**: "99th-percentile sojourn time (ms)", not
  ``sojourn_p99_s``; times in ms (or us) when the values are below a second,
  data scaled to match (:func:`axis_label`).
- **No bars on a log axis.** A bar's length on a log axis depends on where
  the axis happens to start, so bar charts (``kind="bar"``) with
  ``logy=True`` draw each mean as a point with its interval, and linear
  bar charts start at 0.
- **The same data give the same bytes**, in PNG, SVG (no date, fixed ids)
  and PDF (no creation date) alike (:func:`save`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from tcplab._defaults import CI_LEVEL
from tcplab.analysis import summarize
from tcplab.plot_layout import is_tidy, label_points, mark, place_legend, tidy, tidy_layout

__all__ = ["FORMATS", "SIZES", "FONTS", "PARAM_LABELS", "COLUMN_LABELS", "new_figure",
           "style_axes", "axis_label", "x_values", "ci_note", "draw_summary", "line_ci", "cdf",
           "box", "timeseries", "interval_bars", "save", "place_legend", "label_points",
           "tidy_layout"]

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg", ".pdf")

#: Figure sizes in inches: one column and the full width of a two-column
#: paper (IEEE and ACM: 3.5 in and 7.16 in), and a screen-sized one.
SIZES: dict[str, tuple[float, float]] = {
    "column": (3.5, 2.6), "page": (7.16, 2.8), "screen": (6.4, 4.0)}
#: Font size (points) of tick labels, legends and axis labels, per size: a
#: column figure printed at its size reads as the paper's 8 to 9 pt text.
FONTS: dict[str, float] = {"column": 8.0, "page": 8.0, "screen": 10.0}

Size = str | tuple[float, float]


def new_figure(figsize: Size = "screen") -> tuple[Figure, Axes]:
    """A figure with one Axes, outside pyplot (no backend is selected or kept).

    ``figsize`` is a name of :data:`SIZES` or (width, height) in inches. The
    figure lays itself out at each draw (:func:`tidy_layout`): tight, with
    legends, tick labels and point names where they overlap nothing.
    """
    from matplotlib.figure import Figure

    size = SIZES[figsize] if isinstance(figsize, str) else figsize
    fig = Figure(figsize=size, dpi=100 if isinstance(figsize, tuple) else 200)
    fig._tcplab_font = FONTS.get(figsize, 10.0) if isinstance(figsize, str) else 10.0
    ax = fig.subplots()
    tidy_layout(fig)
    return fig, ax


def _axes(ax: Axes | None, figsize: Size) -> tuple[Figure, Axes]:
    return new_figure(figsize) if ax is None else (ax.figure, mark(ax))


def style_axes(fig: Any, ax: Axes) -> None:
    """Sets the texts' sizes for the figure's size (explicitly, not through rcParams)."""
    pt = getattr(fig, "_tcplab_font", None)
    if pt is None:
        return
    ax.tick_params(labelsize=pt)
    ax.xaxis.label.set_size(pt + 1)
    ax.yaxis.label.set_size(pt + 1)
    ax.title.set_size(pt + 1)
    legend = ax.get_legend()
    if legend is not None:
        for t in legend.get_texts():
            t.set_size(pt)
        legend.get_title().set_size(pt)


def axis_label(name: str, values: Any = None) -> tuple[str, float]:
    """A column's axis label in words with its unit, and the factor its values take.

    From the core's column metadata: ``goodput_bps`` is "goodput (Mb/s)"
    with values times 1e-6; ``sojourn_p99_s`` "99th-percentile sojourn time"
    in s, or in ms (times 1e3) or us when ``values`` (the data to be drawn)
    stay below 1 s or 1 ms; bytes in B, kB, MB or GB by their size. Other
    columns ending in ``_s``, ``_bps`` or ``_bytes`` are read the same way;
    ``jain`` is "Jain's fairness index"; a grid parameter known to tcplab's
    studies gets its quantity (``per`` is "packet error rate"); any other
    name is itself, unscaled.
    """
    from tcplab.schema import columns

    meta = {c["name"]: c for t in ("flows", "links") for c in columns(t)}.get(name)
    unit = meta["unit"] if meta is not None else next(
        (u for suffix, u in _SUFFIX_UNITS if name.endswith(suffix)), None)
    words = COLUMN_LABELS.get(name) or PARAM_LABELS.get(name)
    if unit is None:
        return words or name, 1.0
    words = words or _words(name)
    shown, factor = _unit(unit, values)
    if not shown or shown in words.replace("(", " ").replace(")", " ").split():
        return words, factor
    return f"{words} ({shown})", factor


_SUFFIX_UNITS = (("_s", "s"), ("_bps", "bit/s"), ("_bytes", "B"), ("_packets", "packets"))
_STATS = {"min": "minimum", "mean": "mean", "p50": "median", "p95": "95th-percentile",
          "p99": "99th-percentile", "max": "maximum"}
_QUANTITIES = {"delay": "one-way delay", "ack_delay": "ACK one-way delay",
               "sojourn": "sojourn time", "rtt": "RTT", "arq_delay": "ARQ delay",
               "queue": "queue length"}

#: Result columns in words, where the words are not the name's (the unit is
#: added from the column's metadata).
COLUMN_LABELS: dict[str, str] = {
    "jain": "Jain's fairness index", "goodput_bps": "goodput",
    "throughput_bps": "throughput (with retransmissions)",
    "unique_sent_bps": "sending rate without retransmissions",
    "retransmission_ratio": "retransmission ratio", "timeouts": "retransmission timeouts",
    "fast_retransmits": "fast retransmits", "dupacks": "duplicate ACKs",
    "ecn_reductions": "window reductions for ECN", "rtt_samples": "RTT samples",
    "retransmitted_segments": "retransmitted segments", "sent_packets": "packets sent",
    "sent_bytes": "payload sent", "delivered_packets": "packets delivered",
    "delivered_bytes": "payload delivered", "lost_queue": "packets dropped by queues",
    "lost_error": "packets lost to errors", "in_flight_packets": "packets in flight at the end",
    "jitter_s": "jitter", "ack_jitter_s": "ACK jitter", "completion_time_s": "completion time",
    "transfer_bytes": "transfer size", "slowdown": "slowdown (completion time / ideal)",
    "acked_bytes": "payload acknowledged", "ack_packets": "ACKs sent", "acks_lost": "ACKs lost",
    "mss": "MSS", "start_s": "start time", "rate_bps": "link rate",
    "delay_s": "propagation delay (one way)", "tx_packets": "packets transmitted",
    "tx_bytes": "bytes transmitted", "drops_queue": "queue overflow drops",
    "drops_aqm": "AQM drops", "marks": "ECN marks", "drops_error": "error drops",
    "utilization": "utilization", "queue_max_packets": "longest queue",
    "queue_mean_packets": "mean queue length", "queue_mean_bytes": "mean queue length",
    "trace_period_s": "trace period", "drops_outage": "outage drops",
    "arq_retries": "ARQ retransmissions", "arq_residual": "losses after ARQ",
    "end_s": "end time",
}

#: Quantities of the grid parameters tcplab's studies and presets use.
PARAM_LABELS: dict[str, str] = {
    "per": "packet error rate", "ber": "bit error rate", "delay": "one-way delay",
    "bottleneck_delay": "bottleneck one-way delay", "access_delay": "access one-way delay",
    "bottleneck_rate": "bottleneck rate", "rate": "rate", "udp_rate": "UDP rate",
    "mtu": "MTU (B)", "delayed_ack": "delayed ACK", "reverse_flows": "reverse flows",
    "window": "window (packets)", "queue": "queue limit", "reverse_queue":
    "reverse-direction queue limit", "m": "flows (M)", "hops": "hops",
    "bad_time": "Bad state's mean duration", "good_time": "Good state's mean duration",
    "load": "offered load", "flows": "flows", "start_s": "start (s)",
    "arq_attempts": "ARQ transmissions (1: none)", "cc": "congestion control",
    "variant": "congestion control", "recovery": "loss recovery", "profile": "settings profile",
    "trace": "capacity trace",
}


def _words(name: str) -> str:
    """``sojourn_p99_s`` as "99th-percentile sojourn time", ``foo_bar_s`` as "foo bar"."""
    base = name
    for suffix, _ in _SUFFIX_UNITS:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    head, _, stat = base.rpartition("_")
    if head and stat in _STATS:
        return f"{_STATS[stat]} {_QUANTITIES.get(head, head.replace('_', ' '))}"
    return _QUANTITIES.get(base, base.replace("_", " "))


def _unit(unit: str, values: Any) -> tuple[str, float]:
    """The unit to show for a column in ``unit`` and the factor, chosen from the values' size."""
    import numpy as np

    top = None
    if values is not None:
        v = np.abs(np.asarray(pd.to_numeric(pd.Series(values), errors="coerce"), dtype=float))
        v = v[np.isfinite(v)]
        top = float(v.max()) if len(v) else None
    if unit == "s":
        if top is None or top >= 1 or top == 0:
            return "s", 1.0
        return ("ms", 1e3) if top >= 1e-3 else ("\u00b5s", 1e6)
    if unit == "bit/s":
        if top is not None and 0 < top < 1e5:
            return "kb/s", 1e-3
        return ("Gb/s", 1e-9) if top is not None and top >= 1e10 else ("Mb/s", 1e-6)
    if unit == "B":
        for limit, shown in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if top is not None and top >= limit:
                return shown, 1 / limit
        return "B", 1.0
    return unit, 1.0


def x_values(values: Sequence[Any]) -> tuple[list[float] | None, str]:
    """Numeric positions for parameter values, and their unit; None for categories.

    Numbers are themselves; durations (``"25ms"``) are placed in ms or s,
    rates (``"2Mbps"``) in kb/s or Mb/s, queue limits (``"49p"``) in
    packets; booleans, names and mixed values are categories.
    """
    vals = list(values)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals):
        return [float(v) for v in vals], ""
    if not all(isinstance(v, str) for v in vals) or not vals:
        return None, ""
    from tcplab import _core

    for parse, units in ((_core.parse_duration, ((1e9, "s"), (1e6, "ms"), (1e3, "us"))),
                         (_core.parse_rate, ((1e6, "Mb/s"), (1e3, "kb/s"), (1.0, "b/s")))):
        try:
            base = [float(parse(v)) for v in vals]
        except ValueError:
            continue
        top = max(base)
        for factor, unit in units:
            if top >= factor or factor == units[-1][0]:
                return [b / factor for b in base], unit
    if all(v.endswith("p") and v[:-1].isdigit() for v in vals):
        return [float(v[:-1]) for v in vals], "packets"
    return None, ""


def _auto_log(xs: Sequence[float]) -> bool:
    """Whether positions span more than a decade (log or symlog, then, reads better)."""
    pos = [x for x in xs if x > 0]
    return (len(pos) > 2 and min(xs) >= 0 and max(pos) / min(pos) >= 20)


def _set_logx(ax: Axes, xs: Sequence[float]) -> None:
    pos = [x for x in xs if x > 0]
    if min(xs) == 0 and pos:
        # 0 has no logarithm: linear up to the smallest positive value.
        ax.set_xscale("symlog", linthresh=min(pos), linscale=0.5)
    else:
        ax.set_xscale("log")


MARKERS = ("o", "s", "^", "D", "v", "P", "X")
LINES = ("-", "--", "-.", ":")


def ci_note(table: pd.DataFrame, metric: str, tag: str) -> str:
    """How a summary's intervals were made, for a title or caption."""
    col = f"{metric}_{tag}_method"
    methods = sorted(set(table[col].dropna())) if col in table else ["t"]
    level = f"{tag[2:]}% CI"
    if "t-cut" in methods:
        return f"{level}, Student-t, cut at the metric's range"
    return f"{level}, Student-t"


def draw_summary(ax: Axes, table: pd.DataFrame, x: str, metric: str, hue: str | None = None,
                 low: str = "ci95_low", high: str = "ci95_high", scale: float = 1.0,
                 kind: str = "auto", logx: bool | None = None, logy: bool = False) -> str:
    """Draws a :func:`~tcplab.summarize` table's mean of ``metric`` vs ``x``.

    Error bars come from the ``<metric>_<low>`` and ``_<high>`` columns.

    ``kind="auto"`` draws lines at the parameter's values (numbers, or
    durations and rates with their unit) and grouped bars for categories
    (names, booleans); ``"point"`` draws the categories' means as points with
    their intervals, side by side per hue, which is what ``"bar"`` becomes on
    a log y axis (``logy``): a bar's length there would depend on where the
    axis starts. ``logx=None`` makes the x axis logarithmic when the values
    span more than a decade (symlog when one is 0). Returns the x axis's unit
    ("" for none).
    """
    order = list(dict.fromkeys(table[x]))
    xs, unit = x_values(order)
    if kind == "auto":
        kind = "line" if xs is not None else "bar"
    if kind not in ("line", "bar", "point"):
        raise ValueError(f"kind {kind!r}: line, bar, point or auto")
    if kind == "bar" and logy:
        kind = "point"
    place = dict(zip(order, xs, strict=True)) if xs is not None and kind == "line" else None
    groups = [(None, table)] if hue is None else list(table.groupby(hue, sort=False))
    width = 0.8 / max(len(groups), 1)
    for i, (label, g) in enumerate(groups):
        mean = g[f"{metric}_mean"] * scale
        err = [((g[f"{metric}_mean"] - g[f"{metric}_{low}"]) * scale).clip(lower=0).fillna(0),
               ((g[f"{metric}_{high}"] - g[f"{metric}_mean"]) * scale).clip(lower=0).fillna(0)]
        name = None if label is None else _category(label)
        if place is None:
            pos = [order.index(v) - 0.4 + width * (i + 0.5) for v in g[x]]
            if kind == "bar":
                ax.bar(pos, mean, width=width, yerr=err, capsize=2, label=name,
                       error_kw={"elinewidth": 0.8})
            else:
                ax.errorbar(pos, mean, yerr=err, marker=MARKERS[i % len(MARKERS)],
                            markersize=4, linestyle="none", capsize=2, elinewidth=0.8,
                            label=name)
        else:
            ax.errorbar([place[v] for v in g[x]], mean, yerr=err,
                        marker=MARKERS[i % len(MARKERS)], markersize=4,
                        linestyle=LINES[i % len(LINES)], linewidth=1.0, capsize=2, label=name)
    if place is None:
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels([_category(c) for c in order])
        if kind == "point":
            ax.set_xlim(-0.6, len(order) - 0.4)
    elif logx or (logx is None and _auto_log(list(place.values()))):
        _set_logx(ax, list(place.values()))
    elif all(float(v).is_integer() for v in place.values()):
        # Counts (hops, flows, ARQ transmissions): no ticks between them.
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.xaxis._tcplab_integer = True
    if logy:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    return unit if place is not None else ""


def _category(value: Any) -> str:
    """A category's tick label: 250.0 as "250", names as themselves."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def line_ci(flows: pd.DataFrame, x: str, y: str, out: str | Path | None = None,
            hue: str | None = None, ci: float = CI_LEVEL, title: str | None = None,
            ylabel: str | None = None, ax: Axes | None = None, kind: str = "auto",
            xlabel: str | None = None, logx: bool | None = None, logy: bool = False,
            size: Size = "column") -> Figure:
    """Mean of ``y`` vs ``x`` with confidence-interval bars, one series per ``hue`` value.

    The intervals are :func:`~tcplab.summarize`'s: Student-t, cut at the
    metric's range (goodput >= 0, ratios in [0, 1]) where they would cross
    it; the title says when. ``kind``:
    ``"line"`` (a marker and a dash style per series, so that overlapping
    ones stay visible), ``"bar"`` (grouped bars at evenly spaced categories;
    with ``logy``, points with their intervals instead, as bars on a log
    axis mislead), ``"point"`` (those points), or ``"auto"``: lines for
    numeric values (durations and rates too, at their values), bars for
    names. The axes take their labels and units from the result column and
    the parameter (goodput in Mb/s, a delay in ms when below a second);
    ``logx=None`` chooses a log x axis when the values span more than a
    decade. ``size``: ``"column"`` (default), ``"page"`` or ``"screen"``, or
    (width, height) in inches.
    """
    if kind not in ("line", "bar", "point", "auto"):
        raise ValueError(f"kind {kind!r}: line, bar, point or auto")
    fig, ax = _axes(ax, size)
    by = [x] if hue is None else [hue, x]
    s = summarize(flows, by, [y], ci=ci)
    s = s.sort_values([*([hue] if hue else []), x],
                      key=lambda c: c.map(_sort_key) if c.name == x else c)
    tag = f"ci{round(ci * 100)}"
    label_y, scale = axis_label(y, s[f"{y}_mean"])
    unit = draw_summary(ax, s, x, y, hue, f"{tag}_low", f"{tag}_high", scale, kind, logx, logy)
    name = axis_label(x)[0]
    ax.set_xlabel(xlabel or (f"{name} ({unit})" if unit else name))
    ax.set_ylabel(ylabel or label_y)
    if hue is not None:
        place_legend(ax, title=axis_label(hue)[0])
    ax.set_title(title or f"mean, {ci_note(s, y, tag)}")
    style_axes(fig, ax)
    return _done(fig, out)


def _sort_key(v: Any) -> Any:
    """Orders parameter values by their magnitude ("5ms" before "25ms")."""
    xs, _ = x_values([v])
    return (0, xs[0], "") if xs is not None else (1, 0.0, str(v))


def cdf(flows: pd.DataFrame, column: str, out: str | Path | None = None,
        hue: str | None = None, ax: Axes | None = None, logx: bool | None = None,
        xlabel: str | None = None, title: str | None = None, size: Size = "column",
        ylabel: str | None = None) -> Figure:
    """The empirical CDF of ``column`` over the rows, one line per ``hue`` value.

    For distributions across flows or runs: completion times and slowdowns
    of a workload, per-flow goodput. NaN rows are left out (unfinished
    transfers have no completion time: the legend counts them). ``logx=None``
    chooses a log x axis when the values span more than a decade. The y axis
    is the fraction of transfers (rows with a ``transfer_bytes``), of flows
    (rows with a ``flow``) or of values, at or below x, unless ``ylabel``.
    """
    import numpy as np

    fig, ax = _axes(ax, size)
    label, scale = axis_label(column, flows[column])
    groups = [(None, flows)] if hue is None else list(flows.groupby(hue, sort=True))
    everything = []
    for i, (name, g) in enumerate(groups):
        v = np.sort(g[column].astype(float).dropna().to_numpy() * scale)
        everything.extend(v)
        missing = len(g) - len(v)
        text = None if name is None else str(name)
        if missing:
            text = f"{text or column} ({missing} NaN left out)"
        ax.step(v, np.arange(1, len(v) + 1) / max(len(v), 1), where="post", lw=1.0,
                linestyle=LINES[i % len(LINES)], label=text)
    if logx or (logx is None and everything and _auto_log(everything)):
        _set_logx(ax, everything)
    ax.set_xlabel(xlabel or label)
    ax.set_ylabel(ylabel or _cdf_label(flows))
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    if hue is not None or any(a.get_label()[:1] != "_" for a in ax.lines):
        place_legend(ax, title=None if hue is None else axis_label(hue)[0])
    ax.set_title(title or f"CDF of {label}")
    style_axes(fig, ax)
    return _done(fig, out)


def box(flows: pd.DataFrame, x: str, y: str, out: str | Path | None = None,
        hue: str | None = None, ax: Axes | None = None, xlabel: str | None = None,
        ylabel: str | None = None, logy: bool = False, title: str | None = None,
        size: Size = "column") -> Figure:
    """Box plots of ``y`` per value of ``x`` (and of ``hue``).

    The spread over seeds or flows, where a mean and its interval hide the shape.

    Boxes span the quartiles with the median marked; whiskers reach the
    furthest values within 1.5 interquartile ranges; points beyond are drawn.
    """
    fig, ax = _axes(ax, size)
    label, scale = axis_label(y, flows[y])
    order = sorted(flows[x].unique(), key=_sort_key)
    hues = [None] if hue is None else sorted(flows[hue].unique(), key=str)
    width = 0.8 / len(hues)
    for i, h in enumerate(hues):
        sel = flows if h is None else flows[flows[hue] == h]
        data = [sel[sel[x] == v][y].astype(float).dropna().to_numpy() * scale for v in order]
        pos = [k - 0.4 + width * (i + 0.5) for k in range(len(order))]
        parts = ax.boxplot(data, positions=pos, widths=width * 0.9, patch_artist=True,
                           flierprops={"markersize": 3}, medianprops={"color": "black"})
        colour = f"C{i}"
        for b in parts["boxes"]:
            b.set_facecolor(colour)
            b.set_alpha(0.6)
        if h is not None:
            parts["boxes"][0].set_label(str(h))
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels([_category(v) for v in order])
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel or axis_label(x)[0])
    ax.set_ylabel(ylabel or label)
    ax.grid(alpha=0.3, axis="y")
    if hue is not None:
        place_legend(ax, title=axis_label(hue)[0])
    ax.set_title(title or f"{label}: median, quartiles, 1.5 IQR")
    style_axes(fig, ax)
    return _done(fig, out)


def timeseries(series: Sequence[tuple[str, object, object]], out: str | Path | None = None,
               ylabel: str = "", title: str = "", step: bool = True,
               ax: Axes | None = None, size: Size = "page") -> Figure:
    """Time series (label, times in s, values), e.g. cwnd of several flows.

    ``size``: ``"page"`` (default: the full width of a two-column paper),
    ``"column"``, ``"screen"``, or (width, height) in inches.
    """
    fig, ax = _axes(ax, size)
    for i, (label, t, v) in enumerate(series):
        style = LINES[i % len(LINES)]
        if step:
            ax.step(t, v, where="post", lw=0.9, linestyle=style, label=label)
        else:
            ax.plot(t, v, lw=0.9, linestyle=style, label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    place_legend(ax, fontsize=8)
    style_axes(fig, ax)
    return _done(fig, out)


def interval_bars(intervals: pd.DataFrame, out: str | Path | None = None, hue: str = "flow",
                  y: str = "goodput_bps", title: str = "", ax: Axes | None = None,
                  size: Size = "page") -> Figure:
    """Bars of per-interval goodput (mean over rows), grouped by interval, one bar per ``hue``."""
    fig, ax = _axes(ax, size)
    g = intervals.groupby(["start_s", hue], sort=True)[y].mean().unstack(hue)
    label, scale = axis_label(y, g.to_numpy().ravel())
    g = g * scale
    width = 0.8 / max(len(g.columns), 1)
    for i, col in enumerate(g.columns):
        ax.bar([k + i * width for k in range(len(g))], g[col], width=width, label=str(col))
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(g))])
    ax.set_xticklabels([f"{s:g}" for s in g.index])
    ax.set_xlabel("interval start (s)")
    ax.set_ylabel(label)
    ax.set_title(title)
    place_legend(ax, fontsize=8, title=axis_label(hue)[0])
    ax.grid(alpha=0.3, axis="y")
    style_axes(fig, ax)
    return _done(fig, out)


def _cdf_label(rows: pd.DataFrame) -> str:
    if "transfer_bytes" in rows and len(rows) and (rows["transfer_bytes"] > 0).all():
        return "fraction of transfers (CDF)"
    return "fraction of flows (CDF)" if "flow" in rows else "fraction of values (CDF)"


def _done(fig: Figure, out: str | Path | None) -> Figure:
    if out is not None:
        save(fig, out)
    elif not is_tidy(fig):
        tidy(fig)  # an Axes of yours: placed once, in its figure's layout now
    return fig


#: What makes a saved file the same bytes for the same figure: no dates, and
#: SVG ids from a fixed salt instead of random ones.
METADATA: dict[str, dict[str, Any]] = {
    ".png": {}, ".svg": {"Date": None}, ".pdf": {"CreationDate": None, "ModDate": None}}
SVG_SALT = "tcplab"


def save(fig: Any, out: str | Path) -> Path:
    """Write ``fig`` to ``out`` (.png, .svg or .pdf), atomically; return the path.

    The same figure gives the same bytes in each format: the SVG and PDF
    carry no date and the SVG's ids come from a fixed salt (matplotlib's
    ``svg.hashsalt``), set for this save only.
    """
    import matplotlib

    p = Path(out)
    if p.suffix not in FORMATS:
        raise ValueError(f"{p}: write {', '.join(FORMATS)}")
    p.parent.mkdir(parents=True, exist_ok=True)
    if not is_tidy(fig):
        fig.tight_layout()
        tidy(fig)
    from tcplab._files import atomic_write

    # "tight": a long label or title widens the saved image rather than being cut off.
    def write(f: Any) -> None:
        # A legend left out of the layout (wider than its axes) is still saved.
        out = [a.get_legend() for a in fig.axes
               if a.get_legend() is not None and not a.get_legend().get_in_layout()]
        extra = fig.get_default_bbox_extra_artists() + out if out else None
        with matplotlib.rc_context({"svg.hashsalt": SVG_SALT}):
            fig.savefig(f, format=p.suffix[1:], bbox_inches="tight", pad_inches=0.03,
                        metadata=METADATA[p.suffix], bbox_extra_artists=extra)

    atomic_write(p, write, binary=True)
    return p
