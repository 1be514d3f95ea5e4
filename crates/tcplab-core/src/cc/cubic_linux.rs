// SPDX-License-Identifier: MIT OR Apache-2.0
//! CUBIC 2.1 as Linux 2.6.22 runs it (`net/ipv4/tcp_cubic.c` of 2.6.22,
//! the module ns-2.35's TCP-Linux runs): the `version = "2.6.22"` form of
//! `cubic`, for reproducing TCP-Linux studies. Today's CUBIC is
//! [`super::cubic`] (RFC 9438).
//!
//! Integer arithmetic as the kernel's, with HZ = 1000 (TCP-Linux's 1-ms
//! clock; times in ms):
//! - W_cubic(t) = origin + C (t + RTTmin - K)^3 with t since the epoch's
//!   first ACK in congestion avoidance, in 1024ths of a second; C =
//!   `bic_scale` x 10 / 1024 (41: 0.4004 segment / s^3); K = cbrt((W_max -
//!   cwnd) / C), by the kernel's table and one Newton step
//!   (`cubic_root`); origin = W_max, or cwnd with K = 0 when cwnd >= W_max;
//! - cnt (ACKs per one-segment increase) = cwnd / (target - cwnd), or 100
//!   cwnd at or above the target; at least cwnd HZ 8 / (10
//!   `max_increment` RTTmin) past K; 50 before the first loss (and after
//!   a timeout, which resets everything);
//! - the Reno-friendly estimate counts ACKs, not segments: one segment per
//!   cwnd `beta_scale` / 8 ACKs, `beta_scale` = 8 (1024 + beta) / 3 /
//!   (1024 - beta) (23 at beta = 819); cnt is at most cwnd / (estimate -
//!   cwnd) when the estimate is above cwnd;
//! - cnt is then divided by the ACK ratio (segments per ACK in Open, an
//!   EWMA of gain 1/16 in 16ths from 2; only ACKs of new data count), at
//!   least 1, and recomputed when cwnd changed or 31 ms have passed;
//! - one segment is added after cnt + 1 ACKs (2.6.22's `snd_cwnd_cnt`
//!   counting); slow start adds one segment per ACK while cwnd <=
//!   ssthresh (today's Linux: while cwnd < ssthresh);
//! - RTTmin is the smallest timestamp RTT, in 8ths of a ms, ignoring the
//!   first second of each epoch and the ACKs without a timestamp;
//! - a loss sets W_max = cwnd, or cwnd (1024 + beta) / 2048 with fast
//!   convergence below the previous W_max, and ssthresh = cwnd beta / 1024,
//!   at least 2 segments.
//!
//! Where today's Linux differs (4.x to 6.x): beta 717, the Reno-friendly
//! estimate and the growth count acknowledged segments (no ACK ratio), cnt
//! at least 2, at most 20 before the first loss, and HyStart;
//! docs/variants.md.

use serde::{Deserialize, Serialize};

use super::bictcp::{check_beta, w_max_after_loss, AckRatio, PendingReset, BETA_SCALE};
use super::cubic::CubicVersion;
use super::{Ack, CaState, CongestionControl, LossCause, Probe, Tcb};

/// Times in the cubic function are in 2^-10 s (`BICTCP_HZ`).
const BICTCP_HZ: u32 = 10;
/// Linux's HZ in TCP-Linux (a 1-ms jiffy).
const HZ: u64 = 1000;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CubicLinuxConfig {
    /// The window kept on a loss, in 1024ths (2.6.22's `beta`, 819).
    pub beta: u64,
    /// C in 1024ths of 10 segments / s^3 (`bic_scale`, 41).
    pub bic_scale: u64,
    /// The largest increase per 100 ms past K, segments (`max_increment`, 16).
    pub max_increment: u64,
    pub fast_convergence: bool,
    /// The Reno-friendly estimate (`tcp_friendliness`, on).
    pub tcp_friendliness: bool,
    /// Always "2.6.22" (the key that selects this form).
    pub version: CubicVersion,
}

