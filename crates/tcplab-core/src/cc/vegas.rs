// SPDX-License-Identifier: MIT OR Apache-2.0
//! TCP Vegas.
//!
//! Brakmo, O'Malley, Peterson, "TCP Vegas: new techniques for congestion
//! detection and avoidance", ACM SIGCOMM 1994.
//!
//! Three mechanisms, each switchable:
//! - congestion avoidance: BaseRTT is the smallest RTT seen. Once per RTT,
//!   Expected = cwnd / BaseRTT and Actual = cwnd / RTT, and Diff = (Expected -
//!   Actual) * BaseRTT, in segments. Diff < alpha: cwnd += 1 segment; Diff >
//!   beta: cwnd -= 1 segment; otherwise hold. RTT is the smallest sample of
//!   the round (as Linux's tcp_vegas.c does; the paper times one segment per
//!   RTT).
//! - modified slow start: grow exponentially only every other RTT, holding
//!   cwnd in between; leave slow start when Diff > gamma, with cwnd cut to
//!   the target window (cwnd * BaseRTT / RTT) + 1 segment.
//! - fine-grained retransmission (in the sender, see `tcp::sender`): on a
//!   duplicate ACK, and on the first two new ACKs after a retransmission,
//!   retransmit at once if the oldest unacknowledged segment was sent longer
//!   ago than the fine-grained timeout (SRTT + 4 RTTVAR, without the 1 s
//!   floor); the window is reduced only for losses of data sent after the
//!   last reduction.
//!
//! Defaults: alpha 1, beta 3, gamma 1 (the paper and ns-2); Linux and ns-3
//! use alpha 2, beta 4 (the "linux" and "ns3" profiles), and the linux
//! profile runs Linux's own rounds ([`Rounds::Linux`],
//! [`super::vegas_linux`]). On loss the window
//! is halved as in Reno (`loss_keep` 0.5). ns-2.35's Agent/TCP/Vegas (the
//! "ns2" profile) keeps 3/4 of it on a loss detected by duplicate ACKs
//! (tcp-vegas.cc: win - win / 4, of the whole segments, at least 2), and
//! grows by 1/cwnd per ACK in the rounds whose Diff is below alpha (while
//! cwnd is at most 3 segments above what is outstanding), rather than by one
//! segment at the end of the round (`increase_per_ack`), and measures its
//! rounds as ns-2 does ([`Rounds::Ns2`]: the mean of per-ACK samples,
//! Expected from the outstanding segments plus one, Diff rounded, its own
//! slow-start exit).

use serde::{Deserialize, Serialize};

use super::reno::Reno;
use super::vegas_linux::LinuxRounds;
use super::{reno_ssthresh, Ack, CongestionControl, LossCause, Probe, Tcb};
use crate::time::SimDuration;

/// How Vegas's fine-grained timeout is computed.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FineTimeout {
    /// The connection's own estimator: SRTT + 4 RTTVAR (at least the clock
    /// granularity, without the RTO's floor), against the segment's last
    /// transmission.
    #[default]
    Rfc6298,
    /// The BSD-style estimator of Vegas's code, as the channel paper's
    /// Algorithm 1 and INET's `TCPVegas` compute it: on each new ACK whose
    /// oldest newly acknowledged segment was sent once, with s its RTT
    /// (from its first transmission), n = s - sa/8, sa += n, sd += |n| -
    /// sd/4 (sa: 8 SRTT, sd: 4 mean deviations; the first ACK starts them
    /// at sa = 8 s, sd = s); timeout = (sa/4 + sd)/2 plus a sixteenth of
    /// itself, about 1.06 (SRTT + 2 deviations); a segment is overdue
    /// when its first transmission is that old. Each retransmission this
    /// triggers stretches the timeout by 9/8, or doubles it if the
    /// segment had been sent more than once.
    Bsd,
    /// ns-2.35's tcp-vegas.cc: the same estimator and stretching as
    /// [`FineTimeout::Bsd`], but started at the SYN's ACK (sa = 8 s, sd =
    /// s for the handshake's RTT s: a timeout of 1.5 s) and sampled by the
    /// newest segment each new ACK covers, if it was sent once; a segment
    /// is overdue when its last transmission is at least the timeout old.
    /// "Sent once" is as ns-2's ring of send counts says (see
    /// `tcp::fine_retx`).
    Ns2,
}

