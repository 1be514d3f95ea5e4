// SPDX-License-Identifier: MIT OR Apache-2.0
//! Proportional Rate Reduction (RFC 6937 and its update, RFC 9937, as
//! Linux's `tcp_cwnd_reduction` and ns-3's `TcpPrrRecovery` do it): during
//! the recovery, the window follows what the ACKs report delivered, so that
//! the sender reaches ssthresh smoothly instead of halving at once (Reno's
//! silence for half a window) and never bursts when pipe falls below it.
//!
//! On every ACK in the recovery, the one that starts it included:
//! - `DeliveredData` = bytes newly acknowledged, cumulatively or by SACK;
//!   `prr_delivered` sums it over the recovery, `prr_out` sums what was sent;
//! - while pipe > ssthresh: sndcnt = ceil(prr_delivered * ssthresh /
//!   RecoverFS) - prr_out (proportional);
//! - else: sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out,
//!   DeliveredData) + (1 MSS if the ACK is safe)), the slow-start reduction
//!   bound; an ACK is safe when it advances snd.una and reveals no new loss
//!   (RFC 9937's SafeACK, Linux's `FLAG_SND_UNA_ADVANCED && !newly_lost`);
//! - the first ACK always lets the fast retransmit out (sndcnt >= 1 MSS
//!   while nothing has been sent);
//! - cwnd = pipe + sndcnt; the recovery ends with cwnd = ssthresh.
//!
//! RecoverFS is RFC 9937's (the published 6937bis): the FlightSize when the
//! recovery starts (snd.nxt - snd.una), less what was SACKed before the ACK
//! that starts it, since that data will never be counted as delivered.
//! Linux divides by the cwnd before the recovery instead (`prior_cwnd`),
//! ns-3 3.43 to 3.48 by pipe (a 2024 draft), ns-3 before 3.43 by the
//! FlightSize (RFC 6937); without SACK all of them are the FlightSize.
//!
//! With SACK, pipe is RFC 6675's and NextSeg chooses what to send (as the
//! sack recovery). Without SACK, each duplicate ACK reports one segment
//! delivered (up to the FlightSize less one segment, the hole), and an ACK
//! of new data reports what it acknowledges less what the duplicates
//! already reported, at least one segment (Linux's `tcp_remove_reno_sacks`);
//! pipe is FlightSize less what the duplicates reported, less the first
//! segment while it waits to be retransmitted; a partial ACK retransmits the
//! next segment, as NewReno.
//!
//! `prr_form = "ns3"` (the ns3 profile's) follows ns-3 3.44's
//! `TcpPrrRecovery` with the numbers its `TcpSocketBase` hands it:
//! - RecoverFS is the pipe when the recovery starts (`m_bytesInFlight`
//!   after the head is marked lost), SACK or not;
//! - every duplicate ACK, the one that starts the recovery included, adds a
//!   segment to DeliveredData while prr_delivered < RecoverFS
//!   (`DoRecovery`'s `isDupAck`), on top of what it SACKed: with SACK, a
//!   segment is counted twice;
//! - a partial ACK reports all it acknowledges (without SACK too: nothing
//!   of what the duplicates reported is taken out), only if that is a
//!   segment or more, and is safe (it acknowledges the retransmission);
//! - without SACK, the pipe PRR reads is the one before the ACK's own
//!   report: a duplicate's emulated SACK and a partial ACK's lost head
//!   are counted after `DoRecovery` has set cwnd, so cwnd is a segment
//!   above what the RFC's arithmetic gives.

use super::sack::{sack_loss_detected, NextSeg};
use super::RecoveryStrategy;
use crate::cc::{CaState, LossCause};
use crate::tcp::sender::{Conn, TcpEventKind};
use crate::tcp::{PrrForm, TcpConfig, TcpHeader};
use crate::time::SimTime;

