// SPDX-License-Identifier: MIT OR Apache-2.0
//! Exact traces of BBRv2/v3's transitions, computed by hand from Linux's
//! tcp_bbr.c (v3) and tcp_bbr2.c (v2alpha) in their fixed-point integers.
//! A path of 100 ms min RTT, 1000-B segments, an initial window of 10.
//! Bandwidth samples: 10 packets in 100 ms = ceil(10 x 2^24 / 100000) =
//! 1678; 20 packets = 3356 (200 kB/s).

use super::*;

const MSS: u64 = 1000;

fn ms(v: u64) -> SimDuration {
    SimDuration::from_millis(v)
}

struct D {
    b: Bbr3,
    t: Tcb,
    delivered: u64,
}

impl D {
    fn new(v: BbrVersion) -> D {
        D::with(Bbr3Config::linux(v), ms(100))
    }

    fn with(cfg: Bbr3Config, rtt: SimDuration) -> D {
        let mut t = Tcb {
            srtt: Some(rtt),
            min_rtt: Some(rtt),
            ..Tcb::new(10 * MSS, u64::MAX, MSS)
        };
        let mut b = Bbr3::new(cfg);
        b.init(&mut t);
        D { b, t, delivered: 0 }
    }

    /// An ACK `after` ms later delivering `pkts` packets: its sample is
    /// those packets over 100 ms, sent when the last ACK's total was
    /// delivered (a new round each ACK); 100 packets in flight before and
    /// after; `f` changes the sample.
    fn ack(&mut self, after: u64, pkts: u64, f: impl FnOnce(&mut RateSample)) {
        self.t.now += ms(after);
        let mut rs = RateSample {
            delivered: pkts * MSS,
            interval: ms(100),
            prior_delivered: self.delivered,
            total_delivered: self.delivered + pkts * MSS,
            newly_delivered: pkts * MSS,
            rtt: Some(ms(100)),
            bytes_in_flight: 100 * MSS,
            in_flight: 100 * MSS,
            prior_in_flight: 100 * MSS,
            ..RateSample::default()
        };
        f(&mut rs);
        self.delivered = rs.total_delivered;
        self.b.control(&mut self.t, &rs);
    }

    fn cwnd(&self) -> u64 {
        self.t.cwnd / MSS
    }

    /// Startup to ProbeBW's CRUISE at 3356 (see the v3 trace below).
    fn cruising(v: BbrVersion) -> D {
        let mut d = D::new(v);
        d.ack(100, 10, |_| {});
        for _ in 0..4 {
            d.ack(100, 20, |_| {});
        }
        d.ack(100, 20, |r| r.in_flight = 21 * MSS);
        d.ack(100, 20, |r| r.prior_in_flight = 21 * MSS);
        assert_eq!((d.b.mode, d.b.cycle_idx), (Mode::ProbeBw, Phase::Cruise));
        d
    }
}

#[test]
fn the_initial_pacing_rate_is_the_startup_gain_times_the_window_over_srtt() {
    // bw = 10 x 2^24 / 100000 = 1677; x 1000 B x gain >> 8 x 990000 >> 24.
    assert_eq!(D::new(BbrVersion::V3).t.pacing_rate, 274_452.0); // gain 710 = 2.77
    assert_eq!(D::new(BbrVersion::V2).t.pacing_rate, 285_662.0); // gain 739 = 2.885
}

