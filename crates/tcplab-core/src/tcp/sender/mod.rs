// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sending end: handshake, ACK processing, the retransmission timer
//! (RFC 6298) and the application's side, around two strategies chosen per
//! connection: congestion control ([`crate::cc`]) and loss recovery
//! ([`super::recovery`]).
//!
//! An ACK of new data acknowledges bytes, takes an RTT sample, grows the
//! window (outside recovery) or goes to the recovery strategy (in it); a
//! duplicate ACK counts towards DupThresh and starts a recovery when the
//! strategy detects a loss and its guard allows. After a timeout the sender
//! goes back N (skipping SACKed data when SACK is on) from a 1-MSS window;
//! ssthresh is reduced only on the first timeout of a series (RFC 5681 (5)).
//! Limited transmit (RFC 3042) lives in the connection's window
//! ([`Conn::send_window`]).

use super::recovery::{RecoveryStrategy, Strategy};
use super::rtt::RttEstimator;
use super::{syn_options, EcnResponse, RtoRestart, TcpConfig, TcpHeader};
use super::{ACK, CWR, ECE, SYN};
use crate::cc::{Ack, CaState, CongestionControl, CwndEvent, Tcb};
use crate::time::{SimDuration, SimTime};
use conn::{Setup, SndState};

mod conn;
mod cwr;
mod rack;
mod reordering;
mod signals;
mod stats;
mod timeout_ssthresh;
mod timers;
mod view;

pub use conn::Conn;
pub use stats::{ColdStats, SenderStats, SentStats};

pub use super::event::{TcpEvent, TcpEventKind};

/// The sending end of a connection: its state and machinery ([`Conn`]) and
/// its loss-recovery strategy.
#[derive(Debug)]
pub struct Sender {
    c: Conn,
    recovery: Strategy,
}

impl Sender {
    pub fn new(cfg: TcpConfig, cc: Box<dyn CongestionControl>, fine_retransmit: bool) -> Self {
        let recovery = Strategy::new(cfg.recovery, &cfg);
        let mut c = Conn::new(cfg, cc, fine_retransmit);
        if c.cfg.adaptive_reordering {
            c.cold.reordering = Some(super::reordering::Reordering::new(c.cfg.dupthresh));
        }
        Sender { c, recovery }
    }

    // ---- what the world reads ----------------------------------------------

    pub fn mss(&self) -> u64 {
        self.c.mss()
    }

    pub fn config(&self) -> &TcpConfig {
        &self.c.cfg
    }

    /// The control state: windows, sequence numbers, RTT estimates.
    pub fn tcb(&self) -> &Tcb {
        &self.c.tcb
    }

    pub fn rtt(&self) -> &RttEstimator {
        &self.c.rtt
    }

    pub fn cc(&self) -> &dyn CongestionControl {
        self.c.cc.as_ref()
    }

    pub fn cc_mut(&mut self) -> &mut dyn CongestionControl {
        self.c.cc.as_mut()
    }

    /// The connection's counters, hot and cold.
    pub fn stats(&self) -> SenderStats {
        SenderStats::new(&self.c.stats, &self.c.cold)
    }

    /// The SACK scoreboard (tests).
    #[cfg(test)]
    pub(crate) fn sb(&self) -> &super::scoreboard::Scoreboard {
        &self.c.sb
    }

