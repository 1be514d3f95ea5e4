// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's `TcpHtcp` (`src/internet/model/tcp-htcp.cc`): H-TCP (Leith
//! and Shorten 2004) as ns-3 wrote it, the `version = "ns3"` form of `htcp`.
//!
//! alpha = 1 for `delta_l` (1 s) after the last loss, then 1 + 10 D + (D /
//! 2)^2 with D the seconds beyond it; then alpha = max(2 (1 - beta) alpha,
//! 1). It is updated on every ACK (`PktsAcked`) and at a loss. Growth:
//! `TcpNewReno`'s slow start, then each ACK adds MSS^2 / cwnd + alpha
//! *bytes* (ns-3 adds alpha to the byte count where the paper adds alpha
//! segments per RTT), so the window grows as NewReno's whatever alpha is.
//!
//! A loss: beta = `default_backoff` (0.5), or RTTmin / RTTmax of the
//! smoothed RTTs since the last loss (unbounded, where the paper and Linux
//! keep it in [0.5, 0.8]) when the throughput since the last loss rose
//! over the one before and the rise divided by it, in integers, is at most
//! `throughput_ratio` (0.2): so any rise below 100%. ssthresh = max(2 MSS,
//! beta x pipe). The throughput is the bytes acknowledged in Open since the
//! last loss over the time since it, in whole bytes per second.

use serde::{Deserialize, Serialize};

use super::{newreno_increase, srtt, Ns3Version};
use crate::cc::{Ack, CaState, CongestionControl, LossCause, Probe, Tcb};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ns3HtcpConfig {
    /// "ns3": this form.
    pub version: Ns3Version,
    /// `DefaultBackoff`: beta without a steady throughput (0.5).
    pub default_backoff: f64,
    /// `ThroughputRatio` (0.2).
    pub throughput_ratio: f64,
    /// `DeltaL`: alpha stays 1 this long after a loss (1 s).
    pub delta_l: SimDuration,
}

impl Default for Ns3HtcpConfig {
    fn default() -> Self {
        Ns3HtcpConfig {
            version: Ns3Version::Ns3,
            default_backoff: 0.5,
            throughput_ratio: 0.2,
            delta_l: SimDuration::from_millis(1000),
        }
    }
}

impl Ns3HtcpConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(0.0..=1.0).contains(&self.default_backoff) {
            return Err(("default_backoff", "must be in [0, 1]".into()));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ns3Htcp {
    cfg: Ns3HtcpConfig,
    alpha: f64,
    beta: f64,
    last_con: SimTime,
    min_rtt: Option<SimDuration>,
    max_rtt: Option<SimDuration>,
    throughput: u32,
    last_throughput: u32,
    data_sent: u32,
}

impl Ns3Htcp {
    pub fn new(cfg: Ns3HtcpConfig) -> Self {
        Ns3Htcp {
            cfg,
            alpha: 0.0,
            beta: 0.0,
            last_con: SimTime::ZERO,
            min_rtt: None,
            max_rtt: None,
            throughput: 0,
            last_throughput: 0,
            data_sent: 0,
        }
    }

    fn update_alpha(&mut self, now: SimTime) {
        let delta = now - self.last_con;
        self.alpha = if delta <= self.cfg.delta_l {
            1.0
        } else {
            let d = (delta - self.cfg.delta_l).as_secs_f64();
            1.0 + 10.0 * d + 0.25 * d * d
        };
        self.alpha = (2.0 * (1.0 - self.beta) * self.alpha).max(1.0);
    }

