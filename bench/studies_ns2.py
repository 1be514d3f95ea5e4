"""tcplab's dumbbell-udp and reverse-traffic presets against ns-2.35 itself.

Both studies were published from ns-2, and their presets run tcplab's ns2
profile (ns-2.35's Agent/TCP defaults: 1000-B packets plus the 40-B header,
window_ 20, windowInit_ 2, an ACK per packet, tcpTick_ 10 ms, minrto_ 0.2 s,
singledup_, bugFix_) with ns-2's default drop-tail queues (``NS2_QUEUE``:
49 packets waiting, which is what ns-2's ``limit_ 50`` holds). The
ns-2 side (bench/ns2/studies.tcl) builds the same scenario at ns-2's own
defaults, setting only what the preset states. Neither side has anything
random (ns-2's CBR random_ and TCP overhead_ are 0 by default), so each cell
is one run of each.

- ``dumbbell-udp`` (Chavda and Satoniya): TCP and UDP sources -(access)- r1
  -(2 Mb/s, 50 ms)- r2 -(access)- their sinks; Ethernet (10 Mb/s, 10 ms) or
  Fast Ethernet (100 Mb/s, 1 ms) on each side (4 pairs); tahoe, reno,
  newreno, vegas, sack (Agent/TCP, /Reno, /Newreno, /Vegas, /Sack1 with
  TCPSink/Sack1); a CBR flow of 1000-B packets (tcplab: 972 B of payload and
  28 B of headers, the same packets) at 400, 800, 1200, 1600 and 1800 kb/s;
  100 s. Metrics: the TCP flow's goodput and the UDP flow's, as tcplab's
  ``goodput_bps`` (payload delivered in order / active time, here the whole
  run): ns-2's TCP from the sink's ``bytes_`` (whole packets delivered in
  order, divided by the wire size) x 1000 B, its UDP from the LossMonitor's
  packets x 972 B. 100 cells; a cell is within 10% when both are.
- ``reverse-traffic`` (Grieco and Mascolo): src -(100 Mb/s, 1 ms)- r1 -(2
  Mb/s, 123 ms)- r2 -(100 Mb/s, 1 ms)- dst, one bulk flow (newreno, sack,
  vegas: ns-2 has no Westwood+) and 10 NewReno reverse flows ON during [250,
  500] and [750, 1000] s, window_ 10000 everywhere; 1000 s. Metric: the
  forward flow's goodput in each 250-s interval (tcplab's ``res.intervals``;
  ns-2: its sink's ``bytes_`` sampled at 250, 500, 750 and 1000 s). 12
  cells. tcplab's OnOff sends no new data after an OFF edge but still
  delivers (and retransmits) what it had sent; ns-2 matches it with ``$tcp
  advance`` to maxseq_ + 1 at each OFF edge and ``$ftp start`` at each ON
  edge (FTP's own stop, ``advance 0``, stops one packet short).

Each cell is printed as tcplab, ns-2 and the ratio tcplab / ns-2 (with
retransmitted segments and timeouts of the TCP flow), then a summary line
per study. The rows go to a CSV, and ``--docs`` writes Markdown tables into
docs/studies.md between the markers that hold them (if present).

``--tcplab-queue`` overrides the presets' queue (NS2_QUEUE, 49p: what
ns-2's limit_ 50 holds, as DropTail::enque drops when the queue's length +
1 reaches limit_, the packet being sent being out of it), and ``--ns-set
Class.var=value`` sets an ns-2 class default, for experiments: e.g.
``--tcplab-queue 50p`` or ``--ns-set Queue.limit_=51``.

    python bench/studies_ns2.py                         # both studies, 112 cells (about 15 s)
    python bench/studies_ns2.py --study dumbbell-udp --jobs 2
    python bench/studies_ns2.py --quick                 # a few short cells, a smoke check
    python bench/studies_ns2.py --tcplab-queue 50p --csv /tmp/q50.csv
    python bench/studies_ns2.py --from-csv docs/data/studies_ns2.csv --docs   # tables only
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import tcplab as tl
from doc_tables import ratio, write_between  # bench/, beside this file

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOCS = ROOT / "docs" / "studies.md"
BEGIN = "<!-- studies_ns2: begin (python bench/studies_ns2.py --docs) -->"
END = "<!-- studies_ns2: end -->"
TOLERANCE = 0.10

DUMBBELL_VARIANTS = ["tahoe", "reno", "newreno", "vegas", "sack"]
ACCESS = ["ethernet", "fast_ethernet"]
PAIRS = [(left, right) for left in ACCESS for right in ACCESS]
UDP_KBPS = [400, 800, 1200, 1600, 1800]
DUMBBELL_SECONDS = 100.0
UDP_PAYLOAD = 972  # the preset's datagrams: 972 B of payload + 28 B of headers
REVERSE_VARIANTS = ["newreno", "sack", "vegas"]
REVERSE_SECONDS = 1000.0
INTERVAL = 250.0
PAYLOAD = 1000  # ns-2's packetSize_: payload per TCP packet

SHORT = {"ethernet": "Eth", "fast_ethernet": "FE"}


def within(r: float) -> bool:
    return abs(r - 1.0) <= TOLERANCE


# ---- tcplab ------------------------------------------------------------------


def tcplab_dumbbell(variant: str, left: str, right: str, kbps: int, duration: float,
                    queue: str | None) -> dict:
    kw = {"queue": queue} if queue else {}
    sc = tl.presets.dumbbell_udp(cc=variant, udp_rate=f"{kbps}kbps", left=left, right=right,
                                 duration=f"{duration}s", **kw)
    f = sc.run().flows.set_index("flow")
    return {"tcp_bps": float(f.loc["tcp", "goodput_bps"]),
            "udp_bps": float(f.loc["udp", "goodput_bps"]),
            "retransmitted": int(f.loc["tcp", "retransmitted_segments"]),
            "timeouts": int(f.loc["tcp", "timeouts"])}


def tcplab_reverse(variant: str, duration: float, queue: str | None) -> dict:
    kw = {"queue": queue} if queue else {}
    res = tl.presets.reverse_traffic(cc=variant, duration=f"{duration}s", **kw).run()
    iv = res.intervals
    iv = iv[iv["flow"] == "forward"].sort_values("start_s")
    f = res.flows.set_index("flow")
    return {"interval_bps": [float(x) for x in iv["goodput_bps"]],
            "starts": [float(x) for x in iv["start_s"]],
            "retransmitted": int(f.loc["forward", "retransmitted_segments"]),
            "timeouts": int(f.loc["forward", "timeouts"])}


# ---- ns-2 --------------------------------------------------------------------


def ns2_json(ns: str, args: list[str], sets: list[str], trace: str) -> dict:
    cmd = [ns, "studies.tcl", *args, trace, *sets]
    out = subprocess.run(cmd, cwd=HERE / "ns2", capture_output=True, text=True, check=True)
    return json.loads(next(line for line in out.stdout.splitlines() if line.startswith("{")))


def trace_path(trace_dir: str | None, name: str) -> str:
    if not trace_dir:
        return "-"
    Path(trace_dir).mkdir(parents=True, exist_ok=True)
    return str(Path(trace_dir).resolve() / f"{name}.tr")


def ns2_dumbbell(ns: str, variant: str, left: str, right: str, kbps: int, duration: float,
                 sets: list[str], trace_dir: str | None) -> dict:
    d = ns2_json(ns, ["dumbbell-udp", variant, left, right, str(kbps), f"{duration:g}"], sets,
                 trace_path(trace_dir, f"dumbbell-{variant}-{left}-{right}-{kbps}"))
    delivered = d["tcp_bytes"] // d["wire_size"]  # whole packets delivered in order
    return {"tcp_bps": delivered * PAYLOAD * 8 / duration,
            "udp_bps": d["udp_packets"] * UDP_PAYLOAD * 8 / duration,
            "retransmitted": d["retransmitted"], "timeouts": d["timeouts"]}


def ns2_reverse(ns: str, variant: str, duration: float, sets: list[str],
                trace_dir: str | None) -> dict:
    d = ns2_json(ns, ["reverse-traffic", variant, f"{duration:g}"], sets,
                 trace_path(trace_dir, f"reverse-{variant}"))
    at = [0] + [b // d["wire_size"] for b in d["tcp_bytes_at"]]
    ends = [min(INTERVAL * (k + 1), duration) for k in range(len(at) - 1)]
    starts = [INTERVAL * k for k in range(len(at) - 1)]
    return {"interval_bps": [(at[k + 1] - at[k]) * PAYLOAD * 8 / (ends[k] - starts[k])
                             for k in range(len(at) - 1)],
            "retransmitted": d["retransmitted"], "timeouts": d["timeouts"]}


# ---- cells -------------------------------------------------------------------


def dumbbell_cell(a: argparse.Namespace, variant: str, left: str, right: str, kbps: int,
                  duration: float) -> dict:
    ours = tcplab_dumbbell(variant, left, right, kbps, duration, a.tcplab_queue)
    ref = ns2_dumbbell(a.ns, variant, left, right, kbps, duration, a.ns_set, a.ns_trace)
    row = {"study": "dumbbell-udp", "variant": variant, "left": left, "right": right,
           "udp_kbps": kbps, "interval_start_s": "", "duration_s": duration,
           "tcplab_queue": a.tcplab_queue or tl.presets.NS2_QUEUE,
           "ns_set": " ".join(a.ns_set),
           "tcplab_tcp_bps": ours["tcp_bps"], "ns2_tcp_bps": ref["tcp_bps"],
           "tcp_ratio": ratio(ours["tcp_bps"], ref["tcp_bps"]),
           "tcplab_udp_bps": ours["udp_bps"], "ns2_udp_bps": ref["udp_bps"],
           "udp_ratio": ratio(ours["udp_bps"], ref["udp_bps"])}
    for k in ("retransmitted", "timeouts"):
        row[f"tcplab_{k}"] = ours[k]
        row[f"ns2_{k}"] = ref[k]
    return row


def reverse_cells(a: argparse.Namespace, variant: str, duration: float) -> list[dict]:
    ours = tcplab_reverse(variant, duration, a.tcplab_queue)
    ref = ns2_reverse(a.ns, variant, duration, a.ns_set, a.ns_trace)
    rows = []
    for k, (x, y) in enumerate(zip(ours["interval_bps"], ref["interval_bps"], strict=True)):
        row = {"study": "reverse-traffic", "variant": variant, "left": "", "right": "",
               "udp_kbps": "", "interval_start_s": ours["starts"][k], "duration_s": duration,
               "tcplab_queue": a.tcplab_queue or tl.presets.NS2_QUEUE,
               "ns_set": " ".join(a.ns_set),
               "tcplab_tcp_bps": x, "ns2_tcp_bps": y, "tcp_ratio": ratio(x, y),
               "tcplab_udp_bps": "", "ns2_udp_bps": "", "udp_ratio": ""}
        for key in ("retransmitted", "timeouts"):  # the whole run's
            row[f"tcplab_{key}"] = ours[key]
            row[f"ns2_{key}"] = ref[key]
        rows.append(row)
    return rows


def cell_ok(r: dict) -> bool:
    return within(r["tcp_ratio"]) and (r["udp_ratio"] == "" or within(r["udp_ratio"]))


def line(r: dict) -> str:
    flags = "" if cell_ok(r) else "  <-- outside 10%"
    rx = (f"retx {r['tcplab_retransmitted']:.0f}/{r['ns2_retransmitted']:.0f} "
          f"to {r['tcplab_timeouts']:.0f}/{r['ns2_timeouts']:.0f}")
    if r["study"] == "dumbbell-udp":
        where = (f"{SHORT[r['left']]:>3}/{SHORT[r['right']]:<3} UDP {int(r['udp_kbps']):>4} kb/s "
                 f"{r['variant']:8}")
        return (f"dumbbell-udp    {where} TCP {r['tcplab_tcp_bps'] / 1e3:7.1f} / "
                f"{r['ns2_tcp_bps'] / 1e3:7.1f} kb/s = {r['tcp_ratio']:.3f}  UDP "
                f"{r['tcplab_udp_bps'] / 1e3:7.1f} / {r['ns2_udp_bps'] / 1e3:7.1f} = "
                f"{r['udp_ratio']:.3f}  {rx}{flags}")
    t0 = r["interval_start_s"]
    return (f"reverse-traffic {r['variant']:8} [{t0:4.0f}, {t0 + INTERVAL:4.0f}) s forward "
            f"{r['tcplab_tcp_bps'] / 1e6:.4f} / {r['ns2_tcp_bps'] / 1e6:.4f} Mb/s = "
            f"{r['tcp_ratio']:.3f}  {rx} (whole run){flags}")


def summary(rows: list[dict]) -> list[str]:
    out = []
    for study in dict.fromkeys(r["study"] for r in rows):
        rs = [r for r in rows if r["study"] == study]
        ok = sum(cell_ok(r) for r in rs)
        text = f"{study}: {ok} of {len(rs)} cells within 10%"
        if study == "dumbbell-udp":
            tcp_ok = sum(within(r["tcp_ratio"]) for r in rs)
            udp_ok = sum(within(r["udp_ratio"]) for r in rs)
            five = sum(abs(r["tcp_ratio"] - 1) <= 0.05 and abs(r["udp_ratio"] - 1) <= 0.05
                       for r in rs)
            text += (f" (TCP goodput {tcp_ok}, UDP goodput {udp_ok}; within 5%: {five})")
        else:
            five = sum(abs(r["tcp_ratio"] - 1) <= 0.05 for r in rs)
            text += f" (within 5%: {five})"
        out.append(text)
    return out


# ---- main --------------------------------------------------------------------


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--study", choices=["dumbbell-udp", "reverse-traffic", "all"], default="all")
    p.add_argument("--quick", action="store_true",
                   help="a few cells, shorter runs (a smoke check, not a comparison)")
    p.add_argument("--jobs", type=int, default=1, help="cells run at once (default 1)")
    p.add_argument("--ns", default=shutil.which("ns") or "ns")
    p.add_argument("--tcplab-queue", default=None,
                   help=f"tcplab's queue instead of the presets' ({tl.presets.NS2_QUEUE})")
    p.add_argument("--ns-set", action="append", default=[], metavar="CLASS.VAR=VALUE",
                   help="an ns-2 class default to set (repeatable; none by default)")
    p.add_argument("--ns-trace", metavar="DIR",
                   help="write ns-2's bottleneck queue trace and cwnd trace of each cell here")
    p.add_argument("--csv", default=str(ROOT / "docs" / "data" / "studies_ns2.csv"))
    p.add_argument("--docs", action="store_true", help="write the tables into docs/studies.md")
    p.add_argument("--from-csv", help="no runs: the report from a CSV this script wrote")
    a = p.parse_args()
    if a.from_csv:
        with open(a.from_csv, newline="") as f:
            rows = [parse_row(r) for r in csv.DictReader(f)]
        for r in rows:
            print(line(r))
        report(rows, a)
        return
    if shutil.which(a.ns) is None:
        sys.exit("ns-2 not found: apt-get install ns2 (or --ns PATH)")
    studies = ["dumbbell-udp", "reverse-traffic"] if a.study == "all" else [a.study]
    jobs = []
    if "dumbbell-udp" in studies:
        variants, pairs, rates, seconds = DUMBBELL_VARIANTS, PAIRS, UDP_KBPS, DUMBBELL_SECONDS
        if a.quick:
            variants, pairs, rates, seconds = (["reno", "sack"], [("ethernet", "fast_ethernet")],
                                               [800, 1600], 20.0)
        for left, right in pairs:
            for kbps in rates:
                for v in variants:
                    jobs.append((dumbbell_cell, (a, v, left, right, kbps, seconds)))
    if "reverse-traffic" in studies:
        variants, seconds = REVERSE_VARIANTS, REVERSE_SECONDS
        if a.quick:
            variants, seconds = ["newreno"], 2 * INTERVAL
        for v in variants:
            jobs.append((reverse_cells, (a, v, seconds)))
    t0 = time.monotonic()
    rows: list[dict] = []
    with ThreadPoolExecutor(max(1, a.jobs)) as pool:
        for fut in [pool.submit(fn, *args) for fn, args in jobs]:
            got = fut.result()
            for r in got if isinstance(got, list) else [got]:
                rows.append(r)
                print(line(r), flush=True)
    print(f"{len(rows)} cells in {time.monotonic() - t0:.1f} s")
    out = Path(a.csv)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {out}")
    report(rows, a)


def parse_row(r: dict) -> dict:
    text = {"study", "variant", "left", "right", "tcplab_queue", "ns_set"}
    return {k: (v if k in text or v == "" else float(v)) for k, v in r.items()}


def report(rows: list[dict], a: argparse.Namespace) -> None:
    for s in summary(rows):
        print(s)
    if a.docs:
        write_between(DOCS, BEGIN, END, markdown(rows))


def markdown(rows: list[dict]) -> str:
    r0 = rows[0]
    settings = f"tcplab's queues {r0['tcplab_queue']}"
    if r0["ns_set"]:
        settings += f", ns-2 with {r0['ns_set']}"
    lines = [f"`python bench/studies_ns2.py` ({settings}): tcplab's presets against "
             "ns-2.35's own agents at ns-2's defaults, one run per cell (neither side is "
             "random). " + "; ".join(summary(rows)) + ".", ""]
    dumb = [r for r in rows if r["study"] == "dumbbell-udp"]
    if dumb:
        rates = sorted({int(r["udp_kbps"]) for r in dumb})
        for left, right in dict.fromkeys((r["left"], r["right"]) for r in dumb):
            rs = [r for r in dumb if (r["left"], r["right"]) == (left, right)]
            lines += [f"**dumbbell-udp, {left.replace('_', ' ')} / {right.replace('_', ' ')}, "
                      f"{rs[0]['duration_s']:g} s.** Each cell: TCP goodput tcplab / ns-2 "
                      "(kb/s) and their ratio; then the UDP goodput's ratio.", "",
                      "| variant | " + " | ".join(f"UDP {k} kb/s" for k in rates) + " |",
                      "|---|" + "---|" * len(rates)]
            for v in dict.fromkeys(r["variant"] for r in rs):
                cells = []
                for k in rates:
                    r = next(x for x in rs if x["variant"] == v and int(x["udp_kbps"]) == k)
                    mark = "" if cell_ok(r) else " **x**"
                    cells.append(f"{r['tcplab_tcp_bps'] / 1e3:.0f} / {r['ns2_tcp_bps'] / 1e3:.0f}"
                                 f" = {r['tcp_ratio']:.2f}; UDP {r['udp_ratio']:.2f}{mark}")
                lines.append(f"| {v} | " + " | ".join(cells) + " |")
            lines.append("")
    rev = [r for r in rows if r["study"] == "reverse-traffic"]
    if rev:
        starts = sorted({r["interval_start_s"] for r in rev})
        lines += [f"**reverse-traffic, {rev[0]['duration_s']:g} s.** The forward flow's "
                  "goodput per interval, tcplab / ns-2 (Mb/s) and their ratio (reverse flows "
                  "ON in the second and fourth).", "",
                  "| variant | " + " | ".join(f"[{t:g}, {t + INTERVAL:g}) s" for t in starts)
                  + " |", "|---|" + "---|" * len(starts)]
        for v in dict.fromkeys(r["variant"] for r in rev):
            cells = []
            for t in starts:
                r = next(x for x in rev if x["variant"] == v and x["interval_start_s"] == t)
                mark = "" if cell_ok(r) else " **x**"
                cells.append(f"{r['tcplab_tcp_bps'] / 1e6:.3f} / {r['ns2_tcp_bps'] / 1e6:.3f} = "
                             f"{r['tcp_ratio']:.2f}{mark}")
            lines.append(f"| {v} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append("**x**: outside 10%.")
    if any(r["variant"] == "vegas" for r in rows) and "Vegas" not in r0["ns_set"]:
        lines += ["", "ns-2's Agent/TCP/Vegas does not add the 40-B TCP/IP header to its "
                  "packets (tcp-vegas.cc, `VegasTcpAgent::output`): at its defaults its "
                  "packets are 1000 B on the wire against tcplab's 1040, which is worth "
                  "about 4% of goodput where the bottleneck limits it."]
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
