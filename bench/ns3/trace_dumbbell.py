"""ns-3 3.44's TCP traced on the 100-ms dumbbell of `tcplab validate`'s ns-3 section.

Runs in the virtualenv that has the `ns3` wheel (see bench/compare_ns3.py),
never in tcplab's; bench/ns3_trace.py drives it. One bulk flow (flow 0,
node 2) on the dumbbell of python/tcplab/validation/ns3_dumbbell.py, with
the sender's trace sources written to a text file, one event a line:
`time_ns kind value...`:

    cwnd B | ssthresh B | state S (TcpCongState_t: 0 Open, 1 Disorder,
    2 CWR, 3 Recovery, 4 Loss) | inflight B | tx SEQ LEN | ack ACK |
    rto NS headretx 0|1 inflight B head SEQ sacked B lost B retrans B

The `rto` line comes from the RTO trace source, which fires when the
timeout changes; a timeout doubles it after `SetSentListLost`, so its line
shows the transmit buffer as the timeout left it.

    python trace_dumbbell.py --cc TcpYeah --per 0.01 --run 1 --duration 120 --out yeah.txt
"""

import argparse
import importlib.util
import json
from pathlib import Path

from ns import ns

HOOKS = r"""
#include <fstream>
namespace tcplab_trace {
using namespace ns3;
std::ofstream* out;
Ptr<TcpSocketBase> sock;
int64_t Now() { return Simulator::Now().GetNanoSeconds(); }
void Cwnd(uint32_t, uint32_t v) { *out << Now() << " cwnd " << v << "\n"; }
void Ssthresh(uint32_t, uint32_t v) { *out << Now() << " ssthresh " << v << "\n"; }
void State(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v) {
  *out << Now() << " state " << int(v) << "\n";
}
void Inflight(uint32_t, uint32_t v) { *out << Now() << " inflight " << v << "\n"; }
void Rto(Time, Time v) {
  Ptr<TcpTxBuffer> b = sock->GetTxBuffer();
  *out << Now() << " rto " << v.GetNanoSeconds() << " headretx " << b->IsHeadRetransmitted()
       << " inflight " << b->BytesInFlight() << " head " << b->HeadSequence().GetValue()
       << " sacked " << b->GetSacked() << " lost " << b->GetLost() << " retrans "
       << b->GetRetransmitsCount() << "\n";
}
void Tx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
  *out << Now() << " tx " << h.GetSequenceNumber().GetValue() << " " << p->GetSize() << "\n";
}
void Rx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
  *out << Now() << " ack " << h.GetAckNumber().GetValue() << "\n";
}
void Hook() {
  std::string s = "/NodeList/2/$ns3::TcpL4Protocol/SocketList/0";
  sock = DynamicCast<TcpSocketBase>(Config::LookupMatches(s).Get(0));
  Config::ConnectWithoutContext(s + "/CongestionWindow", MakeCallback(&Cwnd));
  Config::ConnectWithoutContext(s + "/SlowStartThreshold", MakeCallback(&Ssthresh));
  Config::ConnectWithoutContext(s + "/CongState", MakeCallback(&State));
  Config::ConnectWithoutContext(s + "/BytesInFlight", MakeCallback(&Inflight));
  Config::ConnectWithoutContext(s + "/RTO", MakeCallback(&Rto));
  Config::ConnectWithoutContext(s + "/Tx", MakeCallback(&Tx));
  Config::ConnectWithoutContext(s + "/Rx", MakeCallback(&Rx));
}
// The socket exists once the application has started (at 0 s).
void Start(std::string path) {
  out = new std::ofstream(path);
  Simulator::Schedule(MilliSeconds(1), &Hook);
}
void Stop() { out->close(); }
}
"""


def dumbbell_module():  # noqa: ANN201 (a module)
    """python/tcplab/validation/ns3_dumbbell.py, loaded by path.

    Not imported as a package: tcplab.validation has an ns3.py that would
    shadow the wheel's module.
    """
    path = (Path(__file__).resolve().parents[2] / "python" / "tcplab" / "validation"
            / "ns3_dumbbell.py")
    spec = importlib.util.spec_from_file_location("ns3_dumbbell", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    """Run one traced flow and print its goodput as a JSON line."""
    p = argparse.ArgumentParser()
    p.add_argument("--cc", default="TcpNewReno")
    p.add_argument("--per", type=float, default=0.0)
    p.add_argument("--run", type=int, default=1)
    p.add_argument("--duration", type=float, default=120.0)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    d = dumbbell_module()
    ns.cppyy.cppdef(HOOKS)
    sinks = d.build(ns, a.cc, 1, a.per, a.run)
    ns.cppyy.gbl.tcplab_trace.Start(a.out)
    ns.Simulator.Stop(ns.Seconds(a.duration))
    ns.Simulator.Run()
    rx = int(ns.DynamicCast[ns.PacketSink](sinks[0]).GetTotalRx())
    ns.cppyy.gbl.tcplab_trace.Stop()
    ns.Simulator.Destroy()
    print(json.dumps({"cc": a.cc, "goodput_bps": rx * 8 / a.duration}))


if __name__ == "__main__":
    main()
