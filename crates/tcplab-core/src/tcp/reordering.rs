// SPDX-License-Identifier: MIT OR Apache-2.0
//! Linux's adaptive reordering degree, for `adaptive_reordering`: the
//! connection's DupThresh (Linux's `tp->reordering`) starts at the
//! configured value (sysctl `net.ipv4.tcp_reordering`, 3) and rises, up to
//! 300 (`net.ipv4.tcp_max_reordering`), when an ACK shows that a segment
//! was delivered out of order; and RACK's reordering window widens by one
//! step (min_RTT / 4) per round trip in which a D-SACK arrives.
//!
//! The rules, as Linux has them (`net/ipv4/tcp_input.c`,
//! `tcp_recovery.c`):
//!
//! - **Detection** (`tcp_sacktag_one`, `tcp_clean_rtx_queue`,
//!   `tcp_check_sack_reordering`). A segment never retransmitted that is
//!   newly SACKed below the highest SACKed sequence, or newly cumulatively
//!   acknowledged while segments above it were SACKed, was passed by those
//!   above it; so was a retransmitted segment whose D-SACK shows its
//!   original already SACKed. With `low` the lowest such segment's start
//!   and `fack` the highest SACKed sequence after the ACK (snd_una when
//!   nothing above it is SACKed), the event is counted (`reord_seen`) and,
//!   when `fack - low` exceeds the degree in segments, the degree becomes
//!   `ceil((fack - low) / mss)`, at most 300.
//! - **A delayed hole** (`tcp_try_undo_partial`): in a recovery, a partial
//!   ACK whose timestamp echo is older than the episode's first
//!   retransmission was sent for the original segment: the same check, from
//!   the cumulative ACK before it.
//! - **Never lowered**, except by a timeout in the Open or Disorder state
//!   with at least `tcp_reordering` segments SACKed (`tcp_enter_loss`):
//!   the degree then returns to at most the configured value.
//! - **RACK's window** (`tcp_rack_reo_wnd`, `tcp_rack_update_reo_wnd`):
//!   `min(min_RTT / 4 * steps, SRTT)`, and 0 when no reordering was ever
//!   seen and the connection is in a recovery or has `degree` segments
//!   SACKed. A D-SACK of a retransmitted segment (`tcp_dsack_seen`: not
//!   more D-SACKed segments than were ever retransmitted, not the tail loss
//!   probe's), once reordering has been seen, adds a step (at most 255) on
//!   the first ACK that delivers a segment sent after the last step; the
//!   widened window lasts 16 recoveries (`TCP_RACK_RECOVERY_THRESH`) after
//!   the last D-SACK, then the steps return to 1.
//!
//! RFC 8985 differs from Linux: its reordering flag is set by a segment
//! delivered below RACK.fack (not by the degree's detection), its D-SACK
//! rounds end when snd_una passes the snd_nxt of the last step, it counts
//! every D-SACK (reordering seen or not, probes included), and its
//! DupThresh stays 3.

use super::scoreboard::Scoreboard;
use crate::time::{SimDuration, SimTime};

/// Linux's sysctl `net.ipv4.tcp_max_reordering`: the degree's ceiling.
pub const MAX_REORDERING: u16 = 300;
/// Linux's `TCP_RACK_RECOVERY_THRESH`: how many recoveries a widened
/// reordering window lasts.
pub const RECOVERY_THRESH: u8 = 16;
/// The reordering window's largest multiplier (`reo_wnd_steps` is a u8).
pub const MAX_STEPS: u8 = 0xFF;

