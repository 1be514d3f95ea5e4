// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's `TcpHighSpeed` (`src/internet/model/tcp-highspeed.cc`):
//! HighSpeed TCP (RFC 3649) as ns-3 wrote it, the `version = "ns3"` form
//! of `highspeed`.
//!
//! RFC 3649's appendix B table: a(w) = i + 1 segments for windows up to
//! row i's (38, 118, 221, ..., 89,053, and one row more than Linux's,
//! 94,717: a = 73, which stays beyond), b(w) with its two decimals. Growth:
//! `TcpNewReno`'s slow start (a segment per ACK); then each ACK adds
//! a(cwnd) times the segments it covers to a count, and cwnd (whole
//! segments) grows by one segment per cwnd of that count. Linux adds a(w)
//! per ACK, whatever it covers, so with delayed ACKs ns-3's grows twice as
//! fast, and below 38 segments, where both are Reno, ns-3's counts segments
//! where its own NewReno counts ACKs. A loss: ssthresh = max(2, F (1 -
//! b(F))) segments (whole), with F the pipe in whole segments and b taken
//! at F; Linux takes cwnd and the row last found. The count survives losses.

use serde::{Deserialize, Serialize};

use super::{add_per_window, newreno_increase, Ns3Version};
use crate::cc::highspeed::TABLE;
use crate::cc::{Ack, CongestionControl, LossCause, Tcb};

/// b(w) of each row of [`TABLE`], then of ns-3's extra row (94,717), in
/// hundredths (RFC 3649 appendix B's two decimals).
#[rustfmt::skip]
const B_HUNDREDTHS: [u32; 73] = [
    50, 44, 41, 38, 37, 35, 34, 33, 32, 31, 30, 29, 28, 28, 27, 27, 26, 26, 25,
    25, 24, 24, 23, 23, 22, 22, 22, 21, 21, 21, 20, 20, 20, 19, 19, 19, 19, 18,
    18, 18, 17, 17, 17, 17, 16, 16, 16, 16, 15, 15, 15, 15, 14, 14, 14, 14, 13,
    13, 13, 13, 13, 12, 12, 12, 12, 11, 11, 11, 10, 10, 10, 10, 9,
];

/// ns-3's extra row's largest window.
const LAST_ROW: u32 = 94_717;

/// The table's row for a window of `w` segments (73 rows; beyond the last,
/// the last).
fn row(w: u32) -> usize {
    TABLE
        .iter()
        .map(|r| r.0)
        .chain([LAST_ROW])
        .position(|top| w <= top)
        .unwrap_or(B_HUNDREDTHS.len() - 1)
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ns3HighSpeedConfig {
    /// "ns3": this form (TcpHighSpeed has no attributes).
    pub version: Ns3Version,
}

impl Ns3HighSpeedConfig {
    /// Every value is allowed.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ns3HighSpeed {
    cfg: Ns3HighSpeedConfig,
    ack_cnt: u32,
}

impl Ns3HighSpeed {
    pub fn new(cfg: Ns3HighSpeedConfig) -> Self {
        Ns3HighSpeed { cfg, ack_cnt: 0 }
    }
}

impl CongestionControl for Ns3HighSpeed {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Ns3HighSpeed::new(self.cfg.clone())))
    }

    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        newreno_increase(tcb, ack.segments_acked, |tcb, segments| {
            if segments > 0 {
                let a = row((tcb.cwnd / tcb.mss) as u32) as u32 + 1;
                self.ack_cnt = self.ack_cnt.wrapping_add(segments.wrapping_mul(a));
            }
            add_per_window(tcb, &mut self.ack_cnt);
        });
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let f = tcb.pipe / tcb.mss as u32;
        let b = 1.0 - B_HUNDREDTHS[row(f)] as f64 / 100.0;
        (f as f64 * b).max(2.0) as u64 * tcb.mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    #[test]
    fn the_table_has_ns3s_extra_row_and_two_decimal_decreases() {
        assert_eq!(
            (row(38), row(39), row(89_053), row(94_717), row(200_000)),
            (0, 1, 71, 72, 72)
        );
        assert_eq!(B_HUNDREDTHS[row(118)], 44);
        assert_eq!(B_HUNDREDTHS[row(94_718)], 9);
    }

    #[test]
    fn each_ack_counts_a_times_its_segments_and_a_loss_takes_b_of_the_pipe() {
        let mut d = CcDriver::new(Ns3HighSpeed::new(Ns3HighSpeedConfig::default()), MSS, 10);
        d.tcb.ssthresh = 10 * MSS;
        // a(10) = 1: five ACKs of two segments make one segment.
        for _ in 0..4 {
            d.ack(2, None);
        }
        assert_eq!(d.tcb.cwnd, 10 * MSS);
        d.ack(2, None);
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        // At 100 segments a = 2: 50 segments acknowledged make one.
        d.tcb.cwnd = 100 * MSS;
        d.cc.ack_cnt = 0;
        for _ in 0..24 {
            d.ack(2, None);
        }
        assert_eq!(d.tcb.cwnd, 100 * MSS);
        d.ack(2, None);
        assert_eq!(d.tcb.cwnd, 101 * MSS);
        // A pipe of 100 segments: b(100) = 0.44, 56 left; of 21: 10.
        d.loss(LossCause::DupAcks, 100 * MSS);
        assert_eq!(d.tcb.ssthresh, 56 * MSS);
        d.loss(LossCause::DupAcks, 21 * MSS + 500);
        assert_eq!(d.tcb.ssthresh, 10 * MSS);
    }
}
