"""Congestion-control variants and their parameters.

``net.tcp(..., cc="vegas")`` uses a variant with the defaults of the flow's
settings profile; ``cc=tl.Vegas(alpha=2, beta=4)`` sets parameters (unset ones
keep the defaults). ``tl.variants()`` (or ``tcplab variants``) lists every
variant with its parameters and their defaults under each profile ("paper",
"linux", "ns3", "ns2", "inet": `tl.schema()["profiles"]`).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import inspect
import json
from typing import Any

from tcplab import _core
from tcplab.errors import ScenarioError
from tcplab.scenario_io import python_flows


class Variant:
    """A named variant with parameters; ``None`` keeps a parameter's default."""

    name: str = ""

    def __init__(self, **params: Any) -> None:
        self.params = {k: v for k, v in params.items() if v is not None}

    def to_spec(self) -> str | dict[str, Any]:
        """The variant as scenario data: its name, or a table with its parameters."""
        return {"name": self.name, **self.params} if self.params else self.name

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"


class _RenoGrowth(Variant):
    """Reno's growth (RFC 5681) with the variant's own loss recovery.

    Args:
        halve: what ssthresh is half of at a reduction: ``"flightsize"``
            (RFC 5681; the paper, ns2 and inet profiles), ``"pipe"`` (RFC
            6675's pipe, as ns-3's TcpNewReno; the ns3 profile) or ``"cwnd"``
            (in whole segments, Linux's tcp_reno_ssthresh; the linux profile).
    """

    def __init__(self, *, halve: str | None = None) -> None:
        super().__init__(halve=halve)


class Tahoe(_RenoGrowth):
    """Reno's growth; three duplicate ACKs: cwnd = 1 segment, go back N."""

    name = "tahoe"


class Reno(_RenoGrowth):
    """Reno's growth; fast retransmit and fast recovery (RFC 5681)."""

    name = "reno"


class NewReno(_RenoGrowth):
    """Reno's growth; NewReno's recovery (RFC 6582)."""

    name = "newreno"


class Sack(_RenoGrowth):
    """Reno's growth; SACK-based recovery (RFC 6675)."""

    name = "sack"


class Vegas(Variant):
    """TCP Vegas (Brakmo & Peterson 1994); see docs/variants.md.

    Args:
        alpha, beta, gamma: thresholds in segments (paper 1, 3, 1; Linux/ns-3 2, 4, 1).
        congestion_avoidance, modified_slow_start, fine_retransmit: each
            mechanism of the paper, switchable.
        loss_keep: the fraction of the window kept on a loss found by
            duplicate ACKs (0.5, Reno's halving; ns-2's Vegas 0.75).
        increase_per_ack: grow by 1/cwnd per ACK through a round that grows
            (ns-2) rather than one segment at its end.
        retransmit_backoff: each retransmission backs the retransmission
            timer off until an RTT sample arrives (ns-2's Vegas).
        fine_timeout: the fine-grained timeout: ``"bsd"`` (Vegas's code, the
            channel paper's Algorithm 1 and INET: about 1.06 (SRTT + 2
            deviations); the paper and inet profiles), ``"ns2"`` (that
            estimator as ns-2.35's tcp-vegas.cc runs it: started at the
            handshake, sampled by each ACK's newest segment, timed from a
            segment's last send, with ns-2's ring of send counts; the ns2
            profile) or ``"rfc6298"`` (SRTT + 4 RTTVAR).
        rounds: how a round measures Diff: ``"paper"`` (the smallest RTT of
            the round, Diff = cwnd (RTT - BaseRTT) / RTT), ``"ns2"``
            (ns-2.35's: the mean of per-ACK RTT samples, Expected from the
            outstanding segments plus one, Diff rounded; its slow-start exit;
            the ns2 profile) or ``"linux"`` (Linux's tcp_vegas.c: Diff =
            cwnd (RTT - BaseRTT) / BaseRTT in whole segments, Reno's growth
            in rounds of two samples or fewer, ordinary slow start; the
            linux profile) or ``"linux-2.6.22"`` (Linux 2.6.22's, which
            ns-2.35's TCP-Linux runs: Diff from the segments sent in the
            last round over RTT in half segments, cwnd stepped towards the
            window the last round began with). See docs/variants.md.
        version: ``"ns3"`` runs ns-3 3.44's TcpVegas (the ns3 profile's
            default; parameters alpha, beta and gamma only).
    """

    name = "vegas"

    def __init__(self, *, alpha: float | None = None, beta: float | None = None,
                 gamma: float | None = None, congestion_avoidance: bool | None = None,
                 modified_slow_start: bool | None = None,
                 fine_retransmit: bool | None = None, loss_keep: float | None = None,
                 increase_per_ack: bool | None = None,
                 retransmit_backoff: bool | None = None,
                 fine_timeout: str | None = None, rounds: str | None = None,
                 version: str | None = None) -> None:
        super().__init__(alpha=alpha, beta=beta, gamma=gamma, fine_timeout=fine_timeout,
                         congestion_avoidance=congestion_avoidance,
                         modified_slow_start=modified_slow_start,
                         fine_retransmit=fine_retransmit, loss_keep=loss_keep,
                         increase_per_ack=increase_per_ack,
                         retransmit_backoff=retransmit_backoff, rounds=rounds,
                         version=version)