impl CubicLinuxConfig {
    /// 2.6.22's module parameters.
    pub fn linux_2622() -> Self {
        CubicLinuxConfig {
            beta: 819,
            bic_scale: 41,
            max_increment: 16,
            fast_convergence: true,
            tcp_friendliness: true,
            version: CubicVersion::Linux2622,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        check_beta(self.beta)?;
        if self.bic_scale == 0 {
            return Err(("bic_scale", "must be >= 1".into()));
        }
        if self.max_increment == 0 {
            return Err(("max_increment", "must be >= 1".into()));
        }
        Ok(())
    }
}

/// The kernel's cube root: a table for the top bits, then one
/// Newton-Raphson step (average error 0.2%).
pub fn cubic_root(a: u64) -> u64 {
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164,
        168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209,
        211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240,
        242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let b = 64 - a.leading_zeros(); // fls64
    if b < 7 {
        return (V[a as usize] as u64 + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let x = (((V[shift] as u32 + 10) << b) >> 6) as u64;
    let x = 2 * x + a / (x * (x - 1));
    ((x as u32).wrapping_mul(341) >> 10) as u64
}

/// The cubic function of Linux's `bictcp_update`, in its integers, shared
/// by this form and today's ([`super::cubic_linux6`]): an epoch's origin
/// and K (1024ths of a second).
#[derive(Clone, Copy, Debug, Default)]
pub struct Curve {
    pub origin: u64,
    pub k: u64,
}

impl Curve {
    /// At an epoch's start with window `cwnd` and W_max `last_max`
    /// (segments): K = 0 and origin cwnd at or above W_max, else
    /// K = cbrt(`cube_factor` (W_max - cwnd)) and origin W_max.
    pub fn start(cube_factor: u64, last_max: u64, cwnd: u64) -> Curve {
        if last_max <= cwnd {
            Curve { origin: cwnd, k: 0 }
        } else {
            Curve {
                origin: last_max,
                k: cubic_root(cube_factor * (last_max - cwnd)),
            }
        }
    }

    /// W_cubic at `t` (1024ths of a second) with C = `bic_scale` x 10 /
    /// 1024, in whole segments.
    pub fn target(&self, bic_scale: u64, t: u64) -> u64 {
        let offs = t.abs_diff(self.k);
        // In the kernel's u64, wrapping some 340 s past K (as its comment
        // warns), then kept in a u32.
        let cube = (bic_scale * 10)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs);
        let delta = (cube >> (10 + 3 * BICTCP_HZ)) as u32 as u64;
        if t < self.k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin + delta
        }
    }

    /// cnt towards `target` from `cwnd`: cwnd / (target - cwnd), or 100
    /// cwnd at or above the target.
    pub fn cnt(target: u64, cwnd: u64) -> u64 {
        if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        }
    }
}

/// The Reno-friendly estimate of `bictcp_update`: one segment more per
/// cwnd `beta_scale` / 8 counted (ACKs in 2.6.22, segments today) in
/// `ack_cnt`; `cnt` capped at cwnd / (estimate - cwnd) when above cwnd.
pub fn reno_friendly(
    ack_cnt: &mut u64,
    tcp_cwnd: &mut u64,
    cwnd: u64,
    beta_scale: u64,
    cnt: u64,
) -> u64 {
    let delta = ((cwnd * beta_scale) >> 3).max(1);
    while *ack_cnt > delta {
        *ack_cnt -= delta;
        *tcp_cwnd += 1;
    }
    if *tcp_cwnd > cwnd {
        cnt.min(cwnd / (*tcp_cwnd - cwnd))
    } else {
        cnt
    }
}