#[test]
fn v3_startup_grows_to_a_plateau_drains_and_cruises() {
    let mut d = D::new(BbrVersion::V3);
    // 1678: the first plateau; cwnd 10 + 10 toward bdp(1678, 2) = 21 plus
    // the 10 packets ACKed beyond 0 expected (aggregation) = 31.
    d.ack(100, 10, |_| {});
    assert_eq!(
        (d.cwnd(), d.b.full_bw, d.t.pacing_rate),
        (20, 1678, 274_615.0)
    );
    // 3356 >= 1.25 x 1678: a new plateau; 20 + 20 (target 41 + 20).
    d.ack(100, 20, |_| {});
    assert_eq!(
        (d.cwnd(), d.b.full_bw, d.t.pacing_rate),
        (40, 3356, 549_231.0)
    );
    // Three rounds below 1.25 x 3356 = 4195: the pipe is full.
    d.ack(100, 20, |_| {});
    d.ack(100, 20, |_| {});
    assert_eq!(
        (d.cwnd(), d.b.full_bw_cnt, d.b.mode),
        (80, 2, Mode::Startup)
    );
    d.ack(100, 20, |_| {});
    // Drain: ssthresh for monitoring = bbr_inflight(3356, 1) = 21 packets;
    // pacing 1/2.885; cwnd snaps to the target 41 + 20 (gain 2).
    assert!(d.b.full_bw_now && d.b.full_bw_reached);
    assert_eq!((d.b.mode, d.t.ssthresh), (Mode::Drain, 21 * MSS));
    assert_eq!((d.cwnd(), d.t.pacing_rate), (61, 68_073.0));
    // In flight down to 21 = one BDP: ProbeBW, DOWN (gain 0.91).
    d.ack(100, 20, |r| r.in_flight = 21 * MSS);
    assert_eq!((d.b.mode, d.b.cycle_idx), (Mode::ProbeBw, Phase::Down));
    assert_eq!(d.t.pacing_rate, 179_467.0);
    // The flight before the ACK is 21 <= bdp and no inflight_hi: CRUISE.
    d.ack(100, 20, |r| r.prior_in_flight = 22 * MSS);
    assert_eq!(d.b.cycle_idx, Phase::Down);
    d.ack(100, 20, |r| r.prior_in_flight = 21 * MSS);
    assert_eq!(d.b.cycle_idx, Phase::Cruise);
    assert_eq!(d.t.pacing_rate, 198_032.0);
}

#[test]
fn v2_takes_as_many_rounds_with_its_own_gains() {
    let mut d = D::new(BbrVersion::V2);
    d.ack(100, 10, |_| {});
    // cwnd gain 2.885: bdp(1678, 739) = ceil(30.3) = 31 + 10.
    assert_eq!(d.cwnd(), 20);
    for _ in 0..4 {
        d.ack(100, 20, |_| {});
    }
    assert_eq!(d.b.mode, Mode::Drain);
    d.ack(100, 20, |r| r.in_flight = 21 * MSS);
    d.ack(100, 20, |r| r.prior_in_flight = 21 * MSS);
    assert_eq!(d.b.cycle_idx, Phase::Cruise);
    // DOWN's gain is 0.75 in v2: set when DOWN was entered.
    d.b.cycle_idx = Phase::Down;
    d.b.update_gains();
    assert_eq!((d.b.pacing_gain, d.b.cwnd_gain), (192, 512));
    d.b.cycle_idx = Phase::Up;
    d.b.update_gains();
    assert_eq!((d.b.pacing_gain, d.b.cwnd_gain), (320, 512));
    let mut d3 = D::new(BbrVersion::V3);
    d3.b.mode = Mode::ProbeBw;
    d3.b.update_gains();
    assert_eq!((d3.b.pacing_gain, d3.b.cwnd_gain), (320, 576));
}

#[test]
fn v3_probes_after_the_wall_clock_wait_refills_a_round_and_ends_up_on_a_plateau() {
    let mut d = D::cruising(BbrVersion::V3);
    // DOWN began at 0.6 s; the wait (no random stream) is exactly 2 s.
    d.ack(1900, 20, |_| {});
    assert_eq!(d.b.cycle_idx, Phase::Cruise);
    d.ack(101, 20, |_| {});
    assert_eq!(
        (d.b.cycle_idx, d.b.ack_phase),
        (Phase::Refill, AckPhase::Refilling)
    );
    assert_eq!((d.b.bw_lo, d.b.inflight_lo), (UNSET, UNSET));
    // The next round: UP, samples now reflect the probe; inflight_hi's
    // slope 1 packet per cwnd ACKed.
    d.ack(100, 20, |_| {});
    assert_eq!((d.b.cycle_idx, d.b.pacing_gain), (Phase::Up, 320));
    assert!(d.b.bw_probe_samples);
    // (cnt from the window before this ACK grew it: 61; now the target
    // bdp(3356, 2.25) = 46 + 20 + 2 (UP's budget) = 68.)
    assert_eq!(
        (d.b.bw_probe_up_rounds, d.b.bw_probe_up_cnt, d.cwnd()),
        (1, 61, 68)
    );
    // Three rounds without 25% more bandwidth: the plateau ends UP.
    d.ack(100, 20, |_| {});
    d.ack(100, 20, |_| {});
    assert_eq!(d.b.cycle_idx, Phase::Up);
    d.ack(100, 20, |_| {});
    assert_eq!(d.b.cycle_idx, Phase::Down);
    // The probe's samples keep arriving for a round (ProbeStopping); the
    // round after, they stop counting and the max filter forgets the
    // older cycle.
    assert!(!d.b.prev_probe_too_high && d.b.bw_probe_samples);
    assert_eq!(d.b.ack_phase, AckPhase::ProbeStopping);
    d.ack(100, 20, |_| {});
    assert!(!d.b.bw_probe_samples);
    assert_eq!((d.b.ack_phase, d.b.bw_hi), (AckPhase::Init, [3356, 0]));
}

