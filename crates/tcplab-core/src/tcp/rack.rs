// SPDX-License-Identifier: MIT OR Apache-2.0
//! RACK-TLP (RFC 8985): time-based loss detection and the tail loss probe,
//! a component of the connection that the SACK-based recoveries (`sack`,
//! `prr`) consult instead of RFC 6675's DupThresh and IsLost.
//!
//! RACK keeps, for every segment sent and not cumulatively acknowledged,
//! when it was (last) sent and whether it is SACKed, marked lost, or a
//! retransmission in flight. On each ACK, the most recently sent segment
//! among those newly delivered gives RACK.xmit_ts and RACK.rtt; a segment
//! sent before it and not delivered is lost once RACK.rtt + reo_wnd has
//! passed since it was sent, otherwise the reordering timer waits for that.
//! A retransmission has its own send time, so a lost retransmission is
//! found the same way, without a timeout. reo_wnd is min_RTT / 4 (capped at
//! SRTT) until reordering is seen, except that it is 0 in a recovery and once
//! DupThresh segments are SACKed (RFC 8985 6.2 step 4). With
//! `adaptive_reordering`, the window is Linux's instead
//! ([`super::reordering`]): gated by the reordering events the degree's
//! detection counts, and widened in steps by D-SACKs.
//!
//! The tail loss probe: in the Open state with data in flight, a probe timer
//! of 2 SRTT (plus 200 ms, the worst-case delayed ACK, when one segment is
//! in flight; 1 s before any RTT sample; never after the RTO) sends one
//! segment of new data, or if there is none retransmits the last segment,
//! whatever cwnd says, so that a loss at the tail of a flight is detected
//! by RACK on the probe's ACK rather than by the RTO. One probe per episode;
//! a retransmitted probe whose ACK goes beyond it repaired a loss and the
//! window is reduced as for one (Linux's `tcp_process_tlp_ack`); its pure
//! duplicate ACK means both arrived and nothing is reduced.

use std::collections::VecDeque;

use super::reordering::Reordering;
use crate::time::{SimDuration, SimTime};

/// One segment in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seg {
    start: u64,
    end: u64,
    /// When it was last sent.
    xmit: SimTime,
    sacked: bool,
    lost: bool,
    /// Its latest retransmission is in flight.
    retrans: bool,
}

impl Seg {
    fn len(&self) -> u64 {
        self.end - self.start
    }

    /// Counted in pipe: not SACKed, and either never found lost or
    /// retransmitted since.
    fn in_flight(&self) -> bool {
        !self.sacked && (!self.lost || self.retrans)
    }
}

/// The worst-case delayed ACK that a probe for a single segment waits for.
const WC_DEL_ACK: SimDuration = SimDuration::from_millis(200);

#[derive(Clone, Debug, Default)]
pub struct Rack {
    segs: VecDeque<Seg>,
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent delivered
    /// segment; RACK.rtt: its RTT.
    xmit: Option<SimTime>,
    end_seq: u64,
    rtt: SimDuration,
    /// The highest end of a delivered segment, and whether a segment was
    /// ever delivered below it without having been retransmitted.
    fack: u64,
    reord: bool,
    sacked_segs: u32,
    /// When the most recently sent segment the ACK being processed
    /// delivered was sent (for the reordering window's rounds; ZERO: none,
    /// or only the first flight, which Linux's round ignores too).
    ack_newest: SimTime,
    /// The last detection marked a segment lost.
    pub newly_lost: bool,
    /// RACK.rtt as Linux takes it ([`Rack::set_linux_rtt`]), and the RTTs
    /// of the ACK being processed: of its last cumulatively acknowledged
    /// segment, and of its highest newly SACKed one (with that one's end).
    linux_rtt: bool,
    cum_rtt: Option<SimDuration>,
    sack_rtt: Option<(u64, SimDuration)>,
    reo_deadline: Option<SimTime>,
    /// The tail loss probe: on, its timer, and the episode in progress
    /// (TLP.end_seq, and whether the probe was a retransmission).
    tlp: bool,
    pto_deadline: Option<SimTime>,
    tlp_end: Option<u64>,
    tlp_retrans: bool,
}

