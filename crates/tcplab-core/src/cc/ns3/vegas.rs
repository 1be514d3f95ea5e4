// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's `TcpVegas` (`src/internet/model/tcp-vegas.cc`): TCP Vegas
//! (Brakmo and Peterson 1995) as ns-3 wrote it after Linux's
//! `tcp_vegas.c`, the `version = "ns3"` form of `vegas`.
//!
//! Per ACK (`PktsAcked`), duplicates included, the smoothed RTT lowers
//! BaseRTT and the round's minimum and counts a sample. A round ends on the
//! first ACK of new data at or above `snd_nxt` as it was when the round
//! began. At its end, with w the window in whole segments and RTT the
//! round's minimum, target = floor(w BaseRTT / RTT) and diff = w - target:
//! - with two samples or fewer, `TcpNewReno`'s growth for that ACK;
//! - in slow start, diff > gamma leaves it: cwnd = min(w, target + 1)
//!   segments, ssthresh = max(min(ssthresh, cwnd - 1 MSS), 2 MSS);
//!   otherwise `TcpNewReno`'s slow start for that ACK;
//! - after it, diff > beta takes a segment off (ssthresh as above), diff <
//!   alpha adds one;
//! - then ssthresh = max(ssthresh, 3/4 cwnd), and the minimum and the count
//!   start again.
//!
//! Within a round, slow start grows by a segment per ACK (ns-3 has no
//! every-other-round slow start) and congestion avoidance holds.
//!
//! Where ns-3 differs from Linux and the paper: the RTTs are the smoothed
//! RTT, not the ACKs' samples, so the round's minimum is a smoothed value
//! and a delayed ACK's wait enters it. A window-limited flow sends a burst
//! per round whose last segment waits for the next round's first (an odd
//! count), or for the receiver's timer; those samples raise the smoothed
//! RTT by several ms, so diff stays at alpha and the window holds far below
//! the path's capacity (alone on the 100-ms dumbbell ns-3's Vegas holds
//! about 21 segments and 2.3 of 10 Mb/s). A loss, by duplicate ACKs or
//! timeout, keeps max(min(ssthresh, cwnd - 1 MSS), 2 MSS), not half the
//! window: after a round's 3/4 floor, about three quarters. Vegas runs
//! only in Open (`CongestionStateSet`): entering Open starts a round at the
//! current `snd_nxt`; any other state grows as `TcpNewReno`.

use serde::{Deserialize, Serialize};

use super::{newreno_cong_avoid, newreno_increase, newreno_slow_start};
use super::{Ns3Version, RttMins};
use crate::cc::{Ack, CaState, CongestionControl, LossCause, Probe, Tcb};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ns3VegasConfig {
    /// "ns3": this form.
    pub version: Ns3Version,
    /// `Alpha`: below this diff (segments) the window grows (2).
    pub alpha: u32,
    /// `Beta`: above this diff the window shrinks (4).
    pub beta: u32,
    /// `Gamma`: above this diff slow start ends (1).
    pub gamma: u32,
}

impl Default for Ns3VegasConfig {
    fn default() -> Self {
        Ns3VegasConfig {
            version: Ns3Version::Ns3,
            alpha: 2,
            beta: 4,
            gamma: 1,
        }
    }
}

impl Ns3VegasConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        crate::cc::vegas::thresholds_in_order(self.alpha, self.beta)
    }
}

#[derive(Clone, Debug)]
pub struct Ns3Vegas {
    cfg: Ns3VegasConfig,
    rtt: RttMins,
    doing_vegas_now: bool,
    /// The round ends when an ACK reaches this (`m_begSndNxt`).
    beg_snd_nxt: u64,
    /// The last round's diff, segments.
    diff: u32,
}

/// `GetSsThresh`: max(min(ssthresh, cwnd - 1 MSS), 2 MSS).
fn vegas_ssthresh(tcb: &Tcb) -> u64 {
    tcb.ssthresh
        .min(tcb.cwnd.saturating_sub(tcb.mss))
        .max(2 * tcb.mss)
}