#[test]
fn v2_ends_up_once_a_min_rtt_passed_with_five_quarters_of_the_bdp_in_flight() {
    let mut d = D::cruising(BbrVersion::V2);
    d.ack(2001, 20, |_| {});
    d.ack(100, 20, |_| {});
    assert_eq!(d.b.cycle_idx, Phase::Up);
    // bbr_inflight(3356, 1.25) = 26 + 2 (UP's budget) = 28, against the
    // flight at the next departure: the flight before the ACK plus the
    // skb about to leave at a gain above 1 (tso_segs_goal 2).
    d.ack(100, 20, |r| r.prior_in_flight = 100 * MSS);
    assert_eq!(d.b.cycle_idx, Phase::Up, "100 ms is not more than min_rtt");
    d.ack(1, 1, |r| r.prior_in_flight = 25 * MSS);
    assert_eq!(d.b.cycle_idx, Phase::Up);
    d.ack(1, 1, |r| r.prior_in_flight = 26 * MSS);
    assert_eq!(d.b.cycle_idx, Phase::Down);
}

#[test]
fn a_segment_lost_while_probing_sets_inflight_hi_where_the_loss_rate_crossed_two_percent() {
    let mut d = D::cruising(BbrVersion::V3);
    d.ack(2001, 20, |_| {});
    d.ack(100, 20, |_| {});
    assert!(d.b.bw_probe_samples);
    // Sent with 30 in flight, the first loss since: 1 > 30 x 5 >> 8 = 0.
    // inflight_prev 29, lost_prev 0, budget (29 x 5 + 255) >> 8 = 1,
    // prefix (1 << 8) / 251 = 1: inflight_hi = 30 (above 0.7 x target).
    let seg = LostSegment {
        len: MSS,
        tx_in_flight: 30 * MSS,
        lost: MSS,
        is_app_limited: false,
        delivered: d.delivered,
    };
    d.b.on_marked_lost(&mut d.t, &seg);
    assert_eq!(d.b.inflight_hi, 30);
    assert_eq!(d.b.cycle_idx, Phase::Down);
    // The new cycle (DOWN) reset the round's loss signal.
    assert!(d.b.prev_probe_too_high && !d.b.loss_in_round && !d.b.bw_probe_samples);
    // Only once per probe: a second loss changes nothing.
    d.b.on_marked_lost(
        &mut d.t,
        &LostSegment {
            tx_in_flight: 90 * MSS,
            ..seg
        },
    );
    assert_eq!(d.b.inflight_hi, 30);
}

#[test]
fn inflight_hi_from_a_lost_skb_solves_for_the_crossing_packet() {
    let b = Bbr3::new(Bbr3Config::linux(BbrVersion::V3));
    let s = |tx: u64, lost: u64| Sample {
        tx_in_flight: tx,
        lost,
        ..Sample::default()
    };
    // Earlier losses crossed already: (99 x 5 + 255) >> 8 = 2 <= 4.
    assert_eq!(b.inflight_hi_from_lost_skb(&s(100, 5), 1), 99);
    // Budget (199 x 5 + 255) >> 8 = 4, 2 lost before: 199 + 512 / 251.
    assert_eq!(b.inflight_hi_from_lost_skb(&s(200, 3), 1), 201);
    // Inconsistent counts: no bound.
    assert_eq!(b.inflight_hi_from_lost_skb(&s(0, 1), 1), UNSET);
}

