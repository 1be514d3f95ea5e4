// SPDX-License-Identifier: MIT OR Apache-2.0
//! H-TCP: the additive increase grows with the time since the last
//! congestion event, and the backoff adapts to the path's RTTs.
//!
//! Leith, Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004; Linux's `net/ipv4/tcp_htcp.c`.
//!
//! - alpha: with Delta the time since the last congestion event ended,
//!   Delta_L = 1 s and d = Delta - Delta_L, the increase factor is 1 while
//!   d <= 0 and 1 + 10 d + (d / 2)^2 (seconds) after; with RTT scaling
//!   (`use_rtt_scaling`) it is multiplied by RTTmin / 100 ms, that ratio
//!   clamped to [0.1, 2]; alpha = 2 (1 - beta) factor segments per RTT,
//!   computed again at every window increment and at a loss.
//! - beta: at a loss, RTTmin / RTTmax clamped to [0.5, 0.8] (0.5 at the
//!   first loss, and whenever RTTmin is 10 ms or less). RTTmin is the
//!   smallest RTT sample; RTTmax the largest in Open state, rising by at
//!   most 20 ms per sample, and fading to RTTmin + 95% of the excess at
//!   each loss.
//! - the bandwidth switch (`use_bandwidth_switch`): the throughput over
//!   each interval of at least RTTmin in which about a window was
//!   acknowledged, smoothed (3/4 old + 1/4 new; restarted within 3 RTTmin
//!   of the last congestion event), gives maxB; at a loss, if 5 maxB is not
//!   within [4, 6] x the previous loss's maxB (throughput changed by more
//!   than 20%), beta = 0.5 and RTT-based beta waits for the next loss.
//!
//! Avoidance adds alpha / cwnd per ACK in Linux's form: when the credit of
//! acknowledged segments times alpha reaches cwnd, cwnd grows by one
//! segment and the credit restarts. ssthresh = cwnd beta, at least 2
//! segments. Slow start is standard.
//!
//! Linux's integer arithmetic is kept: alpha and beta in 1/128 (beta_max =
//! 102/128), times in jiffies (`hz` ticks per second; RTT samples rounded
//! up to a tick, as `usecs_to_jiffies`), throughput in segments per second.
//! The congestion event's time is taken when the state changes, after the
//! threshold (Linux computes ssthresh before it enters Recovery, Loss or
//! CWR); Delta counts from the return to Open. The paper's algorithm with
//! Linux's constants; every profile runs it (ns-3's TcpHtcp is not
//! modelled).
//!
//! Deviations from Linux: no `tcp_is_cwnd_limited` check; no undo (Linux's
//! `htcp_cwnd_undo` restores the last congestion time, RTTmax and maxB).

use serde::{Deserialize, Serialize};

use super::{slow_start, Ack, CaState, CongestionControl, LossCause, Probe, Tcb};
use crate::time::{SimDuration, SimTime};

/// 1.0 in alpha's and beta's fixed point (1 << 7).
const ONE: u64 = 128;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HtcpConfig {
    /// Scale the increase by RTTmin / 100 ms: Linux's `use_rtt_scaling`
    /// module parameter, on.
    pub use_rtt_scaling: bool,
    /// Back off by 0.5 when the throughput changed by more than 20%:
    /// Linux's `use_bandwidth_switch` module parameter, on.
    pub use_bandwidth_switch: bool,
    /// The smallest backoff factor: 0.5 in the paper and Linux
    /// (`BETA_MIN`, 64/128).
    pub beta_min: f64,
    /// The largest: 0.8 in the paper and Linux (`BETA_MAX`, 102/128).
    pub beta_max: f64,
    /// Delta_L, the time after a congestion event during which alpha
    /// stays at Reno's: 1 s in the paper and Linux (`HZ`).
    pub delta_l: SimDuration,
    /// Linux's `HZ`, the clock ticks per second that time and RTTs are
    /// counted in (1000, a common kernel configuration; 250 and 100 exist).
    pub hz: u64,
}

