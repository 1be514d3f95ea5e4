"""One flow on the ns-3 section's dumbbell, traced in ns-3 3.44 and in tcplab side by side.

How the ns3 profile's timeout threshold and TcpLp's cut on duplicate ACKs
were found (docs/validation.md): both simulators run one bulk flow of the
same variant on the 100-ms dumbbell of `tcplab validate`'s ns-3 section
(10 Mb/s, 48 ms, 100-packet drop-tail, 1448-B segments, 4 MiB buffers),
and the summary compares what each sender went through: goodput, time in
each congestion state and entries into it, timeouts and fast recoveries,
and ssthresh after each timeout. ns-3's side is bench/ns3/trace_dumbbell.py
in the ns-3 virtualenv (bench/compare_ns3.py --setup); its full trace, one
event a line, is kept in --out for a closer look.

    python bench/ns3_trace.py --cc yeah --per 0.01 --run 1 [--duration 120] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
NS3_STATES = {0: "Open", 1: "Disorder", 2: "CWR", 3: "Recovery", 4: "Loss"}
TCPLAB_STATES = {0: "Open", 1: "Disorder", 2: "Recovery", 3: "Loss", 4: "CWR"}


def state_times(changes: list[tuple[float, str]], end: float) -> tuple[dict, Counter]:
    """Seconds spent in each state and entries into it, from (time, state) changes."""
    spent: dict[str, float] = {}
    entries: Counter = Counter()
    for (t, s), (t2, _) in zip(changes, changes[1:] + [(end, "")], strict=True):
        spent[s] = spent.get(s, 0.0) + max(0.0, min(t2, end) - t)
        entries[s] += 1
    return spent, entries


def summarize_ns3(text: str, end: float) -> dict:
    """The summary of a bench/ns3/trace_dumbbell.py trace.

    A timeout is an `rto` line whose timeout is above the one before: on
    this path every RTT sample leaves the timeout at ns-3's 1-s minimum,
    so the trace source fires only when a timeout doubles it and when the
    next sample brings it back. ssthresh after it is the next `ssthresh`
    line at the same instant, if ssthresh changed.
    """
    changes = [(0.0, "Open")]
    timeouts, timed_out_at, last_rto, ssthresh_at = 0, [], None, {}
    for line in text.splitlines():
        f = line.split()
        t, kind = int(f[0]) / 1e9, f[1]
        if kind == "state":
            changes.append((t, NS3_STATES[int(f[2])]))
        elif kind == "ssthresh":
            ssthresh_at[f[0]] = int(f[2])
        elif kind == "rto":
            rto = int(f[2])
            if last_rto is not None and rto > last_rto:
                timeouts += 1
                timed_out_at.append(f[0])
            last_rto = rto
    spent, entries = state_times(changes, end)
    return {"timeouts": timeouts, "fast recoveries": entries["Recovery"],
            "seconds in state": spent, "entries": dict(entries),
            "ssthresh after timeouts (B)": [ssthresh_at.get(k) for k in timed_out_at]}


def ns3_side(cc: str, per: float, run: int, duration: float, out: Path) -> dict:
    """Runs ns-3's side; its summary and goodput."""
    from tcplab.validation.ns3 import PAIRS

    python = os.environ.get("TCPLAB_NS3_PYTHON") or str(HERE.parent / ".venv-ns3/bin/python")
    if not Path(python).exists():
        sys.exit(f"no ns-3 python at {python}: run python bench/compare_ns3.py --setup")
    trace = out / f"ns3_{cc}_per{per:g}_run{run}.txt"
    res = subprocess.run([python, "-I", str(HERE / "ns3" / "trace_dumbbell.py"), "--cc",
                          PAIRS[cc], "--per", str(per), "--run", str(run), "--duration",
                          str(duration), "--out", str(trace)],
                         capture_output=True, text=True, check=False)
    line = next((x for x in res.stdout.splitlines() if x.startswith("{")), None)
    if line is None:
        sys.exit(f"ns-3 failed: {res.stderr.strip()[-400:]}")
    summary = summarize_ns3(trace.read_text(), duration)
    return {"goodput (Mb/s)": json.loads(line)["goodput_bps"] / 1e6, **summary}


def tcplab_side(cc: str, per: float, seed: int, duration: float) -> dict:
    """Runs tcplab's ns3 profile on the same dumbbell; the same summary."""
    from tcplab.validation.paths import dumbbell

    net = dumbbell(1, per=per, cc=cc, profile="ns3", rcv_buf="4MiB")
    res = net.run(duration=f"{duration}s", seed=seed, trace=["state", "events"])
    t, v = res.trace("state", flow=0)
    changes = [(float(a), TCPLAB_STATES[int(b)]) for a, b in zip(t, v, strict=True)]
    spent, entries = state_times(changes or [(0.0, "Open")], duration)
    ev = res.events
    f = res.flows.iloc[0]
    return {"goodput (Mb/s)": float(f["goodput_bps"]) / 1e6, "timeouts": int(f["timeouts"]),
            "fast recoveries": int(f["fast_retransmits"]), "seconds in state": spent,
            "entries": dict(entries),
            "ssthresh after timeouts (B)": [int(x) if x != float("inf") else None
                                            for x in ev[ev["event"] == "timeout"]["ssthresh"]]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cc", default="newreno", help="tcplab's name of a variant ns-3 has")
    p.add_argument("--per", type=float, default=0.01)
    p.add_argument("--run", type=int, default=1, help="ns-3's run and tcplab's seed")
    p.add_argument("--duration", type=float, default=120.0)
    p.add_argument("--out", help="folder for ns-3's trace (default: a temporary one)")
    a = p.parse_args()
    out = Path(a.out or tempfile.mkdtemp(prefix="ns3_trace_"))
    out.mkdir(parents=True, exist_ok=True)
    sides = {"ns-3": ns3_side(a.cc, a.per, a.run, a.duration, out),
             "tcplab": tcplab_side(a.cc, a.per, a.run, a.duration)}
    for key in sides["ns-3"]:
        print(f"{key}:")
        for name, s in sides.items():
            v = s[key]
            if isinstance(v, dict):
                v = ", ".join(f"{k} {x:.1f}" if isinstance(x, float) else f"{k} {x}"
                              for k, x in v.items())
            elif isinstance(v, float):
                v = f"{v:.3f}"
            elif isinstance(v, list):
                v = ", ".join("?" if x is None else f"{x / 1448:.1f} seg" for x in v[:12]) + (
                    f" ... ({len(v)})" if len(v) > 12 else "")
            print(f"  {name:7s} {v}")
    print(f"ns-3's trace: {out}")


if __name__ == "__main__":
    main()
