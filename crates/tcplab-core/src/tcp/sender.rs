// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sending end: handshake, transmission, ACK processing, the
//! retransmission timer (RFC 6298) and loss recovery.
//!
//! Recovery strategies (selected per connection, independent of the
//! congestion controller):
//! - tahoe: on DupThresh duplicate ACKs, ssthresh from the controller,
//!   cwnd = 1 MSS, and go back N from the first unacknowledged byte (the
//!   Loss state, as after a timeout, without the backoff);
//! - reno (RFC 5681 3.2): retransmit, cwnd = ssthresh + 3 MSS, inflate by 1
//!   MSS per further duplicate, deflate to ssthresh and leave on the first
//!   ACK of new data;
//! - newreno (RFC 6582): as reno, but a partial ACK retransmits the next hole
//!   and deflates by the amount acknowledged (adding back one MSS); recovery
//!   ends when the recovery point is acknowledged, with cwnd =
//!   min(ssthresh, max(FlightSize, MSS) + MSS) (the RFC's option 1);
//! - sack (RFC 6675): cwnd = ssthresh, the scoreboard's pipe decides how much
//!   may be sent, NextSeg picks lost segments first, then new data, then
//!   other holes (rule 4, the rescue retransmission, is not implemented).
//!
//! Fast retransmit is entered only when the cumulative ACK is above the
//! previous recovery point (RFC 6582 3.2 step 1) for tahoe, newreno and sack,
//! so the duplicates that follow a timeout do not trigger a second
//! reduction; reno has no such guard, as in RFC 5681. Limited transmit (RFC
//! 3042) is not implemented. After a timeout the sender goes back N
//! (skipping SACKed data when SACK is on) from a 1-MSS window; ssthresh is
//! reduced only on the first timeout of a series (RFC 5681 (5)).

use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::{
    base_options, syn_options, window_shift, Recovery, RecoveryExit, TcpConfig, TcpHeader,
};
use super::{ACK, FIN, SYN};
use crate::cc::{Ack, CaState, CongestionControl, LossCause, RateSample, Tcb};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SndState {
    /// Not started yet.
    Closed,
    SynSent,
    Established,
    /// Everything, FIN included, is acknowledged.
    Done,
}

/// Something that happened to the connection, for the event log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpEventKind {
    Established,
    /// Fast retransmit triggered (entering fast recovery, or Tahoe's restart).
    FastRetransmit,
    /// A segment was retransmitted.
    Retransmit,
    /// The retransmission timer expired.
    Timeout,
    /// A partial ACK during NewReno/SACK recovery.
    PartialAck,
    /// Back to Open after recovery or loss.
    RecoveryExit,
    /// All data and the FIN acknowledged.
    Closed,
}

