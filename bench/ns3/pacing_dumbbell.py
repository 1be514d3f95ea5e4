"""ns-3 3.44's TCP pacing on the 100-ms dumbbell of `tcplab validate`'s ns-3 section.

Runs in the virtualenv that has the `ns3` wheel (see bench/compare_ns3.py),
never in tcplab's; bench/ns3_pacing.py drives it. One bulk flow (flow 0,
node 2) on the dumbbell of python/tcplab/validation/ns3_dumbbell.py, as
bench/ns3/trace_dumbbell.py runs it, with ns-3's pacing attributes set
before the socket exists: ns3::TcpSocketState::EnablePacing (--pacing),
PaceInitialWindow (--pace-initial-window), MaxPacingRate, PacingSsRatio
and PacingCaRatio left at 4 Gb/s, 200 and 120. --no-timestamps turns
ns3::TcpSocketBase::Timestamp off (a diagnostic: with timestamps, ns-3's
RTT samples are whole milliseconds, TcpOptionTS::ElapsedTimeFromTsValue).

Writes to the folder --out:
- sender.txt: the sender's trace sources in the format of
  bench/ns3/common.py's SENDER_TRACE (every segment the socket sends, at
  the socket: `tx SEQ LEN`);
- wire.txt: `time_ns SEQ LEN`, every data segment as it starts onto the
  wire of the sender's access link (PhyTxBegin of node 2's device), which
  is what tcplab's pcap (capture "tx") of that link records;
and prints one JSON line: goodput, and the bottleneck's device queue (r0 ->
r1, 100-packet drop-tail; the packet on the wire not counted, as tcplab
counts its queue) from its PacketsInQueue trace: the peak (of the values
that lasted: a packet that finds the device idle is enqueued and dequeued
at one instant), the time average over the run, and its drops (TcDrop at
r0: without a queue disc, the traffic control layer drops for a full
device queue).

    python pacing_dumbbell.py --cc TcpNewReno --pacing [--pace-initial-window] \
        [--no-timestamps] --per 0 --run 1 --duration 60 --out DIR
"""

import argparse
import json
import sys
from pathlib import Path

from ns import ns

HERE = Path(__file__).resolve().parent
# Run with -I (as bench/ns3_trace.py runs trace_dumbbell.py), this script
# has no path of its own: its neighbours are imported from here.
sys.path.insert(0, str(HERE))
from common import sender_trace  # noqa: E402  (bench/ns3/common.py)
from trace_dumbbell import load  # noqa: E402  (bench/ns3/trace_dumbbell.py)

