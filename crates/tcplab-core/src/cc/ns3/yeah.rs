// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's `TcpYeah` (`src/internet/model/tcp-yeah.cc`): YeAH-TCP
//! (Baiocchi, Castellani and Vacirca, PFLDnet 2007) as ns-3 wrote it after
//! Linux's `tcp_yeah.c`, the `version = "ns3"` form of `yeah`.
//!
//! Per ACK (`PktsAcked`), the smoothed RTT lowers BaseRTT (the smallest
//! ever) and the round's smallest RTT, and counts a sample. Growth
//! (`IncreaseWindow`): below ssthresh, `TcpNewReno::SlowStart` (one segment
//! per ACK); in fast mode, `TcpScalable`'s (one segment per min(cwnd,
//! `scalable_ai_cnt`) segments acknowledged, its count restarting from 0
//! whenever it adds); in slow mode, `TcpNewReno::CongestionAvoidance` (MSS²
//! / cwnd bytes per ACK). A round ends on the first ACK at or above snd.nxt
//! as it was when the round began; with more than 2 samples, with RTT the
//! round's smallest and cwnd in whole segments:
//! - queue = floor(cwnd / RTT x (RTT - BaseRTT)), in seconds as doubles;
//!   L = (RTT - BaseRTT) / BaseRTT;
//! - slow mode when queue > `alpha` or L > 1 / `phy`, where ns-3 divides
//!   two integers: 1 / 8 is 0, so any RTT above BaseRTT makes the round
//!   slow (Linux compares the queueing delay with BaseRTT / 8). In slow
//!   mode, with queue > alpha and cwnd > reno_count, the window loses
//!   min(queue / `gamma`, cwnd >> `epsilon`), not below reno_count, and
//!   ssthresh follows it; reno_count becomes max(cwnd / 2, 2) if it was at
//!   most 2, or grows by one; the count of slow rounds grows;
//! - fast mode otherwise: past `zeta` fast rounds reno_count returns to 2.
//!
//! A loss (`GetSsThresh`) works on the bytes in flight (RFC 6675's pipe,
//! F segments), not cwnd: if fewer than `rho` rounds in a row were slow,
//! the reduction is the last queue, at least F >> `delta`, at most max(F /
//! 2, 2), otherwise max(F / 2, 2); ssthresh = max(F - reduction, 2
//! segments) in bytes, computed in ns-3's 32 bits (which wrap when the
//! reduction exceeds the flight). Entering Open starts a round. There is no
//! restart after idle.
//!
//! So with the smoothed RTT, whose delayed-ACK samples keep it above its
//! minimum, ns-3's YeAH spends most rounds in slow mode, grows as NewReno
//! and after `rho` slow rounds halves the flight on every loss: close to
//! ns-3's NewReno, where Linux's YeAH keeps Scalable's growth and a loss
//! takes an eighth of the window.

use serde::{Deserialize, Serialize};

use super::scalable::scalable_cong_avoid;
use super::{newreno_cong_avoid, newreno_slow_start, Ns3Version, RttMins};
use crate::cc::{Ack, CaState, CongestionControl, LossCause, Probe, Tcb};
use crate::time::SimDuration;

/// `TcpYeah`'s attributes (ns-3's defaults, the paper's and Linux's
/// constants).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ns3YeahConfig {
    /// "ns3": this form.
    pub version: Ns3Version,
    /// `Alpha`, segments queued above which the round is slow (80).
    pub alpha: u32,
    /// `Gamma`: decongestion removes queue / gamma (1).
    pub gamma: u32,
    /// `Delta`: a loss removes at least flight >> delta (3).
    pub delta: u32,
    /// `Epsilon`: decongestion removes at most cwnd >> epsilon (1).
    pub epsilon: u32,
    /// `Phy`: slow when L > 1 / phy, an integer division (8).
    pub phy: u32,
    /// `Rho`: slow rounds in a row after which a loss halves (16).
    pub rho: u32,
    /// `Zeta`: fast rounds after which reno_count returns to 2 (50).
    pub zeta: u32,
    /// `StcpAiFactor`: Scalable's growth, one segment per min(cwnd, this)
    /// acknowledged (100).
    pub scalable_ai_cnt: u32,
}

impl Default for Ns3YeahConfig {
    fn default() -> Self {
        Ns3YeahConfig {
            version: Ns3Version::Ns3,
            alpha: 80,
            gamma: 1,
            delta: 3,
            epsilon: 1,
            phy: 8,
            rho: 16,
            zeta: 50,
            scalable_ai_cnt: 100,
        }
    }
}

