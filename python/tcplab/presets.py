"""The scenarios of the published work tcplab is built from (SPEC section 5).

Each preset is a function returning a :class:`~tcplab.Scenario`; every
parameter can be overridden by keyword. Each study runs on the settings
profile of the simulator its paper was published from (SPEC section 5):
ns-2.35 (``profile="ns2"``), OMNeT++ 4.2.2 with INET 2.0 (``"inet"``) or ns-3
of 2013-2014 (``"ns3"`` with ``ns3_release="3.18"``), so that what a paper does
not state is what its tool did. What neither the paper nor its tool fixes is
set by a rule named in the docstring ("not stated"); docs/studies.md gives
each choice and its sensitivity sweep.

    sc = tl.presets.westwood(per=0.01, cc="westwoodplus")
    res = sc.run()
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tcplab import _core
from tcplab import traces as _traces
from tcplab.errors import ScenarioError
from tcplab.scenario import (
    Bulk,
    GilbertElliott,
    Network,
    OnOff,
    Scenario,
    Trace,
    Transfer,
    Uniform,
    UniformStart,
)

NS2_QUEUE = "49p"
"""ns-2.35's default queue (``Queue set limit_ 50``), for every link its papers
do not size. ns-2's DropTail refuses an arrival when the queue would reach
``limit_`` (queue/drop-tail.cc), so ``limit_ 50`` holds 49 packets waiting
besides the one on the wire; tcplab's limit counts waiting packets only."""

NS2_PARKING_QUEUE = "124p"
"""The parking-lot paper's router queues of 125 packets, as ns-2 holds them."""

NS2_BIG_WINDOW = 10_000
"""A window (packets) that never limits: ns-2's ``window_`` of 20 packets would
cap a flow at 0.64 Mb/s on a 250 ms path, far below what the Grieco and Mascolo
papers report their flows reaching, so their scripts must have raised it."""


def _spread(lo_ms: float, hi_ms: float, n: int) -> list[float]:
    """Spread n values uniformly over [lo, hi] (ms)."""
    if n == 1:
        return [hi_ms]
    return [lo_ms + (hi_ms - lo_ms) * i / (n - 1) for i in range(n)]


def tool_settings(profile: str, window: int | None = None,
                  ns3_release: str | None = None) -> dict[str, Any]:
    """The ``net.tcp`` options a study's flows share.

    Its tool's profile, and a receive window of ``window`` packets (None: the
    profile's own).

    A window beyond 64 KiB needs window scaling, which ns-2 does not model
    (its window has no header field): it is switched on for it.
    """
    tcp: dict[str, Any] = {"profile": profile}
    if ns3_release is not None:
        tcp["ns3_release"] = ns3_release
    if window is not None:
        mss = 1000 if profile == "ns2" else 1460
        tcp["rcv_buf"] = f"{window * mss}B"
        if window * mss > 65_535:
            tcp["window_scaling"] = True
    return tcp


def _reverse_flows(net: Network, enter: Any, leave: Any, n: int, *, access_in: tuple[str, str],
                   access_out: tuple[str, str], prefix: tuple[str, str, str],
                   app: Any = None, queue: str = "100p", tcp: dict[str, Any] | None = None,
                   ) -> None:
    """Add the reverse traffic of several published scenarios.

    n NewReno bulk (or `app`) flows enter the network at router `enter` and
    leave it at `leave`, with the study's `tcp` options.
    """
    src_name, dst_name, flow_name = prefix
    for i in range(n):
        s, d = net.host(f"{src_name}{i}"), net.host(f"{dst_name}{i}")
        net.link(s, enter, rate=access_in[0], delay=access_in[1], queue=queue)
        net.link(leave, d, rate=access_out[0], delay=access_out[1], queue=queue)
        net.tcp(s, d, cc="newreno", name=f"{flow_name}{i}", app=app, **(tcp or {}))


