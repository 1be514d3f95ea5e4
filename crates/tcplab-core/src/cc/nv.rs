// SPDX-License-Identifier: MIT OR Apache-2.0
//! TCP-NV, "New Vegas".
//!
//! Brakmo, "TCP-NV: An Update to TCP-Vegas", 2010; as Linux's
//! `net/ipv4/tcp_nv.c` runs it (integer arithmetic in microseconds,
//! segments and units of 100 bit/s, as Linux's).
//!
//! - Every ACK with an RTT sample (in Open or Disorder, with data in
//!   flight): the RTT is averaged, `avg = (rtt x rtt_factor + avg x (256 -
//!   rtt_factor)) / 256` (half and half); the rate is in_flight x 8 /
//!   avg; the round's highest rate is kept; the minimum of the averaged RTT
//!   is kept, and replaced every reset period by the minimum of the period
//!   just ended (the first after 2 s, then every `reset_period` s).
//! - Once per RTT: cwnd_by_slope = max_rate x min_rtt / (8 MSS) segments,
//!   max_win = cwnd_by_slope + `pad`. cwnd > max_win is congestion: after
//!   at least `rtt_min_cnt` RTTs and `dec_eval_min_calls` samples
//!   (`ssthresh_eval_min_calls` in the first slow start), ssthresh = max_win
//!   x `ssthresh_factor` / 8 and cwnd falls by (cwnd - max_win) x
//!   `cong_dec_mult` / 128 (at least 2), or to max_win when within 2, and
//!   growth stops. cwnd <= max_win - `pad_buffer` (after
//!   `inc_eval_min_calls` samples) lets the window grow again. In between,
//!   nothing changes.
//! - Growth: slow start, then one segment per max(4, cwnd >> f) segments
//!   acknowledged, or per cwnd << -f after losses (f the growth factor: a
//!   timeout lowers it, down to -8; `cwnd_growth_rate_neg` decisions without
//!   congestion raise it again).
//! - A loss: ssthresh = cwnd x `loss_dec_factor` / 1024 (80%), at least 2
//!   segments; growth stops until a decision without congestion.
//! - A round in which only one sample arrived (bursty ACKs, segmentation
//!   offloads) raises NV's own minimum window by 2, up to 81 (Linux's
//!   NV_MIN_CWND_GROW and NV_TSO_CWND_BOUND), and restarts the round.
//!
//! Deviations from Linux:
//! - The rate's in_flight is the flight before the ACK (`prior_in_flight`);
//!   Linux's is the data delivered between the acknowledged segment's
//!   transmission and its ACK, the same quantity in a steady flow.
//! - Linux's reset period is random in [3/4, 5/4) of `reset_period`; here it
//!   is exactly `reset_period`, so runs stay reproducible.
//! - Linux decides inside `pkts_acked`; tcplab's `on_ack_sample` may not
//!   touch cwnd, so it decides there and the new cwnd and ssthresh are
//!   written at the start of the same ACK's `increase_window`, before the
//!   growth (Linux's order).
//! - The BPF-supplied base RTT is the `base_rtt` parameter (off, as in
//!   Linux without such a program). No `nv_catchup` (never set in Linux), no
//!   undo; the growth does not check whether the flow is cwnd-limited.
//!
//! Every profile runs Linux's form (no other tool has TCP-NV).

use serde::{Deserialize, Serialize};

use super::{cong_avoid_ai, slow_start, Ack, CaState, CongestionControl, LossCause, Probe, Tcb};
use crate::time::{SimDuration, SimTime};

