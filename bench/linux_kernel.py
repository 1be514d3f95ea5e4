"""tcplab's linux profile against this machine's own Linux kernel, on the Westwood path.

The referee for the full linux profile (PRR, RACK-TLP, HyStart for CUBIC,
Linux's RTO), which TCP-Linux in ns-2 (2.6.22's modules on ns-2's
recovery) cannot be. Two network namespaces, a sender and a receiver, each
with a TUN device of MTU 400; a user-space emulator (this script) holds
both devices and carries every IP packet across the Westwood path:

    source -(10 Mb/s, 45 ms, 100 packets)- router -(2 Mb/s, 0.01 ms, 100
    packets)- sink, uniform loss at PER on the bottleneck's reception
    (data direction only), the same links back for the ACKs.

Each link is a FIFO server at its rate with a drop-tail queue of 100
waiting packets, then its delay. Because a direction's packets cross its
links in order, a packet's whole path is worked out when it enters the
emulator, and it is written to the other device when it is due (the
emulator's own delay is about a tenth of a millisecond). The kernel's TCP
runs with its defaults in the namespaces (SACK, timestamps, window
scaling, PRR, RACK-TLP, TLP, HyStart for cubic, Linux's own delayed ACKs
and quick ACKs); the congestion control is set per socket
(`TCP_CONGESTION`). A bulk sender writes for `--duration` seconds of real
time; goodput is what the receiving application read in that time. The
sender namespace's own counters give retransmitted segments, timeouts
(`TcpExt: TCPTimeouts`) and tail loss probes (`TCPLossProbes`).

tcplab runs the same path with the linux profile's defaults for the same
variant (`cc`, nothing else set), with `--seeds` seeds of the same length.
Needs root, `ip` (iproute2) and /dev/net/tun; it removes its namespaces
when it ends. Real time: each point takes `--duration` seconds.

    python bench/linux_kernel.py                   # reno, cubic and bbr, PER 0-0.05 (~50 min)
    python bench/linux_kernel.py --cc cubic --per 0.01 --duration 120
    python bench/linux_kernel.py --docs                       # refresh docs/validation.md
    python bench/linux_kernel.py --from-json docs/data/linux_kernel.json --docs   # table only
    python bench/linux_kernel.py --from-json docs/data/linux_kernel.json --rerun-tcplab --docs
                                       # after a change to tcplab: its side again, no root
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import heapq
import json
import os
import random
import select
import statistics
import struct
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOCS = ROOT / "docs" / "validation.md"
BEGIN = "<!-- linux_kernel: begin (python bench/linux_kernel.py --docs) -->"
END = "<!-- linux_kernel: end -->"
NS = ("tlk-snd", "tlk-rcv")
ADDR = ("10.77.0.1", "10.77.0.2")
PORT = 5001
MTU = 400
#: (rate b/s, delay s, queue limit in waiting packets) of each link, in the
#: order a data packet crosses them; ACKs cross them in reverse.
LINKS = [(10e6, 0.045, 100), (2e6, 10e-6, 100)]
TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
CLONE_NEWNET = 0x40000000


def sh(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True)


def netns_setup() -> None:
    netns_teardown()
    for ns in NS:
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")


def netns_teardown() -> None:
    for ns in NS:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def open_tun(ns: str) -> int:
    """A TUN device `tlk0` created inside namespace `ns`; its fd."""
    libc = ctypes.CDLL(None, use_errno=True)
    here = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(there, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {ns}")
        fd = os.open("/dev/net/tun", os.O_RDWR)
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", b"tlk0", IFF_TUN | IFF_NO_PI))
    finally:
        libc.setns(here, CLONE_NEWNET)
        os.close(here)
        os.close(there)
    os.set_blocking(fd, False)
    return fd


class Direction:
    """One direction of the path: its links' queues and its loss."""

    def __init__(self, links: list[tuple[float, float, int]], per: float, rng: random.Random):
        self.links = links
        self.busy = [0.0] * len(links)
        self.starts: list[deque[float]] = [deque() for _ in links]
        self.per = per
        self.rng = rng
        self.drops_queue = 0
        self.drops_error = 0

    def due(self, now: float, size: int) -> float | None:
        """When a packet of `size` bytes entering now leaves the path, or None if lost."""
        t = now
        for i, (rate, delay, limit) in enumerate(self.links):
            starts = self.starts[i]
            while starts and starts[0] <= t:
                starts.popleft()
            if len(starts) >= limit:
                self.drops_queue += 1
                return None
            start = max(t, self.busy[i])
            starts.append(start)
            self.busy[i] = start + size * 8 / rate
            t = self.busy[i] + delay
        if self.per and self.rng.random() < self.per:
            self.drops_error += 1
            return None
        return t


