// SPDX-License-Identifier: MIT OR Apache-2.0
//! YeAH-TCP: Scalable growth while a Vegas-style estimate says the
//! bottleneck queue is short, Reno's when it is not, and a loss response
//! that removes the queue rather than half the window.
//!
//! Baiocchi, Castellani, Vacirca, "YeAH-TCP: yet another highspeed TCP",
//! PFLDnet 2007; Linux's `net/ipv4/tcp_yeah.c` (by one of the authors, on
//! top of `tcp_vegas.c`'s RTT sampling).
//!
//! Every ACK's RTT sample (plus 1 us, as Vegas's code keeps RTTs non-zero)
//! lowers BaseRTT (the smallest ever) and the round's smallest RTT. At the
//! end of a round (the first ACK above snd_nxt as it was when the round
//! began), if the round had more than 2 samples, with RTT its smallest:
//! - Q = cwnd (RTT - BaseRTT) / RTT, the segments queued (integer);
//! - if Q > `alpha` (80) or RTT - BaseRTT > BaseRTT / `phy` (8): slow mode
//!   for the next round. If also Q > alpha and cwnd > reno_count, the
//!   precautionary decongestion: cwnd -= min(Q / `gamma` (1), cwnd >>
//!   `epsilon` (1)), not below reno_count, and ssthresh = cwnd. reno_count
//!   (the window Reno flows would hold, starting at 2) becomes max(cwnd / 2,
//!   2) if it was at most 2, or grows by one; the count of slow rounds in a
//!   row (`doing_reno_now`) grows by one;
//! - otherwise fast mode: the count of fast rounds grows, and past `zeta`
//!   (50) reno_count returns to 2 and the count to 0.
//!
//! Growth: slow start as standard; then in fast mode Scalable's one segment
//! per min(cwnd, `scalable_ai_cnt` = 100) acknowledged, in slow mode
//! Reno's one per cwnd (Linux's `tcp_cong_avoid_ai`, in segments).
//!
//! A loss: if fewer than `rho` (16) rounds in a row were slow (no
//! competing Reno flows assumed), the window loses the last Q, at most
//! max(cwnd / 2, 2) and at least cwnd >> `delta` (3); otherwise max(cwnd /
//! 2, 2), as Reno. ssthresh = cwnd - that, at least 2 segments; the fast
//! count restarts and reno_count halves (at least 2).
//!
//! Entering Open starts a new round (Vegas's `vegas_enable`); a restart
//! after idle and the first transmission also forget BaseRTT (Vegas's
//! `cwnd_event`). RTTs are in whole microseconds and windows in whole
//! segments, as Linux. The constants are the paper's and Linux's, whose
//! code is the authors' implementation, so every profile runs this form.
//!
//! Deviations from Linux: no `tcp_is_cwnd_limited` check; no undo.

use serde::{Deserialize, Serialize};

use super::{cong_avoid_ai, slow_start};
use super::{Ack, CaState, CongestionControl, CwndEvent, LossCause, Probe, Tcb};

/// No RTT yet (Vegas's 0x7fffffff).
const NO_RTT: u64 = 0x7fff_ffff;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct YeahConfig {
    /// Segments queued at the bottleneck above which the window is
    /// decongested (`TCP_YEAH_ALPHA`, 80).
    pub alpha: u64,
    /// The fraction of the queue removed per RTT is 1 / gamma
    /// (`TCP_YEAH_GAMMA`, 1).
    pub gamma: u64,
    /// A loss removes at least cwnd >> delta (`TCP_YEAH_DELTA`, 3).
    pub delta: u32,
    /// Decongestion removes at most cwnd >> epsilon (`TCP_YEAH_EPSILON`, 1).
    pub epsilon: u32,
    /// Slow mode when the queueing delay exceeds BaseRTT / phy
    /// (`TCP_YEAH_PHY`, 8).
    pub phy: u64,
    /// Slow rounds in a row after which a loss halves the window as Reno
    /// (`TCP_YEAH_RHO`, 16).
    pub rho: u32,
    /// Fast rounds after which reno_count restarts at 2 (`TCP_YEAH_ZETA`,
    /// 50).
    pub zeta: u32,
    /// Scalable's increase: one segment per min(cwnd, this) acknowledged
    /// (`TCP_SCALABLE_AI_CNT`, 100).
    pub scalable_ai_cnt: u64,
}

