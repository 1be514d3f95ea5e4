// SPDX-License-Identifier: MIT OR Apache-2.0
//! The rows of the links table: [`LinkRow`], what a link direction's columns are
//! computed from, for the expressions of the table's declaration
//! (results/links.rs), which `result_rows!` makes into
//! `LinkResult::of(&LinkRow)`.

use super::*;
use crate::net::arq::Arq;
use crate::results::result_rows;

crate::results::link_table!(result_rows pub(super) LinkRow);

/// The parts of the world a link's record reads ([`Network::view`]): a
/// link's rows can be built on a thread of their own while the flows' are
/// built on another.
pub(super) struct LinkView<'a> {
    pub(super) links: &'a [LinkDir],
    link_names: &'a [String],
    nodes: &'a [Node],
    shapers: &'a [Shaper],
    delay_percentiles: bool,
}

impl Network {
    /// What a link row reads: a link's rows can be built apart from the
    /// flows'.
    pub(super) fn view(&self, delay_percentiles: bool) -> LinkView<'_> {
        LinkView {
            links: &self.links,
            link_names: &self.link_names,
            nodes: &self.nodes,
            shapers: &self.shapers,
            delay_percentiles,
        }
    }
}

/// What a link direction's columns are computed from: the direction, its
/// names, and the values several columns share.
pub(super) struct LinkRow<'a> {
    l: &'a LinkDir,
    s: &'a LinkStats,
    link: &'a str,
    src: &'a str,
    dst: &'a str,
    end: SimTime,
    delay_percentiles: bool,
    /// The time integrals of the queue's length in packets and in bytes.
    area: u128,
    bytes_area: u128,
    shaper: Option<&'a Shaper>,
    /// The capacity trace driving the direction, if any.
    trace: Option<&'a CapacityTrace>,
    arq: Option<&'a Arq>,
}

impl<'a> LinkView<'a> {
    /// Link direction `l`'s row at the end of the run, `end`.
    pub(super) fn row(&self, l: &'a LinkDir, end: SimTime) -> LinkRow<'a> {
        let s = &l.stats;
        let tail = (end.max(s.queue_changed_at) - s.queue_changed_at).as_nanos() as u128;
        let (waiting, waiting_bytes) = l.queue.waiting();
        let shaper = self.shapers.get(l.shaper as usize);
        LinkRow {
            l,
            s,
            link: &self.link_names[l.link as usize],
            src: &self.nodes[self.sender_of(l) as usize].name,
            dst: &self.nodes[l.to as usize].name,
            end,
            delay_percentiles: self.delay_percentiles,
            area: s.queue_area + waiting as u128 * tail,
            bytes_area: s.queue_bytes_area + waiting_bytes as u128 * tail,
            shaper,
            trace: match shaper.map(|s| &s.kind) {
                Some(ShaperKind::Trace(t)) => Some(&t.trace),
                _ => None,
            },
            arq: l.error.as_deref().and_then(|e| e.arq()),
        }
    }

    /// The node link direction `l` leaves: where its reverse arrives.
    fn sender_of(&self, l: &LinkDir) -> u32 {
        let first = &self.links[2 * l.link as usize];
        let reverse = if std::ptr::eq(first, l) {
            &self.links[2 * l.link as usize + 1]
        } else {
            first
        };
        reverse.to
    }
}

impl<'a> LinkRow<'a> {
    /// A time integral over the run, as a time average.
    fn per_run(&self, a: u128) -> f64 {
        let end_ns = self.end.as_nanos();
        if end_ns == 0 {
            0.0
        } else {
            a as f64 / end_ns as f64
        }
    }

    /// `v`, or NaN if nothing was sent.
    fn sent(&self, v: f64) -> f64 {
        if self.l.tx_packets == 0 {
            f64::NAN
        } else {
            v
        }
    }

    /// Quantile `q` of the sojourns: the packets that went on the wire at
    /// once waited 0.
    fn sojourn(&self, q: f64) -> f64 {
        let l = self.l;
        match &self.s.sojourn {
            Some(h) if self.delay_percentiles => {
                let mut h = (**h).clone();
                h.add_zeros(l.tx_packets.saturating_sub(h.count()));
                h.quantile(q) / 1e9
            }
            _ if self.delay_percentiles && l.tx_packets > 0 => 0.0,
            _ => f64::NAN,
        }
    }

    fn utilization(&self) -> f64 {
        let end_ns = self.end.as_nanos();
        match self.trace {
            _ if end_ns == 0 => 0.0,
            // The bytes it sent of those its opportunities offered.
            Some(t) => {
                let offered = t.opportunities_until(self.end) * OPPORTUNITY_BYTES as u64;
                self.l.tx_bytes as f64 / offered.max(1) as f64
            }
            None => self.l.busy_ns as f64 / end_ns as f64,
        }
    }

    /// The trace file's name: the same on every machine (the effective
    /// scenario has the whole path).
    fn trace_name(&self) -> &'a str {
        self.trace.map_or("", |t| {
            std::path::Path::new(&t.file)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(&t.file)
        })
    }

    fn arq_delay_mean_s(&self) -> f64 {
        match self.arq {
            Some(a) if a.delivered > 0 => a.added_ns as f64 / a.delivered as f64 / 1e9,
            _ => f64::NAN,
        }
    }
}
