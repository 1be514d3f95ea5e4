// SPDX-License-Identifier: MIT OR Apache-2.0
//! What an ACK tells the sender besides what it acknowledges: an ECN echo
//! (RFC 3168 6.1.2), answered in the form the flow's `ecn_response` names
//! (the window cut at once, or a CWR state whose window PRR brings down, as
//! Linux and ns-3 do; the state's rules are in the sibling `cwr`), the
//! delivery-rate sample
//! for a controller that sets its window from it, and an ACK in a recovery
//! (with `recovery_exit_growth`, the one that ends it also grows the
//! window).

use super::conn::Conn;
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
    /// this ACK's rate sample; true if it is held for after loss detection
    /// ([`Conn::late_control`]).
    pub(super) fn rate_sample(
        &mut self,
        now: SimTime,
        is_dup: bool,
        was_recovering: bool,
        una_before: u64,
    ) -> bool {
        let c = &mut self.c;
        let Some(r) = &mut c.rate else { return false };
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
        rs.ece = c.ecn.echo;
        rs.departure_wait = if c.next_send > now {
            c.next_send - now
        } else {
            SimDuration::ZERO
        };
        if !c.cfg.sack && was_recovering {
            // Without SACK, duplicate ACKs deliver nothing countable and the
            // ACK ending recovery delivers a whole window at once: no rate
            // sample from recovery (counts and rounds still advance).
            rs.delivered = 0;
            rs.interval = SimDuration::ZERO;
        }
        let late = r.late;
        rs.is_cwnd_limited = c.was_cwnd_limited(rs.prior_in_flight);
        if late {
            c.rate.as_mut().expect("sampling").pending = Some(rs);
            return true;
        }
        rs.in_flight = c.linux_in_flight();
        c.cc.control(&mut c.tcb, &rs);
        c.after_control();
        false
    }
}

impl Conn {
    /// The held sample, once this ACK's losses are marked: what it lost
    /// since its segment left and during this ACK (Linux's `tcp_rate_gen`
    /// after `tcp_fastretrans_alert`), then the controller.
    pub(super) fn late_control(&mut self) {
        let r = self.rate.as_mut().expect("a held sample");
        let Some(mut rs) = r.pending.take() else {
            return;
        };
        let (total, newly) = r.lost();
        r.settle();
        if rs.tx_in_flight > 0 {
            // Only a sample of a delivered segment counts losses
            // (tcp_rate_gen returns before, without one).
            rs.lost = total - rs.prior_lost;
        }
        rs.newly_lost = newly;
        rs.losses = newly > 0;
        rs.prior_in_flight = r.prior_pipe;
        rs.in_flight = self.linux_in_flight();
        self.cc.control(&mut self.tcb, &rs);
        self.after_control();
    }

    /// What the controller asked of the sender: marking it
    /// application-limited (BBR's ProbeRTT).
    fn after_control(&mut self) {
        if self.cc.marks_app_limited() {
            let in_flight = self.tcb.bytes_in_flight();
            if let Some(r) = &mut self.rate {
                r.app_limited(in_flight);
            }
        }
    }

    /// The flight before this ACK, as Linux's `tcp_packets_in_flight`
    /// counts it, for a controller that runs after loss detection.
    #[cold]
    #[inline(never)]
    pub(super) fn note_prior_pipe(&mut self) {
        if self.rate.as_ref().is_some_and(|r| r.late) {
            let pipe = self.linux_in_flight();
            self.rate.as_mut().expect("checked").prior_pipe = pipe;
        }
    }

    /// Bytes in flight neither SACKed nor marked lost.
    fn linux_in_flight(&self) -> u64 {
        let lost = self.rate.as_ref().map_or(0, |r| r.lost_out());
        (self.tcb.bytes_in_flight() - self.sb.sacked_bytes()).saturating_sub(lost)
    }

    /// `tp->is_cwnd_limited`: Linux's growth keeps it; otherwise, whether
    /// the flight before the ACK filled the window.
    fn was_cwnd_limited(&self, prior_in_flight: u64) -> bool {
        match self.cwnd_use.as_deref() {
            Some(u) => u.limited,
            None => prior_in_flight + self.mss() > self.tcb.cwnd,
        }
    }
}
