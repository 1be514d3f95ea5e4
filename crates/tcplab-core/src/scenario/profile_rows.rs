// SPDX-License-Identifier: MIT OR Apache-2.0
//! The rows of the profile table ([`super::profile_table`]): every TCP
//! default, per profile, with its source. Rows are filled in [`TABLE`]'s
//! order, so a rule reads only rows above it. A column without a cell for
//! ns-3 3.18 takes ns-3 3.44's. docs/tcp.md explains each setting.

use super::profile_table::{is, rule, rule_n, Column::*, Ctx, Row, Setting};
use crate::cc::slow_start::SlowStartKind;
use crate::net::packet::{IPV4_HEADER, TCP_HEADER};
use crate::tcp::ca_rtt::CcRtt;
use crate::tcp::receiver::AckTiming;
use crate::tcp::rtt::RtoPolicy;
use crate::tcp::rtt_timing::RttSampling;
use crate::tcp::{
    CwndGrowth, EcnResponse, Pacing, PrrForm, RateHalvingFloor, Recovery, RecoveryExit,
    TimeoutSsthresh,
};
use crate::time::{Rate, SimDuration};
use crate::units::Bytes;

/// `NAME: type = field [only recovery]; column => value, "source"; ...`
macro_rules! row {
    ($name:ident: $t:ty = $field:ident $(only $only:expr)?;
     $($col:ident => $v:expr, $src:expr;)+) => {
        pub static $name: Row<$t> = Row {
            field: stringify!($field),
            slot: {
                fn slot(f: &mut crate::scenario::FlowSpec) -> &mut Option<$t> {
                    &mut f.$field
                }
                slot
            },
            only: row!(@only $($only)?),
            cells: &[$(($col, $v, $src)),+],
        };
    };
    (@only) => { None };
    (@only $only:expr) => { Some($only) };
}

// ---- rules ------------------------------------------------------------------

fn usual(c: &Ctx, _: u64) -> Recovery {
    c.usual_recovery
}
fn needs_sack(c: &Ctx, _: u64) -> bool {
    c.recovery().needs_sack()
}
/// The path's largest payload, at most `cap`.
fn path_mss(c: &Ctx, cap: u64) -> Bytes {
    let options = crate::tcp::base_options(c.f.timestamps.unwrap_or(false));
    let max = c
        .path_mtu
        .saturating_sub(IPV4_HEADER + TCP_HEADER + options) as u64;
    Bytes(max.min(cap))
}
fn segments(c: &Ctx, n: u64) -> Bytes {
    Bytes(n.saturating_mul(c.mss()))
}
/// RFC 5681 3.1: 4 segments up to an SMSS of 1095 B, 3 up to 2190 B, else 2.
fn rfc5681_iw(c: &Ctx, _: u64) -> u32 {
    match c.mss() {
        0..=1095 => 4,
        1096..=2190 => 3,
        _ => 2,
    }
}
fn for_dctcp(c: &Ctx, _: u64) -> bool {
    c.variant == "dctcp"
}
fn hystart_for_cubic(c: &Ctx, _: u64) -> SlowStartKind {
    if c.variant == "cubic" {
        SlowStartKind::Hystart
    } else {
        SlowStartKind::Standard
    }
}
fn but_vegas(c: &Ctx, _: u64) -> bool {
    c.variant != "vegas"
}
fn but_ns2_vegas(c: &Ctx, _: u64) -> bool {
    c.recovery() != Recovery::Ns2Vegas
}
fn sack_based(r: Recovery) -> bool {
    matches!(r, Recovery::Sack | Recovery::Prr | Recovery::RateHalving)
}
fn rack_with_sack(c: &Ctx, _: u64) -> bool {
    c.sack() && sack_based(c.recovery())
}
fn as_rack(c: &Ctx, _: u64) -> bool {
    c.f.rack.unwrap_or(false)
}
fn linux_with_prr(c: &Ctx, _: u64) -> EcnResponse {
    if c.recovery() == Recovery::Prr {
        EcnResponse::Linux
    } else {
        EcnResponse::Immediate
    }
}
fn ns3_with_prr(c: &Ctx, _: u64) -> EcnResponse {
    if c.recovery() == Recovery::Prr {
        EcnResponse::Ns3
    } else {
        EcnResponse::Immediate
    }
}
fn ns2_growth(c: &Ctx, _: u64) -> bool {
    matches!(
        c.recovery(),
        Recovery::Reno | Recovery::Newreno | Recovery::Ns2Vegas
    )
}

/// BBR paces by design (Linux's `bbr_init` asks for SK_PACING_NEEDED,
/// ns-3's `TcpBbr::InitPacingRate` sets `m_pacing`).
fn paces_itself(c: &Ctx) -> bool {
    c.variant == "bbr"
}
fn segment_for_bbr(c: &Ctx, _: u64) -> Pacing {
    if paces_itself(c) {
        Pacing::Segment
    } else {
        Pacing::Off
    }
}
fn linux_when_asked(c: &Ctx, _: u64) -> Pacing {
    if paces_itself(c) || c.f.max_pacing_rate.is_some() {
        Pacing::Linux
    } else {
        Pacing::Off
    }
}
fn ns3_for_bbr(c: &Ctx, _: u64) -> Pacing {
    if paces_itself(c) {
        Pacing::Ns3
    } else {
        Pacing::Off
    }
}

const fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}
const fn s(n: u64) -> SimDuration {
    SimDuration::from_secs(n)
}

