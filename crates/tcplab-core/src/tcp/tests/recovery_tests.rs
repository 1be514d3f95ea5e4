// SPDX-License-Identifier: MIT OR Apache-2.0
//! The recoveries added to the seam one by one, pinned as the sender's
//! other states are: PRR (RFC 9937) in its SACK and non-SACK forms, and
//! RFC 6675's rescue retransmission. The numbers are worked out by hand in
//! each test's comments.

use super::*;
use crate::tcp::PrrForm;

/// `n` segments in flight from a sender recovering by `recovery`, one RTT
/// after they left.
fn window(n: u64, recovery: Recovery, sack: bool) -> Fix {
    let mut cfg = config(n);
    cfg.recovery = recovery;
    cfg.sack = sack;
    let mut f = Fix::established("newreno", cfg);
    assert_eq!(f.take(), segments(0, n));
    f.advance(RTT);
    f
}

impl Fix {
    /// A duplicate ACK of snd_una carrying SACK blocks of whole segments
    /// [from, to).
    pub(super) fn sack(&mut self, blocks: &[(u64, u64)]) {
        let ack = self.s.tcb().snd_una;
        self.ack_blocks(ack, blocks);
    }

    /// A cumulative ACK up to segment `k` with SACK blocks.
    fn ack_sack(&mut self, k: u64, blocks: &[(u64, u64)]) {
        self.ack_blocks(seg(k), blocks);
    }

    fn ack_blocks(&mut self, ack: u64, blocks: &[(u64, u64)]) {
        let mut h = TcpHeader {
            ack,
            flags: ACK,
            wnd: 65_535,
            ..TcpHeader::default()
        };
        for (i, &(a, b)) in blocks.iter().enumerate() {
            h.sack[i] = (seg(a), seg(b));
        }
        h.nsack = blocks.len() as u8;
        self.s.on_segment(self.now, &h, &mut self.out);
    }
}

/// Per ACK of segment j: j, the segments sent in answer, cwnd in segments.
pub(super) type Trace = Vec<(u64, Vec<(u64, u64)>, f64)>;

/// The first segment of twenty lost; the ACKs of segments 1 to 19 arrive
/// one by one, with SACK (`sack`) or as plain duplicates. Returns, for each
/// of them, the segments sent in answer and cwnd.
fn prr_one_loss_in_twenty(sack: bool) -> (Fix, Trace) {
    prr_one_loss_in_twenty_in(sack, PrrForm::Rfc9937)
}

/// As [`prr_one_loss_in_twenty`], in PRR's arithmetic `form`.
pub(super) fn prr_one_loss_in_twenty_in(sack: bool, form: PrrForm) -> (Fix, Trace) {
    let mut cfg = config(20);
    cfg.recovery = Recovery::Prr;
    cfg.sack = sack;
    cfg.prr_form = form;
    let mut f = Fix::established("newreno", cfg);
    assert_eq!(f.take(), segments(0, 20));
    f.advance(RTT);
    let mut trace = Vec::new();
    for j in 1..20 {
        if sack {
            f.sack(&[(1, j + 1)]);
        } else {
            f.dupack();
        }
        trace.push((j, f.take(), f.cwnd_segments()));
    }
    (f, trace)
}

