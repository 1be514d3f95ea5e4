"""ns-3 3.44 side of the AQM comparison (bench/compare_aqm.py): one dumbbell.

N senders -(access, 1 ms)- R0 -(bottleneck, 20 ms)- R1 -(access, 1 ms)- N
receivers, one bulk TCP flow per pair, flow i starting at i * 0.1 s; the
queue discipline under test on R0's bottleneck device only (R0 -> R1). Runs
in the virtualenv that has the `ns3` wheel (bench/compare_ns3.py --setup),
never in tcplab's. Prints one JSON line.

    python aqm_dumbbell.py --qdisc red --flows 4 --duration 60
    python aqm_dumbbell.py --qdisc codel --ecn --cc TcpCubic
    python aqm_dumbbell.py --qdisc red-step --cc TcpDctcp --ecn --rate 1Gbps \
        --access-rate 1Gbps --buffers 16777216

Configuration (tcplab's side in bench/compare_aqm.py is set up alike):
- point-to-point links; bottleneck 10 Mb/s (--rate), access links 100 Mb/s
  (--access-rate); 1500-B MTU;
- R0's bottleneck device: the queue disc below as root queue disc, and a
  device queue (ns3::PointToPointNetDevice TxQueue) of 1 packet, so the
  queue disc holds the backlog. Every other device, the R1 -> R0 direction of
  the bottleneck included: no queue disc (the default FqCoDel root queue disc
  is uninstalled) and a 100-packet DropTail device queue;
- queue discs, ns-3's defaults unless said:
  droptail  FifoQueueDisc, MaxSize 100p;
  red       RedQueueDisc (MinTh 5, MaxTh 15, MaxSize 25p, QW 0.002, LInterm 50,
            Gentle, Wait, MeanPktSize 500), LinkBandwidth and LinkDelay set to
            the bottleneck's;
  codel     CoDelQueueDisc (Target 5 ms, Interval 100 ms, MinBytes 1500),
            MaxSize 1500p (ns-3's default is 1500000 B: neither is reached);
            every MaxSize is set explicitly (--limit; LIMITS below), and so is
            every discipline's UseEcn;
  fq_codel  FqCoDelQueueDisc (MaxSize 10240p, Flows 1024, Target 5 ms,
            Interval 100 ms, DropBatchSize 64, quantum = the device's MTU,
            Perturbation 0, no set-associative hash);
  pie       PieQueueDisc (MaxSize 25p, QueueDelayReference 15 ms, Tupdate
            15 ms, A 0.125, B 1.25, MaxBurstAllowance 150 ms, MarkEcnThreshold
            0.1, no dequeue-rate estimator);
  red-step  RED as DCTCP's step marker: MinTh = MaxTh = K (--k, 65), QW 1
            (the instantaneous queue), Gentle off, UseEcn on, UseHardDrop
            off, MaxSize 1000p: every ECT packet arriving to K or more waiting
            is marked. Gentle must be off: with it, RED between MaxTh and
            2 MaxTh marks with a probability rising from 1/LInterm, not always;
- --ecn: ns3::TcpSocketBase::UseEcn "On" and the queue disc's UseEcn true;
  without it both are off (FqCoDel's UseEcn defaults to true: set false);
- TCP (bench/ns3/common.py): SegmentSize 1460 (timestamps off, so 1500-B IP
  packets; SACK blocks only on ACKs), SACK on, DelAckCount 2, DelAckTimeout
  200 ms, InitialCwnd 10, SndBufSize = RcvBufSize = --buffers (4 MiB),
  window scaling on, MinRto 1 s, LimitedTransmit on, TcpPrrRecovery (ns-3's
  default recovery); TcpCubic without HyStart unless --hystart (tcplab's ns3
  profile does not model ns-3's HyStart); TcpDctcp with its defaults (g
  1/16, alpha 1 at start, ECT(0)).

Measured (whole run unless `window`): per-flow goodput over [--warmup,
--duration] from the sinks' received bytes; from the bottleneck queue disc's
traces, drops by reason (the reason strings of ns-3, counted also as
`drops_queue`, overflow of the limit, and `drops_aqm`, the discipline's own
decision: RED's unforced and forced drops, CoDel's target-exceeded drops,
PIE's unforced drops), marks, the sojourn time (the SojournTime trace: queue
disc only) and the time-average number of packets in the queue disc
(PacketsInQueue integrated over time). tcplab's queue has no device queue
below it, so the same quantities are also given for the waiting packets as
tcplab counts them: `waiting_mean_packets` (queue disc + device queue) and
`wait_*_s` (from entering the queue disc to the start of transmission). The
`window` dict has the same measures over [--warmup, --duration].
`cwr_entries`, `recovery_entries` and `loss_entries` count the senders'
entries into the CWR (an ECN reduction), Recovery (fast recovery) and Loss
(a retransmission timeout) states, from each socket's CongState trace;
`timeouts` counts the timeouts themselves, a repeated one in the Loss state
and a SYN's included (as tcplab counts them), as the rises of each socket's
RTO trace (every RTT sample here leaves the timeout at ns-3's 1-s minimum,
so it rises only when a timeout doubles it).
`other_drops` counts drops anywhere else (device queues, and the traffic
control layer's TcDrop, where a device without a queue disc drops when its
device queue is full): it should be 0. It is not at --access-rate equal to
--rate: the senders' access queues are then where the queue forms.
--trace-dir DIR writes each sender's trace sources to DIR/flowI.txt, one
event a line (the format is bench/ns3/common.py's SENDER_TRACE). How
tcplab's excess timeouts with FQ-CoDel were traced (docs/validation.md).
Not modelled by tcplab: the 2-byte PPP header (ns-3 sends 1502 B per 1500-B
packet, 0.13% less goodput).
"""