// ---- the rows -----------------------------------------------------------------

row!(RECOVERY: Recovery = recovery;
    Paper => rule("the variant's", usual), "the variant's row in cc/variants.rs (RFC 5681, 6582, 6675)";
    Linux => rule("prr (tahoe: tahoe)", usual), "Linux tcp_cwnd_reduction (PRR, since Linux 3.2)";
    Ns3 => rule("prr (tahoe: tahoe)", usual), "ns-3 ns3::TcpL4Protocol::RecoveryType = TcpPrrRecovery (since 3.32)";
    Ns3_18 => rule("the variant's (westwood, westwoodplus: reno)", usual), "ns-3.18 TcpNewReno::DupAck, NewAck; TcpWestwood::DupAck, NewAck (its own Reno-style recovery)";
    Ns2 => rule("the variant's (sack: sack1, vegas: ns2_vegas)", usual), "ns-2.35 Agent/TCP/Sack1 (tcp-sack1.cc), Agent/TCP/Vegas (tcp-vegas.cc)";
    Inet => rule("the variant's", usual), "INET 2.x TCPReno, TCPNewReno, TCPVegas, TCPWestwood (TCP.ned tcpAlgorithmClass)";
);
row!(SACK: bool = sack;
    Paper => rule("on with a recovery that needs it (sack, rate_halving, sack1)", needs_sack), "RFC 2018; off unless the recovery needs it";
    Linux => is(true), "Linux sysctl net.ipv4.tcp_sack = 1";
    Ns3 => is(true), "ns-3 ns3::TcpSocketBase::Sack = true";
    Ns3_18 => rule("on with a recovery that needs it (sack, rate_halving, sack1)", needs_sack), "ns-3.18 has no SACK (its TcpHeader carries no options)";
    Ns2 => rule("on with a recovery that needs it (sack, rate_halving, sack1)", needs_sack), "ns-2.35 Agent/TCP/Sack1 carries SACK; the other agents none";
    Inet => rule("on with a recovery that needs it (sack, rate_halving, sack1)", needs_sack), "INET TCP.ned sackSupport = false (on when the recovery needs it)";
);
row!(TIMESTAMPS: bool = timestamps;
    Paper => is(false), "RFC 7323 (optional)";
    Linux => is(true), "Linux sysctl net.ipv4.tcp_timestamps = 1";
    Ns3 => is(true), "ns-3 ns3::TcpSocketBase::Timestamp = true";
    Ns3_18 => is(false), "ns-3.18 has no timestamps (its TcpHeader carries no options)";
    Ns2 => is(false), "ns-2.35 Agent/TCP set timestamps_ false";
    Inet => is(false), "INET TCP.ned timestampSupport = false";
);
row!(WINDOW_SCALING: bool = window_scaling;
    Paper => is(true), "RFC 7323";
    Linux => is(true), "Linux sysctl net.ipv4.tcp_window_scaling = 1";
    Ns3 => is(true), "ns-3 ns3::TcpSocketBase::WindowScaling = true";
    Ns3_18 => is(false), "ns-3.18 has no window scaling (its TcpHeader carries no options)";
    Ns2 => is(false), "ns-2.35 Agent/TCP window_ in packets (no scaling option)";
    Inet => is(false), "INET TCP.ned windowScalingSupport = false";
);
row!(MSS: Bytes = mss;
    Paper => rule_n("the path's: smallest MTU - 40 B - options", u64::MAX, path_mss), "RFC 879, RFC 1122";
    Linux => rule_n("the path's: smallest MTU - 40 B - options", u64::MAX, path_mss), "Linux tcp_mtu_to_mss (the route's MTU)";
    Ns3 => rule_n("the path's: smallest MTU - 40 B - options", u64::MAX, path_mss), "tcplab: the path's (ns-3 ns3::TcpSocket::SegmentSize defaults to 536; scripts set it)";
    Ns2 => rule_n("at most {n} B (and the path's)", 1000, path_mss), "ns-2.35 Agent/TCP set packetSize_ 1000";
    Inet => rule_n("at most {n} B (and the path's)", 536, path_mss), "INET TCP.ned mss = 536";
);
row!(RCV_BUF: Bytes = rcv_buf;
    Paper => is(Bytes(4 << 20)), "tcplab: 4 MiB, large enough not to cap common paths (the RFCs set no receive buffer)";
    Linux => is(Bytes(4 << 20)), "tcplab 4 MiB (Linux autotunes the buffer up to sysctl net.ipv4.tcp_rmem's max: 6 MiB by default; not modelled)";
    Ns3 => is(Bytes(128 << 10)), "ns-3 ns3::TcpSocket::RcvBufSize = 131072";
    Ns3_18 => is(Bytes(65_535)), "ns-3.18 ns3::TcpSocket::RcvBufSize = 131072, advertised at most ns3::TcpSocketBase::MaxWindowSize = 65535 (no scaling)";
    Ns2 => rule_n("{n} segments", 20, segments), "ns-2.35 Agent/TCP set window_ 20";
    Inet => rule_n("{n} segments", 14, segments), "INET TCP.ned advertisedWindow = 14 * mss";
);
row!(DELAYED_ACK: u16 = delayed_ack;
    Paper => is(2), "RFC 1122 4.2.3.2, RFC 5681 4.2";
    Linux => is(2), "Linux __tcp_ack_snd_check (an ACK per two full segments)";
    Ns3 => is(2), "ns-3 ns3::TcpSocket::DelAckCount = 2";
    Ns2 => is(1), "ns-2.35 Agent/TCPSink (an ACK per packet; Agent/TCPSink/DelAck delays them)";
    Inet => is(1), "INET TCP.ned delayedAcksEnabled = false";
);
row!(DELAYED_ACK_TIMEOUT: SimDuration = delayed_ack_timeout;
    Paper => is(ms(200)), "common implementations (RFC 5681 4.2: at most 500 ms)";
    Linux => is(ms(200)), "Linux TCP_DELACK_MAX (200 ms), the upper bound of its adaptive delayed-ACK timer (TCP_ATO_MIN 40 ms up: ack_timing = linux)";
    Ns3 => is(ms(200)), "ns-3 ns3::TcpSocket::DelAckTimeout = 200 ms";
    Ns2 => is(ms(100)), "ns-2.35 Agent/TCPSink/DelAck set interval_ 100ms";
    Inet => is(ms(200)), "INET TCPBaseAlg DELAYED_ACK_TIMEOUT = 0.2 s (unused: TCP.ned delayedAcksEnabled = false)";
);
row!(INITIAL_CWND: u32 = initial_cwnd;
    Paper => rule("RFC 5681 3.1: 4 segments up to an MSS of 1095 B, 3 up to 2190 B, else 2", rfc5681_iw), "RFC 5681 3.1";
    Linux => is(10), "Linux TCP_INIT_CWND = 10 (RFC 6928)";
    Ns3 => is(10), "ns-3 ns3::TcpSocket::InitialCwnd = 10";
    Ns3_18 => is(1), "ns-3.18 ns3::TcpSocket::InitialCwnd = 1";
    Ns2 => is(2), "ns-2.35 Agent/TCP set windowInit_ 2 (windowInitOption_ 1)";
    Inet => is(1), "INET TCP.ned increasedIWEnabled = false (TCPBaseAlg::established: 1 MSS)";
);
row!(INITIAL_SSTHRESH: Bytes = initial_ssthresh;
    Paper => super::profile_table::Value::Unset, "RFC 5681 3.1 (arbitrarily high: unlimited)";
    Linux => super::profile_table::Value::Unset, "Linux TCP_INFINITE_SSTHRESH (0x7fffffff)";
    Ns3 => super::profile_table::Value::Unset, "ns-3 ns3::TcpSocket::InitialSlowStartThreshold = UINT32_MAX";
    Ns3_18 => is(Bytes(65_535)), "ns-3.18 ns3::TcpSocket::SlowStartThreshold = 0xffff";
    Ns2 => super::profile_table::Value::Unset, "tcplab: unlimited (ns-2.35 TcpAgent::reset sets ssthresh_ = window_, 20, where rcv_buf caps the window already)";
    Inet => is(Bytes(65_535)), "INET TCPTahoeRenoFamilyStateVariables ssthresh = 65535";
);
row!(ABC: bool = abc;
    Paper => is(false), "RFC 3465 (experimental; off)";
    Linux => is(true), "Linux tcp_slow_start, tcp_cong_avoid_ai (count bytes acknowledged)";
    Ns3 => rule("on for dctcp (a TcpLinuxReno)", for_dctcp), "ns-3 3.44 ns3::TcpDctcp is a TcpLinuxReno (counts segments acked); TcpNewReno::SlowStart counts ACKs";
    Ns3_18 => is(false), "ns-3.18 TcpNewReno::NewAck counts ACKs";
    Ns2 => is(false), "ns-2.35 Agent/TCP (counts ACKs)";
    Inet => is(false), "INET TCPReno::receivedDataAck (counts ACKs; ABC commented out)";
);
row!(MIN_RTO: SimDuration = min_rto;
    Paper => is(s(1)), "RFC 6298 2.4";
    Linux => is(ms(200)), "Linux TCP_RTO_MIN (200 ms; sysctl net.ipv4.tcp_rto_min_us where present)";
    Ns3 => is(s(1)), "ns-3 ns3::TcpSocketBase::MinRto = 1 s";
    Ns3_18 => is(ms(200)), "ns-3.18 ns3::RttEstimator::MinRTO = 200 ms";
    Ns2 => is(ms(200)), "ns-2.35 Agent/TCP set minrto_ 0.2";
    Inet => is(s(1)), "INET TCPBaseAlg MIN_REXMIT_TIMEOUT = 1 s";
);
row!(MAX_RTO: SimDuration = max_rto;
    Paper => is(s(60)), "RFC 6298 2.5 (at least 60 s)";
    Linux => is(s(120)), "Linux TCP_RTO_MAX = 120 s (sysctl net.ipv4.tcp_rto_max_ms where present)";
    Ns3 => is(s(60)), "ns-3 3.44 TcpSocketBase::ReTxTimeout (the doubled RTO at most 60 s)";
    Ns2 => is(s(60)), "ns-2.35 Agent/TCP set maxrto_ 60";
    Inet => is(s(240)), "INET TCPBaseAlg MAX_REXMIT_TIMEOUT = 240 s";
);
row!(INITIAL_RTO: SimDuration = initial_rto;
    Paper => is(s(1)), "RFC 6298 2.1";
    Linux => is(s(1)), "Linux TCP_TIMEOUT_INIT (1 s, RFC 6298 2.1)";
    Ns3 => is(s(1)), "ns-3 ns3::RttEstimator::InitialEstimation = 1 s";
    Ns2 => is(s(3)), "ns-2.35 Agent/TCP set rtxcur_init_ 3.0";
    Inet => is(s(3)), "INET TCPBaseAlgStateVariables rexmit_timeout = 3.0";
);
row!(CLOCK_GRANULARITY: SimDuration = clock_granularity;
    Paper => is(ms(1)), "RFC 6298 (G)";
    Linux => is(ms(1)), "tcplab 1 ms (rto=\"linux\" has no G term; Linux's timers tick in jiffies, 1 ms at HZ=1000)";
    Ns3 => is(ms(1)), "ns-3 ns3::TcpSocketBase::ClockGranularity = 1 ms";
    Ns2 => is(ms(10)), "ns-2.35 Agent/TCP set tcpTick_ 0.01";
    Inet => is(ms(1)), "tcplab 1 ms (INET TCPBaseAlg::rttMeasurementComplete has no G term, nor rto=\"inet\")";
);
row!(RESTART_AFTER_IDLE: bool = restart_after_idle;
    Paper => is(true), "RFC 5681 4.1";
    Linux => is(true), "Linux sysctl net.ipv4.tcp_slow_start_after_idle = 1";
    Ns3 => is(true), "tcplab: RFC 5681 4.1 (ns-3 itself never restarts: no timer runs while nothing is outstanding)";
    Ns2 => is(true), "RFC 5681 4.1 (ns-2.35 TcpAgent::timeout with nothing outstanding, slow_start_restart_ true: cwnd_ 1)";
    Inet => is(true), "RFC 5681 4.1 (INET TCPBaseAlg::sendData: cwnd = IW after an RTO without sending)";
);
row!(HANDSHAKE: bool = handshake;
    Paper => is(true), "RFC 9293 3.5";
    Linux => is(true), "RFC 9293 3.5 (Linux connect)";
    Ns3 => is(true), "ns-3 TcpSocketBase::Connect (SYN, SYN-ACK, ACK)";
    Ns2 => is(true), "ns-2.35 Agent/TCP set syn_ true, delay_growth_ true";
    Inet => is(true), "INET TCPConnection (SYN, SYN-ACK, ACK)";
);
row!(DUPTHRESH: u32 = dupthresh;
    Paper => is(3), "RFC 5681 3.2";
    Linux => is(3), "Linux sysctl net.ipv4.tcp_reordering = 3";
    Ns3 => is(3), "ns-3 ns3::TcpSocketBase::ReTxThreshold = 3";
    Ns2 => is(3), "ns-2.35 Agent/TCP set numdupacks_ 3";
    Inet => is(3), "INET TCPConnection.h DUPTHRESH = 3";
);
row!(RATE_HALVING_FLOOR: RateHalvingFloor = rate_halving_floor only Recovery::RateHalving;
    Paper => is(RateHalvingFloor::Ssthresh), "Linux 2.6 tcp_cwnd_min";
    Linux => is(RateHalvingFloor::Ssthresh), "Linux 2.6 tcp_cwnd_min";
    Ns3 => is(RateHalvingFloor::Ssthresh), "Linux 2.6 tcp_cwnd_min (ns-3 has no rate halving)";
    Ns2 => is(RateHalvingFloor::Ssthresh), "ns-2.35 Agent/TCP/Linux (tcp-linux.cc: the module's min_cwnd, else ssthresh, as Linux 2.6 tcp_cwnd_min)";
    Inet => is(RateHalvingFloor::Ssthresh), "Linux 2.6 tcp_cwnd_min (INET has no rate halving)";
);
row!(PRR_FORM: PrrForm = prr_form only Recovery::Prr;
    Paper => is(PrrForm::Rfc9937), "RFC 9937";
    Linux => is(PrrForm::Rfc9937), "RFC 9937 (Linux tcp_cwnd_reduction)";
    Ns3 => is(PrrForm::Ns3), "ns-3 3.44 ns3::TcpPrrRecovery";
    Ns3_18 => is(PrrForm::Rfc9937), "RFC 9937 (ns-3.18 has no PRR)";
    Ns2 => is(PrrForm::Rfc9937), "RFC 9937 (ns-2.35 has no PRR)";
    Inet => is(PrrForm::Rfc9937), "RFC 9937 (INET has no PRR)";
);
row!(RACK: bool = rack;
    Paper => is(false), "RFC 8985 (off unless asked)";
    Linux => rule("on with SACK and the sack, prr or rate_halving recovery", rack_with_sack), "Linux sysctl net.ipv4.tcp_recovery = 1 (RACK loss detection)";
    Ns3 => is(false), "ns-3 3.44 (no RACK)";
    Ns2 => is(false), "ns-2.35 (no RACK)";
    Inet => is(false), "INET 2.x (no RACK)";
);
row!(TLP: bool = tlp;
    Paper => rule("as rack", as_rack), "RFC 8985 7";
    Linux => rule("as rack", as_rack), "Linux sysctl net.ipv4.tcp_early_retrans = 3 (TLP on)";
    Ns3 => rule("as rack", as_rack), "RFC 8985 7 (ns-3 3.44 has no TLP)";
    Ns2 => rule("as rack", as_rack), "RFC 8985 7 (ns-2.35 has no TLP)";
    Inet => rule("as rack", as_rack), "RFC 8985 7 (INET has no TLP)";
);
row!(ADAPTIVE_REORDERING: bool = adaptive_reordering;
    Paper => is(false), "RFC 5681 3.2 (a fixed DupThresh)";
    Linux => is(true), "Linux tcp_check_sack_reordering (sysctl net.ipv4.tcp_max_reordering = 300), tcp_rack_update_reo_wnd (tcp_recovery bit 0x2 clear)";
    Ns3 => is(false), "ns-3 3.44 ns3::TcpSocketBase::ReTxThreshold (fixed)";
    Ns2 => is(false), "ns-2.35 Agent/TCP numdupacks_ (fixed; numdupacksFrac_ scales it with the window, not with reordering)";
    Inet => is(false), "INET TCPConnection.h DUPTHRESH (fixed)";
);
row!(ECN_RESPONSE: EcnResponse = ecn_response;
    Paper => is(EcnResponse::Immediate), "RFC 3168 6.1.2";
    Linux => rule("linux with the prr recovery, else immediate", linux_with_prr), "Linux tcp_enter_cwr, tcp_cwnd_reduction";
    Ns3 => rule("ns3 with the prr recovery, else immediate", ns3_with_prr), "ns-3 3.44 TcpSocketBase::EnterCwr";
    Ns3_18 => is(EcnResponse::Immediate), "RFC 3168 6.1.2 (ns-3.18 has no ECN)";
    Ns2 => is(EcnResponse::Immediate), "RFC 3168 6.1.2 (ns-2.35 TcpAgent::ecn halves at once)";
    Inet => is(EcnResponse::Immediate), "RFC 3168 6.1.2 (INET 2.x has no ECN)";
);
row!(QUICK_ACKS: u8 = quick_acks;
    Paper => is(0), "RFC 1122 4.2.3.2 (no quick ACKs)";
    Linux => is(0), "unused: Linux's quick-ACK mode (tcp_incr_quickack) is ack_timing = linux";
    Ns3 => is(1), "ns-3 TcpSocketBase (m_delAckCount = m_delAckMaxCount on reaching ESTABLISHED: the first data segment is ACKed at once)";
    Ns2 => is(0), "ns-2.35 Agent/TCPSink (no quick ACKs)";
    Inet => is(0), "INET 2.x (no quick ACKs)";
);
row!(RTT_SAMPLING: RttSampling = rtt_sampling;
    Paper => is(RttSampling::Segment), "RFC 6298 3 (one timed segment, Karn's rule)";
    Linux => is(RttSampling::Ack), "Linux tcp_clean_rtx_queue, tcp_ack_update_rtt (a sample from every ACK of new data, from the oldest segment it acknowledges that was sent once)";
    Ns3 => is(RttSampling::Ack), "ns-3 RttHistory (3.44 TcpSocketBase::EstimateRtt, 3.18 RttEstimator::AckSeq)";
    Ns2 => is(RttSampling::Segment), "ns-2.35 Agent/TCP rtt_active_ (one timed segment)";
    Inet => is(RttSampling::Segment), "INET TCPBaseAlg (one timed segment: rtseq, rtseq_sendtime)";
);
row!(CC_RTT: CcRtt = cc_rtt;
    Paper => is(CcRtt::Estimator), "RFC 6298 (the estimator's sample)";
    Linux => is(CcRtt::Newest), "Linux tcp_clean_rtx_queue (ca_rtt_us, passed to pkts_acked)";
    Ns3 => is(CcRtt::Estimator), "ns-3 3.44 TcpSocketBase (passes its controllers the estimator's RTT)";
    Ns2 => is(CcRtt::Estimator), "ns-2.35 Agent/TCP (the estimator's sample)";
    Inet => is(CcRtt::Estimator), "INET TCPBaseAlg (the estimator's sample)";
);
row!(RTO: RtoPolicy = rto;
    Paper => is(RtoPolicy::Rfc6298), "RFC 6298 2";
    Linux => is(RtoPolicy::Linux), "Linux tcp_rtt_estimator, tcp_set_rto";
    Ns3 => is(RtoPolicy::Rfc6298), "ns-3 3.44 ns3::RttMeanDeviation (Alpha 0.125, Beta 0.25; RFC 6298)";
    Ns3_18 => is(RtoPolicy::Ns3_18), "ns-3.18 ns3::RttMeanDeviation (Gain 0.1)";
    Ns2 => is(RtoPolicy::Ns2), "ns-2.35 Agent/TCP rtt_update, rtt_timeout";
    Inet => is(RtoPolicy::Inet), "INET TCPBaseAlg::rttMeasurementComplete";
);
row!(LIMITED_TRANSMIT: bool = limited_transmit;
    Paper => rule("on (but with the ns2_vegas recovery)", but_ns2_vegas), "RFC 3042, RFC 5681 3.2";
    Linux => rule("on (but with the ns2_vegas recovery)", but_ns2_vegas), "Linux tcp_packets_in_flight (SACKed or, without SACK, duplicate-ACKed segments leave the flight: RFC 3042 in effect)";
    Ns3 => rule("on (but with the ns2_vegas recovery)", but_ns2_vegas), "ns-3 ns3::TcpSocketBase::LimitedTransmit = true";
    Ns3_18 => is(false), "ns-3.18 ns3::TcpNewReno::LimitedTransmit = false";
    Ns2 => rule("on (but with the ns2_vegas recovery)", but_ns2_vegas), "ns-2.35 Agent/TCP set singledup_ 1 (not read by Agent/TCP/Vegas)";
    Inet => is(false), "INET TCP.ned limitedTransmitEnabled = false";
);
row!(RESCUE_RETRANSMIT: bool = rescue_retransmit;
    Paper => is(false), "RFC 6675 4 NextSeg (4) (a SHOULD; tcplab: off, as in the implementations)";
    Linux => is(false), "Linux (no rescue retransmission; the tail loss probe instead)";
    Ns3 => is(false), "ns-3 3.44 TcpTxBuffer::NextSeg (skips rule 4)";
    Ns2 => is(false), "ns-2.35 Agent/TCP/Sack1 (no rescue retransmission)";
    Inet => is(false), "INET 2.x TCPConnection::nextSeg (RFC 3517: rule 4 returns nothing)";
);
row!(TIMEOUT_SSTHRESH: TimeoutSsthresh = timeout_ssthresh;
    Paper => is(TimeoutSsthresh::Rfc5681), "RFC 5681 (4) and (5)";
    Linux => is(TimeoutSsthresh::Rfc5681), "Linux tcp_enter_loss (the first timeout of a series sets ssthresh)";
    Ns3 => is(TimeoutSsthresh::Ns3), "ns-3 3.44 TcpSocketBase::ReTxTimeout, TcpTxBuffer::BytesInFlight";
    Ns3_18 => is(TimeoutSsthresh::Ns3_18), "ns-3.18 TcpNewReno::Retransmit, TcpWestwood::Retransmit";
    Ns2 => is(TimeoutSsthresh::Rfc5681), "tcplab: RFC 5681 (ns-2.35 TcpAgent::timeout halves every time: slowdown(CLOSE_SSTHRESH_HALF), from min(cwnd_, window_))";
    Inet => is(TimeoutSsthresh::Rfc5681), "tcplab: RFC 5681 (INET TCPReno::processRexmitTimer halves every time, from min(cwnd, snd_wnd))";
);
row!(SLOW_START: SlowStartKind = slow_start;
    Paper => is(SlowStartKind::Standard), "RFC 5681 3.1";
    Linux => rule("hystart for cubic, else standard", hystart_for_cubic), "Linux tcp_cubic.c module parameter hystart = 1 (cubic only)";
    Ns3 => is(SlowStartKind::Standard), "ns-3 3.44 TcpNewReno::SlowStart (ns3::TcpCubic::HyStart = true is its variant's)";
    Ns2 => is(SlowStartKind::Standard), "ns-2.35 TcpAgent::opencwnd";
    Inet => is(SlowStartKind::Standard), "INET TCPReno::receivedDataAck";
);
row!(RENO_RECOVER_GUARD: bool = reno_recover_guard;
    Paper => is(false), "RFC 5681 (no such guard)";
    Linux => is(false), "Linux (no such guard)";
    Ns3 => is(false), "ns-3 3.44 (no such guard)";
    Ns2 => rule("on (but for vegas)", but_vegas), "ns-2.35 Agent/TCP set bugFix_ true (TcpAgent::dupack_action; Vegas: only after a timeout)";
    Inet => is(false), "INET 2.x TCPReno (no recovery point)";
);
row!(HEAD_RETRANSMIT_RESTARTS_RTO: bool = head_retransmit_restarts_rto;
    Paper => is(false), "RFC 6298 5.3 (the timer runs from the last new ACK)";
    Linux => is(true), "Linux tcp_xmit_retransmit_queue (rearms at each resend of the head)";
    Ns3 => is(false), "RFC 6298 5.3 (ns-3 3.44)";
    Ns2 => is(false), "RFC 6298 5.3 (ns-2.35: see fast_retransmit_restarts_rto)";
    Inet => is(false), "RFC 6298 5.3 (INET)";
);
row!(FAST_RETRANSMIT_RESTARTS_RTO: bool = fast_retransmit_restarts_rto;
    Paper => is(false), "RFC 6298 5.3 (the timer runs from the last new ACK)";
    Linux => is(false), "RFC 6298 5.3 (Linux: see head_retransmit_restarts_rto)";
    Ns3 => is(false), "RFC 6298 5.3 (ns-3 3.44)";
    Ns2 => is(true), "ns-2.35 dupack_action: reset_rtx_timer(1, 0) (Reno, Newreno, Sack1; Agent/TCP's own: (0, 0))";
    Inet => is(false), "RFC 6298 5.3 (INET)";
);
row!(ECN: bool = ecn;
    Paper => rule("on for dctcp", for_dctcp), "RFC 3168 (when asked); RFC 8257 3.1 for dctcp";
    Linux => rule("on for dctcp", for_dctcp), "Linux sysctl net.ipv4.tcp_ecn = 2 (only when asked); RFC 8257 3.1";
    Ns3 => rule("on for dctcp", for_dctcp), "ns-3 ns3::TcpSocketBase::UseEcn = Off; RFC 8257 3.1";
    Ns2 => rule("on for dctcp", for_dctcp), "ns-2.35 Agent/TCP set ecn_ 0; RFC 8257 3.1";
    Inet => rule("on for dctcp", for_dctcp), "INET 2.x (no ECN); RFC 8257 3.1";
);
row!(RECOVERY_EXIT: RecoveryExit = recovery_exit;
    Paper => is(RecoveryExit::Flight), "RFC 6582 3.2 step 3, option 1";
    Linux => is(RecoveryExit::Ssthresh), "Linux tcp_end_cwnd_reduction (cwnd = ssthresh)";
    Ns3 => is(RecoveryExit::Ssthresh), "ns-3 3.44 TcpSocketBase::ProcessAck (cwnd = ssthresh on leaving recovery)";
    Ns3_18 => is(RecoveryExit::Flight), "ns-3.18 TcpNewReno::NewAck: min(ssthresh, flight + 1 segment)";
    Ns2 => is(RecoveryExit::Ssthresh), "ns-2.35 Agent/TCP/Newreno exit_recovery_fix_ 0 (cwnd as the halving left it)";
    Inet => is(RecoveryExit::Flight), "INET TCPNewReno::receivedDataAck: min(ssthresh, flight + 1 MSS) (RFC 6582 3.2 step 3, option 1)";
);
row!(RECOVERY_EXIT_GROWTH: bool = recovery_exit_growth;
    Paper => is(false), "RFC 6582 3.2 (no growth on the exit ACK)";
    Linux => is(false), "Linux tcp_end_cwnd_reduction (no growth on that ACK)";
    Ns3 => is(true), "ns-3 3.44 TcpSocketBase::ProcessAck (IncreaseWindow once Open again)";
    Ns3_18 => is(true), "ns-3.18 TcpNewReno::NewAck";
    Ns2 => rule("on for the reno, newreno and ns2_vegas recoveries", ns2_growth), "ns-2.35 recv_newack_helper's opencwnd (not Agent/TCP/Sack1's newack)";
    Inet => is(false), "INET TCPNewReno::receivedDataAck (no growth on the exit ACK)";
);
row!(CWND_GROWTH: CwndGrowth = cwnd_growth;
    Paper => is(CwndGrowth::Rfc), "RFC 5681 3.1 (every ACK of new data)";
    Linux => is(CwndGrowth::Linux), "Linux tcp_cong_control (tcp_cong_avoid with acked_sacked if tcp_may_raise_cwnd), tcp_is_cwnd_limited, tcp_cwnd_validate";
    Ns3 => is(CwndGrowth::Rfc), "ns-3 3.44 TcpSocketBase::ProcessAck (IncreaseWindow with the segments cumulatively acknowledged)";
    Ns3_18 => is(CwndGrowth::Rfc), "ns-3.18 TcpNewReno::NewAck (every new ACK)";
    Ns2 => is(CwndGrowth::Rfc), "ns-2.35 Agent/TCP opencwnd (every new ACK)";
    Inet => is(CwndGrowth::Rfc), "INET TCPReno::receivedDataAck (every new ACK)";
);
row!(DSACK: bool = dsack;
    Paper => is(false), "RFC 2883 (an extension; tcplab: off, as RFC 2018 receivers)";
    Linux => is(true), "Linux sysctl net.ipv4.tcp_dsack = 1 (tcp_dsack_set, tcp_dsack_extend)";
    Ns3 => is(false), "ns-3 3.44 TcpRxBuffer (SACK blocks only, no D-SACK)";
    Ns3_18 => is(false), "ns-3.18 (no SACK)";
    Ns2 => is(false), "ns-2.35 Agent/TCPSink set generateDSacks_ false";
    Inet => is(true), "INET TCPConnection::processSegment1stThru8th, sendAck/addSacks (D-SACK whenever sackSupport is on; no switch)";
);
row!(ACK_TIMING: AckTiming = ack_timing;
    Paper => is(AckTiming::Fixed), "RFC 1122 4.2.3.2, RFC 5681 4.2";
    Linux => is(AckTiming::Linux), "Linux tcp_event_data_recv, tcp_incr_quickack, __tcp_ack_snd_check, tcp_send_delayed_ack, tcp_delack_timer_handler";
    Ns3 => is(AckTiming::Fixed), "ns-3 ns3::TcpSocket::DelAckCount, DelAckTimeout";
    Ns2 => is(AckTiming::Fixed), "ns-2.35 Agent/TCPSink, Agent/TCPSink/DelAck interval_";
    Inet => is(AckTiming::Fixed), "INET TCPBaseAlg DELAYED_ACK_TIMEOUT";
);
row!(UNDO: bool = undo;
    Paper => is(false), "RFC 3708, RFC 3522 (optional; off unless asked)";
    Linux => is(true), "Linux tcp_try_undo_recovery, tcp_try_undo_dsack, tcp_try_undo_partial, tcp_try_undo_loss (always on)";
    Ns3 => is(false), "ns-3 3.44 TcpSocketBase (no undo of a reduction)";
    Ns2 => is(false), "ns-2.35 Agent/TCP (no undo; spurious_response_ acts only with frto_enabled_ 0 by default)";
    Inet => is(false), "INET 2.x TCPBaseAlg (no undo)";
);
row!(FRTO: bool = frto;
    Paper => is(false), "RFC 5682 (experimental; off unless asked)";
    Linux => is(true), "Linux sysctl net.ipv4.tcp_frto = 2 (SACK-enhanced F-RTO)";
    Ns3 => is(false), "ns-3 3.44 TcpSocketBase::ReTxTimeout (no F-RTO)";
    Ns2 => is(false), "ns-2.35 Agent/TCP set frto_enabled_ 0, sfrto_enabled_ 0";
    Inet => is(false), "INET 2.x TCPBaseAlg::processRexmitTimer (no F-RTO)";
);
row!(MAX_PACING_RATE: Rate = max_pacing_rate;
    Paper => super::profile_table::Value::Unset, "tcplab: unlimited";
    Linux => super::profile_table::Value::Unset, "Linux SO_MAX_PACING_RATE (sk_max_pacing_rate = ~0UL: unlimited)";
    Ns3 => is(Rate::from_bps(4_000_000_000)), "ns-3 ns3::TcpSocketState::MaxPacingRate = 4Gb/s";
    Ns3_18 => super::profile_table::Value::Unset, "tcplab: unlimited (ns-3.18 has no pacing)";
    Ns2 => super::profile_table::Value::Unset, "tcplab: unlimited (ns-2.35 has no pacing)";
    Inet => super::profile_table::Value::Unset, "tcplab: unlimited (INET 2.x has no pacing)";
);
row!(PACING: Pacing = pacing;
    Paper => rule("segment for bbr, else off", segment_for_bbr), "Cardwell et al. 2016 (BBR paces each packet: nextSendTime); RFC 5681 sends as the window allows";
    Linux => rule("linux for bbr or with max_pacing_rate, else off", linux_when_asked), "Linux tcp_needs_internal_pacing (sk_pacing_status: SK_PACING_NEEDED from bbr_init or SO_MAX_PACING_RATE)";
    Ns3 => rule("ns3 for bbr, else off", ns3_for_bbr), "ns-3 ns3::TcpSocketState::EnablePacing = false (TcpBbr::InitPacingRate turns it on)";
    Ns3_18 => rule("segment for bbr, else off", segment_for_bbr), "ns-3.18 has no pacing and no BBR (bbr as the paper)";
    Ns2 => rule("segment for bbr, else off", segment_for_bbr), "ns-2.35 has no pacing (bbr as the paper)";
    Inet => rule("segment for bbr, else off", segment_for_bbr), "INET 2.x has no pacing (bbr as the paper)";
);
row!(PACING_SS_RATIO: u16 = pacing_ss_ratio;
    Paper => is(200), "Linux net.ipv4.tcp_pacing_ss_ratio = 200 (no RFC defines pacing)";
    Linux => is(200), "Linux net.ipv4.tcp_pacing_ss_ratio = 200";
    Ns3 => is(200), "ns-3 ns3::TcpSocketState::PacingSsRatio = 200";
    Ns2 => is(200), "Linux net.ipv4.tcp_pacing_ss_ratio = 200 (ns-2.35 has no pacing)";
    Inet => is(200), "Linux net.ipv4.tcp_pacing_ss_ratio = 200 (INET 2.x has no pacing)";
);
row!(PACING_CA_RATIO: u16 = pacing_ca_ratio;
    Paper => is(120), "Linux net.ipv4.tcp_pacing_ca_ratio = 120 (no RFC defines pacing)";
    Linux => is(120), "Linux net.ipv4.tcp_pacing_ca_ratio = 120";
    Ns3 => is(120), "ns-3 ns3::TcpSocketState::PacingCaRatio = 120";
    Ns2 => is(120), "Linux net.ipv4.tcp_pacing_ca_ratio = 120 (ns-2.35 has no pacing)";
    Inet => is(120), "Linux net.ipv4.tcp_pacing_ca_ratio = 120 (INET 2.x has no pacing)";
);
row!(PACE_INITIAL_WINDOW: bool = pace_initial_window;
    Paper => is(true), "Cardwell et al. 2016 (BBR paces from the first packet)";
    Linux => is(false), "Linux tcp_update_skb_after_send (data_segs_out >= 10: the first 10 data segments unpaced, as the original sch_fq)";
    Ns3 => is(false), "ns-3 ns3::TcpSocketState::PaceInitialWindow = false";
    Ns3_18 => is(true), "as the paper (ns-3.18 has no pacing)";
    Ns2 => is(true), "as the paper (ns-2.35 has no pacing)";
    Inet => is(true), "as the paper (INET 2.x has no pacing)";
);

