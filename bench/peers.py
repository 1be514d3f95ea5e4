"""tcplab against ns-3 3.44 and ns-2.35: speed, memory and results, side by side.

One command runs the same scenarios in the three simulators, one after the
other on this machine, each run in a fresh process, and prints for each:
wall seconds of the simulation proper, the ratios ns-3 / tcplab and
ns-2 / tcplab, delivered data packets per wall second, events per second
and peak RSS, with each simulator's goodput next to the others' (so speed is
never bought with different behaviour).

Scenarios (configured alike on all sides; see docs/performance.md):
  dumbbell   N senders -(1 Gb/s, 1 ms)- R0 -(100 Mb/s, 10 ms)- R1 -(1 Gb/s, 1 ms)-
             N receivers, NewReno bulk flows, flow i starting at i/N s, 1448-B
             segments, 1 MiB buffers, initial window 10, delayed ACK 2, SACK
             and timestamps off, drop-tail 100-packet queues; N = 1, 10, 100,
             1000 (and 10,000 for tcplab alone), 30 simulated seconds
  westwood   source -(10 Mb/s, 45 ms)- router -(2 Mb/s, 0.01 ms)- sink, 400-B
             packets, delayed ACK 2, PER 0.005, 600 s; newreno, westwoodplus
             and vegas (ns-2 has no Westwood+)

What is timed:
  tcplab  the whole Scenario.run() call: checking the scenario, building the
          network, the run, and the results (best of --repeat)
  ns-3    Simulator::Run() only (topology building through Python excluded)
  ns-2    the whole `ns` process minus its start-up (an empty script), best
          of --repeat
Then, as whole processes (start-up, reading the scenario and printing
included), `tcplab run SCENARIO.json` against `ns SCRIPT.tcl` on the same
scenarios, in alternation, best of --repeat each: what a user waits for at
the shell.

Setup (once): ns-3 comes from the ns3==3.44.post0 wheel in its own
virtualenv (python bench/compare_ns3.py --setup), ns-2 from Debian's `ns2`
package (apt-get install ns2). Either may be skipped.

    python bench/peers.py                        # everything (about 6 minutes, most of it ns-3)
    python bench/peers.py --quick                # dumbbell N <= 100, 10 s; westwood 120 s
    python bench/peers.py --skip ns3 --flows 1,10,100,1000,10000
    python bench/peers.py --sack --skip westwood   # the dumbbell with SACK everywhere
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NS3_CC = {"newreno": "TcpNewReno", "westwoodplus": "TcpWestwoodPlus", "vegas": "TcpVegas"}
MSS = {"dumbbell": 1448, "westwood": 360}


# ---- the tcplab side ---------------------------------------------------------


def _timing(res) -> dict:  # noqa: ANN001
    """The run's wall time (``res.timing``; in ``res.summary`` before it moved)."""
    return getattr(res, "timing", None) or res.summary

def tcplab_scenario(kind: str, arg: str, duration: float, sack: bool = False):
    import tcplab as tl
    if kind == "dumbbell":
        sys.path.insert(0, str(HERE))
        from tcp import dumbbell
        net = dumbbell(int(arg), mss=1448, rcv_buf="1MiB", initial_cwnd=10, sack=sack,
                       recovery="sack" if sack else "newreno", timestamps=False, delayed_ack=2)
    else:
        net = tl.Network()
        a, r, b = net.host("source"), net.router("router"), net.host("sink")
        net.link(a, r, rate="10Mbps", delay="45ms", mtu=400, queue="100p")
        net.link(r, b, rate="2Mbps", delay="0.01ms", mtu=400, queue="100p",
                 loss=tl.Uniform(0.005))
        # ns-3 runs TcpClassicRecovery here (bench/ns3/common.py): NewReno's.
        net.tcp(a, b, cc=arg, profile="ns3", sack=False, timestamps=False, delayed_ack=2,
                recovery="newreno")
    return net.scenario(duration=duration, seed=1)


def tcplab_child(kind: str, arg: str, duration: float, repeat: int, sack: bool) -> None:
    sc = tcplab_scenario(kind, arg, duration, sack)
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = sc.run()
        wall = time.perf_counter() - t0
        if best is None or wall < best[0]:
            best = (wall, res)
    wall, res = best
    print(json.dumps({
        "wall_s": wall, "loop_s": _timing(res)["wall_seconds"], "events": res.summary["events"],
        # From the raw results: the tables would load pandas into the
        # measured process.
        "rx_bytes": [int(f["delivered_bytes"]) for f in res.raw["flows"]],
    }))


# ---- running one simulator ---------------------------------------------------