/// RFC 6937's own example worked through without SACK: ssthresh = 10
/// segments, RecoverFS = FlightSize = 20. The ACK of segment j (j >= 3)
/// brings prr_delivered to j - 2 segments; while pipe > ssthresh, sndcnt =
/// ceil(prr_delivered * 10 / 20) - prr_out: the fast retransmit on the third
/// duplicate ACK (forced: nothing sent yet), then one new segment for every
/// second ACK (6, 8, 10, 12; at 5, 7, ... sndcnt is half a segment, which
/// does not fit). From the ACK of segment 14 on, pipe (retransmission +
/// outstanding + new) is at or below ssthresh and the reduction bound lets
/// one segment out per ACK, holding pipe at ssthresh: 10 segments sent in
/// all, none in a burst.
fn expected_prr_pattern() -> Trace {
    let mut want = Vec::new();
    let mut next_new = 20;
    for j in 1..20u64 {
        let sent = match j {
            1 | 2 => vec![],
            3 => vec![(seg(0), MSS)],
            6 | 8 | 10 | 12 | 15..=19 => {
                next_new += 1;
                segments(next_new - 1, 1)
            }
            _ => vec![],
        };
        // cwnd = pipe + sndcnt, pipe taken before this ACK's sending.
        let new_before = next_new - 20 - sent.iter().filter(|s| s.0 >= seg(20)).count() as u64;
        let pipe = 1 + (19 - j) + new_before;
        let sndcnt = match j {
            1 | 2 => 0.0,
            3 => 1.0,
            5 | 7 | 9 | 11 | 13 => 0.5,
            6 | 8 | 10 | 12 | 15..=19 => 1.0,
            _ => 0.0,
        };
        let cwnd = match j {
            1 | 2 => 20.0,
            3 => 16.0 + 1.0, // the head is lost and not yet retransmitted
            _ => pipe as f64 + sndcnt,
        };
        want.push((j, sent, cwnd));
    }
    want
}

#[test]
fn prr_with_sack_spreads_the_reduction_over_the_acks_of_one_window() {
    // With SACK, RFC 9937 leaves out of RecoverFS the two segments SACKed
    // before the recovery: RecoverFS = 20 - 3 + 1 = 18 segments, so sndcnt
    // = ceil(prr_delivered * 10 000 / 18 000) - prr_out bytes. Per ACK of
    // segment j: prr_delivered = j - 2 segments, pipe before sending, cwnd
    // = pipe + sndcnt (worked out in docs/tcp.md's PRR section):
    //   j = 3: pipe 16, sndcnt 556 B forced to 1000: the retransmission;
    //   j = 4..14: cwnd 16.112, 15.667, 15.223 (sends 20), 14.778, 14.334
    //   (21), 13.889, 13.445 (22), 13.0 (23), 12.556, 12.112 (24), 11.667;
    //   j = 15: pipe 10 = ssthresh, the bound: sndcnt 0;
    //   j = 16..19: pipe 9, one segment each (25 to 28).
    let (mut f, trace) = prr_one_loss_in_twenty(true);
    let sends: Vec<(u64, usize)> = trace
        .iter()
        .filter(|(_, s, _)| !s.is_empty())
        .map(|(j, s, _)| (*j, s.len()))
        .collect();
    assert_eq!(
        sends,
        vec![
            (3, 1),
            (6, 1),
            (8, 1),
            (10, 1),
            (11, 1),
            (13, 1),
            (16, 1),
            (17, 1),
            (18, 1),
            (19, 1)
        ]
    );
    assert_eq!(trace[2].1, vec![(seg(0), MSS)]);
    let cwnds: Vec<f64> = trace.iter().map(|t| t.2).collect();
    assert_eq!(
        cwnds,
        vec![
            20.0, 20.0, 17.0, 16.112, 15.667, 15.223, 14.778, 14.334, 13.889, 13.445, 13.0, 12.556,
            12.112, 11.667, 10.0, 10.0, 10.0, 10.0, 10.0
        ]
    );
    assert_eq!(f.ssthresh_segments(), 10.0);
    assert_eq!(f.state(), CaState::Recovery);
    // prr_out reached ssthresh: ten segments, the retransmission included.
    assert_eq!(f.s.tcb().snd_max, seg(29));
    // The retransmission arrives: the recovery point (segment 20) is
    // acknowledged, cwnd = ssthresh, and one segment fits beside the nine
    // new ones in flight.
    ends_at_ssthresh_of_ten_beside_nine_new(&mut f);
}

