// SPDX-License-Identifier: MIT OR Apache-2.0
//! SACK-based recovery (RFC 6675): cwnd = ssthresh; while cwnd - pipe is at
//! least one MSS, NextSeg picks lost segments first, then new data, then
//! other holes (rule 4, the rescue retransmission, is not implemented).
//! A duplicate ACK counts only if it SACKs new data, and the scoreboard
//! alone can declare the first segment lost (IsLost).

use super::RecoveryStrategy;
use crate::cc::{CaState, LossCause};
use crate::tcp::conn::Conn;
use crate::tcp::sender::TcpEventKind;
use crate::tcp::{TcpConfig, TcpHeader};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Sack {
    /// Highest sequence number retransmitted in this recovery (HighRxt).
    high_rxt: u64,
}

impl RecoveryStrategy for Sack {
    fn new(_cfg: &TcpConfig) -> Self {
        Sack::default()
    }

    /// RFC 6675 2: a duplicate ACK must also SACK something new (a resent
    /// duplicate segment's ACK does not count).
    fn counts_dupack(&self, new_sack: bool) -> bool {
        new_sack
    }

    fn loss_detected(&self, c: &Conn) -> bool {
        c.dupacks >= c.cfg.dupthresh
            || (c.cfg.sack && c.sb.is_lost(c.tcb.snd_una, c.mss(), c.cfg.dupthresh))
    }

    /// RFC 6675 5.1: HighACK at or above the recovery point.
    fn may_start(&self, c: &Conn) -> bool {
        c.tcb.snd_una >= c.tcb.recover
    }

    fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        c.reduce(now, CaState::Recovery, LossCause::DupAcks);
        let ssthresh = c.tcb.ssthresh;
        c.recovery_cwnd(ssthresh);
        c.log(now, TcpEventKind::FastRetransmit, c.tcb.snd_una);
        let s = c.tcb.snd_una;
        self.high_rxt = s;
        self.high_rxt = c.retransmit(now, s, out);
    }

    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, _acked: u64) {
        if ack >= c.tcb.recover {
            c.exit_recovery(now, ack);
        } else {
            c.log(now, TcpEventKind::PartialAck, ack);
            self.high_rxt = self.high_rxt.max(c.tcb.snd_una);
        }
    }

    /// RFC 6675 5 (C): while cwnd - pipe >= 1 MSS, send NextSeg.
    fn send(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        let mss = c.mss();
        let dt = c.cfg.dupthresh;
        loop {
            let pipe =
                c.sb.pipe(c.tcb.snd_una, c.tcb.snd_max, self.high_rxt, mss, dt);
            if c.tcb.cwnd < pipe + mss || c.paced_out(now) {
                return true;
            }
            let from = self.high_rxt.max(c.tcb.snd_una);
            if let Some(s) = c.sb.next_hole(from, mss, dt, true) {
                self.high_rxt = c.retransmit(now, s, out);
                continue;
            }
            let room = c.tcb.snd_una + c.rwnd;
            let new_ok = c.tcb.snd_max < c.data_end
                && c.tcb.snd_max + mss.min(c.data_end - c.tcb.snd_max) <= room;
            if new_ok {
                let seq = c.tcb.snd_max;
                let end = c.segment_end(seq);
                c.emit(now, seq, end - seq, false, out);
                c.tcb.snd_nxt = c.tcb.snd_max;
                continue;
            }
            if let Some(s) = c.sb.next_hole(from, mss, dt, false) {
                self.high_rxt = c.retransmit(now, s, out);
                continue;
            }
            return true;
        }
    }

    fn on_timeout(&mut self, c: &Conn) {
        self.high_rxt = c.tcb.snd_una;
    }
}
