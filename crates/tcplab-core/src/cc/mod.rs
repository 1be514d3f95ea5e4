// SPDX-License-Identifier: MIT OR Apache-2.0
//! Congestion control: a small hook set in the spirit of Linux's
//! `tcp_congestion_ops` and ns-3's `TcpCongestionOps`, separate from loss
//! recovery so that any algorithm runs with any recovery.
//!
//! Rules of the contract:
//! - the core owns `ca_state` and calls `on_state` just before changing it;
//! - `ssthresh` *returns* the new threshold and the core applies it (and
//!   sets cwnd as the recovery strategy says);
//! - `increase_window` is called for ACKs of new data in Open, Disorder and
//!   Loss states (never during fast recovery, whose window the recovery
//!   strategy manages);
//! - `on_ack_sample` sees every ACK, duplicates included, for estimators; it
//!   must not touch cwnd.
//!
//! Windows are in bytes. The shared helpers keep the RFC arithmetic in one
//! place, as Linux keeps it in tcp_cong.c.

pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod bictcp;
pub mod cdg;
pub mod cubic;
pub mod cubic_linux;
pub mod cubic_linux6;
pub mod dctcp;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod ledbat;
pub mod lp;
pub mod ns3;
pub mod nv;
pub mod petra;
pub mod registry;
pub mod reno;
pub mod reno_2622;
pub mod scalable;
pub mod slow_start;
pub mod variants;
pub mod vegas;
pub mod vegas_linux;
pub mod veno;
pub mod westwood;
pub mod westwood_linux;
pub mod yeah;

use std::borrow::Cow;
use std::fmt::Debug;

use crate::time::{SimDuration, SimTime};

/// The congestion-avoidance state, as Linux names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Normal operation.
    Open,
    /// Duplicate ACKs seen, below the threshold.
    Disorder,
    /// Fast recovery after duplicate ACKs (or SACK loss detection).
    Recovery,
    /// After a retransmission timeout (and Tahoe's fast retransmit).
    Loss,
    /// The window comes down after an ECN echo, paced by PRR (Linux's and
    /// ns-3's CA_CWR; only with `ecn_response` linux or ns3).
    Cwr,
}

impl CaState {
    pub fn code(self) -> f64 {
        match self {
            CaState::Open => 0.0,
            CaState::Disorder => 1.0,
            CaState::Recovery => 2.0,
            CaState::Loss => 3.0,
            CaState::Cwr => 4.0,
        }
    }
}

/// The connection's control state: ns-3's TcpSocketState, Linux's tcp_sock
/// fields. The sender keeps it here and nowhere else; congestion control
/// reads it and sets cwnd and ssthresh.
#[derive(Clone, Debug)]
pub struct Tcb {
    pub now: SimTime,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Sender maximum segment size (payload bytes).
    pub mss: u64,
    pub ca_state: CaState,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    /// Next sequence number to send (moves back when the sender goes back N).
    pub snd_nxt: u64,
    /// Highest sequence number sent, plus one.
    pub snd_max: u64,
    /// The recovery point: the highest sequence sent when the current (or
    /// last) loss recovery began (RFC 6582 `recover`).
    pub recover: u64,
    /// Smoothed RTT, the smallest and the latest RTT sample (the sender's
    /// estimator writes them).
    pub srtt: Option<SimDuration>,
    pub min_rtt: Option<SimDuration>,
    pub latest_rtt: Option<SimDuration>,
    /// Additive-increase credit in bytes (for byte-counting growth).
    pub cwnd_cnt: u64,
    /// The controller's own pacing rate in bytes per second (BBR's, a
    /// Python controller's); 0: none, the sender's formula applies when
    /// the flow is paced.
    pub pacing_rate: f64,
    /// The sender paces this flow (Linux's `sk_pacing_status` is not
    /// `SK_PACING_NONE`): set by the sender from the flow's `pacing`.
    pub paced: bool,
    /// Bytes limited transmit sent since the last ACK of new data: RFC
    /// 5681 3.2 step 2 leaves them out of the FlightSize that sets
    /// ssthresh at a fast retransmit.
    pub limited_sent: u64,
    /// Slow start grows by min(acked, limit) / this: 1, or 4 in HyStart++'s
    /// Conservative Slow Start ([`slow_start::SlowStart`]).
    pub slow_start_divisor: u8,
    /// Bytes in flight as RFC 6675's pipe counts them (not SACKed, not
    /// deemed lost, the first unacknowledged segment counted lost) when
    /// the window is reduced, set just before `ssthresh` is asked: what
    /// ns-3 3.44 hands `GetSsThresh` as `bytesInFlight` (a timeout's is
    /// taken before anything is marked lost). Saturates at u32::MAX, as
    /// ns-3 counts it in 32 bits.
    pub pipe: u32,
    /// The sender is application-limited (Linux's `tp->app_limited` is
    /// set): kept for a controller that takes rate samples, read when
    /// transmission starts (`CwndEvent::TxStart`).
    pub app_limited: bool,
}

