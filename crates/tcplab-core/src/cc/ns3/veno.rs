// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's `TcpVeno` (`src/internet/model/tcp-veno.cc`): TCP Veno (Fu
//! and Liew 2003) as ns-3 wrote it after Linux's `tcp_veno.c`, the
//! `version = "ns3"` form of `veno`.
//!
//! Per ACK (`PktsAcked`) the smoothed RTT lowers BaseRTT and the current
//! minimum and counts a sample. On each ACK of new data (`IncreaseWindow`),
//! with w the window in whole segments, diff = w - floor(w BaseRTT / RTT)
//! with RTT that minimum; then the growth, and the minimum and the count
//! start again. ns-3 starts them again on every ACK where Linux does once
//! per RTT, so the count never exceeds 2 and the growth is always
//! `TcpNewReno`'s (a segment per ACK in slow start, MSS^2 / cwnd bytes per
//! ACK after): Veno's slower growth when diff >= `beta` never runs, and
//! diff compares the latest smoothed RTT with the smallest. A loss keeps
//! 4/5 of the pipe when diff < beta (3), half of it otherwise, at least 2
//! MSS. Entering Open clears the minimum (so the first ACK after a recovery
//! sees no RTT: diff = w), and any other state stops Veno's branch.

use serde::{Deserialize, Serialize};

use super::{newreno_cong_avoid, newreno_increase, newreno_slow_start, newreno_ssthresh};
use super::{Ns3Version, RttMins};
use crate::cc::{Ack, CaState, CongestionControl, LossCause, Probe, Tcb};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ns3VenoConfig {
    /// "ns3": this form.
    pub version: Ns3Version,
    /// `Beta`: the backlog, segments, below which a loss is taken as
    /// random (3).
    pub beta: u32,
}

impl Default for Ns3VenoConfig {
    fn default() -> Self {
        Ns3VenoConfig {
            version: Ns3Version::Ns3,
            beta: 3,
        }
    }
}

impl Ns3VenoConfig {
    /// Every value is allowed.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ns3Veno {
    cfg: Ns3VenoConfig,
    rtt: RttMins,
    doing_veno_now: bool,
    diff: u32,
    inc: bool,
}

impl Ns3Veno {
    pub fn new(cfg: Ns3VenoConfig) -> Self {
        Ns3Veno {
            cfg,
            rtt: RttMins::default(),
            doing_veno_now: true,
            diff: 0,
            inc: true,
        }
    }
}

impl CongestionControl for Ns3Veno {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Ns3Veno::new(self.cfg.clone())))
    }

    fn name(&self) -> &'static str {
        "veno"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, _ack: &Ack) {
        self.rtt.sample(tcb);
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let segments = ack.segments_acked;
        let w = (tcb.cwnd / tcb.mss) as u32;
        self.diff = w.saturating_sub(self.rtt.target(w));
        if !self.doing_veno_now {
            newreno_increase(tcb, segments, newreno_cong_avoid);
            return;
        }
        if self.rtt.count <= 2 {
            newreno_increase(tcb, segments, newreno_cong_avoid);
        } else if tcb.cwnd < tcb.ssthresh {
            newreno_slow_start(tcb, segments);
        } else if self.diff < self.cfg.beta {
            newreno_cong_avoid(tcb, segments);
        } else if self.inc {
            newreno_cong_avoid(tcb, segments);
            self.inc = false;
        } else {
            self.inc = true;
        }
        self.rtt.restart();
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        if self.diff < self.cfg.beta {
            ((tcb.pipe as f64 * (4.0 / 5.0)) as u64).max(2 * tcb.mss)
        } else {
            newreno_ssthresh(tcb)
        }
    }

    fn on_state(&mut self, _tcb: &mut Tcb, to: CaState) {
        self.doing_veno_now = to == CaState::Open;
        if to == CaState::Open {
            self.rtt.min = None;
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![Probe::new(
            "diff",
            "segments",
            "diff: w - floor(w BaseRTT / RTT), the backlog estimate",
        )]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        (name == "diff").then_some(self.diff as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::{ms, CcDriver};

    const MSS: u64 = 1000;

    #[test]
    fn every_ack_restarts_the_count_so_growth_stays_newreno_s() {
        let mut d = CcDriver::new(Ns3Veno::new(Ns3VenoConfig::default()), MSS, 20);
        d.tcb.ssthresh = 10 * MSS;
        d.tcb.srtt = Some(ms(100));
        d.ack(2, None);
        d.tcb.srtt = Some(ms(150));
        // diff = 20 - floor(20 x 100 / 150) = 7 >= 3, yet each ACK grows
        // by MSS^2 / cwnd: the count is 1 at every ACK.
        for _ in 0..4 {
            let w = d.tcb.cwnd;
            d.ack(2, None);
            assert_eq!(d.tcb.cwnd, w + MSS * MSS / w);
        }
        assert_eq!(d.cc.diff, 7);
        // diff >= beta: a loss halves the pipe.
        d.loss(LossCause::DupAcks, 20 * MSS);
        assert_eq!(d.tcb.ssthresh, 10 * MSS);
    }

    #[test]
    fn a_small_backlog_keeps_four_fifths_of_the_pipe() {
        let mut d = CcDriver::new(Ns3Veno::new(Ns3VenoConfig::default()), MSS, 20);
        d.tcb.ssthresh = 10 * MSS;
        d.tcb.srtt = Some(ms(100));
        d.ack(2, None);
        // 20 - floor(20 x 100 / 105) = 20 - 19 = 1 < 3.
        d.tcb.srtt = Some(ms(105));
        d.ack(2, None);
        assert_eq!(d.cc.diff, 1);
        d.loss(LossCause::DupAcks, 20 * MSS + 1);
        assert_eq!(d.tcb.ssthresh, 16_000);
        // Back in Open, the minimum is cleared: the next ACK sees diff = w
        // unless it brings a sample.
        d.cc.on_state(&mut d.tcb, CaState::Open);
        d.tcb.srtt = None;
        let w = (d.tcb.cwnd / MSS) as u32;
        d.ack(1, None);
        assert_eq!(d.cc.diff, w);
    }
}