class Westwood(Variant):
    """TCP Westwood (Casetti, Mascolo et al.): ssthresh = BWE * RTTmin after a loss.

    Args:
        sampling: ``"per_ack"`` (Westwood) or ``"per_rtt"`` (Westwood+).
        filter: ``"tustin"`` or ``"ewma"``; ``coefficient``: the filter's a;
            ``passes``: cascaded EWMA stages (Linux: 2).
        null_samples, tau, m: virtual null samples every tau/m without ACKs.
        min_interval: shortest per-RTT sampling interval (Linux: 50 ms).
        rtt_min: ``"sample"`` (smallest RTT sample) or ``"srtt"`` (smallest
            SRTT, as ns-3).
        accounting: ``"paper"`` (duplicate ACKs count one segment, deducted
            from the next cumulative ACK) or ``"ns3"`` (ns-3 3.44's counts,
            which count a window twice across fast recovery; see
            docs/variants.md).
    """

    name = "westwood"

    def __init__(self, *, sampling: str | None = None, filter: str | None = None,  # noqa: A002
                 coefficient: float | None = None, passes: int | None = None,
                 null_samples: bool | None = None, tau: str | float | None = None,
                 m: int | None = None, min_interval: str | float | None = None,
                 rtt_min: str | None = None, accounting: str | None = None) -> None:
        super().__init__(sampling=sampling, filter=filter, coefficient=coefficient,
                         passes=passes, null_samples=null_samples, tau=tau, m=m,
                         min_interval=min_interval, rtt_min=rtt_min, accounting=accounting)


class WestwoodPlus(Westwood):
    """Westwood+: one bandwidth sample per RTT, EWMA 0.9 (parameters as :class:`Westwood`).

    Args:
        version: ``"2.6.22"`` runs Linux 2.6.22's ``tcp_westwood.c``, which
            ns-2.35's TCP-Linux runs (an integer estimate, Reno's ssthresh,
            the estimate as the floor of the ``rate_halving`` recovery; it
            takes no other parameter); see docs/variants.md.
    """

    name = "westwoodplus"

    def __init__(self, *, version: str | None = None, sampling: str | None = None,
                 filter: str | None = None,  # noqa: A002
                 coefficient: float | None = None, passes: int | None = None,
                 null_samples: bool | None = None, tau: str | float | None = None,
                 m: int | None = None, min_interval: str | float | None = None,
                 rtt_min: str | None = None, accounting: str | None = None) -> None:
        super().__init__(sampling=sampling, filter=filter, coefficient=coefficient,
                         passes=passes, null_samples=null_samples, tau=tau, m=m,
                         min_interval=min_interval, rtt_min=rtt_min, accounting=accounting)
        if version is not None:
            self.params["version"] = version


class Petra(Variant):
    """Petra (Al-Hasanat et al. 2014): Westwood with an ELC-based faster slow start.

    Args:
        alpha: weight of the previous capacity estimate (0.9).
        westwood: parameters of its Westwood estimator, as :class:`Westwood`
            takes them (e.g. ``{"coefficient": 0.9}``).
    """

    name = "petra"

    def __init__(self, *, alpha: float | None = None,
                 westwood: dict[str, Any] | None = None) -> None:
        super().__init__(alpha=alpha, westwood=westwood)