/// The adaptive reordering state of one connection (cold: touched per ACK
/// only when on). The degree itself is the connection's DupThresh.
#[derive(Clone, Debug)]
pub struct Reordering {
    /// The configured DupThresh (sysctl `tcp_reordering`).
    pub initial: u16,
    /// Reordering events detected (`tp->reord_seen`).
    pub seen: u32,
    /// RACK's reordering window, in steps of min_RTT / 4
    /// (`tp->rack.reo_wnd_steps`).
    pub steps: u8,
    /// Recoveries the widened window still lasts (`reo_wnd_persist`).
    persist: u8,
    /// A D-SACK awaits its step (`tp->rack.dsack_seen`).
    dsack_seen: bool,
    /// When the window last widened (Linux compares delivery counts,
    /// `rack.last_delivered`; a segment sent after this instant is one
    /// sent after it).
    widened_at: Option<SimTime>,
    /// D-SACKed segments so far (`tp->dsack_dups`).
    dsack_dups: u64,
    /// Ranges retransmitted above snd_una (Linux's `TCPCB_EVER_RETRANS`).
    retx: Scoreboard,
    /// When the first retransmission since the connection was last without
    /// one outstanding was sent (`tp->retrans_stamp`), in TSval units
    /// (nanoseconds).
    retrans_stamp: Option<u64>,
    /// As the last ACK left the connection: Open or Disorder with at least
    /// `initial` segments SACKed (what a timeout asks), and the timeouts
    /// counted then.
    open_sacked: bool,
    timeouts: u32,
}

impl Reordering {
    pub fn new(initial: u16) -> Box<Reordering> {
        Box::new(Reordering {
            initial,
            seen: 0,
            steps: 1,
            persist: 0,
            dsack_seen: false,
            widened_at: None,
            dsack_dups: 0,
            retx: Scoreboard::default(),
            retrans_stamp: None,
            open_sacked: false,
            timeouts: 0,
        })
    }

    /// Linux's `tcp_check_sack_reordering`: the segment starting at `low`
    /// was delivered out of order while `fack` was the highest SACKed
    /// sequence; returns the degree, raised from `degree` if `fack - low`
    /// is more than `degree` segments of `mss` bytes.
    pub fn check(&mut self, degree: u16, low: u64, fack: u64, mss: u64) -> u16 {
        if low >= fack {
            return degree;
        }
        self.seen += 1;
        let metric = fack - low;
        if mss > 0 && metric > u64::from(degree) * mss {
            metric.div_ceil(mss).min(u64::from(MAX_REORDERING)) as u16
        } else {
            degree
        }
    }

    /// A segment [start, end) was retransmitted at `ts` (its TSval) while
    /// snd_una was `una`.
    pub fn on_retransmit(&mut self, una: u64, start: u64, end: u64, ts: u64) {
        self.retx.advance(una);
        self.retx.add(start, end);
        self.retrans_stamp.get_or_insert(ts);
    }

    /// The lowest sequence number in [from, to) neither in `sacked` nor ever
    /// retransmitted: where a segment delivered out of order starts.
    pub fn lowest_fresh(&self, sacked: &Scoreboard, from: u64, to: u64) -> Option<u64> {
        let mut x = from;
        while x < to {
            match sacked.sacked_until(x).or_else(|| self.retx.sacked_until(x)) {
                Some(end) => x = end,
                None => return Some(x),
            }
        }
        None
    }

    /// Whether `seq` was ever retransmitted (and is above snd_una).
    pub fn retransmitted(&self, seq: u64) -> bool {
        self.retx.is_sacked(seq)
    }

    /// Linux's `tcp_packet_delayed`: an ACK echoing `ts_ecr` was sent for a
    /// segment older than the first retransmission.
    pub fn delayed(&self, ts_ecr: u64) -> bool {
        ts_ecr > 0 && self.retrans_stamp.is_some_and(|t| ts_ecr < t)
    }

    /// Linux's `tcp_dsack_seen`: a D-SACK of `len` bytes arrived; `retrans`:
    /// segments ever retransmitted; `probe`: it is for the tail loss probe.
    /// Returns whether it counts (a retransmission was duplicated).
    pub fn on_dsack(&mut self, len: u64, mss: u64, retrans: u64, probe: bool) -> bool {
        if len == 0 {
            return false;
        }
        let (dups, probe) = if len > mss {
            (len.div_ceil(mss.max(1)), false)
        } else {
            (1, probe)
        };
        self.dsack_dups += dups;
        if self.dsack_dups > retrans {
            return false;
        }
        if self.seen > 0 && !probe {
            self.dsack_seen = true;
        }
        true
    }

