// SPDX-License-Identifier: MIT OR Apache-2.0
//! Westwood+ as Linux 2.6.22 runs it (`net/ipv4/tcp_westwood.c` of 2.6.22,
//! the module ns-2.35's TCP-Linux runs as `westwood`): the `version =
//! "2.6.22"` form of `westwoodplus`, for reproducing TCP-Linux studies.
//! tcplab's `westwoodplus` is [`super::westwood`].
//!
//! Integer arithmetic as the kernel's, with HZ = 1000 (TCP-Linux's 1-ms
//! clock; times in ms, the estimate in bytes per ms):
//! - **the sample window** closes at the first ACK more than max(RTT, 50
//!   ms) after it opened, where RTT is the sender's smoothed RTT in whole ms
//!   (2.6.22 takes `srtt`, today's Linux the latest RTT sample); the sample
//!   is the window's bytes over its length, both integers;
//! - **the filter** is `(7 a + b) >> 3` twice (`bw_ns_est`, then
//!   `bw_est`), each step rounding down; the first sample fills both;
//! - **the bytes counted**: an ACK of new data in Open counts what it
//!   acknowledges (`westwood_fast_bw`); any other ACK goes through
//!   `westwood_acked_count`: a duplicate counts one segment and adds it to
//!   `accounted`, and a cumulative ACK of more than one segment is reduced by
//!   `accounted` (to one segment if `accounted` covers it all);
//! - **RTTmin** is the smallest of those smoothed RTTs, taken on every ACK;
//! - **on a loss**: ssthresh is Reno's, max(cwnd / 2, 2) segments; the
//!   estimate enters as `min_cwnd`, max(bw_est RTTmin / MSS, 2) segments,
//!   the floor TCP-Linux's rate halving sets cwnd to
//!   (`rate_halving` recovery). TCP-Linux raises neither
//!   `CA_EVENT_COMPLETE_CWR` nor `CA_EVENT_FRTO`, the two events on which
//!   2.6.22's module sets ssthresh from the estimate, so it never does;
//! - **growth** is 2.6.22's `tcp_reno_cong_avoid` with TCP-Linux's
//!   `sysctl_tcp_abc` = 1 ([`super::reno_2622`]): slow start while cwnd <=
//!   ssthresh, one segment per ACK of at least one segment; above, one
//!   segment per window of acknowledged bytes.
//!
//! Not modelled: an ACK of new data in Open that carries new SACK
//! information is counted here as a fast ACK (2.6.22 sends it down the slow
//! path, `FLAG_CA_ALERT`); TCP-Linux's SRTT comes from RTT samples rounded to
//! its 1-ms clock, tcplab's from exact ones.
//!
//! Where today's Linux differs (3.x to 6.x): the RTT is the latest sample;
//! no `min_cwnd` (PRR brings cwnd to Reno's ssthresh), and when the
//! reduction completes, and at a timeout, ssthresh (and then cwnd) is set to
//! the estimate times RTTmin; docs/variants.md.

use serde::{Deserialize, Serialize};

use super::reno_2622::Reno2622;
use super::{Ack, CaState, CongestionControl, LossCause, Probe, Tcb};

/// 2.6.22's `TCP_WESTWOOD_RTT_MIN`: the shortest sample window, ms.
const RTT_MIN_WINDOW: u64 = 50;
/// 2.6.22's `TCP_WESTWOOD_INIT_RTT` (20 s), until the first RTT.
const INIT_RTT: u64 = 20_000;

/// Which Westwood+: only this form has a version.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub enum WestwoodVersion {
    /// Linux 2.6.22's `tcp_westwood.c`, which ns-2.35's TCP-Linux runs.
    #[default]
    #[serde(rename = "2.6.22")]
    Linux2622,
}

crate::deserialize_names!(WestwoodVersion {
    "2.6.22" => WestwoodVersion::Linux2622,
});

/// The form's parameters: the module has none of its own.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WestwoodLinuxConfig {
    /// Always "2.6.22" (the key that selects this form).
    pub version: WestwoodVersion,
}

#[derive(Clone, Debug, Default)]
pub struct WestwoodLinux {
    /// The first filter stage, bytes per ms.
    bw_ns_est: u64,
    /// The estimate, bytes per ms.
    pub bw_est: u64,
    /// When the sample window opened, ms.
    rtt_win_sx: u64,
    /// Bytes counted in the open window.
    bk: u64,
    /// SND.UNA as the module last saw it.
    snd_una: u64,
    /// Bytes duplicates counted that no cumulative ACK has covered yet.
    accounted: u64,
    /// The smoothed RTT at the last ACK of new data, ms.
    rtt: u64,
    /// The smallest of those, ms.
    pub rtt_min: u64,
    /// Set up at the first ACK, as TCP-Linux calls `init` then.
    started: bool,
    first_ack: bool,
    reset_rtt_min: bool,
    reno: Reno2622,
}