    /// The retransmission timer's deadline, if running, or RACK's
    /// reordering or probe timer if earlier (one timer, as Linux's).
    pub fn rto_deadline(&self) -> Option<SimTime> {
        match &self.c.rack {
            None => self.c.rto_deadline,
            Some(r) => match (self.c.rto_deadline, r.deadline()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// The pacing timer's deadline, if the sender waits for it.
    pub fn pace_deadline(&self) -> Option<SimTime> {
        self.c.pace_deadline
    }

    /// Starts recording the event log.
    pub fn record_events(&mut self) {
        self.c.events = Some(Box::default());
    }

    /// The events logged since the last call.
    pub fn events_mut(&mut self) -> Option<&mut Vec<TcpEvent>> {
        self.c.events.as_deref_mut()
    }

    /// Bytes sent and not cumulatively acknowledged (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.c.tcb.bytes_in_flight()
    }

    /// Application bytes acknowledged by the peer.
    pub fn bytes_acked(&self) -> u64 {
        self.c
            .tcb
            .snd_una
            .saturating_sub(1)
            .min(self.c.data_end.saturating_sub(1))
    }

    // ---- application side -------------------------------------------------

    /// Opens the connection: sends the SYN.
    pub fn open(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.c.tcb.now = now;
        self.c.state = SndState::SynSent;
        self.send_syn(now, out);
    }

    /// Opens the connection without a handshake (`handshake = false`): both
    /// ends start established with the options their common configuration
    /// asks for, and the first data leaves now. The RTO is
    /// the initial one until the first sample; the controller is
    /// initialised at the first ACK of new data, when an RTT is known (as
    /// a handshake's SYN-ACK would have given it; ns-2's TCP-Linux runs a
    /// module's `init` at the first ACK too).
    pub fn open_established(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let c = &mut self.c;
        c.tcb.now = now;
        c.tcb.snd_nxt = 1;
        c.tcb.snd_max = 1;
        // The peer's buffer, as its first ACK will advertise it.
        let rwnd = (c.wnd_field as u64) << c.peer_shift;
        c.establish(c.cfg.ecn, rwnd);
        c.setup = Setup::InitPending;
        c.last_send = now;
        c.log(now, TcpEventKind::Established, 1);
        self.try_send(now, out);
        self.schedule_probe(now);
    }

    fn send_syn(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let c = &mut self.c;
        c.cold.syn_sent_at = now;
        c.tcb.snd_nxt = 1;
        c.tcb.snd_max = 1;
        let h = TcpHeader {
            seq: 0,
            // RFC 3168 6.1.1: an ECN-setup SYN.
            flags: if c.cfg.ecn { SYN | ECE | CWR } else { SYN },
            // RFC 7323 2.2: the window of a SYN is never scaled.
            wnd: c.cfg.rcv_buf.min(65_535) as u16,
            opt_len: syn_options(&c.cfg) as u8,
            ts_val: now.as_nanos(),
            // DCTCP's SYN is ECN-capable too (Linux, ns-3's UseEct0).
            ect: c.cfg.ecn && c.cc.needs_ecn(),
            ..TcpHeader::default()
        };
        c.stats.segments_sent += 1;
        out.push(h);
        c.arm_rto(now);
    }

    /// The application's data now ends at byte `total` (counted from 0); it
    /// may only grow. `u64::MAX` means endless.
    pub fn set_app_limit(&mut self, now: SimTime, total: u64, out: &mut Vec<TcpHeader>) {
        let end = if total == u64::MAX {
            u64::MAX
        } else {
            total + 1
        };
        self.c.tcb.now = now;
        // Data already sent stays sent: the end never falls below snd_max.
        self.c.data_end = end.max(self.c.tcb.snd_max).max(1);
        self.try_send(now, out);
        self.schedule_probe(now);
    }

    /// Freezes the application data at what has been sent so far (an OFF
    /// period of an ON/OFF source): nothing new is sent until more is written.
    pub fn pause_app(&mut self) {
        self.c.data_end = self.c.tcb.snd_max.max(1);
    }

    /// The application closes: a FIN follows the last data.
    pub fn close(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.c.tcb.now = now;
        self.c.closing = true;
        self.try_send(now, out);
    }

    // ---- ACK processing ---------------------------------------------------

    /// Handles a segment from the receiver.
    pub fn on_segment(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        self.c.tcb.now = now;
        if self.c.cfg.timestamps && h.ts_val >= self.c.ts_recent {
            self.c.ts_recent = h.ts_val; // RFC 7323 4.3: never backwards
        }
        match self.c.state {
            SndState::Closed | SndState::Done => {}
            SndState::SynSent => {
                if h.has(SYN) && h.has(ACK) && h.ack == 1 {
                    self.established(now, h, out);
                }
            }
            SndState::Established => {
                if h.has(SYN) {
                    // A repeated SYN-ACK: our handshake ACK was lost.
                    out.push(self.c.pure_ack(now));
                    return;
                }
                self.on_ack(now, h, out);
            }
        }
    }

    fn established(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        let c = &mut self.c;
        // RFC 3168 6.1.1: an ECN-setup SYN-ACK has ECE and not CWR. RFC
        // 7323 2.2: the window in a SYN is never scaled.
        c.establish(c.cfg.ecn && h.has(ECE) && !h.has(CWR), h.wnd as u64);
        let sample = if c.cfg.timestamps && h.ts_ecr > 0 {
            Some(now - SimTime::from_nanos(h.ts_ecr))
        } else if c.setup != Setup::SynRetransmitted {
            Some(now - c.cold.syn_sent_at)
        } else {
            None
        };
        if let Some(f) = &mut c.fine {
            f.on_handshake(sample.unwrap_or(now - c.cold.syn_sent_at));
        }
        if let Some(r) = sample {
            c.rtt.sample(&mut c.tcb, r);
        } else {
            // RFC 6298 5.7: the SYN timed out and no sample was possible: the
            // RTO starts data transmission at 3 s (if it was lower).
            c.rtt.reinit_after_syn_timeout();
        }
        c.rto_deadline = None;
        c.last_send = now;
        c.init_cc();
        c.log(now, TcpEventKind::Established, 1);
        out.push(c.pure_ack(now));
        self.try_send(now, out);
        self.schedule_probe(now);
    }

    fn on_ack(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        let ack = h.ack;
        if ack > self.c.tcb.snd_max {
            return; // acknowledges something never sent
        }
        self.c.rwnd = (h.wnd as u64) << self.c.peer_shift;
        self.c.ecn.echo = self.c.ecn.ok && h.has(ECE);
        let was_recovering = matches!(self.c.tcb.ca_state, CaState::Recovery | CaState::Loss);
        self.c.ack_rtt = None;
        self.c.delivered = 0;
        let mut is_dup = false;
        let sacked_before = self.c.sb.sacked_bytes();
        if self.c.cfg.sack {
            if self.recovery.takes_sack(&self.c, ack > self.c.tcb.snd_una) {
                if self.c.cfg.adaptive_reordering {
                    self.c.reorder_on_ack(h);
                }
                for &(a, b) in h.sack_blocks() {
                    if b > ack && b <= self.c.tcb.snd_max {
                        self.c.sb.add(a.max(ack), b);
                    }
                }
            } else {
                self.c.sb.clear();
            }
        }
        let una_before = self.c.tcb.snd_una;
        let c = &mut self.c;
        if let Some(r) = &mut c.rack {
            r.on_ack(now, ack.max(una_before), h.sack_blocks(), c.tcb.min_rtt);
            if c.cfg.adaptive_reordering {
                if let Some(o) = &mut c.cold.reordering {
                    o.update_reo_wnd(now, r.newest_delivered());
                }
            }
            c.rack_detect_loss(now);
            let new_sack = c.sb.sacked_bytes() > sacked_before;
            let rack = c.rack.as_mut().expect("RACK is on");
            if rack.probe_acked(ack, ack > una_before, new_sack) {
                self.probe_repaired(now);
            }
        }
        // The controller's sample with `cc_rtt = "newest"` (every ACK's SACK
        // blocks mark its send times, whatever follows).
        let una = self.c.tcb.snd_una;
        let newest = self
            .c
            .newest
            .as_mut()
            .map(|n| n.on_ack(now, ack.max(una), h.sack_blocks()));
        if ack > self.c.tcb.snd_una {
            self.new_ack(now, h, sacked_before, newest);
        } else if ack == self.c.tcb.snd_una && h.len == 0 && self.c.tcb.snd_una < self.c.tcb.snd_max
        {
            is_dup = true;
            self.c.stats.dupacks += 1;
            let sacked = self.c.sb.sacked_bytes();
            self.c.delivered = sacked.saturating_sub(sacked_before).min(u32::MAX as u64) as u32;
            let new_sack = sacked > sacked_before;
            if self.recovery.counts_dupack(&self.c, new_sack) {
                self.dup_ack(now, h, newest.flatten(), out);
            }
        }
        if self.c.rate.is_some() {
            self.rate_sample(now, is_dup, was_recovering);
        }
        if self.c.rack.is_some() {
            self.rack_recovery(now, out);
        }
        if self.c.ecn.echo {
            let advanced = self.c.tcb.snd_una > una_before;
            self.ecn_echo(now, advanced);
        }
        if is_dup || self.c.tcb.ca_state == CaState::Recovery {
            self.c.cc.after_ack(&mut self.c.tcb);
        }
        if self.c.cfg.adaptive_reordering {
            self.c.reorder_after_ack(was_recovering);
        }
        self.try_send(now, out);
        self.schedule_probe(now);
    }

    /// An ACK of new data; `sacked_before`: the bytes SACKed above
    /// snd_una before this ACK.
    /// `newest`: the newest segment's sample, with `cc_rtt = "newest"`.
    fn new_ack(
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
        let sample = Ack {
            now,
            bytes_acked: acked,
            segments_acked: acked.div_ceil(c.mss()) as u32,
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
        match c.tcb.ca_state {
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
                c.cc.increase_window(&mut c.tcb, &sample);
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
    fn open_ack(&mut self, now: SimTime, sample: &Ack, cwr_echo: bool) {
        if cwr_echo {
            self.cwr_enter(now, true);
        } else {
            let c = &mut self.c;
            // (snd_una is this ACK's number by now.)
            let ack = c.tcb.snd_una;
            c.slow_start_check(now, ack, sample.rtt);
            c.cc.increase_window(&mut c.tcb, sample);
        }
    }

    /// `rtt`: the newest segment's sample (a new SACK), with `cc_rtt =
    /// "newest"`.
    fn dup_ack(
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

    fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.c.cold.fast_retransmits += 1;
        self.recovery.start(&mut self.c, now, out);
        if self.c.cfg.rto_restart == RtoRestart::FastRetransmit {
            // ns-2's dupack_action: reset_rtx_timer(1, 0).
            self.c.arm_rto(now);
        }
        self.c.retransmit_backoff(now);
    }

    // ---- transmission -----------------------------------------------------

    /// Sends whatever the windows and the recovery state allow.
    fn try_send(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let c = &mut self.c;
        if c.state != SndState::Established {
            return;
        }
        if let Some(s) = c.pending_retx.take() {
            // (ns-2's Vegas may "resend" the next new segment: it then goes
            // twice, as send_much sends it again.)
            if s >= c.tcb.snd_una && s <= c.tcb.snd_max && s < c.data_end {
                c.retransmit(now, s, out);
            }
        }
        if c.cfg.restart_after_idle
            && !c.cc_owns_cwnd
            && c.tcb.snd_una == c.tcb.snd_max
            && now - c.last_send > c.rtt.rto()
            && c.tcb.ca_state == CaState::Open
        {
            // RFC 5681 4.1 (Linux's CA_EVENT_CWND_RESTART).
            c.cc.cwnd_event(&mut c.tcb, CwndEvent::Restart);
            c.tcb.cwnd = c.tcb.cwnd.min(c.cfg.initial_cwnd);
        }
        let state = c.tcb.ca_state;
        if state == CaState::Recovery && self.recovery.send(c, now, out) {
            return;
        }
        if state == CaState::Cwr && self.cwr_send(now, out) {
            return;
        }
        if state == CaState::Loss && self.c.rack.is_some() {
            self.loss_retransmit(now, out);
        }
        self.c.send_window(now, out);
    }
}
