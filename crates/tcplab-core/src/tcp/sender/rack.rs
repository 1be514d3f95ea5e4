// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sender's side of RACK-TLP ([`super::super::rack`]): the recovery RACK
//! starts outside duplicate ACKs, the reduction a retransmitted loss probe
//! calls for, the probe timer, and what the reordering and probe timers do
//! when they fire.

use super::conn::{Conn, SndState};
use super::{Sender, TcpEventKind};
use crate::cc::{CaState, CwndEvent, LossCause};
use crate::tcp::rack::Fired;
use crate::tcp::recovery::RecoveryStrategy;
use crate::tcp::TcpHeader;
use crate::time::SimTime;

impl Sender {
    /// RACK marked a segment lost outside a recovery (on any ACK, or when
    /// its reordering timer fired): the recovery starts.
    pub(super) fn rack_recovery(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.c.tcb.ca_state == CaState::Cwr && self.recovery.loss_detected(&self.c) {
            // Linux: the ECN reduction under way continues as the recovery.
            self.cwr_loss(now);
            return;
        }
        let c = &self.c;
        if matches!(c.tcb.ca_state, CaState::Open | CaState::Disorder)
            && self.recovery.loss_detected(c)
            && self.recovery.may_start(c)
        {
            self.enter_recovery(now, out);
        }
    }

    /// A retransmitted loss probe repaired a loss: the window is reduced
    /// once, as Linux's CWR (ssthresh from the controller, cwnd = ssthresh).
    pub(super) fn probe_repaired(&mut self, now: SimTime) {
        let c = &mut self.c;
        let state = c.tcb.ca_state;
        // No recovery point: a loss RACK finds in the next flight must
        // start a recovery (Linux's CWR does not move high_seq's guard).
        let recover = c.tcb.recover;
        c.reduce(now, CaState::Recovery, LossCause::DupAcks);
        c.tcb.recover = recover;
        let ssthresh = c.tcb.ssthresh;
        c.recovery_cwnd(ssthresh);
        c.cc.on_state(&mut c.tcb, state);
        c.tcb.ca_state = state;
        c.cc.cwnd_event(&mut c.tcb, CwndEvent::TlpRecovery);
    }

    /// After a timeout (the Loss state), RACK can find a retransmission
    /// lost again, below where going back N has reached: it is sent again
    /// as the window allows, as Linux does in Loss, instead of waiting for
    /// another, backed-off timeout.
    pub(super) fn loss_retransmit(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let c = &mut self.c;
        let mss = c.mss();
        while let Some(s) = c.rack.as_ref().and_then(|r| {
            r.next_lost(c.tcb.snd_una)
                .filter(|&s| s < c.tcb.snd_nxt && r.pipe() + mss <= c.tcb.cwnd)
        }) {
            c.retransmit(now, s, out);
        }
    }

    /// Arms the tail loss probe after sending or an ACK (RACK-TLP); the
    /// probe retransmits the last segment not SACKed (Linux and RFC 8985
    /// name the last segment: resending a SACKed one would tell nothing).
    pub(super) fn schedule_probe(&mut self, now: SimTime) {
        let c = &mut self.c;
        if let Some(r) = &mut c.rack {
            let open = c.state == SndState::Established && c.tcb.ca_state == CaState::Open;
            let flight = c.tcb.bytes_in_flight();
            r.schedule_probe(
                now,
                open,
                flight,
                c.cfg.mss as u64,
                c.tcb.srtt,
                c.rto_deadline,
            );
        }
    }

    /// RACK's timer fired: detect losses again, or send a loss probe.
    pub(super) fn rack_timer(&mut self, now: SimTime, fired: Fired, out: &mut Vec<TcpHeader>) {
        let c = &mut self.c;
        c.tcb.now = now;
        if c.state != SndState::Established || c.tcb.snd_una == c.tcb.snd_max {
            return;
        }
        match fired {
            Fired::Reorder => {
                c.rack_detect_loss(now);
                if let Some(r) = &mut c.rate {
                    r.settle(); // the timer's marks are no ACK's
                }
                c.delivered = 0;
                self.rack_recovery(now, out);
                self.try_send(now, out);
            }
            Fired::Probe => {
                // RFC 8985 7.3: new data if the receiver's window allows,
                // else the last segment again, whatever cwnd says.
                let mss = c.mss();
                let room = c.tcb.snd_una + c.rwnd;
                let new_ok = c.tcb.snd_nxt == c.tcb.snd_max
                    && c.tcb.snd_max < c.data_end
                    && c.tcb.snd_max + mss.min(c.data_end - c.tcb.snd_max) <= room;
                let (seq, retrans) = if new_ok {
                    let seq = c.tcb.snd_max;
                    let end = c.segment_end(seq);
                    c.emit(now, seq, end - seq, false, out);
                    c.tcb.snd_nxt = c.tcb.snd_max;
                    (seq, false)
                } else if c.closing && c.cold.fin_alone && c.tcb.snd_max > c.data_end {
                    // The FIN went out alone, after all the data: it is the
                    // last segment (Linux's FIN-only skb at the tail of the
                    // write queue), and the probe sends it again.
                    c.probe_retransmit(now, c.data_end, out);
                    (c.data_end, true)
                } else {
                    let Some(s) = c.rack.as_ref().and_then(|r| r.last_unsacked()) else {
                        return;
                    };
                    c.probe_retransmit(now, s, out);
                    (s, true)
                };
                let end = c.tcb.snd_max;
                if let Some(r) = &mut c.rack {
                    r.probe_sent(end, retrans);
                }
                c.log(now, TcpEventKind::LossProbe, seq);
                c.arm_rto(now);
            }
        }
        self.schedule_probe(now);
    }
}

impl Conn {
    /// With RACK on, it marks what is lost now (RFC 8985 6.2), its
    /// reordering window as the state allows (Linux's, with
    /// `adaptive_reordering`).
    pub(super) fn rack_detect_loss(&mut self, now: SimTime) {
        let dupthresh = self.dupthresh();
        if let Some(r) = &mut self.rack {
            let in_recovery = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
            let reo = if self.cfg.adaptive_reordering {
                self.cold.reordering.as_deref()
            } else {
                None
            };
            let (min_rtt, srtt) = (self.tcb.min_rtt, self.tcb.srtt);
            r.detect_loss(now, in_recovery, dupthresh, min_rtt, srtt, reo);
            if let Some(rate) = self.rate.as_mut().filter(|_| r.newly_lost) {
                let (cc, tcb) = (&mut self.cc, &mut self.tcb);
                for (a, b) in r.lost_ranges() {
                    rate.mark_lost(a, b, |seg| cc.on_marked_lost(tcb, &seg));
                }
            }
        }
    }

    /// The rate sampler marks [from, to) lost (a timeout's marks); the
    /// controller hears of each segment.
    pub(super) fn mark_lost(&mut self, from: u64, to: u64) {
        if let Some(r) = &mut self.rate {
            let (cc, tcb) = (&mut self.cc, &mut self.tcb);
            r.mark_lost(from, to, |seg| cc.on_marked_lost(tcb, &seg));
        }
    }

    /// A loss probe's retransmission: the rate sampler does not take it
    /// for a repair of a loss.
    fn probe_retransmit(&mut self, now: SimTime, seq: u64, out: &mut Vec<TcpHeader>) {
        if let Some(r) = &mut self.rate {
            r.probing = true;
        }
        self.retransmit(now, seq, out);
        if let Some(r) = &mut self.rate {
            r.probing = false;
        }
    }
}