class Cubic(Variant):
    """CUBIC: RFC 9438, today's Linux module, or Linux 2.6.22's; see docs/variants.md.

    Args:
        version: ``"rfc9438"`` (the default except under the linux profile:
            today's CUBIC in floating point), ``"linux"`` (the linux profile's
            default: today's Linux ``tcp_cubic.c`` in its integers) or
            ``"2.6.22"`` (CUBIC 2.1 as Linux 2.6.22's ``tcp_cubic.c``, which
            ns-2.35's TCP-Linux runs). The two Linux forms take the kernel's
            parameters below.
        c: the cubic coefficient C (0.4); ``beta``: multiplicative decrease
            (0.7; with the Linux forms, in 1024ths: 717, and 819 for 2.6.22).
        fast_convergence, reno_friendly: RFC 9438 4.7 and 4.3.
        bic_scale, tcp_friendliness: the Linux forms' module parameters (41,
            that is C = 0.4004; on); max_increment: version 2.6.22's (16
            segments per 100 ms).
        hz: version linux's kernel clock, ticks per second (``CONFIG_HZ``:
            100, 250, 300 or 1000; 250, Linux's default).
    """

    name = "cubic"

    def __init__(self, *, version: str | None = None, c: float | None = None,
                 beta: float | None = None, fast_convergence: bool | None = None,
                 reno_friendly: bool | None = None, bic_scale: int | None = None,
                 max_increment: int | None = None,
                 tcp_friendliness: bool | None = None, hz: int | None = None) -> None:
        super().__init__(version=version, c=c, beta=beta, fast_convergence=fast_convergence,
                         reno_friendly=reno_friendly, bic_scale=bic_scale,
                         max_increment=max_increment, tcp_friendliness=tcp_friendliness,
                         hz=hz)


class Bbr(Variant):
    """BBR: v1 (Cardwell et al. 2016, the default), or Linux's BBRv2 and BBRv3.

    Args:
        version: ``"v1"`` (the default: the paper's model), ``"v2"`` (google/bbr's
            ``v2alpha`` ``tcp_bbr2.c``) or ``"v3"`` (google/bbr's ``v3``
            ``tcp_bbr.c``), the last two in Linux's integers; see docs/variants.md.
        bw_window_rounds: v1: rounds in the BtlBw max filter (10).
        rtprop_window: v1: the RTprop min filter's window ("10s").
        probe_rtt_time: v1: how long ProbeRTT holds the small window ("200ms").
        cwnd_gain: v1: cwnd gain in ProbeBW (2); ``min_cwnd_segments``: 4.
        loss_thresh: v2/v3: the fraction of a flight lost above which a probe went
            too far (0.02); ``ecn_thresh``: likewise CE-marked (0.5).
        beta: v2/v3: the cut of the lower bounds per lossy round (0.3).
        inflight_headroom: v2/v3: the headroom left below inflight_hi (0.15).
        ecn: v2/v3: the path marks CE at a shallow threshold (Linux's route
            feature ``ecn_low``), so ECN is a signal (False).
    """

    name = "bbr"

    def __init__(self, *, version: str | None = None, bw_window_rounds: int | None = None,
                 rtprop_window: str | float | None = None,
                 probe_rtt_time: str | float | None = None, cwnd_gain: float | None = None,
                 min_cwnd_segments: int | None = None, loss_thresh: float | None = None,
                 beta: float | None = None, ecn_thresh: float | None = None,
                 inflight_headroom: float | None = None, ecn: bool | None = None) -> None:
        super().__init__(version=version, bw_window_rounds=bw_window_rounds,
                         rtprop_window=rtprop_window, probe_rtt_time=probe_rtt_time,
                         cwnd_gain=cwnd_gain, min_cwnd_segments=min_cwnd_segments,
                         loss_thresh=loss_thresh, beta=beta, ecn_thresh=ecn_thresh,
                         inflight_headroom=inflight_headroom, ecn=ecn)


class Dctcp(Variant):
    """DCTCP (RFC 8257): on ECN echoes the window shrinks by alpha / 2.

    alpha estimates the fraction of marked bytes; needs ``ecn`` (on by default).

    Args:
        g: the estimator's gain (1/16).
        alpha_on_init: alpha before the first estimate (1: the first cut halves).
    """

    name = "dctcp"

    def __init__(self, *, g: float | None = None, alpha_on_init: float | None = None) -> None:
        super().__init__(g=g, alpha_on_init=alpha_on_init)


def variants() -> list[dict[str, Any]]:
    """Every built-in variant, as ``tl.schema()["variants"]`` lists it.

    Each: name, usual recovery (and per profile), summary, defaults per profile, probes, forms.
    """
    return json.loads(_core.variants_json())