/// Every row, in the order they are filled: a rule reads rows above it.
pub static TABLE: &[&dyn Setting] = &[
    &RECOVERY,
    &SACK,
    &TIMESTAMPS,
    &WINDOW_SCALING,
    &MSS,
    &RCV_BUF,
    &DELAYED_ACK,
    &DELAYED_ACK_TIMEOUT,
    &INITIAL_CWND,
    &INITIAL_SSTHRESH,
    &ABC,
    &MIN_RTO,
    &MAX_RTO,
    &INITIAL_RTO,
    &CLOCK_GRANULARITY,
    &RESTART_AFTER_IDLE,
    &HANDSHAKE,
    &DUPTHRESH,
    &RATE_HALVING_FLOOR,
    &PRR_FORM,
    &RACK,
    &TLP,
    &ADAPTIVE_REORDERING,
    &ECN_RESPONSE,
    &QUICK_ACKS,
    &RTT_SAMPLING,
    &CC_RTT,
    &RTO,
    &LIMITED_TRANSMIT,
    &RESCUE_RETRANSMIT,
    &TIMEOUT_SSTHRESH,
    &SLOW_START,
    &RENO_RECOVER_GUARD,
    &HEAD_RETRANSMIT_RESTARTS_RTO,
    &FAST_RETRANSMIT_RESTARTS_RTO,
    &ECN,
    &RECOVERY_EXIT,
    &RECOVERY_EXIT_GROWTH,
    &CWND_GROWTH,
    &DSACK,
    &ACK_TIMING,
    &UNDO,
    &FRTO,
    &MAX_PACING_RATE,
    &PACING,
    &PACING_SS_RATIO,
    &PACING_CA_RATIO,
    &PACE_INITIAL_WINDOW,
];
