"""The ``tcplab`` command.

Exit codes, the same for every command:

====  ==================================================================
0     success
1     a run failed inside the core (an internal error, a Python
      congestion control that raised, out of memory, failed runs in a
      sweep), or ``tcplab validate`` found a row outside its tolerance
      with no known or open entry, a reference that broke, or nothing to
      compare
2     bad input or usage (a scenario or study mistake, an unreadable or
      missing file, a damaged results store, bad arguments, an unknown
      study name)
130   interrupted (Ctrl-C)
====  ==================================================================

Every error is one line on stderr that starts with ``error:``; set
``TCPLAB_TRACEBACK=1`` to see the traceback of an unexpected one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from tcplab import __version__
from tcplab.errors import (
    ScenarioError,
    StoreError,
    SweepError,
    SweepInterrupted,
    TcplabError,
)
from tcplab.scenario_file import Scenario, load

#: Exit codes (see the module's docstring).
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """A bad argument or input file: exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors as one line (exit code 2) instead of usage text."""

    #: Makes the description when the help is shown, not at every start-up (for text read from
    #: the core, as ``tcplab variants``'s list of profiles).
    describe: Callable[[], str] | None = None

    def error(self, message: str) -> NoReturn:  # noqa: D102
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")

    def format_help(self) -> str:  # noqa: D102
        if self.describe is not None and self.description is None:
            self.description = self.describe()
        return super().format_help()

    def _get_formatter(self) -> argparse.HelpFormatter:
        # The terminal's width as shutil finds it, without importing shutil
        # (with bz2 and lzma, 4 ms of every `tcplab run`'s start-up).
        try:
            columns = int(os.environ.get("COLUMNS", "0")) or os.get_terminal_size(
                sys.__stdout__.fileno()).columns
        except (ValueError, OSError, AttributeError):
            columns = 80
        return self.formatter_class(prog=self.prog, width=max(columns, 20) - 2)


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: at least 1")
    return n


def _level(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < x < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a confidence level between 0 and 1, "
                                         "e.g. 0.95")
    return x


def _load(path: str) -> Scenario:
    """A scenario file; any file that cannot be read is a UsageError (exit 2)."""
    try:
        return load(path)
    except FileNotFoundError:
        raise UsageError(f"no such scenario file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a scenario file") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text (scenario files are UTF-8)") from None
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply") from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    except ScenarioError:
        raise
    except ValueError as e:  # TOMLDecodeError, JSONDecodeError
        kind = "JSON" if path.endswith(".json") else "TOML"
        raise UsageError(f"{path} is not valid {kind}: {e}") from None


def _controllers_importable_beside(path: str) -> None:
    """Let Python controllers named by import path live beside the file, or in the cwd.

    The directories go last on ``sys.path`` (they never shadow an installed
    module); a sweep's local workers start with this process's ``sys.path``.
    """
    for d in (str(Path(path).resolve().parent), os.getcwd()):
        if d not in sys.path:
            sys.path.append(d)


def _overrides(sc: Scenario, args: argparse.Namespace) -> Scenario:
    """The scenario with the flags' fields; an error in one of them names the flag."""
    flags = {"seed": args.seed, "run": args.run, "duration": args.duration,
             "memory_budget": args.memory_budget}
    out = sc.replace(**flags)
    out.set_by.update({k: "--" + k.replace("_", "-") for k, v in flags.items()
                       if v is not None})
    return out


