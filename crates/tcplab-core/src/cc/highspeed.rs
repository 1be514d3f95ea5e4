// SPDX-License-Identifier: MIT OR Apache-2.0
//! HighSpeed TCP, RFC 3649 (Floyd 2003).
//!
//! Above `Low_Window` (38 segments) the window grows by a(w)/w per ACK and
//! a loss cuts it by b(w) w, where b(w) falls from 0.5 at Low_Window to
//! `High_Decrease` (0.1) at `High_Window` (83,000 segments), linearly in
//! log w, and a(w) = w^2 p(w) 2 b(w) / (2 - b(w)) with p(w) the loss rate
//! of the response function, log-linear between `Low_P` at Low_Window and
//! `High_P` at High_Window (RFC 3649 section 5). At or below Low_Window it
//! is Reno (a = 1, b = 0.5). Slow start is standard.
//!
//! Two forms ([`Aimd`]):
//! - `rfc`: a(w) and b(w) computed from those functions at the current
//!   window, real-valued (the paper profile; ns-2's `windowOption_ 8`
//!   computes the same functions, the ns2 profile).
//! - `table`: Linux's `tcp_highspeed.c` (the linux and ns3 profiles): a
//!   72-row table from RFC 3649's appendix B, row i holding the largest
//!   window whose a(w) is i + 1 and its b(w) in 256ths (its a(w) runs
//!   below the functions' as the window grows, 1.8 segments below at
//!   89,053). The row (`ai`) is
//!   moved to the current window on each ACK in congestion avoidance only,
//!   and a loss uses the row last found. Each ACK adds ai + 1 to a counter
//!   that adds a segment each time it reaches cwnd (whatever the ACK
//!   covers, as Linux); a loss leaves max(w - w b / 256, 2) segments.

use serde::{Deserialize, Serialize};

use super::{cong_avoid_per_ack, reno_ssthresh, slow_start, Ack, CongestionControl};
use super::{LossCause, Probe, Tcb};

/// How a(w) and b(w) are found.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Aimd {
    /// RFC 3649's functions at the current window.
    #[default]
    Rfc,
    /// Linux's table: whole-segment a(w), b(w) in 256ths.
    Table,
}

crate::deserialize_names!(Aimd {
    "rfc" => Aimd::Rfc,
    "table" => Aimd::Table,
});

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HighSpeedConfig {
    /// "rfc" (the functions) or "table" (Linux's table).
    pub aimd: Aimd,
    /// Low_Window, segments: Reno at or below it. (The rfc form; the
    /// table starts at 38.)
    pub low_window: f64,
    /// High_Window, segments: where b(w) reaches High_Decrease.
    pub high_window: f64,
    /// Low_P: the loss rate of the response function at Low_Window.
    pub low_p: f64,
    /// High_P: the loss rate at High_Window.
    pub high_p: f64,
    /// High_Decrease: b(High_Window).
    pub high_decrease: f64,
}

impl HighSpeedConfig {
    /// RFC 3649's values (Low_P = 10^-3, its section 5).
    pub fn rfc() -> Self {
        HighSpeedConfig {
            aimd: Aimd::Rfc,
            low_window: 38.0,
            high_window: 83_000.0,
            low_p: 1e-3,
            high_p: 1e-7,
            high_decrease: 0.1,
        }
    }

    /// ns-2.35's `windowOption_ 8`: the same functions, with Low_P =
    /// 1.5 / Low_Window^2 (`hstcp_.low_p`).
    pub fn ns2() -> Self {
        HighSpeedConfig {
            low_p: 1.5 / (38.0 * 38.0),
            ..Self::rfc()
        }
    }