def channel(*, cc: Any = "reno", delay: str = "1ms", per: float = 0.005,
            rate: str = "100Mbps", size: str = "10MiB", mss: int = 1460,
            profile: str = "inet", duration: str | None = "600s", seed: int = 1) -> Scenario:
    """Channel study (Fernandez, Calafate, Cano and Manzoni; OMNeT++ 4.2.2, INET 2.0).

    client -(rate, one-way delay)- server; the server sends `size` bytes to the
    client (a finite transfer); uniform PER on the data direction; MSS 1460.
    INET 2.0's defaults (``profile="inet"``): an ACK per segment, a receive
    window of 14 segments, no SACK, timestamps or window scaling, Vegas's
    fine-grained timeout as the paper's Algorithm 1, 100-packet drop-tail
    queues (``DropTailQueue.frameCapacity``). ``profile="paper"`` runs the
    RFC settings instead (the sensitivity panels). Not stated: the loss
    direction (data only), a cap of 600 s on the run.
    """
    net = Network("channel")
    client, server = net.host("client"), net.host("server")
    net.link(server, client, rate=rate, delay=delay, loss=Uniform(per) if per else None,
             name="channel")
    net.tcp(server, client, cc=cc, mss=mss, app=Transfer(size=size), profile=profile)
    return net.scenario(duration=duration, seed=seed)


def _westwood_path(net: Network, *, per: float, bottleneck_rate: str, bottleneck_delay: str,
                   mtu: int, access_delay: str = "45ms", queue: str = "100p"):  # noqa: ANN202
    source, router, sink = net.host("source"), net.router("router"), net.host("sink")
    net.link(source, router, rate="10Mbps", delay=access_delay, mtu=mtu, queue=queue,
             name="access")
    net.link(router, sink, rate=bottleneck_rate, delay=bottleneck_delay, mtu=mtu, queue=queue,
             loss=Uniform(per) if per else None, name="bottleneck")
    return source, router, sink


def westwood(*, cc: Any = "newreno", per: float = 0.005, bottleneck_rate: str = "2Mbps",
             bottleneck_delay: str = "0.01ms", access_delay: str = "45ms", mtu: int = 400,
             delayed_ack: bool = True, profile: str = "ns3", ns3_release: str | None = "3.18",
             duration: str = "600s", seed: int = 1, trace: list[str] | None = None) -> Scenario:
    """The Westwood papers' path (Casetti et al. 2002; Mascolo et al. 2001), on ns-3.

    As the ns-3 Westwood/Westwood+ study (2013) and the Petra study
    (Al-Hasanat et al. 2014) ran it.

    source -(10 Mb/s, access_delay)- router -(bottleneck_rate, bottleneck_delay)-
    sink; 400-B packets (MTU 400); delayed ACK 2 segments / 200 ms; uniform PER
    on the bottleneck; one bulk flow. ns-3 of 2013-2014 (``profile="ns3"``,
    ``ns3_release="3.18"``): initial window 1, no SACK or timestamps, NewReno's
    recovery, 100-packet drop-tail queues (``DropTailQueue.MaxPackets``). The
    slow-start study uses duration="5s"; the Petra paper's "propagation delay"
    may be either link's, so both can vary.
    """
    net = Network("westwood")
    source, _, sink = _westwood_path(net, per=per, bottleneck_rate=bottleneck_rate,
                                     bottleneck_delay=bottleneck_delay, mtu=mtu,
                                     access_delay=access_delay)
    tcp = tool_settings(profile, ns3_release=ns3_release if profile == "ns3" else None)
    net.tcp(source, sink, cc=cc, delayed_ack=2 if delayed_ack else 1, **tcp)
    return net.scenario(duration=duration, seed=seed, trace=trace)


