// SPDX-License-Identifier: MIT OR Apache-2.0
//! A real TCP over byte sequence numbers: a sender at the flow's source, a
//! receiver at its destination.
//!
//! - [`sender`]: handshake, transmission, ACK processing, RTO (RFC 6298),
//!   and the loss-recovery strategies (tahoe, reno RFC 5681, newreno RFC
//!   6582, sack RFC 6675) around a pluggable congestion controller
//!   ([`crate::cc`]).
//! - [`receiver`]: reassembly, cumulative and selective ACKs (RFC 2018),
//!   delayed ACKs (RFC 1122 / 5681), timestamps echo (RFC 7323).
//!
//! Sequence numbers are 64-bit and never wrap inside the simulator (the
//! initial sequence number is 0; the SYN takes sequence 0 and data starts at
//! 1); packet traces write them modulo 2^32. The receiving application reads
//! in-order data at once, so the advertised window is the receive buffer.

pub mod ca_rtt;
pub mod dsack;
pub mod event;
pub mod fine_retx;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod reordering;
pub mod rtt;
pub mod rtt_timing;
pub mod scoreboard;
pub mod sender;
#[cfg(test)]
mod tests;

pub use recovery::Recovery;

use serde::Serialize;

use crate::time::SimDuration;

pub use crate::net::packet::{TcpHeader, ACK, CWR, ECE, FIN, MAX_SACK_BLOCKS, RST, SYN};

/// Everything that configures one TCP connection, resolved from the
/// scenario (see `docs/tcp.md` for defaults and their provenance).
#[derive(Clone, Debug)]
pub struct TcpConfig {
    /// Payload bytes per full segment.
    pub mss: u32,
    pub recovery: Recovery,
    pub sack: bool,
    pub timestamps: bool,
    pub window_scaling: bool,
    /// Receive buffer in bytes; the advertised window.
    pub rcv_buf: u64,
    /// ACK every `delayed_ack` full segments (1 = every segment, no delay).
    pub delayed_ack: u16,
    pub delayed_ack_timeout: SimDuration,
    /// The first this many in-order data segments are each ACKed at once
    /// (ns-3 acknowledges the first data segment of a connection at once).
    pub quick_acks: u8,
    /// Where RTT samples come from without timestamps.
    pub rtt_sampling: rtt_timing::RttSampling,
    /// The RTT sample the congestion controller is given.
    pub cc_rtt: ca_rtt::CcRtt,
    /// Initial window in bytes.
    pub initial_cwnd: u64,
    pub initial_ssthresh: u64,
    pub min_rto: SimDuration,
    pub max_rto: SimDuration,
    pub initial_rto: SimDuration,
    pub clock_granularity: SimDuration,
    /// How the timeout follows from the RTT samples.
    pub rto: rtt::RtoPolicy,
    /// RFC 5681 4.1: after an idle period longer than the RTO, restart from
    /// the initial window.
    pub restart_after_idle: bool,
    /// Duplicate ACKs that trigger fast retransmit; with
    /// `adaptive_reordering`, the connection's reordering degree, which
    /// starts at the configured value (Linux's `tp->reordering`).
    pub dupthresh: u16,
    /// Linux's adaptive reordering degree and RACK reordering window
    /// ([`reordering`]).
    pub adaptive_reordering: bool,
    /// RFC 3042 (RFC 5681 3.2 step 1): the first two duplicate ACKs each
    /// let one new segment out beyond cwnd.
    pub limited_transmit: bool,
    /// NewReno's window when a recovery ends (RFC 6582 3.2 step 3).
    pub recovery_exit: RecoveryExit,
    /// How an ACK grows the window: on every ACK of new data by what it
    /// acknowledges, or as Linux's `tcp_cong_control` (only while
    /// cwnd-limited, by what it newly delivered).
    pub cwnd_growth: CwndGrowth,
    /// The ACK that ends a fast recovery also grows the window by the
    /// segments it acknowledges, as ns-3's `ProcessAck` does (it calls
    /// `IncreaseWindow` once the state is Open again).
    pub recovery_exit_growth: bool,
    /// RFC 6675 NextSeg rule 4: one rescue retransmission per SACK
    /// recovery, of the segment holding the highest unSACKed byte.
    pub rescue_retransmit: bool,
    /// How low the rate_halving recovery may bring the window.
    pub rate_halving_floor: RateHalvingFloor,
    /// How slow start may end before a loss (HyStart, HyStart++).
    pub slow_start: crate::cc::slow_start::SlowStartKind,
    /// RACK loss detection (RFC 8985) instead of DupThresh and IsLost,
    /// for the SACK-based recoveries, with or without the tail loss probe.
    pub rack: RackMode,
    /// Reno starts another fast retransmit only when the cumulative ACK is
    /// above the last recovery point (ns-2's `bugFix_`).
    pub reno_recover_guard: bool,
    /// What restarts the retransmission timer besides a new ACK.
    pub rto_restart: RtoRestart,
    /// Each retransmission backs the retransmission timer off (ns-2's
    /// Vegas); set from the variant, not a scenario field.
    pub retransmit_backoff: bool,
    /// ECN (RFC 3168): asked for in the SYN, ECT(0) on data once agreed.
    pub ecn: bool,
    /// The receiver echoes each segment's CE (DCTCP, RFC 8257 3.2) rather
    /// than latching ECE until CWR; set from the variant.
    pub ecn_per_segment: bool,
    /// How the window comes down after an ECN echo.
    pub ecn_response: EcnResponse,
    /// Whose PRR arithmetic the prr recovery follows.
    pub prr_form: PrrForm,
    /// Which timeouts set ssthresh, from what flight.
    pub timeout_ssthresh: TimeoutSsthresh,
    /// Vegas's fine-grained timeout; set from the variant.
    pub fine_timeout: fine_retx::FineTimeout,
    /// The receiver reports duplicate segments in D-SACK blocks (RFC
    /// 2883), when SACK is on.
    pub dsack: bool,
    /// How the receiver times its ACKs (`fixed`, or Linux's quick-ACK mode
    /// and adaptive delayed-ACK timeout).
    pub ack_timing: receiver::AckTiming,
    /// Undo of spurious window reductions (RFC 3708 by D-SACK, RFC 3522
    /// by timestamps, the RFC 4015 response), as Linux's `tcp_try_undo_*`.
    pub undo: bool,
    /// F-RTO (RFC 5682 3, SACK-enhanced, Linux's `tcp_frto = 2`).
    pub frto: bool,
}