def emulate(fds: tuple[int, int], per: float, seed: int, stop: float,
            fwd: Direction | None = None, rev: Direction | None = None) -> dict:
    """Carries packets between the two devices until `stop` (monotonic time),
    through `fwd` and `rev` if given (a Direction that also measures)."""
    rng = random.Random(seed)
    fwd = fwd or Direction(LINKS, per, rng)
    rev = rev or Direction(LINKS[::-1], 0.0, rng)
    heap: list[tuple[float, int, int, bytes]] = []
    n = 0
    while True:
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            _, _, out, pkt = heapq.heappop(heap)
            try:
                os.write(out, pkt)
            except BlockingIOError:
                pass
        if now >= stop:
            return {"drops_queue": fwd.drops_queue + rev.drops_queue,
                    "drops_error": fwd.drops_error}
        timeout = min(heap[0][0] - now if heap else 0.01, stop - now)
        ready, _, _ = select.select(list(fds), [], [], max(timeout, 0.0))
        for fd in ready:
            while True:
                try:
                    pkt = os.read(fd, 65536)
                except BlockingIOError:
                    break
                if len(pkt) < 20 or pkt[0] >> 4 != 4:
                    continue  # only IPv4 crosses
                direction, out = (fwd, fds[1]) if fd == fds[0] else (rev, fds[0])
                at = direction.due(time.monotonic(), len(pkt))
                if at is not None:
                    n += 1
                    heapq.heappush(heap, (at, n, out, pkt))


RECEIVER = """
import socket, sys, time
d = float(sys.argv[1])
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[2], int(sys.argv[3]))); s.listen(1)
print("ready", flush=True)
c, _ = s.accept(); t0 = time.monotonic(); n = 0
c.settimeout(0.05)
while time.monotonic() - t0 < d:
    try:
        b = c.recv(1 << 16)
    except socket.timeout:
        continue
    if not b:
        break
    n += len(b)
print(n, flush=True)
"""

SENDER = """
import socket, struct, sys, time
d, cc = float(sys.argv[1]), sys.argv[2]
cap = int(sys.argv[5]) if len(sys.argv) > 5 else 0
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
if cap:
    s.setsockopt(socket.SOL_SOCKET, 47, cap)  # SO_MAX_PACING_RATE (bench/linux_pacing.py)
s.connect((sys.argv[3], int(sys.argv[4])))
buf = b"x" * (1 << 16); t0 = time.monotonic()
s.settimeout(0.05)
while time.monotonic() - t0 < d + 1:
    try:
        s.send(buf)
    except (socket.timeout, BlockingIOError):
        pass
    except OSError:
        break
info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 160)
print(struct.unpack_from("I", info, 148)[0], struct.unpack_from("I", info, 68)[0], flush=True)
"""

COUNTERS = {"TcpExt": ["TCPTimeouts", "TCPLossProbes", "TCPSackRecovery", "TCPFastRetrans"],
            "Tcp": ["RetransSegs"]}


def counters(ns: str) -> dict[str, int]:
    """The sender namespace's TCP counters named in COUNTERS."""
    out = {}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        text = subprocess.run(["ip", "netns", "exec", ns, "cat", path], check=True,
                              capture_output=True, text=True).stdout.splitlines()
        for names, values in zip(text[::2], text[1::2], strict=True):
            group, *keys = names.split()
            vals = values.split()[1:]
            for k, v in zip(keys, vals, strict=True):
                if k in COUNTERS.get(group.rstrip(":"), []):
                    out[k] = int(v)
    return out


