// SPDX-License-Identifier: MIT OR Apache-2.0
//! Slow-start components: ways to leave slow start before the first loss,
//! for any variant whose slow start is RFC 5681's ([`super::slow_start`]).
//! The sender calls [`SlowStart::on_ack`] on each ACK of new data before
//! the controller grows the window, [`SlowStart::on_loss`] when a recovery
//! reduces it, and [`SlowStart::on_timeout`] on a retransmission timeout.
//!
//! - **HyStart** as today's Linux `tcp_cubic.c` runs it (Ha and Rhee 2008,
//!   HyStart v2.3 with the fixes since: microsecond clocks, the minimum RTT
//!   over the whole round, the round reset below the low window). Rounds
//!   start on the first ACK beyond the highest sequence sent when the
//!   previous one started.
//!   Once cwnd is at least 16 segments, slow start ends (ssthresh = cwnd,
//!   cwnd kept) when either
//!   - the ACK train: ACKs keep arriving within 2 ms of each other for more
//!     than half the minimum RTT since the round started (the whole minimum
//!     RTT when the sender paces), or
//!   - the delay increase: from the ninth RTT sample of a round, the
//!     round's smallest RTT exceeds the smallest ever by more than
//!     clamp(minimum / 8, 4 ms, 16 ms).
//!
//!   A timeout re-arms it (Linux's `bictcp_reset`); a fast recovery does not.
//!   Linux also ignores the samples of the first second of a CUBIC epoch;
//!   that only matters for a slow start below ssthresh after a recovery and
//!   is not modelled.
//! - **HyStart++** (RFC 9406), in the initial slow start only: when, from
//!   the eighth RTT sample of a round, the round's smallest RTT is at least
//!   the last round's plus clamp(last / 8, 4 ms, 16 ms), it enters
//!   Conservative Slow Start: growth divided by 4, for at most 5 rounds (the
//!   one it starts in included), after which ssthresh = cwnd; a round whose
//!   smallest RTT falls below the one that started CSS goes back to slow
//!   start. Any loss ends it for good, the controller's response applying.
//!   The per-ACK cap L = 8 segments is never reached here (slow start adds
//!   at most 2 segments per ACK).

use super::Tcb;
use crate::time::{SimDuration, SimTime};

/// How a flow leaves slow start besides a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartKind {
    /// RFC 5681: only a loss (or ssthresh) ends it.
    Standard,
    /// Linux's HyStart (ACK train and delay increase).
    Hystart,
    /// RFC 9406 HyStart++.
    HystartPlusPlus,
}

impl SlowStartKind {
    pub const ALL: &'static [SlowStartKind] = &[
        SlowStartKind::Standard,
        SlowStartKind::Hystart,
        SlowStartKind::HystartPlusPlus,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SlowStartKind::Standard => "standard",
            SlowStartKind::Hystart => "hystart",
            SlowStartKind::HystartPlusPlus => "hystart++",
        }
    }
}

crate::deserialize_names!(SlowStartKind {
    "standard" => SlowStartKind::Standard,
    "hystart" => SlowStartKind::Hystart,
    "hystart++" => SlowStartKind::HystartPlusPlus,
});

impl serde::Serialize for SlowStartKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Linux's constants (tcp_cubic.c).
const LOW_WINDOW: u64 = 16;
const ACK_DELTA: SimDuration = SimDuration::from_micros(2000);
const MIN_SAMPLES: u32 = 8;
const DELAY_MIN: SimDuration = SimDuration::from_millis(4);
const DELAY_MAX: SimDuration = SimDuration::from_millis(16);
/// RFC 9406 section 4.3.
const CSS_GROWTH_DIVISOR: u8 = 4;
const CSS_ROUNDS: u32 = 5;

/// clamp(rtt / 8, 4 ms, 16 ms): both algorithms' threshold.
fn threshold(rtt: SimDuration) -> SimDuration {
    SimDuration::from_nanos(rtt.as_nanos() / 8).clamp(DELAY_MIN, DELAY_MAX)
}

/// One flow's slow-start component.
#[derive(Clone, Debug)]
pub struct SlowStart {
    kind: SlowStartKind,
    /// The round ends when snd_una passes this: the highest sequence sent
    /// when it started (Linux's `snd_nxt`, which does not go back after a
    /// timeout as tcplab's does).
    end_seq: u64,
    round_start: SimTime,
    /// Smallest RTT of this round, and (HyStart++) of the last one.
    round_min: Option<SimDuration>,
    last_round_min: Option<SimDuration>,
    samples: u32,
    // HyStart:
    found: bool,
    last_ack: SimTime,
    delay_min: Option<SimDuration>,
    // HyStart++:
    /// The round minimum that started CSS, while in CSS.
    css_baseline: Option<SimDuration>,
    /// Rounds completed in CSS.
    css_rounds: u32,
    /// Still in the initial slow start (no loss, no exit yet).
    armed: bool,
}