/// Linux's module parameters (tcp_nv.c), under their names without `nv_`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NvConfig {
    /// Queued segments allowed in the network: 10 (`nv_pad`).
    pub pad: u32,
    /// Grow only when cwnd is this far below max_win: 2 (`nv_pad_buffer`).
    pub pad_buffer: u32,
    /// Seconds between min-RTT resets: 5 (`nv_reset_period`).
    pub reset_period: u32,
    /// NV never takes cwnd below this without losses: 2 (`nv_min_cwnd`).
    pub min_cwnd: u32,
    /// Share of the excess cut at congestion, in 1/128: 38 = 30% (Linux's
    /// `nv_cong_dec_mult` = 30 * 128 / 100).
    pub cong_dec_mult: u32,
    /// ssthresh at congestion = max_win x this / 8: 8 (`nv_ssthresh_factor`).
    pub ssthresh_factor: u32,
    /// Weight of the new sample in the RTT average, in 1/256: 128
    /// (`nv_rtt_factor`; 0 turns the average off).
    pub rtt_factor: u32,
    /// ssthresh on a loss = cwnd x this / 1024: 819 = 80%
    /// (`nv_loss_dec_factor`).
    pub loss_dec_factor: u32,
    /// Decisions without congestion before the growth factor rises when it
    /// is negative: 8 (`nv_cwnd_growth_rate_neg`; 0: never lowered).
    pub cwnd_growth_rate_neg: u32,
    /// The same when it is not negative: 0 = never (Reno-like growth;
    /// `nv_cwnd_growth_rate_pos`).
    pub cwnd_growth_rate_pos: u32,
    /// Samples needed before a decrease: 60 (`nv_dec_eval_min_calls`).
    pub dec_eval_min_calls: u32,
    /// Samples needed before an increase: 20 (`nv_inc_eval_min_calls`).
    pub inc_eval_min_calls: u32,
    /// Samples needed before slow start ends on congestion: 30
    /// (`nv_ssthresh_eval_min_calls`).
    pub ssthresh_eval_min_calls: u32,
    /// Growth stops after this many RTTs without a decision while
    /// congested: 10 (`nv_stop_rtt_cnt`).
    pub stop_rtt_cnt: u32,
    /// RTTs needed before a decrease: 2 (`nv_rtt_min_cnt`).
    pub rtt_min_cnt: u32,
    /// The path's base RTT in microseconds, as a BPF program supplies it
    /// in Linux (`BPF_SOCK_OPS_BASE_RTT`): 0 = none (Linux's default). The
    /// averaged RTT that enters the minimum is bounded above by it and
    /// below by 80% of it (`nv_base_rtt`, `nv_lower_bound_rtt`).
    #[serde(default)]
    pub base_rtt: u32,
}

impl NvConfig {
    pub fn linux() -> Self {
        NvConfig {
            pad: 10,
            pad_buffer: 2,
            reset_period: 5,
            min_cwnd: 2,
            cong_dec_mult: 30 * 128 / 100,
            ssthresh_factor: 8,
            rtt_factor: 128,
            loss_dec_factor: 819,
            cwnd_growth_rate_neg: 8,
            cwnd_growth_rate_pos: 0,
            dec_eval_min_calls: 60,
            inc_eval_min_calls: 20,
            ssthresh_eval_min_calls: 30,
            stop_rtt_cnt: 10,
            rtt_min_cnt: 2,
            base_rtt: 0,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.pad_buffer > self.pad {
            return Err(("pad_buffer", format!("must be <= pad ({})", self.pad)));
        }
        if self.reset_period == 0 {
            return Err(("reset_period", "must be at least 1 s".into()));
        }
        if self.rtt_factor > 256 {
            return Err(("rtt_factor", "must be in 0..=256".into()));
        }
        if self.loss_dec_factor > 1024 {
            return Err(("loss_dec_factor", "must be in 0..=1024".into()));
        }
        if self.cong_dec_mult > 128 {
            return Err(("cong_dec_mult", "must be in 0..=128".into()));
        }
        Ok(())
    }
}

/// Linux's NV_INIT_RTT: no minimum yet.
const INIT_RTT: u32 = u32::MAX;
/// Linux's NV_MIN_CWND, NV_MIN_CWND_GROW and NV_TSO_CWND_BOUND.
const NV_MIN_CWND: u32 = 4;
const NV_MIN_CWND_GROW: u32 = 2;
const NV_TSO_CWND_BOUND: u32 = 80;

#[derive(Clone, Debug)]
pub struct Nv {
    cfg: NvConfig,
    abc: bool,
    min_rtt_reset: SimTime,
    pub growth_factor: i32,
    pub allow_growth: bool,
    reset: bool,
    eval_call_cnt: u32,
    /// NV's own minimum window for decisions (Linux's ca->nv_min_cwnd).
    nv_min_cwnd: u32,
    rtt_cnt: u32,
    last_rtt: u32,
    /// Microseconds.
    pub min_rtt: u32,
    min_rtt_new: u32,
    /// The round's highest rate, in units of 100 bit/s.
    pub rtt_max_rate: u32,
    /// The last rate computed (for the probe), units of 100 bit/s.
    rate: u32,
    rtt_start_seq: u64,
    last_snd_una: u64,
    pub no_cong_cnt: u32,
    /// cwnd and ssthresh (segments) decided on this ACK.
    pending: Option<(u64, Option<u64>)>,
}

impl Nv {
    pub fn new(cfg: NvConfig, abc: bool) -> Self {
        Nv {
            cfg,
            abc,
            min_rtt_reset: SimTime::ZERO,
            growth_factor: 0,
            allow_growth: true,
            reset: false,
            eval_call_cnt: 0,
            nv_min_cwnd: NV_MIN_CWND,
            rtt_cnt: 0,
            last_rtt: 0,
            min_rtt: INIT_RTT,
            min_rtt_new: INIT_RTT,
            rtt_max_rate: 0,
            rate: 0,
            rtt_start_seq: 0,
            last_snd_una: 0,
            no_cong_cnt: 0,
            pending: None,
        }
    }