def ack_compression(*, cc: Any = "westwood", reverse_flows: int = 4, per: float = 0.0,
                    profile: str = "ns3", ns3_release: str | None = "3.18",
                    duration: str = "300s", seed: int = 1) -> Scenario:
    """ACK compression (Westwood vs Westwood+): the Westwood path with reverse traffic.

    source -(10 Mb/s, 45 ms)- r1 -(2 Mb/s, 0.01 ms)- r2 -(100 Mb/s, 0.01 ms)- sink,
    1500-B packets; `reverse_flows` NewReno bulk flows enter at r2 and leave at
    r1, so their data queues with the forward flow's ACKs on the 2 Mb/s hop and
    compresses them. ns-3 of 2013-2014, as the westwood preset. Not stated: the
    number of reverse flows (4), the extra router that lets them join, no
    random loss (per=0).
    """
    net = Network("ack-compression")
    source, sink = net.host("source"), net.host("sink")
    r1, r2 = net.router("r1"), net.router("r2")
    net.link(source, r1, rate="10Mbps", delay="45ms")
    net.link(r1, r2, rate="2Mbps", delay="0.01ms", loss=Uniform(per) if per else None,
             name="bottleneck")
    net.link(r2, sink, rate="100Mbps", delay="0.01ms")
    tcp = tool_settings(profile, ns3_release=ns3_release if profile == "ns3" else None)
    net.tcp(source, sink, cc=cc, name="forward", **tcp)
    _reverse_flows(net, r2, r1, reverse_flows, access_in=("100Mbps", "0.01ms"),
                   access_out=("10Mbps", "45ms"), prefix=("rsrc", "rdst", "reverse"), tcp=tcp)
    return net.scenario(duration=duration, seed=seed)


ACCESS = {"ethernet": ("10Mbps", "10ms"), "fast_ethernet": ("100Mbps", "1ms")}


def dumbbell_udp(*, cc: Any = "reno", udp_rate: str = "800kbps", left: str = "ethernet",
                 right: str = "ethernet", window: int | None = None, queue: str = NS2_QUEUE,
                 profile: str = "ns2", duration: str = "100s", seed: int = 1) -> Scenario:
    """TCP with a UDP CBR flow (Chavda and Satoniya; ns-2.35).

    TCP and UDP senders -(access)- r1 -(2 Mb/s, 50 ms)- r2 -(access)- TCP and UDP
    receivers; each side's access links are Ethernet (10 Mb/s, 10 ms) or Fast
    Ethernet (100 Mb/s, 1 ms). ns-2.35's defaults (``profile="ns2"``): 1000-B
    segments, a window of 20 packets (``window``: another, in packets), an ACK
    per segment, ns-2's default drop-tail queues (``queue``, ``NS2_QUEUE``). Not stated: UDP
    packets of 1000 B (``udp_rate`` counts them whole, as ns-2's CBR does), 100 s.
    """
    if left not in ACCESS or right not in ACCESS:
        raise ValueError(f"left/right access must be one of {sorted(ACCESS)}")
    net = Network("dumbbell-udp")
    r1, r2 = net.router("r1"), net.router("r2")
    net.link(r1, r2, rate="2Mbps", delay="50ms", queue=queue, name="bottleneck")
    ts, us = net.host("tcp_src"), net.host("udp_src")
    td, ud = net.host("tcp_dst"), net.host("udp_dst")
    for h in (ts, us):
        net.link(h, r1, rate=ACCESS[left][0], delay=ACCESS[left][1], queue=queue)
    for h in (td, ud):
        net.link(r2, h, rate=ACCESS[right][0], delay=ACCESS[right][1], queue=queue)
    net.tcp(ts, td, cc=cc, name="tcp", **tool_settings(profile, window))
    # ns-2's CBR counts whole packets (packetSize_ and rate_): 1000-B packets
    # are 972 B of payload and 28 B of IPv4/UDP headers, and the payload
    # rate is that share of udp_rate.
    payload_bps = _core.parse_rate(str(udp_rate)) * 972 / 1000
    net.udp(us, ud, rate=f"{payload_bps:.6f}bps", size="972B", name="udp")
    return net.scenario(duration=duration, seed=seed)