    /// Linux's `tcp_highspeed.c` (and ns-3's `TcpHighSpeed`): the table.
    pub fn linux() -> Self {
        HighSpeedConfig {
            aimd: Aimd::Table,
            ..Self::rfc()
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.low_window < 1.0 {
            return Err(("low_window", format!("{} must be >= 1", self.low_window)));
        }
        if self.high_window <= self.low_window {
            return Err((
                "high_window",
                format!(
                    "{} must be above low_window ({})",
                    self.high_window, self.low_window
                ),
            ));
        }
        if !(self.high_p > 0.0 && self.high_p < self.low_p && self.low_p < 1.0) {
            return Err((
                "high_p",
                format!(
                    "need 0 < high_p < low_p < 1 (high_p {}, low_p {})",
                    self.high_p, self.low_p
                ),
            ));
        }
        if !(self.high_decrease > 0.0 && self.high_decrease <= 0.5) {
            return Err((
                "high_decrease",
                format!("{} is not in (0, 0.5]", self.high_decrease),
            ));
        }
        Ok(())
    }

    /// b(w), RFC 3649 section 5 (0.5 at or below Low_Window).
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        let (lo, hi) = (libm::log(self.low_window), libm::log(self.high_window));
        (self.high_decrease - 0.5) * (libm::log(w) - lo) / (hi - lo) + 0.5
    }

    /// p(w): the loss rate at which the response function gives w.
    pub fn p(&self, w: f64) -> f64 {
        let (lo, hi) = (libm::log(self.low_window), libm::log(self.high_window));
        let (lp, hp) = (libm::log(self.low_p), libm::log(self.high_p));
        libm::exp((libm::log(w) - lo) / (hi - lo) * (hp - lp) + lp)
    }

    /// a(w) = w^2 p(w) 2 b(w) / (2 - b(w)), segments per RTT (1 at or
    /// below Low_Window).
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let b = self.b(w);
        w * w * self.p(w) * 2.0 * b / (2.0 - b)
    }
}

/// Linux's table (RFC 3649 appendix B): (the largest window, in segments,
/// of row i, whose a(w) is i + 1; b(w) in 256ths).
#[rustfmt::skip]
pub(crate) const TABLE: [(u32, u32); 72] = [
    (38, 128), (118, 112), (221, 104), (347, 98), (495, 93), (663, 89),
    (851, 86), (1058, 83), (1284, 81), (1529, 78), (1793, 76), (2076, 74),
    (2378, 72), (2699, 71), (3039, 69), (3399, 68), (3778, 66), (4177, 65),
    (4596, 64), (5036, 62), (5497, 61), (5979, 60), (6483, 59), (7009, 58),
    (7558, 57), (8130, 56), (8726, 55), (9346, 54), (9991, 53), (10661, 52),
    (11358, 52), (12082, 51), (12834, 50), (13614, 49), (14424, 48), (15265, 48),
    (16137, 47), (17042, 46), (17981, 45), (18955, 45), (19965, 44), (21013, 43),
    (22101, 43), (23230, 42), (24402, 41), (25618, 41), (26881, 40), (28193, 39),
    (29557, 39), (30975, 38), (32450, 38), (33986, 37), (35586, 36), (37253, 36),
    (38992, 35), (40808, 35), (42707, 34), (44694, 33), (46776, 33), (48961, 32),
    (51258, 32), (53677, 31), (56230, 30), (58932, 30), (61799, 29), (64851, 28),
    (68113, 28), (71617, 27), (75401, 26), (79517, 26), (84035, 25), (89053, 24),
];

#[derive(Clone, Debug)]
pub struct HighSpeed {
    pub cfg: HighSpeedConfig,
    abc: bool,
    /// The table row (the table form).
    pub ai: usize,
    /// a(w) and b(w) as last used.
    pub a: f64,
    pub b: f64,
    /// The rfc form's growth below a byte, carried to the next ACK.
    frac: f64,
}

impl HighSpeed {
    pub fn new(cfg: HighSpeedConfig, abc: bool) -> Self {
        HighSpeed {
            cfg,
            abc,
            ai: 0,
            a: 1.0,
            b: 0.5,
            frac: 0.0,
        }
    }

    /// Moves the table row to `w`: TABLE[ai - 1].0 < w <= TABLE[ai].0, or
    /// the last row above the table (Linux's loop).
    fn find_row(&mut self, w: u32) {
        while w > TABLE[self.ai].0 && self.ai < TABLE.len() - 1 {
            self.ai += 1;
        }
        while self.ai > 0 && w <= TABLE[self.ai - 1].0 {
            self.ai -= 1;
        }
        self.a = (self.ai + 1) as f64;
        self.b = TABLE[self.ai].1 as f64 / 256.0;
    }
}

