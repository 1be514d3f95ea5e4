"""Scaling with the number of flows: the dumbbell of issue 8, tcplab alone.

N senders -(1 Gb/s, 1 ms)- R0 -(100 Mb/s, 10 ms, 100 p)- R1 -(1 Gb/s, 1 ms)- N
receivers; NewReno bulk flows, flow i starting at i/N s, 1448-B segments,
1 MiB buffers. Each run is a fresh process that simulates once (cold), and
each N runs `--repeat` times, the rounds interleaved so that a slow spell of
the machine hits every N alike; the table gives each N's fastest run: the
core's wall time, the cost per packet (data segments and ACKs the endpoints
sent), the whole call (including result conversion) and the process's peak
RSS. The last line is the cost per packet at the largest N over that at
N = 10 (issue 8's target: at most 2), with the range over the rounds.

    python bench/dumbbell.py [--flows 1,10,100,1000,10000] [--duration 30] [--repeat 5]
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

def child(n: int, duration: float) -> None:
    from tcp import dumbbell  # bench/tcp.py, beside this file

    net = dumbbell(n, mss=1448, rcv_buf="1MiB")
    sc = net.scenario(duration=f"{duration}s", seed=1)
    t0 = time.perf_counter()
    res = sc.run()
    call = time.perf_counter() - t0
    # Raw results, not the tables: pandas would weigh on the measured RSS.
    flows = res.raw["flows"]
    packets = sum(f["sent_packets"] + f["ack_packets"] for f in flows)
    bottleneck = next(lk for lk in res.raw["links"] if lk["link"] == "bottleneck")
    print(json.dumps({
        "n": n, "core_s": _timing(res)["wall_seconds"], "call_s": call, "packets": packets,
        "events": res.summary["events"],
        "util": bottleneck["utilization"],
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


def ns_per_packet(run: dict) -> float:
    return run["core_s"] / run["packets"] * 1e9


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--flows", default="1,10,100,1000,10000")
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--repeat", type=int, default=5, help="runs per N (fresh processes)")
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = p.parse_args()
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
    print(f"{'N':>6}{'core s':>9}{'packets':>12}{'ns/packet':>11}{'events/s':>11}"
          f"{'call s':>9}{'util':>7}{'RSS MB':>8}")
    for n in flows:
        d = min(runs[n], key=lambda r: r["core_s"])
        print(f"{n:>6}{d['core_s']:>9.3f}{d['packets']:>12,}{ns_per_packet(d):>11.0f}"
              f"{d['events'] / d['core_s'] / 1e6:>9.2f} M{d['call_s']:>9.2f}{d['util']:>7.3f}"
              f"{d['rss_mb']:>8.1f}")
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
