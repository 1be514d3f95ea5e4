// SPDX-License-Identifier: MIT OR Apache-2.0
//! The adaptive reordering degree (`adaptive_reordering`, Linux's
//! `tp->reordering`) at the sender: what the ACKs show raises DupThresh,
//! and the recovery waits for that many duplicate ACKs.

use super::*;

/// Ten segments in flight one RTT after they left, the sack recovery,
/// adaptive reordering `on` or off.
fn flight(on: bool, timestamps: bool) -> Fix {
    let mut cfg = config(10);
    cfg.recovery = Recovery::Sack;
    cfg.sack = true;
    cfg.timestamps = timestamps;
    cfg.adaptive_reordering = on;
    let mut f = Fix::established("newreno", cfg);
    assert_eq!(f.take(), segments(0, 10));
    f.advance(RTT);
    f
}

/// Segment 7 SACKed, then segments 3, 4, 5 and 6 one by one (segments 0
/// to 2 still missing): the fast retransmits after each duplicate ACK, and
/// the DupThresh after each.
fn sack_3_after_7(on: bool) -> (Fix, Vec<(u32, u16)>) {
    let mut f = flight(on, false);
    let mut seen = Vec::new();
    for blocks in [
        &[(7, 8)][..],
        &[(3, 4), (7, 8)],
        &[(3, 5), (7, 8)],
        &[(3, 6), (7, 8)],
        &[(3, 8)],
    ] {
        f.sack(blocks);
        seen.push((f.s.stats().fast_retransmits, f.s.config().dupthresh));
    }
    (f, seen)
}

#[test]
fn a_segment_sacked_five_below_the_highest_sack_makes_the_recovery_wait_for_five() {
    // Segment 3 newly SACKed, never retransmitted, below the highest SACK
    // (the end of segment 7): 5 segments (Linux's tcp_check_sack_reordering,
    // as in its sack-shift-sacked-7-3-4-8-9-fack script: tcpi_reordering 5).
    // Segments 4, 5 and 6 are 4, 3 and 2 below it: no higher.
    let (f, seen) = sack_3_after_7(true);
    assert_eq!(
        seen,
        vec![(0, 3), (0, 5), (0, 5), (0, 5), (1, 5)],
        "the recovery starts at the fifth duplicate ACK"
    );
    assert_eq!(f.s.reordering().map(|o| o.seen), Some(4));
    // Off, DupThresh stays 3: the third duplicate ACK starts it.
    let (f, seen) = sack_3_after_7(false);
    assert_eq!(seen, vec![(0, 3), (0, 3), (1, 3), (1, 3), (1, 3)]);
    assert!(f.s.reordering().is_none());
}

#[test]
fn a_cumulative_ack_filling_a_hole_never_retransmitted_measures_from_it() {
    // DupThresh 5 after segment 3's SACK (above); segments 0 to 2 arrive,
    // never retransmitted: the ACK of segments 0 to 4 fills the hole from
    // segment 0 while segment 7 is SACKed: 8 segments (tcp_clean_rtx_queue).
    let mut f = flight(true, false);
    f.sack(&[(7, 8)]);
    f.sack(&[(3, 4), (7, 8)]);
    f.sack(&[(3, 5), (7, 8)]);
    assert_eq!(f.s.config().dupthresh, 5);
    f.ack_sack(5, &[(7, 8)]);
    assert_eq!(f.s.config().dupthresh, 8);
    assert_eq!(f.s.stats().fast_retransmits, 0);
}

#[test]
fn a_timeout_in_disorder_with_three_sacks_brings_dupthresh_back_to_3() {
    // DupThresh 5, Disorder with segments 3, 4 and 7 SACKed; the timer
    // fires (tcp_enter_loss: the degree was overestimated).
    let mut f = flight(true, false);
    f.sack(&[(7, 8)]);
    f.sack(&[(3, 4), (7, 8)]);
    f.sack(&[(3, 5), (7, 8)]);
    assert_eq!((f.state(), f.s.config().dupthresh), (CaState::Disorder, 5));
    f.timeout();
    f.sack(&[(3, 5), (7, 8)]);
    assert_eq!(f.s.config().dupthresh, 3);
}

#[test]
fn a_partial_ack_for_the_original_of_a_retransmission_measures_the_hole() {
    // Segment 0 delayed: segments 1 to 3 SACKed start a recovery (DupThresh
    // 3) and segment 0 is retransmitted at 200 ms. Its original, sent at
    // 100 ms, arrives: the ACK of segments 0 to 3 echoes TSval 100 ms,
    // older than the retransmission (Linux's tcp_packet_delayed in
    // tcp_try_undo_partial): the hole from segment 0 to the ACK, 4
    // segments, is reordering.
    let run = |on: bool| {
        let mut f = flight(on, true);
        for k in 2..5 {
            f.sack(&[(1, k)]);
        }
        assert_eq!(f.s.stats().fast_retransmits, 1);
        assert_eq!(f.take().first(), Some(&(seg(0), MSS)));
        let h = TcpHeader {
            ack: seg(4),
            flags: ACK,
            wnd: 65_535,
            ts_ecr: RTT.as_nanos(),
            ..TcpHeader::default()
        };
        f.s.on_segment(f.now, &h, &mut f.out);
        f.s.config().dupthresh
    };
    assert_eq!(run(true), 4);
    assert_eq!(run(false), 3);
}

#[test]
fn a_dsack_after_reordering_widens_rack_s_window_through_the_sender() {
    // RACK (prr), ten segments sent at 100 ms, the handshake's RTT 100 ms.
    // At 200 ms segment 7 is SACKed, then segment 3 (reordering: DupThresh
    // 5, one event). RACK's timer (100 + 100 + 25 ms) marks 0-2 and 4-6
    // lost: the recovery retransmits. The ACK of segments 0 to 3 then
    // carries a D-SACK of segment 0 (RFC 2883 4.1.1: below the cumulative
    // ACK), whose retransmission was one too many: RACK's window takes a
    // second step on that same ACK (it delivers segments sent after the
    // last step, none). (PRR had retransmitted segment 0 only: the ACK
    // also fills segments 1 and 2, never retransmitted, below segment 7: a
    // second reordering event.)
    let run = |on: bool| {
        let mut cfg = config(10);
        cfg.recovery = Recovery::Prr;
        cfg.sack = true;
        cfg.rack = RackMode::On;
        cfg.adaptive_reordering = on;
        let mut f = Fix::established("newreno", cfg);
        f.take();
        f.advance(RTT);
        f.sack(&[(7, 8)]);
        f.sack(&[(3, 4), (7, 8)]);
        f.timeout();
        assert_eq!(f.state(), CaState::Recovery);
        assert!(f.s.stats().retransmitted_segments >= 1);
        f.advance(RTT);
        let mut h = TcpHeader {
            ack: seg(4),
            flags: ACK,
            wnd: 65_535,
            nsack: 2,
            ..TcpHeader::default()
        };
        h.sack[0] = (seg(0), seg(1));
        h.sack[1] = (seg(7), seg(8));
        f.s.on_segment(f.now, &h, &mut f.out);
        f.s.reordering().map(|o| (o.seen, o.steps))
    };
    assert_eq!(run(true), Some((2, 2)));
    assert_eq!(run(false), None);
}
