// SPDX-License-Identifier: MIT OR Apache-2.0
//! CUBIC, RFC 9438.
//!
//! In congestion avoidance the window follows W_cubic(t) = C (t - K)^3 +
//! W_max (segments, t in seconds since the start of the epoch, K =
//! cbrt(W_max (1 - beta) / C)); each ACK moves cwnd towards W_cubic(t + RTT)
//! by (target - cwnd) / cwnd segments (4.4). In the Reno-friendly region
//! (4.3), W_est grows by alpha_cubic = 3 (1 - beta) / (1 + beta) segments per
//! cwnd of acknowledged segments, and cwnd follows W_est when it is larger.
//! On a loss, ssthresh = cwnd * beta (beta = 0.7), W_max = cwnd, and with
//! fast convergence (4.7) W_max is lowered to cwnd (1 + beta) / 2 when it is
//! below the previous W_max. Slow start is standard (HyStart is not
//! implemented). C = 0.4.

use serde::{Deserialize, Serialize};

use super::{
    linux_count_slow_start, slow_start, Ack, CaState, CongestionControl, LossCause, Probe, Tcb,
};
use crate::time::SimTime;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CubicConfig {
    /// C, segments / s^3.
    pub c: f64,
    /// Multiplicative decrease factor beta_cubic.
    pub beta: f64,
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 4.3).
    pub reno_friendly: bool,
    /// Which CUBIC: RFC 9438 (this one), or "2.6.22", Linux 2.6.22's
    /// module with its own parameters ([`super::cubic_linux`]).
    pub version: CubicVersion,
}

/// The CUBIC a flow runs.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub enum CubicVersion {
    /// RFC 9438 (today's Linux's algorithm, in floating point).
    #[default]
    #[serde(rename = "rfc9438")]
    Rfc9438,
    /// CUBIC 2.1 as Linux 2.6.22's `tcp_cubic.c`, which ns-2.35's
    /// TCP-Linux runs.
    #[serde(rename = "2.6.22")]
    Linux2622,
    /// Today's Linux's `tcp_cubic.c` (4.x to 6.x), in its integers.
    #[serde(rename = "linux")]
    Linux,
}

crate::deserialize_names!(CubicVersion {
    "rfc9438" => CubicVersion::Rfc9438,
    "2.6.22" => CubicVersion::Linux2622,
    "linux" => CubicVersion::Linux,
});

impl CubicConfig {
    pub fn rfc() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            version: CubicVersion::Rfc9438,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.c <= 0.0 {
            return Err(("c", format!("{} must be > 0", self.c)));
        }
        if !(0.0..1.0).contains(&self.beta) || self.beta == 0.0 {
            return Err(("beta", format!("{} is not in (0, 1)", self.beta)));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    pub cfg: CubicConfig,
    /// Window before the last reduction, segments.
    pub w_max: f64,
    w_last_max: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch: Option<SimTime>,
    pub k: f64,
    /// Reno-friendly estimate, segments.
    pub w_est: f64,
    cwnd_at_epoch: f64,
    /// Slow start counts the segments each ACK acknowledges, as Linux's
    /// `tcp_slow_start` (the linux profile's byte counting); else RFC
    /// 5681's one MSS per ACK.
    abc: bool,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Self {
        Cubic::with_abc(cfg, false)
    }

    /// As [`Cubic::new`], slow start counting as `abc` says.
    pub fn with_abc(cfg: CubicConfig, abc: bool) -> Self {
        Cubic {
            abc,
            cfg,
            w_max: 0.0,
            w_last_max: 0.0,
            epoch: None,
            k: 0.0,
            w_est: 0.0,
            cwnd_at_epoch: 0.0,
        }
    }

    /// W_cubic(t), segments.
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.cfg.c * (d * d * d) + self.w_max
    }

    fn start_epoch(&mut self, tcb: &Tcb) {
        let cwnd = tcb.cwnd_segments();
        self.epoch = Some(tcb.now);
        self.cwnd_at_epoch = cwnd;
        if self.w_max < cwnd {
            // No reduction yet (or the window grew past W_max): start at the plateau.
            self.w_max = cwnd;
            self.k = 0.0;
        } else {
            // `libm`'s cube root, not the C library's: the same K on every
            // machine (Linux computes it in integers, cubic_root()).
            self.k = libm::cbrt((self.w_max - cwnd) / self.cfg.c);
        }
        self.w_est = cwnd;
    }
}

