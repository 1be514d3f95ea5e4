// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sender's side of the adaptive reordering degree
//! ([`crate::tcp::reordering`], `adaptive_reordering`): what each ACK shows
//! of reordering, read before its SACK blocks enter the scoreboard, and the
//! connection's DupThresh (`cfg.dupthresh`, Linux's `tp->reordering`) kept
//! as the degree.

use super::conn::Conn;
use crate::cc::CaState;
use crate::tcp::dsack::dsack_block;
use crate::tcp::TcpHeader;

impl Conn {
    /// An ACK with SACK on, before its blocks enter the scoreboard: a
    /// timeout since the last ACK may lower the degree; the ACK's D-SACK
    /// may widen RACK's window; segments it shows delivered out of order
    /// raise the degree (SACKed below the highest SACKed sequence, or
    /// cumulatively acknowledged below it, never retransmitted; or a
    /// partial ACK in a recovery echoing a timestamp older than the first
    /// retransmission).
    pub(super) fn reorder_on_ack(&mut self, h: &TcpHeader) {
        let una = self.tcb.snd_una;
        let ack = h.ack.max(una);
        let mss = self.mss();
        let (max, recover) = (self.tcb.snd_max, self.tcb.recover);
        let partial = self.tcb.ca_state == CaState::Recovery && ack > una && ack < recover;
        let (timeouts, retrans) = (self.cold.timeouts, self.stats.retransmitted_segments);
        let probe_end = self.rack.as_ref().and_then(|r| r.probe_end());
        let ts_ecr = if self.cfg.timestamps { h.ts_ecr } else { 0 };
        let sb = &self.sb;
        let Some(o) = self.cold.reordering.as_deref_mut() else {
            return;
        };
        let mut degree = o.after_timeouts(self.cfg.dupthresh, timeouts);
        if h.nsack == 0 && sb.is_empty() && !partial {
            // Nothing SACKed before or now, no recovery: nothing to see
            // (the common ACK, at the cost of these tests).
            self.cfg.dupthresh = degree;
            return;
        }
        // Linux's tcp_highest_sack_seq before the ACK (prior_fack), and
        // the highest SACKed sequence after its blocks (0: none).
        let mut fack = sb.high_sacked().unwrap_or(0);
        let fack0 = fack.max(una);
        let mut low = u64::MAX;
        let dsack = dsack_block(h);
        if let Some((a, b)) = dsack {
            o.on_dsack(b.saturating_sub(a), mss, retrans, probe_end == Some(b));
            // A retransmission duplicated while its original was SACKed.
            if a >= ack && sb.is_sacked(a) && o.retransmitted(a) {
                low = a;
            }
        }
        let skip = usize::from(dsack.is_some());
        for &(a, b) in h.sack_blocks().iter().skip(skip) {
            if b <= ack || b > max {
                continue;
            }
            fack = fack.max(b);
            let (from, to) = (a.max(ack), b.min(fack0));
            if from < to {
                if let Some(x) = o.lowest_fresh(sb, from, to) {
                    low = low.min(x);
                }
            }
        }
        if low != u64::MAX {
            let fack_sack = if fack > 0 { fack } else { ack };
            degree = o.check(degree, low, fack_sack, mss);
        }
        // After the cumulative ACK: the highest SACKed sequence above it.
        let fack_now = fack.max(ack);
        if ack > una && una < fack0 {
            if let Some(x) = o.lowest_fresh(sb, una, ack.min(fack0)) {
                degree = o.check(degree, x, fack_now, mss);
            }
        }
        if partial && o.delayed(ts_ecr) {
            degree = o.check(degree, una, fack_now, mss);
        }
        self.cfg.dupthresh = degree;
    }

    /// After an ACK, with adaptive reordering: a recovery that ended counts
    /// towards the return of RACK's window; the state a timeout before the
    /// next ACK would find is noted.
    pub(super) fn reorder_after_ack(&mut self, was_recovering: bool) {
        let state = self.tcb.ca_state;
        let open = matches!(state, CaState::Open | CaState::Disorder);
        let (sb, mss) = (&self.sb, self.mss());
        let (timeouts, una) = (self.cold.timeouts, self.tcb.snd_una);
        let Some(o) = self.cold.reordering.as_deref_mut() else {
            return;
        };
        let recovering = matches!(state, CaState::Recovery | CaState::Loss);
        if was_recovering && !recovering {
            o.recovery_ended(false);
        }
        if !recovering {
            o.settled(una);
        }
        let many = || sb.sacked_bytes().div_ceil(mss.max(1)) >= u64::from(o.initial);
        o.after_ack(open && !sb.is_empty() && many(), timeouts);
    }
}

impl super::Sender {
    /// The adaptive reordering state, with `adaptive_reordering` (its
    /// `seen` is Linux's `tcpi_reord_seen`; the degree, `tcpi_reordering`,
    /// is [`super::Sender::config`]'s `dupthresh`).
    pub fn reordering(&self) -> Option<&crate::tcp::reordering::Reordering> {
        self.c.cold.reordering.as_deref()
    }
}