impl Tcb {
    /// A connection's state before anything is sent: the given window,
    /// threshold and segment size, in Open, with no RTT measured yet.
    pub fn new(cwnd: u64, ssthresh: u64, mss: u64) -> Self {
        Tcb {
            now: SimTime::ZERO,
            cwnd,
            ssthresh,
            mss,
            ca_state: CaState::Open,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            recover: 0,
            srtt: None,
            min_rtt: None,
            latest_rtt: None,
            cwnd_cnt: 0,
            pacing_rate: 0.0,
            paced: false,
            limited_sent: 0,
            slow_start_divisor: 1,
            pipe: 0,
            app_limited: false,
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
    /// Bytes sent and not yet cumulatively acknowledged (RFC 5681
    /// FlightSize).
    pub fn bytes_in_flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    pub fn cwnd_segments(&self) -> f64 {
        self.cwnd as f64 / self.mss as f64
    }
    /// Sets cwnd, never below one segment.
    pub fn set_cwnd(&mut self, bytes: u64) {
        self.cwnd = bytes.max(self.mss);
    }
}

/// One ACK as congestion control sees it (Linux's ack_sample).
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub now: SimTime,
    /// Bytes newly acknowledged cumulatively (0 for a duplicate).
    pub bytes_acked: u64,
    /// Segments newly acknowledged (bytes_acked / MSS, rounded up).
    pub segments_acked: u32,
    /// The segments the window grows by: `segments_acked`, or with
    /// `cwnd_growth = "linux"` the segments newly delivered (Linux's
    /// `acked_sacked`, which Linux's modules' `cong_avoid` count).
    pub grow_segments: u32,
    pub is_dup: bool,
    /// The RTT sample this ACK gives the controller (`cc_rtt`): the RTT
    /// estimator's (Karn's rule or timestamps), or the newest segment's
    /// (Linux's `ca_rtt_us`, duplicate ACKs with new SACKs included).
    pub rtt: Option<SimDuration>,
    /// The RTT of the newest segment this ACK acknowledges, if it was sent
    /// once: a sample on every ACK of new data, from the per-segment send
    /// times of Vegas's fine-grained retransmission (None without it).
    pub seg_rtt: Option<SimDuration>,
    pub prior_in_flight: u64,
    /// The ACK echoes Congestion Experienced (ECE, with ECN agreed).
    pub ece: bool,
    /// The ACK's TSval and TSecr (nanoseconds), with timestamps in use
    /// (Linux's rx_opt.rcv_tsval and rcv_tsecr; TCP-LP reads them).
    pub ts: Option<(u64, u64)>,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation), as
/// Linux's rate_sample: taken on every ACK that delivers data.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSample {
    /// Bytes delivered over the sample's interval.
    pub delivered: u64,
    /// The interval: max(send elapsed, ACK elapsed).
    pub interval: SimDuration,
    /// C.delivered when the most recently sent delivered segment was sent.
    pub prior_delivered: u64,
    /// Total bytes delivered so far (cumulatively or SACKed).
    pub total_delivered: u64,
    /// Bytes newly delivered by this ACK.
    pub newly_delivered: u64,
    pub rtt: Option<SimDuration>,
    /// Bytes in flight after the ACK, and before it (FlightSize; for a
    /// controller that runs after loss detection, `prior_in_flight` is
    /// Linux's: neither SACKed nor marked lost).
    pub bytes_in_flight: u64,
    /// Bytes in flight neither SACKed nor marked lost (Linux's
    /// `tcp_packets_in_flight`), after the ACK.
    pub in_flight: u64,
    pub prior_in_flight: u64,
    /// Of `delivered`, the bytes delivered by ACKs that echoed congestion
    /// (ECE; Linux's `delivered_ce`).
    pub delivered_ce: u64,
    /// The most recently sent segment delivered was sent while the sender
    /// was application-limited: the rate may understate the path's.
    pub is_app_limited: bool,
    /// A loss was detected on this ACK.
    pub losses: bool,
    /// Bytes marked lost in all before the sample's segment was sent
    /// (Linux's `tx.lost`), and since then (`rs->lost`).
    pub prior_lost: u64,
    pub lost: u64,
    /// Bytes marked lost while this ACK was processed (`rs->losses`): only
    /// for a controller that runs after loss detection
    /// ([`CongestionControl::runs_after_loss_detection`]), else 0.
    pub newly_lost: u64,
    /// Bytes in flight, neither SACKed nor marked lost, when the sample's
    /// segment was sent, itself included (`tx.in_flight`).
    pub tx_in_flight: u64,
    /// The sender was cwnd-limited when it last stopped sending
    /// (`tp->is_cwnd_limited`).
    pub is_cwnd_limited: bool,
    /// The ACK echoed congestion (`rs->is_ece`).
    pub ece: bool,
    /// How long until the next segment may depart by the pacing (0 when
    /// it may leave now): `tcp_wstamp_ns` less now.
    pub departure_wait: SimDuration,
}

