// SPDX-License-Identifier: MIT OR Apache-2.0
//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed
//! wide area networks", ACM CCR 33(2), 2003).
//!
//! Multiplicative increase, multiplicative decrease: in congestion
//! avoidance each ACK adds a = 0.01 segment (one segment per 1/a ACKs), so
//! the window grows by 1% per RTT whatever its size; a loss takes
//! ceil(b w) segments off, b = 0.125. The paper keeps standard TCP at or
//! below a legacy window of 16 segments (Reno's growth and halving there).
//!
//! Two forms ([`Form`]):
//! - `paper`: as above (the paper profile).
//! - `linux`: Linux's `tcp_scalable.c` (the linux profile): one segment per
//!   min(cwnd, 1/a) segments acknowledged (so Reno's growth below 100
//!   segments, with no legacy window), and ssthresh = max(w - floor(b w),
//!   2) segments (`cwnd - (cwnd >> 3)`) at any window. Linux 2.6 to 5.6
//!   counted ACKs, not segments, and used 1/a = 50 "to account for delayed
//!   ack"; Linux 5.7 counts segments with 100 (the ns2 profile, TCP-Linux's
//!   2.6.22, and the ns3 profile, ns-3's `AIFactor` 50, take a = 0.02).

use serde::{Deserialize, Serialize};

use super::{cong_avoid_ai, linux_slow_start, reno_ssthresh, Ack, CongestionControl};
use super::{LossCause, Tcb};

/// Which form of the algorithm.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    /// Kelly's: a per ACK above the legacy window, w - ceil(b w) on a loss.
    #[default]
    Paper,
    /// Linux's: one segment per min(cwnd, 1/a) acknowledged, w - floor(b w).
    Linux,
}

crate::deserialize_names!(Form {
    "paper" => Form::Paper,
    "linux" => Form::Linux,
});

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScalableConfig {
    /// a: segments added per ACK in congestion avoidance (one segment per
    /// round(1/a) ACKs).
    pub a: f64,
    /// b: the share of the window a loss takes off.
    pub b: f64,
    /// The legacy window, segments: standard TCP at or below it (0: none).
    pub low_window: u64,
    /// "paper" or "linux" ([`Form`]).
    pub form: Form,
}

impl ScalableConfig {
    /// Kelly's: a = 0.01, b = 0.125, legacy window 16.
    pub fn paper() -> Self {
        ScalableConfig {
            a: 0.01,
            b: 0.125,
            low_window: 16,
            form: Form::Paper,
        }
    }

    /// Linux 5.7 and later (`TCP_SCALABLE_AI_CNT` 100,
    /// `TCP_SCALABLE_MD_SCALE` 3).
    pub fn linux() -> Self {
        ScalableConfig {
            low_window: 0,
            form: Form::Linux,
            ..Self::paper()
        }
    }

    /// Linux 2.6.22 (ns-2's TCP-Linux) and ns-3's `TcpScalable`: an AI
    /// count of 50.
    pub fn ai_count_50() -> Self {
        ScalableConfig {
            a: 0.02,
            ..Self::linux()
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.a > 0.0 && self.a <= 1.0) {
            return Err(("a", format!("{} is not in (0, 1]", self.a)));
        }
        if !(self.b > 0.0 && self.b < 1.0) {
            return Err(("b", format!("{} is not in (0, 1)", self.b)));
        }
        Ok(())
    }

    /// ACKs (segments) per one-segment increase: round(1/a).
    pub fn ai_count(&self) -> u64 {
        ((1.0 / self.a).round() as u64).max(1)
    }
}

#[derive(Clone, Debug)]
pub struct Scalable {
    pub cfg: ScalableConfig,
    abc: bool,
}

impl Scalable {
    pub fn new(cfg: ScalableConfig, abc: bool) -> Self {
        Scalable { cfg, abc }
    }
}

impl CongestionControl for Scalable {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let Some(acked) = linux_slow_start(tcb, ack, self.abc) else {
            return;
        };
        let w = tcb.cwnd / tcb.mss;
        let per = match self.cfg.form {
            _ if w <= self.cfg.low_window => w,
            Form::Paper => self.cfg.ai_count(),
            Form::Linux => w.min(self.cfg.ai_count()),
        };
        cong_avoid_ai(tcb, per, acked);
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let w = tcb.cwnd / tcb.mss;
        if w <= self.cfg.low_window {
            return reno_ssthresh(tcb);
        }
        let cut = w as f64 * self.cfg.b;
        let cut = match self.cfg.form {
            Form::Paper => cut.ceil(),
            Form::Linux => cut.floor(),
        } as u64;
        w.saturating_sub(cut).max(2) * tcb.mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    fn driver(cfg: ScalableConfig, abc: bool, cwnd: u64) -> CcDriver<Scalable> {
        let mut d = CcDriver::new(Scalable::new(cfg, abc), MSS, cwnd);
        d.tcb.ssthresh = cwnd * MSS; // congestion avoidance
        d
    }

