"""ns-3 3.44 side of the speed benchmark (bench/peers.py): the dumbbell.

N senders -(1 Gb/s, 1 ms)- R0 -(100 Mb/s, 10 ms)- R1 -(1 Gb/s, 1 ms)- N
receivers, one TcpNewReno bulk flow per pair, flow i starting at i/N s.
Runs in the virtualenv that has the `ns3` wheel (bench/compare_ns3.py
--setup), never in tcplab's. Prints one JSON line.

Configured as tcplab's side (see docs/performance.md):
- DropTail device queues of 100 packets everywhere; the default FqCoDel root
  queue disc is uninstalled, so packets wait in the device queue;
- SegmentSize 1448, SndBufSize and RcvBufSize 1 MiB, InitialCwnd 10;
- DelAckCount 2 and DelAckTimeout 200 ms (ns-3's defaults);
- SACK (--sack: on) and timestamps off, window scaling on; TcpClassicRecovery
  (not PRR), which with SACK follows RFC 6675's scoreboard;
- MinRto 1 s (ns-3's default).

    python dumbbell.py --flows 10 --duration 30
"""

import argparse
import json
import sys
import time
from pathlib import Path

from common import configure_tcp  # bench/ns3/common.py, beside this script
from ns import ns

# The topology is the package's validation dumbbell's (a script of ns-3's
# interpreter too, importable on its own).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python" / "tcplab" / "validation"))
from ns3_dumbbell import bulk_dumbbell, p2p  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--flows", type=int, default=1)
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--run", type=int, default=1)
    p.add_argument("--sack", action="store_true")
    a = p.parse_args()
    n = a.flows

    configure_tcp(ns, "TcpNewReno", segment_size=1448, delack=2, sack=a.sack, run=a.run,
                  buffers=1 << 20, initial_cwnd=10)

    access, bottleneck = p2p(ns, "1Gbps", "1ms"), p2p(ns, "100Mbps", "10ms")
    sinks = bulk_dumbbell(ns, n, access, bottleneck)

    ns.Simulator.Stop(ns.Seconds(a.duration))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0
    events = int(ns.Simulator.GetEventCount())
    rx = [int(ns.DynamicCast[ns.PacketSink](s).GetTotalRx()) for s in sinks]
    ns.Simulator.Destroy()
    print(json.dumps({"sim": "ns-3", "flows": n, "duration": a.duration, "wall_s": wall,
                      "events": events, "rx_bytes": rx}))


if __name__ == "__main__":
    main()
