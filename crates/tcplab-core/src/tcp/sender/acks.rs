// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sender's answer to an ACK of new data and to a duplicate ACK: the
//! RTT sample, the scoreboard moving on, what the controller hears, the
//! window's growth or the state's next step (called from `on_ack`).

use super::conn::Setup;
use super::{Sender, SndState, TcpEventKind};
use crate::cc::{Ack, CaState};
use crate::tcp::recovery::RecoveryStrategy;
use crate::tcp::{EcnResponse, TcpHeader};
use crate::time::{SimDuration, SimTime};

impl Sender {
    /// An ACK of new data; `sacked_before`: the bytes SACKed above
    /// snd_una before this ACK.
    /// `newest`: the newest segment's sample, with `cc_rtt = "newest"`.
    pub(super) fn new_ack(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        sacked_before: u64,
        newest: Option<Option<SimDuration>>,
    ) {
        let c = &mut self.c;
        let ack = h.ack;
        let acked = ack - c.tcb.snd_una;
        let prior_in_flight = c.tcb.bytes_in_flight();
        let rtt = if c.cfg.timestamps && h.ts_ecr > 0 {
            Some(now - SimTime::from_nanos(h.ts_ecr))
        } else {
            c.timing.on_ack(now, ack)
        };
        c.ack_rtt = rtt;
        let undo_on = c.keeps_undo();
        let new_sack = undo_on && c.undo_before_advance(ack, sacked_before);
        c.tcb.limited_sent = 0;
        c.tcb.snd_una = ack;
        if c.tcb.snd_nxt < ack {
            c.tcb.snd_nxt = ack;
        }
        if let Some(r) = rtt {
            // After snd_una moves: Linux's RTO policy ends its window of
            // data there.
            c.rtt.sample(&mut c.tcb, r);
        }
        if c.setup == Setup::InitPending {
            c.init_cc();
        }
        c.sb.advance(ack);
        if matches!(c.tcb.ca_state, CaState::Recovery | CaState::Cwr)
            || c.rack.is_some()
            || c.ecn.echo
        {
            // (RACK may start a recovery on this ACK, an echo a CWR.)
            let d = (acked + c.sb.sacked_bytes()).saturating_sub(sacked_before);
            c.delivered = d.min(u32::MAX as u64) as u32;
        }
        // Vegas: the first two new ACKs after a retransmission check whether
        // the next segment is also overdue.
        let checks = c.fine.as_mut().is_some_and(|f| f.on_new_ack(now, ack));
        let resent = checks && c.fine_expired(now).is_some();
        if resent {
            c.pending_retx = Some(c.tcb.snd_una);
        } else if let (true, Some(f)) = (checks, &mut c.fine) {
            f.nothing_overdue();
        }
        let cc_rtt = match newest {
            None => rtt,
            // Linux falls back on the echo (tcp_rtt_tsopt_us).
            Some(n) => n.or(rtt.filter(|_| c.cfg.timestamps)),
        };
        let segments_acked = acked.div_ceil(c.mss()) as u32;
        let grow_segments = c.grow_segments(segments_acked, acked, sacked_before, c.dupacks);
        let sample = Ack {
            now,
            bytes_acked: acked,
            segments_acked,
            grow_segments,
            is_dup: false,
            rtt: cc_rtt,
            seg_rtt: c.fine.as_ref().and_then(|f| f.newest_sample),
            prior_in_flight,
            ece: c.ecn.echo,
            ts: c.cfg.timestamps.then_some((h.ts_val, h.ts_ecr)),
        };
        c.cc.on_ack_sample(&c.tcb, &sample);
        // With a CWR state, an echo on an ACK of new data reduces before the
        // window could grow (Linux's tcp_fastretrans_alert before
        // tcp_cong_control; ns-3's EnterCwr before ProcessAck).
        let cwr_echo = c.ecn.echo && c.cfg.ecn_response != EcnResponse::Immediate;
        let undone = undo_on && self.undo_new_ack(now, h, new_sack);
        let c = &mut self.c;
        match c.tcb.ca_state {
            // After an undo the ACK is one of Open's: the window grows by
            // what it delivered (Linux runs tcp_cong_control after
            // tcp_fastretrans_alert's undo).
            CaState::Open if undone => self.open_ack(now, &sample, cwr_echo),
            _ if undone => {}
            CaState::Open | CaState::Disorder => {
                c.dupacks = 0;
                c.set_state(CaState::Open);
                self.open_ack(now, &sample, cwr_echo);
            }
            CaState::Cwr => {
                if self.cwr_ack(ack, acked) {
                    // The exit ACK is one of Open's: it may echo again (a
                    // new window was marked) or grow the window.
                    self.open_ack(now, &sample, cwr_echo);
                }
            }
            // ns-3 3.44 answers an echo in a recovery too: CWR takes its
            // place.
            CaState::Recovery if cwr_echo && c.cfg.ecn_response == EcnResponse::Ns3 => {
                self.cwr_enter(now, true)
            }
            CaState::Loss => {
                c.dupacks = 0;
                if ack >= c.tcb.recover {
                    c.set_state(CaState::Open);
                    c.log(now, TcpEventKind::RecoveryExit, ack);
                }
                c.slow_start_check(now, ack, rtt);
                if c.may_grow() {
                    c.cc.increase_window(&mut c.tcb, &sample);
                }
            }
            CaState::Recovery => self.recovery_ack(now, ack, acked, &sample),
        }
        let c = &mut self.c;
        if resent && c.tcb.ca_state == CaState::Open {
            self.recovery.fine_resent(c);
        }
        // RFC 6298 5.2 / 5.3.
        if c.tcb.snd_una < c.tcb.snd_max {
            c.arm_rto(now);
        } else {
            c.rto_deadline = None;
        }
        if c.closing && c.tcb.snd_una > c.data_end && c.state == SndState::Established {
            c.state = SndState::Done;
            c.rto_deadline = None;
            c.log(now, TcpEventKind::Closed, ack);
        }
    }

