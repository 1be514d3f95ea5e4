// SPDX-License-Identifier: MIT OR Apache-2.0
//! The scenario: a plain, serializable description of one run.
//!
//! The same structure comes from Python builders (as JSON) and from TOML
//! files. Parsing reports the exact path of a bad field
//! (`links[1].loss.per`); unknown fields are refused. Semantic checks (names,
//! ranges, routes) come next, before anything is built ([`validate`]), and
//! the world builds what they lay out.

use serde::{Deserialize, Serialize};

mod app;
pub mod budget;
mod checks;
mod flow_fields;
mod group;
mod ideal;
mod member;
mod names;
mod parse;
mod plan_flows;
mod plan_links;
pub mod profile_rows;
pub mod profile_table;
mod rate;
mod reception;
mod recovery_options;
pub mod resolve;
mod tcp_check;
mod tcp_group;
mod trace;
pub mod validate;
pub mod workload;

pub use flow_fields::flow_kind_params;

pub use app::{AppKind, AppSpec};
pub(crate) use checks::concat;
pub use group::OneOrMany;
use parse::{delayed_ack_from, without_position};
pub use rate::{
    add_schedule, LinkRate, OutageSpec, RateSpec, ScheduleEntry, ScheduleRate, TraceFiles,
};
pub use trace::{TraceKind, TraceSpec};

pub use validate::{plan, AppPlan, FlowPlan, LinkPlan, NodePlan, Plan};

use crate::error::{Error, Result};
pub use crate::net::arq::ArqSpec;
pub use crate::net::error_model::{LossModel, LossSpec, Sojourn};
pub use crate::net::jitter::JitterSpec;
pub use crate::net::qdisc::QueueSpec;
pub use crate::net::reorder::ReorderSpec;
use crate::time::{Rate, SimDuration};
use crate::units::Bytes;

fn default_seed() -> u64 {
    1
}
fn default_mtu() -> u32 {
    1500
}
fn is_zero(v: &u64) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label for the run (free text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Simulated time to run. Without it, the run ends when no event is left
    /// (every source must then have an end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<SimDuration>,
    /// Seed of every random stream (default 1).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Run index: a second axis of independent replications under one seed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub run: u64,
    /// End hosts: sources and sinks of traffic; they do not forward.
    #[serde(default)]
    pub hosts: Vec<String>,
    /// Routers forward packets between links.
    #[serde(default)]
    pub routers: Vec<String>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Explicit routes overriding the shortest paths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<RouteSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Per-interval goodput: delivered bytes of every flow in consecutive
    /// windows of this length (e.g. "250s").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<SimDuration>,
    /// Packet traces (pcap) of link directions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap: Option<PcapSpec>,
    /// Optional recordings: time series and event logs (see [`TraceKind`]),
    /// and quantities of the congestion controls (`"cc:w_max"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TraceSpec>,
    /// The most memory the run may hold: the network built from the
    /// scenario (counted before it is built: [`budget`]) and what grows as
    /// it runs (packets in flight, recorded series and logs, per-interval
    /// rows); default [`DEFAULT_MEMORY_BUDGET`]. A run estimated to need
    /// more is refused before it starts; one that outgrows it stops with an
    /// out-of-memory error. It never depends on the machine, so a scenario
    /// is accepted or refused alike everywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_budget: Option<Bytes>,
    /// Delay distributions: the percentiles of every link direction's
    /// queue sojourns, and of every flow's one-way delays (data and ACKs
    /// apart) with their extremes and jitter, as ns-3's FlowMonitor (the
    /// means, and the sojourns' maximum, are always there). Off by default:
    /// it costs a histogram per link and flow direction, and 5 to 15% of
    /// the speed with many flows.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delay_percentiles: bool,
}

