"""TCP settings shared by the ns-3 3.44 scripts of the benchmarks.

Runs in the virtualenv that has the `ns3` wheel, never in tcplab's.
"""


def configure_tcp(ns, cc: str, segment_size: int, delack: int, sack: bool, run: int,
                  buffers: int | None = None, initial_cwnd: int | None = None,
                  recovery: str = "classic") -> None:
    """Default TCP settings for the sockets created afterwards.

    Classic recovery unless ``recovery="prr"`` (ns-3's default,
    TcpPrrRecovery), no timestamps; buffers and initial window only when
    given (ns-3's defaults: 128 KiB and 10 segments).
    """
    recovery_type = {"classic": "ns3::TcpClassicRecovery", "prr": "ns3::TcpPrrRecovery"}[recovery]
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::" + cc))
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType",
                         ns.TypeIdValue(ns.TypeId.LookupByName(recovery_type)))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(segment_size))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(delack))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(sack))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    if buffers is not None:
        ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(buffers))
        ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(buffers))
    if initial_cwnd is not None:
        ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(initial_cwnd))
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(run)


# One sender's trace sources, written one event a line, `time_ns kind
# value...`:
#     cwnd B | ssthresh B | state S (TcpCongState_t: 0 Open, 1 Disorder,
#     2 CWR, 3 Recovery, 4 Loss) | inflight B (BytesInFlight) |
#     tx SEQ LEN | ack ACK [SACK blocks as FIRST-END ...] |
#     rto NS headretx 0|1 inflight B head SEQ sacked B lost B retrans B
# Sequence numbers are ns-3's, from 1 after the SYN. The `rto` line comes
# from the RTO trace source, which fires when the timeout changes; a
# timeout doubles it after `SetSentListLost`, so its line shows the
# transmit buffer as the timeout left it.
SENDER_TRACE = r"""
#include <fstream>
#include <sstream>
#include <vector>
namespace sendertrace {
using namespace ns3;
struct Out {
    std::ofstream file;
    Ptr<TcpSocketBase> sock;
};
std::vector<Out*> g_outs;
int64_t Now() { return Simulator::Now().GetNanoSeconds(); }
void Cwnd(Out* o, uint32_t, uint32_t v) { o->file << Now() << " cwnd " << v << "\n"; }
void Ssthresh(Out* o, uint32_t, uint32_t v) { o->file << Now() << " ssthresh " << v << "\n"; }
void State(Out* o, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v) {
    o->file << Now() << " state " << int(v) << "\n";
}
void Inflight(Out* o, uint32_t, uint32_t v) { o->file << Now() << " inflight " << v << "\n"; }
void Rto(Out* o, Time, Time v) {
    Ptr<TcpTxBuffer> b = o->sock->GetTxBuffer();
    o->file << Now() << " rto " << v.GetNanoSeconds() << " headretx "
            << b->IsHeadRetransmitted() << " inflight " << b->BytesInFlight() << " head "
            << b->HeadSequence().GetValue() << " sacked " << b->GetSacked() << " lost "
            << b->GetLost() << " retrans " << b->GetRetransmitsCount() << "\n";
}
void Tx(Out* o, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    o->file << Now() << " tx " << h.GetSequenceNumber().GetValue() << " " << p->GetSize()
            << "\n";
}
void Rx(Out* o, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    o->file << Now() << " ack " << h.GetAckNumber().GetValue();
    if (h.HasOption(TcpOption::SACK)) {
        auto sack = DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK));
        for (auto& b : sack->GetSackList()) {
            o->file << " " << b.first.GetValue() << "-" << b.second.GetValue();
        }
    }
    o->file << "\n";
}
// The first socket of `node`, which exists once its application started.
void Hook(uint32_t node, std::string path) {
    std::ostringstream ss;
    ss << "/NodeList/" << node << "/$ns3::TcpL4Protocol/SocketList/0/";
    std::string s = ss.str();
    Out* o = new Out();
    o->file.open(path);
    o->sock = DynamicCast<TcpSocketBase>(Config::LookupMatches(s).Get(0));
    g_outs.push_back(o);
    Config::ConnectWithoutContext(s + "CongestionWindow", MakeBoundCallback(&Cwnd, o));
    Config::ConnectWithoutContext(s + "SlowStartThreshold", MakeBoundCallback(&Ssthresh, o));
    Config::ConnectWithoutContext(s + "CongState", MakeBoundCallback(&State, o));
    Config::ConnectWithoutContext(s + "BytesInFlight", MakeBoundCallback(&Inflight, o));
    Config::ConnectWithoutContext(s + "RTO", MakeBoundCallback(&Rto, o));
    Config::ConnectWithoutContext(s + "Tx", MakeBoundCallback(&Tx, o));
    Config::ConnectWithoutContext(s + "Rx", MakeBoundCallback(&Rx, o));
}
void Schedule(double at, uint32_t node, std::string path) {
    Simulator::Schedule(Seconds(at), &Hook, node, path);
}
void Close() {
    for (auto o : g_outs) o->file.close();
}
}  // namespace sendertrace
"""


def sender_trace(cppyy):  # noqa: ANN001, ANN201 (cppyy and its namespace)
    """The tracer of SENDER_TRACE, compiled once: `.Schedule(at, node, path)`
    hooks the first socket of `node` at `at` s, `.Close()` flushes every file."""
    if not hasattr(cppyy.gbl, "sendertrace"):
        cppyy.cppdef(SENDER_TRACE)
    return cppyy.gbl.sendertrace
