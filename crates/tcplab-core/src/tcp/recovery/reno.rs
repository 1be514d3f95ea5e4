// SPDX-License-Identifier: MIT OR Apache-2.0
//! Reno (RFC 5681 3.2): retransmit, cwnd = ssthresh + 3 MSS, inflate by one
//! MSS per further duplicate ACK, deflate to ssthresh and leave on the first
//! ACK of new data. No guard on the recovery point, as in the RFC.

use super::RecoveryStrategy;
use crate::cc::{CaState, LossCause};
use crate::tcp::sender::{Conn, TcpEventKind};
use crate::tcp::{TcpConfig, TcpHeader};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Reno;

/// Fast retransmit and the inflated window, as Reno and NewReno start.
pub(super) fn start_inflated(c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
    c.reduce(now, CaState::Recovery, LossCause::DupAcks);
    let cwnd = c.tcb().ssthresh + 3 * c.mss();
    c.recovery_cwnd(cwnd);
    c.log(now, TcpEventKind::FastRetransmit, c.tcb().snd_una);
    let s = c.tcb().snd_una;
    c.retransmit(now, s, out);
}

/// Window inflation: each duplicate ACK means a segment has left the network.
pub(super) fn inflate(c: &mut Conn) {
    let cwnd = c.tcb().cwnd + c.mss();
    c.recovery_cwnd(cwnd);
}

impl RecoveryStrategy for Reno {
    fn new(_cfg: &TcpConfig) -> Self {
        Reno
    }

    /// RFC 5681 has no guard; with `reno_recover_guard` (ns-2's `bugFix_`),
    /// only when the cumulative ACK is above the last recovery point.
    fn may_start(&self, c: &Conn) -> bool {
        !c.cfg().reno_recover_guard || c.tcb().snd_una > c.tcb().recover
    }

    fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        start_inflated(c, now, out);
    }

    fn on_dupack(&mut self, c: &mut Conn) {
        inflate(c);
    }

    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, _acked: u64) {
        let ssthresh = c.tcb().ssthresh;
        c.recovery_cwnd(ssthresh);
        c.exit_recovery(now, ack);
    }
}