impl Default for Scenario {
    /// An empty scenario (nothing to run), as `{}` reads.
    fn default() -> Self {
        Scenario {
            name: None,
            duration: None,
            seed: default_seed(),
            run: 0,
            hosts: Vec::new(),
            routers: Vec::new(),
            links: Vec::new(),
            routes: Vec::new(),
            flows: Vec::new(),
            interval: None,
            pcap: None,
            trace: Vec::new(),
            memory_budget: None,
            delay_percentiles: false,
        }
    }
}

/// 4 GiB: a run of that size fits a laptop; raise it per run when needed.
pub const DEFAULT_MEMORY_BUDGET: u64 = 4 << 30;

/// Where packets are captured on a link direction.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CapturePoint {
    /// When the packet starts serializing onto the link (what goes on the
    /// wire, including packets the error model will drop).
    #[default]
    Tx,
    /// When the packet arrives at the far end and survives the error model
    /// (what the next node receives).
    Rx,
}

crate::deserialize_names!(CapturePoint {
    "tx" => CapturePoint::Tx,
    "rx" => CapturePoint::Rx,
});

fn default_snaplen() -> u32 {
    96
}

/// Packet traces: one pcap file per captured link direction,
/// `{dir}/{link}-0.pcap` (a -> b) and `{link}-1.pcap` (b -> a).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    pub dir: String,
    /// Link names to capture (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<String>>,
    /// Bytes kept per packet (headers are at most 100 B; default 96).
    #[serde(default = "default_snaplen")]
    pub snaplen: u32,
    #[serde(default)]
    pub capture: CapturePoint,
}

fn zero_start() -> OneOrMany<SimDuration> {
    OneOrMany::One(SimDuration::ZERO)
}

/// A full-duplex point-to-point link between nodes `a` and `b` (or a group
/// of links: see [`OneOrMany`]).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Defaults to "a-b" from the two ends' names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<OneOrMany<String>>,
    pub a: OneOrMany<String>,
    pub b: OneOrMany<String>,
    /// Rate of each direction, bit/s, or a capacity trace.
    pub rate: RateSpec,
    /// The b -> a direction's rate, when it differs from `rate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_rate: Option<RateSpec>,
    /// Changes of the a -> b direction's rate, delay and loss over time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<ScheduleEntry>>,
    /// Changes of the b -> a direction's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_schedule: Option<Vec<ScheduleEntry>>,
    /// What the schedules' outages (rate 0) do: hold packets (default) or
    /// drop them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outage: Option<OutageSpec>,
    /// Extra per-packet delay on the a -> b direction, from a distribution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<JitterSpec>,
    /// The b -> a direction's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_jitter: Option<JitterSpec>,
    /// Explicit reordering on the a -> b direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reorder: Option<ReorderSpec>,
    /// The b -> a direction's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_reorder: Option<ReorderSpec>,
    /// Link-layer ARQ on the a -> b direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arq: Option<ArqSpec>,
    /// The b -> a direction's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_arq: Option<ArqSpec>,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// The egress queue of each direction: a drop-tail limit ("100p", the
    /// default) or a discipline with its parameters.
    #[serde(default)]
    pub queue: QueueSpec,
    /// The b -> a direction's egress queue, when it differs from `queue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<QueueSpec>,
    /// Largest IP datagram, bytes (default 1500).
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// Error model on the a -> b direction (applied at b).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// Error model on the b -> a direction (applied at a).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_loss: Option<LossSpec>,
}

impl LinkSpec {
    /// How many links the entry declares (its longest list; checking
    /// refuses lists of different lengths).
    pub fn members(&self) -> usize {
        let name = self.name.as_ref().and_then(OneOrMany::count);
        [self.a.count(), self.b.count(), name]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(1)
    }
}

/// At `node`, send packets for host `to` to the neighbour `next`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub node: String,
    pub to: String,
    pub next: String,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// UDP constant bit rate source with a sink.
    Udp,
    /// A TCP connection from src (sender) to dst (receiver).
    Tcp,
}

crate::deserialize_names!(FlowKind {
    "udp" => FlowKind::Udp,
    "tcp" => FlowKind::Tcp,
});

