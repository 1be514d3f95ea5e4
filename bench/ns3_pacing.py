"""tcplab's `pacing = "ns3"` against ns-3 3.44's TCP pacing, on the ns-3 section's dumbbell.

One bulk flow on the dumbbell of bench/ns3_trace.py (10 Mb/s, 48 ms,
100-packet drop-tail, 1448-B segments, 4 MiB buffers; ns-3's defaults
otherwise, timestamps on), in ns-3 3.44 (bench/ns3/pacing_dumbbell.py in
the ns-3 virtualenv, one process at a time) and in tcplab's ns3 profile,
for each variant (TcpNewReno and TcpCubic) and each pacing mode:

- `off`: unpaced (ns-3's EnablePacing false; tcplab `pacing=False`), the control;
- `ns3`: EnablePacing true, PaceInitialWindow false (tcplab `pacing="ns3"`);
- `ns3+iw`: PaceInitialWindow true as well (`pace_initial_window=True`;
  NewReno only unless --iw-cc says otherwise);

at each uniform packet error rate of --per on the bottleneck (the two
simulators draw different losses: with PER > 0 the flow-level numbers
compare, the packets do not).

Two tables. Flow level: goodput over --duration (ratio tcplab / ns-3),
retransmitted segments (ns-3: segments the socket sends again), timeouts
(ns-3: bench/ns3_trace.py's count from the RTO trace) and the bottleneck
queue (r0 -> r1, packets waiting, the one on the wire not counted):
peak, time average over the run, drops. Packet level: the first --segments
data segments sent for the first time, each as it starts onto the wire of
the sender's access link (ns-3: PhyTxBegin; tcplab: its pcap, capture
"tx"), paired in order (segment n is sequence number 1 + 1448 (n - 1) in
both): how many leave within 1 us of each other, the largest difference,
the first segment beyond 1 us, and the first segments whose gap to the
segment before differs by more than 1 us (a gap isolates each sender's own
timing, which is what pacing decides; a constant offset such as the
handshake's drops out of it).

--no-timestamps runs both sides without the timestamps option (a
diagnostic: ns-3's RTT samples are then the exact times of RttHistory,
which tcplab's ns3 profile takes too, instead of whole milliseconds).
ns-3's traces and tcplab's pcaps stay in --out, with results.json.

Why the packets differ by microseconds, without pacing too (measured
2026-11-29): ns-3's SYN and SYN-ACK carry no MSS option (56-B packets,
tcplab's 60) and ns-3's point-to-point links add a 2-B PPP header to every
packet, so the first data segment leaves 3.68 us later in tcplab and each
back-to-back one 0.16 us less later; with timestamps, ns-3's RTT samples
are whole milliseconds (TcpOptionTS counts in ms), tcplab's exact, so the
smoothed RTT in the pacing rate differs (the first paced gap, segment 12:
4.551137 ms against 4.558527). Without timestamps the paced gaps agree
within 0.4 us (the PPP header's share of the RTT). TcpCubic differs in
its window, not its pacing: ns-3's slow start adds every acknowledged
segment (byte counting; tcplab's ns3 profile one per ACK), and it grows
only while m_isCwndLimited, which a paced sender seldom is.

    python bench/ns3_pacing.py [--duration 60] [--per 0,0.01] [--cc newreno,cubic] \
        [--segments 200] [--run 1] [--no-timestamps] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ns3_trace import summarize_ns3  # bench/ns3_trace.py, beside this file

HERE = Path(__file__).resolve().parent
#: Pacing mode -> ns-3's flags (bench/ns3/pacing_dumbbell.py) and tcplab's keywords.
MODES: dict[str, tuple[list[str], dict]] = {
    "off": ([], {"pacing": False}),
    "ns3": (["--pacing"], {"pacing": "ns3"}),
    "ns3+iw": (["--pacing", "--pace-initial-window"],
               {"pacing": "ns3", "pace_initial_window": True}),
}
TOLERANCE_NS = 1000
#: Classic pcap with nanosecond time stamps (tcplab's), little-endian.
PCAP_MAGIC_NS = 0xA1B23C4D


@dataclass(frozen=True)
class Case:
    """One comparison: a variant (tcplab's name), a pacing mode, a PER."""

    cc: str
    mode: str
    per: float

    @property
    def name(self) -> str:
        """A file name for the case."""
        return f"{self.cc}_{self.mode.replace('+', '_')}_per{self.per:g}"


def first_sends(records: Iterable[tuple[int, int, int]], n: int) -> list[tuple[int, int]]:
    """(time ns, seq) of the first `n` first transmissions among (time ns, seq, len)
    data segments in time order: those above every byte sent before."""
    out, high = [], 0
    for t, seq, length in records:
        if seq + length <= high:
            continue
        high = seq + length
        out.append((t, seq))
        if len(out) == n:
            break
    return out


def pcap_segments(path: Path) -> list[tuple[int, int, int]]:
    """(time ns, seq, payload length) of every TCP data segment in a tcplab pcap
    (nanosecond stamps, LINKTYPE_RAW: each record starts with the IPv4 header)."""
    b = path.read_bytes()
    if struct.unpack_from("<I", b)[0] != PCAP_MAGIC_NS:
        sys.exit(f"{path}: not a nanosecond pcap")
    out, i = [], 24
    while i + 16 <= len(b):
        sec, nsec, incl, _ = struct.unpack_from("<IIII", b, i)
        ip = b[i + 16:i + 16 + incl]
        i += 16 + incl
        if ip[9] != 6:
            continue
        ihl = (ip[0] & 15) * 4
        total = struct.unpack_from(">H", ip, 2)[0]
        seq = struct.unpack_from(">I", ip, ihl + 4)[0]
        length = total - ihl - (ip[ihl + 12] >> 4) * 4
        if length > 0:
            out.append((sec * 10**9 + nsec, seq, length))
    return out


def ns3_python() -> str:
    """The ns-3 virtualenv's interpreter (as bench/ns3_trace.py finds it)."""
    python = os.environ.get("TCPLAB_NS3_PYTHON") or str(HERE.parent / ".venv-ns3/bin/python")
    if not Path(python).exists():
        sys.exit(f"no ns-3 python at {python}: run python bench/compare_ns3.py --setup")
    return python


def ns3_side(case: Case, run: int, duration: float, timestamps: bool, segments: int,
             out: Path) -> dict:
    """Runs ns-3's side of `case`; its measures."""
    from tcplab.validation.ns3 import PAIRS

    folder = out / f"ns3_{case.name}"
    cmd = [ns3_python(), "-I", str(HERE / "ns3" / "pacing_dumbbell.py"), "--cc", PAIRS[case.cc],
           *MODES[case.mode][0], "--per", str(case.per), "--run", str(run), "--duration",
           str(duration), "--out", str(folder)]
    if not timestamps:
        cmd.append("--no-timestamps")
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    line = next((x for x in res.stdout.splitlines() if x.startswith("{")), None)
    if line is None:
        sys.exit(f"ns-3 failed ({case.name}): {res.stderr.strip()[-400:]}")
    r = json.loads(line)
    text = (folder / "sender.txt").read_text()
    retransmitted, high = 0, 0
    for x in text.splitlines():
        f = x.split()
        if f[1] == "tx" and int(f[3]) > 0:
            seq, length = int(f[2]), int(f[3])
            retransmitted += seq < high
            high = max(high, seq + length)
    with open(folder / "wire.txt") as w:
        sends = first_sends((tuple(map(int, x.split())) for x in w), segments)
    return {"goodput": r["goodput_bps"] / 1e6, "retransmitted": retransmitted,
            "timeouts": summarize_ns3(text, duration)["timeouts"],
            "queue_max": r["queue_max_packets"], "queue_mean": r["queue_mean_packets"],
            "drops": r["drops_queue"], "sends": sends}


def tcplab_side(case: Case, seed: int, duration: float, timestamps: bool, segments: int,
                out: Path) -> dict:
    """Runs tcplab's ns3 profile on the same dumbbell (as bench/ns3_trace.py); the same."""
    import tcplab as tl
    from tcplab.validation.paths import dumbbell

    tcp = dict(MODES[case.mode][1])
    if not timestamps:
        tcp["timestamps"] = False
    folder = out / f"tcplab_{case.name}"
    net = dumbbell(1, per=case.per, cc=case.cc, profile="ns3", rcv_buf="4MiB", **tcp)
    res = net.run(duration=f"{duration}s", seed=seed, pcap=tl.Pcap(folder, links=["s0-r0"]))
    f, q = res.flows.iloc[0], res.link("bottleneck", src="r0")
    return {"goodput": float(f["goodput_bps"]) / 1e6,
            "retransmitted": int(f["retransmitted_segments"]), "timeouts": int(f["timeouts"]),
            "queue_max": int(q["queue_max_packets"]), "queue_mean": float(q["queue_mean_packets"]),
            "drops": int(q["drops_queue"]),
            "sends": first_sends(pcap_segments(folder / "s0-r0-0.pcap"), segments)}


def compare(ns3: list[tuple[int, int]], ours: list[tuple[int, int]]) -> dict:
    """Segment n of each side, paired in order: agreement within TOLERANCE_NS."""
    n = min(len(ns3), len(ours))
    if n == 0:
        return {"segments": 0}
    bad_seq = next((k for k in range(n) if ns3[k][1] != ours[k][1]), None)
    diffs = [ours[k][0] - ns3[k][0] for k in range(n)]
    first = next((k for k in range(n) if abs(diffs[k]) > TOLERANCE_NS), None)
    gaps = [(k, ns3[k][0] - ns3[k - 1][0], ours[k][0] - ours[k - 1][0]) for k in range(1, n)]
    gap_misses = [g for g in gaps if abs(g[2] - g[1]) > TOLERANCE_NS][:3]
    return {"segments": n, "within": sum(abs(d) <= TOLERANCE_NS for d in diffs),
            "largest_us": max(abs(d) for d in diffs) / 1e3,
            "first": None if first is None else
            {"n": first + 1, "seq": ns3[first][1], "ns3_s": ns3[first][0] / 1e9,
             "tcplab_s": ours[first][0] / 1e9},
            "gap_misses": [{"n": k + 1, "ns3_ms": a / 1e6, "tcplab_ms": b / 1e6}
                           for k, a, b in gap_misses],
            "seq_mismatch_at": None if bad_seq is None else bad_seq + 1}


def markdown(rows: list[dict], a: argparse.Namespace) -> str:
    """The two tables."""
    ts = "without timestamps (both sides)" if a.no_timestamps else "timestamps on"
    lines = [f"One bulk flow, {a.duration:g} s, run/seed {a.run}, {ts}. ns-3 / tcplab in "
             "each cell. Queue: r0 -> r1, packets waiting.", "",
             "| cc | pacing | PER | goodput (Mb/s) | ratio | retransmitted | timeouts "
             "| queue peak | queue mean | queue drops |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s, t = r["ns3"], r["tcplab"]
        lines.append(
            f"| {r['cc']} | {r['mode']} | {r['per']:g} | {s['goodput']:.3f} / "
            f"{t['goodput']:.3f} | {t['goodput'] / s['goodput']:.3f} | "
            f"{s['retransmitted']} / {t['retransmitted']} | {s['timeouts']} / {t['timeouts']} | "
            f"{s['queue_max']} / {t['queue_max']} | {s['queue_mean']:.1f} / "
            f"{t['queue_mean']:.1f} | {s['drops']} / {t['drops']} |")
    lines += ["", f"The first {a.segments} data segments sent for the first time, at the start "
              "of their transmission on the sender's access link; n from 1, times in s (ns-3 / "
              "tcplab); gaps to the segment before in ms.", "",
              "| cc | pacing | PER | within 1 us | largest diff (us) | first beyond 1 us "
              "| first gaps differing by > 1 us |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        c = r["packets"]
        if not c["segments"]:
            lines.append(f"| {r['cc']} | {r['mode']} | {r['per']:g} | no segments | | | |")
            continue
        f = c["first"]
        first = "none" if f is None else (
            f"n {f['n']} (seq {f['seq']}): {f['ns3_s']:.9f} / {f['tcplab_s']:.9f}")
        gaps = "; ".join(f"n {g['n']}: {g['ns3_ms']:.6f} / {g['tcplab_ms']:.6f}"
                         for g in c["gap_misses"]) or "none"
        if c["seq_mismatch_at"] is not None:
            gaps += f" (sequence numbers differ from n {c['seq_mismatch_at']})"
        lines.append(f"| {r['cc']} | {r['mode']} | {r['per']:g} | {c['within']} of "
                     f"{c['segments']} | {c['largest_us']:.1f} | {first} | {gaps} |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--per", default="0,0.01", help="packet error rates, comma-separated")
    p.add_argument("--cc", default="newreno,cubic", help="tcplab's names, comma-separated")
    p.add_argument("--modes", default=",".join(MODES), help="pacing modes, comma-separated")
    p.add_argument("--iw-cc", default="newreno", help="variants that run ns3+iw")
    p.add_argument("--segments", type=int, default=200)
    p.add_argument("--run", type=int, default=1, help="ns-3's run and tcplab's seed")
    p.add_argument("--no-timestamps", action="store_true")
    p.add_argument("--out", help="folder for the traces (default: a temporary one)")
    a = p.parse_args()
    out = Path(a.out or tempfile.mkdtemp(prefix="ns3_pacing_"))
    out.mkdir(parents=True, exist_ok=True)
    modes = a.modes.split(",")
    cases = [Case(cc, mode, float(per)) for cc in a.cc.split(",") for mode in modes
             if mode != "ns3+iw" or cc in a.iw_cc.split(",") for per in a.per.split(",")]
    rows = []
    for i, case in enumerate(cases, 1):
        print(f"[{i}/{len(cases)}] {case.name}", file=sys.stderr, flush=True)
        # One ns-3 process at a time; tcplab's run after it, in this process.
        s = ns3_side(case, a.run, a.duration, not a.no_timestamps, a.segments, out)
        t = tcplab_side(case, a.run, a.duration, not a.no_timestamps, a.segments, out)
        rows.append({"cc": case.cc, "mode": case.mode, "per": case.per, "ns3": s, "tcplab": t,
                     "packets": compare(s["sends"], t["sends"])})
    (out / "results.json").write_text(json.dumps(rows))
    print(markdown(rows, a))
    print(f"\nns-3's traces and tcplab's pcaps: {out}")


if __name__ == "__main__":
    main()