/// What a probe timer asks the sender to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fired {
    /// The reordering timer: detect losses again.
    Reorder,
    /// The probe timer: send a probe.
    Probe,
}

impl Rack {
    pub fn new(tlp: bool) -> Box<Rack> {
        Box::new(Rack {
            tlp,
            ..Rack::default()
        })
    }

    /// RACK.rtt from the last segment an ACK delivers in Linux's order, not
    /// from the most recently sent one (RFC 8985 6.2 step 2). Linux's
    /// `tcp_rack_advance` sets `rack.rtt_us` for every segment it is given
    /// (and moves `rack.mstamp` only forward), first for the newly SACKed
    /// ones in sequence order (`tcp_sacktag_write_queue`), then for the
    /// cumulatively acknowledged ones in sequence order
    /// (`tcp_clean_rtx_queue`). When an ACK delivers a retransmission and
    /// an original sent before it, RACK.rtt is the original's, longer.
    pub fn set_linux_rtt(&mut self, on: bool) {
        self.linux_rtt = on;
    }

    /// The earlier of its two timers.
    pub fn deadline(&self) -> Option<SimTime> {
        match (self.reo_deadline, self.pto_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Which timer is due at `now`, the reordering timer first; it is
    /// disarmed.
    pub fn take_due(&mut self, now: SimTime) -> Option<Fired> {
        if self.reo_deadline.is_some_and(|d| d <= now) {
            self.reo_deadline = None;
            return Some(Fired::Reorder);
        }
        if self.pto_deadline.is_some_and(|d| d <= now) {
            self.pto_deadline = None;
            return Some(Fired::Probe);
        }
        None
    }

    /// A segment [seq, end) was sent (`retx`: again).
    pub fn on_sent(&mut self, now: SimTime, seq: u64, end: u64, retx: bool) {
        if !retx {
            if self.segs.back().is_none_or(|s| s.end <= seq) {
                self.segs.push_back(Seg {
                    start: seq,
                    end,
                    xmit: now,
                    sacked: false,
                    lost: false,
                    retrans: false,
                });
            }
            return;
        }
        let first = self.segs.partition_point(|s| s.end <= seq);
        for s in self.segs.range_mut(first..) {
            if s.start >= end {
                break;
            }
            s.xmit = now;
            s.retrans = true;
        }
    }

    /// An ACK up to `ack` with these SACK blocks, before the recovery
    /// acts on it: forgets what is cumulatively acknowledged, marks what is
    /// newly SACKed, and takes RACK.xmit_ts and RACK.rtt from the most
    /// recently sent segment among those newly delivered.
    pub fn on_ack(
        &mut self,
        now: SimTime,
        ack: u64,
        blocks: &[(u64, u64)],
        min_rtt: Option<SimDuration>,
    ) {
        self.ack_newest = SimTime::ZERO;
        self.cum_rtt = None;
        self.sack_rtt = None;
        while let Some(s) = self.segs.front().copied() {
            if s.end > ack {
                if s.start < ack {
                    self.segs[0].start = ack;
                }
                break;
            }
            self.segs.pop_front();
            if s.sacked {
                self.sacked_segs -= 1;
            } else {
                self.delivered(now, &s, min_rtt, true);
            }
        }
        for &(a, b) in blocks {
            let first = self.segs.partition_point(|s| s.end <= a);
            for i in first..self.segs.len() {
                let s = self.segs[i];
                if s.start >= b {
                    break;
                }
                if !s.sacked && s.start >= a && s.end <= b {
                    self.segs[i].sacked = true;
                    self.sacked_segs += 1;
                    self.delivered(now, &s, min_rtt, false);
                }
            }
        }
        if self.linux_rtt {
            self.linux_rtt_done();
        }
    }

    /// The end of an ACK under [`Rack::set_linux_rtt`]: RACK.rtt is the last
    /// cumulatively acknowledged segment's, else the highest newly SACKed
    /// one's. Kept out of line, off the path of flows without it.
    #[inline(never)]
    fn linux_rtt_done(&mut self) {
        if let Some(rtt) = self.cum_rtt.or(self.sack_rtt.map(|(_, r)| r)) {
            self.rtt = rtt;
        }
    }

    #[inline(never)]
    fn linux_rtt_seen(&mut self, cum: bool, end: u64, rtt: SimDuration) {
        if cum {
            self.cum_rtt = Some(rtt);
        } else if self.sack_rtt.is_none_or(|(e, _)| end > e) {
            self.sack_rtt = Some((end, rtt));
        }
    }

    /// RFC 8985 6.2 steps 2 and 3 for one newly delivered segment
    /// (`cum`: cumulatively acknowledged, else SACKed).
    fn delivered(&mut self, now: SimTime, s: &Seg, min_rtt: Option<SimDuration>, cum: bool) {
        let rtt = now - s.xmit;
        self.ack_newest = self.ack_newest.max(s.xmit);
        if s.retrans {
            // The ACK may be for the original transmission: an RTT below
            // the smallest ever says so (Linux's tcp_rack_advance). RFC
            // 8985 also compares TSecr with the retransmission's time, but
            // a receiver echoes the last in-order segment's timestamp (RFC
            // 7323 4.3), so a SACKed retransmission would always fail it.
            if min_rtt.is_some_and(|m| rtt < m) {
                return;
            }
        } else if s.end < self.fack {
            self.reord = true;
        }
        self.fack = self.fack.max(s.end);
        let after = match self.xmit {
            None => true,
            Some(x) => s.xmit > x || (s.xmit == x && s.end > self.end_seq),
        };
        if after {
            self.xmit = Some(s.xmit);
            self.end_seq = s.end;
            self.rtt = rtt;
        }
        if self.linux_rtt {
            self.linux_rtt_seen(cum, s.end, rtt);
        }
    }

    /// RFC 8985 6.2 steps 4 and 5: marks lost what was sent before RACK's
    /// segment more than RACK.rtt + reo_wnd ago; arms the reordering timer
    /// for the rest. `in_recovery`: fast or RTO recovery; `reo`: Linux's
    /// adaptive window, with `adaptive_reordering`.
    pub fn detect_loss(
        &mut self,
        now: SimTime,
        in_recovery: bool,
        dupthresh: u32,
        min_rtt: Option<SimDuration>,
        srtt: Option<SimDuration>,
        reo: Option<&Reordering>,
    ) {
        self.newly_lost = false;
        self.reo_deadline = None;
        let Some(rack_xmit) = self.xmit else { return };
        let reo_wnd = if let Some(o) = reo {
            o.rack_reo_wnd(in_recovery, self.sacked_segs, dupthresh, min_rtt, srtt)
        } else if !self.reord && (in_recovery || self.sacked_segs >= dupthresh) {
            SimDuration::ZERO
        } else {
            let quarter = SimDuration::from_nanos(min_rtt.unwrap_or_default().as_nanos() / 4);
            srtt.map_or(quarter, |s| quarter.min(s))
        };
        let mut wait = SimDuration::ZERO;
        for s in self.segs.iter_mut() {
            if s.sacked || (s.lost && !s.retrans) {
                continue;
            }
            let before = s.xmit < rack_xmit || (s.xmit == rack_xmit && s.end < self.end_seq);
            if !before {
                continue;
            }
            let due = s.xmit + self.rtt + reo_wnd;
            if due <= now {
                s.lost = true;
                s.retrans = false;
                self.newly_lost = true;
            } else {
                wait = wait.max(due - now);
            }
        }
        if !wait.is_zero() {
            self.reo_deadline = Some(now + wait);
        }
    }

    /// When the most recently sent segment the last ACK delivered was sent.
    pub fn newest_delivered(&self) -> Option<SimTime> {
        (self.ack_newest > SimTime::ZERO).then_some(self.ack_newest)
    }

    /// The end of the loss probe in progress (Linux's `tlp_high_seq`).
    pub fn probe_end(&self) -> Option<u64> {
        self.tlp_end
    }

    /// The segments marked lost and not retransmitted nor SACKed since.
    pub fn lost_ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.segs
            .iter()
            .filter(|s| s.lost && !s.retrans && !s.sacked)
            .map(|s| (s.start, s.end))
    }

    /// Some segment is marked lost and not retransmitted since.
    pub fn has_lost(&self) -> bool {
        self.segs.iter().any(|s| s.lost && !s.retrans && !s.sacked)
    }

    /// Bytes marked lost and not SACKed since (Linux's `lost_out`), and
    /// of those the bytes whose retransmission is in flight (`retrans_out`).
    pub fn lost_and_retrans(&self) -> (u64, u64) {
        self.segs
            .iter()
            .filter(|s| s.lost && !s.sacked)
            .fold((0, 0), |(l, r), s| {
                (l + s.len(), r + if s.retrans { s.len() } else { 0 })
            })
    }

    /// The first segment marked lost and not retransmitted since, at or
    /// above `from`.
    pub fn next_lost(&self, from: u64) -> Option<u64> {
        let first = self.segs.partition_point(|s| s.end <= from);
        self.segs
            .range(first..)
            .find(|s| s.lost && !s.retrans && !s.sacked)
            .map(|s| s.start.max(from))
    }

    /// The bytes in flight: segments neither SACKed nor lost, and
    /// retransmissions of lost ones.
    pub fn pipe(&self) -> u64 {
        self.segs
            .iter()
            .filter(|s| s.in_flight())
            .map(Seg::len)
            .sum()
    }

    /// The last segment not SACKed, for a probe that retransmits.
    pub fn last_unsacked(&self) -> Option<u64> {
        self.segs.iter().rev().find(|s| !s.sacked).map(|s| s.start)
    }

    /// The retransmission timer fired: everything not SACKed is lost (the
    /// sender goes back to snd_una); the probe episode ends.
    pub fn on_timeout(&mut self) {
        for s in self.segs.iter_mut().filter(|s| !s.sacked) {
            s.lost = true;
            s.retrans = false;
        }
        self.reo_deadline = None;
        self.pto_deadline = None;
        self.tlp_end = None;
    }

    // ---- the tail loss probe ----------------------------------------------

    /// Arms the probe timer if a probe may be sent (RFC 8985 7.2): on, in
    /// the Open state, data in flight, no episode in progress; PTO = 2 SRTT
    /// (+ the worst-case delayed ACK for one segment in flight; 1 s
    /// without SRTT), never after the RTO. Otherwise disarms it.
    pub fn schedule_probe(
        &mut self,
        now: SimTime,
        open: bool,
        flight: u64,
        mss: u64,
        srtt: Option<SimDuration>,
        rto_deadline: Option<SimTime>,
    ) {
        self.pto_deadline = None;
        if !self.tlp || !open || flight == 0 || self.tlp_end.is_some() {
            return;
        }
        let mut pto = match srtt {
            Some(s) => s + s,
            None => SimDuration::from_secs(1),
        };
        if flight <= mss {
            pto = pto + WC_DEL_ACK;
        }
        let mut at = now + pto;
        if let Some(rto) = rto_deadline {
            at = at.min(rto);
        }
        self.pto_deadline = Some(at);
    }

    /// A probe was sent; the episode lasts until `end` is acknowledged.
    pub fn probe_sent(&mut self, end: u64, retrans: bool) {
        self.tlp_end = Some(end);
        self.tlp_retrans = retrans;
    }

    /// RFC 8985 7.4 (as Linux's `tcp_process_tlp_ack`, without DSACK): on
    /// an ACK up to `ack`; returns true when the retransmitted probe
    /// repaired a loss, so that the window is reduced.
    pub fn probe_acked(&mut self, ack: u64, advanced: bool, new_sack: bool) -> bool {
        let Some(end) = self.tlp_end else {
            return false;
        };
        if ack < end {
            return false;
        }
        if !self.tlp_retrans {
            self.tlp_end = None;
        } else if ack > end {
            self.tlp_end = None;
            return true;
        } else if !advanced && !new_sack {
            // A pure duplicate: the original and the probe both arrived.
            self.tlp_end = None;
        }
        false
    }

    /// A recovery or a timeout ends the probe episode.
    pub fn end_episode(&mut self) {
        self.tlp_end = None;
        self.pto_deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1000;

    fn t(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// Segments 0..n of 1000 B sent 1 ms apart from t = 0.
    fn sent(n: u64) -> Box<Rack> {
        let mut r = Rack::new(true);
        for k in 0..n {
            r.on_sent(t(k), k * M, (k + 1) * M, false);
        }
        r
    }

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_after_rack_rtt_plus_the_window() {
        // Segment 0 lost; segment 1 SACKed at 101 ms: RACK.rtt = 100 ms.
        // reo_wnd = min_rtt / 4 = 25 ms (1 SACK < DupThresh): segment 0 is
        // lost at 0 + 100 + 25 = 125 ms; the timer waits until then.
        let mut r = sent(5);
        let min = Some(SimDuration::from_millis(100));
        r.on_ack(t(101), 0, &[(M, 2 * M)], min);
        r.detect_loss(t(101), false, 3, min, min, None);
        assert!(!r.has_lost());
        assert_eq!(r.deadline(), Some(t(125)));
        r.detect_loss(t(125), false, 3, min, min, None);
        assert!(r.newly_lost && r.has_lost());
        assert_eq!(r.next_lost(0), Some(0));
        // pipe: 2, 3, 4 in flight; 0 lost, 1 SACKed.
        assert_eq!(r.pipe(), 3 * M);
        // With DupThresh segments SACKed, reo_wnd = 0: lost at once.
        let mut r = sent(5);
        r.on_ack(t(103), 0, &[(M, 4 * M)], min);
        r.detect_loss(t(103), false, 3, min, min, None);
        assert!(r.has_lost());
    }

    #[test]
    fn with_adaptive_reordering_the_window_is_linux_s_in_steps_of_a_quarter_min_rtt() {
        // As above: segment 1 SACKed at 101 ms, RACK.rtt = 100 ms. One step
        // (nothing seen, 1 SACK < DupThresh) is RFC 8985's 25 ms: lost at
        // 125 ms.
        let min = Some(SimDuration::from_millis(100));
        let mut o = Reordering::new(3);
        let mut r = sent(5);
        r.on_ack(t(101), 0, &[(M, 2 * M)], min);
        assert_eq!(r.newest_delivered(), Some(t(1)));
        r.detect_loss(t(101), false, 3, min, min, Some(&o));
        assert_eq!(r.deadline(), Some(t(125)));
        // Reordering seen, then a D-SACK in a round trip: two steps, 50 ms.
        o.check(3, 0, 4 * M, M);
        o.on_dsack(M, M, 1, false);
        o.update_reo_wnd(t(101), r.newest_delivered());
        assert_eq!(o.steps, 2);
        r.detect_loss(t(101), false, 3, min, min, Some(&o));
        assert_eq!(r.deadline(), Some(t(150)));
        // Linux's window stays open in a recovery once reordering is seen;
        // before any is, it is 0 in a recovery (segment 0 is lost now).
        r.detect_loss(t(101), true, 3, min, min, Some(&o));
        assert_eq!(r.deadline(), Some(t(150)));
        let fresh = Reordering::new(3);
        r.detect_loss(t(101), true, 3, min, min, Some(&fresh));
        assert!(r.has_lost());
    }

    #[test]
    fn linux_takes_rack_rtt_from_the_last_segment_it_processes() {
        // prr-ss-ack-below-snd_una-cubic's shape: 0..5 sent at 0-4 ms; 1
        // SACKed; 0 retransmitted at 120 ms; at 130 ms an ACK of 3000
        // delivers the retransmission (RTT 10 ms, not below min_rtt) and
        // segment 2, never retransmitted (RTT 128 ms). RFC 8985 takes
        // RACK.rtt from the most recently sent, the retransmission: 10 ms.
        // Linux sets it for each cumulatively acknowledged segment in
        // sequence order, so segment 2's 128 ms is last. RACK.xmit_ts is the
        // retransmission's in both.
        let min = Some(SimDuration::from_millis(10));
        for linux in [false, true] {
            let mut r = sent(5);
            r.set_linux_rtt(linux);
            r.on_ack(t(101), 0, &[(M, 2 * M)], min);
            r.on_sent(t(120), 0, M, true);
            r.on_ack(t(130), 3 * M, &[], min);
            assert_eq!(r.newest_delivered(), Some(t(120)));
            // Segments 3 and 4 were sent before the retransmission: with
            // reo_wnd 0 (recovery), lost once RACK.rtt has passed since.
            r.detect_loss(t(130), true, 3, min, min, None);
            if linux {
                assert_eq!(r.rtt, SimDuration::from_millis(128));
                assert!(!r.has_lost());
                assert_eq!(r.deadline(), Some(t(4 + 128)));
            } else {
                assert_eq!(r.rtt, SimDuration::from_millis(10));
                assert_eq!(r.next_lost(0), Some(3 * M));
            }
        }
        // With only SACKs, Linux's RACK.rtt is the highest newly SACKed
        // segment's: 4 (sent at 4 ms) before 3 (at 3 ms) in the ACK's order
        // of blocks makes no difference.
        let mut r = sent(5);
        r.set_linux_rtt(true);
        r.on_ack(t(50), 0, &[(4 * M, 5 * M), (3 * M, 4 * M)], min);
        assert_eq!(r.rtt, SimDuration::from_millis(46));
    }

    #[test]
    fn a_lost_retransmission_is_found_by_the_segments_sent_after_it() {
        // 0 lost, retransmitted at 130 ms and lost again; 5 (new data) sent
        // at 131 ms and SACKed at 231: RACK.xmit = 131, rtt 100 ms, reo_wnd
        // 0 in recovery: the retransmission (sent at 130 <= 131) is lost
        // again at 230 ms or later.
        let mut r = sent(5);
        let min = Some(SimDuration::from_millis(100));
        r.on_ack(t(104), 0, &[(M, 5 * M)], min);
        r.detect_loss(t(104), true, 3, min, min, None);
        assert_eq!(r.next_lost(0), Some(0));
        r.on_sent(t(130), 0, M, true);
        assert!(!r.has_lost());
        assert_eq!(r.pipe(), M);
        r.on_sent(t(131), 5 * M, 6 * M, false);
        r.on_ack(t(231), 0, &[(M, 6 * M)], min);
        r.detect_loss(t(231), true, 3, min, min, None);
        assert_eq!(r.next_lost(0), Some(0));
        assert_eq!(r.pipe(), 0);
    }

    #[test]
    fn an_ack_too_soon_after_a_retransmission_does_not_time_it() {
        let mut r = sent(2);
        let min = Some(SimDuration::from_millis(100));
        r.on_sent(t(50), 0, M, true);
        // 50 ms after the retransmission, below the 100-ms minimum RTT: the
        // ACK is the original's; RACK keeps no sample from it.
        r.on_ack(t(100), M, &[], min);
        assert_eq!(r.xmit, None);
        // A SACK of the other segment one RTT after its send does count.
        r.on_ack(t(101), M, &[(M, 2 * M)], min);
        assert_eq!(r.xmit, Some(t(1)));
    }

    #[test]
    fn the_probe_waits_two_srtt_and_more_for_a_single_segment() {
        let mut r = sent(3);
        let srtt = Some(SimDuration::from_millis(100));
        r.schedule_probe(t(10), true, 3 * M, M, srtt, Some(t(1000)));
        assert_eq!(r.deadline(), Some(t(210)));
        r.schedule_probe(t(10), true, M, M, srtt, Some(t(1000)));
        assert_eq!(r.deadline(), Some(t(410)));
        // Never after the RTO; not in recovery; one probe per episode.
        r.schedule_probe(t(10), true, M, M, srtt, Some(t(300)));
        assert_eq!(r.deadline(), Some(t(300)));
        r.schedule_probe(t(10), false, M, M, srtt, Some(t(300)));
        assert_eq!(r.deadline(), None);
        r.probe_sent(3 * M, true);
        r.schedule_probe(t(10), true, M, M, srtt, Some(t(300)));
        assert_eq!(r.deadline(), None);
    }

    #[test]
    fn a_retransmitted_probe_repaired_a_loss_if_the_ack_goes_beyond_it() {
        let mut r = Rack::new(true);
        r.probe_sent(3 * M, true);
        assert!(!r.probe_acked(2 * M, true, false));
        assert!(r.probe_acked(4 * M, true, false));
        assert_eq!(r.tlp_end, None);
        // A pure duplicate at the probe's end: both arrived, no reduction.
        r.probe_sent(3 * M, true);
        assert!(!r.probe_acked(3 * M, false, false));
        assert_eq!(r.tlp_end, None);
        // A new-data probe: RACK does the rest.
        r.probe_sent(3 * M, false);
        assert!(!r.probe_acked(3 * M, true, false));
        assert_eq!(r.tlp_end, None);
    }
}
