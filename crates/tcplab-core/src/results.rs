// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a run returns: one record per flow, one per link direction, a
//! summary of the run, and the effective scenario (every default filled in).
//! Rates are bit/s, times seconds; see the field docs for definitions.

use serde::Serialize;

use crate::scenario::Scenario;

/// A column of a results table: its name, unit, type and meaning (the
/// metadata Python's column lists and docs/results.md come from).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    /// "" for a name, a count in the column's own terms, or a ratio.
    pub unit: &'static str,
    /// "str", "int" or "float" (NaN where it does not apply).
    pub kind: &'static str,
    pub meaning: &'static str,
}

const fn col(
    name: &'static str,
    unit: &'static str,
    kind: &'static str,
    meaning: &'static str,
) -> Column {
    Column {
        name,
        unit,
        kind,
        meaning,
    }
}

/// `res.flows`, one row per flow, in the order of [`FlowResult`]'s fields.
pub const FLOW_COLUMNS: &[Column] = &[
    col("flow", "", "str", "the flow's name"),
    col("kind", "", "str", "udp or tcp"),
    col("src", "", "str", "the source host"),
    col("dst", "", "str", "the destination host"),
    col("start_s", "s", "float", "when the source starts"),
    col(
        "sent_packets",
        "packets",
        "int",
        "packets the source sent (retransmissions included)",
    ),
    col("sent_bytes", "B", "int", "payload bytes the source sent"),
    col(
        "delivered_packets",
        "packets",
        "int",
        "packets that reached the destination",
    ),
    col(
        "delivered_bytes",
        "B",
        "int",
        "payload bytes delivered to the receiving application, in order, once",
    ),
    col(
        "lost_queue",
        "packets",
        "int",
        "packets of the flow dropped by full queues",
    ),
    col(
        "lost_error",
        "packets",
        "int",
        "packets of the flow dropped by error models",
    ),
    col(
        "in_flight_packets",
        "packets",
        "int",
        "still in the network at the end: sent = delivered + lost_queue + lost_error + in_flight",
    ),
    col(
        "goodput_bps",
        "bit/s",
        "float",
        "delivered payload bits / the flow's active time (start to stop, completion or end of run)",
    ),
    col(
        "delay_min_s",
        "s",
        "float",
        "UDP: smallest one-way delay of delivered packets",
    ),
    col(
        "delay_mean_s",
        "s",
        "float",
        "UDP: mean one-way delay of delivered packets",
    ),
    col(
        "delay_max_s",
        "s",
        "float",
        "UDP: largest one-way delay of delivered packets",
    ),
    col(
        "throughput_bps",
        "bit/s",
        "float",
        "TCP: all payload bytes sent, retransmissions included, / active time",
    ),
    col(
        "unique_sent_bps",
        "bit/s",
        "float",
        "TCP: (payload bytes sent - retransmitted) / active time",
    ),
    col(
        "retransmitted_segments",
        "segments",
        "int",
        "TCP: segments retransmitted",
    ),
    col(
        "retransmission_ratio",
        "",
        "float",
        "TCP: retransmitted segments / data segments sent",
    ),
    col("timeouts", "", "int", "TCP: retransmission timeouts"),
    col(
        "fast_retransmits",
        "",
        "int",
        "TCP: fast retransmits (recoveries entered on duplicate ACKs)",
    ),
    col(
        "dupacks",
        "ACKs",
        "int",
        "TCP: duplicate ACKs the sender received",
    ),
    col(
        "completion_time_s",
        "s",
        "float",
        "TCP transfers: from the start to the last byte delivered (NaN if unfinished)",
    ),
    col(
        "acked_bytes",
        "B",
        "int",
        "TCP: application bytes the sender saw cumulatively acknowledged",
    ),
    col(
        "ack_packets",
        "packets",
        "int",
        "TCP: ACKs the receiver sent",
    ),
    col(
        "acks_lost",
        "packets",
        "int",
        "TCP: ACKs lost on the way back",
    ),
    col("cc", "", "str", "TCP: the variant"),
    col("recovery", "", "str", "TCP: the loss recovery"),
    col("mss", "B", "int", "TCP: the maximum segment size"),
];

