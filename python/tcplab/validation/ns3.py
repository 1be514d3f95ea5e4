"""The ns-3 reference: LEDBAT and the variants ns-3 3.44 ships.

They run on the 100-ms dumbbell, against tcplab's ns3 profile; LEDBAT has
no other reference here.

ns-3 runs in its own virtualenv (the ``ns3`` wheel); the script it runs is
ns3_dumbbell.py beside this file. Goodput only: ns-3's window and state
are not traced here. 1 and 4 flows without loss, where the link's rate
dominates (one run: both sides are deterministic), and 1 flow with 1%
loss, where the window's dynamics do (several seeds).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tcplab.validation.model import Figure, Row, Section
from tcplab.validation.paths import dumbbell
from tcplab.validation.running import guarded, reference_results, timed

SCRIPT = Path(__file__).with_name("ns3_dumbbell.py")
#: tcplab's name -> ns-3's TypeId.
PAIRS = {"ledbat": "TcpLedbat", "newreno": "TcpNewReno", "cubic": "TcpCubic",
         "highspeed": "TcpHighSpeed", "bic": "TcpBic", "htcp": "TcpHtcp",
         "scalable": "TcpScalable", "hybla": "TcpHybla", "illinois": "TcpIllinois",
         "yeah": "TcpYeah", "veno": "TcpVeno", "lp": "TcpLp", "vegas": "TcpVegas",
         "westwoodplus": "TcpWestwoodPlus", "bbr": "TcpBbr"}
TOLERANCE = 0.10


def ns3_goodput(python: str, cc: str, flows: int, duration: float, per: float,
                run: int = 1) -> float:
    """ns-3's goodput (Mb/s, all flows) with TypeId `cc`, run by `python`."""
    # -I: the script's own folder (tcplab.validation, which has an ns3.py)
    # must not shadow the wheel's modules.
    out = subprocess.run([python, "-I", str(SCRIPT), "--cc", cc, "--flows", str(flows),
                          "--duration", str(duration), "--per", str(per), "--run", str(run)],
                         capture_output=True, text=True,
                         timeout=7200, check=False)
    line = next((x for x in out.stdout.splitlines() if x.startswith("{")), None)
    where = f"{cc}, {flows} flow{'s' if flows > 1 else ''}, PER {per:g}, run {run}"
    tail = " ".join((out.stdout + out.stderr).split())[-300:] or "no output"
    if line is None:
        raise RuntimeError(f"ns-3 printed no result ({where}; exit code {out.returncode}): "
                           f"{tail}")
    try:
        rx = json.loads(line)["rx_bytes"]
        return sum(b * 8 / (duration - i / flows) for i, b in enumerate(rx)) / 1e6
    except (ValueError, KeyError, TypeError) as e:
        raise RuntimeError(f"ns-3's result cannot be read ({where}: {type(e).__name__}: "
                           f"{e}): {tail}") from None


def tcplab_goodput(cc: str, flows: int, duration: float, per: float, seed: int = 1) -> float:
    """The goodput (Mb/s, all flows) of tcplab's `cc` with the ns3 profile."""
    net = dumbbell(flows, per=per, cc=cc, profile="ns3", rcv_buf="4MiB")
    res = net.run(duration=f"{duration}s", seed=seed)
    return float(res.flows["goodput_bps"].sum()) / 1e6


def sections(python: str, *, quick: bool, seeds: int, jobs: int, available: set[str],
             only: Iterable[str] | None,
             progress: Callable[[str], None] | None = None) -> list[Section]:
    """One section per variant ns-3 has (of `available`, or of `only`).

    Each section's start and end go to `progress`; a section whose ns-3
    runs fail is reported broken, and the others still run.
    """
    progress = progress or (lambda _msg: None)
    duration = 60.0 if quick else 120.0
    wanted = set(only) if only else None
    names = [n for n in PAIRS if n in available and (wanted is None or n in wanted)]
    # (flows, PER): alone and shared without loss, where the link's rate
    # dominates, and alone with 1% loss, where the window's dynamics do.
    points = [(1, 0.0), (4, 0.0), (1, 0.01)]
    out = []
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        # Without loss both sides are deterministic: one run; with it,
        # `seeds` runs each, averaged.
        runs = {p: range(1, (seeds if p else 1) + 1) for _, p in points}
        futures = {(n, k, p): [pool.submit(ns3_goodput, python, PAIRS[n], k, duration, p, r)
                               for r in runs[p]]
                   for n in names for k, p in points}
        progress(f"ns-3: {len(names)} variants, {sum(map(len, futures.values()))} runs of "
                 f"ns-3 ({jobs} at a time; each section waits for its own)")

        def fill(sec: Section) -> None:
            n = sec.name
            for k, p in points:
                label = f"{k} flow{'s' if k > 1 else ''}" + (f", PER {p:g}" if p else "")
                reference_results(futures[(n, k, p)], done_only=True)
                mine = [tcplab_goodput(n, k, duration, p, r) for r in runs[p]]
                theirs = reference_results(futures[(n, k, p)])
                sec.rows.append(Row(point=label, metric="goodput",
                                    tcplab=sum(mine) / len(mine),
                                    reference=sum(theirs) / len(theirs), tolerance=TOLERANCE,
                                    unit="Mb/s"))
            sec.figures = [Figure(title=f"{n}: goodput on the 100-ms dumbbell",
                                  xlabel="flows, loss", ylabel="goodput (Mb/s)",
                                  x=[r.point for r in sec.rows],
                                  lines={"tcplab": [r.tcplab for r in sec.rows],
                                         "ns-3": [r.reference for r in sec.rows]})]

        for n in names:
            sec = Section(
                kind="ns-3", name=n,
                scenario=f"The 100-ms dumbbell (10 Mb/s, 48 ms; 100-packet drop-tail; "
                         f"1448-B segments): 1 and 4 bulk flows without loss, 1 with uniform "
                         f"loss of 1% on the bottleneck ({seeds} runs); {duration:g} s. "
                         "tcplab's ns3 profile against "
                         "ns-3 3.44 at its defaults (timestamps, SACK, PRR, initial window "
                         "10) but for 4 MiB buffers on both sides (128 KiB would cap every "
                         "variant at the same window).",
                references=[f"ns-3 3.44 {PAIRS[n]}"])
            out.append(timed(progress, f"ns-3 {n}",
                             f"tcplab (ns3 profile) against ns-3 {PAIRS[n]}",
                             lambda sec=sec: guarded(sec, fill)))
    return out
