// SPDX-License-Identifier: MIT OR Apache-2.0
//! TCP Veno (Fu and Liew, "TCP Veno: TCP enhancement for transmission over
//! wireless access networks", IEEE JSAC 21(2), 2003), as Linux's
//! `tcp_veno.c` (by Bin Zhou and Cheng Peng Fu, the paper's first author)
//! runs it, in every profile.
//!
//! Reno, with Vegas's estimate of the backlog at the bottleneck, N =
//! Actual (RTT - BaseRTT) = cwnd (RTT - BaseRTT) / RTT segments, telling a
//! congestive state (N >= beta, beta = 3) from a non-congestive one:
//! - additive increase: one segment per cwnd acknowledged when N < beta;
//!   when N >= beta, one segment every other such round (the `inc` flag
//!   alternates each time the counter reaches cwnd), staying longer near
//!   the point where the queue builds;
//! - multiplicative decrease: a loss with N < beta is taken for a random
//!   (wireless) one and keeps 4/5 of the window; with N >= beta it halves.
//!
//! As Linux: BaseRTT is the smallest RTT sample seen (plus 1 us), RTT the
//! smallest sample since the previous ACK's step; N is computed on each
//! ACK in Open in half segments, `2 cwnd - floor(2 cwnd BaseRTT / RTT)`,
//! once more than two samples have been taken (Reno until then, and in
//! every state but Open); a loss uses the last N. Transmission starting
//! from idle forgets BaseRTT. Where tcplab's ACK carries no sample
//! (without timestamps the sender times one segment per RTT) the last
//! sample stands in; so it does for an ACK that returns to Open, whose
//! sample Linux loses (re-enabling Veno resets the minimum after the
//! sample, and the step reads an RTT of 2^31 us, a congestive N).

use serde::{Deserialize, Serialize};

use super::{cong_avoid_ai, linux_slow_start, Ack, CaState, CongestionControl, CwndEvent};
use super::{LossCause, Probe, Tcb};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VenoConfig {
    /// beta, segments: the backlog from which the state is congestive.
    pub beta: f64,
}

