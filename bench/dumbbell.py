"""Scaling with the number of flows: the dumbbell of issue 8, tcplab alone.

N senders -(1 Gb/s, 1 ms)- R0 -(100 Mb/s, 10 ms, 100 p)- R1 -(1 Gb/s, 1 ms)- N
receivers; NewReno bulk flows, flow i starting at i/N s, 1448-B segments,
1 MiB buffers. Each run is a fresh process that simulates once (cold), and
each N runs `--repeat` times, the rounds interleaved so that a slow spell of
the machine hits every N alike; the table gives each N's fastest run: the
core's wall time, the cost per packet (data segments and ACKs the endpoints
sent), the builder (Python: the network and its scenario), the whole
run() call (checking, building, the loop and the results' conversion), the
call over the core's time, builder and call together, and the process's
peak RSS. The last line is the cost per packet at the largest N over that at
N = 10 (issue 8's target: at most 2), with the range over the rounds.

    python bench/dumbbell.py [--flows 1,10,100,1000,10000] [--duration 30] [--repeat 5]
    python bench/dumbbell.py --flows 10000,1000000 --repeat 1 --phases   # issue 17's targets

`--check-only N` checks and builds the N-flow scenario without running it
(what `tcplab check` does), for counting the check's instructions:

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*plan_owned*' \
        python bench/dumbbell.py --check-only 100000
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def _timing(res) -> dict:  # noqa: ANN001
    """The run's wall time (``res.timing``; in ``res.summary`` before it moved)."""
    return getattr(res, "timing", None) or res.summary

def _column(res, table: str, name: str) -> list:  # noqa: ANN001
    """One column of a table (from the rows, for a build from before columnar results)."""
    if hasattr(res, "column"):
        return res.column(table, name)
    return [row[name] for row in res.raw[table]]


def _budget(n: int) -> str | None:
    """A million flows' network is estimated at about 4.9 GB: over the default 4 GiB budget."""
    return "8GiB" if n >= 500_000 else None


def child(n: int, duration: float) -> None:
    from tcp import dumbbell  # bench/tcp.py, beside this file

    t0 = time.perf_counter()
    net = dumbbell(n, mss=1448, rcv_buf="1MiB")
    sc = net.scenario(duration=f"{duration}s", seed=1, memory_budget=_budget(n))
    t1 = time.perf_counter()
    res = sc.run()
    t2 = time.perf_counter()
    # One column at a time, without pandas: it would weigh on the measured
    # RSS and time.
    packets = sum(_column(res, "flows", "sent_packets")) + sum(_column(res, "flows", "ack_packets"))
    links = _column(res, "links", "link")
    util = _column(res, "links", "utilization")[links.index("bottleneck")]
    timing = _timing(res)
    print(json.dumps({
        "n": n, "core_s": timing["wall_seconds"], "build_s": t1 - t0, "call_s": t2 - t1,
        "total_s": t2 - t0, "packets": packets, "events": res.summary["events"], "util": util,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "phases": {k: v for k, v in timing.items() if k.endswith("_seconds")},
    }))


def check_only(n: int) -> None:
    from tcp import dumbbell  # bench/tcp.py, beside this file
    from tcplab import _core

    sc = dumbbell(n, mss=1448, rcv_buf="1MiB").scenario(duration="30s", seed=1,
                                                        memory_budget=_budget(n))
    t0 = time.perf_counter()
    _core.check_json(sc.data)
    print(json.dumps({"n": n, "check_and_build_s": time.perf_counter() - t0}))


def ns_per_packet(run: dict) -> float:
    return run["core_s"] / run["packets"] * 1e9


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--flows", default="1,10,100,1000,10000")
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--repeat", type=int, default=5, help="runs per N (fresh processes)")
    p.add_argument("--phases", action="store_true",
                   help="also print where the whole call's time went (parse, check, build, ...)")
    p.add_argument("--check-only", type=int, metavar="N",
                   help="only check and build the N-flow scenario (for callgrind)")
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.check_only is not None:
        check_only(a.check_only)
        return
    if a.child is not None:
        child(a.child, a.duration)
        return
    if a.repeat < 1:
        p.error("--repeat: must be at least 1")
    flows = [int(x) for x in a.flows.split(",")]
    runs: dict[int, list[dict]] = {n: [] for n in flows}
    for _ in range(a.repeat):
        for n in flows:
            out = subprocess.run([sys.executable, __file__, "--child", str(n), "--duration",
                                  str(a.duration)], capture_output=True, text=True, check=True)
            runs[n].append(json.loads(out.stdout))
    print(f"{'N':>9}{'core s':>9}{'packets':>14}{'ns/packet':>11}{'events/s':>11}"
          f"{'builder s':>11}{'call s':>9}{'call/core':>11}{'total s':>9}{'util':>7}{'RSS MB':>9}")
    for n in flows:
        d = min(runs[n], key=lambda r: r["core_s"])
        print(f"{n:>9,}{d['core_s']:>9.3f}{d['packets']:>14,}{ns_per_packet(d):>11.0f}"
              f"{d['events'] / d['core_s'] / 1e6:>9.2f} M{d.get('build_s', 0):>11.2f}"
              f"{d['call_s']:>9.2f}{d['call_s'] / d['core_s']:>10.2f}x"
              f"{d.get('total_s', d['call_s']):>9.2f}{d['util']:>7.3f}{d['rss_mb']:>9.1f}")
    if a.phases:
        print("\nphases of the fastest run (seconds): " + ", ".join(
            k.removesuffix("_seconds") for k in min(runs[flows[0]],
                                                     key=lambda r: r["core_s"])["phases"]))
        for n in flows:
            d = min(runs[n], key=lambda r: r["core_s"])
            print(f"{n:>9,}  " + "  ".join(f"{v:.3f}" for v in d["phases"].values()))
    if 10 in runs and len(flows) > 1:
        top = max(flows)
        best = {n: min(ns_per_packet(r) for r in runs[n]) for n in (10, top)}
        rounds = [ns_per_packet(hi) / ns_per_packet(lo)
                  for hi, lo in zip(runs[top], runs[10], strict=True)]
        print(f"cost per packet, N = {top:,} over N = 10: {best[top] / best[10]:.2f}x "
              f"(fastest runs; {min(rounds):.2f}x to {max(rounds):.2f}x round by round, "
              f"{a.repeat} rounds)")


if __name__ == "__main__":
    main()
