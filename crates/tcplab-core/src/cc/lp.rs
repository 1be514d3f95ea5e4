// SPDX-License-Identifier: MIT OR Apache-2.0
//! TCP-LP, TCP Low Priority.
//!
//! Kuzmanovic and Knightly, "TCP-LP: a distributed algorithm for low
//! priority data transfer", IEEE INFOCOM 2003; as Linux's
//! `net/ipv4/tcp_lp.c` runs it.
//!
//! A flow that yields to every other: it watches the one-way delay and
//! backs off *before* the queue overflows.
//! - Every delay sample d updates the smallest and the largest delay seen
//!   (`owd_min`, `owd_max`; the largest is forgotten one step: a new
//!   record makes the previous record the maximum, Linux's
//!   `owd_max_rsv`) and the smoothed delay `sowd = 7/8 sowd + 1/8 d`.
//! - Early congestion: the smoothed delay is not below `owd_min +
//!   threshold_percent/100 (owd_max - owd_min)` (15%, the paper's delta).
//!   Then the window is halved (at least one segment) and the inference
//!   time starts; a second indication within the inference time (3 RTT
//!   after the first) cuts the window to one segment. After each
//!   indication, `owd_min` and `owd_max` restart from the smoothed delay
//!   (`sowd` and twice it), as Linux does.
//! - Within the inference time the window does not grow; otherwise it
//!   grows as Linux's Reno (slow start, then one segment per window of
//!   acknowledged segments). ssthresh is untouched by an early indication.
//! - A loss sets ssthresh to half the window (Linux's `tcp_reno_ssthresh`:
//!   max(cwnd / 2, 2) segments).
//!
//! The delay ([`LpDelay`]): Linux's, from the ACK's TCP timestamps in
//! millisecond ticks with the remote clock's rate estimated from them, in
//! Linux's 32-bit arithmetic (the linux profile); ns-3's, TSval - TSecr
//! without the estimate (the ns3 profile, which also runs the rest of
//! ns-3's `TcpLp`: a delay on every ACK, duplicates included, once the
//! smoothed RTT is set; slow start going on within the inference time,
//! where only avoidance holds; `TcpNewReno`'s growth and threshold; a cut
//! in bytes, and a smoothed delay equal to the threshold within it); or
//! the ACK's RTT sample in
//! microseconds (the other profiles, whose flows have no timestamps by
//! default), with the inference time 3 x that sample.
//!
//! Deviations from Linux:
//! - tcplab's TSval has no random per-connection offset (Linux's since
//!   4.10), as ns-2's and ns-3's.
//! - Linux cuts cwnd inside `pkts_acked`; tcplab's `on_ack_sample` may not
//!   touch cwnd, so the cut is applied at the start of the same ACK's
//!   `increase_window` (before the growth, as in Linux). An indication on
//!   an ACK that does not grow the window (during fast recovery, or a
//!   duplicate ACK) is dropped: in a recovery the recovery sets cwnd, as
//!   PRR does in Linux, and 2.6.22's `pkts_acked`, which ns-2's TCP-Linux
//!   runs, is not called on a duplicate (`FLAG_NOT_DUP`). ns-3's form cuts
//!   there too (`after_ack`): ns-3's sender calls `PktsAcked` on a
//!   duplicate and after a recovery's ACK has set the window, before it
//!   sends. With a window of two or three segments that cut keeps the
//!   duplicates from reaching three: at 1% loss on the 100-ms dumbbell
//!   ns-3's TcpLp times out 19 times in 120 s and never enters a recovery,
//!   and tcplab's form did 1 and 21 before it cut there (20 and 1 since).
//! - No undo (tcplab has no DSACK undo).
//!
//! The paper's own implementation (a patched 2.4 kernel) is not modelled
//! apart from this.

use serde::{Deserialize, Serialize};

