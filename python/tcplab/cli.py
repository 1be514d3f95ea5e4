"""The ``tcplab`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import tomllib

from tcplab import __version__
from tcplab.errors import ScenarioError, TcplabError
from tcplab.scenario import Scenario, load


def _load(path: str) -> Scenario:
    try:
        return load(path)
    except FileNotFoundError:
        raise SystemExit(f"error: no such scenario file: {path}") from None
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise SystemExit(f"error: {path} is not valid TOML/JSON: {e}") from None


def _overrides(sc: Scenario, args: argparse.Namespace) -> Scenario:
    return sc.replace(seed=args.seed, run=args.run, duration=args.duration)


def cmd_run(args: argparse.Namespace) -> int:
    """Run a scenario file, print its tables, optionally save the results."""
    sc = _overrides(_load(args.file), args)
    if args.pcap:
        sc.data["pcap"] = {"dir": args.pcap, "capture": args.pcap_capture}
    if args.trace:
        sc.data["trace"] = sorted(set(sc.data.get("trace", [])) | set(args.trace.split(",")))
    res = sc.run()
    print(res.table())
    if args.out:
        paths = res.save(args.out)
        print("\nwrote " + ", ".join(str(p) for p in paths))
    if args.trace_out:
        from tcplab.analysis import export

        period = None
        if args.trace_period:
            from tcplab import _core

            period = _core.parse_duration(args.trace_period) / 1e9
        frame = res.series_frame(period)
        out = Path(args.trace_out) / f"traces.{args.trace_format}"
        print(f"wrote {export(frame, out)} ({len(frame):,} rows)")
    if res.raw.get("pcap"):
        print("pcap: " + ", ".join(f"{p['path']} ({p['packets']:,} packets)"
                                   for p in res.raw["pcap"]))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Check a scenario file and print it with every default filled in."""
    sc = _overrides(_load(args.file), args)
    effective = sc.check()
    print(json.dumps(effective, indent=2))
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    """Run a study file's sweep, storing each run as it finishes; resume if stopped."""
    from tcplab.store import Store
    from tcplab.sweep import load_study

    sweep = load_study(args.file)
    if args.db:
        sweep.db = args.db
    total = len(sweep.runs())
    sweep.run(jobs=args.jobs, dask=args.dask)
    with Store(sweep.db) as store:
        runs = store.runs()
        failed = store.failures()
    print(f"{sweep.name}: {len(runs)} of {total} runs stored in {sweep.db} "
          f"({len(failed)} failed)")
    for _, r in failed.iterrows():
        print(f"  failed: seed {r['seed']} {r['params']}: {r['error']}")
    return 0 if failed.empty else 1


def _column(df, name: str) -> str:  # noqa: ANN001
    if name in df.columns:
        return name
    for alt in (f"{name}_bps", f"{name}_s"):
        if alt in df.columns:
            return alt
    raise SystemExit(f"error: no column {name!r}; columns: {', '.join(map(str, df.columns))}")


def cmd_results(args: argparse.Namespace) -> int:
    """Summarize a study's stored runs: group-by statistics with confidence intervals."""
    from tcplab.analysis import export, summarize
    from tcplab.store import Store

    with Store(args.db) as store:
        flows = store.flows()
        failed = store.failures()
        n_runs = len(store.runs())
    if flows.empty:
        print(f"{args.db}: no successful runs stored ({n_runs} runs, {len(failed)} failed)")
        return 1
    by = [_column(flows, c) for c in args.group_by.split(",")] if args.group_by else ["flow"]
    metrics = ([_column(flows, m) for m in args.metrics.split(",")] if args.metrics
               else ["goodput_bps"])
    table = summarize(flows, by, metrics, ci=args.ci)
    with_pd_options(lambda: print(table.to_string(index=False)))
    print(f"\n{n_runs} runs ({len(failed)} failed)")
    for _, r in failed.iterrows():
        print(f"  failed: seed {r['seed']} {r['params']}: {r['error']}")
    for path in (args.csv, args.parquet):
        if path:
            print(f"wrote {export(table if not args.raw else flows, path)}")
    return 0


def with_pd_options(fn) -> None:  # noqa: ANN001
    """Print wide tables without wrapping."""
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 50):
        fn()


def cmd_plot(args: argparse.Namespace) -> int:
    """Plot a metric against a grid parameter, with CI error bars, one line per hue."""
    from tcplab.plot import line_ci
    from tcplab.store import Store

    with Store(args.db) as store:
        flows = store.flows()
    if flows.empty:
        raise SystemExit(f"error: {args.db} has no successful runs")
    x, y = _column(flows, args.x), _column(flows, args.y)
    hue = _column(flows, args.hue) if args.hue else None
    print(f"wrote {line_ci(flows, x, y, args.out, hue=hue, ci=args.ci)}")
    return 0


