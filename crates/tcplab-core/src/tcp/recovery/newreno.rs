// SPDX-License-Identifier: MIT OR Apache-2.0
//! NewReno (RFC 6582): as Reno, but a partial ACK retransmits the next hole
//! and deflates the window by the amount acknowledged (adding back one MSS
//! when at least one was acknowledged); the recovery ends when the recovery
//! point is acknowledged, with cwnd = min(ssthresh, max(FlightSize, MSS) +
//! MSS) (the RFC's option 1) or ssthresh (option 2, ns-3 and Linux), as
//! `recovery_exit` says.

use super::reno::{inflate, start_inflated};
use super::RecoveryStrategy;
use crate::tcp::sender::{Conn, TcpEventKind};
use crate::tcp::{RecoveryExit, TcpConfig, TcpHeader};
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct NewReno {
    exit: RecoveryExit,
}

impl RecoveryStrategy for NewReno {
    fn new(cfg: &TcpConfig) -> Self {
        NewReno {
            exit: cfg.recovery_exit,
        }
    }

    /// RFC 6582 3.2 step 1: only when the cumulative ACK covers more than
    /// the previous recovery point.
    fn may_start(&self, c: &Conn) -> bool {
        c.tcb().snd_una > c.tcb().recover
    }

    fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        start_inflated(c, now, out);
    }

    fn on_dupack(&mut self, c: &mut Conn) {
        inflate(c);
    }

    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, acked: u64) {
        let mss = c.mss();
        if ack >= c.tcb().recover {
            let cwnd = match self.exit {
                RecoveryExit::Flight => c
                    .tcb()
                    .ssthresh
                    .min(c.tcb().bytes_in_flight().max(mss) + mss),
                RecoveryExit::Ssthresh => c.tcb().ssthresh,
            };
            c.recovery_cwnd(cwnd);
            c.exit_recovery(now, ack);
        } else {
            // A partial ACK: retransmit the next hole, deflate.
            let add_back = if acked >= mss { mss } else { 0 };
            let cwnd = c.tcb().cwnd.saturating_sub(acked) + add_back;
            c.recovery_cwnd(cwnd);
            c.log(now, TcpEventKind::PartialAck, ack);
            c.retransmit_soon(c.tcb().snd_una);
        }
    }
}
