// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's `TcpBic` (`src/internet/model/tcp-bic.cc`): BIC (Xu,
//! Harfoush and Rhee, INFOCOM 2004) as ns-3 wrote it after Linux's
//! `tcp_bic.c`, the `version = "ns3"` form of `bic`.
//!
//! Windows are whole segments, B = `b` (4), S_max = `max_increment` (16). In
//! slow start each ACK adds a segment and uses one of those it covers. In
//! congestion avoidance each ACK adds the segments it covers to a count,
//! and once the count exceeds cnt (so cnt + 1 segments) cwnd grows by one
//! and the count restarts at 0. cnt:
//! - w < `low_window` (14): w (Reno's growth, counted in segments);
//! - below W_max, dist = (W_max - w) / B in integers: w / S_max when dist >
//!   S_max, w `smooth_part` / B when dist <= 1 (`smooth_part` 5, where
//!   Linux has 20), w / dist otherwise;
//! - at or above W_max: w `smooth_part` / B within B segments, w (B - 1) /
//!   (w - W_max) up to W_max + S_max (B - 1), then w / S_max;
//! - at most 20 while W_max is 0, at least 1.
//!
//! A loss: W_max = floor(`beta` w) when w is below the previous W_max (fast
//! convergence; Linux: w (1 + beta) / 2), else w; ssthresh = max(2 MSS,
//! pipe / 2) below `low_window`, else max(beta w, 2) segments in bytes
//! (fractions kept). Linux 2.6.22 counted ACKs; today's counts segments
//! but divides cnt by its ACK ratio, which ns-3 does not.

use serde::{Deserialize, Serialize};

use super::Ns3Version;
use crate::cc::{Ack, CongestionControl, LossCause, Probe, Tcb};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ns3BicConfig {
    /// "ns3": this form.
    pub version: Ns3Version,
    /// `FastConvergence` (true).
    pub fast_convergence: bool,
    /// `Beta`: the fraction of the window kept at a loss (0.8; Linux's
    /// form counts it in 1024ths).
    pub beta: f64,
    /// `MaxIncr`: S_max, segments (16).
    pub max_increment: u32,
    /// `LowWnd`: Reno below this window, segments (14).
    pub low_window: u32,
    /// `SmoothPart`: RTTs to cover the last B segments to W_max (5).
    pub smooth_part: u32,
    /// `BinarySearchCoefficient`: B (4).
    pub b: u32,
}

impl Default for Ns3BicConfig {
    fn default() -> Self {
        Ns3BicConfig {
            version: Ns3Version::Ns3,
            fast_convergence: true,
            beta: 0.8,
            max_increment: 16,
            low_window: 14,
            smooth_part: 5,
            b: 4,
        }
    }
}

