// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's `TcpScalable` (`src/internet/model/tcp-scalable.cc`):
//! Scalable TCP (Kelly 2003) as ns-3 wrote it, the `version = "ns3"` form
//! of `scalable`.
//!
//! Growth: `TcpNewReno`'s slow start (a segment per ACK); then, with w =
//! min(cwnd, `ai_factor`) in whole segments, a count of the segments
//! acknowledged: a count already at w adds a segment and restarts at 0
//! before the ACK's segments are added, and a count that reaches w adds
//! count / w segments and restarts at 0 (Linux keeps the remainder). A
//! loss: ssthresh = max(2, F (1 - `md_factor`)) whole segments, F the pipe
//! in whole segments (Linux: cwnd - cwnd / 8).

use serde::{Deserialize, Serialize};

use super::{newreno_increase, Ns3Version};
use crate::cc::{Ack, CongestionControl, LossCause, Tcb};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ns3ScalableConfig {
    /// "ns3": this form.
    pub version: Ns3Version,
    /// `AIFactor`: one segment per min(cwnd, this) acknowledged (50).
    pub ai_factor: u32,
    /// `MDFactor`: a loss keeps 1 - this of the pipe (0.125).
    pub md_factor: f64,
}

impl Default for Ns3ScalableConfig {
    fn default() -> Self {
        Ns3ScalableConfig {
            version: Ns3Version::Ns3,
            ai_factor: 50,
            md_factor: 0.125,
        }
    }
}

impl Ns3ScalableConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.ai_factor == 0 {
            return Err(("ai_factor", "must be at least 1".into()));
        }
        if !(0.0..1.0).contains(&self.md_factor) {
            return Err(("md_factor", format!("{} is not in [0, 1)", self.md_factor)));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ns3Scalable {
    cfg: Ns3ScalableConfig,
    ack_cnt: u32,
}

impl Ns3Scalable {
    pub fn new(cfg: Ns3ScalableConfig) -> Self {
        Ns3Scalable { cfg, ack_cnt: 0 }
    }
}

/// `TcpScalable::CongestionAvoidance` with AIFactor `ai` and its count
/// `ack_cnt` (TcpYeah's fast mode runs it too).
pub fn scalable_cong_avoid(ack_cnt: &mut u32, ai: u32, tcb: &mut Tcb, segments: u32) {
    let old = (tcb.cwnd / tcb.mss) as u32;
    let mut w_seg = old;
    let w = w_seg.min(ai).max(1);
    if *ack_cnt >= w {
        *ack_cnt = 0;
        w_seg += 1;
    }
    *ack_cnt = ack_cnt.wrapping_add(segments);
    if *ack_cnt >= w {
        w_seg += *ack_cnt / w;
        *ack_cnt = 0;
    }
    if w_seg != old {
        tcb.cwnd = w_seg as u64 * tcb.mss;
    }
}

impl CongestionControl for Ns3Scalable {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Ns3Scalable::new(self.cfg.clone())))
    }

    fn name(&self) -> &'static str {
        "scalable"
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let ai = self.cfg.ai_factor;
        newreno_increase(tcb, ack.segments_acked, |tcb, segments| {
            scalable_cong_avoid(&mut self.ack_cnt, ai, tcb, segments)
        });
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let f = (tcb.pipe / tcb.mss as u32) as f64;
        (f * (1.0 - self.cfg.md_factor)).max(2.0) as u64 * tcb.mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    #[test]
    fn a_segment_per_window_of_segments_and_the_remainder_dropped() {
        let mut d = CcDriver::new(Ns3Scalable::new(Ns3ScalableConfig::default()), MSS, 10);
        d.tcb.ssthresh = 10 * MSS;
        // w = 10: ACKs of 4 segments: 4, 8, then 12 >= 10 adds 12 / 10 = 1
        // and drops the 2 over.
        d.ack(4, None);
        d.ack(4, None);
        assert_eq!(d.tcb.cwnd, 10 * MSS);
        d.ack(4, None);
        assert_eq!((d.tcb.cwnd, d.cc.ack_cnt), (11 * MSS, 0));
        // Above AIFactor the step is 50 segments.
        d.tcb.cwnd = 80 * MSS;
        d.ack(49, None);
        assert_eq!(d.tcb.cwnd, 80 * MSS);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 81 * MSS);
        // A loss keeps 7/8 of the pipe, whole segments.
        d.loss(LossCause::DupAcks, 20 * MSS);
        assert_eq!(d.tcb.ssthresh, 17 * MSS);
    }
}
