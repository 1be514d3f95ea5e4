// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sender's timers: the retransmission timeout (RFC 6298 5.4-5.6, RFC
//! 5681 (4) and (5): cwnd to one segment, ssthresh on the first of a
//! series, go back N; the recovery strategy and the slow-start component
//! hear of it; RACK's reordering and probe timers share the deadline) and
//! the pacing timer.

use super::conn::Setup;
use super::{Sender, SndState, TcpEventKind};
use crate::cc::{CaState, LossCause};
use crate::tcp::recovery::RecoveryStrategy;
use crate::tcp::TcpHeader;
use crate::time::SimTime;

impl Sender {
    /// The retransmission timer fired at `now`.
    pub fn on_rto(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if let Some(fired) = self.c.rack.as_mut().and_then(|r| r.take_due(now)) {
            self.rack_timer(now, fired, out);
            return;
        }
        let c = &mut self.c;
        match c.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        c.rto_deadline = None;
        c.tcb.now = now;
        match c.state {
            SndState::SynSent => {
                c.rtt.back_off();
                c.setup = Setup::SynRetransmitted;
                c.stats.retransmitted_segments += 1;
                c.cold.timeouts += 1;
                c.log(now, TcpEventKind::Timeout, 0);
                c.log(now, TcpEventKind::Retransmit, 0);
                self.send_syn(now, out);
                return;
            }
            SndState::Established if c.tcb.snd_una < c.tcb.snd_max => {}
            _ => {
                if self.window_stalled() {
                    self.window_probe(now, out);
                }
                return;
            }
        }
        c.cold.timeouts += 1;
        if c.setup == Setup::InitPending {
            c.init_cc();
        }
        if let Some(f) = &mut c.fine {
            f.last_reduction = now;
        }
        let first = c.rtt.backoffs() == 0;
        if c.keeps_undo() {
            c.undo_enter_loss(first);
        }
        // RFC 5681 (4): a timeout's FlightSize is all that is in flight.
        c.tcb.limited_sent = 0;
        c.timeout_flight();
        if c.rate.is_some() {
            // Linux's tcp_enter_loss marks everything not SACKed lost
            // (tcp_timeout_mark_lost) before it asks ssthresh and changes
            // the state; these marks are no ACK's.
            c.mark_lost(c.tcb.snd_una, c.tcb.snd_max);
            c.rate.as_mut().expect("sampling").settle();
        }
        c.cc.on_state(&mut c.tcb, CaState::Loss);
        if c.timeout_sets_ssthresh(first) {
            c.tcb.ssthresh = c.cc.ssthresh(&c.tcb, LossCause::Timeout);
        }
        c.tcb.ca_state = CaState::Loss;
        let mss = c.mss();
        c.tcb.set_cwnd(mss);
        c.tcb.cwnd_cnt = 0;
        c.tcb.recover = c.tcb.snd_max;
        c.dupacks = 0;
        c.tcb.snd_nxt = c.tcb.snd_una;
        if c.tcb.paced {
            c.pacing_on_timeout(now);
        }
        c.timing.on_timeout();
        if let Some(r) = &mut c.rack {
            r.on_timeout();
        }
        c.rtt.back_off();
        c.log(now, TcpEventKind::Timeout, c.tcb.snd_una);
        self.recovery.on_timeout(&mut self.c);
        let c = &mut self.c;
        if let Some(ss) = &mut c.slow_start {
            ss.on_timeout(&mut c.tcb);
        }
        self.try_send(now, out);
        let c = &mut self.c;
        if c.tcb.snd_una < c.tcb.snd_max {
            c.arm_rto_if_idle(now);
        }
    }

    /// The pacing timer fired: send what pacing held back.
    pub fn on_pace(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.c.pace_deadline.is_some_and(|d| d <= now) {
            self.c.pace_deadline = None;
            self.c.tcb.now = now;
            self.try_send(now, out);
            self.schedule_probe(now);
        }
    }
}
