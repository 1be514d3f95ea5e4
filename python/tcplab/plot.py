"""Figures with matplotlib: metric vs parameter with CI bars, time series, interval bars.

Each function draws into ``ax`` (a matplotlib Axes of yours) or into a new
figure, saves it to ``out`` when given (PNG, SVG or PDF, by the suffix) and
returns the figure. Figures are made without pyplot, so nothing here changes
matplotlib's backend or its list of open figures: in a notebook, a returned
figure displays as the cell's value, and inline plotting keeps working.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from tcplab._defaults import CI_LEVEL
from tcplab.analysis import summarize

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg", ".pdf")


def new_figure(figsize: tuple[float, float] = (6.4, 4.0)) -> tuple[Figure, Axes]:
    """A figure with one Axes, outside pyplot (no backend is selected or kept)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=100)
    return fig, fig.subplots()


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    return new_figure(figsize) if ax is None else (ax.figure, ax)


def axis_label(name: str) -> tuple[str, float]:
    """A result column's axis label with its unit, and the factor its values take.

    From the core's column metadata: ``goodput_bps`` is "goodput (Mb/s)" with
    values times 1e-6; ``delay_mean_s`` "delay mean (s)"; a name that is not a
    result column (a grid parameter) is itself, unscaled.
    """
    from tcplab.schema import columns

    meta = {c["name"]: c for t in ("flows", "links") for c in columns(t)}.get(name)
    if meta is None:
        return name, 1.0
    unit = meta["unit"]
    quantity = name
    for suffix in ("_bps", "_bytes", "_packets", "_s"):
        if quantity.endswith(suffix):
            quantity = quantity[: -len(suffix)]
    quantity = quantity.replace("_", " ")
    if unit == "bit/s":
        return f"{quantity} (Mb/s)", 1e-6
    return (f"{quantity} ({unit})" if unit else quantity), 1.0


MARKERS = ("o", "s", "^", "D", "v", "P", "X")
LINES = ("-", "--", "-.", ":")


def line_ci(flows: pd.DataFrame, x: str, y: str, out: str | Path | None = None,
            hue: str | None = None, ci: float = CI_LEVEL, title: str | None = None,
            ylabel: str | None = None, ax: Axes | None = None, kind: str = "line",
            xlabel: str | None = None, logx: bool = False, logy: bool = False) -> Figure:
    """Mean of ``y`` vs ``x`` with Student-t CI error bars, one series per ``hue`` value.

    ``kind="line"`` draws lines with a marker and a dash style per series (so
    overlapping ones stay visible); ``"bar"`` grouped bars at evenly spaced
    categories (for x values that are names, or uneven). The y axis takes its
    label and unit from the result column (goodput in Mb/s); ``logx``,
    ``logy`` set log scales.
    """
    if kind not in ("line", "bar"):
        raise ValueError(f"kind {kind!r}: line or bar")
    fig, ax = _axes(ax, (6.4, 4.0))
    by = [x] if hue is None else [hue, x]
    s = summarize(flows, by, [y], ci=ci)
    tag = f"ci{round(ci * 100)}"
    label_y, scale = axis_label(y)
    groups = [(None, s)] if hue is None else list(s.groupby(hue, sort=True))
    categories = sorted(s[x].unique(), key=lambda v: (isinstance(v, str), v))
    width = 0.8 / max(len(groups), 1)
    for i, (label, g) in enumerate(groups):
        g = g.sort_values(x)
        mean = g[f"{y}_mean"] * scale
        err = [((g[f"{y}_mean"] - g[f"{y}_{tag}_low"]) * scale).fillna(0),
               ((g[f"{y}_{tag}_high"] - g[f"{y}_mean"]) * scale).fillna(0)]
        name = None if label is None else str(label)
        if kind == "bar":
            pos = [categories.index(v) - 0.4 + width * (i + 0.5) for v in g[x]]
            ax.bar(pos, mean, width=width, yerr=err, capsize=3, label=name)
        else:
            ax.errorbar(g[x], mean, yerr=err, marker=MARKERS[i % len(MARKERS)],
                        linestyle=LINES[i % len(LINES)], capsize=3, label=name)
    if kind == "bar":
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels([str(c) for c in categories])
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel or axis_label(x)[0])
    ax.set_ylabel(ylabel or label_y)
    ax.grid(alpha=0.3)
    if hue is not None:
        ax.legend(title=hue)
    ax.set_title(title or f"{label_y} vs {xlabel or x} (mean, {round(ci * 100)}% CI)")
    return _done(fig, out)


def timeseries(series: Sequence[tuple[str, object, object]], out: str | Path | None = None,
               ylabel: str = "", title: str = "", step: bool = True,
               ax: Axes | None = None) -> Figure:
    """Time series (label, times, values), e.g. cwnd of several flows."""
    fig, ax = _axes(ax, (7.0, 3.6))
    for label, t, v in series:
        if step:
            ax.step(t, v, where="post", lw=0.9, label=label)
        else:
            ax.plot(t, v, lw=0.9, label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _done(fig, out)


def interval_bars(intervals: pd.DataFrame, out: str | Path | None = None, hue: str = "flow",
                  y: str = "goodput_bps", title: str = "", ax: Axes | None = None) -> Figure:
    """Bars of per-interval goodput (mean over rows), grouped by interval, one bar per ``hue``."""
    fig, ax = _axes(ax, (7.0, 3.8))
    g = intervals.groupby(["start_s", hue], sort=True)[y].mean().unstack(hue)
    width = 0.8 / max(len(g.columns), 1)
    for i, col in enumerate(g.columns):
        ax.bar([k + i * width for k in range(len(g))], g[col], width=width, label=str(col))
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(g))])
    ax.set_xticklabels([f"{s:g} s" for s in g.index])
    ax.set_xlabel("interval start")
    ax.set_ylabel(y)
    ax.set_title(title)
    ax.legend(fontsize=8, title=hue)
    ax.grid(alpha=0.3, axis="y")
    return _done(fig, out)


def _done(fig: Figure, out: str | Path | None) -> Figure:
    if out is not None:
        save(fig, out)
    return fig


def save(fig: Any, out: str | Path) -> Path:
    """Write ``fig`` to ``out`` (.png, .svg or .pdf), atomically; return the path."""
    p = Path(out)
    if p.suffix not in FORMATS:
        raise ValueError(f"{p}: write {', '.join(FORMATS)}")
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    from tcplab._files import atomic_write

    atomic_write(p, lambda f: fig.savefig(f, format=p.suffix[1:]), binary=True)
    return p
