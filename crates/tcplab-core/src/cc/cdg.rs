// SPDX-License-Identifier: MIT OR Apache-2.0
//! CDG, CAIA Delay-Gradient.
//!
//! Hayes and Armitage, "Revisiting TCP congestion control using delay
//! gradients", IFIP Networking 2011; as Linux's `net/ipv4/tcp_cdg.c` runs
//! it (microseconds and segments in integers, as Linux's).
//!
//! - Each RTT, the smallest and the largest RTT sample of the round
//!   (rtt_min, rtt_max) are compared with the previous round's: g_min and
//!   g_max. Their sums over the last `window` rounds (8) are the gradients
//!   (Linux keeps the sums and drops the paper's division by the window);
//!   until the window is full, the sum is scaled up to a whole window. The
//!   gradient is the g_min sum if positive, else the g_max sum.
//! - A positive gradient backs off with probability P = 1 - exp(-grad x
//!   `backoff_factor` / 10^6) (Linux's `nexp_u32`, in integers, against a
//!   uniform 32-bit draw): ssthresh = cwnd x `backoff_beta` / 1024 (at least
//!   2) and the window comes down to it. After `use_ineff` (5) backoffs
//!   that did not lower the delay (no g <= -32 us), backoffs are ignored
//!   (ineffectual backoff detection).
//! - The shadow window (`use_shadow`) remembers the window before
//!   backoffs and grows with cwnd; on a loss, ssthresh = max(2, shadow / 2
//!   (at most cwnd), cwnd / 2), so a flow that backed off for delay is not
//!   halved twice by a competing loss-based flow.
//! - With `use_tolerance`, a loss while the queue is judged not full (both
//!   gradients rising, or g_max falling) keeps the window.
//! - Slow start ends early by HyStart (`hystart_detect`: 1 ACK train, 2
//!   delay, 3 both), in CDG's form (any window, delay threshold 1/8 of the
//!   minimum RTT).
//! - A delayed-ACK filter: an ACK of one segment after an ACK of several
//!   counts only towards the minimum.
//!
//! Deviations from Linux:
//! - A backoff enters CWR in Linux, where PRR brings cwnd down to ssthresh
//!   over about one RTT; tcplab's controller cannot enter CWR, so the window
//!   is set to ssthresh at once, does not grow until the ACK past the data
//!   sent before the backoff (Linux's end of CWR), and then the CWR's end
//!   (`CA_EVENT_COMPLETE_CWR`) is handled. The end of a fast recovery (or
//!   of tcplab's ECN CWR) is handled the same way.
//! - The delayed-ACK filter applies when nothing is SACKed in Linux; here,
//!   in the Open and CWR states (in Disorder and beyond, segments are
//!   SACKed or duplicate ACKs counted).
//! - The draw is a tcplab random stream, not the kernel's; no undo; the
//!   window does not check whether the flow is cwnd-limited (Linux's
//!   application-limited clamp of the shadow window is not modelled).
//!
//! Every profile runs Linux's form. The paper's beta is 0.7 (Linux: 0.7071,
//! 724/1024) and its G = 3 corresponds to backoff_factor = 1000 / (G x
//! window) = 42 (Linux's default).

use serde::{Deserialize, Serialize};

use super::{
    linux_reno_cong_avoid, Ack, CaState, CongestionControl, CwndEvent, LossCause, Probe, Tcb,
};
use crate::rng::Rng;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CdgConfig {
    /// Rounds in the gradient's moving sum, a power of two up to 256: 8
    /// (Linux's `window`).
    pub window: u32,
    /// The backoff's multiplier in 1/1024: 724 = 0.7071 (Linux's
    /// `backoff_beta`; the paper's 0.7).
    pub backoff_beta: u32,
    /// Scales the gradient in the backoff probability: 42 (Linux's
    /// `backoff_factor` = 1000 / (G x window), the paper's G = 3).
    pub backoff_factor: u32,
    /// HyStart: 0 off, 1 ACK train, 2 delay, 3 both (Linux's
    /// `hystart_detect`, 3).
    pub hystart_detect: u32,
    /// Ineffectual backoffs tolerated, 0 = no detection (Linux's
    /// `use_ineff`, 5).
    pub use_ineff: u32,
    /// The shadow window (Linux's `use_shadow`, on).
    pub use_shadow: bool,
    /// Losses while the queue is not full keep the window (Linux's
    /// `use_tolerance`, off).
    pub use_tolerance: bool,
}