def reverse_traffic(*, cc: Any = "newreno", reverse_flows: int = 10, queue: str = NS2_QUEUE,
                    reverse_queue: str | None = None, window: int | None = NS2_BIG_WINDOW,
                    profile: str = "ns2", duration: str = "1000s", seed: int = 1) -> Scenario:
    """One persistent flow against ON-OFF reverse traffic (Grieco and Mascolo; ns-2).

    As Macura, Missoni and Kordic ran it after Grieco and Mascolo (2004).

    src -(100 Mb/s, 1 ms)- r1 -(2 Mb/s, 123 ms)- r2 -(100 Mb/s, 1 ms)- dst: a
    250 ms RTT; `reverse_flows` NewReno flows from the dst side to the src side,
    ON during [250 s, 500 s] and [750 s, 1000 s]; goodput per 250-s interval
    (the scenario sets interval = 250 s). ns-2.35's defaults
    (``profile="ns2"``): 1000-B segments, an ACK per segment, ns-2's default queues (``NS2_QUEUE``)
    (``queue``; ``reverse_queue``: the bottleneck's reverse direction, where
    the reverse data meets the forward flow's ACKs). Not stated: the access
    links; the window, raised so that it never limits (``NS2_BIG_WINDOW``).
    """
    net = Network("reverse-traffic")
    src, dst = net.host("src"), net.host("dst")
    r1, r2 = net.router("r1"), net.router("r2")
    tcp = tool_settings(profile, window)
    net.link(src, r1, rate="100Mbps", delay="1ms", queue=queue)
    net.link(r1, r2, rate="2Mbps", delay="123ms", queue=queue,
             reverse_queue=reverse_queue or queue, name="bottleneck")
    net.link(r2, dst, rate="100Mbps", delay="1ms", queue=queue)
    net.tcp(src, dst, cc=cc, name="forward", **tcp)
    _reverse_flows(net, r2, r1, reverse_flows, access_in=("100Mbps", "1ms"),
                   access_out=("100Mbps", "1ms"), prefix=("rsrc", "rdst", "reverse"),
                   app=OnOff(schedule=[("250s", "500s"), ("750s", "1000s")]), queue=queue,
                   tcp=tcp)
    return net.scenario(duration=duration, seed=seed, interval="250s")


def fairness(*, cc: Any = "newreno", m: int = 10, reverse_flows: int = 10,
             queue: str = NS2_QUEUE, window: int | None = NS2_BIG_WINDOW,
             profile: str = "ns2", start_spread: str | None = "1s", duration: str = "1000s",
             seed: int = 1) -> Scenario:
    """M flows of one variant share a 10 Mb/s bottleneck (Grieco and Mascolo 2004; ns-2).

    Flow i's round-trip time is spread uniformly over [20 + 230/M, 250] ms (its
    access link carries the extra delay); 10 NewReno reverse flows. ns-2.35's
    defaults (``profile="ns2"``): 1000-B segments, an ACK per segment,
    ns-2's default queues (``NS2_QUEUE``). Not stated: the bottleneck's own delay (5 ms one way);
    the window, raised so that it never limits (``NS2_BIG_WINDOW``); the
    start times: each of the M flows starts at a random time in the first
    ``start_spread`` (drawn per seed, so that seeds differ on this lossless
    path; ``None`` starts them all at 0).
    """
    net = Network("fairness")
    r1, r2 = net.router("r1"), net.router("r2")
    tcp = tool_settings(profile, window)
    net.link(r1, r2, rate="10Mbps", delay="5ms", queue=queue, name="bottleneck")
    for i, rtt in enumerate(_spread(20 + 230 / m, 250, m)):
        s, d = net.host(f"s{i}"), net.host(f"d{i}")
        one_way = (rtt / 2 - 5) / 2  # split what remains between the two access links
        net.link(s, r1, rate="100Mbps", delay=f"{max(one_way, 0.0):.6f}ms", queue=queue)
        net.link(r2, d, rate="100Mbps", delay=f"{max(one_way, 0.0):.6f}ms", queue=queue)
        start = UniformStart("0s", start_spread) if start_spread else 0
        net.tcp(s, d, cc=cc, name=f"f{i}", app=Bulk(start=start), **tcp)
    _reverse_flows(net, r2, r1, reverse_flows, access_in=("100Mbps", "20ms"),
                   access_out=("100Mbps", "20ms"), prefix=("rs", "rd", "reverse"),
                   queue=queue, tcp=tcp)
    return net.scenario(duration=duration, seed=seed)


