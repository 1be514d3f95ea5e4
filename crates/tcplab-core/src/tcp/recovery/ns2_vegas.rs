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
//!   (`cwnd_ = v_newcwnd_ + dupacks_`), plus one per duplicate above
//!   DupThresh;
//! - **duplicates are counted as ns-2 counts `dupacks_`**: a retransmission
//!   of a segment sent once sets the count to DupThresh, one of a segment
//!   sent before leaves it, so that the DupThresh-th duplicate retransmits
//!   again; every duplicate that finds the retransmission overdue resends
//!   it too (each resend as this start);
//! - **the first new ACK deflates only if a duplicate came after the
//!   retransmission** (`dupacks_ > numdupacks_`), to the last reduction's
//!   window (`v_newcwnd_`, kept across recoveries, 0 after a timeout), with
//!   ssthresh 2 segments; otherwise the window stays as it is;
//! - a timeout restarts the window at 2 segments (`v_slowstart_`).
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
use crate::tcp::sender::{Conn, TcpEventKind};
use crate::tcp::{TcpConfig, TcpHeader};
use crate::time::SimTime;

/// The connection's duplicate-ACK count plays ns-2's `dupacks_`: a
/// retransmission of a segment sent once sets it to DupThresh, one of a
/// segment sent before leaves it, and only the duplicates above DupThresh
/// inflate the window.
#[derive(Clone, Debug, Default)]
pub struct Ns2Vegas {
    /// `v_newcwnd_`: the window the last reduction set (bytes).
    newcwnd: u64,
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

    /// Also called in the recovery, on a duplicate ACK that finds the
    /// retransmission overdue again, or that is the DupThresh-th after a
    /// retransmission of a segment sent before.
    fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        let mss = c.mss();
        let head = c.tcb().snd_una;
        let since = c.fine().map_or(SimTime::ZERO, |f| f.last_reduction);
        let (sends, last) = c.fine().and_then(|f| f.sends(head)).unwrap_or((1, now));
        if let Some(f) = c.fine_mut() {
            // v_timeout_ stretches before the segment goes out again.
            f.retransmitted();
        }
        if last > since {
            // ns-2's window(): cwnd, bounded by the receiver's window.
            let win = c.tcb().cwnd.min(c.rwnd()) / mss;
            c.reduce(now, CaState::Recovery, LossCause::DupAcks);
            if sends > 1 && win > 3 {
                c.set_ssthresh((win / 2) * mss);
            }
            self.newcwnd = c.tcb().ssthresh;
            let cwnd = self.newcwnd + u64::from(c.dupacks()) * mss;
            c.recovery_cwnd(cwnd);
        } else {
            c.set_state(CaState::Recovery);
            c.mark_recovery_point();
        }
        if sends == 1 {
            c.set_dupacks(c.dupthresh());
        }
        c.log(now, TcpEventKind::FastRetransmit, head);
        c.retransmit(now, head, out);
    }

    fn on_dupack(&mut self, c: &mut Conn) {
        if c.dupacks() > c.dupthresh() {
            let cwnd = c.tcb().cwnd + c.mss();
            c.recovery_cwnd(cwnd);
        }
    }

    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, _acked: u64) {
        if c.dupacks() > c.dupthresh() && c.tcb().cwnd > self.newcwnd {
            // (ns-2 would set a window of 0 after a timeout; one segment.)
            let to = self.newcwnd.max(c.mss());
            c.recovery_cwnd(to);
            c.set_ssthresh(2 * c.mss());
        }
        c.exit_recovery(now, ack);
    }

    /// tcp-vegas.cc's `timeout`: the window restarts at `v_slowstart_`, 2
    /// segments, not 1; `v_newcwnd_` is 0.
    fn on_timeout(&mut self, c: &mut Conn) {
        self.newcwnd = 0;
        c.recovery_cwnd(2 * c.mss());
    }

    /// A duplicate ACK in the recovery retransmits again (`start`) if the
    /// retransmission is overdue or this is the DupThresh-th duplicate.
    fn resends(&self, c: &Conn, now: SimTime) -> bool {
        c.dupacks() == c.dupthresh() || c.fine_expired(now).is_some()
    }

    /// An overdue segment on a duplicate ACK always goes to `start`, which
    /// decides itself whether the window is reduced (ns-2's `recv`).
    fn fine_overdue(
        &mut self,
        _c: &mut Conn,
        _now: SimTime,
        _sent_at: SimTime,
        _out: &mut Vec<TcpHeader>,
    ) -> bool {
        true
    }

    /// One of the two new ACKs after a retransmission found the next
    /// segment overdue and it is resent, in the Open state. ns-2 changes no
    /// window for it but counts the duplicate ACKs as if they followed a
    /// fast retransmission (`dupacks_ = numdupacks_`): each further one
    /// inflates the window, and the next new ACK deflates it to the last
    /// reduction's. The recovery state stands for that.
    fn fine_resent(&mut self, c: &mut Conn) {
        c.set_state(CaState::Recovery);
        c.set_dupacks(c.dupthresh());
    }
}
