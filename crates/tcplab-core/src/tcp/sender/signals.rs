// SPDX-License-Identifier: MIT OR Apache-2.0
//! What an ACK tells the sender besides what it acknowledges: an ECN echo
//! (RFC 3168 6.1.2), answered in the form the flow's `ecn_response` names
//! (the window cut at once, or a CWR state whose window PRR brings down, as
//! Linux and ns-3 do; the state's rules are in the sibling `cwr`), the
//! delivery-rate sample
//! for a controller that sets its window from it, and an ACK in a recovery
//! (with `recovery_exit_growth`, the one that ends it also grows the
//! window).

use super::Sender;
use crate::cc::{Ack, CaState, LossCause};
use crate::tcp::recovery::RecoveryStrategy;
use crate::tcp::EcnResponse;
use crate::time::{SimDuration, SimTime};

impl Sender {
    /// An ACK of new data in a recovery: the strategy's; if it ended the
    /// recovery and `recovery_exit_growth` is on, the window then grows on
    /// it as in Open (ns-3's `ProcessAck` calls `IncreaseWindow` once the
    /// state is Open again).
    pub(super) fn recovery_ack(&mut self, now: SimTime, ack: u64, acked: u64, sample: &Ack) {
        self.recovery.on_ack(&mut self.c, now, ack, acked);
        let c = &mut self.c;
        if c.cfg.recovery_exit_growth && c.tcb.ca_state == CaState::Open {
            c.cc.increase_window(&mut c.tcb, sample);
        }
    }

    /// An ACK echoed ECE: the window is reduced as for a loss, at most once
    /// per window of data (RFC 3168 6.1.2), without a retransmission; the
    /// next new segment says CWR. Inside a loss recovery, its reduction
    /// stands for both.
    pub(super) fn ecn_echo(&mut self, now: SimTime, advanced: bool) {
        match self.c.cfg.ecn_response {
            EcnResponse::Immediate => {}
            // Linux reacts on any ACK with ECE in Open or Disorder (an ACK
            // of new data has entered CWR already); ns-3 only on ACKs of
            // new data.
            EcnResponse::Linux => {
                if matches!(self.c.tcb.ca_state, CaState::Open | CaState::Disorder) {
                    self.cwr_enter(now, advanced);
                }
                return;
            }
            EcnResponse::Ns3 => return,
        }
        let c = &mut self.c;
        // An echo on an ACK of data sent before the last reduction was for
        // that window (the receiver keeps echoing until it sees CWR, on
        // the first segment sent after it).
        if !matches!(c.tcb.ca_state, CaState::Open | CaState::Disorder)
            || c.tcb.snd_una <= c.ecn.high
        {
            return;
        }
        c.tcb.now = now;
        c.set_pipe(false);
        c.tcb.ssthresh = c.cc.ssthresh(&c.tcb, LossCause::Ecn);
        let ssthresh = c.tcb.ssthresh;
        c.recovery_cwnd(ssthresh);
        c.ecn_reduced(now);
    }

    /// The controller that sets its window from delivery rates (BBR) gets
    /// this ACK's rate sample.
    pub(super) fn rate_sample(
        &mut self,
        now: SimTime,
        is_dup: bool,
        was_recovering: bool,
        una_before: u64,
    ) {
        let c = &mut self.c;
        let Some(r) = &mut c.rate else { return };
        let mut rs = r.on_ack(
            now,
            c.tcb.snd_una,
            &c.sb,
            is_dup,
            c.cfg.sack,
            c.cfg.mss as u64,
            c.ecn.echo,
        );
        rs.prior_in_flight = c.tcb.snd_max - una_before;
        // No fast retransmit can start between the sampler's ACK and here,
        // so the sample reports no loss (this compared the count before
        // and after `on_ack`, always equal; a loss flag from the whole ACK
        // would change BBR's pacing-gain cycle and every BBR trace).
        rs.losses = false;
        rs.bytes_in_flight = c.tcb.bytes_in_flight();
        rs.rtt = c.ack_rtt;
        if !c.cfg.sack && was_recovering {
            // Without SACK, duplicate ACKs deliver nothing countable and the
            // ACK ending recovery delivers a whole window at once: no rate
            // sample from recovery (counts and rounds still advance).
            rs.delivered = 0;
            rs.interval = SimDuration::ZERO;
        }
        c.cc.control(&mut c.tcb, &rs);
    }
}
