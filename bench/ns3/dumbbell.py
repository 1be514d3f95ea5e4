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
import time

from common import configure_tcp  # bench/ns3/common.py, beside this script
from ns import ns


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

    routers = ns.NodeContainer()
    routers.Create(2)
    senders = ns.NodeContainer()
    senders.Create(n)
    receivers = ns.NodeContainer()
    receivers.Create(n)

    def p2p(rate: str, delay: str) -> "ns.PointToPointHelper":
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        h.SetChannelAttribute("Delay", ns.StringValue(delay))
        h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue("100p"))
        return h

    access = p2p("1Gbps", "1ms")
    bottleneck = p2p("100Mbps", "10ms")
    stack = ns.InternetStackHelper()
    stack.Install(routers)
    stack.Install(senders)
    stack.Install(receivers)
    addr = ns.Ipv4AddressHelper()
    tch = ns.TrafficControlHelper()

    def assign(devs: "ns.NetDeviceContainer", k: int) -> "ns.Ipv4InterfaceContainer":
        # One /30 per link out of 10.0.0.0/8.
        base = 4 * k
        addr.SetBase(ns.Ipv4Address(f"10.{base >> 16 & 255}.{base >> 8 & 255}.{base & 255}"),
                     ns.Ipv4Mask("255.255.255.252"))
        ifs = addr.Assign(devs)
        tch.Uninstall(devs)
        return ifs

    assign(bottleneck.Install(routers.Get(0), routers.Get(1)), 0)
    sink_ifs = []
    for i in range(n):
        assign(access.Install(senders.Get(i), routers.Get(0)), 1 + 2 * i)
        sink_ifs.append(assign(access.Install(routers.Get(1), receivers.Get(i)), 2 + 2 * i))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    port = 5000
    sinks = []
    for i in range(n):
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        sink_apps = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(
            receivers.Get(i))
        sink_apps.Start(ns.Seconds(0.0))
        sinks.append(sink_apps.Get(0))
        dst = ns.InetSocketAddress(sink_ifs[i].GetAddress(1), port).ConvertTo()
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(1448))
        apps = bulk.Install(senders.Get(i))
        apps.Start(ns.Seconds(i / n))

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
