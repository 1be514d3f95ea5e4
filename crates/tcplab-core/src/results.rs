// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a run returns: one record per flow, one per link direction, a
//! summary of the run, and the effective scenario (every default filled in).
//! Rates are bit/s, times seconds; see the field docs for definitions.

use serde::Serialize;

use crate::scenario::Scenario;

#[path = "results/columns.rs"]
mod columns;
pub use columns::{Column, FLOW_COLUMNS, LINK_COLUMNS};

/// One flow's record. The names are `String`s; the world also makes rows
/// that borrow them (`FlowResult<&str>`) to build the columns without a
/// copy of every name.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowResult<S = String> {
    pub flow: S,
    pub kind: S,
    pub src: S,
    pub dst: S,
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
    /// One-way delay of delivered packets, source to destination, and of
    /// a TCP flow's ACKs (NaN when none was delivered).
    pub delay_min_s: f64,
    pub delay_mean_s: f64,
    pub delay_p50_s: f64,
    pub delay_p95_s: f64,
    pub delay_p99_s: f64,
    pub delay_max_s: f64,
    pub jitter_s: f64,
    pub ack_delay_mean_s: f64,
    pub ack_delay_p50_s: f64,
    pub ack_delay_p95_s: f64,
    pub ack_delay_p99_s: f64,
    pub ack_delay_max_s: f64,
    pub ack_jitter_s: f64,
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
    pub ecn_reductions: u64,
    /// TCP: the RTT samples the sender took (Karn's rule, or every ACK
    /// with timestamps): how many, the smallest, mean and largest (NaN if
    /// none).
    pub rtt_samples: u64,
    pub rtt_min_s: f64,
    pub rtt_mean_s: f64,
    pub rtt_max_s: f64,
    /// From the flow's start to the last byte delivered (transfers); NaN if
    /// unfinished or not a transfer.
    pub completion_time_s: f64,
    /// TCP transfers: the size to deliver (0 for other applications).
    pub transfer_bytes: u64,
    /// TCP transfers: the completion time over the ideal one alone on the
    /// path (NaN if unfinished or not a transfer).
    pub slowdown: f64,
    /// TCP: application bytes the sender has seen cumulatively acknowledged
    /// (an independent count: at the end, acked <= delivered).
    pub acked_bytes: u64,
    /// ACKs the receiver sent, and how many were lost on the way back.
    pub ack_packets: u64,
    pub acks_lost: u64,
    /// The variant, recovery and MSS the flow ran with ("" / 0 for UDP).
    pub cc: S,
    pub recovery: S,
    pub mss: u64,
}

/// One link direction's record (names borrowed or owned, as for
/// [`FlowResult`]).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkResult<S = String> {
    pub link: S,
    /// The direction: from `src` to `dst`.
    pub src: S,
    pub dst: S,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// Packets and IP bytes put on the wire.
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Drops by the full egress queue, by the discipline's own decision,
    /// and by the error model at `dst`; marks by the discipline.
    pub drops_queue: u64,
    pub drops_aqm: u64,
    pub marks: u64,
    pub drops_error: u64,
    /// Fraction of the run spent serializing.
    pub utilization: f64,
    pub queue_max_packets: u64,
    /// Time-average number of waiting packets.
    pub queue_mean_packets: f64,
    pub queue_mean_bytes: f64,
    /// The queue sojourns of the packets put on the wire (NaN if none).
    pub sojourn_mean_s: f64,
    pub sojourn_p50_s: f64,
    pub sojourn_p95_s: f64,
    pub sojourn_p99_s: f64,
    pub sojourn_max_s: f64,
    /// The capacity trace driving the direction ("" at a fixed rate; then
    /// `rate_bps` is the trace's mean capacity) and its period.
    pub trace: S,
    pub trace_period_s: f64,
    /// Drops by the direction's schedule: its outages, with `outage = "drop"`.
    pub drops_outage: u64,
    /// The direction's ARQ: retransmissions, packets lost at their last
    /// attempt, and the mean delay it added to a delivered packet.
    pub arq_retries: u64,
    pub arq_residual: u64,
    pub arq_delay_mean_s: f64,
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
    /// Wall time of checking the scenario, building the network and taking
    /// the results out (the bindings add parsing and conversion).
    pub check_seconds: f64,
    pub build_seconds: f64,
    pub results_seconds: f64,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    /// The egress queue was full (drop-tail).
    Queue,
    /// The queue discipline's own decision (RED's early and forced drops).
    Aqm,
    /// The link direction's error model.
    Error,
    /// An outage of the link direction's schedule (`outage = "drop"`), or
    /// a schedule that never sends again.
    Outage,
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
    /// Bytes; infinite while unlimited (before the first loss).
    pub ssthresh: f64,
}

