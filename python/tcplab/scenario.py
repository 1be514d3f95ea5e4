"""Building scenarios: the :class:`Network` builder, error models, TOML files.

A scenario is plain data (a dict) with one schema, owned by the Rust core:
the builders here and TOML files produce the same structure. Quantities take
strings with units (``"10Mbps"``, ``"45ms"``, ``"10MiB"``, ``"100p"``) or bare
numbers in the base unit (bit/s, seconds, bytes, packets). Checking happens in
the core, before anything runs, and names the field of any mistake.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from tcplab.cdf import read_cdf  # noqa: F401 - re-exported
from tcplab.elements import (  # noqa: F401 - re-exported: tcplab.scenario's names stay
    BitErrorRate,
    Bulk,
    DropList,
    Ends,
    Flow,
    GilbertElliott,
    Group,
    Link,
    LossModel,
    Node,
    NodeRef,
    OnOff,
    Pcap,
    Poisson,
    Quantity,
    TcpApp,
    Trace,
    Transfer,
    Uniform,
    UniformStart,
    Workload,
    link_rate,
)
from tcplab.errors import ScenarioError
from tcplab.scenario_file import Scenario, load  # noqa: F401 - re-exported
from tcplab.scenario_io import (  # noqa: F401 - re-exported
    _ALLOWED_VALUES,
    _field,
    plain,
    read_text_file,
    scenario_json,
    toml_line,
)

if TYPE_CHECKING:
    from tcplab.cc import CongestionControl, Variant
    from tcplab.results import Results


def _name(n: NodeRef) -> str:
    return n.name if isinstance(n, Node) else str(n)


def _ends(n: Ends) -> str | list[str]:
    """One name, or a list of names for a group."""
    if isinstance(n, list | tuple):
        return [x if isinstance(x, str) else _name(x) for x in n]
    return _name(n)


def _is_group(*values: Any) -> int | None:
    """The size of a group when any value is a list, else None."""
    for v in values:
        if isinstance(v, list | tuple):
            return len(v)
    return None


def _copy_data(x: Any) -> Any:
    """A copy of scenario data (dicts and lists; scalars are shared), faster than deepcopy."""
    if isinstance(x, dict):
        return {k: _copy_data(v) for k, v in x.items()}
    if isinstance(x, list):
        if x and not isinstance(x[0], dict | list):
            return list(x)  # a group's names or start times: scalars
        return [_copy_data(v) for v in x]
    return x


def _loss(m: LossModel | dict[str, Any] | None, field: str) -> dict[str, Any] | None:
    if m is None:
        return None
    if isinstance(m, LossModel):
        return m.to_dict()
    if isinstance(m, dict):
        return dict(m)
    allowed = "a loss model (tl.Uniform, tl.BitErrorRate, tl.GilbertElliott, tl.DropList) or a dict"
    raise ScenarioError(f"{field}: {m!r} is not an error model (allowed: {allowed})", field,
                        f"{m!r} is not an error model", allowed)


class Network:
    """Build a topology and its traffic, then run it.

    Example::

        net = tl.Network()
        a, r, b = net.host("a"), net.router("r"), net.host("b")
        net.link(a, r, rate="10Mbps", delay="45ms")
        net.link(r, b, rate="2Mbps", delay="10us", loss=tl.Uniform(0.005))
        net.udp(a, b, rate="1.5Mbps", size="1000B")
        res = net.run(duration="60s", seed=1)
    """

    def __init__(self, name: str | None = None) -> None:
        self.name = name
        self._hosts: list[str] = []
        self._routers: list[str] = []
        self._links: list[dict[str, Any]] = []
        self._routes: list[dict[str, Any]] = []
        self._flows: list[dict[str, Any]] = []
        #: Links and flows so far, counting each member of a group.
        self._n_links = 0
        self._n_flows = 0
        self._custom: dict[int, Any] = {}
        #: Whether a Poisson workload (of a number of flows unknown here) came before.
        self._after_workload = False

    def host(self, name: str) -> Node:
        """Add an end host (hosts do not forward)."""
        self._hosts.append(name)
        return Node(name, "host")

    def router(self, name: str) -> Node:
        """Add a router."""
        self._routers.append(name)
        return Node(name, "router")

    def hosts(self, names: list[str]) -> list[str]:
        """Add many end hosts at once; returns their names (for groups of links and flows)."""
        names = [str(n) for n in names]
        self._hosts.extend(names)
        return names

    def link(
        self,
        a: Ends,
        b: Ends,
        *,
        rate: Quantity | Trace,
        delay: Quantity,
        queue: Quantity | dict[str, Any] = "100p",
        reverse_queue: Quantity | dict[str, Any] | None = None,
        reverse_rate: Quantity | Trace | None = None,
        schedule: list[dict[str, Any]] | None = None,
        reverse_schedule: list[dict[str, Any]] | None = None,
        outage: Literal["hold", "drop"] | None = None,
        jitter: dict[str, Any] | None = None,
        reverse_jitter: dict[str, Any] | None = None,
        arq: dict[str, Any] | None = None,
        reverse_arq: dict[str, Any] | None = None,
        reorder: dict[str, Any] | None = None,
        reverse_reorder: dict[str, Any] | None = None,
        mtu: int = 1500,
        loss: LossModel | dict[str, Any] | None = None,
        reverse_loss: LossModel | dict[str, Any] | None = None,
        name: str | list[str] | None = None,
    ) -> Link | Group:
        """Join ``a`` and ``b`` with a full-duplex link.

        Args:
            rate: each direction's rate, e.g. ``"2Mbps"``, or a capacity
                trace, ``tl.Trace("file")`` (mahimahi's format).
            reverse_rate: the b -> a direction's rate or trace, when it
                differs from ``rate``.
            schedule: changes of the a -> b direction's rate, delay and
                loss over time: ``[{"at": "10s", "rate": "1Mbps"}, {"at":
                "20s", "rate": 0}, {"at": "22s", "rate": "10Mbps", "delay":
                "80ms", "loss": 0.01}]`` (rate 0: an outage).
            reverse_schedule: the b -> a direction's changes.
            outage: what an outage does: ``"hold"`` the packets (default)
                or ``"drop"`` each one that would be on the wire.
            jitter: extra delay per packet on a -> b, e.g. ``{"dist":
                "uniform", "high": "10ms"}`` (also ``"normal"`` with
                ``mean``, ``std``; ``"exponential"`` with ``mean``;
                ``"pareto"`` with ``scale``, ``shape``); packets keep their
                order unless ``"reorder": True``.
            reverse_jitter: the b -> a direction's.
            arq: link-layer retransmission of what ``loss`` takes, e.g.
                ``{"attempts": 4, "turnaround": "1ms", "order": "in"}``
                (attempts in all; order ``"in"`` holds later packets).
            reverse_arq: the b -> a direction's.
            reorder: explicit reordering on a -> b: ``{"probability": 0.01,
                "displacement": 3}`` holds a packet back until 3 later ones
                have passed it (at most ``max_hold``, default 100 ms).
            reverse_reorder: the b -> a direction's.
            delay: one-way propagation delay, e.g. ``"45ms"``.
            queue: each direction's egress queue: a drop-tail limit in packets
                (``"100p"``) or bytes (``"64KiB"``), or a discipline with its
                parameters, e.g. ``{"kind": "red", "min_th": 5, "max_th": 15}``
                (docs/scenarios.md lists them).
            reverse_queue: the b -> a direction's queue, when it differs from
                ``queue``.
            mtu: largest IP datagram in bytes.
            loss: error model on the a -> b direction (applied at b).
            reverse_loss: error model on the b -> a direction (applied at a).
            name: defaults to ``"a-b"``.

        With a list of nodes for ``a`` or ``b`` (and a list of names, if any),
        this adds a group of links at once, one per element, the other end
        shared when it is a single node: ``net.link(net.hosts(senders), r0,
        ...)``. A group is one entry of the scenario, however many links it
        holds, which keeps a network of a million links quick to build.
        """
        an, bn = _ends(a), _ends(b)
        n = _is_group(an, bn, name)
        d: dict[str, Any] = {"a": an, "b": bn, "rate": link_rate(rate), "delay": delay,
                             "queue": queue, "mtu": mtu}
        if reverse_rate is not None:
            d["reverse_rate"] = link_rate(reverse_rate)
        for key, value in (("schedule", schedule), ("reverse_schedule", reverse_schedule),
                           ("outage", outage), ("jitter", jitter),
                           ("reverse_jitter", reverse_jitter), ("arq", arq),
                           ("reverse_arq", reverse_arq), ("reorder", reorder),
                           ("reverse_reorder", reverse_reorder)):
            if value is not None:
                d[key] = ([dict(e) for e in value] if isinstance(value, list | tuple)
                          else dict(value) if isinstance(value, dict) else value)
        if reverse_queue is not None:
            d["reverse_queue"] = reverse_queue
        if name is not None:
            d["name"] = name
        if loss is not None:
            d["loss"] = _loss(loss, f"links[{len(self._links)}].loss")
        if reverse_loss is not None:
            d["reverse_loss"] = _loss(reverse_loss, f"links[{len(self._links)}].reverse_loss")
        self._links.append(d)
        if n is not None:
            self._n_links += n
            return Group("link", self._n_links - n, n,
                         list(name) if isinstance(name, list | tuple) else None, (an, bn))
        self._n_links += 1
        return Link(name if name is not None else f"{an}-{bn}", an, bn)  # type: ignore[arg-type]

    def route(self, node: NodeRef, to: NodeRef, next: NodeRef) -> None:  # noqa: A002
        """At ``node``, send packets for host ``to`` to the neighbour ``next``."""
        self._routes.append({"node": _name(node), "to": _name(to), "next": _name(next)})

    def udp(
        self,
        src: Ends,
        dst: Ends,
        *,
        rate: Quantity,
        size: Quantity = "1000B",
        start: Quantity | list[Quantity] = 0,
        stop: Quantity | None = None,
        count: int | None = None,
        name: str | list[str] | None = None,
    ) -> Flow | Group:
        """Add a UDP constant-bit-rate source at ``src`` sending to a sink at ``dst``.

        Args:
            rate: the application's rate in payload bits per second.
            size: payload bytes per datagram (28 B of IPv4/UDP headers are added).
            start: when the source starts (or :class:`UniformStart`, a random
                start); ``stop``: when it stops (default: the end of the run);
                ``count``: stop after this many datagrams.

        Lists for ``src``, ``dst``, ``start`` or ``name`` add a group of flows,
        as :meth:`link` does for links.
        """
        d: dict[str, Any] = {"kind": "udp", "src": _ends(src), "dst": _ends(dst), "rate": rate,
                             "size": size, **_start(start)}
        if stop is not None:
            d["stop"] = stop
        if count is not None:
            d["count"] = count
        return self._add_flow(d, "udp", name, src, dst)

    def _add_flow(self, d: dict[str, Any], kind: str, name: Any, src: Ends,
                  dst: Ends) -> Flow | Group:
        """Names the flow (or the group's flows, by the core) and adds it."""
        n = _is_group(d["src"], d["dst"], d.get("start"), name)
        if n is not None and name is None and self._after_workload:
            # The core's default names count the workload's flows; these cannot.
            name = [f"{kind}{self._n_flows + k}" for k in range(n)]
        if n is None:
            fname = name if name is not None else f"{kind}{self._n_flows}"
            d["name"] = fname
            self._flows.append(d)
            self._n_flows += 1
            return Flow(fname, kind, _name(src), _name(dst))  # type: ignore[arg-type]
        if name is not None:
            d["name"] = list(name)
        self._flows.append(d)
        self._n_flows += n
        first = -1 if self._after_workload else self._n_flows - n
        return Group(kind, first, n, list(name) if name is not None else None,
                     (d["src"], d["dst"]))

    def tcp(
        self,
        src: NodeRef,
        dst: NodeRef,
        *,
        cc: str | Variant | CongestionControl = "newreno",
        app: TcpApp | None = None,
        name: str | None = None,
        profile: str | None = None,
        ns3_release: Literal["3.44", "3.18"] | None = None,
        recovery: str | None = None,
        mss: Quantity | None = None,
        delayed_ack: int | bool | None = None,
        delayed_ack_timeout: Quantity | None = None,
        quick_acks: int | None = None,
        rtt_sampling: Literal["segment", "ack"] | None = None,
        cc_rtt: Literal["estimator", "newest"] | None = None,
        sack: bool | None = None,
        timestamps: bool | None = None,
        window_scaling: bool | None = None,
        rcv_buf: Quantity | None = None,
        initial_cwnd: int | None = None,
        initial_ssthresh: Quantity | None = None,
        abc: bool | None = None,
        min_rto: Quantity | None = None,
        max_rto: Quantity | None = None,
        initial_rto: Quantity | None = None,
        clock_granularity: Quantity | None = None,
        rto: Literal["rfc6298", "linux", "ns2", "ns3_18", "inet"] | None = None,
        restart_after_idle: bool | None = None,
        handshake: bool | None = None,
        recovery_exit: Literal["flight", "ssthresh"] | None = None,
        recovery_exit_growth: bool | None = None,
        cwnd_growth: Literal["rfc", "linux"] | None = None,
        undo: bool | None = None,
        frto: bool | None = None,
        rate_halving_floor: Literal["ssthresh", "half_ssthresh"] | None = None,
        prr_form: Literal["rfc9937", "ns3"] | None = None,
        timeout_ssthresh: Literal["rfc5681", "ns3", "ns3_18"] | None = None,
        dupthresh: int | None = None,
        limited_transmit: bool | None = None,
        rescue_retransmit: bool | None = None,
        slow_start: Literal["standard", "hystart", "hystart++"] | None = None,
        rack: bool | None = None,
        tlp: bool | None = None,
        adaptive_reordering: bool | None = None,
        reno_recover_guard: bool | None = None,
        fast_retransmit_restarts_rto: bool | None = None,
        head_retransmit_restarts_rto: bool | None = None,
        ecn: bool | None = None,
        ecn_response: Literal["immediate", "linux", "ns3"] | None = None,
        dsack: bool | None = None,
        ack_timing: Literal["fixed", "linux"] | None = None,
        pacing: bool | Literal["linux", "ns3", "segment"] | None = None,
        pacing_ss_ratio: int | None = None,
        pacing_ca_ratio: int | None = None,
        max_pacing_rate: Quantity | None = None,
        pace_initial_window: bool | None = None,
    ) -> Flow | Group | Workload:
        """Add a TCP connection: data from ``src`` (the sender) to ``dst`` (the receiver).

        Args:
            cc: a variant name (``"tahoe"``, ``"reno"``, ``"newreno"``, ``"sack"``,
                ``"vegas"``, ``"westwood"``, ``"westwoodplus"``, ``"petra"``,
                ``"cubic"``), a variant with parameters, e.g.
                ``tl.Vegas(alpha=2, beta=4)`` (see ``tl.variants()``), or an
                instance of a :class:`tcplab.CongestionControl` subclass.
            profile: whose defaults: ``"paper"`` (RFCs and papers, the default),
                ``"linux"``, ``"ns3"``, ``"ns2"`` or ``"inet"`` (OMNeT++'s INET 2.x).
            ns3_release: with ``profile="ns3"``, which release's defaults:
                ``"3.44"`` (the default) or ``"3.18"`` (ns-3 of 2013-2014).
            app: :class:`Bulk` (default), :class:`Transfer`, :class:`OnOff`, or
                :class:`Poisson` (a workload of transfers: returns a :class:`Workload`).
            recovery: override the variant's loss recovery (``"tahoe"``,
                ``"reno"``, ``"newreno"``, ``"sack"``, ``"prr"``, ``"rate_halving"``,
                ``"sack1"``: ns-2.35's Agent/TCP/Sack1, the ns2 profile's for ``cc="sack"``;
                ``"ns2_vegas"``: ns-2.35's Agent/TCP/Vegas, the ns2 profile's for vegas).
            recovery_exit_growth: the ACK that ends a fast recovery also grows
                the window by the segments it acknowledges, as ns-3 does
                (default off; on with ``profile="ns3"``).
            cwnd_growth: how an ACK grows the window: ``"rfc"`` (every ACK of new
                data, by the segments it acknowledges) or ``"linux"`` (the linux
                profile's: only while the window is used, Linux's
                ``tcp_is_cwnd_limited``, and by what the ACK newly delivered,
                ``acked_sacked``).
            undo: undo a window reduction that D-SACKs or timestamps prove
                spurious, cwnd and ssthresh back to their values before it
                (RFC 3708, 3522, 4015, as Linux's ``tcp_try_undo_*``; default
                off; on with ``profile="linux"``).
            frto: F-RTO after a retransmission timeout (RFC 5682 3, Linux's
                ``tcp_frto = 2``): new data instead of more retransmissions
                while the ACKs may show the timeout spurious, and an undo if
                they do (default off; on with ``profile="linux"``).
            rate_halving_floor: with ``recovery="rate_halving"``, how low the
                window may fall: ``"ssthresh"`` (the default) or ``"half_ssthresh"``
                (Linux 2.6.22's Reno-family modules, as ns-2's TCP-Linux runs them).
            prr_form: with ``recovery="prr"``, whose arithmetic: ``"rfc9937"`` (the
                default) or ``"ns3"`` (ns-3 3.44's TcpPrrRecovery; the ns3 profile's).
            timeout_ssthresh: which retransmission timeouts set ssthresh:
                ``"rfc5681"`` (the default: the first of a series, from the pipe
                without retransmissions), ``"ns3"`` (the ns3 profile's: every
                one, from ns-3 3.44's bytes in flight, which count what was
                resent since the last timeout) or ``"ns3_18"`` (ns-3.18's: every
                one, from all that is outstanding; with ``ns3_release="3.18"``).
            mss: payload bytes per segment (default: the smallest MTU on the
                path less 40 B of headers and the options in use).
            delayed_ack: ACK every N full segments (default 2); ``False`` or 1
                ACKs every segment.
            quick_acks: the receiver ACKs the first N in-order data segments
                each at once (default 0; 1 with ``profile="ns3"``, as ns-3 ACKs
                a connection's first data segment); not with ``ack_timing="linux"``.
            rtt_sampling: without timestamps, where RTT samples come from:
                ``"segment"`` (one timed segment at a time, RFC 6298 with
                Karn's rule; the default) or ``"ack"`` (every ACK, from the
                oldest segment it covers, as ns-3; the ns3 profile).
            cc_rtt: the RTT sample the congestion controller is given:
                ``"estimator"`` (the RTT estimator's own: the timestamp echo,
                which with delayed ACKs includes the receiver's wait; the
                default) or ``"newest"`` (from the most recently sent segment
                the ACK newly delivers, as Linux's ``ca_rtt_us``; the linux
                profile).
            handshake: open the connection with a SYN, SYN-ACK, ACK exchange
                (default on). Off, both ends start established and the first
                data segment leaves at the start time, as ns-2's TCP-Linux
                sends its initial window with its SYN.
            ecn: negotiate ECN (RFC 3168) so that queue disciplines with
                ``ecn`` mark instead of dropping (default off; on for
                ``"dctcp"``).
            adaptive_reordering: Linux's adaptive reordering degree: the
                duplicate ACKs a fast retransmit waits for rise, up to 300, to
                the reordering the ACKs show, and RACK's reordering window
                widens after D-SACKs (default off; on with ``profile="linux"``).
            ecn_response: how cwnd comes down after an ECN echo: ``"immediate"``
                (RFC 3168, cwnd = ssthresh at once) or through a CWR state paced
                by PRR as ``"linux"`` or ``"ns3"`` (3.44) does it (needs
                ``recovery="prr"``; the linux and ns3 profiles' default).
            dsack: the receiver reports each duplicate segment in a D-SACK
                block (RFC 2883), with SACK on (default off; on with
                ``profile="linux"`` and ``profile="inet"``).
            ack_timing: how the receiver times its ACKs: ``"fixed"`` (every
                ``delayed_ack`` segments or ``delayed_ack_timeout``, the first
                ``quick_acks`` at once; the default) or ``"linux"`` (Linux's
                quick-ACK mode, up to 16 ACKs at once at the start and after
                idle, and a delayed-ACK timeout adapted between 40 ms and
                ``delayed_ack_timeout``; the linux profile's default, which
                refuses ``quick_acks`` above 0).
            pacing: whether and how the sender paces (docs/tcp.md, "Pacing"):
                ``False``; ``True`` (the profile's form); ``"linux"`` (Linux's
                internal pacing: earliest departure times in skbs of
                ``tcp_tso_autosize`` segments, the first 10 segments unpaced);
                ``"ns3"`` (ns-3's: one segment per pacing-timer expiry, the
                initial window unpaced); or ``"segment"`` (each segment its
                length at the rate after the one before). The rate is the
                controller's own (bbr; a Python controller's
                ``tcb.pacing_rate``), else max(cwnd, in flight) / srtt times
                ``pacing_ss_ratio`` (while cwnd < ssthresh / 2) or
                ``pacing_ca_ratio`` percent (defaults 200 and 120, allowed 1
                to 1000), at most ``max_pacing_rate``. Default: paced only
                for bbr, and under ``profile="linux"`` also when
                ``max_pacing_rate`` is set (SO_MAX_PACING_RATE); a Python
                controller with the class attribute ``pacing`` gives its
                value.
            pace_initial_window: pace the initial window too (ns-3's
                ``PaceInitialWindow``; default off under the linux and ns3
                profiles, on otherwise).

        Every other argument, and every default with its source, is listed in
        docs/tcp.md; ``None`` keeps the default.
        """
        app = app if app is not None else Bulk()
        index = len(self._flows)
        if not isinstance(app, Bulk | Transfer | OnOff | Poisson):
            allowed = "tl.Bulk(...), tl.Transfer(...), tl.OnOff(...) or tl.Poisson(...)"
            raise ScenarioError(f"flows[{index}].app: {app!r} is not a TCP application "
                                f"(allowed: {allowed})", f"flows[{index}].app",
                                f"{app!r} is not a TCP application", allowed)
        group = _is_group(src, dst, app.start, name) is not None or isinstance(app, Poisson)
        from tcplab.cc import spec_for
        from tcplab.schema import _tcp_fields

        spec, custom = spec_for(cc, f"flows[{index}].cc")
        if custom is not None:
            if group:
                raise ScenarioError(
                    f"flows[{index}].cc: a variant written in Python drives one flow, not a "
                    "group or a workload; add flows one by one", f"flows[{index}].cc",
                    "a variant written in Python for a group")
            self._custom[index] = custom
            if recovery is None:
                recovery = custom.recovery
            if pacing is None:
                pacing = custom.pacing
        d: dict[str, Any] = {"kind": "tcp", "src": _ends(src), "dst": _ends(dst),
                             "cc": spec, "app": app.to_dict(), **_start(app.start)}
        if app.stop is not None:
            d["stop"] = app.stop
        if delayed_ack is True:
            delayed_ack = 2
        elif delayed_ack is False:
            delayed_ack = 1
        # Every TCP option of the core's (tl.schema()), by its keyword here: one list.
        given = locals()
        options = {k: given[k] for k in _tcp_fields() if k not in ("cc", "app")}
        d.update({k: v for k, v in options.items() if v is not None})
        if isinstance(app, Poisson):
            d["name"] = name if name is not None else f"tcp{self._n_flows}_"
            self._flows.append(d)
            self._n_flows += 1
            self._after_workload = True
            return Workload(d["name"], (d["src"], d["dst"]))
        return self._add_flow(d, "tcp", name, src, dst)

    def scenario(
        self,
        *,
        duration: Quantity | None = None,
        seed: int = 1,
        run: int = 0,
        trace: list[str] | None = None,
        interval: Quantity | None = None,
        pcap: Pcap | None = None,
        memory_budget: Quantity | None = None,
        delay_percentiles: bool = False,
    ) -> Scenario:
        """The scenario this network describes, as plain data.

        Args:
            duration: simulated time to run (default: until nothing is left).
            seed: seed of every random stream; ``run``: replication index.
            trace: what to record beyond counters: ``"sojourn"`` (every packet's
                queueing delay, per link direction), ``"queue"`` (queue length of
                every link direction), ``"drops"`` (every dropped packet); for
                TCP flows ``"cwnd"``, ``"ssthresh"``, ``"srtt"``, ``"rtt"``
                (every sample), ``"rto"``, ``"state"``, ``"inflight"`` and
                ``"events"`` (fast retransmits, timeouts, retransmissions...).
            interval: per-interval goodput of every flow in windows of this
                length (``res.intervals``), e.g. ``"250s"``.
            pcap: packet traces to write (:class:`Pcap`).
            memory_budget: the most memory the run may hold in what grows as it
                runs (packets in flight, recorded series, logs, per-interval
                rows); default ``"4GiB"``. A larger run is refused before it
                starts; see docs/scenarios.md.
            delay_percentiles: record delay distributions: the p50/p95/p99
                sojourns of every link direction, and every flow's one-way
                delay percentiles, extremes and jitter, data and ACKs apart,
                as ns-3's FlowMonitor (means are always recorded). Costs 5
                to 15% of the speed with thousands of flows.
        """
        d: dict[str, Any] = {"seed": seed, "hosts": list(self._hosts),
                             "routers": list(self._routers), "links": _copy_data(self._links),
                             "flows": _copy_data(self._flows)}
        if self.name is not None:
            d["name"] = self.name
        if duration is not None:
            d["duration"] = duration
        if run:
            d["run"] = run
        if self._routes:
            d["routes"] = _copy_data(self._routes)
        if trace:
            # Anything but a list is the core's to refuse, with the field named.
            d["trace"] = list(trace) if isinstance(trace, list | tuple) else trace
        if interval is not None:
            d["interval"] = interval
        if pcap is not None:
            d["pcap"] = pcap.to_dict()
        if memory_budget is not None:
            d["memory_budget"] = memory_budget
        if delay_percentiles:
            d["delay_percentiles"] = True
        return Scenario(d, custom=dict(self._custom))

    def run(
        self,
        *,
        duration: Quantity | None = None,
        seed: int = 1,
        run: int = 0,
        trace: list[str] | None = None,
        interval: Quantity | None = None,
        pcap: Pcap | None = None,
        memory_budget: Quantity | None = None,
        delay_percentiles: bool = False,
        progress: Callable[[float, int], Any] | None = None,
    ) -> Results:
        """Check and run the scenario (arguments as :meth:`scenario` and :meth:`Scenario.run`)."""
        return self.scenario(duration=duration, seed=seed, run=run, trace=trace,
                             interval=interval, pcap=pcap, memory_budget=memory_budget,
                             delay_percentiles=delay_percentiles).run(progress=progress)


def _start(start: Any) -> dict[str, Any]:
    """A flow's ``start`` field (and ``start_jitter`` for a :class:`UniformStart`)."""
    if isinstance(start, UniformStart):
        return start.fields()
    return {"start": list(start) if isinstance(start, tuple) else start}