import argparse
import json
import time

import cppyy
from common import configure_tcp, sender_trace  # bench/ns3/common.py, beside this script
from ns import ns

QDISC_TYPES = {"droptail": "ns3::FifoQueueDisc", "red": "ns3::RedQueueDisc",
               "codel": "ns3::CoDelQueueDisc", "fq_codel": "ns3::FqCoDelQueueDisc",
               "pie": "ns3::PieQueueDisc", "red-step": "ns3::RedQueueDisc"}

# The queue disc's MaxSize: ns-3's defaults but CoDel's (1500000 B) and red-step's.
LIMITS = {"droptail": "100p", "red": "25p", "codel": "1500p", "fq_codel": "10240p",
          "pie": "25p", "red-step": "1000p"}

# Drop reasons that mean "the queue was full" (the rest are the discipline's
# own decisions); PIE's "Forced drop" is its queue limit, RED's is not.
OVERFLOW_REASONS = ("Queue disc limit exceeded", "Dropped by internal queue", "Overlimit drop")

# Trace sinks in C++: a Python callback per packet would dominate the run
# time at 1 Gb/s. One simulation per process, so the state is global.
cppyy.cppdef(r"""
#include "ns3/applications-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace aqmharness {
using namespace ns3;

// Time integral of a piecewise-constant count, in packet-nanoseconds.
struct Integral {
    double area = 0;
    int64_t last = 0;
    uint32_t value = 0;
    double At(int64_t now) const { return area + double(value) * double(now - last); }
    void Set(uint32_t v) {
        int64_t now = Simulator::Now().GetNanoSeconds();
        area = At(now);
        last = now;
        value = v;
    }
};

Integral g_qdisc, g_devq;
std::vector<float> g_sojourn, g_wait;       // seconds, one per packet dequeued / sent
std::unordered_map<uint64_t, int64_t> g_enq; // packet uid -> queue disc enqueue time (ns)
std::map<std::string, uint64_t> g_drops, g_marks;
uint64_t g_device_drops = 0, g_other_drops = 0;
uint32_t g_qdisc_max = 0;
// Entries of the senders' sockets into CWR (an ECN reduction), Recovery and
// Loss (a retransmission timeout), whole run.
uint64_t g_cwr = 0, g_recovery = 0, g_loss = 0, g_timeouts = 0;
std::vector<Ptr<PacketSink>> g_sinks;
// Snapshot at the start of the window.
double s_qdisc = 0, s_devq = 0;
size_t s_sojourn = 0, s_wait = 0;
std::map<std::string, uint64_t> s_drops, s_marks;
std::vector<uint64_t> s_rx;
int64_t s_time = 0;

void OnQdiscPackets(uint32_t, uint32_t v) {
    g_qdisc.Set(v);
    g_qdisc_max = std::max(g_qdisc_max, v);
}
void OnDevPackets(uint32_t, uint32_t v) { g_devq.Set(v); }
void OnSojourn(Time t) { g_sojourn.push_back(float(t.GetSeconds())); }
void OnEnqueue(Ptr<const QueueDiscItem> item) {
    g_enq[item->GetPacket()->GetUid()] = Simulator::Now().GetNanoSeconds();
}
void OnDrop(Ptr<const QueueDiscItem> item, const char* reason) {
    g_drops[reason]++;
    g_enq.erase(item->GetPacket()->GetUid());
}
void OnMark(Ptr<const QueueDiscItem>, const char* reason) { g_marks[reason]++; }
void OnTxBegin(Ptr<const Packet> p) {
    auto it = g_enq.find(p->GetUid());
    if (it == g_enq.end()) return;
    g_wait.push_back(float((Simulator::Now().GetNanoSeconds() - it->second) * 1e-9));
    g_enq.erase(it);
}
void OnDevDrop(Ptr<const Packet>) { g_device_drops++; }
void OnCongState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to) {
    if (to == from) return;
    if (to == TcpSocketState::CA_CWR) g_cwr++;
    if (to == TcpSocketState::CA_RECOVERY) g_recovery++;
    if (to == TcpSocketState::CA_LOSS) g_loss++;
}
void OnRto(Time from, Time to) {
    if (to > from) g_timeouts++;
}
// The sender's socket exists once its application has started.
void WatchSender(uint32_t node) {
    std::ostringstream path;
    path << "/NodeList/" << node << "/$ns3::TcpL4Protocol/SocketList/*/";
    Config::ConnectWithoutContext(path.str() + "CongState", MakeCallback(&OnCongState));
    Config::ConnectWithoutContext(path.str() + "RTO", MakeCallback(&OnRto));
}
void ScheduleWatch(double at, uint32_t node) {
    Simulator::Schedule(Seconds(at), &WatchSender, node);
}
uint64_t Cwr() { return g_cwr; }
uint64_t Recoveries() { return g_recovery; }
uint64_t Losses() { return g_loss; }
uint64_t Timeouts() { return g_timeouts; }
void OnOtherDrop(Ptr<const Packet>) { g_other_drops++; }

// Drops anywhere else (access links, ACKs' direction): should be none. A
// device without a queue disc drops in the traffic control layer (TcDrop)
// when its device queue is full, not in the device queue.
void AttachOther(Ptr<NetDevice> dev) {
    DynamicCast<PointToPointNetDevice>(dev)->GetQueue()->TraceConnectWithoutContext(
        "Drop", MakeCallback(&OnOtherDrop));
}
void AttachNode(Ptr<Node> node) {
    node->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeCallback(&OnOtherDrop));
}

void Attach(Ptr<QueueDisc> q, Ptr<NetDevice> dev) {
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQdiscPackets));
    q->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    q->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
    q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDrop));
    q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDrop));
    q->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
    p2p->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxBegin));
    Ptr<Queue<Packet>> devq = p2p->GetQueue();
    devq->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnDevPackets));
    devq->TraceConnectWithoutContext("Drop", MakeCallback(&OnDevDrop));
}

void SetDeviceQueue(Ptr<NetDevice> dev, std::string size) {
    DynamicCast<PointToPointNetDevice>(dev)->GetQueue()->SetMaxSize(QueueSize(size));
}

void AddSink(Ptr<Application> app) { g_sinks.push_back(DynamicCast<PacketSink>(app)); }

void Snapshot() {
    s_time = Simulator::Now().GetNanoSeconds();
    s_qdisc = g_qdisc.At(s_time);
    s_devq = g_devq.At(s_time);
    s_sojourn = g_sojourn.size();
    s_wait = g_wait.size();
    s_drops = g_drops;
    s_marks = g_marks;
    s_rx.clear();
    for (auto& s : g_sinks) s_rx.push_back(s->GetTotalRx());
}

void ScheduleSnapshot(double at) { Simulator::Schedule(Seconds(at), &Snapshot); }

// Statistics of one measurement: from = 0 (whole run) or 1 (window).
double MeanPackets(int which, int from) {
    int64_t now = Simulator::Now().GetNanoSeconds();
    const Integral& g = which == 0 ? g_qdisc : g_devq;
    double start_area = from ? (which == 0 ? s_qdisc : s_devq) : 0.0;
    int64_t t0 = from ? s_time : 0;
    return now > t0 ? (g.At(now) - start_area) / double(now - t0) : 0.0;
}

std::vector<float>& Series(int which) { return which == 0 ? g_sojourn : g_wait; }
size_t SeriesStart(int which, int from) { return from ? (which == 0 ? s_sojourn : s_wait) : 0; }

double SeriesMean(int which, int from) {
    std::vector<float>& v = Series(which);
    size_t i0 = SeriesStart(which, from);
    if (v.size() <= i0) return -1;
    double sum = 0;
    for (size_t i = i0; i < v.size(); i++) sum += v[i];
    return sum / double(v.size() - i0);
}

// The q-quantile, nearest rank.
double SeriesQuantile(int which, int from, double q) {
    std::vector<float>& v = Series(which);
    size_t i0 = SeriesStart(which, from);
    if (v.size() <= i0) return -1;
    std::vector<float> w(v.begin() + i0, v.end());
    size_t k = std::min(w.size() - 1, size_t(q * double(w.size())));
    std::nth_element(w.begin(), w.begin() + k, w.end());
    return w[k];
}

size_t SeriesCount(int which, int from) { return Series(which).size() - SeriesStart(which, from); }

// "reason\tcount" lines, counts since the start of the measurement.
std::string Counts(int marks, int from) {
    const std::map<std::string, uint64_t>& g = marks ? g_marks : g_drops;
    const std::map<std::string, uint64_t>& s = marks ? s_marks : s_drops;
    std::ostringstream out;
    for (auto& kv : g) {
        uint64_t base = 0;
        if (from) {
            auto it = s.find(kv.first);
            if (it != s.end()) base = it->second;
        }
        if (kv.second > base) out << kv.first << "\t" << (kv.second - base) << "\n";
    }
    return out.str();
}

uint64_t Rx(size_t i, int from) {
    uint64_t rx = g_sinks[i]->GetTotalRx();
    return from ? rx - (i < s_rx.size() ? s_rx[i] : 0) : rx;
}
uint64_t DeviceDrops() { return g_device_drops; }
uint64_t OtherDrops() { return g_other_drops; }
uint32_t QdiscMax() { return g_qdisc_max; }

}  // namespace aqmharness
""")
H = cppyy.gbl.aqmharness


