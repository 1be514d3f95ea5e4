"""tcplab's pacing against this machine's kernel: CUBIC unpaced and paced, and BBR.

Linux paces a socket internally (without the `fq` qdisc, which this
kernel lacks) once `SO_MAX_PACING_RATE` is set to anything but ~0U
(`sk_pacing_status = SK_PACING_NEEDED`) or its congestion control asks for
it (BBR). So the cases, on bench/linux_kernel.py's emulated Westwood path
(10 Mb/s, 45 ms, then a 2 Mb/s bottleneck; MTU 400; 100-packet drop-tail
queues; uniform loss at PER on the bottleneck):

- `cubic`: unpaced;
- `cubic-paced`: `SO_MAX_PACING_RATE` at 1 GB/s, far above the path
  (tcplab: `max_pacing_rate = "8Gbps"`, which the linux profile paces in
  its `"linux"` form);
- `cubic-1mbps`: `SO_MAX_PACING_RATE` at 125,000 B/s, half the bottleneck
  (tcplab: `max_pacing_rate = "1Mbps"`);
- `bbr`: paced by BBR itself.

Each row gives goodput (what the receiving application read) and the peak
of the bottleneck's queue (packets waiting, as the emulator counts them and
tcplab's `queue_max_packets`), kernel against tcplab's linux profile with
the same settings. Issue 55's targets: goodput within 10%, the peak within
20%. Needs root, `ip` and /dev/net/tun (as bench/linux_kernel.py); real
time: each kernel run takes `--duration` seconds.

    python bench/linux_pacing.py                       # every case, PER 0 and 0.01 (~20 min)
    python bench/linux_pacing.py --cases cubic-paced --per 0 --duration 30
    python bench/linux_pacing.py --from-json docs/data/linux_pacing.json --docs
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import linux_kernel as lk  # noqa: E402  (bench/, beside this file)

ROOT = lk.ROOT
BEGIN = "<!-- linux_pacing: begin (python bench/linux_pacing.py --docs) -->"
END = "<!-- linux_pacing: end -->"
#: case: (congestion control, SO_MAX_PACING_RATE in bytes/s or None, tcplab's max_pacing_rate)
CASES = {
    "cubic": ("cubic", None, None),
    "cubic-paced": ("cubic", 1_000_000_000, "8Gbps"),
    "cubic-1mbps": ("cubic", 125_000, "1Mbps"),
    "bbr": ("bbr", None, None),
}



class Bottleneck(lk.Direction):
    """The data direction, counting the bottleneck's waiting packets at their peak."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.peak = 0
        self.waiting_sum = 0
        self.arrivals = 0

    def due(self, now: float, size: int) -> float | None:
        at = super().due(now, size)
        # Packets waiting at the bottleneck (link 1): those not yet started,
        # as the arriving packet found them once its own place is taken.
        starts = self.starts[1]
        waiting = sum(1 for s in starts if s > now)
        self.peak = max(self.peak, waiting)
        self.waiting_sum += waiting
        self.arrivals += 1
        return at


def kernel_run(case: str, per: float, seed: int, duration: float) -> dict:
    """One kernel run of `case` across the emulated path."""
    cc, cap, _ = CASES[case]
    lk.netns_setup()
    try:
        fds = (lk.open_tun(lk.NS[0]), lk.open_tun(lk.NS[1]))
        for ns, me, peer in ((lk.NS[0], lk.ADDR[0], lk.ADDR[1]),
                             (lk.NS[1], lk.ADDR[1], lk.ADDR[0])):
            lk.sh("ip", "-n", ns, "addr", "add", f"{me}/32", "dev", "tlk0")
            lk.sh("ip", "-n", ns, "link", "set", "tlk0", "mtu", str(lk.MTU), "up")
            lk.sh("ip", "-n", ns, "route", "add", f"{peer}/32", "dev", "tlk0")
        rcv = subprocess.Popen(["ip", "netns", "exec", lk.NS[1], sys.executable, "-c",
                                lk.RECEIVER, str(duration), lk.ADDR[1], str(lk.PORT)],
                               stdout=subprocess.PIPE, text=True)
        assert rcv.stdout is not None
        rcv.stdout.readline()  # ready
        before = lk.counters(lk.NS[0])
        snd = subprocess.Popen(["ip", "netns", "exec", lk.NS[0], sys.executable, "-c", lk.SENDER,
                                str(duration), cc, lk.ADDR[1], str(lk.PORT), str(cap or 0)],
                               stdout=subprocess.PIPE, text=True)
        rng = random.Random(seed)
        fwd = Bottleneck(lk.LINKS, per, rng)
        lk.emulate(fds, per, seed, time.monotonic() + duration + 0.5, fwd,
                   lk.Direction(lk.LINKS[::-1], 0.0, rng))
        received = int(rcv.stdout.readline() or 0)
        after = lk.counters(lk.NS[0])
        rcv.wait(5)
        snd.wait(5)
        for fd in fds:
            os.close(fd)
    finally:
        lk.netns_teardown()
    return {"goodput": received * 8 / duration / 1e6,
            "retransmitted": after["RetransSegs"] - before["RetransSegs"],
            "queue_peak": fwd.peak}


