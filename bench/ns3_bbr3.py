"""tcplab's BBRv3 against an independent port of it: ns-3's TcpBbr3 of a research fork.

The other side is `ns3::TcpBbr3` (src/internet/model/tcp-bbr3.{h,cc}) of
the ns-3 fork AlexandruTabacaru/ns-3-dev-git-rp, branch `l4s-sims`
(commit 86ab02bd1, 2025-06-13; ns-3 3.40 underneath: VERSION 3.40, merge
base the ns-3.40 tag), a port of Linux's BBRv3 written for L4S studies.
The ns-3 side is that fork's tree, built outside tcplab with
bench/ns3/bbr3_dumbbell.cc (tcplab's own scenario) among its scratch
programs; this script runs the built program (`--ns3-exe`) and never
builds anything of the fork (the workplace keeps no recipe for that).

The path: each sender -(100 Mb/s, 20 ms)- r -(10 Mb/s, 1 ms)- b, RTT
42 ms, BDP 10 Mb/s x 42 ms = 52,500 B = 35 packets of 1500 B; the
bottleneck r -> b a drop-tail queue of Q packets waiting (ns-3: r's
point-to-point device queue, every queue disc uninstalled; tcplab:
`queue=Q`; in both the packet on the wire is not counted). 1448-B
segments, timestamps and SACK, 4 MiB buffers, bulk senders from 0 s, 60 s
simulated. Cases: BBRv3 alone at Q = 4, 36, 72, 180, 360 packets (0.1 to
10 BDP), and BBRv3 with CUBIC (two senders on their own access links) at
Q = 36, 72, 180, 360. tcplab runs `cc={"name": "bbr", "version": "v3"}`
and `cc="cubic"` with `profile="linux"`; ns-3 runs TcpBbr3 and TcpCubic
with its own stack's defaults (PRR, delayed ACK count 2, initial window
10) but MinRto 200 ms, as Linux.

Per flow: goodput (sink bytes x 8 / 60 s) and the retransmission rate
(retransmitted / data segments sent; ns-3: a segment that starts below the
highest sequence sent before it); for the bottleneck queue its time
average (exact, integrated over the queue-length changes on both sides),
in BDP (35 packets), its peak and its drops; for the shared cases BBRv3's
share of the two goodputs.

Why the numbers differ, beyond the packets' timing: the fork is not
Linux's tcp_bbr.c (v3) line for line. What reading it shows (its
tcp-bbr3.cc at that commit):

- Several constants are C++ integer divisions that evaluate to 0 or 1:
  `bbr_beta = 1 * 30 / 100` is 0, so inflight_hi after too much loss is
  the target in flight itself, not 70% of it (bw_lo and inflight_lo get
  0.7 hard-coded, as Linux); `bbr_inflight_headroom = 15 / 100` is 0, so
  CRUISE and PROBE_RTT cap cwnd at inflight_hi less 1 byte, not 85% of it;
  PROBE_UP's cwnd gain gets `1 * 1 / 4` = 0 added (2, not Linux's 2.25);
  `bbr_ecn_reprobe_gain = 1 / 2` is 0.
- Init() forces ECN on (DctcpEcn mode, ECT(1)) and marks the flow ECN
  eligible for good, and sets the initialized flag, so the initialization
  in CongestionStateSet (min cwnd 4 packets, prior cwnd, send quantum) never
  runs: the cwnd floor is 0, not 4 packets. With ECN eligible, bbr_inflight
  adds 1 segment to the BDP; otherwise 3 segments (Linux: max(BDP, 3 TSO
  segments), rounded up to even, +2 in PROBE_UP); no ACK-aggregation
  (extra_acked) allowance in the cwnd target.
- PROBE_UP ends once the flight before the ACK reaches 1.25 BDP + 1
  segment (v2's test without its one-min-RTT wait), not on v3's bandwidth
  plateau (`full_bw_now`); v3's restart of the plateau count while cwnd is
  held at inflight_hi is missing.
- Loss too high: this ACK's newly marked-lost bytes against 2% of the
  current bytes in flight (Linux: rs->lost, losses since the acked packet
  was sent, against its tx_in_flight); a larger flight reached is also
  taken from the current bytes in flight, not tx_in_flight; inflight_hi
  grows in every phase (a stray `{}` after the PROBE_UP test) and without
  Linux's cwnd-limited test. ECN: any CE echo in a round is too high
  (Linux: 50% of the delivered). ns-3 3.40's sample itself counts as lost
  the change of the lost-marked bytes over the ACK either way, so an ACK
  that clears lost marks (repairs) counts as loss too.
- `rounds_since_probe` is a bool and compared to min(63, target in flight
  in bytes): the Reno-coexistence probe after ~BDP rounds never fires, only
  the 2-3 s timer (which restarts at CRUISE as well as at DOWN).
- In recovery v1's packet conservation (cwnd = in flight + acked) stays;
  the loss-state handling checks `newState == CA_LOSS` where Linux checks
  leaving it, so cwnd is not restored after a timeout's recovery; ProbeRTT
  marks its own flag, not the rate sampler's app-limited.
- Units: cwnd, in flight and inflight_hi/lo in bytes, bandwidth as
  DataRate (bit/s) from ns-3's rate sampler, the BDP not rounded up to
  whole packets; with timestamps ns-3's RTT samples are whole milliseconds;
  the bandwidth filter is seeded with the initial cwnd / RTT. ECN is asked
  for in the SYN but not granted here (b's sockets keep ns-3's UseEcn off),
  and the drop-tail queue marks nothing, so the ECN paths stay idle.
- Around it, ns-3 3.40's stack: PRR (ns-3's) after three duplicate ACKs,
  no RACK or TLP; a 2-B PPP header on every packet (1502 B at the
  bottleneck, so at most 9.640 Mb/s of goodput against tcplab's 9.653);
  CUBIC with HyStart, unpaced, as tcplab's linux profile.

    python bench/ns3_bbr3.py --ns3-exe PROGRAM [--duration 60] [--runs 1]
    python bench/ns3_bbr3.py --from-json docs/data/ns3_bbr3.json [--md FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCENARIO = HERE / "ns3" / "bbr3_dumbbell.cc"
DEFAULT_JSON = ROOT / "docs" / "data" / "ns3_bbr3.json"
FORK = {"repo": "AlexandruTabacaru/ns-3-dev-git-rp", "branch": "l4s-sims",
        "commit": "86ab02bd17fabc19f354e47f611e953c796ae023", "class": "ns3::TcpBbr3"}
MODULES = "core;network;internet;point-to-point;applications;traffic-control;flow-monitor"
#: 10 Mb/s x 42 ms in 1500-B packets.
BDP_PACKETS = 10e6 * 0.042 / 8 / 1500
#: (case, queue in packets, the senders' variants), in the table's order.
CASES: list[tuple[str, int, tuple[str, ...]]] = [
    *(("alone", q, ("bbr3",)) for q in (4, 36, 72, 180, 360)),
    *(("shared", q, ("bbr3", "cubic")) for q in (36, 72, 180, 360)),
]
NS3_CC = {"bbr3": "TcpBbr3", "cubic": "TcpCubic"}
TCPLAB_CC: dict[str, Any] = {"bbr3": {"name": "bbr", "version": "v3"}, "cubic": "cubic"}


def ns3_case(exe: Path, queue: int, ccs: tuple[str, ...], duration: float, run: int) -> dict:
    """One ns-3 run: the program's JSON line (TcpBbr3 prints other lines too)."""
    cmd = ["nice", "-n", "19", str(exe), f"--queue={queue}",
           f"--ccs={','.join(NS3_CC[c] for c in ccs)}", f"--duration={duration:g}",
           f"--run={run}"]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    line = next((x for x in res.stdout.splitlines() if x.startswith("{")), None)
    if res.returncode != 0 or line is None:
        sys.exit(f"ns-3 failed (queue {queue}, {ccs}): {res.stderr.strip()[-400:]}")
    r = json.loads(line)
    flows = [{"cc": c, "goodput_bps": f["goodput_bps"], "sent_segments": f["sent_segments"],
              "retransmitted_segments": f["retransmitted_segments"],
              "retransmission_ratio": f["retransmitted_segments"] / max(f["sent_segments"], 1)}
             for c, f in zip(ccs, r["flows"], strict=True)]
    return {"flows": flows, "queue_mean_packets": r["queue_mean_packets"],
            "queue_max_packets": r["queue_max_packets"], "drops_queue": r["drops_queue"]}