impl FlowKind {
    pub fn name(self) -> &'static str {
        match self {
            FlowKind::Udp => "udp",
            FlowKind::Tcp => "tcp",
        }
    }
}

/// A traffic flow from host `src` to host `dst` (or a group of flows: see
/// [`OneOrMany`]).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub kind: FlowKind,
    /// Defaults to the kind and the flow's index ("udp0").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<OneOrMany<String>>,
    pub src: OneOrMany<String>,
    pub dst: OneOrMany<String>,
    /// When the source starts (default 0).
    #[serde(default = "zero_start")]
    pub start: OneOrMany<SimDuration>,
    /// A random delay added to each flow's start: uniform in [0, this),
    /// drawn from the flow's own stream (seed, run and its name), so that
    /// seeds differ without random loss (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_jitter: Option<SimDuration>,
    /// When the source stops (default: the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<SimDuration>,
    /// udp: the application's sending rate (payload bits per second, as
    /// ns-3's OnOffApplication counts it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// udp: payload bytes per datagram; 28 B of IPv4 and UDP headers are
    /// added on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    /// udp: stop after this many datagrams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// tcp: the variant, by name or as a table with parameters
    /// (`{ name = "vegas", alpha = 2 }`); see `tcplab variants`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<crate::cc::registry::CcSpec>,
    /// tcp: whose defaults to use: "paper" (RFCs and papers, the default),
    /// "linux" or "ns3".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::cc::registry::Profile>,
    /// tcp: with the ns3 profile, which release's defaults: "3.44" (the
    /// default) or "3.18" (2013-2014).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns3_release: Option<crate::cc::registry::Ns3Release>,
    /// tcp: loss recovery, overriding the variant's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<crate::tcp::Recovery>,
    /// tcp: maximum segment size (payload bytes); default from the path MTU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<Bytes>,
    /// tcp: ACK every N full segments (default 2); 1 (or false) ACKs every
    /// segment, true is 2.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "delayed_ack_from"
    )]
    pub delayed_ack: Option<u16>,
    /// tcp: the delayed-ACK timer (default 200 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack_timeout: Option<SimDuration>,
    /// tcp: the first this many in-order data segments are ACKed at once
    /// (default 0; 1 in the ns3 profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quick_acks: Option<u8>,
    /// tcp: where RTT samples come from without timestamps: "segment"
    /// (one timed segment at a time; the default) or "ack" (every ACK, as
    /// ns-3; the ns3 profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_sampling: Option<crate::tcp::rtt_timing::RttSampling>,
    /// tcp: the RTT sample the congestion controller is given: "estimator"
    /// (the RTT estimator's; the default) or "newest" (the most recently
    /// sent segment newly delivered, as Linux; the linux profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc_rtt: Option<crate::tcp::ca_rtt::CcRtt>,
    /// tcp: the SACK option (default: on with sack recovery, else off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// tcp: the timestamps option (default off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    /// tcp: window scaling (default on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_scaling: Option<bool>,
    /// tcp: receive buffer = advertised window (default 4 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcv_buf: Option<Bytes>,
    /// tcp: initial window in segments (default RFC 5681 3.1: 4 segments for
    /// an MSS up to 1095 B, 3 up to 2190 B, else 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_cwnd: Option<u32>,
    /// tcp: initial ssthresh (default: unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<Bytes>,
    /// tcp: appropriate byte counting, RFC 3465 (default off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abc: Option<bool>,
    /// tcp: RTO bounds and initial value (defaults 1 s, 60 s, 1 s; RFC 6298).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<SimDuration>,
    /// tcp: clock granularity G of RFC 6298 (default 1 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_granularity: Option<SimDuration>,
    /// tcp: how the RTO follows from the RTT samples: "rfc6298" or
    /// "linux" (the minimum bounds the variance term; the linux profile's
    /// default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto: Option<crate::tcp::rtt::RtoPolicy>,
    /// tcp: restart from the initial window after an idle RTO (default on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_after_idle: Option<bool>,
    /// tcp: open the connection with a SYN, SYN-ACK, ACK handshake (default
    /// on); off, both ends start established and data leaves at the start
    /// time, as in ns-2's TCP-Linux (its SYN goes out with the initial
    /// window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
    /// tcp: NewReno's window after recovery: "flight" (RFC 6582 option 1) or "ssthresh" (2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_exit: Option<crate::tcp::RecoveryExit>,
    /// tcp: the ACK that ends a fast recovery also grows the window
    /// (default off; on in the ns3 profile, as ns-3's `ProcessAck`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_exit_growth: Option<bool>,
    /// How an ACK grows the window (`"rfc"`, `"linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwnd_growth: Option<crate::tcp::CwndGrowth>,
    /// tcp: undo of spurious reductions (RFC 3708, 3522, 4015; linux: on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<bool>,
    /// tcp: F-RTO after a timeout (RFC 5682 3; linux: on, tcp_frto = 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frto: Option<bool>,
    /// tcp: how low the rate_halving recovery brings the window:
    /// "ssthresh" (the default) or "half_ssthresh" (Linux 2.6.22's
    /// Reno-family modules' `min_cwnd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_halving_floor: Option<crate::tcp::RateHalvingFloor>,
    /// tcp: whose PRR arithmetic the prr recovery follows: "rfc9937" or
    /// "ns3" (ns-3 3.44's TcpPrrRecovery; the ns3 profile's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prr_form: Option<crate::tcp::PrrForm>,
    /// tcp: which retransmission timeouts set ssthresh, from what flight:
    /// "rfc5681", "ns3" (ns-3 3.44's; the ns3 profile's default) or
    /// "ns3_18" (ns-3.18's, with `ns3_release = "3.18"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ssthresh: Option<crate::tcp::TimeoutSsthresh>,
    /// tcp: how the window comes down after an ECN echo: "immediate"
    /// (RFC 3168), "linux" or "ns3" (a CWR state through PRR, as each
    /// does; the linux and ns3 profiles' default with the prr recovery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_response: Option<crate::tcp::EcnResponse>,
    /// tcp: the receiver's D-SACK blocks (RFC 2883) and ACK timing ("fixed", "linux").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_timing: Option<crate::tcp::receiver::AckTiming>,
    /// tcp: pacing: false, true (the profile's form), "linux", "ns3" or
    /// "segment"; its ratios (percent), the highest rate
    /// (SO_MAX_PACING_RATE) and whether the initial window is paced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<crate::tcp::Pacing>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing_ss_ratio: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing_ca_ratio: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pacing_rate: Option<crate::time::Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace_initial_window: Option<bool>,
    /// tcp: duplicate ACKs that trigger fast retransmit (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupthresh: Option<u32>,
    /// tcp: limited transmit, RFC 3042 (default on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    /// tcp: RFC 6675's rescue retransmission in SACK recoveries (default
    /// off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rescue_retransmit: Option<bool>,
    /// tcp: how slow start may end before a loss: "standard", "hystart"
    /// (Linux's; the linux profile's default for cubic) or "hystart++"
    /// (RFC 9406).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_start: Option<crate::cc::slow_start::SlowStartKind>,
    /// tcp: RACK loss detection, RFC 8985 (default on in the linux profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<bool>,
    /// tcp: the tail loss probe, RFC 8985 (default on in the linux profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tlp: Option<bool>,
    /// tcp: Linux's adaptive reordering degree (DupThresh raised by the
    /// reordering ACKs show) and RACK reordering window (widened by
    /// D-SACKs); default on in the linux profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive_reordering: Option<bool>,
    /// tcp: reno's fast retransmit only above the last recovery point
    /// (ns-2's bugFix_; default on in the ns2 profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reno_recover_guard: Option<bool>,
    /// tcp: the fast retransmit restarts the retransmission timer (ns-2's
    /// reset_rtx_timer in dupack_action; default on in the ns2 profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_retransmit_restarts_rto: Option<bool>,
    /// tcp: every retransmission of the first unacknowledged segment
    /// restarts the retransmission timer (Linux's tcp_xmit_retransmit_queue;
    /// default on in the linux profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_retransmit_restarts_rto: Option<bool>,
    /// tcp: ECN (RFC 3168), negotiated in the handshake (default off; on
    /// for dctcp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// tcp: the application (default bulk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<AppSpec>,
}

