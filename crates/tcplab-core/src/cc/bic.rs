// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIC TCP (Xu, Harfoush and Rhee, "Binary increase congestion control
//! (BIC) for fast long-distance networks", IEEE INFOCOM 2004), as Linux's
//! `tcp_bic.c` runs it today, in every profile.
//!
//! The window searches for the last maximum W_max (`last_max_cwnd`, the
//! window before the last loss): each ACK in congestion avoidance adds
//! 1/cnt segment (one segment per `cnt` acknowledged, Linux's
//! `tcp_cong_avoid_ai`), cnt chosen from the distance to W_max (w in
//! segments, B = 4, S_max = `max_increment` = 16):
//! - w <= `low_window` (14): cnt = w, Reno's growth;
//! - below W_max, dist = (W_max - w) / B: cnt = w / S_max when dist >
//!   S_max (additive increase of S_max per RTT), w `smooth_part` / B when
//!   dist <= 1 (`smooth_part` = 20 RTTs for the last B segments), w / dist
//!   otherwise (binary search: a B-th of the way per RTT);
//! - at or above W_max ("max probing"): w `smooth_part` / B within B
//!   segments of it, then w (B - 1) / (w - W_max) (slow start away from
//!   it) up to W_max + S_max (B - 1), then w / S_max;
//! - with no W_max yet (before the first loss, and after a timeout), cnt
//!   is at most 20 (5% per RTT).
//!
//! cnt is then divided by the ACK ratio, the segments per ACK in Open as
//! an EWMA of gain 1/16 (in 16ths, from 2), at least 1; it is recomputed
//! when the window changes or 31 ms (HZ / 32 at HZ = 1000) have passed. On
//! a loss, W_max = w, or w (1 + beta) / 2 with fast convergence when w
//! is below the previous W_max; ssthresh = w beta (beta = 819/1024), or w /
//! 2 at or below `low_window`, at least 2 segments (Linux's integer
//! arithmetic throughout). A timeout forgets
//! W_max and the ACK ratio. `initial_ssthresh` (segments; 0 leaves the
//! flow's) sets the threshold at the start.
//!
//! Linux 2.6.22 (ns-2's TCP-Linux) has the same constants but added one
//! segment per cnt + 1 ACKs, whatever each ACK covered; since Linux 5.7 an
//! ACK counts the segments it covers, and with the ACK-ratio division
//! still in place, a receiver that ACKs every other segment makes BIC grow
//! about twice as fast as in 2.6.22 (tcplab counts segments with byte
//! counting on, the linux profile, and ACKs without it).

use serde::{Deserialize, Serialize};

use super::bictcp::{check_beta, w_max_after_loss, AckRatio, PendingReset, BETA_SCALE};
use super::{cong_avoid_ai, linux_slow_start, Ack, CaState, CongestionControl, LossCause};
use super::{Probe, Tcb};

/// cnt is recomputed at most this often for an unchanged window (HZ / 32
/// jiffies at HZ = 1000), ms.
const UPDATE_MS: u64 = 31;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BicConfig {
    /// B (Linux's `BICTCP_B`, 4): the binary search goes a B-th of the
    /// way to W_max per RTT.
    pub b: u64,
    /// S_max, segments (Linux's `max_increment` module parameter, 16):
    /// the largest increase per RTT.
    pub max_increment: u64,
    /// Reno at or below this window, segments (Linux's `low_window`, 14).
    pub low_window: u64,
    /// The window kept on a loss, in 1024ths (Linux's `beta`, 819).
    pub beta: u64,
    /// Lower W_max to w (1 + beta) / 2 on a loss below the previous one
    /// (Linux's `fast_convergence`, on).
    pub fast_convergence: bool,
    /// RTTs to cover the last B segments below W_max, and the first B
    /// above it (Linux's `smooth_part`, 20).
    pub smooth_part: u64,
    /// The initial ssthresh, segments (Linux's `initial_ssthresh`; 0, its
    /// default, leaves the flow's).
    pub initial_ssthresh: u64,
}

