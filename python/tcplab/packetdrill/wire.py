"""Segments between a packetdrill script and a tcplab connection.

What an injected line becomes, and how an outgoing segment is laid out and checked
against an expected line.

Outgoing segments are laid out as Linux writes them (``tcp_options_write``): MSS first;
SACK-permitted and timestamps shared in one word when both are on, else each after two
NOPs; the window scale after a NOP; SACK blocks after two NOPs. Checks follow packetdrill's
``verify_outbound_live_packet``: flags, sequence range, ACK, window and options where the
script writes them, the timestamp's value only with ``--tcp_ts_tick_usecs``, the IP ECN
field where the script writes it. PSH is not compared: Linux sets it from its socket
buffers' boundaries (``tcp_mark_push``, ``forced_push``), which tcplab does not keep.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tcplab.packetdrill.script import TcpOption, TcpPacket

#: packetdrill's flag letters and the TCP header bits they stand for.
FLAG_BITS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, ".": 0x10, "U": 0x20, "E": 0x40,
             "W": 0x80}
_ORDER = "SFRPUEW."
FIN, SYN, PSH, ACK = 0x01, 0x02, 0x08, 0x10


def flag_bits(text: str) -> int:
    """The header bits of packetdrill's flags text (``S.``, ``P.``, ``-``)."""
    bits = 0
    for ch in text:
        if ch in FLAG_BITS:
            bits |= FLAG_BITS[ch]
    return bits


def flag_text(bits: int) -> str:
    """Packetdrill's flags text of header bits, in its own order."""
    s = "".join(ch for ch in _ORDER if bits & FLAG_BITS[ch])
    return s or "-"


@dataclass
class Out:
    """An outgoing segment, after coalescing (see :func:`merge`)."""

    time_ns: int
    half: str
    seq: int
    ack: int
    flags: int
    length: int
    wnd: int
    ts_val: int
    ts_ecr: int
    sack: list[tuple[int, int]] = field(default_factory=list)
    retx: bool = False
    ect: bool = False

    @classmethod
    def from_core(cls, t: tuple) -> Out:  # type: ignore[type-arg]
        """From the tuple ``_core.Drill.take`` gives."""
        return cls(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], list(t[9]),
                   t[10], t[11])

    @property
    def end(self) -> int:
        """The sequence number after the segment's payload."""
        return self.seq + self.length


@dataclass
class Layout:
    """What the options of this end's segments hold, once the handshake agreed them."""

    mss: int
    sack_ok: bool
    timestamps: bool
    wscale: int | None


def options(out: Out, lay: Layout, ts_val: int | None) -> list[TcpOption]:
    """The options of ``out`` as Linux lays them out.

    ``ts_val`` is the timestamp value to show (the script's units), None to leave it.
    """
    opts: list[TcpOption] = []
    val = out.ts_val if ts_val is None else ts_val
    ts = TcpOption("TS", value=val, ecr=out.ts_ecr)
    if out.flags & SYN:
        opts.append(TcpOption("mss", value=lay.mss))
        if lay.timestamps and lay.sack_ok:
            opts += [TcpOption("sackOK"), ts]
        elif lay.timestamps:
            opts += [TcpOption("nop"), TcpOption("nop"), ts]
        elif lay.sack_ok:
            opts += [TcpOption("nop"), TcpOption("nop"), TcpOption("sackOK")]
        if lay.wscale is not None:
            opts += [TcpOption("nop"), TcpOption("wscale", value=lay.wscale)]
        return opts
    if lay.timestamps:
        opts += [TcpOption("nop"), TcpOption("nop"), ts]
    if out.sack:
        opts += [TcpOption("nop"), TcpOption("nop"), TcpOption("sack", blocks=tuple(out.sack))]
    return opts


def option_text(o: TcpOption) -> str:
    """One option in the script's notation."""
    if o.kind in ("mss", "wscale"):
        return f"{o.kind} {o.value}"
    if o.kind == "TS":
        return f"TS val {o.value} ecr {o.ecr}"
    if o.kind == "sack":
        return "sack " + " ".join(f"{a}:{b}" for a, b in o.blocks)
    return o.kind


