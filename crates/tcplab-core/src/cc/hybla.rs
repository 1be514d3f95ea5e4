// SPDX-License-Identifier: MIT OR Apache-2.0
//! TCP Hybla: Reno's growth scaled so that a long-RTT connection gains
//! window as fast, in time, as a reference connection with RTT0 does.
//!
//! Caini, Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous
//! networks", International Journal of Satellite Communications and
//! Networking 22(5), 2004; Linux's `net/ipv4/tcp_hybla.c`.
//!
//! With rho = RTT / RTT0 (at least 1, RTT0 = 25 ms), each ACK adds
//! 2^rho - 1 segments in slow start and rho^2 / cwnd in congestion
//! avoidance, so that the window follows rho 2^(t / RTT0) and then rho^2
//! per RTT0 of time: the rate of a connection with RTT0, whatever its RTT.
//! The window starts at rho segments. The RTT is the smoothed RTT, and rho
//! is computed again whenever SRTT reaches a new minimum (Linux's rule).
//!
//! Two forms (`fixed_point`):
//! - `linux`: rho in eighths, floor(8 SRTT / RTT0) with SRTT in whole
//!   microseconds (Linux keeps `srtt_us` eight times the SRTT), at least 8;
//!   the slow-start increment 2^int(rho) x 2^frac(rho) - 1 with 2^frac from
//!   Linux's table of eight values in 1/128 steps (exponent capped at 16);
//!   the avoidance increment 2 rho_3ls^2 / cwnd in 1/128 segment over
//!   whole segments; the 1/128 remainders carried; an ACK that adds
//!   nothing counts towards one segment per cwnd ACKs (Linux's fallback for
//!   very large windows). Outside Open (Disorder, Loss, CWR) the growth is
//!   Linux's Reno (`tcp_reno_cong_avoid`); ssthresh = max(cwnd / 2, 2)
//!   segments (`tcp_reno_ssthresh`).
//! - `paper`: real-valued rho and increments, added in bytes; Hybla's
//!   growth in every state; ssthresh as RFC 5681 (Hybla keeps standard
//!   TCP's multiplicative decrease).
//!
//! Both take the initial window as the integer part of rho (the paper's
//! W(0) = rho; Linux's `hybla_init`), whatever the flow's initial window.
//! Growth is per ACK, not per acknowledged segment (as both define it), so
//! delayed ACKs halve it.
//!
//! Deviations from Linux: no `tcp_is_cwnd_limited` check; no undo
//! (`undo_cwnd`); Linux's clamp of cwnd at 65,535 segments is not applied;
//! with no RTT measured at `init` (the handshake gave no sample) rho is 1
//! and the first SRTT sets it (Linux's minimum would stay at 0 and never
//! change).

use serde::{Deserialize, Serialize};

use super::{linux_reno_cong_avoid, linux_reno_ssthresh, reno_ssthresh};
use super::{Ack, CaState, CongestionControl, LossCause, Probe, Tcb};
use crate::time::SimDuration;

