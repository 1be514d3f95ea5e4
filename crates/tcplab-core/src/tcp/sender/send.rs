// SPDX-License-Identifier: MIT OR Apache-2.0
//! Sending by the window: new segments while cwnd (with limited
//! transmit's extra) and the peer's window allow, paced when a pacing rate
//! is set, the FIN after the last byte.

use super::conn::Conn;
use crate::cc::CaState;
use crate::tcp::TcpHeader;
use crate::time::SimTime;

impl Conn {
    /// Pacing holds the next segment until `next_send`; arms the timer.
    pub fn paced_out(&mut self, now: SimTime) -> bool {
        if self.tcb.paced && self.next_send > now {
            if self.in_linux_burst(now) {
                return false; // the rest of an skb that just left
            }
            self.pace_deadline = Some(self.next_send);
            return true;
        }
        false
    }

    /// Nothing is left to send: application-limited if the window has room
    /// and no loss is being repaired (`tcp_rate_check_app_limited`).
    #[cold]
    #[inline(never)]
    fn check_app_limited(&mut self) {
        let in_flight = self.tcb.bytes_in_flight();
        let repairing = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
        if in_flight < self.tcb.cwnd && !repairing {
            if let Some(r) = &mut self.rate {
                r.app_limited(in_flight);
            }
        }
    }

    /// Sends new data (and FIN) while min(cwnd, rwnd) allows, from snd_nxt
    /// on, skipping SACKed data.
    pub(super) fn send_window(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        // Limited transmit (RFC 3042): before a recovery starts, each of the
        // first two duplicate ACKs lets one segment more out; cwnd stays.
        let extra = if self.cfg.limited_transmit && self.tcb.ca_state == CaState::Disorder {
            self.dupacks.min(2) as u64 * self.mss()
        } else {
            0
        };
        loop {
            let wnd = (self.tcb.cwnd + extra).min(self.rwnd);
            let limit = self.tcb.snd_una + wnd;
            let mut seq = self.tcb.snd_nxt;
            while let Some(end) = self.sb.sacked_until(seq) {
                seq = end;
            }
            self.tcb.snd_nxt = seq;
            if self.closing && seq == self.data_end {
                if self.rate.is_some() {
                    self.check_app_limited();
                }
                if self.tcb.snd_max <= self.data_end || seq < self.tcb.snd_max {
                    self.emit(now, seq, 0, true, out);
                    self.tcb.snd_nxt = seq + 1;
                }
                return;
            }
            if seq >= self.data_end {
                if self.rate.is_some() {
                    self.check_app_limited();
                }
                return;
            }
            let end = self.segment_end(seq);
            let len = end - seq;
            if len == 0 || seq + len > limit {
                return; // no room for this segment yet (sender-side SWS avoidance)
            }
            if self.paced_out(now) {
                return;
            }
            if extra > 0 && seq + len > self.tcb.snd_una + self.tcb.cwnd {
                self.tcb.limited_sent += len;
            }
            self.emit(now, seq, len, false, out);
            self.tcb.snd_nxt = end;
        }
    }
}