impl SlowStart {
    pub fn new(kind: SlowStartKind) -> Option<Box<SlowStart>> {
        (kind != SlowStartKind::Standard).then(|| {
            Box::new(SlowStart {
                kind,
                end_seq: 0,
                round_start: SimTime::ZERO,
                round_min: None,
                last_round_min: None,
                samples: 0,
                found: false,
                last_ack: SimTime::ZERO,
                delay_min: None,
                css_baseline: None,
                css_rounds: 0,
                armed: true,
            })
        })
    }

    /// The connection is established (Linux's `cubictcp_init`).
    pub fn init(&mut self, tcb: &Tcb) {
        self.new_round(tcb);
    }

    fn new_round(&mut self, tcb: &Tcb) {
        self.round_start = tcb.now;
        self.last_ack = tcb.now;
        self.end_seq = tcb.snd_max;
        self.last_round_min = self.round_min;
        self.round_min = None;
        self.samples = 0;
    }

    /// An ACK of new data, before the controller grows the window; `rtt`:
    /// its RTT sample. Returns true when it ends slow start (ssthresh =
    /// cwnd), for the event log.
    pub fn on_ack(&mut self, tcb: &mut Tcb, rtt: Option<SimDuration>) -> bool {
        match self.kind {
            SlowStartKind::Standard => false,
            SlowStartKind::Hystart => self.hystart(tcb, rtt),
            SlowStartKind::HystartPlusPlus => self.hystart_pp(tcb, rtt),
        }
    }

    fn hystart(&mut self, tcb: &mut Tcb, rtt: Option<SimDuration>) -> bool {
        let Some(rtt) = rtt else { return false };
        let delay = rtt.max(SimDuration::from_micros(1));
        let delay_min = self.delay_min.map_or(delay, |d| d.min(delay));
        self.delay_min = Some(delay_min);
        if self.found || !tcb.in_slow_start() {
            return false;
        }
        if tcb.snd_una > self.end_seq {
            self.new_round(tcb);
        }
        if tcb.cwnd < LOW_WINDOW * tcb.mss {
            return false;
        }
        let now = tcb.now;
        // The ACK train.
        if now - self.last_ack <= ACK_DELTA {
            self.last_ack = now;
            let train = if tcb.paced {
                delay_min
            } else {
                SimDuration::from_nanos(delay_min.as_nanos() / 2)
            };
            if now - self.round_start > train {
                return self.exit(tcb);
            }
        }
        // The delay increase.
        let round_min = self.round_min.map_or(delay, |m| m.min(delay));
        self.round_min = Some(round_min);
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else if round_min > delay_min + threshold(delay_min) {
            return self.exit(tcb);
        }
        false
    }