/// 2^(k/8) in 1/128 steps, k = 0..7 (Linux's `hybla_fraction` table).
const FRACTIONS: [u64; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HyblaConfig {
    /// RTT0, the reference RTT: 25 ms in the paper and in Linux (its
    /// `rtt0` module parameter, in ms).
    pub rtt0: SimDuration,
    /// Linux's integer arithmetic (rho in eighths, the 2^fraction table,
    /// increments in 1/128 segment); false: the paper's real numbers.
    pub fixed_point: bool,
    /// Reno's growth outside the Open state (Linux's `hybla_en`).
    pub reno_outside_open: bool,
    /// ssthresh = max(cwnd / 2, 2 segments) (Linux's `tcp_reno_ssthresh`)
    /// instead of RFC 5681's max(FlightSize / 2, 2 SMSS).
    pub ssthresh_from_cwnd: bool,
}

impl HyblaConfig {
    pub fn paper() -> Self {
        HyblaConfig {
            rtt0: SimDuration::from_millis(25),
            fixed_point: false,
            reno_outside_open: false,
            ssthresh_from_cwnd: false,
        }
    }
    pub fn linux() -> Self {
        HyblaConfig {
            fixed_point: true,
            reno_outside_open: true,
            ssthresh_from_cwnd: true,
            ..Self::paper()
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        // Linux accepts 1 ms to U32_MAX / 1000 ms.
        if self.rtt0.as_nanos() < 1_000_000 || self.rtt0.as_nanos() > 4_294_967 * 1_000_000 {
            return Err(("rtt0", format!("{} is not 1 ms to 4294967 ms", self.rtt0)));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Hybla {
    pub cfg: HyblaConfig,
    abc: bool,
    /// Hybla's growth is on (Linux's `hybla_en`: the state is Open).
    enabled: bool,
    /// rho in eighths (Linux's `rho_3ls`), for the fixed-point form.
    rho_3ls: u64,
    /// rho as a real number (the paper's form; rho_3ls / 8 in Linux's).
    pub rho: f64,
    /// Increments below one segment, in 1/128 segment (`snd_cwnd_cents`).
    cents: u64,
    /// The smallest SRTT seen, at which rho was last computed.
    min_srtt: Option<SimDuration>,
}

impl Hybla {
    pub fn new(cfg: HyblaConfig, abc: bool) -> Self {
        Hybla {
            cfg,
            abc,
            enabled: true,
            rho_3ls: 8,
            rho: 1.0,
            cents: 0,
            min_srtt: None,
        }
    }

    /// rho from SRTT (Linux's `hybla_recalc_param`).
    fn recalc(&mut self, srtt: Option<SimDuration>) {
        let srtt_ns = srtt.map_or(0, |d| d.as_nanos());
        if self.cfg.fixed_point {
            // Linux: srtt_us (8 x SRTT in whole microseconds) / (rtt0 in us).
            let srtt8_us = srtt_ns * 8 / 1000;
            let rtt0_us = self.cfg.rtt0.as_nanos() / 1000;
            self.rho_3ls = (srtt8_us / rtt0_us).max(8);
            self.rho = self.rho_3ls as f64 / 8.0;
        } else {
            self.rho = (srtt_ns as f64 / self.cfg.rtt0.as_nanos() as f64).max(1.0);
        }
    }

    /// Linux's fixed-point step: the increment in 1/128 segment.
    fn grow_fixed(&mut self, tcb: &mut Tcb, slow: bool) {
        let mss = tcb.mss;
        let rho = self.rho_3ls >> 3;
        let frac = (self.rho_3ls - (rho << 3)) as usize;
        let inc = if slow {
            (1u64 << rho.min(16)) * FRACTIONS[frac] - 128
        } else {
            let rho2_7ls = (self.rho_3ls * self.rho_3ls) << 1;
            let i = rho2_7ls / (tcb.cwnd / mss).max(1);
            if i < 128 {
                tcb.cwnd_cnt += 1;
            }
            i
        };
        let odd = inc % 128;
        tcb.cwnd += (inc >> 7) * mss;
        self.cents += odd;
        while self.cents >= 128 {
            tcb.cwnd += mss;
            self.cents -= 128;
            tcb.cwnd_cnt = 0;
        }
        if inc == 0 && tcb.cwnd_cnt >= tcb.cwnd / mss {
            tcb.cwnd += mss;
            tcb.cwnd_cnt = 0;
        }
    }
}

impl CongestionControl for Hybla {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "hybla"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.enabled = true;
        self.cents = 0;
        self.recalc(tcb.srtt);
        self.min_srtt = tcb.srtt;
        tcb.set_cwnd((self.rho as u64).max(1) * tcb.mss);
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        if let Some(s) = tcb.srtt {
            if self.min_srtt.is_none_or(|m| s < m) {
                self.recalc(Some(s));
                self.min_srtt = Some(s);
            }
        }
        if !self.enabled {
            linux_reno_cong_avoid(tcb, ack, self.abc);
            return;
        }
        let slow = tcb.in_slow_start();
        if self.cfg.fixed_point {
            self.grow_fixed(tcb, slow);
        } else {
            let inc = if slow {
                libm::exp2(self.rho) - 1.0
            } else {
                self.rho * self.rho / tcb.cwnd_segments()
            };
            tcb.cwnd += (inc * tcb.mss as f64) as u64;
        }
        if slow {
            tcb.cwnd = tcb.cwnd.min(tcb.ssthresh.max(tcb.mss));
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        if self.cfg.ssthresh_from_cwnd {
            linux_reno_ssthresh(tcb)
        } else {
            reno_ssthresh(tcb)
        }
    }

    fn on_state(&mut self, _tcb: &mut Tcb, to: CaState) {
        self.enabled = !self.cfg.reno_outside_open || to == CaState::Open;
    }

    fn probes(&self) -> Vec<Probe> {
        vec![Probe::new(
            "rho",
            "",
            "rho = SRTT / RTT0, at least 1 (in eighths in Linux's form)",
        )]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "rho" => Some(self.rho),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::{ms, CcDriver};

    const MSS: u64 = 1000;

    /// A Hybla whose connection measured `srtt` ms in the handshake, with
    /// cwnd then set to `cwnd` segments (0: leave rho's) and ssthresh to
    /// `ssthresh` segments (0: unlimited).
    fn hybla(cfg: HyblaConfig, srtt: u64, cwnd: u64, ssthresh: u64) -> CcDriver<Hybla> {
        let mut d = CcDriver::new(Hybla::new(cfg, false), MSS, 10);
        d.rtt_sample(ms(srtt));
        let mut tcb = d.tcb.clone();
        d.cc.init(&mut tcb);
        d.tcb = tcb;
        if cwnd > 0 {
            d.tcb.cwnd = cwnd * MSS;
        }
        if ssthresh > 0 {
            d.tcb.ssthresh = ssthresh * MSS;
        }
        d
    }

    #[test]
    fn rho_is_in_eighths_and_sets_the_initial_window() {
        // 8 x 100 ms / 25 ms = 32 eighths: rho 4, cwnd 4 segments.
        let d = hybla(HyblaConfig::linux(), 100, 0, 0);
        assert_eq!((d.cc.rho, d.tcb.cwnd), (4.0, 4 * MSS));
        // 8 x 60 / 25 = 19.2 -> 19 eighths: rho 2.375, cwnd 2.
        let d = hybla(HyblaConfig::linux(), 60, 0, 0);
        assert_eq!((d.cc.rho, d.tcb.cwnd), (2.375, 2 * MSS));
        // Below RTT0, rho is 1 (8 eighths): 8 x 10 / 25 = 3 -> 8.
        let d = hybla(HyblaConfig::linux(), 10, 0, 0);
        assert_eq!((d.cc.rho, d.tcb.cwnd), (1.0, MSS));
        // The paper's rho is real: 60 / 25 = 2.4.
        let d = hybla(HyblaConfig::paper(), 60, 0, 0);
        assert!((d.cc.rho - 2.4).abs() < 1e-12);
        assert_eq!(d.cc.probe("rho"), Some(d.cc.rho));
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_ack_from_the_table() {
        // rho = 19/8: integer part 2, fraction 3/8 -> 165/128. The increment
        // is 4 x 165 - 128 = 532/128: 4 segments and 20/128 per ACK.
        let mut d = hybla(HyblaConfig::linux(), 60, 0, 0);
        for _ in 0..6 {
            d.ack(1, None);
        }
        // 2 + 6 x 4 = 26 segments, 120/128 carried.
        assert_eq!(d.tcb.cwnd, 26 * MSS);
        d.ack(1, None); // 140/128: one more segment, 12/128 carried
        assert_eq!(d.tcb.cwnd, 31 * MSS);
        // Clamped at ssthresh.
        d.tcb.ssthresh = 33 * MSS;
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 33 * MSS);
        // The paper's: 2^2.4 - 1 = 4.27803 segments per ACK, in bytes.
        let mut d = hybla(HyblaConfig::paper(), 60, 0, 0);
        d.ack(2, None); // per ACK, whatever it covers
        assert_eq!(d.tcb.cwnd, 2000 + 4278);
    }

    #[test]
    fn avoidance_adds_rho_squared_over_cwnd_in_128ths() {
        // rho 4 (32 eighths): rho^2 in 128ths = 2 x 32^2 = 2048.
        // cwnd 100: 2048 / 100 = 20/128 per ACK; the 7th ACK makes 140/128.
        let mut d = hybla(HyblaConfig::linux(), 100, 100, 100);
        for _ in 0..6 {
            d.ack(1, None);
        }
        assert_eq!(d.tcb.cwnd, 100 * MSS);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 101 * MSS);
        // cwnd 10: 2048 / 10 = 204 = 1 segment + 76/128 -> 11 segments;
        // then 2048 / 11 = 186 = 1 + 58/128, 134/128 carried -> 13.
        let mut d = hybla(HyblaConfig::linux(), 100, 10, 10);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 11 * MSS);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 13 * MSS);
        // The paper's: rho = 75 / 25 = 3; 3^2 / 10 = 0.9 segment = 900 bytes.
        let mut d = hybla(HyblaConfig::paper(), 75, 10, 10);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 10_900);
    }

    #[test]
    fn a_window_too_large_for_an_increment_grows_a_segment_per_window_of_acks() {
        // rho 1: 2 x 8^2 = 128; cwnd 200: 128 / 200 = 0, so nothing is
        // added, and each ACK counts: the 200th adds one segment.
        let mut d = hybla(HyblaConfig::linux(), 10, 200, 200);
        for _ in 0..199 {
            d.ack(1, None);
        }
        assert_eq!(d.tcb.cwnd, 200 * MSS);
        d.ack(1, None);
        assert_eq!((d.tcb.cwnd, d.tcb.cwnd_cnt), (201 * MSS, 0));
    }

    #[test]
    fn outside_open_linux_grows_as_reno_and_ssthresh_halves_cwnd() {
        let mut d = hybla(HyblaConfig::linux(), 100, 21, 0);
        // ssthresh from cwnd: 21 / 2 = 10 segments, whatever the flight.
        d.timeout(30 * MSS);
        assert_eq!((d.tcb.cwnd, d.tcb.ssthresh), (MSS, 10 * MSS));
        // In Loss: Reno's slow start, one segment per ACK (rho 4 would add 15).
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 2 * MSS);
        // Back in Open: Hybla's 2^4 - 1 = 15 segments per ACK.
        d.cc.on_state(&mut d.tcb, CaState::Open);
        d.tcb.ca_state = CaState::Open;
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 10 * MSS); // clamped at ssthresh 10
                                          // The paper's form keeps Hybla's growth and halves the flight.
        let mut d = hybla(HyblaConfig::paper(), 100, 21, 0);
        d.timeout(30 * MSS);
        assert_eq!(d.tcb.ssthresh, 15 * MSS);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 15 * MSS); // 1 + 15, clamped at 15
    }

    #[test]
    fn rho_follows_the_smallest_srtt() {
        let mut d = hybla(HyblaConfig::linux(), 100, 10, 0);
        assert_eq!(d.cc.rho, 4.0);
        d.tcb.srtt = Some(ms(200)); // larger: rho unchanged
        d.ack(1, None);
        assert_eq!(d.cc.rho, 4.0);
        d.tcb.srtt = Some(ms(50)); // new minimum: 8 x 50 / 25 = 16 -> 2
        d.ack(1, None);
        assert_eq!(d.cc.rho, 2.0);
    }

    #[test]
    fn builds_under_every_profile_and_rejects_a_zero_rtt0() {
        crate::cc::testing::builds_and_refuses("hybla", "rtt0", serde_json::json!(0));
    }
}