def cmd_studies(args: argparse.Namespace) -> int:
    """List the published studies that `tcplab reproduce` runs."""
    from tcplab.studies import STUDIES

    for s in STUDIES.values():
        print(f"{s.name:<18} {s.summary}")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Run a published study end to end: sweep, tables (CSV), figures (PNG, SVG)."""
    from tcplab.studies import reproduce

    r = reproduce(args.study, args.out, quick=args.quick, jobs=args.jobs)
    for name, t in r["tables"].items():
        print(f"\n{args.study}: {name}")
        with_pd_options(lambda t=t: print(t.to_string(index=False)))
    print("\nwrote " + ", ".join(str(p) for p in r["files"]))
    return 0


def cmd_variants(args: argparse.Namespace) -> int:
    """List the built-in variants, their recovery and their parameters' defaults."""
    from tcplab.cc import variants

    for v in variants():
        print(f"{v['name']:<13} recovery {v['recovery']:<8} {v['summary']}")
        paper = v["defaults"]["paper"]
        for key, value in paper.items():
            others = {p: v["defaults"][p].get(key) for p in ("linux", "ns3")}
            differ = {p: o for p, o in others.items() if o != value}
            note = ("  (" + ", ".join(f"{p}: {json.dumps(o)}" for p, o in differ.items()) + ")"
                    if differ else "")
            print(f"    {key:<22} {json.dumps(value)}{note}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tcplab`` command."""
    p = argparse.ArgumentParser(
        prog="tcplab", description="Packet-level simulation for TCP congestion-control research."
    )
    p.add_argument("--version", action="version", version=f"tcplab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    def scenario_args(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("file", help="scenario file (.toml, or .json)")
        sp.add_argument("--seed", type=int, help="override the scenario's seed")
        sp.add_argument("--run", type=int, help="override the run index")
        sp.add_argument("--duration", help="override the duration, e.g. 10s")

    r = sub.add_parser("run", help="run a scenario file and print a summary")
    scenario_args(r)
    r.add_argument("--out", help="directory for flows.csv, links.csv, results.json")
    r.add_argument("--pcap", help="write pcap traces of every link direction into this directory")
    r.add_argument("--pcap-capture", choices=["tx", "rx"], default="tx",
                   help="capture on transmission (default) or on reception")
    r.add_argument("--trace", help="time series to record, e.g. cwnd,queue")
    r.add_argument("--trace-out", help="directory for the time series (traces.csv)")
    r.add_argument("--trace-period", help="sample every period (e.g. 100ms) instead of at "
                   "each change")
    r.add_argument("--trace-format", choices=["csv", "parquet"], default="csv")
    r.set_defaults(func=cmd_run)

    c = sub.add_parser("check", help="check a scenario file; print it with defaults filled in")
    scenario_args(c)
    c.set_defaults(func=cmd_check)

    v = sub.add_parser("variants", help="list the TCP variants and their parameters")
    v.set_defaults(func=cmd_variants)

    st = sub.add_parser("studies", help="list the published studies")
    st.set_defaults(func=cmd_studies)

    rp = sub.add_parser("reproduce", help="reproduce a published study: tables and figures")
    rp.add_argument("study")
    rp.add_argument("--out", required=True, help="directory for the store, CSVs and figures")
    rp.add_argument("--quick", action="store_true", help="reduced durations and seeds")
    rp.add_argument("--jobs", type=int, help="local worker processes (default: all cores)")
    rp.set_defaults(func=cmd_reproduce)

    sw = sub.add_parser("sweep", help="run a study (grid x seeds), resumable")
    sw.add_argument("file", help="study file (.toml)")
    sw.add_argument("--jobs", type=int, help="local worker processes (default: all cores)")
    sw.add_argument("--dask", help="address of a Dask scheduler, e.g. tcp://host:8786")
    sw.add_argument("--db", help="results store (default: from the study file)")
    sw.set_defaults(func=cmd_sweep)

    rs = sub.add_parser("results", help="statistics of a study's stored runs")
    rs.add_argument("db", help="the study's store (.db)")
    rs.add_argument("--group-by", help="comma-separated columns, e.g. cc,per")
    rs.add_argument("--metrics", help="comma-separated metrics (default goodput_bps)")
    rs.add_argument("--ci", type=float, default=0.95, help="confidence level (default 0.95)")
    rs.add_argument("--csv", help="write the table as CSV")
    rs.add_argument("--parquet", help="write the table as Parquet")
    rs.add_argument("--raw", action="store_true", help="export the per-run rows, not the table")
    rs.set_defaults(func=cmd_results)

    pl = sub.add_parser("plot", help="plot a metric vs a parameter with CI bars")
    pl.add_argument("db")
    pl.add_argument("--x", required=True)
    pl.add_argument("--y", required=True)
    pl.add_argument("--hue")
    pl.add_argument("--ci", type=float, default=0.95)
    pl.add_argument("--out", required=True, help="output .png or .svg")
    pl.set_defaults(func=cmd_plot)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tcplab`` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # The output was piped into something that stopped reading (| head).
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except TcplabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