/// A window in bytes as a result value: infinite when unlimited (an
/// initial ssthresh of "no limit" is `u64::MAX` inside).
pub fn bytes_or_unlimited(b: u64) -> f64 {
    if b >= crate::units::MAX_SIZE {
        f64::INFINITY
    } else {
        b as f64
    }
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

/// One bin of a flow's one-way delay distribution (with
/// `delay_percentiles`): delays in [lower_s, upper_s) of the packets of
/// `direction` ("data": src -> dst, "ack": a TCP flow's ACKs).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HistogramRecord {
    pub flow: String,
    pub direction: String,
    pub lower_s: f64,
    pub upper_s: f64,
    pub count: u64,
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
    pub histograms: Vec<HistogramRecord>,
    pub pcap: Vec<PcapRecord>,
    /// Time series; large, so the bindings pass them as arrays, not JSON.
    #[serde(skip)]
    pub series: Vec<Series>,
}

/// One column of a results table, as the bindings hand it to Python.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    U64(Vec<u64>),
    F64(Vec<f64>),
    /// The values joined with NUL (which names never contain).
    Str(String),
}

fn joined<'a>(values: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push('\0');
        }
        out.push_str(v);
    }
    out
}

/// Transposes records into columns: `columns!(rows; field: kind, ...)`
/// with kind `u64`, `f64`, `str` or `name` (a value with `.name()`).
macro_rules! columns {
    ($rows:expr; $($field:ident : $kind:ident),+ $(,)?) => {
        vec![$((stringify!($field), columns!(@col $rows, $field, $kind))),+]
    };
    (@col $rows:expr, $field:ident, u64) => {
        ColumnData::U64($rows.iter().map(|r| r.$field).collect())
    };
    (@col $rows:expr, $field:ident, f64) => {
        ColumnData::F64($rows.iter().map(|r| r.$field).collect())
    };
    (@col $rows:expr, $field:ident, str) => {
        ColumnData::Str(joined($rows.iter().map(|r| AsRef::<str>::as_ref(&r.$field))))
    };
    (@col $rows:expr, $field:ident, name) => {
        ColumnData::Str(joined($rows.iter().map(|r| r.$field.name())))
    };
}

