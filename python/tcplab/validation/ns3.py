"""The ns-3 reference: LEDBAT and the variants ns-3 3.44 ships.

They run on the 100-ms dumbbell, against tcplab's ns3 profile; LEDBAT has
no other reference here.

ns-3 runs in its own virtualenv (the ``ns3`` wheel); the script it runs is
ns3_dumbbell.py beside this file. Goodput only: ns-3's window and state
are not traced here. 1 and 4 flows, no random loss, one run each (both
sides are deterministic without loss).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tcplab.validation.model import Figure, Row, Section
from tcplab.validation.paths import DUMBBELL, PAYLOAD

SCRIPT = Path(__file__).with_name("ns3_dumbbell.py")
#: tcplab's name -> ns-3's TypeId.
PAIRS = {"ledbat": "TcpLedbat", "newreno": "TcpNewReno", "cubic": "TcpCubic",
         "highspeed": "TcpHighSpeed", "bic": "TcpBic", "htcp": "TcpHtcp",
         "scalable": "TcpScalable", "hybla": "TcpHybla", "illinois": "TcpIllinois",
         "yeah": "TcpYeah", "veno": "TcpVeno", "lp": "TcpLp", "vegas": "TcpVegas",
         "westwoodplus": "TcpWestwoodPlus"}
TOLERANCE = 0.10


def ns3_goodput(python: str, cc: str, flows: int, duration: float) -> float:
    """ns-3's goodput (Mb/s, all flows) with TypeId `cc`, run by `python`."""
    # -I: the script's own folder (tcplab.validation, which has an ns3.py)
    # must not shadow the wheel's modules.
    out = subprocess.run([python, "-I", str(SCRIPT), "--cc", cc, "--flows", str(flows),
                          "--duration", str(duration)], capture_output=True, text=True,
                         timeout=7200, check=False)
    line = next((x for x in out.stdout.splitlines() if x.startswith("{")), None)
    if line is None:
        raise RuntimeError(f"ns-3 failed for {cc}: {out.stderr.strip()[-400:]}")
    rx = json.loads(line)["rx_bytes"]
    return sum(b * 8 / (duration - i / flows) for i, b in enumerate(rx)) / 1e6


def tcplab_goodput(cc: str, flows: int, duration: float) -> float:
    """The goodput (Mb/s, all flows) of tcplab's `cc` with the ns3 profile."""
    import tcplab as tl

    net = tl.Network()
    d = DUMBBELL
    r0, r1 = net.router("r0"), net.router("r1")
    net.link(r0, r1, rate=d["rate"], delay=d["delay"], name="bottleneck",
             queue=f"{d['limit']}p")
    for i in range(flows):
        s, k = net.host(f"s{i}"), net.host(f"d{i}")
        net.link(s, r0, rate=d["access"], delay=d["access_delay"])
        net.link(r1, k, rate=d["access"], delay=d["access_delay"])
        net.tcp(s, k, cc=cc, profile="ns3", mss=PAYLOAD["dumbbell"],
                app=tl.Bulk(start=f"{i / flows}s"))
    res = net.run(duration=f"{duration}s", seed=1)
    return float(res.flows["goodput_bps"].sum()) / 1e6


def sections(python: str, *, quick: bool, seeds: int, jobs: int, available: set[str],
             only: Iterable[str] | None) -> list[Section]:
    """One section per variant ns-3 has (of `available`, or of `only`)."""
    del seeds  # no random loss: one run per point
    duration = 60.0 if quick else 120.0
    wanted = set(only) if only else None
    names = [n for n in PAIRS if n in available and (wanted is None or n in wanted)]
    points = [1, 4]
    out = []
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        futures = {(n, k): pool.submit(ns3_goodput, python, PAIRS[n], k, duration)
                   for n in names for k in points}
        for n in names:
            rows = []
            for k in points:
                label = f"{k} flow{'s' if k > 1 else ''}"
                rows.append(Row(point=label, metric="goodput",
                                tcplab=tcplab_goodput(n, k, duration),
                                reference=futures[(n, k)].result(), tolerance=TOLERANCE,
                                unit="Mb/s"))
            out.append(Section(
                kind="ns-3", name=n,
                scenario=f"The 100-ms dumbbell (10 Mb/s, 48 ms; 100-packet drop-tail; "
                         f"1448-B segments), {' and '.join(map(str, points))} bulk flows, "
                         f"{duration:g} s, no random loss. tcplab's ns3 profile against "
                         "ns-3 3.44 at its defaults (timestamps, SACK, PRR, initial window "
                         "10, 128 KiB buffers).",
                references=[f"ns-3 3.44 {PAIRS[n]}"], rows=rows,
                figures=[Figure(title=f"{n}: goodput on the 100-ms dumbbell",
                                xlabel="flows", ylabel="goodput (Mb/s)",
                                x=[str(k) for k in points],
                                lines={"tcplab": [r.tcplab for r in rows],
                                       "ns-3": [r.reference for r in rows]})]))
    return out