impl RateSample {
    /// Bytes per second, or None without an interval.
    pub fn rate(&self) -> Option<f64> {
        (!self.interval.is_zero() && self.delivered > 0)
            .then(|| self.delivered as f64 / self.interval.as_secs_f64())
    }
}

/// A segment just marked lost, as a controller's `skb_marked_lost` hook
/// sees it: bytes, in flight when it was sent, lost since it was sent
/// (itself included), application-limited then, and the total delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostSegment {
    pub len: u64,
    pub tx_in_flight: u64,
    pub lost: u64,
    pub is_app_limited: bool,
    pub delivered: u64,
}

/// Something that happened to the window outside ACK processing, as
/// Linux's CA events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// Transmission starts with nothing in flight (after idle, or the
    /// first segment): Linux's CA_EVENT_TX_START.
    TxStart,
    /// The window restarts from the initial window after an idle period
    /// longer than the RTO (RFC 5681 4.1): Linux's CA_EVENT_CWND_RESTART.
    Restart,
    /// A retransmitted loss probe repaired a loss (Linux's
    /// CA_EVENT_TLP_RECOVERY, BBRv3's).
    TlpRecovery,
}

/// Why the window is being reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossCause {
    /// Duplicate ACKs (or SACK) triggered fast retransmit.
    DupAcks,
    /// The retransmission timer expired.
    Timeout,
    /// The receiver echoed Congestion Experienced (RFC 3168): no packet
    /// was lost. Variants without an ECN response of their own treat it
    /// as one loss per window, as duplicate ACKs.
    Ecn,
}