def parking_lot(*, cc: Any = "newreno", hops: int = 4, hop_rate: str = "10Mbps",
                hop_delay: str = "10ms", window: int | None = NS2_BIG_WINDOW,
                profile: str = "ns2", start_spread: str | None = "1s",
                duration: str = "1000s", seed: int = 1) -> Scenario:
    """Parking lot (Grieco and Mascolo 2004; ns-2): C1 against cross traffic on every hop.

    Routers r0..rN in a chain of `hops` links; C1 goes from r0's side to rN's and
    starts at 10 s; two NewReno cross-traffic flows per hop enter at its start
    and leave at its end; entry/exit links 100 Mb/s, 20 ms; router queues 125
    packets (ns-2's ``limit_ 125``: 124 waiting, as ``NS2_QUEUE``). ns-2.35's
    defaults (``profile="ns2"``): 1000-B segments, an ACK per segment. Not
    stated: the hop links (10 Mb/s, 10 ms); the window,
    raised so that it never limits (``NS2_BIG_WINDOW``); the cross flows'
    starts: each at a random time in the first ``start_spread`` (drawn per
    seed, so that seeds differ on this lossless path; ``None``: all at 0).
    """
    net = Network("parking-lot")
    tcp = tool_settings(profile, window)
    routers = [net.router(f"r{i}") for i in range(hops + 1)]
    for i in range(hops):
        net.link(routers[i], routers[i + 1], rate=hop_rate, delay=hop_delay,
                 queue=NS2_PARKING_QUEUE,
                 name=f"hop{i}")
    c1s, c1d = net.host("c1_src"), net.host("c1_dst")
    net.link(c1s, routers[0], rate="100Mbps", delay="20ms", queue=NS2_PARKING_QUEUE)
    net.link(routers[-1], c1d, rate="100Mbps", delay="20ms", queue=NS2_PARKING_QUEUE)
    net.tcp(c1s, c1d, cc=cc, name="c1", app=Bulk(start="10s"), **tcp)
    for i in range(hops):
        for j in range(2):
            s, d = net.host(f"x{i}_{j}_src"), net.host(f"x{i}_{j}_dst")
            net.link(s, routers[i], rate="100Mbps", delay="20ms", queue=NS2_PARKING_QUEUE)
            net.link(routers[i + 1], d, rate="100Mbps", delay="20ms", queue=NS2_PARKING_QUEUE)
            start = UniformStart("0s", start_spread) if start_spread else 0
            net.tcp(s, d, cc="newreno", name=f"cross{i}_{j}", app=Bulk(start=start), **tcp)
    return net.scenario(duration=duration, seed=seed)


