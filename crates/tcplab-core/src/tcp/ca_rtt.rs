// SPDX-License-Identifier: MIT OR Apache-2.0
//! The RTT sample a congestion controller is given on each ACK
//! ([`CcRtt`]).
//!
//! - **The estimator's** (`"estimator"`): the sample the RTT estimator takes
//!   from the same ACK: the timestamp echo, or without timestamps the timed
//!   segment's (or, with `rtt_sampling = "ack"`, the oldest covered
//!   segment's). The echo is of the oldest segment the ACK covers (RFC 7323
//!   4.3), so with delayed ACKs a sample includes the receiver's wait for the
//!   second segment, or for its timer when a burst ends on an odd segment.
//!   Duplicate ACKs carry no sample. (ns-3 3.44 passes its controllers the
//!   smoothed RTT instead.)
//! - **The newest segment's** (`"newest"`; Linux's `ca_rtt_us`, which
//!   `tcp_clean_rtx_queue` passes to a module's `pkts_acked` and Linux's
//!   rate sample carries; ns-2's TCP-Linux likewise times the segment the
//!   ACK's number names): from the send time of the most recently sent
//!   segment that the ACK newly delivers.
//!   - A segment newly SACKed and never retransmitted gives it (the highest
//!     such, Linux's `last_sackt`), before any cumulatively acknowledged one;
//!     so duplicate ACKs carry samples in a SACK recovery.
//!   - Otherwise the highest segment newly acknowledged cumulatively that
//!     was not SACKed before, unless the ACK covers a segment that was ever
//!     retransmitted (Karn's rule: Linux's `FLAG_RETRANS_DATA_ACKED`).
//!   - Otherwise, with timestamps, an ACK of new data gives the echo's
//!     sample (`tcp_rtt_tsopt_us`), as the estimator's.
//!
//!   With delayed ACKs the ACK of a pair is timed from the second segment,
//!   so the receiver's wait does not enter it; an ACK sent by the
//!   delayed-ACK timer for a lone segment still carries the wait.
//!
//! The estimator (SRTT, RTO) is not affected by the choice.

use std::collections::VecDeque;

use serde::Serialize;

use crate::time::{SimDuration, SimTime};

/// Which RTT sample a congestion controller is given.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CcRtt {
    /// The RTT estimator's sample from the same ACK.
    #[default]
    Estimator,
    /// The most recently sent segment newly delivered (Linux).
    Newest,
}

crate::deserialize_names!(CcRtt {
    "estimator" => CcRtt::Estimator,
    "newest" => CcRtt::Newest,
});

/// One segment sent and not cumulatively acknowledged: [seq, end), first
/// sent at `at`.
#[derive(Clone, Copy, Debug)]
struct Seg {
    seq: u64,
    end: u64,
    at: SimTime,
    /// Retransmitted at least once (Linux's `TCPCB_EVER_RETRANS`).
    retx: bool,
    sacked: bool,
}

/// The send times the newest segment's sample is taken from.
#[derive(Debug, Default)]
pub struct NewestRtt {
    segs: VecDeque<Seg>,
}

impl NewestRtt {
    /// A data segment [seq, end) was sent at `now`; `retx`: it had been sent
    /// before.
    #[inline]
    pub fn on_sent(&mut self, now: SimTime, seq: u64, end: u64, retx: bool) {
        if !retx {
            self.segs.push_back(Seg {
                seq,
                end,
                at: now,
                retx: false,
                sacked: false,
            });
            return;
        }
        // Kept in order of sequence: every segment the resent range touches.
        let i = self.segs.partition_point(|s| s.end <= seq);
        for s in self.segs.range_mut(i..) {
            if s.seq >= end {
                break;
            }
            s.retx = true;
        }
    }