    /// Linux's `tcp_rack_update_reo_wnd`, on each ACK: `newest`, when the
    /// most recently sent segment this ACK delivered was sent (none if it
    /// delivered nothing).
    pub fn update_reo_wnd(&mut self, now: SimTime, newest: Option<SimTime>) {
        let Some(sent) = newest else { return };
        if self.widened_at.is_some_and(|w| sent < w) {
            // Less than a round trip since the last step.
            self.dsack_seen = false;
        }
        if self.dsack_seen {
            // (A u8: it stops at MAX_STEPS.)
            self.steps = self.steps.saturating_add(1);
            self.dsack_seen = false;
            self.widened_at = Some(now);
            self.persist = RECOVERY_THRESH;
        } else if self.persist == 0 {
            self.steps = 1;
        }
    }

    /// A recovery (fast or after a timeout) ended; `undone`: its reduction
    /// was undone (Linux's `tcp_try_undo_recovery` counts only the others).
    pub fn recovery_ended(&mut self, undone: bool) {
        if !undone {
            self.persist = self.persist.saturating_sub(1);
        }
    }

    /// Outside a recovery, once no retransmission is outstanding above
    /// `una`, the next retransmission starts a new episode (Linux clears
    /// `retrans_stamp` in the Open state; a retransmission still in flight
    /// keeps it, as `tcp_any_retrans_done` does).
    pub fn settled(&mut self, una: u64) {
        if self.retrans_stamp.is_none() {
            return;
        }
        self.retx.advance(una);
        if self.retx.is_empty() {
            self.retrans_stamp = None;
        }
    }

    /// A D-SACK undid a recovery (`tcp_try_undo_dsack`): the widened window
    /// lasts one recovery more.
    pub fn dsack_undo(&mut self) {
        self.persist = (self.persist + 1).min(RECOVERY_THRESH);
    }

    /// RACK's reordering window (Linux's `tcp_rack_reo_wnd`): 0 before any
    /// reordering is seen in a recovery or with `degree` segments SACKed,
    /// else `steps` quarters of min_RTT, at most SRTT.
    pub fn rack_reo_wnd(
        &self,
        in_recovery: bool,
        sacked_segs: u32,
        degree: u32,
        min_rtt: Option<SimDuration>,
        srtt: Option<SimDuration>,
    ) -> SimDuration {
        if self.seen == 0 && (in_recovery || sacked_segs >= degree) {
            return SimDuration::ZERO;
        }
        let quarter = min_rtt.unwrap_or_default().as_nanos() / 4;
        let wnd = SimDuration::from_nanos(quarter.saturating_mul(u64::from(self.steps)));
        srtt.map_or(wnd, |s| wnd.min(s))
    }

    /// After each ACK: how it left the connection, for a timeout before the
    /// next (`open_sacked`: Open or Disorder with at least the configured
    /// DupThresh of segments SACKed), and the timeouts counted so far.
    pub fn after_ack(&mut self, open_sacked: bool, timeouts: u32) {
        self.open_sacked = open_sacked;
        self.timeouts = timeouts;
    }

    /// Before an ACK: if a timeout came since the last one and found the
    /// connection Open or Disorder with many segments SACKed, the degree
    /// was overestimated (`tcp_enter_loss`): it returns to at most the
    /// configured value.
    pub fn after_timeouts(&mut self, degree: u16, timeouts: u32) -> u16 {
        let reset = timeouts != self.timeouts && self.open_sacked;
        self.timeouts = timeouts;
        self.open_sacked = false;
        if reset {
            degree.min(self.initial)
        } else {
            degree
        }
    }
}

#[cfg(test)]
mod tests;
