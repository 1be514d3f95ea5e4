// SPDX-License-Identifier: MIT OR Apache-2.0
//! The connection as a recovery strategy sees it: [`Conn`]'s fields are
//! the sender's (private to `tcp::sender`), and a strategy
//! ([`crate::tcp::recovery`]) reads and changes the connection through
//! the methods here and the actions `conn.rs` makes public (`reduce`,
//! `recovery_cwnd`, `exit_recovery`, `set_state`, `log`, `retransmit`,
//! `send_new_in_recovery`, `paced_out`, `segment_end`, `arm_rto`,
//! `retransmit_backoff`, `fine_expired`, `mss`, `dupthresh`). All are
//! plain methods on the concrete type: static dispatch, inlined.

use super::conn::Conn;
use crate::cc::Tcb;
use crate::tcp::fine_retx::FineRetransmit;
use crate::tcp::rack::Rack;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::TcpConfig;

impl Conn {
    // ---- what a recovery strategy reads ------------------------------------

    /// The control state: windows, sequence numbers, the recovery point.
    #[inline]
    pub fn tcb(&self) -> &Tcb {
        &self.tcb
    }

    #[inline]
    pub fn cfg(&self) -> &TcpConfig {
        &self.cfg
    }

    /// Duplicate ACKs in a row (RFC 5681's definition).
    #[inline]
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }

    /// The SACK scoreboard.
    #[inline]
    pub fn sb(&self) -> &Scoreboard {
        &self.sb
    }

    /// RACK-TLP's marks, when on.
    #[inline]
    pub fn rack(&self) -> Option<&Rack> {
        self.rack.as_deref()
    }

    /// Vegas's fine-grained retransmission, when on.
    #[inline]
    pub fn fine(&self) -> Option<&FineRetransmit> {
        self.fine.as_deref()
    }

    /// What the ACK being processed reports delivered (RFC 6937
    /// DeliveredData), bytes.
    #[inline]
    pub fn delivered(&self) -> u64 {
        self.delivered as u64
    }

    /// Payload bytes transmitted so far, retransmissions included.
    #[inline]
    pub fn bytes_sent(&self) -> u64 {
        self.stats.bytes_sent
    }

    /// The peer's window, bytes.
    #[inline]
    pub fn rwnd(&self) -> u64 {
        self.rwnd
    }

    /// The controller sets cwnd itself (BBR): recoveries leave it alone.
    #[inline]
    pub fn cc_owns_cwnd(&self) -> bool {
        self.cc_owns_cwnd
    }

    /// The controller's own floor for a recovery's window, if it has one.
    #[inline]
    pub fn cc_min_cwnd(&self) -> Option<u64> {
        self.cc.min_cwnd(&self.tcb)
    }

    // ---- what a recovery strategy changes -----------------------------------

    #[inline]
    pub fn set_ssthresh(&mut self, bytes: u64) {
        self.tcb.ssthresh = bytes;
    }

    /// The recovery point (RFC 6582 `recover`) is what has been sent.
    #[inline]
    pub fn mark_recovery_point(&mut self) {
        self.tcb.recover = self.tcb.snd_max;
    }

    /// Forgets the controller's growth credit (`cwnd_cnt`).
    #[inline]
    pub fn clear_growth_credit(&mut self) {
        self.tcb.cwnd_cnt = 0;
    }

    /// Sets cwnd whoever owns it (at least one segment).
    #[inline]
    pub fn force_cwnd(&mut self, bytes: u64) {
        self.tcb.set_cwnd(bytes);
    }

    /// Sets the window the sender sends by for one transmission round,
    /// exactly (a strategy that shows one window and sends by another).
    #[inline]
    pub fn send_by(&mut self, bytes: u64) {
        self.tcb.cwnd = bytes;
    }

    /// Going back N: the next new transmission starts at snd_una.
    #[inline]
    pub fn go_back_n(&mut self) {
        self.tcb.snd_nxt = self.tcb.snd_una;
    }

    #[inline]
    pub fn set_dupacks(&mut self, n: u32) {
        self.dupacks = n;
    }

    /// Vegas's fine-grained retransmission, when on.
    #[inline]
    pub fn fine_mut(&mut self) -> Option<&mut FineRetransmit> {
        self.fine.as_deref_mut()
    }

    /// Empties the SACK scoreboard.
    #[inline]
    pub fn clear_sacks(&mut self) {
        self.sb.clear();
    }

    /// Retransmits the segment at `seq` at the next chance to send.
    #[inline]
    pub fn retransmit_soon(&mut self, seq: u64) {
        self.pending_retx = Some(seq);
    }
}
