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


def line_ci(flows: pd.DataFrame, x: str, y: str, out: str | Path | None = None,
            hue: str | None = None, ci: float = CI_LEVEL, title: str | None = None,
            ylabel: str | None = None, ax: Axes | None = None) -> Figure:
    """Mean of ``y`` vs ``x`` with Student-t CI error bars, one line per ``hue`` value."""
    fig, ax = _axes(ax, (6.4, 4.0))
    by = [x] if hue is None else [hue, x]
    s = summarize(flows, by, [y], ci=ci)
    tag = f"ci{round(ci * 100)}"
    groups = [(None, s)] if hue is None else list(s.groupby(hue, sort=True))
    for label, g in groups:
        g = g.sort_values(x)
        mean = g[f"{y}_mean"]
        err = [(mean - g[f"{y}_{tag}_low"]).fillna(0), (g[f"{y}_{tag}_high"] - mean).fillna(0)]
        ax.errorbar(g[x], mean, yerr=err, marker="o", capsize=3, label=None if label is None
                    else str(label))
    ax.set_xlabel(x)
    ax.set_ylabel(ylabel or y)
    ax.grid(alpha=0.3)
    if hue is not None:
        ax.legend(title=hue)
    ax.set_title(title or f"{y} vs {x} (mean, {round(ci * 100)}% CI)")
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