/// The probes of both Linux forms: W_max, K, cnt (counted in `unit`) and
/// the Reno-friendly estimate.
pub fn linux_probes(unit: &'static str, cnt: &'static str, w_est: &'static str) -> Vec<Probe> {
    vec![
        Probe::new(
            "w_max",
            "segments",
            "W_max: the window before the last reduction (0: none)",
        ),
        Probe::new("k", "s", "K: the time to grow back to W_max"),
        Probe::new("cnt", unit, cnt),
        Probe::new("w_est", "segments", w_est),
    ]
}

/// A Linux form's probe values: W_max, K (1024ths of a second), cnt and the
/// estimate.
pub fn linux_probe(name: &str, w_max: u64, k: u64, cnt: u64, w_est: u64) -> Option<f64> {
    match name {
        "w_max" => Some(w_max as f64),
        "k" => Some(k as f64 / 1024.0),
        "cnt" => Some(cnt as f64),
        "w_est" => Some(w_est as f64),
        _ => None,
    }
}

#[derive(Clone, Debug)]
pub struct CubicLinux {
    pub cfg: CubicLinuxConfig,
    /// ACKs per one-segment increase.
    pub cnt: u64,
    /// W_max, segments (0: none).
    pub last_max_cwnd: u64,
    /// The window at the last loss (0: none since the start or a timeout).
    loss_cwnd: u64,
    last_cwnd: u64,
    last_time: u64,
    origin: u64,
    /// K, 1024ths of a second.
    pub k: u64,
    /// The smallest RTT, 8ths of a ms (0: none).
    delay_min: u64,
    /// The epoch's first ACK in congestion avoidance, ms.
    epoch_start: Option<u64>,
    ack_cnt: u64,
    /// The Reno-friendly estimate, segments.
    pub tcp_cwnd: u64,
    /// Segments per ACK in Open, in 16ths.
    delayed_ack: AckRatio,
    /// A timeout's reset, applied after its ssthresh.
    reset_pending: PendingReset,
    beta_scale: u64,
    cube_factor: u64,
}

impl CubicLinux {
    pub fn new(cfg: CubicLinuxConfig) -> Self {
        let beta = cfg.beta;
        let beta_scale = 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta);
        let cube_factor = (1u64 << (10 + 3 * BICTCP_HZ)) / (cfg.bic_scale * 10);
        let mut c = CubicLinux {
            cfg,
            cnt: 0,
            last_max_cwnd: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin: 0,
            k: 0,
            delay_min: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            delayed_ack: AckRatio::START,
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
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.origin = 0;
        self.k = 0;
        self.delay_min = 0;
        self.epoch_start = None;
        self.delayed_ack = AckRatio::START;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.reset_pending = PendingReset::default();
    }

    fn apply_pending_reset(&mut self) {
        if self.reset_pending.take() {
            self.reset();
        }
    }

    /// `bictcp_update`: cnt for window `cwnd` (segments) at `now` (ms).
    fn update(&mut self, cwnd: u64, now: u64) {
        self.ack_cnt += 1;
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = 1;
                self.tcp_cwnd = cwnd;
                let c = Curve::start(self.cube_factor, self.last_max_cwnd, cwnd);
                (self.origin, self.k) = (c.origin, c.k);
                now
            }
        };
        let t = ((now + (self.delay_min >> 3) - epoch) << BICTCP_HZ) / HZ;
        let curve = Curve {
            origin: self.origin,
            k: self.k,
        };
        let target = curve.target(self.cfg.bic_scale, t);
        let mut cnt = Curve::cnt(target, cwnd);
        if self.delay_min > 0 {
            // At most max_increment segments per 100 ms, past K.
            let min_cnt = (cwnd * HZ * 8) / (10 * self.cfg.max_increment * self.delay_min);
            if cnt < min_cnt && t >= self.k {
                cnt = min_cnt;
            }
        }
        if self.loss_cwnd == 0 {
            cnt = 50;
        }
        if self.cfg.tcp_friendliness {
            cnt = reno_friendly(
                &mut self.ack_cnt,
                &mut self.tcp_cwnd,
                cwnd,
                self.beta_scale,
                cnt,
            );
        }
        self.cnt = self.delayed_ack.divide(cnt);
    }

    /// `measure_delay`, on an ACK of new data.
    fn measure_delay(&mut self, ack: &Ack, now: u64) {
        let Some((_, tsecr)) = ack.ts else {
            return;
        };
        // Samples right after a recovery (within a second of the epoch's
        // start, or of t = 0 before the first epoch) are discarded.
        if now < self.epoch_start.unwrap_or(0) + HZ {
            return;
        }
        let delay = (now.saturating_sub(tsecr / 1_000_000) << 3).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
    }
}

