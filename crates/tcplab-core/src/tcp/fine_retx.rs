// SPDX-License-Identifier: MIT OR Apache-2.0
//! Vegas's fine-grained retransmission (Brakmo and Peterson 1994, section
//! 3.1), a loss-detection component of the sender.
//!
//! The sender remembers when each outstanding segment was sent. On a
//! duplicate ACK, and on the first two new ACKs after such a
//! retransmission, the oldest unacknowledged segment is retransmitted at
//! once if it was sent longer ago than the fine-grained timeout. The
//! window is reduced only for the loss of data sent after the last
//! reduction. The timeout takes one of three forms ([`FineTimeout`]); ns-2's
//! keeps its send counts as ns-2 does (`Ns2Counts`), and what the sender
//! and the `ns2_vegas` recovery do around it is ns-2's too (docs/tcp.md).

use std::collections::VecDeque;

use crate::time::{SimDuration, SimTime};

pub use crate::cc::vegas::FineTimeout;

/// An outstanding segment: where it starts, when it was first and last
/// sent, and how often.
#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u64,
    first: SimTime,
    last: SimTime,
    count: u32,
}

/// The BSD-style estimator's state (nanoseconds).
#[derive(Clone, Copy, Debug, Default)]
struct Bsd {
    started: bool,
    sa: i64,
    sd: i64,
    timeout: u64,
}

#[derive(Debug, Default)]
pub struct FineRetransmit {
    form: FineTimeout,
    sent: VecDeque<Sent>,
    bsd: Bsd,
    /// When the window was last reduced (recovery or timeout).
    pub last_reduction: SimTime,
    /// New ACKs after a retransmission still to be checked (two).
    check_after_retx: u8,
    /// The last new ACK's sample: the RTT of the newest segment it
    /// acknowledged, if that segment was sent once (ns-2's Vegas samples
    /// every ACK so).
    pub newest_sample: Option<SimDuration>,
    /// ns-2's form: its transmission counts ([`Ns2Counts`]).
    ns2: Option<Ns2Counts>,
}

/// ns-2's `v_transmits_`: how often each segment was sent, in a ring of
/// `window_` entries indexed by the segment's number (the first data
/// segment is 0). A new ACK zeroes the entries of the segments it covers,
/// walking from the one after the last ACK up to its own index, unless
/// that walk would wrap past the ring's end: then it zeroes none, and those
/// entries keep counting across the segments that reuse them. A segment
/// whose entry is above 1 gives no RTT sample, stretches the fine timeout
/// twofold and halves the window when it is resent (tcp-vegas.cc); with
/// ACKs that cover two segments that happens often, and ns-2's Vegas
/// behaves so.
#[derive(Debug)]
struct Ns2Counts {
    ring: Vec<u32>,
    /// `v_sendtime_`: each entry's last send, None once cleared.
    sent_at: Vec<Option<SimTime>>,
    mss: u64,
    /// The number of the last segment acknowledged (-1: none).
    last_ack: i64,
}

impl Ns2Counts {
    fn index(&self, seg: i64) -> usize {
        seg.rem_euclid(self.ring.len() as i64) as usize
    }
    fn seg(&self, seq: u64) -> i64 {
        (seq.saturating_sub(1) / self.mss) as i64
    }
    fn count(&self, seq: u64) -> u32 {
        self.ring[self.index(self.seg(seq))]
    }
    /// A new ACK up to `ack`: the newest segment's count before the walk.
    fn on_ack(&mut self, ack: u64) -> u32 {
        let s = self.seg(ack) - 1;
        let end = self.index(s);
        let newest = self.ring[end];
        let mut k = self.index(self.last_ack + 1);
        let mut range = s - self.last_ack;
        while k <= end && range > 0 {
            self.ring[k] = 0;
            self.sent_at[k] = None;
            k = (k + 1) % self.ring.len();
            range -= 1;
        }
        self.last_ack = s;
        newest
    }
}

impl FineRetransmit {
    pub fn new(form: FineTimeout) -> Self {
        FineRetransmit {
            form,
            ..Self::default()
        }
    }

    /// ns-2's form, whose counts ring has `window` entries (`window_`, in
    /// segments of `mss` bytes).
    pub fn ns2(window: u64, mss: u64) -> Self {
        FineRetransmit {
            ns2: Some(Ns2Counts {
                ring: vec![0; window.max(1) as usize],
                sent_at: vec![None; window.max(1) as usize],
                mss,
                last_ack: -1,
            }),
            ..Self::new(FineTimeout::Ns2)
        }
    }

