"""tcplab against ns-2.35 on the Westwood path: native agents and TCP-Linux.

The path: source -(10 Mb/s, 45 ms)- router -(2 Mb/s, 0.01 ms)- sink, a
100-packet drop-tail queue, 400-B IP packets (360 B of payload), one bulk
flow, uniform packet errors on the bottleneck; delayed ACKs (every 2
segments or 200 ms) or an ACK per segment; each PER with several seeds.

Two sets of comparisons:

- ``native``: ns-2's own agents (Agent/TCP/Newreno, Reno, Sack1 and Vegas,
  with Agent/TCPSink, Sack1 and their DelAck forms) against tcplab's paper
  profile with the same variant. ns-2 is set to tcplab's defaults where
  they differ from its own: window_ 10000 (tcplab's 4 MiB buffer does not
  limit), windowInit_ 4 (RFC 5681's initial window for a 360-B MSS),
  minrto_ 1 s, tcpTick_ 1 ms. ns-2's singledup_ 1 (limited transmit, its
  default) is kept unless ``--singledup 0``; tcplab has no limited transmit
  yet.
- ``ns2``: the same ns-2 agents at ns-2's own defaults (window_ 20,
  windowInit_ 2, minrto_ 0.2 s, tcpTick_ 10 ms, rtxcur_init_ 3 s, singledup_
  1, bugFix_ on) against tcplab's ns2 profile, which is meant to set a flow
  as those defaults do. Only the path's packet size and the DelAck sink's
  200-ms interval_ are set, on both sides.
- ``linux``: TCP-Linux (Agent/TCP/Linux with select_ca, Linux 2.6.22's
  congestion-control modules on TCP-Linux's own rate halving over ns-2's
  SACK scoreboard) against tcplab's linux profile on the rate_halving
  recovery with the module's 2.6.22 floor (Linux's RTO, initial window 10,
  200 ms minimum RTO; no PRR, RACK-TLP or HyStart), and tcplab's CUBIC in
  its 2.6.22 form (`version = "2.6.22"`, row cubic-2.6.22) against the same
  cubic module. ns-2: window_ 10000,
  windowInit_ 10, minrto_ 0.2, tcpTick_ 1 ms, timestamps. A module name
  TCP-Linux does not know would silently run Reno: the harness refuses the
  run instead.

A third, ``dumbbell``: 10 bulk flows (flow i from i/10 s) on the issue-8
dumbbell, N senders -(1 Gb/s, 1 ms)- r0 -(100 Mb/s, 10 ms, 100 packets)-
r1 -(1 Gb/s, 1 ms)- N receivers, 1448-B segments, delayed ACKs, PER 0 to
0.01 on the bottleneck, 60 s: ns-2's Newreno and Sack1 against the paper
profile (settings as above), TCP-Linux reno and cubic against the linux
profile (cubic also against tcplab's 2.6.22 form).

Each row gives the mean over seeds of goodput (Mb/s, all flows), Jain's
index of the flows' goodputs, retransmitted segments and timeouts for
both, and tcplab / ns-2 ratios. It writes a CSV
and, with ``--docs``, the Markdown tables into docs/validation.md between
the markers that hold them.

    python bench/validate_ns2.py                       # 5 seeds of 600 s (over 10 min on 2 cores)
    python bench/validate_ns2.py --seeds 2 --duration 120 --set linux
    python bench/validate_ns2.py --docs                # refresh docs/validation.md
    python bench/validate_ns2.py --from-csv docs/data/validate_ns2.csv --docs   # tables only
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import tcplab as tl
from doc_tables import ratio, write_between  # bench/, beside this file
from tcplab.validation.paths import TCL, westwood_path  # shared with tcplab validate
from tcplab.validation.suites import TCP_LINUX, tcp_linux_flow

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOCS = ROOT / "docs" / "validation.md"
BEGIN = "<!-- validate_ns2: begin (python bench/validate_ns2.py --docs) -->"
END = "<!-- validate_ns2: end -->"
PERS = [0.0, 0.001, 0.005, 0.01, 0.02, 0.05]
DUMBBELL_PERS = [0.0, 0.001, 0.01]
DUMBBELL_FLOWS = 10
DUMBBELL_SECONDS = 60.0
NATIVE = ["newreno", "reno", "sack", "vegas"]
#: TCP-Linux's modules, and tcplab's CUBIC in its 2.6.22 form against cubic.
LINUX = ["reno", "cubic", "cubic-2.6.22"]
PAYLOAD = {"westwood": 360, "dumbbell": 1448}


def tcplab_run(kind: str, topo: str, agent: str, acks: str, per: float, seed: int,
               duration: float) -> dict:
    tcp: dict = {"cc": agent, "delayed_ack": 1 if acks == "every" else 2,
                 "delayed_ack_timeout": "200ms"}
    if kind == "ns2":
        tcp["profile"] = "ns2"
        tcp["delayed_ack_timeout"] = "200ms"
    if kind == "linux":
        # TCP-Linux runs Linux 2.6.22's modules on its own rate halving over
        # ns-2's SACK scoreboard: PRR, RACK-TLP and HyStart (the linux
        # profile's defaults) off.
        tcp.update(tcp_linux_flow(agent))
    if topo == "westwood":
        net = westwood_path(per, **tcp)
        src = "router"
    else:
        n = DUMBBELL_FLOWS
        net = tl.Network()
        r0, r1 = net.router("r0"), net.router("r1")
        net.link(r0, r1, rate="100Mbps", delay="10ms", name="bottleneck",
                 loss=tl.Uniform(per) if per > 0 else None)
        for i in range(n):
            s, d = net.host(f"s{i}"), net.host(f"d{i}")
            net.link(s, r0, rate="1Gbps", delay="1ms")
            net.link(r1, d, rate="1Gbps", delay="1ms")
            # ns-2's initial window and minimum RTO are set to tcplab's
            # defaults; tcplab's MSS to ns-2's packetSize_.
            net.tcp(s, d, mss=1448, app=tl.Bulk(start=f"{i / n}s"), **tcp)
        src = "r0"
    res = net.run(duration=f"{duration}s", seed=seed)
    f = res.flows
    links = res.links.set_index(["link", "src"])
    return {"goodput": f["goodput_bps"].sum() / 1e6,
            "jain": tl.jain_index(list(f["delivered_bytes"])),
            "retransmitted": int(f["retransmitted_segments"].sum()),
            "timeouts": int(f["timeouts"].sum()),
            "queue_drops": int(links.loc[("bottleneck", src), "drops_queue"])}


def ns2_run(ns: str, kind: str, topo: str, agent: str, acks: str, per: float, seed: int,
            duration: float, singledup: int) -> dict:
    window, tick = "10000", "0.001"
    if kind == "native":
        name, winit, minrto = agent, 4, 1.0
    elif kind == "ns2":
        # ns-2's own defaults.
        name, winit, minrto, window, tick = agent, 2, 0.2, "20", "0.01"
    else:
        name, winit, minrto = f"linux:{TCP_LINUX[agent]}", 10, 0.2
    if topo == "dumbbell":
        winit = 10 if kind == "linux" else 3  # RFC 5681 for a 1448-B MSS (tcplab's paper)
    # The package's ns-2 script (tcplab validate's), with this script's
    # dumbbell: 1 Gb/s access links, a 100 Mb/s, 10 ms bottleneck.
    args = {"topo": topo, "agent": name, "acks": acks, "per": per, "seed": seed,
            "duration": duration, "window": window, "winit": winit, "minrto": minrto,
            "tick": tick, "singledup": singledup, "size": PAYLOAD[topo]}
    if topo == "dumbbell":
        args.update(flows=DUMBBELL_FLOWS, rate="100Mb", delay="10ms", access="1Gb")
    cmd = [ns, str(TCL)] + [f"{k}={v}" for k, v in args.items()]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         stdin=subprocess.DEVNULL)
    if "do not find" in out.stdout + out.stderr:
        sys.exit(f"TCP-Linux does not know '{agent}' (it would run Reno): {out.stdout.strip()}")
    d = json.loads(out.stdout[out.stdout.rfind('{"flows"'):].splitlines()[0])
    # ack_ is the highest cumulative ACK in packets, numbered from 0.
    acked = [(f["acked"] + 1) * PAYLOAD[topo] for f in d["flows"]]
    # Goodput over each flow's active time, as tcplab's: flow i of n starts
    # at i/n s on the dumbbell.
    n = len(acked)
    starts = [i / n if topo == "dumbbell" else 0.0 for i in range(n)]
    return {"goodput": sum(b * 8 / (duration - t) for b, t in zip(acked, starts, strict=True))
            / 1e6,
            "jain": tl.jain_index(acked),
            "retransmitted": sum(f["retransmitted"] for f in d["flows"]),
            "timeouts": sum(f["timeouts"] for f in d["flows"]), "queue_drops": d["queue_drops"]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--duration", type=float, default=600.0)
    p.add_argument("--per", default=",".join(str(x) for x in PERS))
    p.add_argument("--set", choices=["native", "ns2", "linux", "dumbbell", "all"], default="all")
    p.add_argument("--acks", default="delack,every")
    p.add_argument("--singledup", type=int, default=1,
                   help="ns-2's limited transmit (its default 1; 0 to switch it off)")
    p.add_argument("--ns", default=shutil.which("ns") or "ns")
    p.add_argument("--csv", default=str(ROOT / "docs" / "data" / "validate_ns2.csv"))
    p.add_argument("--docs", action="store_true", help="write the tables into docs/validation.md")
    p.add_argument("--from-csv", help="no runs: the tables from a CSV this script wrote")
    a = p.parse_args()
    if a.from_csv:
        with open(a.from_csv, newline="") as f:
            rows = [{k: (v if k in ("set", "variant", "acks") else float(v)) for k, v in r.items()}
                    for r in csv.DictReader(f)]
        a.seeds, a.duration, a.singledup = int(rows[0]["seeds"]), rows[0]["duration_s"], int(
            rows[0]["singledup"])
        report(rows, a)
        return
    if shutil.which(a.ns) is None:
        sys.exit("ns-2 not found: apt-get install ns2 (or --ns PATH)")
    pers = [float(x) for x in a.per.split(",")]
    cases = []
    sets = ["native", "ns2", "linux", "dumbbell"] if a.set == "all" else [a.set]
    for kind in (k for k in sets if k != "dumbbell"):
        for agent in (LINUX if kind == "linux" else NATIVE):
            for acks in a.acks.split(","):
                for per in pers:
                    cases.append((kind, "westwood", agent, acks, per, a.duration))
    if "dumbbell" in sets:
        for kind, agents in [("native", ["newreno", "sack"]), ("linux", LINUX)]:
            for agent in agents:
                for per in DUMBBELL_PERS:
                    cases.append((kind, "dumbbell", agent, "delack", per,
                                  min(a.duration, DUMBBELL_SECONDS)))
    rows = []
    with ThreadPoolExecutor(2) as pool:
        for kind, topo, agent, acks, per, duration in cases:
            seeds = range(1, a.seeds + 1)
            ns2 = [pool.submit(ns2_run, a.ns, kind, topo, agent, acks, per, s, duration,
                               a.singledup) for s in seeds]
            ours = [tcplab_run(kind, topo, agent, acks, per, s, duration) for s in seeds]
            ref = [f.result() for f in ns2]
            row = {"set": kind if topo == "westwood" else f"dumbbell-{kind}", "variant": agent,
                   "acks": acks, "per": per, "seeds": a.seeds, "duration_s": duration,
                   "singledup": a.singledup}
            for key in ["goodput", "jain", "retransmitted", "timeouts", "queue_drops"]:
                row[f"tcplab_{key}"] = statistics.fmean(r[key] for r in ours)
                row[f"ns2_{key}"] = statistics.fmean(r[key] for r in ref)
            row["goodput_ratio"] = ratio(row["tcplab_goodput"], row["ns2_goodput"])
            rows.append(row)
            print(f"{row['set']:15} {agent:8} {acks:6} PER {per:<6} goodput "
                  f"{row['tcplab_goodput']:.4f} / {row['ns2_goodput']:.4f} = "
                  f"{row['goodput_ratio']:.3f}  retx "
                  f"{row['tcplab_retransmitted']:.0f} / {row['ns2_retransmitted']:.0f}  timeouts "
                  f"{row['tcplab_timeouts']:.1f} / {row['ns2_timeouts']:.1f}", flush=True)
    out = Path(a.csv)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {out}")
    report(rows, a)


def report(rows: list[dict], a: argparse.Namespace) -> None:
    text = markdown(rows, a)
    print(text)
    if a.docs:
        write_between(DOCS, BEGIN, END, text)


def markdown(rows: list[dict], a: argparse.Namespace) -> str:
    lines = [f"`python bench/validate_ns2.py` ({a.seeds} seeds of {a.duration:g} s per cell, "
             f"ns-2 singledup_ {a.singledup}). Each cell: the goodput ratio tcplab / ns-2, "
             "then timeouts (to) and retransmitted segments (rx), tcplab / ns-2; all means "
             "over the seeds.", ""]
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["set"], r["acks"]), []).append(r)
    for (kind, acks), rs in groups.items():
        pers = sorted({r["per"] for r in rs})
        ref = {"ns2": "ns-2 native agent at ns-2's defaults"}.get(
            kind, "ns-2 native agent" if kind.endswith("native") else "TCP-Linux")
        prof = {"ns2": "ns2"}.get(kind, "paper" if kind.endswith("native") else "linux")
        ack_text = "ACK per segment" if acks == "every" else "delayed ACK (2 segments, 200 ms)"
        where = (f"{DUMBBELL_FLOWS}-flow dumbbell, {rs[0]['duration_s']:g} s"
                 if kind.startswith("dumbbell") else "Westwood path")
        lines += [f"**{where}: {ref}, {ack_text}; tcplab's {prof} profile.**", "",
                  "| variant | " + " | ".join(f"PER {p:g}" for p in pers) + " |",
                  "|---|" + "---|" * len(pers)]
        for variant in dict.fromkeys(r["variant"] for r in rs):
            cells = []
            for per in pers:
                r = next(x for x in rs if x["variant"] == variant and x["per"] == per)
                fair = (f", Jain {r['tcplab_jain']:.2f}/{r['ns2_jain']:.2f}"
                        if kind.startswith("dumbbell") else "")
                cells.append(f"{r['goodput_ratio']:.2f} ({r['tcplab_timeouts']:.1f}/"
                             f"{r['ns2_timeouts']:.1f} to, {r['tcplab_retransmitted']:.0f}/"
                             f"{r['ns2_retransmitted']:.0f} rx{fair})")
            lines.append(f"| {variant} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