#[allow(unused_variables)]
pub trait CongestionControl: Debug + Send {
    fn name(&self) -> &'static str;
    /// Its own random stream, named after its flow (`flow:NAME:cc`), given
    /// once before the run: for a controller that draws (CDG's backoff).
    fn seed(&mut self, rng: crate::rng::Rng) {}
    /// A new controller configured as this one, which has not run yet: a
    /// group's members copy their first member's instead of each resolving
    /// its configuration again. `None` (the default) when it cannot be
    /// copied, as a controller written in Python; every built-in one can.
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        None
    }
    /// The connection is established; cwnd and ssthresh hold their initial
    /// values.
    fn init(&mut self, tcb: &mut Tcb) {}
    /// Every ACK, duplicates included: update estimators only.
    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {}
    /// After an ACK on which `increase_window` did not run (a duplicate,
    /// or an ACK in a recovery), once the recovery has set the window and
    /// before the sender sends: ns-3's TcpLp cuts cwnd there, as its
    /// `PktsAcked` runs on every ACK.
    fn after_ack(&mut self, tcb: &mut Tcb) {}
    /// An ACK of new data outside fast recovery: grow the window.
    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack);
    /// Entering recovery or loss: return the new ssthresh.
    fn ssthresh(&mut self, tcb: &Tcb, cause: LossCause) -> u64;
    /// Linux 2.6's `min_cwnd`: the window the `rate_halving` recovery
    /// drops to at once, when the controller sets it apart from ssthresh
    /// (2.6.22's Westwood+: its estimate); None leaves the recovery's
    /// `rate_halving_floor` to decide.
    fn min_cwnd(&self, tcb: &Tcb) -> Option<u64> {
        None
    }
    /// A window reduction proved spurious (Linux's `undo_cwnd`): the window
    /// to go back to, given the one before the reduction, `prior_cwnd`.
    /// Linux's default, `tcp_reno_undo_cwnd`: the larger of the two.
    fn undo_cwnd(&mut self, tcb: &Tcb, prior_cwnd: u64) -> u64 {
        tcb.cwnd.max(prior_cwnd)
    }
    /// The state is about to change to `to`.
    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {}
    /// A data segment of `bytes` was transmitted.
    fn on_sent(&mut self, tcb: &Tcb, bytes: u64, is_retx: bool) {}
    /// A window event outside ACK processing (see [`CwndEvent`]).
    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {}
    /// ECT on every segment, retransmissions and ACKs too, once ECN is
    /// agreed (Linux's `TCP_CONG_NEEDS_ECN`: DCTCP).
    fn needs_ecn(&self) -> bool {
        false
    }
    /// The quantities it reports about itself, for time series
    /// (`trace = ["cc:w_max"]`): name, unit, meaning.
    fn probes(&self) -> Vec<Probe> {
        Vec::new()
    }
    /// The current value of the probe `name` (one of [`Self::probes`]), if
    /// it has one now.
    fn probe(&self, name: &str) -> Option<f64> {
        None
    }
    /// Whether the controller sets cwnd and pacing itself from delivery-rate
    /// samples (BBR): the recovery strategies then leave cwnd to it.
    fn controls_fully(&self) -> bool {
        false
    }
    /// Whether the sender forms a rate sample on every ACK for
    /// [`Self::control`] (every controller that `controls_fully`).
    fn wants_rate_samples(&self) -> bool {
        self.controls_fully()
    }
    /// After each ACK, with [`Self::wants_rate_samples`], once loss
    /// detection and the recovery have run (Linux's `cong_control`): when
    /// `controls_fully`, set `tcb.cwnd` and `tcb.pacing_rate` from the rate
    /// sample; otherwise read it, and set `tcb.pacing_rate` if the
    /// controller paces itself.
    fn control(&mut self, tcb: &mut Tcb, rs: &RateSample) {}
    /// Whether [`Self::control`] runs after this ACK's loss detection
    /// (RACK's marks, a recovery begun), as Linux's `tcp_ack` calls
    /// `cong_control` after `tcp_fastretrans_alert`, with the sample's
    /// `newly_lost` filled in: BBRv2 and v3. Otherwise it runs before
    /// RACK's detection on the ACK (BBR v1, Python controllers).
    fn runs_after_loss_detection(&self) -> bool {
        false
    }
    /// After [`Self::control`]: the sender is to count itself
    /// application-limited now, so that the rate samples of what it sends
    /// until the data in flight is delivered are flagged (Linux's
    /// `tp->app_limited` set by BBR in ProbeRTT).
    fn marks_app_limited(&self) -> bool {
        false
    }
    /// A segment was just marked lost (Linux's `skb_marked_lost`), with
    /// what a rate sample would say of its flight.
    fn on_marked_lost(&mut self, tcb: &mut Tcb, seg: &LostSegment) {}
}

