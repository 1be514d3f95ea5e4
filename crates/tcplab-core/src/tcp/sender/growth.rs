// SPDX-License-Identifier: MIT OR Apache-2.0
//! Linux's window growth (`cwnd_growth = "linux"`): when an ACK may grow
//! the window, and by how much.
//!
//! - **Only while the window is used.** Linux's modules grow cwnd only if
//!   `tcp_is_cwnd_limited`: the sender was cwnd-limited when it last
//!   stopped sending (`tcp_write_xmit`: packets in flight >= cwnd), or, in
//!   slow start, cwnd is below twice the most segments that were in flight
//!   (`max_packets_out`). `tcp_cwnd_validate` keeps these once per window:
//!   a new window (snd_una past `cwnd_usage_seq`), a cwnd-limited send, or
//!   more in flight than before while not cwnd-limited starts them again.
//! - **By what the ACK newly delivered** (`acked_sacked`, the
//!   `tcp_cong_avoid` argument): segments cumulatively acknowledged or
//!   SACKed by this ACK, less those SACKed before it. Without SACK each
//!   duplicate ACK stood for one delivered segment (`tcp_add_reno_sack`),
//!   so the ACK that ends them counts max(acked - dupacks, 1)
//!   (`tcp_remove_reno_sacks`).

use super::conn::Conn;
use crate::tcp::CwndGrowth;

/// What `tcp_cwnd_validate` keeps (a connection's cold state: touched
/// once per send and per ACK, only with `cwnd_growth = "linux"`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CwndUse {
    /// The last send stopped at cwnd (`is_cwnd_limited`).
    pub(super) limited: bool,
    /// The most bytes in flight in the current window (`max_packets_out`).
    max_out: u64,
    /// Where the current window ends (`cwnd_usage_seq`).
    usage_seq: u64,
}

impl CwndUse {
    /// The state Linux's growth needs, when `growth` asks for it.
    pub fn for_growth(growth: CwndGrowth) -> Option<Box<CwndUse>> {
        (growth == CwndGrowth::Linux).then(Box::default)
    }
}

impl Conn {
    /// After sending (`tcp_cwnd_validate`, called at the end of
    /// `tcp_write_xmit`).
    #[inline]
    pub(super) fn cwnd_validate(&mut self) {
        let in_flight = self.tcb.bytes_in_flight();
        let limited = in_flight + self.mss() > self.tcb.cwnd;
        let (una, nxt) = (self.tcb.snd_una, self.tcb.snd_nxt);
        let Some(u) = self.cwnd_use.as_deref_mut() else {
            return;
        };
        if una >= u.usage_seq || limited || (!u.limited && in_flight > u.max_out) {
            u.limited = limited;
            u.max_out = in_flight;
            u.usage_seq = nxt;
        }
    }

    /// Whether this ACK may grow the window (`tcp_is_cwnd_limited`); always
    /// without Linux's growth.
    #[inline]
    pub(super) fn may_grow(&self) -> bool {
        match self.cwnd_use.as_deref() {
            None => true,
            Some(u) => u.limited || (self.tcb.in_slow_start() && self.tcb.cwnd < 2 * u.max_out),
        }
    }

    /// The segments this ACK grows the window by: `acked` bytes
    /// cumulatively acknowledged, `sacked_before` the bytes SACKed above
    /// snd_una before it (the scoreboard has moved on by now), `dupacks`
    /// the duplicate ACKs before it.
    #[inline]
    pub(super) fn grow_segments(
        &self,
        segments: u32,
        acked: u64,
        sacked_before: u64,
        dupacks: u32,
    ) -> u32 {
        if self.cwnd_use.is_none() {
            return segments;
        }
        self.delivered_segments(segments, acked, sacked_before, dupacks)
    }

    #[cold]
    fn delivered_segments(
        &self,
        segments: u32,
        acked: u64,
        sacked_before: u64,
        dupacks: u32,
    ) -> u32 {
        let mss = self.mss();
        let delivered = if self.cfg.sack {
            (acked + self.sb.sacked_bytes())
                .saturating_sub(sacked_before)
                .div_ceil(mss)
        } else {
            (segments as u64).saturating_sub(dupacks as u64).max(1)
        };
        delivered as u32
    }
}
