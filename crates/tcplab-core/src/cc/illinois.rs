// SPDX-License-Identifier: MIT OR Apache-2.0
//! TCP-Illinois: loss decides the direction of the window, queueing delay
//! its pace.
//!
//! Liu, Başar, Srikant, "TCP-Illinois: a loss and delay-based congestion
//! control algorithm for high-speed networks", VALUETOOLS 2006 and
//! Performance Evaluation 65(6-7), 2008; Linux's `net/ipv4/tcp_illinois.c`.
//!
//! Every ACK's RTT sample updates the smallest (base) and largest RTT ever
//! seen and the sum and count of the current round's samples. Once per
//! round (the first ACK above snd_nxt as it was when the round began), with
//! dm = max - base (the largest queueing delay) and da = the round's mean
//! RTT - base (the mean queueing delay):
//! - alpha = alpha_max while da <= d1 = dm / 100, else
//!   k1 / (k2 + da), falling from alpha_max at d1 to alpha_min at dm (once
//!   above d1, alpha_max comes back only after `theta` rounds in a row at
//!   or below d1);
//! - beta = beta_min while da <= d2 = dm / 10, beta_max from d3 = 8 dm / 10
//!   on, linear in between;
//! - with cwnd below `win_thresh` segments, alpha = 1 and beta = 1/2 (Reno).
//!
//! Congestion avoidance adds alpha / cwnd per acknowledged segment, as
//! Linux counts it: acknowledged segments accumulate in a credit c, and
//! when c alpha >= cwnd, cwnd grows by floor(c alpha / cwnd) and c starts
//! again. A loss sets ssthresh = cwnd - floor(cwnd beta), at least 2
//! segments. Entering Loss (a timeout) resets alpha to 1 and beta to 1/2
//! after the threshold is taken. Slow start is standard; alpha starts at
//! alpha_max, beta at beta_max.
//!
//! Linux's fixed point is kept: alpha in 1/128 (alpha_min = floor(0.3 x
//! 128) = 38/128), beta in 1/64, RTTs in whole microseconds capped at
//! 2^32 / alpha_max, integer divisions. The paper defines the same curves
//! with the same constants (alpha_max 10, alpha_min 0.3, beta_min 1/8,
//! beta_max 1/2, d1, d2, d3 at 1%, 10% and 80% of dm); Linux's code is its
//! published implementation (written from the paper and the authors' ns-2
//! code), so every profile runs this one form.
//!
//! Deviations from Linux: no `tcp_is_cwnd_limited` check; no undo; the
//! credit is tcplab's `cwnd_cnt` in segments, shared with nothing else.

use serde::{Deserialize, Serialize};

use super::{slow_start, Ack, CaState, CongestionControl, LossCause, Probe, Tcb};

/// alpha's fixed point: 1/128 (Linux's `ALPHA_SHIFT` 7).
const ALPHA_SHIFT: u32 = 7;
/// beta's fixed point: 1/64 (Linux's `BETA_SHIFT` 6).
const BETA_SHIFT: u32 = 6;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IllinoisConfig {
    /// The smallest additive increase, segments per RTT: 0.3 in the paper
    /// and Linux (`ALPHA_MIN`, 38/128 once in fixed point).
    pub alpha_min: f64,
    /// The largest additive increase: 10 in the paper and Linux
    /// (`ALPHA_MAX`).
    pub alpha_max: f64,
    /// The smallest decrease factor: 1/8 in the paper and Linux
    /// (`BETA_MIN`).
    pub beta_min: f64,
    /// The largest decrease factor: 1/2 in the paper and Linux
    /// (`BETA_MAX`, also the value below `win_thresh`).
    pub beta_max: f64,
    /// Below this window (segments), alpha = 1 and beta = 1/2: Linux's
    /// `win_thresh` module parameter, 15.
    pub win_thresh: u64,
    /// Rounds in a row with low delay before alpha returns to alpha_max:
    /// Linux's `theta` module parameter, 5.
    pub theta: u32,
}

impl IllinoisConfig {
    pub fn linux() -> Self {
        IllinoisConfig {
            alpha_min: 0.3,
            alpha_max: 10.0,
            beta_min: 0.125,
            beta_max: 0.5,
            win_thresh: 15,
            theta: 5,
        }
    }