fn ms(t: crate::time::SimTime) -> u64 {
    t.as_nanos() / 1_000_000
}

impl WestwoodLinux {
    pub fn new(_cfg: WestwoodLinuxConfig) -> Self {
        WestwoodLinux::default()
    }

    /// `tcp_westwood_init`, at the first ACK.
    fn start(&mut self, tcb: &Tcb) {
        *self = WestwoodLinux {
            started: true,
            first_ack: true,
            reset_rtt_min: true,
            rtt: INIT_RTT,
            rtt_min: INIT_RTT,
            rtt_win_sx: ms(tcb.now),
            snd_una: tcb.snd_una,
            ..WestwoodLinux::default()
        };
    }

    /// `westwood_filter`: one sample of `bk / delta` bytes per ms.
    fn filter(&mut self, delta: u64) {
        let sample = self.bk / delta;
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7 * self.bw_ns_est + sample) >> 3;
            self.bw_est = (7 * self.bw_est + self.bw_ns_est) >> 3;
        }
    }

    /// `westwood_update_window`: closes the sample window once it is longer
    /// than max(RTT, 50 ms).
    fn update_window(&mut self, tcb: &Tcb) {
        let delta = ms(tcb.now).saturating_sub(self.rtt_win_sx);
        if self.first_ack {
            self.snd_una = tcb.snd_una;
            self.first_ack = false;
        }
        if self.rtt != 0 && delta > self.rtt.max(RTT_MIN_WINDOW) {
            self.filter(delta);
            self.bk = 0;
            self.rtt_win_sx = ms(tcb.now);
        }
    }

    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }

    /// `westwood_acked_count`: the bytes an ACK off the fast path counts.
    fn acked_count(&mut self, tcb: &Tcb) -> u64 {
        let mss = tcb.mss;
        let mut cumul = tcb.snd_una.saturating_sub(self.snd_una);
        if cumul == 0 {
            // A duplicate.
            self.accounted += mss;
            cumul = mss;
        }
        if cumul > mss {
            // A delayed or partial ACK.
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = mss;
            } else {
                cumul -= self.accounted;
                self.accounted = 0;
            }
        }
        self.snd_una = tcb.snd_una;
        cumul
    }

    /// `tcp_westwood_bw_rttmin`, segments.
    fn bw_rttmin(&self, mss: u64) -> u64 {
        (self.bw_est * self.rtt_min / mss).max(2)
    }
}

impl CongestionControl for WestwoodLinux {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(WestwoodLinux::default()))
    }
    fn name(&self) -> &'static str {
        "westwoodplus"
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        if !self.started {
            self.start(tcb);
        }
        self.reno.acked(ack.bytes_acked);
        if !ack.is_dup {
            // `tcp_westwood_pkts_acked` (2.6.22): the smoothed RTT.
            if let Some(srtt) = tcb.srtt {
                self.rtt = srtt.as_nanos() / 1_000_000;
            }
        }
        self.update_window(tcb);
        if matches!(tcb.ca_state, CaState::Open | CaState::Disorder) && !ack.is_dup && !ack.ece {
            // CA_EVENT_FAST_ACK.
            self.bk += tcb.snd_una.saturating_sub(self.snd_una);
            self.snd_una = tcb.snd_una;
        } else {
            // CA_EVENT_SLOW_ACK.
            self.bk += self.acked_count(tcb);
        }
        self.update_rtt_min();
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.reno.cong_avoid(tcb, ack.prior_in_flight);
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        self.reno.ssthresh(tcb)
    }

    fn min_cwnd(&self, tcb: &Tcb) -> Option<u64> {
        Some(self.bw_rttmin(tcb.mss) * tcb.mss)
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new("bwe", "bit/s", "the filtered bandwidth estimate (bw_est)"),
            Probe::new(
                "rtt_min",
                "s",
                "RTTmin: the smallest smoothed RTT, whole ms",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "bwe" => Some(self.bw_est as f64 * 8000.0),
            "rtt_min" => Some(self.rtt_min as f64 / 1000.0),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "westwood_linux_tests.rs"]
mod tests;
