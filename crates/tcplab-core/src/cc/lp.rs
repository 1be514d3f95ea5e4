// SPDX-License-Identifier: MIT OR Apache-2.0
//! TCP-LP, TCP Low Priority.
//!
//! Kuzmanovic and Knightly, "TCP-LP: a distributed algorithm for low
//! priority data transfer", IEEE INFOCOM 2003; as Linux's
//! `net/ipv4/tcp_lp.c` runs it.
//!
//! A flow that yields to every other: it watches the one-way delay and
//! backs off *before* the queue overflows.
//! - Every delay sample d updates the smallest and the largest delay seen
//!   (`owd_min`, `owd_max`; the largest is forgotten one step: a new
//!   record makes the previous record the maximum, Linux's
//!   `owd_max_rsv`) and the smoothed delay `sowd = 7/8 sowd + 1/8 d`.
//! - Early congestion: the smoothed delay is not below `owd_min +
//!   threshold_percent/100 (owd_max - owd_min)` (15%, the paper's delta).
//!   Then the window is halved (at least one segment) and the inference
//!   time starts; a second indication within the inference time (3 RTT
//!   after the first) cuts the window to one segment. After each
//!   indication, `owd_min` and `owd_max` restart from the smoothed delay
//!   (`sowd` and twice it), as Linux does.
//! - Within the inference time the window does not grow; otherwise it
//!   grows as Linux's Reno (slow start, then one segment per window of
//!   acknowledged segments). ssthresh is untouched by an early indication.
//! - A loss sets ssthresh to half the window (Linux's `tcp_reno_ssthresh`:
//!   max(cwnd / 2, 2) segments).
//!
//! Deviations from Linux:
//! - Linux estimates the one-way delay from TCP timestamps (the remote
//!   clock's rate estimated from `rcv_tsval`, against the echoed
//!   `rcv_tsecr`). tcplab's ACKs carry no timestamp echoes, so the delay
//!   measure is the ACK's RTT sample, in whole microseconds: the forward
//!   queue shows in it just the same, but so does a queue on the reverse
//!   path. The inference time is 3 x that sample (Linux: 3 x (now -
//!   tsecr), the same RTT measured through timestamps).
//! - Linux cuts cwnd inside `pkts_acked`; tcplab's `on_ack_sample` may not
//!   touch cwnd, so the cut is applied at the start of the same ACK's
//!   `increase_window` (before the growth, as in Linux). An indication on
//!   an ACK that does not grow the window (during fast recovery) is
//!   dropped: there the recovery sets cwnd, as PRR does in Linux.
//! - No undo (tcplab has no DSACK undo).
//!
//! The paper's own implementation (a patched 2.4 kernel) is not modelled
//! apart from this; every profile runs the form above.

use serde::{Deserialize, Serialize};

use super::{linux_reno_cong_avoid, Ack, CongestionControl, LossCause, Probe, Tcb};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LpConfig {
    /// Early congestion when the smoothed delay reaches owd_min + this
    /// percentage of (owd_max - owd_min): 15, the paper's delta = 0.15 and
    /// the constant 15 of Linux's `tcp_lp_pkts_acked`.
    pub threshold_percent: u32,
    /// The inference time in RTTs: 3, Linux's `inference = 3 * (now -
    /// tsecr)`.
    pub inference_rtts: u32,
}

impl LpConfig {
    pub fn linux() -> Self {
        LpConfig {
            threshold_percent: 15,
            inference_rtts: 3,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(1..=100).contains(&self.threshold_percent) {
            return Err((
                "threshold_percent",
                format!("{} is not in 1..=100", self.threshold_percent),
            ));
        }
        if self.inference_rtts == 0 {
            return Err(("inference_rtts", "must be at least 1".into()));
        }
        Ok(())
    }
}

/// Linux's flag bits, as its debug output shows them.
pub const LP_VALID_OWD: u32 = 1 << 1;
pub const LP_WITHIN_THR: u32 = 1 << 3;
pub const LP_WITHIN_INF: u32 = 1 << 4;

/// What an early congestion indication does to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    Half,
    One,
}

#[derive(Clone, Debug)]
pub struct Lp {
    cfg: LpConfig,
    abc: bool,
    /// Linux's flag word (LP_VALID_OWD | LP_WITHIN_THR | LP_WITHIN_INF).
    pub flag: u32,
    /// Smoothed delay x 8, microseconds.
    pub sowd: u64,
    /// Delay bounds, microseconds (u32 as Linux's; owd_min starts at
    /// u32::MAX, owd_max at 0).
    pub owd_min: u32,
    pub owd_max: u32,
    owd_max_rsv: u32,
    /// The last early indication.
    last_drop: Option<SimTime>,
    inference: SimDuration,
    /// A cut decided on this ACK, for `increase_window`.
    pending: Option<Cut>,
}