crate::deserialize_names!(FineTimeout {
    "rfc6298" => FineTimeout::Rfc6298,
    "bsd" => FineTimeout::Bsd,
    "ns2" => FineTimeout::Ns2,
});

/// How a round's Diff is measured and acted on.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Rounds {
    /// The paper's form: RTT is the smallest sample of the round, Diff =
    /// cwnd (RTT - BaseRTT) / RTT; slow start ends at Diff > gamma with
    /// cwnd cut to the target window plus one segment.
    #[default]
    Paper,
    /// ns-2.35's tcp-vegas.cc: RTT is the mean of the round's per-ACK
    /// samples (each new ACK's newest segment, if sent once); Actual =
    /// the segments sent in the round / RTT; Expected = (outstanding + 1)
    /// / BaseRTT; Diff = (Expected - Actual) BaseRTT rounded to the nearest
    /// whole segment; a round ends at the ACK of the first segment sent
    /// after it began. Slow start decides every other round, and at Diff >
    /// gamma sets ssthresh to 2 segments and cuts cwnd by an eighth. Every
    /// new ACK of a round that grows adds 1 segment (slow start) or 1/cwnd
    /// (Diff < alpha) while cwnd is at most 3 segments above what is
    /// outstanding (2 above the outstanding plus one, as ns-2 counts).
    Ns2,
    /// Linux's tcp_vegas.c ([`super::vegas_linux`]): every RTT sample
    /// counts; Diff = cwnd (RTT - BaseRTT) / BaseRTT in whole segments;
    /// a round of two samples or fewer grows as Reno; ordinary slow start;
    /// off outside the Open state.
    Linux,
    /// Linux 2.6.22's tcp_vegas.c, which ns-2.35's TCP-Linux runs
    /// ([`super::vegas_linux`]): as [`Rounds::Linux`], but Diff = (the
    /// segments sent in the last round) (RTT - BaseRTT) / RTT in half
    /// segments, cwnd steps towards the window the last round began with,
    /// slow start's exit sets ssthresh to 2 segments, and Reno's growth is
    /// 2.6.22's.
    #[serde(rename = "linux-2.6.22")]
    Linux2622,
}

crate::deserialize_names!(Rounds {
    "paper" => Rounds::Paper,
    "ns2" => Rounds::Ns2,
    "linux" => Rounds::Linux,
    "linux-2.6.22" => Rounds::Linux2622,
});

