// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3 3.44's own versions of the congestion controls it ships
//! (`src/internet/model/tcp-*.cc`): the `version = "ns3"` form of a variant,
//! and what the ns3 profile runs. ns-3 wrote these classes after the papers
//! and Linux's modules, and some differ from both in ways that change the
//! results by more than the variants differ from each other; the other
//! profiles run tcplab's own module, and docs/variants.md lists, variant by
//! variant, where ns-3's differs and what that does.
//!
//! What ns-3's `TcpSocketBase` hands every class, modelled here once:
//! - `PktsAcked(segmentsAcked, rtt)` on every ACK (a duplicate counts one
//!   segment), with the sender's *smoothed* RTT as `rtt`: 3.44 passes
//!   `m_tcb->m_srtt`, not the ACK's own sample ([`srtt`]);
//! - `IncreaseWindow(segmentsAcked)` on ACKs of new data in Open and, below
//!   the recovery point, in Loss;
//! - `GetSsThresh(bytesInFlight)` with RFC 6675's pipe ([`Tcb::pipe`]), not
//!   cwnd;
//! - `CongestionStateSet(CA_OPEN)` when the sender returns to Open.
//!
//! Most classes derive from `TcpNewReno` and fall back on its growth:
//! [`newreno_slow_start`] and [`newreno_cong_avoid`], which count ACKs, not
//! the segments they cover, and its threshold [`newreno_ssthresh`].

pub mod bic;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod scalable;
pub mod vegas;
pub mod veno;
pub mod yeah;

use serde::Serialize;

use super::Tcb;
use crate::time::SimDuration;

/// The form's `version` key: ns-3's class.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub enum Ns3Version {
    #[default]
    #[serde(rename = "ns3")]
    Ns3,
}

crate::deserialize_names!(Ns3Version { "ns3" => Ns3Version::Ns3 });

/// The RTT ns-3 3.44 hands `PktsAcked`: the smoothed RTT (None before the
/// first sample, where ns-3's is zero and the classes return at once).
pub fn srtt(tcb: &Tcb) -> Option<SimDuration> {
    tcb.srtt.filter(|r| !r.is_zero())
}

/// `TcpNewReno::SlowStart`: one segment per ACK that acknowledges at least
/// one, however many it covers (and with no cap at ssthresh); returns the
/// segments left for congestion avoidance.
pub fn newreno_slow_start(tcb: &mut Tcb, segments: u32) -> u32 {
    if segments >= 1 {
        tcb.cwnd += tcb.mss;
        segments - 1
    } else {
        0
    }
}

/// `TcpNewReno::IncreaseWindow`: its slow start, then, once cwnd has
/// reached ssthresh, the class's congestion avoidance `avoid` with the
/// segments slow start left (where ns-3 calls the class's override).
pub fn newreno_increase(tcb: &mut Tcb, segments: u32, avoid: impl FnOnce(&mut Tcb, u32)) {
    let mut segments = segments;
    if tcb.cwnd < tcb.ssthresh {
        segments = newreno_slow_start(tcb, segments);
    }
    if tcb.cwnd >= tcb.ssthresh {
        avoid(tcb, segments);
    }
}

/// Whole milliseconds, as ns-3's `Time::GetMilliSeconds`.
pub fn whole_ms(d: SimDuration) -> f64 {
    (d.as_nanos() / 1_000_000) as f64
}

/// `TcpNewReno::CongestionAvoidance`: max(1, MSS² / cwnd) bytes per ACK
/// that acknowledges a segment, whatever it covers (truncated to whole
/// bytes).
pub fn newreno_cong_avoid(tcb: &mut Tcb, segments: u32) {
    if segments > 0 {
        let adder = (tcb.mss * tcb.mss) as f64 / tcb.cwnd.max(1) as f64;
        tcb.cwnd += adder.max(1.0) as u64;
    }
}

/// The window in whole segments grows by one for each whole window of
/// `count` (which keeps the rest): the avoidance step of the classes that
/// count acknowledged segments, times their factor, against cwnd
/// (`TcpHighSpeed`, `TcpIllinois`).
pub fn add_per_window(tcb: &mut Tcb, count: &mut u32) {
    let old = (tcb.cwnd / tcb.mss) as u32;
    let mut w = old;
    while *count >= w.max(1) {
        *count -= w.max(1);
        w += 1;
    }
    if w != old {
        tcb.cwnd = w as u64 * tcb.mss;
    }
}

/// The RTTs a Vegas-derived class keeps from `PktsAcked` (`TcpVegas`,
/// `TcpVeno`, `TcpYeah`): the smallest ever, the smallest since the count
/// restarted, and that count.
#[derive(Clone, Debug, Default)]
pub struct RttMins {
    pub base: Option<SimDuration>,
    pub min: Option<SimDuration>,
    pub count: u32,
}

impl RttMins {
    /// `PktsAcked` with the smoothed RTT (nothing before the first).
    pub fn sample(&mut self, tcb: &Tcb) {
        if let Some(r) = srtt(tcb) {
            self.min = Some(self.min.map_or(r, |m| m.min(r)));
            self.base = Some(self.base.map_or(r, |b| b.min(r)));
            self.count += 1;
        }
    }

    /// floor(w BaseRTT / RTT) with RTT the current minimum: the window
    /// without a queue, in whole segments, of a window of `w` (a time not
    /// yet seen is ns-3's `Time::Max()`).
    pub fn target(&self, w: u32) -> u32 {
        let secs = |d: Option<SimDuration>| d.unwrap_or(SimDuration::MAX).as_secs_f64();
        (w as f64 * (secs(self.base) / secs(self.min))) as u32
    }

    /// A new round: the minimum and the count start again.
    pub fn restart(&mut self) {
        self.min = None;
        self.count = 0;
    }
}

/// `TcpNewReno::GetSsThresh`: max(2 MSS, bytesInFlight / 2).
pub fn newreno_ssthresh(tcb: &Tcb) -> u64 {
    (2 * tcb.mss).max(tcb.pipe as u64 / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newreno_counts_acks_not_the_segments_they_cover() {
        let mut tcb = Tcb::new(10 * 1000, 5 * 1000, 1000);
        // Slow start: an ACK of two segments adds one, leaves one.
        assert_eq!(newreno_slow_start(&mut tcb, 2), 1);
        assert_eq!(tcb.cwnd, 11_000);
        // Congestion avoidance: 1000 * 1000 / 11000 = 90.9 -> 90 bytes,
        // for two segments as for one.
        newreno_cong_avoid(&mut tcb, 2);
        assert_eq!(tcb.cwnd, 11_090);
        newreno_cong_avoid(&mut tcb, 0);
        assert_eq!(tcb.cwnd, 11_090);
        // The threshold halves the pipe, at least two segments.
        tcb.pipe = 7_000;
        assert_eq!(newreno_ssthresh(&tcb), 3_500);
        tcb.pipe = 3_000;
        assert_eq!(newreno_ssthresh(&tcb), 2_000);
    }
}
