// SPDX-License-Identifier: MIT OR Apache-2.0
//! Linux's delayed and quick ACKs (`ack_timing = "linux"`), as its
//! receiver times them (`net/ipv4/tcp_input.c`, `tcp_output.c`,
//! `tcp_timer.c`; the constants are HZ-independent milliseconds).
//!
//! - Quick-ACK mode (`tcp_incr_quickack`, `tcp_enter_quickack_mode`): the
//!   next `quick` ACKs go out at once. The first data segment of a
//!   connection and a segment after a silence longer than the receiver's
//!   RTO set `quick` to `min(16, rcv_wnd / (2 * rcv_mss))` (at least 2;
//!   `TCP_MAX_QUICKACKS`); a duplicate segment does too and resets the
//!   ATO; the first CE mark of an episode sets it to at least 2 (RFC 3168
//!   receivers ACK CE at once: `tcp_ecn_check_ce`). Each ACK sent uses one;
//!   the last one resets the ATO to its floor (`tcp_dec_quickack_mode`).
//! - The ATO (`tcp_event_data_recv`): 40 ms (`TCP_ATO_MIN`) at the first
//!   data segment; then, per in-order data segment with `m` the time since
//!   the last one: `m <= 20 ms`: `ato = ato / 2 + 20 ms`; `m < ato`:
//!   `ato = min(ato / 2 + m, rto)`; `m > rto`: quick-ACK mode.
//! - An ACK is sent at once (`__tcp_ack_snd_check`) when more than
//!   `delayed_ack - 1` receive MSS are unacknowledged (Linux: more than
//!   one, `rcv_nxt - rcv_wup > rcv_mss`, the profile's `delayed_ack = 2`),
//!   in quick-ACK mode, and when a data segment carries CWR
//!   (`tcp_ecn_accept_cwr`); out-of-order data, a filled hole and a
//!   duplicate are ACKed at once as in the fixed timing.
//! - Otherwise the delayed-ACK timer (`tcp_send_delayed_ack`) is set to
//!   `ato`, or, when `ato > 40 ms`, to `min(ato, max(srtt, 40 ms))`, and
//!   never beyond `delayed_ack_timeout` (`TCP_DELACK_MAX`, 200 ms). A timer
//!   already running is never pushed later, and a timer due within a
//!   quarter of that delay sends the ACK now. When it fires with data to
//!   acknowledge, `ato = min(2 * ato, rto)` (`tcp_delack_timer_handler`).
//! - The receiver's srtt and RTO come from the handshake, the only round
//!   trip a receiver that sends no data times (`tcp_synack_rtt_meas`): RTO =
//!   srtt + max(2 srtt, min_rto) (`tcp_rtt_estimator`'s first sample,
//!   `__tcp_set_rto`), capped at `max_rto`; without a handshake, no srtt
//!   and the initial RTO.
//!
//! Ping-pong (interactive) mode needs a receiver that also sends data, and
//! tcplab's never does; it is not modelled, nor SACK compression
//! (`tcp_comp_sack_*`) nor the quick ACKs for a segment that is not ECT
//! after ECT ones.

use crate::tcp::TcpConfig;
use crate::time::{SimDuration, SimTime};
use serde::Serialize;

/// How the receiver times its ACKs.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AckTiming {
    /// Every `delayed_ack` segments or after `delayed_ack_timeout`, the
    /// first `quick_acks` data segments at once.
    Fixed,
    /// Linux's: quick-ACK mode and an adaptive ATO ([`LinuxAck`]).
    Linux,
}

crate::deserialize_names!(AckTiming {
    "fixed" => AckTiming::Fixed,
    "linux" => AckTiming::Linux,
});

impl AckTiming {
    pub fn name(self) -> &'static str {
        match self {
            AckTiming::Fixed => "fixed",
            AckTiming::Linux => "linux",
        }
    }
}

/// `TCP_ATO_MIN` = `TCP_DELACK_MIN` (HZ / 25).
pub const ATO_MIN: SimDuration = SimDuration::from_millis(40);
/// `TCP_MAX_QUICKACKS`.
pub const MAX_QUICKACKS: u32 = 16;
/// `TCP_MSS_DEFAULT`: the receive MSS guessed before any data.
const MSS_DEFAULT: u64 = 536;