/// A quantity a controller reports about itself.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Probe {
    pub name: Cow<'static, str>,
    pub unit: Cow<'static, str>,
    pub meaning: Cow<'static, str>,
}

impl Probe {
    pub const fn new(name: &'static str, unit: &'static str, meaning: &'static str) -> Self {
        Probe {
            name: Cow::Borrowed(name),
            unit: Cow::Borrowed(unit),
            meaning: Cow::Borrowed(meaning),
        }
    }
}

/// Supplies user-written controllers (the Python bindings' `cc` objects) by
/// the index of the flow's entry in `flows`, for flows whose `cc` is named
/// "python" (never a group, so an entry is one flow; keyed by entry, the
/// index does not depend on how many flows a workload before it draws).
pub type CustomCc<'a> = &'a mut dyn FnMut(usize) -> Option<Box<dyn CongestionControl>>;

/// RFC 5681 slow start: cwnd += min(acked, limit), with limit = 1 MSS per
/// ACK, or L = 2 MSS with appropriate byte counting (RFC 3465), divided by
/// `tcb.slow_start_divisor` (HyStart++'s Conservative Slow Start). Stops at
/// ssthresh and returns the acked bytes left over for congestion avoidance.
pub fn slow_start(tcb: &mut Tcb, acked: u64, abc: bool) -> u64 {
    let limit = if abc { 2 * tcb.mss } else { tcb.mss };
    let room = tcb.ssthresh.saturating_sub(tcb.cwnd);
    let mut grow = acked.min(limit);
    if tcb.slow_start_divisor > 1 {
        grow /= tcb.slow_start_divisor as u64;
    }
    let inc = grow.min(room);
    tcb.cwnd += inc;
    if inc < grow {
        acked - inc
    } else {
        0
    }
}

/// Linux's `tcp_slow_start`: cwnd grows by everything `acked` (bytes of
/// whole segments) up to ssthresh, with no RFC 3465 limit L: Linux counts
/// the segments an ACK acknowledges since the stretch-ACK fixes of 2015
/// (Linux 4.0, "tcp: fix the timid additive increase on stretch ACKs").
/// Divided by `tcb.slow_start_divisor` as [`slow_start`]; returns the
/// bytes left over for congestion avoidance.
pub fn linux_count_slow_start(tcb: &mut Tcb, acked: u64) -> u64 {
    let room = tcb.ssthresh.saturating_sub(tcb.cwnd);
    let mut grow = acked;
    if tcb.slow_start_divisor > 1 {
        grow /= tcb.slow_start_divisor as u64;
    }
    let inc = grow.min(room);
    tcb.cwnd += inc;
    if inc < grow {
        acked - inc
    } else {
        0
    }
}

/// RFC 5681 congestion avoidance (equation 3): cwnd += MSS * MSS / cwnd per
/// ACK, at least one byte.
pub fn cong_avoid_per_ack(tcb: &mut Tcb) {
    let inc = (tcb.mss * tcb.mss / tcb.cwnd.max(1)).max(1);
    tcb.cwnd += inc;
}

