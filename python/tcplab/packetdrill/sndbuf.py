"""Linux's send buffer, as ``tcp_sendmsg`` fills it and ACKs empty it (Linux 6.18).

A write copies into skbs of ``size_goal`` bytes while ``sk_wmem_queued`` (every skb's
truesize: its data plus a fixed overhead) is below ``sk_sndbuf`` and the unsent bytes are
below TCP_NOTSENT_LOWAT. It pushes each full skb that heads the unsent queue, and waits
(a blocking write) or returns short (a non-blocking one) when memory runs out. Sending
splits skbs where a burst ends and into ``tcp_tso_autosize`` pieces (``tso_fragment``,
one more skb each); an ACK frees the skbs it covers and trims a partly acknowledged one
(``tcp_trim_head``). The writer wakes when ``sk_stream_write_space`` would wake it: free
space at least half of what is queued, and the unsent bytes below half the low-water mark.
See docs/packetdrill.md ("Send buffer") for the sources and what is left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

#: The truesize of an skb with no data (``SKB_TRUESIZE`` of the small-head cache's
#: object): 832 bytes on this machine's Linux 6.18 (x86_64), read with SO_MEMINFO after
#: a 1-byte write under TCP_CORK. Each byte written adds one (its page fragment).
SKB_OVERHEAD = 832
#: ``SOCK_MIN_SNDBUF``: twice ``TCP_SKB_MIN_TRUESIZE`` (2048 + the aligned sk_buff).
SOCK_MIN_SNDBUF = 4608
#: ``sk_gso_max_size`` of the tun device (GSO_LEGACY_MAX_SIZE).
GSO_MAX = 65_536
#: ``MAX_TCP_HEADER``, the aligned ``skb_shared_info`` and ``sk_buff`` (x86_64), as
#: ``tcp_sndbuf_expand`` sizes one segment's worst-case memory.
MAX_TCP_HEADER = 256
SHINFO = 320
SKBUFF = 256
#: ``TCP_INIT_CWND``.
INIT_CWND = 10
#: ``TCP_MSS_DEFAULT``, below which ``tcp_bound_to_half_wnd`` uses the whole window.
MSS_DEFAULT = 536


@dataclass
class Skb:
    """One skb of the write or retransmission queue: its sequence range."""

    seq: int
    end: int
    eor: bool = False

    @property
    def truesize(self) -> int:
        """Its data and the empty skb's overhead."""
        return SKB_OVERHEAD + self.end - self.seq


