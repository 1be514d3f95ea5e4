// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sending connection's state and machinery, shared by the sender and
//! its loss-recovery strategy: the segments it builds and transmits, the
//! window it sends by, the retransmission timer's deadline, the state
//! changes congestion control hears about, and the components any recovery
//! combines with (the RTO estimator, Vegas's fine-grained retransmission,
//! the delivery-rate sampler).
//!
//! The control state (windows, sequence numbers, the recovery point, RTT
//! estimates) lives in the [`Tcb`] and nowhere else.

use super::{ColdStats, SentStats, TcpEvent, TcpEventKind};
use crate::cc::slow_start::SlowStart;
use crate::cc::{CaState, CongestionControl, CwndEvent, LossCause, Tcb};
use crate::tcp::ca_rtt::{CcRtt, NewestRtt};
use crate::tcp::fine_retx::{FineRetransmit, FineTimeout};
use crate::tcp::rack::Rack;
use crate::tcp::rate::RateSampler;
use crate::tcp::rtt::{Bounds, RttEstimator};
use crate::tcp::rtt_timing::{RttSampling, RttTiming};
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::{
    base_options, window_shift, RackMode, RtoRestart, TcpConfig, TcpHeader, TimeoutSsthresh, ACK,
    CWR, FIN,
};
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

#[derive(Debug)]
pub struct Conn {
    pub(super) cfg: TcpConfig,
    pub(super) cc: Box<dyn CongestionControl>,
    pub(super) tcb: Tcb,
    pub(super) state: SndState,
    pub(super) rtt: RttEstimator,
    /// The peer's window, bytes.
    pub(super) rwnd: u64,
    pub(super) peer_shift: u8,
    /// Duplicate ACKs in a row (RFC 5681's definition).
    pub(super) dupacks: u32,
    /// A segment to retransmit at the next chance to send (a NewReno
    /// partial ACK, Vegas's fine-grained retransmission).
    pub(super) pending_retx: Option<u64>,
    pub(super) sb: Scoreboard,
    /// Sequence number just past the application's data (u64::MAX: endless).
    pub(super) data_end: u64,
    /// The application will write no more: send a FIN after `data_end`.
    pub(super) closing: bool,
    /// The send times RTT samples come from, without timestamps.
    pub(super) timing: RttTiming,
    /// The send times the controller's samples come from, with `cc_rtt =
    /// "newest"`.
    pub(super) newest: Option<Box<NewestRtt>>,
    /// How the connection is being set up.
    pub(super) setup: Setup,
    pub(super) last_send: SimTime,
    /// Latest TSval from the peer, echoed in TSecr.
    pub(super) ts_recent: u64,
    pub(super) base_opts: u8,
    pub(super) wnd_field: u16,
    /// The retransmission timer's deadline, if running.
    pub(super) rto_deadline: Option<SimTime>,
    /// The counters every segment adds to.
    pub(super) stats: SentStats,
    /// The cold record: the other counters and what only a handshake or a
    /// rare event touches (allocated with the connection, never per
    /// packet; growing it leaves this layout alone).
    pub(super) cold: Box<ColdStats>,
    /// When recording the event log.
    /// (Boxed: one pointer in the hot connection, not a Vec's three words.)
    #[allow(clippy::box_collection)]
    pub(super) events: Option<Box<Vec<TcpEvent>>>,
    /// Vegas's fine-grained retransmission, when on.
    pub(super) fine: Option<Box<FineRetransmit>>,
    /// The controller sets cwnd itself (BBR): recoveries leave it alone.
    pub(super) cc_owns_cwnd: bool,
    /// The delivery-rate sampler, for a controller that uses rate samples.
    pub(super) rate: Option<Box<RateSampler>>,
    /// Pacing: when the next segment may leave.
    pub(super) next_send: SimTime,
    /// The RTT sample carried by the ACK being processed, if any.
    pub(super) ack_rtt: Option<SimDuration>,
    /// What the ACK being processed reports delivered: bytes newly
    /// acknowledged, cumulatively or by SACK (RFC 6937 DeliveredData); 0 at
    /// each ACK, then set for those a recovery can see (duplicates, ACKs in
    /// a recovery, and with RACK any ACK, which may start one).
    pub(super) delivered: u32,
    /// The pacing timer's deadline, if the sender waits for it.
    pub(super) pace_deadline: Option<SimTime>,
    /// HyStart or HyStart++, when on.
    pub(super) slow_start: Option<Box<SlowStart>>,
    /// RACK-TLP loss detection, when on.
    pub(super) rack: Option<Box<Rack>>,
    /// ECN, when asked for.
    pub(super) ecn: EcnState,
    /// What was retransmitted since the last timeout, above the cumulative
    /// ACK as of the last retransmission (ns-3's retransmitted marks), for
    /// `timeout_ssthresh = "ns3"`.
    pub(super) resent: Option<Box<Scoreboard>>,
    /// How much of the window is used (`cwnd_growth = "linux"`).
    pub(super) cwnd_use: Option<Box<super::growth::CwndUse>>,
}