/// `res.links`, one row per link direction, in the order of [`LinkResult`].
pub const LINK_COLUMNS: &[Column] = &[
    col("link", "", "str", "the link's name"),
    col("src", "", "str", "the direction: from this node"),
    col("dst", "", "str", "the direction: to this node"),
    col("rate_bps", "bit/s", "int", "the direction's rate"),
    col("delay_s", "s", "float", "one-way propagation delay"),
    col("tx_packets", "packets", "int", "packets put on the wire"),
    col("tx_bytes", "B", "int", "IP bytes put on the wire"),
    col(
        "drops_queue",
        "packets",
        "int",
        "drops by the egress queue (overflow)",
    ),
    col(
        "drops_error",
        "packets",
        "int",
        "drops by the error model at the far end",
    ),
    col(
        "utilization",
        "",
        "float",
        "fraction of the run spent serializing",
    ),
    col("queue_max_packets", "packets", "int", "longest queue"),
    col(
        "queue_mean_packets",
        "packets",
        "float",
        "time-average queue length",
    ),
];

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowResult {
    pub flow: String,
    pub kind: String,
    pub src: String,
    pub dst: String,
    pub start_s: f64,
    /// Packets the source sent (and their payload bytes).
    pub sent_packets: u64,
    pub sent_bytes: u64,
    /// Packets that reached the destination (and their payload bytes).
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Packets dropped by full queues and by error models.
    pub lost_queue: u64,
    pub lost_error: u64,
    /// Packets still in the network when the run ended:
    /// sent = delivered + lost_queue + lost_error + in_flight.
    pub in_flight_packets: u64,
    /// Delivered payload bits / the flow's active time (from its start to
    /// its stop or the end of the run, whichever is first).
    pub goodput_bps: f64,
    /// One-way delay of delivered packets, source to destination.
    pub delay_min_s: f64,
    pub delay_mean_s: f64,
    pub delay_max_s: f64,
    /// TCP (NaN or 0 for UDP): all payload bytes sent, retransmissions
    /// included, / active time.
    pub throughput_bps: f64,
    /// TCP: (payload bytes sent - retransmitted) / active time.
    pub unique_sent_bps: f64,
    pub retransmitted_segments: u64,
    /// Retransmitted segments / data segments sent.
    pub retransmission_ratio: f64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// TCP: duplicate ACKs the sender received.
    pub dupacks: u64,
    /// From the flow's start to the last byte delivered (transfers); NaN if
    /// unfinished or not a transfer.
    pub completion_time_s: f64,
    /// TCP: application bytes the sender has seen cumulatively acknowledged
    /// (an independent count: at the end, acked <= delivered).
    pub acked_bytes: u64,
    /// ACKs the receiver sent, and how many were lost on the way back.
    pub ack_packets: u64,
    pub acks_lost: u64,
    /// The variant, recovery and MSS the flow ran with ("" / 0 for UDP).
    pub cc: String,
    pub recovery: String,
    pub mss: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkResult {
    pub link: String,
    /// The direction: from `src` to `dst`.
    pub src: String,
    pub dst: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// Packets and IP bytes put on the wire.
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Drops by the full egress queue, and by the error model at `dst`.
    pub drops_queue: u64,
    pub drops_error: u64,
    /// Fraction of the run spent serializing.
    pub utilization: f64,
    pub queue_max_packets: u64,
    /// Time-average number of waiting packets.
    pub queue_mean_packets: f64,
}

/// What the run simulated: the same for the same scenario and seed.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunSummary {
    pub sim_seconds: f64,
    pub events: u64,
    /// Most packets alive at once (slab high-water mark).
    pub peak_packets: u64,
}

/// How long the run took on this machine: kept apart from the results, so
/// that two runs of one scenario give byte-identical results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunTiming {
    /// Wall time of the event loop.
    pub wall_seconds: f64,
    pub events_per_second: f64,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    /// The egress queue was full (drop-tail).
    Queue,
    /// The link direction's error model.
    Error,
}

/// One dropped packet (recorded with `trace = ["drops"]`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DropRecord {
    pub time_ns: u64,
    pub link: String,
    pub src: String,
    pub dst: String,
    pub flow: String,
    /// The packet's number within its flow and direction, from 1.
    pub packet: u64,
    pub cause: DropCause,
}