def describe(out: Out, opts: list[TcpOption] | None = None) -> str:
    """One outgoing segment in the script's own notation."""
    s = f"{flag_text(out.flags)} {out.seq}:{out.end}({out.length})"
    if out.flags & ACK:
        s += f" ack {out.ack}"
    s += f" win {out.wnd}"
    if opts:
        s += " <" + ",".join(option_text(o) for o in opts) + ">"
    if out.ect:
        s = "[ect0] " + s
    return s


def expected_text(p: TcpPacket) -> str:
    """An expected segment in the script's notation."""
    s = f"{p.flags} {p.seq}:{p.seq_end}({p.length})"
    if p.ack is not None:
        s += f" ack {p.ack}"
    if p.win is not None:
        s += f" win {p.win}"
    if p.options is not None:
        s += " <" + ",".join(option_text(o) for o in p.options) + ">"
    if p.ecn:
        s = f"[{p.ecn}] " + s
    return s


def merge(queue: list[Out], want_end: int, aggregate: bool) -> Out:
    """Takes the first queued segment, with those that continue it when ``aggregate``.

    Up to ``want_end``: packetdrill's own aggregation of sniffed segments into the one
    line a TSO/GSO segment is written as (``--strict_segments`` turns it off). The whole
    is checked at the first segment's time.
    """
    first = queue.pop(0)
    if not aggregate or first.length == 0 or first.flags & SYN:
        return first
    while (first.end < want_end and queue and queue[0].half == first.half
           and queue[0].seq == first.end and queue[0].length > 0
           and queue[0].flags & ~FIN == first.flags & ~FIN
           and queue[0].end <= want_end):
        nxt = queue.pop(0)
        first.length += nxt.length
        first.flags |= nxt.flags
        first.ack = nxt.ack
    return first


def mismatch(exp: TcpPacket, out: Out, opts: list[TcpOption], tick_us: int | None,
             tolerance_us: int) -> str | None:
    """Why ``out`` is not the segment ``exp`` describes, or None if it is."""
    want = flag_bits(exp.flags) & ~PSH
    if want != out.flags & ~PSH:
        return f"flags {flag_text(out.flags)}, expected {exp.flags}"
    if (exp.seq, exp.seq_end) != (out.seq, out.end):
        return f"sequence range {out.seq}:{out.end}, expected {exp.seq}:{exp.seq_end}"
    if exp.ack is not None and exp.ack != out.ack:
        return f"ack {out.ack}, expected {exp.ack}"
    if exp.win is not None and exp.win != out.wnd:
        return f"window {out.wnd}, expected {exp.win}"
    if exp.ecn is not None:
        have = "ect0" if out.ect else "noecn"
        if exp.ecn != have and not (exp.ecn == "ect01" and have == "ect0"):
            return f"IP ECN field {have}, expected {exp.ecn}"
    if exp.options is None or any(o.kind == "..." for o in exp.options):
        return None
    kinds = [o.kind for o in opts]
    if [o.kind for o in exp.options] != kinds:
        return (f"options <{','.join(option_text(o) for o in opts)}>, expected "
                f"<{','.join(option_text(o) for o in exp.options)}>")
    for e, a in zip(exp.options, opts, strict=True):
        if e.kind == "TS":
            if tick_us and e.value is not None and a.value is not None \
                    and abs(a.value - e.value) * tick_us > tolerance_us:
                return f"TS val {a.value}, expected {e.value} (ticks of {tick_us} us)"
        elif e.kind in ("mss", "wscale") and e.value != a.value:
            return f"{e.kind} {a.value}, expected {e.value}"
        elif e.kind == "sack" and tuple(e.blocks) != tuple(a.blocks):
            return f"{option_text(a)}, expected {option_text(e)}"
    return None
