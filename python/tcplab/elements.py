"""The pieces of a scenario.

Loss models, packet-trace requests, TCP applications, and the handles the
:class:`~tcplab.Network` builder returns for nodes, links, flows and groups.
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from tcplab import _core
from tcplab.errors import ScenarioError

if TYPE_CHECKING:
    pass


Quantity = str | int | float
"""A value with a unit as a string (``"2Mbps"``) or a number in the base unit."""


# ---- error models -----------------------------------------------------------


class LossModel:
    """Base class of the error models attachable to a link direction."""

    def to_dict(self) -> dict[str, Any]:
        """The model as scenario data."""
        raise NotImplementedError


@dataclass(frozen=True)
class Uniform(LossModel):
    """Each packet is lost with probability ``per``."""

    per: float

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        return {"model": "uniform", "per": self.per}


@dataclass(frozen=True)
class BitErrorRate(LossModel):
    """Bit errors at rate ``ber``: a packet of S bytes is lost with p = 1-(1-ber)^(8S)."""

    ber: float

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        return {"model": "ber", "ber": self.ber}


@dataclass(frozen=True)
class GilbertElliott(LossModel):
    """A two-state (Good/Bad) channel in continuous time.

    Each state lasts ``good_time`` or ``bad_time`` (exactly, or exponentially
    distributed with that mean when ``sojourn="exponential"``); when a state
    ends the next one is Bad with probability ``p_bad``. Packets are lost with
    probability ``good_loss`` in Good and ``bad_loss`` in Bad. The channel
    starts in Good.
    """

    bad_loss: float
    good_time: Quantity
    bad_time: Quantity
    good_loss: float = 0.0
    p_bad: float = 0.5
    sojourn: Literal["deterministic", "exponential"] = "deterministic"

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        return {
            "model": "gilbert_elliott",
            "good_loss": self.good_loss,
            "bad_loss": self.bad_loss,
            "good_time": self.good_time,
            "bad_time": self.bad_time,
            "p_bad": self.p_bad,
            "sojourn": self.sojourn,
        }

    def stationary_loss(self) -> float:
        """Long-run loss rate for packets arriving independently of the state.

        Raises:
            ScenarioError: a parameter a scenario would refuse (a probability
                outside 0 to 1, a time that is not a duration above 0 s),
                naming it (``path`` ``loss.good_time``, ...).
        """
        good, bad, p_bad = (self._probability(f) for f in ("good_loss", "bad_loss", "p_bad"))
        g, b = self._sojourn("good_time"), self._sojourn("bad_time")
        tg, tb = (1 - p_bad) * g, p_bad * b
        frac_bad = tb / (tg + tb)
        return (1 - frac_bad) * good + frac_bad * bad

    def _refuse(self, field: str, problem: str, allowed: str) -> ScenarioError:
        return ScenarioError(f"GilbertElliott.{field}: {problem} (allowed: {allowed})",
                             f"loss.{field}", problem, allowed)

    def _probability(self, field: str) -> float:
        v = getattr(self, field)
        try:
            p = float(v)
        except (TypeError, ValueError):
            p = math.nan
        if isinstance(v, bool) or not 0 <= p <= 1:
            raise self._refuse(field, f"{v!r} is not a probability", "0 to 1")
        return p

    def _sojourn(self, field: str) -> int:
        """The time in ns, as the core reads it (a number is seconds)."""
        v = getattr(self, field)
        allowed = "a duration longer than 0 s ('10ms', or a number of seconds)"
        try:
            if isinstance(v, bool) or not isinstance(v, str | numbers.Real):
                raise ValueError(f"{v!r} is not a duration")
            ns = _core.parse_duration(v if isinstance(v, str) else repr(float(v)))
        except ValueError as e:
            raise self._refuse(field, str(e), allowed) from None
        if ns <= 0:
            raise self._refuse(field, f"{v!r} is not longer than 0 s", allowed)
        return ns


@dataclass(frozen=True)
class DropList(LossModel):
    """Drop exactly the listed packets, counting arrivals over the link direction from 1.

    With ``flow``, only that flow's packets are counted (and dropped); with
    ``data_only``, only packets carrying payload (TCP data segments, not SYNs
    or pure ACKs), so ``DropList([5, 7, 9], flow="tcp0", data_only=True)``
    drops the 5th, 7th and 9th data segments of tcp0, retransmissions counted.
    """

    packets: list[int]
    flow: str | None = None
    data_only: bool = False

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        d: dict[str, Any] = {"model": "list", "packets": list(self.packets)}
        if self.flow is not None:
            d["flow"] = self.flow
        if self.data_only:
            d["data_only"] = True
        return d


# ---- link capacity ------------------------------------------------------------------


@dataclass(frozen=True)
class Trace:
    """A link direction's capacity from a trace file in mahimahi's format.

    For ``rate=`` or ``reverse_rate=`` of :meth:`Network.link`:
    ``net.link(r, ue, rate=tl.Trace("Verizon-LTE-short.down"), delay="20ms",
    reverse_rate=tl.Trace("Verizon-LTE-short.up"))``.

    Each line of the file is a delivery opportunity, in whole milliseconds
    since the trace's start (a time repeated for several in one
    millisecond); the trace repeats with the period of its last time. Each
    opportunity carries up to 1504 bytes of the queue's packets, as
    mahimahi's ``mm-link`` does; docs/scenarios.md has the details. A
    relative path is from the working directory (in a scenario file: from
    the file's folder); the scenario holds it made absolute.
    """

    file: str | os.PathLike[str]

    def __post_init__(self) -> None:
        if not isinstance(self.file, str | os.PathLike) or not os.fspath(self.file).strip():
            raise ScenarioError(f"Trace: {self.file!r} is not a file name", "rate.trace",
                                f"{self.file!r} is not a file name", "a path to a trace file")

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        return {"trace": os.path.abspath(os.fspath(self.file))}


def link_rate(rate: Any) -> Any:
    """A link's ``rate`` as scenario data: a :class:`Trace` as its table."""
    return rate.to_dict() if isinstance(rate, Trace) else rate


# ---- packet traces ----------------------------------------------------------------


@dataclass(frozen=True)
class Pcap:
    """Packet traces that Wireshark and tshark read: one pcap file per link direction.

    Files are ``{dir}/{link}-0.pcap`` (the a -> b direction) and ``{link}-1.pcap``.
    ``capture="tx"`` records packets as they start onto the wire (drops by the
    error model included); ``"rx"`` as they arrive and survive the error model.
    """

    dir: str | os.PathLike[str]
    links: list[str] | None = None
    snaplen: int = 96
    capture: Literal["tx", "rx"] = "tx"

    def __post_init__(self) -> None:
        if not isinstance(self.dir, str | os.PathLike) or not os.fspath(self.dir).strip():
            raise ScenarioError(
                f"pcap.dir: {self.dir!r} is not a directory name", "pcap.dir",
                f"{self.dir!r} is not a directory name", "a non-empty path")

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        d: dict[str, Any] = {"dir": str(self.dir), "snaplen": self.snaplen,
                             "capture": self.capture}
        if self.links is not None:
            d["links"] = list(self.links)
        return d


# ---- TCP applications ---------------------------------------------------------


@dataclass(frozen=True)
class UniformStart:
    """A start time drawn uniformly from [``low``, ``high``).

    For ``start=`` of any application (``tl.Bulk(start=tl.UniformStart("0s",
    "1s"))``) or UDP flow.

    Each flow draws from its own random stream (the seed, the run and the
    flow's name), so seeds differ even without random loss, and adding a flow
    leaves the others' starts alone. In a scenario it is ``start = low`` with
    ``start_jitter = high - low``; the drawn start is the flow's ``start_s``
    in the results.
    """

    low: Quantity
    high: Quantity

    def fields(self) -> dict[str, Any]:
        """``start`` and ``start_jitter``, in whole nanoseconds."""
        lo = _duration_ns(self.low, "low")
        hi = _duration_ns(self.high, "high")
        if hi <= lo:
            raise ScenarioError(f"UniformStart: high ({self.high}) must be after low ({self.low})",
                                "start_jitter", "high not after low", "high > low")
        return {"start": f"{lo}ns", "start_jitter": f"{hi - lo}ns"}


def _duration_ns(value: Quantity, what: str) -> int:
    try:
        return int(_core.parse_duration(str(value)))
    except ValueError as e:
        raise ScenarioError(f"UniformStart.{what}: {e}", "start", str(e),
                            "a duration, e.g. '1s'") from None


@dataclass(frozen=True)
class Bulk:
    """A persistent source: always has data to send (an "FTP" source).

    ``start``: when the connection opens; ``stop``: when the application stops
    writing (data already sent is still delivered).
    """

    start: Quantity | UniformStart = 0
    stop: Quantity | None = None

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        return {"kind": "bulk"}


@dataclass(frozen=True)
class Transfer:
    """A finite transfer of ``size`` bytes (e.g. ``"10MiB"``), then close.

    The flow reports its completion time: from ``start`` to the last byte
    delivered to the receiving application.
    """

    size: Quantity
    start: Quantity | UniformStart = 0

    @property
    def stop(self) -> None:  # noqa: D102
        return None

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        return {"kind": "transfer", "size": self.size}


@dataclass(frozen=True)
class OnOff:
    """A source with data to send only inside its ON windows.

    ``schedule`` lists absolute (on, off) time pairs, e.g.
    ``[("250s", "500s"), ("750s", "1000s")]``. The connection opens at
    ``start`` (default 0); new data is sent only while ON (retransmissions of
    data sent earlier may follow an OFF edge).
    """

    schedule: list[tuple[Quantity, Quantity]]
    start: Quantity | UniformStart = 0

    @property
    def stop(self) -> None:  # noqa: D102
        return None

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        return {"kind": "onoff", "schedule": [[on, off] for on, off in self.schedule]}


@dataclass(frozen=True)
class Poisson:
    """A workload of short transfers arriving as a Poisson process.

    ``sizes``: the flow-size distribution: ``"websearch"`` (DCTCP's web
    search, as pFabric used it), ``"datamining"`` (VL2's data mining), or a
    CDF as points ``[(bytes, probability), ...]`` (see :func:`read_cdf` for
    a file), interpolated linearly between points.

    The rate of arrivals is given by exactly one of ``load`` (the offered
    load as a fraction of the bottleneck's rate on the path: arrivals per
    second = load x rate / (8 x mean size)) or ``arrival_rate`` (transfers
    per second). Arrivals run from ``start`` until ``until`` (default: the
    end of the run); each is a :class:`Transfer` with its own connection,
    between a (src, dst) pair drawn uniformly when ``src`` or ``dst`` is a
    list. Times, sizes and pairs come from the workload's own random stream
    (the seed, the run, and its name), so seeds give different workloads.

    Each transfer is one row of the results, named ``<name><k>`` when the
    workload is named (``name="web"``: web0, web1, ...), with its
    ``transfer_bytes``, ``completion_time_s`` and ``slowdown``; see
    :func:`tcplab.fct_summary`.
    """

    sizes: str | list[tuple[Quantity, float]]
    load: float | None = None
    arrival_rate: float | None = None
    until: Quantity | None = None
    start: Quantity = 0

    @property
    def stop(self) -> None:  # noqa: D102
        return None

    def to_dict(self) -> dict[str, Any]:  # noqa: D102
        d: dict[str, Any] = {"kind": "poisson", "sizes": self.sizes if isinstance(self.sizes, str)
                             else [[b, p] for b, p in self.sizes]}
        for k in ("load", "arrival_rate", "until"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        return d


TcpApp = Bulk | Transfer | OnOff | Poisson


# ---- builder ----------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    """A host or router of a :class:`Network`."""

    name: str
    kind: Literal["host", "router"]

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Link:
    """A full-duplex link; ``name`` is how results and errors refer to it."""

    name: str
    a: str
    b: str


@dataclass(frozen=True)
class Flow:
    """A traffic flow; ``name`` is its row label in results."""

    name: str
    kind: str
    src: str
    dst: str


@dataclass(frozen=True)
class Group:
    """Links or flows added at once (lists of ends): ``count`` of them.

    ``first`` is the index of the first among the network's links or flows,
    so its members are the rows ``res.flows.iloc[g.rows]`` (for links, each
    link has two rows of ``res.links``, a->b then b->a, in order).
    """

    kind: str
    first: int
    count: int
    given_names: list[str] | None = None
    ends: tuple[str | list[str], str | list[str]] = ("", "")

    def __len__(self) -> int:
        return self.count

    @property
    def rows(self) -> slice:
        """The members' rows of ``res.flows`` (``res.links`` for links: ``link_rows``)."""
        if self.first < 0:
            raise ValueError(
                "this group was added after a Poisson workload, whose number of flows depends "
                "on its draws, so its rows are not known before the run; select them by name: "
                "res.flows[res.flows.flow.isin(group.names)]")
        return slice(self.first, self.first + self.count)

    @property
    def link_rows(self) -> slice:
        """For a group of links: their two rows each of ``res.links``."""
        return slice(2 * self.first, 2 * (self.first + self.count))

    @property
    def names(self) -> list[str]:
        """The members' names: those given, else the defaults ("a-b", or "tcp7")."""
        if self.given_names is not None:
            return list(self.given_names)
        if self.kind == "link":
            a, b = (e if isinstance(e, list) else [e] * self.count for e in self.ends)
            return [f"{x}-{y}" for x, y in zip(a, b, strict=True)]
        return [f"{self.kind}{self.first + k}" for k in range(self.count)]


@dataclass(frozen=True)
class Workload:
    """A :class:`Poisson` workload added to a network.

    Its transfers are the flows named ``prefix`` + 0, 1, ... (how many
    depends on the draws).
    """

    prefix: str
    ends: tuple[str | list[str], str | list[str]] = ("", "")

    def of(self, flows: Any) -> Any:
        """The workload's rows of a flows table (``res.flows``), in arrival order."""
        names = flows["flow"].astype(str)
        tail = names.str.slice(len(self.prefix))
        return flows[names.str.startswith(self.prefix) & tail.str.fullmatch(r"\d+")]


NodeRef = Node | str
#: One end, or one per member of a group.
Ends = NodeRef | list[NodeRef] | tuple[NodeRef, ...]

