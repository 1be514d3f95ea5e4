// SPDX-License-Identifier: MIT OR Apache-2.0
//! The rows of the flows table: [`FlowRow`], what a flow's columns are
//! computed from, for the expressions of the table's declaration
//! (results/flows.rs), which `result_rows!` makes into
//! `FlowResult::of(&FlowRow)`.

use super::*;
use crate::results::result_rows;

/// Nanoseconds as seconds.
fn secs(ns: f64) -> f64 {
    ns * 1e-9
}

crate::results::flow_table!(result_rows pub(super) FlowRow);

/// What a flow's columns are computed from: the flow, its connection and
/// the values several columns share.
pub(super) struct FlowRow<'a> {
    f: &'a Flow,
    s: &'a FlowStats,
    tcp: Option<&'a TcpFlow>,
    src: &'a str,
    dst: &'a str,
    /// When a transfer delivered its last byte.
    completion: Option<SimTime>,
    /// The transfer's completion time alone on its path.
    ideal: Option<SimDuration>,
    /// From the start to the stop, the completion or the end of the run.
    active: SimDuration,
    /// The delay distributions of a flow that keeps none.
    empty: [Delays; 2],
    /// RTT samples: how many, the smallest, mean and largest (NaN if none).
    rtt: (u64, f64, f64, f64),
}

impl<'a> FlowRow<'a> {
    /// Flow `i`'s row at the end of the run, `end`.
    pub(super) fn new(w: &'a World, i: usize, end: SimTime) -> Self {
        let f = &w.ep.flows[i];
        let (tcp, completion) = match f.app {
            App::Tcp(t) => {
                let t = &w.ep.tcps[t as usize];
                (Some(t), t.completion)
            }
            App::Cbr(_) => (None, None),
        };
        let mut active_end = f.stop.map_or(end, |st| st.min(end));
        if let Some(c) = completion {
            active_end = c;
        }
        let active = if active_end > f.start {
            active_end - f.start
        } else {
            SimDuration::ZERO
        };
        let rtt = match tcp {
            Some(t) if t.snd.rtt().samples > 0 => {
                let r = t.snd.rtt();
                let min = t.snd.tcb().min_rtt.unwrap_or(r.max);
                (
                    r.samples,
                    min.as_secs_f64(),
                    r.sum_ns as f64 / r.samples as f64 * 1e-9,
                    r.max.as_secs_f64(),
                )
            }
            _ => (0, f64::NAN, f64::NAN, f64::NAN),
        };
        FlowRow {
            f,
            s: &f.stats,
            tcp,
            src: &w.net.nodes[f.src as usize].name,
            dst: &w.net.nodes[f.dst as usize].name,
            completion,
            ideal: w.ep.ideal[i],
            active,
            empty: Default::default(),
            rtt,
        }
    }

    /// Bytes as bit/s over the active time (0 if none).
    fn per_s(&self, bytes: u64) -> f64 {
        if self.active.is_zero() {
            0.0
        } else {
            bytes as f64 * 8.0 / self.active.as_secs_f64()
        }
    }

    /// As [`FlowRow::per_s`] for a TCP flow, NaN for another.
    fn tcp_per_s(&self, bytes: u64) -> f64 {
        if self.tcp.is_some() {
            self.per_s(bytes)
        } else {
            f64::NAN
        }
    }

    /// A count of the connection's (0 for a flow without one).
    fn tcp_u64(&self, count: impl FnOnce(&TcpFlow) -> u64) -> u64 {
        self.tcp.map_or(0, count)
    }

    fn retx_bytes(&self) -> u64 {
        self.tcp_u64(|t| t.snd.stats().retransmitted_bytes)
    }

    fn retransmission_ratio(&self) -> f64 {
        let retx = self.tcp_u64(|t| t.snd.stats().retransmitted_segments);
        let data_segs = self.tcp_u64(|t| t.snd.stats().segments_sent);
        if data_segs == 0 {
            0.0
        } else {
            retx as f64 / data_segs as f64
        }
    }

    /// The delay distributions src -> dst and of the ACKs (UDP's always,
    /// TCP's with `delay_percentiles`).
    fn data(&self) -> &Delays {
        &self.f.delays.as_deref().unwrap_or(&self.empty)[0]
    }

    fn acks(&self) -> &Delays {
        &self.f.delays.as_deref().unwrap_or(&self.empty)[1]
    }

    /// The mean delay of direction `dir` (0 data, 1 ACKs), from the
    /// always-kept sums.
    fn mean_delay(&self, dir: usize) -> f64 {
        let s = self.s;
        let n = [s.fwd.arrived, s.rev.arrived][dir];
        if n == 0 {
            f64::NAN
        } else {
            s.delay_sum_ns[dir] as f64 / n as f64 * 1e-9
        }
    }

    fn slowdown(&self) -> f64 {
        match (self.completion, self.ideal) {
            (Some(c), Some(ideal)) => {
                (c - self.f.start).as_nanos() as f64 / ideal.as_nanos() as f64
            }
            _ => f64::NAN,
        }
    }
}