/// The retransmission of segment 0 is acknowledged a round trip later (up
/// to segment 20, the recovery point): Open, cwnd = ssthresh = 10, and with
/// nine new segments (20 to 28) in flight one more (29) goes out.
fn ends_at_ssthresh_of_ten_beside_nine_new(f: &mut Fix) {
    f.advance(RTT);
    f.ack(seg(20));
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.cwnd_segments(), 10.0);
    assert_eq!(f.take(), segments(29, 1));
}

#[test]
fn prr_without_sack_counts_each_duplicate_ack_as_one_segment_delivered() {
    let (f, trace) = prr_one_loss_in_twenty(false);
    assert_eq!(trace, expected_prr_pattern());
    assert_eq!(f.s.stats().retransmitted_segments, 1);
}

#[test]
fn the_sack_recovery_halves_at_once_and_waits_half_a_window() {
    // The contrast PRR is for (RFC 6675 with cwnd = ssthresh = 10): after the
    // fast retransmit, nothing leaves until pipe falls below 10, at the ACK
    // of segment 11; then one segment per ACK.
    let mut f = window(20, Recovery::Sack, true);
    let mut first_new = None;
    for j in 1..20 {
        f.sack(&[(1, j + 1)]);
        let sent = f.take();
        if j == 3 {
            assert_eq!(sent, vec![(seg(0), MSS)]);
        } else if !sent.is_empty() && first_new.is_none() {
            first_new = Some(j);
        }
    }
    assert_eq!(first_new, Some(11));
}

#[test]
fn prr_with_four_losses_switches_to_the_reduction_bound_below_ssthresh() {
    // Segments 0 to 3 of twenty lost; the SACKs of 4, 5 and 6 detect it
    // (IsLost holds for all four holes). ssthresh 10, RecoverFS 20 - 3 + 1
    // = 18 (RFC 9937).
    let mut f = window(20, Recovery::Prr, true);
    f.sack(&[(4, 5)]);
    f.sack(&[(4, 6)]);
    assert!(f.take().is_empty());
    f.sack(&[(4, 7)]);
    // pipe = 13 outstanding (7..=19) > ssthresh: sndcnt = ceil(1000 * 10 /
    // 18) = 556 B, forced to 1 segment: the first hole.
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    assert_eq!(f.cwnd_segments(), 14.0);
    // The SACKs of 7 to 12, one each; prr_delivered = k - 5 segments after
    // the SACK of k, prr_out = retransmissions sent. pipe = retransmitted +
    // outstanding (k+1..=19), sndcnt in bytes:
    //   k = 7:  pipe 13, ceil(2000 * 10 / 18) - 1000 = 112      cwnd 13.112
    //   k = 8:  pipe 12, 1667 - 1000 = 667                       cwnd 12.667
    //   k = 9:  pipe 11, 2223 - 1000 = 1223: hole 1              cwnd 12.223
    //   k = 10: pipe 11, 2778 - 2000 = 778                       cwnd 11.778
    //   k = 11: pipe 10 = ssthresh: the bound, min(10 - 10, ...) = 0
    //   k = 12: pipe 9: min(10 - 9, max(7 - 2, 1)) = 1: hole 2
    let mut trace = Vec::new();
    for k in 7..13 {
        f.sack(&[(4, k + 1)]);
        trace.push((f.take().len(), f.cwnd_segments()));
    }
    assert_eq!(
        trace,
        vec![
            (0, 13.112),
            (0, 12.667),
            (1, 12.223),
            (0, 11.778),
            (0, 10.0),
            (1, 10.0)
        ]
    );
    // The retransmissions of 0 and 1 arrive: a cumulative ACK of 2 segments
    // that reveals no new loss (safe). pipe = 1 (hole 2 resent) + 7
    // outstanding (13..=19) = 8; prr_delivered 9, prr_out 3: sndcnt =
    // min(10 - 8, max(9 - 3, 2) + 1) = 2: hole 3, then one new segment.
    f.advance(RTT);
    f.ack_sack(2, &[(4, 13)]);
    assert_eq!(f.take(), vec![(seg(3), MSS), (seg(20), MSS)]);
    assert_eq!(f.cwnd_segments(), 10.0);
}