impl Rounds {
    /// Linux's rounds, today's or 2.6.22's.
    fn is_linux(self) -> bool {
        matches!(self, Rounds::Linux | Rounds::Linux2622)
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VegasConfig {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub congestion_avoidance: bool,
    pub modified_slow_start: bool,
    pub fine_retransmit: bool,
    /// How its timeout is computed: "bsd" (the Vegas code's estimator, as
    /// the channel paper's Algorithm 1 and INET), "ns2" (that estimator as
    /// ns-2's tcp-vegas.cc runs it) or "rfc6298" (SRTT + 4 RTTVAR).
    pub fine_timeout: FineTimeout,
    /// The fraction of the window kept on a loss detected by duplicate
    /// ACKs (0.5: Reno's halving of the flight).
    pub loss_keep: f64,
    /// Grow by 1/cwnd per ACK through a round that decided to grow (ns-2),
    /// instead of one segment at its end.
    pub increase_per_ack: bool,
    /// Each retransmission (fast or fine-grained) backs the retransmission
    /// timer off, as ns-2's Vegas (`reset_rtx_timer(1)`), until an RTT
    /// sample arrives.
    pub retransmit_backoff: bool,
    /// How a round measures Diff and acts on it ([`Rounds`]).
    pub rounds: Rounds,
}

impl VegasConfig {
    pub fn paper() -> Self {
        VegasConfig {
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            congestion_avoidance: true,
            modified_slow_start: true,
            fine_retransmit: true,
            fine_timeout: FineTimeout::Bsd,
            loss_keep: 0.5,
            increase_per_ack: false,
            retransmit_backoff: false,
            rounds: Rounds::Paper,
        }
    }
    /// ns-2.35's Agent/TCP/Vegas (v_alpha_ 1, v_beta_ 3, v_gamma_ 1).
    pub fn ns2() -> Self {
        VegasConfig {
            loss_keep: 0.75,
            increase_per_ack: true,
            retransmit_backoff: true,
            fine_timeout: FineTimeout::Ns2,
            rounds: Rounds::Ns2,
            ..Self::paper()
        }
    }
    /// INET 2.2's `TCPVegas` (alpha 2, beta 4, gamma 1 segment; a loss by
    /// duplicate ACKs keeps w - w/4 segments; the BSD-style timeout).
    pub fn inet() -> Self {
        VegasConfig {
            alpha: 2.0,
            beta: 4.0,
            loss_keep: 0.75,
            ..Self::paper()
        }
    }
    /// Linux's tcp_vegas.c (alpha 2, beta 4, gamma 1; its own rounds).
    pub fn linux() -> Self {
        VegasConfig {
            modified_slow_start: false,
            rounds: Rounds::Linux,
            ..Self::ns3()
        }
    }
    /// ns-3's TcpVegas parameters (alpha 2, beta 4, gamma 1) on the
    /// paper's rounds.
    pub fn ns3() -> Self {
        VegasConfig {
            alpha: 2.0,
            beta: 4.0,
            fine_retransmit: false,
            ..Self::paper()
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.alpha < 0.0 || self.gamma < 0.0 {
            return Err(("alpha", "alpha and gamma must be >= 0".into()));
        }
        if !(self.loss_keep > 0.0 && self.loss_keep < 1.0) {
            return Err((
                "loss_keep",
                format!("{} is not a fraction between 0 and 1", self.loss_keep),
            ));
        }
        thresholds_in_order(self.alpha, self.beta)
    }
}

/// Vegas's thresholds: `beta` below `alpha` is refused, naming `beta` (the
/// paper's, Linux's and ns-3's forms alike).
pub(crate) fn thresholds_in_order<T: PartialOrd + std::fmt::Display>(
    alpha: T,
    beta: T,
) -> Result<(), (&'static str, String)> {
    if beta < alpha {
        return Err(("beta", format!("beta ({beta}) must be >= alpha ({alpha})")));
    }
    Ok(())
}

#[derive(Clone, Debug)]
pub struct Vegas {
    pub cfg: VegasConfig,
    reno: Reno,
    /// Smallest RTT ever seen.
    pub base_rtt: Option<SimDuration>,
    /// Smallest RTT of the current round.
    round_rtt: Option<SimDuration>,
    /// The round ends when snd_una passes this (snd_nxt at its start).
    round_end: u64,
    /// Modified slow start: grow in this round.
    grow: bool,
    /// The last computed Diff, segments.
    pub diff: f64,
    /// With `increase_per_ack`: this round grows.
    incr: bool,
    /// ns-2's rounds: the round's per-ACK samples (sum, count), the
    /// sample of the ACK being processed (added after its decision), the
    /// round's start, snd_nxt at it, and the growth per ACK (segments).
    ns2: Ns2Round,
    /// Linux's rounds ([`Rounds::Linux`]).
    linux: LinuxRounds,
}

#[derive(Clone, Debug, Default)]
struct Ns2Round {
    sum: f64,
    count: u32,
    pending: Option<f64>,
    began: Option<crate::time::SimTime>,
    tag: u64,
    incr: f64,
    /// Slow start decides every other round (ns-2's v_inc_flag_).
    decide: bool,
    /// The initial window, held back after the handshake until the first
    /// ACK of data (ns-2's Vegas tests `last_ack_ == 0` before its new ACK
    /// moves `last_ack_`, so the SYN's ACK leaves cwnd at one segment).
    initial: Option<u64>,
}

impl Ns2Round {
    /// Adds the sample an ACK left for after its decision to the round's.
    fn fold_pending(&mut self) {
        if let Some(s) = self.pending.take() {
            self.sum += s;
            self.count += 1;
        }
    }
}

impl Vegas {
    pub fn new(cfg: VegasConfig, abc: bool) -> Self {
        let v2622 = cfg.rounds == Rounds::Linux2622;
        Vegas {
            cfg,
            reno: Reno::new(abc),
            base_rtt: None,
            round_rtt: None,
            round_end: 0,
            grow: true,
            diff: 0.0,
            incr: false,
            ns2: Ns2Round {
                decide: true,
                ..Ns2Round::default()
            },
            linux: LinuxRounds::new(v2622),
        }
    }

    /// ns-2's per-ACK step ([`Rounds::Ns2`]): a round's decision when this
    /// ACK covers the first segment sent after the round began, then the
    /// growth, then this ACK's sample.
    fn ns2_ack(&mut self, tcb: &mut Tcb, now: crate::time::SimTime) {
        let mss = tcb.mss as f64;
        let r = &mut self.ns2;
        let outstanding = tcb.snd_nxt.saturating_sub(tcb.snd_una) as f64 / mss;
        if tcb.snd_una > r.tag {
            let rtt = if r.count > 0 {
                r.sum / r.count as f64
            } else {
                r.began.map_or(0.0, |b| (now - b).as_secs_f64())
            };
            r.sum = 0.0;
            r.count = 0;
            let sent = tcb.snd_nxt.saturating_sub(r.tag) as f64 / mss;
            if rtt > 0.0 {
                let base = match self.base_rtt {
                    Some(b) if b.as_secs_f64() <= rtt && sent > 1.0 => b.as_secs_f64(),
                    _ => {
                        self.base_rtt = Some(SimDuration::from_secs_f64(rtt).unwrap_or_default());
                        rtt
                    }
                };
                let actual = sent / rtt;
                let expect = (outstanding + 1.0) / base;
                let delta = ((expect - actual) * base + 0.5).trunc();
                self.diff = delta;
                let cwnd = tcb.cwnd as f64 / mss;
                if tcb.in_slow_start() {
                    r.decide = !r.decide;
                    r.incr = 0.0;
                    if r.decide {
                        if delta > self.cfg.gamma {
                            tcb.ssthresh = 2 * tcb.mss;
                            let cut = (cwnd - cwnd / 8.0).max(2.0);
                            tcb.set_cwnd((cut * mss) as u64);
                        } else {
                            r.incr = 1.0;
                        }
                    }
                } else if delta > self.cfg.beta {
                    tcb.set_cwnd(((cwnd - 1.0).max(2.0) * mss) as u64);
                    r.incr = 0.0;
                } else if delta < self.cfg.alpha {
                    r.incr = 1.0 / cwnd;
                } else {
                    r.incr = 0.0;
                }
            }
            r.tag = tcb.snd_nxt;
            r.began = Some(now);
        }
        if r.incr == 1.0 && tcb.cwnd >= tcb.ssthresh {
            r.incr = 0.0;
        }
        let cwnd = tcb.cwnd as f64 / mss;
        // ns-2 compares with t_seqno_ - last_ack_: the outstanding segments
        // plus one.
        if r.incr > 0.0 && cwnd - (outstanding + 1.0) <= 2.0 {
            tcb.set_cwnd(((cwnd + r.incr) * mss) as u64);
        }
        r.fold_pending();
    }

    /// End of an RTT round: compare Expected and Actual.
    fn end_round(&mut self, tcb: &mut Tcb) {
        let (Some(base), Some(rtt)) = (self.base_rtt, self.round_rtt) else {
            return;
        };
        let (base, rtt) = (base.as_secs_f64(), rtt.as_secs_f64());
        let mss = tcb.mss;
        let cwnd = tcb.cwnd_segments();
        // (cwnd/Base - cwnd/RTT) * Base = cwnd (RTT - Base) / RTT
        self.diff = cwnd * (rtt - base) / rtt;
        if tcb.in_slow_start() {
            if self.cfg.modified_slow_start && self.diff > self.cfg.gamma {
                let target = (cwnd * base / rtt).floor() as u64 + 1;
                tcb.set_cwnd(tcb.cwnd.min(target * mss));
                tcb.ssthresh = tcb.cwnd;
            }
        } else if self.diff < self.cfg.alpha {
            if self.cfg.increase_per_ack {
                self.incr = true;
                return;
            }
            tcb.cwnd += mss;
        } else if self.diff > self.cfg.beta {
            tcb.set_cwnd(tcb.cwnd.saturating_sub(mss).max(2 * mss));
            // A decrease keeps Vegas in congestion avoidance: with ssthresh
            // left above cwnd the next round would be slow start again,
            // and its exit would cut the window by Expected/Actual (as
            // Linux's tcp_vegas.c lowers ssthresh with cwnd).
            tcb.ssthresh = tcb.ssthresh.min(tcb.cwnd);
        }
    }
}

impl CongestionControl for Vegas {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        if self.cfg.rounds.is_linux() {
            self.linux.init(tcb);
        }
        // After a handshake (nothing sent yet), ns-2's Vegas sends one
        // segment and takes its initial window at the ACK of that segment
        // (tcp-vegas.cc `recv`: `if (last_ack_ == 0 && delay_growth_)`
        // before `recv_newack_helper`; TcpAgent::recv tests it after, at
        // the SYN's ACK).
        if self.cfg.rounds == Rounds::Ns2 && tcb.snd_max == tcb.snd_una {
            self.ns2.initial = Some(tcb.cwnd);
            tcb.set_cwnd(tcb.mss);
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, _ev: super::CwndEvent) {
        if self.cfg.rounds.is_linux() {
            self.linux.init(tcb);
        }
    }

    fn on_ack_sample(&mut self, _tcb: &Tcb, ack: &Ack) {
        if self.cfg.rounds.is_linux() {
            self.linux.acked(ack.bytes_acked);
            if let Some(r) = ack.rtt {
                self.linux.sample(r);
            }
            return;
        }
        if self.cfg.rounds == Rounds::Ns2 {
            // ns-2 samples every new ACK's newest segment (sent once) and
            // adds it after the ACK's decision; a sample of an ACK no
            // decision saw (in recovery) counts before the next one.
            self.ns2.fold_pending();
            if let Some(s) = ack.seg_rtt {
                self.base_rtt = Some(self.base_rtt.map_or(s, |b| b.min(s)));
                self.ns2.pending = Some(s.as_secs_f64());
            }
            return;
        }
        if let Some(r) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.round_rtt = Some(self.round_rtt.map_or(r, |b| b.min(r)));
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        if !self.cfg.congestion_avoidance {
            self.reno.increase_window(tcb, ack);
            return;
        }
        if self.cfg.rounds == Rounds::Ns2 {
            if let Some(w) = self.ns2.initial.take() {
                tcb.set_cwnd(w);
            }
            self.ns2_ack(tcb, ack.now);
            return;
        }
        if self.cfg.rounds.is_linux() {
            let p = (self.cfg.alpha, self.cfg.beta, self.cfg.gamma);
            self.linux.cong_avoid(tcb, ack, self.reno.abc, p);
            return;
        }
        if tcb.snd_una >= self.round_end {
            if self.round_end > 0 {
                self.incr = false;
                self.end_round(tcb);
                self.grow = !self.grow;
            }
            self.round_end = tcb.snd_nxt;
            self.round_rtt = None;
        }
        if tcb.in_slow_start() {
            if !self.cfg.modified_slow_start || self.grow {
                super::slow_start(tcb, ack.bytes_acked, self.reno.abc);
            }
        } else if self.incr && tcb.cwnd <= tcb.bytes_in_flight() + 3 * tcb.mss {
            super::cong_avoid_per_ack(tcb);
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, cause: LossCause) -> u64 {
        if self.cfg.rounds.is_linux() {
            return self.linux.ssthresh(tcb);
        }
        if cause == LossCause::Timeout || self.cfg.loss_keep == 0.5 {
            return reno_ssthresh(tcb);
        }
        // ns-2: of the whole segments of cwnd, keep win - win x (1 - keep),
        // or 2 segments when the window is 3 or less.
        let win = tcb.cwnd / tcb.mss;
        let keep = if win <= 3 {
            2
        } else {
            win - (win as f64 * (1.0 - self.cfg.loss_keep)).floor() as u64
        };
        keep.max(2) * tcb.mss
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: super::CaState) {
        if self.cfg.rounds == Rounds::Ns2 {
            return; // ns-2's rounds run on through recoveries and timeouts
        }
        if self.cfg.rounds.is_linux() {
            self.linux.on_state(tcb, to);
            return;
        }
        // A new round starts after any state change.
        self.round_end = 0;
        self.round_rtt = None;
        self.incr = false;
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "diff",
                "segments",
                "Diff = (Expected - Actual) * BaseRTT, once per RTT",
            ),
            Probe::new("base_rtt", "s", "BaseRTT: the smallest RTT measured"),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "diff" if self.cfg.rounds.is_linux() => Some(self.linux.diff()),
            "diff" => Some(self.diff),
            "base_rtt" if self.cfg.rounds.is_linux() => self.linux.base().map(|d| d.as_secs_f64()),
            "base_rtt" => self.base_rtt.map(|d| d.as_secs_f64()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::{ms, CcDriver};

    const MSS: u64 = 1000;

    /// A Vegas in congestion avoidance with cwnd `w` segments, BaseRTT 100 ms,
    /// then one round with RTT `rtt` ms.
    fn round(w: u64, rtt: u64, cfg: VegasConfig) -> (u64, f64) {
        let mut d = CcDriver::new(Vegas::new(cfg, false), MSS, w);
        d.tcb.ssthresh = 1000; // not slow start
        d.ack_with_nxt(1, Some(ms(100)), 1 + w * MSS); // starts round 1
        d.ack_with_nxt(w as u32, Some(ms(rtt)), 1 + 2 * w * MSS); // ends it
        (d.tcb.cwnd / MSS, d.cc.diff)
    }

    #[test]
    fn plus_one_zero_minus_one_decisions() {
        // Diff = w (RTT - Base) / RTT. w = 10:
        // RTT 105: 10 * 5/105 = 0.476 < alpha 1 -> +1.
        let (w, diff) = round(10, 105, VegasConfig::paper());
        assert!((diff - 10.0 * 5.0 / 105.0).abs() < 1e-9);
        assert_eq!(w, 11);
        // RTT 125: 10 * 25/125 = 2: between 1 and 3 -> hold.
        assert_eq!(round(10, 125, VegasConfig::paper()).0, 10);
        // RTT 200: 10 * 100/200 = 5 > beta 3 -> -1.
        assert_eq!(round(10, 200, VegasConfig::paper()).0, 9);
        // With ns-3's alpha 2, beta 4 (the paper's rounds), 1.67 grows:
        // RTT 120: 10 * 20/120 = 1.67 < 2 -> +1.
        assert_eq!(round(10, 120, VegasConfig::ns3()).0, 11);
    }

    #[test]
    fn modified_slow_start_grows_every_other_round_and_exits_on_gamma() {
        let mut d = CcDriver::new(Vegas::new(VegasConfig::paper(), false), MSS, 2);
        // Round A (grow) runs until snd_una reaches 3001: +1 MSS per ACK.
        d.ack_with_nxt(1, Some(ms(100)), 3001);
        d.ack_with_nxt(1, Some(ms(100)), 3001);
        assert_eq!(d.tcb.cwnd, 4000);
        // This ACK ends round A (Diff 0 at RTT = BaseRTT); round B holds.
        d.ack_with_nxt(1, Some(ms(100)), 9001);
        assert_eq!(d.tcb.cwnd, 4000);
        // Round B ends with RTT 200: Diff = 4 * (200 - 100)/200 = 2 > gamma 1:
        // leave slow start with cwnd = min(cwnd, floor(4 * 100/200) + 1 = 3).
        d.ack_with_nxt(6, Some(ms(200)), 13001);
        assert_eq!(d.tcb.cwnd, 3000);
        assert_eq!(d.tcb.ssthresh, 3000);
    }

    #[test]
    fn a_decrease_in_congestion_avoidance_does_not_restart_slow_start() {
        let mut d = CcDriver::new(Vegas::new(VegasConfig::paper(), false), MSS, 10);
        d.tcb.ssthresh = 10 * MSS; // in congestion avoidance at cwnd 10
        d.ack_with_nxt(1, Some(ms(100)), 1 + 10 * MSS);
        // The round ends with RTT 200: Diff = 10 * 100/200 = 5 > beta 3.
        d.ack_with_nxt(10, Some(ms(200)), 1 + 20 * MSS);
        assert_eq!(d.tcb.cwnd, 9 * MSS);
        assert_eq!(d.tcb.ssthresh, 9 * MSS);
        assert!(!d.tcb.in_slow_start());
    }

    #[test]
    fn ns2_s_vegas_grows_per_ack_and_keeps_three_quarters_on_a_loss() {
        // A round with Diff < alpha: the paper's Vegas adds one segment at the
        // round's end; ns-2's adds 1/cwnd per ACK through the next round
        // while cwnd is at most 3 segments above what is outstanding.
        // (With the paper's rounds; ns-2's own are tested below.)
        let per_ack = VegasConfig {
            rounds: Rounds::Paper,
            ..VegasConfig::ns2()
        };
        let (w, _) = round(10, 105, per_ack.clone());
        assert_eq!(w, 10, "no step at the round's end");
        let mut d = CcDriver::new(Vegas::new(per_ack, false), MSS, 10);
        d.tcb.ssthresh = 1000;
        d.ack_with_nxt(1, Some(ms(100)), 1 + 10 * MSS);
        d.ack_with_nxt(10, Some(ms(105)), 1 + 20 * MSS); // ends the round: grow
        let before = d.tcb.cwnd;
        d.tcb.snd_max = 1 + 21 * MSS; // 10 segments outstanding after the ACK
        d.ack_with_nxt(1, Some(ms(105)), 1 + 21 * MSS);
        assert_eq!(d.tcb.cwnd - before, MSS * MSS / before);
        // Not while cwnd is more than 3 segments above what is outstanding.
        let before = d.tcb.cwnd;
        d.ack_with_nxt(5, Some(ms(105)), 1 + 21 * MSS);
        assert_eq!(d.tcb.cwnd, before);
        // A loss by duplicate ACKs: of 20 whole segments, 20 - 20/4 = 15.
        d.tcb.cwnd = 20 * MSS;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 15 * MSS);
        d.tcb.cwnd = 3 * MSS;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 2 * MSS);
        // The paper's halves the flight.
        let mut p = Vegas::new(VegasConfig::paper(), false);
        d.tcb.cwnd = 20 * MSS;
        assert_eq!(
            p.ssthresh(&d.tcb, LossCause::DupAcks),
            reno_ssthresh(&d.tcb)
        );
    }

    #[test]
    fn ns2_s_vegas_sends_one_segment_after_the_handshake_and_its_window_at_its_ack() {
        // tcp-vegas.cc tests `last_ack_ == 0` before the new ACK moves
        // last_ack_: at the SYN's ACK it is still -1, so cwnd stays one
        // segment; at the first data ACK it is 0, so cwnd becomes
        // windowInit_ (2) before Vegas's step, which decides nothing yet
        // (no round has begun). With a delayed-ACK sink that lone segment
        // waits for the receiver's timer: traced in ns-2, the flow times out
        // once at 0.3625 s on the lossless Westwood path.
        let mut d = CcDriver::new(Vegas::new(VegasConfig::ns2(), false), MSS, 2);
        assert_eq!(d.tcb.cwnd, MSS);
        d.ack_with_nxt(1, Some(ms(91)), 1 + MSS);
        assert_eq!(d.tcb.cwnd, 2 * MSS);
        // A start without a handshake (data already sent) keeps its window.
        let mut tcb = Tcb::new(2 * MSS, u64::MAX, MSS);
        tcb.snd_max = 1 + 2 * MSS;
        let mut v = Vegas::new(VegasConfig::ns2(), false);
        v.init(&mut tcb);
        assert_eq!(tcb.cwnd, 2 * MSS);
        // Linux's rounds start with the whole window.
        let d = CcDriver::new(Vegas::new(VegasConfig::linux(), false), MSS, 2);
        assert_eq!(d.tcb.cwnd, 2 * MSS);
    }

    /// ns-2's rounds in congestion avoidance with cwnd 10: a first ACK
    /// (sample 100 ms) tags the round at snd_nxt 10,001; nine ACKs with
    /// samples of `rtt` ms follow, one segment sent per ACK; the tenth ACK
    /// (carrying a 1 s sample, which must count only in the next round)
    /// covers the tagged segment and decides. Returns cwnd after it (bytes)
    /// and the Diff.
    fn ns2_round(rtt: u64) -> (u64, f64) {
        let mut d = CcDriver::new(Vegas::new(VegasConfig::ns2(), false), MSS, 10);
        d.tcb.ssthresh = 2 * MSS;
        d.ack_with_nxt(1, Some(ms(100)), 1 + 10 * MSS);
        for k in 1..10 {
            d.ack_with_nxt(1, Some(ms(rtt)), 1 + (10 + k) * MSS);
        }
        assert_eq!(
            d.tcb.cwnd,
            10 * MSS,
            "no decision before the tagged segment"
        );
        d.ack_with_nxt(1, Some(ms(1000)), 1 + 20 * MSS);
        (d.tcb.cwnd, d.cc.diff)
    }

    #[test]
    fn ns2_s_rounds_average_the_acks_samples_and_round_diff() {
        // At the decision: 10 segments sent in the round, 9 outstanding
        // after the ACK, BaseRTT 100 ms; RTT = the mean of the round's 10
        // samples. Expected = (9 + 1) / 0.1 = 100 segments/s, Actual = 10 /
        // RTT, Diff = (Expected - Actual) * 0.1 rounded.
        // RTT 200: mean (0.1 + 9 * 0.2) / 10 = 0.19; Actual 52.63; Diff
        // 4.74 -> 5 > beta 3: cwnd - 1.
        assert_eq!(ns2_round(200), (9 * MSS, 5.0));
        // RTT 120: mean 0.118; Actual 84.75; Diff 1.53 -> 2: hold (alpha 1,
        // beta 3). (With the 1 s sample counted, Diff would be 5.)
        assert_eq!(ns2_round(120), (10 * MSS, 2.0));
        // RTT 105: mean 0.1045; Actual 95.69; Diff 0.43 -> 0 < alpha: grow
        // by 1/cwnd on this ACK already (cwnd 10 is within 2 segments of the
        // 9 outstanding plus one): 10.1 segments.
        assert_eq!(ns2_round(105), (10 * MSS + MSS / 10, 0.0));
    }

    #[test]
    fn ns2_s_slow_start_decides_every_other_round_and_exits_by_an_eighth() {
        // Slow start (ssthresh unlimited), cwnd 16, every sample 200 ms after
        // a first of 100: Diff is far above gamma 1 in every round.
        let mut d = CcDriver::new(Vegas::new(VegasConfig::ns2(), false), MSS, 16);
        // The first ACK tags the first round. Round 1 ends at the ACK that
        // covers segment 16,001: a slow-start round that only flips the
        // every-other-round flag: no growth, no exit.
        d.ack_with_nxt(1, Some(ms(100)), 1 + 16 * MSS);
        for k in 1..=16 {
            d.ack_with_nxt(1, Some(ms(200)), 1 + (16 + k) * MSS);
        }
        assert_eq!(d.tcb.cwnd, 16 * MSS);
        assert!(d.tcb.in_slow_start());
        // Round 2 ends: Diff > gamma: ssthresh 2 segments, cwnd - cwnd/8.
        for k in 1..=16 {
            d.ack_with_nxt(1, Some(ms(200)), 1 + (32 + k) * MSS);
        }
        assert_eq!(d.tcb.ssthresh, 2 * MSS);
        assert_eq!(d.tcb.cwnd, 14 * MSS);
    }
}