class CongestionControl:
    """Base class for a congestion controller written in Python.

    Subclass it, implement :meth:`on_ack` (grow the window) and optionally
    :meth:`ssthresh`, :meth:`on_ack_sample`, :meth:`on_state`,
    :meth:`init`, ``undo_cwnd(tcb, prior_cwnd)`` (the window after an
    undo; without it, max(cwnd, prior_cwnd) as Linux's Reno) and
    ``on_rate_sample(tcb, rs)`` (a delivery-rate sample after every ACK; a
    paced controller sets ``tcb.pacing_rate`` there, with the class
    attribute ``pacing`` below), and pass an
    instance as ``net.tcp(..., cc=MyVariant())``. It runs inside a real
    simulation with no rebuild. Windows are in bytes; ``tcb`` is a
    :class:`tcplab._core.Tcb` (set ``tcb.cwnd`` and ``tcb.ssthresh``), ``ack``
    a :class:`tcplab._core.Ack`. Loss recovery (``recovery`` below) stays in
    the core: it applies the ssthresh you return and manages the window
    during fast recovery.

    An exception raised here stops the run and is raised by ``run()``.
    See docs/python-variants.md for a complete example.
    """

    #: The loss recovery used with this controller (tahoe, reno, newreno, sack).
    recovery: str = "newreno"

    #: The flow's pacing unless ``net.tcp(pacing=...)`` says otherwise:
    #: ``None`` (the profile's default: unpaced), ``True`` (the profile's
    #: form) or a form, ``"linux"``, ``"ns3"`` or ``"segment"``. A
    #: controller that sets ``tcb.pacing_rate`` needs the flow paced.
    pacing: bool | str | None = None

    #: Quantities the controller reports about itself, for time series
    #: (``trace=["cc:NAME"]``): ``{name: (unit, meaning)}``; :meth:`probe`
    #: gives their values.
    probes: dict[str, tuple[str, str]] = {}

    def __new__(cls, *args: Any, **kwargs: Any) -> CongestionControl:  # noqa: D102
        # Keep the arguments the instance was made with, so that a sweep's
        # worker (another process, or a Dask worker) can make an equal one
        # from the class's import path (see ``pinned_spec``).
        if (args or kwargs) and cls.__init__ is object.__init__:
            # object.__init__ ignores arguments when __new__ is overridden, as here:
            # without this check Aimd(gain=2) would run as Aimd() without a word.
            given = [repr(a) for a in args] + list(kwargs)
            raise TypeError(f"{cls.__qualname__} takes no arguments (it defines no "
                            f"__init__), but was given {', '.join(given)}")
        obj = super().__new__(cls)
        obj._tcplab_args = (args, kwargs)
        return obj

    def init(self, tcb: Any) -> None:
        """The connection is established; cwnd and ssthresh hold their initial values."""

    def on_ack(self, tcb: Any, ack: Any) -> None:
        """An ACK of new data outside fast recovery: grow ``tcb.cwnd``."""
        raise NotImplementedError("a CongestionControl must implement on_ack(tcb, ack)")

    def ssthresh(self, tcb: Any, cause: str) -> int:
        """A loss (``cause`` "dupacks" or "timeout") or an ECN echo ("ecn"): the new ssthresh.

        Return it in bytes. The default is RFC 5681's max(FlightSize / 2, 2 MSS).
        """
        return max(tcb.flight_size // 2, 2 * tcb.mss)

    def probe(self, name: str) -> float | None:
        """The current value of the quantity ``name`` (a key of :attr:`probes`), or None."""
        return None


def spec_for(cc: Any, field: str = "cc") -> tuple[str | dict[str, Any], Any | None]:
    """Scenario data for a ``cc=`` argument, and the Python object if it is one."""
    if isinstance(cc, str | dict):
        return cc, None
    if isinstance(cc, Variant):
        return cc.to_spec(), None
    if isinstance(cc, CongestionControl):
        return {"name": "python", "class": class_path(type(cc))}, cc
    allowed = ("a variant name, a variant with parameters (tl.Vegas(...)) or a "
               "tl.CongestionControl instance")
    problem = f"an object of type {type(cc).__name__} is not a congestion control"
    raise ScenarioError(f"{field}: {problem} (allowed: {allowed})", field, problem, allowed)


# ---- controllers named by import path ----------------------------------------
#
# A flow may name a Python controller by its import path instead of holding
# the object: ``cc = { name = "python", class = "mymodule:Aimd", gain = 2 }``
# (the other keys are keyword arguments of the class). That form crosses to
# other processes (a sweep's workers, Dask) as plain data and can be written
# in a scenario file. ``source`` (set by ``pinned_spec``) is a hash of the
# class's module source: it is part of a run's key, so an edited controller
# never reuses stale results.

#: Keys of a python ``cc`` table that are not keyword arguments of the class.
RESERVED_KEYS = ("name", "class", "source")


def class_path(cls: type) -> str:
    """``module:QualifiedName`` of a class."""
    return f"{cls.__module__}:{cls.__qualname__}"


def import_class(path: Any, field: str = "cc.class") -> type[CongestionControl]:
    """The class named by ``module:QualifiedName`` (or ``module.Name``)."""
    if not isinstance(path, str) or not path.strip():
        raise ScenarioError(f"{field}: expected an import path such as 'mymodule:Aimd'",
                            field, "not an import path", "'module:Class'")
    module_name, sep, qualname = path.partition(":")
    if not sep:
        module_name, _, qualname = path.rpartition(".")
    if not module_name or not qualname:
        raise ScenarioError(f"{field}: '{path}' is not an import path (allowed: "
                            "'module:Class')", field, "not an import path", "'module:Class'")
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as e:  # noqa: BLE001 - any import failure comes from the user's input
        raise ScenarioError(f"{field}: cannot import module '{module_name}' "
                            f"({type(e).__name__}: {e})", field,
                            f"cannot import module '{module_name}'",
                            "a module importable from this process") from None
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise ScenarioError(f"{field}: module '{module_name}' has no '{qualname}'",
                                field, f"module '{module_name}' has no '{qualname}'")
    if not (isinstance(obj, type) and issubclass(obj, CongestionControl)):
        raise ScenarioError(f"{field}: '{path}' is not a tcplab.CongestionControl subclass",
                            field, "not a tcplab.CongestionControl subclass")
    return obj


def source_hash(cls: type) -> str:
    """sha256 (first 16 hex digits) of the source of the module that defines ``cls``."""
    module = inspect.getmodule(cls)
    try:
        text = inspect.getsource(module) if module is not None else inspect.getsource(cls)
    except (OSError, TypeError):
        text = inspect.getsource(cls)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _named_class(i: int, flow: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A python flow's cc table and its field's name; a ScenarioError if it names no class."""
    cc = flow["cc"]
    field = f"flows[{i}].cc"
    if not isinstance(cc, dict) or "class" not in cc:
        raise ScenarioError(
            f"{field}: a variant written in Python is named by its class "
            "({ name = 'python', class = 'mymodule:MyCC' }) or passed as an object "
            "(cc=MyCC()) from Python", field, "no class named",
            "{ name = 'python', class = 'module:Class', ... }")
    return cc, field


def controllers_for(data: dict[str, Any],
                    given: dict[int, Any] | None = None) -> dict[int, CongestionControl]:
    """The Python controllers of a scenario, by the index of the flow's entry in ``flows``.

    A flow keeps the object in ``given`` when there is one; otherwise its cc
    table must name the class by import path, and a new instance is made
    with the table's other keys as keyword arguments (an argument the class
    does not take is a ScenarioError naming both). One object given to
    several flows is copied for each of them (``copy.deepcopy``, as ns-3's
    ``TcpCongestionOps::Fork`` copies a socket's controller), so that no two
    flows share a controller's state; the object itself is left as it was.
    """
    out: dict[int, CongestionControl] = dict(given or {})
    uses: dict[int, int] = {}
    for obj in out.values():
        uses[id(obj)] = uses.get(id(obj), 0) + 1
    for i, obj in list(out.items()):
        if uses[id(obj)] > 1:
            out[i] = copy.deepcopy(obj)
    for i, f in python_flows(data):
        if i in out:
            continue
        cc, field = _named_class(i, f)
        cls = import_class(cc["class"], f"{field}.class")
        kwargs = {k: v for k, v in cc.items() if k not in RESERVED_KEYS}
        _check_arguments(cls, cc["class"], kwargs, field)
        try:
            out[i] = cls(**kwargs)
        except Exception as e:  # noqa: BLE001 - the user's constructor and arguments
            raise ScenarioError(f"{field}: {cc['class']}(**{kwargs!r}) failed: "
                                f"{type(e).__name__}: {e}", field,
                                "the class could not be made from these arguments") from None
    return out


class _NotImported(CongestionControl):
    """Stands in, while a scenario is checked, for a controller named by import path.

    Checking never imports: importing a module runs its code. The stand-in
    reports every ``cc:NAME`` quantity the scenario traces, since the class
    that would say which it has is not read.
    """

    def __init__(self, path: str, probes: list[str]) -> None:
        self.path = path
        self.probes = {name: ("", "not known before the class is imported") for name in probes}

    def on_ack(self, tcb: Any, ack: Any) -> None:  # noqa: D102 - never called: check runs nothing
        raise RuntimeError(f"{self.path} was not imported; a checked scenario does not run")


def stand_ins_for(data: dict[str, Any], given: dict[int, Any] | None = None,
                  ) -> dict[int, CongestionControl]:
    """Like :func:`controllers_for`, but a class named by import path is not imported.

    Its table is checked for a class path of the right form; a stand-in
    takes its place. For ``check``, which must not run a scenario file's code.
    """
    out: dict[int, CongestionControl] = dict(given or {})
    traced = [t[3:] for t in data.get("trace") or [] if isinstance(t, str) and
              t.startswith("cc:")] if isinstance(data, dict) else []
    for i, f in python_flows(data):
        if i in out:
            continue
        cc, field = _named_class(i, f)
        path = cc["class"]
        if not isinstance(path, str) or not (":" in path or "." in path.strip(".")):
            raise ScenarioError(f"{field}.class: {path!r} is not an import path (allowed: "
                                "'module:Class')", f"{field}.class", "not an import path",
                                "'module:Class'")
        out[i] = _NotImported(path, traced)
    return out


def _check_arguments(cls: type, path: str, kwargs: dict[str, Any], field: str) -> None:
    """Refuse keyword arguments that ``cls`` does not take, naming the class and the argument."""
    if cls.__init__ is object.__init__:
        taken: list[str] = []
        open_ended = False
    else:
        try:
            params = inspect.signature(cls.__init__).parameters
        except (TypeError, ValueError):
            return  # a signature Python cannot tell: the constructor decides
        open_ended = any(p.kind is p.VAR_KEYWORD for p in params.values())
        taken = [n for n, p in list(params.items())[1:]
                 if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [k for k in kwargs if k not in taken]
    if unknown and not open_ended:
        bad = unknown[0]
        if taken:
            allowed = ", ".join(taken)
            message = f"{path} takes no argument '{bad}' (allowed: {allowed})"
        else:
            allowed = "no arguments"
            message = f"{path} takes no arguments (it defines no __init__), but '{bad}' is set"
        raise ScenarioError(f"{field}.{bad}: {message}", f"{field}.{bad}",
                            f"{path} takes no argument '{bad}'", allowed)


def pinned_spec(data: dict[str, Any], given: dict[int, Any] | None = None) -> dict[str, Any]:
    """A copy of scenario data in which every Python controller is named, not held.

    Each python flow's cc becomes ``{name, class, source, <keyword arguments>}``:
    its import path, the hash of its module's source, and the arguments that
    make it (for an object in ``given``, those it was made with). The result
    is plain data that another process runs with :func:`controllers_for`.
    Raises ScenarioError for an object that cannot be named that way (a class
    defined inside a function, arguments that are not plain data).
    """
    out = copy.deepcopy(data)
    for i, f in python_flows(out):
        field = f"flows[{i}].cc"
        obj = (given or {}).get(i)
        cc = dict(f["cc"]) if isinstance(f["cc"], dict) else {"name": "python"}
        if obj is not None:
            cls = type(obj)
            if "<locals>" in cls.__qualname__:
                raise ScenarioError(
                    f"{field}: {cls.__qualname__} is defined inside a function; define it at "
                    "the top level of a module so that other processes can import it",
                    field, "a class defined inside a function",
                    "a class at the top level of a module")
            args, kwargs = getattr(obj, "_tcplab_args", ((), {}))
            try:
                params = dict(inspect.signature(cls).bind(*args, **kwargs).arguments)
            except TypeError as e:
                raise ScenarioError(f"{field}: cannot record how {cls.__qualname__} was made: "
                                    f"{e}", field, "arguments not recordable") from None
            try:
                json.dumps(params, allow_nan=False)
            except (TypeError, ValueError):
                raise ScenarioError(
                    f"{field}: {cls.__qualname__} was made with arguments that are not plain "
                    "data (numbers, strings, lists, tables), so another process cannot make "
                    "it again", field, "arguments that are not plain data") from None
            cc = {"name": "python", "class": class_path(cls), **params}
        elif "class" not in cc:
            raise ScenarioError(f"{field}: a variant written in Python needs 'class'",
                                field, "no class named", "'module:Class'")
        cls = import_class(cc["class"], f"{field}.class")
        cc["source"] = source_hash(cls)
        f["cc"] = cc
    return out