impl CdgConfig {
    pub fn linux() -> Self {
        CdgConfig {
            window: 8,
            backoff_beta: 724,
            backoff_factor: 42,
            hystart_detect: 3,
            use_ineff: 5,
            use_shadow: true,
            use_tolerance: false,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(1..=256).contains(&self.window) || !self.window.is_power_of_two() {
            return Err((
                "window",
                format!("{} is not a power of two <= 256", self.window),
            ));
        }
        if self.backoff_beta > 1024 {
            return Err(("backoff_beta", "must be in 0..=1024".into()));
        }
        if self.hystart_detect > 3 {
            return Err(("hystart_detect", "must be 0, 1, 2 or 3".into()));
        }
        Ok(())
    }
}

/// exp(-x) x 65536 - 1 for x = 0, then 0.000256 x 2^(i - 1): the factors of
/// Linux's `nexp_u32`.
const NEXP: [u32; 17] = [
    65535, 65518, 65501, 65468, 65401, 65267, 65001, 64470, 63422, 61378, 57484, 50423, 38795,
    22965, 8047, 987, 14,
];

/// exp(-ux / 10^6) x u32::MAX in integers, as Linux's `nexp_u32`: the low
/// 8 bits linearly, each higher bit by a factor of the table.
pub fn nexp_u32(ux: u32) -> u32 {
    let mut msb = ux >> 8;
    if msb > u16::MAX as u32 {
        return 0;
    }
    let mut res = u32::MAX - (ux & 0xff) * (u32::MAX / 1_000_000);
    let mut i = 1;
    while msb != 0 {
        let y = if msb & 1 == 1 { NEXP[i] } else { NEXP[0] } + 1;
        res = ((res as u64 * y as u64) >> 16) as u32;
        i += 1;
        msb >>= 1;
    }
    res
}

/// A round's smallest and largest RTT, microseconds (0: none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MinMax {
    min: i32,
    max: i32,
}

impl MinMax {
    fn is_zero(&self) -> bool {
        self.min == 0 && self.max == 0
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Unknown,
    NonFull,
    Full,
    Backoff,
}

#[derive(Clone, Debug)]
pub struct Cdg {
    cfg: CdgConfig,
    abc: bool,
    rng: Rng,
    rtt: MinMax,
    rtt_prev: MinMax,
    gradients: Vec<MinMax>,
    gsum: MinMax,
    gfilled: bool,
    tail: usize,
    state: State,
    delack: u32,
    rtt_seq: u64,
    /// Segments.
    pub shadow_wnd: u64,
    backoff_cnt: u32,
    sample_cnt: u32,
    delay_min: i32,
    /// HyStart's ACK train, microseconds.
    last_ack: Option<u64>,
    round_start: u64,
    /// The last gradient computed (Linux's sum over the window), us.
    pub grad: i32,
    /// The emulated CWR after a backoff ends past this sequence.
    cwr_high: Option<u64>,
}

impl Cdg {
    /// `flow_stream`: the flow's random stream for the backoff draws.
    pub fn new(cfg: CdgConfig, abc: bool, flow_stream: Rng) -> Self {
        Cdg {
            gradients: vec![MinMax::default(); cfg.window as usize],
            cfg,
            abc,
            rng: flow_stream,
            rtt: MinMax::default(),
            rtt_prev: MinMax::default(),
            gsum: MinMax::default(),
            gfilled: false,
            tail: 0,
            state: State::Unknown,
            delack: 0,
            rtt_seq: 0,
            shadow_wnd: 0,
            backoff_cnt: 0,
            sample_cnt: 0,
            delay_min: 0,
            last_ack: None,
            round_start: 0,
            grad: 0,
            cwr_high: None,
        }
    }

