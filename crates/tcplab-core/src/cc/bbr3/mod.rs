// SPDX-License-Identifier: MIT OR Apache-2.0
//! BBRv2 and BBRv3: `cc = { name = "bbr", version = "v2" | "v3" }`.
//!
//! Read from Linux's modules in google/bbr: `tcp_bbr2.c` of the `v2alpha`
//! branch and `tcp_bbr.c` of the `v3` branch, in their fixed-point
//! integers (bandwidth in packets per microsecond << 24, gains << 8), and
//! checked against the IETF draft (draft-ietf-ccwg-bbr). One controller
//! runs both, the version choosing the differences docs/variants.md lists:
//! gains (startup 2.885/2.885 in v2, 2.77/2 in v3; ProbeBW DOWN 0.75 in
//! v2, 0.91 in v3; cwnd gain 2.25 in v3's UP), how PROBE_UP ends (v2 once
//! in flight reaches 1.25 BDP after a min RTT; v3 on a bandwidth plateau,
//! `full_bw_now`), startup's loss exit (8 loss events in a round in v2, 6
//! in v3), ECN reprobing and the TLP loss-probe response (v3 only).
//!
//! Beyond v1's model (the max bandwidth and the min RTT), the model holds
//! bounds: `bw_hi` and `inflight_hi`, the long-term upper bounds that loss
//! or ECN above a threshold (2% of the flight lost, 50% of it CE-marked)
//! while probing sets; `bw_lo` and `inflight_lo`, short-term lower bounds
//! cut by 30% (beta) per round with loss while not probing. ProbeBW cycles
//! DOWN (drain to the headroom below inflight_hi), CRUISE (at the
//! estimate), REFILL (one round at 1.0 with the lower bounds lifted) and UP
//! (pacing gain 1.25, inflight_hi growing exponentially per round), the
//! next probe due after 2-3 s or after min(63, BDP) rounds (Reno
//! coexistence), whichever comes first. ProbeRTT every 5 s, for 200 ms at
//! half the BDP.
//!
//! The sender runs the controller after each ACK's loss detection (Linux's
//! `tcp_ack` order), with the sample's losses, and tells it of each segment
//! marked lost (`skb_marked_lost`). Deviations, also in docs/variants.md:
//! jiffies are exact times; delayed-ACK and TLP-retransmit flags of the
//! sample are never set (`is_ack_delayed`, `is_acking_tlp_retrans_seq`);
//! no PLB; ECN counts are the classic echo's (AccECN's come with the L4S
//! work).

mod config;
mod cycle;
mod model;
mod ops;
#[cfg(test)]
mod tests;

pub use super::bbr::Mode;
use super::{
    Ack, CaState, CongestionControl, CwndEvent, LossCause, LostSegment, Probe, RateSample, Tcb,
};
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};
use config::*;
pub use config::{Bbr3Config, BbrVersion};

/// The ProbeBW phases, in Linux's `cycle_idx` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up = 0,
    Down = 1,
    Cruise = 2,
    Refill = 3,
}

/// What the incoming ACKs say about the bandwidth probing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// A rate sample as Linux's `rate_sample` counts it: packets and
/// microseconds, -1 for none.
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    interval_us: i64,
    delivered: i64,
    acked_sacked: u64,
    /// Bytes (compared with the round markers, kept in bytes).
    prior_delivered: u64,
    rtt_us: i64,
    is_app_limited: bool,
    losses: u64,
    lost: u64,
    tx_in_flight: u64,
    delivered_ce: u64,
    is_ece: bool,
    prior_in_flight: u64,
}

#[derive(Clone, Debug)]
pub struct Bbr3 {
    cfg: Bbr3Config,
    p: Params,
    rng: Option<Rng>,
    mss: u64,
    // The sender's counters as BBR reads them: bytes delivered (and
    // CE-echoed) so far, when data was last delivered.
    delivered: u64,
    delivered_ce: u64,
    delivered_mstamp: SimTime,
    /// This ACK's bandwidth sample (`ctx->sample_bw`).
    sample_bw: u64,

