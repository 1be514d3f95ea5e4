// SPDX-License-Identifier: MIT OR Apache-2.0
//! Where the sender's RTT samples come from when segments carry no
//! timestamps ([`RttSampling`]).
//!
//! - **One segment at a time** (RFC 6298 with Karn's rule; BSD, ns-2): a
//!   new segment is timed when none is, and its ACK gives the sample; a
//!   retransmission of it, a loss episode or a timeout forgets it. About
//!   one sample per RTT.
//! - **Every ACK** (ns-3's `RttHistory`, Linux's `tcp_clean_rtx_queue`):
//!   the send time of every new segment is kept; an ACK that covers the
//!   oldest one gives a sample from its transmission, unless it was
//!   retransmitted, and the segments it covers are forgotten. A
//!   retransmission marks the segment it resends; a timeout forgets them
//!   all (ns-3's `ReTxTimeout` empties its history), so no sample comes
//!   before new data sent after it is acknowledged. With delayed ACKs the
//!   sample is the older segment's, so it includes the wait for the
//!   second, and for the delayed-ACK timer or the next burst when a burst
//!   has an odd number of segments.

use std::collections::VecDeque;

use serde::Serialize;

use crate::time::{SimDuration, SimTime};

/// How RTT samples are taken without timestamps.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// One timed segment at a time (RFC 6298 3, Karn's rule).
    #[default]
    Segment,
    /// Every ACK of new data, from the oldest segment it covers (ns-3).
    Ack,
}

crate::deserialize_names!(RttSampling {
    "segment" => RttSampling::Segment,
    "ack" => RttSampling::Ack,
});

/// A segment whose send time is kept: [seq, end), sent at `at`,
/// retransmitted since or not.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    seq: u64,
    end: u64,
    at: SimTime,
    retx: bool,
}

#[derive(Debug)]
pub enum RttTiming {
    /// The timed segment's end and send time, if one is timed.
    Segment(Option<(u64, SimTime)>),
    /// The outstanding segments in order.
    Ack(Box<VecDeque<Sent>>),
}

impl RttTiming {
    pub fn new(sampling: RttSampling) -> Self {
        match sampling {
            RttSampling::Segment => RttTiming::Segment(None),
            RttSampling::Ack => RttTiming::Ack(Box::default()),
        }
    }

    /// A data segment [seq, end) was sent at `now`; `retx`: it had been
    /// sent before.
    #[inline]
    pub fn on_sent(&mut self, now: SimTime, seq: u64, end: u64, retx: bool) {
        match self {
            RttTiming::Segment(timed) => {
                if retx {
                    if timed.is_some_and(|(e, _)| seq < e) {
                        *timed = None; // Karn's rule
                    }
                } else if timed.is_none() {
                    *timed = Some((end, now));
                }
            }
            RttTiming::Ack(sent) => {
                if !retx {
                    sent.push_back(Sent {
                        seq,
                        end,
                        at: now,
                        retx: false,
                    });
                } else {
                    // Kept in order of sequence: the first that ends past seq.
                    let i = sent.partition_point(|s| s.end <= seq);
                    if let Some(s) = sent.get_mut(i).filter(|s| s.seq <= seq) {
                        s.retx = true;
                    }
                }
            }
        }
    }

    /// An ACK of new data up to `ack` arrived at `now`: the RTT sample it
    /// gives, if any.
    #[inline]
    pub fn on_ack(&mut self, now: SimTime, ack: u64) -> Option<SimDuration> {
        match self {
            RttTiming::Segment(timed) => match *timed {
                Some((end, t0)) if ack >= end => {
                    *timed = None;
                    Some(now - t0)
                }
                _ => None,
            },
            RttTiming::Ack(sent) => {
                let sample = sent
                    .front()
                    .filter(|s| ack >= s.end && !s.retx)
                    .map(|s| now - s.at);
                while sent.front().is_some_and(|s| s.end <= ack) {
                    sent.pop_front();
                }
                sample
            }
        }
    }

