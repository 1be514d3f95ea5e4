"""Running one packetdrill script against a tcplab connection under the linux profile.

The script plays the remote peer. Its lines happen at the times packetdrill gives them:
a relative time counts from the previous line's script time when both are injected packets,
else from the moment the previous line finished (for an expected packet, the moment it was
sent), as packetdrill's ``adjust_relative_event_times`` does. Between lines the connection's
timers fire in time order; what it sends queues up, and each ``>`` line takes the next
queued segment (with those sent at the same instant that continue it: Linux's TSO/GSO
segment, see :func:`tcplab.packetdrill.wire.merge`) and checks its time, within
packetdrill's tolerance, and its fields. See docs/packetdrill.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tcplab.packetdrill import tcpinfo, wire
from tcplab.packetdrill.env import Env
from tcplab.packetdrill.script import (
    Array,
    Assertion,
    Command,
    Elided,
    Event,
    Expr,
    IcmpPacket,
    Int,
    Name,
    Script,
    Str,
    Syscall,
    TcpPacket,
    UdpPacket,
)

#: Simulated time of the script's time 0 (timestamps of 0 would mean "none").
ORIGIN_NS = 1_000_000_000
#: How long past an expected packet's time the runner waits for it.
PATIENCE_US = 10_000_000


class Skip(Exception):
    """The script uses something tcplab does not model: the reason."""


class Fail(Exception):
    """The first line where the connection and the script disagree."""

    def __init__(self, line: int, reason: str, expected: str | None = None,
                 actual: str | None = None) -> None:
        super().__init__(reason)
        self.line, self.reason, self.expected, self.actual = line, reason, expected, actual


_SKIP_SOCKOPTS = {
    "TCP_CORK": "TCP_CORK", "TCP_INQ": "TCP_INQ", "TCP_NOTSENT_LOWAT": "TCP_NOTSENT_LOWAT",
    "TCP_USER_TIMEOUT": "TCP_USER_TIMEOUT", "IP_TOS": "IP_TOS (the ECN bits set by hand)",
    "IP_MTU_DISCOVER": "path MTU discovery", "TCP_INFO": "TCP_INFO read by getsockopt",
    "SO_LINGER": "SO_LINGER", "TCP_REPAIR": "TCP_REPAIR", "TCP_SAVE_SYN": "TCP_SAVE_SYN",
    "TCP_DEFER_ACCEPT": "TCP_DEFER_ACCEPT", "TCP_QUICKACK": "TCP_QUICKACK",
    "SO_MAX_PACING_RATE": "SO_MAX_PACING_RATE (pacing: issue 55)",
    "TCP_TX_DELAY": "TCP_TX_DELAY",
}


def _int(e: Expr) -> int | None:
    if isinstance(e, Int):
        return e.value
    if isinstance(e, Array) and len(e.items) == 1:
        return _int(e.items[0])
    return None


@dataclass
class _Peer:
    """What the handshake agreed."""

    layout: wire.Layout
    mss: int
    shift: int


class Runner:
    """One script's run: the connection, its queue of sent segments, the clock."""

    def __init__(self, script: Script, env: Env) -> None:
        from tcplab import _core

        self.s, self.env = script, env
        self.d = _core.Drill()
        self.tol_us = int(script.option("tolerance_usecs", "4000") or 4000)
        self.tol_pct = float(script.option("tolerance_percent", "12.5") or 12.5)
        tick = script.option("tcp_ts_tick_usecs")
        self.tick_us = int(tick) if tick else None
        v6 = (script.option("ip_version") or "ipv4") == "ipv6"
        self.path_mtu = 1500
        self.local_mss = env.local_mss() - (20 if v6 else 0)
        self.now_us = 0
        self.queue: list[wire.Out] = []
        self.state = "closed"
        self.peer: _Peer | None = None
        self.syn_at_us = 0
        self.read_bytes = 0
        self.listen_fd: int | None = None
        self.conn_fd: int | None = None
        self.shut_rd = False
        #: A blocking call in progress: its line, the call, when it must return.
        self.pending: tuple[int, Syscall, int] | None = None
        self.ts_map: dict[int, int] = {}
        self.ts_first: tuple[int, int] | None = None
        self.asserts = [0, 0]

    # ---------------------------------------------------------------- time

    def ns(self, us: int) -> int:
        """Script time (us) as simulated time (ns)."""
        return ORIGIN_NS + us * 1000

    def _pull(self) -> None:
        for t in self.d.take():
            self.queue.append(wire.Out.from_core(t))

    def advance(self, until_us: int, inclusive: bool = False) -> None:
        """Fires the connection's timers due before ``until_us`` (or at it)."""
        while True:
            dl = self.d.next_deadline()
            if dl is None:
                break
            if dl > self.ns(until_us) or (dl == self.ns(until_us) and not inclusive):
                break
            self.d.fire(dl)
            self._pull()
        self.now_us = max(self.now_us, until_us)

    # ---------------------------------------------------------------- events

    def run(self) -> None:
        """Plays the script's events in order; raises :class:`Skip` or :class:`Fail`."""
        last_script_us: int | None = None
        prev: Event | None = None
        for ev in self.s.events:
            t = ev.time
            anchored = (prev is not None and _inbound(prev) and _inbound(ev))
            if t.kind == "absolute":
                at = t.start_us or 0
            elif t.kind == "any":
                at = self.now_us
            else:
                base = last_script_us if anchored and last_script_us is not None else self.now_us
                at = base + (t.start_us or 0)
            end = None
            if t.end_us is not None:
                end = t.end_us if t.kind == "absolute" else at - (t.start_us or 0) + t.end_us
            self.overdue(at)
            if t.end_kind == "blocking" and isinstance(ev.action, Syscall):
                self.block(ev.line, ev.action, at, end if end is not None else at)
            else:
                self.event(ev, at, end, last_script_us if t.kind != "any" else None)
            self.settle()
            last_script_us, prev = at, ev
        if self.pending is not None:
            line, call, end_us = self.pending
            raise Fail(line, f"blocking {call.name} never returned", f"by {end_us / 1e6:.6f} s",
                       "the script ended")

    # ---------------------------------------------------------------- blocking calls

    def block(self, line: int, c: Syscall, at: int, end: int) -> None:
        """A blocking call (``a...b``): it starts now and must return at ``end``.

        The lines after it run meanwhile (packetdrill runs it in a thread of its own).
        """
        if self.pending is not None:
            raise Skip("two blocking system calls at once")
        self.advance(at)
        if c.name not in ("accept", "connect", "read", "recv", "recvmsg"):
            raise Skip(f"blocking {c.name} (send buffer limits)")
        if c.name == "connect":
            self._connect()
        self.pending = (line, c, end)

    def _done(self, c: Syscall) -> bool:
        if c.name in ("accept", "connect"):
            return self.state == "established"
        want = _int(c.result) or 0
        info = self.d.info() or {}
        return int(info.get("received", 0)) - self.read_bytes >= want

    def settle(self) -> None:
        """Returns the blocking call, if its condition now holds, checking its time."""
        if self.pending is None:
            return
        line, c, end = self.pending
        if not self._done(c):
            return
        self.pending = None
        if abs(self.now_us - end) > self.tol_us:
            raise Fail(line, f"blocking {c.name} returned at {self.now_us / 1e6:.6f} s",
                       f"at {end / 1e6:.6f} s (+-{self.tol_us} us)", f"{self.now_us / 1e6:.6f}")
        if c.name in ("read", "recv", "recvmsg"):
            self._read(line, c.name, _int(c.result))
        elif c.name == "accept":
            self.conn_fd = _int(c.result)

    def overdue(self, at: int) -> None:
        """Fails a blocking call still waiting past its return time."""
        if self.pending is not None and at > self.pending[2] + self.tol_us:
            self.advance(self.pending[2] + self.tol_us, inclusive=True)
            self.settle()
            if self.pending is not None:
                line, call, end_us = self.pending
                raise Fail(line, f"blocking {call.name} did not return",
                           f"by {end_us / 1e6:.6f} s", "still blocked")

    def event(self, ev: Event, at: int, end: int | None, last: int | None) -> None:
        """One event at script time ``at`` (``end``: its range's end)."""
        a = ev.action
        if isinstance(a, TcpPacket) and a.direction == "<":
            self.advance(at)
            self.inject(ev.line, a)
        elif isinstance(a, TcpPacket):
            self.expect(ev.line, a, at, end, last)
        elif isinstance(a, (IcmpPacket, UdpPacket)):
            raise Skip(f"{type(a).__name__.replace('Packet', '').upper()} packets")
        elif isinstance(a, Syscall):
            self.advance(at)
            self.syscall(ev.line, a)
        elif isinstance(a, Assertion):
            self.advance(at)
            self.check(ev.line, a)
        elif isinstance(a, Command):
            self.advance(at)
            before = len(self.env.unmodelled)
            self.env.command(a.text, _folder(self.s))
            if len(self.env.unmodelled) > before:
                raise Skip(self.env.unmodelled[-1])

    # ---------------------------------------------------------------- packets in

    def _ecr(self, ecr: int | None) -> int:
        if ecr is None:
            return 0
        if ecr in self.ts_map:
            return self.ts_map[ecr]
        if self.ts_first is not None:
            script0, ns0 = self.ts_first
            return max(0, ns0 + (ecr - script0) * (self.tick_us or 1000) * 1000)
        return 0

    def _segment(self, p: TcpPacket) -> tuple:  # type: ignore[type-arg]
        ts_val = ts_ecr = 0
        sack: list[tuple[int, int]] = []
        for o in p.options or ():
            if o.kind == "TS":
                ts_val, ts_ecr = o.value or 0, self._ecr(o.ecr)
            elif o.kind == "sack":
                sack = list(o.blocks)
        return (p.seq, p.ack or 0, wire.flag_bits(p.flags), p.length,
                min(p.win if p.win is not None else 65535, 65535), ts_val, ts_ecr, sack)

    def inject(self, line: int, p: TcpPacket) -> None:
        """A ``<`` line: the segment goes into the connection now."""
        bits = wire.flag_bits(p.flags)
        if bits & wire.FLAG_BITS["R"]:
            raise Skip("RST segments")
        if p.options and any(o.kind in ("FO", "FOEXP", "md5", "ECN") for o in p.options):
            raise Skip("TCP options tcplab does not model (fastopen, MD5, AccECN)")
        seg = self._segment(p)
        ce = p.ecn == "ce"
        now = self.ns(self.now_us)
        if bits & wire.SYN and not bits & wire.ACK:
            if self.state != "listen":
                raise Skip("a SYN to a socket that is not listening")
            self.peer = self._agree(p, server=True)
            self.d.passive_open(now, json.dumps(self._flow(p)), self.path_mtu,
                                self.peer.shift, seg, ce)
            self.state = "syn_received"
        elif bits & wire.SYN:
            if self.state != "syn_sent":
                raise Skip("a SYN-ACK to a socket that sent no SYN")
            self.peer = self._agree(p, server=False)
            self.d.active_open(now, self.ns(self.syn_at_us), json.dumps(self._flow(p)),
                               self.path_mtu, self.peer.shift, seg)
            self.state = "established"
        else:
            self.d.inject(now, seg, ce)
            if self.state == "syn_received" and bits & wire.ACK and p.ack == 1:
                self.state = "established"
        self._pull()

    def _agree(self, p: TcpPacket, server: bool) -> _Peer:
        kinds = {o.kind: o for o in p.options or ()}
        env = self.env
        sack = env.sack and "sackOK" in kinds
        ts = env.timestamps and "TS" in kinds
        ws = env.window_scaling and "wscale" in kinds
        peer_mss = kinds["mss"].value if "mss" in kinds and kinds["mss"].value else 536
        mss = min(peer_mss, self.local_mss) - (12 if ts else 0)
        shift = min(14, kinds["wscale"].value or 0) if ws else 0
        layout = wire.Layout(self.local_mss, sack, ts, env.wscale() if ws else None)
        return _Peer(layout, mss, shift)

    def _flow(self, p: TcpPacket) -> dict[str, object]:
        assert self.peer is not None
        bits = wire.flag_bits(p.flags)
        if bits & wire.ACK:  # a SYN-ACK: ECN if we asked and it says ECE
            ecn = self.env.ecn == 1 and bool(bits & wire.FLAG_BITS["E"])
        else:
            ecn = self.env.ecn in (1, 2) and (bits & 0xC0) == 0xC0
        lay = self.peer.layout
        return self.env.flow(mss=self.peer.mss, sack=lay.sack_ok, timestamps=lay.timestamps,
                             window_scaling=lay.wscale is not None, ecn=ecn)

    # ---------------------------------------------------------------- packets out

    def expect(self, line: int, p: TcpPacket, at: int, end: int | None,
               last: int | None) -> None:
        """A ``>`` line: the next segment sent must be this one, in time."""
        tol = self.tol_us
        if last is not None:
            tol = max(tol, int(self.tol_pct / 100 * (at - last)))
        lo, hi = at - tol, (end if end is not None else at) + tol
        if wire.flag_bits(p.flags) & wire.FLAG_BITS["R"]:
            raise Skip("RST segments")
        if p.ecn == "ce" or (p.options and any(o.kind in ("FO", "FOEXP", "md5", "ECN")
                                               for o in p.options)):
            raise Skip("an outgoing segment tcplab cannot send (CE mark, fastopen, AccECN)")
        limit = max(hi, self.now_us) + PATIENCE_US
        while not self.queue:
            dl = self.d.next_deadline()
            if dl is None or dl > self.ns(limit):
                raise Fail(line, "nothing sent", wire.expected_text(p),
                           f"nothing by {limit / 1e6:.3f} s")
            self.d.fire(dl)
            self._pull()
            self.now_us = max(self.now_us, (dl - ORIGIN_NS) // 1000)
        strict = any(o.name == "strict_segments" for o in self.s.options)
        out = wire.merge(self.queue, p.seq_end, not strict and p.length > 0)
        sent_us = (out.time_ns - ORIGIN_NS) // 1000
        self.now_us = max(self.now_us, sent_us)
        opts = self._options(out, p)
        why = wire.mismatch(p, out, opts, self.tick_us, self.tol_us)
        if why is None and p.flags != "*" and not lo <= sent_us <= hi:
            why = f"sent at {sent_us / 1e6:.6f} s, expected at {at / 1e6:.6f} s (+-{tol} us)"
        if why is not None:
            raise Fail(line, why, wire.expected_text(p), f"{sent_us / 1e6:.6f} "
                       + wire.describe(out, opts))

    def _options(self, out: wire.Out, p: TcpPacket) -> list:  # type: ignore[type-arg]
        if self.peer is not None:
            lay = self.peer.layout
        else:  # this end's SYN
            env = self.env
            lay = wire.Layout(self.local_mss, env.sack, env.timestamps,
                              env.wscale() if env.window_scaling else None)
        script_ts = next((o.value for o in p.options or () if o.kind == "TS"), None)
        shown = None
        if lay.timestamps and out.ts_val:
            if self.ts_first is None and script_ts is not None:
                self.ts_first = (script_ts, out.ts_val)
            if self.ts_first is not None:
                tick_ns = (self.tick_us or 1000) * 1000
                shown = self.ts_first[0] + (out.ts_val - self.ts_first[1]) // tick_ns
            if script_ts is not None:
                self.ts_map[script_ts] = out.ts_val
        return wire.options(out, lay, shown)

    # ---------------------------------------------------------------- system calls

    def syscall(self, line: int, c: Syscall) -> None:
        """A system call, mapped onto the connection's application."""
        want = _int(c.result)
        now = self.ns(self.now_us)
        name = c.name
        if name in ("setsockopt", "getsockopt"):
            self.sockopt(line, c)
            return
        if name == "socket":
            if any(isinstance(a, Name) and a.name == "SOCK_DGRAM" for a in c.args):
                raise Skip("UDP sockets")
            if self.conn_fd is not None or self.listen_fd is not None:
                raise Skip("more than one socket")
            self.conn_fd = want
            return
        if name in ("bind", "fcntl"):
            return
        if name == "listen":
            self.state = "listen"
            self.listen_fd, self.conn_fd = self.conn_fd, None
            return
        if name == "accept":
            if self.state != "established":
                raise Fail(line, "accept: no connection established", None, self.state)
            if self.conn_fd is not None:
                raise Skip("more than one connection")
            self.conn_fd = want
            return
        if name == "connect":
            self._connect()
            return
        if name in ("write", "send", "sendmsg", "sendto", "writev"):
            flags = {x.name for a in c.args[2:] for x in _flat(a) if isinstance(x, Name)}
            for f, why in (("MSG_EOR", "MSG_EOR (record boundaries in the send queue)"),
                           ("MSG_MORE", "MSG_MORE (corking)")):
                if f in flags:
                    raise Skip(why)
            if want is None or want < 0:
                raise Skip(f"{name} that fails or blocks (send buffer limits)")
            self.d.write(now, want)
            self._pull()
            return
        if name in ("read", "recv", "recvmsg", "recvfrom", "readv"):
            self._read(line, name, want)
            return
        if name in ("close", "shutdown"):
            fd = _int(c.args[0]) if c.args else None
            if fd is not None and fd == self.listen_fd:
                return
            how = c.args[1] if name == "shutdown" and len(c.args) > 1 else None
            how_name = how.name if isinstance(how, Name) else ""
            if how_name in ("SHUT_RD", "SHUT_RDWR"):
                self.shut_rd = True
            if how_name != "SHUT_RD" and self.state not in ("listen", "closed"):
                self.d.close(now)
                self._pull()
            return
        raise Skip(f"system call {name}")

    def _connect(self) -> None:
        env = self.env
        self.state = "syn_sent"
        self.syn_at_us = self.now_us
        flags = wire.SYN | (0xC0 if env.ecn == 1 else 0)
        rcv = env.rcvbuf * 2 if env.rcvbuf else env.rmem[1]
        self.queue.append(wire.Out(self.ns(self.now_us), "sender", 0, 0, flags, 0,
                                   min(rcv, 65535), self.ns(self.now_us) if env.timestamps
                                   else 0, 0))

    def _read(self, line: int, name: str, want: int | None) -> None:
        info = self.d.info() or {}
        have = int(info.get("received", 0)) - self.read_bytes
        if want is None:
            return
        if want < 0:
            if have > 0:
                raise Fail(line, f"{name}: {have} bytes were ready", "EAGAIN", str(have))
            return
        if want == 0 and not info.get("fin_received") and not self.shut_rd:
            raise Fail(line, f"{name}: no FIN received", "0 (end of stream)", "no FIN")
        if have < want:
            raise Fail(line, f"{name}: {have} bytes ready, expected {want}", str(want),
                       str(have))
        self.read_bytes += want

    def sockopt(self, line: int, c: Syscall) -> None:
        """The socket options tcplab models (set or read), else a skip."""
        opt = c.args[2] if len(c.args) > 2 else None
        name = opt.name if isinstance(opt, Name) else str(opt)
        val = c.args[3] if len(c.args) > 3 else Elided()
        if c.name == "getsockopt":
            if name == "SO_ERROR":
                return
            if name == "TCP_MAXSEG":
                # Linux's mss_cache once connected (the MSS less the options
                # every segment carries), else the user's TCP_MAXSEG or 536.
                info = self.d.info()
                have = (int(info["mss"]) if info is not None
                        else self.env.maxseg or 536)
                if _int(val) != have:
                    raise Fail(line, f"getsockopt TCP_MAXSEG: {have}", str(_int(val)), str(have))
                return
            raise Skip(_SKIP_SOCKOPTS.get(name, f"getsockopt {name}"))
        # Read and ignored: tcplab models no send buffer and no Nagle (it
        # never holds a small segment back, as with TCP_NODELAY).
        if name in ("SO_REUSEADDR", "SO_SNDBUF", "SO_KEEPALIVE", "SO_REUSEPORT", "TCP_NODELAY"):
            return
        if name == "TCP_MAXSEG":
            self.env.maxseg = _int(val)
            self.local_mss = self.env.local_mss()
        elif name == "SO_RCVBUF":
            self.env.rcvbuf = _int(val)
        elif name == "TCP_CONGESTION" and isinstance(val, Str):
            self.env.sysctl("tcp_congestion_control", val.value)
            if self.env.unmodelled:
                raise Skip(self.env.unmodelled[-1])
        else:
            raise Skip(_SKIP_SOCKOPTS.get(name, f"socket option {name}"))

    # ---------------------------------------------------------------- tcp_info

    def tcp_info(self) -> dict[str, int]:
        """The ``tcpi_*`` fields tcplab keeps, now (see :mod:`tcplab.packetdrill.tcpinfo`)."""
        return tcpinfo.fields(self.d.info())

    def check(self, line: int, a: Assertion) -> None:
        """A ``%{ }%`` block: checked when every ``tcpi_*`` field it names is kept."""
        checked = tcpinfo.check(a.code, self.tcp_info())
        if checked is None:
            self.asserts[1] += 1
            return
        if checked:
            raise Fail(line, "tcp_info assertion failed", " ".join(a.code.split()), checked)
        self.asserts[0] += 1


def _flat(e: Expr) -> list[Expr]:
    """``e`` and the values inside it (flags joined with ``|``)."""
    from tcplab.packetdrill.script import BitOr

    if isinstance(e, BitOr):
        return [y for x in e.items for y in _flat(x)]
    return [e]


def _inbound(ev: Event) -> bool:
    return isinstance(ev.action, TcpPacket) and ev.action.direction == "<"


def _folder(s: Script) -> Path | None:
    return Path(s.path).parent if s.path else None
