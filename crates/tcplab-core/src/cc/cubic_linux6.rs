// SPDX-License-Identifier: MIT OR Apache-2.0
//! CUBIC as today's Linux runs it (`net/ipv4/tcp_cubic.c`, 4.x to 6.x):
//! the `version = "linux"` form of `cubic`, the linux profile's default.
//! RFC 9438's CUBIC in floating point is [`super::cubic`]; Linux 2.6.22's
//! CUBIC 2.1 (ns-2's TCP-Linux) is [`super::cubic_linux`].
//!
//! Integer arithmetic as the kernel's, with its clock of `hz` ticks a second
//! (`CONFIG_HZ`, 250 by default; times in jiffies):
//! - W_cubic(t) = origin + C (t + RTTmin - K)^3, t since the epoch's first
//!   ACK in congestion avoidance, in 1024ths of a second; C = `bic_scale` x
//!   10 / 1024 (41: 0.4004 segment / s^3); K by the kernel's cube root
//!   ([`super::cubic_linux::cubic_root`]); origin = W_max, or cwnd with
//!   K = 0 when cwnd >= W_max (`bictcp_update`);
//! - cnt (segments acknowledged per one-segment increase) = cwnd / (target -
//!   cwnd), or 100 cwnd at or above the target; at most 20 before the first
//!   loss; recomputed when cwnd changed or HZ / 32 jiffies have passed, at
//!   most once a jiffy;
//! - the Reno-friendly estimate counts acknowledged segments: one segment per
//!   cwnd `beta_scale` / 8 of them, `beta_scale` = 8 (1024 + beta) / 3 /
//!   (1024 - beta) (15 at beta = 717); cnt is at most cwnd / (estimate -
//!   cwnd) when the estimate is above cwnd; then at least 2 (cwnd grows at
//!   most 1.5 times a round trip);
//! - cwnd grows by `tcp_cong_avoid_ai`: the segments an ACK delivered are
//!   counted, one segment added per cnt of them, in whole segments; slow
//!   start is Linux's `tcp_slow_start` (while cwnd < ssthresh);
//! - RTTmin is the smallest RTT sample in microseconds
//!   (`bictcp_acked`), ignoring the first second of each epoch;
//! - a loss sets W_max = cwnd, or cwnd (1024 + beta) / 2048 with fast
//!   convergence below the previous W_max, and ssthresh = cwnd beta / 1024,
//!   at least 2 segments; a timeout resets everything (`bictcp_reset`).
//!
//! HyStart is the sender's (`slow_start = "hystart"`, [`super::slow_start`]),
//! as the linux profile sets it.

use serde::{Deserialize, Serialize};

use super::bictcp::{check_beta, w_max_after_loss, PendingReset, BETA_SCALE};
use super::cubic::CubicVersion;
use super::cubic_linux::{linux_probe, linux_probes, reno_friendly, Curve};
use super::{
    cong_avoid_ai, linux_count_slow_start, Ack, CaState, CongestionControl, LossCause, Probe, Tcb,
};

/// Times in the cubic function are in 2^-10 s (`BICTCP_HZ`).
const BICTCP_HZ: u32 = 10;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CubicLinux6Config {
    /// The window kept on a loss, in 1024ths (`beta`, 717).
    pub beta: u64,
    /// C in 1024ths of 10 segments / s^3 (`bic_scale`, 41).
    pub bic_scale: u64,
    pub fast_convergence: bool,
    /// The Reno-friendly estimate (`tcp_friendliness`, on).
    pub tcp_friendliness: bool,
    /// The kernel's clock, ticks per second (`CONFIG_HZ`: 100, 250, 300 or
    /// 1000; Linux's default, and this project's reference kernel's, 250).
    pub hz: u64,
    /// Always "linux" (the key that selects this form).
    pub version: CubicVersion,
}