    /// A loss episode begins: the timed segment is forgotten (its sample
    /// could span the loss); per-ACK timing keeps its send times, marking
    /// only what is retransmitted.
    pub fn on_loss_episode(&mut self) {
        if let RttTiming::Segment(timed) = self {
            *timed = None;
        }
    }

    /// The retransmission timer fired: every send time is forgotten.
    pub fn on_timeout(&mut self) {
        match self {
            RttTiming::Segment(timed) => *timed = None,
            RttTiming::Ack(sent) => sent.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn one_timed_segment_gives_one_sample_per_round() {
        let mut r = RttTiming::new(RttSampling::Segment);
        for (i, seq) in (1..=4001).step_by(1000).enumerate() {
            r.on_sent(t(i as u64), seq, seq + 1000, false);
        }
        // Only the first is timed: its ACK (after a second segment's wait)
        // gives 101 ms, the next ACK nothing.
        assert_eq!(r.on_ack(t(101), 2001), Some(SimDuration::from_millis(101)));
        assert_eq!(r.on_ack(t(103), 4001), None);
        // A retransmission of the timed segment forgets it.
        r.on_sent(t(110), 5001, 6001, false);
        r.on_sent(t(120), 5001, 6001, true);
        assert_eq!(r.on_ack(t(210), 6001), None);
    }

    #[test]
    fn every_ack_samples_its_oldest_segment_unless_it_was_resent() {
        let mut r = RttTiming::new(RttSampling::Ack);
        for (i, seq) in (1..=5001).step_by(1000).enumerate() {
            r.on_sent(t(i as u64), seq, seq + 1000, false);
        }
        // A delayed ACK of two segments (sent at 0 and 1 ms): the older
        // one's RTT, 101 ms.
        assert_eq!(r.on_ack(t(101), 2001), Some(SimDuration::from_millis(101)));
        // An ACK that does not cover the oldest segment whole: none.
        assert_eq!(r.on_ack(t(102), 2501), None);
        assert_eq!(r.on_ack(t(104), 4001), Some(SimDuration::from_millis(102)));
        // The segment at 4001 is resent: its ACK gives no sample, the next
        // segment's does.
        r.on_sent(t(150), 4001, 5001, true);
        assert_eq!(r.on_ack(t(250), 5001), None);
        assert_eq!(r.on_ack(t(260), 6001), Some(SimDuration::from_millis(255)));
        // A loss episode keeps the send times, a timeout forgets them.
        r.on_sent(t(300), 6001, 7001, false);
        r.on_loss_episode();
        assert_eq!(r.on_ack(t(400), 7001), Some(SimDuration::from_millis(100)));
        r.on_sent(t(410), 7001, 8001, false);
        r.on_timeout();
        r.on_sent(t(1410), 7001, 8001, true);
        assert_eq!(r.on_ack(t(1500), 8001), None);
    }

    #[test]
    fn a_retransmission_marks_the_segment_it_resends_wherever_it_lies() {
        let mut r = RttTiming::new(RttSampling::Ack);
        for (i, seq) in (1..=3001).step_by(1000).enumerate() {
            r.on_sent(t(i as u64), seq, seq + 1000, false);
        }
        // The middle segment is resent (a byte inside it counts): its ACK
        // gives no sample, the ones around it do.
        r.on_sent(t(50), 1500, 2001, true);
        assert_eq!(r.on_ack(t(100), 1001), Some(SimDuration::from_millis(100)));
        assert_eq!(r.on_ack(t(150), 2001), None);
        assert_eq!(r.on_ack(t(160), 3001), Some(SimDuration::from_millis(158)));
        // A resent range nobody recorded marks nothing: the segment at 3001
        // (sent at 3 ms) still gives its sample.
        r.on_sent(t(170), 5001, 6001, true);
        assert_eq!(r.on_ack(t(200), 4001), Some(SimDuration::from_millis(197)));
    }
}