    #[test]
    fn the_paper_adds_a_segment_per_hundred_acks_above_the_legacy_window() {
        let mut d = driver(ScalableConfig::paper(), false, 200);
        for _ in 0..99 {
            d.ack(1, None);
        }
        assert_eq!(d.tcb.cwnd, 200_000);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 201_000);
        // 1% per RTT at any window: 1000 ACKs at 1000 segments give 10.
        let mut d = driver(ScalableConfig::paper(), false, 1000);
        for _ in 0..1000 {
            d.ack(1, None);
        }
        assert_eq!(d.tcb.cwnd, 1_010_000);
    }

    #[test]
    fn the_paper_is_reno_at_or_below_the_legacy_window() {
        let mut d = driver(ScalableConfig::paper(), false, 16);
        for _ in 0..16 {
            d.ack(1, None);
        }
        // One segment per window of ACKs, then one per 1/a = 100 ACKs.
        assert_eq!(d.tcb.cwnd, 17_000);
        for _ in 0..99 {
            d.ack(1, None);
        }
        assert_eq!(d.tcb.cwnd, 17_000);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 18_000);
        // A loss at 16 segments halves the flight (RFC 5681).
        let mut d = driver(ScalableConfig::paper(), false, 16);
        d.loss(LossCause::DupAcks, 16_000);
        assert_eq!(d.tcb.ssthresh, 8_000);
    }

    #[test]
    fn a_loss_takes_off_an_eighth_rounded_up_in_the_paper_and_down_in_linux() {
        let mut d = driver(ScalableConfig::paper(), false, 100);
        d.loss(LossCause::DupAcks, 100_000);
        assert_eq!(d.tcb.ssthresh, 87_000); // 100 - ceil(12.5)
        let mut d = driver(ScalableConfig::linux(), true, 100);
        d.loss(LossCause::DupAcks, 100_000);
        assert_eq!(d.tcb.ssthresh, 88_000); // 100 - (100 >> 3)
        let mut d = driver(ScalableConfig::linux(), true, 3);
        d.loss(LossCause::Timeout, 3_000);
        assert_eq!(d.tcb.ssthresh, 3_000); // 3 - 0: no legacy halving
        let mut d = driver(ScalableConfig::linux(), true, 2);
        d.loss(LossCause::DupAcks, 2_000);
        assert_eq!(d.tcb.ssthresh, 2_000);
    }

    #[test]
    fn linux_grows_as_reno_below_one_hundred_segments_and_counts_segments() {
        let mut d = driver(ScalableConfig::linux(), true, 50);
        for _ in 0..25 {
            d.ack(2, None); // delayed ACKs: 50 segments
        }
        assert_eq!(d.tcb.cwnd, 51_000);
        let mut d = driver(ScalableConfig::linux(), true, 150);
        for _ in 0..50 {
            d.ack(2, None);
        }
        assert_eq!(d.tcb.cwnd, 151_000); // 100 segments for one
    }

    #[test]
    fn counting_acks_with_an_ai_count_of_50_is_linux_2_6_22_and_ns_3() {
        // Without byte counting every ACK counts one: 50 delayed ACKs (100
        // segments) add one segment at 150 segments, as 2.6.22 "accounts
        // for delayed ack".
        let mut d = driver(ScalableConfig::ai_count_50(), false, 150);
        for _ in 0..50 {
            d.ack(2, None);
        }
        assert_eq!(d.tcb.cwnd, 151_000);
    }

    #[test]
    fn slow_start_leaves_the_rest_of_an_ack_to_the_increase() {
        let mut d = CcDriver::new(Scalable::new(ScalableConfig::linux(), true), MSS, 9);
        d.tcb.ssthresh = 10_000;
        d.ack(2, None); // one segment to reach ssthresh, one credit left
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (10_000, 1));
    }

    #[test]
    fn parameters_are_checked() {
        let bad = ScalableConfig {
            a: 0.0,
            ..ScalableConfig::paper()
        };
        assert_eq!(bad.validate().unwrap_err().0, "a");
        let bad = ScalableConfig {
            b: 1.0,
            ..ScalableConfig::paper()
        };
        assert_eq!(bad.validate().unwrap_err().0, "b");
        assert_eq!(ScalableConfig::ai_count_50().ai_count(), 50);
    }

    #[test]
    fn the_registry_builds_it_under_every_profile_and_names_a_bad_parameter() {
        use crate::cc::registry::{defaults, Profile};
        let form = |p| defaults("scalable", p).unwrap()["form"].clone();
        assert_eq!(form(Profile::Paper), "paper");
        assert_eq!(form(Profile::Linux), "linux");
        assert_eq!(defaults("scalable", Profile::Ns2).unwrap()["a"], 0.02);
        crate::cc::testing::builds_and_refuses("scalable", "a", serde_json::json!(0));
    }
}