/// A time series: (time, value) pairs for one quantity of one target (a flow
/// or a link direction "link:src>dst").
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Series {
    pub name: String,
    pub target: String,
    pub times_ns: Vec<u64>,
    pub values: Vec<f64>,
}

/// One TCP event (recorded with `trace = ["events"]`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EventRecord {
    pub time_ns: u64,
    pub flow: String,
    pub event: String,
    pub seq: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
}

/// Bytes a flow delivered to its application in one interval.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct IntervalRecord {
    pub flow: String,
    pub start_s: f64,
    pub end_s: f64,
    pub delivered_bytes: u64,
    pub goodput_bps: f64,
}

/// A packet trace written by the run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PcapRecord {
    pub path: String,
    pub link: String,
    pub src: String,
    pub dst: String,
    pub packets: u64,
    /// A write error, if one stopped the trace.
    pub error: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Results {
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    pub summary: RunSummary,
    pub timing: RunTiming,
    pub scenario: Scenario,
    pub drops: Vec<DropRecord>,
    pub events: Vec<EventRecord>,
    pub intervals: Vec<IntervalRecord>,
    pub pcap: Vec<PcapRecord>,
    /// Time series; large, so the bindings pass them as arrays, not JSON.
    #[serde(skip)]
    pub series: Vec<Series>,
}

/// The tables of [`Results`] without the scenario, for [`Results::to_json_parts`].
#[derive(Serialize)]
struct Tables<'a> {
    flows: &'a [FlowResult],
    links: &'a [LinkResult],
    summary: &'a RunSummary,
    timing: &'a RunTiming,
    drops: &'a [DropRecord],
    events: &'a [EventRecord],
    intervals: &'a [IntervalRecord],
    pcap: &'a [PcapRecord],
}

impl Results {
    /// The results as two JSON texts: the tables, and the effective scenario
    /// (large with many flows; the Python side parses it only if asked).
    pub fn to_json_parts(&self) -> serde_json::Result<(String, String)> {
        let tables = Tables {
            flows: &self.flows,
            links: &self.links,
            summary: &self.summary,
            timing: &self.timing,
            drops: &self.drops,
            events: &self.events,
            intervals: &self.intervals,
            pcap: &self.pcap,
        };
        Ok((
            serde_json::to_string(&tables)?,
            serde_json::to_string(&self.scenario)?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys<T: Serialize>(row: &T) -> Vec<String> {
        match serde_json::to_value(row).unwrap() {
            serde_json::Value::Object(m) => m.keys().cloned().collect(),
            _ => unreachable!(),
        }
    }

    fn names(cols: &[Column]) -> Vec<String> {
        let mut v: Vec<String> = cols.iter().map(|c| c.name.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn the_column_tables_list_exactly_the_fields_of_the_records() {
        let flow = FlowResult {
            flow: String::new(),
            kind: String::new(),
            src: String::new(),
            dst: String::new(),
            start_s: 0.0,
            sent_packets: 0,
            sent_bytes: 0,
            delivered_packets: 0,
            delivered_bytes: 0,
            lost_queue: 0,
            lost_error: 0,
            in_flight_packets: 0,
            goodput_bps: 0.0,
            delay_min_s: 0.0,
            delay_mean_s: 0.0,
            delay_max_s: 0.0,
            throughput_bps: 0.0,
            unique_sent_bps: 0.0,
            retransmitted_segments: 0,
            retransmission_ratio: 0.0,
            timeouts: 0,
            fast_retransmits: 0,
            dupacks: 0,
            completion_time_s: 0.0,
            acked_bytes: 0,
            ack_packets: 0,
            acks_lost: 0,
            cc: String::new(),
            recovery: String::new(),
            mss: 0,
        };
        let mut k = keys(&flow);
        k.sort();
        assert_eq!(k, names(FLOW_COLUMNS));
        let link = LinkResult {
            link: String::new(),
            src: String::new(),
            dst: String::new(),
            rate_bps: 0,
            delay_s: 0.0,
            tx_packets: 0,
            tx_bytes: 0,
            drops_queue: 0,
            drops_error: 0,
            utilization: 0.0,
            queue_max_packets: 0,
            queue_mean_packets: 0.0,
        };
        let mut k = keys(&link);
        k.sort();
        assert_eq!(k, names(LINK_COLUMNS));
    }
}