/// A paced flow's settings (apart from [`TcpConfig`], which every
/// connection keeps in its hot lines: [`sender::Sender::set_pacing`] reads
/// these once).
#[derive(Clone, Debug, PartialEq)]
pub struct PacingConfig {
    /// The form (never [`Pacing::Off`] or [`Pacing::On`] once resolved).
    pub form: Pacing,
    /// The pacing rate's multiple of cwnd / SRTT in percent, while cwnd <
    /// ssthresh / 2 (`tcp_pacing_ss_ratio`) and after (`tcp_pacing_ca_ratio`).
    pub ss_ratio: u16,
    pub ca_ratio: u16,
    /// The highest pacing rate, bytes per second (`SO_MAX_PACING_RATE`;
    /// infinite: none).
    pub max_rate: f64,
    /// The initial window is paced too (ns-3's `PaceInitialWindow`); else
    /// it leaves as the form has it (Linux: the first 10 data segments;
    /// ns-3 and segment: until the highest sequence sent passes it).
    pub pace_initial_window: bool,
}

#[cfg(test)]
impl TcpConfig {
    /// A connection's settings for unit tests: RFC defaults, an ACK per
    /// segment, no SACK, no limited transmit, every optional mechanism off.
    pub(crate) fn for_tests(mss: u64, initial_segments: u64) -> TcpConfig {
        TcpConfig {
            mss: mss as u32,
            recovery: Recovery::Newreno,
            sack: false,
            timestamps: false,
            window_scaling: true,
            rcv_buf: 1 << 20,
            delayed_ack: 1,
            delayed_ack_timeout: SimDuration::from_millis(200),
            quick_acks: 0,
            rtt_sampling: rtt_timing::RttSampling::Segment,
            cc_rtt: ca_rtt::CcRtt::Estimator,
            initial_cwnd: initial_segments * mss,
            initial_ssthresh: u64::MAX,
            min_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(60),
            initial_rto: SimDuration::from_secs(1),
            clock_granularity: SimDuration::from_millis(1),
            rto: rtt::RtoPolicy::Rfc6298,
            restart_after_idle: true,
            dupthresh: 3,
            adaptive_reordering: false,
            limited_transmit: false,
            recovery_exit: RecoveryExit::Flight,
            recovery_exit_growth: false,
            cwnd_growth: CwndGrowth::Rfc,
            rescue_retransmit: false,
            rate_halving_floor: RateHalvingFloor::Ssthresh,
            slow_start: crate::cc::slow_start::SlowStartKind::Standard,
            rack: RackMode::Off,
            reno_recover_guard: false,
            rto_restart: RtoRestart::Ack,
            ecn: false,
            ecn_per_segment: false,
            retransmit_backoff: false,
            ecn_response: EcnResponse::Immediate,
            prr_form: PrrForm::Rfc9937,
            timeout_ssthresh: TimeoutSsthresh::Rfc5681,
            fine_timeout: fine_retx::FineTimeout::Rfc6298,
            dsack: false,
            ack_timing: receiver::AckTiming::Fixed,
            undo: false,
            frto: false,
        }
    }
}

