// SPDX-License-Identifier: MIT OR Apache-2.0
//! The flows table, declared once: one line per column, its name, type, unit,
//! meaning and the expression that computes it from a `FlowRow` (the world's
//! view of one flow, world/flow_table.rs). `flow_table!(m)` hands the list to
//! the macro `m`: [`result_table!`] makes [`FlowResult`], [`FLOW_COLUMNS`] and
//! [`flow_columns`] here; `result_rows!` makes the world's rows from the
//! expressions, which are compiled only there. A column that needs more than an
//! expression gets a method on `FlowRow`.

use super::result_table;

macro_rules! flow_table {
    ($make:ident $($args:tt)*) => {
        $make! {
            [$($args)*]
            /// `res.flows`: one flow's record. The world's rows borrow their names
            /// (`FlowResult<&str>`) to build the columns without a copy of every
            /// name; [`crate::Results::flows`] holds them owned.
            FlowResult, FLOW_COLUMNS, flow_columns;
            flow: str, "",
                "the flow's name",
                |v| &v.f.name;
            kind: str, "",
                "udp or tcp",
                |v| v.f.kind.name();
            src: str, "",
                "the source host",
                |v| v.src;
            dst: str, "",
                "the destination host",
                |v| v.dst;
            start_s: f64, "s",
                "when the source starts",
                |v| v.f.start.as_secs_f64();
            sent_packets: u64, "packets",
                "packets the source sent (retransmissions included)",
                |v| v.s.fwd.sent;
            sent_bytes: u64, "B",
                "payload bytes the source sent",
                |v| v.s.sent_bytes;
            delivered_packets: u64, "packets",
                "packets that reached the destination",
                |v| v.s.fwd.arrived;
            delivered_bytes: u64, "B",
                "payload bytes delivered to the receiving application, in order, once",
                |v| v.s.delivered_bytes;
            lost_queue: u64, "packets",
                "packets of the flow dropped by full queues",
                |v| v.s.fwd.lost_queue;
            lost_error: u64, "packets",
                "packets of the flow dropped by error models",
                |v| v.s.fwd.lost_error;
            in_flight_packets: u64, "packets",
                "still in the network at the end: sent = delivered + lost_queue + lost_error + in_flight",
                |v| v.s.fwd.in_flight();
            goodput_bps: f64, "bit/s",
                "delivered payload bits / the flow's active time (start to stop, completion or end of run)",
                |v| v.per_s(v.s.delivered_bytes);
            delay_min_s: f64, "s",
                "smallest one-way delay of the packets delivered src -> dst (TCP: with delay_percentiles)",
                |v| secs(v.data().hist.min());
            delay_mean_s: f64, "s",
                "mean one-way delay src -> dst, each transmission from its own send",
                |v| v.mean_delay(0);
            delay_p50_s: f64, "s",
                "median one-way delay src -> dst (UDP; TCP with delay_percentiles; from a histogram: within 1.6%)",
                |v| secs(v.data().hist.quantile(0.5));
            delay_p95_s: f64, "s",
                "95th percentile of the one-way delays src -> dst",
                |v| secs(v.data().hist.quantile(0.95));
            delay_p99_s: f64, "s",
                "99th percentile of the one-way delays src -> dst",
                |v| secs(v.data().hist.quantile(0.99));
            delay_max_s: f64, "s",
                "largest one-way delay src -> dst (TCP: with delay_percentiles)",
                |v| secs(v.data().hist.max());
            jitter_s: f64, "s",
                "mean absolute difference of consecutive delays src -> dst, as ns-3's FlowMonitor (TCP: with delay_percentiles)",
                |v| secs(v.data().jitter());
            ack_delay_mean_s: f64, "s",
                "TCP: mean one-way delay of the ACKs (dst -> src)",
                |v| v.mean_delay(1);
            ack_delay_p50_s: f64, "s",
                "TCP, with delay_percentiles: median one-way delay of the ACKs (and the next three)",
                |v| secs(v.acks().hist.quantile(0.5));
            ack_delay_p95_s: f64, "s",
                "TCP: 95th percentile of the ACKs' delays",
                |v| secs(v.acks().hist.quantile(0.95));
            ack_delay_p99_s: f64, "s",
                "TCP: 99th percentile of the ACKs' delays",
                |v| secs(v.acks().hist.quantile(0.99));
            ack_delay_max_s: f64, "s",
                "TCP: largest one-way delay of the ACKs",
                |v| secs(v.acks().hist.max());
            ack_jitter_s: f64, "s",
                "TCP: jitter of the ACKs' delays",
                |v| secs(v.acks().jitter());
            throughput_bps: f64, "bit/s",
                "TCP: all payload bytes sent, retransmissions included, / active time",
                |v| v.tcp_per_s(v.s.sent_bytes);
            unique_sent_bps: f64, "bit/s",
                "TCP: (payload bytes sent - retransmitted) / active time",
                |v| v.tcp_per_s(v.s.sent_bytes - v.retx_bytes());
            retransmitted_segments: u64, "segments",
                "TCP: segments retransmitted",
                |v| v.tcp_u64(|t| t.snd.stats().retransmitted_segments);
            retransmission_ratio: f64, "",
                "TCP: retransmitted segments / data segments sent",
                |v| v.retransmission_ratio();
            timeouts: u64, "",
                "TCP: retransmission timeouts",
                |v| v.tcp_u64(|t| t.snd.stats().timeouts.into());
            fast_retransmits: u64, "",
                "TCP: fast retransmits (recoveries entered on duplicate ACKs)",
                |v| v.tcp_u64(|t| t.snd.stats().fast_retransmits.into());
            dupacks: u64, "ACKs",
                "TCP: duplicate ACKs the sender received",
                |v| v.tcp_u64(|t| t.snd.stats().dupacks.into());
            ecn_reductions: u64, "",
                "TCP: window reductions for ECN echoes (at most one per window)",
                |v| v.tcp_u64(|t| t.snd.stats().ecn_reductions.into());
            rtt_samples: u64, "",
                "TCP: RTT samples the sender took (Karn's rule; every ACK of new data with timestamps)",
                |v| v.rtt.0;
            rtt_min_s: f64, "s",
                "TCP: smallest RTT sample (NaN if none)",
                |v| v.rtt.1;
            rtt_mean_s: f64, "s",
                "TCP: mean of the RTT samples",
                |v| v.rtt.2;
            rtt_max_s: f64, "s",
                "TCP: largest RTT sample",
                |v| v.rtt.3;
            completion_time_s: f64, "s",
                "TCP transfers: from the start to the last byte delivered (NaN if unfinished)",
                |v| v.completion.map_or(f64::NAN, |c| (c - v.f.start).as_secs_f64());
            transfer_bytes: u64, "B",
                "TCP transfers: the size to deliver (0 for other applications)",
                |v| v.tcp.and_then(|t| t.transfer).unwrap_or(0);
            slowdown: f64, "",
                "TCP transfers: completion time / the ideal one alone on the path (handshake, \
                            propagation, the bytes at the bottleneck's rate, a capacity trace's opportunities \
                            from the transfer's start; at least 1; NaN if unfinished)",
                |v| v.slowdown();
            acked_bytes: u64, "B",
                "TCP: application bytes the sender saw cumulatively acknowledged",
                |v| v.tcp_u64(|t| t.snd.bytes_acked());
            ack_packets: u64, "packets",
                "TCP: ACKs the receiver sent",
                |v| v.s.rev.sent;
            acks_lost: u64, "packets",
                "TCP: ACKs lost on the way back",
                |v| v.s.rev.lost_queue + v.s.rev.lost_error;
            cc: str, "",
                "TCP: the variant",
                |v| v.tcp.map_or("", |t| &t.cc_name);
            recovery: str, "",
                "TCP: the loss recovery",
                |v| v.tcp.map_or("", |t| t.snd.config().recovery.name());
            mss: u64, "B",
                "TCP: the maximum segment size",
                |v| v.tcp_u64(|t| t.snd.mss());
        }
    };
}
pub(crate) use flow_table;

flow_table!(result_table);
