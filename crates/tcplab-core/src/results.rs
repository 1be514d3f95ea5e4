// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a run returns: one record per flow, one per link direction, a
//! summary of the run, and the effective scenario (every default filled in).
//! Rates are bit/s, times seconds; see the field docs for definitions.

use serde::Serialize;

use crate::scenario::Scenario;

#[path = "results/columns.rs"]
mod columns;
pub use columns::Column;
pub(crate) use columns::{result_rows, result_table};

// The flows and links tables: each declared once, column by column, with
// the expression that computes it from the world's view of a row.
#[path = "results/flows.rs"]
mod flows;
#[path = "results/links.rs"]
mod links;
pub(crate) use flows::flow_table;
pub use flows::{flow_columns, FlowResult, FLOW_COLUMNS};
pub(crate) use links::link_table;
pub use links::{link_columns, LinkResult, LINK_COLUMNS};

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

pub(crate) fn joined<'a>(values: impl Iterator<Item = &'a str>) -> String {
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
        let flow = FlowResult::<String>::default();
        let mut k = keys(&flow);
        k.sort();
        assert_eq!(k, names(FLOW_COLUMNS));
        let link = LinkResult::<String>::default();
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