    /// A data segment starting at `seq` was (re)transmitted at `now`.
    pub fn on_sent(&mut self, now: SimTime, seq: u64) {
        if let Some(n) = &mut self.ns2 {
            let i = n.index(n.seg(seq));
            n.ring[i] += 1;
            n.sent_at[i] = Some(now);
        }
        match self.sent.binary_search_by_key(&seq, |e| e.seq) {
            Ok(i) => {
                let e = &mut self.sent[i];
                e.last = now;
                e.count += 1;
            }
            Err(i) => self.sent.insert(
                i,
                Sent {
                    seq,
                    first: now,
                    last: now,
                    count: 1,
                },
            ),
        }
    }

    /// The segment starting at `seq`: how many times it has been sent and
    /// when last (None if it is not outstanding).
    pub fn sends(&self, seq: u64) -> Option<(u32, SimTime)> {
        let i = self.sent.binary_search_by_key(&seq, |e| e.seq).ok()?;
        Some((self.count(&self.sent[i]), self.sent[i].last))
    }

    /// How often `e`'s segment was sent, as ns-2's ring counts it in its
    /// form.
    fn count(&self, e: &Sent) -> u32 {
        self.ns2.as_ref().map_or(e.count, |n| n.count(e.seq))
    }

    /// The BSD-style timeout now (None before the first sample).
    pub fn bsd_timeout(&self) -> Option<SimDuration> {
        self.bsd
            .started
            .then_some(SimDuration::from_nanos(self.bsd.timeout))
    }

    /// If the oldest unacknowledged segment, starting at `snd_una`, was sent
    /// longer ago than the fine-grained timeout, when it was sent.
    pub fn expired(
        &self,
        now: SimTime,
        snd_una: u64,
        srtt: Option<SimDuration>,
        rttvar: SimDuration,
        granularity: SimDuration,
    ) -> Option<SimTime> {
        let Some(e) = self.sent.front().filter(|e| e.seq == snd_una) else {
            // Nothing outstanding: ns-2 reads the entry of the segment not
            // sent yet, which holds an older segment's send time or none
            // (always overdue), and sends that segment twice.
            let n = self.ns2.as_ref()?;
            let at = n.sent_at[n.index(n.seg(snd_una))];
            let timeout = self.bsd_timeout()?;
            return at.map_or(Some(now), |t| (now - t >= timeout).then_some(t));
        };
        match self.form {
            FineTimeout::Rfc6298 => {
                let timeout = srtt? + (rttvar * 4).max(granularity);
                (now - e.last > timeout).then_some(e.last)
            }
            FineTimeout::Bsd => {
                let timeout = self.bsd_timeout()?;
                (now - e.first >= timeout).then_some(e.first)
            }
            FineTimeout::Ns2 => {
                let timeout = self.bsd_timeout()?;
                (now - e.last >= timeout).then_some(e.last)
            }
        }
    }

    /// The SYN's ACK, after an RTT of `s`: ns-2's form starts its
    /// estimator there (sa = 8 s, sd = s, a timeout of (2 s + s) / 2).
    pub fn on_handshake(&mut self, s: SimDuration) {
        if self.form == FineTimeout::Ns2 && !self.bsd.started {
            let s = s.as_nanos() as i64;
            self.bsd = Bsd {
                started: true,
                sa: 8 * s,
                sd: s,
                timeout: ((2 * s + s) / 2) as u64,
            };
        }
    }

    /// A retransmission it triggered: the next two new ACKs check again;
    /// the BSD form stretches its timeout.
    pub fn retransmitted(&mut self) {
        self.check_after_retx = 2;
        if self.form != FineTimeout::Rfc6298 {
            let again = self.sent.front().is_some_and(|e| self.count(e) > 1);
            let t = self.bsd.timeout;
            self.bsd.timeout = if again { 2 * t } else { t + t / 8 };
        }
    }

    /// The check on a new ACK after a retransmission found nothing overdue:
    /// ns-2's form checks no further ACK (`v_worried_ = 0`).
    pub fn nothing_overdue(&mut self) {
        if self.form == FineTimeout::Ns2 {
            self.check_after_retx = 0;
        }
    }

    /// A new ACK up to `ack` at `now`: the BSD form samples the oldest
    /// segment it acknowledges; forgets what it acknowledged; whether this
    /// is one of the two ACKs after a retransmission that check again.
    pub fn on_new_ack(&mut self, now: SimTime, ack: u64) -> bool {
        if self.form == FineTimeout::Bsd {
            if let Some(&e) = self.sent.front().filter(|e| e.seq < ack) {
                self.bsd_sample(now - e.first, e.count == 1);
            }
        }
        self.newest_sample = None;
        let newest_count = self.ns2.as_mut().map(|n| n.on_ack(ack));
        while let Some(e) = self.sent.front().filter(|e| e.seq < ack) {
            let once = newest_count.map_or(e.count == 1, |c| c == 1);
            self.newest_sample = once.then(|| now - e.last);
            self.sent.pop_front();
        }
        if let (FineTimeout::Ns2, Some(s)) = (self.form, self.newest_sample) {
            self.bsd_sample(s, true);
        }
        if self.check_after_retx > 0 {
            self.check_after_retx -= 1;
            return true;
        }
        false
    }