impl Ns3Vegas {
    pub fn new(cfg: Ns3VegasConfig) -> Self {
        Ns3Vegas {
            cfg,
            rtt: RttMins::default(),
            doing_vegas_now: true,
            beg_snd_nxt: 0,
            diff: 0,
        }
    }

    /// A round's decision, with at least three samples.
    fn decide(&mut self, tcb: &mut Tcb, segments: u32) {
        let mut w = (tcb.cwnd / tcb.mss) as u32;
        let target = self.rtt.target(w);
        self.diff = w.saturating_sub(target);
        if self.diff > self.cfg.gamma && tcb.cwnd < tcb.ssthresh {
            w = w.min(target + 1);
            tcb.cwnd = w as u64 * tcb.mss;
            tcb.ssthresh = vegas_ssthresh(tcb);
        } else if tcb.cwnd < tcb.ssthresh {
            newreno_slow_start(tcb, segments);
        } else if self.diff > self.cfg.beta {
            w = w.saturating_sub(1);
            tcb.cwnd = w as u64 * tcb.mss;
            tcb.ssthresh = vegas_ssthresh(tcb);
        } else if self.diff < self.cfg.alpha {
            tcb.cwnd = (w as u64 + 1) * tcb.mss;
        }
        tcb.ssthresh = tcb.ssthresh.max(3 * tcb.cwnd / 4);
    }
}

