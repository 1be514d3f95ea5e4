// SPDX-License-Identifier: MIT OR Apache-2.0
//! Reno window growth (RFC 5681), shared by the tahoe, reno, newreno and sack
//! variants, which differ only in their loss recovery.
//!
//! - Slow start (cwnd < ssthresh): cwnd += min(acked, SMSS) per ACK, or
//!   min(acked, 2 SMSS) with appropriate byte counting (RFC 3465, L = 2).
//! - Congestion avoidance: cwnd += SMSS * SMSS / cwnd per ACK (RFC 5681
//!   equation 3), or one SMSS per cwnd of acknowledged bytes with byte
//!   counting.
//! - ssthresh = max(FlightSize / 2, 2 SMSS) (RFC 5681 equation 4), or with
//!   `halve = "pipe"` max(pipe / 2, 2 SMSS), pipe as RFC 6675 counts it when
//!   the window is cut: ns-3 3.44's `TcpNewReno::GetSsThresh`, which its
//!   sender hands the pipe as `bytesInFlight` (the ns3 profile's default);
//!   or with `halve = "cwnd"` max(cwnd / 2, 2) whole segments, Linux's
//!   `tcp_reno_ssthresh` (the linux profile's default).
//!
//! Note: ns-3's TcpNewReno grows by one segment per ACK in slow start
//! whatever the ACK covers, which is the non-ABC behaviour here.

use serde::{Deserialize, Serialize};

use super::{cong_avoid_bytes, cong_avoid_per_ack, reno_ssthresh, slow_start};
use super::{Ack, CongestionControl, LossCause, Tcb};

/// What a reduction halves.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Halve {
    /// FlightSize, less what limited transmit sent (RFC 5681 equation 4
    /// and 3.2 step 2).
    #[default]
    Flightsize,
    /// RFC 6675's pipe at the reduction ([`Tcb::pipe`]: not SACKed, not
    /// deemed lost, the first unacknowledged segment counted lost at a fast
    /// retransmit), as ns-3 3.44's TcpNewReno.
    Pipe,
    /// cwnd, in whole segments: Linux's `tcp_reno_ssthresh`, max(cwnd / 2,
    /// 2) segments (the linux profile's default).
    Cwnd,
}

crate::deserialize_names!(Halve {
    "flightsize" => Halve::Flightsize,
    "pipe" => Halve::Pipe,
    "cwnd" => Halve::Cwnd,
});

/// The parameters of the Reno-growth variants (tahoe, reno, newreno, sack).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RenoConfig {
    /// What ssthresh is half of at a reduction.
    pub halve: Halve,
}

impl RenoConfig {
    /// RFC 5681's threshold: half the FlightSize.
    pub fn rfc() -> Self {
        RenoConfig::default()
    }
    /// ns-3 3.44's TcpNewReno: half the pipe.
    pub fn ns3() -> Self {
        RenoConfig { halve: Halve::Pipe }
    }
    /// Linux's `tcp_reno_ssthresh`: half of cwnd.
    pub fn linux() -> Self {
        RenoConfig { halve: Halve::Cwnd }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Reno {
    /// Appropriate byte counting (RFC 3465).
    pub abc: bool,
    /// What ssthresh halves.
    pub halve: Halve,
}

impl Reno {
    /// RFC 5681's growth (with or without byte counting) and threshold.
    pub fn new(abc: bool) -> Self {
        Reno {
            abc,
            halve: Halve::Flightsize,
        }
    }
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
        match self.halve {
            Halve::Flightsize => reno_ssthresh(tcb),
            Halve::Pipe => super::ns3::newreno_ssthresh(tcb),
            Halve::Cwnd => super::linux_reno_ssthresh(tcb),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    #[test]
    fn slow_start_adds_one_mss_per_ack_without_abc() {
        let mut d = CcDriver::new(Reno::new(false), MSS, 2);
        d.ack(2, None); // a delayed ACK of two segments still adds one MSS
        assert_eq!(d.tcb.cwnd, 3000);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 4000);
    }

    #[test]
    fn slow_start_with_abc_counts_bytes_up_to_two_mss() {
        let mut d = CcDriver::new(Reno::new(true), MSS, 2);
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
        let mut d = CcDriver::new(Reno::new(true), MSS, 9);
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
    fn halving_the_pipe_leaves_out_what_is_sacked_or_lost_and_keeps_limited_transmit() {
        // 12 segments outstanding, 2 of them sent by limited transmit; at
        // the third duplicate ACK 3 are SACKed and the first is deemed
        // lost: the pipe is 8 segments.
        let mut tcb = Tcb::new(10 * MSS, u64::MAX, MSS);
        tcb.snd_max = 12 * MSS;
        tcb.limited_sent = 2 * MSS;
        tcb.pipe = 8 * MSS as u32;
        let mut flight = Reno::new(false);
        let mut pipe = Reno {
            halve: Halve::Pipe,
            ..Reno::new(false)
        };
        assert_eq!(flight.ssthresh(&tcb, LossCause::DupAcks), 5 * MSS);
        assert_eq!(pipe.ssthresh(&tcb, LossCause::DupAcks), 4 * MSS);
        // At least two segments either way.
        tcb.pipe = 3 * MSS as u32;
        assert_eq!(pipe.ssthresh(&tcb, LossCause::Ecn), 2 * MSS);
        tcb.pipe = 5 * MSS as u32;
        assert_eq!(pipe.ssthresh(&tcb, LossCause::Timeout), 2500);
    }

    #[test]
    fn linux_halves_cwnd_in_whole_segments_whatever_is_in_flight() {
        // Linux's tcp_reno_ssthresh: max(cwnd / 2, 2) segments, cwnd in
        // whole segments. cwnd 11.5 segments with 6 in flight (the sender
        // was not using its window): 5 segments, where RFC 5681 gives 3.
        let mut tcb = Tcb::new(11_500, u64::MAX, MSS);
        tcb.snd_max = 6 * MSS;
        let mut linux = Reno {
            halve: Halve::Cwnd,
            ..Reno::new(false)
        };
        assert_eq!(linux.ssthresh(&tcb, LossCause::DupAcks), 5 * MSS);
        assert_eq!(Reno::new(false).ssthresh(&tcb, LossCause::DupAcks), 3 * MSS);
        // At least two segments.
        tcb.cwnd = 3 * MSS;
        assert_eq!(linux.ssthresh(&tcb, LossCause::Timeout), 2 * MSS);
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
