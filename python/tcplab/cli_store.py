"""The commands that read a sweep's results store: ``tcplab results`` and ``tcplab plot``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tcplab._defaults import CI_LEVEL
from tcplab.cli import EXIT_FAILED, EXIT_OK, UsageError, with_pd_options


def _column(df: Any, name: str, option: str) -> str:
    if name in df.columns:
        return name
    for alt in (f"{name}_bps", f"{name}_s"):
        if alt in df.columns:
            return alt
    raise UsageError(f"{option}: no column {name!r} (columns: "
                     f"{', '.join(map(str, df.columns))})")


def _study(store: Any, wanted: str | None) -> str:
    """The study to report on: the one named, or the only one in the store."""
    studies = store.studies()
    if wanted is not None:
        if wanted not in studies:
            raise UsageError(f"{store.path} holds no study named {wanted!r} (studies: "
                             f"{', '.join(studies) or 'none'})")
        return wanted
    if not studies:
        raise UsageError(f"{store.path} holds no runs")
    if len(studies) > 1:
        raise UsageError(f"{store.path} holds {len(studies)} studies ({', '.join(studies)}); "
                         "choose one with --study NAME")
    return studies[0]


def _read_study(db: str, wanted: str | None, table: str = "flows") -> dict[str, Any]:
    """A study's current runs and the rows of one table, from a store opened read-only."""
    from tcplab.store import Store

    with Store(db) as store:
        study = _study(store, wanted)
        keys = store.current_keys(study)
        runs = store.runs(keys=keys)
        every = store.runs(current=False)
        stale = len(set(every.loc[every["study"] == study, "key"]) - keys)
        return {"study": study, "runs": runs, "stale": stale,
                "flows": store.table(table, keys=keys)}


def _write_table(df: Any, path: str, kind: str) -> Path:
    """Write a table (CSV or Parquet) through a new file renamed into place."""
    from tcplab._files import atomic_write

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if kind == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UsageError("--parquet needs pyarrow (pip install pyarrow)") from None
        return atomic_write(p, lambda f: df.to_parquet(f, index=False), binary=True)
    return atomic_write(p, lambda f: df.to_csv(f, index=False))


def results(args: argparse.Namespace) -> int:
    """Summarize a study's stored runs: group-by statistics with confidence intervals."""
    from tcplab.analysis import rows_per_run, run_means, summarize
    from tcplab.sweep import failure_lines

    got = _read_study(args.db, args.study, args.table)
    flows, runs = got["flows"], got["runs"]
    failed = runs[runs["status"] == "failed"]
    if flows.empty:
        first = f"; {failed['error'].iloc[0]}" if not failed.empty else ""
        what = "" if args.table == "flows" else f" with {args.table} rows"
        print(f"error: {args.db} has no successful runs{what} of study {got['study']!r} "
              f"({len(runs)} runs, {len(failed)} failed{first})", file=sys.stderr)
        return EXIT_FAILED
    default_by, default_metric = _TABLE_DEFAULTS[args.table]
    by = ([_column(flows, c, "--group-by") for c in args.group_by.split(",")]
          if args.group_by else [c for c in default_by if c in flows.columns])
    metrics = ([_column(flows, m, "--metrics") for m in args.metrics.split(",")]
               if args.metrics else [default_metric])
    per_run = rows_per_run(flows, by)
    if per_run > 1:
        print(f"note: a run has up to {per_run} {args.table} rows in one group; each run's "
              "rows are averaged first, so each interval is over runs (seeds), not rows",
              file=sys.stderr)
        table = summarize(run_means(flows, by, metrics), by, metrics, ci=args.ci)
    else:
        table = summarize(flows, by, metrics, ci=args.ci)
    with_pd_options(lambda: print(table.to_string(index=False)))
    from tcplab.analysis import identical_seeds

    same = identical_seeds(table, metrics)
    if not same.empty:
        print(f"warning: {len(same)} of {len(table)} groups gave identical results on every "
              "seed (nothing random reaches them: no random loss or start), so their "
              "intervals have zero width; more seeds will not change that",
              file=sys.stderr)
    stale = (f"; {got['stale']} runs of earlier versions of the study not shown"
             if got["stale"] else "")
    print(f"\n{got['study']}: {len(runs)} runs ({len(failed)} failed{stale})")
    for line in failure_lines(failed):
        print(line)
    out = table if not args.raw else flows
    for path, kind in ((args.csv, "csv"), (args.parquet, "parquet")):
        if path:
            print(f"wrote {_write_table(out, path, kind)}")
    return EXIT_OK


#: Per table of a store: the default grouping (the columns present) and metric.
_TABLE_DEFAULTS = {
    "flows": (["flow"], "goodput_bps"),
    "links": (["link", "src"], "utilization"),
    "intervals": (["flow"], "goodput_bps"),
    "transfers": (["cc"], "completion_time_s"),
}


