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
/// once. The fine-grained timeout, SRTT + 4 RTTVAR from two samples of 100
/// ms, is then 250 ms.
fn ns2_vegas(n: u64) -> Fix {
    let built = registry::build(&CcSpec::named("vegas"), "cc", Profile::Ns2, false).unwrap();
    let mut cfg = config(n);
    cfg.recovery = Recovery::Ns2Vegas;
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
    // v_newcwnd_ = 12 - 12/4 = 9 and cwnd = 9 + 3. If the next ACK is new,
    // ns-2 keeps the 12 (dupacks_ is not above numdupacks_); after a fourth
    // duplicate (cwnd 13) it deflates to 9, with ssthresh 2.
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
        f.ack(seg(12));
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
    // past the 250-ms fine timeout) the first duplicate resends 0 and
    // reduces to 9 (cwnd 9 + 1); nine more inflate it. At 700 ms the copy
    // of 0 brings the ACK to 1: the recovery ends (deflated to 9), and as
    // one of the two ACKs after a retransmission it finds 1 overdue and
    // resends it (its second send, after the reduction). That copy is lost
    // too: at 800 ms three duplicates find 1 sent twice, last after the
    // reduction, and halve: 9 / 2 = 4 (ns-2's `transmits > 1`), where a
    // first loss would keep 9 - 9/4 = 7.
    let mut f = ns2_vegas(12);
    f.advance(SimDuration::from_millis(300));
    f.dupack();
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (10.0, 9.0));
    for _ in 0..9 {
        f.dupack();
    }
    f.take();
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!((f.state(), f.cwnd_segments()), (CaState::Open, 9.0));
    assert_eq!(f.take().first(), Some(&(seg(1), MSS)));
    f.advance(RTT);
    for _ in 0..3 {
        f.dupack();
    }
    assert_eq!(f.take().first(), Some(&(seg(1), MSS)));
    assert_eq!((f.ssthresh_segments(), f.cwnd_segments()), (4.0, 7.0));
}
