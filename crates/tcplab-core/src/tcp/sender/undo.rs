// SPDX-License-Identifier: MIT OR Apache-2.0
//! Undo of spurious window reductions (`undo = true`), as Linux's
//! `tcp_try_undo_*` (net/ipv4/tcp_input.c):
//!
//! - A reduction (a fast recovery, or the first timeout of a series) keeps
//!   what undoing it needs (`tcp_init_undo`, `tcp_init_cwnd_reduction`,
//!   `tcp_enter_loss`): the undo marker (snd_una then), the window before
//!   (`prior_cwnd`) and the threshold before (`prior_ssthresh`: Linux's
//!   `tcp_current_ssthresh`, max(ssthresh, 3/4 cwnd) outside a reduction;
//!   none inside one, or on an ECN echo, which forbids the undo of the
//!   window). Each retransmission counts in `undo_retrans` and the first
//!   stamps `retrans_stamp` (`__tcp_retransmit_skb`).
//! - A D-SACK of data above the marker (RFC 3708; `tcp_check_dsack`,
//!   `tcp_sacktag_one`) takes its segments off `undo_retrans`: at 0 every
//!   retransmission arrived twice, the reduction was spurious
//!   (`tcp_try_undo_dsack`, in Open, Disorder or Recovery).
//! - An ACK whose timestamp echo is older than the first retransmission
//!   acknowledges an original transmission (Eifel detection, RFC 3522;
//!   `tcp_packet_delayed`): the full ACK of a recovery undoes
//!   (`tcp_try_undo_recovery`), a partial ACK too once no retransmission
//!   is left unacknowledged (`tcp_try_undo_partial`), and after a timeout
//!   any ACK of new data (`tcp_try_undo_loss`).
//! - The undo (`tcp_undo_cwnd_reduction`, the Eifel response of RFC 4015
//!   as Linux applies it): cwnd = the controller's `undo_cwnd` (Reno's
//!   max(cwnd, prior_cwnd)), ssthresh = max(ssthresh, prior_ssthresh), when
//!   a prior ssthresh was kept; the marker is cleared; a recovery or the
//!   Loss state ends in Open and the ACK grows no window.
//!
//! Simplifications, where tcplab keeps less per segment than Linux: a
//! D-SACK above the cumulative ACK counts whether or not the segment it
//! reports was retransmitted (tcplab's network duplicates nothing), and
//! "no retransmission unacknowledged" is the cumulative ACK at or above the
//! end of the highest retransmission. The state lives in the connection's
//! cold record: off, nothing of it is touched.

use super::conn::Conn;
use super::Sender;
use crate::cc::CaState;
use crate::tcp::dsack::dsack_block;
use crate::tcp::TcpHeader;
use crate::time::SimTime;

/// What undoing the last reduction needs, and F-RTO's state (`frto.rs`).
#[derive(Clone, Debug, Default)]
pub struct Undo {
    /// snd_una when the reduction started; 0: nothing to undo.
    pub marker: u64,
    /// Retransmissions not yet reported twice by a D-SACK; -1: none made
    /// since the reduction started (Linux's `undo_retrans`).
    pub retrans: i32,
    pub prior_cwnd: u64,
    /// 0: the window is not restored by an undo.
    pub prior_ssthresh: u64,
    /// The time of the first retransmission, ns (0: none yet).
    pub retrans_stamp: u64,
    /// The end of the highest data ever retransmitted: below it, a
    /// segment may have been; above, none was.
    pub retx_high: u64,
    /// F-RTO is under way (Linux's `tp->frto`).
    pub frto: bool,
    /// F-RTO step 2b: this ACK sends new data instead of retransmissions.
    pub rexmit_new: bool,
    /// Where going back N had reached when F-RTO sent new data instead.
    pub resume: Option<u64>,
    /// In Loss: the data sent before the timeout and never retransmitted
    /// that was SACKed before the ACK being processed, bytes.
    pub orig_sacked: u64,
    /// The ACK being processed acknowledged or SACKed such data first
    /// (Linux's `FLAG_ORIG_SACK_ACKED`).
    pub orig_acked: bool,
    /// Reductions undone, and of them timeouts F-RTO proved spurious.
    pub undos: u32,
    pub spurious_rtos: u32,
}

impl Conn {
    /// Undo or F-RTO is on: the reductions keep their state.
    #[inline]
    pub(super) fn keeps_undo(&self) -> bool {
        self.cfg.undo | self.cfg.frto
    }

    /// Linux's `tcp_current_ssthresh`: in a reduction ssthresh, else
    /// max(ssthresh, 3/4 cwnd) in whole segments.
    fn current_ssthresh(&self) -> u64 {
        if matches!(self.tcb.ca_state, CaState::Cwr | CaState::Recovery) {
            return self.tcb.ssthresh;
        }
        let w = self.tcb.cwnd / self.tcb.mss;
        self.tcb.ssthresh.max(((w >> 1) + (w >> 2)) * self.tcb.mss)
    }