#[test]
fn a_round_with_loss_while_cruising_cuts_the_lower_bounds_by_beta() {
    let mut d = D::cruising(BbrVersion::V3);
    assert_eq!(d.cwnd(), 61);
    // The loss round ends on this ACK (its segment was sent after the
    // round began), which also lost a segment. The latest signals still
    // hold the last round's (reset to its final sample, 3356 and 20, at
    // its end): bw_lo = max(3356, 3356 x 180 >> 8 = 2359) = 3356,
    // inflight_lo = max(20, 61 x 180 >> 8 = 42) = 42, cwnd capped there.
    d.ack(100, 10, |r| r.newly_lost = MSS);
    assert_eq!((d.b.bw_lo, d.b.inflight_lo), (3356, 42));
    assert_eq!(d.cwnd(), 42);
    // Another lossy round, its latest 1678 and 10: bw_lo = 2359,
    // inflight_lo = max(10, 42 x 180 >> 8 = 29) = 29; the pacing rate
    // follows bw = min(3356, 2359).
    d.ack(100, 10, |r| r.newly_lost = MSS);
    assert_eq!((d.b.bw_lo, d.b.inflight_lo), (2359, 29));
    assert_eq!((d.b.bw(), d.t.pacing_rate), (2359, 139_201.0));
}

#[test]
fn probe_rtt_holds_half_the_bdp_for_200_ms_and_a_round_then_cruises() {
    let mut d = D::cruising(BbrVersion::V3);
    // RTT samples equal to the min never refresh v3's 5-s filter (strict
    // <): at more than 5 s, ProbeRTT; cwnd = max(4, bdp(3356, 0.5)) = 11.
    d.ack(4300, 20, |_| {});
    assert_ne!(d.b.mode, Mode::ProbeRtt);
    d.ack(101, 20, |_| {});
    assert_eq!(d.b.mode, Mode::ProbeRtt);
    assert_eq!((d.cwnd(), d.b.prior_cwnd), (11, 61));
    assert!(
        d.b.marks_app_limited(),
        "samples of the dip are app-limited"
    );
    // In flight down to 11: 200 ms from now, and a round.
    d.ack(10, 5, |r| r.in_flight = 11 * MSS);
    let done = d.t.now + ms(200);
    assert_eq!(d.b.probe_rtt_done_stamp, Some(done));
    d.ack(200, 5, |r| r.in_flight = 11 * MSS);
    assert_eq!(d.b.mode, Mode::ProbeRtt, "200 ms is not after the stamp");
    d.ack(1, 5, |r| r.in_flight = 11 * MSS);
    assert_eq!((d.b.mode, d.b.cycle_idx), (Mode::ProbeBw, Phase::Cruise));
    // cwnd back to what it was; the next dip is due 5 s from now.
    assert!(d.cwnd() >= 61);
    assert_eq!(d.b.probe_rtt_min_stamp, d.t.now);
}

#[test]
fn v3_leaves_startup_after_six_loss_events_in_a_recovery_round_above_two_percent() {
    for (v, exits) in [(BbrVersion::V3, true), (BbrVersion::V2, false)] {
        let mut d = D::new(v);
        d.ack(100, 10, |_| {});
        d.ack(100, 20, |_| {});
        d.t.ca_state = CaState::Recovery;
        // Six ACKs in the same loss round (sent before it began), each
        // marking a loss; the seventh ends the round, 5 of 50 lost.
        for _ in 0..6 {
            d.ack(10, 1, |r| {
                r.prior_delivered = 0;
                r.newly_lost = MSS;
            });
        }
        d.ack(10, 1, |r| {
            r.newly_lost = MSS;
            r.lost = 5 * MSS;
            r.tx_in_flight = 50 * MSS;
        });
        // v3: 7 events >= 6: the pipe is full, inflight_hi =
        // max(bbr_inflight(3356, 1) = 21, inflight_latest = 20).
        // v2 needs 8.
        assert_eq!(d.b.full_bw_reached, exits, "{v:?}");
        if exits {
            assert_eq!((d.b.mode, d.b.inflight_hi), (Mode::Drain, 21));
        }
    }
}

