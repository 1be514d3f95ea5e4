// SPDX-License-Identifier: MIT OR Apache-2.0
//! LEDBAT, Low Extra Delay Background Transport.
//!
//! RFC 6817 (Shalunov et al. 2012), and ns-3's `TcpLedbat`
//! (src/internet/model/tcp-ledbat.cc).
//!
//! A less-than-best-effort controller that steers the queuing delay it sees
//! towards a target. Each delay sample goes into a short list of current
//! delays (the last `current_filter`) and into the base history (one
//! minimum per minute, the last `base_history` minutes). On each ACK of new
//! data:
//!
//! ```text
//! queuing_delay = min(current delays) - min(base history)
//! off_target    = (target - queuing_delay) / target
//! cwnd         += gain * off_target * bytes_acked * MSS / cwnd
//! cwnd          = min(cwnd, flightsize + allowed_increase * MSS)
//! cwnd          = max(cwnd, min_cwnd * MSS)
//! ```
//!
//! so the window grows by at most `gain` segments per RTT, and shrinks as
//! fast when the queue exceeds the target. A loss halves the window (RFC
//! 6817: cwnd = max(cwnd / 2, MIN_CWND)).
//!
//! Two forms ([`LedbatForm`]): RFC 6817's (the paper profile, and the
//! linux, ns2 and inet profiles, which have no LEDBAT of their own), and
//! ns-3's (the ns3 profile), which runs NewReno's slow start until the
//! first congestion-avoidance step, counts delays in whole milliseconds
//! (its timestamp clock), keeps one sample fewer than each list's length,
//! starts a new base-history entry when more than 60 s have passed since
//! the last (the RFC: when the minute changes), truncates the window to a
//! whole byte after each step, keeps ssthresh one byte below cwnd, takes
//! TcpNewReno's ssthresh on a loss (max(pipe / 2, 2 MSS), RFC 6675's
//! pipe as ns-3's sender counts it: [`super::ns3::newreno_ssthresh`]), and caps
//! cwnd at the flight before the ACK, with no ALLOWED_INCREASE
//! (`allowed_increase` 0): its avoidance shrinks a window the flight fills
//! but never grows it, so after slow start only a window above the flight
//! (after a reduction) grows.
//!
//! Deviation: the RFC and ns-3 measure the one-way delay with timestamps
//! (ns-3: `tsval - tsecr` of the ACK); tcplab's ACKs carry no timestamp
//! echoes, so the delay samples are the ACKs' RTT samples. The base delay
//! is then the base RTT, and the queuing delay (their difference) is the
//! same as long as the reverse path does not queue. Before the first
//! sample the window grows as Reno's (ns-3's fallback without timestamps).
//! The RFC's window is a real number; tcplab carries the fraction of a byte
//! from one ACK to the next while nothing else changed cwnd.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{cong_avoid_per_ack, slow_start, Ack, CongestionControl};
use super::{LossCause, Probe, Tcb};
use crate::time::SimTime;

/// Whose LEDBAT.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LedbatForm {
    /// RFC 6817's pseudo-code.
    #[default]
    Rfc,
    /// ns-3's TcpLedbat (see the module's documentation).
    Ns3,
}

