"""Linux's send buffer as the packetdrill runner models it (python/tcplab/packetdrill/sndbuf.py).

Every number is worked by hand from Linux 6.18's rules (tcp_sendmsg_locked, tso_fragment,
tcp_grow_skb, tcp_trim_head, sk_stream_write_space) with an skb overhead of 832 bytes; the
own script tests/packetdrill/sender-sndbuf-wakeup.pkt checks the same on the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tcplab.packetdrill import run
from tcplab.packetdrill.env import Env
from tcplab.packetdrill.parse import parse
from tcplab.packetdrill.run import Runner
from tcplab.packetdrill.sndbuf import SKB_OVERHEAD, SendBuffer, Skb
from test_packetdrill_run import HEAD

OWN = Path(__file__).parent / "packetdrill"


def _spans(sb: SendBuffer) -> list[tuple[int, int]]:
    return [(s.seq, s.end) for s in sb.skbs]


def _cwnd_pusher(sb: SendBuffer, cwnd: int, mss: int,
                 segs: int) -> tuple[Callable[[int, bool], None], list[int]]:
    """A connection that sends what a window of ``cwnd`` bytes allows at each push."""
    given: list[int] = []
    state = {"sent": 1, "have": 1}

    def push(k: int, last: bool) -> None:
        given.append(k)
        state["have"] += k
        end = min(state["have"], 1 + cwnd)
        if end > state["sent"]:
            sb.sent(state["sent"], end, segs, mss)
            state["sent"] = end

    return push, given


def test_overhead_is_the_measured_one() -> None:
    assert SKB_OVERHEAD == 832
    assert Skb(1, 1001).truesize == 1832


def test_so_sndbuf_doubles_locks_and_clamps() -> None:
    sb = SendBuffer(262144)
    sb.set_sndbuf(21000, 212992)
    assert (sb.sndbuf, sb.locked) == (42000, True)
    sb.set_sndbuf(1, 212992)
    assert sb.sndbuf == 4608  # SOCK_MIN_SNDBUF
    sb.set_sndbuf(10**6, 212992)
    assert sb.sndbuf == 425984  # net.core.wmem_max, doubled
    # A locked buffer does not grow with the window.
    sb.expand(1000, 1000, 100, 3)
    assert sb.sndbuf == 425984


def test_expand_sizes_two_windows_of_worst_case_segments() -> None:
    # per_mss = roundup_pow_of_two(1000 + 256 + 320) + 256 = 2304; 2 x 10 x 2304.
    sb = SendBuffer(16384)
    sb.expand(1000, 1000, 10, 3)
    assert sb.sndbuf == 46080
    sb.expand(1000, 1000, 20, 3)
    assert sb.sndbuf == 92160
    # Never past tcp_wmem[2], never shrinking.
    sb = SendBuffer(50000, wmem_max=60000)
    sb.expand(1000, 1000, 10, 3)
    assert sb.sndbuf == 50000
    sb.expand(1000, 1000, 40, 3)
    assert sb.sndbuf == 60000


def test_size_goal_is_half_the_peer_window_in_whole_segments() -> None:
    sb = SendBuffer(262144, max_window=50000)
    assert sb.size_goal(1000) == 25000
    sb.max_window = 32896
    assert sb.size_goal(1000) == 16000
    sb.max_window = 10**6
    assert sb.size_goal(1460) == 65536 // 1460 * 1460


def test_blocking_write_fills_until_the_buffer_is_full() -> None:
    # blocking-write.pkt: sndbuf 42000, window 50000 (size_goal 25000), cwnd 10.
    sb = SendBuffer(42000, locked=True, max_window=50000)
    push, given = _cwnd_pusher(sb, 10_000, 1000, 10)
    copied = sb.copy(61000, 1000, push)
    # skb 1..25001 is pushed (10 segments go, the rest split off), refilled to 25000,
    # then one more skb: 36664 < 42000 allowed it; 62496 stops the next.
    assert copied == 60000
    assert _spans(sb) == [(1, 10001), (10001, 35001), (35001, 60001)]
    assert sb.queued == 60000 + 3 * 832 == 62496
    assert sum(given) == 60000
    assert sb.nospace and not sb.writable()


def test_acks_free_and_trim_and_wake_at_two_thirds() -> None:
    sb = SendBuffer(42000, locked=True)
    sb.skbs = [Skb(30001, 40001), Skb(40001, 50001), Skb(50001, 60001)]
    sb.write_seq = sb.snd_nxt = sb.given = 60001
    sb.nospace = True
    sb.acked(34001, 1000)  # tcp_trim_head: 26000 + 3 x 832
    assert sb.queued == 28496 and not sb.writable()
    sb.acked(35001, 1000)  # 25000 + 3 x 832 <= 28000: free space >= half the queue
    assert sb.queued == 27496 and sb.writable()
    sb.acked(40001, 1000)  # a whole skb freed
    assert _spans(sb) == [(40001, 50001), (50001, 60001)]
    # A one-segment skb is not trimmed (tcp_clean_rtx_queue breaks on pcount 1).
    sb.skbs = [Skb(1, 1001)]
    sb.acked(501, 1000)
    assert _spans(sb) == [(1, 1001)]


def test_a_burst_grows_its_skb_then_splits_it() -> None:
    sb = SendBuffer(10**6)
    sb.skbs = [Skb(30001, 35001), Skb(35001, 60001)]
    sb.write_seq = sb.given = 60001
    sb.snd_nxt = 30001
    # tcp_grow_skb: 30001:35001 takes all of 35001:60001 (that skb is freed), then
    # tso_fragment cuts 10-segment skbs.
    sb.sent(30001, 60001, 10, 1000)
    assert _spans(sb) == [(30001, 40001), (40001, 50001), (50001, 60001)]
    # A burst ending inside an skb splits it there; a record end is never crossed.
    sb = SendBuffer(10**6)
    sb.skbs = [Skb(1, 5001, eor=True), Skb(5001, 9001)]
    sb.write_seq = sb.given = 9001
    sb.sent(1, 7001, 64, 1000)
    assert _spans(sb) == [(1, 5001), (5001, 7001), (7001, 9001)]
    assert sb.snd_nxt == 7001


def test_a_record_end_closes_its_skb() -> None:
    # MSG_EOR: the next write starts a new skb (tcp_skb_can_collapse_to), where
    # without it the write fills the last unsent skb up to size_goal.
    for eor, spans in ((True, [(1, 1001), (1001, 2001)]), (False, [(1, 2001)])):
        sb = SendBuffer(10**6, max_window=10**6)
        sb.copy(1000, 1000, lambda k, last: None, eor)
        sb.copy(1000, 1000, lambda k, last: None)
        assert _spans(sb) == spans, eor


def test_the_runner_gives_the_model_its_record_ends() -> None:
    # With the window (10 segments) full, two 500-byte writes stay unsent: after
    # a MSG_EOR the second is an skb of its own, as in Linux.
    text = HEAD + """
   +0 write(4, ..., 10000) = 10000
   +0 send(4, ..., 500, MSG_EOR) = 500
   +0 write(4, ..., 500) = 500
