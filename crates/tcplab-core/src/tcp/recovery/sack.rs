// SPDX-License-Identifier: MIT OR Apache-2.0
//! SACK-based recovery (RFC 6675): cwnd = ssthresh; while cwnd - pipe is at
//! least one MSS, NextSeg picks lost segments first (rule 1), then new data
//! (rule 2), then other holes (rule 3), then, once per recovery and when
//! `rescue_retransmit` is on, the segment holding the highest unSACKed byte
//! (rule 4, the rescue retransmission). A duplicate ACK counts only if it
//! SACKs new data, and the scoreboard alone can declare the first segment
//! lost (IsLost). [`NextSeg`] is shared with PRR's SACK form.

use super::RecoveryStrategy;
use crate::cc::{CaState, LossCause};
use crate::tcp::sender::{Conn, TcpEventKind};
use crate::tcp::{TcpConfig, TcpHeader};
use crate::time::SimTime;

/// RFC 6675's transmission rules during a recovery: what to send while
/// cwnd - pipe allows a segment.
#[derive(Clone, Debug, Default)]
pub struct NextSeg {
    /// Highest sequence number retransmitted in this recovery (HighRxt).
    high_rxt: u64,
    /// This recovery used its rescue retransmission (RFC 6675 rule 4
    /// allows one per recovery: RescueRxt is the recovery point).
    rescue_used: bool,
    /// The first unacknowledged segment waits for its fast retransmit.
    head_due: bool,
}

impl NextSeg {
    /// The recovery starts with the retransmission of the first segment
    /// (with RACK, the first it marked lost).
    pub fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        if let Some(r) = c.rack() {
            self.begin(c);
            if let Some(s) = r.next_lost(c.tcb().snd_una) {
                let end = c.retransmit(now, s, out);
                self.high_rxt = self.high_rxt.max(end);
            }
            return;
        }
        self.rescue_used = false;
        let s = c.tcb().snd_una;
        self.high_rxt = s;
        self.high_rxt = c.retransmit(now, s, out);
    }

    /// The recovery starts; the first segment's retransmission waits for
    /// the window ([`NextSeg::send`]), as PRR has it. What the previous
    /// recovery retransmitted above the new one's start is still in flight
    /// (it went out less than an RTT ago: it is not acknowledged yet, and a
    /// timeout would have reset HighRxt): it is not sent again, as Linux
    /// keeps its retransmitted marks (`TCPCB_SACKED_RETRANS`) across
    /// recoveries. RFC 6675 restarts HighRxt at each recovery instead.
    pub fn begin(&mut self, c: &Conn) {
        self.rescue_used = false;
        // With RACK, its marks say what is lost, the first segment included.
        self.head_due = c.rack().is_none() && self.high_rxt <= c.tcb().snd_una;
        self.high_rxt = self.high_rxt.max(c.tcb().snd_una);
    }

    /// An ECN reduction (CWR) starts: nothing is known lost, so no
    /// retransmission waits; what was retransmitted stays in flight.
    pub fn begin_cwr(&mut self, c: &Conn) {
        self.head_due = false;
        self.high_rxt = self.high_rxt.max(c.tcb().snd_una);
    }

    /// A partial ACK: HighRxt never stays below the cumulative ACK.
    pub fn on_partial_ack(&mut self, c: &Conn) {
        self.high_rxt = self.high_rxt.max(c.tcb().snd_una);
    }

    /// RFC 6675 SetPipe (with RACK, from its marks).
    pub fn pipe(&self, c: &Conn) -> u64 {
        if let Some(r) = c.rack() {
            return r.pipe();
        }
        c.sb().pipe(
            c.tcb().snd_una,
            c.tcb().snd_max,
            self.high_rxt,
            c.mss(),
            c.dupthresh(),
        )
    }

    /// RFC 6675 5 (C): while cwnd - pipe >= 1 MSS, send NextSeg.
    pub fn send(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.send_rules(c, now, out, true);
    }

    /// In an ECN reduction (CWR): rules 1 and 2 only, lost segments and new
    /// data, as Linux and ns-3 (which enables rule 3 in recovery only); a
    /// hole not yet lost is not resent.
    pub fn send_cwr(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.send_rules(c, now, out, false);
    }

    fn send_rules(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>, holes: bool) {
        let mss = c.mss();
        let dt = c.dupthresh();
        loop {
            let spared = self.head_due && c.pacing_spares_fast_retransmit();
            if c.tcb().cwnd < self.pipe(c) + mss || (!spared && c.paced_out(now)) {
                return;
            }
            if std::mem::take(&mut self.head_due) {
                let s = c.tcb().snd_una;
                self.high_rxt = c.retransmit(now, s, out);
                continue;
            }
            let from = self.high_rxt.max(c.tcb().snd_una);
            let lost = match c.rack() {
                Some(r) => r.next_lost(c.tcb().snd_una),
                None => c.sb().next_hole(from, mss, dt, true),
            };
            if let Some(s) = lost {
                self.high_rxt = self.high_rxt.max(c.retransmit(now, s, out));
                continue;
            }
            if c.send_new_in_recovery(now, out) {
                continue;
            }
            if c.rack().is_some() || !holes {
                // RACK retransmits only what it marked lost (as Linux), and
                // the tail loss probe stands for the rescue retransmission.
                return;
            }
            if let Some(s) = c.sb().next_hole(from, mss, dt, false) {
                self.high_rxt = c.retransmit(now, s, out);
                continue;
            }
            if c.cfg().rescue_retransmit && !self.rescue_used {
                if let Some(s) = c.sb().rescue_segment(c.tcb().snd_una, c.tcb().snd_max, mss) {
                    // HighRxt stays where it is.
                    self.rescue_used = true;
                    c.retransmit(now, s, out);
                }
            }
            return;
        }
    }

    /// After a timeout the sender goes back to `snd_una`.
    pub fn on_timeout(&mut self, c: &Conn) {
        self.high_rxt = c.tcb().snd_una;
        self.head_due = false;
    }
}