    /// Linux's tcp_cdg_grad: one round's gradients into the window.
    fn gradient(&mut self) -> i32 {
        let mut gmin = self.rtt.min - self.rtt_prev.min;
        let mut gmax = self.rtt.max - self.rtt_prev.max;
        let old = self.gradients[self.tail];
        self.gsum.min += gmin - old.min;
        self.gsum.max += gmax - old.max;
        self.gradients[self.tail] = MinMax {
            min: gmin,
            max: gmax,
        };
        self.tail = (self.tail + 1) & (self.cfg.window as usize - 1);
        gmin = self.gsum.min;
        gmax = self.gsum.max;
        let mut grad = if gmin > 0 { gmin } else { gmax };
        if !self.gfilled {
            if self.tail == 0 {
                self.gfilled = true;
            } else {
                grad = grad * self.cfg.window as i32 / self.tail as i32;
            }
        }
        if gmin <= -32 || gmax <= -32 {
            self.backoff_cnt = 0; // the last backoff was effectual
        }
        if self.cfg.use_tolerance {
            let (gmin, gmax) = (round_div(gmin, 64), round_div(gmax, 64));
            if gmin > 0 && gmax <= 0 {
                self.state = State::Full;
            } else if (gmin > 0 && gmax > 0) || gmax < 0 {
                self.state = State::NonFull;
            }
        }
        grad
    }

    /// Linux's tcp_cdg_backoff: true if the window came down.
    fn backoff(&mut self, tcb: &mut Tcb, grad: i32) -> bool {
        let draw = (self.rng.next_u64() >> 32) as u32;
        if draw <= nexp_u32((grad as u32).wrapping_mul(self.cfg.backoff_factor)) {
            return false;
        }
        if self.cfg.use_ineff > 0 {
            self.backoff_cnt += 1;
            if self.backoff_cnt > self.cfg.use_ineff {
                return false;
            }
        }
        let cwnd = tcb.cwnd / tcb.mss;
        self.shadow_wnd = self.shadow_wnd.max(cwnd);
        self.state = State::Backoff;
        if tcb.ca_state == CaState::Open || tcb.ca_state == CaState::Disorder {
            // Linux's tcp_enter_cwr (only below CWR): the threshold, and
            // the window at it (see the module's deviations).
            let ss = self.backoff_ssthresh(cwnd);
            tcb.ssthresh = ss * tcb.mss;
            tcb.set_cwnd(ss * tcb.mss);
            self.cwr_high = Some(tcb.snd_nxt);
        }
        true
    }

    fn backoff_ssthresh(&self, cwnd: u64) -> u64 {
        ((cwnd * self.cfg.backoff_beta.min(1024) as u64) >> 10).max(2)
    }

    /// Linux's CA_EVENT_COMPLETE_CWR: the round restarts.
    fn complete_cwr(&mut self, tcb: &Tcb) {
        self.cwr_high = None;
        self.state = State::Unknown;
        self.rtt_seq = tcb.snd_nxt;
        self.rtt_prev = self.rtt;
        self.rtt = MinMax::default();
    }