    /// Algorithm 1's update with a segment's RTT `s`; only a segment sent
    /// once counts, but the first ACK starts the estimator either way.
    fn bsd_sample(&mut self, s: SimDuration, once: bool) {
        let s = s.as_nanos() as i64;
        let b = &mut self.bsd;
        let start = !b.started;
        if start {
            b.started = true;
            b.sa = 8 * s;
            b.sd = s;
        }
        if once && s > 0 {
            let n = s - b.sa / 8;
            b.sa += n;
            b.sd += n.abs() - b.sd / 4;
        }
        if start || once {
            // (A segment sent more than once leaves a stretched timeout as
            // it is.)
            let t = ((b.sa / 4 + b.sd) / 2).max(0) as u64;
            b.timeout = t + t / 16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    #[test]
    fn the_bsd_timeout_follows_algorithm_1() {
        let t0 = SimTime::ZERO;
        let mut f = FineRetransmit::new(FineTimeout::Bsd);
        assert_eq!(f.bsd_timeout(), None);
        // The first segment, sent at 0 and ACKed at 100 ms: sa = 800,
        // sd = 100, then the update: n = 0, sd = 75; (200 + 75) / 2 =
        // 137.5 ms, plus a sixteenth: 146.09375 ms.
        f.on_sent(t0, 1);
        f.on_sent(t0, 1001);
        f.on_new_ack(t0 + ms(100), 1001);
        assert_eq!(f.bsd_timeout(), Some(SimDuration::from_nanos(146_093_750)));
        // A second sample of 140 ms: n = 40, sa = 840, sd = 75 + 40 -
        // 18.75 = 96.25; (210 + 96.25) / 2 = 153.125, * 17/16 =
        // 162.6953125 ms.
        f.on_new_ack(t0 + ms(140), 2001);
        assert_eq!(f.bsd_timeout(), Some(SimDuration::from_nanos(162_695_312)));
        // About 1.06 (SRTT + 2 deviations): 1.0625 (105 + 2 * 24.0625).
        let srtt: f64 = 105.0;
        let dev: f64 = 96.25 / 4.0;
        assert!((1.0625 * (srtt + 2.0 * dev) - 162.695).abs() < 0.01);
    }

    #[test]
    fn a_retransmitted_segment_gives_no_sample_and_the_timeout_stretches() {
        let t0 = SimTime::ZERO;
        let mut f = FineRetransmit::new(FineTimeout::Bsd);
        f.on_sent(t0, 1);
        f.on_new_ack(t0 + ms(100), 1001);
        let t = f.bsd_timeout().unwrap();
        f.on_sent(t0 + ms(100), 1001);
        // Overdue from its first transmission, at the timeout exactly.
        let due = t0 + ms(100) + t;
        let just_before = t0 + (due - t0 - SimDuration::from_nanos(1));
        assert_eq!(f.expired(just_before, 1001, None, ms(0), ms(1)), None);
        assert_eq!(f.expired(due, 1001, None, ms(0), ms(1)), Some(t0 + ms(100)));
        // Retransmitted once: 9/8 of the timeout.
        f.retransmitted();
        let t1 = f.bsd_timeout().unwrap();
        assert_eq!(t1.as_nanos(), t.as_nanos() + t.as_nanos() / 8);
        // Sent twice now, its ACK gives no sample (Karn); a further
        // retransmission of it doubles the timeout.
        f.on_sent(due, 1001);
        f.retransmitted();
        assert_eq!(f.bsd_timeout().unwrap().as_nanos(), 2 * t1.as_nanos());
        let before = f.bsd_timeout();
        assert!(
            f.on_new_ack(due + ms(50), 2001),
            "the ACK after a retransmission checks"
        );
        assert_eq!(f.bsd_timeout(), before);
    }

    #[test]
    fn the_ns2_form_starts_at_the_handshake_and_samples_the_newest_segment() {
        let t0 = SimTime::ZERO;
        let mut f = FineRetransmit::ns2(20, 1000);
        // The SYN's 100 ms: sa = 800, sd = 100, (200 + 100) / 2 = 150 ms
        // (no sixteenth yet).
        f.on_handshake(ms(100));
        assert_eq!(f.bsd_timeout(), Some(ms(150)));
        // Segments 0 and 1 at 0 and 40 ms, both ACKed at 150 ms: the sample
        // is the newest's, 110 ms: n = 10, sa = 810, sd = 100 + 10 - 25 =
        // 85; (202.5 + 85) / 2 = 143.75 ms plus a sixteenth: 152.734375.
        f.on_sent(t0, 1);
        f.on_sent(t0 + ms(40), 1001);
        f.on_new_ack(t0 + ms(150), 2001);
        assert_eq!(f.newest_sample, Some(ms(110)));
        assert_eq!(f.bsd_timeout(), Some(SimDuration::from_nanos(152_734_375)));
        // Segment 2, sent at 150 ms and again at 200 ms: overdue when its
        // last send is the timeout old, at 352.734375 ms exactly.
        f.on_sent(t0 + ms(150), 2001);
        f.on_sent(t0 + ms(200), 2001);
        let due = t0 + ms(200) + SimDuration::from_nanos(152_734_375);
        let before = t0 + (due - t0 - SimDuration::from_nanos(1));
        assert_eq!(f.expired(before, 2001, None, ms(0), ms(1)), None);
        assert_eq!(f.expired(due, 2001, None, ms(0), ms(1)), Some(t0 + ms(200)));
    }

    #[test]
    fn the_ns2_ring_clears_no_entry_when_an_ack_wraps_it() {
        // A ring of 4 entries: segment k counts in entry k mod 4. Segments
        // 0 to 2 leave; the ACK of 0-1 walks entries 0 to 1 and clears them.
        let seg = |k: u64| 1 + k * 1000;
        let mut f = FineRetransmit::ns2(4, 1000);
        let t = SimTime::ZERO;
        for k in 0..3 {
            f.on_sent(t, seg(k));
        }
        f.on_new_ack(t + ms(100), seg(2));
        // 3 and 4 (entries 3 and 0) leave; the ACK of 2 to 4 would walk
        // entries 2, 3, 0, which wraps: it clears none.
        for k in 3..5 {
            f.on_sent(t + ms(100), seg(k));
        }
        f.on_new_ack(t + ms(200), seg(5));
        assert_eq!(f.newest_sample, Some(ms(100)), "4 was counted once");
        // 5, 6 and 7 reuse entries 1, 2 and 3: 6 and 7 count 2 (2 and 3
        // were never cleared), 5 counts 1.
        for k in 5..8 {
            f.on_sent(t + ms(200), seg(k));
        }
        assert_eq!(f.sends(seg(5)).map(|s| s.0), Some(1));
        assert_eq!(f.sends(seg(6)).map(|s| s.0), Some(2));
        assert_eq!(f.sends(seg(7)).map(|s| s.0), Some(2));
        // A segment counted twice gives no sample.
        f.on_new_ack(t + ms(300), seg(7));
        assert_eq!(f.newest_sample, None);
        // With all of it ACKed, the entry of 8 (not sent yet) holds 4's
        // send at 100 ms, uncleared: overdue once that is the timeout old;
        // the entry of 9 (5's) was cleared by the ACK of 5-6: overdue at
        // once.
        f.on_new_ack(t + ms(300), seg(8));
        let timeout = f.bsd_timeout().unwrap();
        let due = t + ms(100) + timeout;
        let just_before = t + (due - t - SimDuration::from_nanos(1));
        assert_eq!(f.expired(just_before, seg(8), None, ms(0), ms(1)), None);
        assert_eq!(
            f.expired(due, seg(8), None, ms(0), ms(1)),
            Some(t + ms(100))
        );
        assert_eq!(
            f.expired(t + ms(300), seg(9), None, ms(0), ms(1)),
            Some(t + ms(300))
        );
    }

    #[test]
    fn the_ns2_form_stops_checking_at_the_first_ack_that_finds_nothing_overdue() {
        for form in [FineTimeout::Bsd, FineTimeout::Ns2] {
            let mut f = FineRetransmit::new(form);
            f.on_sent(SimTime::ZERO, 1);
            f.retransmitted();
            assert!(f.on_new_ack(SimTime::ZERO + ms(100), 1001));
            f.nothing_overdue();
            // ns-2's v_worried_ = 0; the Vegas code's form checks twice.
            assert_eq!(
                f.on_new_ack(SimTime::ZERO + ms(200), 2001),
                form == FineTimeout::Bsd
            );
        }
    }

    #[test]
    fn the_rfc_form_times_from_the_last_transmission() {
        let t0 = SimTime::ZERO;
        let mut f = FineRetransmit::new(FineTimeout::Rfc6298);
        f.on_sent(t0, 1);
        f.on_sent(t0 + ms(50), 1);
        let srtt = Some(ms(100));
        // SRTT + 4 RTTVAR = 140 ms after the last send (50 ms), strictly.
        assert_eq!(f.expired(t0 + ms(190), 1, srtt, ms(10), ms(1)), None);
        assert_eq!(
            f.expired(t0 + ms(191), 1, srtt, ms(10), ms(1)),
            Some(t0 + ms(50))
        );
    }
}