    /// `tcp_init_undo`: a new episode of retransmissions starts here. The
    /// retransmissions of an earlier one still unacknowledged stay counted
    /// (Linux's `undo_retrans = retrans_out`; tcplab counts every segment
    /// up to the highest retransmission, erring against an undo) and keep
    /// their time (Linux clears `retrans_stamp` only when none is out).
    fn init_undo(&mut self) {
        let (una, mss) = (self.tcb.snd_una, self.tcb.mss);
        let u = &mut self.cold.undo;
        u.marker = una;
        if una >= u.retx_high {
            u.retrans = -1;
            u.retrans_stamp = 0;
        } else {
            u.retrans = (u.retx_high - una).div_ceil(mss).min(i32::MAX as u64) as i32;
        }
    }

    /// A fast recovery starts (Linux's `tcp_enter_recovery`), before the
    /// reduction: inside the ECN reduction under way (`in_cwr`), or on an
    /// ACK echoing ECE, no prior ssthresh is kept.
    pub(super) fn undo_enter_recovery(&mut self, in_cwr: bool) {
        let keep = !in_cwr && !self.ecn.echo;
        let prior = self.current_ssthresh();
        self.cold.undo.prior_ssthresh = if keep { prior } else { 0 };
        if !in_cwr {
            self.cold.undo.prior_cwnd = self.tcb.cwnd;
        }
        self.init_undo();
    }

    /// The retransmission timer fired (Linux's `tcp_enter_loss`), before
    /// the state changes: the first timeout of a series, or one outside a
    /// recovery, keeps the state before it; `first`: the timer had not
    /// backed off.
    pub(super) fn undo_enter_loss(&mut self, first: bool) {
        let state = self.tcb.ca_state;
        if matches!(state, CaState::Open | CaState::Disorder)
            || self.tcb.snd_una >= self.tcb.recover
            || (state == CaState::Loss && first)
        {
            self.cold.undo.prior_ssthresh = self.current_ssthresh();
            self.cold.undo.prior_cwnd = self.tcb.cwnd;
            self.init_undo();
        }
        // RFC 5682 3.1 step 1: F-RTO for a timeout outside a recovery, or
        // a repeated one (3.2).
        let new_recovery = matches!(state, CaState::Open | CaState::Disorder | CaState::Cwr);
        let u = &mut self.cold.undo;
        u.frto = self.cfg.frto && (new_recovery || !first);
        u.rexmit_new = false;
        u.resume = None;
    }

    /// The ECN reduction (CWR) starts: Linux's `tcp_enter_cwr` forgets the
    /// undo (a congestion signal is no spurious loss).
    pub(super) fn undo_enter_cwr(&mut self) {
        self.cold.undo.prior_ssthresh = 0;
        self.cold.undo.marker = 0;
    }

    /// Data sent before the timeout (below the recovery point, Linux's
    /// `high_seq`) and never retransmitted (above the highest
    /// retransmission) that is SACKed, bytes.
    fn orig_sacked(&self) -> u64 {
        let lo = self.tcb.snd_una.max(self.cold.undo.retx_high);
        let high = self.tcb.recover;
        if lo >= high {
            return 0;
        }
        self.sb.sacked_between(lo, high)
    }

    /// In Loss with undo or F-RTO on, before an ACK's SACK blocks enter
    /// the scoreboard: what was SACKed of that data.
    #[inline]
    pub(super) fn undo_before_sack(&mut self) {
        if self.keeps_undo() && self.tcb.ca_state == CaState::Loss {
            self.cold.undo.orig_sacked = self.orig_sacked();
        }
    }

    /// Before snd_una moves to `ack` (`ack` = snd_una: an ACK of no new
    /// data): whether the ACK acknowledged data sent before the timeout,
    /// never retransmitted and not SACKed before, or SACKed some first
    /// (kept for F-RTO); and whether it SACKed anything new since
    /// `sacked_before` (returned).
    /// (Only F-RTO reads them: outside Loss, nothing is computed.)
    #[inline]
    pub(super) fn undo_before_advance(&mut self, ack: u64, sacked_before: u64) -> bool {
        if self.tcb.ca_state != CaState::Loss {
            return false;
        }
        let lo = self.tcb.snd_una.max(self.cold.undo.retx_high);
        let top = ack.min(self.tcb.recover);
        let cumulative = top > lo && self.sb.sacked_between(lo, top) < top - lo;
        self.cold.undo.orig_acked = cumulative || self.orig_sacked() > self.cold.undo.orig_sacked;
        self.sb.sacked_bytes() > sacked_before
    }

