// SPDX-License-Identifier: MIT OR Apache-2.0
//! DCTCP, Data Center TCP (Alizadeh et al. 2010; RFC 8257), as Linux's
//! `tcp_dctcp.c` and ns-3's `TcpDctcp` run it.
//!
//! - Once per window of data (when the cumulative ACK passes the end of the
//!   window that was in flight at the last update), the fraction F of the
//!   acknowledged bytes whose ACKs echoed ECE updates the estimate
//!   `alpha = (1 - g) alpha + g F` (RFC 8257 3.3, g = 1/16).
//! - At an ECN echo (at most once per window: the sender's CWR rule), the
//!   window becomes `cwnd (1 - alpha / 2)`, at least 2 segments (RFC 8257
//!   3.4, Linux's `dctcp_ssthresh`).
//! - A loss halves the window as Reno does (RFC 8257 3.5; Linux's
//!   `dctcp_react_to_loss`).
//! - Growth is Reno's. ECN is needed, and every segment is ECN-capable
//!   (`needs_ecn`); the receiver echoes each segment's CE (RFC 8257 3.2,
//!   `tcp/receiver.rs`).
//!
//! alpha starts at 1 (Linux's `dctcp_alpha_on_init` = 1024/1024, ns-3's
//! `DctcpAlphaOnInit`), so the first reduction halves the window. Linux
//! keeps alpha in 1/1024 steps; here it is a float.

use serde::{Deserialize, Serialize};

use super::reno::Reno;
use super::{reno_ssthresh, Ack, CongestionControl, LossCause, Probe, Tcb};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DctcpConfig {
    /// The estimator's gain (RFC 8257 3.3: 1/16).
    pub g: f64,
    /// alpha before the first update.
    pub alpha_on_init: f64,
}

impl DctcpConfig {
    pub fn rfc() -> Self {
        DctcpConfig {
            g: 1.0 / 16.0,
            alpha_on_init: 1.0,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", format!("{} is not in (0, 1]", self.g)));
        }
        if !(0.0..=1.0).contains(&self.alpha_on_init) {
            return Err((
                "alpha_on_init",
                format!("{} is not in [0, 1]", self.alpha_on_init),
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    cfg: DctcpConfig,
    /// Growth is Reno's.
    reno: Reno,
    pub alpha: f64,
    /// Bytes acknowledged in the current window, and those with ECE.
    acked: u64,
    acked_ece: u64,
    /// The window ends when snd_una passes this (snd_nxt at its start).
    window_end: u64,
}

impl Dctcp {
    pub fn new(cfg: DctcpConfig, abc: bool) -> Self {
        Dctcp {
            alpha: cfg.alpha_on_init,
            cfg,
            reno: Reno::new(abc),
            acked: 0,
            acked_ece: 0,
            window_end: 0,
        }
    }
}

impl CongestionControl for Dctcp {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        // A duplicate ACK delivers a segment too (Linux counts one MSS).
        let bytes = if ack.is_dup { tcb.mss } else { ack.bytes_acked };
        self.acked += bytes;
        if ack.ece {
            self.acked_ece += bytes;
        }
        if tcb.snd_una >= self.window_end {
            if self.acked > 0 {
                let f = self.acked_ece as f64 / self.acked as f64;
                self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g * f;
            }
            self.acked = 0;
            self.acked_ece = 0;
            self.window_end = tcb.snd_nxt;
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.reno.increase_window(tcb, ack);
    }

    fn ssthresh(&mut self, tcb: &Tcb, cause: LossCause) -> u64 {
        match cause {
            LossCause::Ecn => {
                let cut = (tcb.cwnd as f64 * self.alpha / 2.0) as u64;
                tcb.cwnd.saturating_sub(cut).max(2 * tcb.mss)
            }
            LossCause::DupAcks | LossCause::Timeout => reno_ssthresh(tcb),
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![Probe::new(
            "alpha",
            "",
            "the estimated fraction of marked bytes",
        )]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        (name == "alpha").then_some(self.alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;

    const MSS: u64 = 1000;

    fn ack(d: &mut CcDriver<Dctcp>, segments: u32, ece: bool) {
        d.ack_ece(segments, ece);
    }

    #[test]
    fn alpha_moves_by_g_times_the_marked_fraction_once_per_window() {
        let mut d = CcDriver::new(Dctcp::new(DctcpConfig::rfc(), false), MSS, 10);
        d.cc.alpha = 0.0;
        // The first ACK closes the (empty) window and opens one ending at
        // snd_nxt; a quarter of the next window's bytes echo ECE.
        ack(&mut d, 1, false);
        let end = d.cc.window_end;
        let mut acked: u64 = 0;
        while d.tcb.snd_una < end {
            ack(&mut d, 1, acked.is_multiple_of(4));
            acked += 1;
        }
        let marked = acked.div_ceil(4) as f64 / acked as f64;
        assert!((d.cc.alpha - marked / 16.0).abs() < 1e-12, "{}", d.cc.alpha);
    }

    #[test]
    fn an_echo_cuts_the_window_by_half_alpha_a_loss_halves_it() {
        let mut d = CcDriver::new(Dctcp::new(DctcpConfig::rfc(), false), MSS, 40);
        d.cc.alpha = 0.25;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::Ecn), 40_000 - 5_000);
        d.cc.alpha = 1.0; // at init: halved
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::Ecn), 20_000);
        d.cc.alpha = 0.0;
        assert_eq!(d.cc.ssthresh(&d.tcb, LossCause::Ecn), 40_000);
        d.tcb.cwnd = 2_500;
        d.cc.alpha = 1.0;
        assert_eq!(
            d.cc.ssthresh(&d.tcb, LossCause::Ecn),
            2 * MSS,
            "at least 2 MSS"
        );
        d.tcb.cwnd = 40_000;
        assert_eq!(
            d.cc.ssthresh(&d.tcb, LossCause::DupAcks),
            reno_ssthresh(&d.tcb)
        );
    }
}