def wireless_last_hop(*, cc: Any = "westwoodplus", bad_time: str = "10ms",
                      delayed_ack: bool = True, cross: bool = False, queue: str = NS2_QUEUE,
                      window: int | None = NS2_BIG_WINDOW, profile: str = "ns2",
                      arq_attempts: int = 1, duration: str = "1000s",
                      seed: int = 1) -> Scenario:
    """A wired path ending in a lossy wireless hop (Mascolo et al.; Grieco and Mascolo; ns-2).

    src -(10 Mb/s, 105 ms)- r -(2 Mb/s, 20 ms, wireless)- dst: 125 ms one way.
    The wireless hop has Gilbert-Elliott losses in both directions: Good lasts
    1 s (loss 0), Bad lasts `bad_time` (loss 0.1), each next state Bad with
    p = 0.5, sojourns deterministic. With `cross`, 5 cross-traffic flows (RTTs
    spread over [66, 250] ms) share the wireless hop and 10 NewReno reverse flows
    (RTTs over [46, 250] ms) run the other way. ns-2.35's defaults
    (``profile="ns2"``): 1000-B segments, an ACK per segment (``delayed_ack``:
    ns-2's DelAck sink, an ACK per 2 segments or 100 ms), ns-2's default queues (``NS2_QUEUE``).
    Not stated: the wired link's rate; cross flows are NewReno; the window,
    raised so that it never limits (``NS2_BIG_WINDOW``).
    ``arq_attempts`` above 1 gives the wireless hop link-layer ARQ in both
    directions (transmissions in all, a 1 ms turnaround, in-order
    delivery): not in the papers, which leave recovery to TCP.
    """
    net = Network("wireless-last-hop")
    tcp = tool_settings(profile, window)
    src, r, dst = net.host("src"), net.router("r"), net.host("dst")
    ge = GilbertElliott(good_loss=0.0, bad_loss=0.1, good_time="1s", bad_time=bad_time,
                        p_bad=0.5)
    net.link(src, r, rate="10Mbps", delay="105ms", queue=queue)
    arq = {"attempts": arq_attempts, "turnaround": "1ms"} if arq_attempts > 1 else None
    net.link(r, dst, rate="2Mbps", delay="20ms", loss=ge, reverse_loss=ge, queue=queue,
             name="wireless", arq=arq, reverse_arq=arq)
    net.tcp(src, dst, cc=cc, name="main", delayed_ack=2 if delayed_ack else 1, **tcp)
    if cross:
        r0 = net.router("r0")
        net.link(r0, r, rate="100Mbps", delay="0.01ms", queue=queue)
        for i, rtt in enumerate(_spread(66, 250, 5)):
            s = net.host(f"cross{i}")
            net.link(s, r0, rate="100Mbps", delay=f"{max(rtt / 2 - 20, 0):.6f}ms", queue=queue)
            net.tcp(s, dst, cc="newreno", name=f"cross{i}", **tcp)
        for i, rtt in enumerate(_spread(46, 250, 10)):
            d = net.host(f"rev{i}")
            net.link(r0, d, rate="100Mbps", delay=f"{max(rtt / 2 - 20, 0):.6f}ms", queue=queue)
            net.tcp(dst, d, cc="newreno", name=f"reverse{i}", **tcp)
    return net.scenario(duration=duration, seed=seed)


CELLULAR_TRACES = ["Verizon-LTE-short", "Verizon-EVDO-driving", "TMobile-UMTS-driving",
                   "ATT-LTE-driving-2016"]
"""The four mahimahi trace pairs (``NAME.down``, ``NAME.up``) the ``cellular`` study runs."""

#: What to do without mahimahi's traces (tcplab.traces says it).
TRACES_HELP = _traces.HELP


def default_traces() -> Path | None:
    """The folder of mahimahi's traces, found as :func:`tcplab.traces.resolve` finds it.

    ``TCPLAB_TRACES``, the folder of ``tcplab traces download``, then
    ``../shared/traces/mahimahi``; None when none of them has the traces.
    """
    return _traces.resolve()


def missing_trace(traces: str | Path | None, name: str) -> tuple[Path | None, str | None]:
    """The traces' folder and what is missing from it (None if nothing).

    The folder is ``traces``, or the one :func:`default_traces` finds;
    missing is its ``name``.down, said with where it was looked for.
    """
    return _traces.missing(traces, name)


def cellular(*, cc: Any = "cubic", trace: str = "Verizon-LTE-short", queue: str = "droptail",
             traces: str | Path | None = None, limit: str = "100p", delay: str = "20ms",
             profile: str = "linux", duration: str = "60s", seed: int = 1) -> Scenario:
    """One bulk flow over a real cellular link, replayed from a mahimahi trace pair.

    server -(100 Mb/s, 5 ms)- gw -(trace ``NAME.down`` / ``NAME.up``, ``delay``)- phone,
    as Pantheon's emulated cellular paths (mahimahi's ``mm-delay`` and
    ``mm-link``). The cellular link queues in ``queue``: ``"droptail"`` of
    ``limit`` packets, or ``"codel"`` (RFC 8289's defaults) with that hard
    limit, in both directions. The flow starts at a random time in [0, 2 s)
    (a different stretch of the trace for each seed), with Linux's defaults
    (``profile="linux"``): CUBIC with HyStart, PRR, RACK-TLP.
    ``traces``: the folder with the trace files (default: ../shared/traces/mahimahi).
    Not stated by a paper (Pantheon varies them): the delay, the queue and its size.
    """
    folder, missing = missing_trace(traces, trace)
    if folder is None or missing is not None:
        raise ScenarioError(f"cellular: {missing}; {TRACES_HELP}", "traces", str(missing),
                            TRACES_HELP)
    if queue not in ("droptail", "codel"):
        raise ScenarioError(f"cellular: queue {queue!r} is not 'droptail' or 'codel'", "queue",
                            f"{queue!r} is not a queue of this study", "droptail, codel")
    q: Any = limit if queue == "droptail" else {"kind": "codel", "limit": limit}
    net = Network(f"cellular-{trace}")
    server, gw, phone = net.host("server"), net.router("gw"), net.host("phone")
    net.link(server, gw, rate="100Mbps", delay="5ms", queue="1000p")
    net.link(gw, phone, delay=delay, queue=q, name="cellular",
             rate=Trace(folder / f"{trace}.down"), reverse_rate=Trace(folder / f"{trace}.up"))
    net.tcp(server, phone, cc=cc, name="bulk", profile=profile,
            app=Bulk(start=UniformStart("0s", "2s")))
    return net.scenario(duration=duration, seed=seed, delay_percentiles=True)


