// SPDX-License-Identifier: MIT OR Apache-2.0
//! The columns of the flows and links tables: name, unit, type, meaning.

use serde::Serialize;

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
        "smallest one-way delay of the packets delivered src -> dst (TCP: with delay_percentiles)",
    ),
    col(
        "delay_mean_s",
        "s",
        "float",
        "mean one-way delay src -> dst, each transmission from its own send",
    ),
    col(
        "delay_p50_s",
        "s",
        "float",
        "median one-way delay src -> dst (UDP; TCP with delay_percentiles; from a histogram: within 1.6%)",
    ),
    col("delay_p95_s", "s", "float", "95th percentile of the one-way delays src -> dst"),
    col("delay_p99_s", "s", "float", "99th percentile of the one-way delays src -> dst"),
    col(
        "delay_max_s",
        "s",
        "float",
        "largest one-way delay src -> dst (TCP: with delay_percentiles)",
    ),
    col(
        "jitter_s",
        "s",
        "float",
        "mean absolute difference of consecutive delays src -> dst, as ns-3's FlowMonitor (TCP: with delay_percentiles)",
    ),
    col(
        "ack_delay_mean_s",
        "s",
        "float",
        "TCP: mean one-way delay of the ACKs (dst -> src)",
    ),
    col(
        "ack_delay_p50_s",
        "s",
        "float",
        "TCP, with delay_percentiles: median one-way delay of the ACKs (and the next three)",
    ),
    col("ack_delay_p95_s", "s", "float", "TCP: 95th percentile of the ACKs' delays"),
    col("ack_delay_p99_s", "s", "float", "TCP: 99th percentile of the ACKs' delays"),
    col("ack_delay_max_s", "s", "float", "TCP: largest one-way delay of the ACKs"),
    col("ack_jitter_s", "s", "float", "TCP: jitter of the ACKs' delays"),
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
        "ecn_reductions",
        "",
        "int",
        "TCP: window reductions for ECN echoes (at most one per window)",
    ),
    col(
        "rtt_samples",
        "",
        "int",
        "TCP: RTT samples the sender took (Karn's rule; every ACK of new data with timestamps)",
    ),
    col(
        "rtt_min_s",
        "s",
        "float",
        "TCP: smallest RTT sample (NaN if none)",
    ),
    col("rtt_mean_s", "s", "float", "TCP: mean of the RTT samples"),
    col("rtt_max_s", "s", "float", "TCP: largest RTT sample"),
    col(
        "completion_time_s",
        "s",
        "float",
        "TCP transfers: from the start to the last byte delivered (NaN if unfinished)",
    ),
    col(
        "transfer_bytes",
        "B",
        "int",
        "TCP transfers: the size to deliver (0 for other applications)",
    ),
    col(
        "slowdown",
        "",
        "float",
        "TCP transfers: completion time / the ideal one alone on the path (handshake, \
         propagation, the bytes at the bottleneck's rate, a capacity trace's opportunities \
         from the transfer's start; at least 1; NaN if unfinished)",
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
    col(
        "rate_bps",
        "bit/s",
        "int",
        "the direction's rate (a capacity trace's mean)",
    ),
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
        "drops_aqm",
        "packets",
        "int",
        "drops by the queue discipline's own decision (RED's early and forced drops)",
    ),
    col(
        "marks",
        "packets",
        "int",
        "packets the queue discipline marked Congestion Experienced",
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
        "fraction of the run spent serializing (a capacity trace's: of the bytes its opportunities offered)",
    ),
    col("queue_max_packets", "packets", "int", "longest queue"),
    col(
        "queue_mean_packets",
        "packets",
        "float",
        "time-average queue length",
    ),
    col(
        "queue_mean_bytes",
        "B",
        "float",
        "time-average queue length in bytes",
    ),
    col(
        "sojourn_mean_s",
        "s",
        "float",
        "mean time a packet put on the wire waited in the queue (0 for those that found the link idle)",
    ),
    col(
        "sojourn_p50_s",
        "s",
        "float",
        "median sojourn, with delay_percentiles (from a histogram: within 1.6%)",
    ),
    col("sojourn_p95_s", "s", "float", "95th percentile of the sojourns, with delay_percentiles"),
    col("sojourn_p99_s", "s", "float", "99th percentile of the sojourns, with delay_percentiles"),
    col("sojourn_max_s", "s", "float", "longest sojourn"),
    col(
        "trace",
        "",
        "str",
        "the capacity trace driving the direction: its file's name (empty at a fixed rate)",
    ),
    col(
        "trace_period_s",
        "s",
        "float",
        "how long the capacity trace lasts before it repeats (NaN at a fixed rate)",
    ),
    col(
        "drops_outage",
        "packets",
        "int",
        "drops by the direction's schedule: its outages, with outage = \"drop\"",
    ),
    col(
        "arq_retries",
        "packets",
        "int",
        "the direction's ARQ: retransmissions (tx_packets counts them too)",
    ),
    col(
        "arq_residual",
        "packets",
        "int",
        "the direction's ARQ: packets lost at their last attempt (in drops_error)",
    ),
    col(
        "arq_delay_mean_s",
        "s",
        "float",
        "the direction's ARQ: mean delay added to a delivered packet, from its first attempt's arrival (NaN without ARQ)",
    ),
];