/// The PRR component: its counts over one reduction and the arithmetic
/// that sets cwnd from them. The prr recovery ([`PrrRecovery`]) runs a
/// recovery with it, and the ECN response's CWR state
/// ([`crate::tcp::sender`]'s `cwr`) a reduction without a loss; a loss
/// found in CWR continues the same reduction as a recovery.
#[derive(Clone, Debug)]
pub struct Prr {
    /// The SACK form (the connection negotiated SACK).
    sack: bool,
    next: NextSeg,
    /// RecoverFS, bytes.
    recover_fs: u64,
    prr_delivered: u64,
    /// `stats.bytes_sent` when the recovery started: prr_out is what was
    /// sent since.
    sent_before: u64,
    /// Where the SACK scoreboard's lost holes ended at the last ACK.
    lost_until: u64,
    /// Without SACK: the bytes the duplicate ACKs reported delivered
    /// (Linux's emulated `sacked_out`).
    dup_bytes: u64,
    /// Without SACK: the first unacknowledged segment is lost and not yet
    /// retransmitted (with SACK, NextSeg keeps this).
    head_due: bool,
    /// ns-3 3.44's arithmetic.
    ns3: bool,
}

impl Prr {
    fn prr_out(&self, c: &Conn) -> u64 {
        c.bytes_sent() - self.sent_before
    }

    /// The bytes in flight (RFC 6675 SetPipe with SACK; without it, the
    /// FlightSize less what the duplicate ACKs reported and the segment
    /// waiting for its retransmission).
    pub(crate) fn pipe(&self, c: &Conn) -> u64 {
        if self.sack {
            return self.next.pipe(c);
        }
        let head = if self.head_due {
            c.segment_end(c.tcb().snd_una) - c.tcb().snd_una
        } else {
            0
        };
        c.tcb()
            .bytes_in_flight()
            .saturating_sub(self.dup_bytes)
            .saturating_sub(head)
    }

    /// One ACK's DeliveredData: sets cwnd = pipe + sndcnt.
    pub(crate) fn on_delivered(&mut self, c: &mut Conn, delivered: u64, safe: bool) {
        self.on_delivered_after(c, delivered, safe, 0);
    }

    /// As [`Prr::on_delivered`], with the pipe read as `unreported` bytes
    /// more than it is (ns-3 without SACK reads it before the ACK's own
    /// report).
    fn on_delivered_after(&mut self, c: &mut Conn, delivered: u64, safe: bool, unreported: u64) {
        let prr_out = self.prr_out(c);
        if delivered == 0 && prr_out > 0 {
            return;
        }
        let mss = c.mss();
        let pipe = self.pipe(c) + unreported;
        let ssthresh = c.tcb().ssthresh;
        self.prr_delivered += delivered;
        let mut sndcnt = if delivered == 0 {
            0
        } else if pipe > ssthresh {
            let share = (self.prr_delivered as u128 * ssthresh as u128)
                .div_ceil(self.recover_fs.max(1) as u128) as u64;
            share.saturating_sub(prr_out)
        } else {
            let bound = self.prr_delivered.saturating_sub(prr_out).max(delivered)
                + if safe { mss } else { 0 };
            (ssthresh - pipe).min(bound)
        };
        if prr_out == 0 {
            // The fast retransmit goes out whatever the arithmetic says.
            sndcnt = sndcnt.max(mss);
        }
        c.recovery_cwnd(pipe + sndcnt);
    }

    /// What a duplicate ACK delivered: what it SACKed, or without SACK one
    /// segment (up to the FlightSize less one segment, the hole).
    pub(crate) fn dup_delivered(&mut self, c: &Conn) -> u64 {
        if self.sack {
            self.newly_lost(c);
            return c.delivered();
        }
        let mss = c.mss();
        if self.dup_bytes + mss < c.tcb().bytes_in_flight() {
            self.dup_bytes += mss;
            mss
        } else {
            0
        }
    }

    /// What an ACK of `acked` new bytes delivered, and whether it is safe
    /// (SafeACK: it also revealed no new loss); without SACK, the bytes the
    /// duplicates already reported are not counted again.
    pub(crate) fn ack_delivered(&mut self, c: &Conn, acked: u64) -> (u64, bool) {
        if self.sack {
            return (c.delivered(), !self.newly_lost(c));
        }
        let one = acked.min(c.mss());
        let delivered = acked.saturating_sub(self.dup_bytes).max(one);
        self.dup_bytes = self.dup_bytes.saturating_sub(acked - one);
        (delivered, true)
    }

    // ---- the ECN reduction (CWR), for the sender's `cwr` ----------------------