impl CubicLinux6Config {
    /// Today's module parameters.
    pub fn linux() -> Self {
        CubicLinux6Config {
            beta: 717,
            bic_scale: 41,
            fast_convergence: true,
            tcp_friendliness: true,
            hz: 250,
            version: CubicVersion::Linux,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        check_beta(self.beta)?;
        if self.bic_scale == 0 {
            return Err(("bic_scale", "must be >= 1".into()));
        }
        if ![100, 250, 300, 1000].contains(&self.hz) {
            return Err((
                "hz",
                format!("{} is not one of 100, 250, 300, 1000", self.hz),
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct CubicLinux6 {
    pub cfg: CubicLinux6Config,
    /// Segments acknowledged per one-segment increase.
    pub cnt: u64,
    /// W_max, segments (0: none).
    pub last_max_cwnd: u64,
    last_cwnd: u64,
    last_time: u64,
    origin: u64,
    /// K, 1024ths of a second.
    pub k: u64,
    /// The smallest RTT, microseconds (0: none).
    delay_min: u64,
    /// The epoch's first ACK in congestion avoidance, in jiffies.
    epoch_start: Option<u64>,
    ack_cnt: u64,
    /// The Reno-friendly estimate, segments.
    pub tcp_cwnd: u64,
    /// A timeout's reset, applied after its ssthresh.
    reset_pending: PendingReset,
    beta_scale: u64,
    cube_factor: u64,
}

impl CubicLinux6 {
    pub fn new(cfg: CubicLinux6Config) -> Self {
        let beta = cfg.beta;
        let beta_scale = 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta);
        let cube_factor = (1u64 << (10 + 3 * BICTCP_HZ)) / (cfg.bic_scale * 10);
        let mut c = CubicLinux6 {
            cfg,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin: 0,
            k: 0,
            delay_min: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            reset_pending: PendingReset::default(),
            beta_scale,
            cube_factor,
        };
        c.reset();
        c
    }

    /// `bictcp_reset`.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.origin = 0;
        self.k = 0;
        self.delay_min = 0;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.reset_pending = PendingReset::default();
    }

    fn apply_pending_reset(&mut self) {
        if self.reset_pending.take() {
            self.reset();
        }
    }

    /// The kernel's clock at `tcb.now`, in jiffies.
    fn jiffies(&self, tcb: &Tcb) -> u64 {
        tcb.now.as_nanos() / (1_000_000_000 / self.cfg.hz)
    }

    /// `bictcp_update`: cnt for window `cwnd` (segments) after `acked`
    /// segments at `now` (jiffies).
    fn update(&mut self, cwnd: u64, acked: u64, now: u64) {
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= self.cfg.hz / 32 {
            return;
        }
        // At most once a jiffy; a reduction (epoch over) always recomputes.
        if self.epoch_start.is_none() || now != self.last_time {
            self.cubic(cwnd, acked, now);
        }
        if self.cfg.tcp_friendliness {
            self.cnt = reno_friendly(
                &mut self.ack_cnt,
                &mut self.tcp_cwnd,
                cwnd,
                self.beta_scale,
                self.cnt,
            );
        }
        self.cnt = self.cnt.max(2);
    }

    /// The cubic function's part of `bictcp_update`.
    fn cubic(&mut self, cwnd: u64, acked: u64, now: u64) {
        self.last_cwnd = cwnd;
        self.last_time = now;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                let c = Curve::start(self.cube_factor, self.last_max_cwnd, cwnd);
                (self.origin, self.k) = (c.origin, c.k);
                now
            }
        };
        // usecs_to_jiffies rounds up.
        let hz = self.cfg.hz;
        let t = ((now - epoch + (self.delay_min * hz).div_ceil(1_000_000)) << BICTCP_HZ) / hz;
        let curve = Curve {
            origin: self.origin,
            k: self.k,
        };
        self.cnt = Curve::cnt(curve.target(self.cfg.bic_scale, t), cwnd);
        if self.last_max_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20; // 5% a round trip before the first loss
        }
    }
}

impl CongestionControl for CubicLinux6 {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn init(&mut self, _tcb: &mut Tcb) {
        self.reset();
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        self.apply_pending_reset();
        // `bictcp_acked`: RTTmin from every sample, except within a second
        // of an epoch's start (right after a recovery).
        let Some(rtt) = ack.rtt else { return };
        let now = self.jiffies(tcb);
        if self.epoch_start.is_some_and(|e| now < e + self.cfg.hz) {
            return;
        }
        let delay = (rtt.as_nanos() / 1000).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.apply_pending_reset();
        let mss = tcb.mss;
        let mut acked = ack.grow_segments.max(1) as u64;
        if tcb.in_slow_start() {
            acked = linux_count_slow_start(tcb, acked * mss) / mss;
            if acked == 0 {
                return;
            }
        }
        let now = self.jiffies(tcb);
        self.update(tcb.cwnd / mss, acked, now);
        cong_avoid_ai(tcb, self.cnt, acked);
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let w = tcb.cwnd / tcb.mss;
        let beta = self.cfg.beta;
        self.epoch_start = None;
        self.last_max_cwnd =
            w_max_after_loss(w, self.last_max_cwnd, beta, self.cfg.fast_convergence);
        self.apply_pending_reset();
        (w * beta / BETA_SCALE).max(2) * tcb.mss
    }

    fn on_state(&mut self, _tcb: &mut Tcb, to: CaState) {
        self.reset_pending.on_state(to);
    }

    fn probes(&self) -> Vec<Probe> {
        linux_probes(
            "segments",
            "segments acknowledged per one-segment increase",
            "the Reno-friendly estimate (tcp_cwnd)",
        )
    }

