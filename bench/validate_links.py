"""Trace-driven links against a second model of mahimahi's link queue, packet by packet.

mahimahi itself is not packaged for this machine's Debian, so the reference
is a separate model of its link queue written here from its documented rules
(mahimahi's ``LinkQueue::rationalize``): time in whole milliseconds; at each
delivery opportunity, 1504 bytes go to the packets that arrived in an
earlier millisecond, oldest first, a packet leaving with the opportunity
that carries its last byte, the rest of an opportunity lost when the queue
runs dry. It shares no code with tcplab's (crates/tcplab-core/src/net/capacity.rs).

For each real trace in the folder of mahimahi's traces (--traces, else as
tcplab.traces.resolve finds it: TCPLAB_TRACES, the folder of `tcplab traces
download`, ../shared/traces/mahimahi), a UDP source sends
1000-B packets at 90% of the trace's mean capacity for 60 s through a
10 Gb/s hop into the trace-driven link (no queue limit, as mahimahi's
default). Both models see the same packet arrivals; the table compares the
packets delivered, and the mean and largest one-way delay.

    python bench/validate_links.py [--traces DIR] [--seconds 60] [--docs]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import tcplab as tl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from doc_tables import write_between  # noqa: E402

DOC = HERE.parent / "docs" / "validation.md"
PAYLOAD = 972  # B: 1000-B IP packets
SIZE = PAYLOAD + 28
FIRST_HOP_NS = SIZE * 8 // 10  # 10 Gb/s: 800 ns


def reference(times_ms: list[int], sends_ns: list[int], end_ms: int) -> list[int]:
    """Delivery times (ns) of the packets mahimahi's link queue delivers by ``end_ms``."""
    period = times_ms[-1]
    arrivals = [s + FIRST_HOP_NS for s in sends_ns]
    delivered: list[int] = []
    nxt = 0  # the next packet not yet taken from the queue
    in_transit = None  # [index, bytes still to send]
    cycle = 0
    while True:
        for t in times_ms:
            ms = cycle * period + t
            if ms > end_ms:
                return delivered
            budget = 1504
            while budget > 0:
                if in_transit is None:
                    # Only packets of an earlier millisecond are in the queue.
                    if nxt < len(arrivals) and arrivals[nxt] // 1_000_000 < ms:
                        in_transit = [nxt, SIZE]
                        nxt += 1
                    else:
                        break  # the rest of this opportunity is lost
                take = min(budget, in_transit[1])
                in_transit[1] -= take
                budget -= take
                if in_transit[1] == 0:
                    delivered.append(ms * 1_000_000)
                    in_transit = None
        cycle += 1


def run(trace: Path, seconds: int) -> dict[str, float]:
    times = [int(x) for x in trace.read_text().split()]
    mean_bps = len(times) * 1504 * 8 * 1000 / times[-1]
    rate = int(0.9 * mean_bps * PAYLOAD / SIZE)
    interval = -(-PAYLOAD * 8 * 10**9 // rate)  # tcplab's CBR rounds up to the ns
    sends = list(range(0, seconds * 10**9, interval))
    ref = reference(times, sends, seconds * 1000)
    ref_delays = [d - sends[i] for i, d in enumerate(ref)]
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="10Gbps", delay="0ms", queue="10000000p")
    net.link(r, d, rate=tl.Trace(trace), reverse_rate="1Mbps", delay="0ms",
             queue="10000000p")
    net.udp(s, d, rate=rate, size=PAYLOAD)
    f = net.run(duration=seconds).flows.iloc[0]
    return {"trace": trace.name, "rate": rate, "sent": int(f.sent_packets),
            "tl_delivered": int(f.delivered_packets), "ref_delivered": len(ref),
            "tl_mean": f.delay_mean_s, "ref_mean": sum(ref_delays) / len(ref_delays) / 1e9,
            "tl_max": f.delay_max_s, "ref_max": max(ref_delays) / 1e9}


def table(rows: list[dict[str, float]], seconds: int) -> str:
    out = [f"UDP at 90% of each trace's mean capacity for {seconds} s, 1000-B packets, "
           "no queue limit; tcplab / the reference model.", "",
           "| trace | rate (Mb/s) | sent | delivered | mean delay (s) | max delay (s) |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['trace']} | {r['rate'] / 1e6:.3f} | {r['sent']} | "
                   f"{r['tl_delivered']} / {r['ref_delivered']} | "
                   f"{r['tl_mean']:.6f} / {r['ref_mean']:.6f} | "
                   f"{r['tl_max']:.6f} / {r['ref_max']:.6f} |")
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", type=Path, default=tl.presets.default_traces())
    p.add_argument("--seconds", type=int, default=60)
    p.add_argument("--docs", action="store_true", help="write the table into docs/validation.md")
    a = p.parse_args()
    if a.traces is None or not a.traces.is_dir():
        raise SystemExit(f"no traces folder; {tl.presets.TRACES_HELP} with --traces")
    rows = [run(t, a.seconds) for t in sorted(a.traces.iterdir())
            if t.suffix in (".up", ".down")]
    text = table(rows, a.seconds)
    print(text)
    same = all(r["tl_delivered"] == r["ref_delivered"] and abs(r["tl_mean"] - r["ref_mean"]) < 1e-9
               and abs(r["tl_max"] - r["ref_max"]) < 1e-9 for r in rows)
    print("identical" if same else "DIFFERENT")
    if a.docs:
        write_between(DOC, "<!-- validate_links: begin (python bench/validate_links.py --docs) -->",
                      "<!-- validate_links: end -->", text + "\n")


if __name__ == "__main__":
    main()
