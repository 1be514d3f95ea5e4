// SPDX-License-Identifier: MIT OR Apache-2.0
//! Which retransmission timeouts set ssthresh, and from what flight
//! (`timeout_ssthresh`).
//!
//! - `"rfc5681"` (every profile's but ns3): RFC 5681 (4) and (5). The
//!   first timeout of a series sets ssthresh (the timer has not backed
//!   off since the last RTT sample), and so does one outside the Loss
//!   state; a repeated timeout keeps it. The controller reads the RFC 6675
//!   pipe without the retransmissions (HighRxt at SND.UNA), as at the start
//!   of a recovery.
//! - `"ns3"` (the ns3 profile's): ns-3 3.44's `TcpSocketBase::ReTxTimeout`.
//!   It reads `BytesInFlight()` first, then marks the sent list lost
//!   (`SetSentListLost`, which clears every retransmitted mark), and only
//!   then asks whether the first segment was retransmitted
//!   (`IsHeadRetransmitted`) to keep ssthresh on a repeated timeout: the
//!   answer is always no, so every timeout sets ssthresh. ns-3's
//!   `TcpTxBuffer::BytesInFlight` is sent - (SACKed + lost) +
//!   retransmitted, and a retransmitted segment keeps its mark until it
//!   is cumulatively acknowledged, SACKed or not. So the flight counts
//!   every byte resent since the last timeout and still above SND.UNA,
//!   plus what is neither SACKed nor lost: after a timeout every unSACKed
//!   byte below its recovery point is lost, so only what was sent beyond
//!   it; before one, what IsLost leaves.
//!
//! - `"ns3_18"` (the ns3 profile's with `ns3_release = "3.18"`): ns-3.18's
//!   `TcpNewReno::Retransmit` and `TcpWestwood::Retransmit` set ssthresh
//!   at every timeout too, with no test for a repeated one, from what the
//!   controller reads: TcpNewReno's `BytesInFlight` was all that is
//!   outstanding (`m_highTxMark` less the first unacknowledged byte, the
//!   FlightSize the 3.18 profile's threshold halves), Westwood's its
//!   bandwidth estimate.
//!
//! The RFC and 3.44 forms differ most in a Loss state that lasts: ns-3
//! halves there the window it has rebuilt since the last timeout, where
//! RFC 5681 keeps the threshold of the first. Under ns-3's YeAH, whose threshold wraps to
//! about 4 GB when its reduction exceeds a small flight (docs/variants.md),
//! the RFC form kept the wrapped value through every timeout of a series:
//! slow start without bound in the Loss state, and 1.4 times ns-3's goodput
//! at 1% loss (1.03 with this form).

use super::conn::Conn;
use crate::cc::CaState;
use crate::tcp::TimeoutSsthresh;

impl Conn {
    /// Records in `tcb.pipe` the flight a retransmission timeout halves,
    /// as `timeout_ssthresh` counts it, and starts ns-3's count of
    /// retransmissions again.
    pub(super) fn timeout_flight(&mut self) {
        if self.resent.is_none() {
            return self.set_pipe(false);
        }
        let flight = self.ns3_flight();
        self.tcb.pipe = flight.min(u32::MAX as u64) as u32;
        if let Some(r) = &mut self.resent {
            r.clear();
        }
    }

    /// Whether this timeout sets ssthresh: always in ns-3's forms; in RFC
    /// 5681's, unless it repeats one (`first`: the timer had not backed
    /// off) in the Loss state.
    pub(super) fn timeout_sets_ssthresh(&self, first: bool) -> bool {
        self.cfg.timeout_ssthresh != TimeoutSsthresh::Rfc5681
            || first
            || self.tcb.ca_state != CaState::Loss
    }

    /// ns-3 3.44's `BytesInFlight` as its retransmission timeout reads it
    /// (see the module's header).
    pub(super) fn ns3_flight(&self) -> u64 {
        let (una, max, mss) = (self.tcb.snd_una, self.tcb.snd_max, self.tcb.mss);
        let dupthresh = self.dupthresh();
        let resent = self.resent.as_ref();
        let resent_bytes = resent.map_or(0, |r| r.sacked_between(una, max));
        if self.tcb.ca_state == CaState::Loss {
            let rec = self.tcb.recover.clamp(una, max);
            let beyond = if self.cfg.sack {
                self.sb.pipe(rec, max, rec, mss, dupthresh)
            } else {
                max - rec
            };
            return beyond + resent_bytes;
        }
        if !self.cfg.sack {
            // ns-3's emulated SACK: a segment per duplicate ACK; a resent
            // head is in the outstanding bytes already.
            return (max - una).saturating_sub(self.dupacks as u64 * mss);
        }
        // A resent segment neither SACKed nor lost is in the pipe already;
        // one SACKed or lost counts once more.
        let mut more = 0;
        for &(a, b) in resent.map_or(&[][..], |r| r.ranges()) {
            let mut s = a.max(una);
            while s < b.min(max) {
                let e = self.segment_end(s).min(b);
                if self.sb.sacked_until(s).is_some() || self.sb.is_lost(s, mss, dupthresh) {
                    more += e - s;
                }
                s = e;
            }
        }
        self.sb.pipe(una, max, una, mss, dupthresh) + more
    }
}
