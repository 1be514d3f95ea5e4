// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-2's Vegas recovery (`recovery = "ns2_vegas"`), with ns-2's Vegas
//! controller (keep 3/4 of the window): tcp-vegas.cc's rules on duplicate
//! ACKs, worked out in each test's comments.

use super::*;

/// Segment `k` of the fixture's window: ns-2's Vegas sends one segment
/// before it (the one its handshake allows), so the window's segment k is
/// the connection's k + 1.
fn seg(k: u64) -> u64 {
    super::seg(k + 1)
}

fn segments(first: u64, n: u64) -> Vec<(u64, u64)> {
    (first..first + n).map(|k| (seg(k), MSS)).collect()
}

/// ns-2's Vegas with `n` segments in flight, one RTT after they left at
/// 200 ms. As ns-2 starts it: one segment after the handshake (at 100 ms),
/// whose ACK at 200 ms brings the initial window of `n`, which leaves at
/// once. The fine-grained timeout (ns-2's form): the SYN's 100 ms start it
/// at sa = 800, sd = 100 (150 ms); the first segment's 100 ms gives n = 0,
/// sd = 75, so (200 + 75) / 2 = 137.5 ms plus a sixteenth: 146.09375 ms.
fn ns2_vegas(n: u64) -> Fix {
    ns2_vegas_with(config(n))
}

/// As [`ns2_vegas`], with `cfg`'s initial window and buffer.
fn ns2_vegas_with(mut cfg: TcpConfig) -> Fix {
    let n = cfg.initial_cwnd / MSS;
    let built = registry::build(&CcSpec::named("vegas"), "cc", Profile::Ns2, false).unwrap();
    cfg.recovery = Recovery::Ns2Vegas;
    cfg.fine_timeout = built.fine_timeout;
    let s = Sender::new(cfg, built.cc, built.fine_retransmit);
    let mut f = Fix::connected(s, SYN | ACK);
    assert_eq!(f.take(), vec![(super::seg(0), MSS)]);
    f.advance(RTT);
    f.ack(seg(0));
    assert_eq!(f.take(), segments(0, n));
    f.advance(RTT);
    f
}

#[test]
fn the_window_keeps_three_quarters_plus_the_duplicates_and_deflates_only_after_one_more() {
    // Twelve in flight, 0 lost: the third duplicate retransmits it with
    // v_newcwnd_ = 12 - 12/4 = 9 and cwnd = 9 + 3. If the next ACK is new
    // (0 to 10; 11, 100 ms old, is not overdue), ns-2 keeps the 12
    // (dupacks_ is not above numdupacks_); after a fourth duplicate (cwnd
    // 13) it deflates to 9, with ssthresh 2.
    let run = |fourth: bool| {
        let mut f = ns2_vegas(12);
        for _ in 0..3 {
            f.dupack();
        }
        assert_eq!(f.take(), vec![(seg(0), MSS)]);
        assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (12.0, 9.0));
        if fourth {
            f.dupack();
            assert_eq!(f.cwnd_segments(), 13.0);
        }
        f.ack(seg(11));
        assert_eq!(f.state(), CaState::Open);
        (f.cwnd_segments(), f.ssthresh_segments())
    };
    assert_eq!(run(false), (12.0, 9.0));
    assert_eq!(run(true), (9.0, 2.0));
}

/// Twelve in flight at 200 ms, 0 and 6 lost. At 300 ms the ACKs of 1 to 5
/// and 7 to 11 arrive: a recovery (reduced to 9) whose inflation sends 12
/// to 18; the ACK of the retransmission (up to 6) deflates to 9 and ends
/// it. Returns the fixture with the ACKs of 12 to 14 still to come.
fn second_loss_of_the_first_window() -> Fix {
    let mut f = ns2_vegas(12);
    for _ in 0..10 {
        f.dupack();
    }
    assert_eq!(f.take().first(), Some(&(seg(0), MSS)));
    f.ack(seg(6));
    assert_eq!((f.state(), f.cwnd_segments()), (CaState::Open, 9.0));
    f
}

#[test]
fn a_loss_of_data_sent_before_the_last_reduction_is_resent_without_another() {
    // Segment 6 left at 200 ms, before the reduction at 300 ms: the three
    // duplicates of 12 to 14 resend it and leave cwnd at 9 and ssthresh
    // at 2 (t_cwnd_changed_ < sendTime is false). The loss is counted as a
    // fast retransmit, not as a reduction.
    let mut f = second_loss_of_the_first_window();
    for _ in 0..3 {
        f.dupack();
    }
    assert_eq!(f.take(), vec![(seg(6), MSS)]);
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (9.0, 2.0));
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.s.stats().fast_retransmits, 2);
}