def _writable_dir(path: str, option: str) -> None:
    """Make sure results can be written into the directory ``path``, before anything runs.

    The directory is created if needed and a file is made and removed in it,
    so that a long run never ends in results that cannot be saved.
    """
    import tempfile  # here: 3 ms that only runs with outputs pay

    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UsageError(f"{option}: {path} is a file, not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=p, prefix=".tcplab-write-check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise UsageError(f"{option}: cannot write into {path} ({e.strerror or e})") from None


def _trace_period(text: str | None) -> float | None:
    if not text:
        return None
    from tcplab import _core

    try:
        return _core.parse_duration(text) / 1e9
    except ValueError as e:
        raise UsageError(f"--trace-period: {e}") from None


def _terminal() -> bool:
    """Whether progress goes on stderr: a terminal, and not under CI."""
    return sys.stderr.isatty() and not os.environ.get("CI")


class _RunProgress:
    """One line on stderr, rewritten in place: simulated time, share done, speed."""

    def __init__(self, duration: Any) -> None:
        import time

        from tcplab import _core

        self.clock = time.perf_counter
        self.t0 = self.clock()
        try:
            self.total = _core.parse_duration(duration) / 1e9 if duration else None
        except (TypeError, ValueError):
            self.total = None
        self.width = 0

    def __call__(self, simulated: float, events: int) -> None:
        wall = max(self.clock() - self.t0, 1e-9)
        line = f"simulated {simulated:,.1f} s"
        if self.total:
            line += f" of {self.total:,.1f} s ({100 * simulated / self.total:.0f}%)"
        line += f", {simulated / wall:,.1f} s per wall second, {events / wall / 1e6:.1f} M events/s"
        if self.total and simulated > 0:
            line += f", about {wall * (self.total - simulated) / simulated:,.0f} s left"
        sys.stderr.write("\r" + line.ljust(self.width))
        sys.stderr.flush()
        self.width = len(line)

    def clear(self) -> None:
        """Erase the line (the results follow)."""
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


def cmd_run(args: argparse.Namespace) -> int:
    """Run a scenario file, print its tables, optionally save the results."""
    _controllers_importable_beside(args.file)
    sc = _overrides(_load(args.file), args)
    if args.pcap:
        sc.data["pcap"] = {"dir": args.pcap, "capture": args.pcap_capture}
    if args.trace:
        sc.data["trace"] = sorted(set(sc.data.get("trace", [])) | set(args.trace.split(",")))
    # Every output is checked before the run: a long run must not end unsaved.
    period = _trace_period(args.trace_period)
    for path, option in ((args.out, "--out"), (args.trace_out, "--trace-out")):
        if path:
            _writable_dir(path, option)
    pcap = sc.data.get("pcap")
    if isinstance(pcap, dict) and isinstance(pcap.get("dir"), str):
        _writable_dir(pcap["dir"], "--pcap" if args.pcap else f"{args.file}: pcap.dir")
    shown = _RunProgress(sc.data.get("duration")) if _terminal() else None
    try:
        res = sc.run(progress=shown)
    finally:
        if shown is not None:
            shown.clear()
    # With --json, stdout holds the results alone (for scripts), and what
    # would be said besides goes to stderr.
    out = sys.stderr if args.json else sys.stdout

    def say(text: str) -> None:
        print(text, file=out)

    if args.json:
        print(res.to_json())
    else:
        print(res.table())
    if args.out:
        paths = res.save(args.out)
        say("\nwrote " + ", ".join(str(p) for p in paths))
    if args.trace_out:
        from tcplab.analysis import export

        frame = res.series_frame(period)
        path = Path(args.trace_out) / f"traces.{args.trace_format}"
        say(f"wrote {export(frame, path)} ({len(frame):,} rows)")
    if res.raw.get("pcap"):
        say("pcap: " + ", ".join(f"{p['path']} ({p['packets']:,} packets)"
                                 for p in res.raw["pcap"]))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """Check a scenario file and print it with every default filled in (importing nothing)."""
    sc = _overrides(_load(args.file), args)
    sys.stdout.write(sc.check_text() + "\n")
    return EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    """Run a study file's sweep, storing each run as it finishes; resume if stopped."""
    from tcplab.sweep import load_study, run_specs, sweep_status

    _controllers_importable_beside(args.file)
    sweep = load_study(args.file)
    if args.db:
        sweep.db = Path(args.db)
    if args.memory_budget is not None:
        sweep.scenario.data["memory_budget"] = args.memory_budget
    specs = sweep.runs()
    run_specs(specs, sweep.db, sweep.name, jobs=args.jobs, dask=args.dask,
              metrics=sweep.metrics, definition=sweep.definition(),
              retry_failed=not args.keep_failed, run_timeout=args.run_timeout)
    status = sweep_status(sweep.db, sweep.name, specs)
    print("\n".join(status.lines()))
    if status.failed:
        print(f"error: {status.failed} of {status.total} runs failed; fix the cause and run "
              "the same command to retry them", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def with_pd_options(fn) -> None:  # noqa: ANN001
    """Print wide tables without wrapping."""
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 50):
        fn()


def cmd_studies(args: argparse.Namespace) -> int:
    """List the published studies that `tcplab reproduce` runs."""
    from tcplab.studies import STUDIES

    for s in STUDIES.values():
        print(f"{s.name:<18} {s.summary}")
    return EXIT_OK


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Run a published study end to end: sweep, tables (CSV), figures (PNG, SVG)."""
    from tcplab.studies import STUDIES, reproduce

    if args.study not in STUDIES:
        raise UsageError(f"no study {args.study!r} (studies: {', '.join(STUDIES)}; see "
                         "tcplab studies)")
    try:
        r = reproduce(args.study, args.out, quick=args.quick, jobs=args.jobs,
                      traces=args.traces)
    except FileNotFoundError as e:  # the cellular study's traces
        print(f"error: {args.study}: {e}", file=sys.stderr)
        return EXIT_FAILED
    except RuntimeError as e:  # runs failed
        print(f"error: {args.study}: {e}", file=sys.stderr)
        return EXIT_FAILED
    for name, t in r["tables"].items():
        print(f"\n{args.study}: {name}")
        with_pd_options(lambda t=t: print(t.to_string(index=False)))
    print("\nwrote " + ", ".join(str(p) for p in r["files"]))
    return EXIT_OK


def profiles_help() -> str:
    """The settings profiles, from the core's profile table (the help of ``tcplab variants``)."""
    from tcplab import _core

    table = json.loads(_core.profiles_json())
    return ("List the built-in variants, their recovery and their parameters' defaults under "
            "each settings profile (a flow's `profile`); with --profiles, every TCP default of "
            "every profile with its source. Variants: " + ", ".join(table["variants"])
            + ". Profiles: "
            + "; ".join(f"{c['name']}: {c['summary']}" for c in table["columns"]) + ".")


def print_profiles() -> None:
    """Every TCP default under every settings profile, with its source (the core's table)."""
    from tcplab.schema import schema

    table = schema()["profile_defaults"]
    for c in table["columns"]:
        print(f"{c['name']:<9} {c['summary']}")
    for r in table["rows"]:
        only = f" (with recovery {r['only_with_recovery']} only)" if r["only_with_recovery"] else ""
        print(f"\n{r['field']}{only}")
        for col in (c["name"] for c in table["columns"] if c["name"] in r["defaults"]):
            d = r["defaults"][col]
            value = "none" if d["default"] is None else (
                d["default"] if d["rule"] else json.dumps(d["default"]))
            print(f"    {col:<9} {value}  [{d['source']}]")


def cmd_variants(args: argparse.Namespace) -> int:
    """List the built-in variants, their recovery and their parameters' defaults."""
    from tcplab.schema import schema

    if args.profiles:
        print_profiles()
        return EXIT_OK
    meta = schema()
    others_profiles = [p for p in meta["profiles"] if p != "paper"]
    for v in meta["variants"]:
        print(f"{v['name']:<13} recovery {v['recovery']:<8} {v['summary']}")
        # The profiles whose usual recovery is another (resolve.rs's usual_recovery).
        by_recovery: dict[str, list[str]] = {}
        for c in meta["profile_defaults"]["columns"]:
            r = v["recoveries"].get(c["name"], v["recovery"])
            if r != v["recovery"]:
                by_recovery.setdefault(r, []).append(c["name"])
        if by_recovery:
            print("    recovery " + ", ".join(f"{r} ({', '.join(ps)})"
                                          for r, ps in by_recovery.items()))
        for p in v["probes"]:
            print(f"    trace cc:{p['name']:<14} ({p['unit']}) {p['meaning']}")
        paper = v["defaults"]["paper"]
        # A profile whose default is one of the forms (the ns3 profile's
        # ns-3 classes) is listed with that form, not key by key.
        by_form = {p: f for p in others_profiles for f in v.get("forms", [])
                   if v["defaults"][p].get(f["key"]) == f["value"] != paper.get(f["key"])}
        for key, value in paper.items():
            others = {p: v["defaults"][p].get(key) for p in others_profiles
                      if p not in by_form}
            differ = {p: o for p, o in others.items() if o != value}
            note = ("  (" + ", ".join(f"{p}: {json.dumps(o)}" for p, o in differ.items()) + ")"
                    if differ else "")
            print(f"    {key:<22} {json.dumps(value)}{note}")
        for f in v.get("forms", []):
            default_in = [p for p, g in by_form.items() if g is f]
            also = f"; the {', '.join(default_in)} profile's default" if default_in else ""
            print(f"  with {f['key']} = {json.dumps(f['value'])} (every profile{also}):")
            for p in f["probes"]:
                print(f"    trace cc:{p['name']:<14} ({p['unit']}) {p['meaning']}")
            for key, value in f["defaults"].items():
                print(f"    {key:<22} {json.dumps(value)}")
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    """Compare tcplab with the installed references; write the report."""
    import tcplab.validation as tv

    return tv.command(quick=args.quick, out=args.out, only=args.only, seeds=args.seeds,
                      jobs=args.jobs, packetdrill_dir=args.packetdrill_dir)


def cmd_packetdrill(args: argparse.Namespace) -> int:
    """Run packetdrill scripts against a linux-profile connection."""
    from tcplab.packetdrill.report import command

    return command(args.paths, as_json=args.json, topic_=args.topic, verbose=args.verbose,
                   as_markdown=args.markdown)


def cmd_completion(args: argparse.Namespace) -> int:
    """Print the shell completion script."""
    from tcplab.completion import script
    from tcplab.studies import STUDIES  # the names reproduce takes

    print(script(args.shell, build_parser(), list(STUDIES)), end="")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tcplab`` command."""
    p = _Parser(
        prog="tcplab", description="Packet-level simulation for TCP congestion-control research.",
        epilog="Exit codes: 0 success; 1 a run failed; 2 bad input or usage; 130 interrupted.",
    )
    p.add_argument("--version", action="version", version=f"tcplab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    def memory_budget(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--memory-budget", metavar="SIZE",
                        help="the most memory a run may hold, e.g. 8GiB (default 4GiB)")

    def scenario_args(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("file", help="scenario file (.toml, or .json)")
        sp.add_argument("--seed", type=int, help="override the scenario's seed")
        sp.add_argument("--run", type=int, help="override the run index")
        sp.add_argument("--duration", help="override the duration, e.g. 10s")
        memory_budget(sp)

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
    r.add_argument("--json", action="store_true",
                   help="print the results as JSON (results.json's content: flows, links, "
                   "summary, drops, events, intervals, pcap, the effective scenario) instead "
                   "of the tables; other messages go to stderr")
    r.set_defaults(func=cmd_run)

    c = sub.add_parser("check", help="check a scenario file; print it as JSON with every "
                       "default filled in (the effective scenario, as results.json's)")
    scenario_args(c)
    c.set_defaults(func=cmd_check)

    v = sub.add_parser("variants", help="list the TCP variants and their parameters; "
                       "--profiles: the settings profiles' TCP defaults")
    v.describe = profiles_help
    v.add_argument("--profiles", action="store_true",
                   help="print every TCP default of every settings profile, with its source")
    v.set_defaults(func=cmd_variants)

    st = sub.add_parser("studies", help="list the published studies")
    st.set_defaults(func=cmd_studies)

    rp = sub.add_parser("reproduce", help="reproduce a published study: tables and figures")
    rp.add_argument("study")
    rp.add_argument("--out", required=True, help="directory for the store, CSVs and figures")
    rp.add_argument("--quick", action="store_true", help="reduced durations and seeds")
    rp.add_argument("--jobs", type=_positive_int,
                    help="local worker processes (default: all cores)")
    rp.add_argument("--traces", metavar="DIR",
                    help="cellular: the folder of mahimahi's traces (default: "
                    "TCPLAB_TRACES, then the folder of `tcplab traces download`, then "
                    "../shared/traces/mahimahi)")
    rp.set_defaults(func=cmd_reproduce)

    sw = sub.add_parser("sweep", help="run a study (grid x seeds), resumable")
    sw.add_argument("file", help="study file (.toml)")
    sw.add_argument("--jobs", type=_positive_int,
                    help="local worker processes (default: all cores)")
    sw.add_argument("--dask", help="address of a Dask scheduler, e.g. tcp://host:8786")
    sw.add_argument("--db", help="results store (default: from the study file)")
    from tcplab.traces import seconds_arg

    sw.add_argument("--run-timeout", type=seconds_arg, metavar="SECONDS",
                    help="stop a run that takes longer than this (wall clock) and store it "
                    "as failed with the reason; it is retried next time (default: no limit)")
    sw.add_argument("--keep-failed", action="store_true",
                    help="do not run again the runs stored as failed (default: retry them)")
    memory_budget(sw)
    sw.set_defaults(func=cmd_sweep)

    from tcplab.cli_store import add_parsers as add_store_parsers

    add_store_parsers(sub, _level)

    va = sub.add_parser("validate", help="compare tcplab with ns-2, TCP-Linux, ns-3 and theory; "
                        "write an HTML and Markdown report (exit 1 if a row FAILs, a "
                        "reference breaks, or nothing is compared; known differences and open "
                        "misses do not fail it)")
    va.add_argument("--quick", action="store_true",
                    help="fewer points and shorter runs (a few minutes; what CI runs)")
    va.add_argument("--out", default="validation", help="report folder (default: validation)")
    va.add_argument("--only", help="comma-separated sections: variant or recovery names, or "
                    "variants, recoveries, ns3, theory, packetdrill, nv, cdg")
    va.add_argument("--seeds", type=int,
                    help="seeds per lossy point, 1 or more (default 3; quick 2)")
    va.add_argument("--jobs", type=int, default=2,
                    help="reference runs in parallel, 1 or more")
    va.add_argument("--packetdrill-dir", metavar="DIR",
                    help="packetdrill scripts to run (default: TCPLAB_PACKETDRILL, else "
                    "../shared/reference/packetdrill)")
    va.set_defaults(func=cmd_validate)

    pd = sub.add_parser("packetdrill", help="run Linux's packetdrill scripts against the "
                        "linux profile; a table by topic (exit 1 on a failure)")
    pd.add_argument("paths", nargs="+", metavar="PATH", help=".pkt scripts or folders")
    pd.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    pd.add_argument("--markdown", action="store_true",
                    help="print the tables docs/validation.md shows (by topic, skips, failures)")
    pd.add_argument("--topic", help="only the scripts of this topic (sack, rto, ...)")
    pd.add_argument("--verbose", action="store_true",
                    help="also detail known failures, the kernel's own and errors")
    pd.set_defaults(func=cmd_packetdrill)

    from tcplab.traces import add_parser as add_traces_parser

    add_traces_parser(sub)
    co = sub.add_parser("completion", help="print a shell completion script: "
                        'eval "$(tcplab completion bash)"')
    co.add_argument("shell", choices=["bash", "zsh"], help="the shell to complete in")
    co.set_defaults(func=cmd_completion)
    return p


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tcplab`` command; returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except BrokenPipeError:
        # The output was piped into something that stopped reading (| head).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt as e:
        # A sweep's says how many runs are stored; a single run's is plain.
        print(str(e) if isinstance(e, SweepInterrupted) else "interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError as e:
        text = _one_line(e)
        return _fail(text if text.startswith("out of memory") else f"out of memory: {text}",
                     EXIT_FAILED)
    except Exception as e:
        if isinstance(e, UsageError | ScenarioError | StoreError | SweepError):
            return _fail(_one_line(e), EXIT_USAGE)
        if isinstance(e, TcplabError):  # InternalError: a tcplab bug
            return _fail(_one_line(e), EXIT_FAILED)
        if isinstance(e, OSError):  # an output that cannot be written
            where = f"{e.filename}: " if e.filename else ""
            return _fail(f"{where}{e.strerror or _one_line(e)}", EXIT_USAGE)
        if os.environ.get("TCPLAB_TRACEBACK"):
            raise
        # A Python congestion control that raised, or a bug.
        return _fail(f"{type(e).__name__}: {_one_line(e)}", EXIT_FAILED)


if __name__ == "__main__":
    sys.exit(main())