impl CongestionControl for CubicLinux {
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
        // `bictcp_acked`: TCP-Linux calls it on ACKs of new data only.
        if ack.segments_acked > 0 && tcb.ca_state == CaState::Open {
            self.delayed_ack.sample(ack.segments_acked as u64);
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.apply_pending_reset();
        let now = tcb.now.as_nanos() / 1_000_000;
        self.measure_delay(ack, now);
        // `tcp_is_cwnd_limited`: no growth unless what was in flight
        // filled the window.
        if ack.prior_in_flight < tcb.cwnd {
            return;
        }
        let w = tcb.cwnd / tcb.mss;
        if w <= tcb.ssthresh / tcb.mss {
            // 2.6.22's slow start: one segment per ACK, up to and at
            // ssthresh (today's stops below it).
            tcb.cwnd += tcb.mss;
            return;
        }
        self.update(w, now);
        // 2.6.22: one segment after cnt + 1 ACKs.
        if tcb.cwnd_cnt >= self.cnt {
            tcb.cwnd += tcb.mss;
            tcb.cwnd_cnt = 0;
        } else {
            tcb.cwnd_cnt += 1;
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let w = tcb.cwnd / tcb.mss;
        let beta = self.cfg.beta;
        self.epoch_start = None;
        self.last_max_cwnd =
            w_max_after_loss(w, self.last_max_cwnd, beta, self.cfg.fast_convergence);
        self.loss_cwnd = w;
        self.apply_pending_reset();
        (w * beta / BETA_SCALE).max(2) * tcb.mss
    }

    fn on_state(&mut self, _tcb: &mut Tcb, to: CaState) {
        self.reset_pending.on_state(to);
    }

    fn probes(&self) -> Vec<Probe> {
        linux_probes(
            "ACKs",
            "ACKs per one-segment increase, after the ACK-ratio division",
            "the Reno-friendly estimate (2.6.22's tcp_cwnd, counted in ACKs)",
        )
    }

    fn probe(&self, name: &str) -> Option<f64> {
        linux_probe(name, self.last_max_cwnd, self.k, self.cnt, self.tcp_cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry::{build, CcSpec, Profile};
    use crate::cc::testing::{ms, CcDriver};

    const MSS: u64 = 1000;

    fn driver() -> CcDriver<CubicLinux> {
        CcDriver::new(CubicLinux::new(CubicLinuxConfig::linux_2622()), MSS, 10)
    }

    /// A loss at 10 segments, the recovery over: cwnd = ssthresh, Open.
    fn after_a_loss_at_ten() -> CcDriver<CubicLinux> {
        driver().recovered_from_loss_at(10)
    }

    #[test]
    fn the_cube_root_is_the_kernels_table_and_newton_step() {
        assert_eq!(cubic_root(0), 0);
        // Below 64: the table alone, (v + 35) >> 6 = (190 + 35) >> 6.
        assert_eq!(cubic_root(27), 3);
        // fls = 10, b = 2, shift = 15: x = (156 + 10) * 4 >> 6 = 10; Newton
        // 20 + 1000 / 90 = 31; 31 * 341 >> 10 = 10.
        assert_eq!(cubic_root(1000), 10);
        // K for W_max - cwnd = 2 at bic_scale 41: a = 2 * (2^40 / 410) =
        // 5363471354; fls = 33, b = 9, shift = 39: x = (215 + 10) << 9 >> 6
        // = 1800; Newton 3600 + a / (1800 * 1799) = 5256; * 341 >> 10 =
        // 1750 (1.709 s; cbrt(2 / 0.4) = 1.710 s).
        let d = driver();
        assert_eq!(d.cc.cube_factor, 2_681_735_677);
        assert_eq!(cubic_root(2 * d.cc.cube_factor), 1750);
    }

    #[test]
    fn a_loss_keeps_819_1024_of_the_window_in_whole_segments() {
        let d = after_a_loss_at_ten();
        // 10 * 819 / 1024 = 7.998: 7 segments; W_max = 10.
        assert_eq!(d.tcb.ssthresh, 7 * MSS);
        assert_eq!(d.cc.last_max_cwnd, 10);
        assert_eq!(d.cc.beta_scale, 23);
    }

    #[test]
    fn slow_start_runs_up_to_and_at_ssthresh() {
        let mut d = after_a_loss_at_ten();
        // cwnd 7 <= ssthresh 7: slow start, one segment for the ACK.
        d.ack_ece(2, false);
        assert_eq!(d.tcb.cwnd, 8 * MSS);
        assert_eq!(d.cc.epoch_start, None);
    }

    #[test]
    fn one_segment_after_cnt_plus_one_acks_with_cnt_from_the_cubic_and_the_ack_ratio() {
        let mut d = after_a_loss_at_ten();
        d.ack_ece(2, false); // slow start to 8
                             // Epoch start at cwnd 8: K = 1750 (1.709 s), origin 10; no RTT
                             // sample, so t = 0 and the target is 10 - (410 * 1750^3 >> 40) =
                             // 10 - 1 = 9: cnt = 8 / (9 - 8) = 8, divided by the ACK ratio 2
                             // (32 sixteenths, unchanged by ACKs of 2 segments): 4.
        d.ack_ece(2, false);
        assert_eq!((d.cc.k, d.cc.origin, d.cc.cnt), (1750, 10, 4));
        assert_eq!(d.tcb.cwnd_cnt, 1);
        for _ in 0..3 {
            d.ack_ece(2, false);
        }
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (8 * MSS, 4));
        // The fifth ACK since the epoch began: cwnd_cnt 4 >= cnt 4.
        d.ack_ece(2, false);
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (9 * MSS, 0));
        // Five ACKs counted towards the Reno-friendly estimate, which moves
        // one segment per 9 * 23 / 8 = 25 ACKs.
        assert_eq!((d.cc.ack_cnt, d.cc.tcp_cwnd), (5, 8));
    }

    #[test]
    fn the_reno_friendly_estimate_counts_acks_and_caps_cnt() {
        let mut d = after_a_loss_at_ten();
        d.ack_ece(2, false); // slow start to 8
        d.ack_ece(2, false); // the epoch starts
                             // 8 * 23 / 8 = 23 ACKs per estimate segment; after 24 counted the
                             // estimate is 9 > cwnd: cnt <= 8 / (9 - cwnd).
        d.cc.ack_cnt = 23;
        d.cc.last_cwnd = 0; // recompute at once
        d.cc.update(8, d.tcb.now.as_nanos() / 1_000_000);
        assert_eq!((d.cc.ack_cnt, d.cc.tcp_cwnd), (1, 9));
        // The cubic's cnt was 8 (4 after the ratio); the estimate's 8 / 1 = 8:
        // min(8, 8) / 2 = 4. Two segments below the estimate instead:
        d.cc.tcp_cwnd = 10;
        d.cc.last_cwnd = 0;
        d.cc.update(8, d.tcb.now.as_nanos() / 1_000_000);
        assert_eq!(d.cc.cnt, 2); // min(8, 8 / 2) = 4, halved by the ratio
    }

    #[test]
    fn the_ack_ratio_counts_acks_of_new_data_in_open_only() {
        let mut d = after_a_loss_at_ten();
        assert_eq!(d.cc.delayed_ack.0, 32);
        d.dupack(); // no new data: not counted
        assert_eq!(d.cc.delayed_ack.0, 32);
        d.ack_ece(1, false); // 32 - 32 / 16 + 1
        assert_eq!(d.cc.delayed_ack.0, 31);
        d.tcb.ca_state = CaState::Recovery;
        d.ack_ece(4, false);
        assert_eq!(d.cc.delayed_ack.0, 31);
    }

    #[test]
    fn no_growth_when_the_window_was_not_filled() {
        let mut d = after_a_loss_at_ten();
        // 3 of cwnd 7 in flight: tcp_is_cwnd_limited is false.
        d.tcb.snd_max = d.tcb.snd_una + 3 * MSS;
        d.ack(2, None);
        assert_eq!(d.tcb.cwnd, 7 * MSS);
    }

    #[test]
    fn a_timeout_forgets_w_max_and_grows_one_segment_per_fifty_acks() {
        let mut d = after_a_loss_at_ten();
        d.tcb.set_cwnd(9 * MSS);
        d.timeout(9 * MSS);
        // The threshold from W = 9 (9 * 819 / 1024 = 7), then the reset.
        assert_eq!(d.tcb.ssthresh, 7 * MSS);
        assert_eq!(
            (d.cc.last_max_cwnd, d.cc.loss_cwnd, d.cc.delayed_ack.0),
            (0, 0, 32)
        );
        d.tcb.ca_state = CaState::Open;
        d.tcb.set_cwnd(8 * MSS);
        d.ack_ece(2, false);
        // No loss since the reset: cnt = 50, halved by the ratio.
        assert_eq!(d.cc.cnt, 25);
    }

    #[test]
    fn rtt_min_comes_from_timestamps_after_the_first_second() {
        let mut d = after_a_loss_at_ten();
        let sample = |d: &mut CcDriver<CubicLinux>, rtt_ms: u64| {
            let now = d.tcb.now.as_nanos();
            let ack = Ack {
                now: d.tcb.now,
                bytes_acked: MSS,
                segments_acked: 1,
                grow_segments: 1,
                is_dup: false,
                rtt: None,
                seg_rtt: None,
                prior_in_flight: d.tcb.cwnd,
                ece: false,
                ts: Some((0, now - rtt_ms * 1_000_000)),
            };
            d.cc.increase_window(&mut d.tcb, &ack);
        };
        d.advance(ms(500));
        sample(&mut d, 90);
        assert_eq!(d.cc.delay_min, 0); // within the first second
        d.advance(ms(600));
        sample(&mut d, 90);
        assert_eq!(d.cc.delay_min, 90 << 3);
    }

    #[test]
    fn version_2_6_22_selects_this_form_with_its_own_parameters() {
        let mut spec = CcSpec::named("cubic");
        spec.params.insert("version".into(), "2.6.22".into());
        let b = build(&spec, "cc", Profile::Linux, true).unwrap();
        assert_eq!(b.spec.params["beta"], 819);
        assert_eq!(b.spec.params["bic_scale"], 41);
        assert!(b.cc.probes().iter().any(|p| p.name == "w_est"));
        // RFC 9438's float beta is not this form's.
        spec.params.insert("beta".into(), 0.8.into());
        let e = build(&spec, "cc", Profile::Linux, true).err().unwrap();
        assert!(e.to_string().contains("cc.beta"), "{e}");
        // An unknown version names the two.
        let mut spec = CcSpec::named("cubic");
        spec.params.insert("version".into(), "3.0".into());
        let e = build(&spec, "cc", Profile::Linux, true)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("cc.version") && e.contains("2.6.22") && e.contains("rfc9438"),
            "{e}"
        );
    }
}