/// The sender's ECN state (RFC 3168 6.1).
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnState {
    /// Both ends agreed in the handshake.
    pub ok: bool,
    /// ECT on every segment, retransmissions too (DCTCP, as Linux's
    /// `TCP_CONG_NEEDS_ECN`); else on new data only (RFC 3168 6.1.5).
    pub all: bool,
    /// The next new data segment carries CWR.
    pub cwr_pending: bool,
    /// The ACK being processed echoes ECE.
    pub echo: bool,
    /// snd_max at the last reduction: no other before snd_una passes it.
    pub high: u64,
}

/// What the connection's setup leaves to do or to remember (one byte: a
/// connection fills its cache lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setup {
    /// Nothing: the SYN went once, or the controller is initialised.
    Plain,
    /// The SYN was retransmitted: its SYN-ACK gives no RTT sample.
    SynRetransmitted,
    /// Opened without a handshake, the controller is not initialised yet:
    /// it is at the first ACK of new data (with its RTT sample), or at a
    /// timeout before one.
    InitPending,
}

impl Conn {
    pub(super) fn new(
        cfg: TcpConfig,
        cc: Box<dyn CongestionControl>,
        fine_retransmit: bool,
    ) -> Self {
        let fine_timeout = cfg.fine_timeout;
        let mss = cfg.mss as u64;
        let fine = fine_retransmit.then(|| {
            Box::new(match fine_timeout {
                // ns-2's window_: the ns2 profile's buffer, in segments.
                FineTimeout::Ns2 => FineRetransmit::ns2(cfg.rcv_buf / mss, mss),
                form => FineRetransmit::new(form),
            })
        });
        let full = cc.controls_fully();
        let samples = cc.wants_rate_samples();
        let late = cc.runs_after_loss_detection();
        let slow_start = SlowStart::new(cfg.slow_start);
        let rack = (cfg.rack != RackMode::Off).then(|| {
            let mut r = Rack::new(cfg.rack == RackMode::WithTlp);
            r.set_linux_rtt(cfg.adaptive_reordering);
            r
        });
        let shift = window_shift(cfg.rcv_buf, cfg.window_scaling);
        let tcb = Tcb::new(cfg.initial_cwnd, cfg.initial_ssthresh, cfg.mss as u64);
        let rtt = RttEstimator::new(
            cfg.rto,
            cfg.initial_rto,
            Bounds {
                min: cfg.min_rto,
                max: cfg.max_rto,
                granularity: cfg.clock_granularity,
            },
        );
        // With timestamps every ACK has its sample from the echo.
        let timing = RttTiming::new(if cfg.timestamps {
            RttSampling::Segment
        } else {
            cfg.rtt_sampling
        });
        let newest = (cfg.cc_rtt == CcRtt::Newest).then(Box::default);
        let ns3_timeout = cfg.timeout_ssthresh == TimeoutSsthresh::Ns3;
        let cfg_growth = cfg.cwnd_growth;
        Conn {
            newest,
            base_opts: base_options(cfg.timestamps) as u8,
            wnd_field: (cfg.rcv_buf >> shift).min(65_535) as u16,
            peer_shift: shift,
            cfg,
            cc,
            tcb,
            state: SndState::Closed,
            rtt,
            rwnd: 65_535,
            dupacks: 0,
            pending_retx: None,
            sb: Scoreboard::default(),
            data_end: 1,
            closing: false,
            timing,
            setup: Setup::Plain,
            last_send: SimTime::ZERO,
            ts_recent: 0,
            rto_deadline: None,
            stats: SentStats::default(),
            cold: Box::default(),
            events: None,
            fine,
            cc_owns_cwnd: full,
            rate: samples.then(|| Box::new(RateSampler::new(late))),
            next_send: SimTime::ZERO,
            ack_rtt: None,
            delivered: 0,
            pace_deadline: None,
            slow_start,
            rack,
            ecn: EcnState::default(),
            resent: ns3_timeout.then(Box::default),
            cwnd_use: super::growth::CwndUse::for_growth(cfg_growth),
        }
    }