    fn alpha_fx(a: f64) -> u64 {
        (a * (1 << ALPHA_SHIFT) as f64) as u64
    }
    fn beta_fx(b: f64) -> u64 {
        (b * (1 << BETA_SHIFT) as f64) as u64
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.alpha_min.is_finite() && Self::alpha_fx(self.alpha_min) >= 1) {
            return Err((
                "alpha_min",
                format!("{} must be at least 1/128", self.alpha_min),
            ));
        }
        if !(self.alpha_max >= self.alpha_min && self.alpha_max <= 1000.0) {
            return Err((
                "alpha_max",
                format!(
                    "{} must be from alpha_min ({}) to 1000",
                    self.alpha_max, self.alpha_min
                ),
            ));
        }
        if !(self.beta_min.is_finite() && Self::beta_fx(self.beta_min) >= 1) {
            return Err((
                "beta_min",
                format!("{} must be at least 1/64", self.beta_min),
            ));
        }
        if !(self.beta_max >= self.beta_min && self.beta_max < 1.0) {
            return Err((
                "beta_max",
                format!(
                    "{} must be from beta_min ({}) to below 1",
                    self.beta_max, self.beta_min
                ),
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Illinois {
    pub cfg: IllinoisConfig,
    abc: bool,
    /// The configured bounds in fixed point.
    a_min: u64,
    a_max: u64,
    b_min: u64,
    b_max: u64,
    /// Samples above this are taken as it (Linux's `RTT_MAX`), us.
    rtt_cap: u64,
    /// The round's RTT samples: sum (us) and count.
    sum_rtt: u64,
    cnt_rtt: u64,
    /// The smallest and largest RTT seen, us.
    base_rtt: u64,
    max_rtt: u64,
    /// The round ends at the first ACK above this.
    end_seq: u64,
    /// alpha in 1/128, beta in 1/64.
    alpha: u64,
    beta: u64,
    /// Segments the last ACK acknowledged (Linux's `acked`).
    acked: u64,
    /// The mean delay has been above d1 since alpha was last at its maximum.
    rtt_above: bool,
    /// Rounds in a row at or below d1 since.
    rtt_low: u32,
    /// A timeout's reset of beta, applied once its threshold is taken
    /// (Linux takes ssthresh before it enters Loss).
    beta_reset: bool,
    /// The last round's mean queueing delay, us.
    avg_delay: Option<u64>,
}

impl Illinois {
    pub fn new(cfg: IllinoisConfig, abc: bool) -> Self {
        let a_max = IllinoisConfig::alpha_fx(cfg.alpha_max);
        Illinois {
            abc,
            a_min: IllinoisConfig::alpha_fx(cfg.alpha_min),
            a_max,
            b_min: IllinoisConfig::beta_fx(cfg.beta_min),
            b_max: IllinoisConfig::beta_fx(cfg.beta_max),
            rtt_cap: u32::MAX as u64 / a_max,
            sum_rtt: 0,
            cnt_rtt: 0,
            base_rtt: 0x7fff_ffff,
            max_rtt: 0,
            end_seq: 0,
            alpha: a_max,
            beta: IllinoisConfig::beta_fx(cfg.beta_max),
            acked: 0,
            rtt_above: false,
            rtt_low: 0,
            beta_reset: false,
            avg_delay: None,
            cfg,
        }
    }

    fn rtt_reset(&mut self, tcb: &Tcb) {
        self.end_seq = tcb.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt = 0;
    }

    fn settle(&mut self) {
        if self.beta_reset {
            self.beta = self.b_max;
            self.beta_reset = false;
        }
    }

    /// alpha from the mean (da) and largest (dm) queueing delay.
    fn new_alpha(&mut self, da: u64, dm: u64) -> u64 {
        let d1 = dm / 100;
        if da <= d1 {
            if !self.rtt_above {
                return self.a_max;
            }
            self.rtt_low += 1;
            if self.rtt_low < self.cfg.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return self.a_max;
        }
        self.rtt_above = true;
        // alpha = k1 / (k2 + da), written over da - d1 and dm - d1.
        let (dm, da) = (dm - d1, da - d1);
        dm * self.a_max / (dm + da * (self.a_max - self.a_min) / self.a_min)
    }

    /// beta from the mean (da) and largest (dm) queueing delay.
    fn new_beta(&self, da: u64, dm: u64) -> u64 {
        let d2 = dm / 10;
        if da <= d2 {
            return self.b_min;
        }
        let d3 = 8 * dm / 10;
        if da >= d3 || d3 <= d2 {
            return self.b_max;
        }
        let (bmin, bmax) = (self.b_min as i64, self.b_max as i64);
        let (d2, d3, da) = (d2 as i64, d3 as i64, da as i64);
        ((bmin * d3 - bmax * d2 + (bmax - bmin) * da) / (d3 - d2)) as u64
    }

    /// Once per round: alpha and beta from the round's delays.
    fn update_params(&mut self, tcb: &Tcb) {
        if tcb.cwnd / tcb.mss < self.cfg.win_thresh {
            self.alpha = 1 << ALPHA_SHIFT;
            self.beta = self.b_max;
        } else if let Some(mean) = self.sum_rtt.checked_div(self.cnt_rtt) {
            let dm = self.max_rtt - self.base_rtt;
            let da = mean.saturating_sub(self.base_rtt);
            self.avg_delay = Some(da);
            self.alpha = self.new_alpha(da, dm);
            self.beta = self.new_beta(da, dm);
        }
        self.rtt_reset(tcb);
    }
}

impl CongestionControl for Illinois {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "illinois"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.rtt_reset(tcb);
    }

    fn on_ack_sample(&mut self, _tcb: &Tcb, ack: &Ack) {
        self.settle();
        self.acked = ack.segments_acked as u64;
        let Some(rtt) = ack.rtt else {
            return;
        };
        let rtt = (rtt.as_nanos() / 1000).min(self.rtt_cap);
        self.base_rtt = self.base_rtt.min(rtt);
        self.max_rtt = self.max_rtt.max(rtt);
        self.cnt_rtt += 1;
        self.sum_rtt += rtt;
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.settle();
        if tcb.snd_una > self.end_seq {
            self.update_params(tcb);
        }
        if tcb.in_slow_start() {
            slow_start(tcb, ack.bytes_acked, self.abc);
            return;
        }
        tcb.cwnd_cnt += self.acked;
        self.acked = 1;
        let cwnd = (tcb.cwnd / tcb.mss).max(1);
        let delta = (tcb.cwnd_cnt * self.alpha) >> ALPHA_SHIFT;
        if delta >= cwnd {
            tcb.cwnd += delta / cwnd * tcb.mss;
            tcb.cwnd_cnt = 0;
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let cwnd = tcb.cwnd / tcb.mss;
        let keep = cwnd - ((cwnd * self.beta) >> BETA_SHIFT);
        self.settle();
        keep.max(2) * tcb.mss
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        if to == CaState::Loss {
            self.alpha = 1 << ALPHA_SHIFT;
            self.beta_reset = true;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.rtt_reset(tcb);
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "alpha",
                "segments",
                "alpha: the additive increase per RTT (0.3 to 10)",
            ),
            Probe::new(
                "beta",
                "",
                "beta: the fraction of cwnd a loss removes (1/8 to 1/2)",
            ),
            Probe::new(
                "avg_delay",
                "s",
                "da: the last round's mean RTT minus the smallest RTT",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "alpha" => Some(self.alpha as f64 / (1u64 << ALPHA_SHIFT) as f64),
            "beta" => {
                let b = if self.beta_reset {
                    self.b_max
                } else {
                    self.beta
                };
                Some(b as f64 / (1u64 << BETA_SHIFT) as f64)
            }
            "avg_delay" => self.avg_delay.map(|d| d as f64 / 1e6),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Option<SimDuration> {
        Some(SimDuration::from_millis(v))
    }

    /// In congestion avoidance at `w` segments: a first ACK (100 ms) ends
    /// the initial round at once (one sample: no delay, alpha 10, beta
    /// 1/8) and starts one that ends above snd_nxt = 1 + 20 segments.
    fn avoiding(w: u64) -> CcDriver<Illinois> {
        let mut d = CcDriver::new(Illinois::new(IllinoisConfig::linux(), false), MSS, w);
        d.tcb.ssthresh = w * MSS;
        d.ack_with_nxt(1, ms(100), 1 + 20 * MSS);
        d
    }

    #[test]
    fn slow_start_is_standard() {
        let mut d = CcDriver::new(Illinois::new(IllinoisConfig::linux(), false), MSS, 2);
        d.ack(1, ms(100));
        d.ack(2, ms(100));
        assert_eq!(d.tcb.cwnd, 4 * MSS);
    }

    #[test]
    fn without_delay_alpha_is_ten_segments_per_rtt() {
        let mut d = avoiding(20);
        assert_eq!(
            (d.cc.probe("alpha"), d.cc.probe("beta")),
            (Some(10.0), Some(0.125))
        );
        // The first ACK's credit: 1 x 1280 >> 7 = 10 < 20; the second's
        // 2 x 1280 >> 7 = 20 >= 20: cwnd + 20 / 20 = 21.
        assert_eq!(d.tcb.cwnd, 20 * MSS);
        d.ack(1, ms(200));
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (21 * MSS, 0));
        // A stretch ACK of 18: 18 x 10 = 180 >= 21: + 180 / 21 = 8.
        d.ack(18, ms(150));
        assert_eq!(d.tcb.cwnd, 29 * MSS);
    }

    #[test]
    fn a_round_with_queueing_delay_lowers_alpha_and_raises_beta() {
        let mut d = avoiding(20);
        d.ack(1, ms(200));
        d.ack(18, ms(150)); // snd_una 20,001: the round has not ended
        assert_eq!(d.cc.probe("avg_delay"), Some(0.0));
        // The next ACK ends it: samples 200, 150 and 150 ms (this ACK's
        // own sample counts too), base 100, max 200:
        // da = 500000 / 3 - 100000 = 66666 us, dm = 100000 us.
        d.ack(1, ms(150));
        assert_eq!(d.cc.probe("avg_delay"), Some(0.066666));
        // alpha: d1 = 1000; (99000 x 1280) / (99000 + 65666 x 1242 / 38)
        // = 126720000 / 2245241 = 56 -> 56/128.
        assert_eq!(d.cc.probe("alpha"), Some(56.0 / 128.0));
        // beta: d2 = 10000, d3 = 80000; (8 x 80000 - 32 x 10000 + 24 x
        // 66666) / 70000 = 1919984 / 70000 = 27 -> 27/64.
        assert_eq!(d.cc.probe("beta"), Some(27.0 / 64.0));
        // ssthresh: 29 - (29 x 27 >> 6 = 12) = 17 segments.
        d.loss(LossCause::DupAcks, 29 * MSS);
        assert_eq!(d.tcb.ssthresh, 17 * MSS);
    }

    #[test]
    fn alpha_returns_to_its_maximum_after_theta_quiet_rounds() {
        let mut d = avoiding(20);
        d.ack(1, ms(200));
        d.ack(18, ms(150));
        d.ack(1, ms(150)); // alpha 56/128, rtt_above
                           // Quiet rounds: one sample of 100 ms each (da 0 <= d1 = 1000).
        for k in 0..4u64 {
            let nxt = d.tcb.snd_nxt + 20 * MSS;
            d.ack_with_nxt(20, ms(100), nxt);
            assert_eq!(d.cc.probe("alpha"), Some(56.0 / 128.0), "round {k}");
        }
        let nxt = d.tcb.snd_nxt + 20 * MSS;
        d.ack_with_nxt(20, ms(100), nxt); // the fifth (theta)
        assert_eq!(d.cc.probe("alpha"), Some(10.0));
    }

    #[test]
    fn below_win_thresh_it_is_reno() {
        let mut d = avoiding(10);
        assert_eq!(
            (d.cc.probe("alpha"), d.cc.probe("beta")),
            (Some(1.0), Some(0.5))
        );
        // alpha 1: one segment per 10 acknowledged at cwnd 10.
        for _ in 0..8 {
            d.ack(1, ms(100));
        }
        assert_eq!(d.tcb.cwnd, 10 * MSS);
        d.ack(1, ms(100)); // the 10th segment since the credit started
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        // ssthresh = 11 - (11 x 32 >> 6 = 5) = 6.
        d.loss(LossCause::DupAcks, 11 * MSS);
        assert_eq!(d.tcb.ssthresh, 6 * MSS);
    }

    #[test]
    fn a_timeout_takes_the_threshold_with_the_old_beta_then_resets() {
        let mut d = avoiding(20);
        d.ack(1, ms(200));
        d.ack(18, ms(150));
        d.ack(1, ms(150)); // cwnd 29, beta 27/64, alpha 56/128
        d.timeout(29 * MSS);
        assert_eq!(d.tcb.ssthresh, 17 * MSS);
        assert_eq!(
            (d.cc.probe("alpha"), d.cc.probe("beta")),
            (Some(1.0), Some(0.5))
        );
    }

    #[test]
    fn builds_under_every_profile_and_rejects_a_bad_beta() {
        crate::cc::testing::builds_and_refuses("illinois", "beta_max", serde_json::json!(1.5));
    }
}
