// SPDX-License-Identifier: MIT OR Apache-2.0
//! The delivery-rate sampler (draft-cheng-iccrg-delivery-rate-estimation),
//! as Linux's tcp_rate.c: for a controller that sets its window and pacing
//! from delivery rates (BBR).
//!
//! Each transmitted segment remembers how much had been delivered, and
//! when, at its send time; an ACK that delivers segments (cumulatively or by
//! SACK) forms a sample from the most recently sent of them: delivered
//! bytes since it was sent over max(send elapsed, ACK elapsed).

use std::collections::VecDeque;

use super::scoreboard::Scoreboard;
use crate::cc::RateSample;
use crate::time::SimTime;

/// What the sampler remembers of one transmitted segment.
#[derive(Clone, Copy, Debug)]
struct SegRecord {
    seq: u64,
    end: u64,
    sent: SimTime,
    delivered: u64,
    delivered_time: SimTime,
    first_sent: SimTime,
    done: bool,
}

#[derive(Debug, Default)]
pub struct RateSampler {
    /// Bytes delivered so far, when last delivered, and the send time of
    /// the most recently sent delivered segment.
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Per outstanding segment, by sequence number.
    segs: VecDeque<SegRecord>,
    /// Without SACK: bytes counted as delivered by duplicate ACKs (one MSS
    /// each, Linux's Reno SACK emulation), deducted from the cumulative ACK
    /// that follows.
    dup_delivered: u64,
}

impl RateSampler {
    /// A data segment [seq, seq + len) was transmitted at `now`.
    pub fn on_sent(&mut self, now: SimTime, seq: u64, len: u64) {
        if self.segs.iter().all(|r| r.done) {
            // Nothing in flight: the sampling interval starts now.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let rec = SegRecord {
            seq,
            end: seq + len,
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent_time,
            done: false,
        };
        match self.segs.binary_search_by_key(&seq, |r| r.seq) {
            Ok(i) => self.segs[i] = rec,
            Err(i) => self.segs.insert(i, rec),
        }
    }

    /// Marks the segments this ACK delivered (below `snd_una`, or SACKed in
    /// `sb`) and forms the rate sample. Without SACK (`sack` false), a
    /// duplicate ACK counts one `mss` as delivered.
    pub fn on_ack(
        &mut self,
        now: SimTime,
        snd_una: u64,
        sb: &Scoreboard,
        is_dup: bool,
        sack: bool,
        mss: u64,
    ) -> RateSample {
        let mut newly = 0;
        let mut latest: Option<SegRecord> = None;
        for rec in self.segs.iter_mut().filter(|r| !r.done) {
            let acked = rec.end <= snd_una;
            let sacked = !acked && sb.sacked_until(rec.seq).is_some_and(|e| e >= rec.end);
            if acked || sacked {
                rec.done = true;
                newly += rec.end - rec.seq;
                if latest.is_none_or(|p| rec.sent >= p.sent) {
                    latest = Some(*rec);
                }
            }
        }
        while self
            .segs
            .front()
            .is_some_and(|r| r.done && r.end <= snd_una)
        {
            self.segs.pop_front();
        }
        if !sack {
            // A duplicate ACK means one segment arrived (out of order): count
            // it now; the cumulative ACK that covers it counts only the rest.
            if is_dup {
                self.delivered += mss;
                self.dup_delivered += mss;
                self.delivered_time = now;
            } else {
                let credit = self.dup_delivered.min(newly);
                self.dup_delivered -= credit;
                newly -= credit;
            }
        }
        let mut rs = RateSample {
            newly_delivered: newly,
            ..RateSample::default()
        };
        let Some(p) = latest.filter(|_| newly > 0) else {
            rs.total_delivered = self.delivered;
            return rs;
        };
        self.delivered += newly;
        self.delivered_time = now;
        self.first_sent_time = p.sent;
        rs.total_delivered = self.delivered;
        rs.prior_delivered = p.delivered;
        rs.delivered = self.delivered - p.delivered;
        rs.interval = (p.sent - p.first_sent).max(now - p.delivered_time);
        rs
    }
}
