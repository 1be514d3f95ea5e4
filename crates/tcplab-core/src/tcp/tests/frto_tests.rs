// SPDX-License-Identifier: MIT OR Apache-2.0
//! F-RTO (`frto`), RFC 5682 3 as Linux's `tcp_process_loss` runs it. One
//! fixture: NewReno, no SACK, no timestamps, ten segments in flight, cwnd
//! 10 segments and ssthresh 8; the timer fires (ssthresh = FlightSize / 2 =
//! 5, cwnd = 1) and segment 0 is retransmitted. prior_cwnd = 10 and
//! prior_ssthresh = max(8, 10/2 + 10/4) = 8 segments.

use super::*;

/// After the timeout; F-RTO if `frto`, the timestamp/D-SACK undo if `undo`.
fn timed_out(frto: bool, undo: bool) -> Fix {
    let mut cfg = config(10);
    cfg.initial_ssthresh = 8 * MSS;
    cfg.frto = frto;
    cfg.undo = undo;
    let mut f = Fix::established("newreno", cfg);
    assert_eq!(f.take(), segments(0, 10));
    f.timeout();
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    assert_eq!(f.state(), CaState::Loss);
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (1.0, 5.0));
    f
}

#[test]
fn a_spurious_timeout_sends_new_data_then_undoes_on_the_second_ack() {
    let mut f = timed_out(true, false);
    // Step 2b: the ACK of the original segment 0 advances snd_una, not
    // past what was sent before the timeout: slow start makes cwnd 2, and
    // the two segments go out as new data (10, 11), not as 1 and 2 again.
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!(f.take(), segments(10, 2));
    assert_eq!(f.state(), CaState::Loss);
    assert_eq!(f.cwnd_segments(), 2.0);
    // Step 3b: the ACK of segment 1, sent before the timeout and never
    // retransmitted: spurious. tcp_try_undo_loss(frto_undo): cwnd =
    // max(2, 10), ssthresh = max(5, 8), Open. Nothing is lost any more:
    // 2-11 are the ten segments in flight, and nothing more leaves.
    f.ack(seg(2));
    assert_eq!(f.state(), CaState::Open);
    // ...and the ACK then grows it as an ACK in Open (Linux runs
    // tcp_cong_control after the undo): congestion avoidance, + 1/10.
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (10.1, 8.0));
    assert_eq!(f.s.undos(), (1, 1));
    assert!(f.take().is_empty());
    // The next ACK is one of Open's (congestion avoidance: cwnd + 1/10).
    f.ack(seg(3));
    assert_eq!(f.take(), segments(12, 1));
}

#[test]
fn without_frto_the_same_acks_go_back_n() {
    let mut f = timed_out(false, false);
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!(f.take(), segments(1, 2));
    f.ack(seg(2));
    assert_eq!(f.state(), CaState::Loss);
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (3.0, 5.0));
    assert_eq!(f.s.undos(), (0, 0));
}

#[test]
fn a_real_loss_ends_frto_and_going_back_n_resumes() {
    let mut f = timed_out(true, false);
    f.advance(RTT);
    // The retransmission of 0 is ACKed: new data 10 and 11 go out.
    f.ack(seg(1));
    assert_eq!(f.take(), segments(10, 2));
    // Segment 1 was lost: 10 arrives, a duplicate ACK (step 3a). F-RTO
    // ends; going back N resumes at segment 1, as the window allows from
    // snd_una (cwnd 2: segments 1 and 2).
    f.dupack();
    assert_eq!(f.take(), segments(1, 2));
    assert_eq!(f.state(), CaState::Loss);
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (2.0, 5.0));
    // The ACK of 1 (the retransmission) undoes nothing: conventional
    // recovery (slow start from 2, going back N from 3).
    f.ack(seg(2));
    assert_eq!(f.take(), segments(3, 2));
    assert_eq!(f.state(), CaState::Loss);
    assert_eq!(f.ssthresh_segments(), 5.0);
    assert_eq!(f.s.undos(), (0, 0));
}

#[test]
fn without_new_data_to_send_frto_ends_at_step_2a() {
    let mut cfg = config(10);
    cfg.frto = true;
    let mut f = Fix::established("newreno", cfg);
    // Only the ten segments exist: nothing new to send.
    f.s.set_app_limit(f.now, 10 * MSS, &mut f.out);
    assert_eq!(f.take(), segments(0, 10));
    f.timeout();
    f.take();
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!(f.take(), segments(1, 2));
    f.ack(seg(2));
    assert_eq!(f.state(), CaState::Loss);
    assert_eq!(f.s.undos(), (0, 0));
}

#[test]
fn with_timestamps_the_first_ack_of_a_spurious_timeout_undoes_it() {
    // tcp_try_undo_loss without F-RTO: the ACK echoes the original's
    // timestamp (1 RTT), before the retransmission (the timeout's time).
    let mut cfg = config(10);
    cfg.initial_ssthresh = 8 * MSS;
    cfg.timestamps = true;
    cfg.sack = true;
    cfg.undo = true;
    let mut f = Fix::established("newreno", cfg);
    f.take();
    f.timeout();
    f.take();
    f.advance(RTT);
    f.ack_ts(seg(1), RTT.as_nanos(), &[]);
    assert_eq!(f.state(), CaState::Open);
    // ...and the ACK then grows it as an ACK in Open (Linux runs
    // tcp_cong_control after the undo): congestion avoidance, + 1/10.
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (10.1, 8.0));
    assert_eq!(f.s.undos(), (1, 0));
    // Nothing is sent again: 1-9 are in flight; the window sends 10.
    assert_eq!(f.take(), segments(10, 1));
}

#[test]
fn data_sacked_before_the_timeout_proves_nothing_when_acknowledged() {
    // With SACK: segments 1 and 2 were SACKed (two duplicates, below
    // DupThresh), then the timer fired. The retransmission of 0 fills the
    // hole: the ACK of 3 covers 1 and 2, never retransmitted but SACKed
    // before (not Linux's FLAG_ORIG_SACK_ACKED): step 2b, new data. The
    // ACK of 4 (never retransmitted, never SACKed) then undoes.
    let mut cfg = config(10);
    cfg.initial_ssthresh = 8 * MSS;
    cfg.sack = true;
    cfg.frto = true;
    let mut f = Fix::established("newreno", cfg);
    f.take();
    f.advance(RTT);
    f.ack_ts(seg(0), 0, &[(seg(1), seg(2))]);
    f.ack_ts(seg(0), 0, &[(seg(1), seg(3))]);
    f.take();
    f.timeout();
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    f.advance(RTT);
    f.ack_ts(seg(3), 0, &[]);
    assert_eq!(f.state(), CaState::Loss);
    assert_eq!(f.take(), segments(10, 2));
    f.ack_ts(seg(4), 0, &[]);
    assert_eq!(f.state(), CaState::Open);
    // ...and the ACK then grows it as an ACK in Open (Linux runs
    // tcp_cong_control after the undo): congestion avoidance, + 1/10.
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (10.1, 8.0));
    assert_eq!(f.s.undos(), (1, 1));
}