    /// An ACK up to `ack` with SACK blocks `blocks` arrived at `now`: the
    /// newest segment's sample, if it gives one. The caller falls back on
    /// the echo's sample for an ACK of new data (see the module's text).
    pub fn on_ack(&mut self, now: SimTime, ack: u64, blocks: &[(u64, u64)]) -> Option<SimDuration> {
        let mut cum: Option<SimTime> = None;
        let mut retx_acked = false;
        while let Some(s) = self.segs.front().filter(|s| s.end <= ack) {
            if s.retx {
                retx_acked = true;
            } else if !s.sacked {
                cum = Some(s.at);
            }
            self.segs.pop_front();
        }
        let mut sack: Option<(u64, SimTime)> = None;
        for &(a, b) in blocks {
            if b <= ack {
                continue;
            }
            let i = self.segs.partition_point(|s| s.end <= a);
            for s in self.segs.range_mut(i..) {
                if s.end > b {
                    break;
                }
                if s.seq >= a && !s.sacked {
                    s.sacked = true;
                    if !s.retx && sack.is_none_or(|(seq, _)| s.seq > seq) {
                        sack = Some((s.seq, s.at));
                    }
                }
            }
        }
        match (sack, cum) {
            (Some((_, t)), _) => Some(now - t),
            (None, Some(t)) if !retx_acked => Some(now - t),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    fn ms(v: u64) -> Option<SimDuration> {
        Some(SimDuration::from_millis(v))
    }

    /// Segments of 100 bytes: segment k is [100k, 100k + 100), sent at
    /// 10k ms.
    fn sent(n: u64) -> NewestRtt {
        let mut r = NewestRtt::default();
        for k in 0..n {
            r.on_sent(t(10 * k), 100 * k, 100 * k + 100, false);
        }
        r
    }

    #[test]
    fn a_delayed_ack_of_a_pair_is_timed_from_its_second_segment() {
        let mut r = sent(4);
        // Segments 0 and 1 acknowledged together at 130 ms: 120 ms from
        // segment 1 (the estimator's echo would give 130 ms from segment 0).
        assert_eq!(r.on_ack(t(130), 200, &[]), ms(120));
        // A lone segment 2 ACKed by the receiver's timer at 220 ms: its wait
        // is in the sample.
        assert_eq!(r.on_ack(t(220), 300, &[]), ms(200));
    }

    #[test]
    fn an_ack_covering_a_retransmitted_segment_gives_none() {
        let mut r = sent(4);
        r.on_sent(t(100), 100, 200, true);
        // Segments 0-2 acknowledged: segment 1 was resent (Karn).
        assert_eq!(r.on_ack(t(150), 300, &[]), None);
        // Segment 3 alone afterwards is timed again.
        assert_eq!(r.on_ack(t(160), 400, &[]), ms(130));
    }

    #[test]
    fn a_new_sack_gives_the_highest_newly_sacked_segment_and_comes_first() {
        let mut r = sent(6);
        // Segment 0 lost; a duplicate ACK SACKs segments 1-2 at 100 ms: timed
        // from segment 2 (sent at 20 ms).
        assert_eq!(r.on_ack(t(100), 0, &[(100, 300)]), ms(80));
        // The same blocks again: nothing newly SACKed, no sample.
        assert_eq!(r.on_ack(t(105), 0, &[(100, 300)]), None);
        // Segment 4 SACKed (3 still missing), in a second block listed first.
        assert_eq!(r.on_ack(t(110), 0, &[(400, 500), (100, 300)]), ms(70));
        // The retransmission of segment 0 arrives: the cumulative ACK to 300
        // covers a resent segment and segments SACKed before; segment 5 is
        // newly SACKed and gives the sample.
        r.on_sent(t(112), 0, 100, true);
        assert_eq!(r.on_ack(t(200), 300, &[(400, 600)]), ms(150));
    }

    #[test]
    fn segments_sacked_before_do_not_time_the_cumulative_ack() {
        let mut r = sent(3);
        assert_eq!(r.on_ack(t(100), 0, &[(100, 300)]), ms(80));
        // Segment 0 arrives late (reordered, never resent): it is timed; 1
        // and 2 were SACKed before and are not.
        assert_eq!(r.on_ack(t(150), 300, &[]), ms(150));
    }

    #[test]
    fn a_resent_range_marks_every_segment_it_touches() {
        let mut r = sent(3);
        // A retransmission of 150 bytes from 50 touches segments 0 and 1.
        r.on_sent(t(50), 50, 200, true);
        assert_eq!(r.on_ack(t(100), 100, &[]), None);
        assert_eq!(r.on_ack(t(101), 200, &[]), None);
        assert_eq!(r.on_ack(t(102), 300, &[]), ms(82));
    }
}
