// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-2.35's `Agent/TCP/Sack1` (tcp-sack1.cc over its reassembly-queue
//! scoreboard, scoreboard-rq.cc), the SACK recovery most ns-2 studies ran.
//! Where it differs from RFC 6675 ([`super::Sack`]):
//! - **a running pipe counter**: on entry, the segments outstanding less
//!   DupThresh (`pipe_ = maxseq_ - highest_ack_ - numdupacks_`); one less
//!   for every ACK in the recovery, duplicate or not, one less again for a
//!   partial ACK (`partial_ack_` false, "never do worse than slow start"),
//!   and one more for each segment sent; a segment goes out while pipe <
//!   floor(cwnd). The entry's retransmission is not counted, and the
//!   entering ACK sends nothing else.
//! - **any hole below the highest SACK is retransmitted**, once per
//!   recovery, in order from a pointer that only moves up (`h_seqno_`): no
//!   IsLost test (three SACKed segments above), and a duplicate ACK alone
//!   (DupThresh of them) starts the recovery.
//! - **the scoreboard lives only between duplicate ACKs and in a
//!   recovery**: an ACK of new data outside one empties it (without adding
//!   its blocks), and so do the end of a recovery and a timeout; after a
//!   timeout the sender goes back N without skipping SACKed data, and takes
//!   no SACK block until the timeout's window is acknowledged.
//! - **the guard after a timeout**: no fast retransmit until the cumulative
//!   ACK is above everything sent before the timeout (`highest_ack_ >
//!   recover_`); a recovery's normal end clears the guard (`recover_ = 0`).
//! - the retransmission timer restarts on entry (`reset_rtx_timer(1, 0)`).
//!
//! Segments are counted as ns-2 counts packets: the ns2 profile's segments
//! are all one MSS.

use super::RecoveryStrategy;
use crate::cc::{CaState, LossCause};
use crate::tcp::sender::{Conn, TcpEventKind};
use crate::tcp::{TcpConfig, TcpHeader};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Sack1 {
    /// ns-2's `pipe_`, in segments (it can go negative).
    pipe: i64,
    /// `h_seqno_`: the next retransmission is a hole at or above this.
    next_rxt: u64,
    /// After a timeout, `recover_`: no fast retransmit until the cumulative
    /// ACK is above it.
    guard: Option<u64>,
    /// The entering ACK sends nothing but the fast retransmit.
    quiet: bool,
}

impl RecoveryStrategy for Sack1 {
    fn new(_cfg: &TcpConfig) -> Self {
        Sack1::default()
    }

    /// Outside a recovery, a duplicate ACK counts if it SACKs new data
    /// (`CheckUpdate`); in one, every ACK takes one from the pipe.
    fn counts_dupack(&self, c: &Conn, new_sack: bool) -> bool {
        new_sack || c.tcb().ca_state == CaState::Recovery
    }

    /// In a recovery every ACK's blocks are taken; outside one only a
    /// duplicate ACK's, and none until a timeout's window is acknowledged.
    fn takes_sack(&self, c: &Conn, new_ack: bool) -> bool {
        match c.tcb().ca_state {
            CaState::Recovery => true,
            CaState::Loss => false,
            _ => !new_ack,
        }
    }

    fn may_start(&self, c: &Conn) -> bool {
        self.guard.is_none_or(|g| c.tcb().snd_una > g)
    }

    fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        let mss = c.mss();
        let outstanding = (c.tcb().snd_max - c.tcb().snd_una).div_ceil(mss) as i64;
        self.pipe = outstanding - c.cfg().dupthresh as i64;
        c.reduce(now, CaState::Recovery, LossCause::DupAcks);
        let ssthresh = c.tcb().ssthresh;
        c.recovery_cwnd(ssthresh);
        c.log(now, TcpEventKind::FastRetransmit, c.tcb().snd_una);
        let s = c.tcb().snd_una;
        self.next_rxt = c.retransmit(now, s, out);
        // Sack1's own `sack_action` restarts the timer (reset_rtx_timer(1,
        // 0) in tcp-sack1.cc), whatever `rto_restart`, which
        // models the other agents' `dupack_action`, says.
        c.arm_rto(now);
        self.quiet = true;
    }

    fn on_dupack(&mut self, _c: &mut Conn) {
        self.pipe -= 1;
    }

    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, _acked: u64) {
        self.pipe -= 1;
        if ack >= c.tcb().recover {
            c.clear_sacks();
            self.guard = None;
            c.exit_recovery(now, ack);
        } else {
            self.pipe -= 1;
            c.log(now, TcpEventKind::PartialAck, ack);
        }
    }

    /// `send_much` in a recovery: while pipe < floor(cwnd), the next hole,
    /// else new data, each within the receiver's window from the
    /// cumulative ACK.
    fn send(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        if std::mem::take(&mut self.quiet) {
            return true;
        }
        let mss = c.mss();
        while self.pipe < (c.tcb().cwnd / mss) as i64 {
            let from = self.next_rxt.max(c.tcb().snd_una);
            // GetNextRetran: any hole below the highest SACK (no IsLost).
            let dt = c.dupthresh();
            if let Some(s) = c.sb().next_hole(from, mss, dt, false) {
                if s + mss > c.tcb().snd_una + c.rwnd() {
                    break;
                }
                self.next_rxt = c.retransmit(now, s, out);
            } else if !c.send_new_in_recovery(now, out) {
                break;
            }
            self.pipe += 1;
        }
        true
    }

    fn on_timeout(&mut self, c: &mut Conn) {
        c.clear_sacks();
        self.guard = Some(c.tcb().snd_max);
        self.next_rxt = 0;
        self.quiet = false;
    }
}