use super::ns3;
use super::{
    linux_reno_cong_avoid, linux_reno_ssthresh, Ack, CongestionControl, LossCause, Probe, Tcb,
};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LpConfig {
    /// Early congestion when the smoothed delay reaches owd_min + this
    /// percentage of (owd_max - owd_min): 15, the paper's delta = 0.15 and
    /// the constant 15 of Linux's `tcp_lp_pkts_acked`.
    pub threshold_percent: u32,
    /// The inference time in RTTs: 3, Linux's `inference = 3 * (now -
    /// tsecr)`.
    pub inference_rtts: u32,
    /// The delay watched ([`LpDelay`]): "timestamps" (Linux's; the linux
    /// and ns3 profiles) or "rtt" (the other profiles, whose flows have
    /// no timestamps by default).
    pub delay: LpDelay,
}

/// Where TCP-LP's delay comes from.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LpDelay {
    /// Linux's `tcp_lp_owd_calculator`: from the ACK's TCP timestamps in
    /// millisecond ticks, the remote clock's rate estimated from them,
    /// in Linux's 32-bit arithmetic. Without timestamps there is no
    /// delay, and TCP-LP grows as Reno.
    #[default]
    Timestamps,
    /// The ACK's RTT sample in microseconds.
    Rtt,
    /// ns-3's `TcpLp`: |TSval - TSecr| in millisecond ticks, without a
    /// rate estimate; ns-3 also counts a smoothed delay equal to the
    /// threshold as within it, and halves the window in bytes.
    Ns3,
}

crate::deserialize_names!(LpDelay {
    "timestamps" => LpDelay::Timestamps,
    "rtt" => LpDelay::Rtt,
    "ns3" => LpDelay::Ns3,
});

/// Linux's timestamp clock (TCP_TS_HZ), also TCP-LP's resolution
/// (LP_RESOL).
const TS_HZ: u32 = 1000;

/// A time in Linux's timestamp ticks (milliseconds, 32 bits).
fn ticks(ns: u64) -> u32 {
    (ns / 1_000_000) as u32
}

impl LpConfig {
    pub fn linux() -> Self {
        LpConfig {
            threshold_percent: 15,
            inference_rtts: 3,
            delay: LpDelay::Timestamps,
        }
    }
    /// ns-3's `TcpLp` (the ns3 profile's).
    pub fn ns3() -> Self {
        LpConfig {
            delay: LpDelay::Ns3,
            ..Self::linux()
        }
    }
    /// The delay from RTT samples, for flows without timestamps.
    pub fn rtt() -> Self {
        LpConfig {
            delay: LpDelay::Rtt,
            ..Self::linux()
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(1..=100).contains(&self.threshold_percent) {
            return Err((
                "threshold_percent",
                format!("{} is not in 1..=100", self.threshold_percent),
            ));
        }
        if self.inference_rtts == 0 {
            return Err(("inference_rtts", "must be at least 1".into()));
        }
        Ok(())
    }
}

/// Linux's flag bits, as its debug output shows them.
pub const LP_VALID_RHZ: u32 = 1 << 0;
pub const LP_VALID_OWD: u32 = 1 << 1;
pub const LP_WITHIN_THR: u32 = 1 << 3;
pub const LP_WITHIN_INF: u32 = 1 << 4;

/// What an early congestion indication does to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    Half,
    One,
}

#[derive(Clone, Debug)]
pub struct Lp {
    cfg: LpConfig,
    abc: bool,
    /// Linux's flag word (LP_VALID_OWD | LP_WITHIN_THR | LP_WITHIN_INF).
    pub flag: u32,
    /// Smoothed delay x 8, in the delay's unit (timestamp ticks or
    /// microseconds), u32 as Linux's.
    pub sowd: u32,
    /// Delay bounds (owd_min starts at u32::MAX, owd_max at 0).
    pub owd_min: u32,
    pub owd_max: u32,
    owd_max_rsv: u32,
    /// The last early indication.
    last_drop: Option<SimTime>,
    inference: SimDuration,
    /// With timestamps: the remote clock's estimated rate (Hz), the last
    /// ACK's TSval and TSecr (ticks), and the inference time in ticks, as
    /// Linux keeps them.
    remote_hz: u32,
    remote_ref: u32,
    local_ref: u32,
    inference_ticks: u32,
    /// A cut decided on this ACK, for `increase_window`.
    pending: Option<Cut>,
}

