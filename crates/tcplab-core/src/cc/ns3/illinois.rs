// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's `TcpIllinois` (`src/internet/model/tcp-illinois.cc`):
//! TCP-Illinois (Liu, Başar and Srikant 2006) as ns-3 wrote it after
//! Linux's `tcp_illinois.c`, the `version = "ns3"` form of `illinois`.
//!
//! Per ACK (`PktsAcked`), the smoothed RTT updates BaseRTT (the smallest),
//! MaxRTT (the largest, never reset) and the round's sum and count. At the
//! first ACK at or above the round's end (snd.nxt when it began), alpha
//! and beta are computed again, unless the round had no sample, from da =
//! the round's mean minus BaseRTT and dm = MaxRTT - BaseRTT, both in whole
//! milliseconds: with d1 = dm / 100, alpha = `alpha_max` while da <= d1
//! (at once unless the delay was above d1 before, else after `theta` such
//! rounds), else dm' alpha_max / (dm' + da' (alpha_max - alpha_min) /
//! alpha_min) with dm' = dm - d1 and da' = da - d1; beta = `beta_min` up
//! to dm / 10, `beta_max` from 8 dm / 10, linear between. ns-3 compares
//! cwnd in bytes with `win_thresh` (15) in segments, so Reno's alpha 1 and
//! beta 1/2 below 15 segments never apply (Linux's do).
//!
//! Growth: `TcpNewReno`'s slow start (a segment per ACK); then each ACK
//! adds alpha times the segments it covers to a count (an integer,
//! truncated), which adds a segment per cwnd (whole segments). A loss:
//! ssthresh = max(2, (1 - beta) F) whole segments, F the pipe in whole
//! segments. A timeout (entering Loss) returns alpha to 1 and beta to 1/2
//! and starts a round.

use serde::{Deserialize, Serialize};

use super::{add_per_window, newreno_slow_start, srtt, whole_ms, Ns3Version};
use crate::cc::{Ack, CaState, CongestionControl, LossCause, Probe, Tcb};
use crate::time::SimDuration;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ns3IllinoisConfig {
    /// "ns3": this form.
    pub version: Ns3Version,
    /// `AlphaMin` (0.3), `AlphaMax` (10), `AlphaBase` (1).
    pub alpha_min: f64,
    pub alpha_max: f64,
    pub alpha_base: f64,
    /// `BetaMin` (0.125), `BetaMax` (0.5), `BetaBase` (0.5).
    pub beta_min: f64,
    pub beta_max: f64,
    pub beta_base: f64,
    /// `WinThresh` (15), compared with cwnd in bytes as ns-3 does.
    pub win_thresh: u32,
    /// `Theta`: quiet rounds before alpha_max (5).
    pub theta: u32,
}

impl Default for Ns3IllinoisConfig {
    fn default() -> Self {
        Ns3IllinoisConfig {
            version: Ns3Version::Ns3,
            alpha_min: 0.3,
            alpha_max: 10.0,
            alpha_base: 1.0,
            beta_min: 0.125,
            beta_max: 0.5,
            beta_base: 0.5,
            win_thresh: 15,
            theta: 5,
        }
    }
}