#[test]
fn prr_without_sack_retransmits_the_next_hole_on_a_partial_ack() {
    // Segments 0 and 5 of twenty lost; plain duplicate ACKs.
    let mut f = window(20, Recovery::Prr, false);
    for _ in 0..18 {
        f.dupack();
    }
    f.take();
    f.events();
    f.advance(RTT);
    // The retransmission of 0 fills up to 5.
    f.ack(seg(5));
    let sent = f.take();
    assert_eq!(sent.first(), Some(&(seg(5), MSS)));
    assert_eq!(
        f.events()[..2],
        [TcpEventKind::PartialAck, TcpEventKind::Retransmit]
    );
    assert_eq!(f.state(), CaState::Recovery);
}

#[test]
fn prr_ends_the_recovery_at_ssthresh() {
    let mut f = window(20, Recovery::Prr, true);
    for j in 1..4 {
        f.sack(&[(1, j + 1)]);
    }
    f.advance(RTT);
    f.ack(seg(20));
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.cwnd_segments(), 10.0);
}

#[test]
fn prr_does_not_resend_at_a_new_recovery_what_the_last_one_retransmitted() {
    // Segments 0 and 5 lost, then segment 20 (new data sent during the
    // recovery). The SACKs above 20 make it lost while the recovery for 0
    // and 5 still runs, so it is retransmitted then; the ACK of 5's
    // retransmission ends that recovery, and the next SACK starts another
    // at once (20 IsLost). 20's retransmission is still in flight: it is
    // not sent a third time (RFC 6675 alone would restart HighRxt at 20).
    let mut f = window(20, Recovery::Prr, true);
    for j in 1..5 {
        f.sack(&[(1, j + 1)]);
    }
    for j in 6..20 {
        f.sack(&[(6, j + 1), (1, 5)]);
    }
    let first: Vec<u64> = f.take().iter().map(|s| s.0).collect();
    assert_eq!(first[0], seg(0));
    assert!(first.contains(&seg(5)));
    assert!(f.s.tcb().snd_max >= seg(28), "new data went out");
    f.advance(RTT);
    // The retransmission of 0 arrives, then the SACKs of 21, 22 and 23.
    f.ack_sack(5, &[(6, 20)]);
    for j in 21..24 {
        f.ack_sack(5, &[(21, j + 1), (6, 20)]);
    }
    let sent: Vec<u64> = f.take().iter().map(|s| s.0).collect();
    assert!(
        sent.contains(&seg(20)),
        "20 is retransmitted in the first recovery"
    );
    // The retransmission of 5 arrives: the recovery point is acknowledged.
    f.ack_sack(20, &[(21, 24)]);
    assert_eq!(f.state(), CaState::Open);
    f.take();
    f.ack_sack(20, &[(21, 25)]);
    assert_eq!(f.state(), CaState::Recovery);
    let sent: Vec<u64> = f.take().iter().map(|s| s.0).collect();
    assert!(!sent.contains(&seg(20)), "sent again: {sent:?}");
    assert_eq!(f.s.stats().fast_retransmits, 2);
}

// ---- RFC 6675 rule 4: the rescue retransmission --------------------------

/// Ten segments, the application has nothing more; segments 0 and 9 lost,
/// 1 to 8 SACKed.
fn tail_loss(rescue: bool) -> Fix {
    let mut cfg = config(10);
    cfg.recovery = Recovery::Sack;
    cfg.sack = true;
    cfg.rescue_retransmit = rescue;
    let mut f = Fix::established("newreno", cfg);
    f.s.pause_app();
    f.take();
    f.advance(RTT);
    for j in 1..9 {
        f.sack(&[(1, j + 1)]);
    }
    f
}