    /// An ECN reduction (CWR) starts: PRR's counts restart, nothing is
    /// known lost; RecoverFS is the pipe (`pipe_fs`: ns-3 3.44's) or the
    /// window before the reduction, `prior_cwnd` (Linux's).
    pub(crate) fn begin_cwr(&mut self, c: &Conn, prior_cwnd: u64, pipe_fs: bool) {
        self.prr_delivered = 0;
        self.sent_before = c.bytes_sent();
        self.dup_bytes = 0;
        self.head_due = false;
        if self.sack {
            self.next.begin_cwr(c);
            self.lost_until = c.sb().lost_until(c.tcb().snd_una, c.mss(), c.dupthresh());
        }
        self.recover_fs = if pipe_fs {
            self.pipe(c).max(1)
        } else {
            prior_cwnd.max(1)
        };
    }

    /// A partial ACK in CWR: HighRxt never stays below the cumulative ACK.
    pub(crate) fn cwr_partial_ack(&mut self, c: &Conn) {
        if self.sack {
            self.next.on_partial_ack(c);
        }
    }

    /// A loss found in CWR: the reduction goes on as a recovery, with its
    /// counts, and the lost segment waits for the window.
    pub(crate) fn cwr_to_recovery(&mut self, c: &Conn) {
        if self.sack {
            self.next.begin(c);
        } else {
            self.head_due = true;
        }
    }

    /// Sends while cwnd - pipe allows a segment: NextSeg's choice with SACK
    /// (in CWR, `cwr`, lost segments and new data only), else the head
    /// when it waits for its retransmission, then new data.
    pub(crate) fn send(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>, cwr: bool) {
        if self.sack {
            if cwr {
                self.next.send_cwr(c, now, out);
            } else {
                self.next.send(c, now, out);
            }
            return;
        }
        let mss = c.mss();
        loop {
            let spared = self.head_due && c.pacing_spares_fast_retransmit();
            if c.tcb().cwnd < self.pipe(c) + mss || (!spared && c.paced_out(now)) {
                return;
            }
            if self.head_due {
                self.head_due = false;
                let s = c.tcb().snd_una;
                c.retransmit(now, s, out);
                continue;
            }
            if !c.send_new_in_recovery(now, out) {
                return;
            }
        }
    }

    /// Whether this ACK's SACK information made another hole lost.
    pub(crate) fn newly_lost(&mut self, c: &Conn) -> bool {
        if !self.sack {
            return false;
        }
        if let Some(r) = c.rack() {
            return r.newly_lost;
        }
        let until = c.sb().lost_until(c.tcb().snd_una, c.mss(), c.dupthresh());
        let grew = until > self.lost_until;
        self.lost_until = until;
        grew
    }
}

impl Prr {
    pub fn new(cfg: &TcpConfig) -> Self {
        Prr {
            sack: cfg.sack,
            next: NextSeg::default(),
            recover_fs: 0,
            prr_delivered: 0,
            sent_before: 0,
            lost_until: 0,
            dup_bytes: 0,
            head_due: false,
            ns3: cfg.prr_form == PrrForm::Ns3,
        }
    }
}

/// The prr recovery: RFC 9937 (or ns-3's form of it) on the [`Prr`]
/// component, which it lends the ECN response.
#[derive(Clone, Debug)]
pub struct PrrRecovery {
    prr: Prr,
}

impl RecoveryStrategy for PrrRecovery {
    fn new(cfg: &TcpConfig) -> Self {
        PrrRecovery { prr: Prr::new(cfg) }
    }

    fn prr(&mut self) -> Option<&mut Prr> {
        Some(&mut self.prr)
    }

    /// With SACK, as RFC 6675: a duplicate ACK counts if it SACKs new data.
    fn counts_dupack(&self, _c: &Conn, new_sack: bool) -> bool {
        new_sack || !self.prr.sack
    }

    fn loss_detected(&self, c: &Conn) -> bool {
        sack_loss_detected(c)
    }

    /// RFC 6675 5.1 with SACK, RFC 6582 3.2 step 1 without.
    fn may_start(&self, c: &Conn) -> bool {
        if self.prr.sack {
            c.tcb().snd_una >= c.tcb().recover
        } else {
            c.tcb().snd_una > c.tcb().recover
        }
    }