def plot(args: argparse.Namespace) -> int:
    """Plot a metric against a grid parameter (CI bars or boxes), or its CDF."""
    from tcplab import plot as plots

    if Path(args.out).suffix not in plots.FORMATS:
        raise UsageError(f"--out: {args.out}: write a .png, .svg or .pdf file")

    got = _read_study(args.db, args.study, args.table)
    flows = got["flows"]
    if flows.empty:
        what = "" if args.table == "flows" else f" with {args.table} rows"
        print(f"error: {args.db} has no successful runs{what} of study {got['study']!r}",
              file=sys.stderr)
        return EXIT_FAILED
    if args.x is None and args.kind != "cdf":
        raise UsageError(f"--x: required with --kind {args.kind} (only a cdf has no x)")
    y = _column(flows, args.y, "--y")
    hue = _column(flows, args.hue, "--hue") if args.hue else None
    if args.kind in ("auto", "line", "bar"):
        from tcplab.analysis import rows_per_run, run_means

        by = [_column(flows, args.x, "--x")] + ([hue] if hue else [])
        if rows_per_run(flows, by) > 1:  # intervals over runs, not over a run's rows
            flows = run_means(flows, by, [y])
    logx = True if args.logx else None
    if args.kind == "cdf":
        plots.cdf(flows, y, args.out, hue=hue, logx=logx, xlabel=args.xlabel, size=args.size)
    elif args.kind == "box":
        plots.box(flows, _column(flows, args.x, "--x"), y, args.out, hue=hue,
                 xlabel=args.xlabel, ylabel=args.ylabel, logy=args.logy, size=args.size)
    else:
        plots.line_ci(flows, _column(flows, args.x, "--x"), y, args.out, hue=hue, ci=args.ci,
                     kind=args.kind, logx=logx, logy=args.logy, xlabel=args.xlabel,
                     ylabel=args.ylabel, size=args.size)
    print(f"wrote {args.out}")
    return EXIT_OK


def add_parsers(sub: Any, level: Callable[[str], float]) -> None:
    """Register ``results`` and ``plot`` on the ``tcplab`` command's subparsers."""
    rs = sub.add_parser("results", help="statistics of a study's stored runs")
    rs.add_argument("db", help="the study's store (.db)")
    rs.add_argument("--study", help="the study to report on, when the store holds several")
    rs.add_argument("--table", choices=list(_TABLE_DEFAULTS), default="flows",
                    help="the rows to summarise: flows (default), links (per link "
                    "direction: drops, marks, utilization, sojourn), intervals, or transfers "
                    "(a workload's completion times and slowdowns)")
    rs.add_argument("--group-by", help="comma-separated columns, e.g. cc,per")
    rs.add_argument("--metrics", help="comma-separated metrics (default goodput_bps)")
    rs.add_argument("--ci", type=level, default=CI_LEVEL,
                    help=f"confidence level of the t intervals (default {CI_LEVEL})")
    rs.add_argument("--csv", help="write the table as CSV")
    rs.add_argument("--parquet", help="write the table as Parquet")
    rs.add_argument("--raw", action="store_true", help="export the per-run rows, not the table")
    rs.set_defaults(func=results)

    pl = sub.add_parser("plot", help="plot a metric vs a parameter (CI bars, boxes) or its CDF")
    pl.add_argument("db", help="the study's store (.db)")
    pl.add_argument("--study", help="the study to plot, when the store holds several")
    pl.add_argument("--table", choices=list(_TABLE_DEFAULTS), default="flows",
                    help="the rows to plot: flows (default), links, intervals or transfers")
    pl.add_argument("--x", help="the parameter on the x axis, e.g. per (not for a cdf)")
    pl.add_argument("--y", required=True, help="the metric, e.g. goodput (or goodput_bps)")
    pl.add_argument("--hue", help="one line per value of this parameter, e.g. cc")
    pl.add_argument("--ci", type=level, default=CI_LEVEL,
                    help=f"confidence level of the error bars (default {CI_LEVEL}); Student-t, "
                    "cut at the metric's range (see docs/sweeps.md)")
    pl.add_argument("--kind", choices=["auto", "line", "bar", "cdf", "box"], default="auto",
                    help="line: means with CI bars, a marker and dash style per series; bar: "
                    "grouped bars at evenly spaced categories; auto (default): line for "
                    "numbers, durations and rates, bar for names; cdf: the metric's "
                    "distribution over runs (no --x); box: its quartiles per x value")
    pl.add_argument("--logx", action="store_true", help="a log x axis (default: log when the "
                    "values span more than a decade, symlog when one is 0)")
    pl.add_argument("--size", choices=["column", "page", "screen"], default="column",
                    help="column (3.5 in wide, default), page (7.16 in: a two-column "
                    "paper's full width) or screen (6.4 in)")
    pl.add_argument("--logy", action="store_true", help="a log y axis")
    pl.add_argument("--xlabel", help="the x axis's label (default: the parameter's name)")
    pl.add_argument("--ylabel", help="the y axis's label (default: the metric with its unit, "
                    "e.g. goodput (Mb/s))")
    pl.add_argument("--out", required=True, help="output .png, .svg or .pdf")
    pl.set_defaults(func=plot)