    pub fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    /// Duplicate ACKs that trigger fast retransmit (held in 16 bits).
    #[inline]
    pub fn dupthresh(&self) -> u32 {
        u32::from(self.cfg.dupthresh)
    }

    pub fn log(&mut self, now: SimTime, kind: TcpEventKind, seq: u64) {
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

    /// The connection is established, the SYN's byte acknowledged (or, without
    /// a handshake, taken as such): ECN is on if `ecn_ok`, and the peer's
    /// window is `rwnd` bytes.
    pub(super) fn establish(&mut self, ecn_ok: bool, rwnd: u64) {
        self.state = SndState::Established;
        self.tcb.snd_una = 1;
        self.ecn.ok = ecn_ok;
        self.ecn.all = ecn_ok && self.cc.needs_ecn();
        self.rwnd = rwnd;
    }

    /// Initialises the controller and the slow-start component (once the
    /// connection is established and, with a handshake, the SYN's RTT
    /// sampled).
    pub(super) fn init_cc(&mut self) {
        self.setup = Setup::Plain;
        self.cc.init(&mut self.tcb);
        if let Some(ss) = &mut self.slow_start {
            ss.init(&self.tcb);
        }
    }

    /// Notifies the controller, then changes the state.
    pub fn set_state(&mut self, to: CaState) {
        if self.tcb.ca_state != to {
            self.cc.on_state(&mut self.tcb, to);
            self.tcb.ca_state = to;
        }
    }

    // ---- the retransmission timer -------------------------------------------

    /// (Re)starts the timer: it fires one RTO from `now` (RFC 6298 5.1, 5.3).
    pub fn arm_rto(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// ns-2's Vegas: a retransmission restarts the timer backed off.
    pub fn retransmit_backoff(&mut self, now: SimTime) {
        if self.cfg.retransmit_backoff {
            self.rtt.back_off();
            self.arm_rto(now);
        }
    }

    /// Starts the timer if it is not running.
    pub(super) fn arm_rto_if_idle(&mut self, now: SimTime) {
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
    }

    // ---- windows --------------------------------------------------------------

    /// A recovery strategy sets cwnd, unless the controller owns it (BBR).
    pub fn recovery_cwnd(&mut self, bytes: u64) {
        if !self.cc_owns_cwnd {
            self.tcb.set_cwnd(bytes);
        }
    }

    /// Reduces the window for a loss detected by `cause`: the controller
    /// hears of the new state and gives the threshold; the recovery point
    /// is set (RFC 6582 `recover`). The strategy sets cwnd afterwards.
    pub fn reduce(&mut self, now: SimTime, to: CaState, cause: LossCause) {
        self.loss_episode(now);
        self.tcb.now = now;
        self.set_pipe(true);
        self.cc.on_state(&mut self.tcb, to);
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, cause);
        self.tcb.ca_state = to;
        if let Some(ss) = &mut self.slow_start {
            ss.on_loss(&mut self.tcb);
        }
        self.tcb.recover = self.tcb.snd_max;
    }

    /// Records in `tcb.pipe` the bytes in flight as RFC 6675 counts them
    /// (each retransmission once), with the first unacknowledged segment
    /// counted lost when `head_lost` (a fast retransmit, as ns-3's
    /// `EnterRecovery` marks it before asking for ssthresh). Without SACK,
    /// each duplicate ACK counts a segment delivered (ns-3's emulated SACK
    /// less its lost head, which it counts back in).
    pub(super) fn set_pipe(&mut self, head_lost: bool) {
        let (una, max, mss) = (self.tcb.snd_una, self.tcb.snd_max, self.tcb.mss);
        let pipe = if !self.cfg.sack {
            (max - una).saturating_sub(self.dupacks as u64 * mss)
        } else {
            let pipe = self.sb.pipe(una, max, una, mss, self.dupthresh());
            if head_lost && una < max && !self.sb.is_lost(una, mss, self.dupthresh()) {
                let head = self
                    .sb
                    .ranges()
                    .first()
                    .map_or(mss, |&(a, _)| (a - una).min(mss));
                pipe.saturating_sub(head.min(max - una))
            } else {
                pipe
            }
        };
        self.tcb.pipe = pipe.min(u32::MAX as u64) as u32;
    }

    /// A loss episode begins (with or without a new ssthresh): Vegas's
    /// last reduction is now, RACK's episode ends, and no segment stays
    /// timed for an RTT sample (Karn).
    pub(super) fn loss_episode(&mut self, now: SimTime) {
        if let Some(f) = &mut self.fine {
            f.last_reduction = now;
        }
        if let Some(r) = &mut self.rack {
            r.end_episode();
        }
        self.timing.on_loss_episode();
    }

    /// An ECN echo reduced the window: no other reduction for it before
    /// snd_una passes what is sent now, the next new segment carries CWR,
    /// and it is counted and logged.
    pub(super) fn ecn_reduced(&mut self, now: SimTime) {
        self.ecn.high = self.tcb.snd_max;
        self.ecn.cwr_pending = true;
        self.cold.ecn_reductions += 1;
        self.log(now, TcpEventKind::EcnReduction, self.tcb.snd_una);
    }

    /// Before an ACK of `ack` grows the window: the slow-start component
    /// (HyStart, HyStart++) may end slow start.
    pub(super) fn slow_start_check(&mut self, now: SimTime, ack: u64, rtt: Option<SimDuration>) {
        if let Some(ss) = &mut self.slow_start {
            if ss.on_ack(&mut self.tcb, rtt) {
                self.log(now, TcpEventKind::SlowStartExit, ack);
            }
        }
    }

    /// Back to Open at the end of a recovery.
    pub fn exit_recovery(&mut self, now: SimTime, ack: u64) {
        self.dupacks = 0;
        self.set_state(CaState::Open);
        self.log(now, TcpEventKind::RecoveryExit, ack);
    }

    // ---- segments ---------------------------------------------------------------

    /// A segment from this end: sequence, flags and payload length, with
    /// the window and the options every non-SYN segment carries.
    pub(super) fn header(&self, now: SimTime, seq: u64, flags: u8, len: u64) -> TcpHeader {
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

    pub(super) fn pure_ack(&self, now: SimTime) -> TcpHeader {
        TcpHeader {
            ect: self.ecn.all,
            ..self.header(now, self.tcb.snd_nxt.max(1), ACK, 0)
        }
    }

    /// Builds and records one segment [seq, seq + len), FIN if `fin`.
    pub(super) fn emit(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u64,
        fin: bool,
        out: &mut Vec<TcpHeader>,
    ) {
        let retx = seq < self.tcb.snd_max;
        let mut flags = if fin { ACK | FIN } else { ACK };
        let ect = self.ecn.ok && len > 0 && (!retx || self.ecn.all);
        if self.ecn.cwr_pending && len > 0 && !retx {
            flags |= CWR;
            self.ecn.cwr_pending = false;
        }
        let h = TcpHeader {
            retx,
            ect,
            ..self.header(now, seq, flags, len)
        };
        let end = seq + len + fin as u64;
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        if retx {
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += len;
            self.log(now, TcpEventKind::Retransmit, seq);
            if self.keeps_undo() {
                self.undo_retransmitted(now, end);
            }
            if let Some(r) = &mut self.resent {
                r.advance(self.tcb.snd_una);
                r.add(seq, end);
            }
            if let Some(o) = &mut self.cold.reordering {
                o.on_retransmit(self.tcb.snd_una, seq, end, now.as_nanos());
            }
        }
        if !self.cfg.timestamps && len > 0 {
            self.timing.on_sent(now, seq, end, retx);
        }
        if self.tcb.snd_una == self.tcb.snd_max && len > 0 {
            // Nothing was in flight: transmission starts (Linux's
            // CA_EVENT_TX_START).
            if let Some(r) = &self.rate {
                self.tcb.app_limited = r.is_app_limited();
            }
            self.cc.cwnd_event(&mut self.tcb, CwndEvent::TxStart);
        }
        self.tcb.snd_max = self.tcb.snd_max.max(end);
        self.last_send = now;
        if len > 0 {
            if let Some(n) = &mut self.newest {
                n.on_sent(now, seq, end, retx);
            }
            if self.rate.is_some() {
                self.rate_sent(now, seq, len);
            }
            if let Some(r) = &mut self.rack {
                r.on_sent(now, seq, seq + len, retx);
            }
            if let Some(f) = &mut self.fine {
                f.on_sent(now, seq);
            }
        }
        if self.tcb.paced && len > 0 {
            // The rate is in the delivery rate's unit, payload bytes: Linux
            // paces the segment's data (`skb->len` in
            // `tcp_update_skb_after_send`), ns-3 its `sz`, not the headers.
            self.paced(now, len);
        }
        self.cc.on_sent(&self.tcb, len, retx);
        self.arm_rto_if_idle(now);
        out.push(h);
    }

    /// The end of the segment that starts at `seq`: at most one MSS, not past
    /// the data, not into SACKed data; a retransmission not across the end
    /// of a record.
    pub fn segment_end(&self, seq: u64) -> u64 {
        let mut end = (seq + self.mss()).min(self.data_end);
        if seq < self.tcb.snd_max {
            end = end.min(self.tcb.snd_max);
            if let Some(&b) = self.cold.records.iter().find(|&&b| b > seq) {
                end = end.min(b);
            }
        }
        if let Some(&(a, _)) = self.sb.ranges().iter().find(|&&(a, _)| a > seq) {
            end = end.min(a);
        }
        end
    }

    /// The rate sampler records a segment sent (out of line: only
    /// controllers that take rate samples have one).
    #[cold]
    #[inline(never)]
    fn rate_sent(&mut self, now: SimTime, seq: u64, len: u64) {
        let out = self.tcb.snd_max - self.tcb.snd_una - self.sb.sacked_bytes();
        let (cc, tcb) = (&mut self.cc, &mut self.tcb);
        if let Some(r) = &mut self.rate {
            r.on_sent(now, seq, len, out, |seg| cc.on_marked_lost(tcb, &seg));
        }
    }

    /// Retransmits the segment starting at `seq` (a FIN if `seq` is the end
    /// of the data); returns where it ends.
    pub fn retransmit(&mut self, now: SimTime, seq: u64, out: &mut Vec<TcpHeader>) -> u64 {
        if self.closing && seq >= self.data_end {
            self.emit(now, self.data_end, 0, true, out);
            return self.data_end + 1;
        }
        let end = self.segment_end(seq);
        self.emit(now, seq, end - seq, false, out);
        if seq == self.tcb.snd_una && self.cfg.rto_restart == RtoRestart::HeadRetransmit {
            self.arm_rto(now);
        }
        end
    }

    /// In a recovery: sends the next new segment if there is data and the
    /// receiver's window from snd_una has room for it whole; whether it did.
    pub fn send_new_in_recovery(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        let seq = self.tcb.snd_max;
        let room = self.tcb.snd_una + self.rwnd;
        if seq >= self.data_end || seq + self.mss().min(self.data_end - seq) > room {
            return false;
        }
        let end = self.segment_end(seq);
        self.emit(now, seq, end - seq, false, out);
        self.tcb.snd_nxt = self.tcb.snd_max;
        true
    }

    /// Vegas: if the oldest unacknowledged segment is overdue, when it was
    /// sent.
    pub fn fine_expired(&self, now: SimTime) -> Option<SimTime> {
        self.fine.as_ref()?.expired(
            now,
            self.tcb.snd_una,
            self.tcb.srtt,
            self.rtt.rttvar,
            self.cfg.clock_granularity,
        )
    }
}