    fn start(&mut self, c: &mut Conn, now: SimTime, _out: &mut Vec<TcpHeader>) {
        let mss = c.mss();
        self.prr.recover_fs = c.tcb().bytes_in_flight();
        if self.prr.sack {
            // RFC 9937: less what was SACKed before this ACK (what this ACK
            // delivered, cumulatively or by SACK, counts).
            self.prr.recover_fs = (self.prr.recover_fs + c.delivered())
                .saturating_sub(c.sb().sacked_bytes())
                .max(mss);
        }
        c.reduce(now, CaState::Recovery, LossCause::DupAcks);
        // Linux's tcp_init_cwnd_reduction forgets the growth credit, as at
        // the start of a CWR (cwr_start).
        c.clear_growth_credit();
        c.log(now, TcpEventKind::FastRetransmit, c.tcb().snd_una);
        self.prr.prr_delivered = 0;
        self.prr.sent_before = c.bytes_sent();
        self.prr.head_due = !self.prr.sack;
        let delivered = if self.prr.sack {
            self.prr.next.begin(c);
            self.prr.lost_until = c.sb().lost_until(c.tcb().snd_una, mss, c.dupthresh());
            c.delivered()
        } else {
            // The duplicates so far each reported a segment, the hole aside.
            let cap = self.prr.recover_fs.saturating_sub(mss);
            self.prr.dup_bytes = (c.dupacks() as u64 * mss).min(cap);
            mss.min(self.prr.dup_bytes)
        };
        if self.prr.ns3 {
            // ns-3: RecoverFS is the pipe once the head is counted lost, and
            // the entering ACK is a duplicate: one segment more than it
            // SACKed (without SACK, nothing but that segment).
            self.prr.recover_fs = self.prr.pipe(c).max(mss);
            let sacked = if self.prr.sack { delivered } else { 0 };
            self.prr.on_delivered(c, sacked + mss, false);
        } else {
            self.prr.on_delivered(c, delivered, false);
        }
    }

    fn on_dupack(&mut self, c: &mut Conn) {
        let delivered = self.prr.dup_delivered(c);
        if self.prr.ns3 {
            let extra = if self.prr.prr_delivered < self.prr.recover_fs {
                c.mss()
            } else {
                0
            };
            // Without SACK the duplicate's report (its emulated SACK) is
            // the segment ns-3 adds, and its pipe is read before it.
            let (sacked, unreported) = if self.prr.sack {
                (delivered, 0)
            } else {
                (0, delivered)
            };
            self.prr
                .on_delivered_after(c, sacked + extra, false, unreported);
        } else {
            self.prr.on_delivered(c, delivered, false);
        }
    }

    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, acked: u64) {
        if ack >= c.tcb().recover {
            // RFC 6937: the recovery ends at ssthresh (Linux's
            // tcp_end_cwnd_reduction, ns-3's ExitRecovery).
            let ssthresh = c.tcb().ssthresh;
            c.recovery_cwnd(ssthresh);
            c.exit_recovery(now, ack);
            return;
        }
        c.log(now, TcpEventKind::PartialAck, ack);
        if self.prr.sack {
            self.prr.next.on_partial_ack(c);
        } else {
            // A partial ACK: the next segment is lost too (NewReno).
            self.prr.head_due = true;
        }
        // (Also settles what the duplicates reported, which the pipe reads
        // without SACK, in both forms.)
        let (delivered, safe) = self.prr.ack_delivered(c, acked);
        if self.prr.ns3 {
            // ns-3: all the ACK acknowledged (or SACKed), if a segment or
            // more; safe, as it acknowledges the retransmission; without
            // SACK, the pipe still counts the head marked lost after.
            let (delivered, unreported) = if self.prr.sack {
                (c.delivered(), 0)
            } else {
                (acked, c.segment_end(ack) - ack)
            };
            if delivered >= c.mss() {
                self.prr.on_delivered_after(c, delivered, true, unreported);
            }
        } else {
            self.prr.on_delivered(c, delivered, safe);
        }
    }

    fn send(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        self.prr.send(c, now, out, false);
        true
    }

    fn on_timeout(&mut self, c: &mut Conn) {
        self.prr.next.on_timeout(c);
        self.prr.head_due = false;
        self.prr.dup_bytes = 0;
    }
}