impl Lp {
    /// Applies the pending cut: one segment within the inference time,
    /// else half (ns-3 halves the window in bytes, Linux in whole segments).
    fn cut(&mut self, tcb: &mut Tcb) {
        match self.pending.take() {
            Some(Cut::One) => tcb.set_cwnd(tcb.mss),
            Some(Cut::Half) if self.cfg.delay == LpDelay::Ns3 => tcb.set_cwnd(tcb.cwnd >> 1),
            Some(Cut::Half) => tcb.set_cwnd(((tcb.cwnd / tcb.mss) >> 1) * tcb.mss),
            None => {}
        }
    }

    pub fn new(cfg: LpConfig, abc: bool) -> Self {
        Lp {
            cfg,
            abc,
            flag: 0,
            sowd: 0,
            owd_min: u32::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            last_drop: None,
            inference: SimDuration::ZERO,
            remote_hz: 0,
            remote_ref: 0,
            local_ref: 0,
            inference_ticks: 0,
            pending: None,
        }
    }

    /// Sets or clears flag `bit`.
    fn set(&mut self, bit: u32, on: bool) {
        if on {
            self.flag |= bit;
        } else {
            self.flag &= !bit;
        }
    }

    /// `d` if it is a delay (> 0), with LP_VALID_OWD set accordingly.
    fn valid(&mut self, d: u32) -> Option<u32> {
        self.set(LP_VALID_OWD, d > 0);
        (d > 0).then_some(d)
    }

    /// One delay sample > 0 (Linux's `tcp_lp_rtt_sample`, its sums
    /// wrapping at 32 bits as Linux's).
    fn sample(&mut self, d: u32) {
        self.owd_min = self.owd_min.min(d);
        if d > self.owd_max {
            if d > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 {
                    d
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = d;
            } else {
                self.owd_max = d;
            }
        }
        self.sowd = if self.sowd == 0 {
            d.wrapping_shl(3)
        } else {
            self.sowd.wrapping_sub(self.sowd >> 3).wrapping_add(d)
        };
    }

    /// The smoothed delay is below the threshold (Linux's u32 arithmetic:
    /// before any sample the span wraps to 1).
    fn within_threshold(&self) -> bool {
        let span = self.owd_max.wrapping_sub(self.owd_min);
        let thr = self
            .owd_min
            .wrapping_add(self.cfg.threshold_percent.wrapping_mul(span) / 100);
        if self.cfg.delay == LpDelay::Ns3 {
            (self.sowd >> 3) <= thr
        } else {
            (self.sowd >> 3) < thr
        }
    }

    /// Linux's `tcp_lp_remote_hz_estimator` and `tcp_lp_owd_calculator`
    /// on an ACK's TSval and TSecr (ticks): the delay, if valid. The
    /// remote rate is m = 1000 (TSval - last TSval) / (TSecr - last TSecr)
    /// smoothed by 1/64; the delay is TSval (1000 / rate) - TSecr, whole
    /// numbers in 32 bits: with the rate estimated above 1000 Hz the factor
    /// is 0 and the "delay" is TSecr's wrapped negative, as in Linux.
    fn timestamp_owd(&mut self, tsval: u32, tsecr: u32) -> Option<u32> {
        let mut rhz = (self.remote_hz as i64) << 6;
        if self.remote_ref != 0
            && self.local_ref != 0
            && tsval != self.remote_ref
            && tsecr != self.local_ref
        {
            let m = TS_HZ.wrapping_mul(tsval.wrapping_sub(self.remote_ref))
                / tsecr.wrapping_sub(self.local_ref);
            let m = m as i64;
            if rhz > 0 {
                rhz += m - (rhz >> 6);
            } else {
                rhz = m << 6;
            }
        }
        self.remote_ref = tsval;
        self.local_ref = tsecr;
        self.remote_hz = (rhz >> 6) as u32;
        let factor = TS_HZ.checked_div(self.remote_hz);
        self.set(LP_VALID_RHZ, factor.is_some());
        // Without a rate the delay is 0: not valid.
        let owd = factor.map_or(0, |f| tsval.wrapping_mul(f).wrapping_sub(tsecr));
        self.valid(owd)
    }

