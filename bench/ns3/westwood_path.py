"""ns-3 3.44 side of the comparison: the Westwood papers' path, one bulk flow.

Runs in a virtualenv that has the `ns3` wheel (see bench/compare_ns3.py),
never in tcplab's. Prints one JSON line: goodput and counters.

    python westwood_path.py --cc TcpNewReno --run 1 --duration 600

Configuration, chosen to match tcplab's "ns3" profile with SACK and
timestamps off (tcplab does not model PRR or the PPP header):
- source -(10 Mb/s, 45 ms)- router -(2 Mb/s, 0.01 ms)- sink, point-to-point;
- drop-tail device queues of 100 packets; the default FqCoDel root queue
  disc is uninstalled, so packets wait in the device queue as in tcplab;
- 400-B IP packets: SegmentSize 360 (no TCP options on data segments);
- DelAckCount 2, DelAckTimeout 200 ms (ns-3 defaults), InitialCwnd 10
  (default), 128 KiB buffers (default), MinRto 1 s (default);
- SACK and timestamps off; TcpClassicRecovery instead of the default PRR
  (--sack and --recovery prr change both);
- RateErrorModel, unit packet, rate 0.005, on reception at the sink.
"""

import argparse
import json
import time

from common import configure_tcp  # bench/ns3/common.py, beside this script
from ns import ns


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cc", default="TcpNewReno")
    p.add_argument("--run", type=int, default=1)
    p.add_argument("--duration", type=float, default=600.0)
    p.add_argument("--per", type=float, default=0.005)
    p.add_argument("--delack", type=int, default=2, help="DelAckCount (1: no delayed ACK)")
    p.add_argument("--recovery", choices=["classic", "prr"], default="classic")
    p.add_argument("--sack", action="store_true", help="SACK on (default off)")
    a = p.parse_args()

    core = ns
    configure_tcp(ns, a.cc, segment_size=360, delack=a.delack, sack=a.sack, run=a.run,
                  recovery=a.recovery)

    nodes = ns.NodeContainer()
    nodes.Create(3)
    access = ns.PointToPointHelper()
    access.SetDeviceAttribute("DataRate", core.StringValue("10Mbps"))
    access.SetChannelAttribute("Delay", core.StringValue("45ms"))
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", core.StringValue("100p"))
    bottleneck = ns.PointToPointHelper()
    bottleneck.SetDeviceAttribute("DataRate", core.StringValue("2Mbps"))
    bottleneck.SetChannelAttribute("Delay", core.StringValue("0.01ms"))
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", core.StringValue("100p"))
    d1 = access.Install(nodes.Get(0), nodes.Get(1))
    d2 = bottleneck.Install(nodes.Get(1), nodes.Get(2))

    ns.InternetStackHelper().Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(d1)
    addr.SetBase(ns.Ipv4Address("10.1.2.0"), ns.Ipv4Mask("255.255.255.0"))
    i2 = addr.Assign(d2)
    tch = ns.TrafficControlHelper()
    tch.Uninstall(d1)
    tch.Uninstall(d2)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    em = ns.CreateObject[ns.RateErrorModel]()
    em.SetAttribute("ErrorRate", core.DoubleValue(a.per))
    em.SetAttribute("ErrorUnit", core.StringValue("ERROR_UNIT_PACKET"))
    d2.Get(1).SetAttribute("ReceiveErrorModel", core.PointerValue(em))

    port = 5000
    any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
    sink_helper = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr)
    sinks = sink_helper.Install(nodes.Get(2))
    sinks.Start(core.Seconds(0.0))
    dst = ns.InetSocketAddress(i2.GetAddress(1), port).ConvertTo()
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
    bulk.SetAttribute("MaxBytes", core.UintegerValue(0))
    bulk.SetAttribute("SendSize", core.UintegerValue(360))
    apps = bulk.Install(nodes.Get(0))
    apps.Start(core.Seconds(0.0))

    core.Simulator.Stop(core.Seconds(a.duration))
    t0 = time.perf_counter()
    core.Simulator.Run()
    wall = time.perf_counter() - t0
    sink = ns.DynamicCast[ns.PacketSink](sinks.Get(0))
    rx = sink.GetTotalRx()
    events = int(core.Simulator.GetEventCount())
    core.Simulator.Destroy()
    print(json.dumps({"cc": a.cc, "run": a.run, "duration": a.duration, "rx_bytes": int(rx),
                      "goodput_bps": rx * 8 / a.duration, "wall_s": wall, "events": events}))


if __name__ == "__main__":
    main()