    fn update_beta(&mut self) {
        self.beta = self.cfg.default_backoff;
        if self.throughput > self.last_throughput && self.last_throughput > 0 {
            let diff = self.throughput - self.last_throughput;
            if (diff / self.last_throughput) as f64 <= self.cfg.throughput_ratio {
                if let (Some(min), Some(max)) = (self.min_rtt, self.max_rtt) {
                    self.beta = min.as_nanos() as f64 / max.as_nanos() as f64;
                }
            }
        }
    }
}

impl CongestionControl for Ns3Htcp {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Ns3Htcp::new(self.cfg.clone())))
    }

    fn name(&self) -> &'static str {
        "htcp"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        if tcb.ca_state == CaState::Open {
            // A duplicate counts one segment (ns-3's PktsAcked(1)).
            let segments = if ack.is_dup { 1 } else { ack.segments_acked };
            self.data_sent = self
                .data_sent
                .wrapping_add(segments.wrapping_mul(tcb.mss as u32));
        }
        let since = (tcb.now - self.last_con).as_secs_f64();
        self.throughput = (self.data_sent as f64 / since) as u32;
        self.update_alpha(tcb.now);
        if let Some(r) = srtt(tcb) {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.max_rtt = Some(self.max_rtt.map_or(r, |m| m.max(r)));
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        let alpha = self.alpha;
        newreno_increase(tcb, ack.segments_acked, |tcb, segments| {
            if segments > 0 {
                let cwnd = tcb.cwnd as f64;
                let adder = ((tcb.mss * tcb.mss) as f64 + cwnd * alpha) / cwnd;
                tcb.cwnd += adder.max(1.0) as u64;
            }
        });
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        self.last_con = tcb.now;
        self.update_beta();
        self.update_alpha(tcb.now);
        let ssthresh = (2 * tcb.mss).max((tcb.pipe as f64 * self.beta) as u64);
        self.min_rtt = None;
        self.max_rtt = None;
        self.last_throughput = self.throughput;
        self.throughput = 0;
        self.data_sent = 0;
        ssthresh
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new(
                "alpha",
                "bytes per ACK",
                "alpha: what each ACK adds besides MSS^2 / cwnd",
            ),
            Probe::new("beta", "", "beta: the fraction of the pipe a loss keeps"),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "alpha" => Some(self.alpha),
            "beta" => Some(self.beta),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::{ms, CcDriver};

    const MSS: u64 = 1000;

    #[test]
    fn alpha_is_added_in_bytes_so_the_window_grows_as_newreno_s() {
        let mut d = CcDriver::new(Ns3Htcp::new(Ns3HtcpConfig::default()), MSS, 10);
        d.tcb.ssthresh = 10 * MSS;
        d.tcb.srtt = Some(ms(100));
        // 3 s after the start: D = 2, alpha = 1 + 20 + 1 = 22, then 2 (1 -
        // 0) 22 = 44 (beta is 0 before the first loss).
        d.advance(ms(3000));
        d.ack(2, None);
        assert_eq!(d.cc.alpha, 44.0);
        // 1000^2 / 10000 + 44 = 144 bytes.
        assert_eq!(d.tcb.cwnd, 10 * MSS + 144);
    }

    #[test]
    fn beta_is_the_rtt_ratio_unbounded_while_the_throughput_rose_under_double() {
        let mut d = CcDriver::new(Ns3Htcp::new(Ns3HtcpConfig::default()), MSS, 10);
        d.tcb.ssthresh = 10 * MSS;
        d.tcb.srtt = Some(ms(100));
        d.advance(ms(1000));
        d.ack(10, None);
        // The first loss: no throughput before it, beta 0.5.
        d.loss(LossCause::DupAcks, 20 * MSS);
        assert_eq!((d.cc.beta, d.tcb.ssthresh), (0.5, 10 * MSS));
        assert_eq!(d.cc.last_throughput, 10_000);
        // Then 15,000 B/s with SRTTs 100 and 105 ms: the rise is 50% (0 in
        // integers): beta = 100 / 105, above Linux's 0.8 bound.
        d.tcb.ca_state = CaState::Open;
        d.advance(ms(1000));
        d.ack(15, None);
        d.tcb.srtt = Some(ms(105));
        d.ack(0, None);
        d.loss(LossCause::DupAcks, 21 * MSS);
        assert_eq!(d.cc.beta, 100.0 / 105.0);
        // ns-3's static_cast<uint32_t>(bytesInFlight * m_beta).
        assert_eq!(d.tcb.ssthresh, (21_000.0 * (100.0 / 105.0)) as u64);
    }
}