    pub mode: Mode,
    pub cycle_idx: Phase,
    min_rtt_us: u64,
    min_rtt_stamp: SimTime,
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_min_us: u64,
    probe_rtt_min_stamp: SimTime,
    /// Bytes delivered when the current round ends.
    next_rtt_delivered: u64,
    cycle_mstamp: SimTime,
    prev_ca_state: CaState,
    round_start: bool,
    bw_probe_up_rounds: u32,
    try_fast_path: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    init_cwnd: u64,
    pacing_gain: u64,
    cwnd_gain: u64,
    pub full_bw_reached: bool,
    full_bw_cnt: u32,
    has_seen_rtt: bool,
    prior_cwnd: u64,
    full_bw: u64,
    ack_epoch_mstamp: SimTime,
    extra_acked: [u64; 2],
    ack_epoch_acked: u64,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    full_bw_now: bool,
    startup_ecn_rounds: u32,
    loss_in_cycle: bool,
    ecn_in_cycle: bool,
    /// Bytes delivered when the current loss round ends.
    loss_round_delivered: u64,
    undo_bw_lo: u64,
    undo_inflight_lo: u64,
    undo_inflight_hi: u64,
    bw_latest: u64,
    pub bw_lo: u64,
    bw_hi: [u64; 2],
    inflight_latest: u64,
    pub inflight_lo: u64,
    pub inflight_hi: u64,
    bw_probe_up_cnt: u64,
    bw_probe_up_acks: u64,
    probe_wait_us: u64,
    ecn_eligible: bool,
    ecn_alpha: u64,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    rounds_since_probe: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    ecn_in_round: bool,
    ack_phase: AckPhase,
    loss_events_in_round: u32,
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    /// inflight_lo before a timeout's Loss state set it, for the undo
    /// snapshot `ssthresh` takes next (see `on_state`).
    loss_entry_lo: Option<u64>,
}

impl Bbr3 {
    pub fn new(cfg: Bbr3Config) -> Bbr3 {
        let p = Params::of(&cfg);
        Bbr3 {
            cfg,
            p,
            rng: None,
            mss: 1,
            delivered: 0,
            delivered_ce: 0,
            delivered_mstamp: SimTime::ZERO,
            sample_bw: 0,
            mode: Mode::Startup,
            cycle_idx: Phase::Up,
            min_rtt_us: UNSET,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_min_us: UNSET,
            probe_rtt_min_stamp: SimTime::ZERO,
            next_rtt_delivered: 0,
            cycle_mstamp: SimTime::ZERO,
            prev_ca_state: CaState::Open,
            round_start: false,
            bw_probe_up_rounds: 0,
            try_fast_path: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            init_cwnd: 0,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: SimTime::ZERO,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            full_bw_now: false,
            startup_ecn_rounds: 0,
            loss_in_cycle: false,
            ecn_in_cycle: false,
            loss_round_delivered: 0,
            undo_bw_lo: 0,
            undo_inflight_lo: 0,
            undo_inflight_hi: 0,
            bw_latest: 0,
            bw_lo: UNSET,
            bw_hi: [0; 2],
            inflight_latest: 0,
            inflight_lo: UNSET,
            inflight_hi: UNSET,
            bw_probe_up_cnt: UNSET,
            bw_probe_up_acks: 0,
            probe_wait_us: 0,
            ecn_eligible: false,
            ecn_alpha: UNIT,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            rounds_since_probe: 0,
            loss_round_start: false,
            loss_in_round: false,
            ecn_in_round: false,
            ack_phase: AckPhase::Init,
            loss_events_in_round: 0,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            loss_entry_lo: None,
        }
    }