/// The state of Linux's ACK timing (its `icsk_ack`), kept apart from the
/// receiver's hot fields.
#[derive(Debug)]
pub struct LinuxAck {
    /// ACKs still to send at once (`icsk_ack.quick`).
    pub(super) quick: u32,
    /// The delayed-ACK timeout; zero before the first data segment.
    pub(super) ato: SimDuration,
    /// When the last in-order data segment arrived (`lrcvtime`).
    lrcvtime: SimTime,
    /// The handshake's round trip, when timed.
    pub(super) srtt: Option<SimDuration>,
    /// The receiver's retransmission timeout (`icsk_rto`).
    pub(super) rto: SimDuration,
    /// The peer's segment size as measured (`icsk_ack.rcv_mss`).
    pub(super) rcv_mss: u64,
    last_seg_size: u64,
    advmss: u64,
    /// The advertised window in bytes (`rcv_wnd`).
    rcv_wnd: u64,
    /// ACK when more than `(delayed_ack - 1) * rcv_mss` bytes wait.
    segments: u64,
    /// `TCP_DELACK_MAX`: `delayed_ack_timeout`.
    ceiling: SimDuration,
    min_rto: SimDuration,
    max_rto: SimDuration,
    /// The last SYN-ACK sent, and whether it was the only one.
    synack: Option<(SimTime, bool)>,
    timestamps: bool,
    /// A CE mark is being echoed (`TCP_ECN_DEMAND_CWR`).
    demand_cwr: bool,
    /// An ACK must go out now (`ICSK_ACK_NOW`).
    ack_now: bool,
    /// Ping-pong (interactive) mode: no quick ACKs, the delayed-ACK bound
    /// `TCP_DELACK_MAX`.
    pingpong: bool,
}

impl LinuxAck {
    /// `rcv_wnd`: the window the receiver advertises, in bytes.
    pub fn new(c: &TcpConfig, rcv_wnd: u64) -> LinuxAck {
        let advmss = c.mss as u64;
        LinuxAck {
            quick: 0,
            ato: SimDuration::ZERO,
            lrcvtime: SimTime::ZERO,
            srtt: None,
            rto: c.initial_rto,
            // tcp_initialize_rcv_mss: min(advmss, rcv_wnd / 2, 536).
            rcv_mss: advmss.min(rcv_wnd / 2).clamp(1, MSS_DEFAULT),
            last_seg_size: 0,
            advmss,
            rcv_wnd,
            segments: c.delayed_ack.max(1) as u64,
            ceiling: c.delayed_ack_timeout,
            min_rto: c.min_rto,
            max_rto: c.max_rto,
            synack: None,
            timestamps: c.timestamps,
            demand_cwr: false,
            ack_now: false,
            pingpong: false,
        }
    }

    /// The peer's FIN arrived in ESTABLISHED: ping-pong mode
    /// (`inet_csk_enter_pingpong_mode` in `tcp_fin`).
    pub fn enter_pingpong(&mut self) {
        self.pingpong = true;
    }

    /// A segment of this end carried the ACK of everything received
    /// (`tcp_event_ack_sent`): one quick ACK used if an ACK was pending
    /// (`tcp_dec_quickack_mode`).
    pub fn ack_carried(&mut self, pending: bool) {
        if pending {
            self.ack_sent();
        }
    }

    /// ACKs still to go at once (quick-ACK mode while above 0).
    pub fn quick(&self) -> u32 {
        self.quick
    }

    /// The delayed-ACK timeout as adapted so far (zero before any data).
    pub fn ato(&self) -> SimDuration {
        self.ato
    }

    /// The receiver's srtt (from the handshake) and RTO.
    pub fn srtt_rto(&self) -> (Option<SimDuration>, SimDuration) {
        (self.srtt, self.rto)
    }

    /// A SYN-ACK went out at `now`.
    pub fn on_synack(&mut self, now: SimTime) {
        self.synack = Some((now, self.synack.is_none()));
    }

    /// The handshake's last ACK arrived at `now`: the srtt and RTO from
    /// the SYN-ACK's round trip (not after a repeated SYN-ACK unless
    /// timestamps tell which one is answered).
    pub fn on_established(&mut self, now: SimTime) {
        if let Some((at, only)) = self.synack {
            if only || self.timestamps {
                let r = now - at;
                self.srtt = Some(r);
                self.rto = (r + (r * 2).max(self.min_rto)).min(self.max_rto);
            }
        }
    }