def tcplab_case(queue: int, ccs: tuple[str, ...], duration: float, seed: int) -> dict:
    """The same case in tcplab, the linux profile."""
    import tcplab as tl

    net = tl.Network()
    r, b = net.router("r"), net.host("b")
    net.link(r, b, rate="10Mbps", delay="1ms", queue=f"{queue}p")
    for i, cc in enumerate(ccs):
        a = net.host(f"a{i}")
        net.link(a, r, rate="100Mbps", delay="20ms")
        net.tcp(a, b, cc=TCPLAB_CC[cc], profile="linux", sack=True, timestamps=True,
                rcv_buf="4MiB")
    res = net.scenario(duration=f"{duration:g}s").run(seed=seed)
    flows = []
    for i, cc in enumerate(ccs):
        f = res.flows[res.flows["src"] == f"a{i}"].iloc[0]
        flows.append({"cc": cc, "goodput_bps": float(f["goodput_bps"]),
                      "sent_segments": int(f["sent_packets"]),
                      "retransmitted_segments": int(f["retransmitted_segments"]),
                      "retransmission_ratio": float(f["retransmission_ratio"]),
                      "rtt_mean_s": float(f["rtt_mean_s"])})
    q = res.link("r-b", src="r")
    return {"flows": flows, "queue_mean_packets": float(q["queue_mean_packets"]),
            "queue_max_packets": int(q["queue_max_packets"]), "drops_queue": int(q["drops_queue"])}