impl TcpEventKind {
    pub fn name(self) -> &'static str {
        match self {
            TcpEventKind::Established => "established",
            TcpEventKind::FastRetransmit => "fast_retransmit",
            TcpEventKind::Retransmit => "retransmit",
            TcpEventKind::Timeout => "timeout",
            TcpEventKind::PartialAck => "partial_ack",
            TcpEventKind::RecoveryExit => "recovery_exit",
            TcpEventKind::Closed => "closed",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpEvent {
    pub time: SimTime,
    pub kind: TcpEventKind,
    /// The sequence number concerned (segment start, or the ACK).
    pub seq: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Segments transmitted in the data direction (SYN, data, FIN),
    /// retransmissions included, and their payload bytes.
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Duplicate ACKs received (RFC 5681's definition).
    pub dupacks: u64,
}

#[derive(Debug)]
pub struct Sender {
    cfg: TcpConfig,
    pub cc: Box<dyn CongestionControl>,
    pub tcb: Tcb,
    pub state: SndState,
    pub rtt: RttEstimator,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    /// Next sequence number to send (moves back on go-back-N).
    pub snd_nxt: u64,
    /// Highest sequence number sent + 1.
    pub snd_max: u64,
    /// The peer's window, bytes.
    rwnd: u64,
    peer_shift: u8,
    dupacks: u32,
    /// Recovery point: snd_max when recovery or loss began.
    recover: u64,
    /// Highest sequence number retransmitted in this recovery (RFC 6675).
    high_rxt: u64,
    /// A NewReno partial ACK asks for this segment to be retransmitted.
    pending_retx: Option<u64>,
    sb: Scoreboard,
    /// Sequence number just past the application's data (u64::MAX: endless).
    data_end: u64,
    /// The application will write no more: send a FIN after `data_end`.
    closing: bool,
    /// The segment being timed for an RTT sample, without timestamps.
    timed: Option<(u64, SimTime)>,
    syn_sent_at: SimTime,
    syn_retransmitted: bool,
    last_send: SimTime,
    /// Latest TSval from the peer, echoed in TSecr.
    ts_recent: u64,
    base_opts: u8,
    wnd_field: u16,
    /// The retransmission timer's deadline, if running.
    pub rto_deadline: Option<SimTime>,
    pub stats: SenderStats,
    /// When recording the event log.
    pub events: Option<Vec<TcpEvent>>,
    /// Fine-grained retransmission (Vegas): when each outstanding segment
    /// (by its first sequence number) was last sent.
    sent_times: std::collections::VecDeque<(u64, SimTime)>,
    /// When the window was last reduced (recovery or timeout).
    last_reduction: SimTime,
    /// New ACKs after a retransmission still to be checked (Vegas: two).
    check_after_retx: u8,
    /// The controller sets cwnd and pacing from rate samples (BBR).
    full: bool,
    /// Delivery-rate state (draft-cheng-iccrg-delivery-rate-estimation):
    /// bytes delivered, when last delivered, and the send time of the
    /// most recently sent delivered segment.
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Per outstanding segment: (seq, end, sent at, C.delivered,
    /// C.delivered_time and C.first_sent_time when sent, delivered yet).
    segs: std::collections::VecDeque<SegRecord>,
    /// Pacing: when the next segment may leave.
    next_send: SimTime,
    /// The RTT sample carried by the ACK being processed, if any.
    ack_rtt: Option<SimDuration>,
    /// Without SACK: bytes counted as delivered by duplicate ACKs (one MSS
    /// each, Linux's Reno SACK emulation), deducted from the cumulative ACK
    /// that follows.
    dup_delivered: u64,
    /// The pacing timer's deadline, if the sender waits for it.
    pub pace_deadline: Option<SimTime>,
}

/// What the rate sampler remembers of one transmitted segment.
#[derive(Clone, Copy, Debug)]
struct SegRecord {
    seq: u64,
    end: u64,
    sent: SimTime,
    delivered: u64,
    delivered_time: SimTime,
    first_sent: SimTime,
    done: bool,
}

impl Sender {
    pub fn new(cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> Self {
        let full = cc.controls_fully();
        let shift = window_shift(cfg.rcv_buf, cfg.window_scaling);
        let tcb = Tcb::new(cfg.initial_cwnd, cfg.initial_ssthresh, cfg.mss as u64);
        let rtt = RttEstimator::new(
            cfg.initial_rto,
            cfg.min_rto,
            cfg.max_rto,
            cfg.clock_granularity,
        );
        Sender {
            base_opts: base_options(cfg.timestamps) as u8,
            wnd_field: (cfg.rcv_buf >> shift).min(65_535) as u16,
            peer_shift: shift,
            cfg,
            cc,
            tcb,
            state: SndState::Closed,
            rtt,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            rwnd: 65_535,
            dupacks: 0,
            recover: 0,
            high_rxt: 0,
            pending_retx: None,
            sb: Scoreboard::default(),
            data_end: 1,
            closing: false,
            timed: None,
            syn_sent_at: SimTime::ZERO,
            syn_retransmitted: false,
            last_send: SimTime::ZERO,
            ts_recent: 0,
            rto_deadline: None,
            stats: SenderStats::default(),
            events: None,
            sent_times: std::collections::VecDeque::new(),
            last_reduction: SimTime::ZERO,
            check_after_retx: 0,
            full,
            delivered: 0,
            delivered_time: SimTime::ZERO,
            first_sent_time: SimTime::ZERO,
            segs: std::collections::VecDeque::new(),
            next_send: SimTime::ZERO,
            ack_rtt: None,
            dup_delivered: 0,
            pace_deadline: None,
        }
    }

    pub fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    fn log(&mut self, now: SimTime, kind: TcpEventKind, seq: u64) {
        if let Some(ev) = &mut self.events {
            ev.push(TcpEvent {
                time: now,
                kind,
                seq,
                cwnd: self.tcb.cwnd,
                ssthresh: self.tcb.ssthresh,
            });
        }
    }

    /// Bytes sent and not cumulatively acknowledged (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// Application bytes acknowledged by the peer.
    pub fn bytes_acked(&self) -> u64 {
        self.snd_una
            .saturating_sub(1)
            .min(self.data_end.saturating_sub(1))
    }

    fn sync_tcb(&mut self, now: SimTime) {
        self.tcb.now = now;
        self.tcb.snd_una = self.snd_una;
        self.tcb.snd_nxt = self.snd_nxt;
        self.tcb.recover = self.recover;
        self.tcb.bytes_in_flight = self.flight_size();
        self.tcb.srtt = self.rtt.srtt;
        self.tcb.min_rtt = self.rtt.min_rtt;
        self.tcb.latest_rtt = self.rtt.latest;
    }

    fn set_state(&mut self, to: CaState) {
        if self.tcb.ca_state != to {
            self.cc.on_state(&mut self.tcb, to);
            self.tcb.ca_state = to;
        }
    }

    // ---- application side -------------------------------------------------

    /// Opens the connection: sends the SYN.
    pub fn open(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.state = SndState::SynSent;
        self.send_syn(now, out);
    }

    fn send_syn(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.syn_sent_at = now;
        self.snd_nxt = 1;
        self.snd_max = 1;
        let h = TcpHeader {
            seq: 0,
            flags: SYN,
            // RFC 7323 2.2: the window of a SYN is never scaled.
            wnd: self.cfg.rcv_buf.min(65_535) as u16,
            opt_len: syn_options(&self.cfg) as u8,
            ts_val: now.as_nanos(),
            ..TcpHeader::default()
        };
        self.stats.segments_sent += 1;
        out.push(h);
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// The application's data now ends at byte `total` (counted from 0); it
    /// may only grow. `u64::MAX` means endless.
    pub fn set_app_limit(&mut self, now: SimTime, total: u64, out: &mut Vec<TcpHeader>) {
        let end = if total == u64::MAX {
            u64::MAX
        } else {
            total + 1
        };
        // Data already sent stays sent: the end never falls below snd_max.
        self.data_end = end.max(self.snd_max).max(1);
        self.try_send(now, out);
    }

    /// Freezes the application data at what has been sent so far (an OFF
    /// period of an ON/OFF source): nothing new is sent until more is written.
    pub fn pause_app(&mut self) {
        self.data_end = self.snd_max.max(1);
    }

    /// The application closes: a FIN follows the last data.
    pub fn close(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.closing = true;
        self.try_send(now, out);
    }

    // ---- ACK processing ---------------------------------------------------

    /// Handles a segment from the receiver.
    pub fn on_segment(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        if self.cfg.timestamps && h.ts_val >= self.ts_recent {
            self.ts_recent = h.ts_val; // RFC 7323 4.3: never backwards
        }
        match self.state {
            SndState::Closed | SndState::Done => {}
            SndState::SynSent => {
                if h.has(SYN) && h.has(ACK) && h.ack == 1 {
                    self.established(now, h, out);
                }
            }
            SndState::Established => {
                if h.has(SYN) {
                    // A repeated SYN-ACK: our handshake ACK was lost.
                    out.push(self.pure_ack(now));
                    return;
                }
                self.on_ack(now, h, out);
            }
        }
    }

    fn established(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        self.state = SndState::Established;
        self.snd_una = 1;
        // RFC 7323 2.2: the window in a SYN is never scaled.
        self.rwnd = h.wnd as u64;
        let sample = if self.cfg.timestamps && h.ts_ecr > 0 {
            Some(now - SimTime::from_nanos(h.ts_ecr))
        } else if !self.syn_retransmitted {
            Some(now - self.syn_sent_at)
        } else {
            None
        };
        if let Some(r) = sample {
            self.rtt.sample(r);
        } else {
            // RFC 6298 5.7: the SYN timed out and no sample was possible: the
            // RTO starts data transmission at 3 s (if it was lower).
            self.rtt.reinit_after_syn_timeout();
        }
        self.rto_deadline = None;
        self.last_send = now;
        self.sync_tcb(now);
        self.cc.init(&mut self.tcb);
        self.log(now, TcpEventKind::Established, 1);
        out.push(self.pure_ack(now));
        self.try_send(now, out);
    }

    /// A segment from this end: sequence, flags and payload length, with
    /// the window and the options every non-SYN segment carries.
    fn header(&self, now: SimTime, seq: u64, flags: u8, len: u64) -> TcpHeader {
        TcpHeader {
            seq,
            ack: 1,
            flags,
            len: len as u32,
            wnd: self.wnd_field,
            opt_len: self.base_opts,
            ts_val: if self.cfg.timestamps {
                now.as_nanos()
            } else {
                0
            },
            ts_ecr: self.ts_recent,
            ..TcpHeader::default()
        }
    }

    fn pure_ack(&self, now: SimTime) -> TcpHeader {
        self.header(now, self.snd_nxt.max(1), ACK, 0)
    }

    fn on_ack(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        let ack = h.ack;
        if ack > self.snd_max {
            return; // acknowledges something never sent
        }
        self.rwnd = (h.wnd as u64) << self.peer_shift;
        let was_recovering = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
        self.ack_rtt = None;
        let mut is_dup = false;
        let sacked_before = self.sb.sacked_bytes();
        if self.cfg.sack {
            for &(a, b) in h.sack_blocks() {
                if b > ack && b <= self.snd_max {
                    self.sb.add(a.max(ack), b);
                }
            }
        }
        if ack > self.snd_una {
            self.new_ack(now, h);
        } else if ack == self.snd_una && h.len == 0 && self.snd_una < self.snd_max {
            is_dup = true;
            self.stats.dupacks += 1;
            // RFC 6675 2: with SACK recovery, a duplicate ACK must also SACK
            // something new (a resent duplicate segment's ACK does not count).
            let new_sack = self.sb.sacked_bytes() > sacked_before;
            if self.cfg.recovery != Recovery::Sack || new_sack {
                self.dup_ack(now, out);
            }
        }
        if self.full {
            let fast_retransmits = self.stats.fast_retransmits;
            let mut rs = self.rate_sample(now, is_dup);
            rs.losses = self.stats.fast_retransmits > fast_retransmits;
            self.sync_tcb(now);
            rs.bytes_in_flight = self.tcb.bytes_in_flight;
            rs.rtt = self.ack_rtt;
            if !self.cfg.sack && was_recovering {
                // Without SACK, duplicate ACKs deliver nothing countable and
                // the ACK ending recovery delivers a whole window at once: no
                // rate sample from recovery (counts and rounds still advance).
                rs.delivered = 0;
                rs.interval = SimDuration::ZERO;
            }
            self.cc.control(&mut self.tcb, &rs);
        }
        self.try_send(now, out);
    }

    /// Marks segments delivered by this ACK (cumulatively or by SACK) and
    /// forms the rate sample from the most recently sent of them.
    fn rate_sample(&mut self, now: SimTime, is_dup: bool) -> RateSample {
        let mut newly = 0;
        let mut latest: Option<SegRecord> = None;
        for rec in self.segs.iter_mut().filter(|r| !r.done) {
            let acked = rec.end <= self.snd_una;
            let sacked = !acked && self.sb.sacked_until(rec.seq).is_some_and(|e| e >= rec.end);
            if acked || sacked {
                rec.done = true;
                newly += rec.end - rec.seq;
                if latest.is_none_or(|p| rec.sent >= p.sent) {
                    latest = Some(*rec);
                }
            }
        }
        while self
            .segs
            .front()
            .is_some_and(|r| r.done && r.end <= self.snd_una)
        {
            self.segs.pop_front();
        }
        if !self.cfg.sack {
            // A duplicate ACK means one segment arrived (out of order): count
            // it now; the cumulative ACK that covers it counts only the rest.
            if is_dup {
                self.delivered += self.mss();
                self.dup_delivered += self.mss();
                self.delivered_time = now;
            } else {
                let credit = self.dup_delivered.min(newly);
                self.dup_delivered -= credit;
                newly -= credit;
            }
        }
        let mut rs = RateSample {
            newly_delivered: newly,
            ..RateSample::default()
        };
        if newly == 0 || latest.is_none() {
            rs.total_delivered = self.delivered;
            return rs;
        }
        self.delivered += newly;
        self.delivered_time = now;
        let p = latest.expect("something was delivered");
        self.first_sent_time = p.sent;
        rs.total_delivered = self.delivered;
        rs.prior_delivered = p.delivered;
        rs.delivered = self.delivered - p.delivered;
        rs.interval = (p.sent - p.first_sent).max(now - p.delivered_time);
        rs
    }

    /// The pacing timer fired: send what pacing held back.
    pub fn on_pace(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.pace_deadline.is_some_and(|d| d <= now) {
            self.pace_deadline = None;
            self.try_send(now, out);
        }
    }

    /// Pacing holds the next segment until `next_send`; arms the timer.
    fn paced_out(&mut self, now: SimTime) -> bool {
        if self.tcb.pacing_rate > 0.0 && self.next_send > now {
            self.pace_deadline = Some(self.next_send);
            return true;
        }
        false
    }

    fn new_ack(&mut self, now: SimTime, h: &TcpHeader) {
        let ack = h.ack;
        let acked = ack - self.snd_una;
        let prior_in_flight = self.flight_size();
        let rtt = if self.cfg.timestamps && h.ts_ecr > 0 {
            Some(now - SimTime::from_nanos(h.ts_ecr))
        } else {
            match self.timed {
                Some((end, t0)) if ack >= end => {
                    self.timed = None;
                    Some(now - t0)
                }
                _ => None,
            }
        };
        if let Some(r) = rtt {
            self.rtt.sample(r);
        }
        self.ack_rtt = rtt;
        self.snd_una = ack;
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        self.sb.advance(ack);
        if self.cfg.fine_retransmit {
            while self.sent_times.front().is_some_and(|e| e.0 < ack) {
                self.sent_times.pop_front();
            }
            // Vegas: the first two new ACKs after a retransmission check
            // whether the next segment is also overdue.
            if self.check_after_retx > 0 {
                self.check_after_retx -= 1;
                if self.fine_expired(now).is_some() {
                    self.pending_retx = Some(self.snd_una);
                }
            }
        }
        self.sync_tcb(now);
        let mss = self.mss();
        let sample = Ack {
            now,
            bytes_acked: acked,
            segments_acked: acked.div_ceil(mss) as u32,
            is_dup: false,
            rtt,
            prior_in_flight,
        };
        self.cc.on_ack_sample(&self.tcb, &sample);
        match self.tcb.ca_state {
            CaState::Open | CaState::Disorder => {
                self.dupacks = 0;
                self.set_state(CaState::Open);
                self.cc.increase_window(&mut self.tcb, &sample);
            }
            CaState::Loss => {
                self.dupacks = 0;
                if ack >= self.recover {
                    self.set_state(CaState::Open);
                    self.log(now, TcpEventKind::RecoveryExit, ack);
                }
                self.cc.increase_window(&mut self.tcb, &sample);
            }
            CaState::Recovery => self.recovery_ack(now, ack, acked),
        }
        // RFC 6298 5.2 / 5.3.
        self.rto_deadline = (self.snd_una < self.snd_max).then(|| now + self.rtt.rto());
        if self.closing && self.snd_una > self.data_end && self.state == SndState::Established {
            self.state = SndState::Done;
            self.rto_deadline = None;
            self.log(now, TcpEventKind::Closed, ack);
        }
    }

    fn recovery_ack(&mut self, now: SimTime, ack: u64, acked: u64) {
        let mss = self.mss();
        match self.cfg.recovery {
            Recovery::Reno | Recovery::Tahoe => {
                self.recovery_cwnd(self.tcb.ssthresh);
                self.exit_recovery(now, ack);
            }
            Recovery::Newreno => {
                if ack >= self.recover {
                    let cwnd = match self.cfg.recovery_exit {
                        RecoveryExit::Flight => {
                            self.tcb.ssthresh.min(self.flight_size().max(mss) + mss)
                        }
                        RecoveryExit::Ssthresh => self.tcb.ssthresh,
                    };
                    self.recovery_cwnd(cwnd);
                    self.exit_recovery(now, ack);
                } else {
                    // Partial ACK: retransmit the next hole, deflate.
                    let add_back = if acked >= mss { mss } else { 0 };
                    let cwnd = self.tcb.cwnd.saturating_sub(acked) + add_back;
                    self.recovery_cwnd(cwnd);
                    self.log(now, TcpEventKind::PartialAck, ack);
                    self.pending_retx = Some(self.snd_una);
                }
            }
            Recovery::Sack => {
                if ack >= self.recover {
                    self.exit_recovery(now, ack);
                } else {
                    self.log(now, TcpEventKind::PartialAck, ack);
                    if self.high_rxt < self.snd_una {
                        self.high_rxt = self.snd_una;
                    }
                }
            }
        }
    }

    /// A recovery strategy sets cwnd, unless the controller controls it
    /// fully (BBR).
    fn recovery_cwnd(&mut self, bytes: u64) {
        if !self.full {
            self.tcb.set_cwnd(bytes);
        }
    }

    fn exit_recovery(&mut self, now: SimTime, ack: u64) {
        self.dupacks = 0;
        self.set_state(CaState::Open);
        self.log(now, TcpEventKind::RecoveryExit, ack);
    }

    fn dup_ack(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.dupacks += 1;
        self.sync_tcb(now);
        let sample = Ack {
            now,
            bytes_acked: 0,
            segments_acked: 0,
            is_dup: true,
            rtt: None,
            prior_in_flight: self.flight_size(),
        };
        self.cc.on_ack_sample(&self.tcb, &sample);
        let mss = self.mss();
        match self.tcb.ca_state {
            CaState::Open | CaState::Disorder => {
                let sack_lost = self.cfg.sack
                    && self.cfg.recovery == Recovery::Sack
                    && self.sb.is_lost(self.snd_una, mss, self.cfg.dupthresh);
                if self.cfg.fine_retransmit && self.dupacks < self.cfg.dupthresh {
                    if let Some(sent_at) = self.fine_expired(now) {
                        // Vegas: retransmit at once; reduce the window only
                        // for a loss of data sent after the last reduction.
                        self.check_after_retx = 2;
                        if sent_at > self.last_reduction && self.snd_una > self.recover {
                            self.enter_recovery(now, out);
                        } else {
                            let s = self.snd_una;
                            self.retransmit(now, s, out);
                        }
                        return;
                    }
                }
                let trigger = self.dupacks >= self.cfg.dupthresh || sack_lost;
                // RFC 6582 3.2 step 1 (NewReno, and Tahoe as ns-2 does): the
                // cumulative ACK must cover more than `recover`; RFC 6675 5.1
                // (SACK): HighACK >= RecoveryPoint; RFC 5681 Reno: no guard.
                let guard_ok = match self.cfg.recovery {
                    Recovery::Reno => true,
                    Recovery::Sack => self.snd_una >= self.recover,
                    Recovery::Newreno | Recovery::Tahoe => self.snd_una > self.recover,
                };
                if trigger && guard_ok {
                    self.enter_recovery(now, out);
                } else {
                    self.set_state(CaState::Disorder);
                }
            }
            CaState::Recovery => {
                if matches!(self.cfg.recovery, Recovery::Reno | Recovery::Newreno) && !self.full {
                    self.tcb.cwnd += mss; // window inflation
                }
            }
            CaState::Loss => {}
        }
    }

    /// Vegas: if the oldest unacknowledged segment was sent longer ago than
    /// the fine-grained timeout (SRTT + 4 RTTVAR, at least the clock
    /// granularity, without RTO's floor), when it was sent.
    fn fine_expired(&self, now: SimTime) -> Option<SimTime> {
        let srtt = self.rtt.srtt?;
        let timeout = srtt + (self.rtt.rttvar * 4).max(self.cfg.clock_granularity);
        let &(seq, sent_at) = self.sent_times.front()?;
        (seq == self.snd_una && now - sent_at > timeout).then_some(sent_at)
    }

    fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let mss = self.mss();
        self.stats.fast_retransmits += 1;
        self.last_reduction = now;
        self.sync_tcb(now);
        let to = if self.cfg.recovery == Recovery::Tahoe {
            CaState::Loss
        } else {
            CaState::Recovery
        };
        self.cc.on_state(&mut self.tcb, to);
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, LossCause::DupAcks);
        self.tcb.ca_state = to;
        self.recover = self.snd_max;
        self.timed = None;
        match self.cfg.recovery {
            Recovery::Tahoe => {
                // Going back N needs the 1-MSS window whoever controls cwnd.
                self.tcb.set_cwnd(mss);
                self.snd_nxt = self.snd_una;
                self.log(now, TcpEventKind::FastRetransmit, self.snd_una);
            }
            Recovery::Reno | Recovery::Newreno => {
                self.recovery_cwnd(self.tcb.ssthresh + 3 * mss);
                self.log(now, TcpEventKind::FastRetransmit, self.snd_una);
                let s = self.snd_una;
                self.retransmit(now, s, out);
            }
            Recovery::Sack => {
                self.recovery_cwnd(self.tcb.ssthresh);
                self.log(now, TcpEventKind::FastRetransmit, self.snd_una);
                let s = self.snd_una;
                self.high_rxt = s;
                let end = self.retransmit(now, s, out);
                self.high_rxt = end;
            }
        }
    }

    // ---- timers -----------------------------------------------------------

    /// The retransmission timer fired at `now`.
    pub fn on_rto(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        self.rto_deadline = None;
        match self.state {
            SndState::SynSent => {
                self.rtt.back_off();
                self.syn_retransmitted = true;
                self.stats.retransmitted_segments += 1;
                self.stats.timeouts += 1;
                self.log(now, TcpEventKind::Timeout, 0);
                self.log(now, TcpEventKind::Retransmit, 0);
                self.send_syn(now, out);
                return;
            }
            SndState::Established if self.snd_una < self.snd_max => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        self.last_reduction = now;
        self.sync_tcb(now);
        let first = self.rtt.backoffs() == 0;
        self.cc.on_state(&mut self.tcb, CaState::Loss);
        if first || self.tcb.ca_state != CaState::Loss {
            self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, LossCause::Timeout);
        }
        self.tcb.ca_state = CaState::Loss;
        self.tcb.set_cwnd(self.mss());
        self.tcb.cwnd_cnt = 0;
        self.recover = self.snd_max;
        self.dupacks = 0;
        self.snd_nxt = self.snd_una;
        self.high_rxt = self.snd_una;
        self.timed = None;
        self.rtt.back_off();
        self.log(now, TcpEventKind::Timeout, self.snd_una);
        self.try_send(now, out);
        if self.rto_deadline.is_none() && self.snd_una < self.snd_max {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    // ---- transmission -----------------------------------------------------

    /// Builds and records one segment [seq, seq + len), FIN if `fin`.
    fn emit(&mut self, now: SimTime, seq: u64, len: u64, fin: bool, out: &mut Vec<TcpHeader>) {
        let retx = seq < self.snd_max;
        let h = TcpHeader {
            retx,
            ..self.header(now, seq, if fin { ACK | FIN } else { ACK }, len)
        };
        let end = seq + len + fin as u64;
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        if retx {
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += len;
            if self.timed.is_some_and(|(e, _)| seq < e) {
                self.timed = None; // Karn's rule
            }
            self.log(now, TcpEventKind::Retransmit, seq);
        } else if self.timed.is_none() && !self.cfg.timestamps && len > 0 {
            self.timed = Some((end, now));
        }
        self.snd_max = self.snd_max.max(end);
        self.last_send = now;
        if self.full && len > 0 {
            if self.segs.iter().all(|r| r.done) {
                // Nothing in flight: the sampling interval starts now.
                self.first_sent_time = now;
                self.delivered_time = now;
            }
            let rec = SegRecord {
                seq,
                end: seq + len,
                sent: now,
                delivered: self.delivered,
                delivered_time: self.delivered_time,
                first_sent: self.first_sent_time,
                done: false,
            };
            match self.segs.binary_search_by_key(&seq, |r| r.seq) {
                Ok(i) => self.segs[i] = rec,
                Err(i) => self.segs.insert(i, rec),
            }
        }
        if self.tcb.pacing_rate > 0.0 {
            let wire = (len + 40 + self.base_opts as u64) as f64;
            let gap = SimDuration::from_secs_f64(wire / self.tcb.pacing_rate).unwrap_or_default();
            self.next_send = self.next_send.max(now) + gap;
        }
        if self.cfg.fine_retransmit && len > 0 {
            match self.sent_times.binary_search_by_key(&seq, |e| e.0) {
                Ok(i) => self.sent_times[i].1 = now,
                Err(i) => self.sent_times.insert(i, (seq, now)),
            }
        }
        self.cc.on_sent(&self.tcb, len, retx);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        out.push(h);
    }

    /// The end of the segment that starts at `seq`: at most one MSS, not past
    /// the data, not into SACKed data.
    fn segment_end(&self, seq: u64) -> u64 {
        let mut end = (seq + self.mss()).min(self.data_end);
        if seq < self.snd_max {
            end = end.min(self.snd_max);
        }
        if let Some(&(a, _)) = self.sb.ranges().iter().find(|&&(a, _)| a > seq) {
            end = end.min(a);
        }
        end
    }

    /// Retransmits the segment starting at `seq` (a FIN if `seq` is the end
    /// of the data); returns where it ends.
    fn retransmit(&mut self, now: SimTime, seq: u64, out: &mut Vec<TcpHeader>) -> u64 {
        if self.closing && seq >= self.data_end {
            self.emit(now, self.data_end, 0, true, out);
            return self.data_end + 1;
        }
        let end = self.segment_end(seq);
        self.emit(now, seq, end - seq, false, out);
        end
    }

    /// Sends whatever the windows and the recovery state allow.
    fn try_send(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.state != SndState::Established {
            return;
        }
        if let Some(s) = self.pending_retx.take() {
            if s >= self.snd_una && s < self.snd_max {
                self.retransmit(now, s, out);
            }
        }
        if self.cfg.restart_after_idle
            && !self.full
            && self.snd_una == self.snd_max
            && now - self.last_send > self.rtt.rto()
            && self.tcb.ca_state == CaState::Open
        {
            self.tcb.cwnd = self.tcb.cwnd.min(self.cfg.initial_cwnd);
        }
        if self.tcb.ca_state == CaState::Recovery && self.cfg.recovery == Recovery::Sack {
            self.send_sack_recovery(now, out);
            return;
        }
        loop {
            let wnd = self.tcb.cwnd.min(self.rwnd);
            let limit = self.snd_una + wnd;
            let mut seq = self.snd_nxt;
            while let Some(end) = self.sb.sacked_until(seq) {
                seq = end;
            }
            self.snd_nxt = seq;
            if self.closing && seq == self.data_end {
                if self.snd_max <= self.data_end || seq < self.snd_max {
                    self.emit(now, seq, 0, true, out);
                    self.snd_nxt = seq + 1;
                }
                return;
            }
            if seq >= self.data_end {
                return;
            }
            let end = self.segment_end(seq);
            let len = end - seq;
            if len == 0 || seq + len > limit {
                return; // no room for this segment yet (sender-side SWS avoidance)
            }
            if self.paced_out(now) {
                return;
            }
            self.emit(now, seq, len, false, out);
            self.snd_nxt = end;
        }
    }

    /// RFC 6675 5 (C): while cwnd - pipe >= 1 MSS, send NextSeg.
    fn send_sack_recovery(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let mss = self.mss();
        let dt = self.cfg.dupthresh;
        loop {
            let pipe = self
                .sb
                .pipe(self.snd_una, self.snd_max, self.high_rxt, mss, dt);
            if self.tcb.cwnd < pipe + mss || self.paced_out(now) {
                return;
            }
            let from = self.high_rxt.max(self.snd_una);
            if let Some(s) = self.sb.next_hole(from, mss, dt, true) {
                self.high_rxt = self.retransmit(now, s, out);
                continue;
            }
            let new_ok = self.snd_max < self.data_end
                && self.snd_max + mss.min(self.data_end - self.snd_max) <= self.snd_una + self.rwnd;
            if new_ok {
                let seq = self.snd_max;
                let end = self.segment_end(seq);
                self.emit(now, seq, end - seq, false, out);
                self.snd_nxt = self.snd_max;
                continue;
            }
            if let Some(s) = self.sb.next_hole(from, mss, dt, false) {
                self.high_rxt = self.retransmit(now, s, out);
                continue;
            }
            return;
        }
    }
}