def tcplab_run(case: str, per: float, seed: int, duration: float) -> dict:
    """The same path in tcplab, the linux profile's defaults for the case."""
    from tcplab.validation.paths import westwood_path

    cc, _, cap = CASES[case]
    tcp = {"cc": cc, "profile": "linux"}
    if cap:
        tcp["max_pacing_rate"] = cap
    res = westwood_path(per, **tcp).run(duration=f"{duration}s", seed=seed)
    f = res.flows.iloc[0]
    links = res.links
    bottleneck = links[(links.rate_bps == 2e6) & (links.tx_bytes > 100_000)].iloc[0]
    return {"goodput": float(f["goodput_bps"]) / 1e6,
            "retransmitted": int(f["retransmitted_segments"]),
            "queue_peak": int(bottleneck["queue_max_packets"]),
            "pacing": res.scenario["flows"][0]["pacing"]}


def markdown(run: dict) -> str:
    lines = [f"`python bench/linux_pacing.py` ({run['date']}, Linux {run['kernel']}): the "
             f"Westwood path, {run['duration']:g} s per run; means over the kernel's runs and "
             "tcplab's seeds. Goodput in Mb/s; the bottleneck queue's peak in packets "
             "waiting.", "",
             "| case | tcplab pacing | PER | runs kernel / tcplab | goodput tcplab / kernel | "
             "ratio | queue peak tcplab / kernel | ratio | retransmitted tcplab / kernel |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in run["rows"]:
        pacing = r["tcplab_pacing"] if r["tcplab_pacing"] else "off"
        runs = f"{r['kernel_runs']} / {r.get('seeds', run['seeds'])}"
        lines.append(
            f"| {r['case']} | {pacing} | {r['per']:g} | {runs} | {r['tcplab_goodput']:.3f} / "
            f"{r['kernel_goodput']:.3f} | {r['tcplab_goodput'] / r['kernel_goodput']:.3f} | "
            f"{r['tcplab_queue_peak']:.0f} / {r['kernel_queue_peak']:.0f} | "
            f"{r['tcplab_queue_peak'] / max(r['kernel_queue_peak'], 1):.2f} | "
            f"{r['tcplab_retransmitted']:.0f} / {r['kernel_retransmitted']:.0f} |")
    return "\n".join(lines) + "\n"


def tcplab_side(row: dict, seeds: int, duration: float) -> None:
    ours = [tcplab_run(row["case"], row["per"], s, duration) for s in range(1, seeds + 1)]
    for key in ("goodput", "retransmitted", "queue_peak"):
        row[f"tcplab_{key}"] = statistics.fmean(o[key] for o in ours)
    row["tcplab_pacing"] = ours[0]["pacing"]
    row["seeds"] = seeds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--per", default="0,0.01")
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--kernel-runs", type=int, default=2)
    p.add_argument("--json", default=str(ROOT / "docs" / "data" / "linux_pacing.json"))
    p.add_argument("--docs", action="store_true")
    p.add_argument("--from-json")
    p.add_argument("--rerun-tcplab", action="store_true")
    a = p.parse_args()
    if a.from_json:
        run = json.loads(Path(a.from_json).read_text())
        if a.rerun_tcplab:
            for row in run["rows"]:
                tcplab_side(row, run["seeds"], run["duration"])
            lk.save(run, Path(a.json))
        lk.report(run, a.docs, markdown, (BEGIN, END))
        return
    cases = a.cases.split(",")
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        sys.exit(f"--cases: unknown case {unknown[0]!r} (allowed: {', '.join(CASES)})")
    run = lk.sweep("case", cases, a, kernel_run, tcplab_side)
    lk.save(run, Path(a.json))
    lk.report(run, a.docs, markdown, (BEGIN, END))


if __name__ == "__main__":
    main()
