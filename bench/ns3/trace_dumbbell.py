"""ns-3 3.44's TCP traced on the 100-ms dumbbell of `tcplab validate`'s ns-3 section.

Runs in the virtualenv that has the `ns3` wheel (see bench/compare_ns3.py),
never in tcplab's; bench/ns3_trace.py drives it. One bulk flow (flow 0,
node 2) on the dumbbell of python/tcplab/validation/ns3_dumbbell.py, with
the sender's trace sources written to a text file, one event a line, in
the format of bench/ns3/common.py's SENDER_TRACE (cwnd, ssthresh, state,
bytes in flight, every segment sent, every ACK with its SACK blocks, and
the transmit buffer at each change of the RTO).

    python trace_dumbbell.py --cc TcpYeah --per 0.01 --run 1 --duration 120 --out yeah.txt
"""

import argparse
import importlib.util
import json
from pathlib import Path

from ns import ns

HERE = Path(__file__).resolve().parent


def load(name: str, path: Path):  # noqa: ANN201 (a module)
    """A module loaded by path. Run with -I, this script has no path of its own;
    python/tcplab/validation/ns3_dumbbell.py is not imported as a package
    either: tcplab.validation has an ns3.py that would shadow the wheel's.
    """
    spec = importlib.util.spec_from_file_location(name, path)
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
    d = load("ns3_dumbbell", HERE.parents[1] / "python" / "tcplab" / "validation"
             / "ns3_dumbbell.py")
    trace = load("common", HERE / "common.py").sender_trace(ns.cppyy)
    sinks = d.build(ns, a.cc, 1, a.per, a.run)
    # The socket exists once the application has started (at 0 s).
    trace.Schedule(0.001, 2, a.out)
    ns.Simulator.Stop(ns.Seconds(a.duration))
    ns.Simulator.Run()
    rx = int(ns.DynamicCast[ns.PacketSink](sinks[0]).GetTotalRx())
    trace.Close()
    ns.Simulator.Destroy()
    print(json.dumps({"cc": a.cc, "goodput_bps": rx * 8 / a.duration}))


if __name__ == "__main__":
    main()
