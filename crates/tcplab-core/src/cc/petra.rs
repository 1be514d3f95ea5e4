// SPDX-License-Identifier: MIT OR Apache-2.0
//! Petra: TCP Westwood with an enhanced slow start.
//!
//! Al-Hasanat, Seman, Saadan, "Enhanced TCP Westwood slow start phase",
//! Transactions on Networks and Communications 2(5), 2014.
//!
//! - Every ACK, an estimate of the link capacity: ELC = bytes acknowledged /
//!   (t_k - t_k-1), smoothed as ELC = 0.1 ELC_new + 0.9 ELC_prev (`alpha` =
//!   0.9 weighs the previous value).
//! - When the second RTT round ends, the initial ssthresh is set to
//!   ELC * RTT (the paper's ELC * RTT / segment size, in segments), with RTT
//!   the smoothed RTT, unless a loss set ssthresh first.
//! - "Faster start": in slow start, if the last RTT sample <= the smoothed
//!   RTT and cwnd < ssthresh / 2, cwnd grows by ssthresh div cwnd segments
//!   per ACK; otherwise by one segment.
//! - Westwood (the paper's per-ACK estimator and filter) otherwise.
//!
//! The paper does not say which RTT "the estimated RTT" is; tcplab uses the
//! RFC 6298 smoothed RTT, and the latest sample as "the last RTT".

use serde::{Deserialize, Serialize};

use super::westwood::{Estimator, WestwoodConfig};
use super::{cong_avoid_per_ack, reno_ssthresh, Ack, CongestionControl, LossCause, Probe, Tcb};
use crate::time::SimTime;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PetraConfig {
    /// Weight of the previous ELC in the smoothing (0.9 in the paper).
    pub alpha: f64,
    /// The Westwood estimator used after slow start.
    pub westwood: WestwoodConfig,
}

impl PetraConfig {
    pub fn paper() -> Self {
        PetraConfig {
            alpha: 0.9,
            westwood: WestwoodConfig::paper(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Petra {
    cfg: PetraConfig,
    pub est: Estimator,
    /// Smoothed estimated link capacity, bytes per second.
    pub elc: f64,
    last_ack: Option<SimTime>,
    /// RTT rounds completed, and where the current one ends (snd_nxt).
    rounds: u32,
    round_end: u64,
    ssthresh_set: bool,
}

impl Petra {
    pub fn new(cfg: PetraConfig) -> Self {
        Petra {
            est: Estimator::new(cfg.westwood.clone()),
            cfg,
            elc: 0.0,
            last_ack: None,
            rounds: 0,
            round_end: 0,
            ssthresh_set: false,
        }
    }
}

impl CongestionControl for Petra {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "petra"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        self.est.on_ack(ack, tcb);
        if !ack.is_dup && ack.bytes_acked > 0 {
            if let Some(last) = self.last_ack {
                let dt = ack.now - last;
                if !dt.is_zero() {
                    let sample = ack.bytes_acked as f64 / dt.as_secs_f64();
                    self.elc = if self.elc == 0.0 {
                        sample
                    } else {
                        (1.0 - self.cfg.alpha) * sample + self.cfg.alpha * self.elc
                    };
                }
            }
            self.last_ack = Some(ack.now);
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, _ack: &Ack) {
        // Count RTT rounds: a round ends when the data outstanding at its
        // start is acknowledged.
        if tcb.snd_una >= self.round_end {
            if self.round_end > 0 {
                self.rounds += 1;
            }
            self.round_end = tcb.snd_nxt;
            if self.rounds == 2 && !self.ssthresh_set {
                self.ssthresh_set = true;
                if let (Some(srtt), true) = (tcb.srtt, self.elc > 0.0) {
                    if tcb.ssthresh == u64::MAX {
                        tcb.ssthresh = ((self.elc * srtt.as_secs_f64()) as u64).max(2 * tcb.mss);
                    }
                }
            }
        }
        if tcb.in_slow_start() {
            let mss = tcb.mss;
            let faster = match (tcb.latest_rtt, tcb.srtt) {
                (Some(last), Some(srtt)) => {
                    last <= srtt && tcb.ssthresh != u64::MAX && tcb.cwnd < tcb.ssthresh / 2
                }
                _ => false,
            };
            let inc_segments = if faster {
                (tcb.ssthresh / mss) / (tcb.cwnd / mss).max(1)
            } else {
                1
            };
            tcb.cwnd = (tcb.cwnd + inc_segments.max(1) * mss).min(tcb.ssthresh.max(tcb.cwnd + mss));
        } else {
            cong_avoid_per_ack(tcb);
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        self.ssthresh_set = true;
        self.est.ssthresh(tcb).unwrap_or_else(|| reno_ssthresh(tcb))
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new("bwe", "bit/s", "the filtered bandwidth estimate (BWE)"),
            Probe::new(
                "elc",
                "bit/s",
                "the smoothed estimate of link capacity (ELC)",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "bwe" => Some(self.est.bwe * 8.0),
            "elc" => Some(self.elc * 8.0),
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

    #[test]
    fn elc_is_smoothed_with_weight_point_nine() {
        let mut d = CcDriver::new(Petra::new(PetraConfig::paper()), MSS, 2);
        // ACKs of 2000 B every 10 ms: 200 kB/s; the first sample initializes.
        for k in 0..3 {
            d.tcb.now = SimTime::ZERO + SimDuration::from_millis(10 * k);
            d.ack(2, None);
        }
        assert!((d.cc.elc - 200_000.0).abs() < 1e-6);
        d.tcb.now = SimTime::ZERO + SimDuration::from_millis(30);
        d.ack(1, None); // 1000 B in 10 ms = 100 kB/s: 0.1 * 100000 + 0.9 * 200000 = 190000
        assert!((d.cc.elc - 190_000.0).abs() < 1e-6, "{}", d.cc.elc);
    }

    #[test]
    fn faster_start_adds_ssthresh_div_cwnd_segments() {
        let mut d = CcDriver::new(Petra::new(PetraConfig::paper()), MSS, 4);
        d.tcb.ssthresh = 40_000; // 40 segments; cwnd 4 < 20
        d.tcb.srtt = Some(SimDuration::from_millis(100));
        d.tcb.latest_rtt = Some(SimDuration::from_millis(90));
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 14_000); // + 40 div 4 = 10 segments
        d.ack(1, None); // cwnd 14 < 20: + 40 div 14 = 2
        assert_eq!(d.tcb.cwnd, 16_000);
        d.tcb.latest_rtt = Some(SimDuration::from_millis(120)); // last RTT > estimate: +1
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 17_000);
    }
}