/// A table's columns, in order.
pub type Columns = Vec<(&'static str, ColumnData)>;

/// Every table by name, in the order of [`Results::tables`].
pub type Tables = Vec<(&'static str, Columns)>;

/// Rows a table's columns are made for at a time.
const CHUNK: usize = 1024;

/// The columns of `items`' rows, made `CHUNK` rows at a time by `columns`.
/// A numeric column is allocated zeroed at its full length, and only its
/// non-zero values are written: the pages of a column that stays zero over
/// long runs of rows (drops, marks and ARQ counts on a million access links)
/// are never touched, which at a million flows is most of what building
/// the tables costs.
pub(crate) fn chunked<T>(items: &[T], columns: impl Fn(&[T]) -> Columns) -> Columns {
    let mut out = sized(columns(&[]), items.len());
    fill(&mut parts(&mut out, items.len()).0, items, &columns);
    out
}

/// As [`chunked`], on two threads: the rows before `at` on a second one,
/// while this one runs `here` and then makes the rows from `at` on into
/// the same columns (a text column's two halves are joined after).
pub(crate) fn chunked_beside<T: Sync, O>(
    items: &[T],
    at: usize,
    columns: impl Fn(&[T]) -> Columns + Sync,
    here: impl FnOnce() -> O,
) -> (Columns, O) {
    let mut out = sized(columns(&[]), items.len());
    let (mut head, mut tail) = parts(&mut out, at);
    let ((), o) = crate::par::both(
        || fill(&mut head, &items[..at], &columns),
        || {
            let o = here();
            fill(&mut tail, &items[at..], &columns);
            o
        },
    );
    let tails: Vec<String> = tail
        .into_iter()
        .filter_map(|p| match p {
            Part::Str(_, s) => Some(s),
            _ => None,
        })
        .collect();
    drop(head);
    let texts = out.iter_mut().filter_map(|(_, c)| match c {
        ColumnData::Str(s) => Some(s),
        _ => None,
    });
    for (s, t) in texts.zip(tails) {
        if at > 0 && at < items.len() {
            s.push('\0');
        }
        s.push_str(&t);
    }
    (out, o)
}

/// Columns of `n` rows of the kinds `empty` has: numeric ones zeroed (`vec![0;
/// n]` of these types takes calloc'd pages, which the kernel clears only
/// when written), text ones empty.
fn sized(empty: Columns, n: usize) -> Columns {
    empty
        .into_iter()
        .map(|(name, c)| {
            let c = match c {
                ColumnData::U64(_) => ColumnData::U64(vec![0; n]),
                ColumnData::F64(_) => ColumnData::F64(vec![0.0; n]),
                ColumnData::Str(_) => ColumnData::Str(String::new()),
            };
            (name, c)
        })
        .collect()
}

/// Where one run of rows goes in a table's columns: its part of a numeric
/// column, or the text it is joined into (the column's own, or one of its
/// own to be joined to it after).
enum Part<'a> {
    U64(&'a mut [u64]),
    F64(&'a mut [f64]),
    Str(Option<&'a mut String>, String),
}

/// The parts of `cols` before row `at` and from `at` on. The first part's
/// text goes into the columns; the second's into texts of its own.
fn parts(cols: &mut Columns, at: usize) -> (Vec<Part<'_>>, Vec<Part<'_>>) {
    cols.iter_mut()
        .map(|(_, c)| match c {
            ColumnData::U64(v) => {
                let (a, b) = v.split_at_mut(at);
                (Part::U64(a), Part::U64(b))
            }
            ColumnData::F64(v) => {
                let (a, b) = v.split_at_mut(at);
                (Part::F64(a), Part::F64(b))
            }
            ColumnData::Str(s) => (
                Part::Str(Some(s), String::new()),
                Part::Str(None, String::new()),
            ),
        })
        .unzip()
}

/// Makes `items`' rows into `parts`, `CHUNK` rows at a time.
fn fill<T>(parts: &mut [Part<'_>], items: &[T], columns: &impl Fn(&[T]) -> Columns) {
    let chunks = items.len().div_ceil(CHUNK);
    for (k, chunk) in items.chunks(CHUNK).enumerate() {
        let at = k * CHUNK;
        for (part, (_, col)) in parts.iter_mut().zip(columns(chunk)) {
            match (part, col) {
                (Part::U64(a), ColumnData::U64(b)) => write_nonzero(&mut a[at..], &b),
                (Part::F64(a), ColumnData::F64(b)) => write_nonzero(&mut a[at..], &b),
                (Part::Str(own, mine), ColumnData::Str(b)) => {
                    let s = match own {
                        Some(s) => &mut **s,
                        None => mine,
                    };
                    if k == 0 {
                        // The first chunk's length per chunk, and some to spare.
                        s.reserve((b.len() + 1) * chunks * 9 / 8);
                    } else {
                        s.push('\0');
                    }
                    s.push_str(&b);
                }
                _ => unreachable!("the same table has the same column types"),
            }
        }
    }
}

/// A numeric column's value, and whether its bits are all zero (what a
/// calloc'd page holds: -0.0 is not, and is written).
trait ZeroBits: Copy + Default {
    fn is_zero_bits(&self) -> bool;
}

impl ZeroBits for u64 {
    fn is_zero_bits(&self) -> bool {
        *self == 0
    }
}

impl ZeroBits for f64 {
    fn is_zero_bits(&self) -> bool {
        self.to_bits() == 0
    }
}

/// Writes `from`'s non-zero values over the zeroes at the start of `into`.
fn write_nonzero<V: ZeroBits>(into: &mut [V], from: &[V]) {
    for (d, s) in into.iter_mut().zip(from) {
        if !s.is_zero_bits() {
            *d = *s;
        }
    }
}

impl DropCause {
    pub fn name(self) -> &'static str {
        match self {
            DropCause::Queue => "queue",
            DropCause::Aqm => "aqm",
            DropCause::Error => "error",
            DropCause::Outage => "outage",
        }
    }
}

/// The flows table as columns, in the order of [`FLOW_COLUMNS`].
pub fn flow_columns<S: AsRef<str>>(rows: &[FlowResult<S>]) -> Columns {
    columns!(rows; flow: str, kind: str, src: str, dst: str, start_s: f64, sent_packets: u64,
        sent_bytes: u64, delivered_packets: u64, delivered_bytes: u64, lost_queue: u64,
        lost_error: u64, in_flight_packets: u64, goodput_bps: f64, delay_min_s: f64,
        delay_mean_s: f64, delay_p50_s: f64, delay_p95_s: f64, delay_p99_s: f64,
        delay_max_s: f64, jitter_s: f64, ack_delay_mean_s: f64, ack_delay_p50_s: f64,
        ack_delay_p95_s: f64, ack_delay_p99_s: f64, ack_delay_max_s: f64, ack_jitter_s: f64,
        throughput_bps: f64, unique_sent_bps: f64,
        retransmitted_segments: u64, retransmission_ratio: f64, timeouts: u64,
        fast_retransmits: u64, dupacks: u64, ecn_reductions: u64, rtt_samples: u64,
        rtt_min_s: f64, rtt_mean_s: f64, rtt_max_s: f64, completion_time_s: f64,
        transfer_bytes: u64, slowdown: f64, acked_bytes: u64,
        ack_packets: u64, acks_lost: u64, cc: str, recovery: str, mss: u64)
}

/// The links table as columns, in the order of [`LINK_COLUMNS`].
pub fn link_columns<S: AsRef<str>>(rows: &[LinkResult<S>]) -> Columns {
    columns!(rows; link: str, src: str, dst: str, rate_bps: u64, delay_s: f64,
        tx_packets: u64, tx_bytes: u64, drops_queue: u64, drops_aqm: u64, marks: u64,
        drops_error: u64, utilization: f64,
        queue_max_packets: u64, queue_mean_packets: f64, queue_mean_bytes: f64,
        sojourn_mean_s: f64, sojourn_p50_s: f64, sojourn_p95_s: f64, sojourn_p99_s: f64,
        sojourn_max_s: f64, trace: str, trace_period_s: f64, drops_outage: u64,
        arq_retries: u64, arq_residual: u64, arq_delay_mean_s: f64)
}

pub fn drop_columns(rows: &[DropRecord]) -> Columns {
    columns!(rows; time_ns: u64, link: str, src: str, dst: str, flow: str, packet: u64,
        cause: name)
}

pub fn event_columns(rows: &[EventRecord]) -> Columns {
    columns!(rows; time_ns: u64, flow: str, event: str, seq: u64, cwnd: u64, ssthresh: f64)
}

pub fn interval_columns(rows: &[IntervalRecord]) -> Columns {
    columns!(rows; flow: str, start_s: f64, end_s: f64, delivered_bytes: u64, goodput_bps: f64)
}

pub fn histogram_columns(rows: &[HistogramRecord]) -> Columns {
    columns!(rows; flow: str, direction: str, lower_s: f64, upper_s: f64, count: u64)
}

impl Results {
    /// Every table as columns: flows, links, drops, events, intervals,
    /// histograms.
    pub fn tables(&self) -> Tables {
        vec![
            ("flows", flow_columns(&self.flows)),
            ("links", link_columns(&self.links)),
            ("drops", drop_columns(&self.drops)),
            ("events", event_columns(&self.events)),
            ("intervals", interval_columns(&self.intervals)),
            ("histograms", histogram_columns(&self.histograms)),
        ]
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

    fn sample_u(i: usize) -> u64 {
        if i % 700 == 3 {
            i as u64
        } else {
            0
        }
    }

    fn sample_f(i: usize) -> f64 {
        match i % 500 {
            1 => f64::NAN,
            2 => -0.0,
            3 => i as f64 * 0.5,
            _ => 0.0,
        }
    }

    /// Rows `ids` of three columns, zero over long runs with values
    /// between, and a text column with empty values.
    fn sample(ids: &[usize]) -> Columns {
        vec![
            (
                "u",
                ColumnData::U64(ids.iter().map(|&i| sample_u(i)).collect()),
            ),
            (
                "f",
                ColumnData::F64(ids.iter().map(|&i| sample_f(i)).collect()),
            ),
            (
                "s",
                ColumnData::Str(joined(
                    ids.iter().map(|i| if i % 2 == 0 { "a" } else { "" }),
                )),
            ),
        ]
    }

    /// The columns as bits (NaN equal to NaN) and text.
    fn as_bits(cols: &Columns) -> Vec<(Vec<u64>, String)> {
        cols.iter()
            .map(|(_, c)| match c {
                ColumnData::U64(v) => (v.clone(), String::new()),
                ColumnData::F64(v) => (v.iter().map(|x| x.to_bits()).collect(), String::new()),
                ColumnData::Str(s) => (Vec::new(), s.clone()),
            })
            .collect()
    }

    #[test]
    fn columns_made_in_two_runs_on_two_threads_are_those_made_in_one() {
        let n = 3 * 1024 + 5;
        let rows: Vec<usize> = (0..n).collect();
        let one = as_bits(&chunked(&rows, sample));
        assert_eq!(one[2].1.split('\0').count(), n);
        let here = std::thread::current().id();
        for at in [0, 1, 2, 1023, 1024, 1500, n - 1, n] {
            let (two, ran) = chunked_beside(&rows, at, sample, || std::thread::current().id());
            assert_eq!(ran, here, "the second task runs on this thread");
            assert_eq!(as_bits(&two), one, "split at {at}");
        }
    }

    #[test]
    fn chunked_columns_hold_every_value_in_its_row() {
        // Three chunks and a bit, zero over long runs with values between:
        // a value written at the wrong offset, or a zero left over a value,
        // changes the column.
        let n = 3 * 1024 + 5;
        let (u, f) = (sample_u, sample_f);
        let rows: Vec<usize> = (0..n).collect();
        let cols = chunked(&rows, sample);
        let [(_, ColumnData::U64(us)), (_, ColumnData::F64(fs)), (_, ColumnData::Str(ss))] =
            &cols[..]
        else {
            panic!("three columns of their kinds");
        };
        assert_eq!(*us, (0..n).map(u).collect::<Vec<_>>());
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(fs), bits(&(0..n).map(f).collect::<Vec<_>>()));
        let words: Vec<&str> = ss.split('\0').collect();
        assert_eq!(words.len(), n);
        assert!(words
            .iter()
            .enumerate()
            .all(|(i, w)| *w == if i % 2 == 0 { "a" } else { "" }));
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
            delay_p50_s: 0.0,
            delay_p95_s: 0.0,
            delay_p99_s: 0.0,
            delay_max_s: 0.0,
            jitter_s: 0.0,
            ack_delay_mean_s: 0.0,
            ack_delay_p50_s: 0.0,
            ack_delay_p95_s: 0.0,
            ack_delay_p99_s: 0.0,
            ack_delay_max_s: 0.0,
            ack_jitter_s: 0.0,
            throughput_bps: 0.0,
            unique_sent_bps: 0.0,
            retransmitted_segments: 0,
            retransmission_ratio: 0.0,
            timeouts: 0,
            fast_retransmits: 0,
            dupacks: 0,
            ecn_reductions: 0,
            rtt_samples: 0,
            rtt_min_s: 0.0,
            rtt_mean_s: 0.0,
            rtt_max_s: 0.0,
            completion_time_s: 0.0,
            transfer_bytes: 0,
            slowdown: 0.0,
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
            drops_aqm: 0,
            marks: 0,
            drops_error: 0,
            utilization: 0.0,
            queue_max_packets: 0,
            queue_mean_packets: 0.0,
            queue_mean_bytes: 0.0,
            sojourn_mean_s: 0.0,
            sojourn_p50_s: 0.0,
            sojourn_p95_s: 0.0,
            sojourn_p99_s: 0.0,
            sojourn_max_s: 0.0,
            trace: String::new(),
            trace_period_s: 0.0,
            drops_outage: 0,
            arq_retries: 0,
            arq_residual: 0,
            arq_delay_mean_s: 0.0,
        };
        let mut k = keys(&link);
        k.sort();
        assert_eq!(k, names(LINK_COLUMNS));
        // The columns handed to Python, in the tables' order and types.
        for (cols, table) in [
            (flow_columns(&[flow]), FLOW_COLUMNS),
            (link_columns(&[link]), LINK_COLUMNS),
        ] {
            assert_eq!(cols.len(), table.len());
            for ((name, data), c) in cols.iter().zip(table) {
                assert_eq!(*name, c.name);
                let kind = match data {
                    ColumnData::U64(_) => "int",
                    ColumnData::F64(_) => "float",
                    ColumnData::Str(_) => "str",
                };
                assert_eq!(kind, c.kind, "{name}");
            }
        }
    }
}