@dataclass
class SendBuffer:
    """One socket's send queue, in Linux's skbs and memory accounting."""

    #: ``sk_sndbuf`` (bytes of truesize), and whether SO_SNDBUF locked it.
    sndbuf: int
    locked: bool = False
    #: ``tcp_wmem[2]``: how far ``tcp_sndbuf_expand`` may grow it.
    wmem_max: int = 4_194_304
    #: TCP_NOTSENT_LOWAT (the socket option, else the sysctl).
    lowat: int = 0xFFFF_FFFF
    skbs: list[Skb] = field(default_factory=list)
    write_seq: int = 1
    #: The first byte not yet sent, as the queue has seen the sends.
    snd_nxt: int = 1
    #: Bytes copied that the connection has not been given yet.
    given: int = 1
    pushed_seq: int = 1
    #: The largest window the peer offered (bytes).
    max_window: int = 0
    #: SOCK_NOSPACE: a writer or a poll found no room and waits for a wake-up.
    nospace: bool = False

    # ---------------------------------------------------------------- memory

    @property
    def queued(self) -> int:
        """``sk_wmem_queued``."""
        return sum(s.truesize for s in self.skbs)

    @property
    def notsent(self) -> int:
        """Bytes written and not yet sent (``write_seq - snd_nxt``)."""
        return self.write_seq - self.snd_nxt

    def memory_free(self, wake: int = 0) -> bool:
        """``__sk_stream_memory_free``: room for a new skb (``wake`` 1: for a wake-up)."""
        return self.queued < self.sndbuf and (self.notsent << wake) < self.lowat

    def writable(self) -> bool:
        """``__sk_stream_is_writeable(sk, 1)``: what POLLOUT and a wake-up need."""
        q = self.queued
        return self.sndbuf - q >= q >> 1 and self.memory_free(1)

    def set_sndbuf(self, value: int, wmem_max: int) -> None:
        """SO_SNDBUF: twice the value (at most net.core.wmem_max), locked."""
        self.sndbuf = max(min(value, wmem_max) * 2, SOCK_MIN_SNDBUF)
        self.locked = True

    def expand(self, mss: int, mss_clamp: int, cwnd: int, reordering: int) -> None:
        """``tcp_sndbuf_expand``: room for two windows of worst-case segments."""
        if self.locked:
            return
        per_mss = max(mss, mss_clamp) + MAX_TCP_HEADER + SHINFO
        per_mss = (1 << (per_mss - 1).bit_length()) + SKBUFF
        segs = max(INIT_CWND, cwnd, reordering + 1)
        self.sndbuf = max(self.sndbuf, min(2 * segs * per_mss, self.wmem_max))

    # ---------------------------------------------------------------- writing

    def size_goal(self, mss: int) -> int:
        """``tcp_xmit_size_goal``: whole segments up to 64 KB and half the peer's window."""
        cutoff = self.max_window >> 1 if self.max_window > MSS_DEFAULT else self.max_window
        goal = max(cutoff, 68 - 20) if cutoff and GSO_MAX > cutoff else GSO_MAX
        return max(goal // mss * mss, mss)

    def _unsent_tail(self) -> Skb | None:
        if self.skbs and self.skbs[-1].seq >= self.snd_nxt:
            return self.skbs[-1]
        return None

    def copy(self, n: int, mss: int, push: Callable[[int, bool], None], eor: bool = False) -> int:
        """``tcp_sendmsg_locked``: copies up to ``n`` bytes; returns how many.

        ``push(k, last)`` gives the connection ``k`` more bytes and lets it send; it is
        called as Linux pushes (a full skb at the head of the unsent queue, or past half
        the peer's window since the last push), and once at the end for what is left
        (``last``: the whole write was copied).
        """
        goal = self.size_goal(mss)
        copied = 0
        while copied < n:
            tail = self._unsent_tail()
            room = goal - (tail.end - tail.seq) if tail is not None and not tail.eor else 0
            if room <= 0 or tail is None:
                if not self.memory_free():
                    self.nospace = True
                    break
                tail = Skb(self.write_seq, self.write_seq)
                self.skbs.append(tail)
                room = goal
            k = min(room, n - copied)
            tail.end += k
            self.write_seq += k
            copied += k
            if copied == n or tail.end - tail.seq < goal:
                continue
            if self.write_seq > self.pushed_seq + (self.max_window >> 1):
                self.pushed_seq = self.write_seq  # forced_push: tcp_mark_push
                self._give(push, False)
            elif tail.seq == self.snd_nxt:  # the skb heads the unsent queue: tcp_push_one
                self._give(push, False)
        if copied and eor and copied == n:
            tail = self._unsent_tail()
            if tail is not None:
                tail.eor = True
        self._give(push, copied == n)
        return copied

    def _give(self, push: Callable[[int, bool], None], last: bool) -> None:
        k = self.write_seq - self.given
        if k > 0 or last:
            self.given = self.write_seq
            push(k, last)

    # ---------------------------------------------------------------- sending and ACKs

    def sent(self, seq: int, end: int, max_segs: int, mss: int) -> None:
        """New data ``seq..end`` left in one burst: ``tcp_write_xmit``'s skbs.

        Each skb first takes data from the skbs after it, up to what the burst still
        sends (``tcp_grow_skb``, Linux 6.10 on: an skb emptied so is freed); then it goes
        out whole or, past the burst's end or ``max_segs`` segments, split
        (``tso_fragment``: the rest becomes a new skb).
        """
        if end <= self.snd_nxt:
            return
        limit = max(1, max_segs) * mss
        skbs = self.skbs
        i = next((j for j, s in enumerate(skbs) if s.end > self.snd_nxt), len(skbs))
        pos = max(seq, self.snd_nxt)
        while i < len(skbs) and pos < end:
            s = skbs[i]
            while s.end < end and i + 1 < len(skbs) and not s.eor:
                nxt = skbs[i + 1]
                take = min(end - s.end, nxt.end - nxt.seq)
                s.end += take
                nxt.seq += take
                if nxt.seq < nxt.end:
                    break
                s.eor = nxt.eor
                del skbs[i + 1]
            piece = min(s.end - pos, end - pos, limit)
            if pos + piece < s.end:
                skbs.insert(i + 1, Skb(pos + piece, s.end, s.eor))
                s.end, s.eor = pos + piece, False
            pos = s.end
            i += 1
        self.snd_nxt = max(self.snd_nxt, end)

    def resent(self, seq: int, end: int) -> None:
        """A retransmission of ``seq..end``.

        ``tcp_retransmit_skb`` fragments an skb that holds more than it resends.
        """
        for i, s in enumerate(self.skbs):
            if s.seq == seq and s.end > end:
                self.skbs.insert(i + 1, Skb(end, s.end, s.eor))
                s.end, s.eor = end, False
                return

    def acked(self, una: int, mss: int) -> bool:
        """The cumulative ACK reached ``una``: frees and trims skbs; True if any shrank."""
        shrunk = False
        while self.skbs and self.skbs[0].end <= una:
            self.skbs.pop(0)
            shrunk = True
        if self.skbs:
            s = self.skbs[0]
            # tcp_tso_acked: only an skb of several segments is trimmed.
            if s.seq < una and s.end - s.seq > mss:
                s.seq = una
                shrunk = True
        return shrunk