def bbr_versions(*, version: str = "v3", buffer: float = 1.0, per: float = 0.0,
                 competitor: Any = "cubic", profile: str = "linux", duration: str = "120s",
                 seed: int = 1) -> Scenario:
    """BBR (``version`` v1, v2 or v3) against one CUBIC flow on one bottleneck.

    s0, s1 -(100 Mb/s, 1 ms)- r0 -(10 Mb/s, 48 ms, drop-tail of ``buffer``
    BDPs, uniform loss ``per``)- r1 -(100 Mb/s, 1 ms)- d0, d1: a 100-ms RTT
    and a BDP of 125,000 B (83 packets of 1500 B; the buffer is rounded to
    whole packets, at least 1). Flow ``bbr`` starts at 0, ``competitor``
    (``"cubic"``: Linux's; None: BBR alone) at a random time in [0.5 s,
    1.5 s) (each seed its own), both with Linux's defaults (``profile``). The
    experiment of the BBRv2/v3 papers and IETF reports (Cardwell et al.,
    IETF 104-117): buffers from 0.1 to 10 BDPs, random loss 0-5%. Not
    stated by them (each varies it): the path's rate and RTT, here the
    validation dumbbell's.
    """
    if version not in ("v1", "v2", "v3"):
        raise ScenarioError(f"bbr-versions: version {version!r} is not v1, v2 or v3", "version",
                            f"{version!r} is not a version of 'bbr'", "v1, v2, v3")
    if not 0 < buffer <= 100:
        raise ScenarioError(f"bbr-versions: buffer {buffer!r} must be in (0, 100] BDPs",
                            "buffer", f"{buffer!r} is not a buffer in BDPs", "(0, 100]")
    limit = max(1, round(buffer * 10e6 * 0.1 / 8 / 1500))
    net = Network(f"bbr-{version}-vs-cubic")
    r0, r1 = net.router("r0"), net.router("r1")
    net.link(r0, r1, rate="10Mbps", delay="48ms", queue=f"{limit}p", name="bottleneck",
             loss=Uniform(per) if per > 0 else None)
    flows = [("bbr", {"name": "bbr", "version": version}), ("competitor", competitor)]
    for i, (name, cc) in enumerate(f for f in flows if f[1] is not None):
        s, d = net.host(f"s{i}"), net.host(f"d{i}")
        net.link(s, r0, rate="100Mbps", delay="1ms")
        net.link(r1, d, rate="100Mbps", delay="1ms")
        start = UniformStart("0.5s", "1.5s") if i else "0s"
        net.tcp(s, d, cc=cc, name=name, profile=profile, app=Bulk(start=start))
    return net.scenario(duration=duration, seed=seed)


PRESETS = {
    "channel": channel,
    "westwood": westwood,
    "ack-compression": ack_compression,
    "dumbbell-udp": dumbbell_udp,
    "reverse-traffic": reverse_traffic,
    "fairness": fairness,
    "parking-lot": parking_lot,
    "wireless-last-hop": wireless_last_hop,
    "cellular": cellular,
    "bbr-versions": bbr_versions,
}
