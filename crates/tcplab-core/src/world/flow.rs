// SPDX-License-Identifier: MIT OR Apache-2.0
//! A flow's records: its counters, and its application (a CBR source or a
//! TCP connection). The connections live in one array of the world
//! ([`super::World`]'s `tcps`), which a TCP flow indexes: a million of them
//! are one allocation, not a million aligned boxes.

use super::*;

/// Packet counters of one direction of a flow.
#[derive(Debug, Default, Clone)]
pub struct DirStats {
    pub sent: u64,
    pub arrived: u64,
    pub lost_queue: u64,
    pub lost_error: u64,
}

impl DirStats {
    pub fn in_flight(&self) -> u64 {
        self.sent - self.arrived - self.lost_queue - self.lost_error
    }
}

/// Always-on per-flow counters. `repr(C)`: the packet counters and byte
/// counts come first, in the `Flow`'s first two cache lines.
#[derive(Debug, Default, Clone)]
#[repr(C)]
pub struct FlowStats {
    /// src -> dst (UDP datagrams; TCP SYN, data and FIN segments).
    pub fwd: DirStats,
    /// dst -> src (TCP ACKs).
    pub rev: DirStats,
    /// Payload bytes the source sent (retransmissions included).
    pub sent_bytes: u64,
    /// Payload bytes delivered to the receiving application (in order, once).
    pub delivered_bytes: u64,
    /// Sums of the one-way delays (ns) of the packets that arrived src ->
    /// dst and dst -> src.
    pub delay_sum_ns: [u64; 2],
}

/// A UDP constant-bit-rate source.
#[derive(Debug)]
pub(super) struct Cbr {
    pub(super) interval: SimDuration,
    pub(super) payload: u32,
    pub(super) count: Option<u64>,
    pub(super) sent: u64,
}

/// A recorded per-connection time series.
#[derive(Debug)]
pub(super) struct TcpSeries {
    /// What the series records.
    pub(super) of: TraceSpec,
    pub(super) times: Vec<u64>,
    pub(super) values: Vec<f64>,
}

/// Aligned to a cache line: the connection is read on every delivery and
/// prefetched whole before a timer fires, and unaligned it spans one line
/// more (at 10,000 flows this alone was worth about 5% of the run).
#[derive(Debug)]
#[repr(align(64))]
pub(super) struct TcpFlow {
    pub(super) snd: Sender,
    pub(super) rcv: Receiver,
    /// Application edges: (time, has data). Bulk: [(start, on)]; ON/OFF:
    /// each window; a stop time adds a final off edge.
    pub(super) edges: Vec<(SimTime, bool)>,
    pub(super) next_edge: usize,
    pub(super) opened: bool,
    /// Opens with a handshake (else both ends start established).
    pub(super) handshake: bool,
    /// transfer: bytes to deliver.
    pub(super) transfer: Option<u64>,
    pub(super) completion: Option<SimTime>,
    pub(super) series: Vec<TcpSeries>,
    pub(super) rtt_samples: u64,
    pub(super) cc_name: std::sync::Arc<str>,
}

impl TcpFlow {
    pub(super) fn new(plan: TcpPlan) -> Self {
        let mut snd = Sender::new(plan.cfg.clone(), plan.cc, plan.fine_retransmit);
        if let Some(p) = &plan.pacing {
            snd.set_pacing(p);
        }
        if plan.events {
            snd.record_events();
        }
        let mut rcv = Receiver::new(&plan.cfg);
        if !plan.handshake {
            rcv.open_established();
        }
        TcpFlow {
            rcv,
            handshake: plan.handshake,
            snd,
            edges: plan.edges,
            next_edge: 0,
            opened: false,
            transfer: plan.transfer,
            completion: None,
            series: plan
                .series
                .into_iter()
                .map(|kind| TcpSeries {
                    of: kind,
                    times: Vec::new(),
                    values: Vec::new(),
                })
                .collect(),
            rtt_samples: 0,
            cc_name: plan.cc_name,
        }
    }
}

/// The source's state: a boxed CBR source, or a connection's index in the
/// world's `tcps`, so that the `Flow` keeps its per-packet fields together.
#[derive(Debug)]
pub(super) enum App {
    Cbr(Box<Cbr>),
    Tcp(u32),
}

/// Fields in the order the packet path uses them, from a cache-line
/// boundary (`repr(C)`, 64-byte aligned): a packet reads the endpoints, its
/// first hop and the application in line 0 and counts itself in lines 0
/// and 1, so a delivery touches one aligned pair of lines when there are
/// thousands of flows. A packet's number is its direction's `sent` count.
#[derive(Debug)]
#[repr(C, align(64))]
pub(super) struct Flow {
    pub(super) src: u32,
    pub(super) dst: u32,
    /// The first link direction from src to dst and from dst to src.
    pub(super) egress: [u32; 2],
    pub(super) app: App,
    pub(super) stats: FlowStats,
    /// One-way delays of the packets delivered src -> dst and dst -> src,
    /// from the first delivery: UDP's always (its extremes), TCP's with
    /// `delay_percentiles`.
    pub(super) delays: Option<Box<[Delays; 2]>>,
    pub(super) name: String,
    pub(super) kind: FlowKind,
    pub(super) start: SimTime,
    pub(super) stop: Option<SimTime>,
    /// Delivered bytes per interval (when the scenario asks for intervals).
    pub(super) per_interval: Vec<u64>,
}

const _: () = assert!(
    std::mem::offset_of!(Flow, stats) + std::mem::offset_of!(FlowStats, delay_sum_ns) + 16
        <= Flow::HOT_BYTES,
    "a flow's per-packet fields in its first two cache lines"
);

impl Flow {
    /// The bytes from its start that a packet reads or counts in.
    pub(super) const HOT_BYTES: usize = 128;

    /// The counters of the direction a packet from node `src` travels in.
    #[inline]
    pub(super) fn dir_stats(&mut self, src: u32) -> &mut DirStats {
        if src == self.src {
            &mut self.stats.fwd
        } else {
            &mut self.stats.rev
        }
    }
}