/// Byte-counting congestion avoidance (RFC 3465): one MSS per cwnd of
/// acknowledged bytes, with the credit kept in `cwnd_cnt`.
pub fn cong_avoid_bytes(tcb: &mut Tcb, acked: u64) {
    tcb.cwnd_cnt += acked;
    if tcb.cwnd_cnt >= tcb.cwnd {
        tcb.cwnd_cnt -= tcb.cwnd;
        tcb.cwnd += tcb.mss;
    }
}

/// Linux's `tcp_cong_avoid_ai`: one segment more per `w` segments
/// acknowledged, the credit kept in `tcb.cwnd_cnt` (in segments for the
/// variants that use this; credit left from a larger `w` gives one segment
/// at once, as Linux does). The additive increase of Linux's modules, which
/// count the window in whole segments.
pub fn cong_avoid_ai(tcb: &mut Tcb, w: u64, acked_segments: u64) {
    let w = w.max(1);
    if tcb.cwnd_cnt >= w {
        tcb.cwnd_cnt = 0;
        tcb.cwnd += tcb.mss;
    }
    tcb.cwnd_cnt += acked_segments;
    if tcb.cwnd_cnt >= w {
        let delta = tcb.cwnd_cnt / w;
        tcb.cwnd_cnt -= delta * w;
        tcb.cwnd += delta * tcb.mss;
    }
}

/// Linux's `tcp_slow_start` as its modules call it before
/// `tcp_cong_avoid_ai`: in slow start, grow by [`slow_start`]; then the
/// segments this ACK leaves for the additive increase, or None if none.
/// With byte counting (`abc`, the linux profile) an ACK counts the
/// segments it acknowledges, as Linux's modules do since the stretch-ACK
/// fixes of 2015 (Reno, CUBIC) and 2020 (BIC, Scalable, Veno); without,
/// it counts one, as every ACK did in Linux 2.6 (and as RFC 5681 grows
/// once per ACK).
pub fn linux_slow_start(tcb: &mut Tcb, ack: &Ack, abc: bool) -> Option<u64> {
    let segments = if abc {
        ack.grow_segments.max(1) as u64
    } else {
        1
    };
    if !tcb.in_slow_start() {
        return Some(segments);
    }
    let left = if abc {
        linux_count_slow_start(tcb, segments * tcb.mss)
    } else {
        slow_start(tcb, ack.bytes_acked, false)
    };
    match left {
        0 => None,
        _ if abc => Some(left.div_ceil(tcb.mss)),
        _ => Some(1),
    }
}

/// Linux's `tcp_reno_cong_avoid`: slow start, then one segment per window
/// of acknowledged segments (`tcp_cong_avoid_ai` with w = cwnd in
/// segments), counting as [`linux_slow_start`] does. The growth of the
/// Linux-derived variants outside their own regimes (Hybla outside Open,
/// TCP-LP, CDG).
pub fn linux_reno_cong_avoid(tcb: &mut Tcb, ack: &Ack, abc: bool) {
    if let Some(acked) = linux_slow_start(tcb, ack, abc) {
        let w = tcb.cwnd / tcb.mss;
        cong_avoid_ai(tcb, w, acked);
    }
}

/// Linux's `tcp_reno_ssthresh`: half of cwnd in whole segments, at least 2
/// (the modules that take Reno's threshold, and Hybla and LP).
pub fn linux_reno_ssthresh(tcb: &Tcb) -> u64 {
    ((tcb.cwnd / tcb.mss) >> 1).max(2) * tcb.mss
}

/// RFC 5681 equation 4: ssthresh = max(FlightSize / 2, 2 * SMSS).
pub fn reno_ssthresh(tcb: &Tcb) -> u64 {
    ((tcb.bytes_in_flight() - tcb.limited_sent) / 2).max(2 * tcb.mss)
}

#[cfg(test)]
pub(crate) mod testing {
    //! A driver that feeds a controller synthetic ACKs with the core's rules
    //! (ssthresh returned then applied; state changes notified).

