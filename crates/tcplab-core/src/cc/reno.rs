// SPDX-License-Identifier: MIT OR Apache-2.0
//! Reno window growth (RFC 5681), shared by the tahoe, reno, newreno and sack
//! variants, which differ only in their loss recovery.
//!
//! - Slow start (cwnd < ssthresh): cwnd += min(acked, SMSS) per ACK, or
//!   min(acked, 2 SMSS) with appropriate byte counting (RFC 3465, L = 2).
//! - Congestion avoidance: cwnd += SMSS * SMSS / cwnd per ACK (RFC 5681
//!   equation 3), or one SMSS per cwnd of acknowledged bytes with byte
//!   counting.
//! - ssthresh = max(FlightSize / 2, 2 SMSS) (RFC 5681 equation 4).
//!
//! Note: ns-3's TcpNewReno grows by one segment per ACK in slow start
//! whatever the ACK covers, which is the non-ABC behaviour here.

use super::{cong_avoid_bytes, cong_avoid_per_ack, reno_ssthresh, slow_start};
use super::{Ack, CongestionControl, LossCause, Tcb};

#[derive(Debug, Clone, Default)]
pub struct Reno {
    /// Appropriate byte counting (RFC 3465).
    pub abc: bool,
}

impl CongestionControl for Reno {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "reno"
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let mut acked = ack.bytes_acked;
        if tcb.in_slow_start() {
            acked = slow_start(tcb, acked, self.abc);
            if acked == 0 {
                return;
            }
        }
        if self.abc {
            cong_avoid_bytes(tcb, acked);
        } else {
            cong_avoid_per_ack(tcb);
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        reno_ssthresh(tcb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    #[test]
    fn slow_start_adds_one_mss_per_ack_without_abc() {
        let mut d = CcDriver::new(Reno { abc: false }, MSS, 2);
        d.ack(2, None); // a delayed ACK of two segments still adds one MSS
        assert_eq!(d.tcb.cwnd, 3000);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 4000);
    }

    #[test]
    fn slow_start_with_abc_counts_bytes_up_to_two_mss() {
        let mut d = CcDriver::new(Reno { abc: true }, MSS, 2);
        d.ack(2, None);
        assert_eq!(d.tcb.cwnd, 4000);
        d.ack(3, None); // capped at L = 2 MSS
        assert_eq!(d.tcb.cwnd, 6000);
    }

    #[test]
    fn congestion_avoidance_adds_mss_squared_over_cwnd() {
        let mut d = CcDriver::new(Reno::default(), MSS, 10);
        d.tcb.ssthresh = 10_000;
        d.ack(1, None);
        // 10000 + 1000 * 1000 / 10000 = 10100
        assert_eq!(d.tcb.cwnd, 10_100);
        d.ack(1, None);
        // 10100 + 1e6 / 10100 = 10100 + 99 = 10199
        assert_eq!(d.tcb.cwnd, 10_199);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_spills_into_avoidance() {
        let mut d = CcDriver::new(Reno { abc: true }, MSS, 9);
        d.tcb.ssthresh = 10_000;
        d.ack(2, None); // +1000 to reach 10000, 1000 left for byte counting
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (10_000, 1000));
    }

    #[test]
    fn ssthresh_is_half_the_flight_at_least_two_segments() {
        let mut d = CcDriver::new(Reno::default(), MSS, 10);
        d.loss(LossCause::DupAcks, 12_000);
        assert_eq!(d.tcb.ssthresh, 6000);
        d.loss(LossCause::Timeout, 3000);
        assert_eq!(d.tcb.ssthresh, 2000);
    }

    #[test]
    fn duplicate_acks_leave_the_window_alone() {
        let mut d = CcDriver::new(Reno::default(), MSS, 10);
        d.dupack();
        d.dupack();
        assert_eq!((d.tcb.cwnd, d.tcb.ssthresh), (10_000, u64::MAX));
    }

    #[test]
    fn after_a_timeout_it_slow_starts_from_one_segment_to_half_the_flight() {
        let mut d = CcDriver::new(Reno::default(), MSS, 10);
        d.timeout(10_000);
        assert_eq!((d.tcb.cwnd, d.tcb.ssthresh), (1000, 5000));
        for _ in 0..4 {
            d.ack(1, None);
        }
        assert_eq!(d.tcb.cwnd, 5000);
        d.ack(1, None); // at ssthresh: congestion avoidance, MSS^2 / cwnd
        assert_eq!(d.tcb.cwnd, 5200);
    }
}