def kernel_run(cc: str, per: float, seed: int, duration: float) -> dict:
    """One run of the kernel's TCP across the emulated path."""
    netns_setup()
    try:
        fds = (open_tun(NS[0]), open_tun(NS[1]))
        for ns, me, peer in ((NS[0], ADDR[0], ADDR[1]), (NS[1], ADDR[1], ADDR[0])):
            sh("ip", "-n", ns, "addr", "add", f"{me}/32", "dev", "tlk0")
            sh("ip", "-n", ns, "link", "set", "tlk0", "mtu", str(MTU), "up")
            sh("ip", "-n", ns, "route", "add", f"{peer}/32", "dev", "tlk0")
        rcv = subprocess.Popen(["ip", "netns", "exec", NS[1], sys.executable, "-c", RECEIVER,
                                str(duration), ADDR[1], str(PORT)],
                               stdout=subprocess.PIPE, text=True)
        assert rcv.stdout is not None
        rcv.stdout.readline()  # ready
        before = counters(NS[0])
        snd = subprocess.Popen(["ip", "netns", "exec", NS[0], sys.executable, "-c", SENDER,
                                str(duration), cc, ADDR[1], str(PORT)],
                               stdout=subprocess.PIPE, text=True)
        drops = emulate(fds, per, seed, time.monotonic() + duration + 0.5)
        received = int(rcv.stdout.readline() or 0)
        after = counters(NS[0])
        # The sender's last second runs on without the emulator: its
        # TCP_INFO (min_rtt and srtt, us) is read as it ends.
        assert snd.stdout is not None
        rtt = [int(x) / 1e3 for x in (snd.stdout.readline() or "0 0").split()]
        rcv.wait(5)
        snd.wait(5)
        for fd in fds:
            os.close(fd)
    finally:
        netns_teardown()
    return {"goodput": received * 8 / duration / 1e6,
            "retransmitted": after["RetransSegs"] - before["RetransSegs"],
            "timeouts": after["TCPTimeouts"] - before["TCPTimeouts"],
            "probes": after["TCPLossProbes"] - before["TCPLossProbes"],
            "min_rtt_ms": rtt[0], "srtt_ms": rtt[1], **drops}


def tcplab_run(cc: str, per: float, seed: int, duration: float) -> dict:
    """The same path in tcplab, the linux profile's defaults for `cc`."""
    from tcplab.validation.paths import westwood_path

    res = westwood_path(per, cc=cc, profile="linux").run(duration=f"{duration}s", seed=seed)
    f = res.flows.iloc[0]
    return {"goodput": float(f["goodput_bps"]) / 1e6,
            "retransmitted": int(f["retransmitted_segments"]), "timeouts": int(f["timeouts"])}


