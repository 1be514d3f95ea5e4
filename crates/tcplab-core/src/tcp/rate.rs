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
//!
//! Losses, as Linux's `tp->lost` and the skb's `tx.lost` and `tx.in_flight`
//! (kept since BBRv2): segments are marked lost by the sender's loss
//! detection ([`RateSampler::mark_lost`]: RACK's marks, a timeout's, or,
//! where nothing marked it before, the retransmission itself); each
//! segment remembers the total lost and the data in flight (itself
//! included) when it was sent, so a sample tells what was lost since its
//! segment left and out of how much.

use std::collections::VecDeque;

use super::scoreboard::Scoreboard;
use crate::cc::{LostSegment, RateSample};
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
    /// Marked lost and not sent again since.
    lost: bool,
    /// The sampler's `lost` and the bytes in flight (this segment
    /// included) when it was sent: Linux's `tx.lost` and `tx.in_flight`.
    lost_at: u64,
    in_flight: u64,
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
    /// Bytes marked lost so far (Linux's `tp->lost`), and of them those not
    /// sent again nor delivered since (`lost_out` less `retrans_out`).
    lost: u64,
    lost_out: u64,
    /// `lost` when the last ACK's losses were told (the next sample's
    /// `newly_lost` is the difference).
    lost_at_ack: u64,
    /// The controller runs after loss detection
    /// (`CongestionControl::runs_after_loss_detection`, fixed per
    /// controller): each ACK's sample is held for it (`pending`), with the
    /// flight before the ACK (`prior_pipe`).
    pub late: bool,
    pub pending: Option<RateSample>,
    /// The next retransmission is a loss probe, not a repair.
    pub probing: bool,
    /// Bytes in flight, neither SACKed nor marked lost, when the ACK being
    /// processed arrived (Linux's `prior_in_flight`), for a late controller.
    pub prior_pipe: u64,
}

impl RateSampler {
    /// A sampler for a controller that runs after loss detection (`late`)
    /// or before it.
    pub fn new(late: bool) -> Self {
        RateSampler {
            late,
            ..RateSampler::default()
        }
    }

