// SPDX-License-Identifier: MIT OR Apache-2.0
//! The persist timer (RFC 9293 3.8.6.1; Linux's zero-window probes,
//! `tcp_check_probe_timer`, `tcp_probe_timer`, `tcp_send_probe0`).
//!
//! When the peer's window cannot take the next segment and nothing is in
//! flight, no ACK will come to open it unless the sender asks: the
//! retransmission timer's slot is armed at the RTO, and when it fires with
//! nothing outstanding the sender sends a window probe, Linux's
//! `tcp_xmit_probe_skb`: an ACK with sequence number snd_una - 1 and no
//! data, which the peer answers with its window. Each probe backs the
//! timer off (Linux's `icsk_backoff`, shared with the RTO; at most
//! `max_rto`). An ACK that opens the window lets data go as usual. A
//! simulated receiver's application reads at once, so only a driven peer
//! (the packetdrill runner) closes the window.

use super::{Sender, SndState};
use crate::tcp::{TcpHeader, ACK};
use crate::time::SimTime;

impl Sender {
    /// The peer's window holds the sender back with nothing in flight and
    /// data to send.
    pub(super) fn window_stalled(&self) -> bool {
        let c = &self.c;
        let seq = c.tcb.snd_nxt;
        c.state == SndState::Established
            && c.tcb.snd_una == c.tcb.snd_max
            && seq < c.data_end
            && c.rwnd < c.segment_end(seq) - seq
    }

    /// Arms the persist timer if the window stalls the sender (the
    /// retransmission timer's slot, idle then).
    #[inline]
    pub(super) fn check_persist(&mut self, now: SimTime) {
        if self.c.rto_deadline.is_none() && self.window_stalled() {
            self.c.arm_rto(now);
        }
    }

    /// The persist timer fired: a window probe, and the timer again,
    /// backed off.
    pub(super) fn window_probe(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let c = &mut self.c;
        let probe = c.header(now, c.tcb.snd_una - 1, ACK, 0);
        c.stats.segments_sent += 1;
        out.push(probe);
        c.rtt.back_off();
        c.arm_rto(now);
    }
}