impl BicConfig {
    /// Linux's module parameters today (and in 2.6.22).
    pub fn linux() -> Self {
        BicConfig {
            b: 4,
            max_increment: 16,
            low_window: 14,
            beta: 819,
            fast_convergence: true,
            smooth_part: 20,
            initial_ssthresh: 0,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.b < 2 {
            return Err(("b", format!("{} must be >= 2", self.b)));
        }
        if self.max_increment == 0 {
            return Err(("max_increment", "must be >= 1".into()));
        }
        check_beta(self.beta)?;
        if self.smooth_part == 0 {
            return Err(("smooth_part", "must be >= 1".into()));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Bic {
    pub cfg: BicConfig,
    abc: bool,
    /// Segments acknowledged per one-segment increase.
    pub cnt: u64,
    /// W_max, segments (0: none).
    pub last_max_cwnd: u64,
    /// The window and time (ms) cnt was last computed at.
    last_cwnd: u64,
    last_time: u64,
    /// Segments per ACK in Open, in 16ths.
    delayed_ack: AckRatio,
    /// A timeout's reset, applied after its ssthresh.
    reset_pending: PendingReset,
}

impl Bic {
    pub fn new(cfg: BicConfig, abc: bool) -> Self {
        let mut bic = Bic {
            cfg,
            abc,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            delayed_ack: AckRatio::START,
            reset_pending: PendingReset::default(),
        };
        bic.reset();
        bic
    }

    /// Linux's `bictcp_reset`.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.delayed_ack = AckRatio::START;
        self.reset_pending = PendingReset::default();
    }

    fn apply_pending_reset(&mut self) {
        if self.reset_pending.take() {
            self.reset();
        }
    }

    /// Linux's `bictcp_update`: cnt for window `w` (segments) at `ms`.
    fn update(&mut self, w: u64, ms: u64) {
        if self.last_cwnd == w && ms.saturating_sub(self.last_time) <= UPDATE_MS {
            return;
        }
        self.last_cwnd = w;
        self.last_time = ms;
        let c = &self.cfg;
        if w <= c.low_window {
            self.cnt = w;
            return;
        }
        let max = self.last_max_cwnd;
        let mut cnt = if w < max {
            let dist = (max - w) / c.b;
            if dist > c.max_increment {
                w / c.max_increment // additive increase
            } else if dist <= 1 {
                w * c.smooth_part / c.b
            } else {
                w / dist // binary search
            }
        } else if w < max + c.b {
            w * c.smooth_part / c.b
        } else if w < max + c.max_increment * (c.b - 1) {
            w * (c.b - 1) / (w - max) // max probing: slow start
        } else {
            w / c.max_increment
        };
        if max == 0 {
            cnt = cnt.min(20);
        }
        self.cnt = self.delayed_ack.divide(cnt);
    }
}

impl CongestionControl for Bic {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "bic"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.reset();
        if self.cfg.initial_ssthresh > 0 {
            tcb.ssthresh = self.cfg.initial_ssthresh * tcb.mss;
        }
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        self.apply_pending_reset();
        if tcb.ca_state == CaState::Open {
            // ratio = 15/16 ratio + 1/16 segments, in 16ths.
            self.delayed_ack.sample(ack.segments_acked as u64);
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.apply_pending_reset();
        let Some(acked) = linux_slow_start(tcb, ack, self.abc) else {
            return;
        };
        self.update(tcb.cwnd / tcb.mss, tcb.now.as_nanos() / 1_000_000);
        cong_avoid_ai(tcb, self.cnt, acked);
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let w = tcb.cwnd / tcb.mss;
        let beta = self.cfg.beta;
        self.last_max_cwnd =
            w_max_after_loss(w, self.last_max_cwnd, beta, self.cfg.fast_convergence);
        let keep = if w <= self.cfg.low_window {
            w / 2
        } else {
            w * beta / BETA_SCALE
        };
        self.apply_pending_reset();
        keep.max(2) * tcb.mss
    }

    fn on_state(&mut self, _tcb: &mut Tcb, to: CaState) {
        self.reset_pending.on_state(to);
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "last_max_cwnd",
                "segments",
                "W_max: the window before the last loss, the binary search's target (0: none)",
            ),
            Probe::new(
                "cnt",
                "segments",
                "segments acknowledged per one-segment increase, after the ACK-ratio division",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "last_max_cwnd" => Some(self.last_max_cwnd as f64),
            "cnt" => Some(self.cnt as f64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    fn bic(ratio: u64, last_max: u64) -> Bic {
        let mut b = Bic::new(BicConfig::linux(), true);
        b.delayed_ack = AckRatio::of(ratio);
        b.last_max_cwnd = last_max;
        b
    }

    /// cnt at window `w` with W_max `max`, one ACK per segment.
    fn cnt(max: u64, w: u64) -> u64 {
        let mut b = bic(1, max);
        b.update(w, 0);
        b.cnt
    }

    #[test]
    fn cnt_follows_the_distance_to_the_last_maximum() {
        assert_eq!(cnt(0, 14), 14); // low window: Reno
        assert_eq!(cnt(1000, 500), 31); // dist 125 > 16: w / 16
        assert_eq!(cnt(200, 160), 16); // binary search: dist 10, w / 10
        assert_eq!(cnt(200, 196), 980); // dist 1: w 20 / 4
        assert_eq!(cnt(200, 202), 1010); // within B above: w 20 / 4
        assert_eq!(cnt(200, 210), 63); // max probing: w 3 / (w - 200)
        assert_eq!(cnt(200, 300), 18); // past W_max + 48: w / 16
        assert_eq!(cnt(0, 1000), 20); // no maximum yet: at most 20
    }

    #[test]
    fn cnt_is_divided_by_the_ack_ratio_but_not_in_the_low_window() {
        let mut b = bic(2, 200);
        b.update(160, 0);
        assert_eq!(b.cnt, 8);
        b.update(14, 0);
        assert_eq!(b.cnt, 14);
        // An unchanged window is not recomputed within 31 ms.
        b.delayed_ack = AckRatio::of(1);
        b.update(14, 31);
        b.update(160, 40);
        b.delayed_ack = AckRatio::of(2);
        b.update(160, 71);
        assert_eq!(b.cnt, 16);
        b.update(160, 72);
        assert_eq!(b.cnt, 8);
    }

    #[test]
    fn the_ack_ratio_is_an_ewma_of_segments_per_ack_in_open() {
        let mut d = CcDriver::new(Bic::new(BicConfig::linux(), true), MSS, 10);
        assert_eq!(d.cc.delayed_ack.0, 32);
        for _ in 0..200 {
            d.ack(1, None);
        }
        // From 32 (2 per ACK) to 31, where the integer EWMA stops: r -
        // r / 16 + 1 = r for any r from 16 to 31.
        assert_eq!(d.cc.delayed_ack.0, 31);
        d.tcb.ca_state = CaState::Recovery;
        d.ack(4, None);
        assert_eq!(d.cc.delayed_ack.0, 31);
    }

    #[test]
    fn a_loss_sets_w_max_with_fast_convergence_and_keeps_819_1024() {
        let mut d = CcDriver::new(Bic::new(BicConfig::linux(), true), MSS, 100);
        d.loss(LossCause::DupAcks, 100_000);
        assert_eq!((d.tcb.ssthresh, d.cc.last_max_cwnd), (79_000, 100));
        // Below the last maximum: W_max = 90 (1 + beta) / 2 = 80.99.
        d.tcb.cwnd = 90_000;
        d.loss(LossCause::DupAcks, 90_000);
        assert_eq!((d.tcb.ssthresh, d.cc.last_max_cwnd), (71_000, 80));
        assert_eq!(d.cc.probe("last_max_cwnd"), Some(80.0));
        // At or below the low window: halved.
        d.tcb.cwnd = 14_000;
        d.loss(LossCause::DupAcks, 14_000);
        assert_eq!(d.tcb.ssthresh, 7_000);
    }

    #[test]
    fn a_timeout_forgets_w_max_after_taking_its_threshold() {
        let mut d = CcDriver::new(Bic::new(BicConfig::linux(), true), MSS, 100);
        d.timeout(100_000);
        assert_eq!((d.tcb.ssthresh, d.cc.last_max_cwnd), (79_000, 0));
        assert_eq!(d.cc.delayed_ack.0, 32);
    }

    /// Segments added over 1000 acknowledged segments at 1000 far below
    /// W_max (additive increase, 16 per RTT), with `per_ack` segments per
    /// ACK.
    fn growth(per_ack: u32, abc: bool) -> u64 {
        let mut d = CcDriver::new(Bic::new(BicConfig::linux(), abc), MSS, 1000);
        d.tcb.ssthresh = 1000 * MSS;
        d.cc.last_max_cwnd = 2000;
        d.cc.delayed_ack = AckRatio::of(per_ack as u64);
        for _ in 0..1000 / per_ack {
            d.ack(per_ack, None);
        }
        d.tcb.cwnd / MSS - 1000
    }

    #[test]
    fn delayed_acks_double_the_growth_when_acks_count_their_segments() {
        assert_eq!(growth(1, true), 16);
        // cnt is halved for two segments per ACK, and each ACK counts two.
        assert_eq!(growth(2, true), 32);
        // Counting ACKs (Linux 2.6.22, tcplab without byte counting).
        assert_eq!(growth(2, false), 16);
    }

    #[test]
    fn initial_ssthresh_sets_the_threshold_in_segments() {
        let cfg = BicConfig {
            initial_ssthresh: 100,
            ..BicConfig::linux()
        };
        let d = CcDriver::new(Bic::new(cfg, true), MSS, 10);
        assert_eq!(d.tcb.ssthresh, 100_000);
        let d = CcDriver::new(Bic::new(BicConfig::linux(), true), MSS, 10);
        assert_eq!(d.tcb.ssthresh, u64::MAX);
    }

    #[test]
    fn parameters_are_checked() {
        let bad = BicConfig {
            b: 1,
            ..BicConfig::linux()
        };
        assert_eq!(bad.validate().unwrap_err().0, "b");
        let bad = BicConfig {
            beta: 1024,
            ..BicConfig::linux()
        };
        assert_eq!(bad.validate().unwrap_err().0, "beta");
    }

    #[test]
    fn the_registry_builds_it_under_every_profile_and_names_a_bad_parameter() {
        use crate::cc::registry::{defaults, Profile};
        assert_eq!(defaults("bic", Profile::Paper).unwrap()["beta"], 819);
        crate::cc::testing::builds_and_refuses("bic", "smooth_part", serde_json::json!(0));
    }
}
