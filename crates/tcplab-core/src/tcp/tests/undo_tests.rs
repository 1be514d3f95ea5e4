// SPDX-License-Identifier: MIT OR Apache-2.0
//! Undo of spurious reductions (`undo`), with numbers worked from Linux's
//! rules (`tcp_init_undo`, `tcp_current_ssthresh`, `tcp_check_dsack`,
//! `tcp_packet_delayed`, `tcp_try_undo_recovery`, `tcp_try_undo_dsack`,
//! `tcp_undo_cwnd_reduction` with Reno's `undo_cwnd`). One fixture: NewReno
//! (RFC 6582, RecoveryExit::Flight), ten segments in flight, cwnd 10 and
//! ssthresh 8 segments (congestion avoidance); segment 0 is reordered, not
//! lost: the ACKs of 1, 2 and 3 come first and start a fast recovery.
//!
//! At the reduction: prior_cwnd = 10 segments; prior_ssthresh =
//! max(ssthresh 8, 10/2 + 10/4 = 7) = 8 segments; NewReno sets ssthresh =
//! FlightSize / 2 = 5 segments and cwnd = ssthresh + 3 = 8 segments.

use super::*;

/// Ten segments in flight (sent at one RTT), cwnd 10, ssthresh 8 segments,
/// SACK carried (for the D-SACKs), timestamps if `ts`, undo if `undo`; one
/// RTT on, three duplicate ACKs SACKing segments 1, 2 and 3 have
/// retransmitted segment 0 and reduced the window.
fn reordered(undo: bool, ts: bool) -> Fix {
    let mut cfg = config(10);
    cfg.initial_ssthresh = 8 * MSS;
    cfg.sack = true;
    cfg.timestamps = ts;
    cfg.undo = undo;
    let mut f = Fix::established("newreno", cfg);
    assert_eq!(f.take(), segments(0, 10));
    let sent = f.now.as_nanos();
    f.advance(RTT);
    for k in 1..4 {
        f.ack_ts(seg(0), sent, &[(seg(1), seg(k + 1))]);
    }
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (8.0, 5.0));
    f
}

impl Fix {
    /// An ACK of everything below `ack`, echoing `ts_ecr`, with SACK
    /// `blocks` (bytes).
    pub(super) fn ack_ts(&mut self, ack: u64, ts_ecr: u64, blocks: &[(u64, u64)]) {
        let mut h = TcpHeader {
            ack,
            flags: ACK,
            wnd: 65_535,
            ts_ecr,
            nsack: blocks.len() as u8,
            ..TcpHeader::default()
        };
        h.sack[..blocks.len()].copy_from_slice(blocks);
        self.s.on_segment(self.now, &h, &mut self.out);
    }
}

/// The original segment 0 arrives, and the ACK of all ten (the full ACK of
/// the recovery) echoes `ecr`; then the retransmission arrives too: its
/// ACK reports it in a D-SACK (RFC 2883 4.1.1), with `dsack`.
fn full_ack_then_dsack(f: &mut Fix, ecr: u64, dsack: bool) {
    f.advance(SimDuration::from_millis(10));
    f.ack_ts(seg(10), ecr, &[]);
    f.take();
    if dsack {
        f.advance(SimDuration::from_millis(10));
        let una = f.s.tcb().snd_una;
        f.ack_ts(una, ecr, &[(seg(0), seg(1))]);
    }
}

#[test]
fn a_dsack_of_the_only_retransmission_undoes_the_reduction_after_the_recovery() {
    // The full ACK carries no timestamps to go by: the recovery ends as
    // NewReno's (cwnd = min(ssthresh, flight + 1 MSS): the three segments
    // sent for the three duplicates, 10-12, and one), the marker stays.
    let mut f = reordered(true, false);
    full_ack_then_dsack(&mut f, 0, false);
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.ssthresh_segments(), 5.0);
    let cwnd_before = f.cwnd_segments();
    assert!(cwnd_before < 10.0, "{cwnd_before}");
    // The D-SACK of segment 0 (above the marker, snd_una = 1): undo_retrans
    // 1 -> 0; tcp_try_undo_dsack: cwnd = max(cwnd, 10), ssthresh = max(5, 8).
    let una = f.s.tcb().snd_una;
    f.ack_ts(una, 0, &[(seg(0), seg(1))]);
    // (It acknowledges no data: nothing grows.)
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (10.0, 8.0));
    // (The D-SACK's ACK is a duplicate ACK too: Disorder, as Linux's
    // tcp_try_keep_open with data SACKed or retransmitted.)
    assert_eq!(f.state(), CaState::Disorder);
    assert_eq!(f.s.undos(), (1, 0));
}

#[test]
fn without_undo_the_dsack_changes_nothing() {
    let mut f = reordered(false, false);
    full_ack_then_dsack(&mut f, 0, false);
    let (cwnd, ssthresh) = (f.cwnd_segments(), f.ssthresh_segments());
    let una = f.s.tcb().snd_una;
    f.ack_ts(una, 0, &[(seg(0), seg(1))]);
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (cwnd, ssthresh));
    assert_eq!(f.ssthresh_segments(), 5.0);
    assert_eq!(f.s.undos(), (0, 0));
}