    fn probe(&self, name: &str) -> Option<f64> {
        linux_probe(name, self.last_max_cwnd, self.k, self.cnt, self.tcp_cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry::{build, defaults, CcSpec, Profile};
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    fn driver() -> CcDriver<CubicLinux6> {
        CcDriver::new(CubicLinux6::new(CubicLinux6Config::linux()), MSS, 10)
    }

    /// A loss at 10 segments, the recovery over: cwnd = ssthresh, Open.
    fn after_a_loss_at_ten() -> CcDriver<CubicLinux6> {
        driver().recovered_from_loss_at(10)
    }

    #[test]
    fn a_loss_keeps_717_1024_of_the_window_and_converges_fast() {
        let mut d = after_a_loss_at_ten();
        // 10 x 717 / 1024 = 7.002: 7 segments; W_max = 10; beta_scale =
        // 8 x 1741 / 3 / 307 = 15.
        assert_eq!(d.tcb.ssthresh, 7 * MSS);
        assert_eq!(d.cc.last_max_cwnd, 10);
        assert_eq!(d.cc.beta_scale, 15);
        // A loss at 8 < W_max: W_max = 8 x 1741 / 2048 = 6.8, 6; ssthresh
        // 8 x 717 / 1024 = 5.6, 5.
        d.tcb.set_cwnd(8 * MSS);
        d.loss(LossCause::DupAcks, 8 * MSS);
        assert_eq!(d.cc.last_max_cwnd, 6);
        assert_eq!(d.tcb.ssthresh, 5 * MSS);
    }

    #[test]
    fn before_the_first_loss_the_window_grows_5_percent_a_round_trip() {
        // cwnd 10 at ssthresh: the epoch starts with K = 0, origin 10 and t
        // = 0 (no RTT yet), so the target is 10 and cnt 100 x 10, held to
        // 20 before any loss. ACKs of 2 segments: the 10th makes 20.
        let mut d = driver();
        d.tcb.ssthresh = 10 * MSS;
        for _ in 0..9 {
            d.ack(2, None);
        }
        assert_eq!(d.cc.cnt, 20);
        assert_eq!(d.tcb.cwnd, 10 * MSS);
        d.ack(2, None);
        assert_eq!(d.tcb.cwnd, 11 * MSS);
    }

    #[test]
    fn after_a_loss_the_kernels_integers_give_k_and_cnt() {
        // W_max 10, cwnd 7: K = cubic_root(3 x 2^40 / 410) = 2003 (1.956 s;
        // cbrt(3 / 0.4) = 1.957). At t = 0 the cubic falls short of W_max by
        // 410 x 2003^3 >> 40 = 2 (2.997 in the integers' floor), a target of
        // 8, so cnt = 7 / (8 - 7) = 7; the Reno-friendly estimate starts at
        // 7 and moves only after 7 x 15 / 8 = 13 segments.
        let mut d = after_a_loss_at_ten();
        d.ack(1, None);
        assert_eq!(d.cc.k, 2003);
        assert_eq!(d.cc.cnt, 7);
        assert_eq!(d.cc.tcp_cwnd, 7);
    }

    #[test]
    fn the_clock_is_the_kernels_hz_and_the_profiles_default() {
        // The linux profile runs this form; the paper profile RFC 9438's.
        let lx = defaults("cubic", Profile::Linux).unwrap();
        assert_eq!(lx["version"], "linux");
        assert_eq!(lx["hz"], 250);
        assert_eq!(
            defaults("cubic", Profile::Paper).unwrap()["version"],
            "rfc9438"
        );
        let mut spec = CcSpec::named("cubic");
        spec.params.insert("hz".into(), 200.into());
        let e = build(&spec, "flows[0].cc", Profile::Linux, true)
            .err()
            .unwrap();
        assert!(e.to_string().contains("flows[0].cc.hz"), "{e}");
        assert!(e.to_string().contains("100, 250, 300, 1000"), "{e}");
        // At HZ 250 a jiffy is 4 ms: 1.003 s is jiffy 250.
        let mut d = driver();
        d.advance(crate::time::SimDuration::from_millis(1003));
        assert_eq!(d.cc.jiffies(&d.tcb), 250);
    }

    #[test]
    fn a_timeout_forgets_w_max_after_taking_its_threshold() {
        // 100 segments below an earlier W_max of 200: ssthresh 100 x 717 /
        // 1024 = 70 segments either way; a fast retransmit keeps W_max =
        // 100 x (1024 + 717) / 2048 = 85 (fast convergence), a timeout's
        // bictcp_reset then forgets it.
        let mut d = CcDriver::new(CubicLinux6::new(CubicLinux6Config::linux()), MSS, 100);
        d.cc.last_max_cwnd = 200;
        d.loss(LossCause::DupAcks, 100 * MSS);
        assert_eq!((d.tcb.ssthresh, d.cc.last_max_cwnd), (70 * MSS, 85));
        let mut d = CcDriver::new(CubicLinux6::new(CubicLinux6Config::linux()), MSS, 100);
        d.cc.last_max_cwnd = 200;
        d.timeout(100 * MSS);
        assert_eq!((d.tcb.ssthresh, d.cc.last_max_cwnd), (70 * MSS, 0));
    }
}