impl YeahConfig {
    pub fn linux() -> Self {
        YeahConfig {
            alpha: 80,
            gamma: 1,
            delta: 3,
            epsilon: 1,
            phy: 8,
            rho: 16,
            zeta: 50,
            scalable_ai_cnt: 100,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.gamma == 0 {
            return Err(("gamma", "must be at least 1".into()));
        }
        if self.phy == 0 {
            return Err(("phy", "must be at least 1".into()));
        }
        if self.delta > 63 || self.epsilon > 63 {
            return Err(("delta", "delta and epsilon must be at most 63".into()));
        }
        if self.scalable_ai_cnt == 0 {
            return Err(("scalable_ai_cnt", "must be at least 1".into()));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Yeah {
    pub cfg: YeahConfig,
    abc: bool,
    /// The smallest RTT ever (plus 1 us), us.
    base_rtt: u64,
    /// The round's smallest RTT and its sample count.
    min_rtt: u64,
    cnt_rtt: u32,
    /// The round ends at the first ACK above this.
    beg_snd_nxt: u64,
    /// The last round's queue estimate, segments.
    last_q: u64,
    /// Slow rounds in a row (0: fast mode).
    doing_reno_now: u32,
    /// The window competing Reno flows would hold, segments.
    reno_count: u64,
    /// Fast rounds since reno_count last restarted.
    fast_count: u32,
}

impl Yeah {
    pub fn new(cfg: YeahConfig, abc: bool) -> Self {
        Yeah {
            cfg,
            abc,
            base_rtt: NO_RTT,
            min_rtt: NO_RTT,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            last_q: 0,
            doing_reno_now: 0,
            reno_count: 2,
            fast_count: 0,
        }
    }

    /// A new round starts now (Vegas's `vegas_enable`).
    fn enable(&mut self, tcb: &Tcb) {
        self.beg_snd_nxt = tcb.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = NO_RTT;
    }

    /// The end of a round: the queue estimate and the mode.
    fn end_round(&mut self, tcb: &mut Tcb) {
        let c = &self.cfg;
        let mss = tcb.mss;
        let rtt = self.min_rtt;
        let cwnd = tcb.cwnd / mss;
        let queue = cwnd * (rtt - self.base_rtt) / rtt;
        if queue > c.alpha || rtt - self.base_rtt > self.base_rtt / c.phy {
            if queue > c.alpha && cwnd > self.reno_count {
                let reduction = (queue / c.gamma).min(cwnd >> c.epsilon);
                let w = (cwnd - reduction).max(self.reno_count);
                tcb.set_cwnd(w * mss);
                tcb.ssthresh = tcb.cwnd;
            }
            let cwnd = tcb.cwnd / mss;
            if self.reno_count <= 2 {
                self.reno_count = (cwnd >> 1).max(2);
            } else {
                self.reno_count += 1;
            }
            self.doing_reno_now = (self.doing_reno_now + 1).min(0xff_ffff);
        } else {
            self.fast_count += 1;
            if self.fast_count > c.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.doing_reno_now = 0;
        }
        self.last_q = queue;
    }
}

impl CongestionControl for Yeah {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "yeah"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.base_rtt = NO_RTT;
        self.enable(tcb);
        self.doing_reno_now = 0;
        self.last_q = 0;
        self.reno_count = 2;
    }

    fn on_ack_sample(&mut self, _tcb: &Tcb, ack: &Ack) {
        if let Some(rtt) = ack.rtt {
            let v = rtt.as_nanos() / 1000 + 1;
            self.base_rtt = self.base_rtt.min(v);
            self.min_rtt = self.min_rtt.min(v);
            self.cnt_rtt += 1;
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let mss = tcb.mss;
        let mut acked = ack.segments_acked as u64;
        let mut grow = true;
        if tcb.in_slow_start() {
            let left = slow_start(tcb, ack.bytes_acked, self.abc);
            grow = left > 0;
            acked = left.div_ceil(mss);
        }
        if grow {
            let cwnd = tcb.cwnd / mss;
            let w = if self.doing_reno_now == 0 {
                cwnd.min(self.cfg.scalable_ai_cnt)
            } else {
                cwnd
            };
            cong_avoid_ai(tcb, w, acked);
        }
        if tcb.snd_una > self.beg_snd_nxt {
            if self.cnt_rtt > 2 {
                self.end_round(tcb);
            }
            self.enable(tcb);
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let cwnd = tcb.cwnd / tcb.mss;
        let half = (cwnd >> 1).max(2);
        let reduction = if self.doing_reno_now < self.cfg.rho {
            self.last_q.min(half).max(cwnd >> self.cfg.delta)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        cwnd.saturating_sub(reduction).max(2) * tcb.mss
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        if to == CaState::Open {
            self.enable(tcb);
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, _ev: CwndEvent) {
        // Both events restart Vegas's sampling, BaseRTT included.
        self.base_rtt = NO_RTT;
        self.enable(tcb);
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "queue",
                "segments",
                "Q: the last round's estimate of the segments queued at the bottleneck",
            ),
            Probe::new(
                "mode",
                "",
                "1 in fast mode (Scalable growth), 0 in slow mode (Reno's)",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "queue" => Some(self.last_q as f64),
            "mode" => Some(if self.doing_reno_now == 0 { 1.0 } else { 0.0 }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Option<SimDuration> {
        Some(SimDuration::from_millis(v))
    }

    /// In congestion avoidance at `w` segments: a first ACK (100 ms) ends
    /// the initial round (one sample: no estimate) and starts one of four
    /// ACKs.
    fn avoiding(w: u64) -> CcDriver<Yeah> {
        let mut d = CcDriver::new(Yeah::new(YeahConfig::linux(), false), MSS, w);
        d.tcb.ssthresh = w * MSS;
        let nxt = d.tcb.snd_una + 4 * MSS;
        d.ack_with_nxt(1, ms(100), nxt);
        d
    }

    /// One round of four one-segment ACKs, every sample `rtt` ms; its last
    /// ACK ends it and begins the next (of four ACKs again).
    fn round(d: &mut CcDriver<Yeah>, rtt: u64) {
        for _ in 0..3 {
            d.ack(1, ms(rtt));
        }
        let nxt = d.tcb.snd_una + 4 * MSS;
        d.ack_with_nxt(1, ms(rtt), nxt);
    }

    #[test]
    fn slow_start_is_standard() {
        let mut d = CcDriver::new(Yeah::new(YeahConfig::linux(), false), MSS, 2);
        d.ack(1, ms(100));
        d.ack(2, ms(100));
        assert_eq!(d.tcb.cwnd, 4 * MSS);
    }

    #[test]
    fn fast_mode_grows_as_scalable_and_slow_mode_as_reno() {
        // cwnd 200: fast mode adds one segment per min(200, 100) = 100
        // acknowledged (the first ACK counted one).
        let mut d = avoiding(200);
        for _ in 0..98 {
            d.ack(1, None);
        }
        assert_eq!(d.tcb.cwnd, 200 * MSS);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 201 * MSS);
        // In slow mode, one per cwnd = 201.
        d.cc.doing_reno_now = 1;
        for _ in 0..200 {
            d.ack(1, None);
        }
        assert_eq!(d.tcb.cwnd, 201 * MSS);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 202 * MSS);
    }

    #[test]
    fn rounds_estimate_the_queue_choose_the_mode_and_decongest() {
        let mut d = avoiding(200);
        assert_eq!(d.cc.probe("mode"), Some(1.0));
        // RTT 150 ms over a base of 100 (each +1 us): Q = 200 x 50000 /
        // 150001 = 66 <= 80, but 50000 > 100001 / 8: slow mode, no cut;
        // reno_count = 200 / 2 = 100.
        round(&mut d, 150);
        assert_eq!(
            (d.cc.probe("queue"), d.cc.probe("mode")),
            (Some(66.0), Some(0.0))
        );
        assert_eq!((d.tcb.cwnd, d.cc.reno_count), (200 * MSS, 100));
        // RTT 200 ms: Q = 200 x 100000 / 200001 = 99 > 80 and cwnd > 100:
        // cwnd -= min(99, 200 >> 1) -> 101 (not below 100), ssthresh 101;
        // reno_count + 1.
        round(&mut d, 200);
        assert_eq!(d.cc.probe("queue"), Some(99.0));
        assert_eq!((d.tcb.cwnd, d.tcb.ssthresh), (101 * MSS, 101 * MSS));
        assert_eq!((d.cc.reno_count, d.cc.doing_reno_now), (101, 2));
        // A loss now (2 slow rounds < rho 16): the window loses the queue,
        // min(99, 101 / 2 = 50) = 50, at least 101 >> 3: 101 - 50 = 51.
        let mut lossy = Yeah::new(YeahConfig::linux(), false);
        lossy.last_q = 99;
        assert_eq!(lossy.ssthresh(&d.tcb, LossCause::DupAcks), 51 * MSS);
        // RTT back at the base: Q = 0, fast mode.
        round(&mut d, 100);
        assert_eq!(
            (d.cc.probe("queue"), d.cc.probe("mode")),
            (Some(0.0), Some(1.0))
        );
        // A loss with no queue removes cwnd >> 3 = 12: 101 - 12 = 89; the
        // fast count restarts and reno_count halves to 50.
        d.loss(LossCause::DupAcks, 101 * MSS);
        assert_eq!(d.tcb.ssthresh, 89 * MSS);
        assert_eq!((d.cc.reno_count, d.cc.fast_count), (50, 0));
    }

    #[test]
    fn after_rho_slow_rounds_a_loss_halves_and_zeta_fast_rounds_reset_reno_count() {
        let mut d = avoiding(100);
        d.cc.last_q = 5;
        d.cc.doing_reno_now = 16;
        d.loss(LossCause::DupAcks, 100 * MSS);
        assert_eq!(d.tcb.ssthresh, 50 * MSS);
        // 15 slow rounds: the queue (5, at least 100 >> 3 = 12) instead.
        d.cc.doing_reno_now = 15;
        d.loss(LossCause::DupAcks, 100 * MSS);
        assert_eq!(d.tcb.ssthresh, 88 * MSS);
        // The 51st fast round (> zeta 50) resets reno_count.
        d.cc.reno_count = 40;
        d.cc.fast_count = 50;
        round(&mut d, 100);
        assert_eq!((d.cc.reno_count, d.cc.fast_count), (2, 0));
    }

    #[test]
    fn a_round_needs_three_samples_and_a_restart_forgets_base_rtt() {
        let mut d = avoiding(200);
        // Two samples of 200 ms only: no estimate.
        d.ack(1, ms(200));
        d.ack(1, None);
        d.ack(1, None);
        let nxt = d.tcb.snd_una + 4 * MSS;
        d.ack_with_nxt(1, ms(200), nxt);
        assert_eq!(
            (d.cc.probe("queue"), d.cc.probe("mode")),
            (Some(0.0), Some(1.0))
        );
        // After idle, BaseRTT starts again: a round at 150 ms is then no
        // queue at all.
        d.cc.cwnd_event(&mut d.tcb, CwndEvent::Restart);
        let nxt = d.tcb.snd_una + 4 * MSS;
        d.ack_with_nxt(1, ms(150), nxt);
        round(&mut d, 150);
        assert_eq!(
            (d.cc.probe("queue"), d.cc.probe("mode")),
            (Some(0.0), Some(1.0))
        );
    }

    #[test]
    fn builds_under_every_profile_and_rejects_a_zero_gamma() {
        crate::cc::testing::builds_and_refuses("yeah", "gamma", serde_json::json!(0));
    }
}
