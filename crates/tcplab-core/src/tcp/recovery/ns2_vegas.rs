// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-2.35's Agent/TCP/Vegas on duplicate ACKs (tcp-vegas.cc `recv`), the
//! ns2 profile's recovery for vegas (`recovery = "ns2_vegas"`). It is
//! Reno's shape (retransmit, inflate per duplicate ACK, leave on the first
//! new ACK) with ns-2's own rules:
//! - **a loss of data sent before the last reduction reduces nothing**
//!   (`t_cwnd_changed_ < sendTime`, the segment's last transmission against
//!   the last reduction): the segment is resent and the window kept;
//! - the reduction keeps 3/4 of the window, or 2 segments if it is 3 or
//!   less (the controller's threshold), or **half if the segment had been
//!   sent more than once** (`transmits > 1`);
//! - the window then is the reduced one plus the duplicate ACKs so far
//!   (`cwnd_ = v_newcwnd_ + dupacks_`), plus one per further duplicate;
//! - **the first new ACK deflates only if a duplicate came after the
//!   retransmission** (`dupacks_ > numdupacks_`), to the last reduction's
//!   window (`v_newcwnd_`, kept across recoveries, 0 after a timeout), with
//!   ssthresh 2 segments; otherwise the window stays as it is.
//!
//! The send times come from Vegas's fine-grained retransmission, so the
//! strategy is refused for other variants. What the sender does around it
//! is ns-2's too in the ns2 profile: the timer backed off at each
//! retransmission (`retransmit_backoff`), the fine-grained checks on
//! duplicate ACKs and on the two new ACKs after a retransmission, and
//! Vegas's per-ACK step on the ACK that ends the recovery
//! (`recovery_exit_growth`).

use super::RecoveryStrategy;
use crate::cc::{CaState, LossCause};
use crate::tcp::conn::Conn;
use crate::tcp::sender::TcpEventKind;
use crate::tcp::{TcpConfig, TcpHeader};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Ns2Vegas {
    /// `v_newcwnd_`: the window the last reduction set (bytes).
    newcwnd: u64,
    /// A duplicate ACK came after the retransmission (`dupacks_ >
    /// numdupacks_`).
    inflated: bool,
}

impl RecoveryStrategy for Ns2Vegas {
    fn new(_cfg: &TcpConfig) -> Self {
        Ns2Vegas::default()
    }

    /// ns-2's `bugFix_` acts only after a timeout, which the Loss state
    /// covers.
    fn may_start(&self, _c: &Conn) -> bool {
        true
    }

    fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        let mss = c.mss();
        let head = c.tcb.snd_una;
        let since = c.fine.as_ref().map_or(SimTime::ZERO, |f| f.last_reduction);
        let (sends, last) = c
            .fine
            .as_ref()
            .and_then(|f| f.sends(head))
            .unwrap_or((1, now));
        if last > since {
            // ns-2's window(): cwnd, bounded by the receiver's window.
            let win = c.tcb.cwnd.min(c.rwnd) / mss;
            c.reduce(now, CaState::Recovery, LossCause::DupAcks);
            if sends > 1 && win > 3 {
                c.tcb.ssthresh = (win / 2) * mss;
            }
            self.newcwnd = c.tcb.ssthresh;
            let cwnd = self.newcwnd + u64::from(c.dupacks) * mss;
            c.recovery_cwnd(cwnd);
        } else {
            c.set_state(CaState::Recovery);
            c.tcb.recover = c.tcb.snd_max;
        }
        self.inflated = false;
        c.log(now, TcpEventKind::FastRetransmit, head);
        c.retransmit(now, head, out);
    }

    fn on_dupack(&mut self, c: &mut Conn) {
        let cwnd = c.tcb.cwnd + c.mss();
        c.recovery_cwnd(cwnd);
        self.inflated = true;
    }

    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, _acked: u64) {
        if self.inflated && c.tcb.cwnd > self.newcwnd {
            // (ns-2 would set a window of 0 after a timeout; one segment.)
            let to = self.newcwnd.max(c.mss());
            c.recovery_cwnd(to);
            c.tcb.ssthresh = 2 * c.mss();
        }
        c.exit_recovery(now, ack);
    }

    fn on_timeout(&mut self, _c: &mut Conn) {
        self.newcwnd = 0;
    }
}
