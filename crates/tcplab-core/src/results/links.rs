// SPDX-License-Identifier: MIT OR Apache-2.0
//! The links table, declared once: one line per column, its name, type, unit,
//! meaning and the expression that computes it from a `LinkRow` (the world's
//! view of one link direction, world/link_table.rs). `link_table!(m)` hands the
//! list to the macro `m`: [`result_table!`] makes [`LinkResult`],
//! [`LINK_COLUMNS`] and [`link_columns`] here; `result_rows!` makes the world's
//! rows from the expressions, which are compiled only there. A column that
//! needs more than an expression gets a method on `LinkRow`.

use super::result_table;

macro_rules! link_table {
    ($make:ident $($args:tt)*) => {
        $make! {
            [$($args)*]
            /// `res.links`: one link direction's record (names borrowed or owned,
            /// as for [`crate::results::FlowResult`]).
            LinkResult, LINK_COLUMNS, link_columns;
            link: str, "",
                "the link's name",
                |v| v.link;
            src: str, "",
                "the direction: from this node",
                |v| v.src;
            dst: str, "",
                "the direction: to this node",
                |v| v.dst;
            rate_bps: u64, "bit/s",
                "the direction's rate (a capacity trace's mean)",
                |v| v.l.rate.bps();
            delay_s: f64, "s",
                "one-way propagation delay",
                |v| v.l.delay.as_secs_f64();
            tx_packets: u64, "packets",
                "packets put on the wire",
                |v| v.l.tx_packets;
            tx_bytes: u64, "B",
                "IP bytes put on the wire",
                |v| v.l.tx_bytes;
            drops_queue: u64, "packets",
                "drops by the egress queue (overflow)",
                |v| v.s.drops_queue;
            drops_aqm: u64, "packets",
                "drops by the queue discipline's own decision (RED's early and forced drops)",
                |v| v.s.drops_aqm;
            marks: u64, "packets",
                "packets the queue discipline marked Congestion Experienced",
                |v| v.s.marks;
            drops_error: u64, "packets",
                "drops by the error model at the far end",
                |v| v.s.drops_error;
            utilization: f64, "",
                "fraction of the run spent serializing (a capacity trace's: of the bytes its opportunities offered)",
                |v| v.utilization();
            queue_max_packets: u64, "packets",
                "longest queue",
                |v| v.s.queue_max;
            queue_mean_packets: f64, "packets",
                "time-average queue length",
                |v| v.per_run(v.area);
            queue_mean_bytes: f64, "B",
                "time-average queue length in bytes",
                |v| v.per_run(v.bytes_area);
            sojourn_mean_s: f64, "s",
                "mean time a packet put on the wire waited in the queue (0 for those that found the link idle)",
                |v| v.sent(v.s.sojourn_sum as f64 / v.l.tx_packets as f64 / 1e9);
            sojourn_p50_s: f64, "s",
                "median sojourn, with delay_percentiles (from a histogram: within 1.6%)",
                |v| v.sojourn(0.5);
            sojourn_p95_s: f64, "s",
                "95th percentile of the sojourns, with delay_percentiles",
                |v| v.sojourn(0.95);
            sojourn_p99_s: f64, "s",
                "99th percentile of the sojourns, with delay_percentiles",
                |v| v.sojourn(0.99);
            sojourn_max_s: f64, "s",
                "longest sojourn",
                |v| v.sent(v.s.sojourn_max as f64 / 1e9);
            trace: str, "",
                "the capacity trace driving the direction: its file's name (empty at a fixed rate)",
                |v| v.trace_name();
            trace_period_s: f64, "s",
                "how long the capacity trace lasts before it repeats (NaN at a fixed rate)",
                |v| v.trace.map_or(f64::NAN, |t| t.period_ms() as f64 / 1e3);
            drops_outage: u64, "packets",
                "drops by the direction's schedule: its outages, with outage = \"drop\"",
                |v| v.shaper.map_or(0, |s| s.drops);
            arq_retries: u64, "packets",
                "the direction's ARQ: retransmissions (tx_packets counts them too)",
                |v| v.arq.map_or(0, |a| a.retries);
            arq_residual: u64, "packets",
                "the direction's ARQ: packets lost at their last attempt (in drops_error)",
                |v| v.arq.map_or(0, |a| a.residual);
            arq_delay_mean_s: f64, "s",
                "the direction's ARQ: mean delay added to a delivered packet, from its first attempt's arrival (NaN without ARQ)",
                |v| v.arq_delay_mean_s();
        }
    };
}
pub(crate) use link_table;

link_table!(result_table);