impl CongestionControl for HighSpeed {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        if tcb.in_slow_start() {
            // Linux drops what slow start leaves over.
            slow_start(tcb, ack.bytes_acked, self.abc);
            return;
        }
        match self.cfg.aimd {
            Aimd::Table => {
                let w = (tcb.cwnd / tcb.mss).min(u32::MAX as u64) as u32;
                self.find_row(w);
                // cwnd += a(w) / cwnd per ACK, in whole segments.
                tcb.cwnd_cnt += self.ai as u64 + 1;
                if tcb.cwnd_cnt >= w as u64 {
                    tcb.cwnd_cnt -= w as u64;
                    tcb.cwnd += tcb.mss;
                }
            }
            Aimd::Rfc => {
                let w = tcb.cwnd_segments();
                self.a = self.cfg.a(w);
                self.b = self.cfg.b(w);
                if w <= self.cfg.low_window {
                    cong_avoid_per_ack(tcb);
                    return;
                }
                let n = if self.abc {
                    ack.segments_acked.max(1) as f64
                } else {
                    1.0
                };
                // cwnd += a(w) / w segments, the bytes' fractions carried.
                let mss = tcb.mss as f64;
                let inc = self.a * mss * mss / tcb.cwnd as f64 * n + self.frac;
                self.frac = inc.fract();
                tcb.cwnd += inc as u64;
            }
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        match self.cfg.aimd {
            Aimd::Table => {
                let w = tcb.cwnd / tcb.mss;
                let md = TABLE[self.ai].1 as u64;
                (w - ((w * md) >> 8)).max(2) * tcb.mss
            }
            Aimd::Rfc => {
                let w = tcb.cwnd_segments();
                if w <= self.cfg.low_window {
                    return reno_ssthresh(tcb);
                }
                self.a = self.cfg.a(w);
                self.b = self.cfg.b(w);
                (((1.0 - self.b) * tcb.cwnd as f64) as u64).max(2 * tcb.mss)
            }
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "ai",
                "row",
                "the row of Linux's a(w)/b(w) table in use (aimd = \"table\")",
            ),
            Probe::new(
                "a",
                "segments",
                "a(w): the increase per RTT at this window (RFC 3649 section 5)",
            ),
            Probe::new(
                "b",
                "fraction",
                "b(w): the share of the window a loss removes (RFC 3649 section 5)",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "ai" => (self.cfg.aimd == Aimd::Table).then_some(self.ai as f64),
            "a" => Some(self.a),
            "b" => Some(self.b),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    fn driver(cfg: HighSpeedConfig, abc: bool, cwnd: u64) -> CcDriver<HighSpeed> {
        let mut d = CcDriver::new(HighSpeed::new(cfg, abc), MSS, cwnd);
        d.tcb.ssthresh = cwnd * MSS; // congestion avoidance
        d
    }

    #[test]
    fn the_functions_meet_reno_at_low_window_and_high_decrease_at_high_window() {
        let c = HighSpeedConfig::rfc();
        assert_eq!((c.a(38.0), c.b(38.0)), (1.0, 0.5));
        assert!((c.b(83_000.0) - 0.1).abs() < 1e-12);
        assert!((c.p(38.0) - 1e-3).abs() < 1e-15);
        assert!((c.p(83_000.0) - 1e-7).abs() < 1e-18);
        // a(w) = w^2 p(w) 2 b(w) / (2 - b(w)): 72.5 at High_Window.
        assert!((c.a(83_000.0) - 72.516).abs() < 0.01, "{}", c.a(83_000.0));
    }

    #[test]
    fn the_table_follows_the_functions_within_two_segments_and_a_256th() {
        let c = HighSpeedConfig::rfc();
        for (i, &(w, md)) in TABLE.iter().enumerate() {
            let a = c.a(w as f64);
            assert!((a - (i + 1) as f64).abs() < 1.8, "row {i}: a({w}) = {a}");
            let b = c.b(w as f64) * 256.0;
            assert!((b - md as f64).abs() < 1.0, "row {i}: 256 b({w}) = {b}");
        }
    }

    #[test]
    fn the_table_form_adds_ai_plus_one_per_ack_and_cuts_by_its_row() {
        let mut d = driver(HighSpeedConfig::linux(), true, 100);
        // 38 < 100 <= 118: row 1, a = 2: 50 ACKs add a segment, whatever
        // they cover.
        for _ in 0..49 {
            d.ack(2, None);
        }
        assert_eq!((d.cc.ai, d.tcb.cwnd), (1, 100_000));
        d.ack(2, None);
        assert_eq!(d.tcb.cwnd, 101_000);
        assert_eq!((d.cc.probe("a"), d.cc.probe("ai")), (Some(2.0), Some(1.0)));
        // 101 - (101 * 112 >> 8) = 101 - 44.
        d.loss(LossCause::DupAcks, 101_000);
        assert_eq!(d.tcb.ssthresh, 57_000);
    }

    #[test]
    fn the_table_row_moves_only_in_congestion_avoidance() {
        // A loss in slow start uses row 0 still (Linux): half the window,
        // rounded up.
        let mut d = CcDriver::new(HighSpeed::new(HighSpeedConfig::linux(), true), MSS, 1000);
        d.ack(1, None);
        assert_eq!((d.cc.ai, d.tcb.cwnd), (0, 1_001_000));
        d.loss(LossCause::DupAcks, 1_001_000);
        assert_eq!(d.tcb.ssthresh, 501_000);
        // Above the table: its last row, a = 72.
        let mut d = driver(HighSpeedConfig::linux(), true, 100_000);
        d.ack(1, None);
        assert_eq!((d.cc.ai, d.cc.probe("b")), (71, Some(24.0 / 256.0)));
        // And back down.
        d.tcb.cwnd = 200 * MSS;
        d.tcb.ssthresh = d.tcb.cwnd;
        d.ack(1, None);
        assert_eq!(d.cc.ai, 2);
    }

    #[test]
    fn the_rfc_form_grows_a_of_w_per_window_and_keeps_one_less_b() {
        let c = HighSpeedConfig::rfc();
        let mut d = driver(c.clone(), false, 1000);
        for _ in 0..1000 {
            d.ack(1, None);
        }
        // a(1000) = 7.86 segments per window of ACKs (a little less as
        // the window grows).
        let grown = d.tcb.cwnd_segments() - 1000.0;
        assert!((grown - c.a(1000.0)).abs() < 0.1, "{grown}");
        let mut d = driver(c.clone(), false, 1000);
        d.loss(LossCause::DupAcks, 1_000_000);
        let keep = (1.0 - c.b(1000.0)) * 1_000_000.0;
        assert_eq!(d.tcb.ssthresh, keep as u64);
        assert!((d.cc.probe("b").unwrap() - 0.3299).abs() < 1e-4);
        assert_eq!(d.cc.probe("ai"), None);
    }

    #[test]
    fn at_or_below_low_window_it_is_reno() {
        let mut d = driver(HighSpeedConfig::rfc(), false, 20);
        d.ack(1, None);
        assert_eq!(d.tcb.cwnd, 20_050); // MSS^2 / cwnd
        d.loss(LossCause::DupAcks, 20_000);
        assert_eq!(d.tcb.ssthresh, 10_000);
    }

    #[test]
    fn ns2_takes_low_p_from_the_standard_response_function() {
        let c = HighSpeedConfig::ns2();
        assert!((c.low_p - 1.5 / 1444.0).abs() < 1e-18);
        assert!(c.validate().is_ok());
        let bad = HighSpeedConfig {
            high_p: 0.01,
            ..HighSpeedConfig::rfc()
        };
        assert_eq!(bad.validate().unwrap_err().0, "high_p");
    }

    #[test]
    fn the_registry_builds_it_under_every_profile_and_names_a_bad_parameter() {
        use crate::cc::registry::{defaults, Profile};
        let aimd = |p| defaults("highspeed", p).unwrap()["aimd"].clone();
        assert_eq!(aimd(Profile::Paper), "rfc");
        assert_eq!(aimd(Profile::Linux), "table");
        crate::cc::testing::builds_and_refuses(
            "highspeed",
            "high_decrease",
            serde_json::json!(0.7),
        );
    }
}