crate::deserialize_names!(LedbatForm {
    "rfc" => LedbatForm::Rfc,
    "ns3" => LedbatForm::Ns3,
});

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LedbatConfig {
    /// TARGET, seconds: 0.1 (RFC 6817 2.5.1: at most 100 ms; ns-3's
    /// `TargetDelay` 100 ms).
    pub target: f64,
    /// GAIN: 1 (RFC 6817 2.5.1: at most 1; ns-3's `Gain`).
    pub gain: f64,
    /// BASE_HISTORY, minutes of base delays kept: 10 (RFC 6817 2.5.1;
    /// ns-3's `BaseHistoryLen`).
    pub base_history: u32,
    /// CURRENT_FILTER, current delays kept: 4 (RFC 6817's example; ns-3's
    /// `NoiseFilterLen`).
    pub current_filter: u32,
    /// MIN_CWND, segments: 2 (RFC 6817 2.5.1; ns-3's `MinCwnd`).
    pub min_cwnd: u32,
    /// ALLOWED_INCREASE, segments above the flight: 1 (RFC 6817 2.5.1);
    /// 0 in ns-3's form, which has no such attribute and caps cwnd at the
    /// flight before the ACK (`m_highTxMark - m_lastAckedSeq +
    /// segmentsAcked * MSS`), so that its avoidance never grows a window
    /// the flight fills.
    pub allowed_increase: f64,
    /// Slow start until the first congestion-avoidance step, and again
    /// after the window falls to one segment (ns-3's `SSParam` =
    /// DO_SLOWSTART, its default); RFC 6817's pseudo-code has none.
    pub slow_start: bool,
    pub form: LedbatForm,
}

impl LedbatConfig {
    pub fn rfc() -> Self {
        LedbatConfig {
            target: 0.1,
            gain: 1.0,
            base_history: 10,
            current_filter: 4,
            min_cwnd: 2,
            allowed_increase: 1.0,
            slow_start: false,
            form: LedbatForm::Rfc,
        }
    }

