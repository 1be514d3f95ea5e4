// SPDX-License-Identifier: MIT OR Apache-2.0
//! BBR, version 1.
//!
//! Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: congestion-based
//! congestion control", ACM Queue 14(5), 2016, and the IETF draft
//! (draft-cardwell-iccrg-bbr-congestion-control-00) that details it.
//!
//! BBR models the path by two numbers: BtlBw, the windowed maximum of the
//! delivery rate over the last 10 round trips, and RTprop, the minimum RTT
//! over the last 10 seconds. It paces at pacing_gain * BtlBw and caps the
//! data in flight at cwnd_gain * BtlBw * RTprop (+ 3 segments, the
//! quantum Linux allows for delayed and stretched ACKs). States:
//! - Startup: gains 2/ln 2 = 2.885 until BtlBw has grown by less than 25%
//!   for 3 rounds (the pipe is full);
//! - Drain: pacing gain 1/2.885 until the data in flight is down to one BDP;
//! - ProbeBW: cycling the pacing gain through [5/4, 3/4, 1, 1, 1, 1, 1, 1],
//!   one phase per RTprop (the 5/4 phase lasts until in flight reaches
//!   5/4 BDP or a loss; the 3/4 phase ends early once in flight is down to
//!   one BDP); cwnd gain 2;
//! - ProbeRTT: when RTprop has not been refreshed for 10 s, cwnd drops to 4
//!   segments for max(200 ms, one round) to measure it again.
//!
//! The delivery-rate samples come from the sender (`tcp::sender`, after
//! draft-cheng-iccrg-delivery-rate-estimation). Not modelled: application-
//! limited samples (senders here are bulk or pause at OFF edges), and the
//! packet-conservation window of Linux's BBR during loss recovery; after a
//! timeout cwnd restarts from 1 segment and BBR's own rule regrows it. The
//! ProbeBW cycle starts at phase 2 (the paper starts at a random phase other
//! than 3/4), so runs stay reproducible without a random stream here.

use serde::{Deserialize, Serialize};

use super::{Ack, CongestionControl, LossCause, Probe, RateSample, Tcb};
use crate::time::{SimDuration, SimTime};

/// 2 / ln 2: the smallest gain that doubles the delivery rate each round.
const HIGH_GAIN: f64 = 2.885_390_081_777_927;
const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BbrConfig {
    /// `version = "v1"` named (the default when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<BbrV1>,
    /// Rounds in the BtlBw max filter.
    pub bw_window_rounds: u32,
    /// The RTprop min filter's window.
    pub rtprop_window: SimDuration,
    /// How long ProbeRTT holds cwnd at `min_cwnd_segments` (at least a round).
    pub probe_rtt_time: SimDuration,
    /// cwnd gain in ProbeBW.
    pub cwnd_gain: f64,
    pub min_cwnd_segments: u64,
}

/// The `version` of this controller: only "v1" (BBRv2 and v3 are
/// [`super::bbr3`]).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BbrV1 {
    V1,
}

