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
use super::{syn_options, RtoRestart, TcpConfig, TcpHeader};
use super::{ACK, CWR, ECE, SYN};
use crate::cc::{CaState, CongestionControl, CwndEvent, Tcb};
use crate::time::SimTime;
use conn::{Setup, SndState};
pub use info::SenderInfo;

mod acks;
mod conn;
mod cwr;
mod frto;
mod growth;
mod info;
mod pacing;

/// Linux's `tcp_min_tso_segs` default: an skb of the linux pacing form
/// holds at least 2 segments.
const MIN_TSO_SEGS: u32 = 2;
mod persist;
mod rack;
mod reordering;
mod send;
mod signals;
mod stats;
mod timeout_ssthresh;
mod timers;
mod undo;
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

    /// Paces this sender as Linux does under the `fq` qdisc (see
    /// [`pacing`]): `tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio` (percent)
    /// and `tcp_min_tso_segs`.
    pub fn enable_linux_pacing(&mut self, ss_ratio: u32, ca_ratio: u32, min_tso_segs: u32) {
        let max_rate = self
            .c
            .cold
            .pacer
            .as_deref()
            .map_or(f64::INFINITY, |p| p.max_rate());
        self.start_pacing(pacing::PacerConfig {
            form: crate::tcp::Pacing::Linux,
            ss_ratio,
            ca_ratio,
            max_rate,
            pace_iw: false,
            initial_window: self.c.cfg.initial_cwnd,
            min_tso_segs,
        });
    }

    /// Paces this sender as the flow's `pacing` says (before it opens).
    pub fn set_pacing(&mut self, p: &crate::tcp::PacingConfig) {
        self.start_pacing(pacing::PacerConfig {
            form: p.form,
            ss_ratio: u32::from(p.ss_ratio),
            ca_ratio: u32::from(p.ca_ratio),
            max_rate: p.max_rate,
            pace_iw: p.pace_initial_window,
            initial_window: self.c.cfg.initial_cwnd,
            min_tso_segs: MIN_TSO_SEGS,
        });
    }

    fn start_pacing(&mut self, p: pacing::PacerConfig) {
        self.c.cold.pacer = Some(Box::new(pacing::Pacer::new(p)));
        self.c.tcb.paced = true;
    }

    /// The application's record ends at sequence number `end` (MSG_EOR): no
    /// retransmission crosses it. New data is held at a record's end by the
    /// caller, which raises the limit past it once the record is sent (the
    /// packetdrill harness, [`crate::drill::Drill::write`]).
    pub fn mark_record_end(&mut self, end: u64) {
        let una = self.c.tcb.snd_una;
        let records = &mut self.c.cold.records;
        records.retain(|&b| b > una);
        records.push(end);
    }

    /// Freezes the application data at what has been sent so far (an OFF
    /// period of an ON/OFF source): nothing new is sent until more is written.
    pub fn pause_app(&mut self) {
        self.c.data_end = self.c.tcb.snd_max.max(1);
    }

    /// The application closes: a FIN follows the last data.
    pub fn close(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.c.tcb.now = now;
        if !self.c.closing {
            self.c.cold.fin_alone = self.c.tcb.snd_max >= self.c.data_end;
        }
        self.c.closing = true;
        self.try_send(now, out);
        // The FIN counts as the flight's last segment for the loss probe.
        self.schedule_probe(now);
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
        if c.tcb.paced {
            c.update_pacing_rate();
        }
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
        if self.c.tcb.snd_una == self.c.tcb.snd_max && self.c.rto_deadline.is_some() {
            // The persist timer, nothing in flight: the window this ACK
            // brings decides anew (Linux's tcp_ack_probe); data it lets out
            // starts a fresh retransmission timer.
            self.c.rto_deadline = None;
        }
        self.c.ecn.echo = self.c.ecn.ok && h.has(ECE);
        if self.c.rate.is_some() {
            self.c.note_prior_pipe();
        }
        let was_recovering = matches!(self.c.tcb.ca_state, CaState::Recovery | CaState::Loss);
        self.c.ack_rtt = None;
        self.c.delivered = 0;
        let mut is_dup = false;
        let sacked_before = self.c.sb.sacked_bytes();
        self.c.undo_before_sack();
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
        if ack == self.c.tcb.snd_una && self.c.keeps_undo() {
            let new_sack = self.c.undo_before_advance(ack, sacked_before);
            self.undo_old_ack(now, h, new_sack);
        }
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
        let late =
            self.c.rate.is_some() && self.rate_sample(now, is_dup, was_recovering, una_before);
        if self.c.rack.is_some() {
            self.rack_recovery(now, out);
        }
        if self.c.ecn.echo {
            let advanced = self.c.tcb.snd_una > una_before;
            self.ecn_echo(now, advanced);
        }
        if late {
            self.c.late_control();
        }
        if is_dup || self.c.tcb.ca_state == CaState::Recovery {
            self.c.cc.after_ack(&mut self.c.tcb);
        }
        if self.c.cfg.adaptive_reordering {
            self.c.reorder_after_ack(was_recovering);
        }
        if self.c.tcb.paced {
            self.c.update_pacing_rate();
        }
        self.try_send(now, out);
        self.schedule_probe(now);
    }

    fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.c.cold.fast_retransmits += 1;
        if self.c.keeps_undo() {
            self.c.undo_enter_recovery(false);
        }
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
        if state == CaState::Loss && self.c.cfg.frto && self.frto_send(now, out) {
            return;
        }
        if state == CaState::Loss && self.c.rack.is_some() {
            self.loss_retransmit(now, out);
        }
        self.c.send_window(now, out);
        // One branch on the common path: a flight left, Linux's growth off.
        if (self.c.tcb.snd_una == self.c.tcb.snd_max) | self.c.cwnd_use.is_some() {
            self.after_send(now);
        }
    }

    /// After sending into idle, or with Linux's growth: its record of the
    /// window's use, and the persist timer.
    #[cold]
    #[inline(never)]
    fn after_send(&mut self, now: SimTime) {
        if self.c.cwnd_use.is_some() {
            self.c.cwnd_validate();
        }
        if self.c.tcb.snd_una == self.c.tcb.snd_max {
            self.check_persist(now);
        }
    }
}
