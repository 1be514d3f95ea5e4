"""The ns-3 side of `tcplab validate`: the 100-ms dumbbell, bulk flows.

Runs in the virtualenv that has the `ns3` wheel, never in tcplab's (this
file is passed to that interpreter as a script). Prints one JSON line with
each flow's received bytes.

senders -(100 Mb/s, 1 ms)- r0 -(10 Mb/s, 48 ms)- r1 -(100 Mb/s, 1 ms)-
receivers, flow i from i/N s; drop-tail device queues of 100 packets (the
default FqCoDel root queue disc uninstalled); SegmentSize 1448; 4 MiB
send and receive buffers (ns-3's 128 KiB would cap every variant at the
same window on this path); ns-3's defaults otherwise (timestamps, SACK,
PRR, InitialCwnd 10, DelAckCount 2, MinRto 1 s); TcpCubic without HyStart
(tcplab's ns3 profile does not model ns-3's HyStart).

--per sets uniform packet errors on the bottleneck (RateErrorModel, unit
packet, at r1's device).

    python ns3_dumbbell.py --cc TcpLedbat --flows 4 --duration 120 --run 1 --per 0.01
"""

import argparse
import json

from ns import ns


def main() -> None:
    """Run the dumbbell and print its JSON line."""
    p = argparse.ArgumentParser()
    p.add_argument("--cc", default="TcpNewReno")
    p.add_argument("--flows", type=int, default=1)
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--run", type=int, default=1)
    p.add_argument("--per", type=float, default=0.0)
    a = p.parse_args()
    n = a.flows
    sinks = build(ns, a.cc, n, a.per, a.run)

    ns.Simulator.Stop(ns.Seconds(a.duration))
    ns.Simulator.Run()
    rx = [int(ns.DynamicCast[ns.PacketSink](s).GetTotalRx()) for s in sinks]
    ns.Simulator.Destroy()
    print(json.dumps({"cc": a.cc, "flows": n, "duration": a.duration, "rx_bytes": rx}))


def build(ns, cc: str, n: int, per: float, run: int) -> list:  # noqa: ANN001
    """The dumbbell with `n` flows of `cc` (a TypeId name), TCP set as above.

    Returns the packet sinks; bench/ns3/trace_dumbbell.py builds the same.
    """
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::" + cc))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(4 << 20))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(4 << 20))
    if cc == "TcpCubic":
        ns.Config.SetDefault("ns3::TcpCubic::HyStart", ns.BooleanValue(False))
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(run)
    access, bottleneck = p2p(ns, "100Mbps", "1ms"), p2p(ns, "10Mbps", "48ms")
    return bulk_dumbbell(ns, n, access, bottleneck, per=per, port=lambda i: 5000 + i)


def p2p(ns, rate: str, delay: str):  # noqa: ANN001, ANN201 (ns-3's bindings)
    """A point-to-point helper with a 100-packet drop-tail device queue."""
    h = ns.PointToPointHelper()
    h.SetDeviceAttribute("DataRate", ns.StringValue(rate))
    h.SetChannelAttribute("Delay", ns.StringValue(delay))
    h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue("100p"))
    return h


def bulk_dumbbell(ns, n: int, access, bottleneck, *, per: float = 0.0,  # noqa: ANN001
                  port=lambda i: 5000) -> list:  # noqa: ANN001
    """N senders -(access)- r0 -(bottleneck)- r1 -(access)- N receivers.

    One /30 per link out of 10.0.0.0/8, no queue disc (the default FqCoDel
    uninstalled), uniform packet errors at `per` on r1's bottleneck device,
    and one bulk flow per pair to `port(i)`, flow i from i/N s. Returns the
    packet sinks. bench/ns3/dumbbell.py builds its dumbbell here too.
    """
    routers, senders, receivers = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    routers.Create(2)
    senders.Create(n)
    receivers.Create(n)
    stack = ns.InternetStackHelper()
    for c in (routers, senders, receivers):
        stack.Install(c)
    addr = ns.Ipv4AddressHelper()
    tch = ns.TrafficControlHelper()

    def assign(devs, k: int):  # noqa: ANN001, ANN202
        base = 4 * k
        addr.SetBase(ns.Ipv4Address(f"10.{base >> 16 & 255}.{base >> 8 & 255}.{base & 255}"),
                     ns.Ipv4Mask("255.255.255.252"))
        ifs = addr.Assign(devs)
        tch.Uninstall(devs)
        return ifs

    core_devs = bottleneck.Install(routers.Get(0), routers.Get(1))
    assign(core_devs, 0)
    if per > 0:
        em = ns.CreateObject[ns.RateErrorModel]()
        em.SetAttribute("ErrorRate", ns.DoubleValue(per))
        em.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
        core_devs.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
    sink_ifs = []
    for i in range(n):
        assign(access.Install(senders.Get(i), routers.Get(0)), 1 + 2 * i)
        sink_ifs.append(assign(access.Install(routers.Get(1), receivers.Get(i)), 2 + 2 * i))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sinks = []
    for i in range(n):
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port(i)).ConvertTo()
        sink_apps = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(
            receivers.Get(i))
        sink_apps.Start(ns.Seconds(0.0))
        sinks.append(sink_apps.Get(0))
        dst = ns.InetSocketAddress(sink_ifs[i].GetAddress(1), port(i)).ConvertTo()
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(1448))
        apps = bulk.Install(senders.Get(i))
        apps.Start(ns.Seconds(i / n))
    return sinks


if __name__ == "__main__":
    main()