#[test]
fn a_dsack_below_the_marker_or_a_second_one_undoes_nothing_more() {
    let mut f = reordered(true, false);
    full_ack_then_dsack(&mut f, 0, false);
    // A D-SACK of data below the marker (segment 0 starts at it: its end
    // is above; a block ending at the marker is not) counts nothing.
    let una = f.s.tcb().snd_una;
    f.ack_ts(una, 0, &[(0, 1)]);
    assert_eq!(f.ssthresh_segments(), 5.0);
    f.ack_ts(una, 0, &[(seg(0), seg(1))]);
    assert_eq!(f.ssthresh_segments(), 8.0);
    // The marker is cleared: the same D-SACK again undoes nothing more.
    f.ack_ts(una, 0, &[(seg(0), seg(1))]);
    assert_eq!(f.s.undos(), (1, 0));
}

#[test]
fn a_full_ack_echoing_the_original_transmission_undoes_at_once() {
    // Eifel detection: the fast retransmit left at 2 RTT; the full ACK
    // echoes TS 1 RTT + TS0 (the original's), before it: tcp_packet_delayed.
    // tcp_try_undo_recovery: cwnd = max(8, 10) = 10, ssthresh = max(5, 8),
    // Open.
    let mut f = reordered(true, true);
    let original = RTT.as_nanos();
    full_ack_then_dsack(&mut f, original, false);
    assert_eq!(f.state(), CaState::Open);
    // ...and the ACK then grows it as an ACK in Open (Linux runs
    // tcp_cong_control after the undo): congestion avoidance, + 1/10.
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (10.1, 8.0));
    assert_eq!(f.s.undos(), (1, 0));
    // What the window allows leaves at once: 10 from snd_una = segment 10,
    // less the three sent in the recovery.
    assert_eq!(f.s.tcb().snd_max, seg(20));
}

#[test]
fn a_full_ack_echoing_the_retransmission_undoes_nothing() {
    // The echo is the retransmission's own (2 RTT): the hole was filled
    // by it, the loss was real.
    let mut f = reordered(true, true);
    let retransmission = 2 * RTT.as_nanos();
    full_ack_then_dsack(&mut f, retransmission, false);
    assert_eq!(f.ssthresh_segments(), 5.0);
    assert_eq!(f.s.undos(), (0, 0));
}

#[test]
fn without_undo_a_full_ack_echoing_the_original_undoes_nothing() {
    let mut f = reordered(false, true);
    full_ack_then_dsack(&mut f, RTT.as_nanos(), true);
    assert_eq!(f.ssthresh_segments(), 5.0);
    assert!(f.cwnd_segments() < 10.0);
    assert_eq!(f.s.undos(), (0, 0));
}

#[test]
fn reno_and_cubic_undo_to_the_larger_window_and_bbr_keeps_its_own() {
    use crate::cc::CongestionControl;
    let mut tcb = crate::cc::Tcb::new(4 * MSS, 8 * MSS, MSS);
    let mut reno = crate::cc::reno::Reno::default();
    assert_eq!(reno.undo_cwnd(&tcb, 10 * MSS), 10 * MSS);
    assert_eq!(reno.undo_cwnd(&tcb, 3 * MSS), 4 * MSS);
    tcb.cwnd = 12 * MSS;
    let built = registry::build(&CcSpec::named("bbr"), "cc", Profile::Linux, false).unwrap();
    let mut bbr = built.cc;
    assert_eq!(bbr.undo_cwnd(&tcb, 20 * MSS), 12 * MSS);
}

#[test]
fn a_partial_ack_echoing_the_original_undoes_once_nothing_resent_is_outstanding() {
    // tcp_try_undo_partial: the ACK of segments 0-4 (a partial ACK: the
    // recovery point is segment 10) echoes the original's timestamp, and
    // the only retransmission (segment 0) is acknowledged: undo, Open.
    let mut f = reordered(true, true);
    f.advance(SimDuration::from_millis(10));
    f.ack_ts(seg(5), RTT.as_nanos(), &[]);
    assert_eq!(f.state(), CaState::Open);
    // ...and the ACK then grows it as an ACK in Open (Linux runs
    // tcp_cong_control after the undo): congestion avoidance, + 1/10.
    assert_eq!((f.cwnd_segments(), f.ssthresh_segments()), (10.1, 8.0));
    assert_eq!(f.s.undos(), (1, 0));
}

#[test]
fn a_partial_ack_echoing_the_retransmission_goes_on_with_the_recovery() {
    // NewReno's partial ACK instead: segment 5 is retransmitted.
    let mut f = reordered(true, true);
    f.advance(SimDuration::from_millis(10));
    f.ack_ts(seg(5), 2 * RTT.as_nanos(), &[]);
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.take().first(), Some(&(seg(5), MSS)));
    assert_eq!(f.s.undos(), (0, 0));
}