    /// ns-3's TcpLedbat defaults.
    pub fn ns3() -> Self {
        LedbatConfig {
            slow_start: true,
            form: LedbatForm::Ns3,
            allowed_increase: 0.0,
            ..Self::rfc()
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.target > 0.0 && self.target.is_finite()) {
            return Err(("target", format!("{} must be > 0 seconds", self.target)));
        }
        if self.form == LedbatForm::Ns3 && self.target < 0.001 {
            return Err(("target", "ns-3 counts it in whole milliseconds".into()));
        }
        if !(self.gain > 0.0 && self.gain.is_finite()) {
            return Err(("gain", format!("{} must be > 0", self.gain)));
        }
        if !(1..=1000).contains(&self.base_history) {
            return Err(("base_history", "must be in 1..=1000".into()));
        }
        if !(1..=1000).contains(&self.current_filter) {
            return Err(("current_filter", "must be in 1..=1000".into()));
        }
        if self.min_cwnd == 0 {
            return Err(("min_cwnd", "must be at least 1".into()));
        }
        // RFC 6817 2.5.1: it MUST be greater than 0; ns-3's form has none.
        let least = if self.form == LedbatForm::Ns3 {
            0.0
        } else {
            f64::MIN_POSITIVE
        };
        if !(self.allowed_increase >= least && self.allowed_increase.is_finite()) {
            return Err((
                "allowed_increase",
                format!(
                    "{} must be {} (segments)",
                    self.allowed_increase,
                    if least == 0.0 { ">= 0" } else { "> 0" }
                ),
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ledbat {
    cfg: LedbatConfig,
    abc: bool,
    /// Delay samples, nanoseconds (whole milliseconds in ns-3's form).
    current: VecDeque<u64>,
    base: VecDeque<u64>,
    /// When the newest base-history entry began.
    last_rollover: Option<SimTime>,
    /// ns-3's LEDBAT_CAN_SS.
    can_ss: bool,
    /// The fraction of a byte carried over, and the cwnd it belongs to.
    carry: f64,
    carry_cwnd: u64,
    /// The last queuing delay computed, seconds.
    pub queue_delay: Option<f64>,
}

impl Ledbat {
    pub fn new(cfg: LedbatConfig, abc: bool) -> Self {
        let keep = |n: u32| n as usize + 1;
        Ledbat {
            current: VecDeque::with_capacity(keep(cfg.current_filter)),
            base: VecDeque::with_capacity(keep(cfg.base_history)),
            can_ss: cfg.slow_start,
            last_rollover: None,
            carry: 0.0,
            carry_cwnd: 0,
            queue_delay: None,
            abc,
            cfg,
        }
    }

    /// How many samples a list of length `len` keeps: ns-3's AddDelay
    /// drops the oldest when the list *reaches* its length.
    fn kept(&self, len: u32) -> usize {
        match self.cfg.form {
            LedbatForm::Rfc => len as usize,
            LedbatForm::Ns3 => (len as usize - 1).max(1),
        }
    }

    fn add(list: &mut VecDeque<u64>, d: u64, kept: usize) {
        list.push_back(d);
        while list.len() > kept {
            list.pop_front();
        }
    }

    /// The base delay, nanoseconds.
    pub fn base_delay(&self) -> Option<u64> {
        self.base.iter().copied().min()
    }

    fn sample(&mut self, now: SimTime, delay_ns: u64) {
        let d = match self.cfg.form {
            LedbatForm::Rfc => delay_ns,
            LedbatForm::Ns3 => delay_ns / 1_000_000 * 1_000_000,
        };
        let kept = self.kept(self.cfg.current_filter);
        Self::add(&mut self.current, d, kept);
        let new_entry = match (self.cfg.form, self.last_rollover) {
            (_, _) if self.base.is_empty() => true,
            // RFC 6817: a new entry when the minute changes.
            (LedbatForm::Rfc, None) => true,
            (LedbatForm::Rfc, Some(t)) => {
                now.as_nanos() / 60_000_000_000 != t.as_nanos() / 60_000_000_000
            }
            // ns-3: more than 60 s after the last (its clock starts at 0).
            (LedbatForm::Ns3, t) => now.as_nanos() - t.map_or(0, |t| t.as_nanos()) > 60_000_000_000,
        };
        if new_entry {
            // ns-3 leaves the first entry's time at 0.
            if !(self.cfg.form == LedbatForm::Ns3 && self.base.is_empty()) {
                self.last_rollover = Some(now);
            }
            let kept = self.kept(self.cfg.base_history);
            Self::add(&mut self.base, d, kept);
        } else if let Some(tail) = self.base.back_mut() {
            *tail = (*tail).min(d);
        }
    }

    /// The LEDBAT step of one ACK.
    fn step(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let (Some(cur), Some(base)) = (self.current.iter().copied().min(), self.base_delay())
        else {
            cong_avoid_per_ack(tcb);
            return;
        };
        let mss = tcb.mss as f64;
        let acked = ack.segments_acked as f64 * mss;
        // ns-3: the flight after the ACK plus the segments it acknowledged.
        let flight = tcb.bytes_in_flight() as f64 + acked;
        let max_cwnd = flight + (self.cfg.allowed_increase * mss).floor();
        let floor = self.cfg.min_cwnd as u64 * tcb.mss;
        let cwnd = match self.cfg.form {
            LedbatForm::Rfc => {
                let q = cur.saturating_sub(base) as f64 / 1e9;
                self.queue_delay = Some(q);
                let carry = if tcb.cwnd == self.carry_cwnd {
                    self.carry
                } else {
                    0.0
                };
                let w = tcb.cwnd as f64 + carry;
                let off = (self.cfg.target - q) / self.cfg.target;
                let bytes = if ack.bytes_acked > 0 {
                    ack.bytes_acked as f64
                } else {
                    acked
                };
                let w = (w + self.cfg.gain * off * bytes * mss / w)
                    .min(ack.prior_in_flight as f64 + self.cfg.allowed_increase * mss)
                    .max(floor as f64);
                let whole = w.floor();
                self.carry = w - whole;
                whole as u64
            }
            LedbatForm::Ns3 => {
                // Whole milliseconds, as ns-3's timestamps.
                let (cur, base) = (cur / 1_000_000, base / 1_000_000);
                let target = (self.cfg.target * 1000.0).floor();
                let offset = if cur > base {
                    target - (cur - base) as f64
                } else {
                    target + (base - cur) as f64
                } * self.cfg.gain;
                self.queue_delay = Some(cur.abs_diff(base) as f64 / 1000.0);
                let inc = offset * acked / (target * tcb.cwnd as f64);
                let w = (tcb.cwnd as f64 + inc * mss).max(0.0).trunc();
                (w.min(max_cwnd) as u64).max(floor)
            }
        };
        tcb.cwnd = cwnd.max(floor);
        self.carry_cwnd = tcb.cwnd;
        if tcb.cwnd <= tcb.ssthresh {
            // ns-3 keeps ssthresh a byte below cwnd (out of slow start);
            // harmless bookkeeping in the RFC's form, which has none.
            tcb.ssthresh = tcb.cwnd - 1;
        }
    }
}

impl CongestionControl for Ledbat {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "ledbat"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        if let Some(r) = ack.rtt {
            if !r.is_zero() {
                self.sample(tcb.now.max(ack.now), r.as_nanos());
            }
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        if tcb.cwnd <= tcb.mss && self.cfg.slow_start {
            self.can_ss = true;
        }
        if self.cfg.slow_start && self.can_ss && tcb.cwnd <= tcb.ssthresh {
            match self.cfg.form {
                // ns-3's NewReno: one segment per ACK, not capped at
                // ssthresh (TcpLedbat tests cwnd <= ssthresh).
                LedbatForm::Ns3 => tcb.cwnd += tcb.mss,
                LedbatForm::Rfc => {
                    slow_start(tcb, ack.bytes_acked, self.abc);
                }
            }
            return;
        }
        self.can_ss = false;
        self.step(tcb, ack);
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        match self.cfg.form {
            LedbatForm::Rfc => (tcb.cwnd / 2).max(self.cfg.min_cwnd as u64 * tcb.mss),
            LedbatForm::Ns3 => super::ns3::newreno_ssthresh(tcb),
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "queue_delay",
                "s",
                "the queuing delay: the current delay's filter minus the base delay",
            ),
            Probe::new(
                "base_delay",
                "s",
                "the base delay: the smallest delay of the base history",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "queue_delay" => self.queue_delay,
            "base_delay" => self.base_delay().map(|b| b as f64 / 1e9),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry::{self, Profile};
    use crate::cc::testing::{ms, CcDriver};
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    /// cwnd 10 segments, `flight` segments outstanding before each ACK,
    /// out of slow start.
    fn driver(cfg: LedbatConfig, flight: u64) -> CcDriver<Ledbat> {
        let mut d = CcDriver::new(Ledbat::new(cfg, false), MSS, 10);
        d.tcb.ssthresh = 5 * MSS;
        d.tcb.snd_max = 1 + flight * MSS;
        d
    }

    fn one_sample() -> LedbatConfig {
        LedbatConfig {
            current_filter: 1,
            ..LedbatConfig::rfc()
        }
    }

    fn ack(d: &mut CcDriver<Ledbat>, rtt_ms: u64) {
        let flight = d.tcb.snd_max - d.tcb.snd_una;
        d.ack(1, Some(ms(rtt_ms)));
        d.tcb.snd_max = d.tcb.snd_una + flight; // the flight stays
    }

    #[test]
    fn the_window_follows_the_distance_to_the_target() {
        // A filter of one sample, so that each sample is the current delay.
        // No queue (100 ms, the base): off_target 1, cwnd += 1 x 1000 x
        // 1000 / 10,000 = 100 bytes.
        let mut d = driver(one_sample(), 20);
        ack(&mut d, 100);
        assert_eq!(d.tcb.cwnd, 10_100);
        assert_eq!(d.cc.probe("queue_delay"), Some(0.0));
        // Queue 50 ms (half the target): off_target 0.5: + 1000 x 1000 x
        // 0.5 / 10,100 = 49.50 bytes (the fraction carried).
        ack(&mut d, 150);
        assert_eq!(d.tcb.cwnd, 10_149);
        // Queue 150 ms: off_target -0.5: - 500,000 / 10,149.50 = -49.26.
        ack(&mut d, 250);
        assert_eq!(d.tcb.cwnd, 10_100);
        assert_eq!(d.cc.probe("base_delay"), Some(0.1));
    }

    #[test]
    fn the_window_stays_within_the_flight_plus_allowed_increase_and_min_cwnd() {
        // 5 segments in flight before the ACK: at most 5000 + 1000.
        let mut d = driver(one_sample(), 5);
        ack(&mut d, 100);
        assert_eq!(d.tcb.cwnd, 6000);
        // Far above the target, the window falls to MIN_CWND = 2 segments
        // at most: 6000 + (100 - 1000)/100 x 1000 x 1000 / 6000 = 4500; ...
        d.tcb.snd_max = d.tcb.snd_una + 20 * MSS;
        ack(&mut d, 1100);
        assert_eq!(d.tcb.cwnd, 4500);
        for _ in 0..10 {
            ack(&mut d, 1100);
        }
        assert_eq!(d.tcb.cwnd, 2000);
    }

    #[test]
    fn ns3_keeps_one_sample_fewer_and_counts_whole_milliseconds() {
        // Samples 100, 100, 100 ms then 150.7 x 3: ns-3's noise filter of
        // length 4 keeps 3 samples, all 150 ms by then (whole ms): queue
        // 50 ms. The RFC's list of 4 still holds a 100 ms sample: no queue.
        let run = |cfg: LedbatConfig| {
            let mut d = driver(cfg, 20);
            d.tcb.ssthresh = 5 * MSS;
            for r in [100_000, 100_000, 100_000, 150_700, 150_700, 150_700] {
                d.ack(1, Some(SimDuration::from_micros(r)));
                d.tcb.snd_max = d.tcb.snd_una + 20 * MSS;
            }
            (d.cc.queue_delay, d.tcb.cwnd, d.tcb.ssthresh)
        };
        let (q, _, _) = run(LedbatConfig::rfc());
        assert_eq!(q, Some(0.0));
        let (q, cwnd, ssthresh) = run(LedbatConfig {
            slow_start: false,
            ..LedbatConfig::ns3()
        });
        assert_eq!(q, Some(0.05));
        // ns-3's steps, each truncated to a whole byte, inc = offset x
        // 1000 / (100 x cwnd) segments: no queue for five ACKs (the filter
        // of 3 still holds a 100 ms sample): 10,000 + 100 -> 10,100 + 99.01
        // -> 10,199 + 98.05 -> 10,297 + 97.12 -> 10,394 + 96.21 -> 10,490;
        // then 50 ms: + 50 x 1000 / (100 x 10,490) x 1000 = 47.66 -> 10,537.
        assert_eq!(cwnd, 10_537);
        assert_eq!(ssthresh, 5 * MSS, "cwnd stayed above ssthresh");
    }

    #[test]
    fn ns3_caps_the_window_at_the_flight_so_avoidance_grows_no_full_window() {
        // 10 segments in flight, cwnd 10 segments, no queue: the RFC's
        // ALLOWED_INCREASE lets the window grow 100 bytes; ns-3 caps it at
        // the flight before the ACK (9 in flight after it, plus the one
        // acknowledged): it stays.
        let ns3 = || LedbatConfig {
            slow_start: false,
            current_filter: 2,
            ..LedbatConfig::ns3()
        };
        let mut rfc = driver(one_sample(), 10);
        ack(&mut rfc, 100);
        assert_eq!(rfc.tcb.cwnd, 10_100);
        let mut d = driver(ns3(), 10);
        ack(&mut d, 100);
        assert_eq!(d.tcb.cwnd, 10_000);
        // With more in flight than the window (after a reduction) it grows:
        // 100 x 1000 / (100 x 10,000) segments = 100 bytes.
        let mut d = driver(ns3(), 12);
        ack(&mut d, 100);
        assert_eq!(d.tcb.cwnd, 10_100);
        // allowed_increase is 0 in ns-3's form, and may not be negative.
        assert_eq!(LedbatConfig::ns3().allowed_increase, 0.0);
        let bad = LedbatConfig {
            allowed_increase: -1.0,
            ..LedbatConfig::ns3()
        };
        assert_eq!(bad.validate().unwrap_err().0, "allowed_increase");
        let bad = LedbatConfig {
            allowed_increase: 0.0,
            ..LedbatConfig::rfc()
        };
        assert_eq!(bad.validate().unwrap_err().0, "allowed_increase");
    }

    #[test]
    fn ns3_slow_starts_until_its_first_avoidance_step() {
        let mut d = CcDriver::new(Ledbat::new(LedbatConfig::ns3(), false), MSS, 4);
        d.tcb.snd_max = 1 + 20 * MSS;
        // cwnd <= ssthresh (ns-3's test): NewReno's slow start, 1 MSS per ACK.
        d.tcb.ssthresh = 4 * MSS;
        ack(&mut d, 100);
        assert_eq!(d.tcb.cwnd, 5 * MSS);
        // Above ssthresh: a LEDBAT step (no queue: + 1000 x 1000 / 5000 =
        // 200), which ends slow start for good...
        ack(&mut d, 100);
        assert_eq!(d.tcb.cwnd, 5200);
        // ... even with ssthresh raised again: another step (+ 192.3).
        d.tcb.ssthresh = u64::MAX;
        ack(&mut d, 100);
        assert_eq!(d.tcb.cwnd, 5392);
        assert_eq!(d.tcb.ssthresh, 5391, "ns-3: one byte below cwnd");
        // Until the window falls to one segment (a timeout).
        d.tcb.cwnd = MSS;
        ack(&mut d, 100);
        assert_eq!(d.tcb.cwnd, 2 * MSS);
    }

    #[test]
    fn the_rfc_has_no_slow_start() {
        let mut d = CcDriver::new(Ledbat::new(LedbatConfig::rfc(), false), MSS, 2);
        d.tcb.snd_max = 1 + 20 * MSS;
        ack(&mut d, 100);
        // + 1000 x 1000 / 2000 = 500, not a whole segment.
        assert_eq!(d.tcb.cwnd, 2500);
    }

    #[test]
    fn a_loss_halves_the_window_at_least_min_cwnd() {
        let mut d = driver(LedbatConfig::rfc(), 20);
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 5000);
        d.tcb.cwnd = 3000;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 2000);
        // ns-3: TcpNewReno's half of the pipe (12 of the 20 segments in
        // flight), not of the window or the FlightSize.
        let mut n = driver(LedbatConfig::ns3(), 20);
        n.tcb.pipe = 12 * MSS as u32;
        assert_eq!(n.cc.ssthresh(&n.tcb, LossCause::DupAcks), 6000);
    }

    #[test]
    fn the_base_history_keeps_one_minimum_per_minute() {
        let cfg = LedbatConfig {
            base_history: 2,
            ..LedbatConfig::rfc()
        };
        let mut d = driver(cfg, 20);
        ack(&mut d, 100);
        d.advance(SimDuration::from_secs(59));
        ack(&mut d, 80); // the same minute: its minimum becomes 80
        assert_eq!(d.cc.base.iter().copied().collect::<Vec<_>>(), [80_000_000]);
        d.advance(SimDuration::from_secs(2)); // 61 s: a new minute
        ack(&mut d, 120);
        assert_eq!(d.cc.probe("base_delay"), Some(0.08));
        d.advance(SimDuration::from_secs(60)); // 121 s: the first minute goes
        ack(&mut d, 130);
        assert_eq!(d.cc.probe("base_delay"), Some(0.12));
    }

    #[test]
    fn registry_builds_ledbat_under_every_profile_and_names_a_bad_field() {
        for p in Profile::ALL {
            let form = &registry::defaults("ledbat", p).unwrap()["form"];
            assert_eq!(form, if p == Profile::Ns3 { "ns3" } else { "rfc" });
        }
        crate::cc::testing::builds_and_refuses("ledbat", "gain", serde_json::json!(0));
    }
}