    /// The delay from timestamps ([`LpDelay::Timestamps`]); whether this
    /// ACK is within the inference time.
    fn timestamps(&mut self, now: SimTime, ack: &Ack, sampled: bool) -> bool {
        // Without timestamps Linux's rx_opt stays zero.
        let (tsval, tsecr) = ack.ts.map_or((0, 0), |(v, e)| (ticks(v), ticks(e)));
        let now = ticks(now.as_nanos());
        if sampled {
            let owd = match self.cfg.delay {
                LpDelay::Ns3 => self.valid(tsval.abs_diff(tsecr)),
                _ => self.timestamp_owd(tsval, tsecr),
            };
            if let Some(d) = owd {
                self.sample(d);
            }
        }
        let delta = now.wrapping_sub(tsecr);
        if (delta as i32) > 0 {
            self.inference_ticks = self.cfg.inference_rtts.wrapping_mul(delta);
        }
        // Linux's last_drop, in ticks (0: none).
        let last_drop = self.last_drop.map_or(0, |t| ticks(t.as_nanos()));
        last_drop != 0 && now.wrapping_sub(last_drop) < self.inference_ticks
    }

    /// The delay from RTT samples ([`LpDelay::Rtt`]); whether this ACK is
    /// within the inference time.
    fn rtt(&mut self, now: SimTime, ack: &Ack) -> bool {
        if let Some(r) = ack.rtt {
            let us = (r.as_nanos() / 1000).min(u32::MAX as u64) as u32;
            if let Some(d) = self.valid(us) {
                self.sample(d);
            }
            self.inference = SimDuration::from_nanos(r.as_nanos() * self.cfg.inference_rtts as u64);
        }
        self.last_drop
            .is_some_and(|t| now.as_nanos() - t.as_nanos() < self.inference.as_nanos())
    }
}