impl Lp {
    pub fn new(cfg: LpConfig, abc: bool) -> Self {
        Lp {
            cfg,
            abc,
            flag: 0,
            sowd: 0,
            owd_min: u32::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            last_drop: None,
            inference: SimDuration::ZERO,
            pending: None,
        }
    }

    /// One delay sample (Linux's `tcp_lp_rtt_sample`), microseconds > 0.
    fn sample(&mut self, d: u32) {
        self.owd_min = self.owd_min.min(d);
        if d > self.owd_max {
            if d > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 {
                    d
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = d;
            } else {
                self.owd_max = d;
            }
        }
        self.sowd = if self.sowd == 0 {
            (d as u64) << 3
        } else {
            self.sowd - (self.sowd >> 3) + d as u64
        };
    }

    /// The smoothed delay is below the threshold (Linux's u32 arithmetic:
    /// before any sample the span wraps to 1).
    fn within_threshold(&self) -> bool {
        let span = self.owd_max.wrapping_sub(self.owd_min) as u64;
        let thr = self.owd_min as u64 + self.cfg.threshold_percent as u64 * span / 100;
        (self.sowd >> 3) < thr
    }
}

impl CongestionControl for Lp {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "lp"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        self.pending = None;
        let now = tcb.now.max(ack.now);
        if let Some(r) = ack.rtt {
            let us = (r.as_nanos() / 1000).min(u32::MAX as u64) as u32;
            if us > 0 {
                self.flag |= LP_VALID_OWD;
                self.sample(us);
            } else {
                self.flag &= !LP_VALID_OWD;
            }
            self.inference = SimDuration::from_nanos(r.as_nanos() * self.cfg.inference_rtts as u64);
        }
        let within_inf = self
            .last_drop
            .is_some_and(|t| now.as_nanos() - t.as_nanos() < self.inference.as_nanos());
        if within_inf {
            self.flag |= LP_WITHIN_INF;
        } else {
            self.flag &= !LP_WITHIN_INF;
        }
        if self.within_threshold() {
            self.flag |= LP_WITHIN_THR;
            return;
        }
        self.flag &= !LP_WITHIN_THR;
        // Early congestion: restart the bounds from the smoothed delay.
        self.owd_min = (self.sowd >> 3).min(u32::MAX as u64) as u32;
        self.owd_max = (self.sowd >> 2).min(u32::MAX as u64) as u32;
        self.owd_max_rsv = self.owd_max;
        self.pending = Some(if within_inf { Cut::One } else { Cut::Half });
        self.last_drop = Some(now);
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        match self.pending.take() {
            Some(Cut::One) => tcb.set_cwnd(tcb.mss),
            Some(Cut::Half) => tcb.set_cwnd(((tcb.cwnd / tcb.mss) >> 1) * tcb.mss),
            None => {}
        }
        if self.flag & LP_WITHIN_INF == 0 {
            linux_reno_cong_avoid(tcb, ack, self.abc);
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        ((tcb.cwnd / tcb.mss) >> 1).max(2) * tcb.mss
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new("owd", "s", "the smoothed delay (7/8 old + 1/8 new RTT sample)"),
            Probe::new("owd_min", "s", "the smallest delay since the last early indication"),
            Probe::new("owd_max", "s", "the largest delay but one since the last early indication"),
            Probe::new(
                "flag",
                "",
                "Linux's flag word: 2 a valid delay, 8 within the threshold, 16 within the inference time",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        let has = self.sowd > 0;
        match name {
            "owd" => has.then(|| (self.sowd >> 3) as f64 / 1e6),
            "owd_min" => has.then(|| self.owd_min as f64 / 1e6),
            "owd_max" => has.then(|| self.owd_max as f64 / 1e6),
            "flag" => Some(self.flag as f64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;
    use crate::cc::CaState;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    fn lp(cwnd: u64) -> CcDriver<Lp> {
        CcDriver::new(Lp::new(LpConfig::linux(), false), MSS, cwnd)
    }

    #[test]
    fn the_first_sample_is_an_early_indication_and_halves() {
        // Linux's arithmetic: after the first sample d = 100,000 us,
        // owd_min = owd_max = d and sowd/8 = d; d < d + 15% x 0 is false,
        // so the first sample is an early indication: cwnd 10 >> 1 = 5,
        // the bounds restart at sowd/8 = 100,000 and sowd/4 = 200,000.
        // The indication came outside any inference time, so slow start
        // grows on the same ACK: 6 segments. ssthresh is untouched.
        let mut d = lp(10);
        d.ack(1, Some(ms(100)));
        assert_eq!(d.tcb.cwnd, 6 * MSS);
        assert_eq!(d.tcb.ssthresh, u64::MAX);
        assert_eq!((d.cc.owd_min, d.cc.owd_max), (100_000, 200_000));
        assert_eq!(d.cc.probe("owd"), Some(0.1));
        // Before any sample, Linux's u32 span wraps to 1: within threshold.
        let mut fresh = Lp::new(LpConfig::linux(), false);
        assert!(fresh.within_threshold());
        fresh.sample(5);
        assert!(!fresh.within_threshold());
    }

    #[test]
    fn no_growth_within_the_inference_time_then_reno_growth() {
        let mut d = lp(10);
        // The indication at t = 0 (cwnd 6, as above). Inference = 3 x 100
        // ms. At 100 ms: sowd = 800,000 - 100,000 + 100,000 = 800,000 (100
        // ms), below 100,000 + 15% x 100,000 = 115,000: within the
        // threshold, within the inference time: no growth.
        d.ack(1, Some(ms(100)));
        d.advance(ms(100));
        d.ack(1, Some(ms(100)));
        assert_eq!(d.tcb.cwnd, 6 * MSS);
        assert_eq!(d.cc.flag, LP_VALID_OWD | LP_WITHIN_THR | LP_WITHIN_INF);
        // At 300 ms, 300 ms after the indication: no longer within (300 is
        // not < 300): slow start adds one segment per ACK.
        d.advance(ms(200));
        d.ack(1, Some(ms(100)));
        assert_eq!(d.tcb.cwnd, 7 * MSS);
        // Congestion avoidance: one segment per cwnd (7) acknowledged
        // segments (Linux's tcp_cong_avoid_ai with w = cwnd).
        d.tcb.ssthresh = 7 * MSS;
        for _ in 0..6 {
            d.ack(1, Some(ms(100)));
        }
        assert_eq!(d.tcb.cwnd, 7 * MSS);
        d.ack(1, Some(ms(100)));
        assert_eq!(d.tcb.cwnd, 8 * MSS);
        // Without byte counting (as here), an ACK counts one segment
        // whatever it covers, as tcplab's Reno growth does: an ACK of 8
        // segments at cwnd 8 adds one credit, not a segment.
        d.ack(8, Some(ms(100)));
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (8 * MSS, 1));
    }

    #[test]
    fn a_second_indication_within_the_inference_time_cuts_to_one_segment() {
        let mut d = lp(20);
        d.ack(1, Some(ms(100))); // halves: 10, +1 = 11; bounds 100/200 ms
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        // 100 ms later a 300 ms sample: owd_max: 300,000 > reserve 200,000
        // (non-zero) so owd_max = 200,000, reserve 300,000; sowd = 800,000
        // - 100,000 + 300,000 = 1,000,000, i.e. 125,000 us, not below
        // 100,000 + 15 x 100,000 / 100 = 115,000: an indication within the
        // inference time (now 3 x 300 ms): one segment, no growth.
        d.advance(ms(100));
        d.ack(1, Some(ms(300)));
        assert_eq!(d.tcb.cwnd, MSS);
        assert_eq!((d.cc.owd_min, d.cc.owd_max), (125_000, 250_000));
        assert_eq!(d.cc.flag & LP_WITHIN_THR, 0);
    }

    #[test]
    fn an_indication_after_the_inference_time_halves_again() {
        let mut d = lp(20);
        d.ack(1, Some(ms(100))); // 11 segments; bounds 100/200 ms
                                 // The inference time is computed from this ACK's sample before the
                                 // test (Linux's order): 3 x 300 ms, so 1 s later is past it.
        d.advance(ms(1000));
        d.tcb.ssthresh = 5 * MSS; // congestion avoidance
        d.ack(1, Some(ms(300))); // the same 125 ms > 115 ms as above
                                 // Halved: 11 >> 1 = 5, then Reno's credit of one segment.
        assert_eq!(d.tcb.cwnd, 5 * MSS);
        assert_eq!(d.tcb.cwnd_cnt, 1);
    }

    #[test]
    fn a_loss_halves_the_window_in_segments_at_least_two() {
        let mut d = lp(10);
        d.tcb.cwnd = 11 * MSS + 500;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 5 * MSS);
        d.tcb.cwnd = 3 * MSS;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::Timeout), 2 * MSS);
    }

    #[test]
    fn an_indication_in_recovery_leaves_the_window_to_the_recovery() {
        let mut d = lp(10);
        d.loss(LossCause::DupAcks, 10 * MSS);
        assert_eq!(d.tcb.ca_state, CaState::Recovery);
        d.dupack(); // no sample
        let ack = Ack {
            now: d.tcb.now,
            bytes_acked: MSS,
            segments_acked: 1,
            is_dup: false,
            rtt: Some(ms(100)),
            seg_rtt: None,
            prior_in_flight: 10 * MSS,
            ece: false,
        };
        d.cc.on_ack_sample(&d.tcb, &ack); // the first sample: an indication
        assert!(d.cc.pending.is_some());
        d.dupack(); // the next ACK forgets it
        assert!(d.cc.pending.is_none());
    }

    #[test]
    fn registry_builds_lp_under_every_profile_and_names_a_bad_field() {
        crate::cc::testing::builds_and_refuses("lp", "threshold_percent", serde_json::json!(0));
    }
}
