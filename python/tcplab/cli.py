"""The ``tcplab`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

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
    res = sc.run()
    print(res.table())
    if args.out:
        paths = res.save(args.out)
        print("\nwrote " + ", ".join(str(p) for p in paths))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Check a scenario file and print it with every default filled in."""
    sc = _overrides(_load(args.file), args)
    effective = sc.check()
    print(json.dumps(effective, indent=2))
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
    r.set_defaults(func=cmd_run)

    c = sub.add_parser("check", help="check a scenario file; print it with defaults filled in")
    scenario_args(c)
    c.set_defaults(func=cmd_check)

    v = sub.add_parser("variants", help="list the TCP variants and their parameters")
    v.set_defaults(func=cmd_variants)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tcplab`` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except TcplabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
