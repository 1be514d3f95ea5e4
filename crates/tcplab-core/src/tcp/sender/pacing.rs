// SPDX-License-Identifier: MIT OR Apache-2.0
//! Pacing, in the three forms of the flow's `pacing` ([`Pacing`]); off,
//! nothing here runs (the sender checks `tcb.paced`, one flag).
//!
//! The rate is the controller's own when it sets one (`tcb.pacing_rate`:
//! BBR, a Python controller), else the sender's formula, Linux's
//! `tcp_update_pacing_rate`: max(cwnd, packets in flight) / srtt, times
//! `ss_ratio` percent while cwnd < ssthresh / 2, else `ca_ratio` percent
//! (ns-3's `UpdatePacingRate` is the same on bytes, in whole bits per
//! second). Either is capped at `max_pacing_rate`. Without an RTT the
//! formula gives no rate: unpaced (ns-3: its maximum rate).
//!
//! - **linux** (Linux 4.20 on, internal pacing or `fq`): an skb is at most
//!   `tcp_tso_autosize` segments: the bytes the rate sends in 1/1024 s
//!   (`sk_pacing_shift`), plus 64 KB shifted right by min_rtt in us / 512
//!   on short paths, at most 64 KB, at least `min_tso_segs` segments. Its
//!   segments leave together. Each skb moves the earliest departure time
//!   on by its length at the rate, less up to half of that for the time
//!   the sender sat idle since the last departure time (the "OS jitter"
//!   credit of `tcp_update_skb_after_send`); the first skbs, until 10
//!   segments have been sent, move it not at all. The rate is taken when
//!   an skb starts (right after the ACK that lets it go, as Linux takes it
//!   at that ACK), so a burst keeps one rate.
//! - **ns3** (ns-3 3.44 `TcpSocketBase`): the rate is updated at the end of
//!   each ACK and when the handshake completes (`UpdatePacingRate`); a
//!   data segment sent while the pacing timer is idle arms it for the
//!   segment's payload at the rate (`CalculateBytesTxTime`, rounded to the
//!   nanosecond), and nothing new leaves while it runs; a retransmission
//!   that bypasses it (the fast retransmit) leaves it as it is. Pacing
//!   starts once the highest sequence sent passes the initial window
//!   (`IsPacingEnabled`, `PaceInitialWindow = false`); a timeout cancels
//!   the timer.
//! - **segment**: each data segment moves the next departure on by its
//!   payload at the rate, from the later of now and the last departure
//!   time (the BBR paper's `nextSendTime`); the rate as ns3's, updated
//!   after each ACK, in bytes per second.

use super::conn::Conn;
use crate::tcp::Pacing;
use crate::time::{SimDuration, SimTime};

/// The state of Linux pacing for one sender.
#[derive(Clone, Debug)]
pub struct LinuxPacing {
    /// `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio`, in percent.
    pub ss_ratio: u32,
    pub ca_ratio: u32,
    /// `tcp_min_tso_segs`.
    pub min_tso_segs: u32,
    /// Data segments sent (`data_segs_out`).
    segs_out: u64,
    /// Segments sent before pacing starts (10, or 0 with the initial
    /// window paced).
    unpaced_segs: u64,
    /// The current skb: when it started, the segments it may still take,
    /// whether it moves the departure time, the rate it uses, the idle
    /// credit left.
    burst_at: SimTime,
    burst_left: u32,
    paced: bool,
    rate: f64,
    credit: SimDuration,
}

/// Linux's `sk_pacing_shift` default: an skb holds about 1 ms of data.
const PACING_SHIFT: u32 = 10;
/// `sk_gso_max_size` (GSO_LEGACY_MAX_SIZE) and `tcp_tso_rtt_log`.
const GSO_MAX: u64 = 65_536;
const TSO_RTT_LOG: u32 = 9;
/// Segments sent before pacing starts (`tcp_update_skb_after_send`).
const UNPACED_SEGS: u64 = 10;

impl LinuxPacing {
    pub fn new(ss_ratio: u32, ca_ratio: u32, min_tso_segs: u32) -> LinuxPacing {
        LinuxPacing {
            ss_ratio,
            ca_ratio,
            min_tso_segs: min_tso_segs.max(1),
            segs_out: 0,
            unpaced_segs: UNPACED_SEGS,
            burst_at: SimTime::ZERO,
            burst_left: 0,
            paced: false,
            rate: f64::INFINITY,
            credit: SimDuration::ZERO,
        }
    }

