"""tcplab's queue disciplines against ns-3 3.44's on a dumbbell.

N senders -(100 Mb/s, 1 ms)- R0 -(10 Mb/s, 20 ms)- R1 -(100 Mb/s, 1 ms)- N
receivers (RTT 44 ms plus queueing), N = 1, 4, 16 bulk TCP flows, flow i
starting at i * 0.1 s, 60 s; NewReno or CUBIC; on the bottleneck's forward
direction (R0 -> R1) one of droptail (100 packets), red, codel, fq_codel and
pie, each without and with ECN. With --dctcp, also DCTCP at a 1 Gb/s
bottleneck (access links 10 Gb/s, see below) with RED as a step marker at
K = 65 packets (min_th = max_th = 65, the instantaneous queue, gentle off,
ECN on, no hard drop). Every other link direction: drop-tail, 100 packets.

Both sides are configured alike (bench/ns3/aqm_dumbbell.py has ns-3's side
in full):
- 1500-B MTU; MSS 1460 (timestamps off, so 1500-B data packets), SACK on,
  delayed ACK every 2 segments (200 ms timer), initial window 10, 4 MiB
  buffers (16 MiB at 1 Gb/s), minimum RTO 1 s, limited transmit, PRR
  recovery (ns-3's default TcpPrrRecovery; tcplab's profile="ns3",
  recovery="prr"); standard slow start (ns-3's TcpCubic HyStart off, as
  tcplab's ns3 profile does not model it);
- ns-3: the queue disc (TrafficControlHelper) on R0's bottleneck device over
  a 1-packet device queue, no queue disc elsewhere; the queue disc's own
  defaults (listed in aqm_dumbbell.py) with RED's LinkBandwidth/LinkDelay
  set to the bottleneck's. tcplab: `queue=` of the bottleneck link with the
  same parameters written out (queue_table below) and `device_queue` 1, the
  same device queue (--device-queue 0 leaves it out), `reverse_queue="100p"`;
  the limits (LIMITS: droptail 100p, red 25p, codel 1500p, fq_codel 10240p,
  pie 25p, red-step 1000p) are given to both sides, ns-3's as MaxSize;
- ECN: ns-3's TcpSocketBase::UseEcn "On" or "Off" and the queue disc's
  UseEcn; tcplab's `net.tcp(..., ecn=...)` and `"ecn"` in the queue's table,
  always written out on both sides (FQ-CoDel's default is on in both);
- DCTCP: tcplab's `cc="dctcp"` over {"kind": "red", "min_th": 65, "max_th":
  65, "w_q": 1, "gentle": false, "ecn": true, "hard_drop": false, "limit":
  "1000p"}; ns-3's TcpDctcp over RedQueueDisc with MinTh = MaxTh = 65, QW 1,
  Gentle false, UseEcn true, UseHardDrop false, MaxSize 1000p. ns-3's
  TcpDctcp is a TcpLinuxReno: it grows by byte counting (a segment per
  window of acknowledged segments), where tcplab's ns3 profile grows as
  TcpNewReno (MSS^2 / cwnd per ACK, half as fast with delayed ACKs);
  --dctcp-abc gives tcplab's DCTCP flows abc=True, which grows as
  TcpLinuxReno does;
- DCTCP's access links are 10 Gb/s, not 1 Gb/s: at the bottleneck's own rate
  the senders' 100-packet access queues overflow in slow start (ns-3 drops
  in the traffic control layer there) and R0's queue never forms;
- not alike: ns-3's point-to-point links add a 2-byte PPP header (0.13% of
  a 1500-B packet), which tcplab does not model.

What is compared (mean over seeds; ns-3's run r against tcplab's seed r;
--seeds applies to red and pie, the disciplines that draw random numbers:
drop-tail, CoDel, FQ-CoDel and red-step draw none on either side, and
give the same result for every seed, so they run once):
- goodput: all flows' bytes delivered in order over [10 s, 60 s] (--warmup),
  per second, in Mb/s;
- over the whole run, on R0 -> R1: the mean queueing delay (tcplab:
  `sojourn_mean_s`; ns-3: from entering the queue disc to the start of
  transmission), the time-average queue (tcplab: `queue_mean_packets`;
  ns-3: queue disc plus device queue), drops (all, and those of the
  discipline's own decision: tcplab's `drops_aqm`) and ECN marks. Both
  count the waiting packets, the device queue's included, but not the one
  being sent; --ns3-queue qdisc
  compares the queue disc's own numbers instead (SojournTime trace and
  PacketsInQueue), which leave out the packet waiting in the device queue;
  the 99th percentile of the queueing delay, for information (tcplab's
  from its histogram, `delay_percentiles=True`, within 1.6%);
- the senders' reactions, for information: ECN reductions, fast recoveries
  and timeouts (tcplab's flow columns; ns-3's entries into the CWR,
  Recovery and Loss states);
- targets: goodput within 5%, queueing delay and queue within 15%, drops and
  marks within 15%; a cell outside is flagged NO. Anything tcplab refuses (a
  discipline, a queue parameter, ecn=, a variant) is "n/a in tcplab", with
  tcplab's message listed under the tables.

ns-3 runs in its own virtualenv (python bench/compare_ns3.py --setup), at
most --jobs (2) at a time:

    python bench/compare_aqm.py                          # NewReno and CUBIC, N = 1, 4, 16
    python bench/compare_aqm.py --flows 1,4 --cc newreno --qdisc droptail,red --ecn off
    python bench/compare_aqm.py --dctcp --flows 1,4      # adds DCTCP at 1 Gb/s
    python bench/compare_aqm.py --duration 60 --seeds 3 --save aqm.json
    python bench/compare_aqm.py --cc newreno --seeds 3 --dctcp --dctcp-flows 1,4
    python bench/compare_aqm.py --cc "" --dctcp --dctcp-flows 1,4 --dctcp-abc  # DCTCP only
    python bench/compare_aqm.py --load aqm.json --load abc.json --compact  # docs' tables
    python bench/compare_aqm.py --load aqm.json --rerun --save new.json  # tcplab's side
                                        # anew (after a change) against the saved ns-3 runs
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import tcplab as tl

HERE = Path(__file__).resolve().parent
NS3_CC = {"newreno": "TcpNewReno", "cubic": "TcpCubic", "dctcp": "TcpDctcp"}
QDISCS = ["droptail", "red", "codel", "fq_codel", "pie"]
RANDOM = {"red", "pie"}  # the disciplines that draw random numbers (red-step does not)
K = 65  # DCTCP's marking threshold, packets
# The bottleneck queue's limit, written out on both sides (ns-3's MaxSize).
LIMITS = {"droptail": "100p", "red": "25p", "red-step": "1000p", "codel": "1500p",
          "fq_codel": "10240p", "pie": "25p"}


def queue_table(qdisc: str, ecn: bool, device: int = 1) -> str | dict:
    """The bottleneck's forward queue for tcplab, as ns-3's queue disc is set up.

    Every limit is written out, the same on both sides (aqm_dumbbell.py sets
    ns-3's MaxSize to it), and so is "ecn", FQ-CoDel's included (its default
    is on in both simulators). ``device`` packets of device queue below the
    discipline, as ns-3's TxQueue under its queue disc (0: none).
    """
    table = _queue_table(qdisc, ecn)
    if device == 0:
        return table
    if isinstance(table, str):
        table = {"kind": "droptail", "limit": table}
    return {**table, "device_queue": device}


def _queue_table(qdisc: str, ecn: bool) -> str | dict:
    if qdisc == "droptail":
        return "100p"
    if qdisc == "red":  # ns-3's RedQueueDisc defaults
        return {"kind": "red", "limit": "25p", "min_th": 5, "max_th": 15, "max_p": 0.02,
                "w_q": 0.002, "gentle": True, "wait": True, "mean_packet_size": 500,
                "hard_drop": True, "ecn": ecn}
    if qdisc == "red-step":  # DCTCP's step marker at K
        return {"kind": "red", "min_th": K, "max_th": K, "w_q": 1, "gentle": False,
                "ecn": True, "hard_drop": False, "limit": LIMITS["red-step"]}
    if qdisc == "codel":  # ns-3's CoDelQueueDisc defaults but MaxSize
        return {"kind": "codel", "target": "5ms", "interval": "100ms", "min_bytes": 1500,
                "limit": LIMITS["codel"], "ecn": ecn}
    if qdisc == "fq_codel":  # ns-3: 1024 flows, quantum = MTU, drop batch 64
        return {"kind": "fq_codel", "target": "5ms", "interval": "100ms", "min_bytes": 1500,
                "flows": 1024, "quantum": 1500, "drop_batch": 64,
                "limit": LIMITS["fq_codel"], "ecn": ecn}
    if qdisc == "pie":  # ns-3's PieQueueDisc: 15 ms reference delay, 25 packets
        return {"kind": "pie", "target": "15ms", "t_update": "15ms", "alpha": 0.125,
                "beta": 1.25, "max_burst": "150ms", "limit": LIMITS["pie"], "ecn": ecn}
    raise ValueError(qdisc)


@dataclass(frozen=True)
class Case:
    cc: str
    qdisc: str
    ecn: bool
    n: int
    rate: str = "10Mbps"
    access_rate: str = "100Mbps"
    buffers: int = 4 << 20
    abc: bool | None = None  # tcplab's abc= (None: the ns3 profile's, off)
    device: int = 1  # tcplab's device_queue under the bottleneck's discipline

    @property
    def label(self) -> str:
        cc = self.cc + (", abc" if self.abc else "")
        return f"| {cc} | {self.qdisc} | {'on' if self.ecn else 'off'} | {self.n} |"


class NotInTcplab(Exception):
    """tcplab refused the configuration: a field it does not have (yet)."""


def tcplab_run(c: Case, seed: int, duration: float, warmup: float) -> dict:
    net = tl.Network()
    r0, r1 = net.router("r0"), net.router("r1")
    senders = net.hosts([f"s{i}" for i in range(c.n)])
    receivers = net.hosts([f"d{i}" for i in range(c.n)])
    net.link(senders, r0, rate=c.access_rate, delay="1ms", mtu=1500, queue="100p")
    net.link(r0, r1, rate=c.rate, delay="20ms", mtu=1500, name="bottleneck",
             queue=queue_table(c.qdisc, c.ecn, c.device), reverse_queue="100p")
    net.link(r1, receivers, rate=c.access_rate, delay="1ms", mtu=1500, queue="100p")
    starts = [f"{0.1 * i:.1f}s" for i in range(c.n)]
    try:
        net.tcp(senders, receivers, cc=c.cc, profile="ns3", recovery="prr", mss=1460,
                sack=True, timestamps=False, delayed_ack=2, initial_cwnd=10,
                rcv_buf=c.buffers, app=tl.Bulk(start=starts), ecn=c.ecn, abc=c.abc)
        res = net.run(duration=duration, seed=seed, interval=warmup if warmup > 0 else None,
                      delay_percentiles=True)
    except tl.ScenarioError as e:
        raise NotInTcplab(str(e).splitlines()[0]) from e

    flows = res.raw["flows"]
    if warmup > 0:  # in order, per flow, over [warmup, duration]
        per_flow = dict.fromkeys((f["flow"] for f in flows), 0)
        for r in res.raw["intervals"]:
            if r["start_s"] >= warmup - 1e-9:
                per_flow[r["flow"]] += r["delivered_bytes"]
        delivered = list(per_flow.values())
    else:
        delivered = [f["delivered_bytes"] for f in flows]
    row = next(r for r in res.raw["links"] if r["link"] == "bottleneck" and r["src"] == "r0")
    window = duration - warmup
    return {
        "goodput_bps": sum(delivered) * 8 / window,
        "sojourn_mean_s": row["sojourn_mean_s"],
        "sojourn_p99_s": row["sojourn_p99_s"],
        "sojourn_max_s": row["sojourn_max_s"],
        "queue_mean_packets": row["queue_mean_packets"],
        "queue_mean_bytes": row["queue_mean_bytes"],
        "drops": row["drops_queue"] + row["drops_aqm"],
        "drops_aqm": row["drops_aqm"],
        "marks": row["marks"],
        "timeouts": sum(f["timeouts"] for f in flows),
        "fast_retransmits": sum(f["fast_retransmits"] for f in flows),
        "retransmitted_segments": sum(f["retransmitted_segments"] for f in flows),
        "ecn_reductions": sum(f["ecn_reductions"] for f in flows),
        "flow_goodput_bps": [b * 8 / window for b in delivered],
    }


def ns3_run(python: str, c: Case, run: int, duration: float, warmup: float) -> dict:
    cmd = [python, str(HERE / "ns3" / "aqm_dumbbell.py"), "--qdisc", c.qdisc,
           "--cc", NS3_CC.get(c.cc, c.cc), "--flows", str(c.n), "--run", str(run),
           "--duration", str(duration), "--warmup", str(warmup), "--rate", c.rate,
           "--access-rate", c.access_rate, "--buffers", str(c.buffers), "--k", str(K),
           "--limit", LIMITS[c.qdisc]]
    if c.ecn:
        cmd.append("--ecn")
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"ns-3 failed: {' '.join(cmd)}\n{out.stderr[-3000:]}")
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1]
    d = json.loads(line)
    d["process_s"] = time.perf_counter() - t0
    return d


def ns3_measures(d: dict, queue: str) -> dict:
    """ns-3's numbers under tcplab's names: the waiting packets, or the queue disc's own."""
    nan = float("nan")

    def f(x: float | None) -> float:
        return nan if x is None else x

    waiting = queue == "waiting"
    return {
        "goodput_bps": d["total_goodput_bps"],
        "sojourn_mean_s": f(d["wait_mean_s"] if waiting else d["sojourn_mean_s"]),
        "sojourn_p99_s": f(d["wait_p99_s"] if waiting else d["sojourn_p99_s"]),
        "queue_mean_packets": d["waiting_mean_packets"] if waiting else d["queue_mean_packets"],
        "drops": d["drops"],
        "drops_aqm": d["drops_aqm"],
        "marks": d["marks"],
    }


# (key, title, scale, format, target)
METRICS = [
    ("goodput_bps", "Goodput over the window, all flows (Mb/s)", 1e-6, "{:.3f}", 0.05),
    ("sojourn_mean_s", "Mean queueing delay at R0 -> R1 (ms)", 1e3, "{:.3f}", 0.15),
    ("sojourn_p99_s", "99th percentile of the queueing delay (ms)", 1e3, "{:.2f}", None),
    ("queue_mean_packets", "Time-average queue at R0 -> R1 (packets)", 1.0, "{:.2f}", 0.15),
    ("drops", "Drops at R0 -> R1, all", 1.0, "{:.1f}", 0.15),
    ("drops_aqm", "Drops by the discipline's decision (tcplab drops_aqm)", 1.0, "{:.1f}", 0.15),
    ("marks", "ECN marks at R0 -> R1", 1.0, "{:.1f}", 0.15),
]


def mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs and not any(math.isnan(x) for x in xs) else float("nan")


def print_tables(cases: list[Case], ours: dict, theirs: dict) -> int:
    """One markdown table per metric; returns the number of cells outside the targets."""
    bad = 0
    for key, title, scale, fmt, target in METRICS:
        print(f"\n### {title}{' (no target)' if target is None else ''}\n")
        within_col = "" if target is None else f" within {target:.0%} |"
        print(f"| cc | qdisc | ECN | N | tcplab | ns-3 | tcplab / ns-3 |{within_col}")
        print("|---|---|---|---|---|---|---|" + ("" if target is None else "---|"))
        for c in cases:
            m2 = mean([d[key] for d in theirs[c]])
            s2 = "–" if math.isnan(m2) else fmt.format(m2 * scale)
            if isinstance(ours[c], str):
                print(f"{c.label} n/a in tcplab | {s2} | | |")
                continue
            m1 = mean([d[key] for d in ours[c]])
            if math.isnan(m1):
                print(f"{c.label} not reported | {s2} | | |")
                continue
            s1 = fmt.format(m1 * scale)
            if math.isnan(m2):
                print(f"{c.label} {s1} | {s2} | | |")
                continue
            if m2 == 0:
                ratio, within = ("–", True) if m1 == 0 else ("inf", False)
            else:
                ratio = f"{m1 / m2:.3f}"
                within = target is None or abs(m1 / m2 - 1) <= target
            if target is None:
                print(f"{c.label} {s1} | {s2} | {ratio} |")
                continue
            bad += not within
            print(f"{c.label} {s1} | {s2} | {ratio} | {'yes' if within else 'NO'} |")
    return bad


def compare(c: Case, key: str, ours: dict, theirs: dict, target: float | None
            ) -> tuple[float, float, bool]:
    """tcplab's and ns-3's means of one metric, and whether they meet the target."""
    m1 = mean([d[key] for d in ours[c]])
    m2 = mean([d[key] for d in theirs[c]])
    if math.isnan(m1) or math.isnan(m2):
        return m1, m2, True
    if m2 == 0:
        return m1, m2, m1 == 0
    return m1, m2, target is None or abs(m1 / m2 - 1) <= target


def print_compact(cases: list[Case], ours: dict, theirs: dict) -> int:
    """One table per metric: a row per cc, discipline and ECN, a column per N; each cell
    "tcplab / ns-3 (ratio)", in bold outside the target. Returns the cells outside."""
    bad = 0
    ns = sorted({c.n for c in cases})
    rows: dict[tuple, dict[int, Case]] = {}
    for c in cases:
        rows.setdefault((c.cc, c.abc, c.qdisc, c.ecn), {})[c.n] = c
    for key, title, scale, fmt, target in METRICS:
        note = "no target" if target is None else f"target: within {target:.0%}"
        print(f"\n{title}, tcplab / ns-3 (ratio); {note}:\n")
        print("| cc | qdisc | ECN | " + " | ".join(f"N = {n}" for n in ns) + " |")
        print("|---|---|---|" + "---|" * len(ns))
        for (cc, abc, qdisc, ecn), by_n in rows.items():
            cells = []
            for n in ns:
                c = by_n.get(n)
                if c is None:
                    cells.append("")
                    continue
                if isinstance(ours[c], str):
                    cells.append("n/a in tcplab")
                    continue
                m1, m2, within = compare(c, key, ours, theirs, target)
                if math.isnan(m1) or math.isnan(m2):
                    cells.append("–")
                    continue
                ratio = "–" if m2 == 0 and m1 == 0 else (
                    "inf" if m2 == 0 else f"{m1 / m2:.2f}")
                cell = f"{fmt.format(m1 * scale)} / {fmt.format(m2 * scale)} ({ratio})"
                bad += not within
                cells.append(cell if within else f"**{cell}**")
            label = cc + (", abc" if abc else "")
            print(f"| {label} | {qdisc} | {'on' if ecn else 'off'} | " + " | ".join(cells) + " |")
    return bad


def print_responses(cases: list[Case], ours: dict, raw3: dict) -> None:
    """The senders' reactions, all flows, whole run, mean over the runs (no target)."""
    print("\n### TCP's reactions, all flows, whole run (tcplab / ns-3; no target)\n")
    print("| cc | qdisc | ECN | N | ECN reductions (ns-3: CWR entries) "
          "| fast recoveries (ns-3: Recovery entries) | timeouts (ns-3: Loss entries) "
          "| timeouts (ns-3: its RTO's rises) |")
    print("|---|---|---|---|---|---|---|---|")
    pairs = [("ecn_reductions", "cwr_entries"), ("fast_retransmits", "recovery_entries"),
             ("timeouts", "loss_entries"), ("timeouts", "timeouts")]
    for c in cases:
        if isinstance(ours[c], str):
            continue
        # (Runs saved before ns-3's timeouts were counted have none: "–".)
        cells = [f"{mean([d[k1] for d in ours[c]]):.1f} / "
                 + (f"{mean([d[k2] for d in raw3[c]]):.1f}" if k2 in raw3[c][0] else "–")
                 for k1, k2 in pairs]
        print(f"{c.label} {' | '.join(cells)} |")


def print_tcplab_details(cases: list[Case], ours: dict) -> None:
    print("\n### tcplab in detail (mean over the seeds)\n")
    print("| cc | qdisc | ECN | N | per flow Mb/s (first seed) | retransmitted | timeouts "
          "| ECN reductions | sojourn max (ms) | queue mean (B) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in cases:
        if isinstance(ours[c], str):
            continue
        flows = " ".join(f"{g / 1e6:.2f}" for g in ours[c][0]["flow_goodput_bps"])

        def m(k: str, runs: list[dict] = ours[c]) -> float:
            return mean([d[k] for d in runs])

        print(f"{c.label} {flows} | {m('retransmitted_segments'):.1f} | {m('timeouts'):.1f} "
              f"| {m('ecn_reductions'):.1f} | {m('sojourn_max_s') * 1e3:.2f} "
              f"| {m('queue_mean_bytes'):.0f} |")


def print_ns3_details(cases: list[Case], theirs: dict) -> None:
    print("\n### ns-3 in detail (first run; queue disc only unless said)\n")
    print("| cc | qdisc | ECN | N | goodput Mb/s | per flow Mb/s | drops by reason | marks "
          "| qdisc queue (p) | + device queue (p) | sojourn mean / p50 / p95 / p99 (ms) "
          "| wait to tx mean (ms) | max queue | other drops | sim s | process s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")

    def ms(x: float | None) -> str:
        return "–" if x is None else f"{x * 1e3:.2f}"

    for c in cases:
        d = theirs[c][0]
        flows = " ".join(f"{g / 1e6:.2f}" for g in d["goodput_bps"])
        reasons = "; ".join(f"{r}: {n}" for r, n in d["drops_by_reason"].items()) or "0"
        marks = "; ".join(f"{r}: {n}" for r, n in d["marks_by_reason"].items()) or "0"
        soj = " / ".join(ms(d[f"sojourn_{q}_s"]) for q in ("mean", "p50", "p95", "p99"))
        print(f"{c.label} {d['total_goodput_bps'] / 1e6:.3f} | {flows} | {reasons} | {marks} "
              f"| {d['queue_mean_packets']:.2f} | {d['waiting_mean_packets']:.2f} | {soj} "
              f"| {ms(d['wait_mean_s'])} | {d['queue_max_packets']} "
              f"| {d['device_drops'] + d['other_drops']} | {d['wall_s']:.1f} "
              f"| {d['process_s']:.1f} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--venv", default=str(HERE.parent / ".venv-ns3"))
    p.add_argument("--ns3-python", default=os.environ.get("TCPLAB_NS3_PYTHON"))
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--warmup", type=float, default=10.0,
                   help="goodput is measured from here to the end (0: the whole run)")
    p.add_argument("--seeds", type=int, default=1,
                   help="runs 1..SEEDS of the random disciplines (red, pie); the others "
                        "draw nothing at random on either side and run once")
    p.add_argument("--flows", default="1,4,16")
    p.add_argument("--cc", default="newreno,cubic")
    p.add_argument("--qdisc", default=",".join(QDISCS))
    p.add_argument("--ecn", choices=["off", "on", "both"], default="both")
    p.add_argument("--dctcp", action="store_true",
                   help="add DCTCP at 1 Gb/s with RED as a step marker at K = 65")
    p.add_argument("--dctcp-flows", help="DCTCP's N (default: --flows)")
    p.add_argument("--dctcp-abc", action="store_true",
                   help="tcplab's DCTCP with abc=True (byte counting), as ns-3's TcpDctcp, a "
                        "TcpLinuxReno, grows; the ns3 profile's growth is TcpNewReno's")
    p.add_argument("--ns3-queue", choices=["waiting", "qdisc"], default="waiting",
                   help="ns-3's queue and delay: waiting packets (queue disc + device "
                        "queue, as tcplab counts them) or the queue disc's alone")
    p.add_argument("--device-queue", type=int, default=1,
                   help="tcplab's device_queue under the bottleneck's discipline, in "
                        "packets (default 1, as ns-3's side has; 0: none, the form "
                        "before tcplab had one)")
    p.add_argument("--jobs", type=int, default=2, help="ns-3 runs at a time")
    p.add_argument("--save", help="write every run's numbers to this JSON file")
    p.add_argument("--load", action="append", metavar="JSON",
                   help="print the tables of runs saved with --save (repeatable) instead "
                        "of running")
    p.add_argument("--rerun", action="store_true",
                   help="with --load: run tcplab's side of the loaded cases again (the "
                        "seeds the saved ns-3 side has), keep ns-3's runs")
    p.add_argument("--compact", action="store_true",
                   help="one row per discipline and ECN, a column per N (for the docs)")
    a = p.parse_args()
    if a.rerun and not a.load:
        sys.exit("--rerun needs --load (the saved runs whose tcplab side to run again)")
    if a.load:
        cases, ours, raw3 = [], {}, {}
        for path in a.load:
            with open(path) as f:
                for row in json.load(f):
                    c = Case(**row["case"])
                    if c not in ours:
                        cases.append(c)
                    ours[c], raw3[c] = row["tcplab"], row["ns3"]
        if a.rerun:
            for c in cases:
                try:
                    ours[c] = [tcplab_run(c, s, raw3[c][0]["duration"], raw3[c][0]["warmup"])
                               for s in range(1, len(raw3[c]) + 1)]
                except NotInTcplab as e:
                    ours[c] = str(e)
            if a.save:
                save(a.save, cases, ours, raw3)
        first = raw3[cases[0]][0]
        report(a, cases, ours, raw3, first["duration"], first["warmup"],
               max(len(v) for v in raw3.values()))
    python = a.ns3_python or str(Path(a.venv) / "bin" / "python")
    if not Path(python).exists():
        sys.exit(f"no ns-3 python at {python}: run bench/compare_ns3.py --setup first, "
                 "or pass --ns3-python")
    if not 0 <= a.warmup < a.duration:
        sys.exit("--warmup must be in [0, --duration)")
    flows = [int(x) for x in a.flows.split(",")]
    qdiscs = a.qdisc.split(",")
    for q in qdiscs:
        if q not in QDISCS:
            sys.exit(f"unknown --qdisc {q!r} (choose from {', '.join(QDISCS)})")
    ecns = {"off": [False], "on": [True], "both": [False, True]}[a.ecn]
    cases = [Case(cc, q, e, n, device=a.device_queue) for cc in a.cc.split(",") if cc
             for q in qdiscs for e in ecns for n in flows]
    if a.dctcp:
        dflows = [int(x) for x in (a.dctcp_flows or a.flows).split(",")]
        cases += [Case("dctcp", "red-step", True, n, rate="1Gbps", access_rate="10Gbps",
                       buffers=16 << 20, abc=True if a.dctcp_abc else None,
                       device=a.device_queue)
                  for n in dflows]

    def seeds_of(c: Case) -> range:
        return range(1, (a.seeds if c.qdisc in RANDOM else 1) + 1)

    ours: dict[Case, list[dict] | str] = {}
    for c in cases:
        try:
            ours[c] = [tcplab_run(c, s, a.duration, a.warmup) for s in seeds_of(c)]
        except NotInTcplab as e:
            ours[c] = str(e)

    jobs = [(c, s) for c in cases for s in seeds_of(c)]
    results: dict[tuple[Case, int], dict] = {}
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {pool.submit(ns3_run, python, c, s, a.duration, a.warmup): (c, s)
                   for c, s in jobs}
        for i, (fut, key) in enumerate(futures.items(), 1):
            results[key] = fut.result()
            c, s = key
            print(f"ns-3 {i}/{len(jobs)}: {c.cc} {c.qdisc} ecn={'on' if c.ecn else 'off'} "
                  f"N={c.n} run {s}: {results[key]['wall_s']:.1f} s simulating, "
                  f"{results[key]['process_s']:.1f} s in all", file=sys.stderr, flush=True)
    raw3 = {c: [results[(c, s)] for s in seeds_of(c)] for c in cases}
    if a.save:
        save(a.save, cases, ours, raw3)
    report(a, cases, ours, raw3, a.duration, a.warmup, a.seeds)


def save(path: str, cases: list[Case], ours: dict, raw3: dict) -> None:
    """Writes every case's runs on both sides, for --load."""
    with open(path, "w") as f:
        json.dump([{"case": asdict(c), "tcplab": ours[c], "ns3": raw3[c]} for c in cases],
                  f, indent=1)


def report(a: argparse.Namespace, cases: list[Case], ours: dict, raw3: dict, duration: float,
           warmup: float, seeds: int) -> None:
    """Prints the tables; exits with 1 if a cell is outside its target."""
    theirs = {c: [ns3_measures(d, a.ns3_queue) for d in raw3[c]] for c in cases}
    print(f"Dumbbell, {duration:g} s, goodput over [{warmup:g} s, {duration:g} s], "
          f"queue measures over the whole run, seeds 1..{seeds} of "
          f"{', '.join(sorted(RANDOM))} (1 of the others); ns-3's queue: "
          f"{'queue disc + device queue' if a.ns3_queue == 'waiting' else 'queue disc only'}")
    bad = (print_compact if a.compact else print_tables)(cases, ours, theirs)
    print_responses(cases, ours, raw3)
    print_tcplab_details(cases, ours)
    print_ns3_details(cases, raw3)
    refused = sorted({v for v in ours.values() if isinstance(v, str)})
    if refused:
        print("\nn/a in tcplab, its messages:\n")
        for msg in refused:
            print(f"- {msg}")
    compared = sum(not isinstance(v, str) for v in ours.values())
    print(f"\n{compared} of {len(cases)} rows run in tcplab; {bad} cells outside the targets")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
