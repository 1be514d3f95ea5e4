// SPDX-License-Identifier: MIT OR Apache-2.0
//! F-RTO (`frto = true`): RFC 5682 section 3, the SACK-enhanced form, as
//! Linux runs it with `net.ipv4.tcp_frto = 2` (`tcp_enter_loss`,
//! `tcp_process_loss`, `tcp_xmit_recovery` in net/ipv4/tcp_input.c).
//!
//! - Step 1: a timeout outside a recovery (or a repeated one, 3.2) starts
//!   F-RTO; the timeout retransmits the first unacknowledged segment as
//!   usual (`undo.rs`'s `undo_enter_loss` decides).
//! - Step 2: the first ACK that advances snd_una without acknowledging
//!   all that was sent before the timeout (2b) moves the recovery point
//!   (Linux's `high_seq`) to what has been sent, and the window then sends
//!   new data instead of retransmissions, if there is data and the
//!   receiver's window has room (else F-RTO ends, 2a, and going back N
//!   goes on).
//! - Step 3: an ACK or SACK of data sent before the timeout and never
//!   retransmitted (Linux's `FLAG_ORIG_SACK_ACKED`) proves the timeout
//!   spurious (3b): the reduction is undone (`tcp_try_undo_loss` with
//!   `frto_undo`) and the sender is in Open. A duplicate ACK, or a new
//!   SACK, once new data went out, shows the loss was real (3a): F-RTO
//!   ends and going back N resumes where it was.
//!
//! The timestamp and D-SACK undo of the Loss state (`tcp_try_undo_loss`
//! without `frto_undo`) run here too, first, when `undo` is on. tcplab
//! keeps no retransmitted mark per segment: "never retransmitted" is above
//! the highest retransmission since the timeout's reduction.

use super::Sender;
use crate::cc::CaState;
use crate::tcp::TcpHeader;
use crate::time::SimTime;

impl Sender {
    /// An ACK of new data in Loss (snd_una already moved to `h.ack`;
    /// `new_sack`: it SACKed data not SACKed before): whether it undid the
    /// timeout's reduction.
    pub(super) fn frto_new_ack(&mut self, now: SimTime, h: &TcpHeader, new_sack: bool) -> bool {
        let c = &mut self.c;
        let recovered = c.tcb.snd_una >= c.tcb.recover;
        if c.may_undo(h) {
            self.undo_loss(now, false);
            return true;
        }
        if !c.cold.undo.frto {
            return false;
        }
        if c.cold.undo.orig_acked {
            self.undo_loss(now, true);
            return true;
        }
        let c = &mut self.c;
        if c.tcb.snd_max > c.tcb.recover {
            if new_sack {
                c.cold.undo.frto = false; // step 3a: the loss was real
            }
        } else if !recovered {
            // Step 2b: new data, if any may go.
            c.tcb.recover = c.tcb.snd_max;
            let room = c.tcb.snd_una + c.rwnd;
            if c.tcb.snd_max < c.data_end && room > c.tcb.snd_max {
                c.cold.undo.rexmit_new = true;
            } else {
                c.cold.undo.frto = false;
            }
        }
        false
    }

    /// An ACK of no new data in Loss (`new_sack`: it SACKed data not
    /// SACKed before).
    pub(super) fn frto_old_ack(&mut self, now: SimTime, h: &TcpHeader, new_sack: bool) {
        if !self.c.cold.undo.frto {
            return;
        }
        if self.c.cold.undo.orig_acked {
            self.undo_loss(now, true);
            return;
        }
        let c = &mut self.c;
        let dup = h.len == 0 && c.tcb.snd_una < c.tcb.snd_max;
        if c.tcb.snd_max > c.tcb.recover && (new_sack || dup) {
            c.cold.undo.frto = false; // step 3a
        }
    }

    /// `tcp_try_undo_loss`: the timeout's reduction is undone, nothing
    /// more is retransmitted, and (with SACK, or proved by F-RTO) the
    /// sender is in Open.
    fn undo_loss(&mut self, now: SimTime, frto: bool) {
        let c = &mut self.c;
        c.undo_reduction();
        let u = &mut c.cold.undo;
        if frto {
            u.spurious_rtos += 1;
        }
        u.frto = false;
        u.rexmit_new = false;
        u.resume = None;
        c.tcb.snd_nxt = c.tcb.snd_max;
        if frto || c.cfg.sack {
            let ack = c.tcb.snd_una;
            c.exit_recovery(now, ack);
        }
    }

    /// In Loss, before the ordinary window: F-RTO's step 2b sends new data
    /// (true: nothing else is sent on this ACK); after it, going back N
    /// resumes where it was.
    pub(super) fn frto_send(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        let c = &mut self.c;
        if c.cold.undo.rexmit_new {
            c.cold.undo.rexmit_new = false;
            if c.cold.undo.resume.is_none() {
                c.cold.undo.resume = Some(c.tcb.snd_nxt);
            }
            // Linux counts what the timeout marked lost out of the flight:
            // what is in flight is what going back N has resent and is not
            // acknowledged yet, and cwnd less that goes out as new data.
            let resent = c.tcb.snd_nxt.saturating_sub(c.tcb.snd_una);
            let mut room = c.tcb.cwnd.saturating_sub(resent);
            c.tcb.snd_nxt = c.tcb.snd_max;
            while room >= c.mss() && !c.paced_out(now) && c.send_new_in_recovery(now, out) {
                room -= c.mss();
            }
            if c.tcb.snd_max > c.tcb.recover {
                return true;
            }
            c.cold.undo.frto = false;
        }
        if let Some(r) = c.cold.undo.resume.take() {
            c.tcb.snd_nxt = r.max(c.tcb.snd_una);
        }
        debug_assert_eq!(c.tcb.ca_state, CaState::Loss);
        false
    }
}