impl VenoConfig {
    /// The paper's and Linux's beta of 3 segments.
    pub fn paper() -> Self {
        VenoConfig { beta: 3.0 }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.beta.is_nan() || self.beta < 0.0 {
            return Err(("beta", format!("{} must be >= 0", self.beta)));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Veno {
    pub cfg: VenoConfig,
    abc: bool,
    /// Veno's decisions are on (in Open).
    doing_veno_now: bool,
    /// RTT samples taken (Linux's u16, never reset).
    cntrtt: u16,
    /// The smallest sample since the last step, us + 1.
    minrtt: Option<u64>,
    /// The latest sample, us + 1: it stands in when none came since the
    /// last step.
    latest: Option<u64>,
    /// The smallest sample seen, us + 1.
    basertt: Option<u64>,
    /// In the congestive state: the next full counter adds a segment.
    pub inc: bool,
    /// N in half segments (Linux's `diff`).
    diff: u64,
}

impl Veno {
    pub fn new(cfg: VenoConfig, abc: bool) -> Self {
        Veno {
            cfg,
            abc,
            doing_veno_now: true,
            cntrtt: 0,
            minrtt: None,
            latest: None,
            basertt: None,
            inc: true,
            diff: 0,
        }
    }

    /// N, segments.
    pub fn diff(&self) -> f64 {
        self.diff as f64 / 2.0
    }

    fn congestive(&self) -> bool {
        self.diff as f64 >= 2.0 * self.cfg.beta
    }

    fn enable(&mut self) {
        self.doing_veno_now = true;
        self.minrtt = None;
    }

    /// Linux's `tcp_veno_init`.
    fn restart(&mut self) {
        self.basertt = None;
        self.inc = true;
        self.enable();
    }

    /// Linux's `tcp_reno_cong_avoid`.
    fn reno(&self, tcb: &mut Tcb, ack: &Ack) {
        if let Some(acked) = linux_slow_start(tcb, ack, self.abc) {
            cong_avoid_ai(tcb, tcb.cwnd / tcb.mss, acked);
        }
    }
}

impl CongestionControl for Veno {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "veno"
    }

    fn init(&mut self, _tcb: &mut Tcb) {
        self.restart();
    }

    fn on_ack_sample(&mut self, _tcb: &Tcb, ack: &Ack) {
        if let Some(r) = ack.rtt {
            // Never a zero RTT (Linux adds 1 us).
            let vrtt = r.as_nanos() / 1000 + 1;
            self.basertt = Some(self.basertt.map_or(vrtt, |b| b.min(vrtt)));
            self.minrtt = Some(self.minrtt.map_or(vrtt, |m| m.min(vrtt)));
            self.latest = Some(vrtt);
            self.cntrtt = self.cntrtt.wrapping_add(1);
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        if !self.doing_veno_now {
            self.reno(tcb, ack);
            return;
        }
        if self.cntrtt <= 2 {
            self.reno(tcb, ack);
        } else {
            let rtt = self.minrtt.or(self.latest).unwrap_or(u32::MAX as u64);
            let base = self.basertt.unwrap_or(rtt).min(rtt);
            let w = tcb.cwnd / tcb.mss;
            let target = (w * base) << 1;
            self.diff = (w << 1).saturating_sub(target / rtt);
            if let Some(acked) = linux_slow_start(tcb, ack, self.abc) {
                let w = tcb.cwnd / tcb.mss;
                if !self.congestive() {
                    cong_avoid_ai(tcb, w, acked);
                } else if tcb.cwnd_cnt >= w {
                    // Every other round of cwnd acknowledged segments.
                    if self.inc {
                        tcb.cwnd += tcb.mss;
                        self.inc = false;
                    } else {
                        self.inc = true;
                    }
                    tcb.cwnd_cnt = 0;
                } else {
                    tcb.cwnd_cnt += acked;
                }
            }
            tcb.cwnd = tcb.cwnd.max(2 * tcb.mss);
        }
        self.minrtt = None;
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let w = tcb.cwnd / tcb.mss;
        let keep = if self.congestive() { w / 2 } else { w * 4 / 5 };
        keep.max(2) * tcb.mss
    }

    fn on_state(&mut self, _tcb: &mut Tcb, to: CaState) {
        if to == CaState::Open {
            self.enable();
        } else {
            self.doing_veno_now = false;
        }
    }

    fn cwnd_event(&mut self, _tcb: &mut Tcb, _ev: CwndEvent) {
        // TxStart and Restart both: fresh samples before deciding again.
        self.restart();
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "diff",
                "segments",
                "N = cwnd (RTT - BaseRTT) / RTT: the backlog Veno estimates (>= beta: congestive)",
            ),
            Probe::new(
                "inc",
                "flag",
                "1 when the next counter of cwnd segments adds one, in the congestive state",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "diff" => Some(self.diff()),
            "inc" => Some(if self.inc { 1.0 } else { 0.0 }),
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

    fn ms(n: u64) -> Option<SimDuration> {
        Some(SimDuration::from_millis(n))
    }

    /// In congestion avoidance at `cwnd` segments, BaseRTT 100 ms from
    /// three samples.
    fn driver(abc: bool, cwnd: u64) -> CcDriver<Veno> {
        let mut d = CcDriver::new(Veno::new(VenoConfig::paper(), abc), MSS, cwnd);
        d.tcb.ssthresh = cwnd * MSS;
        for _ in 0..3 {
            d.cc.on_ack_sample(&d.tcb.clone(), &sample(ms(100)));
        }
        d.cc.minrtt = None; // as after an ACK's step
        d
    }

    fn sample(rtt: Option<SimDuration>) -> Ack {
        Ack {
            now: crate::time::SimTime::ZERO,
            bytes_acked: 0,
            segments_acked: 0,
            grow_segments: 0,
            is_dup: true,
            rtt,
            seg_rtt: None,
            prior_in_flight: 0,
            ece: false,
            ts: None,
        }
    }

    #[test]
    fn it_is_reno_until_more_than_two_rtt_samples() {
        let mut d = CcDriver::new(Veno::new(VenoConfig::paper(), true), MSS, 10);
        d.tcb.ssthresh = 10 * MSS;
        for _ in 0..2 {
            d.ack(1, ms(150)); // a queue, but only two samples
        }
        assert_eq!(d.cc.diff(), 0.0);
        for _ in 0..8 {
            d.ack(1, ms(150));
        }
        assert_eq!(d.tcb.cwnd, 11_000);
    }

    #[test]
    fn without_a_queue_it_grows_as_reno_and_a_loss_keeps_four_fifths() {
        let mut d = driver(true, 40);
        for _ in 0..40 {
            d.ack(1, ms(100));
        }
        assert_eq!((d.tcb.cwnd, d.cc.diff()), (41_000, 0.0));
        d.loss(LossCause::DupAcks, 41_000);
        assert_eq!(d.tcb.ssthresh, 32_000); // 41 * 4 / 5
    }

    #[test]
    fn with_a_backlog_of_beta_it_grows_every_other_round_and_halves() {
        let mut d = driver(true, 40);
        // 2 * 40 - floor(80 * 100001 / 120001) = 80 - 66: N = 7 segments.
        d.ack(1, ms(120));
        assert_eq!(d.cc.diff(), 7.0);
        for _ in 0..39 {
            d.ack(1, ms(120));
        }
        // The counter is full; the next ACK adds a segment (not counted).
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (40_000, 40));
        d.ack(1, ms(120));
        assert_eq!((d.tcb.cwnd, d.cc.probe("inc")), (41_000, Some(0.0)));
        // The next full round only sets the flag again.
        for _ in 0..42 {
            d.ack(1, ms(120));
        }
        assert_eq!((d.tcb.cwnd, d.cc.probe("inc")), (41_000, Some(1.0)));
        d.loss(LossCause::DupAcks, 41_000);
        assert_eq!(d.tcb.ssthresh, 20_000);
    }

    #[test]
    fn the_backlog_is_measured_on_each_ack_from_its_own_sample() {
        let mut d = driver(true, 40);
        d.ack(1, ms(120));
        assert_eq!(d.cc.diff(), 7.0);
        d.ack(1, ms(100));
        assert_eq!(d.cc.diff(), 0.0);
        // An ACK with no sample keeps the last one's RTT.
        d.ack(1, ms(130));
        let n = d.cc.diff();
        d.ack(1, None);
        assert_eq!(d.cc.diff(), n);
        assert!(n > 7.0);
    }

    #[test]
    fn outside_open_it_is_reno_and_reopening_starts_afresh() {
        let mut d = driver(true, 40);
        d.ack(1, ms(120));
        d.cc.on_state(&mut d.tcb, CaState::Disorder);
        d.tcb.ca_state = CaState::Disorder;
        let before = d.cc.diff();
        d.ack(1, ms(200));
        assert_eq!(d.cc.diff(), before); // no Veno step
                                         // Re-opening resets the minimum after this ACK's sample was taken
                                         // (the sender's order, and Linux's): the sample still counts.
        let ack = |d: &mut CcDriver<Veno>, rtt| {
            let mut a = sample(rtt);
            (a.bytes_acked, a.segments_acked, a.is_dup) = (MSS, 1, false);
            d.cc.on_ack_sample(&d.tcb.clone(), &a);
            d.cc.on_state(&mut d.tcb, CaState::Open);
            d.tcb.ca_state = CaState::Open;
            d.cc.increase_window(&mut d.tcb, &a);
        };
        ack(&mut d, ms(100));
        assert_eq!(d.cc.diff(), 0.0);
    }

    #[test]
    fn restarting_from_idle_forgets_base_rtt() {
        let mut d = driver(true, 40);
        d.cc.cwnd_event(&mut d.tcb, CwndEvent::Restart);
        // BaseRTT is now 150 ms: no queue at 150 ms.
        d.ack(1, ms(150));
        assert_eq!((d.cc.diff(), d.cc.probe("inc")), (0.0, Some(1.0)));
    }

    #[test]
    fn without_byte_counting_an_ack_counts_one_segment() {
        let mut d = driver(false, 40);
        for _ in 0..20 {
            d.ack(2, ms(100));
        }
        assert_eq!(d.tcb.cwnd, 40_000);
        for _ in 0..20 {
            d.ack(2, ms(100));
        }
        assert_eq!(d.tcb.cwnd, 41_000);
    }

    #[test]
    fn the_registry_builds_it_under_every_profile_and_names_a_bad_parameter() {
        use crate::cc::registry::{defaults, Profile};
        assert_eq!(defaults("veno", Profile::Linux).unwrap()["beta"], 3.0);
        crate::cc::testing::builds_and_refuses("veno", "beta", serde_json::json!(-1));
    }
}
