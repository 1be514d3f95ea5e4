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
from tcplab.packetdrill.calls import Calls
from tcplab.packetdrill.env import Env
from tcplab.packetdrill.errors import Fail, Skip
from tcplab.packetdrill.script import (
    Assertion,
    Command,
    Event,
    IcmpPacket,
    Script,
    Syscall,
    TcpPacket,
    UdpPacket,
    int_value,
)

#: Simulated time of the script's time 0 (timestamps of 0 would mean "none").
ORIGIN_NS = 1_000_000_000
#: Where the runner does not model a local qdisc dropping everything.
_LOCAL_DROP_SKIP = ("a local qdisc that drops every packet, with segments in flight or before "
                    "the connection")
#: The system calls that write.
_WRITES = ("write", "send", "sendto", "sendmsg", "writev")
#: How long past an expected packet's time the runner waits for it.
PATIENCE_US = 10_000_000


@dataclass
class _Peer:
    """What the handshake agreed."""

    layout: wire.Layout
    mss: int
    shift: int


class Runner(Calls):
    """One script's run: the connection, its queue of sent segments, the clock."""

    def __init__(self, script: Script, env: Env) -> None:
        self.s, self.env = script, env
        self.tol_us = int(script.option("tolerance_usecs", "4000") or 4000)
        self.tol_pct = float(script.option("tolerance_percent", "12.5") or 12.5)
        tick = script.option("tcp_ts_tick_usecs")
        self.tick_us = int(tick) if tick else None
        self.v6 = (script.option("ip_version") or "ipv4") == "ipv6"
        self.path_mtu = 1500
        self.now_us = 0
        self.asserts = [0, 0]
        #: Descriptors the script closed.
        self.closed_fds: set[int] = set()
        self.listen_fd: int | None = None
        self.conn_fd: int | None = None
        self._connection_init()

    def _connection_init(self) -> None:
        """A socket's state, fresh: at the start, and for a script's next socket."""
        from tcplab import _core

        self.d = _core.Drill()
        self.local_mss = self.env.local_mss() - (20 if self.v6 else 0)
        self.queue: list[wire.Out] = []
        self.state = "closed"
        self.peer: _Peer | None = None
        self.syn_at_us = 0
        self.read_bytes = 0
        self.shut_rd = False
        #: The application shut its sending side (``close`` or ``SHUT_WR``).
        self.shut_wr = False
        #: Bytes the application wrote.
        self.written = 0
        #: This end closed after the peer's FIN (Linux's LAST_ACK): once its FIN is
        #: acknowledged, the socket is gone.
        self.last_ack = False
        #: Linux would hold no socket any more: segments get a RST (RFC 793's reset
        #: generation, Linux's ``tcp_v4_send_reset``).
        self.gone = False
        #: TCP_USER_TIMEOUT (ns; 0 is off), and Linux's ``retrans_stamp``: when the oldest
        #: segment outstanding was sent, once something was retransmitted (None else).
        self.user_timeout_ns = 0
        self.retrans_stamp: int | None = None
        #: Why the connection died (``ETIMEDOUT``), for the calls after.
        self.error: str | None = None
        #: A local qdisc drops every packet: the probe timer of unsent data, its probes
        #: (``tcpi_probes``) and when the first went (``icsk_probes_tstamp``).
        self.local_drop = False
        self.probe0_at: int | None = None
        self.probes = 0
        self.probes_tstamp: int | None = None
        self.dead_info: dict[str, object] | None = None
        #: TCP_INQ is on: ``recvmsg`` reports the bytes left to read.
        self.inq = False
        #: A blocking call in progress: its line, the call, when it must return.
        self.pending: tuple[int, Syscall, int] | None = None
        self.ts_map: dict[int, int] = {}
        self.ts_first: tuple[int, int] | None = None
        self._writes_init()

    # ---------------------------------------------------------------- time

    def ns(self, us: int) -> int:
        """Script time (us) as simulated time (ns)."""
        return ORIGIN_NS + us * 1000

    def _pull(self) -> None:
        outs = [wire.Out.from_core(t) for t in self.d.take()]
        self.queue.extend(outs)
        self.sb_seen(outs)
        self._retrans_stamp()

    def _retrans_stamp(self) -> None:
        """Keeps Linux's ``retrans_stamp`` as TCP_USER_TIMEOUT reads it.

        Set to the time of the first retransmission, as ``tcp_retransmit_skb`` saves it; a
        loss probe's does not count (``tcp_send_loss_probe`` resends through
        ``__tcp_retransmit_skb``). Cleared once no retransmitted data is outstanding
        (``tcp_retrans_stamp_cleanup``). The real kernel agrees: tests/packetdrill/
        user-timeout.pkt passes on it.
        """
        info = self.d.info()
        if info is None:
            return
        kinds: dict[int, set[str]] = {}
        for t, kind in self.d.events():  # drained at every pull, timeout or not
            kinds.setdefault(t, set()).add(kind)
        resent = [t for t, k in kinds.items() if "retransmit" in k and "loss_probe" not in k]
        if self.retrans_stamp is None and resent:
            self.retrans_stamp = min(resent)
        if self.retrans_stamp is not None and (int(info["snd_una"]) >= int(info["snd_max"])
                                               or info.get("retrans") == 0):
            self.retrans_stamp = None

    def _deadline(self) -> int | None:
        """The connection's next timer, or TCP_USER_TIMEOUT's end if sooner.

        Linux clamps the retransmission timer to the user timeout's end
        (``tcp_clamp_rto_to_user_timeout``) and, when it fires there, gives up
        (``tcp_write_timeout``).
        """
        dl = self.d.next_deadline()
        if self.retrans_stamp is not None and self.user_timeout_ns and dl is not None:
            dl = min(dl, self.retrans_stamp + self.user_timeout_ns)
        if self.probe0_at is not None:
            dl = self.probe0_at if dl is None else min(dl, self.probe0_at)
        return dl

    # ---------------------------------------------------------------- a local qdisc dropping all

    def _local_drop(self) -> None:
        """``tc ... limit 0``: every transmission fails locally from now on.

        Linux leaves the data in the write queue and probes it (``tcp_check_probe_timer``,
        ``tcp_probe_timer``, ``tcp_send_probe0``): the first probe an RTO (at least 200 ms)
        after the failed push, then every ``TCP_RESOURCE_PROBE_INTERVAL`` (500 ms) without
        backing off, each counted in ``tcpi_probes``; with TCP_USER_TIMEOUT the connection
        dies that long after the first probe (the timer clamped to it), or after
        ``tcp_retries2`` (15) probes.
        """
        info = self.d.info() or {}
        if self.state != "established" or int(info.get("snd_max", 0)) > int(info.get("snd_una", 0)):
            raise Skip(_LOCAL_DROP_SKIP)
        self.local_drop = True
        self.d.set_local_drop(self.ns(self.now_us), True)
        self._arm_probe0()

    def _arm_probe0(self) -> None:
        if self.local_drop and self.probe0_at is None and self.d.unsent() > 0:
            rto = int((self.d.info() or {}).get("rto", 0))
            self.probe0_at = self.ns(self.now_us) + max(rto, 200_000_000)

    def _probe0(self, t: int) -> None:
        self.probe0_at = None
        if self.d.unsent() == 0:
            return
        ut = self.user_timeout_ns
        if self.probes_tstamp is None:
            self.probes_tstamp = t
        elif (ut and t - self.probes_tstamp >= ut) or self.probes >= 15:
            self._timed_out(t)
            return
        self.probes += 1  # the probe fails locally too: no backoff
        wait = 500_000_000
        if ut:
            wait = min(wait, max(ut - (t - self.probes_tstamp), 2_000_000))
        self.probe0_at = t + wait

    def _timed_out(self, t: int) -> None:
        """``tcp_write_err``: the connection is dropped without a RST.

        Calls get ETIMEDOUT, and ``%{ }%`` reads its last state.
        """
        self.dead_info = self.d.info()
        self.d.reset(t, False)
        self.gone, self.state, self.error = True, "closed", "ETIMEDOUT"
        self.retrans_stamp = self.probe0_at = None

    def _fire(self, dl: int) -> None:
        if self.probe0_at is not None and dl == self.probe0_at:
            self._probe0(dl)
            return
        if (self.retrans_stamp is not None and self.user_timeout_ns
                and dl >= self.retrans_stamp + self.user_timeout_ns):
            self._timed_out(dl)
            return
        self.d.fire(dl)
        self._pull()

    def advance(self, until_us: int, inclusive: bool = False) -> None:
        """Fires the connection's timers due before ``until_us`` (or at it)."""
        while True:
            dl = self._deadline()
            if dl is None:
                break
            if dl > self.ns(until_us) or (dl == self.ns(until_us) and not inclusive):
                break
            self._fire(dl)
        self.now_us = max(self.now_us, until_us)

    # ---------------------------------------------------------------- events

    def run(self) -> None:
        """Plays the script's events in order; raises :class:`Skip` or :class:`Fail`."""
        if self.env.local_drop:
            raise Skip(_LOCAL_DROP_SKIP)
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
        if c.name not in ("accept", "connect", "read", "recv", "recvmsg", "poll", *_WRITES):
            raise Skip(f"blocking {c.name}")
        if c.name == "connect":
            self._connect()
        elif c.name in _WRITES:
            self.syscall(line, c, blocking=True)  # copies what the send buffer takes now
        elif c.name == "poll":
            self.poll_start(c)
        self.pending = (line, c, end)

    def _done(self, c: Syscall) -> bool:
        if c.name in ("accept", "connect"):
            return self.state == "established"
        if c.name in _WRITES:
            return self.write_left == 0
        if c.name == "poll":
            return self.poll_ready(c)
        want = int_value(c.result) or 0
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
            self._read(line, c.name, int_value(c.result))
        elif c.name == "poll":
            self.poll_check(line, c)
        elif c.name == "accept":
            self.conn_fd = int_value(c.result)

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
            if self.env.local_drop and not self.local_drop:
                self._local_drop()

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
        if self.gone:
            self._reset_reply(p, bits)
            return
        if bits & wire.FLAG_BITS["R"]:
            raise Skip("RST segments into a connection")
        if (self.shut_wr and self.shut_rd and not self.last_ack and p.length > 0
                and p.seq + p.length > 1 + self._unread() + self.read_bytes):
            # New data after this end closed both ways and before the peer's FIN
            # (FIN_WAIT1/2): RFC 1122 4.2.2.13 and tcp_rcv_state_process reset.
            self.d.reset(self.ns(self.now_us), False)
            self.gone, self.state = True, "closed"
            self._reset_reply(p, bits)
            return
        if p.options and any(o.kind in ("FO", "FOEXP", "md5", "ECN") for o in p.options):
            raise Skip("TCP options tcplab does not model (fastopen, MD5, AccECN)")
        seg = self._segment(p)
        ce = p.ecn == "ce"
        now = self.ns(self.now_us)
        if bits & wire.SYN and not bits & wire.ACK:
            if self.state != "listen":
                raise Skip("a SYN to a socket that is not listening")
            self.peer = self._agree(p, server=True)
            self._pacing()
            self.d.passive_open(now, json.dumps(self._flow(p)), self.path_mtu,
                                self.peer.shift, seg, ce)
            self.state = "syn_received"
        elif bits & wire.SYN:
            if self.state != "syn_sent":
                raise Skip("a SYN-ACK to a socket that sent no SYN")
            self.peer = self._agree(p, server=False)
            self._pacing()
            self.d.active_open(now, self.ns(self.syn_at_us), json.dumps(self._flow(p)),
                               self.path_mtu, self.peer.shift, seg)
            self.state = "established"
            self.established(self.peer.mss)
        else:
            self.d.inject(now, seg, ce)
            if self.state == "syn_received" and bits & wire.ACK and p.ack == 1:
                self.state = "established"
                assert self.peer is not None
                self.established(self.peer.mss)
        if p.win is not None and self.peer is not None:
            self.peer_window(p.win << (0 if bits & wire.SYN else self.peer.shift))
        self._pull()
        self.write_space()
        self._check_gone()

    def _check_gone(self) -> None:
        """LAST_ACK ends when this end's FIN is acknowledged: the socket is gone."""
        if self.last_ack and not self.gone:
            info = self.d.info() or {}
            if int(info.get("snd_una", 0)) >= self.written + 2:
                self.gone, self.state = True, "closed"

    def _reset_reply(self, p: TcpPacket, bits: int) -> None:
        """A segment for a socket that is gone: a RST answers it unless it is one.

        RFC 793 (3.4, "Reset Generation"): if it carries an ACK, the RST's sequence number is
        that ACK and the RST carries no ACK; else its sequence number is 0 and it
        acknowledges the segment. No options, a window of 0 (``tcp_v4_send_reset``).
        """
        if bits & wire.FLAG_BITS["R"] or self.local_drop:
            return  # never a RST for a RST; and a local qdisc drops it
        rst = wire.FLAG_BITS["R"]
        if bits & wire.ACK:
            seq, ack, flags = p.ack or 0, 0, rst
        else:
            seq = 0
            ack = p.seq + p.length + (1 if bits & wire.SYN else 0) + (1 if bits & wire.FIN else 0)
            flags = rst | wire.ACK
        self.queue.append(wire.Out(self.ns(self.now_us), "none", seq, ack, flags, 0, 0, 0, 0))

    def _pacing(self) -> None:
        """Under the fq qdisc, the connection is paced as Linux paces it."""
        env = self.env
        if env.fq:
            self.d.set_fq(env.pacing_ss_ratio, env.pacing_ca_ratio, env.min_tso_segs)

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
        if p.ecn == "ce" or (p.options and any(o.kind in ("FO", "FOEXP", "md5", "ECN")
                                               for o in p.options)):
            raise Skip("an outgoing segment tcplab cannot send (CE mark, fastopen, AccECN)")
        limit = max(hi, self.now_us) + PATIENCE_US
        while not self.queue:
            dl = self._deadline()
            if dl is None or dl > self.ns(limit):
                raise Fail(line, "nothing sent", wire.expected_text(p),
                           f"nothing by {limit / 1e6:.3f} s")
            self._fire(dl)
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
        if out.half == "none":  # a RST for a socket that is gone: no options
            return []
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

    # ---------------------------------------------------------------- tcp_info

    def tcp_info(self) -> dict[str, int]:
        """The ``tcpi_*`` fields tcplab keeps, now (see :mod:`tcplab.packetdrill.tcpinfo`)."""
        # After the connection died, its last state (Linux's socket keeps it).
        f = tcpinfo.fields(self.d.info() or self.dead_info)
        if f and self.local_drop:
            # Probes of unsent data under local drops (the persist timer's window probes
            # are not counted, so elsewhere the field stays unchecked).
            f["tcpi_probes"] = self.probes
        return f

    def check(self, line: int, a: Assertion) -> None:
        """A ``%{ }%`` block: checked when every ``tcpi_*`` field it names is kept."""
        checked = tcpinfo.check(a.code, self.tcp_info())
        if checked is None:
            self.asserts[1] += 1
            return
        if checked:
            raise Fail(line, "tcp_info assertion failed", " ".join(a.code.split()), checked)
        self.asserts[0] += 1


def _inbound(ev: Event) -> bool:
    return isinstance(ev.action, TcpPacket) and ev.action.direction == "<"


def _folder(s: Script) -> Path | None:
    return Path(s.path).parent if s.path else None