impl FlowSpec {
    /// How many flows the entry declares (its longest list; checking
    /// refuses lists of different lengths).
    pub fn members(&self) -> usize {
        let name = self.name.as_ref().and_then(OneOrMany::count);
        [self.src.count(), self.dst.count(), self.start.count(), name]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(1)
    }
}

impl Scenario {
    /// Whether `trace` asks for the built-in recording `kind`.
    pub fn traces(&self, kind: TraceKind) -> bool {
        self.trace.contains(&TraceSpec::Kind(kind))
    }

    /// Parses a scenario from JSON, naming the path of any bad field.
    pub fn from_json(text: &str) -> Result<Scenario> {
        // The fast parser first; on an error, again with the field path
        // tracked for the message.
        if let Ok(sc) = serde_json::from_str(text) {
            return Ok(sc);
        }
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { path };
            Error::invalid(path, without_position(&e.into_inner().to_string()))
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a scenario always serializes")
    }

    /// As [`Self::to_json`], indented by two spaces.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::QueueLimit;

    #[test]
    fn parses_units_and_defaults() {
        let s = Scenario::from_json(
            r#"{"hosts":["a","b"],"links":[{"a":"a","b":"b","rate":"10Mbps","delay":"45ms"}]}"#,
        )
        .unwrap();
        assert_eq!(s.seed, 1);
        assert_eq!(s.links[0].mtu, 1500);
        assert_eq!(
            s.links[0].queue,
            QueueSpec::DropTail {
                limit: QueueLimit::Packets(100)
            }
        );
        assert_eq!(s.links[0].delay, SimDuration::from_millis(45));
        let again = Scenario::from_json(&s.to_json()).unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn errors_name_the_path() {
        let e = Scenario::from_json(
            r#"{"links":[{"a":"a","b":"b","rate":"10Mbps","delay":"1ms"},
                          {"a":"a","b":"b","rate":"10Mbs","delay":"1ms"}]}"#,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("links[1].rate: '10Mbs': unknown unit"),
            "{e}"
        );
        let e =
            Scenario::from_json(r#"{"links":[{"a":"a","b":"b","rte":1,"delay":0}]}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field 'rte'"), "{e}");
        assert!(!e.to_string().contains("line 1"), "{e}");
        let e =
            Scenario::from_json(r#"{"flows":[{"kind":"tcpp","src":"a","dst":"b"}]}"#).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("flows[0].kind: unknown variant 'tcpp'"),
            "{e}"
        );
    }

    #[test]
    fn delayed_ack_takes_counts_and_switches_and_refuses_zero() {
        let flow = |v: &str| {
            Scenario::from_json(&format!(
                r#"{{"flows":[{{"kind":"tcp","src":"a","dst":"b","delayed_ack":{v}}}]}}"#
            ))
        };
        assert_eq!(flow("3").unwrap().flows[0].delayed_ack, Some(3));
        assert_eq!(flow("true").unwrap().flows[0].delayed_ack, Some(2));
        assert_eq!(flow("false").unwrap().flows[0].delayed_ack, Some(1));
        let e = flow("0").unwrap_err().to_string();
        assert!(
            e.starts_with("flows[0].delayed_ack: 0 is not a number of segments"),
            "{e}"
        );
        assert!(flow("-1").is_err() && flow("1.5").is_err() && flow("\"2\"").is_err());
    }

    #[test]
    fn messages_leave_out_the_json_position() {
        assert_eq!(
            without_position("invalid type: map, expected a rate at line 1 column 231"),
            "expected a rate, got a table"
        );
        assert_eq!(
            without_position("a message about line 4 that stays"),
            "a message about line 4 that stays"
        );
    }
}