    /// A data segment [seq, seq + len) was transmitted at `now`;
    /// `outstanding`: the bytes sent and neither acknowledged nor SACKed,
    /// this segment included (less those marked lost, its `tx_in_flight`).
    /// A retransmission of a segment nothing marked lost marks it lost
    /// first (`f` hears of it), unless it is a loss probe (`probing`).
    pub fn on_sent(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u64,
        outstanding: u64,
        mut f: impl FnMut(LostSegment),
    ) {
        if let Ok(i) = self.segs.binary_search_by_key(&seq, |r| r.seq) {
            if !std::mem::take(&mut self.probing) {
                self.mark_one(i, &mut f);
            }
            if self.segs[i].lost {
                self.lost_out -= self.segs[i].end - self.segs[i].seq;
            }
        }
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
            lost: false,
            lost_at: self.lost,
            in_flight: outstanding.saturating_sub(self.lost_out),
        };
        match self.segs.binary_search_by_key(&seq, |r| r.seq) {
            Ok(i) => self.segs[i] = rec,
            Err(i) => self.segs.insert(i, rec),
        }
    }

    /// Marks lost the outstanding segments that start in [from, to) and
    /// are not marked yet; `f` hears of each.
    pub fn mark_lost(&mut self, from: u64, to: u64, mut f: impl FnMut(LostSegment)) {
        let first = self.segs.partition_point(|r| r.seq < from);
        let last = self.segs.partition_point(|r| r.seq < to);
        for i in first..last {
            self.mark_one(i, &mut f);
        }
    }

    fn mark_one(&mut self, i: usize, f: &mut impl FnMut(LostSegment)) {
        let r = &mut self.segs[i];
        if r.done || r.lost {
            return;
        }
        let len = r.end - r.seq;
        r.lost = true;
        self.lost += len;
        self.lost_out += len;
        f(LostSegment {
            len,
            tx_in_flight: r.in_flight,
            lost: self.lost - r.lost_at,
            is_app_limited: r.app_limited,
            delivered: self.delivered,
        });
    }

    /// Bytes marked lost and neither sent again nor delivered since.
    pub fn lost_out(&self) -> u64 {
        self.lost_out
    }

    /// Application-limited now (`tp->app_limited` set).
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// What was marked lost so far belongs to no ACK to come: called once
    /// an ACK's controller has heard of its losses, and after marks made
    /// outside ACK processing (a timeout's, the reordering timer's).
    pub fn settle(&mut self) {
        self.lost_at_ack = self.lost;
    }

    /// Bytes marked lost so far, and since the last [`Self::settle`] (the
    /// ACK being processed's).
    pub fn lost(&self) -> (u64, u64) {
        (self.lost, self.lost - self.lost_at_ack)
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
                if rec.lost {
                    self.lost_out -= rec.end - rec.seq;
                }
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
                if ece {
                    self.delivered_ce += mss;
                }
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
        rs.prior_lost = p.lost_at;
        rs.tx_in_flight = p.in_flight;
        rs.lost = self.lost - p.lost_at;
        rs.interval = (p.sent - p.first_sent).max(now - p.delivered_time);
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn ms(v: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(v)
    }

    #[test]
    fn a_sample_counts_the_ce_echoed_bytes_of_its_interval() {
        let (mut r, sb) = (RateSampler::default(), Scoreboard::default());
        // Four 1000-B segments at 0, 1, 2, 3 ms; ACKs 100 ms later, the
        // second and third echoing congestion.
        for k in 0..4 {
            r.on_sent(ms(k), 1 + k * 1000, 1000, 0, |_| {});
        }
        let mut last = RateSample::default();
        for k in 0..4u64 {
            last = r.on_ack(
                ms(100 + k),
                1 + (k + 1) * 1000,
                &sb,
                false,
                true,
                1000,
                k == 1 || k == 2,
            );
        }
        // The last segment was sent when nothing had been delivered: its
        // sample covers all 4000 B, 2000 of them echoed; over max(3 ms of
        // sending, 103 ms since the first send) = 103 ms.
        assert_eq!((last.delivered, last.delivered_ce), (4000, 2000));
        assert_eq!(last.interval, SimDuration::from_millis(103));
        assert!(!last.is_app_limited);
    }

    #[test]
    fn segments_sent_after_the_data_ran_out_give_app_limited_samples_until_it_is_delivered() {
        let (mut r, sb) = (RateSampler::default(), Scoreboard::default());
        r.on_sent(ms(0), 1, 1000, 0, |_| {});
        r.on_sent(ms(1), 1001, 1000, 0, |_| {});
        // Nothing more to send, 2000 B in flight: app-limited until 2000 B
        // more than now (0) are delivered.
        r.app_limited(2000);
        r.on_sent(ms(50), 2001, 1000, 0, |_| {});
        let s1 = r.on_ack(ms(100), 1001, &sb, false, true, 1000, false);
        assert!(!s1.is_app_limited, "sent before the data ran out");
        let s2 = r.on_ack(ms(101), 2001, &sb, false, true, 1000, false);
        assert!(!s2.is_app_limited);
        // 2000 B delivered is not more than the mark: still limited; the
        // segment sent at 50 ms carries the flag.
        let s3 = r.on_ack(ms(150), 3001, &sb, false, true, 1000, false);
        assert!(s3.is_app_limited);
        // Delivered (3000) passed the mark: new segments are not limited.
        r.on_sent(ms(150), 3001, 1000, 0, |_| {});
        let s4 = r.on_ack(ms(250), 4001, &sb, false, true, 1000, false);
        assert!(!s4.is_app_limited);
    }

    #[test]
    fn a_sample_counts_what_was_marked_lost_since_its_segment_left_and_out_of_how_much() {
        let (mut r, sb) = (RateSampler::default(), Scoreboard::default());
        // Segments k = 0..4 sent with k + 1 segments outstanding (itself
        // included).
        for k in 0..4 {
            r.on_sent(ms(k), 1 + k * 1000, 1000, (k + 1) * 1000, |_| {});
        }
        // RACK marks the first two lost: the hook hears of each.
        let mut heard = Vec::new();
        r.settle();
        r.mark_lost(1, 2001, |s| heard.push(s));
        assert_eq!(heard.len(), 2);
        assert_eq!((heard[1].tx_in_flight, heard[1].lost), (2000, 2000));
        assert_eq!((r.lost(), r.lost_out()), ((2000, 2000), 2000));
        // Marking again changes nothing.
        r.mark_lost(1, 2001, |_| panic!("marked twice"));
        // The fourth, sent before the marks, is SACKed: 2000 lost since it
        // left, out of 4000 in flight then.
        let sb = {
            let mut b = sb;
            b.add(3001, 4001);
            b
        };
        let s = r.on_ack(ms(100), 1, &sb, true, true, 1000, false);
        assert_eq!((s.lost, s.prior_lost, s.tx_in_flight), (2000, 0, 4000));
        // The first is sent again: no longer lost out, in flight with the
        // flight less the one still lost (4000 outstanding - 1000 SACKed
        // - 1000 lost).
        r.on_sent(ms(101), 1, 1000, 3000, |_| panic!("already marked"));
        assert_eq!(r.lost_out(), 1000);
        let s = r.on_ack(ms(200), 1001, &sb, false, true, 1000, false);
        assert_eq!((s.lost, s.prior_lost, s.tx_in_flight), (0, 2000, 2000));
    }

    #[test]
    fn a_retransmission_marks_its_segment_lost_unless_it_is_a_loss_probe() {
        let mut r = RateSampler::default();
        r.on_sent(ms(0), 1, 1000, 1000, |_| {});
        r.on_sent(ms(1), 1001, 1000, 2000, |_| {});
        // Nothing marked the first: its retransmission does.
        let mut heard = Vec::new();
        r.on_sent(ms(50), 1, 1000, 2000, |s| heard.push(s));
        assert_eq!(heard.len(), 1);
        assert_eq!(
            (heard[0].len, heard[0].lost, heard[0].tx_in_flight),
            (1000, 1000, 1000)
        );
        // A loss probe resends the last segment: not a repair.
        r.probing = true;
        r.on_sent(ms(60), 1001, 1000, 2000, |_| {
            panic!("a probe is not a loss")
        });
        assert!(!r.probing);
        assert_eq!(r.lost(), (1000, 1000));
    }
}