impl CongestionControl for Lp {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "lp"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        self.pending = None;
        let now = tcb.now.max(ack.now);
        let within_inf = match self.cfg.delay {
            LpDelay::Timestamps => self.timestamps(now, ack, ack.rtt.is_some()),
            // ns-3 samples on every ACK, duplicates included, once its
            // smoothed RTT (PktsAcked's rtt) is not zero.
            LpDelay::Ns3 => self.timestamps(now, ack, ns3::srtt(tcb).is_some()),
            LpDelay::Rtt => self.rtt(now, ack),
        };
        self.set(LP_WITHIN_INF, within_inf);
        let within_thr = self.within_threshold();
        self.set(LP_WITHIN_THR, within_thr);
        if within_thr {
            return;
        }
        // Early congestion: restart the bounds from the smoothed delay.
        self.owd_min = self.sowd >> 3;
        self.owd_max = self.sowd >> 2;
        self.owd_max_rsv = self.owd_max;
        self.pending = Some(if within_inf { Cut::One } else { Cut::Half });
        self.last_drop = Some(now);
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.cut(tcb);
        let within_inf = self.flag & LP_WITHIN_INF != 0;
        if self.cfg.delay == LpDelay::Ns3 {
            // TcpLp overrides only TcpNewReno's avoidance: slow start
            // goes on within the inference time.
            ns3::newreno_increase(tcb, ack.segments_acked, |tcb, segments| {
                if !within_inf {
                    ns3::newreno_cong_avoid(tcb, segments)
                }
            });
        } else if !within_inf {
            linux_reno_cong_avoid(tcb, ack, self.abc);
        }
    }

    fn after_ack(&mut self, tcb: &mut Tcb) {
        // ns-3's PktsAcked cuts on a duplicate and in a recovery too, after
        // the recovery set the window; the others' cut waits for an ACK
        // that grows the window, and a newer sample replaces it.
        if self.cfg.delay == LpDelay::Ns3 {
            self.cut(tcb);
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        match self.cfg.delay {
            // TcpLp keeps TcpNewReno's threshold.
            LpDelay::Ns3 => ns3::newreno_ssthresh(tcb),
            _ => linux_reno_ssthresh(tcb),
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new("owd", "s", "the smoothed delay (7/8 old + 1/8 new sample)"),
            Probe::new("owd_min", "s", "the smallest delay since the last early indication"),
            Probe::new("owd_max", "s", "the largest delay but one since the last early indication"),
            Probe::new(
                "remote_hz",
                "Hz",
                "the remote timestamp clock's estimated rate (timestamps delay only)",
            ),
            Probe::new(
                "flag",
                "",
                "Linux's flag word: 1 a valid remote clock rate, 2 a valid delay, 8 within the threshold, 16 within the inference time",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        let has = self.sowd > 0;
        let unit = match self.cfg.delay {
            LpDelay::Timestamps | LpDelay::Ns3 => 1e3,
            LpDelay::Rtt => 1e6,
        };
        match name {
            "owd" => has.then(|| (self.sowd >> 3) as f64 / unit),
            "owd_min" => has.then(|| self.owd_min as f64 / unit),
            "owd_max" => has.then(|| self.owd_max as f64 / unit),
            "remote_hz" => (self.cfg.delay == LpDelay::Timestamps && self.remote_hz > 0)
                .then_some(self.remote_hz as f64),
            "flag" => Some(self.flag as f64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::{ms, CcDriver};
    use crate::cc::CaState;

    const MSS: u64 = 1000;

    /// TCP-LP on RTT samples (the paper profile's form).
    fn lp(cwnd: u64) -> CcDriver<Lp> {
        CcDriver::new(Lp::new(LpConfig::rtt(), false), MSS, cwnd)
    }

    /// TCP-LP on timestamps (Linux's form).
    fn lp_ts(cwnd: u64) -> CcDriver<Lp> {
        CcDriver::new(Lp::new(LpConfig::linux(), false), MSS, cwnd)
    }

    /// An ACK of one segment at `now` ms carrying TSval `val` and TSecr
    /// `ecr` (ms; None: no timestamps), with an RTT sample.
    fn ts_ack(d: &mut CcDriver<Lp>, now: u64, ts: Option<(u64, u64)>) {
        d.tcb.now = SimTime::from_nanos(now * 1_000_000);
        let ack = Ack {
            now: d.tcb.now,
            bytes_acked: MSS,
            segments_acked: 1,
            grow_segments: 1,
            is_dup: false,
            rtt: Some(ms(now - ts.map_or(now - 100, |t| t.1))),
            seg_rtt: None,
            prior_in_flight: d.tcb.bytes_in_flight(),
            ece: false,
            ts: ts.map(|(v, e)| (v * 1_000_000, e * 1_000_000)),
        };
        d.tcb.snd_una += MSS;
        d.tcb.snd_max = d.tcb.snd_max.max(d.tcb.snd_una);
        d.cc.on_ack_sample(&d.tcb, &ack);
        d.cc.increase_window(&mut d.tcb, &ack);
    }

    #[test]
    fn with_timestamps_the_delay_is_tsval_minus_tsecr_once_the_remote_clock_is_estimated() {
        let mut d = lp_ts(10);
        // The first ACK only records the references: no rate, no delay.
        ts_ack(&mut d, 200, Some((150, 100)));
        assert_eq!((d.cc.flag, d.tcb.cwnd), (LP_WITHIN_THR, 11 * MSS));
        // 10 ticks on both clocks: 1000 Hz, so the delay is 160 - 110 = 50
        // ticks; the first delay is an early indication (50 is not below
        // 50 + 15% of 0): halved to 5, then slow start's segment.
        ts_ack(&mut d, 210, Some((160, 110)));
        assert_eq!(d.cc.remote_hz, 1000);
        assert_eq!((d.cc.owd_min, d.cc.owd_max, d.cc.sowd), (50, 100, 400));
        assert_eq!(d.cc.flag, LP_VALID_RHZ | LP_VALID_OWD);
        assert_eq!(d.tcb.cwnd, 6 * MSS);
        assert_eq!(d.cc.probe("owd"), Some(0.05));
    }

    #[test]
    fn a_remote_clock_estimated_above_1000_hz_wraps_the_delay_as_linux_does() {
        let mut d = lp_ts(10);
        ts_ack(&mut d, 200, Some((150, 100)));
        ts_ack(&mut d, 210, Some((160, 110)));
        // 11 ticks remote against 10 local: m = 1100, the rate 1000 +
        // 100/64 = 1001 Hz, 1000 / 1001 = 0 in whole numbers, so the delay
        // is 0 x 171 - 120, wrapped: 2^32 - 120. It becomes the maximum's
        // reserve (the maximum takes the old reserve, 100), and sowd wraps
        // too: 400 - 50 + 2^32 - 120 = 230 (28 ticks, within 50 + 15% of
        // 50). 10 ms after the indication, within 3 x 100 ms: no growth.
        ts_ack(&mut d, 220, Some((171, 120)));
        assert_eq!(d.cc.remote_hz, 1001);
        assert_eq!(
            (d.cc.owd_max, d.cc.owd_max_rsv, d.cc.sowd),
            (100, u32::MAX - 119, 230)
        );
        assert_eq!(
            d.cc.flag,
            LP_VALID_RHZ | LP_VALID_OWD | LP_WITHIN_THR | LP_WITHIN_INF
        );
        assert_eq!(d.tcb.cwnd, 6 * MSS);
    }

    #[test]
    fn ns3_s_form_takes_the_timestamp_difference_and_halves_in_bytes() {
        let mut d = CcDriver::new(Lp::new(LpConfig::ns3(), false), MSS, 10);
        // ns-3 samples once its smoothed RTT is set (PktsAcked's rtt).
        d.tcb.srtt = Some(ms(100));
        // No rate estimate: the first ACK's 150 - 100 = 50 ticks is a delay,
        // and a smoothed delay equal to the threshold (50 <= 50) is within
        // it in ns-3 (Linux halves here): slow start's segment.
        ts_ack(&mut d, 200, Some((150, 100)));
        assert_eq!((d.cc.owd_min, d.cc.owd_max, d.cc.sowd), (50, 50, 400));
        assert_eq!(
            (d.cc.flag, d.tcb.cwnd),
            (LP_VALID_OWD | LP_WITHIN_THR, 11 * MSS)
        );
        // 60 ticks: the maximum takes the reserve (50), sowd 400 - 50 + 60 =
        // 410 (51 > 50): halved in bytes, 5,500, then slow start's 1,000.
        ts_ack(&mut d, 210, Some((170, 110)));
        assert_eq!((d.cc.owd_min, d.cc.owd_max, d.cc.sowd), (51, 102, 410));
        assert_eq!(d.tcb.cwnd, 6500);
    }

    #[test]
    fn ns3_s_form_samples_every_ack_slow_starts_within_inference_and_halves_the_pipe() {
        let mut d = CcDriver::new(Lp::new(LpConfig::ns3(), false), MSS, 10);
        // Before a smoothed RTT, no sample (ns-3's PktsAcked gets zero).
        ts_ack(&mut d, 200, Some((150, 100)));
        assert_eq!(d.cc.sowd, 0);
        d.tcb.srtt = Some(ms(100));
        ts_ack(&mut d, 210, Some((160, 110)));
        assert_eq!(d.cc.sowd, 400);
        // A duplicate ACK samples too: 190 - 110 = 80 ticks, sowd 400 - 50
        // + 80 = 430, above the threshold (50 + 15% x 0): an indication, the
        // inference time 3 x (220 - 110) = 330 ticks from now.
        d.tcb.now = SimTime::from_nanos(220 * 1_000_000);
        let dup = Ack {
            now: d.tcb.now,
            bytes_acked: 0,
            segments_acked: 0,
            grow_segments: 0,
            is_dup: true,
            rtt: None,
            seg_rtt: None,
            prior_in_flight: d.tcb.bytes_in_flight(),
            ece: false,
            ts: Some((190 * 1_000_000, 110 * 1_000_000)),
        };
        d.cc.on_ack_sample(&d.tcb, &dup);
        assert_eq!(d.cc.sowd, 430);
        // ns-3's sender hands TcpLp the duplicate too (PktsAcked), and the
        // cut comes before anything is sent: halved, in bytes.
        let before = d.tcb.cwnd;
        d.cc.after_ack(&mut d.tcb);
        assert_eq!((before, d.tcb.cwnd), (12 * MSS, 6 * MSS));
        // Within that time a second indication cuts to one segment, and
        // slow start still adds one (ns-3 holds only avoidance).
        ts_ack(&mut d, 230, Some((300, 130)));
        assert_eq!(d.cc.flag & LP_WITHIN_INF, LP_WITHIN_INF);
        assert_eq!(d.tcb.cwnd, 2 * MSS);
        // Avoidance holds within it.
        d.tcb.ssthresh = 2 * MSS;
        ts_ack(&mut d, 240, Some((190, 140)));
        assert_eq!(d.tcb.cwnd, 2 * MSS);
        // A loss halves the pipe, as TcpNewReno (not Linux's cwnd).
        d.tcb.pipe = 9 * MSS as u32;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 4_500);
    }

    #[test]
    fn without_timestamps_linux_s_form_has_no_delay_and_grows_as_reno() {
        let mut d = lp_ts(10);
        for (i, now) in [200, 210, 220, 230].into_iter().enumerate() {
            ts_ack(&mut d, now, None);
            assert_eq!(d.tcb.cwnd, (11 + i as u64) * MSS);
        }
        assert_eq!(d.cc.flag, LP_WITHIN_THR);
        assert_eq!(d.cc.probe("owd"), None);
    }

    #[test]
    fn the_first_sample_is_an_early_indication_and_halves() {
        // Linux's arithmetic: after the first sample d = 100,000 us,
        // owd_min = owd_max = d and sowd/8 = d; d < d + 15% x 0 is false,
        // so the first sample is an early indication: cwnd 10 >> 1 = 5,
        // the bounds restart at sowd/8 = 100,000 and sowd/4 = 200,000.
        // The indication came outside any inference time, so slow start
        // grows on the same ACK: 6 segments. ssthresh is untouched.
        let mut d = lp(10);
        d.ack(1, Some(ms(100)));
        assert_eq!(d.tcb.cwnd, 6 * MSS);
        assert_eq!(d.tcb.ssthresh, u64::MAX);
        assert_eq!((d.cc.owd_min, d.cc.owd_max), (100_000, 200_000));
        assert_eq!(d.cc.probe("owd"), Some(0.1));
        // Before any sample, Linux's u32 span wraps to 1: within threshold.
        let mut fresh = Lp::new(LpConfig::rtt(), false);
        assert!(fresh.within_threshold());
        fresh.sample(5);
        assert!(!fresh.within_threshold());
    }

    #[test]
    fn no_growth_within_the_inference_time_then_reno_growth() {
        let mut d = lp(10);
        // The indication at t = 0 (cwnd 6, as above). Inference = 3 x 100
        // ms. At 100 ms: sowd = 800,000 - 100,000 + 100,000 = 800,000 (100
        // ms), below 100,000 + 15% x 100,000 = 115,000: within the
        // threshold, within the inference time: no growth.
        d.ack(1, Some(ms(100)));
        d.advance(ms(100));
        d.ack(1, Some(ms(100)));
        assert_eq!(d.tcb.cwnd, 6 * MSS);
        assert_eq!(d.cc.flag, LP_VALID_OWD | LP_WITHIN_THR | LP_WITHIN_INF);
        // At 300 ms, 300 ms after the indication: no longer within (300 is
        // not < 300): slow start adds one segment per ACK.
        d.advance(ms(200));
        d.ack(1, Some(ms(100)));
        assert_eq!(d.tcb.cwnd, 7 * MSS);
        // Congestion avoidance: one segment per cwnd (7) acknowledged
        // segments (Linux's tcp_cong_avoid_ai with w = cwnd).
        d.tcb.ssthresh = 7 * MSS;
        for _ in 0..6 {
            d.ack(1, Some(ms(100)));
        }
        assert_eq!(d.tcb.cwnd, 7 * MSS);
        d.ack(1, Some(ms(100)));
        assert_eq!(d.tcb.cwnd, 8 * MSS);
        // Without byte counting (as here), an ACK counts one segment
        // whatever it covers, as tcplab's Reno growth does: an ACK of 8
        // segments at cwnd 8 adds one credit, not a segment.
        d.ack(8, Some(ms(100)));
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (8 * MSS, 1));
    }

    #[test]
    fn a_second_indication_within_the_inference_time_cuts_to_one_segment() {
        let mut d = lp(20);
        d.ack(1, Some(ms(100))); // halves: 10, +1 = 11; bounds 100/200 ms
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        // 100 ms later a 300 ms sample: owd_max: 300,000 > reserve 200,000
        // (non-zero) so owd_max = 200,000, reserve 300,000; sowd = 800,000
        // - 100,000 + 300,000 = 1,000,000, i.e. 125,000 us, not below
        // 100,000 + 15 x 100,000 / 100 = 115,000: an indication within the
        // inference time (now 3 x 300 ms): one segment, no growth.
        d.advance(ms(100));
        d.ack(1, Some(ms(300)));
        assert_eq!(d.tcb.cwnd, MSS);
        assert_eq!((d.cc.owd_min, d.cc.owd_max), (125_000, 250_000));
        assert_eq!(d.cc.flag & LP_WITHIN_THR, 0);
    }

    #[test]
    fn an_indication_after_the_inference_time_halves_again() {
        let mut d = lp(20);
        d.ack(1, Some(ms(100))); // 11 segments; bounds 100/200 ms
                                 // The inference time is computed from this ACK's sample before the
                                 // test (Linux's order): 3 x 300 ms, so 1 s later is past it.
        d.advance(ms(1000));
        d.tcb.ssthresh = 5 * MSS; // congestion avoidance
        d.ack(1, Some(ms(300))); // the same 125 ms > 115 ms as above
                                 // Halved: 11 >> 1 = 5, then Reno's credit of one segment.
        assert_eq!(d.tcb.cwnd, 5 * MSS);
        assert_eq!(d.tcb.cwnd_cnt, 1);
    }

    #[test]
    fn a_loss_halves_the_window_in_segments_at_least_two() {
        let mut d = lp(10);
        d.tcb.cwnd = 11 * MSS + 500;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 5 * MSS);
        d.tcb.cwnd = 3 * MSS;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::Timeout), 2 * MSS);
    }

    #[test]
    fn an_indication_in_recovery_leaves_the_window_to_the_recovery() {
        let mut d = lp(10);
        d.loss(LossCause::DupAcks, 10 * MSS);
        assert_eq!(d.tcb.ca_state, CaState::Recovery);
        d.dupack(); // no sample
        let ack = Ack {
            now: d.tcb.now,
            bytes_acked: MSS,
            segments_acked: 1,
            grow_segments: 1,
            is_dup: false,
            rtt: Some(ms(100)),
            seg_rtt: None,
            prior_in_flight: 10 * MSS,
            ece: false,
            ts: None,
        };
        d.cc.on_ack_sample(&d.tcb, &ack); // the first sample: an indication
        assert!(d.cc.pending.is_some());
        // Not cut after an ACK of the recovery's (ns-3's form alone does).
        let cwnd = d.tcb.cwnd;
        d.cc.after_ack(&mut d.tcb);
        assert_eq!(d.tcb.cwnd, cwnd);
        assert!(d.cc.pending.is_some());
        d.dupack(); // the next ACK forgets it
        assert!(d.cc.pending.is_none());
    }

    #[test]
    fn registry_builds_lp_under_every_profile_and_names_a_bad_field() {
        crate::cc::testing::builds_and_refuses("lp", "threshold_percent", serde_json::json!(0));
    }
}