    /// An ACK of new data in Open: an echo enters CWR (`cwr_echo`), or
    /// the window grows.
    #[inline(always)]
    pub(super) fn open_ack(&mut self, now: SimTime, sample: &Ack, cwr_echo: bool) {
        if cwr_echo {
            self.cwr_enter(now, true);
        } else {
            let c = &mut self.c;
            // (snd_una is this ACK's number by now.)
            let ack = c.tcb.snd_una;
            c.slow_start_check(now, ack, sample.rtt);
            if c.may_grow() {
                c.cc.increase_window(&mut c.tcb, sample);
            }
        }
    }

    /// `rtt`: the newest segment's sample (a new SACK), with `cc_rtt =
    /// "newest"`.
    pub(super) fn dup_ack(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        rtt: Option<SimDuration>,
        out: &mut Vec<TcpHeader>,
    ) {
        let c = &mut self.c;
        c.dupacks += 1;
        let sample = Ack {
            now,
            bytes_acked: 0,
            segments_acked: 0,
            grow_segments: 0,
            is_dup: true,
            rtt,
            seg_rtt: None,
            prior_in_flight: c.tcb.bytes_in_flight(),
            ece: c.ecn.echo,
            ts: c.cfg.timestamps.then_some((h.ts_val, h.ts_ecr)),
        };
        c.cc.on_ack_sample(&c.tcb, &sample);
        match c.tcb.ca_state {
            CaState::Open | CaState::Disorder => {
                if c.dupacks < c.dupthresh() {
                    if let Some(sent_at) = c.fine_expired(now) {
                        // Vegas: retransmit at once; the strategy says
                        // whether that starts a recovery.
                        if self.recovery.fine_overdue(c, now, sent_at, out) {
                            self.enter_recovery(now, out);
                        }
                        return;
                    }
                }
                if self.recovery.loss_detected(c) && self.recovery.may_start(c) {
                    self.enter_recovery(now, out);
                } else {
                    c.set_state(CaState::Disorder);
                }
            }
            CaState::Recovery if self.recovery.resends(c, now) => self.enter_recovery(now, out),
            CaState::Recovery => self.recovery.on_dupack(c),
            CaState::Cwr => self.cwr_dupack(now),
            CaState::Loss => {}
        }
    }
}