    /// `tcp_update_pacing_rate`, in bytes per second (infinite without an
    /// RTT).
    pub fn rate(
        &self,
        mss: u64,
        cwnd: u64,
        ssthresh: u64,
        in_flight: u64,
        srtt: Option<SimDuration>,
    ) -> f64 {
        let Some(srtt) = srtt.filter(|s| !s.is_zero()) else {
            return f64::INFINITY;
        };
        let ratio = if cwnd < ssthresh / 2 {
            self.ss_ratio
        } else {
            self.ca_ratio
        };
        // Whole segments of max(cwnd, in flight).
        let packets = (cwnd.max(in_flight) as f64 / mss as f64).floor().max(1.0);
        mss as f64 * packets * f64::from(ratio) / 100.0 / srtt.as_secs_f64()
    }

    /// `tcp_tso_autosize`: the segments of one skb.
    pub fn tso_segs(&self, rate: f64, min_rtt: Option<SimDuration>, mss: u64) -> u32 {
        let mut bytes = if rate.is_finite() {
            (rate as u64) >> PACING_SHIFT
        } else {
            GSO_MAX
        };
        let r = min_rtt.map_or(u64::MAX, |m| (m.as_nanos() / 1000) >> TSO_RTT_LOG);
        if r < 32 {
            bytes += GSO_MAX >> r;
        }
        let segs = (bytes.min(GSO_MAX) / mss.max(1)) as u32;
        segs.max(self.min_tso_segs)
    }

    /// The next segment may leave now without waiting for the departure
    /// time: it belongs to the skb that just left.
    pub fn in_burst(&self, now: SimTime) -> bool {
        self.burst_left > 0 && self.burst_at == now
    }
}

/// A paced sender's state: the form, its settings, the rate in use.
#[derive(Clone, Debug)]
pub struct Pacer {
    form: Pacing,
    /// The highest rate, bytes per second (infinite: none).
    max_rate: f64,
    /// The initial window is paced too.
    pace_iw: bool,
    /// The initial window, bytes (where ns3 and segment start pacing).
    initial_window: u64,
    /// The formula's rate as last updated (ns3, segment), bytes per second.
    rate: f64,
    /// Linux's skbs and departure-time credit (linux).
    pub linux: LinuxPacing,
}

/// A paced flow's settings, from its `TcpConfig`.
pub struct PacerConfig {
    pub form: Pacing,
    pub ss_ratio: u32,
    pub ca_ratio: u32,
    pub max_rate: f64,
    pub pace_iw: bool,
    pub initial_window: u64,
    pub min_tso_segs: u32,
}

impl Pacer {
    pub fn new(c: PacerConfig) -> Pacer {
        let mut linux = LinuxPacing::new(c.ss_ratio, c.ca_ratio, c.min_tso_segs);
        if c.pace_iw {
            linux.unpaced_segs = 0;
        }
        Pacer {
            form: c.form,
            max_rate: c.max_rate,
            pace_iw: c.pace_iw,
            initial_window: c.initial_window,
            // ns-3 starts at its maximum rate (`m_pacingRate =
            // m_maxPacingRate`); before an RTT the others do not pace.
            rate: if c.form == Pacing::Ns3 {
                c.max_rate
            } else {
                f64::INFINITY
            },
            linux,
        }
    }

    pub fn max_rate(&self) -> f64 {
        self.max_rate
    }

    /// The rate a controller's own rate (bytes per second, > 0) or the
    /// formula's gives, at most the maximum.
    fn capped(&self, own: f64, formula: f64) -> f64 {
        let r = if own > 0.0 { own } else { formula };
        r.min(self.max_rate)
    }
}

/// ns-3's `DataRate` of a rate in bytes per second: whole bits per second,
/// truncated (`DataRate(uint64_t)`).
fn ns3_bps(bytes_per_s: f64) -> f64 {
    (bytes_per_s * 8.0).floor()
}

