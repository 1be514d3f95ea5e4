"""Speed of the queue disciplines: the same dumbbell through each, against drop-tail.

bench/tcp.py's dumbbell (N NewReno flows, 1 Gb/s access links, a 100 Mb/s,
10 ms bottleneck) with the bottleneck's forward queue drop-tail (100
packets), RED, CoDel, FQ-CoDel or PIE (their defaults, limits of 100
packets where they have one), 30 s. Every run is a fresh process, the
disciplines interleaved run by run; the table gives each one's fastest run
in ns per packet (data segments and ACKs sent) and its ratio to drop-tail
(issue 19's target: at most 1.3).

    python bench/aqm_speed.py [--flows 10,1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUEUES = {
    "droptail": "100p",
    "red": {"kind": "red", "limit": "100p"},
    "codel": {"kind": "codel", "limit": "100p"},
    "fq_codel": {"kind": "fq_codel", "limit": "100p"},
    "pie": {"kind": "pie", "limit": "100p"},
}


def child(kind: str, n: int, duration: float) -> None:
    sys.path.insert(0, str(HERE))
    from tcp import dumbbell

    net = dumbbell(n)
    net._links[0]["queue"] = QUEUES[kind]
    res = net.run(duration=duration, seed=1)
    packets = int(res.flows["sent_packets"].sum() + res.flows["ack_packets"].sum())
    print(json.dumps({"wall": res.timing["wall_seconds"], "packets": packets,
                      "drops": int(res.links["drops_queue"].sum() + res.links["drops_aqm"].sum())}))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--flows", default="10,1000")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--child", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        child(a.child[0], int(a.child[1]), a.duration)
        return
    flows = [int(x) for x in a.flows.split(",")]
    best: dict[tuple[str, int], float] = {}
    for _ in range(a.repeat):
        for n in flows:
            for kind in QUEUES:
                out = subprocess.run([sys.executable, __file__, "--child", kind, str(n),
                                      "--duration", str(a.duration)],
                                     capture_output=True, text=True, check=True)
                r = json.loads(out.stdout)
                ns = r["wall"] * 1e9 / r["packets"]
                best[kind, n] = min(best.get((kind, n), ns), ns)
    print(f"{'N':>6}  " + "  ".join(f"{k:>16}" for k in QUEUES))
    for n in flows:
        base = best["droptail", n]
        cells = [f"{best[k, n]:6.1f} ns {best[k, n] / base:5.2f}x" for k in QUEUES]
        print(f"{n:>6}  " + "  ".join(f"{c:>16}" for c in cells))
    print(f"(ns per packet, fastest of {a.repeat} fresh processes, ratio to drop-tail)")


if __name__ == "__main__":
    main()
