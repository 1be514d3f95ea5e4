"""tcplab against ns-3 3.44 on the Westwood papers' path.

source -(10 Mb/s, 45 ms)- router -(2 Mb/s, 0.01 ms)- sink, 400-B IP packets,
delayed ACK 2, uniform PER 0.005 on the bottleneck, one bulk flow, 600 s,
mean of 5 seeds; tcplab's newreno, westwoodplus and vegas against ns-3's
TcpNewReno, TcpWestwoodPlus and TcpVegas. Both sides are configured alike
(see bench/ns3/westwood_path.py and docs/validation.md): tcplab runs with
profile="ns3" (initial window 10, 128 KiB buffers, Vegas alpha/beta 2/4,
Westwood+ with ns-3's Tustin filter) and SACK and timestamps off, as ns-3 is
set up here.

ns-3 is not a tcplab dependency. Set it up once in its own virtualenv (pip
builds cppyy from source; it takes several minutes):

    python bench/compare_ns3.py --setup             # creates .venv-ns3 with ns3==3.44.post0
    python bench/compare_ns3.py                     # runs the comparison (a few minutes)
    python bench/compare_ns3.py --duration 60 --seeds 2   # a quick look
    python bench/compare_ns3.py --recovery prr [--sack]   # PRR: tcplab's recovery="prr"
                                                          # against ns-3's TcpPrrRecovery
    python bench/compare_ns3.py --only vegas              # one variant
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import tcplab as tl

HERE = Path(__file__).resolve().parent
PAIRS = [("newreno", "TcpNewReno"), ("westwoodplus", "TcpWestwoodPlus"), ("vegas", "TcpVegas")]


def tcplab_goodput(cc: str, seed: int, duration: float, per: float, delack: int = 2,
                   recovery: str = "classic", sack: bool = False) -> float:
    net = tl.Network()
    a, r, b = net.host("source"), net.router("router"), net.host("sink")
    net.link(a, r, rate="10Mbps", delay="45ms", mtu=400, queue="100p")
    net.link(r, b, rate="2Mbps", delay="0.01ms", mtu=400, queue="100p", loss=tl.Uniform(per))
    if recovery == "prr":
        net.tcp(a, b, cc=cc, profile="ns3", sack=sack, timestamps=False, delayed_ack=delack,
                recovery="prr")
    else:
        # ns-3's TcpClassicRecovery: NewReno's (or with SACK, RFC 6675's)
        # recovery, leaving at ssthresh (the ns3 profile's recovery_exit).
        net.tcp(a, b, cc=cc, profile="ns3", sack=sack, timestamps=False, delayed_ack=delack,
                recovery="sack" if sack else "newreno")
    return float(net.run(duration=duration, seed=seed).flow("tcp0")["goodput_bps"])


def ns3_goodput(python: str, cc: str, run: int, duration: float, per: float,
                delack: int = 2, recovery: str = "classic", sack: bool = False) -> float:
    out = subprocess.run(
        [python, str(HERE / "ns3" / "westwood_path.py"), "--cc", cc, "--run", str(run),
         "--duration", str(duration), "--per", str(per), "--delack", str(delack),
         "--recovery", recovery] + (["--sack"] if sack else []),
        capture_output=True, text=True, check=True)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1]
    return float(json.loads(line)["goodput_bps"])


def setup(venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = venv / "bin" / "pip"
    subprocess.run([str(pip), "install", "--upgrade", "pip"], check=True)
    subprocess.run([str(pip), "install", "ns3==3.44.post0"], check=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--setup", action="store_true", help="create the ns-3 virtualenv and exit")
    p.add_argument("--venv", default=str(HERE.parent / ".venv-ns3"))
    p.add_argument("--ns3-python", default=os.environ.get("TCPLAB_NS3_PYTHON"))
    p.add_argument("--duration", type=float, default=600.0)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--per", type=float, default=0.005)
    p.add_argument("--delack", type=int, default=2, help="ACK every N segments (1: no delay)")
    p.add_argument("--recovery", choices=["classic", "prr"], default="classic",
                   help="ns-3's TcpClassicRecovery against tcplab's newreno (sack with --sack), "
                        "or TcpPrrRecovery against recovery=\"prr\"")
    p.add_argument("--sack", action="store_true", help="SACK on, both sides (default off)")
    p.add_argument("--only", help="comma-separated tcplab variants (default: all three)")
    a = p.parse_args()
    if a.setup:
        setup(Path(a.venv))
        return
    python = a.ns3_python or str(Path(a.venv) / "bin" / "python")
    if not Path(python).exists():
        sys.exit(f"no ns-3 python at {python}: run with --setup first, or pass --ns3-python")

    print(f"Westwood path, PER {a.per}, delayed ACK {a.delack}, {a.duration:g} s, "
          f"seeds 1..{a.seeds}, recovery {a.recovery}, SACK {'on' if a.sack else 'off'}; "
          "goodput in kb/s")
    print("| tcplab | ns-3 | tcplab mean | ns-3 mean | tcplab / ns-3 | within 10% |")
    print("|---|---|---|---|---|---|")
    ok = True
    wanted = set(a.only.split(",")) if a.only else {ours for ours, _ in PAIRS}
    if wanted - {ours for ours, _ in PAIRS}:
        p.error(f"--only: one of {', '.join(ours for ours, _ in PAIRS)}")
    for ours, theirs in [pair for pair in PAIRS if pair[0] in wanted]:
        seeds = range(1, a.seeds + 1)
        g1 = [tcplab_goodput(ours, s, a.duration, a.per, a.delack, a.recovery, a.sack)
              for s in seeds]
        g2 = [ns3_goodput(python, theirs, s, a.duration, a.per, a.delack, a.recovery, a.sack)
              for s in seeds]
        m1, m2 = statistics.mean(g1), statistics.mean(g2)
        within = abs(m1 / m2 - 1) <= 0.10
        ok &= within
        sd1 = statistics.stdev(g1) if len(g1) > 1 else 0.0
        sd2 = statistics.stdev(g2) if len(g2) > 1 else 0.0
        verdict = "yes" if within else "NO"
        print(f"| {ours} | {theirs} | {m1 / 1e3:.1f} (sd {sd1 / 1e3:.1f}) | "
              f"{m2 / 1e3:.1f} (sd {sd2 / 1e3:.1f}) | {m1 / m2:.3f} | {verdict} |")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