    use super::*;

    /// `v` milliseconds (the controllers' tests speak in them).
    pub fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    pub struct CcDriver<C: CongestionControl> {
        pub cc: C,
        pub tcb: Tcb,
    }

    impl<C: CongestionControl> CcDriver<C> {
        pub fn new(cc: C, mss: u64, cwnd_segments: u64) -> Self {
            let mut tcb = Tcb {
                snd_una: 1,
                snd_nxt: 1,
                snd_max: 1,
                ..Tcb::new(cwnd_segments * mss, u64::MAX, mss)
            };
            let mut cc = cc;
            cc.init(&mut tcb);
            CcDriver { cc, tcb }
        }

        /// One ACK of `segments` full segments.
        pub fn ack(&mut self, segments: u32, rtt: Option<SimDuration>) {
            let ack = Ack {
                now: self.tcb.now,
                bytes_acked: segments as u64 * self.tcb.mss,
                segments_acked: segments,
                grow_segments: segments,
                is_dup: false,
                rtt,
                seg_rtt: rtt,
                prior_in_flight: self.tcb.bytes_in_flight(),
                ece: false,
                ts: None,
            };
            self.tcb.snd_una += ack.bytes_acked;
            self.tcb.snd_max = self.tcb.snd_max.max(self.tcb.snd_una);
            self.cc.on_ack_sample(&self.tcb, &ack);
            self.cc.increase_window(&mut self.tcb, &ack);
        }

        /// One ACK of `segments` with a full window in flight, echoing ECE
        /// or not.
        pub fn ack_ece(&mut self, segments: u32, ece: bool) {
            self.tcb.snd_nxt = self.tcb.snd_una + self.tcb.cwnd;
            self.tcb.snd_max = self.tcb.snd_nxt;
            let ack = Ack {
                now: self.tcb.now,
                bytes_acked: segments as u64 * self.tcb.mss,
                segments_acked: segments,
                grow_segments: segments,
                is_dup: false,
                rtt: None,
                seg_rtt: None,
                prior_in_flight: self.tcb.bytes_in_flight(),
                ece,
                ts: None,
            };
            self.tcb.snd_una += ack.bytes_acked;
            self.cc.on_ack_sample(&self.tcb, &ack);
            self.cc.increase_window(&mut self.tcb, &ack);
        }

        /// A loss (duplicate ACKs) at `segments`, the recovery over: cwnd =
        /// ssthresh, Open.
        pub fn recovered_from_loss_at(mut self, segments: u64) -> Self {
            let mss = self.tcb.mss;
            self.tcb.set_cwnd(segments * mss);
            self.loss(LossCause::DupAcks, segments * mss);
            self.tcb.set_cwnd(self.tcb.ssthresh);
            self.tcb.ca_state = CaState::Open;
            self
        }

        /// One ACK with snd_nxt set first (for algorithms that count rounds).
        pub fn ack_with_nxt(&mut self, segments: u32, rtt: Option<SimDuration>, nxt: u64) {
            self.tcb.snd_nxt = nxt;
            self.ack(segments, rtt);
        }

        /// Moves the clock on by `d` (the next ACKs arrive then).
        pub fn advance(&mut self, d: SimDuration) {
            self.tcb.now += d;
        }