    fn hystart_pp(&mut self, tcb: &mut Tcb, rtt: Option<SimDuration>) -> bool {
        if !self.armed || !tcb.in_slow_start() {
            tcb.slow_start_divisor = 1;
            return false;
        }
        if tcb.snd_una > self.end_seq {
            if self.css_baseline.is_some() {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    return self.exit(tcb);
                }
            }
            self.new_round(tcb);
        }
        // This ACK grows the window as the mode it arrived in says.
        tcb.slow_start_divisor = if self.css_baseline.is_some() {
            CSS_GROWTH_DIVISOR
        } else {
            1
        };
        let Some(rtt) = rtt else { return false };
        let round_min = self.round_min.map_or(rtt, |m| m.min(rtt));
        self.round_min = Some(round_min);
        self.samples += 1;
        if self.samples < MIN_SAMPLES {
            return false;
        }
        match self.css_baseline {
            None => {
                if let Some(last) = self.last_round_min {
                    if round_min >= last + threshold(last) {
                        self.css_baseline = Some(round_min);
                        self.css_rounds = 0;
                    }
                }
            }
            Some(baseline) if round_min < baseline => {
                // The RTT came back down: a spurious exit, back to slow start.
                self.css_baseline = None;
                self.css_rounds = 0;
            }
            Some(_) => {}
        }
        false
    }

    fn exit(&mut self, tcb: &mut Tcb) -> bool {
        tcb.ssthresh = tcb.cwnd;
        tcb.slow_start_divisor = 1;
        self.found = true;
        self.armed = false;
        self.css_baseline = None;
        true
    }

    /// A recovery reduced the window: HyStart++ ends for good (RFC 9406
    /// applies to the initial slow start only); HyStart keeps its state.
    pub fn on_loss(&mut self, tcb: &mut Tcb) {
        if self.kind == SlowStartKind::HystartPlusPlus {
            self.armed = false;
            self.css_baseline = None;
            tcb.slow_start_divisor = 1;
        }
    }

    /// A retransmission timeout: HyStart starts over (Linux resets CUBIC
    /// and HyStart entering the Loss state); HyStart++ ends for good.
    pub fn on_timeout(&mut self, tcb: &mut Tcb) {
        self.on_loss(tcb);
        if self.kind == SlowStartKind::Hystart {
            self.found = false;
            self.delay_min = None;
            self.round_min = None;
            self.new_round(tcb);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The worked examples: a cwnd-limited sender, an ACK per segment,
    //! Reno's slow start (1 MSS per ACK), the RTT chosen per round.
    use super::*;
    use crate::cc::slow_start as grow;

    const MSS: u64 = 1000;

    fn ms(x: f64) -> SimDuration {
        SimDuration::from_nanos((x * 1e6) as u64)
    }

    struct Run {
        tcb: Tcb,
        ss: Box<SlowStart>,
        /// Round number (from 1) and ACKs in it so far, counted as Linux
        /// opens rounds: on the first ACK beyond what was sent at the last
        /// round's start.
        round: u32,
        in_round: u32,
        round_end: u64,
        /// (round, ACK of the round, cwnd in segments) when slow start ended.
        exit: Option<(u32, u32, f64)>,
    }

    impl Run {
        fn new(kind: SlowStartKind, iw: u64) -> Run {
            let mut tcb = Tcb {
                snd_una: 1,
                snd_nxt: 1,
                snd_max: 1,
                ..Tcb::new(iw * MSS, u64::MAX, MSS)
            };
            let mut ss = SlowStart::new(kind).unwrap();
            ss.init(&tcb);
            tcb.snd_max += iw * MSS;
            tcb.snd_nxt = tcb.snd_max;
            Run {
                tcb,
                ss,
                round: 0,
                in_round: 0,
                round_end: 1,
                exit: None,
            }
        }

        /// One ACK of one segment, `gap` after the last, with RTT `rtt`.
        fn ack(&mut self, gap: SimDuration, rtt: SimDuration) {
            self.tcb.now += gap;
            self.tcb.snd_una += MSS;
            if self.tcb.snd_una > self.round_end {
                self.round += 1;
                self.in_round = 0;
                self.round_end = self.tcb.snd_max;
            }
            self.in_round += 1;
            if self.ss.on_ack(&mut self.tcb, Some(rtt)) && self.exit.is_none() {
                self.exit = Some((self.round, self.in_round, self.tcb.cwnd_segments()));
            }
            if self.tcb.in_slow_start() {
                grow(&mut self.tcb, MSS, false);
            }
            while self.tcb.snd_max - self.tcb.snd_una + MSS <= self.tcb.cwnd {
                self.tcb.snd_max += MSS;
            }
            self.tcb.snd_nxt = self.tcb.snd_max;
        }

        /// ACKs `gap` apart until round `last` ends, the RTT from `rtt(round)`.
        fn until_round(&mut self, last: u32, gap: SimDuration, rtt: impl Fn(u32) -> SimDuration) {
            loop {
                let next_round = self.tcb.snd_una + MSS > self.round_end;
                if next_round && self.round == last {
                    return;
                }
                let r = if next_round {
                    self.round + 1
                } else {
                    self.round
                };
                self.ack(gap, rtt(r));
            }
        }
    }

    /// The RTT 100 ms, `later` from round 4 on.
    fn step(later: f64) -> impl Fn(u32) -> SimDuration {
        move |r| if r >= 4 { ms(later) } else { ms(100.0) }
    }

    #[test]
    fn hystart_leaves_at_the_ninth_sample_of_the_round_whose_rtt_rose_by_an_eighth() {
        // Threshold clamp(100 / 8, 4, 16) = 12.5 ms: 115 ms > 112.5. Rounds of
        // 10, 20, 40 and 80 ACKs; ACKs 3 ms apart (no ACK train). ACKs 1 to 8
        // of round 4 only count samples and grow cwnd from 80 to 88; the
        // ninth ends slow start at cwnd 88 (kept), ssthresh 88.
        let mut r = Run::new(SlowStartKind::Hystart, 10);
        r.until_round(5, ms(3.0), step(115.0));
        assert_eq!(r.exit, Some((4, 9, 88.0)));
        assert_eq!(r.tcb.ssthresh, 88 * MSS);
    }

    #[test]
    fn hystart_needs_the_rtt_strictly_above_the_threshold() {
        let mut r = Run::new(SlowStartKind::Hystart, 10);
        r.until_round(6, ms(3.0), step(112.5));
        assert_eq!(r.exit, None);
        let mut r = Run::new(SlowStartKind::Hystart, 10);
        r.until_round(6, ms(3.0), step(112.501));
        assert_eq!(r.exit, Some((4, 9, 88.0)));
    }

    #[test]
    fn hystart_ack_train_ends_slow_start_after_half_the_minimum_rtt() {
        // Initial window 8: rounds of 8, 16, 32, 64 ACKs, 1 ms apart, RTT
        // 100 ms throughout. Round 4 starts at cwnd 64; its ACK 52 comes 51
        // ms after its first, more than 100 / 2: ssthresh = 64 + 51 = 115.
        let mut r = Run::new(SlowStartKind::Hystart, 8);
        r.until_round(5, ms(1.0), |_| ms(100.0));
        assert_eq!(r.exit, Some((4, 52, 115.0)));
        // One gap over 2 ms breaks the train for the rest of the round.
        let mut r = Run::new(SlowStartKind::Hystart, 8);
        r.until_round(3, ms(1.0), |_| ms(100.0));
        for _ in 0..10 {
            r.ack(ms(1.0), ms(100.0));
        }
        r.ack(ms(3.0), ms(100.0));
        r.until_round(4, ms(1.0), |_| ms(100.0));
        assert_eq!(r.exit, None);
    }

    #[test]
    fn hystart_starts_over_after_a_timeout_but_not_after_a_recovery() {
        let mut r = Run::new(SlowStartKind::Hystart, 10);
        r.until_round(5, ms(3.0), step(115.0));
        assert!(r.ss.found);
        r.ss.on_loss(&mut r.tcb);
        assert!(r.ss.found);
        r.ss.on_timeout(&mut r.tcb);
        assert!(!r.ss.found);
        assert_eq!(r.ss.delay_min, None);
    }

    #[test]
    fn hystart_plus_plus_enters_css_then_leaves_after_five_rounds() {
        // RFC 9406 with RttThresh = clamp(100 / 8, 4, 16) = 12.5 ms: the
        // eighth sample of round 4 (cwnd 88 000 after its growth) starts
        // Conservative Slow Start; ACKs 9 to 80 add 250 B each (106 000).
        // Rounds 5 to 8 (106, 132, 165, 206 ACKs) end at 132 500, 165 500,
        // 206 750 and 258 250; the first ACK of round 9 ends slow start
        // there, CSS having lasted 5 rounds, the partial one included.
        let mut r = Run::new(SlowStartKind::HystartPlusPlus, 10);
        r.until_round(4, ms(3.0), step(115.0));
        assert_eq!(r.tcb.cwnd, 106_000);
        assert_eq!(r.exit, None);
        let mut ends = Vec::new();
        for k in 5..9 {
            r.until_round(k, ms(3.0), step(115.0));
            ends.push(r.tcb.cwnd);
        }
        assert_eq!(ends, vec![132_500, 165_500, 206_750, 258_250]);
        r.ack(ms(3.0), ms(115.0));
        assert_eq!(r.exit, Some((9, 1, 258.25)));
        assert_eq!(r.tcb.ssthresh, 258_250);
        assert_eq!(r.tcb.slow_start_divisor, 1);
    }

    #[test]
    fn hystart_plus_plus_goes_back_to_slow_start_when_the_rtt_falls() {
        // Round 5's RTT 105 ms < the 115 ms that started CSS: at its eighth
        // sample, back to full slow start (then 12.5 -> 13.125 ms above 105).
        let rtt = |r: u32| match r {
            4 => ms(115.0),
            r if r >= 5 => ms(105.0),
            _ => ms(100.0),
        };
        let mut r = Run::new(SlowStartKind::HystartPlusPlus, 10);
        r.until_round(4, ms(3.0), rtt);
        for _ in 0..8 {
            r.ack(ms(3.0), ms(105.0));
        }
        assert_eq!(
            r.tcb.slow_start_divisor, 4,
            "the eighth ACK still grew by 250 B"
        );
        let before = r.tcb.cwnd;
        r.ack(ms(3.0), ms(105.0));
        assert_eq!(r.tcb.cwnd - before, MSS);
        r.until_round(10, ms(3.0), rtt);
        assert_eq!(r.exit, None);
    }

    #[test]
    fn a_loss_ends_hystart_plus_plus_for_good() {
        let mut r = Run::new(SlowStartKind::HystartPlusPlus, 10);
        r.until_round(4, ms(3.0), step(115.0));
        assert_eq!(r.tcb.slow_start_divisor, 4);
        r.ss.on_loss(&mut r.tcb);
        assert_eq!(r.tcb.slow_start_divisor, 1);
        r.until_round(12, ms(3.0), step(115.0));
        assert_eq!(r.exit, None);
    }
}
