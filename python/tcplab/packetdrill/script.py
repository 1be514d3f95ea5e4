"""The typed form of a parsed packetdrill script: timed events and the values they carry.

Times are kept in integer microseconds, as packetdrill itself keeps them, so ``+.310`` is
exactly 310000. Every node is a frozen dataclass; equality compares the whole tree, which
is what the parser's tests rely on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: How an event's time is written: ``0`` (absolute), ``+0.1`` (relative) or ``*`` (any).
TimeKind = Literal["absolute", "relative", "any"]


@dataclass(frozen=True)
class Time:
    """An event's time: a point, a range ``a~b`` or a blocking system call's ``a...b``.

    ``start_us`` is None for ``*``. ``end_us`` is the range's end or the time the blocking
    call must return (None for a point); ``end_relative`` says it was written with ``+``.
    The end counts from the same origin as the start: for a relative time, the previous
    event (packetdrill adds the same offset to both), so ``+0.1...0.3`` returns 0.3 s after
    the previous event, not 0.3 s after the call starts.
    """

    kind: TimeKind
    start_us: int | None
    end_us: int | None = None
    end_kind: Literal["range", "blocking"] | None = None
    end_relative: bool = False


# ---------------------------------------------------------------- syscall expressions


@dataclass(frozen=True)
class Int:
    """An integer argument, decimal or ``0x`` hex (``text`` keeps how it was written)."""

    value: int
    text: str = ""


@dataclass(frozen=True)
class Float:
    """A number with a fractional part, kept as written."""

    text: str


@dataclass(frozen=True)
class Str:
    """A double-quoted string, without its quotes; ``prefix`` if written ``"abc"...``."""

    value: str
    prefix: bool = False


@dataclass(frozen=True)
class Elided:
    """``...``: any value."""


@dataclass(frozen=True)
class Name:
    """A symbolic constant or bare word: ``SOL_SOCKET``, ``O_NONBLOCK``, ``AF_INET``."""

    name: str


@dataclass(frozen=True)
class BitOr:
    """Flags joined with ``|``: ``O_RDWR|O_NONBLOCK``."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Call:
    """A function-like value inside arguments: ``htons(8080)``, ``inet_addr("1.2.3.4")``."""

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Array:
    """``[a, b, ...]``."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Struct:
    """``{name=value, ...}``; a field written without ``name=`` has name None."""

    fields: tuple[tuple[str | None, Expr], ...]


@dataclass(frozen=True)
class AddrOf:
    """``&value``: a pointer to a value."""

    value: Expr


Expr = Int | Float | Str | Elided | Name | BitOr | Call | Array | Struct | AddrOf


def int_value(e: Expr | None) -> int | None:
    """The integer ``e`` holds: ``7`` or ``[7]`` (a one-item array), else None."""
    if isinstance(e, Int):
        return e.value
    if isinstance(e, Array) and len(e.items) == 1:
        return int_value(e.items[0])
    return None


def flat(e: Expr | None) -> list[Expr | None]:
    """``e`` and the values inside it (flags joined with ``|``)."""
    if isinstance(e, BitOr):
        return [y for x in e.items for y in flat(x)]
    return [e]


def names(e: Expr | None) -> set[str]:
    """The symbolic names in ``e`` (``O_RDWR|O_NONBLOCK``: both)."""
    return {x.name for x in flat(e) if isinstance(x, Name)}


# ---------------------------------------------------------------- actions


@dataclass(frozen=True)
class Syscall:
    """A system call and its expected result: ``connect(3, ..., ...) = -1 EINPROGRESS (...)``.

    ``errno`` is the errno name (None if not given); ``note`` the parenthesised text after the
    result, e.g. ``Operation now in progress`` or ``flags O_RDWR``.
    """

    name: str
    args: tuple[Expr, ...]
    result: Expr
    errno: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class TcpOption:
    """One TCP option inside ``<...>``.

    ``kind`` is as written (``mss``, ``sackOK``, ``sack``, ``TS``, ``wscale``, ``nop``,
    ``eol``, ``FO``, ``FOEXP``, ``md5``, ``ECN``). ``value`` holds mss, wscale or the TS val;
    ``ecr`` the TS ecr; ``blocks`` the SACK blocks; ``cookie`` the FO/FOEXP cookie or MD5 digest
    text (None for a cookie request); ``counters`` the AccECN fields in order, e.g.
    ``(("e1b", 1), ("ceb", 0), ("e0b", 1))``.
    """

    kind: str
    value: int | None = None
    ecr: int | None = None
    blocks: tuple[tuple[int, int], ...] = ()
    cookie: str | None = None
    counters: tuple[tuple[str, int], ...] = ()


#: IP ECN codepoints a packet may carry in ``[...]``.
Ecn = Literal["noecn", "ect0", "ect1", "ect01", "ce"]


@dataclass(frozen=True)
class TcpPacket:
    """A TCP segment: ``<`` injected by the remote peer, ``>`` expected from Linux.

    ``flags`` is as written (``S.``, ``P.``, ``SEWA``, ``F5.``, ``-``); ``seq``/``seq_end``/
    ``length`` the relative ``seq:end(len)``; ``options`` None when no ``<...>`` was written
    (packetdrill then does not check them on ``>``), ``()`` for an empty ``<>``. ``ecn`` is
    the IP ECN codepoint and ``ip`` the other IP fields written (``tos``, ``flowlabel``,
    ``ttl``); ``ports`` an explicit ``src>dst`` port pair.
    """

    direction: Literal["<", ">"]
    flags: str
    seq: int
    seq_end: int
    length: int
    ack: int | None = None
    win: int | None = None
    urg: int | None = None
    options: tuple[TcpOption, ...] | None = None
    ecn: Ecn | None = None
    ip: tuple[tuple[str, int], ...] = ()
    ports: tuple[int, int] | None = None


@dataclass(frozen=True)
class IcmpPacket:
    """An ICMP message: ``< icmp unreachable frag_needed mtu 1400 [0:1000(1000)]``.

    ``echoed`` says what the message quotes: a TCP segment (``seq`` holds its
    ``start, end, length``), or ``udp``/``raw`` bytes (``echoed_length``).
    """

    direction: Literal["<", ">"]
    type: str
    code: str | None = None
    mtu: int | None = None
    seq: tuple[int, int, int] | None = None
    ecn: Ecn | None = None
    ip: tuple[tuple[str, int], ...] = ()
    echo_id: int | None = None
    echoed: Literal["tcp", "udp", "raw"] | None = None
    echoed_length: int | None = None


@dataclass(frozen=True)
class UdpPacket:
    """A UDP datagram ``udp (len)``."""

    direction: Literal["<", ">"]
    length: int
    ecn: Ecn | None = None
    ip: tuple[tuple[str, int], ...] = ()
    ports: tuple[int, int] | None = None


@dataclass(frozen=True)
class Assertion:
    """A ``%{ ... }%`` Python block over ``tcpi_*`` fields: its code, blanks trimmed."""

    code: str


@dataclass(frozen=True)
class Command:
    """A back-quoted shell command: its text between the back quotes."""

    text: str


Action = Syscall | TcpPacket | IcmpPacket | UdpPacket | Assertion | Command


@dataclass(frozen=True)
class Event:
    """One timed statement of the script and the line it starts on."""

    time: Time
    action: Action
    line: int


@dataclass(frozen=True)
class ScriptOption:
    """A ``--name=value`` line before the events (value None for a bare ``--name``)."""

    name: str
    value: str | None
    line: int


@dataclass(frozen=True)
class Script:
    """A parsed script: its options, its events, and its untimed shell commands.

    ``init_command`` and ``cleanup_command`` are the back-quoted commands written without a
    time before the first event and after the last one.
    """

    name: str
    options: tuple[ScriptOption, ...] = ()
    init_command: Command | None = None
    events: tuple[Event, ...] = ()
    cleanup_command: Command | None = None
    path: str | None = field(default=None, compare=False)

    def option(self, name: str, default: str | None = None) -> str | None:
        """The value of ``--name`` (the last one if repeated), or ``default``."""
        for opt in reversed(self.options):
            if opt.name == name:
                return opt.value
        return default

    def syscalls(self) -> list[Syscall]:
        """The script's system calls in order."""
        return [e.action for e in self.events if isinstance(e.action, Syscall)]

    def packets(self) -> list[TcpPacket | IcmpPacket | UdpPacket]:
        """The script's packets in order."""
        kinds = (TcpPacket, IcmpPacket, UdpPacket)
        return [e.action for e in self.events if isinstance(e.action, kinds)]