def configure_qdisc(kind: str, ecn: bool, rate: str, delay: str, k: int, limit: str) -> None:
    """Config::SetDefault for the queue disc about to be created."""
    def qd(attr: str, value: "ns.AttributeValue") -> None:
        ns.Config.SetDefault(f"{QDISC_TYPES[kind]}::{attr}", value)

    qd("MaxSize", ns.StringValue(limit))
    if kind == "droptail":
        return
    # Every discipline but drop-tail: ECN as asked, never the default (FqCoDel's is true).
    qd("UseEcn", ns.BooleanValue(ecn))
    if kind in ("red", "red-step"):
        qd("LinkBandwidth", ns.StringValue(rate))
        qd("LinkDelay", ns.StringValue(delay))
        if kind == "red-step":
            qd("MinTh", ns.DoubleValue(k))
            qd("MaxTh", ns.DoubleValue(k))
            qd("QW", ns.DoubleValue(1.0))
            qd("Gentle", ns.BooleanValue(False))
            qd("UseHardDrop", ns.BooleanValue(False))
    elif kind == "fq_codel":
        qd("Flows", ns.UintegerValue(1024))
        qd("DropBatchSize", ns.UintegerValue(64))


def split_drops(kind: str, by_reason: dict[str, int]) -> tuple[int, int]:
    """(overflow drops, the discipline's own drops) from ns-3's reasons."""
    overflow = aqm = 0
    for reason, n in by_reason.items():
        if any(r in reason for r in OVERFLOW_REASONS) or (kind == "pie" and "Forced" in reason):
            overflow += n
        else:
            aqm += n
    return overflow, aqm