    /// Linux's tcp_cdg_hystart_update.
    fn hystart(&mut self, tcb: &mut Tcb) {
        self.delay_min = min_not_zero(self.delay_min, self.rtt.min);
        if self.delay_min == 0 {
            return;
        }
        if self.cfg.hystart_detect & 1 != 0 {
            let now_us = tcb.now.as_nanos() / 1000;
            match self.last_ack {
                None => {
                    self.last_ack = Some(now_us);
                    self.round_start = now_us;
                }
                Some(last) if now_us < last + 3000 => {
                    let base_owd = (self.delay_min as u64 / 2).max(125);
                    self.last_ack = Some(now_us);
                    if now_us > self.round_start + base_owd {
                        tcb.ssthresh = tcb.cwnd;
                        return;
                    }
                }
                Some(_) => {}
            }
        }
        if self.cfg.hystart_detect & 2 != 0 {
            if self.sample_cnt < 8 {
                self.sample_cnt += 1;
            } else {
                let thresh = (self.delay_min + self.delay_min / 8).max(125);
                if self.rtt.min > thresh {
                    tcb.ssthresh = tcb.cwnd;
                }
            }
        }
    }
}

/// Linux's DIV_ROUND_CLOSEST for signed values: halves away from zero.
fn round_div(x: i32, d: i32) -> i32 {
    if x > 0 {
        (x + d / 2) / d
    } else {
        (x - d / 2) / d
    }
}

fn min_not_zero(a: i32, b: i32) -> i32 {
    match (a, b) {
        (0, b) => b,
        (a, 0) => a,
        (a, b) => a.min(b),
    }
}

impl CongestionControl for Cdg {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "cdg"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.rtt_seq = tcb.snd_nxt;
        self.shadow_wnd = tcb.cwnd / tcb.mss;
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        let Some(r) = ack.rtt else { return };
        let us = (r.as_nanos() / 1000).min(i32::MAX as u64) as i32;
        if us <= 0 {
            return;
        }
        if matches!(tcb.ca_state, CaState::Open | CaState::Cwr) {
            if ack.segments_acked == 1 && self.delack > 0 {
                // After an ACK of several, one of a single segment counts
                // only if it lowers an existing minimum.
                self.rtt.min = self.rtt.min.min(us);
                self.delack -= 1;
                return;
            } else if ack.segments_acked > 1 && self.delack < 5 {
                self.delack += 1;
            }
        }
        self.rtt.min = min_not_zero(self.rtt.min, us);
        self.rtt.max = self.rtt.max.max(us);
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        if let Some(high) = self.cwr_high {
            if tcb.snd_una <= high {
                return; // Linux grows no window in CWR
            }
            self.complete_cwr(tcb);
        }
        if tcb.in_slow_start() && self.cfg.hystart_detect > 0 {
            self.hystart(tcb);
        }
        if tcb.snd_una > self.rtt_seq && !self.rtt.is_zero() {
            let mut grad = 0;
            if !self.rtt_prev.is_zero() {
                grad = self.gradient();
                self.grad = grad;
            }
            self.rtt_seq = tcb.snd_nxt;
            self.rtt_prev = self.rtt;
            self.rtt = MinMax::default();
            self.last_ack = None;
            self.sample_cnt = 0;
            if grad > 0 && self.backoff(tcb, grad) {
                return;
            }
        }
        let prior = tcb.cwnd / tcb.mss;
        linux_reno_cong_avoid(tcb, ack, self.abc);
        let incr = (tcb.cwnd / tcb.mss).saturating_sub(prior);
        self.shadow_wnd = self.shadow_wnd.saturating_add(incr);
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let cwnd = tcb.cwnd / tcb.mss;
        let segs = if self.state == State::Backoff {
            self.backoff_ssthresh(cwnd)
        } else if self.state == State::NonFull && self.cfg.use_tolerance {
            cwnd
        } else {
            self.shadow_wnd = (self.shadow_wnd >> 1).min(cwnd);
            if self.cfg.use_shadow {
                self.shadow_wnd.max(cwnd >> 1).max(2)
            } else {
                (cwnd >> 1).max(2)
            }
        };
        segs * tcb.mss
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        match (tcb.ca_state, to) {
            // The end of a window reduction: Linux's COMPLETE_CWR.
            (CaState::Recovery | CaState::Cwr, CaState::Open) => self.complete_cwr(tcb),
            // A loss takes over from an emulated CWR.
            (_, CaState::Recovery | CaState::Loss) => self.cwr_high = None,
            _ => {}
        }
    }

