"""Figures with matplotlib: metric vs parameter with CI bars, time series, interval bars.

Each function writes PNG or SVG (by the file suffix) and returns the path.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from tcplab._defaults import CI_LEVEL
from tcplab.analysis import summarize


def _plt():  # noqa: ANN202 - matplotlib is optional until a figure is asked for
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def line_ci(flows: pd.DataFrame, x: str, y: str, out: str | Path, hue: str | None = None,
            ci: float = CI_LEVEL, title: str | None = None,
            ylabel: str | None = None) -> Path:
    """Mean of ``y`` vs ``x`` with Student-t CI error bars, one line per ``hue`` value."""
    plt = _plt()
    by = [x] if hue is None else [hue, x]
    s = summarize(flows, by, [y], ci=ci)
    tag = f"ci{round(ci * 100)}"
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
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
    return _save(fig, out)


def timeseries(series: Sequence[tuple[str, object, object]], out: str | Path,
               ylabel: str = "", title: str = "", step: bool = True) -> Path:
    """Time series (label, times, values), e.g. cwnd of several flows."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 3.6), dpi=100)
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
    return _save(fig, out)


def interval_bars(intervals: pd.DataFrame, out: str | Path, hue: str = "flow",
                  y: str = "goodput_bps", title: str = "") -> Path:
    """Bars of per-interval goodput (mean over rows), grouped by interval, one bar per ``hue``."""
    plt = _plt()
    g = intervals.groupby(["start_s", hue], sort=True)[y].mean().unstack(hue)
    fig, ax = plt.subplots(figsize=(7.0, 3.8), dpi=100)
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
    return _save(fig, out)


def _save(fig, out: str | Path) -> Path:  # noqa: ANN001
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    if p.suffix not in (".png", ".svg"):
        raise ValueError(f"{p}: write .png or .svg")
    fig.tight_layout()
    from tcplab._files import atomic_write

    atomic_write(p, lambda f: fig.savefig(f, format=p.suffix[1:]), binary=True)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return p