/// How the sender brings its window down after an ECN echo (ssthresh is
/// the congestion control's in every form).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EcnResponse {
    /// RFC 3168 6.1.2: cwnd = ssthresh at once, on any ACK with ECE in the
    /// Open or Disorder state, once per window of data.
    Immediate,
    /// Linux's CWR state (`tcp_enter_cwr`, `tcp_cwnd_reduction`): PRR
    /// brings cwnd to ssthresh over the round trip, against the cwnd before
    /// the reduction; a loss found meanwhile continues the same reduction
    /// as a recovery. Needs the prr recovery.
    Linux,
    /// ns-3 3.44's CA_CWR (`TcpSocketBase::EnterCwr` with
    /// `TcpPrrRecovery`): only ACKs of new data react, in recovery too;
    /// PRR against the bytes in flight after the ACK, the ACK that enters
    /// counted twice, the conservative bound only; duplicate ACKs leave
    /// cwnd alone and start no recovery until CWR ends. Needs the prr
    /// recovery.
    Ns3,
}

impl EcnResponse {
    pub fn name(self) -> &'static str {
        match self {
            EcnResponse::Immediate => "immediate",
            EcnResponse::Linux => "linux",
            EcnResponse::Ns3 => "ns3",
        }
    }
}

crate::deserialize_names!(EcnResponse {
    "immediate" => EcnResponse::Immediate,
    "linux" => EcnResponse::Linux,
    "ns3" => EcnResponse::Ns3,
});

/// RFC 6582 3.2 step 3 offers two windows for the end of fast recovery.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryExit {
    /// Option 1: cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
    Flight,
    /// Option 2: cwnd = ssthresh (ns-3's TcpClassicRecovery).
    Ssthresh,
}

crate::deserialize_names!(RecoveryExit {
    "flight" => RecoveryExit::Flight,
    "ssthresh" => RecoveryExit::Ssthresh,
});

/// How an ACK of new data grows the window.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CwndGrowth {
    /// Every ACK of new data grows it by the segments it cumulatively
    /// acknowledges (RFC 5681, ns-2, ns-3).
    Rfc,
    /// Linux's `tcp_cong_control`: only while the window is used
    /// (`tcp_is_cwnd_limited`: cwnd-limited at the last send, or in slow
    /// start below twice the most segments in flight of the last window),
    /// by the segments the ACK newly delivered (`acked_sacked`: cumulatively
    /// acknowledged or SACKed, less those SACKed before; without SACK less
    /// the duplicate ACKs that stood for them).
    Linux,
}

crate::deserialize_names!(CwndGrowth {
    "rfc" => CwndGrowth::Rfc,
    "linux" => CwndGrowth::Linux,
});

/// RACK (RFC 8985) and its tail loss probe: one byte for the two switches,
/// as the probe needs RACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RackMode {
    Off,
    /// RACK alone.
    On,
    /// RACK and the tail loss probe (RFC 8985 7).
    WithTlp,
}

/// What restarts the retransmission timer besides an ACK of new data (RFC
/// 6298 5.3); one byte for the two scenario switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoRestart {
    /// Nothing else: the timer runs on from the last new ACK (RFC 6298,
    /// ns-3).
    Ack,
    /// Also the fast retransmit (ns-2's `reset_rtx_timer(1, 0)` in
    /// `dupack_action`): `fast_retransmit_restarts_rto`.
    FastRetransmit,
    /// Also every retransmission of the first unacknowledged segment, the
    /// fast retransmit among them (Linux's `tcp_xmit_retransmit_queue`
    /// rearms the timer when it resends the retransmission queue's head):
    /// `head_retransmit_restarts_rto`.
    HeadRetransmit,
}

/// Whose arithmetic the prr recovery follows ([`recovery::prr`]).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PrrForm {
    /// RFC 9937's (Linux's but for RecoverFS, which Linux takes from the
    /// window before the recovery).
    Rfc9937,
    /// ns-3 3.44's `TcpPrrRecovery` as its `TcpSocketBase` drives it:
    /// RecoverFS is the pipe, every duplicate ACK adds a segment to
    /// DeliveredData (SACK or not) while prr_delivered < RecoverFS, a
    /// partial ACK counts all it acknowledges and is safe, and without SACK
    /// the pipe PRR reads is the one before the ACK's own report.
    Ns3,
}

impl PrrForm {
    pub fn name(self) -> &'static str {
        match self {
            PrrForm::Rfc9937 => "rfc9937",
            PrrForm::Ns3 => "ns3",
        }
    }
}

crate::deserialize_names!(PrrForm {
    "rfc9937" => PrrForm::Rfc9937,
    "ns3" => PrrForm::Ns3,
});

