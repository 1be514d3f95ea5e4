"""The scenarios the validation compares on, built in tcplab and in ns-2.

- ``westwood``: the Westwood papers' path, source -(10 Mb/s, 45 ms)- router
  -(2 Mb/s, 0.01 ms)- sink, a 100-packet drop-tail queue, 400-B IP packets
  (360 B of payload), one bulk flow, uniform packet errors on the
  bottleneck.
- ``dumbbell``: N bulk flows (flow i from i/N s), senders -(100 Mb/s,
  1 ms)- r0 -(10 Mb/s, 48 ms)- r1 -(100 Mb/s, 1 ms)- receivers: a 100-ms
  round trip, a 100-packet drop-tail queue at r0, 1448-B segments.

Both sides measure the same things per run: goodput (all flows, Mb/s),
the time-average congestion window (segments, the mean over flows), window
reductions (fast retransmits, timeouts and ECN reductions; ns-2's
``ncwndcuts_``), retransmitted segments and timeouts.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tcplab.scenario import Network

HERE = Path(__file__).resolve().parent
TCL = HERE / "ns2_run.tcl"
PAYLOAD = {"westwood": 360, "dumbbell": 1448}
DUMBBELL = {"rate": "10Mbps", "delay": "48ms", "access": "100Mbps", "access_delay": "1ms",
            "limit": 100}


@dataclass(frozen=True)
class Case:
    """One scenario point: a topology, flows, loss and length."""

    topo: str  # "westwood" or "dumbbell"
    per: float = 0.0
    flows: int = 1
    duration: float = 60.0
    acks: str = "delack"  # or "every"
    #: Seconds added to flow i's start per index i (dumbbell): flow i starts
    #: at i/flows + i * stagger s.
    stagger: float = 0.0

    @property
    def label(self) -> str:
        """The point as the report names it."""
        if self.topo == "westwood":
            return f"PER {self.per:g}"
        return f"{self.flows} flow{'s' if self.flows > 1 else ''}" + (
            f", PER {self.per:g}" if self.per else "") + (
            f", starts +{self.stagger * 1e3:g} ms a flow" if self.stagger else "")

    def start(self, i: int) -> float:
        """When flow `i` starts, s."""
        if self.topo != "dumbbell":
            return 0.0
        return i / self.flows + i * self.stagger


@dataclass
class Measure:
    """What one run (or the mean over seeds) measured."""

    goodput: float  # Mb/s, all flows
    cwnd_mean: float  # segments, mean over flows
    reductions: float  # all flows
    retransmitted: float
    timeouts: float
    stalled: bool = False
    #: Why the reference produced nothing (it hung or crashed), or "".
    broken: str = ""
    #: Each flow's goodput (Mb/s, from its start), for one run; empty for a mean.
    flows: tuple[float, ...] = ()


def dumbbell(flows: int, *, per: float = 0.0, queue: Any = None, stagger: float = 0.0,
             **tcp: Any) -> Network:
    """The 100-ms dumbbell with `flows` bulk flows, flow i from i/`flows` s.

    Each flow is set by `tcp` (keywords of Network.tcp) with 1448-B segments;
    `per` sets uniform loss on the bottleneck, `queue` its queue (default:
    the 100-packet drop-tail); `stagger` s more per flow index delay the
    starts (flow i from i/`flows` + i `stagger` s).
    """
    import tcplab as tl

    net = tl.Network()
    d = DUMBBELL
    r0, r1 = net.router("r0"), net.router("r1")
    net.link(r0, r1, rate=d["rate"], delay=d["delay"], name="bottleneck",
             queue=queue or f"{d['limit']}p", loss=tl.Uniform(per) if per > 0 else None)
    for i in range(flows):
        s, k = net.host(f"s{i}"), net.host(f"d{i}")
        net.link(s, r0, rate=d["access"], delay=d["access_delay"])
        net.link(r1, k, rate=d["access"], delay=d["access_delay"])
        start = i / flows + i * stagger
        net.tcp(s, k, mss=PAYLOAD["dumbbell"], app=tl.Bulk(start=f"{start}s"), **tcp)
    return net


def westwood_path(per: float, **tcp: Any) -> Network:
    """The Westwood path (the westwood preset's) with one bulk flow set by `tcp`."""
    import tcplab as tl
    from tcplab.presets import _westwood_path

    net = tl.Network()
    source, _, sink = _westwood_path(net, per=per, bottleneck_rate="2Mbps",
                                     bottleneck_delay="10us", mtu=400)
    net.tcp(source, sink, **tcp)
    return net


def tcplab_run(case: Case, seed: int, tcp: dict) -> Measure:
    """Run `case` in tcplab, each flow set by `tcp` (keywords of Network.tcp)."""
    # The references' receivers (ns-2's TCPSink/DelAck, ns-3's) ACK on a
    # fixed count and timer and send no D-SACK: tcplab's receiver does so too.
    tcp = {"delayed_ack": 1 if case.acks == "every" else 2, "delayed_ack_timeout": "200ms",
           "ack_timing": "fixed", "dsack": False, **tcp}
    net = (westwood_path(case.per, **tcp) if case.topo == "westwood"
           else dumbbell(case.flows, per=case.per, stagger=case.stagger, **tcp))
    res = net.run(duration=f"{case.duration}s", seed=seed, trace=["cwnd"])
    f = res.flows
    means = []
    for i, mss in enumerate(f["mss"]):
        t, w = res.trace("cwnd", flow=i)
        means.append(time_average(t, w, case.duration) / float(mss))
    return Measure(goodput=float(f["goodput_bps"].sum()) / 1e6,
                   flows=tuple(float(g) / 1e6 for g in f["goodput_bps"]),
                   cwnd_mean=float(np.mean(means)),
                   reductions=float((f["fast_retransmits"] + f["timeouts"]
                                     + f["ecn_reductions"]).sum()),
                   retransmitted=float(f["retransmitted_segments"].sum()),
                   timeouts=float(f["timeouts"].sum()))


def time_average(t: np.ndarray, v: np.ndarray, end: float) -> float:
    """The time average over [t[0], end] of a step series.

    Each value holds until the next.
    """
    if len(t) == 0:
        return float("nan")
    edges = np.append(t, max(end, t[-1]))
    span = edges[-1] - edges[0]
    if span <= 0:
        return float(v[-1])
    return float(np.sum(v * np.diff(edges)) / span)


def ns2_run(ns: str, case: Case, seed: int, agent: str, settings: dict,
            limit: float | None = None) -> Measure:
    """Run `case` in ns-2 with `agent` and Agent/TCP `settings`.

    `agent` is newreno, reno, sack, vegas, or linux:NAME; `settings` sets
    window, winit, minrto, tick and singledup. A run that takes longer than
    `limit` seconds of wall time has hung.
    """
    args = {"topo": case.topo, "agent": agent, "acks": case.acks, "per": case.per,
            "seed": seed, "duration": case.duration, "size": PAYLOAD[case.topo],
            "flows": case.flows, "stagger": case.stagger, **settings}
    if case.topo == "dumbbell":
        d = DUMBBELL
        args.update(rate=d["rate"].replace("bps", ""), delay=d["delay"], limit=d["limit"])
    cmd = [ns, str(TCL)] + [f"{k}={v}" for k, v in args.items()]
    # ns-2 simulates these paths at a hundred or more simulated seconds per
    # second; a run that takes a fifth of its duration in wall time has hung
    # (TCP-Linux westwood at PER 0.05 loops for good).
    limit = limit or max(20.0, case.duration / 5)
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=limit,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return broken(f"ns-2 hung (no result after {limit:g} s of wall time)")
    if out.returncode < 0:
        return broken(f"ns-2 crashed (signal {-out.returncode})")
    text = out.stdout + out.stderr
    tail = " ".join(text.split())[-300:] or "no output"
    if "do not find" in text.lower():
        # TCP-Linux runs Reno in place of a module it does not know.
        raise RuntimeError(f"TCP-Linux does not know '{agent}'")
    if out.returncode != 0:
        raise RuntimeError(f"ns-2 exited with code {out.returncode} ({agent}, "
                           f"{case.label}, seed {seed}): {tail}")
    if '{"flows"' not in out.stdout:
        raise RuntimeError(f"ns-2 printed no result ({agent}, {case.label}, seed {seed}): "
                           f"{tail}")
    try:
        return parse_ns2(out.stdout, case)
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise RuntimeError(f"ns-2's result cannot be read ({agent}, {case.label}, seed "
                           f"{seed}: {type(e).__name__}: {e}): {tail}") from None


def parse_ns2(stdout: str, case: Case) -> Measure:
    """What ns2_run.tcl printed, as a Measure.

    A flow that made no progress over the last quarter of the run, or ended
    with cwnd 0, marks the reference as stalled (TCP-Linux's westwood can
    end with cwnd 0 and no timeout to revive it).
    """
    # Some modules (TCP-LP) print debugging lines of their own, without a
    # final newline: the result is the line from '{"flows"' on.
    at = stdout.rfind('{"flows"')
    d = json.loads(stdout[at:].splitlines()[0])
    size = PAYLOAD[case.topo]
    n = len(d["flows"])
    starts = [case.start(i) for i in range(n)]
    bits = [(f["acked"] + 1) * size * 8 / (case.duration - t)
            for f, t in zip(d["flows"], starts, strict=True)]
    stalled = any(f["acked"] <= f["acked_3q"] or f["cwnd_end"] <= 0 for f in d["flows"])
    return Measure(goodput=sum(bits) / 1e6, flows=tuple(b / 1e6 for b in bits),
                   cwnd_mean=float(np.mean([f["cwnd_mean"] for f in d["flows"]])),
                   reductions=float(sum(f["cuts"] for f in d["flows"])),
                   retransmitted=float(sum(f["retransmitted"] for f in d["flows"])),
                   timeouts=float(sum(f["timeouts"] for f in d["flows"])),
                   stalled=stalled)


def broken(why: str) -> Measure:
    """A reference run that produced nothing: reported, never compared."""
    nan = float("nan")
    return Measure(nan, nan, nan, nan, nan, stalled=True, broken=why)


def mean_measure(ms: list[Measure]) -> Measure:
    """The mean over seeds; stalled if any seed stalled."""
    return Measure(**{k: float(np.mean([getattr(m, k) for m in ms]))
                      for k in ("goodput", "cwnd_mean", "reductions", "retransmitted",
                                "timeouts")},
                   stalled=any(m.stalled for m in ms),
                   broken="; ".join(sorted({m.broken for m in ms if m.broken})))
