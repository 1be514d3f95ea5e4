// SPDX-License-Identifier: MIT OR Apache-2.0
//! The delivery-rate sampler (draft-cheng-iccrg-delivery-rate-estimation),
//! as Linux's tcp_rate.c: for a controller that sets its window and pacing
//! from delivery rates (BBR).
//!
//! Each transmitted segment remembers how much had been delivered (and of
//! that, how much with an ECN echo), and when, at its send time, and
//! whether the sender was application-limited then; an ACK that delivers
//! segments (cumulatively or by SACK) forms a sample from the most
//! recently sent of them: delivered bytes since it was sent over max(send
//! elapsed, ACK elapsed).
//!
//! Application-limited, as `tcp_rate_check_app_limited`: when the sender
//! has nothing more to send while the window has room and no loss is being
//! repaired, the bytes delivered plus those in flight (at least 1) are
//! remembered; segments sent until that much is delivered mark their
//! samples `is_app_limited` (their rates say what the application offered,
//! not what the path carries).

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
    delivered_ce: u64,
    delivered_time: SimTime,
    first_sent: SimTime,
    app_limited: bool,
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
    /// Bytes delivered by ACKs that echoed congestion (Linux's
    /// `delivered_ce`).
    delivered_ce: u64,
    /// Application-limited until this much is delivered (0: not; Linux's
    /// `tp->app_limited`).
    app_limited: u64,
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
            delivered_ce: self.delivered_ce,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent_time,
            app_limited: self.app_limited != 0,
            done: false,
        };
        match self.segs.binary_search_by_key(&seq, |r| r.seq) {
            Ok(i) => self.segs[i] = rec,
            Err(i) => self.segs.insert(i, rec),
        }
    }

    /// The sender has nothing more to send, with `in_flight` bytes out:
    /// application-limited until all of it is delivered
    /// (`tcp_rate_check_app_limited`; the caller checks that the window has
    /// room and no loss is being repaired).
    pub fn app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// Marks the segments this ACK delivered (below `snd_una`, or SACKed in
    /// `sb`) and forms the rate sample. Without SACK (`sack` false), a
    /// duplicate ACK counts one `mss` as delivered. `ece`: the ACK echoes
    /// congestion (what it delivers counts as CE-marked).
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        now: SimTime,
        snd_una: u64,
        sb: &Scoreboard,
        is_dup: bool,
        sack: bool,
        mss: u64,
        ece: bool,
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
        if ece {
            self.delivered_ce += newly;
        }
        let Some(p) = latest.filter(|_| newly > 0) else {
            rs.total_delivered = self.delivered;
            return rs;
        };
        self.delivered += newly;
        self.delivered_time = now;
        self.first_sent_time = p.sent;
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        rs.total_delivered = self.delivered;
        rs.prior_delivered = p.delivered;
        rs.delivered = self.delivered - p.delivered;
        rs.delivered_ce = self.delivered_ce - p.delivered_ce;
        rs.is_app_limited = p.app_limited;
        rs.interval = (p.sent - p.first_sent).max(now - p.delivered_time);
        rs
    }
}