"""
    # The 10 segments leave in skbs of 2 (2 x 10 x 1000 B / 100 ms = 200 kB/s,
    # 195 B a 1/1024 s: tcp_min_tso_segs); the two writes wait behind them.
    sent = [(1 + k, 2001 + k) for k in range(0, 10000, 2000)]
    for flags, spans in (("MSG_EOR", [(10001, 10501), (10501, 11001)]),
                         ("0", [(10001, 11001)])):
        r = Runner(parse(text.replace("MSG_EOR", flags), name="eor.pkt"), Env())
        r.run()
        assert r.sb is not None and _spans(r.sb) == sent + spans, flags


def test_notsent_lowat_limits_what_a_write_copies() -> None:
    # notsent-lowat-setsockopt.pkt: lowat 4000, window 32896 (size_goal 16000), cwnd 10.
    sb = SendBuffer(262144, max_window=32896, lowat=4000)
    push, _ = _cwnd_pusher(sb, 10_000, 1000, 64)
    # 16000 copied, 10000 sent, the 6000 left refilled to 16000 (no memory check to
    # append); the next skb would need fewer than 4000 unsent bytes.
    assert sb.copy(59000, 1000, push) == 26000
    assert sb.notsent == 16000
    # POLLOUT wants the unsent bytes below half the mark.
    sb.snd_nxt = 24001
    assert not sb.writable()
    sb.snd_nxt = 24002
    assert sb.writable()


def test_send_buffer_scripts_pass_and_the_wakeup_is_exact(tmp_path: Path) -> None:
    own = OWN / "sender-sndbuf-wakeup.pkt"
    assert run(own).summary()["passed"] == 1
    # Woken one ACK too early or too late, the same script fails at the write.
    shared = (OWN / "../../../shared").resolve()
    early = tmp_path / "early.pkt"
    early.write_text(own.read_text().replace("+0...0.400 write", "+0...0.300 write")
                     .replace("`../../../shared", f"`{shared}"))
    o = run(early).outcomes[0]
    line = 1 + own.read_text().splitlines().index("   +0...0.400 write(4, ..., 61000) = 61000")
    assert (o.outcome, o.line) == ("fail", line), (o.outcome, o.reason)
    assert "did not return" in o.reason