impl Conn {
    /// After an ACK (and when the handshake completes): ns-3's
    /// `UpdatePacingRate` (ns3) or its bytes form (segment). Linux's rate
    /// is taken as each skb starts instead.
    #[cold]
    #[inline(never)]
    pub(super) fn update_pacing_rate(&mut self) {
        let t = &self.tcb;
        let in_flight = t.bytes_in_flight();
        let Some(p) = self.cold.pacer.as_deref_mut() else {
            return;
        };
        let Some(srtt) = t.srtt.filter(|s| !s.is_zero()) else {
            return;
        };
        let ratio = if t.cwnd < t.ssthresh / 2 {
            p.linux.ss_ratio
        } else {
            p.linux.ca_ratio
        };
        let bytes = t.cwnd.max(in_flight) as f64 * f64::from(ratio) / 100.0;
        p.rate = match p.form {
            Pacing::Ns3 => {
                let bps = ns3_bps(bytes / srtt.as_secs_f64());
                let max = ns3_bps(p.max_rate);
                bps.min(max) / 8.0
            }
            _ => (bytes / srtt.as_secs_f64()).min(p.max_rate),
        };
    }

    /// A timeout: ns-3 cancels its pacing timer (`ReTxTimeout`).
    pub(super) fn pacing_on_timeout(&mut self, now: SimTime) {
        if self
            .cold
            .pacer
            .as_deref()
            .is_some_and(|p| p.form == Pacing::Ns3)
        {
            self.next_send = self.next_send.min(now);
            self.pace_deadline = None;
        }
    }

    /// A data segment of `len` bytes left at `now`, the flow paced: moves
    /// the departure time on as the form does.
    #[cold]
    #[inline(never)]
    pub(super) fn paced(&mut self, now: SimTime, len: u64) {
        let Some(form) = self.cold.pacer.as_deref().map(|p| p.form) else {
            return;
        };
        match form {
            Pacing::Linux => self.linux_paced(now, len),
            _ => self.segment_paced(now, len, form == Pacing::Ns3),
        }
    }

    fn segment_paced(&mut self, now: SimTime, len: u64, ns3: bool) {
        let own = self.tcb.pacing_rate;
        let snd_max = self.tcb.snd_max;
        let Some(p) = self.cold.pacer.as_deref() else {
            return;
        };
        if !p.pace_iw && snd_max <= p.initial_window {
            return; // the initial window leaves at once
        }
        let rate = p.capped(own, p.rate);
        if !(rate.is_finite() && rate > 0.0) {
            return;
        }
        if ns3 {
            if self.next_send > now {
                return; // the timer runs: a bypassing segment leaves it
            }
            // CalculateBytesTxTime: bytes * 8 / bps seconds, to the ns.
            let bps = ns3_bps(rate).max(1.0);
            let ns = (len as f64 * 8e9 / bps).round() as u64;
            self.next_send = now + SimDuration::from_nanos(ns);
        } else {
            let gap = SimDuration::from_secs_f64(len as f64 / rate).unwrap_or_default();
            self.next_send = self.next_send.max(now) + gap;
        }
    }

    /// A data segment of `len` bytes leaves at `now` under Linux pacing:
    /// starts an skb if none is open at `now`, and moves the departure
    /// time on by the segment's share of its skb.
    fn linux_paced(&mut self, now: SimTime, len: u64) {
        let mss = self.mss();
        let in_flight = self.tcb.bytes_in_flight();
        let Some(pacer) = self.cold.pacer.as_deref_mut() else {
            return;
        };
        if !pacer.linux.in_burst(now) {
            let t = &self.tcb;
            let formula = pacer.linux.rate(mss, t.cwnd, t.ssthresh, in_flight, t.srtt);
            let rate = pacer.capped(t.pacing_rate, formula);
            let p = &mut pacer.linux;
            p.rate = rate;
            let segs = p.tso_segs(p.rate, t.min_rtt, mss);
            let prior = self.next_send;
            let depart = prior.max(now);
            p.credit = depart - prior;
            self.next_send = depart;
            p.burst_at = now;
            p.burst_left = segs;
            p.paced = p.segs_out + u64::from(segs) >= p.unpaced_segs;
        }
        let p = &mut pacer.linux;
        p.burst_left -= 1;
        p.segs_out += 1;
        if p.paced && p.rate.is_finite() && p.rate > 0.0 {
            let ns = SimDuration::from_secs_f64(len as f64 / p.rate).unwrap_or_default();
            let cut = SimDuration::from_nanos(ns.as_nanos() / 2).min(p.credit);
            p.credit = p.credit - cut;
            self.next_send += ns - cut;
        }
    }