#[derive(Clone, Debug, Default)]
pub struct Sack {
    next: NextSeg,
}

impl RecoveryStrategy for Sack {
    fn new(_cfg: &TcpConfig) -> Self {
        Sack::default()
    }

    /// RFC 6675 2: a duplicate ACK must also SACK something new (a resent
    /// duplicate segment's ACK does not count).
    fn counts_dupack(&self, _c: &Conn, new_sack: bool) -> bool {
        new_sack
    }

    fn loss_detected(&self, c: &Conn) -> bool {
        sack_loss_detected(c)
    }

    /// RFC 6675 5.1: HighACK at or above the recovery point.
    fn may_start(&self, c: &Conn) -> bool {
        c.tcb().snd_una >= c.tcb().recover
    }

    fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        c.reduce(now, CaState::Recovery, LossCause::DupAcks);
        let ssthresh = c.tcb().ssthresh;
        c.recovery_cwnd(ssthresh);
        c.log(now, TcpEventKind::FastRetransmit, c.tcb().snd_una);
        self.next.start(c, now, out);
    }

    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, _acked: u64) {
        if ack >= c.tcb().recover {
            c.exit_recovery(now, ack);
        } else {
            c.log(now, TcpEventKind::PartialAck, ack);
            self.next.on_partial_ack(c);
        }
    }

    fn send(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        self.next.send(c, now, out);
        true
    }

    fn on_timeout(&mut self, c: &mut Conn) {
        self.next.on_timeout(c);
    }
}

/// RFC 6675 5: DupThresh duplicate ACKs, or the scoreboard's IsLost for
/// the first unacknowledged segment; with RACK, a segment it marked lost.
pub(crate) fn sack_loss_detected(c: &Conn) -> bool {
    if let Some(r) = c.rack() {
        return r.has_lost();
    }
    c.dupacks() >= c.dupthresh()
        || (c.cfg().sack && c.sb().is_lost(c.tcb().snd_una, c.mss(), c.dupthresh()))
}
