// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-2's Sack1 recovery (`recovery = "sack1"`), each claim against what
//! RFC 6675's sack recovery does in the same place. The numbers follow
//! tcp-sack1.cc's counters, worked out in the comments.

use super::*;

fn sack1(n: u64) -> Fix {
    window(n, Recovery::Sack1, true)
}

#[test]
fn the_pipe_is_the_flight_less_three_and_loses_one_per_ack_until_below_cwnd() {
    // Twenty in flight, segment 0 lost. The third SACK starts the recovery:
    // pipe_ = 20 - 3 = 17, cwnd = ssthresh = 10, the fast retransmit alone
    // (not counted in the pipe). The ACK of segment j (j >= 4) takes the
    // pipe to 20 - j; from j = 11 it is below 10 and one new segment (from
    // 20 on) goes out per ACK, bringing it back to 10.
    let mut f = sack1(20);
    let mut sent = Vec::new();
    for j in 1..20 {
        f.sack(&[(1, j + 1)]);
        sent.push((j, f.take()));
    }
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.cwnd_segments(), 10.0);
    let mut next = 20;
    for (j, got) in sent {
        let want = match j {
            3 => vec![(seg(0), MSS)],
            11..=19 => {
                next += 1;
                segments(next - 1, 1)
            }
            _ => vec![],
        };
        assert_eq!(got, want, "ACK of segment {j}");
    }
}

#[test]
fn a_hole_with_one_sacked_segment_above_is_resent_before_new_data() {
    // Segments 0 and 18 of twenty lost. From the ACK of 11 on, each ACK
    // lets one new segment out (20 to 26 by the ACK of 17, as in the test
    // above). At the ACK of 19 the pipe is 9 again: ns-2 sends the hole at
    // 18 (one SACKed segment above it). RFC 6675 does not count 18 lost
    // (IsLost needs three SACKed segments above) and sends new data, 27.
    let run = |recovery: Recovery| {
        let mut f = window(20, recovery, true);
        for j in 1..18 {
            f.sack(&[(1, j + 1)]);
        }
        f.take();
        f.sack(&[(19, 20), (1, 18)]);
        f.take()
    };
    let got = run(Recovery::Sack1);
    assert_eq!(got.first(), Some(&(seg(18), MSS)), "{got:?}");
    let got = run(Recovery::Sack);
    assert!(!got.contains(&(seg(18), MSS)), "{got:?}");
    assert_eq!(got.first(), Some(&(seg(27), MSS)), "{got:?}");
}

#[test]
fn a_partial_ack_takes_two_from_the_pipe() {
    // Segments 0 and 5 of ten lost: SACKs of 1 to 3 start the recovery
    // (pipe 10 - 3 = 7, cwnd 5); those of 4, 6 and 7 bring the pipe to 4,
    // and the hole at 5 (below the SACKed 6) goes out (pipe 5).
    let mut f = sack1(10);
    for j in 1..4 {
        f.sack(&[(1, j + 1)]);
    }
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    f.sack(&[(1, 5)]); // pipe 6
    f.sack(&[(6, 7), (1, 5)]); // pipe 5
    f.sack(&[(6, 8), (1, 5)]); // pipe 4: the hole at 5 (pipe 5)
    assert_eq!(f.take(), vec![(seg(5), MSS)]);
    // The retransmission of 0 arrives: a partial ACK up to 5, pipe 5 - 2 =
    // 3: two new segments, 10 and 11 (pipe 5).
    f.ack_sack(5, &[(6, 8)]);
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.take(), segments(10, 2));
}

#[test]
fn after_a_timeout_the_sender_goes_back_n_over_sacked_data() {
    // Four in flight, 0 and 2 lost: SACKs of 1 and 3 (two duplicates, no
    // recovery), then the timer. The retransmission of 0 brings the ACK up
    // to 2 and slow start lets two segments out: ns-2 has emptied its
    // scoreboard and sends 2 and 3; RFC 6675 keeps it and skips 3 (SACKed),
    // and segment 4 does not fit in the window of two from 2.
    let run = |recovery: Recovery| {
        let mut f = window(4, recovery, true);
        f.sack(&[(1, 2)]);
        f.sack(&[(3, 4), (1, 2)]);
        f.take();
        f.timeout();
        assert_eq!(f.take(), vec![(seg(0), MSS)]);
        f.advance(RTT);
        f.ack_sack(2, &[(3, 4)]);
        f.take()
    };
    assert_eq!(run(Recovery::Sack1), segments(2, 2));
    assert_eq!(run(Recovery::Sack), segments(2, 1));
}

#[test]
fn after_a_timeout_no_fast_retransmit_until_the_ack_passes_the_old_flight() {
    // Ten in flight, all lost, and the timer fires (snd_max = segment 10).
    // Go-back-N brings the ACK to exactly 10 one segment at a time (slow
    // start to ssthresh 5, then avoidance: 16 sent by then); three SACKs of 11 to 13 then start no
    // recovery in ns-2 (highest_ack_ > recover_ is false: nothing above the
    // old flight is acknowledged yet), where RFC 6675 (HighACK >=
    // RecoveryPoint) starts one.
    let run = |recovery: Recovery| {
        let mut f = window(10, recovery, true);
        f.timeout();
        for k in 1..=10 {
            f.advance(RTT);
            f.ack(seg(k));
        }
        assert_eq!(f.state(), CaState::Open);
        assert_eq!(f.s.tcb().snd_max, seg(16));
        for j in 1..4 {
            f.sack(&[(11, 11 + j)]);
        }
        f.state()
    };
    assert_eq!(run(Recovery::Sack1), CaState::Disorder);
    assert_eq!(run(Recovery::Sack), CaState::Recovery);
}

#[test]
fn the_ack_that_starts_the_recovery_sends_the_fast_retransmit_alone() {
    // Four in flight, 0 lost: at the third SACK pipe_ = 4 - 3 = 1 is below
    // cwnd 2, but ns-2 sends nothing on that ACK beyond the retransmission
    // (send_much is not called while dupacks_ > 0). The next duplicate
    // takes the pipe to 0 and lets two new segments out.
    let mut f = sack1(4);
    for j in 1..4 {
        f.sack(&[(1, j + 1)]);
    }
    assert_eq!(f.cwnd_segments(), 2.0);
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    // The timer restarts at the fast retransmit (reset_rtx_timer(1, 0)),
    // though it was running: one RTO from now.
    assert_eq!(f.s.rto_deadline(), Some(f.now + f.s.rtt().rto()));
    f.sack(&[(1, 4)]);
    assert_eq!(f.take(), segments(4, 2));
}

#[test]
fn the_end_of_the_recovery_empties_the_scoreboard_and_keeps_the_window() {
    // Ten in flight, 0 lost: the recovery (cwnd 5) sends 10 to 13 on the
    // ACKs of 6 to 9. The ACK of the retransmission reaches the recovery
    // point (10) and SACKs 12: ns-2 forgets that block.
    let mut f = sack1(10);
    for j in 1..10 {
        f.sack(&[(1, j + 1)]);
    }
    f.take();
    let high = f.s.tcb().snd_max;
    f.advance(RTT);
    f.ack_sack(10, &[(12, 13)]);
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.cwnd_segments(), 5.0);
    assert!(high > seg(10));
    assert!(f.s.sb().is_empty(), "ns-2 clears its scoreboard at the end");
}