impl CongestionControl for Cubic {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let mut acked = ack.bytes_acked;
        if tcb.in_slow_start() {
            acked = if self.abc {
                linux_count_slow_start(tcb, ack.grow_segments as u64 * tcb.mss)
            } else {
                slow_start(tcb, acked, false)
            };
            if acked == 0 {
                return;
            }
        }
        if self.epoch.is_none() {
            self.start_epoch(tcb);
        }
        let mss = tcb.mss as f64;
        let cwnd = tcb.cwnd_segments();
        let rtt = tcb.srtt.or(tcb.latest_rtt).map_or(0.0, |d| d.as_secs_f64());
        let t = (tcb.now - self.epoch.unwrap()).as_secs_f64();
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        let segs = acked as f64 / mss;
        // RFC 9438 4.4: cwnd += (target - cwnd) / cwnd per acknowledged segment.
        let mut next = cwnd + (target - cwnd) / cwnd * segs;
        if self.cfg.reno_friendly {
            let b = self.cfg.beta;
            let alpha = 3.0 * (1.0 - b) / (1.0 + b);
            self.w_est += alpha * segs / cwnd;
            if self.w_est > next {
                next = cwnd + (self.w_est - cwnd).max(0.0).min(segs); // at most Reno's pace
            }
        }
        let next_bytes = (next * mss) as u64;
        if next_bytes > tcb.cwnd {
            tcb.cwnd = next_bytes;
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        let cwnd = tcb.cwnd_segments();
        let b = self.cfg.beta;
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_last_max {
            cwnd * (1.0 + b) / 2.0
        } else {
            cwnd
        };
        self.w_last_max = cwnd;
        self.epoch = None;
        ((tcb.cwnd as f64 * b) as u64).max(2 * tcb.mss)
    }

    fn on_state(&mut self, _tcb: &mut Tcb, to: CaState) {
        if to == CaState::Loss {
            self.epoch = None;
        }
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "w_max",
                "segments",
                "W_max: the window before the last reduction (RFC 9438 4.1)",
            ),
            Probe::new("k", "s", "K: the time to grow back to W_max (RFC 9438 4.2)"),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "w_max" => Some(self.w_max),
            "k" => Some(self.k),
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

    #[test]
    fn w_cubic_at_known_times() {
        let mut c = Cubic::new(CubicConfig::rfc());
        c.w_max = 100.0;
        // After a reduction to 70 segments: K = cbrt(100 * 0.3 / 0.4) = cbrt(75) = 4.2172 s.
        c.k = ((100.0 - 70.0) / 0.4f64).cbrt();
        assert!((c.k - 4.217163).abs() < 1e-6);
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9); // starts at beta * W_max
        assert!((c.w_cubic(c.k) - 100.0).abs() < 1e-9); // plateau at K
                                                        // t = K + 2: 100 + 0.4 * 8 = 103.2
        assert!((c.w_cubic(c.k + 2.0) - 103.2).abs() < 1e-9);
    }

    #[test]
    fn loss_sets_beta_ssthresh_and_fast_convergence() {
        let mut d = CcDriver::new(Cubic::new(CubicConfig::rfc()), MSS, 100);
        d.loss(LossCause::DupAcks, 100_000);
        assert_eq!(d.tcb.ssthresh, 70_000);
        assert_eq!(d.cc.w_max, 100.0);
        // A second loss at a smaller window: W_max = 80 * 1.7 / 2 = 68.
        d.tcb.cwnd = 80_000;
        d.tcb.ca_state = CaState::Open;
        d.loss(LossCause::DupAcks, 80_000);
        assert!((d.cc.w_max - 68.0).abs() < 1e-9);
        assert_eq!(d.tcb.ssthresh, 56_000);
    }

    #[test]
    fn window_climbs_back_to_w_max_at_k() {
        let mut d = CcDriver::new(
            Cubic::new(CubicConfig {
                reno_friendly: false,
                ..CubicConfig::rfc()
            }),
            MSS,
            100,
        );
        d.loss(LossCause::DupAcks, 100_000);
        d.tcb.cwnd = 70_000;
        d.tcb.ca_state = CaState::Open;
        d.tcb.srtt = Some(SimDuration::from_millis(10));
        // One ACK per 10 ms for K = 4.217 s: cwnd reaches ~W_max = 100.
        let k = (30.0f64 / 0.4).cbrt();
        let steps = (k / 0.01) as u64;
        for i in 0..steps {
            d.tcb.now = SimTime::ZERO + SimDuration::from_millis(10 * i);
            d.ack(1, None);
        }
        let w = d.tcb.cwnd_segments();
        assert!((95.0..=101.0).contains(&w), "{w}");
    }
}
