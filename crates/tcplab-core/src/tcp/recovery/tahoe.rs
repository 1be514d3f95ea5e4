// SPDX-License-Identifier: MIT OR Apache-2.0
//! Tahoe: on DupThresh duplicate ACKs, the threshold from the controller,
//! cwnd = 1 MSS, and go back N from the first unacknowledged byte (the Loss
//! state, as after a timeout, without the backoff). There is no fast
//! recovery: the Loss state ends as after a timeout, when the recovery
//! point is acknowledged.

use super::RecoveryStrategy;
use crate::cc::{CaState, LossCause};
use crate::tcp::sender::{Conn, TcpEventKind};
use crate::tcp::{TcpConfig, TcpHeader};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Tahoe;

impl RecoveryStrategy for Tahoe {
    fn new(_cfg: &TcpConfig) -> Self {
        Tahoe
    }

    /// As NewReno (and ns-2): only above the previous recovery point.
    fn may_start(&self, c: &Conn) -> bool {
        c.tcb().snd_una > c.tcb().recover
    }

    fn start(&mut self, c: &mut Conn, now: SimTime, _out: &mut Vec<TcpHeader>) {
        c.reduce(now, CaState::Loss, LossCause::DupAcks);
        // Going back N needs the 1-MSS window whoever controls cwnd.
        let mss = c.mss();
        c.force_cwnd(mss);
        c.go_back_n();
        c.log(now, TcpEventKind::FastRetransmit, c.tcb().snd_una);
    }

    /// Not reached: Tahoe's recovery is the Loss state, whose ACKs grow the
    /// window as after a timeout.
    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, _acked: u64) {
        let ssthresh = c.tcb().ssthresh;
        c.recovery_cwnd(ssthresh);
        c.exit_recovery(now, ack);
    }
}
