// tcplab's BBRv3 dumbbell for ns-3: the ns-3 side of bench/ns3_bbr3.py.
//
// Written for tcplab (not taken from any ns-3 tree). It is compiled as a
// scratch program of an ns-3 3.40 tree that carries a BBRv3 model
// registered as ns3::TcpBbr3, outside tcplab; bench/ns3_bbr3.py runs the
// built program. Nothing of ns-3 is kept in tcplab.
//
// Path: each sender -(100 Mb/s, 20 ms)- r -(10 Mb/s, 1 ms)- b. RTT 42 ms
// plus serialization; BDP 10 Mb/s x 42 ms = 52,500 B, about 36 packets of
// 1500 B. The bottleneck's backlog waits in r's point-to-point device
// queue toward b: a DropTailQueue of --queue packets (both directions of
// that link, as tcplab's `queue=`); every other device queue holds 1000
// packets. The default root queue disc (FqCoDel, which
// Ipv4AddressHelper::Assign installs) is uninstalled everywhere, so no
// queue disc holds packets; with none, r's traffic control layer drops a
// packet that finds the device queue full (TcDrop). The device dequeues a
// packet when it starts onto the wire, so the queue counts packets
// waiting, the one being serialized not among them (as tcplab counts).
//
// TCP: segment 1448 B (1500-B IP packets with the timestamp option),
// timestamps and SACK on, 4 MiB send and receive buffers, ns-3's other
// defaults (initial window 10, delayed ACK count 2, PRR recovery) except
// MinRto 200 ms (Linux's; ns-3's default is 1 s). One BulkSend flow per
// sender, all starting at 0, each to its own PacketSink port on b; the
// congestion control per sender node (TcpL4Protocol::SocketType), b's
// own sockets keep ns-3's default. Pacing is left to the controller
// (EnablePacing false: TcpBbr3 turns it on itself, TcpCubic is unpaced,
// as Linux without the fq qdisc).
//
// Prints one JSON line: per flow the goodput (sink bytes x 8 / duration),
// data segments sent (retransmissions included) and retransmitted (a
// segment starting below the highest sequence sent before it), and the
// bottleneck queue's time average, peak (of the values that lasted: a
// packet that finds the device idle is enqueued and dequeued at one
// instant) and drops.
//
//     ./ns3 run "bbr3_dumbbell --queue=36 --ccs=TcpBbr3,TcpCubic --duration=60"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// PacketsInQueue integrated over time (packet-nanoseconds) and its peak.
struct QueueStats
{
    double area = 0;
    int64_t last = 0;
    uint32_t value = 0;
    uint32_t max = 0;
    uint64_t drops = 0;
};

QueueStats g_queue;

void
OnQueue(uint32_t, uint32_t v)
{
    int64_t now = Simulator::Now().GetNanoSeconds();
    if (now > g_queue.last)
    {
        g_queue.area += double(g_queue.value) * double(now - g_queue.last);
        g_queue.max = std::max(g_queue.max, g_queue.value);
        g_queue.last = now;
    }
    g_queue.value = v;
}

void
OnDrop(Ptr<const Packet>)
{
    g_queue.drops++;
}

struct FlowStats
{
    uint64_t sent = 0;
    uint64_t retransmitted = 0;
    bool any = false;
    SequenceNumber32 high{0};
};

// Every segment the socket hands to IP: `p` is the payload.
void
OnTx(FlowStats* f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    uint32_t len = p->GetSize();
    if (len == 0)
    {
        return;
    }
    SequenceNumber32 seq = h.GetSequenceNumber();
    f->sent++;
    if (f->any && seq < f->high)
    {
        f->retransmitted++;
    }
    if (!f->any || seq + len > f->high)
    {
        f->high = seq + len;
    }
    f->any = true;
}

void
Hook(Ptr<BulkSendApplication> app, FlowStats* f)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_IF(!s, "the sender has no socket yet");
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, f));
}

std::vector<std::string>
Split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t queue = 36;
    std::string ccs = "TcpBbr3";
    double duration = 60.0;
    uint32_t run = 1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("queue", "bottleneck device queue, packets", queue);
    cmd.AddValue("ccs", "one congestion control per sender, comma-separated", ccs);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("run", "RngRun", run);
    cmd.Parse(argc, argv);
    std::vector<std::string> variants = Split(ccs);
    NS_ABORT_MSG_IF(variants.empty(), "--ccs names no variant");

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));

    NodeContainer router;
    router.Create(1);
    NodeContainer receiver;
    receiver.Create(1);
    NodeContainer senders;
    senders.Create(variants.size());
    InternetStackHelper stack;
    stack.InstallAll();

    std::ostringstream qsize;
    qsize << queue << "p";
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    bottleneck.SetChannelAttribute("Delay", StringValue("1ms"));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(qsize.str()));
    NetDeviceContainer core = bottleneck.Install(router.Get(0), receiver.Get(0));

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    access.SetChannelAttribute("Delay", StringValue("20ms"));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1000p"));

    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer coreIf = address.Assign(core);
    TrafficControlHelper tch;
    tch.Uninstall(core);
    for (uint32_t i = 0; i < senders.GetN(); i++)
    {
        NetDeviceContainer d = access.Install(senders.Get(i), router.Get(0));
        std::ostringstream base;
        base << "10.1." << i << ".0";
        address.SetBase(base.str().c_str(), "255.255.255.0");
        address.Assign(d);
        tch.Uninstall(d);
        std::ostringstream path;
        path << "/NodeList/" << senders.Get(i)->GetId() << "/$ns3::TcpL4Protocol/SocketType";
        Config::Set(path.str(), TypeIdValue(TypeId::LookupByName("ns3::" + variants[i])));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<Queue<Packet>> q = DynamicCast<PointToPointNetDevice>(core.Get(0))->GetQueue();
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueue));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    router.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop",
        MakeCallback(&OnDrop));

    std::vector<FlowStats> flows(variants.size());
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < senders.GetN(); i++)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receiver.Get(0));
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(coreIf.GetAddress(1), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1448));
        ApplicationContainer a = bulk.Install(senders.Get(i));
        a.Start(Seconds(0));
        Simulator::Schedule(MilliSeconds(1),
                            &Hook,
                            DynamicCast<BulkSendApplication>(a.Get(0)),
                            &flows[i]);
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    int64_t now = Simulator::Now().GetNanoSeconds();
    double mean = now > 0
                      ? (g_queue.area + double(g_queue.value) * double(now - g_queue.last)) /
                            double(now)
                      : 0.0;
    uint32_t peak = now > g_queue.last ? std::max(g_queue.max, g_queue.value) : g_queue.max;
    std::ostringstream out;
    out << std::setprecision(10) << "{\"queue\": " << queue << ", \"duration\": " << duration
        << ", \"run\": " << run << ", \"flows\": [";
    for (uint32_t i = 0; i < flows.size(); i++)
    {
        uint64_t rx = sinks[i]->GetTotalRx();
        out << (i ? ", " : "") << "{\"cc\": \"" << variants[i]
            << "\", \"goodput_bps\": " << double(rx) * 8 / duration
            << ", \"sent_segments\": " << flows[i].sent
            << ", \"retransmitted_segments\": " << flows[i].retransmitted << "}";
    }
    out << "], \"queue_mean_packets\": " << mean << ", \"queue_max_packets\": " << peak
        << ", \"drops_queue\": " << g_queue.drops << "}";
    Simulator::Destroy();
    std::cout << out.str() << std::endl;
    return 0;
}
