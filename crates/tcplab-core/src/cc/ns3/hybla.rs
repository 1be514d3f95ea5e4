// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's `TcpHybla` (`src/internet/model/tcp-hybla.cc`): TCP Hybla
//! (Caini and Firrincieli, IJSCN 2004) as ns-3 wrote it, the `version =
//! "ns3"` form of `hybla`.
//!
//! rho = max(RTTmin / `rtt0`, 1), with RTTmin ns-3's `m_minRtt` (the
//! smallest smoothed RTT, taken from the handshake on) and both in whole
//! milliseconds, starts at 1 and is computed again only on an ACK whose
//! smoothed RTT equals RTTmin (`PktsAcked` is handed the smoothed RTT and
//! compares it with the minimum). The handshake's smaller segments give the
//! smallest sample, so on a path whose data RTT stays above it rho stays 1
//! for the whole run: Hybla's scaling never starts.
//!
//! Growth (`TcpNewReno::IncreaseWindow` calling Hybla's own steps): in slow
//! start, (2^rho - 1) segments per ACK that acknowledges any (in whole
//! bytes), capped at ssthresh; the segments left over go to congestion
//! avoidance, where each acknowledged segment adds rho^2 / cwnd (cwnd in
//! whole segments) to a real-valued count whose whole part is added to
//! cwnd. A loss: `TcpNewReno`'s max(2 MSS, bytes in flight / 2). `rtt0` is
//! ns-3's `RRTT` attribute, 50 ms (the paper's and Linux's: 25 ms).

use serde::{Deserialize, Serialize};

use super::{newreno_ssthresh, srtt, whole_ms, Ns3Version};
use crate::cc::{Ack, CongestionControl, LossCause, Probe, Tcb};
use crate::time::SimDuration;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ns3HyblaConfig {
    /// "ns3": this form.
    pub version: Ns3Version,
    /// `RRTT`: the reference RTT (50 ms).
    pub rtt0: SimDuration,
}

impl Default for Ns3HyblaConfig {
    fn default() -> Self {
        Ns3HyblaConfig {
            version: Ns3Version::Ns3,
            rtt0: SimDuration::from_millis(50),
        }
    }
}

impl Ns3HyblaConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.rtt0.as_nanos() < 1_000_000 {
            return Err(("rtt0", format!("{} is below 1 ms", self.rtt0)));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ns3Hybla {
    cfg: Ns3HyblaConfig,
    rho: f64,
    cwnd_cnt: f64,
    /// ns-3's m_minRtt: the smallest smoothed RTT.
    min_srtt: Option<SimDuration>,
}

impl Ns3Hybla {
    pub fn new(cfg: Ns3HyblaConfig) -> Self {
        Ns3Hybla {
            cfg,
            rho: 1.0,
            cwnd_cnt: 0.0,
            min_srtt: None,
        }
    }

    /// `TcpHybla::SlowStart`.
    fn slow_start(&mut self, tcb: &mut Tcb, segments: u32) -> u32 {
        if segments == 0 {
            return 0;
        }
        let incr = ((2f64.powf(self.rho) - 1.0) * tcb.mss as f64) as u64;
        tcb.cwnd = (tcb.cwnd + incr).min(tcb.ssthresh);
        segments - 1
    }

    /// `TcpHybla::CongestionAvoidance`.
    fn cong_avoid(&mut self, tcb: &mut Tcb, segments: u32) {
        let w = (tcb.cwnd / tcb.mss) as f64;
        for _ in 0..segments {
            self.cwnd_cnt += self.rho * self.rho / w;
        }
        if self.cwnd_cnt >= 1.0 {
            let inc = self.cwnd_cnt as u64;
            self.cwnd_cnt -= inc as f64;
            tcb.cwnd += inc * tcb.mss;
        }
    }
}

impl CongestionControl for Ns3Hybla {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Ns3Hybla::new(self.cfg.clone())))
    }

    fn name(&self) -> &'static str {
        "hybla"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        // The handshake's sample is ns-3's first m_minRtt.
        self.min_srtt = srtt(tcb);
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, _ack: &Ack) {
        let Some(r) = srtt(tcb) else { return };
        let min = self.min_srtt.map_or(r, |m| m.min(r));
        self.min_srtt = Some(min);
        if r == min {
            self.rho = (whole_ms(min) / whole_ms(self.cfg.rtt0)).max(1.0);
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let mut segments = ack.segments_acked;
        if tcb.cwnd < tcb.ssthresh {
            segments = self.slow_start(tcb, segments);
        }
        if tcb.cwnd >= tcb.ssthresh {
            self.cong_avoid(tcb, segments);
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        newreno_ssthresh(tcb)
    }

    fn probes(&self) -> Vec<Probe> {
        vec![Probe::new("rho", "", "rho: RTTmin / rtt0, at least 1")]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        (name == "rho").then_some(self.rho)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::{ms, CcDriver};

    const MSS: u64 = 1000;

    fn driver(handshake_ms: u64) -> CcDriver<Ns3Hybla> {
        let mut d = CcDriver::new(Ns3Hybla::new(Ns3HyblaConfig::default()), MSS, 10);
        d.tcb.srtt = Some(ms(handshake_ms));
        d.cc.init(&mut d.tcb);
        d
    }

    #[test]
    fn rho_stays_one_until_an_srtt_equals_the_smallest_from_the_handshake_on() {
        let mut d = driver(100);
        d.tcb.srtt = Some(ms(101));
        d.ack(1, None);
        assert_eq!(d.cc.rho, 1.0);
        // Slow start: 2^1 - 1 = one segment per ACK, whatever it covers.
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        d.ack(2, None);
        assert_eq!(d.tcb.cwnd, 12 * MSS);
        // A new smallest SRTT: rho = 99 / 50, real-valued.
        d.tcb.srtt = Some(ms(99));
        d.ack(1, None);
        assert_eq!(d.cc.rho, 1.98);
        // 2^1.98 - 1 = 2.9449 segments: 2944 bytes.
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 12 * MSS + 2944 + 2944);
    }

    #[test]
    fn slow_start_is_capped_at_ssthresh_and_avoidance_counts_rho_squared_per_segment() {
        let mut d = driver(150);
        d.tcb.ssthresh = 20 * MSS;
        d.ack(1, None);
        assert_eq!(d.cc.rho, 3.0);
        assert_eq!(d.tcb.cwnd, 17 * MSS);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 20 * MSS);
        // 2 segments x 9 / 20 = 0.9: nothing yet; one more makes 1.35.
        d.ack(2, None);
        assert_eq!(d.tcb.cwnd, 20 * MSS);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 21 * MSS);
        assert!((d.cc.cwnd_cnt - 0.35).abs() < 1e-9);
        // A loss halves the pipe.
        d.loss(LossCause::DupAcks, 7 * MSS);
        assert_eq!(d.tcb.ssthresh, 3500);
    }
}