impl Ns3BicConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(0.0..=1.0).contains(&self.beta) {
            return Err(("beta", format!("{} is not in [0, 1]", self.beta)));
        }
        if self.max_increment == 0 || self.smooth_part == 0 {
            return Err((
                "max_increment",
                "max_increment and smooth_part must be at least 1".into(),
            ));
        }
        if !(2..=255).contains(&self.b) {
            return Err(("b", format!("{} is not 2 to 255", self.b)));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ns3Bic {
    cfg: Ns3BicConfig,
    cwnd_cnt: u32,
    last_max_cwnd: u32,
}

impl Ns3Bic {
    pub fn new(cfg: Ns3BicConfig) -> Self {
        Ns3Bic {
            cfg,
            cwnd_cnt: 0,
            last_max_cwnd: 0,
        }
    }

    /// `TcpBic::Update`: segments per one-segment increase.
    fn cnt(&self, w: u32) -> u32 {
        let c = &self.cfg;
        if w < c.low_window {
            return w;
        }
        let (max, b) = (self.last_max_cwnd, c.b);
        let mut cnt = if w < max {
            let dist = (max - w) / b;
            if dist > c.max_increment {
                w / c.max_increment
            } else if dist <= 1 {
                w * c.smooth_part / b
            } else {
                w / dist
            }
        } else if w < max + b {
            w * c.smooth_part / b
        } else if w < max + c.max_increment * (b - 1) {
            w * (b - 1) / (w - max)
        } else {
            w / c.max_increment
        };
        if max == 0 {
            cnt = cnt.min(20);
        }
        cnt.max(1)
    }
}

impl CongestionControl for Ns3Bic {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Ns3Bic::new(self.cfg.clone())))
    }

    fn name(&self) -> &'static str {
        "bic"
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let mut segments = ack.segments_acked;
        if tcb.cwnd < tcb.ssthresh {
            tcb.cwnd += tcb.mss;
            segments = segments.wrapping_sub(1);
        }
        if tcb.cwnd >= tcb.ssthresh && segments > 0 {
            self.cwnd_cnt = self.cwnd_cnt.wrapping_add(segments);
            let cnt = self.cnt((tcb.cwnd / tcb.mss) as u32);
            if self.cwnd_cnt > cnt {
                tcb.cwnd += tcb.mss;
                self.cwnd_cnt = 0;
            }
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let c = &self.cfg;
        let w = (tcb.cwnd / tcb.mss) as u32;
        self.last_max_cwnd = if w < self.last_max_cwnd && c.fast_convergence {
            (c.beta * w as f64) as u32
        } else {
            w
        };
        if w < c.low_window {
            (2 * tcb.mss).max(tcb.pipe as u64 / 2)
        } else {
            ((w as f64 * c.beta).max(2.0) * tcb.mss as f64) as u64
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![Probe::new(
            "w_max",
            "segments",
            "W_max: the window before the last loss (after fast convergence)",
        )]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        (name == "w_max").then_some(self.last_max_cwnd as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    fn bic() -> Ns3Bic {
        Ns3Bic::new(Ns3BicConfig::default())
    }

    #[test]
    fn cnt_follows_ns3s_integer_search() {
        let mut b = bic();
        // Below LowWnd, Reno's; without W_max at most 20.
        assert_eq!((b.cnt(10), b.cnt(20), b.cnt(100)), (10, 3, 6));
        assert_eq!(b.cnt(400), 20);
        b.last_max_cwnd = 100;
        // dist = (100 - 20) / 4 = 20 > 16: w / 16 = 1.
        assert_eq!(b.cnt(20), 1);
        // dist = 41 / 4 = 10: 59 / 10 = 5; dist = 5 / 4 = 1: 95 x 5 / 4.
        assert_eq!((b.cnt(59), b.cnt(95)), (5, 118));
        // Max probing: within B, smooth; then 3 w / (w - 100); then w / 16.
        assert_eq!((b.cnt(102), b.cnt(110), b.cnt(160)), (127, 33, 10));
    }

    #[test]
    fn a_segment_per_cnt_plus_one_segments_and_losses_keep_beta() {
        let mut d = CcDriver::new(bic(), MSS, 20);
        d.tcb.ssthresh = 20 * MSS;
        // At W_max = 20, cnt(20) = 20 x 5 / 4 = 25: the count must exceed
        // 25 segments, 13 ACKs of two.
        d.cc.last_max_cwnd = 20;
        for _ in 0..12 {
            d.ack(2, None);
        }
        assert_eq!(d.tcb.cwnd, 20 * MSS);
        d.ack(2, None);
        assert_eq!((d.tcb.cwnd, d.cc.cwnd_cnt), (21 * MSS, 0));
        // A loss at 21: W_max 21, ssthresh 16.8 segments in bytes.
        d.loss(LossCause::DupAcks, 21 * MSS);
        assert_eq!((d.cc.last_max_cwnd, d.tcb.ssthresh), (21, 16_800));
        // Below W_max again: fast convergence to floor(0.8 x 16) = 12.
        d.tcb.cwnd = 16_800;
        d.loss(LossCause::DupAcks, 16 * MSS);
        assert_eq!(d.cc.last_max_cwnd, 12);
        // Below LowWnd: half the pipe.
        d.tcb.cwnd = 10 * MSS;
        d.loss(LossCause::DupAcks, 9 * MSS);
        assert_eq!(d.tcb.ssthresh, 4_500);
    }
}