#[test]
fn the_rescue_retransmission_resends_the_last_segment_once_per_recovery() {
    // Segment 9 has nothing SACKed above it, so IsLost never holds; with
    // nothing new to send, rule 4 retransmits it when pipe allows: after
    // the SACK of 8, pipe = 0 (lost) + 1 (retransmitted 0) + 1 (segment 9)
    // = 2 segments, cwnd = ssthresh = 5.
    let mut f = tail_loss(true);
    let sent = f.take();
    assert_eq!(sent, vec![(seg(0), MSS), (seg(9), MSS)]);
    // Once only: more SACKs send nothing more.
    f.sack(&[(1, 9)]);
    assert!(f.take().is_empty());
}

#[test]
fn without_the_rescue_retransmission_the_last_segment_waits_for_the_timer() {
    let mut f = tail_loss(false);
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
}

// ---- ns-2's Reno guard (bugFix_) ------------------------------------------

#[test]
fn with_ns2_s_guard_reno_leaves_a_second_loss_in_the_window_to_the_timer() {
    // Segments 0 and 5 of ten lost, plain duplicate ACKs. Reno leaves the
    // recovery on the first new ACK (the partial ACK of 5); the duplicates
    // that follow are for a loss inside the same window (at or below the
    // recovery point, segment 10): RFC 5681's Reno starts a second fast
    // recovery, ns-2's (bugFix_) waits for the timer.
    let run = |guard: bool| {
        let mut cfg = config(10);
        cfg.recovery = Recovery::Reno;
        cfg.reno_recover_guard = guard;
        let mut f = Fix::established("newreno", cfg);
        f.take();
        f.advance(RTT);
        for _ in 0..8 {
            f.dupack();
        }
        f.advance(RTT);
        f.ack(seg(5)); // the retransmission of 0 fills up to 5
        assert_eq!(f.state(), CaState::Open);
        f.take();
        for _ in 0..3 {
            f.dupack();
        }
        (f.s.stats().fast_retransmits, f.take())
    };
    assert_eq!(run(false), (2, vec![(seg(5), MSS)]));
    assert_eq!(run(true).0, 1);
    assert!(!run(true).1.contains(&(seg(5), MSS)));
}

// ---- RACK-TLP through the sender -------------------------------------------

#[test]
fn a_loss_after_a_probe_repaired_one_still_starts_a_recovery() {
    // Ten segments, nothing more to send, the last (9) lost: the probe
    // resends it, and the ACK of new data sent after it goes beyond the
    // probe, so the probe repaired a loss (one window reduction). Segment
    // 11 of the next flight is lost: RACK marks it from the SACKs of 12 to
    // 14, and a recovery must start (the reduction left no recovery point
    // that would forbid it).
    let mut f = Fix::rack_tlp_ten();
    f.advance(RTT);
    f.ack(seg(9)); // 0..=8 arrived
    f.timeout(); // the probe timer (2 SRTT) fires first
    assert_eq!(f.take(), vec![(seg(9), MSS)]);
    assert!(f.events().contains(&TcpEventKind::LossProbe));
    f.advance(RTT);
    f.ack(seg(10)); // the probe arrived: the ACK reaches its end
    let now = f.now;
    f.s.set_app_limit(now, 20 * MSS, &mut f.out);
    let sent = f.take();
    assert_eq!(sent.first(), Some(&(seg(10), MSS)));
    f.advance(RTT);
    f.ack(seg(11)); // beyond the probe: it repaired a loss
    assert_eq!(f.ssthresh_segments(), 5.0, "one reduction");
    assert_eq!(f.state(), CaState::Open);
    f.take();
    for k in 12..15 {
        f.ack_sack(11, &[(12, k + 1)]);
    }
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.s.stats().fast_retransmits, 1);
    assert!(f.take().contains(&(seg(11), MSS)));
}

