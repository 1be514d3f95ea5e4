"""TCP benchmark: simulated packets per wall second and peak memory.

Scenarios (NewReno, bulk, 1460-B segments, delayed ACK 2, 60 simulated s):

  single   one flow:  a -(1 Gb/s, 1 ms)- r0 -(100 Mb/s, 10 ms, 100 p)- r1 -(1 Gb/s, 1 ms)- b
  shared   100 flows: 100 senders -(1 Gb/s, 1 ms)- r0 -(100 Mb/s, 10 ms, 100 p)- r1 - 100
           receivers, flow i starting at i/100 s
  traced   the same 100 flows, recording every time series (cwnd, ssthresh, srtt,
           rtt, rto, state, queue) and the drop and TCP event logs: the cost of
           the trace machinery when it is on (off, it is one branch per change)

Each scenario runs in a fresh process, so its peak RSS is its own; the
baseline line is a process that only imports tcplab (pandas and numpy load on first use).
With ``--repeat R`` each scenario runs R times, the rounds interleaved so that a
slow spell of the machine hits every scenario alike, and the table gives each
scenario's fastest run.
"Packets" are data segments and ACKs put on the wire by the endpoints;
"packet-hops" count every link a packet crossed.

    python bench/tcp.py [--duration 60] [--flows 100] [--repeat 3]

With ``TCPLAB_BENCH_BASELINE_PACKETS=1`` in the environment, the flows switch
limited transmit off where the build has it, so that a build from after
issue 18 simulates the same packets as the baseline build of
docs/performance.md (b66e96c), which had no limited transmit: the like-for-like
comparison in instructions (callgrind) or time (bench/ab.py) needs it.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import resource
import subprocess
import sys

import tcplab as tl


def _timing(res) -> dict:  # noqa: ANN001
    """The run's wall time (``res.timing``; in ``res.summary`` before it moved)."""
    return getattr(res, "timing", None) or res.summary

def dumbbell(n: int, **tcp: object) -> tl.Network:
    """The issue-8 dumbbell with n NewReno bulk flows (``tcp``: extra net.tcp options).

    Built with groups: one entry for the access links (s_i-r0 and r1-d_i in
    turn) and one for the flows, which expand to the same network, in the
    same order, as adding them one by one.
    """
    net = tl.Network(f"dumbbell-{n}")
    if (os.environ.get("TCPLAB_BENCH_BASELINE_PACKETS") == "1"
            and "limited_transmit" in inspect.signature(net.tcp).parameters):
        tcp = {"limited_transmit": False, **tcp}
    r0, r1 = net.router("r0"), net.router("r1")
    net.link(r0, r1, rate="100Mbps", delay="10ms", queue="100p", name="bottleneck")
    if not hasattr(net, "hosts"):
        # A build from before groups (the baseline of docs/performance.md).
        for i in range(n):
            s, d = net.host(f"s{i}"), net.host(f"d{i}")
            net.link(s, r0, rate="1Gbps", delay="1ms")
            net.link(r1, d, rate="1Gbps", delay="1ms")
            net.tcp(s, d, cc="newreno", app=tl.Bulk(start=f"{i / n}s"), **tcp)
        return net
    ends = net.hosts([x for i in range(n) for x in (f"s{i}", f"d{i}")])
    senders, receivers = ends[0::2], ends[1::2]
    net.link([x if k % 2 == 0 else "r1" for k, x in enumerate(ends)],
             [r0 if k % 2 == 0 else x for k, x in enumerate(ends)],
             rate="1Gbps", delay="1ms")
    net.tcp(senders, receivers, cc="newreno",
            app=tl.Bulk(start=[f"{i / n}s" for i in range(n)]), **tcp)
    return net


TRACES = ["cwnd", "ssthresh", "srtt", "rtt", "rto", "state", "queue", "drops", "events"]


def child(name: str, flows: int, duration: float) -> None:
    trace = TRACES if name == "traced" else []
    res = dumbbell(flows).run(duration=duration, seed=1, trace=trace)
    s, t = res.summary, _timing(res)
    f = res.flows
    out = {
        "name": name,
        "flows": flows,
        "wall": t["wall_seconds"],
        "events": s["events"],
        "packets": int(f["sent_packets"].sum() + f["ack_packets"].sum()),
        "hops": int(res.links["tx_packets"].sum()),
        # Total delivered over the run (summing per-flow rates would mix their
        # different active times).
        "goodput": float(f["delivered_bytes"].sum() * 8 / duration),
        "util": float(res.link("bottleneck")["utilization"]),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(out))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--flows", type=int, default=100)
    p.add_argument("--repeat", type=int, default=3, help="runs per scenario (fresh processes)")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        child(a.child[0], int(a.child[1]), float(a.child[2]))
        return
    base = subprocess.run(
        [sys.executable, "-c", "import resource, tcplab; "
         "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"],
        capture_output=True, text=True, check=True)
    print(f"baseline (import tcplab): peak RSS {float(base.stdout):.1f} MB")
    print(f"{'scenario':<9}{'flows':>6}{'sim s':>7}{'wall s':>9}{'packets':>12}"
          f"{'pkts/wall s':>14}{'events/s':>12}{'goodput':>12}{'util':>7}{'RSS MB':>8}")
    if a.repeat < 1:
        p.error("--repeat: must be at least 1")
    scenarios = [("single", 1), ("shared", a.flows), ("traced", a.flows)]
    runs: dict[str, list[dict]] = {name: [] for name, _ in scenarios}
    for _ in range(a.repeat):
        for name, n in scenarios:
            r = subprocess.run([sys.executable, __file__, "--child", name, str(n),
                                str(a.duration)], capture_output=True, text=True, check=True)
            runs[name].append(json.loads(r.stdout))
    for name, n in scenarios:
        d = min(runs[name], key=lambda r: r["wall"])
        print(f"{name:<9}{n:>6}{a.duration:>7g}{d['wall']:>9.3f}{d['packets']:>12,}"
              f"{d['packets'] / d['wall'] / 1e6:>12.2f} M{d['events'] / d['wall'] / 1e6:>10.2f} M"
              f"{d['goodput'] / 1e6:>9.2f} Mb/s{d['util']:>7.3f}{d['rss_mb']:>8.1f}")


if __name__ == "__main__":
    main()