    /// Linux's tcpnv_reset.
    fn restart(&mut self, snd_una: u64) {
        self.reset = false;
        self.no_cong_cnt = 0;
        self.rtt_cnt = 0;
        self.last_rtt = 0;
        self.rtt_max_rate = 0;
        self.rtt_start_seq = snd_una;
        self.eval_call_cnt = 0;
        self.last_snd_una = snd_una;
    }

    /// The once-per-RTT decision (the second half of Linux's tcpnv_acked).
    fn decide(&mut self, tcb: &Tcb, bytes_acked: u64) {
        let mss = tcb.mss;
        self.rtt_start_seq = tcb.snd_nxt;
        self.rtt_cnt = (self.rtt_cnt + 1).min(255);
        if self.eval_call_cnt == 1
            && bytes_acked >= (self.nv_min_cwnd as u64 - 1) * mss
            && self.nv_min_cwnd < NV_TSO_CWND_BOUND + 1
        {
            // One sample in a whole round: NV's minimum window grows.
            self.nv_min_cwnd = (self.nv_min_cwnd + NV_MIN_CWND_GROW).min(NV_TSO_CWND_BOUND + 1);
            self.rtt_start_seq = tcb.snd_nxt + self.nv_min_cwnd as u64 * mss;
            self.eval_call_cnt = 0;
            self.allow_growth = true;
            return;
        }
        let cwnd_by_slope =
            (self.rtt_max_rate as u64 * self.min_rtt as u64 / (80_000 * mss)) as u32;
        let max_win = cwnd_by_slope.wrapping_add(self.cfg.pad);
        let mut cwnd = tcb.cwnd / mss;
        let mut ssthresh = None;
        if cwnd > max_win as u64 {
            if self.rtt_cnt < self.cfg.rtt_min_cnt {
                return;
            } else if tcb.ssthresh >= u32::MAX as u64 {
                // Linux's TCP_INFINITE_SSTHRESH: the first slow start.
                if self.eval_call_cnt < self.cfg.ssthresh_eval_min_calls {
                    return;
                }
            } else if self.eval_call_cnt < self.cfg.dec_eval_min_calls {
                if self.allow_growth && self.rtt_cnt > self.cfg.stop_rtt_cnt {
                    self.allow_growth = false;
                }
                return;
            }
            self.allow_growth = false;
            ssthresh = Some((self.cfg.ssthresh_factor as u64 * max_win as u64) >> 3);
            let gap = cwnd - max_win as u64;
            if gap > 2 {
                cwnd -= ((gap * self.cfg.cong_dec_mult as u64) >> 7).max(2);
            } else if self.cfg.cong_dec_mult > 0 {
                cwnd = max_win as u64;
            }
            if self.growth_factor > 0 {
                self.growth_factor = 0;
            }
            self.no_cong_cnt = 0;
        } else if cwnd <= max_win.wrapping_sub(self.cfg.pad_buffer) as u64 {
            if self.eval_call_cnt < self.cfg.inc_eval_min_calls {
                return;
            }
            self.allow_growth = true;
            self.no_cong_cnt += 1;
            // The rate that applies: below 0 after losses, else above.
            let rate = if self.growth_factor < 0 {
                self.cfg.cwnd_growth_rate_neg
            } else {
                self.cfg.cwnd_growth_rate_pos
            };
            if rate > 0 && self.no_cong_cnt > rate {
                self.growth_factor += 1;
                self.no_cong_cnt = 0;
            }
        } else {
            return;
        }
        self.eval_call_cnt = 0;
        self.rtt_cnt = 0;
        self.rtt_max_rate = 0;
        cwnd = cwnd.max(self.cfg.min_cwnd as u64);
        self.pending = Some((cwnd, ssthresh));
    }
}

impl CongestionControl for Nv {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "nv"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.restart(tcb.snd_una);
        // Linux: the first reset 2 s after the start.
        self.min_rtt_reset = tcb.now + SimDuration::from_secs(2);
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        self.pending = None;
        let Some(rtt) = ack.rtt else { return };
        if !matches!(tcb.ca_state, CaState::Open | CaState::Disorder) {
            return;
        }
        let now = tcb.now.max(ack.now);
        let bytes_acked = tcb.snd_una.saturating_sub(self.last_snd_una);
        self.last_snd_una = tcb.snd_una;
        if ack.prior_in_flight == 0 {
            return;
        }
        let rtt_us = (rtt.as_nanos() / 1000).min(u32::MAX as u64) as u32;
        let mut avg = rtt_us;
        if self.cfg.rtt_factor > 0 {
            if self.last_rtt > 0 {
                let f = self.cfg.rtt_factor as u64;
                avg = ((rtt_us as u64 * f + self.last_rtt as u64 * (256 - f)) >> 8) as u32;
            } else {
                self.min_rtt = avg.saturating_mul(2);
            }
            self.last_rtt = avg;
        }
        // In units of 100 bit/s; Linux multiplies avg by 100 in 32 bits.
        let div = avg.wrapping_mul(100).max(1) as u64;
        self.rate = (ack.prior_in_flight * 8_000_000 / div) as u32;
        self.rtt_max_rate = self.rtt_max_rate.max(self.rate);
        self.eval_call_cnt = (self.eval_call_cnt + 1).min(255);
        // Linux's nv_get_bounded_rtt: only the minimum sees the bounds,
        // [80% of the base RTT, the base RTT], when there is one.
        let base = self.cfg.base_rtt;
        let bounded = if base > 0 {
            avg.clamp(((base as u64 * 205) >> 8) as u32, base)
        } else {
            avg
        };
        self.min_rtt = self.min_rtt.min(bounded);
        self.min_rtt_new = self.min_rtt_new.min(bounded);
        if now >= self.min_rtt_reset {
            self.min_rtt = self.min_rtt_new;
            self.min_rtt_new = INIT_RTT;
            self.min_rtt_reset = now + SimDuration::from_secs(self.cfg.reset_period as u64);
            self.nv_min_cwnd = (self.nv_min_cwnd / 2).max(NV_MIN_CWND);
        }
        if self.rtt_start_seq < tcb.snd_una {
            self.decide(tcb, bytes_acked);
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        if let Some((cwnd, ssthresh)) = self.pending.take() {
            tcb.set_cwnd(cwnd * tcb.mss);
            if let Some(s) = ssthresh {
                tcb.ssthresh = s * tcb.mss;
            }
        }
        if !self.allow_growth {
            return;
        }
        let mut acked = ack.segments_acked as u64;
        if tcb.in_slow_start() {
            let left = slow_start(tcb, ack.bytes_acked, self.abc);
            if left == 0 {
                return;
            }
            acked = left.div_ceil(tcb.mss);
        }
        let cwnd = tcb.cwnd / tcb.mss;
        let cnt = if self.growth_factor < 0 {
            cwnd << (-self.growth_factor) as u32
        } else {
            (cwnd >> self.growth_factor as u32).max(4)
        };
        cong_avoid_ai(tcb, cnt, acked);
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let cwnd = tcb.cwnd / tcb.mss;
        ((cwnd * self.cfg.loss_dec_factor as u64) >> 10).max(2) * tcb.mss
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        match to {
            CaState::Open if self.reset => self.restart(tcb.snd_una),
            CaState::Loss | CaState::Cwr | CaState::Recovery => {
                self.reset = true;
                self.allow_growth = false;
                if to == CaState::Loss {
                    self.growth_factor = self.growth_factor.min(0);
                    if self.cfg.cwnd_growth_rate_neg > 0 && self.growth_factor > -8 {
                        self.growth_factor -= 1;
                    }
                }
            }
            _ => {}
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "min_rtt",
                "s",
                "the minimum of the averaged RTT, reset every period",
            ),
            Probe::new(
                "rate",
                "bit/s",
                "the rate: in flight x 8 / averaged RTT, on the last sample",
            ),
            Probe::new(
                "no_cong_cnt",
                "",
                "consecutive decisions without congestion",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "min_rtt" => (self.min_rtt != INIT_RTT).then(|| self.min_rtt as f64 / 1e6),
            "rate" => Some(self.rate as f64 * 100.0),
            "no_cong_cnt" => Some(self.no_cong_cnt as f64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::{ms, CcDriver};

    const MSS: u64 = 1000;

    fn nv(cwnd: u64, ssthresh: u64) -> CcDriver<Nv> {
        let mut d = CcDriver::new(Nv::new(NvConfig::linux(), false), MSS, cwnd);
        d.tcb.ssthresh = ssthresh;
        d
    }

    /// One ACK of `segs` segments with an RTT sample and `flight` segments
    /// in flight before it; snd_nxt set to `nxt` if given.
    fn ack(d: &mut CcDriver<Nv>, segs: u32, rtt: u64, flight: u64, nxt: Option<u64>) {
        if let Some(n) = nxt {
            d.tcb.snd_nxt = n;
        }
        let a = Ack {
            now: d.tcb.now,
            bytes_acked: segs as u64 * MSS,
            segments_acked: segs,
            grow_segments: segs,
            is_dup: false,
            rtt: Some(ms(rtt)),
            seg_rtt: None,
            prior_in_flight: flight * MSS,
            ece: false,
            ts: None,
        };
        d.tcb.snd_una += a.bytes_acked;
        d.tcb.snd_max = d.tcb.snd_max.max(d.tcb.snd_una);
        d.cc.on_ack_sample(&d.tcb, &a);
        d.cc.increase_window(&mut d.tcb, &a);
    }

    #[test]
    fn congestion_avoidance_cuts_the_excess_after_60_samples_and_two_rtts() {
        // cwnd 40, ssthresh 20 (finite), 20 segments in flight, RTT 100 ms:
        // avg = 100,000 us (the average of equal samples); rate = 20,000 x
        // 8,000,000 / (100,000 x 100) = 16,000 (1.6 Mbit/s); min_rtt =
        // 100,000; cwnd_by_slope = 16,000 x 100,000 / (80,000 x 1000) = 20,
        // max_win = 30.
        let mut d = nv(40, 20 * MSS);
        // ACK 1 ends the first round (start 1 < 1001): rtt_cnt 1 < 2, no
        // decision; the next round ends past snd_nxt = 71,001.
        ack(&mut d, 1, 100, 20, Some(71_001));
        assert_eq!(d.cc.rate, 16_000);
        assert_eq!(d.cc.probe("rate"), Some(1.6e6));
        // Reno-like growth meanwhile (factor 0: one segment per
        // max(4, cwnd) = 40 segments): 41 at ACK 40.
        for _ in 2..=71 {
            ack(&mut d, 1, 100, 20, None);
        }
        assert_eq!(d.tcb.cwnd, 41 * MSS);
        // ACK 72 (snd_una 72,001 > 71,001) decides: 72 samples >= 60, 2
        // RTTs: ssthresh = 8 x 30 / 8 = 30; gap 41 - 30 = 11 > 2: cwnd -=
        // max(2, 11 x 38 >> 7 = 3) = 38; growth stops.
        ack(&mut d, 1, 100, 20, None);
        assert_eq!((d.tcb.cwnd, d.tcb.ssthresh), (38 * MSS, 30 * MSS));
        assert!(!d.cc.allow_growth);
        for _ in 0..50 {
            ack(&mut d, 1, 100, 20, None);
        }
        assert_eq!(d.tcb.cwnd, 38 * MSS);
    }

    #[test]
    fn slow_start_ends_on_congestion_after_30_samples() {
        // The same rates (max_win 30), ssthresh infinite, cwnd 40: slow
        // start adds a segment per ACK. The round of ACKs 2-37 ends at ACK
        // 37 (snd_una 37,001 > 36,001): 37 samples >= 30 (not 60): cwnd
        // 76 (40 + 36), gap 46: cwnd -= 46 x 38 >> 7 = 13 -> 63; ssthresh
        // 30; no growth on that ACK.
        let mut d = nv(40, u64::MAX);
        ack(&mut d, 1, 100, 20, Some(36_001));
        for _ in 2..=36 {
            ack(&mut d, 1, 100, 20, None);
        }
        assert_eq!(d.tcb.cwnd, 76 * MSS);
        ack(&mut d, 1, 100, 20, None);
        assert_eq!((d.tcb.cwnd, d.tcb.ssthresh), (63 * MSS, 30 * MSS));
    }

    #[test]
    fn no_congestion_counts_and_a_negative_growth_factor_recovers() {
        // cwnd 12 <= max_win 20 (10 in flight: rate 8000, slope 10) - 2,
        // after 20 samples: growth allowed, no_cong_cnt + 1.
        let mut d = nv(12, 5 * MSS);
        d.cc.growth_factor = -1;
        d.cc.no_cong_cnt = 8;
        ack(&mut d, 1, 100, 10, Some(25_001));
        for _ in 2..=26 {
            ack(&mut d, 1, 100, 10, None);
        }
        // ACK 26 decided: no_cong_cnt 9 > 8 with f < 0: f = 0, count 0.
        assert_eq!((d.cc.growth_factor, d.cc.no_cong_cnt), (0, 0));
        // Meanwhile with f = -1 the window grew by one segment per cwnd
        // << 1 = 24 segments: once by ACK 24 (cwnd_cnt counts from ACK 1).
        assert_eq!(d.tcb.cwnd, 13 * MSS);
        assert_eq!(d.cc.probe("no_cong_cnt"), Some(0.0));
    }

    #[test]
    fn one_sample_in_a_round_raises_nv_s_minimum_window() {
        // A first ACK of 4 segments ends a round with one sample: 4000 >=
        // (4 - 1) x 1000: nv_min_cwnd 4 -> 6, the round restarted 6
        // segments beyond snd_nxt.
        let mut d = nv(10, 5 * MSS);
        ack(&mut d, 4, 100, 10, Some(20_001));
        assert_eq!(d.cc.nv_min_cwnd, 6);
        assert_eq!(d.cc.rtt_start_seq, 26_001);
        assert_eq!(d.cc.eval_call_cnt, 0);
    }

    #[test]
    fn the_min_rtt_is_replaced_by_the_last_period_s() {
        // First sample 100 ms: min_rtt 2 x 100,000 then 100,000.
        let mut d = nv(10, 5 * MSS);
        ack(&mut d, 1, 100, 10, Some(1_000_000));
        assert_eq!(d.cc.min_rtt, 100_000);
        // 150 ms samples: averages 125,000, 137,500 (at 2.5 s: the first
        // reset, min_rtt = the period's minimum, 100,000), 143,750 (3 s),
        // 146,875 (7.4 s, before the next reset at 7.5 s) and 148,437 (7.5
        // s: min_rtt = the minimum since 2.5 s, 143,750).
        for (at, min) in [
            (1000, 100_000),
            (2500, 100_000),
            (3000, 100_000),
            (7400, 100_000),
            (7500, 143_750),
        ] {
            d.tcb.now = SimTime::ZERO + ms(at);
            ack(&mut d, 1, 150, 10, None);
            assert_eq!(d.cc.min_rtt, min, "at {at} ms");
        }
        assert_eq!(d.cc.last_rtt, 148_437);
    }

    #[test]
    fn a_base_rtt_bounds_the_minimum_so_a_standing_queue_cannot_raise_it() {
        // base_rtt 100 ms: bounds [100,000 x 205 >> 8 = 80,078, 100,000].
        let mut d = CcDriver::new(
            Nv::new(
                NvConfig {
                    base_rtt: 100_000,
                    ..NvConfig::linux()
                },
                false,
            ),
            MSS,
            10 * MSS,
        );
        d.tcb.ssthresh = 5 * MSS;
        // First sample 150 ms: min_rtt = 2 x 150,000, then the bounded
        // average, 100,000 (not 150,000).
        ack(&mut d, 1, 150, 10, Some(1_000_000));
        assert_eq!(d.cc.min_rtt, 100_000);
        // Samples of 150 ms across two resets (2 s, 7 s): the minimum
        // stays at the base RTT, where without it the period's minimum
        // (150,000) would replace it.
        for at in [1000, 2500, 7500, 8000] {
            d.tcb.now = SimTime::ZERO + ms(at);
            ack(&mut d, 1, 150, 10, None);
            assert_eq!(d.cc.min_rtt, 100_000, "at {at} ms");
        }
        // A 50-ms sample (average (50,000 + 150,000) / 2 = 100,000) and
        // then 10-ms ones: averages 55,000, 32,500 are raised to 80,078.
        ack(&mut d, 1, 50, 10, None);
        ack(&mut d, 1, 10, 10, None);
        ack(&mut d, 1, 10, 10, None);
        assert_eq!(d.cc.last_rtt, 32_500);
        assert_eq!(d.cc.min_rtt, 80_078);
    }

    #[test]
    fn a_loss_keeps_80_percent_and_a_timeout_lowers_the_growth_factor() {
        let mut d = nv(40, 20 * MSS);
        // 40 x 819 >> 10 = 31 (31.99).
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 31 * MSS);
        d.tcb.cwnd = 2 * MSS;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 2 * MSS);
        d.tcb.cwnd = 40 * MSS;
        d.timeout(20 * MSS);
        assert_eq!(d.cc.growth_factor, -1);
        assert!(!d.cc.allow_growth);
        // No growth after it (as Linux: until a decision without
        // congestion), and back to Open the counters restart.
        d.ack(1, Some(ms(100)));
        assert_eq!(d.tcb.cwnd, MSS);
        d.cc.on_state(&mut d.tcb, CaState::Open);
        assert_eq!(d.cc.rtt_start_seq, d.tcb.snd_una);
        assert!(!d.cc.reset);
        // Linux's growth with f = -1: one segment per cwnd << 1 segments.
        d.cc.allow_growth = true;
        d.tcb.ca_state = CaState::Open;
        d.tcb.cwnd = 10 * MSS;
        d.tcb.ssthresh = 5 * MSS;
        for _ in 0..19 {
            d.ack(1, None);
        }
        assert_eq!(d.tcb.cwnd, 10 * MSS);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 11 * MSS);
    }

    #[test]
    fn registry_builds_nv_under_every_profile_and_names_a_bad_field() {
        crate::cc::testing::builds_and_refuses("nv", "pad_buffer", serde_json::json!(11));
    }
}