#[test]
fn ns2_s_vegas_backs_the_timer_off_at_each_retransmission() {
    // ns-2's Vegas restarts the coarse timer backed off at each of its
    // retransmissions (reset_rtx_timer(1)): after the fast retransmit the
    // timer runs for twice the RTO; without it, for one RTO.
    let run = |backoff: bool| {
        let mut cfg = config(10);
        cfg.retransmit_backoff = backoff;
        let mut f = Fix::in_recovery(cfg);
        let rto = f.s.rtt().rto();
        (f.s.rto_deadline().unwrap() - f.now, rto, f.take())
    };
    let (_, rto, _) = run(false);
    assert_eq!(rto, SimDuration::from_secs(1));
    let (wait, rto, _) = run(true);
    assert_eq!(wait, rto, "rto() itself is the backed-off value");
    assert_eq!(rto, SimDuration::from_secs(2), "1 s doubled");
}

mod rto_restart;

mod rate_halving;

mod sack1;

mod ns2_vegas;

mod reordering;

#[test]
fn with_recovery_exit_growth_the_ack_ending_prr_also_grows_the_window() {
    let grown = |on: bool| {
        let mut cfg = config(20);
        cfg.recovery = Recovery::Prr;
        cfg.sack = true;
        cfg.recovery_exit_growth = on;
        let mut f = Fix::established("newreno", cfg);
        f.take();
        f.advance(RTT);
        for j in 1..4 {
            f.sack(&[(1, j + 1)]);
        }
        f.advance(RTT);
        f.ack(seg(20));
        assert_eq!(f.state(), CaState::Open);
        f.cwnd_segments()
    };
    // At ssthresh (10 segments), Reno's avoidance adds MSS * MSS / cwnd:
    // a tenth of a segment, as ns-3's IncreaseWindow on that ACK.
    assert_eq!(grown(false), 10.0);
    assert_eq!(grown(true), 10.1);
}

#[test]
fn the_pipe_a_reduction_reports_leaves_out_sacked_and_lost_segments() {
    // Twenty in flight, the first lost: at the third SACK the recovery
    // starts with 3 segments SACKed and the head counted lost.
    let mut f = window(20, Recovery::Prr, true);
    for j in 1..4 {
        f.sack(&[(1, j + 1)]);
    }
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.s.tcb().pipe as u64, 16 * MSS);
    // Without SACK each duplicate counts one segment delivered.
    let mut f = window(20, Recovery::Prr, false);
    for _ in 0..3 {
        f.dupack();
    }
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.s.tcb().pipe as u64, 17 * MSS);
}

/// H-TCP (Linux's module, which counts ACKed segments towards the next
/// increase in `cwnd_cnt`) in congestion avoidance with 20 segments in
/// flight: the ACKs of segments 0-2 leave 3 segments of credit, then
/// segment 3 is lost and three SACKing duplicate ACKs start a recovery.
/// Returns the credit before and after.
fn credit_across_a_fast_retransmit(recovery: Recovery) -> (u64, u64) {
    let mut cfg = config(20);
    cfg.recovery = recovery;
    cfg.sack = true;
    cfg.initial_ssthresh = 10 * MSS;
    let mut f = Fix::established("htcp", cfg);
    f.take();
    f.advance(RTT);
    for k in 1..=3 {
        f.ack(seg(k));
    }
    let before = f.s.tcb().cwnd_cnt;
    for j in 5..=7 {
        f.sack(&[(4, j)]);
    }
    assert_eq!(f.state(), CaState::Recovery, "{recovery:?}");
    (before, f.s.tcb().cwnd_cnt)
}

#[test]
fn linux_s_recoveries_forget_the_growth_credit_at_a_fast_retransmit() {
    // Linux's tcp_init_cwnd_reduction and ns-2's TCP-Linux set
    // snd_cwnd_cnt = 0; RFC 6675's recovery has no such credit to reset.
    assert_eq!(credit_across_a_fast_retransmit(Recovery::Prr), (3, 0));
    assert_eq!(
        credit_across_a_fast_retransmit(Recovery::RateHalving),
        (3, 0)
    );
    assert_eq!(credit_across_a_fast_retransmit(Recovery::Sack), (3, 3));
}