    /// `tcp_measure_rcv_mss`: a segment of `len` payload bytes.
    fn measure_rcv_mss(&mut self, len: u64) {
        let last = std::mem::take(&mut self.last_seg_size);
        if len >= self.rcv_mss {
            self.rcv_mss = len.min(self.advmss);
        } else if len >= MSS_DEFAULT {
            // Two smaller segments of the same size in a row set it.
            self.last_seg_size = len;
            if len == last {
                self.rcv_mss = len;
            }
        }
    }

    /// `tcp_incr_quickack`: at least `min(max, rcv_wnd / (2 rcv_mss))`
    /// quick ACKs (2 if that is 0).
    pub fn incr_quick(&mut self, max: u32) {
        let mut n = (self.rcv_wnd / (2 * self.rcv_mss)).min(u32::MAX as u64) as u32;
        if n == 0 {
            n = 2;
        }
        self.quick = self.quick.max(n.min(max));
    }

    /// `tcp_enter_quickack_mode`.
    pub fn enter_quick(&mut self, max: u32) {
        self.incr_quick(max);
        self.ato = ATO_MIN;
    }

    /// `tcp_event_data_recv`: an in-order data segment of `len` bytes.
    pub fn data_recv(&mut self, now: SimTime, len: u64) {
        self.measure_rcv_mss(len);
        if self.ato.is_zero() {
            self.incr_quick(MAX_QUICKACKS);
            self.ato = ATO_MIN;
        } else {
            let m = now - self.lrcvtime;
            let half = SimDuration::from_nanos(self.ato.as_nanos() / 2);
            if m <= SimDuration::from_nanos(ATO_MIN.as_nanos() / 2) {
                self.ato = half + SimDuration::from_nanos(ATO_MIN.as_nanos() / 2);
            } else if m < self.ato {
                self.ato = (half + m).min(self.rto);
            } else if m > self.rto {
                self.incr_quick(MAX_QUICKACKS);
            }
        }
        self.lrcvtime = now;
    }

    /// A duplicate segment (`tcp_send_dupack`, or `tcp_data_queue`'s
    /// retransmission case).
    pub fn duplicate(&mut self) {
        self.enter_quick(MAX_QUICKACKS);
    }

    /// `tcp_ecn_check_ce` for a data segment (with ECN agreed): the first
    /// CE mark until a CWR asks for quick ACKs.
    pub fn check_ce(&mut self, ce: bool) {
        if ce && !self.demand_cwr {
            self.enter_quick(2);
            self.demand_cwr = true;
        }
    }

    /// `tcp_ecn_accept_cwr`: a segment with CWR; one with data is ACKed now.
    pub fn accept_cwr(&mut self, data: bool) {
        self.demand_cwr = false;
        self.ack_now |= data;
    }

    /// `__tcp_ack_snd_check`'s immediate cases, `unacked` bytes received
    /// since the last ACK.
    #[inline]
    pub fn send_now(&self, unacked: u64) -> bool {
        unacked > (self.segments - 1) * self.rcv_mss
            || (self.quick > 0 && !self.pingpong)
            || self.ack_now
    }

    /// `tcp_send_delayed_ack`: sets or keeps the timer in `deadline`;
    /// true if the ACK should go now instead (the timer is about to fire).
    pub fn schedule(&mut self, now: SimTime, deadline: &mut Option<SimTime>) -> bool {
        let mut ato = self.ato;
        if ato > ATO_MIN {
            // HZ / 2, bounded by the srtt when known (at least 40 ms).
            let mut max_ato = if self.pingpong {
                self.ceiling
            } else {
                SimDuration::from_millis(500)
            };
            if let Some(srtt) = self.srtt {
                max_ato = max_ato.min(srtt.max(ATO_MIN));
            }
            ato = ato.min(max_ato);
        }
        ato = ato.min(self.ceiling);
        let timeout = now + ato;
        match *deadline {
            Some(d) if d <= now + SimDuration::from_nanos(ato.as_nanos() / 4) => true,
            Some(d) if d <= timeout => false,
            _ => {
                *deadline = Some(timeout);
                false
            }
        }
    }

    /// The delayed-ACK timer fired with data to acknowledge: the ATO was
    /// too short (`tcp_delack_timer_handler`).
    pub fn timer_fired(&mut self) {
        self.ato = (self.ato * 2).min(self.rto);
    }

    /// An ACK of received data went out (`tcp_event_ack_sent`,
    /// `tcp_dec_quickack_mode`).
    pub fn ack_sent(&mut self) {
        self.ack_now = false;
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = ATO_MIN;
            }
        }
    }
}