    fn seed(&mut self, rng: Rng) {
        self.rng = rng;
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {
        if ev == CwndEvent::Restart {
            // Linux clears everything (the gradient store too).
            let rng = self.rng.clone();
            *self = Cdg::new(self.cfg.clone(), self.abc, rng);
            self.rtt_seq = tcb.snd_nxt;
            self.shadow_wnd = tcb.cwnd / tcb.mss;
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "gradient",
                "s",
                "the delay gradient per RTT: Linux's sum over the window, divided by the window",
            ),
            Probe::new("shadow_wnd", "segments", "the shadow window"),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "gradient" => Some(self.grad as f64 / self.cfg.window as f64 / 1e6),
            "shadow_wnd" => Some(self.shadow_wnd as f64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::{ms, CcDriver};
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    fn cdg(cfg: CdgConfig, cwnd: u64, ssthresh: u64) -> CcDriver<Cdg> {
        let rng = Rng::stream(1, 0, "test:cdg");
        let mut d = CcDriver::new(Cdg::new(cfg, false, rng), MSS, cwnd);
        d.tcb.ssthresh = ssthresh;
        d
    }

    /// An ACK of one segment that ends the round (snd_nxt at the old
    /// snd_una), with an RTT sample of `rtt` us.
    fn round(d: &mut CcDriver<Cdg>, rtt: u64) {
        let nxt = d.tcb.snd_una;
        d.ack_with_nxt(1, Some(SimDuration::from_micros(rtt)), nxt);
    }

    #[test]
    fn nexp_u32_is_linux_s_integer_exp() {
        assert_eq!(nexp_u32(0), u32::MAX);
        // The low 8 bits linearly: MAX - 1 x (MAX / 10^6 = 4294).
        assert_eq!(nexp_u32(1), u32::MAX - 4294);
        // Bit 8: MAX x (65518 + 1) >> 16 = 65519 x 65536 - 1.
        assert_eq!(nexp_u32(256), 4_293_853_183);
        // Bit 9: the first factor is 65536 (no change), then 65502.
        assert_eq!(nexp_u32(512), 65_502 * 65_536 - 1);
        // Cut off at 2^24 us.
        assert_eq!(nexp_u32(1 << 24), 0);
        // The table is exp(-0.000256 x 2^(i-1)) x 65536 - 1, and the whole
        // is exp(-x / 10^6) x 2^32 to a part in 10^4.
        for (i, v) in NEXP.iter().enumerate().skip(1) {
            let x = 0.000256 * 2f64.powi(i as i32 - 1);
            assert!(((-x).exp() * 65536.0 - 1.0 - *v as f64).abs() < 1.0, "{i}");
        }
        for ux in [1000u32, 50_000, 693_147, 3_000_000] {
            let want = (-(ux as f64) / 1e6).exp() * 4_294_967_296.0;
            assert!((nexp_u32(ux) as f64 / want - 1.0).abs() < 1e-4, "{ux}");
        }
    }

    #[test]
    fn the_gradient_is_the_window_sum_extrapolated_until_full() {
        // No backoff (factor 0: P = 0), congestion avoidance, no HyStart.
        let cfg = CdgConfig {
            backoff_factor: 0,
            hystart_detect: 0,
            ..CdgConfig::linux()
        };
        let mut d = cdg(cfg, 10, 5 * MSS);
        round(&mut d, 100_000); // the first round: no gradient yet
                                // Rounds of 110 ms after 100: g = 10,000 then 0. The sum stays
                                // 10,000, scaled by window / filled slots: 10,000 x 8 / 1, / 2,
                                // ... / 7 (integer division), then the window is full (10,000),
                                // and the 10,000 leaves it 8 rounds later: 0.
        let mut grads = Vec::new();
        for _ in 0..9 {
            round(&mut d, 110_000);
            grads.push(d.cc.grad);
        }
        assert_eq!(
            grads,
            [80_000, 40_000, 26_666, 20_000, 16_000, 13_333, 11_428, 10_000, 0]
        );
        // A round whose minimum falls and maximum rises: an ACK ends a
        // one-sample round (g = 0) and starts one that ends past n; it
        // sees 105 and 140 ms, and 120 ms on the ACK that ends it: g_min =
        // 105 - 110 ms (not positive), so the gradient is the g_max sum,
        // 140 - 110 ms (the window holds zeros otherwise).
        let n = d.tcb.snd_una + 10 * MSS;
        d.ack_with_nxt(1, Some(ms(110)), n);
        d.ack(1, Some(ms(105)));
        d.ack(1, Some(ms(140)));
        d.tcb.snd_una = n;
        d.tcb.snd_max = n;
        d.ack(1, Some(ms(120)));
        assert_eq!(d.cc.grad, 30_000);
        assert_eq!(d.cc.probe("gradient"), Some(30_000.0 / 8.0 / 1e6));
    }

    #[test]
    fn a_backoff_cuts_to_beta_holds_for_the_cwr_and_the_shadow_softens_a_loss() {
        // backoff_factor 1000: grad 80,000 x 1000 >= 2^24, P = 1 (a draw of
        // exactly 0 aside).
        let cfg = CdgConfig {
            backoff_factor: 1000,
            hystart_detect: 0,
            ..CdgConfig::linux()
        };
        let mut d = cdg(cfg, 10, 5 * MSS);
        round(&mut d, 100_000);
        // The second round ends with the data up to 6,001 sent: backoff to
        // 10 x 724 >> 10 = 7 segments, the shadow window keeps 10.
        d.ack_with_nxt(1, Some(ms(110)), 6001);
        assert_eq!((d.tcb.cwnd, d.tcb.ssthresh), (7 * MSS, 7 * MSS));
        assert_eq!((d.cc.state, d.cc.shadow_wnd), (State::Backoff, 10));
        // A loss now (in the backoff's CWR): beta again, 7 x 724 >> 10 = 4.
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 4 * MSS);
        // No growth until an ACK beyond 6,001; then the CWR completes.
        let cnt = d.tcb.cwnd_cnt;
        for _ in 0..4 {
            d.ack(1, Some(ms(110)));
        }
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (7 * MSS, cnt));
        d.ack(1, Some(ms(110)));
        assert_eq!(d.cc.state, State::Unknown);
        assert_eq!(d.tcb.cwnd_cnt, cnt + 1);
        // A loss: shadow = min(10 >> 1, 7) = 5; ssthresh = max(2, 5, 7 >>
        // 1 = 3) = 5 (without the shadow window, 3).
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 5 * MSS);
        d.cc.cfg.use_shadow = false;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::DupAcks), 3 * MSS);
    }

    #[test]
    fn ineffectual_backoffs_are_ignored_until_the_delay_falls() {
        let cfg = CdgConfig {
            use_ineff: 1,
            ..CdgConfig::linux()
        };
        let mut d = cdg(cfg, 10, 5 * MSS);
        assert!(d.cc.backoff(&mut d.tcb, 1 << 20));
        d.tcb.cwnd = 10 * MSS;
        assert!(!d.cc.backoff(&mut d.tcb, 1 << 20), "the second is ignored");
        assert_eq!(d.tcb.cwnd, 10 * MSS);
        // A gradient of -32 us or less shows a backoff worked: reset.
        d.cc.rtt_prev = MinMax { min: 100, max: 100 };
        d.cc.rtt = MinMax { min: 68, max: 100 };
        d.cc.gradient();
        assert!(d.cc.backoff(&mut d.tcb, 1 << 20));
    }

    #[test]
    fn the_backoff_probability_is_one_minus_exp_of_the_scaled_gradient() {
        // grad 16,503 x 42 = 693,126 us: P = 1 - e^-0.693 = 0.5.
        let cfg = CdgConfig {
            use_ineff: 0,
            ..CdgConfig::linux()
        };
        let mut d = cdg(cfg, 10, 5 * MSS);
        let n = 20_000;
        let hits = (0..n)
            .filter(|_| {
                d.tcb.cwnd = 10 * MSS;
                d.cc.backoff(&mut d.tcb, 16_503)
            })
            .count();
        // sd = sqrt(0.25 / n) = 0.0035; 5 sd.
        let p = hits as f64 / n as f64;
        assert!((p - 0.5).abs() < 0.018, "{p}");
        assert!(!d.cc.backoff(&mut d.tcb, 0), "P(0) = 0");
    }

    #[test]
    fn hystart_s_delay_test_ends_slow_start() {
        let cfg = CdgConfig {
            hystart_detect: 2,
            ..CdgConfig::linux()
        };
        let run = |rtt_ms: u64| {
            let mut d = cdg(cfg.clone(), 10, u64::MAX);
            // delay_min 100 ms; 11 segments; the next round ends past 10^6.
            d.ack_with_nxt(1, Some(ms(100)), 1_000_000);
            for _ in 0..9 {
                d.ack_with_nxt(1, Some(ms(rtt_ms)), 1_000_000);
            }
            (d.tcb.cwnd, d.tcb.ssthresh)
        };
        // Eight samples counted, then at the ninth ACK the round's minimum
        // 120 ms > 100 + 100/8 = 112.5 ms: ssthresh = cwnd = 11 + 8.
        assert_eq!(run(120), (19 * MSS, 19 * MSS));
        // 110 ms is below the threshold: slow start goes on.
        assert_eq!(run(110), (20 * MSS, u64::MAX));
    }

    #[test]
    fn hystart_s_ack_train_ends_slow_start() {
        let cfg = CdgConfig {
            hystart_detect: 1,
            ..CdgConfig::linux()
        };
        let mut d = cdg(cfg, 10, u64::MAX);
        // delay_min 100 ms; 11 segments; the next round ends past 10^6.
        d.ack_with_nxt(1, Some(ms(100)), 1_000_000);
        // ACKs 1 ms apart: the train is long enough when it passes
        // delay_min / 2 = 50 ms from its first ACK.
        for _ in 0..=50 {
            d.ack_with_nxt(1, Some(ms(100)), 1_000_000);
            d.advance(ms(1));
        }
        assert_eq!(d.tcb.ssthresh, u64::MAX);
        d.ack_with_nxt(1, Some(ms(100)), 1_000_000);
        assert_eq!(d.tcb.ssthresh, 62 * MSS);
    }

    #[test]
    fn a_single_segment_ack_after_a_delayed_one_only_lowers_the_minimum() {
        let mut d = cdg(CdgConfig::linux(), 10, 5 * MSS);
        d.ack_with_nxt(1, Some(ms(100)), 1_000_000); // a round to 10^6
        d.ack_with_nxt(2, Some(ms(100)), 1_000_000);
        d.ack_with_nxt(1, Some(ms(200)), 1_000_000);
        assert_eq!(
            d.cc.rtt,
            MinMax {
                min: 100_000,
                max: 100_000
            }
        );
        d.ack_with_nxt(1, Some(ms(200)), 1_000_000);
        assert_eq!(
            d.cc.rtt,
            MinMax {
                min: 100_000,
                max: 200_000
            }
        );
    }

    #[test]
    fn registry_builds_cdg_under_every_profile_and_names_a_bad_field() {
        crate::cc::testing::builds_and_refuses("cdg", "window", serde_json::json!(6));
    }
}
