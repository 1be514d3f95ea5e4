"""A script's writes and polls through Linux's send buffer (:mod:`.sndbuf`).

The write-side half of :class:`tcplab.packetdrill.run.Runner`: ``write`` and its kin copy
what the send buffer takes, block (``a...b``) or return short or EAGAIN (``O_NONBLOCK``,
``MSG_DONTWAIT``) when it is full; an ACK that frees enough room wakes a blocked writer or
a ``poll`` for POLLOUT, as ``tcp_check_space`` does. SO_SNDBUF and TCP_NOTSENT_LOWAT set
and read back. See docs/packetdrill.md ("Send buffer").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcplab.packetdrill import wire
from tcplab.packetdrill.errors import Fail, Skip
from tcplab.packetdrill.script import Array, Struct, Syscall, int_value, names
from tcplab.packetdrill.sndbuf import SendBuffer

if TYPE_CHECKING:
    from tcplab import _core
    from tcplab.packetdrill.env import Env

#: The poll bits the runner computes (others make the script skip).
POLL_BITS = {"POLLIN": 1, "POLLRDNORM": 1, "POLLOUT": 4, "POLLWRNORM": 4}


def write_length(c: Syscall, want: int | None) -> int | None:
    """The bytes a write call offers: its count argument (else what it must return)."""
    if c.name in ("write", "send", "sendto") and len(c.args) > 2:
        n = int_value(c.args[2])
        if n is not None:
            return n
    return want


class Writes:
    """Writes and polls of :class:`tcplab.packetdrill.run.Runner`."""

    d: _core.Drill
    env: Env
    now_us: int
    state: str
    written: int
    read_bytes: int
    shut_wr: bool

    def _writes_init(self) -> None:
        self.sb: SendBuffer | None = None
        #: O_NONBLOCK on the socket (fcntl).
        self.nonblock = False
        #: TCP_NOTSENT_LOWAT's socket option (0: the sysctl's value).
        self.lowat_opt = 0
        #: A blocked write: the bytes it still has to copy, and its MSG_EOR/MSG_MORE.
        self.write_left = 0
        self.write_flags = (False, False)

    def send_buffer(self) -> SendBuffer:
        """The socket's send queue (``sk_sndbuf`` from tcp_wmem's default at first)."""
        if self.sb is None:
            env = self.env
            self.sb = SendBuffer(env.wmem[1], wmem_max=env.wmem[2])
        self.sb.lowat = self.lowat_opt or self.env.notsent_lowat
        return self.sb

    # ---------------------------------------------------------------- writes

    def write_call(self, line: int, c: Syscall, want: int | None, flags: set[str],
                   blocking: bool) -> None:
        """A write that is allowed to succeed: copies what the send buffer takes."""
        n = write_length(c, want)
        if n is None:
            raise Skip(f"{c.name} of an unknown length")
        nonblock = self.nonblock or "MSG_DONTWAIT" in flags
        eor, more = "MSG_EOR" in flags, "MSG_MORE" in flags
        copied = self._copy(n, eor, more)
        if copied < n and blocking and not nonblock:
            self.write_left, self.write_flags = n - copied, (eor, more)
            return
        got = copied if copied or not n else -1
        if want is None:
            return
        if got < 0 and c.errno != "EAGAIN":
            raise Fail(line, f"{c.name}: the send buffer is full", f"{want} {c.errno or ''}",
                       "-1 EAGAIN")
        if got >= 0 and got != want:
            if not nonblock and copied < n:
                raise Fail(line, f"{c.name} blocks: the send buffer took {copied} bytes",
                           str(want), f"blocked after {copied}")
            raise Fail(line, f"{c.name}: {got} bytes copied", str(want), str(got))

    def _copy(self, n: int, eor: bool, more: bool) -> int:
        sb = self.send_buffer()
        now = self.ns(self.now_us)
        mss = int((self.d.info() or {}).get("mss", 536))

        def push(k: int, last: bool) -> None:
            self.d.write(now, k, eor and last, more and last)
            self._pull()

        copied = sb.copy(n, mss, push, eor)
        self.written += copied
        self._arm_probe0()
        return copied

    # ---------------------------------------------------------------- the queue's view

    def sb_seen(self, outs: list[wire.Out]) -> None:
        """What left (``outs``) and what was acknowledged, applied to the send queue."""
        sb = self.sb
        info = self.d.info() if sb is not None else None
        if sb is None or info is None:
            return
        mss = int(info["mss"])  # type: ignore[call-overload]
        sb.acked(int(info["snd_una"]), mss)  # type: ignore[call-overload]
        env = self.env
        segs = self.d.tso_segs(env.pacing_ss_ratio, env.pacing_ca_ratio, env.min_tso_segs)
        burst: list[int] = []
        for o in outs:
            if o.half != "sender" or o.length == 0:
                continue
            if o.retx or o.seq < sb.snd_nxt:
                sb.resent(o.seq, o.end)
            elif burst and o.seq == burst[1] and o.time_ns == burst[2]:
                burst[1] = o.end
            else:
                if burst:
                    sb.sent(burst[0], burst[1], segs, mss)
                burst = [o.seq, o.end, o.time_ns]
        if burst:
            sb.sent(burst[0], burst[1], segs, mss)

    def peer_window(self, win: int) -> None:
        """The peer offered ``win`` bytes (scaled): ``max_window`` for ``size_goal``."""
        sb = self.send_buffer()
        sb.max_window = max(sb.max_window, win)

    def established(self, mss_clamp: int) -> None:
        """``tcp_init_buffer_space``: an unlocked send buffer grows for the first window."""
        info = self.d.info() or {}
        if info:
            mss = int(info["mss"])  # type: ignore[call-overload]
            cwnd = int(info["cwnd"]) // mss  # type: ignore[call-overload]
            self.send_buffer().expand(mss, mss_clamp, cwnd, self.env.reordering)

    def write_space(self) -> None:
        """``tcp_check_space`` after an incoming segment: wakes a waiting writer or poll.

        ``tcp_new_space`` first grows an unlocked buffer while the window is not full
        (``tcp_should_expand_sndbuf``), then ``sk_stream_write_space`` wakes the waiter
        once the socket is writable (:meth:`SendBuffer.writable`).
        """
        sb = self.sb
        if sb is None or not sb.nospace:
            return
        info = self.d.info() or {}
        if info and not sb.locked:
            mss = int(info["mss"])  # type: ignore[call-overload]
            out = -(-(int(info["snd_nxt"]) - int(info["snd_una"])) // mss)  # type: ignore[call-overload]
            cwnd = int(info["cwnd"]) // mss  # type: ignore[call-overload]
            if out < cwnd:
                sb.expand(mss, mss, cwnd, self.env.reordering)
        if not self.send_buffer().writable():
            return
        sb.nospace = False
        if self.write_left:
            left = self.write_left
            copied = self._copy(left, *self.write_flags)
            self.write_left = left - copied

    # ---------------------------------------------------------------- poll

    def poll_start(self, c: Syscall) -> tuple[list[tuple[int, int, set[str]]], int | None]:
        """The entries of a ``poll``: (events mask, expected revents mask, names)."""
        entries = []
        fds = c.args[0] if c.args else None
        for e in fds.items if isinstance(fds, Array) else ():
            f = dict(e.fields) if isinstance(e, Struct) else {}
            events, revents = names(f.get("events")), names(f.get("revents"))
            unknown = (events | revents) - set(POLL_BITS)
            if unknown:
                raise Skip(f"poll for {'|'.join(sorted(unknown))}")
            mask = sum({POLL_BITS[x] for x in events})
            entries.append((mask, sum({POLL_BITS[x] for x in revents}), revents))
        if not entries:
            raise Skip("poll without its descriptors")
        return entries, int_value(c.result)

    def poll_mask(self, events: int, waiting: bool = False) -> int:
        """``tcp_poll``'s POLLIN and POLLOUT for this connection now.

        ``waiting``: for a poll already asleep, POLLOUT needs the wake-up of
        :meth:`write_space` too (SOCK_NOSPACE cleared), as Linux rechecks only then.
        """
        mask = 0
        info = self.d.info() or {}
        if events & 1 and (int(info.get("received", 0)) > self.read_bytes  # type: ignore[call-overload]
                           or info.get("fin_received")):
            mask |= 1
        if events & 4 and self.state == "established" and not self.shut_wr:
            sb = self.send_buffer()
            if not sb.writable():
                sb.nospace = True  # tcp_poll sets SOCK_NOSPACE and waits for the wake-up
            elif not (waiting and sb.nospace):
                mask |= 4
        return mask

    def poll_ready(self, c: Syscall) -> bool:
        """A poll asleep since it started: whether it returns now."""
        entries, _ = self.poll_start(c)
        return any(self.poll_mask(ev, waiting=True) for ev, _, _ in entries)

    def poll_check(self, line: int, c: Syscall) -> None:
        """Checks a ``poll``'s result and each entry's revents, now."""
        entries, want = self.poll_start(c)
        got = [self.poll_mask(ev) for ev, _, _ in entries]
        ready = sum(1 for m in got if m)
        if want is not None and want != ready:
            raise Fail(line, f"poll: {ready} descriptors ready", str(want), str(ready))
        for (_, rev, shown), m in zip(entries, got, strict=True):
            if m != rev:
                raise Fail(line, "poll: revents differ", "|".join(sorted(shown)) or "0",
                           "|".join(sorted(k for k, v in POLL_BITS.items() if m & v
                                           and k in ("POLLIN", "POLLOUT"))) or "0")
