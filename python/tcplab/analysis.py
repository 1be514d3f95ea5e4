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


#: Result columns that are fractions in [0, 1].
RATIOS = frozenset({"retransmission_ratio", "utilization", "jain"})


def bounds_of(metric: str) -> tuple[float | None, float | None]:
    """The range a metric's values can take.

    (0, 1) for ratios, (0, None) for rates, sizes, times and counts (from the
    result columns' units), else unbounded.
    """
    if metric in RATIOS:
        return (0.0, 1.0)
    if metric.startswith(("fct_", "slowdown_")) or metric in ("flows", "finished"):
        return (0.0, None)  # fct_summary's derived columns: times, slowdowns, counts
    from tcplab.schema import columns

    meta = {c["name"]: c for t in ("flows", "links") for c in columns(t)}.get(metric)
    if meta is not None and (meta["kind"] == "int" or meta["unit"]
                             or metric == "slowdown"):
        return (0.0, None)
    if metric.endswith(("_bps", "_bytes", "_packets", "_s")):
        return (0.0, None)
    return (None, None)


def bounded_interval(values: Sequence[float], level: float = CI_LEVEL,
                     bounds: tuple[float | None, float | None] = (None, None),
                     ) -> tuple[float, float, str]:
    """The Student-t confidence interval of the mean, kept inside ``bounds``; and its method.

    ``"t"`` where the t interval lies inside the metric's range; where it
    would cross a bound (few seeds, a mean near 0 or 1), the part inside,
    ``"t-cut"``. The mean of a metric that cannot leave its range cannot
    either, so cutting keeps the interval's coverage exactly: it covers the
    true mean whenever the t interval does.
    """
    lo, hi = t_interval(values, level)
    low_b, high_b = bounds
    cut_lo = low_b is not None and lo < low_b
    cut_hi = high_b is not None and hi > high_b
    if math.isnan(lo) or not (cut_lo or cut_hi):
        return (lo, hi, "t")
    return (low_b if cut_lo else lo, high_b if cut_hi else hi, "t-cut")


def run_means(df: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """One row per run and group: each metric's mean over the run's rows in that group.

    A run contributes one value per group to :func:`summarize`, however many
    rows it has there (a workload's transfers, the flows of a group): rows
    of one run share its random draws, so they are not independent samples,
    and an interval over them would be too narrow. Runs are told apart by
    ``key`` (a store's rows), else by ``seed``.
    """
    run = "key" if "key" in df.columns else "seed"
    keys = [*by, run] + (["seed"] if run == "key" and "seed" in df.columns
                          and "seed" not in by else [])
    out = df.groupby(keys, sort=True, dropna=False)[list(metrics)].mean().reset_index()
    return out


def rows_per_run(df: pd.DataFrame, by: Sequence[str]) -> int:
    """The most rows any run has in one group of ``by`` (1 when each run gives one row)."""
    run = "key" if "key" in df.columns else "seed"
    if run not in df.columns or df.empty:
        return 1
    return int(df.groupby([*by, run], sort=False, dropna=False).size().max())


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
              ci: float | Sequence[float] = CI_LEVEL, bounded: bool = True) -> pd.DataFrame:
    """Group rows by ``by``: per metric, mean, std, min, max, count and intervals.

    One confidence interval of the mean per level in ``ci`` (default
    :data:`tcplab.CI_LEVEL`, 0.95: columns ``<metric>_ci95_low`` / ``_high``;
    ``ci=(0.90, 0.95)`` gives both), with its method in
    ``<metric>_ci95_method``: Student-t, with ``bounded`` (the default) cut
    at the metric's range (goodput >= 0, ratios in [0, 1]) where it would
    cross it (see :func:`bounded_interval`).
    """
    missing = [c for c in by if c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} to group by; columns: {', '.join(df.columns)}")
    if metrics is None:
        metrics = [c for c in df.columns if c not in by and c not in ("key", "seed")
                   and pd.api.types.is_numeric_dtype(df[c])]
    levels = [ci] if isinstance(ci, float) else list(ci)
    limits = {m: bounds_of(m) if bounded else (None, None) for m in metrics}
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
                lo, hi, method = bounded_interval(x.to_numpy(), level, limits[m])
                tag = f"ci{round(level * 100)}"
                row[f"{m}_{tag}_low"], row[f"{m}_{tag}_high"] = lo, hi
                row[f"{m}_{tag}_method"] = method
        rows.append(row)
    return pd.DataFrame(rows)


#: pFabric's size classes for flow-completion times: small, medium, large.
SIZE_BINS: tuple[float, ...] = (0, 100e3, 10e6, math.inf)


def _bytes(x: float) -> str:
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if x >= f:
            return f"{x / f:g}{unit}"
    return f"{x:g}B"


def _size_label(lo: float, hi: float) -> str:
    """A size class's name: "0-100kB", "100kB-10MB", ">10MB"."""
    if math.isinf(hi):
        return f">{_bytes(lo)}"
    return f"{0 if lo == 0 else _bytes(lo)}-{_bytes(hi)}"


def fct_summary(flows: pd.DataFrame, by: Sequence[str] = (),
                bins: Sequence[float] | None = SIZE_BINS,
                percentiles: Sequence[float] = (50, 95, 99)) -> pd.DataFrame:
    """Flow-completion times and slowdowns of transfers, by size class.

    Over the rows of ``flows`` with a transfer size (``transfer_bytes`` >
    0: a :class:`~tcplab.Transfer` or the flows of a
    :class:`~tcplab.Poisson` workload), grouped by ``by`` and by size
    class (``bins`` in bytes, right-closed: by default pFabric's (0, 100 kB],
    (100 kB, 10 MB] and above; ``None`` for one class): how many, how many
    finished, and the mean and percentiles of ``completion_time_s`` and
    ``slowdown`` over the finished ones. Unfinished transfers are counted,
    not averaged: a run that ends before they finish biases the times
    towards the short ones, which the ``finished`` column shows.
    """
    t = flows[flows["transfer_bytes"] > 0].copy()
    keys = list(by)
    if bins is not None:
        edges = list(bins)
        labels = [_size_label(lo, hi) for lo, hi in zip(edges, edges[1:], strict=False)]
        t["size_class"] = pd.cut(t["transfer_bytes"], edges, right=True, labels=labels)
        keys.append("size_class")
    rows = []
    groups = (t.groupby(keys, sort=True, dropna=False, observed=True) if keys
              else [((), t)])
    for group, sub in groups:
        group = group if isinstance(group, tuple) else (group,)
        row: dict[str, object] = dict(zip(keys, group, strict=True))
        done = sub.dropna(subset=["completion_time_s"])
        row["flows"] = len(sub)
        row["finished"] = len(done)
        for col, short in (("completion_time_s", "fct"), ("slowdown", "slowdown")):
            x = done[col].astype(float)
            row[f"{short}_mean"] = x.mean() if len(x) else math.nan
            for q in percentiles:
                row[f"{short}_p{q:g}"] = float(np.percentile(x, q)) if len(x) else math.nan
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