#[test]
fn shallow_ecn_makes_a_flow_eligible_and_two_marked_rounds_end_startup() {
    let cfg = Bbr3Config {
        ecn: true,
        ..Bbr3Config::linux(BbrVersion::V3)
    };
    let mut d = D::with(cfg.clone(), ms(2));
    let ce = |r: &mut RateSample| {
        r.ece = true;
        r.delivered_ce = r.delivered;
        r.interval = ms(2);
        r.rtt = Some(ms(2));
    };
    // Round 1: eligible (min RTT 2 ms <= 5 ms); its 10 packets (counted
    // before the controller runs, as tp->delivered) all CE: ratio 256,
    // alpha (240 x 256 >> 8) + (16 x 256 >> 8) = 256; one round at or
    // above 50%.
    d.ack(2, 10, ce);
    assert!(d.b.ecn_eligible);
    assert_eq!((d.b.ecn_alpha, d.b.startup_ecn_rounds), (256, 1));
    assert!(!d.b.full_bw_reached);
    // Round 2: the second such round ends Startup.
    d.ack(2, 10, ce);
    assert!(d.b.full_bw_reached);
    assert_eq!(d.b.mode, Mode::Drain);
    // Without the route's flag (Linux's default), ECN is no signal.
    let mut d = D::with(Bbr3Config::linux(BbrVersion::V3), ms(2));
    for _ in 0..3 {
        d.ack(2, 10, ce);
    }
    assert!(!d.b.ecn_eligible && !d.b.full_bw_reached);
}

#[test]
fn a_loss_probe_repair_counts_as_too_much_loss_for_a_small_flight() {
    for (latest, too_high) in [(40, true), (60, false)] {
        let mut d = D::cruising(BbrVersion::V3);
        d.ack(2001, 20, |_| {});
        d.ack(100, 20, |_| {});
        d.b.inflight_latest = latest;
        // 1 lost of latest + 1: too high while 1 > (latest + 1) x 5 >> 8.
        d.b.cwnd_event(&mut d.t, CwndEvent::TlpRecovery);
        // (A probe found too high starts DOWN, which resets the signal.)
        assert_eq!(d.b.loss_in_round, !too_high);
        assert_eq!(d.b.prev_probe_too_high, too_high, "{latest}");
        if too_high {
            assert_eq!((d.b.inflight_hi, d.b.cycle_idx), (latest + 1, Phase::Down));
        }
    }
}

#[test]
fn an_undo_restores_the_bounds_saved_at_the_reduction() {
    let mut d = D::cruising(BbrVersion::V3);
    d.b.inflight_hi = 50;
    d.b.ssthresh(&d.t, LossCause::DupAcks);
    assert_eq!(d.b.prior_cwnd, 61);
    d.ack(100, 10, |r| r.newly_lost = MSS);
    assert_eq!(d.b.inflight_lo, 42);
    d.b.inflight_hi = 30;
    let cwnd = d.b.undo_cwnd(&d.t, 0);
    assert_eq!(cwnd, 61 * MSS);
    assert_eq!((d.b.inflight_lo, d.b.inflight_hi), (UNSET, 50));
}

#[test]
fn a_timeout_forgets_the_plateau_and_restores_the_window_on_leaving_loss() {
    let mut d = D::cruising(BbrVersion::V3);
    // The sender tells of Loss before asking ssthresh (Linux asks first):
    // the window is saved either way.
    d.b.on_state(&mut d.t, CaState::Loss);
    d.b.ssthresh(&d.t, LossCause::Timeout);
    assert_eq!((d.b.full_bw, d.b.full_bw_now), (0, false));
    assert_eq!((d.b.inflight_lo, d.b.prior_cwnd), (61, 61));
    // Linux's snapshot for an undo is taken before bbr_set_state sets
    // inflight_lo: an undone timeout leaves it unset.
    assert_eq!(d.b.undo_inflight_lo, UNSET);
    d.t.cwnd = MSS;
    d.b.on_state(&mut d.t, CaState::Open);
    assert_eq!(d.cwnd(), 61);
}

#[test]
fn bad_parameters_are_refused_with_the_field_named() {
    let c = |f: fn(&mut Bbr3Config)| {
        let mut c = Bbr3Config::linux(BbrVersion::V3);
        f(&mut c);
        c.validate().err().map(|e| e.0)
    };
    assert_eq!(c(|c| c.loss_thresh = 0.0), Some("loss_thresh"));
    assert_eq!(c(|c| c.beta = f64::NAN), Some("beta"));
    assert_eq!(c(|c| c.ecn_thresh = 1.5), Some("ecn_thresh"));
    assert_eq!(c(|c| c.inflight_headroom = -0.1), Some("inflight_headroom"));
    assert_eq!(c(|_| {}), None);
}