def counts(marks: int, window: int) -> dict[str, int]:
    lines = str(H.Counts(marks, window)).splitlines()
    return {r: int(n) for r, n in (ln.split("\t") for ln in lines if ln)}


def measures(kind: str, window: int) -> dict:
    def s(x: float) -> float | None:
        return None if x < 0 else float(x)

    drops = counts(0, window)
    marks = counts(1, window)
    overflow, aqm = split_drops(kind, drops)
    qdisc_mean = float(H.MeanPackets(0, window))
    return {
        "drops": sum(drops.values()), "drops_queue": overflow, "drops_aqm": aqm,
        "drops_by_reason": drops, "marks": sum(marks.values()), "marks_by_reason": marks,
        "queue_mean_packets": qdisc_mean,
        "waiting_mean_packets": qdisc_mean + float(H.MeanPackets(1, window)),
        "sojourn_packets": int(H.SeriesCount(0, window)),
        "sojourn_mean_s": s(H.SeriesMean(0, window)),
        "sojourn_p50_s": s(H.SeriesQuantile(0, window, 0.50)),
        "sojourn_p95_s": s(H.SeriesQuantile(0, window, 0.95)),
        "sojourn_p99_s": s(H.SeriesQuantile(0, window, 0.99)),
        "wait_mean_s": s(H.SeriesMean(1, window)),
        "wait_p50_s": s(H.SeriesQuantile(1, window, 0.50)),
        "wait_p95_s": s(H.SeriesQuantile(1, window, 0.95)),
        "wait_p99_s": s(H.SeriesQuantile(1, window, 0.99)),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--qdisc", choices=list(QDISC_TYPES), default="droptail")
    p.add_argument("--ecn", action="store_true", help="ECN on, in TCP and in the queue disc")
    p.add_argument("--cc", default="TcpNewReno", help="TcpNewReno, TcpCubic, TcpDctcp, ...")
    p.add_argument("--hystart", action="store_true", help="TcpCubic's HyStart (default off)")
    p.add_argument("--flows", type=int, default=1)
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--warmup", type=float, default=10.0, help="the window starts here")
    p.add_argument("--run", type=int, default=1)
    p.add_argument("--rate", default="10Mbps", help="bottleneck rate")
    p.add_argument("--delay", default="20ms", help="bottleneck delay")
    p.add_argument("--access-rate", default="100Mbps")
    p.add_argument("--access-delay", default="1ms")
    p.add_argument("--buffers", type=int, default=4 << 20, help="SndBufSize and RcvBufSize")
    p.add_argument("--k", type=int, default=65, help="red-step's marking threshold (packets)")
    p.add_argument("--limit", help="the queue disc's MaxSize (default: LIMITS below)")
    p.add_argument("--stagger", type=float, default=0.1, help="flow i starts at i * this (s)")
    p.add_argument("--trace-dir", help="write each sender's trace to DIR/flowI.txt")
    a = p.parse_args()
    n = a.flows

    configure_tcp(ns, a.cc, segment_size=1460, delack=2, sack=True, run=a.run,
                  buffers=a.buffers, initial_cwnd=10, recovery="prr")
    ns.Config.SetDefault("ns3::TcpSocketBase::UseEcn", ns.StringValue("On" if a.ecn else "Off"))
    ns.Config.SetDefault("ns3::TcpCubic::HyStart", ns.BooleanValue(a.hystart))
    configure_qdisc(a.qdisc, a.ecn, a.rate, a.delay, a.k, a.limit or LIMITS[a.qdisc])

    routers = ns.NodeContainer()
    routers.Create(2)
    senders = ns.NodeContainer()
    senders.Create(n)
    receivers = ns.NodeContainer()
    receivers.Create(n)

    def p2p(rate: str, delay: str) -> "ns.PointToPointHelper":
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        h.SetDeviceAttribute("Mtu", ns.UintegerValue(1500))
        h.SetChannelAttribute("Delay", ns.StringValue(delay))
        h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue("100p"))
        return h

    access = p2p(a.access_rate, a.access_delay)
    bottleneck = p2p(a.rate, a.delay)
    stack = ns.InternetStackHelper()
    stack.Install(routers)
    stack.Install(senders)
    stack.Install(receivers)
    addr = ns.Ipv4AddressHelper()
    plain = ns.TrafficControlHelper()

    def assign(devs: "ns.NetDeviceContainer", k: int) -> "ns.Ipv4InterfaceContainer":
        # One /30 per link out of 10.0.0.0/8; no queue disc on either end.
        base = 4 * k
        addr.SetBase(ns.Ipv4Address(f"10.{base >> 16 & 255}.{base >> 8 & 255}.{base & 255}"),
                     ns.Ipv4Mask("255.255.255.252"))
        ifs = addr.Assign(devs)
        plain.Uninstall(devs)
        for j in range(devs.GetN()):
            if not (k == 0 and j == 0):
                H.AttachOther(devs.Get(j))
        return ifs

    bdevs = bottleneck.Install(routers.Get(0), routers.Get(1))
    assign(bdevs, 0)
    sink_ifs = []
    for i in range(n):
        assign(access.Install(senders.Get(i), routers.Get(0)), 1 + 2 * i)
        sink_ifs.append(assign(access.Install(routers.Get(1), receivers.Get(i)), 2 + 2 * i))

    # The discipline under test on R0 -> R1, over a device queue of one packet.
    tch = ns.TrafficControlHelper()
    tch.SetRootQueueDisc(QDISC_TYPES[a.qdisc])
    qdisc = tch.Install(bdevs.Get(0)).Get(0)
    H.SetDeviceQueue(bdevs.Get(0), "1p")
    H.Attach(qdisc, bdevs.Get(0))
    for nodes in (routers, senders, receivers):
        for j in range(nodes.GetN()):
            H.AttachNode(nodes.Get(j))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    port = 5000
    for i in range(n):
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        sink_apps = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(
            receivers.Get(i))
        sink_apps.Start(ns.Seconds(0.0))
        H.AddSink(sink_apps.Get(0))
        dst = ns.InetSocketAddress(sink_ifs[i].GetAddress(1), port).ConvertTo()
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(1460))
        apps = bulk.Install(senders.Get(i))
        apps.Start(ns.Seconds(i * a.stagger))
        H.ScheduleWatch(i * a.stagger + 1e-6, senders.Get(i).GetId())
        if a.trace_dir:
            sender_trace(cppyy).Schedule(i * a.stagger + 2e-6, senders.Get(i).GetId(),
                                         f"{a.trace_dir}/flow{i}.txt")

    H.ScheduleSnapshot(a.warmup)
    ns.Simulator.Stop(ns.Seconds(a.duration))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0

    window = a.duration - a.warmup
    goodput = [H.Rx(i, 1) * 8 / window for i in range(n)]
    stats = qdisc.GetStats()
    out = {
        "sim": "ns-3", "qdisc": a.qdisc, "ecn": a.ecn, "cc": a.cc, "flows": n,
        "rate": a.rate, "duration": a.duration, "warmup": a.warmup, "run": a.run,
        "wall_s": wall, "events": int(ns.Simulator.GetEventCount()),
        "rx_bytes": [int(H.Rx(i, 0)) for i in range(n)],
        "goodput_bps": goodput, "total_goodput_bps": sum(goodput),
        **measures(a.qdisc, 0),
        "queue_max_packets": int(H.QdiscMax()),
        "device_drops": int(H.DeviceDrops()),
        "other_drops": int(H.OtherDrops()),
        "stats_dropped": int(stats.nTotalDroppedPackets),
        "stats_marked": int(stats.nTotalMarkedPackets),
        "cwr_entries": int(H.Cwr()), "recovery_entries": int(H.Recoveries()),
        "loss_entries": int(H.Losses()),
        "timeouts": int(H.Timeouts()),
        "window": measures(a.qdisc, 1),
    }
    if a.trace_dir:
        sender_trace(cppyy).Close()
    ns.Simulator.Destroy()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