/// Which retransmission timeouts set ssthresh, and from what flight
/// ([`timeout_ssthresh`]).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutSsthresh {
    /// RFC 5681 (4) and (5): the first timeout of a series, from the RFC
    /// 6675 pipe without the retransmissions.
    Rfc5681,
    /// ns-3 3.44's `ReTxTimeout`: every timeout, from its `BytesInFlight`.
    Ns3,
    /// ns-3.18's `Retransmit` (TcpNewReno's, TcpWestwood's): every timeout,
    /// from what the controller reads (all that is outstanding).
    Ns3_18,
}

crate::deserialize_names!(TimeoutSsthresh {
    "rfc5681" => TimeoutSsthresh::Rfc5681,
    "ns3" => TimeoutSsthresh::Ns3,
    "ns3_18" => TimeoutSsthresh::Ns3_18,
});

/// The window the rate_halving recovery brings what is in flight down to
/// (the congestion-control module's `min_cwnd` in Linux 2.6).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RateHalvingFloor {
    /// ssthresh: Linux 2.6's default, and its CUBIC, BIC, H-TCP and Veno.
    Ssthresh,
    /// ssthresh / 2, in whole segments (at least one): `tcp_reno_min_cwnd`,
    /// which Linux 2.6.22's reno, highspeed, hybla, illinois, lp, scalable,
    /// vegas and yeah modules declare.
    HalfSsthresh,
}

crate::deserialize_names!(RateHalvingFloor {
    "ssthresh" => RateHalvingFloor::Ssthresh,
    "half_ssthresh" => RateHalvingFloor::HalfSsthresh,
});

/// Bytes of options on a SYN: MSS (4), SACK-permitted and timestamps (2 + 10,
/// or 2 NOPs + SACK-permitted = 4 without timestamps), window scale with a
/// NOP (4).
pub fn syn_options(c: &TcpConfig) -> u32 {
    let mut n = 4;
    if c.timestamps {
        n += 12;
    } else if c.sack {
        n += 4;
    }
    if c.window_scaling {
        n += 4;
    }
    n
}

/// Bytes of options on every other segment before SACK blocks: timestamps
/// with two NOPs (12), or none.
pub fn base_options(timestamps: bool) -> u32 {
    if timestamps {
        12
    } else {
        0
    }
}

/// Bytes of options for `n` SACK blocks (2 NOPs + kind/len + 8 per block).
pub fn sack_options(n: usize) -> u32 {
    if n == 0 {
        0
    } else {
        4 + 8 * n as u32
    }
}

/// The window scale shift (RFC 7323) that lets `buf` be advertised.
pub fn window_shift(buf: u64, enabled: bool) -> u8 {
    if !enabled {
        return 0;
    }
    let mut s = 0u8;
    while (buf >> s) > 65_535 && s < 14 {
        s += 1;
    }
    s
}

/// Whether and how the sender paces (the flow's `pacing`; see
/// [`sender`]'s pacing module and docs/tcp.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    /// Unpaced: segments leave as the window allows.
    Off,
    /// The settings profile's form (`true`); resolved to one of the others
    /// before a run.
    On,
    /// Linux's internal pacing: `tcp_update_pacing_rate`, earliest
    /// departure times in skbs of `tcp_tso_autosize` segments, the first
    /// 10 data segments unpaced.
    Linux,
    /// ns-3 3.44's `TcpSocketBase` pacing: its `UpdatePacingRate` after
    /// each ACK, one segment per expiry of the pacing timer, the initial
    /// window unpaced unless `PaceInitialWindow`.
    Ns3,
    /// One segment at a time, each its length at the rate after the one
    /// before (the BBR paper's `nextSendTime`, Aggarwal et al.'s paced
    /// TCP), Linux's rate formula on the smoothed RTT.
    Segment,
}

impl Pacing {
    pub fn name(self) -> &'static str {
        match self {
            Pacing::Off => "false",
            Pacing::On => "true",
            Pacing::Linux => "linux",
            Pacing::Ns3 => "ns3",
            Pacing::Segment => "segment",
        }
    }
}

impl Serialize for Pacing {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Pacing::Off => s.serialize_bool(false),
            Pacing::On => s.serialize_bool(true),
            p => s.serialize_str(p.name()),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Pacing {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, Visitor};
        struct V;
        const NAMES: &[&str] = &["linux", "ns3", "segment"];
        impl Visitor<'_> for V {
            type Value = Pacing;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "true, false, 'linux', 'ns3' or 'segment'")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Pacing, E> {
                Ok(if v { Pacing::On } else { Pacing::Off })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Pacing, E> {
                match v {
                    "linux" => Ok(Pacing::Linux),
                    "ns3" => Ok(Pacing::Ns3),
                    "segment" => Ok(Pacing::Segment),
                    _ => Err(E::custom(format!(
                        "'{v}' is not a pacing form (allowed: true, false, {})",
                        NAMES
                            .iter()
                            .map(|n| format!("'{n}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}