impl Ns3IllinoisConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.alpha_min > 0.0 && self.alpha_min < self.alpha_max) {
            return Err(("alpha_min", "must be above 0 and below alpha_max".into()));
        }
        if !(0.0 <= self.beta_min && self.beta_min <= self.beta_max && self.beta_max < 1.0) {
            return Err(("beta_min", "need 0 <= beta_min <= beta_max < 1".into()));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ns3Illinois {
    cfg: Ns3IllinoisConfig,
    alpha: f64,
    beta: f64,
    base_rtt: Option<SimDuration>,
    max_rtt: Option<SimDuration>,
    sum_rtt: SimDuration,
    cnt_rtt: u32,
    end_seq: u64,
    rtt_above: bool,
    rtt_low: u8,
    ack_cnt: u32,
}

impl Ns3Illinois {
    pub fn new(cfg: Ns3IllinoisConfig) -> Self {
        Ns3Illinois {
            alpha: cfg.alpha_max,
            beta: cfg.beta_base,
            cfg,
            base_rtt: None,
            max_rtt: None,
            sum_rtt: SimDuration::ZERO,
            cnt_rtt: 0,
            end_seq: 0,
            rtt_above: false,
            rtt_low: 0,
            ack_cnt: 0,
        }
    }

    fn reset(&mut self, tcb: &Tcb) {
        self.end_seq = tcb.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt = SimDuration::ZERO;
    }

    /// `RecalcParam`, `CalculateAlpha` and `CalculateBeta`.
    fn recalc(&mut self, tcb: &Tcb) {
        let c = self.cfg.clone();
        if tcb.cwnd < c.win_thresh as u64 {
            self.alpha = c.alpha_base;
            self.beta = c.beta_base;
            return;
        }
        let (Some(base), Some(max)) = (self.base_rtt, self.max_rtt) else {
            return;
        };
        if self.cnt_rtt == 0 {
            return;
        }
        let mut dm = whole_ms(max - base);
        let mean = SimDuration::from_nanos(self.sum_rtt.as_nanos() / self.cnt_rtt as u64);
        let mut da = whole_ms(mean - base);
        let d1 = dm / 100.0;
        if da <= d1 {
            if !self.rtt_above {
                self.alpha = c.alpha_max;
            }
            self.rtt_low = self.rtt_low.wrapping_add(1);
            if self.rtt_low as u32 >= c.theta {
                self.rtt_low = 0;
                self.rtt_above = false;
                self.alpha = c.alpha_max;
            }
        } else {
            self.rtt_above = true;
            let (dm1, da1) = (dm - d1, da - d1);
            self.alpha =
                (dm1 * c.alpha_max) / (dm1 + (da1 * (c.alpha_max - c.alpha_min)) / c.alpha_min);
        }
        // CalculateBeta, on the delays before CalculateAlpha's shift.
        dm = whole_ms(max - base);
        da = whole_ms(mean - base);
        let (d2, d3) = (dm / 10.0, 8.0 * dm / 10.0);
        self.beta = if da <= d2 {
            c.beta_min
        } else if da < d3 {
            (c.beta_min * d3 - c.beta_max * d2 + (c.beta_max - c.beta_min) * da) / (d3 - d2)
        } else {
            c.beta_max
        };
    }
}

impl CongestionControl for Ns3Illinois {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Ns3Illinois::new(self.cfg.clone())))
    }

    fn name(&self) -> &'static str {
        "illinois"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, _ack: &Ack) {
        let Some(r) = srtt(tcb) else { return };
        self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
        self.max_rtt = Some(self.max_rtt.map_or(r, |m| m.max(r)));
        self.cnt_rtt += 1;
        self.sum_rtt = self.sum_rtt + r;
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        if tcb.snd_una >= self.end_seq {
            self.recalc(tcb);
            self.reset(tcb);
        }
        let segments = ack.segments_acked;
        if tcb.cwnd < tcb.ssthresh {
            newreno_slow_start(tcb, segments);
            return;
        }
        if segments > 0 {
            self.ack_cnt = (self.ack_cnt as f64 + segments as f64 * self.alpha) as u32;
        }
        add_per_window(tcb, &mut self.ack_cnt);
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let f = (tcb.pipe / tcb.mss as u32) as f64;
        ((1.0 - self.beta) * f).max(2.0) as u64 * tcb.mss
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        if to == CaState::Loss {
            self.alpha = self.cfg.alpha_base;
            self.beta = self.cfg.beta_base;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.reset(tcb);
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new("alpha", "segments", "alpha: segments added per RTT"),
            Probe::new("beta", "", "beta: the fraction of the pipe a loss takes"),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "alpha" => Some(self.alpha),
            "beta" => Some(self.beta),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "illinois_tests.rs"]
mod tests;