impl BbrConfig {
    pub fn paper() -> Self {
        BbrConfig {
            version: None,
            bw_window_rounds: 10,
            rtprop_window: SimDuration::from_secs(10),
            probe_rtt_time: SimDuration::from_millis(200),
            cwnd_gain: 2.0,
            min_cwnd_segments: 4,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.bw_window_rounds == 0 {
            return Err(("bw_window_rounds", "must be >= 1".into()));
        }
        if self.cwnd_gain < 1.0 {
            return Err(("cwnd_gain", format!("{} must be >= 1", self.cwnd_gain)));
        }
        if self.min_cwnd_segments == 0 {
            return Err(("min_cwnd_segments", "must be >= 1".into()));
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    pub fn code(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    pub mode: Mode,
    /// Delivery-rate samples (bytes/s) with the round they were taken in,
    /// for the windowed max.
    bw_samples: std::collections::VecDeque<(u64, f64)>,
    /// BtlBw, bytes per second.
    pub btl_bw: f64,
    /// RTprop and when it was last set.
    pub rt_prop: Option<SimDuration>,
    rt_prop_stamp: SimTime,
    /// Round counting by delivered bytes.
    pub round: u64,
    next_round_delivered: u64,
    round_start: bool,
    /// Full-pipe detection in Startup.
    full_bw: f64,
    full_bw_count: u32,
    pub filled_pipe: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    cycle_index: usize,
    cycle_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
}

impl Bbr {
    pub fn new(cfg: BbrConfig) -> Self {
        Bbr {
            cfg,
            mode: Mode::Startup,
            bw_samples: std::collections::VecDeque::new(),
            btl_bw: 0.0,
            rt_prop: None,
            rt_prop_stamp: SimTime::ZERO,
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            full_bw: 0.0,
            full_bw_count: 0,
            filled_pipe: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
        }
    }

    /// The bandwidth-delay product at `gain`, bytes (None before a model).
    fn bdp(&self, gain: f64) -> Option<f64> {
        let rt = self.rt_prop?;
        (self.btl_bw > 0.0).then(|| gain * self.btl_bw * rt.as_secs_f64())
    }

    fn update_round(&mut self, rs: &RateSample) {
        self.round_start = false;
        if rs.newly_delivered > 0 && rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.total_delivered;
            self.round += 1;
            self.round_start = true;
        }
    }

    fn update_btl_bw(&mut self, rs: &RateSample) {
        if let Some(rate) = rs.rate() {
            self.bw_samples.push_back((self.round, rate));
        }
        let oldest = self
            .round
            .saturating_sub(self.cfg.bw_window_rounds as u64 - 1);
        while self.bw_samples.front().is_some_and(|&(r, _)| r < oldest) {
            self.bw_samples.pop_front();
        }
        self.btl_bw = self.bw_samples.iter().map(|&(_, b)| b).fold(0.0, f64::max);
    }

    fn check_full_pipe(&mut self) {
        if self.filled_pipe || !self.round_start {
            return;
        }
        if self.btl_bw >= self.full_bw * 1.25 {
            self.full_bw = self.btl_bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.filled_pipe = true;
        }
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.cfg.cwnd_gain;
        self.cycle_index = 2;
        self.cycle_stamp = now;
        self.pacing_gain = CYCLE[self.cycle_index];
    }

    fn advance_cycle(&mut self, now: SimTime, inflight: u64, losses: bool) {
        let Some(rt) = self.rt_prop else { return };
        let elapsed = now - self.cycle_stamp > rt;
        let inflight = inflight as f64;
        let bdp = self.bdp(1.0).unwrap_or(0.0);
        let next = match self.pacing_gain {
            g if g > 1.0 => elapsed && (losses || inflight >= self.bdp(g).unwrap_or(0.0)),
            g if g < 1.0 => elapsed || inflight <= bdp,
            _ => elapsed,
        };
        if next {
            self.cycle_index = (self.cycle_index + 1) % CYCLE.len();
            self.cycle_stamp = now;
            self.pacing_gain = CYCLE[self.cycle_index];
        }
    }

    fn update_rtprop(&mut self, now: SimTime, rtt: Option<SimDuration>) -> bool {
        let expired = now > self.rt_prop_stamp + self.cfg.rtprop_window;
        if let Some(r) = rtt {
            if self.rt_prop.is_none_or(|p| r <= p) || expired {
                self.rt_prop = Some(r);
                self.rt_prop_stamp = now;
            }
        }
        expired
    }
}

impl CongestionControl for Bbr {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        // Before any sample: pace the initial window over the handshake RTT
        // (or 1 ms), at the high gain.
        let rtt = tcb.srtt.map_or(0.001, |d| d.as_secs_f64().max(1e-6));
        tcb.pacing_rate = HIGH_GAIN * tcb.cwnd as f64 / rtt;
        self.rt_prop = tcb.srtt;
        self.rt_prop_stamp = tcb.now;
    }

    fn increase_window(&mut self, _tcb: &mut Tcb, _ack: &Ack) {
        // cwnd is set in `control`.
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        // BBR v1 does not reduce on loss by a multiplicative rule; keep a
        // threshold that leaves slow-start logic out of the way.
        self.prior_cwnd = tcb.cwnd;
        tcb.ssthresh
    }

    /// Linux's `bbr_undo_cwnd`: the window stays BBR's own, and a loss
    /// proved spurious restarts the search for a full pipe.
    fn undo_cwnd(&mut self, tcb: &Tcb, _prior_cwnd: u64) -> u64 {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        tcb.cwnd
    }

    fn controls_fully(&self) -> bool {
        true
    }

    fn control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        let now = tcb.now;
        let mss = tcb.mss;
        self.update_round(rs);
        self.update_btl_bw(rs);
        self.check_full_pipe();
        // Startup -> Drain -> ProbeBW.
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.mode == Mode::Drain && (rs.bytes_in_flight as f64) <= self.bdp(1.0).unwrap_or(0.0) {
            self.enter_probe_bw(now);
        }
        if self.mode == Mode::ProbeBw {
            self.advance_cycle(now, rs.bytes_in_flight, rs.losses);
        }
        // RTprop and ProbeRTT.
        let expired = self.update_rtprop(now, rs.rtt);
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.prior_cwnd = self.prior_cwnd.max(tcb.cwnd);
            self.probe_rtt_done = None;
            self.probe_rtt_round_done = false;
        }
        if self.mode == Mode::ProbeRtt {
            let min = self.cfg.min_cwnd_segments * mss;
            if self.probe_rtt_done.is_none() && rs.bytes_in_flight <= min {
                self.probe_rtt_done = Some(now + self.cfg.probe_rtt_time);
                self.next_round_delivered = rs.total_delivered;
            } else if self.probe_rtt_done.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && self.probe_rtt_done.is_some_and(|d| now > d) {
                    self.rt_prop_stamp = now;
                    tcb.cwnd = tcb.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw(now);
                    } else {
                        self.mode = Mode::Startup;
                        self.pacing_gain = HIGH_GAIN;
                        self.cwnd_gain = HIGH_GAIN;
                    }
                }
            }
        }
        // Pacing rate: only raise it during Startup until the pipe is full.
        if self.btl_bw > 0.0 {
            let rate = self.pacing_gain * self.btl_bw;
            if self.filled_pipe || rate > tcb.pacing_rate {
                tcb.pacing_rate = rate;
            }
        }
        // cwnd.
        let min_cwnd = self.cfg.min_cwnd_segments * mss;
        if self.mode == Mode::ProbeRtt {
            tcb.cwnd = tcb.cwnd.min(min_cwnd).max(min_cwnd);
            return;
        }
        let acked = rs.newly_delivered;
        match self.bdp(self.cwnd_gain) {
            Some(target) => {
                let target = target as u64 + 3 * mss;
                tcb.cwnd = if self.filled_pipe {
                    (tcb.cwnd + acked).min(target)
                } else if tcb.cwnd < target || rs.total_delivered < 10 * mss {
                    tcb.cwnd + acked
                } else {
                    tcb.cwnd
                };
            }
            None => tcb.cwnd += acked,
        }
        tcb.cwnd = tcb.cwnd.max(min_cwnd);
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "bwe",
                "bit/s",
                "BtlBw: the windowed maximum of the delivery rate",
            ),
            Probe::new(
                "mode",
                "code",
                "the state: 0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "bwe" => Some(self.btl_bw * 8.0),
            "mode" => Some(self.mode.code()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn tcb() -> Tcb {
        Tcb {
            snd_una: 1,
            snd_nxt: 1,
            srtt: Some(SimDuration::from_millis(100)),
            ..Tcb::new(10 * MSS, u64::MAX, MSS)
        }
    }

    /// One round of ACKs delivering `bytes` at `rate` bytes/s, RTT 100 ms.
    fn round(b: &mut Bbr, t: &mut Tcb, delivered: &mut u64, rate: f64, inflight: u64) {
        t.now += SimDuration::from_millis(100);
        let bytes = (rate * 0.1) as u64;
        let rs = RateSample {
            delivered: bytes,
            interval: SimDuration::from_millis(100),
            prior_delivered: *delivered,
            total_delivered: *delivered + bytes,
            newly_delivered: bytes,
            rtt: Some(SimDuration::from_millis(100)),
            bytes_in_flight: inflight,
            losses: false,
            ..RateSample::default()
        };
        *delivered += bytes;
        b.control(t, &rs);
    }

    #[test]
    fn startup_drain_probe_bw_transitions() {
        let mut b = Bbr::new(BbrConfig::paper());
        let mut t = tcb();
        b.init(&mut t);
        assert!((t.pacing_rate - HIGH_GAIN * 10_000.0 / 0.1).abs() < 1e-6);
        let mut d = 0;
        // Delivery rate doubling: still in Startup.
        for k in 0..4 {
            round(&mut b, &mut t, &mut d, 100_000.0 * 2f64.powi(k), 50_000);
            assert_eq!(b.mode, Mode::Startup);
        }
        // The rate stops growing: three rounds without 25% growth fill the pipe.
        for _ in 0..3 {
            round(&mut b, &mut t, &mut d, 800_000.0, 200_000);
        }
        assert!(b.filled_pipe);
        assert_eq!(b.mode, Mode::Drain);
        assert!((b.pacing_gain - 1.0 / HIGH_GAIN).abs() < 1e-12);
        // In flight drops to one BDP (800 kB/s * 100 ms = 80 kB): ProbeBW.
        round(&mut b, &mut t, &mut d, 800_000.0, 80_000);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(b.pacing_gain, 1.0);
        // cwnd = 2 * BDP + 3 MSS at most.
        assert!(t.cwnd <= 2 * 80_000 + 3 * MSS);
        assert!((t.pacing_rate - 800_000.0).abs() < 1e-6);
    }

    #[test]
    fn probe_bw_cycles_its_gains_once_per_rtprop() {
        let mut b = Bbr::new(BbrConfig::paper());
        let mut t = tcb();
        b.init(&mut t);
        b.filled_pipe = true;
        b.btl_bw = 1e6;
        b.rt_prop = Some(SimDuration::from_millis(100));
        b.rt_prop_stamp = SimTime::ZERO;
        b.enter_probe_bw(SimTime::ZERO);
        let mut gains = vec![b.pacing_gain];
        for k in 1..=8u64 {
            let now = SimTime::ZERO + SimDuration::from_millis(101 * k);
            b.advance_cycle(now, 125_000, false); // in flight = 1.25 BDP
            gains.push(b.pacing_gain);
        }
        assert_eq!(gains, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25, 0.75, 1.0]);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_lower_rtt() {
        let mut b = Bbr::new(BbrConfig::paper());
        let mut t = tcb();
        b.init(&mut t);
        let mut d = 0;
        for _ in 0..8 {
            round(&mut b, &mut t, &mut d, 800_000.0, 80_000);
        }
        assert_ne!(b.mode, Mode::ProbeRtt);
        // 10 s later, RTT samples never went below RTprop: ProbeRTT, cwnd 4 MSS.
        t.now += SimDuration::from_secs(10);
        round(&mut b, &mut t, &mut d, 800_000.0, 80_000);
        assert_eq!(b.mode, Mode::ProbeRtt);
        assert_eq!(t.cwnd, 4 * MSS);
        // In flight down to 4 MSS starts the 200 ms; it must have passed
        // (strictly, as Linux's after()) and a round ended: back to ProbeBW.
        round(&mut b, &mut t, &mut d, 800_000.0, 4 * MSS); // done at +200 ms
        round(&mut b, &mut t, &mut d, 800_000.0, 4 * MSS); // a round ends
        round(&mut b, &mut t, &mut d, 800_000.0, 4 * MSS); // +200 ms: not after yet
        assert_eq!(b.mode, Mode::ProbeRtt);
        round(&mut b, &mut t, &mut d, 800_000.0, 4 * MSS);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert!(t.cwnd > 4 * MSS);
    }
}