    /// A retransmission of data up to `end` leaves now.
    pub(super) fn undo_retransmitted(&mut self, now: SimTime, end: u64) {
        let u = &mut self.cold.undo;
        if u.retrans_stamp == 0 {
            u.retrans_stamp = now.as_nanos().max(1);
        }
        u.retrans = u.retrans.max(0) + 1;
        u.retx_high = u.retx_high.max(end);
    }

    /// An arriving ACK's D-SACK (RFC 2883, 3708): the duplicates it
    /// reports of data above the marker come off `undo_retrans`
    /// (`tcp_check_dsack`, `tcp_sacktag_one`).
    fn undo_dsack(&mut self, h: &TcpHeader) {
        if self.cold.undo.marker == 0 || self.cold.undo.retrans <= 0 {
            return;
        }
        let Some((start, end)) = dsack_block(h) else {
            return;
        };
        let mss = self.tcb.mss;
        let u = &mut self.cold.undo;
        if end > u.marker && end > start {
            let segs = (end - start).div_ceil(mss).min(i32::MAX as u64) as i32;
            u.retrans = (u.retrans - segs).max(0);
        }
    }

    /// Eifel detection (RFC 3522; Linux's `tcp_packet_delayed`): the ACK
    /// echoes a timestamp older than the first retransmission; with none
    /// retransmitted yet, the data was merely delayed (but without SACK
    /// once the recovery point is acknowledged).
    pub(super) fn packet_delayed(&self, h: &TcpHeader) -> bool {
        let stamp = self.cold.undo.retrans_stamp;
        if stamp != 0 {
            return self.cfg.timestamps && h.ts_ecr != 0 && h.ts_ecr < stamp;
        }
        self.cfg.sack || self.tcb.snd_una < self.tcb.recover
    }

    /// `tcp_may_undo`: a reduction to undo, and every retransmission
    /// D-SACKed or the original proved delivered.
    pub(super) fn may_undo(&self, h: &TcpHeader) -> bool {
        let u = &self.cold.undo;
        self.cfg.undo && u.marker != 0 && (u.retrans == 0 || self.packet_delayed(h))
    }

    /// `tcp_try_undo_dsack`'s test: every retransmission was D-SACKed.
    fn dsack_undoes(&self) -> bool {
        self.cfg.undo && self.cold.undo.marker != 0 && self.cold.undo.retrans == 0
    }

    /// `tcp_undo_cwnd_reduction`: the window and threshold before the
    /// reduction come back (when a prior ssthresh was kept).
    pub(super) fn undo_reduction(&mut self) {
        let u = &mut self.cold.undo;
        let (prior_cwnd, prior_ssthresh) = (u.prior_cwnd, u.prior_ssthresh);
        u.marker = 0;
        u.undos += 1;
        if prior_ssthresh != 0 {
            let cwnd = self.cc.undo_cwnd(&self.tcb, prior_cwnd);
            self.tcb.set_cwnd(cwnd);
            if prior_ssthresh > self.tcb.ssthresh {
                self.tcb.ssthresh = prior_ssthresh;
                self.ecn.cwr_pending = false;
            }
        }
    }
}

impl Sender {
    /// An ACK of new data, up to `h.ack` (snd_una already moved there),
    /// before the state's window step: whether it undid a reduction (the
    /// sender is then in Open, and the step is skipped). `new_sack`: it
    /// SACKed data not SACKed before.
    #[inline]
    pub(super) fn undo_new_ack(&mut self, now: SimTime, h: &TcpHeader, new_sack: bool) -> bool {
        // Open, without SACK blocks or an echo: nothing to look at (the
        // common ACK stays off the cold record).
        if quiet(&self.c, h) {
            return false;
        }
        self.undo_new_ack_slow(now, h, new_sack)
    }

    fn undo_new_ack_slow(&mut self, now: SimTime, h: &TcpHeader, new_sack: bool) -> bool {
        let c = &mut self.c;
        c.undo_dsack(h);
        if c.ecn.echo {
            c.cold.undo.prior_ssthresh = 0;
        }
        match c.tcb.ca_state {
            CaState::Recovery => {
                let full = h.ack >= c.tcb.recover;
                let partial_undo = !full
                    && c.cfg.undo
                    && c.cold.undo.marker != 0
                    && c.packet_delayed(h)
                    && c.tcb.snd_una >= c.cold.undo.retx_high;
                if (full && c.may_undo(h)) || partial_undo || c.dsack_undoes() {
                    c.undo_reduction();
                    c.exit_recovery(now, h.ack);
                    return true;
                }
                false
            }
            CaState::Loss => self.frto_new_ack(now, h, new_sack),
            CaState::Open | CaState::Disorder => {
                if c.dsack_undoes() {
                    c.undo_reduction();
                }
                false
            }
            CaState::Cwr => false,
        }
    }

