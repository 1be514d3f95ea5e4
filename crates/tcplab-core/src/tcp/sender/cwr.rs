// SPDX-License-Identifier: MIT OR Apache-2.0
//! The ECN response's CWR state (`ecn_response` linux or ns3): an echo
//! reduces the window without a loss, and the [`Prr`] component the
//! recovery strategy lends ([`RecoveryStrategy::prr`]) brings cwnd down to
//! ssthresh as the ACKs report deliveries (Linux's `tcp_enter_cwr` and
//! `tcp_cwnd_reduction`; ns-3's `EnterCwr` with `TcpPrrRecovery`). The
//! reduction counts for the whole window: CWR ends with the first ACK above
//! what was sent when it started. Both forms resolve with the prr recovery
//! only, so a strategy without the component never reaches CWR.

use super::conn::Conn;
use super::{Sender, TcpEventKind};
use crate::cc::{CaState, LossCause};
use crate::tcp::recovery::{sack_loss_detected, Prr, RecoveryStrategy};
use crate::tcp::{EcnResponse, TcpHeader};
use crate::time::SimTime;

impl Sender {
    /// The ECN echo starts a CWR state paced by PRR. `advanced`: the ACK
    /// that echoed moved snd.una.
    pub(super) fn cwr_enter(&mut self, now: SimTime, advanced: bool) {
        if let Some(p) = self.recovery.prr() {
            start(p, &mut self.c, now, advanced);
        }
    }

    /// An ACK of `acked` new bytes, up to `ack`, in CWR: the end of CWR
    /// (cwnd = ssthresh, back to Open; returns true), or PRR's next step.
    pub(super) fn cwr_ack(&mut self, ack: u64, acked: u64) -> bool {
        let p = self.recovery.prr().expect("CWR runs through PRR");
        let c = &mut self.c;
        if ack > c.tcb.recover {
            let ssthresh = c.tcb.ssthresh;
            c.recovery_cwnd(ssthresh);
            c.dupacks = 0;
            c.set_state(CaState::Open);
            return true;
        }
        p.cwr_partial_ack(c);
        let (delivered, safe) = p.ack_delivered(c, acked);
        if delivered > 0 {
            // ns-3 bounds its CWR conservatively (no SafeACK outside a
            // recovery).
            let safe = safe && c.cfg.ecn_response == EcnResponse::Linux;
            p.on_delivered(c, delivered, safe);
        }
        false
    }

    /// A duplicate ACK in CWR. Linux: a loss found now continues the same
    /// reduction as a recovery (no second ssthresh), else PRR counts what
    /// the ACK delivered. ns-3 3.44 only counts it: cwnd stays, and no
    /// recovery starts until CWR ends.
    pub(super) fn cwr_dupack(&mut self, now: SimTime) {
        let c = &mut self.c;
        let Some(p) = self.recovery.prr() else { return };
        if c.cfg.ecn_response == EcnResponse::Ns3 {
            return;
        }
        let delivered = p.dup_delivered(c);
        if sack_loss_detected(c) {
            to_recovery(p, c, now);
        }
        if delivered > 0 {
            p.on_delivered(c, delivered, false);
        }
    }

    /// RACK found a loss in CWR: with Linux's form the reduction under way
    /// continues as the recovery.
    pub(super) fn cwr_loss(&mut self, now: SimTime) {
        if let Some(p) = self.recovery.prr() {
            if self.c.cfg.ecn_response == EcnResponse::Linux {
                to_recovery(p, &mut self.c, now);
            }
        }
    }

    /// Sends in CWR as PRR allows (with SACK, lost segments and new data
    /// only); whether it did (there is a PRR component).
    pub(super) fn cwr_send(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        let Some(p) = self.recovery.prr() else {
            return false;
        };
        p.send(&mut self.c, now, out, true);
        true
    }
}

/// CWR starts: ssthresh from the controller, the recovery point, and
/// PRR's counts against the window before the reduction (Linux) or the
/// pipe after the ACK (ns-3).
fn start(p: &mut Prr, c: &mut Conn, now: SimTime, advanced: bool) {
    let prior_cwnd = c.tcb.cwnd;
    c.tcb.now = now;
    c.set_pipe(false);
    c.cc.on_state(&mut c.tcb, CaState::Cwr);
    if c.keeps_undo() {
        c.undo_enter_cwr();
    }
    c.tcb.ssthresh = c.cc.ssthresh(&c.tcb, LossCause::Ecn);
    c.tcb.ca_state = CaState::Cwr;
    c.tcb.recover = c.tcb.snd_max;
    c.tcb.cwnd_cnt = 0;
    c.ecn_reduced(now);
    let ns3 = c.cfg.ecn_response == EcnResponse::Ns3;
    p.begin_cwr(c, prior_cwnd, ns3);
    let delivered = c.delivered as u64;
    if ns3 {
        // ns-3 3.44: EnterRecovery runs DoRecovery as for a duplicate ACK
        // (one segment more), then ProcessAck runs it again for the same
        // ACK.
        p.on_delivered(c, delivered + c.mss(), false);
        if delivered > 0 {
            p.on_delivered(c, delivered, false);
        }
    } else if delivered > 0 {
        // Linux: an ACK that delivered nothing leaves cwnd alone.
        let safe = advanced && !p.newly_lost(c);
        p.on_delivered(c, delivered, safe);
    }
}

/// A loss found in CWR (by duplicate ACKs, the scoreboard or RACK):
/// Linux's `tcp_enter_recovery` inside a reduction, which keeps ssthresh,
/// the recovery point and PRR's counts.
fn to_recovery(p: &mut Prr, c: &mut Conn, now: SimTime) {
    c.cold.fast_retransmits += 1;
    if c.keeps_undo() {
        c.undo_enter_recovery(true);
    }
    c.loss_episode(now);
    c.set_state(CaState::Recovery);
    c.log(now, TcpEventKind::FastRetransmit, c.tcb.snd_una);
    p.cwr_to_recovery(c);
}
