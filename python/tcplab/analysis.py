"""Statistics over runs: summaries with t confidence intervals, Jain's index, exports."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from tcplab._defaults import CI_LEVEL


def t_interval(values: Sequence[float], level: float = CI_LEVEL) -> tuple[float, float]:
    """The Student-t confidence interval of the mean at ``level`` (NaN with < 2 values)."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n < 2:
        return (math.nan, math.nan)
    from scipy import stats  # imported here: scipy.stats costs ~90 MB and 0.5 s to load

    m, s = float(x.mean()), float(x.std(ddof=1))
    half = float(stats.t.ppf((1 + level) / 2, n - 1)) * s / math.sqrt(n)
    return (m - half, m + half)


def jain_index(allocations: Sequence[float]) -> float:
    """Jain's fairness index: (sum x)^2 / (n sum x^2); 1 when all are equal, 1/n at worst."""
    x = np.asarray(allocations, dtype=float)
    if len(x) == 0 or not np.any(x):
        return math.nan
    return float(x.sum() ** 2 / (len(x) * (x**2).sum()))


def identical_seeds(table: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """The rows of a :func:`summarize` table whose seeds all gave the same values.

    A group of two or more runs with a standard deviation of zero in every
    metric: nothing random reached it (no random loss, no random start), so
    its interval has zero width and says nothing about the variance a
    reader would expect from more seeds.
    """
    same = table[[f"{m}_count" for m in metrics]].min(axis=1) > 1
    for m in metrics:
        same &= table[f"{m}_std"].fillna(0) == 0
    return table[same]


def summarize(df: pd.DataFrame, by: Sequence[str], metrics: Sequence[str] | None = None,
              ci: float | Sequence[float] = CI_LEVEL) -> pd.DataFrame:
    """Group rows by ``by``: per metric, mean, std, min, max, count and t intervals.

    The confidence interval of the mean is Student-t based, one per level in
    ``ci`` (default :data:`tcplab.CI_LEVEL`, 0.95: columns
    ``<metric>_ci95_low`` / ``_high``; ``ci=(0.90, 0.95)`` gives both).
    """
    missing = [c for c in by if c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} to group by; columns: {', '.join(df.columns)}")
    if metrics is None:
        metrics = [c for c in df.columns if c not in by and c not in ("key", "seed")
                   and pd.api.types.is_numeric_dtype(df[c])]
    levels = [ci] if isinstance(ci, float) else list(ci)
    rows = []
    for group, sub in df.groupby(list(by), sort=True, dropna=False):
        group = group if isinstance(group, tuple) else (group,)
        row = dict(zip(by, group, strict=True))
        for m in metrics:
            x = sub[m].astype(float).dropna()
            row[f"{m}_mean"] = x.mean()
            row[f"{m}_std"] = x.std(ddof=1) if len(x) > 1 else math.nan
            row[f"{m}_min"] = x.min()
            row[f"{m}_max"] = x.max()
            row[f"{m}_count"] = len(x)
            for level in levels:
                lo, hi = t_interval(x.to_numpy(), level)
                tag = f"ci{round(level * 100)}"
                row[f"{m}_{tag}_low"], row[f"{m}_{tag}_high"] = lo, hi
        rows.append(row)
    return pd.DataFrame(rows)


def fairness(flows: pd.DataFrame, by: Sequence[str], metric: str = "goodput_bps") -> pd.DataFrame:
    """Jain's index of ``metric`` across the flows of each run, grouped by ``by`` + seed."""
    keys = [*by, "seed"] if "seed" in flows.columns else list(by)
    out = flows.groupby(keys, sort=True)[metric].agg(jain_index).rename("jain").reset_index()
    return out


def export(df: pd.DataFrame, path: str | Path) -> Path:
    """Write ``df`` as CSV or Parquet, by the file's suffix."""
    from tcplab._files import atomic_write

    p = Path(path)
    if p.suffix not in (".csv", ".parquet"):
        raise ValueError(f"{p}: write .csv or .parquet")
    p.parent.mkdir(parents=True, exist_ok=True)
    if p.suffix == ".parquet":
        return atomic_write(p, lambda f: df.to_parquet(f, index=False), binary=True)
    return atomic_write(p, lambda f: df.to_csv(f, index=False))