#[test]
fn a_segment_resent_since_the_last_reduction_halves_the_window_when_lost_again() {
    // Twelve in flight at 200 ms, 0 and 1 lost. At 600 ms (0 is 400 ms old,
    // past the 146.1-ms fine timeout) the first duplicate resends 0,
    // stretches the timeout by 9/8 to 164.4 ms and reduces to 9 (cwnd 9 +
    // 1); as 0 had been sent once, the count is then DupThresh, and each of
    // nine more duplicates inflates by one (19). At 700 ms the copy of 0
    // brings the ACK to 1: deflated to 9, and as one of the two ACKs after a
    // retransmission it finds 1 overdue (500 ms) and resends it, counting
    // the duplicates to come from DupThresh again (the recovery state).
    let mut f = ns2_vegas(12);
    f.advance(SimDuration::from_millis(300));
    f.dupack();
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (10.0, 9.0));
    for _ in 0..9 {
        f.dupack();
    }
    assert_eq!(f.cwnd_segments(), 19.0);
    f.take();
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!((f.state(), f.cwnd_segments()), (CaState::Recovery, 9.0));
    assert_eq!(f.take().first(), Some(&(seg(1), MSS)));
    // That copy is lost too. At 800 ms three duplicates find it 100 ms old:
    // no DupThresh-th duplicate (they are the 4th to 6th), only inflation.
    f.advance(RTT);
    for _ in 0..3 {
        f.dupack();
    }
    assert_eq!(f.cwnd_segments(), 12.0);
    assert!(!f.take().contains(&(seg(1), MSS)));
    // At 870 ms it is 170 ms old: the next duplicate resends it, sent twice
    // and last after the reduction: half of 12 (ns-2's `transmits > 1`),
    // where a first loss would keep 12 - 12/4 = 9, plus the 7 duplicates.
    f.advance(SimDuration::from_millis(70));
    f.dupack();
    assert_eq!(f.take().first(), Some(&(seg(1), MSS)));
    assert_eq!((f.ssthresh_segments(), f.cwnd_segments()), (6.0, 13.0));
}

#[test]
fn a_fast_retransmit_stretches_the_fine_timeout_by_an_eighth() {
    // Twelve in flight at 200 ms, 0 and 1 lost. At 300 ms the third
    // duplicate resends 0 and stretches the fine timeout from 146.1 to
    // 164.4 ms; the ACK of its copy finds 1 only 100 ms old, and no other
    // ACK checks (ns-2 stops at the first that finds nothing overdue).
    let mut f = ns2_vegas(12);
    for _ in 0..3 {
        f.dupack();
    }
    assert_eq!(f.take().first(), Some(&(seg(0), MSS)));
    f.ack(seg(1));
    assert!(!f.take().contains(&(seg(1), MSS)));
    // At 360 ms 1 is 160 ms old: overdue for the unstretched timeout, not
    // for this one. At 370 ms it is.
    f.advance(SimDuration::from_millis(60));
    f.dupack();
    assert!(!f.take().contains(&(seg(1), MSS)));
    f.advance(SimDuration::from_millis(10));
    f.dupack();
    assert_eq!(f.take().first(), Some(&(seg(1), MSS)));
}

/// The connection's segment `k` (ns-2's numbering: the one sent after the
/// handshake is 0).
fn conn(k: u64) -> u64 {
    super::seg(k)
}