    /// An ACK that acknowledges no new data: its D-SACK may prove the
    /// reduction spurious (`tcp_try_undo_dsack`; a recovery then ends),
    /// and after a timeout F-RTO reads it.
    pub(super) fn undo_old_ack(&mut self, now: SimTime, h: &TcpHeader, new_sack: bool) {
        if quiet(&self.c, h) {
            return;
        }
        let c = &mut self.c;
        c.undo_dsack(h);
        if c.ecn.echo {
            c.cold.undo.prior_ssthresh = 0;
        }
        match c.tcb.ca_state {
            CaState::Recovery if c.dsack_undoes() => {
                c.undo_reduction();
                c.exit_recovery(now, h.ack);
            }
            CaState::Open | CaState::Disorder if c.dsack_undoes() => c.undo_reduction(),
            CaState::Loss => self.frto_old_ack(now, h, new_sack),
            _ => {}
        }
    }

    /// Reductions undone so far, and timeouts F-RTO found spurious.
    pub fn undos(&self) -> (u32, u32) {
        let u = &self.c.cold.undo;
        (u.undos, u.spurious_rtos)
    }
}

/// An ACK in Open or Disorder without SACK blocks (so without a D-SACK) or
/// an ECN echo: no undo can follow from it.
#[inline]
fn quiet(c: &Conn, h: &TcpHeader) -> bool {
    h.nsack == 0 && !c.ecn.echo && matches!(c.tcb.ca_state, CaState::Open | CaState::Disorder)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::reno::Reno;
    use crate::tcp::TcpConfig;
    use crate::time::SimDuration;

    fn ms(n: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(n)
    }

    /// Ten 1000-B segments in flight, undo and timestamps on.
    fn conn() -> Conn {
        let mut cfg = TcpConfig::for_tests(1000, 10);
        cfg.undo = true;
        cfg.timestamps = true;
        let mut c = Conn::new(cfg, Box::new(Reno::new(false)), false);
        c.tcb.snd_una = 1;
        c.tcb.snd_max = 10_001;
        c.tcb.recover = 10_001;
        c
    }

    fn echo(ms_ago: u64) -> TcpHeader {
        TcpHeader {
            ts_ecr: ms(ms_ago).as_nanos(),
            ..TcpHeader::default()
        }
    }

    #[test]
    fn a_new_episode_keeps_the_time_and_count_of_a_retransmission_still_out() {
        // Segment 0 resent at 100 ms, still unacknowledged when another
        // recovery starts (tcp_init_undo: undo_retrans = retrans_out;
        // retrans_stamp kept). An ACK echoing 100 ms acknowledges that
        // retransmission, not a delayed original: no Eifel proof.
        let mut c = conn();
        c.undo_enter_recovery(false);
        c.undo_retransmitted(ms(100), 1001);
        assert_eq!(
            (c.cold.undo.retrans_stamp, c.cold.undo.retrans),
            (ms(100).as_nanos(), 1)
        );
        c.undo_enter_recovery(false);
        c.undo_retransmitted(ms(200), 2001);
        assert_eq!(c.cold.undo.retrans_stamp, ms(100).as_nanos());
        assert_eq!(c.cold.undo.retrans, 2);
        assert!(!c.packet_delayed(&echo(100)));
        assert!(c.packet_delayed(&echo(99)));
    }

    #[test]
    fn with_nothing_resent_outstanding_a_new_episode_starts_afresh() {
        let mut c = conn();
        c.undo_enter_recovery(false);
        c.undo_retransmitted(ms(100), 1001);
        c.tcb.snd_una = 1001;
        c.undo_enter_recovery(false);
        assert_eq!((c.cold.undo.retrans_stamp, c.cold.undo.retrans), (0, -1));
        c.undo_retransmitted(ms(200), 2001);
        assert!(c.packet_delayed(&echo(100)));
    }

    #[test]
    fn prior_ssthresh_is_three_quarters_of_cwnd_at_least() {
        // tcp_current_ssthresh: max(ssthresh, cwnd/2 + cwnd/4) in segments
        // (10 segments: 5 + 2 = 7), none on an ECN echo.
        let mut c = conn();
        c.tcb.cwnd = 10_000;
        c.tcb.ssthresh = 4_000;
        c.undo_enter_recovery(false);
        assert_eq!(
            (c.cold.undo.prior_cwnd, c.cold.undo.prior_ssthresh),
            (10_000, 7_000)
        );
        c.ecn.echo = true;
        c.undo_enter_recovery(false);
        assert_eq!(c.cold.undo.prior_ssthresh, 0);
    }
}
