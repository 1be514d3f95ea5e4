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
//! the sample's prior in flight is the FlightSize; no PLB; ECN counts are
//! the classic echo's (AccECN's come with the L4S work).

mod cycle;
mod model;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use super::{
    Ack, CaState, CongestionControl, CwndEvent, LossCause, LostSegment, Probe, RateSample, Tcb,
};
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

/// Bandwidth: packets per microsecond << 24; gains: << 8.
const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
const BBR_SCALE: u32 = 8;
const UNIT: u64 = 1 << BBR_SCALE;
/// Linux's ~0U: a bound not set.
const UNSET: u64 = u32::MAX as u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BbrVersion {
    V2,
    V3,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Bbr3Config {
    pub version: BbrVersion,
    /// The fraction of a flight lost above which a bandwidth probe went
    /// too far (`bbr_loss_thresh`, 2%).
    pub loss_thresh: f64,
    /// The cut of the lower bounds per round with loss (`bbr_beta`, 30%).
    pub beta: f64,
    /// The fraction of delivered data CE-marked above which a probe went
    /// too far (`bbr_ecn_thresh`, 50%).
    pub ecn_thresh: f64,
    /// The headroom left below inflight_hi after a probe found it
    /// (`bbr_inflight_headroom`, 15%).
    pub inflight_headroom: f64,
    /// The path marks CE at a shallow threshold (Linux's per-route
    /// `ecn_low`; v2's `bbr_ecn_enable`): BBR then takes ECN as a signal,
    /// with a min RTT of at most 5 ms. Off: ECN echoes are ignored, as
    /// Linux does by default.
    pub ecn: bool,
}

impl Bbr3Config {
    pub fn linux(version: BbrVersion) -> Self {
        Bbr3Config {
            version,
            loss_thresh: 0.02,
            beta: 0.3,
            ecn_thresh: 0.5,
            inflight_headroom: 0.15,
            ecn: false,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let frac = |name: &'static str, v: f64, hi_open: bool| {
            let ok = v.is_finite() && v >= 0.0 && if hi_open { v < 1.0 } else { v <= 1.0 };
            if ok {
                Ok(())
            } else {
                let range = if hi_open { "[0, 1)" } else { "[0, 1]" };
                Err((name, format!("{v} must be in {range}")))
            }
        };
        // In BBR's fixed point (1/256ths) a threshold below 1/256 is 0.
        let lt = self.loss_thresh;
        if !(lt.is_finite() && (1.0 / 256.0..1.0).contains(&lt)) {
            return Err(("loss_thresh", format!("{lt} must be in [1/256, 1)")));
        }
        frac("beta", self.beta, true)?;
        frac("ecn_thresh", self.ecn_thresh, false)?;
        frac("inflight_headroom", self.inflight_headroom, true)
    }
}

/// A fraction in BBR's fixed point (truncated, as Linux's `BBR_UNIT * n /
/// 100`).
fn fixed(x: f64) -> u64 {
    (x * UNIT as f64) as u64
}

/// The version's constants, in BBR_UNIT.
#[derive(Clone, Debug)]
struct Params {
    v3: bool,
    startup_pacing_gain: u64,
    startup_cwnd_gain: u64,
    pacing_gain: [u64; 4],
    /// PROBE_UP's cwnd gain increment, in BBR_UNIT / 4.
    bw_probe_cwnd_gain: u64,
    full_loss_cnt: u32,
    ecn_reprobe_gain: u64,
    loss_thresh: u64,
    beta: u64,
    ecn_thresh: u64,
    inflight_headroom: u64,
    ecn: bool,
}

const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
const CWND_GAIN: u64 = UNIT * 2;
const CWND_MIN_TARGET: u64 = 4;
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
const FULL_ECN_CNT: u32 = 2;
const ECN_ALPHA_GAIN: u64 = UNIT / 16;
const ECN_FACTOR: u64 = UNIT / 3;
const ECN_MAX_RTT_US: u64 = 5000;
const PROBE_RTT_CWND_GAIN: u64 = UNIT / 2;
const PROBE_RTT_MODE: SimDuration = SimDuration::from_millis(200);
const PROBE_RTT_WIN: SimDuration = SimDuration::from_millis(5000);
const MIN_RTT_WIN: SimDuration = SimDuration::from_secs(10);
const BW_PROBE_MAX_ROUNDS: u64 = 63;
const BW_PROBE_RAND_ROUNDS: u64 = 2;
const BW_PROBE_BASE_US: u64 = 2_000_000;
const BW_PROBE_RAND_US: u64 = 1_000_000;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const EXTRA_ACKED_MAX_US: u64 = 100_000;
const ACK_EPOCH_ACKED_RESET: u64 = 1 << 20;
const PACING_MARGIN_PERCENT: u64 = 1;

impl Params {
    fn of(c: &Bbr3Config) -> Params {
        let v3 = c.version == BbrVersion::V3;
        Params {
            v3,
            startup_pacing_gain: if v3 {
                UNIT * 277 / 100 + 1
            } else {
                UNIT * 2885 / 1000 + 1
            },
            startup_cwnd_gain: if v3 { UNIT * 2 } else { UNIT * 2885 / 1000 + 1 },
            pacing_gain: [
                UNIT * 5 / 4,
                if v3 { UNIT * 91 / 100 } else { UNIT * 3 / 4 },
                UNIT,
                UNIT,
            ],
            bw_probe_cwnd_gain: if v3 { 1 } else { 0 },
            full_loss_cnt: if v3 { 6 } else { 8 },
            ecn_reprobe_gain: if v3 { UNIT / 2 } else { 0 },
            loss_thresh: fixed(c.loss_thresh),
            beta: fixed(c.beta),
            ecn_thresh: fixed(c.ecn_thresh),
            inflight_headroom: fixed(c.inflight_headroom),
            ecn: c.ecn,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

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

impl CongestionControl for Bbr3 {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Bbr3::new(self.cfg.clone())))
    }
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn seed(&mut self, rng: Rng) {
        self.rng = Some(rng);
    }

    /// `bbr_init`.
    fn init(&mut self, tcb: &mut Tcb) {
        self.mss = tcb.mss.max(1);
        self.init_cwnd = self.cwnd(tcb).min(0x7F);
        self.prior_cwnd = 0;
        tcb.ssthresh = u64::MAX;
        self.next_rtt_delivered = if self.p.v3 { self.delivered } else { 0 };
        self.prev_ca_state = CaState::Open;
        let min_rtt = tcb.min_rtt.map_or(UNSET, |d| d.as_nanos() / 1000);
        self.probe_rtt_min_us = min_rtt;
        self.probe_rtt_min_stamp = tcb.now;
        self.min_rtt_us = min_rtt;
        self.min_rtt_stamp = tcb.now;
        self.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(tcb);
        self.mode = Mode::Startup;
        self.ack_epoch_mstamp = tcb.now;
        // Loss rounds start after the first full flight is ACKed.
        self.loss_round_delivered = self.delivered + 1;
    }

    fn increase_window(&mut self, _tcb: &mut Tcb, _ack: &Ack) {
        // cwnd is set in `control`.
    }

    /// `bbr_ssthresh`: saves the model for an undo; ssthresh stays.
    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        self.save_cwnd(tcb);
        self.undo_bw_lo = self.bw_lo;
        self.undo_inflight_lo = self.inflight_lo;
        self.undo_inflight_hi = self.inflight_hi;
        tcb.ssthresh
    }

    /// `bbr_undo_cwnd`.
    fn undo_cwnd(&mut self, _tcb: &Tcb, _prior_cwnd: u64) -> u64 {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        if self.p.v3 {
            self.try_fast_path = false;
        }
        self.prior_cwnd * self.mss
    }

    /// `bbr_set_state`.
    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        if to == CaState::Loss {
            // Linux's tcp_enter_loss asks ssthresh (bbr_save_cwnd) before
            // the state changes; the sender here tells of the state first.
            self.save_cwnd(tcb);
            self.prev_ca_state = CaState::Loss;
            if self.p.v3 {
                self.reset_full_bw();
            } else {
                self.full_bw = 0;
            }
            if !self.is_probing_bandwidth() && self.inflight_lo == UNSET {
                self.inflight_lo = self.cwnd(tcb).max(self.prior_cwnd);
            }
        } else if self.prev_ca_state == CaState::Loss {
            let cwnd = self.cwnd(tcb).max(self.prior_cwnd);
            self.set_cwnd_pkts(tcb, cwnd);
            self.try_fast_path = false;
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {
        match ev {
            // Only after an application-limited pause (the sender marks it
            // so when its data ran out with room in the window).
            CwndEvent::TxStart => {
                if !tcb.app_limited {
                    return;
                }
                self.idle_restart = true;
                self.ack_epoch_mstamp = tcb.now;
                self.ack_epoch_acked = 0;
                if self.mode == Mode::ProbeBw {
                    self.set_pacing_rate(tcb, self.bw(), UNIT);
                } else if self.mode == Mode::ProbeRtt {
                    self.check_probe_rtt_done(tcb);
                }
            }
            CwndEvent::TlpRecovery if self.p.v3 => self.run_loss_probe_recovery(tcb),
            _ => {}
        }
    }

    /// `bbr_skb_marked_lost`.
    fn on_marked_lost(&mut self, tcb: &mut Tcb, seg: &LostSegment) {
        self.delivered = seg.delivered;
        self.note_loss(seg.delivered);
        if !self.bw_probe_samples {
            return;
        }
        let pcount = self.pkts(seg.len);
        let mut s = Sample {
            tx_in_flight: self.pkts(seg.tx_in_flight),
            lost: self.pkts(seg.lost),
            is_app_limited: seg.is_app_limited,
            ..Sample::default()
        };
        if self.is_inflight_too_high(&s) {
            s.tx_in_flight = self.inflight_hi_from_lost_skb(&s, pcount);
            self.handle_inflight_too_high(tcb, &s);
        }
    }

    fn controls_fully(&self) -> bool {
        true
    }
    fn runs_after_loss_detection(&self) -> bool {
        true
    }

    fn control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        self.main(tcb, rs);
    }
    fn marks_app_limited(&self) -> bool {
        self.mode == Mode::ProbeRtt
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new("bwe", "bit/s", "the bandwidth estimate: min(max bw, bw_lo)"),
            Probe::new(
                "mode",
                "code",
                "the state: 0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT",
            ),
            Probe::new(
                "phase",
                "code",
                "ProbeBW's phase: 0 UP, 1 DOWN, 2 CRUISE, 3 REFILL",
            ),
            Probe::new(
                "inflight_hi",
                "segments",
                "the long-term upper bound on data in flight",
            ),
            Probe::new(
                "inflight_lo",
                "segments",
                "the short-term lower bound on data in flight",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        let bound = |v: u64| (v != UNSET).then_some(v as f64);
        match name {
            "bwe" => Some(self.bw_bytes_per_sec(self.bw()) as f64 * 8.0),
            "mode" => Some(self.mode as u8 as f64),
            "phase" => Some(self.cycle_idx as u8 as f64),
            "inflight_hi" => bound(self.inflight_hi),
            "inflight_lo" => bound(self.inflight_lo),
            _ => None,
        }
    }
}
