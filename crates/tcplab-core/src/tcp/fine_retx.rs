// SPDX-License-Identifier: MIT OR Apache-2.0
//! Vegas's fine-grained retransmission (Brakmo and Peterson 1994, section
//! 3.1), a loss-detection component of the sender.
//!
//! The sender remembers when each outstanding segment was sent. On a
//! duplicate ACK, and on the first two new ACKs after such a
//! retransmission, the oldest unacknowledged segment is retransmitted at
//! once if it was sent longer ago than the fine-grained timeout. The
//! window is reduced only for the loss of data sent after the last
//! reduction. The timeout takes one of two forms ([`FineTimeout`]).

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
}

impl FineRetransmit {
    pub fn new(form: FineTimeout) -> Self {
        FineRetransmit {
            form,
            ..Self::default()
        }
    }

    /// A data segment starting at `seq` was (re)transmitted at `now`.
    pub fn on_sent(&mut self, now: SimTime, seq: u64) {
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
        Some((self.sent[i].count, self.sent[i].last))
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
        let e = self.sent.front()?;
        if e.seq != snd_una {
            return None;
        }
        match self.form {
            FineTimeout::Rfc6298 => {
                let timeout = srtt? + (rttvar * 4).max(granularity);
                (now - e.last > timeout).then_some(e.last)
            }
            FineTimeout::Bsd => {
                let timeout = self.bsd_timeout()?;
                (now - e.first >= timeout).then_some(e.first)
            }
        }
    }

    /// A retransmission it triggered: the next two new ACKs check again;
    /// the BSD form stretches its timeout.
    pub fn retransmitted(&mut self) {
        self.check_after_retx = 2;
        if self.form == FineTimeout::Bsd {
            let again = self.sent.front().is_some_and(|e| e.count > 1);
            let t = self.bsd.timeout;
            self.bsd.timeout = if again { 2 * t } else { t + t / 8 };
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
        while let Some(e) = self.sent.front().filter(|e| e.seq < ack) {
            self.newest_sample = (e.count == 1).then(|| now - e.first);
            self.sent.pop_front();
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