impl CongestionControl for Ns3Vegas {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Ns3Vegas::new(self.cfg.clone())))
    }

    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, _ack: &Ack) {
        self.rtt.sample(tcb);
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let segments = ack.segments_acked;
        if !self.doing_vegas_now {
            newreno_increase(tcb, segments, newreno_cong_avoid);
            return;
        }
        if tcb.snd_una >= self.beg_snd_nxt {
            self.beg_snd_nxt = tcb.snd_nxt;
            if self.rtt.count > 2 {
                self.decide(tcb, segments);
            } else {
                newreno_increase(tcb, segments, newreno_cong_avoid);
            }
            self.rtt.restart();
        } else if tcb.cwnd < tcb.ssthresh {
            newreno_slow_start(tcb, segments);
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        vegas_ssthresh(tcb)
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        self.doing_vegas_now = to == CaState::Open;
        if to == CaState::Open {
            self.beg_snd_nxt = tcb.snd_nxt;
            self.rtt.restart();
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "diff",
                "segments",
                "diff: w - floor(w BaseRTT / RTT) at the last round's end",
            ),
            Probe::new("base_rtt", "s", "BaseRTT: the smallest smoothed RTT seen"),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "diff" => Some(self.diff as f64),
            "base_rtt" => self.rtt.base.map(|d| d.as_secs_f64()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::{ms, CcDriver};

    const MSS: u64 = 1000;

    fn driver(cwnd: u64) -> CcDriver<Ns3Vegas> {
        CcDriver::new(Ns3Vegas::new(Ns3VegasConfig::default()), MSS, cwnd)
    }

    /// `acks` ACKs of one segment each, with the smoothed RTT at `srtt`.
    fn round(d: &mut CcDriver<Ns3Vegas>, srtt: u64, acks: u32) {
        d.tcb.srtt = Some(ms(srtt));
        for _ in 0..acks {
            d.ack(1, None);
        }
    }

    #[test]
    fn a_round_of_the_smoothed_rtt_holds_the_window_at_alpha() {
        let mut d = driver(21);
        d.tcb.ssthresh = 10 * MSS;
        // BaseRTT 100 ms from the handshake; the first ACK ends the
        // initial round (begSndNxt 0) with one sample: NewReno's step,
        // MSS^2 / cwnd = 47 bytes.
        d.tcb.srtt = Some(ms(100));
        d.tcb.snd_nxt = 1 + 21 * MSS;
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 21 * MSS + 47);
        // Within the round congestion avoidance holds.
        round(&mut d, 109, 19);
        assert_eq!(d.tcb.cwnd, 21 * MSS + 47);
        // The ACK of the round's snd_nxt ends it: w 21, target floor(21 x
        // 100 / 109) = 19, diff 2: neither below alpha (2) nor above beta
        // (4): held, and ssthresh rises to 3/4 of the window.
        d.tcb.snd_nxt = 1 + 42 * MSS;
        d.ack(1, None);
        assert_eq!(d.cc.diff, 2);
        assert_eq!(d.tcb.cwnd, 21 * MSS + 47);
        assert_eq!(d.tcb.ssthresh, 3 * (21 * MSS + 47) / 4);
        // A round whose smallest smoothed RTT is 104 ms: floor(21 x 100 /
        // 104) = 20, diff 1 < alpha: one segment more, in whole segments.
        round(&mut d, 104, 21);
        assert_eq!(d.cc.diff, 1);
        assert_eq!(d.tcb.cwnd, 22 * MSS);
    }

    #[test]
    fn slow_start_ends_at_the_target_plus_one() {
        let mut d = driver(10);
        d.tcb.srtt = Some(ms(100));
        d.tcb.snd_nxt = 1 + 10 * MSS;
        // First ACK: NewReno's slow start (1 sample).
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        // Within the round: a segment per ACK.
        round(&mut d, 120, 8);
        assert_eq!(d.tcb.cwnd, 19 * MSS);
        // The round's end: w 19, target floor(19 x 100 / 120) = 15, diff 4
        // > gamma: cwnd 16 segments, ssthresh min(u64::MAX, 15 MSS), then
        // at least 3/4 of 16 = 12: 15 MSS.
        d.tcb.snd_nxt = d.tcb.snd_una + MSS;
        d.ack(1, None);
        assert_eq!(d.cc.diff, 4);
        assert_eq!(d.tcb.cwnd, 16 * MSS);
        assert_eq!(d.tcb.ssthresh, 15 * MSS);
    }

    #[test]
    fn a_large_diff_takes_a_segment_off_and_a_loss_keeps_all_but_one() {
        let mut d = driver(40);
        d.tcb.ssthresh = 20 * MSS;
        d.tcb.srtt = Some(ms(100));
        d.tcb.snd_nxt = 1 + 4 * MSS;
        d.dupack();
        d.dupack();
        // Three samples (two duplicates, then the ACK): floor(40 x 100 /
        // 100) = 40, diff 0 < alpha: 41 segments.
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 41 * MSS);
        assert_eq!(d.tcb.ssthresh, 3 * 41 * MSS / 4);
        // Three ACKs end the round that began at snd_nxt, the first two
        // holding.
        round(&mut d, 120, 3);
        // floor(41 x 100 / 120) = 34, diff 7 > beta: 40 segments, ssthresh
        // min(30750, 39000) = 30750, at least 3/4 of 40 = 30000.
        assert_eq!(d.cc.diff, 7);
        assert_eq!(d.tcb.cwnd, 40 * MSS);
        assert_eq!(d.tcb.ssthresh, 30_750);
        // A loss keeps min(ssthresh, cwnd - 1 MSS), here the threshold;
        // with a threshold above the window, all but one segment.
        d.loss(LossCause::DupAcks, 40 * MSS);
        assert_eq!(d.tcb.ssthresh, 30_750);
        let mut d = driver(40);
        d.loss(LossCause::DupAcks, 40 * MSS);
        assert_eq!(d.tcb.ssthresh, 39 * MSS);
    }

    #[test]
    fn outside_open_it_grows_as_newreno_and_open_starts_a_round() {
        let mut d = driver(10);
        d.tcb.ssthresh = 5 * MSS;
        d.tcb.srtt = Some(ms(100));
        d.cc.on_state(&mut d.tcb, CaState::Loss);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 10 * MSS + 100);
        // Back in Open: a round starts at snd_nxt, its samples from none.
        d.tcb.snd_nxt = d.tcb.snd_una + 5 * MSS;
        d.cc.on_state(&mut d.tcb, CaState::Open);
        assert_eq!(d.cc.rtt.count, 0);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 10 * MSS + 100);
    }
}