impl HtcpConfig {
    pub fn linux() -> Self {
        HtcpConfig {
            use_rtt_scaling: true,
            use_bandwidth_switch: true,
            beta_min: 0.5,
            beta_max: 0.8,
            delta_l: SimDuration::from_secs(1),
            hz: 1000,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.beta_min * ONE as f64 >= 1.0 && self.beta_min <= self.beta_max) {
            return Err((
                "beta_min",
                format!(
                    "{} must be from 1/128 to beta_max ({})",
                    self.beta_min, self.beta_max
                ),
            ));
        }
        if self.beta_max.is_nan() || self.beta_max >= 1.0 {
            return Err(("beta_max", format!("{} must be below 1", self.beta_max)));
        }
        if !(10..=10_000).contains(&self.hz) {
            return Err(("hz", format!("{} is not 10 to 10000", self.hz)));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Htcp {
    pub cfg: HtcpConfig,
    abc: bool,
    b_min: u64,
    b_max: u64,
    /// Delta_L in ticks.
    delta_l: u64,
    /// alpha and beta in 1/128.
    alpha: u64,
    beta: u64,
    /// RTT-based beta from the next loss on.
    modeswitch: bool,
    /// Segments the last ACK acknowledged in Open (Linux's `pkts_acked`).
    pkts_acked: u64,
    /// Segments acknowledged in the current throughput interval.
    packetcount: u64,
    /// RTTmin and RTTmax, ticks.
    min_rtt: u64,
    max_rtt: u64,
    /// When the last congestion event ended, ticks.
    last_cong: u64,
    /// A congestion event's start, applied after its threshold.
    pending_cong: Option<u64>,
    /// In a congestion event (Linux's non-zero `undo_last_cong`).
    in_event: bool,
    /// Throughput (segments per second): smallest, largest, at the last
    /// loss, smoothed; and the current interval's start (ticks).
    min_b: u64,
    max_b: u64,
    old_max_b: u64,
    bi: u64,
    lasttime: u64,
}

impl Htcp {
    pub fn new(cfg: HtcpConfig, abc: bool) -> Self {
        let b_min = (cfg.beta_min * ONE as f64) as u64;
        Htcp {
            abc,
            b_min,
            b_max: (cfg.beta_max * ONE as f64) as u64,
            delta_l: (cfg.delta_l.as_nanos() as u128 * cfg.hz as u128 / 1_000_000_000) as u64,
            alpha: ONE,
            beta: b_min,
            modeswitch: false,
            pkts_acked: 1,
            packetcount: 0,
            min_rtt: 0,
            max_rtt: 0,
            last_cong: 0,
            pending_cong: None,
            in_event: false,
            min_b: 0,
            max_b: 0,
            old_max_b: 0,
            bi: 0,
            lasttime: 0,
            cfg,
        }
    }

    /// The clock in ticks (Linux's `jiffies`).
    fn ticks(&self, t: SimTime) -> u64 {
        (t.as_nanos() as u128 * self.cfg.hz as u128 / 1_000_000_000) as u64
    }

    /// A duration in ticks, rounded up (Linux's `usecs_to_jiffies`).
    fn ticks_up(&self, us: u64) -> u64 {
        (us * self.cfg.hz).div_ceil(1_000_000)
    }

    fn settle(&mut self) {
        if let Some(t) = self.pending_cong.take() {
            self.last_cong = t;
        }
    }

    fn measure_rtt(&mut self, rtt: u64, state: CaState) {
        if self.min_rtt > rtt || self.min_rtt == 0 {
            self.min_rtt = rtt;
        }
        if state == CaState::Open {
            self.max_rtt = self.max_rtt.max(self.min_rtt);
            if self.max_rtt < rtt && rtt <= self.max_rtt + self.ticks_up(20_000) {
                self.max_rtt = rtt;
            }
        }
    }

    fn beta_update(&mut self) {
        if self.cfg.use_bandwidth_switch {
            let (max_b, old) = (self.max_b as u32, self.old_max_b as u32);
            self.old_max_b = self.max_b;
            // Linux's between(5 maxB, 4 old, 6 old), in wrapping u32.
            let s1 = max_b.wrapping_mul(5).wrapping_sub(old.wrapping_mul(4));
            let s3 = old.wrapping_mul(6).wrapping_sub(old.wrapping_mul(4));
            if s3 < s1 {
                self.beta = self.b_min;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > self.ticks_up(10_000) && self.max_rtt > 0 {
            // Linux keeps beta in a u8.
            let b = ((self.min_rtt << 7) / self.max_rtt) as u8 as u64;
            self.beta = b.clamp(self.b_min, self.b_max);
        } else {
            self.beta = self.b_min;
            self.modeswitch = true;
        }
    }

    fn alpha_update(&mut self, now: u64) {
        let hz = self.cfg.hz;
        let mut diff = now.saturating_sub(self.last_cong);
        let mut factor = 1;
        if diff > self.delta_l {
            diff -= self.delta_l;
            factor = 1 + (10 * diff + (diff / 2) * (diff / 2) / hz) / hz;
        }
        if self.cfg.use_rtt_scaling && self.min_rtt > 0 {
            let scale = ((hz << 3) / (10 * self.min_rtt)).clamp(4, 80);
            factor = ((factor << 3) / scale).max(1);
        }
        self.alpha = 2 * factor * (ONE - self.beta);
        if self.alpha == 0 {
            self.alpha = ONE;
        }
    }

    fn throughput(&mut self, tcb: &Tcb, ack: &Ack) {
        let now = self.ticks(ack.now);
        if !matches!(tcb.ca_state, CaState::Open | CaState::Disorder) {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount += ack.segments_acked as u64;
        let sub = (self.alpha >> 7).max(1);
        let elapsed = now.saturating_sub(self.lasttime);
        let full = (tcb.cwnd / tcb.mss)
            .checked_sub(sub)
            .is_some_and(|w| self.packetcount >= w);
        if full && elapsed >= self.min_rtt && self.min_rtt > 0 {
            let cur = self.packetcount * self.cfg.hz / elapsed;
            if now.saturating_sub(self.last_cong) / self.min_rtt <= 3 {
                (self.min_b, self.max_b, self.bi) = (cur, cur, cur);
            } else {
                self.bi = (3 * self.bi + cur) / 4;
                self.max_b = self.max_b.max(self.bi);
                self.min_b = self.min_b.min(self.max_b);
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }
}

impl CongestionControl for Htcp {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        *self = Htcp::new(self.cfg.clone(), self.abc);
        self.last_cong = self.ticks(tcb.now);
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        self.settle();
        if tcb.ca_state == CaState::Open {
            self.pkts_acked = ack.segments_acked as u64;
        }
        if let Some(rtt) = ack.rtt.filter(|r| r.as_nanos() >= 1000) {
            let r = self.ticks_up(rtt.as_nanos() / 1000);
            self.measure_rtt(r, tcb.ca_state);
        }
        if self.cfg.use_bandwidth_switch {
            self.throughput(tcb, ack);
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.settle();
        if tcb.in_slow_start() {
            slow_start(tcb, ack.bytes_acked, self.abc);
            return;
        }
        if (tcb.cwnd_cnt * self.alpha) >> 7 >= tcb.cwnd / tcb.mss {
            tcb.cwnd += tcb.mss;
            tcb.cwnd_cnt = 0;
            self.alpha_update(self.ticks(ack.now));
        } else {
            tcb.cwnd_cnt += self.pkts_acked;
        }
        self.pkts_acked = 1;
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        self.beta_update();
        self.alpha_update(self.ticks(tcb.now));
        if self.min_rtt > 0 && self.max_rtt > self.min_rtt {
            self.max_rtt = self.min_rtt + (self.max_rtt - self.min_rtt) * 95 / 100;
        }
        self.settle();
        ((tcb.cwnd / tcb.mss * self.beta) >> 7).max(2) * tcb.mss
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        let now = self.ticks(tcb.now);
        match to {
            CaState::Open => {
                self.settle();
                if self.in_event {
                    self.last_cong = now;
                    self.in_event = false;
                }
            }
            CaState::Recovery | CaState::Loss | CaState::Cwr => {
                self.in_event = true;
                self.pending_cong = Some(now);
            }
            CaState::Disorder => {}
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new("alpha", "segments", "alpha: the additive increase per RTT"),
            Probe::new(
                "beta",
                "",
                "beta: the fraction of cwnd kept at a loss (0.5 to 0.8)",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "alpha" => Some(self.alpha as f64 / ONE as f64),
            "beta" => Some(self.beta as f64 / ONE as f64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Option<SimDuration> {
        Some(SimDuration::from_millis(v))
    }

    fn avoiding(w: u64, cfg: HtcpConfig) -> CcDriver<Htcp> {
        let mut d = CcDriver::new(Htcp::new(cfg, false), MSS, w);
        d.tcb.ssthresh = w * MSS;
        d
    }

    #[test]
    fn slow_start_is_standard() {
        let mut d = CcDriver::new(Htcp::new(HtcpConfig::linux(), false), MSS, 2);
        d.ack(1, ms(100));
        d.ack(2, ms(100));
        assert_eq!(d.tcb.cwnd, 4 * MSS);
    }

    #[test]
    fn alpha_grows_with_the_time_since_congestion_scaled_by_rtt() {
        // Within Delta_L: factor 1, RTT 100 ms: scale 8000 / 1000 = 8, so
        // alpha = 2 x 1 x (128 - 64) = 128: Reno's one segment per RTT,
        // one segment per cwnd = 10 ACKs.
        let mut d = avoiding(10, HtcpConfig::linux());
        for _ in 0..10 {
            d.ack(1, ms(100));
        }
        assert_eq!(d.tcb.cwnd, 10 * MSS);
        d.ack(1, ms(100)); // credit 10 x 128 >> 7 = 10 >= 10
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        assert_eq!(d.cc.probe("alpha"), Some(1.0));
        // 3 s after: Delta - Delta_L = 2000 ticks: factor = 1 + (20000 +
        // 1000 x 1000 / 1000) / 1000 = 22 (the paper's 1 + 10 x 2 + 1^2);
        // x RTT 100 / 100: alpha = 2 x 22 x 64 / 128 = 22 segments per RTT.
        d.advance(SimDuration::from_secs(3));
        for _ in 0..11 {
            d.ack(1, ms(100));
        }
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        d.ack(1, ms(100));
        assert_eq!((d.tcb.cwnd, d.cc.probe("alpha")), (12 * MSS, Some(22.0)));
        // Then the credit of one ACK suffices: 1 x 2816 >> 7 = 22 >= 12.
        d.ack(1, ms(100));
        d.ack(1, ms(100));
        assert_eq!(d.tcb.cwnd, 13 * MSS);
        // RTT 50 ms: scale 8000 / 500 = 16: factor 22 x 8 / 16 = 11.
        let mut d = avoiding(10, HtcpConfig::linux());
        d.advance(SimDuration::from_secs(3));
        for _ in 0..11 {
            d.ack(1, ms(50));
        }
        assert_eq!(d.cc.probe("alpha"), Some(11.0));
        // Without RTT scaling: 22.
        let cfg = HtcpConfig {
            use_rtt_scaling: false,
            ..HtcpConfig::linux()
        };
        let mut d = avoiding(10, cfg);
        d.advance(SimDuration::from_secs(3));
        for _ in 0..11 {
            d.ack(1, ms(50));
        }
        assert_eq!(d.cc.probe("alpha"), Some(22.0));
    }

    #[test]
    fn beta_is_rtt_min_over_max_from_the_second_loss() {
        let mut d = avoiding(100, HtcpConfig::linux());
        d.ack(1, ms(100));
        // First loss: beta 0.5 (then RTT-based beta is switched on).
        d.loss(LossCause::DupAcks, 100 * MSS);
        assert_eq!((d.tcb.ssthresh, d.cc.probe("beta")), (50 * MSS, Some(0.5)));
        d.cc.on_state(&mut d.tcb, CaState::Open);
        d.tcb.ca_state = CaState::Open;
        // RTTmax rises by at most 20 ms a sample: 120, 140, 150; 200 is
        // ignored.
        for r in [120, 140, 150, 200] {
            d.ack(1, ms(r));
        }
        assert_eq!((d.cc.min_rtt, d.cc.max_rtt), (100, 150));
        // beta = (100 << 7) / 150 = 85/128: ssthresh = 100 x 85 >> 7 = 66.
        d.loss(LossCause::DupAcks, 100 * MSS);
        assert_eq!(
            (d.tcb.ssthresh, d.cc.probe("beta")),
            (66 * MSS, Some(85.0 / 128.0))
        );
        // RTTmax fades: 100 + 50 x 95 / 100 = 147.
        assert_eq!(d.cc.max_rtt, 147);
        // A ratio above 0.8 is clamped to 102/128.
        d.cc.max_rtt = 110;
        d.loss(LossCause::DupAcks, 100 * MSS);
        assert_eq!(d.cc.probe("beta"), Some(102.0 / 128.0));
    }

    #[test]
    fn a_throughput_change_over_twenty_percent_backs_off_by_half() {
        let mut d = avoiding(100, HtcpConfig::linux());
        for r in [100, 120, 140, 150] {
            d.ack(1, ms(r));
        }
        d.cc.modeswitch = true;
        // maxB within [4/5, 6/5] of the last loss's: RTT-based beta.
        (d.cc.max_b, d.cc.old_max_b) = (100, 100);
        d.loss(LossCause::DupAcks, 100 * MSS);
        assert_eq!(d.cc.probe("beta"), Some(85.0 / 128.0));
        assert_eq!(d.cc.old_max_b, 100);
        // maxB doubled: 5 x 200 = 1000 is not within [400, 600]: 0.5.
        d.cc.max_b = 200;
        d.loss(LossCause::DupAcks, 100 * MSS);
        assert_eq!((d.cc.probe("beta"), d.cc.modeswitch), (Some(0.5), false));
    }

    #[test]
    fn throughput_is_measured_per_window_and_smoothed_after_three_rtts() {
        let mut d = avoiding(10, HtcpConfig::linux());
        // 200 ms after the start (2 RTTmin: a restart), the 9th segment
        // (cwnd - alpha 1) closes the interval: 9 x 1000 / 200 = 45 per s.
        d.advance(SimDuration::from_millis(200));
        for _ in 0..9 {
            d.ack(1, ms(100));
        }
        assert_eq!((d.cc.bi, d.cc.max_b, d.cc.min_b), (45, 45, 45));
        // 300 ms later (5 RTTmin since the start): cwnd is 11 by the 2nd
        // ACK, so 10 segments close it: 10 x 1000 / 300 = 33; smoothed
        // (3 x 45 + 33) / 4 = 42; maxB stays 45.
        d.advance(SimDuration::from_millis(300));
        for _ in 0..10 {
            d.ack(1, ms(100));
        }
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        assert_eq!((d.cc.bi, d.cc.max_b), (42, 45));
    }

    #[test]
    fn the_loss_threshold_uses_the_old_congestion_time_which_restarts_in_open() {
        let mut d = avoiding(10, HtcpConfig::linux());
        d.ack(1, ms(100));
        d.advance(SimDuration::from_secs(3));
        // At the loss, alpha from Delta = 3 s: 22 (beta 1/2).
        d.loss(LossCause::DupAcks, 10 * MSS);
        assert_eq!(d.cc.probe("alpha"), Some(22.0));
        // Recovery ends 500 ms later: Delta counts from there.
        d.advance(SimDuration::from_millis(500));
        d.cc.on_state(&mut d.tcb, CaState::Open);
        d.tcb.ca_state = CaState::Open;
        d.tcb.cwnd = 10 * MSS;
        d.tcb.ssthresh = 10 * MSS;
        d.tcb.cwnd_cnt = 0;
        d.advance(SimDuration::from_millis(500));
        // One ACK: 0 >= 10? no; credit 1. The 2nd: 22 >= 10: + 1, and
        // alpha from Delta = 0.5 s: 1.
        d.ack(1, ms(100));
        d.ack(1, ms(100));
        assert_eq!((d.tcb.cwnd, d.cc.probe("alpha")), (11 * MSS, Some(1.0)));
    }

    #[test]
    fn builds_under_every_profile_and_rejects_a_bad_beta_max() {
        crate::cc::testing::builds_and_refuses("htcp", "beta_max", serde_json::json!(1.0));
    }
}