impl Ns3YeahConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        for (name, v) in [
            ("gamma", self.gamma),
            ("phy", self.phy),
            ("scalable_ai_cnt", self.scalable_ai_cnt),
        ] {
            if v == 0 {
                return Err((name, "must be at least 1".into()));
            }
        }
        if self.delta > 31 || self.epsilon > 31 {
            return Err(("delta", "delta and epsilon must be at most 31".into()));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ns3Yeah {
    cfg: Ns3YeahConfig,
    rtt: RttMins,
    beg_snd_nxt: u64,
    last_q: u32,
    doing_reno_now: u32,
    reno_count: u32,
    fast_count: u32,
    /// `TcpScalable`'s m_ackCnt (its own object inside TcpYeah).
    stcp_ack_cnt: u32,
}

impl Ns3Yeah {
    pub fn new(cfg: Ns3YeahConfig) -> Self {
        Ns3Yeah {
            cfg,
            rtt: RttMins::default(),
            beg_snd_nxt: 0,
            last_q: 0,
            doing_reno_now: 0,
            reno_count: 2,
            fast_count: 0,
            stcp_ack_cnt: 0,
        }
    }

    /// The end of a round with enough samples: the queue, the mode, and
    /// the precautionary decongestion.
    fn end_round(&mut self, tcb: &mut Tcb, min_rtt: SimDuration, base_rtt: SimDuration) {
        let c = &self.cfg;
        let mut seg_cwnd = (tcb.cwnd / tcb.mss) as u32;
        let rtt_queue = (min_rtt - base_rtt).as_secs_f64();
        let bw = seg_cwnd as f64 / min_rtt.as_secs_f64();
        let queue = (bw * rtt_queue) as u32;
        let l = rtt_queue / base_rtt.as_secs_f64();
        // ns-3 compares L with `1 / m_phy`, both unsigned: 0 for phy > 1.
        if queue > c.alpha || l > (1 / c.phy) as f64 {
            if queue > c.alpha && seg_cwnd > self.reno_count {
                let reduction = (queue / c.gamma).min(seg_cwnd >> c.epsilon);
                seg_cwnd = (seg_cwnd - reduction).max(self.reno_count);
                tcb.cwnd = seg_cwnd as u64 * tcb.mss;
                tcb.ssthresh = tcb.cwnd;
            }
            if self.reno_count <= 2 {
                self.reno_count = (seg_cwnd >> 1).max(2);
            } else {
                self.reno_count += 1;
            }
            self.doing_reno_now = self.doing_reno_now.wrapping_add(1);
        } else {
            self.fast_count += 1;
            if self.fast_count > c.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.doing_reno_now = 0;
        }
        self.last_q = queue;
    }
}

impl CongestionControl for Ns3Yeah {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Ns3Yeah::new(self.cfg.clone())))
    }

    fn name(&self) -> &'static str {
        "yeah"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, _ack: &Ack) {
        self.rtt.sample(tcb);
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let segments = ack.segments_acked;
        if tcb.cwnd < tcb.ssthresh {
            newreno_slow_start(tcb, segments);
        } else if self.doing_reno_now == 0 {
            scalable_cong_avoid(
                &mut self.stcp_ack_cnt,
                self.cfg.scalable_ai_cnt,
                tcb,
                segments,
            );
        } else {
            newreno_cong_avoid(tcb, segments);
        }
        if tcb.snd_una >= self.beg_snd_nxt {
            if self.rtt.count > 2 {
                if let (Some(m), Some(b)) = (self.rtt.min, self.rtt.base) {
                    self.end_round(tcb, m, b);
                }
            }
            self.beg_snd_nxt = tcb.snd_nxt;
            self.rtt.restart();
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let flight = tcb.pipe;
        let mss = tcb.mss as u32;
        let seg_flight = flight / mss;
        let half = (seg_flight >> 1).max(2);
        let reduction = if self.doing_reno_now < self.cfg.rho {
            self.last_q.max(seg_flight >> self.cfg.delta).min(half)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        // In ns-3's uint32_t: a reduction above the flight wraps.
        flight
            .wrapping_sub(reduction.wrapping_mul(mss))
            .max(2 * mss) as u64
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        if to == CaState::Open {
            self.beg_snd_nxt = tcb.snd_nxt;
            self.rtt.restart();
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "queue",
                "segments",
                "the last round's estimate of the segments queued at the bottleneck",
            ),
            Probe::new(
                "mode",
                "",
                "1 in fast mode (Scalable's growth), 0 in slow mode (NewReno's)",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "queue" => Some(self.last_q as f64),
            "mode" => Some(if self.doing_reno_now == 0 { 1.0 } else { 0.0 }),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "yeah_tests.rs"]
mod tests;
