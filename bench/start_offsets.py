"""A dumbbell point of `tcplab validate`'s variants section, run again with the starts moved.

Without random loss the dumbbell is deterministic: both simulators give one
run, and a point can sit on a knife edge, where which flow first sees a
standing queue, or loses most of a slow start, decides the whole run. This
runs the point (tcplab's linux profile against TCP-Linux, as the section
does) with flow i starting at i/N + i x stagger s, for several staggers,
and prints for each the three measures (tcplab / TCP-Linux), their ratios
and each flow's goodput on both sides. A flow with under a tenth of an
equal share of what the flows took is marked starved (*). The closing
line gives the ratios' range over the runs in which no flow of the
reference starved.

    python bench/start_offsets.py --variant hybla [--flows 4] [--duration 120]
        [--staggers 0,1,2,5,10,20,50]

Needs ns-2 (`apt-get install ns2`). docs/validation.md quotes its tables for
hybla and vegas-2.6.22 with 4 flows.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor

from tcplab.validation.paths import Case, Measure, ns2_run, tcplab_run
from tcplab.validation.suites import TCP_LINUX, TCP_LINUX_SETTINGS, rows_for, tcp_linux_flow

#: A flow with less than this share of an equal split of the flows' total is starved.
STARVED = 0.10


def starved(m: Measure) -> list[int]:
    """The flows of run `m` under STARVED of an equal share of its goodput."""
    if not m.flows:
        return []
    share = sum(m.flows) / len(m.flows)
    return [i for i, g in enumerate(m.flows) if g < STARVED * share]


def flows(m: Measure) -> str:
    """Each flow's goodput, Mb/s, a starved one marked."""
    out = starved(m)
    return ", ".join(f"{g:.2f}" + ("*" if i in out else "") for i, g in enumerate(m.flows))


def ratios(case: Case, ours: Measure, theirs: Measure) -> tuple[float, ...]:
    """tcplab / TCP-Linux for goodput, mean cwnd and reductions, as the report's rows."""
    return tuple(r.ratio for r in rows_for([(case, ours, theirs)]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", required=True, choices=sorted(TCP_LINUX),
                    help="a section of the variants comparison")
    ap.add_argument("--flows", type=int, default=4)
    ap.add_argument("--duration", type=float, default=120.0, help="s (the full run's)")
    ap.add_argument("--staggers", default="0,1,2,5,10,20,50",
                    help="ms added to flow i's start per index, comma-separated")
    args = ap.parse_args(argv)
    ns = shutil.which("ns")
    if ns is None:
        print("start_offsets: needs ns-2 (apt-get install ns2)", file=sys.stderr)
        return 2
    staggers = [float(s) for s in args.staggers.split(",")]
    cases = [Case("dumbbell", flows=args.flows, duration=args.duration, stagger=s / 1e3)
             for s in staggers]
    module = TCP_LINUX[args.variant]
    with ThreadPoolExecutor(2) as pool:
        refs = [pool.submit(ns2_run, ns, c, 1, f"linux:{module}", TCP_LINUX_SETTINGS)
                for c in cases]
        ours = [tcplab_run(c, 1, tcp_linux_flow(args.variant)) for c in cases]
        theirs = [f.result() for f in refs]
    print(f"{args.variant} on the {args.flows}-flow dumbbell, {args.duration:g} s: tcplab "
          f"(linux profile) against TCP-Linux {module}; * a starved flow")
    print("| stagger (ms) | goodput (Mb/s) | mean cwnd (segments) | reductions "
          "| ratios: goodput, cwnd, reductions | tcplab's flows (Mb/s) "
          "| TCP-Linux's flows (Mb/s) |")
    print("|---|---|---|---|---|---|---|")
    clean = []
    for s, c, a, b in zip(staggers, cases, ours, theirs, strict=True):
        r = ratios(c, a, b)
        print(f"| {s:g} | {a.goodput:.2f} / {b.goodput:.2f} | {a.cwnd_mean:.1f} / "
              f"{b.cwnd_mean:.1f} | {a.reductions:.0f} / {b.reductions:.0f} | "
              f"{r[0]:.2f}, {r[1]:.2f}, {r[2]:.2f} | {flows(a)} | {flows(b)} |")
        if not starved(b) and not b.stalled:
            clean.append(r)
    if clean:
        lo = [min(r[k] for r in clean) for k in range(3)]
        hi = [max(r[k] for r in clean) for k in range(3)]
        print(f"{len(clean)} of {len(cases)} runs with no starved TCP-Linux flow: goodput "
              f"{lo[0]:.2f}-{hi[0]:.2f}, mean cwnd {lo[1]:.2f}-{hi[1]:.2f}, reductions "
              f"{lo[2]:.2f}-{hi[2]:.2f}")
    else:
        print(f"every one of the {len(cases)} runs has a starved TCP-Linux flow")
    return 0


if __name__ == "__main__":
    sys.exit(main())