#[test]
fn an_early_resend_of_a_segment_counted_twice_keeps_the_count_and_the_third_duplicate_resends() {
    // window_ 6: ns-2 counts each segment's sends in a ring of 6 entries.
    // Segments 1 to 4 leave at 200 ms. At 300 ms ACKs of 1-2 and 3-4 clear
    // entries 1-2 and 3-4, and 5 to 8 leave (entries 5, 0, 1, 2). At 400
    // ms the ACK of 5-6 would clear entries 5 to 0 but wraps the ring, so
    // it clears none; 9 to 11 leave, and 11's entry (5) counts 5's send
    // too: 2. At 500 ms the ACK of 7-10 leaves 11 first, and 12 to 15
    // leave. Every sample was 100 ms: the fine timeout is (200 + 100 x
    // 0.75^5) / 2 x 17/16 = 118.9 ms.
    let mut cfg = config(4);
    cfg.rcv_buf = 6 * MSS;
    let mut f = ns2_vegas_with(cfg);
    f.ack(conn(3));
    f.ack(conn(5));
    assert_eq!(f.take(), (5..9).map(|k| (conn(k), MSS)).collect::<Vec<_>>());
    f.advance(RTT);
    f.ack(conn(7));
    assert_eq!(
        f.take(),
        (9..12).map(|k| (conn(k), MSS)).collect::<Vec<_>>()
    );
    f.advance(RTT);
    f.ack(conn(11));
    assert_eq!(
        f.take(),
        (12..16).map(|k| (conn(k), MSS)).collect::<Vec<_>>()
    );
    assert_eq!(f.cwnd_segments(), 5.0);
    // 11 is lost. At 600 ms its first duplicate finds it 200 ms old: it is
    // resent and, counted as sent twice, halves the window (5 >> 1 = 2,
    // plus the one duplicate: 3), and the count stays at 1.
    f.advance(RTT);
    f.dupack();
    assert_eq!(f.take(), vec![(conn(11), MSS)]);
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (3.0, 2.0));
    // The second duplicate neither resends nor inflates; the third is the
    // DupThresh-th and resends 11 again, without another reduction; only
    // the fourth inflates.
    f.dupack();
    assert_eq!((f.take(), f.cwnd_segments()), (vec![], 3.0));
    f.dupack();
    assert_eq!((f.take(), f.cwnd_segments()), (vec![(conn(11), MSS)], 3.0));
    f.dupack();
    assert_eq!(f.cwnd_segments(), 4.0);
    assert_eq!(f.s.stats().fast_retransmits, 2);
}

#[test]
fn a_check_with_nothing_outstanding_sends_the_next_new_segment_twice() {
    // Twelve in flight, 0 lost: the third duplicate resends it (cwnd 9 +
    // 3, nothing new). The ACK of its copy covers all twelve: the check
    // after the retransmission reads the entry of segment 12, never sent
    // and so cleared: overdue. ns-2 outputs 12, then send_much sends from
    // t_seqno_ = 12 again: 12 twice, then 13 to 23 (cwnd 12, no duplicate
    // came after the retransmission to deflate it).
    let mut f = ns2_vegas(12);
    for _ in 0..3 {
        f.dupack();
    }
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    f.ack(seg(12));
    let mut want = vec![(seg(12), MSS)];
    want.extend(segments(12, 12));
    assert_eq!(f.take(), want);
    // The duplicates count from DupThresh: the copy's duplicate inflates.
    assert_eq!(f.state(), CaState::Recovery);
    f.dupack();
    assert_eq!(f.cwnd_segments(), 13.0);
}

#[test]
fn the_fine_timeout_starts_from_the_handshake() {
    // SYN-ACK after 100 ms, the first segment's ACK after 150: sa = 800, sd
    // = 100 from the handshake, then n = 50, sa = 850, sd = 125: (212.5 +
    // 125) / 2 x 17/16 = 179.3 ms. (Started from the first sample instead,
    // it would be (300 + 112.5) / 2 x 17/16 = 219.1 ms.) The window of
    // four leaves at 250 ms; 0 is lost, and at 450 ms a duplicate finds it
    // 200 ms old: overdue.
    let built = registry::build(&CcSpec::named("vegas"), "cc", Profile::Ns2, false).unwrap();
    let mut cfg = config(4);
    cfg.recovery = Recovery::Ns2Vegas;
    cfg.fine_timeout = built.fine_timeout;
    let mut f = Fix::connected(Sender::new(cfg, built.cc, built.fine_retransmit), SYN | ACK);
    f.take();
    f.advance(SimDuration::from_millis(150));
    f.ack(seg(0));
    assert_eq!(f.take(), segments(0, 4));
    f.advance(SimDuration::from_millis(200));
    f.dupack();
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
}

#[test]
fn a_timeout_restarts_the_window_at_two_segments() {
    // tcp-vegas.cc's timeout(): cwnd_ = v_slowstart_ (2), so 0 and 1 leave.
    let mut f = ns2_vegas(12);
    f.timeout();
    assert_eq!(f.cwnd_segments(), 2.0);
    assert_eq!(f.take(), vec![(seg(0), MSS), (seg(1), MSS)]);
}