# The wire times of the sender's data segments and the bottleneck queue,
# in C++ (a Python callback per packet would be slow). One simulation per
# process, so the state is global.
PACING_TRACE = r"""
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"
#include <algorithm>
#include <fstream>
#include <string>

namespace pacingtrace {
using namespace ns3;
std::ofstream g_wire;
// PacketsInQueue integrated over time, in packet-nanoseconds, and its
// peak over the values that lasted: a packet that reaches an idle device
// is enqueued and dequeued at one instant (1, then 0), and never waited.
double g_area = 0;
int64_t g_last = 0;
uint32_t g_value = 0, g_max = 0;
uint64_t g_drops = 0;

int64_t Now() { return Simulator::Now().GetNanoSeconds(); }

void OnQueue(uint32_t, uint32_t v) {
    int64_t now = Now();
    if (now > g_last) {
        g_area += double(g_value) * double(now - g_last);
        g_max = std::max(g_max, g_value);
        g_last = now;
    }
    g_value = v;
}
void OnDrop(Ptr<const Packet>) { g_drops++; }

// A data segment starts onto the wire: PPP, IPv4 and TCP headers before
// the payload.
void OnWire(Ptr<const Packet> p) {
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    c->RemoveHeader(ppp);
    Ipv4Header ip;
    c->RemoveHeader(ip);
    if (ip.GetProtocol() != 6) return;
    TcpHeader h;
    c->RemoveHeader(h);
    if (c->GetSize() == 0) return;
    g_wire << Now() << " " << h.GetSequenceNumber().GetValue() << " " << c->GetSize() << "\n";
}

// The point-to-point device of node `node` whose link leads to node `peer`.
Ptr<PointToPointNetDevice> Device(uint32_t node, uint32_t peer) {
    Ptr<Node> n = NodeList::GetNode(node);
    for (uint32_t i = 0; i < n->GetNDevices(); i++) {
        Ptr<PointToPointNetDevice> d = DynamicCast<PointToPointNetDevice>(n->GetDevice(i));
        if (!d) continue;
        Ptr<Channel> ch = d->GetChannel();
        for (std::size_t j = 0; j < ch->GetNDevices(); j++) {
            if (ch->GetDevice(j) != d && ch->GetDevice(j)->GetNode()->GetId() == peer) return d;
        }
    }
    NS_FATAL_ERROR("no link from node " << node << " to node " << peer);
    return nullptr;
}

// The sender's access device (sender -> r0) and the bottleneck's (r0 -> r1).
void Attach(uint32_t sender, uint32_t r0, uint32_t r1, std::string wire) {
    g_wire.open(wire);
    Device(sender, r0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnWire));
    Ptr<Queue<Packet>> q = Device(r0, r1)->GetQueue();
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueue));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    // With no queue disc, r0's traffic control layer drops a packet for a
    // full device queue (TcDrop; the queue drops none). The other devices
    // of r0 never fill.
    NodeList::GetNode(r0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeCallback(&OnDrop));
}

double MeanPackets() {
    int64_t now = Now();
    return now > 0 ? (g_area + double(g_value) * double(now - g_last)) / double(now) : 0.0;
}
uint32_t MaxPackets() { return Now() > g_last ? std::max(g_max, g_value) : g_max; }
uint64_t Drops() { return g_drops; }
void Close() { g_wire.close(); }
}  // namespace pacingtrace
"""


def main() -> None:
    """Run one paced (or unpaced) flow and print its JSON line."""
    p = argparse.ArgumentParser()
    p.add_argument("--cc", default="TcpNewReno")
    p.add_argument("--pacing", action="store_true", help="EnablePacing true")
    p.add_argument("--pace-initial-window", action="store_true",
                   help="PaceInitialWindow true")
    p.add_argument("--no-timestamps", action="store_true",
                   help="Timestamp false (the dumbbell keeps ns-3's default, true)")
    p.add_argument("--per", type=float, default=0.0)
    p.add_argument("--run", type=int, default=1)
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--out", required=True, help="folder for sender.txt and wire.txt")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    d = load("ns3_dumbbell", HERE.parents[1] / "python" / "tcplab" / "validation"
             / "ns3_dumbbell.py")
    ns.Config.SetDefault("ns3::TcpSocketState::EnablePacing", ns.BooleanValue(a.pacing))
    ns.Config.SetDefault("ns3::TcpSocketState::PaceInitialWindow",
                         ns.BooleanValue(a.pace_initial_window))
    if a.no_timestamps:
        ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    trace = sender_trace(ns.cppyy)
    ns.cppyy.cppdef(PACING_TRACE)
    pt = ns.cppyy.gbl.pacingtrace
    sinks = d.build(ns, a.cc, 1, a.per, a.run)
    # Nodes: r0, r1, then the sender, then the receiver (bulk_dumbbell).
    pt.Attach(2, 0, 1, str(out / "wire.txt"))
    # The socket exists once the application has started (at 0 s).
    trace.Schedule(0.001, 2, str(out / "sender.txt"))
    ns.Simulator.Stop(ns.Seconds(a.duration))
    ns.Simulator.Run()
    rx = int(ns.DynamicCast[ns.PacketSink](sinks[0]).GetTotalRx())
    result = {"cc": a.cc, "pacing": a.pacing, "pace_initial_window": a.pace_initial_window,
              "goodput_bps": rx * 8 / a.duration, "queue_max_packets": int(pt.MaxPackets()),
              "queue_mean_packets": float(pt.MeanPackets()), "drops_queue": int(pt.Drops())}
    trace.Close()
    pt.Close()
    ns.Simulator.Destroy()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