    /// ns-3's fast retransmission leaves past a running pacing timer
    /// (`EnterRecovery` sends it with `SendDataPacket`, which only arms an
    /// idle timer): the recoveries' first retransmission skips the pacing
    /// check in the ns3 form.
    pub fn pacing_spares_fast_retransmit(&self) -> bool {
        self.tcb.paced
            && self
                .cold
                .pacer
                .as_deref()
                .is_some_and(|p| p.form == Pacing::Ns3)
    }

    /// The next segment may leave now though the departure time is later:
    /// it belongs to the Linux skb that just left.
    pub(super) fn in_linux_burst(&self, now: SimTime) -> bool {
        self.cold
            .pacer
            .as_deref()
            .is_some_and(|p| p.form == Pacing::Linux && p.linux.in_burst(now))
    }
}

impl super::Sender {
    /// `tcp_tso_autosize` for this sender now, with `tcp_update_pacing_rate`
    /// at these ratios (percent) and `tcp_min_tso_segs`: the segments of one
    /// skb, as the packetdrill runner's model of Linux's send queue sizes
    /// them whether or not the sender paces.
    pub fn tso_autosize(&self, ss_ratio: u32, ca_ratio: u32, min_tso_segs: u32) -> u32 {
        let p = LinuxPacing::new(ss_ratio, ca_ratio, min_tso_segs);
        let (t, mss) = (self.tcb(), self.mss());
        let rate = p.rate(mss, t.cwnd, t.ssthresh, t.bytes_in_flight(), t.srtt);
        p.tso_segs(rate, t.min_rtt, mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    #[test]
    fn the_rate_is_twice_cwnd_per_srtt_in_slow_start_and_1_2_times_after() {
        let p = LinuxPacing::new(200, 120, 2);
        // 10 segments of 1460 B per 100 ms, twice: 292 000 B/s.
        let r = p.rate(1460, 14_600, u64::MAX, 0, Some(ms(100)));
        assert!((r - 292_000.0).abs() < 1e-6, "{r}");
        // cwnd not below ssthresh / 2: 120%.
        let r = p.rate(1460, 14_600, 20_000, 0, Some(ms(100)));
        assert!((r - 175_200.0).abs() < 1e-6, "{r}");
        // max(cwnd, packets_out): 12 segments out.
        let r = p.rate(1460, 14_600, 20_000, 17_520, Some(ms(100)));
        assert!((r - 210_240.0).abs() < 1e-6, "{r}");
        assert!(p.rate(1460, 14_600, u64::MAX, 0, None).is_infinite());
    }

    #[test]
    fn an_skb_holds_a_millisecond_of_data_and_at_least_min_tso_segs() {
        let p = LinuxPacing::new(200, 120, 2);
        // 292 000 B/s >> 10 = 285 B: below one segment, so 2.
        assert_eq!(p.tso_segs(292_000.0, Some(ms(100)), 1460), 2);
        // 100 MB/s: 97 656 B, capped at 64 KB: 44 segments of 1460 B.
        assert_eq!(p.tso_segs(1e8, Some(ms(100)), 1460), 44);
        // A 100 us path: 64 KB >> 0 is added (and capped).
        assert_eq!(
            p.tso_segs(292_000.0, Some(SimDuration::from_micros(100)), 1460),
            44
        );
        // 4 ms: r = 7, 64 KB >> 7 = 512 B more: still 2 segments.
        assert_eq!(p.tso_segs(292_000.0, Some(ms(4)), 1460), 2);
    }

    #[test]
    fn the_send_queue_model_sizes_skbs_by_the_same_rules() {
        // cwnd 40 x 1000 B in slow start over 100 ms: 800 kB/s, 781 B a
        // 1/1024 s, fewer than min_tso_segs (the runner's blocking-write case).
        let r = LinuxPacing::new(200, 120, 10).rate(1000, 40_000, u64::MAX, 0, Some(ms(100)));
        assert!((r - 800_000.0).abs() < 1e-6, "{r}");
        assert_eq!(
            LinuxPacing::new(200, 120, 10).tso_segs(r, Some(ms(100)), 1000),
            10
        );
        let p = LinuxPacing::new(200, 120, 2);
        assert_eq!(p.tso_segs(r, Some(ms(100)), 1000), 2);
        // A 100 us path adds 64 KB >> 0: whole 64 KB skbs; so does having
        // no RTT yet (unpaced).
        assert_eq!(p.tso_segs(r, Some(SimDuration::from_micros(100)), 1000), 65);
        assert_eq!(p.tso_segs(f64::INFINITY, Some(ms(100)), 1000), 65);
    }
}