def mean_of(runs: list[dict]) -> dict:
    """The mean of several runs' measures (one run: itself)."""
    if len(runs) == 1:
        return runs[0]
    flows = []
    for i, f in enumerate(runs[0]["flows"]):
        flows.append({"cc": f["cc"], **{k: statistics.fmean(r["flows"][i][k] for r in runs)
                                        for k in f if k != "cc"}})
    return {"flows": flows, **{k: statistics.fmean(r[k] for r in runs)
                               for k in ("queue_mean_packets", "queue_max_packets",
                                         "drops_queue")}}


def share(side: dict) -> float:
    """BBRv3's share of the flows' goodput."""
    total = sum(f["goodput_bps"] for f in side["flows"])
    bbr = sum(f["goodput_bps"] for f in side["flows"] if f["cc"] == "bbr3")
    return bbr / total if total else float("nan")


def markdown(run: dict) -> str:
    """The table of a run (as the JSON file holds it)."""
    ns3 = run["ns3"]
    lines = [f"`python bench/ns3_bbr3.py` ({run['date']}): tcplab's BBRv3 (linux profile) "
             f"against ns-3 {ns3['version']}'s {FORK['class']} ({FORK['repo']}, "
             f"{FORK['branch']} {FORK['commit'][:9]}), {run['duration']:g} s per case, "
             f"{run['runs']} run(s) a side. Goodput in Mb/s; retransmission rate = "
             "retransmitted / data segments sent; the bottleneck queue's time average in BDP "
             f"({BDP_PACKETS:g} packets of 1500 B) and its peak in packets.", "",
             "| case | Q (BDP) | flow | goodput ns-3 | goodput tcplab | ratio | retrans ns-3 | "
             "retrans tcplab | mean queue ns-3 | mean queue tcplab | peak ns-3 / tcplab | "
             "BBRv3 share ns-3 | BBRv3 share tcplab |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in run["rows"]:
        a, b = row["ns3"], row["tcplab"]
        shared = len(a["flows"]) > 1
        for k, (fa, fb) in enumerate(zip(a["flows"], b["flows"], strict=True)):
            ratio = fb["goodput_bps"] / fa["goodput_bps"] if fa["goodput_bps"] else float("nan")
            first = k == 0
            queue = (f"{a['queue_mean_packets'] / BDP_PACKETS:.3f} | "
                     f"{b['queue_mean_packets'] / BDP_PACKETS:.3f} | "
                     f"{a['queue_max_packets']:.0f} / {b['queue_max_packets']:.0f}"
                     if first else " | | ")
            shares = (f"{share(a):.3f} | {share(b):.3f}" if shared and first else
                      (" | " if shared else "- | -"))
            case = f"{row['case']} | {row['queue']} ({row['queue'] / BDP_PACKETS:.2g})"
            lines.append(
                f"| {case if first else ' | '} | {fa['cc']} | "
                f"{fa['goodput_bps'] / 1e6:.3f} | {fb['goodput_bps'] / 1e6:.3f} | {ratio:.3f} | "
                f"{fa['retransmission_ratio']:.4f} | {fb['retransmission_ratio']:.4f} | "
                f"{queue} | {shares} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Runs both sides (or reads --from-json), writes the JSON, prints the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ns3-exe", type=Path,
                   help="bbr3_dumbbell built in the fork's tree (l4s-sims)")
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--runs", type=int, default=1, help="ns-3 RngRun values and tcplab seeds")
    p.add_argument("--cases", default="alone,shared")
    p.add_argument("--json", type=Path, default=DEFAULT_JSON)
    p.add_argument("--from-json", type=Path, help="re-print the table of a saved run")
    p.add_argument("--md", type=Path, help="also write the table to this file")
    a = p.parse_args()
    if a.from_json:
        run = json.loads(a.from_json.read_text())
    else:
        if a.ns3_exe is None or not a.ns3_exe.exists():
            sys.exit("--ns3-exe: the fork's built bbr3_dumbbell program is needed "
                     "(or --from-json FILE)")
        exe = a.ns3_exe.resolve()
        kinds = set(a.cases.split(","))
        rows = []
        for case, queue, ccs in CASES:
            if case not in kinds:
                continue
            t0 = time.monotonic()
            ns3 = mean_of([ns3_case(exe, queue, ccs, a.duration, r)
                           for r in range(1, a.runs + 1)])
            t1 = time.monotonic()
            ours = mean_of([tcplab_case(queue, ccs, a.duration, s)
                            for s in range(1, a.runs + 1)])
            rows.append({"case": case, "queue": queue, "ccs": list(ccs), "ns3": ns3,
                         "tcplab": ours, "ns3_seconds": t1 - t0,
                         "tcplab_seconds": time.monotonic() - t1})
            print(json.dumps(rows[-1]), flush=True)
        run = {"date": time.strftime("%Y-%m-%d"), "duration": a.duration, "runs": a.runs,
               "bdp_packets": BDP_PACKETS,
               "ns3": {**FORK, "version": "3.40"},
               "rows": rows}
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(run, indent=1) + "\n")
    text = markdown(run)
    print(text)
    if a.md:
        a.md.write_text(text)


if __name__ == "__main__":
    main()
