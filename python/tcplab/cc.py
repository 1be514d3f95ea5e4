"""Congestion-control variants and their parameters.

``net.tcp(..., cc="vegas")`` uses a variant with the defaults of the flow's
settings profile; ``cc=tl.Vegas(alpha=2, beta=4)`` sets parameters (unset ones
keep the defaults). ``tl.variants()`` (or ``tcplab variants``) lists every
variant with its parameters and their defaults under each profile ("paper",
"linux", "ns3").
"""

from __future__ import annotations

import json
from typing import Any

from tcplab import _core


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


class Vegas(Variant):
    """TCP Vegas (Brakmo & Peterson 1994); see docs/variants.md.

    Args:
        alpha, beta, gamma: thresholds in segments (paper 1, 3, 1; Linux/ns-3 2, 4, 1).
        congestion_avoidance, modified_slow_start, fine_retransmit: each
            mechanism of the paper, switchable.
    """

    name = "vegas"

    def __init__(self, *, alpha: float | None = None, beta: float | None = None,
                 gamma: float | None = None, congestion_avoidance: bool | None = None,
                 modified_slow_start: bool | None = None,
                 fine_retransmit: bool | None = None) -> None:
        super().__init__(alpha=alpha, beta=beta, gamma=gamma,
                         congestion_avoidance=congestion_avoidance,
                         modified_slow_start=modified_slow_start,
                         fine_retransmit=fine_retransmit)


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
    """Westwood+: one bandwidth sample per RTT, EWMA 0.9 (parameters as :class:`Westwood`)."""

    name = "westwoodplus"


class Petra(Variant):
    """Petra (Al-Hasanat et al. 2014): Westwood with an ELC-based faster slow start.

    Args:
        alpha: weight of the previous capacity estimate (0.9).
    """

    name = "petra"

    def __init__(self, *, alpha: float | None = None) -> None:
        super().__init__(alpha=alpha)


class Cubic(Variant):
    """CUBIC (RFC 9438).

    Args:
        c: the cubic coefficient C (0.4); ``beta``: multiplicative decrease (0.7).
        fast_convergence, reno_friendly: RFC 9438 4.7 and 4.3.
    """

    name = "cubic"

    def __init__(self, *, c: float | None = None, beta: float | None = None,
                 fast_convergence: bool | None = None,
                 reno_friendly: bool | None = None) -> None:
        super().__init__(c=c, beta=beta, fast_convergence=fast_convergence,
                         reno_friendly=reno_friendly)


class Bbr(Variant):
    """BBR v1 (Cardwell et al. 2016).

    Args:
        bw_window_rounds: rounds in the BtlBw max filter (10).
        rtprop_window: the RTprop min filter's window ("10s").
        probe_rtt_time: how long ProbeRTT holds the small window ("200ms").
        cwnd_gain: cwnd gain in ProbeBW (2); ``min_cwnd_segments``: 4.
    """

    name = "bbr"

    def __init__(self, *, bw_window_rounds: int | None = None,
                 rtprop_window: str | float | None = None,
                 probe_rtt_time: str | float | None = None, cwnd_gain: float | None = None,
                 min_cwnd_segments: int | None = None) -> None:
        super().__init__(bw_window_rounds=bw_window_rounds, rtprop_window=rtprop_window,
                         probe_rtt_time=probe_rtt_time, cwnd_gain=cwnd_gain,
                         min_cwnd_segments=min_cwnd_segments)


def variants() -> list[dict[str, Any]]:
    """Every built-in variant: name, usual recovery, summary, defaults per profile."""
    return json.loads(_core.variants_json())


class CongestionControl:
    """Base class for a congestion controller written in Python.

    Subclass it, implement :meth:`on_ack` (grow the window) and optionally
    :meth:`ssthresh`, :meth:`on_ack_sample`, :meth:`on_state` and
    :meth:`init`, and pass an instance as ``net.tcp(..., cc=MyVariant())``. It
    runs inside a real simulation with no rebuild. Windows are in bytes;
    ``tcb`` is a :class:`tcplab._core.Tcb` (set ``tcb.cwnd`` and
    ``tcb.ssthresh``), ``ack`` a :class:`tcplab._core.Ack`. Loss recovery
    (``recovery`` below) stays in the core: it applies the ssthresh you
    return and manages the window during fast recovery.

    An exception raised here stops the run and is raised by ``run()``.
    See docs/python-variants.md for a complete example.
    """

    #: The loss recovery used with this controller (tahoe, reno, newreno, sack).
    recovery: str = "newreno"

    def init(self, tcb: Any) -> None:
        """The connection is established; cwnd and ssthresh hold their initial values."""

    def on_ack(self, tcb: Any, ack: Any) -> None:
        """An ACK of new data outside fast recovery: grow ``tcb.cwnd``."""
        raise NotImplementedError("a CongestionControl must implement on_ack(tcb, ack)")

    def ssthresh(self, tcb: Any, cause: str) -> int:
        """A loss (``cause`` "dupacks" or "timeout"): return the new ssthresh in bytes.

        The default is RFC 5681's max(FlightSize / 2, 2 MSS).
        """
        return max(tcb.bytes_in_flight // 2, 2 * tcb.mss)


def spec_for(cc: Any) -> tuple[str | dict[str, Any], Any | None]:
    """Scenario data for a ``cc=`` argument, and the Python object if it is one."""
    if isinstance(cc, str):
        return cc, None
    if isinstance(cc, Variant):
        return cc.to_spec(), None
    if isinstance(cc, CongestionControl):
        cls = type(cc)
        return {"name": "python", "class": f"{cls.__module__}.{cls.__qualname__}"}, cc
    raise TypeError(
        f"cc must be a variant name, a tcplab variant (tl.Vegas(...)) or a "
        f"tcplab.CongestionControl instance, not {type(cc).__name__}"
    )
