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
- ``linux``: TCP-Linux (Agent/TCP/Linux with select_ca, Linux 2.6.22's
  congestion-control modules on ns-2's own SACK recovery) against tcplab's
  linux profile (Linux's RTO, SACK recovery, initial window 10, 200 ms
  minimum RTO). ns-2: window_ 10000, windowInit_ 10, minrto_ 0.2,
  tcpTick_ 1 ms, timestamps. A module name TCP-Linux does not know would
  silently run Reno: the harness refuses the run instead.

Each row gives the mean over seeds of goodput (Mb/s), retransmitted
segments and timeouts for both, and tcplab / ns-2 ratios. It writes a CSV
and, with ``--docs``, the Markdown tables into docs/validation.md between
the markers that hold them.

    python bench/validate_ns2.py                       # 5 seeds of 600 s (a few minutes)
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOCS = ROOT / "docs" / "validation.md"
BEGIN = "<!-- validate_ns2: begin (python bench/validate_ns2.py --docs) -->"
END = "<!-- validate_ns2: end -->"
PERS = [0.0, 0.001, 0.005, 0.01, 0.02, 0.05]
NATIVE = ["newreno", "reno", "sack", "vegas"]
LINUX = ["reno", "cubic"]
PAYLOAD = 360


def tcplab_run(kind: str, agent: str, acks: str, per: float, seed: int,
               duration: float) -> dict:
    net = tl.Network()
    s, r, k = net.host("source"), net.router("router"), net.host("sink")
    net.link(s, r, rate="10Mbps", delay="45ms", mtu=400)
    loss = tl.Uniform(per) if per > 0 else None
    net.link(r, k, rate="2Mbps", delay="10us", mtu=400, loss=loss, name="bottleneck")
    every = acks == "every"
    if kind == "native":
        net.tcp(s, k, cc=agent, delayed_ack=1 if every else 2, delayed_ack_timeout="200ms")
    else:
        net.tcp(s, k, cc=agent, profile="linux", delayed_ack=1 if every else 2,
                delayed_ack_timeout="200ms")
    res = net.run(duration=f"{duration}s", seed=seed)
    f = res.flows.iloc[0]
    links = res.links.set_index(["link", "src"])
    return {"goodput": f["goodput_bps"] / 1e6, "retransmitted": int(f["retransmitted_segments"]),
            "timeouts": int(f["timeouts"]),
            "queue_drops": int(links.loc[("bottleneck", "router"), "drops_queue"])}


def ns2_run(ns: str, kind: str, agent: str, acks: str, per: float, seed: int,
            duration: float, singledup: int) -> dict:
    if kind == "native":
        name, winit, minrto = agent, 4, 1.0
    else:
        name, winit, minrto = f"linux:{agent}", 10, 0.2
    cmd = [ns, "validate.tcl", name, acks, str(per), str(seed), str(duration), "10000",
           str(winit), str(minrto), "0.001", str(singledup)]
    out = subprocess.run(cmd, cwd=HERE / "ns2", capture_output=True, text=True, check=True)
    if "do not find" in out.stdout + out.stderr:
        sys.exit(f"TCP-Linux does not know '{agent}' (it would run Reno): {out.stdout.strip()}")
    d = json.loads(next(line for line in out.stdout.splitlines() if line.startswith("{")))
    return {"goodput": d["acked_packets"] * PAYLOAD * 8 / duration / 1e6,
            "retransmitted": d["retransmitted"], "timeouts": d["timeouts"],
            "queue_drops": d["queue_drops"]}


def ratio(a: float, b: float) -> float:
    return a / b if b else (1.0 if a == 0 else float("inf"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--duration", type=float, default=600.0)
    p.add_argument("--per", default=",".join(str(x) for x in PERS))
    p.add_argument("--set", choices=["native", "linux", "all"], default="all")
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
    for kind in (["native", "linux"] if a.set == "all" else [a.set]):
        for agent in (NATIVE if kind == "native" else LINUX):
            for acks in a.acks.split(","):
                for per in pers:
                    cases.append((kind, agent, acks, per))
    rows = []
    with ThreadPoolExecutor(2) as pool:
        for kind, agent, acks, per in cases:
            seeds = range(1, a.seeds + 1)
            ns2 = pool.map(lambda s, c=(kind, agent, acks, per): ns2_run(
                a.ns, *c, s, a.duration, a.singledup), seeds)
            ours = [tcplab_run(kind, agent, acks, per, s, a.duration) for s in seeds]
            ref = list(ns2)
            row = {"set": kind, "variant": agent, "acks": acks, "per": per, "seeds": a.seeds,
                   "duration_s": a.duration, "singledup": a.singledup}
            for key in ["goodput", "retransmitted", "timeouts", "queue_drops"]:
                row[f"tcplab_{key}"] = statistics.fmean(r[key] for r in ours)
                row[f"ns2_{key}"] = statistics.fmean(r[key] for r in ref)
            row["goodput_ratio"] = ratio(row["tcplab_goodput"], row["ns2_goodput"])
            rows.append(row)
            print(f"{kind:6} {agent:8} {acks:6} PER {per:<6} goodput {row['tcplab_goodput']:.4f} "
                  f"/ {row['ns2_goodput']:.4f} = {row['goodput_ratio']:.3f}  retx "
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
        doc = DOCS.read_text()
        if BEGIN not in doc or END not in doc:
            sys.exit(f"{DOCS}: the markers {BEGIN!r} and {END!r} are missing")
        head, rest = doc.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        DOCS.write_text(head + BEGIN + "\n" + text + END + tail)
        print(f"wrote {DOCS}")


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
        ref = "ns-2 native agent" if kind == "native" else "TCP-Linux"
        prof = "paper" if kind == "native" else "linux"
        ack_text = "ACK per segment" if acks == "every" else "delayed ACK (2 segments, 200 ms)"
        lines += [f"**{ref}, {ack_text}; tcplab's {prof} profile.**", "",
                  "| variant | " + " | ".join(f"PER {p:g}" for p in pers) + " |",
                  "|---|" + "---|" * len(pers)]
        for variant in dict.fromkeys(r["variant"] for r in rs):
            cells = []
            for per in pers:
                r = next(x for x in rs if x["variant"] == variant and x["per"] == per)
                cells.append(f"{r['goodput_ratio']:.2f} ({r['tcplab_timeouts']:.1f}/"
                             f"{r['ns2_timeouts']:.1f} to, {r['tcplab_retransmitted']:.0f}/"
                             f"{r['ns2_retransmitted']:.0f} rx)")
            lines.append(f"| {variant} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