def markdown(run: dict) -> str:
    """The table of a run (`run`: as the JSON file holds it)."""
    rows = run["rows"]
    when = run["date"]
    if run.get("tcplab_date", when) != when:
        when = f"the kernel's runs {when}, tcplab's {run['tcplab_date']}"
    lines = [f"`python bench/linux_kernel.py` ({when}, Linux {run['kernel']}): the "
             f"Westwood path, {run['duration']:g} s of real time per kernel run "
             f"({run['kernel_runs']} per lossy point, one without loss), tcplab's linux "
             f"profile with {run['seeds']} seeds of the same length. Means: goodput in "
             "Mb/s; retransmitted segments, timeouts and the kernel's tail loss probes per "
             "run.", "",
             "| cc | PER | goodput tcplab / kernel | ratio | retransmitted | timeouts | "
             "kernel's loss probes |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['cc']} | {r['per']:g} | {r['tcplab_goodput']:.3f} / "
                     f"{r['kernel_goodput']:.3f} | {r['ratio']:.3f} | "
                     f"{r['tcplab_retransmitted']:.0f} / {r['kernel_retransmitted']:.0f} | "
                     f"{r['tcplab_timeouts']:.1f} / {r['kernel_timeouts']:.1f} | "
                     f"{r['kernel_probes']:.1f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cc", default="reno,cubic,bbr")
    p.add_argument("--per", default="0,0.005,0.01,0.02,0.05")
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--seeds", type=int, default=3, help="tcplab runs per point")
    p.add_argument("--kernel-runs", type=int, default=3,
                   help="kernel runs per lossy point (each its own loss draws)")
    p.add_argument("--json", default=str(ROOT / "docs" / "data" / "linux_kernel.json"))
    p.add_argument("--docs", action="store_true", help="write the table into docs/validation.md")
    p.add_argument("--from-json", help="no runs: the table from a JSON file this script wrote")
    p.add_argument("--rerun-tcplab", action="store_true",
                   help="with --from-json: run tcplab's side of every row again and keep the "
                        "kernel's (after a change to tcplab; written to --json)")
    a = p.parse_args()
    if a.from_json:
        run = json.loads(Path(a.from_json).read_text())
        if a.rerun_tcplab:
            for row in run["rows"]:
                tcplab_side(row, run["seeds"], run["duration"])
                print(json.dumps(row), flush=True)
            run["tcplab_date"] = time.strftime("%Y-%m-%d")
            save(run, Path(a.json))
        report(run, a.docs)
        return
    run = sweep("cc", a.cc.split(","), a, kernel_run, tcplab_side)
    save(run, Path(a.json))
    report(run, a.docs)


def sweep(key: str, values: list[str], a: argparse.Namespace,
          kernel: Callable[[str, float, int, float], dict],
          ours: Callable[[dict, int, float], None]) -> dict:
    """Each of `values` (the rows' `key`) at each PER of `a.per`: the
    kernel's runs, then tcplab's side (`ours`); the run's record.

    Shared by bench/linux_pacing.py. Needs root and a TUN device.
    """
    if os.geteuid() != 0 or not Path("/dev/net/tun").exists():
        sys.exit("needs root and /dev/net/tun (network namespaces and a TUN device)")
    rows = []
    for value in values:
        for per in (float(x) for x in a.per.split(",")):
            # Without random loss one kernel run (nothing else draws).
            runs = [kernel(value, per, s, a.duration)
                    for s in range(1, (a.kernel_runs if per > 0 else 1) + 1)]
            row = {key: value, "per": per, "kernel_runs": len(runs),
                   **{f"kernel_{k}": statistics.fmean(r[k] for r in runs) for k in runs[0]}}
            ours(row, a.seeds, a.duration)
            rows.append(row)
            print(json.dumps(row), flush=True)
    return {"date": time.strftime("%Y-%m-%d"), "kernel": os.uname().release,
            "duration": a.duration, "seeds": a.seeds, "kernel_runs": a.kernel_runs, "rows": rows}


def save(run: dict, path: Path) -> None:
    """Writes `run` as the JSON file --from-json reads."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(run, indent=1) + "\n")


def tcplab_side(row: dict, seeds: int, duration: float) -> None:
    """Fills `row`'s tcplab columns and ratio: the means over `seeds` runs."""
    ours = [tcplab_run(row["cc"], row["per"], s, duration) for s in range(1, seeds + 1)]
    for key in ("goodput", "retransmitted", "timeouts"):
        row[f"tcplab_{key}"] = statistics.fmean(o[key] for o in ours)
    row["ratio"] = row["tcplab_goodput"] / row["kernel_goodput"]


def report(run: dict, docs: bool, table=None, markers: tuple[str, str] = (BEGIN, END)) -> None:
    """Prints the run's table (`table`, default this script's `markdown`) and with
    `docs` writes it into docs/validation.md between `markers`."""
    text = (table or markdown)(run)
    print(text)
    if docs:
        from doc_tables import write_between  # bench/, beside this file

        write_between(DOCS, *markers, text)


if __name__ == "__main__":
    main()