def run_measured(cmd: list[str], cwd: Path | None = None) -> tuple[dict, float, float]:
    """Runs `cmd`, returns (its last JSON line, wall seconds, peak RSS in MB)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         cwd=cwd)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {p.returncode})")
    return json.loads(lines[-1]), wall, usage.ru_maxrss / 1024


def run_tcplab(kind: str, arg: str, duration: float, repeat: int, sack: bool) -> dict:
    d, _, rss = run_measured([sys.executable, __file__, "--child", kind, arg, str(duration),
                              str(repeat), str(int(sack))])
    return {**d, "rss_mb": rss}


def run_ns3(python: str, kind: str, arg: str, duration: float, sack: bool) -> dict:
    if kind == "dumbbell":
        cmd = [python, str(HERE / "ns3" / "dumbbell.py"), "--flows", arg, "--duration",
               str(duration)] + (["--sack"] if sack else [])
    else:
        cmd = [python, str(HERE / "ns3" / "westwood_path.py"), "--cc", NS3_CC[arg],
               "--duration", str(duration), "--per", "0.005"]
    d, _, rss = run_measured(cmd)
    rx = d["rx_bytes"] if isinstance(d["rx_bytes"], list) else [d["rx_bytes"]]
    return {"wall_s": d["wall_s"], "events": d["events"], "rx_bytes": rx, "rss_mb": rss}


def whole_processes(ns: str | None, kind: str, arg: str, duration: float, repeat: int,
                    sack: bool) -> dict[str, float]:
    """Best wall seconds of `tcplab run` and of `ns` as whole processes, run in alternation."""
    tcplab = shutil.which("tcplab", path=str(Path(sys.executable).parent)) or "tcplab"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{kind}-{arg}.json"
        path.write_text(tcplab_scenario(kind, arg, duration, sack).to_json())
        cmds = {"tcplab": ([tcplab, "run", str(path)], None)}
        if ns and not (kind == "westwood" and arg == "westwoodplus"):
            script = (["dumbbell.tcl", arg, str(duration)] + (["sack"] if sack else [])
                      if kind == "dumbbell" else
                      ["westwood_path.tcl", arg, str(duration), "0.005", "1"])
            cmds["ns-2"] = ([ns, *script], HERE / "ns2")
        best = dict.fromkeys(cmds, float("inf"))
        for _ in range(repeat):
            for name, (cmd, cwd) in cmds.items():
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                best[name] = min(best[name], time.perf_counter() - t0)
    return best


def ns2_startup(ns: str, repeat: int) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".tcl", delete=False) as f:
        f.write("exit 0\n")
    try:
        return min(run_measured_plain([ns, f.name]) for _ in range(max(repeat, 3)))
    finally:
        os.unlink(f.name)


def run_measured_plain(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def run_ns2(ns: str, kind: str, arg: str, duration: float, startup: float,
            repeat: int, sack: bool) -> dict | None:
    if kind == "westwood" and arg == "westwoodplus":
        return None  # not in ns-2 releases
    if kind == "dumbbell":
        cmd = [ns, "dumbbell.tcl", arg, str(duration)] + (["sack"] if sack else [])
    else:
        cmd = [ns, "westwood_path.tcl", arg, str(duration), "0.005", "1"]
    best = None
    for _ in range(repeat):
        d, wall, rss = run_measured(cmd, cwd=HERE / "ns2")
        if best is None or wall < best[1]:
            best = (d, wall, rss)
        if wall > 5:
            break  # long runs vary little; one is enough
    d, wall, rss = best
    return {"wall_s": max(wall - startup, 1e-6), "events": None, "rx_bytes": d["rx_bytes"],
            "rss_mb": rss}


# ---- the table ---------------------------------------------------------------

def goodput_cell(r: dict | None, duration: float) -> str:
    if r is None:
        return "-"
    rx = r["rx_bytes"]
    total = sum(rx) * 8 / duration / 1e6
    if len(rx) == 1:
        return f"{total:.3f}"
    per = [x * 8 / duration / 1e6 for x in rx]
    return f"{total:.2f} ({min(per):.3f}/{statistics.median(per):.3f}/{max(per):.3f})"


def row(kind: str, arg: str, duration: float, res: dict[str, dict | None]) -> None:
    t = res["tcplab"]
    cells = []
    for sim in ("tcplab", "ns-3", "ns-2"):
        r = res.get(sim)
        if r is None:
            cells.append(f"{'-':>9}{'-':>10}{'-':>9}{'-':>8}")
            continue
        pkts = sum(r["rx_bytes"]) / MSS[kind] / r["wall_s"]
        ev = f"{r['events'] / r['wall_s'] / 1e6:.2f}M" if r.get("events") else "-"
        cells.append(f"{r['wall_s']:>9.3f}{pkts / 1e6:>9.2f}M{ev:>9}{r['rss_mb']:>8.0f}")
    ratio = []
    for sim in ("ns-3", "ns-2"):
        r = res.get(sim)
        ratio.append(f"{r['wall_s'] / t['wall_s']:>8.1f}x" if r else f"{'-':>9}")
    label = f"{kind} {arg}"
    print(f"{label:<22}" + "".join(cells) + "".join(ratio))
    print(f"{'':<22}goodput Mb/s, total (per-flow min/median/max): tcplab "
          f"{goodput_cell(t, duration)} | ns-3 {goodput_cell(res.get('ns-3'), duration)} | "
          f"ns-2 {goodput_cell(res.get('ns-2'), duration)}")
    sys.stdout.flush()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--flows", default="1,10,100,1000",
                   help="dumbbell sizes compared with the peers (default 1,10,100,1000)")
    p.add_argument("--tcplab-only", default="10000",
                   help="dumbbell sizes run by tcplab alone (default 10000)")
    p.add_argument("--duration", type=float, default=30.0, help="dumbbell simulated seconds")
    p.add_argument("--westwood-duration", type=float, default=600.0)
    p.add_argument("--variants", default="newreno,westwoodplus,vegas")
    p.add_argument("--skip", default="", help="comma list: ns3, ns2, dumbbell, westwood")
    p.add_argument("--repeat", type=int, default=3, help="best of this many runs (tcplab, ns-2)")
    p.add_argument("--quick", action="store_true",
                   help="dumbbell N <= 100 for 10 s, westwood for 120 s")
    p.add_argument("--ns3-python", default=os.environ.get("TCPLAB_NS3_PYTHON",
                                                         str(HERE.parent / ".venv-ns3/bin/python")))
    p.add_argument("--ns2", default=shutil.which("ns") or "ns")
    p.add_argument("--sack", action="store_true",
                   help="dumbbell with SACK on everywhere (tcplab sack recovery, ns-3 Sack, "
                        "ns-2 Sack1)")
    p.add_argument("--json", help="also write every measurement to this file")
    p.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        tcplab_child(a.child[0], a.child[1], float(a.child[2]), int(a.child[3]),
                     a.child[4] == "1")
        return
    if a.quick:
        a.flows, a.tcplab_only, a.duration, a.westwood_duration = "1,10,100", "", 10.0, 120.0
    skip = set(filter(None, a.skip.split(",")))
    have_ns3 = "ns3" not in skip and Path(a.ns3_python).exists()
    have_ns2 = "ns2" not in skip and shutil.which(a.ns2) is not None
    if "ns3" not in skip and not have_ns3:
        print(f"ns-3: no python at {a.ns3_python} (python bench/compare_ns3.py --setup); skipped")
    if "ns2" not in skip and not have_ns2:
        print("ns-2: no `ns` on PATH (apt-get install ns2); skipped")
    startup = ns2_startup(a.ns2, a.repeat) if have_ns2 else 0.0
    if have_ns2:
        print(f"ns-2 start-up (subtracted): {startup * 1000:.0f} ms")

    cols = "".join(f"{s + ' wall s':>9}{'pkts/s':>10}{'events/s':>9}{'RSS MB':>8}"
                   for s in ("", "", ""))
    print(f"\n{'':<22}{'--- tcplab ---':^36}{'--- ns-3 ---':^36}{'--- ns-2 ---':^36}")
    print(f"{'scenario':<22}{cols}{'ns-3/tl':>9}{'ns-2/tl':>9}")
    record = []
    jobs = []
    if "dumbbell" not in skip:
        peers = [int(x) for x in a.flows.split(",") if x]
        alone = [int(x) for x in a.tcplab_only.split(",") if x]
        jobs += [("dumbbell", str(n), a.duration, n in peers) for n in peers + alone]
    if "westwood" not in skip:
        jobs += [("westwood", cc, a.westwood_duration, True) for cc in a.variants.split(",")]
    for kind, arg, duration, compare in jobs:
        sack = a.sack and kind == "dumbbell"
        res: dict[str, dict | None] = {"tcplab": run_tcplab(kind, arg, duration, a.repeat, sack)}
        if compare and have_ns3:
            res["ns-3"] = run_ns3(a.ns3_python, kind, arg, duration, sack)
        if compare and have_ns2:
            res["ns-2"] = run_ns2(a.ns2, kind, arg, duration, startup, a.repeat, sack)
        row(kind, arg, duration, res)
        record.append({"scenario": kind, "arg": arg, "duration": duration, **res})
    print(f"\nwhole processes (start-up included), best of {a.repeat} in alternation:")
    print(f"{'scenario':<22}{'tcplab run s':>13}{'ns s':>9}{'ns/tcplab':>10}")
    for kind, arg, duration, compare in jobs:
        sack = a.sack and kind == "dumbbell"
        w = whole_processes(a.ns2 if compare and have_ns2 else None, kind, arg, duration,
                            a.repeat, sack)
        ns_s = w.get("ns-2")
        ratio = f"{ns_s / w['tcplab']:>9.1f}x" if ns_s else f"{'-':>10}"
        print(f"{kind + ' ' + arg:<22}{w['tcplab']:>13.3f}"
              f"{ns_s if ns_s else float('nan'):>9.3f}{ratio}")
        sys.stdout.flush()
        record.append({"scenario": kind, "arg": arg, "duration": duration, "whole": w})
    if a.json:
        Path(a.json).write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