    fn pkts(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.mss)
    }

    fn cwnd(&self, tcb: &Tcb) -> u64 {
        tcb.cwnd / self.mss
    }

    fn set_cwnd_pkts(&self, tcb: &mut Tcb, pkts: u64) {
        tcb.cwnd = pkts.max(1) * self.mss;
    }

    /// A uniform draw in [0, n) (Linux's `get_random_u32_below`).
    fn random_below(&mut self, n: u64) -> u64 {
        match &mut self.rng {
            Some(r) => r.next_u64() % n,
            None => 0,
        }
    }

    /// Linux's rate sample from the sender's: packets, microseconds, and an
    /// interval shorter than the min RTT discarded (`tcp_rate_gen`).
    fn sample(&self, tcb: &Tcb, rs: &RateSample) -> Sample {
        let us = |d: SimDuration| (d.as_nanos() / 1000) as i64;
        let valid = rs.newly_delivered > 0 && rs.delivered > 0 && !rs.interval.is_zero();
        let min_rtt = tcb.min_rtt.map_or(i64::from(u32::MAX), us);
        let interval_us = if valid && us(rs.interval) >= min_rtt {
            us(rs.interval)
        } else {
            -1
        };
        Sample {
            interval_us,
            delivered: if valid {
                self.pkts(rs.delivered) as i64
            } else {
                -1
            },
            acked_sacked: self.pkts(rs.newly_delivered),
            prior_delivered: rs.prior_delivered,
            rtt_us: rs.rtt.map_or(-1, us),
            is_app_limited: rs.is_app_limited,
            losses: self.pkts(rs.newly_lost),
            lost: self.pkts(rs.lost),
            tx_in_flight: self.pkts(rs.tx_in_flight),
            delivered_ce: self.pkts(rs.delivered_ce),
            is_ece: rs.ece,
            prior_in_flight: self.pkts(rs.prior_in_flight),
        }
    }

    /// `bbr_main`: one ACK.
    fn main(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        let now = tcb.now;
        self.loss_entry_lo = None;
        if rs.newly_delivered > 0 {
            self.delivered_mstamp = now;
        }
        self.delivered = rs.total_delivered;
        if rs.ece {
            self.delivered_ce += rs.newly_delivered;
        }
        let s = self.sample(tcb, rs);
        self.update_round_start(&s);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xFF);
            self.update_ecn_alpha(tcb);
        }
        self.ecn_in_round |= s.is_ece && (self.ecn_eligible || !self.p.v3);
        self.sample_bw = if s.interval_us > 0 {
            (s.delivered as u64 * BW_UNIT).div_ceil(s.interval_us as u64)
        } else {
            0
        };
        if self.p.v3 {
            self.update_latest_delivery_signals(&s);
        }
        let mut update_model = true;
        let fast = self.run_fast_path(tcb, &s, rs, &mut update_model);
        if !fast {
            if update_model {
                self.update_model(tcb, &s, rs);
            }
            self.update_gains();
            let bw = self.bw();
            self.set_pacing_rate(tcb, bw, self.pacing_gain);
            self.set_cwnd(tcb, s.acked_sacked, bw, self.cwnd_gain);
            self.bound_cwnd_for_inflight_model(tcb);
        }
        if self.p.v3 && self.loss_round_start {
            // `bbr_advance_latest_delivery_signals` (no TLP-retransmit
            // flag here).
            self.bw_latest = self.sample_bw;
            self.inflight_latest = s.delivered.max(0) as u64;
        }
        self.prev_ca_state = tcb.ca_state;
        self.loss_in_cycle |= s.lost > 0;
        self.ecn_in_cycle |= s.delivered_ce > 0;
    }

    fn update_round_start(&mut self, s: &Sample) {
        self.round_start = false;
        if s.interval_us > 0 && s.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.round_start = true;
        }
    }

    fn run_fast_path(
        &mut self,
        tcb: &mut Tcb,
        s: &Sample,
        rs: &RateSample,
        update_model: &mut bool,
    ) -> bool {
        if !(self.try_fast_path
            && s.is_app_limited
            && self.sample_bw < self.max_bw()
            && !self.loss_in_round
            && !self.ecn_in_round)
        {
            return false;
        }
        let (mode, min_rtt) = (self.mode, self.min_rtt_us);
        self.check_drain(tcb, rs);
        self.update_cycle_phase(tcb, s, rs);
        self.update_min_rtt(tcb, s, rs);
        if self.mode == mode && self.min_rtt_us == min_rtt && self.try_fast_path {
            return true;
        }
        *update_model = false;
        false
    }

    fn update_model(&mut self, tcb: &mut Tcb, s: &Sample, rs: &RateSample) {
        self.update_congestion_signals(tcb, s);
        self.update_ack_aggregation(tcb, s);
        self.check_loss_too_high_in_startup(tcb, s);
        if self.p.v3 {
            self.check_full_bw_reached(s);
        } else {
            self.check_full_bw_reached_v2(s);
        }
        self.check_drain(tcb, rs);
        self.update_cycle_phase(tcb, s, rs);
        self.update_min_rtt(tcb, s, rs);
    }

    fn save_cwnd(&mut self, tcb: &Tcb) {
        let cwnd = self.cwnd(tcb);
        let recovering = matches!(self.prev_ca_state, CaState::Recovery | CaState::Loss);
        self.prior_cwnd = if !recovering && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    /// `bbr_note_loss`.
    fn note_loss(&mut self, delivered: u64) {
        if !self.loss_in_round {
            self.loss_round_delivered = delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }
}