        /// An RTT sample as the sender's estimator records it in the Tcb
        /// (latest, minimum, and the first sample as SRTT).
        pub fn rtt_sample(&mut self, rtt: SimDuration) {
            self.tcb.latest_rtt = Some(rtt);
            self.tcb.min_rtt = Some(self.tcb.min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.tcb.srtt.get_or_insert(rtt);
        }

        /// A duplicate ACK: the controller sees the sample; the window is
        /// the recovery's business, not the controller's.
        pub fn dupack(&mut self) {
            let ack = Ack {
                now: self.tcb.now,
                bytes_acked: 0,
                segments_acked: 0,
                grow_segments: 0,
                is_dup: true,
                rtt: None,
                seg_rtt: None,
                prior_in_flight: self.tcb.bytes_in_flight(),
                ece: false,
                ts: None,
            };
            self.cc.on_ack_sample(&self.tcb, &ack);
        }

        /// The retransmission timer fires with `flight` bytes outstanding
        /// (and in the pipe), as the sender handles it: Loss state, the controller's threshold,
        /// a window of one segment, the recovery point at the highest
        /// sequence sent.
        pub fn timeout(&mut self, flight: u64) {
            self.tcb.snd_max = self.tcb.snd_una + flight;
            self.tcb.pipe = flight as u32;
            self.cc.on_state(&mut self.tcb, CaState::Loss);
            self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, LossCause::Timeout);
            self.tcb.ca_state = CaState::Loss;
            self.tcb.set_cwnd(self.tcb.mss);
            self.tcb.cwnd_cnt = 0;
            self.tcb.recover = self.tcb.snd_max;
            self.tcb.snd_nxt = self.tcb.snd_una;
        }

        /// A loss of `cause` with `flight` bytes outstanding (and in the
        /// pipe).
        pub fn loss(&mut self, cause: LossCause, flight: u64) {
            self.tcb.snd_max = self.tcb.snd_una + flight;
            self.tcb.pipe = flight as u32;
            let to = if cause == LossCause::Timeout {
                CaState::Loss
            } else {
                CaState::Recovery
            };
            self.cc.on_state(&mut self.tcb, to);
            self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, cause);
            self.tcb.ca_state = to;
        }
    }

    /// The registry builds `name` under every profile, and refuses the
    /// parameter `param` set to `bad` with an error naming `cc.PARAM`.
    pub fn builds_and_refuses(name: &str, param: &str, bad: serde_json::Value) {
        use crate::cc::registry::{build, CcSpec, Profile};
        for p in Profile::ALL {
            let b = build(&CcSpec::named(name), "cc", p, true).unwrap();
            assert_eq!(b.cc.name(), name);
        }
        let mut spec = CcSpec::named(name);
        spec.params.insert(param.into(), bad);
        let e = build(&spec, "cc", Profile::Paper, false).err().unwrap();
        assert!(e.to_string().contains(&format!("cc.{param}")), "{e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cong_avoid_ai_adds_a_segment_per_w_acknowledged_and_keeps_the_rest() {
        let mut tcb = Tcb::new(10_000, 5_000, 1000);
        cong_avoid_ai(&mut tcb, 10, 9);
        assert_eq!((tcb.cwnd, tcb.cwnd_cnt), (10_000, 9));
        cong_avoid_ai(&mut tcb, 10, 12); // 21 credits: two segments, 1 left
        assert_eq!((tcb.cwnd, tcb.cwnd_cnt), (12_000, 1));
        // Credit from a larger w (here 12 >= 5) gives one segment at once
        // and is dropped before the new ACK counts.
        tcb.cwnd_cnt = 12;
        cong_avoid_ai(&mut tcb, 5, 3);
        assert_eq!((tcb.cwnd, tcb.cwnd_cnt), (13_000, 3));
    }

    #[test]
    fn every_built_in_variant_copies_into_a_fresh_controller_configured_alike() {
        use crate::cc::registry::{build, CcSpec, Profile, VARIANTS};
        for v in VARIANTS {
            for p in Profile::ALL {
                let b = build(&CcSpec::named(v.name), "cc", p, p == Profile::Linux).unwrap();
                let copy =
                    b.cc.fresh()
                        .unwrap_or_else(|| panic!("{} cannot be copied", v.name));
                // Every field alike: the configuration and the initial state.
                assert_eq!(
                    format!("{copy:?}"),
                    format!("{:?}", b.cc),
                    "{} ({p:?})",
                    v.name
                );
            }
        }
    }
}
