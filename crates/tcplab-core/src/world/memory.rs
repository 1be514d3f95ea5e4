// SPDX-License-Identifier: MIT OR Apache-2.0
//! The run's memory budget: an estimate before the run, a check during it.
//!
//! What a built world holds does not grow; what grows as it runs does:
//! packets in flight, recorded time series and logs, per-interval counters.
//! Before the first event, [`check_estimate`] estimates those from the
//! scenario and refuses it, naming the field that makes the run large, when
//! the estimate exceeds the scenario's `memory_budget`. During the run,
//! [`check_use`] counts the same items as they grow and stops the run when
//! they exceed it. Both count each item at its full cost through to Python
//! (a recorded sample lives in the core, in the results and in the arrays
//! handed to Python), and neither looks at the machine, so a scenario is
//! accepted or refused alike everywhere.
//!
//! The estimate is a fluid one:
//! - UDP sources are not held back by a window, so their packets can pile
//!   up: in each link of its path a source holds what arrives during the
//!   link's delay (at its own rate, or the slowest upstream link's), the
//!   packet on the wire, and a full queue when it sends faster than the
//!   link. A source never holds more than it sends in the run.
//! - TCP flows hold at most their window, and at scale what they hold is
//!   set by how they share their bottlenecks, which only the run knows; the
//!   run-time check covers them.
//! - A TCP flow records a sample per series at most at each segment and ACK
//!   arrival. Flows whose slowest link is the same link share its rate, so
//!   the rate of arrivals is bounded by the sum of the distinct
//!   bottlenecks' packet rates (not per flow).
//! - A queue series records two samples per packet through its link.
//! - Interval rows: flows times intervals.

use std::collections::BTreeMap;

use super::{App, World};
use crate::engine::Slab;
use crate::error::{Error, Result};
use crate::net::packet::{Packet, IPV4_HEADER, TCP_HEADER};
use crate::net::queue::InFlight;
use crate::net::route::NO_ROUTE;
use crate::results::{DropRecord, EventRecord, IntervalRecord};
use crate::scenario::TraceKind;
use crate::tcp::sender::TcpEvent;
use crate::units::{grouped, human_bytes};

/// A packet in flight: its slab slot and its pipe entry (a pipe's ring may
/// be twice as long as its contents).
const PACKET_BYTES: u64 =
    (std::mem::size_of::<Packet>() + 2 * std::mem::size_of::<InFlight>()) as u64;
/// A recorded sample (time and value): in the core, and as the arrays
/// handed to Python (the results take the core's arrays over).
const SAMPLE_BYTES: u64 = 2 * 16;
/// A per-interval row: the counter, the result record and its JSON text.
const INTERVAL_ROW_BYTES: u64 = 8 + std::mem::size_of::<IntervalRecord>() as u64 + 128;
/// A logged drop: the log entry, the result record and its JSON text.
const DROP_BYTES: u64 = 32 + std::mem::size_of::<DropRecord>() as u64 + 128;
/// A logged TCP event: the log entry, the result record and its JSON text.
const EVENT_BYTES: u64 =
    (4 + std::mem::size_of::<TcpEvent>() + std::mem::size_of::<EventRecord>()) as u64 + 128;

/// One part of the estimate, with the field a user would change.
struct Part {
    bytes: u64,
    field: String,
    what: String,
}

fn secs(ns: u64) -> f64 {
    ns as f64 * 1e-9
}

/// Link directions from `src` to `dst` along the routes.
fn path(w: &World, first: u32, dst: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut ld = first;
    while ld != NO_ROUTE && out.len() <= w.net.links.len() {
        out.push(ld);
        let to = w.net.links[ld as usize].to;
        if to == dst {
            break;
        }
        ld = w.net.nodes[to as usize].routes.next(dst);
    }
    out
}

/// The nanoseconds of the run each flow is active: to its stop or the end
/// of the run; without either, a UDP source's count at its rate, and for a
/// TCP flow the latest time the scenario names.
fn active_ns(w: &World) -> Vec<u64> {
    let horizon = w.end.map(|e| e.as_nanos()).unwrap_or_else(|| {
        w.ep.flows
            .iter()
            .map(|f| f.stop.unwrap_or(f.start).as_nanos())
            .max()
            .unwrap_or(0)
    });
    w.ep.flows
        .iter()
        .map(|f| {
            let start = f.start.as_nanos();
            let end = match (f.stop, w.end) {
                (Some(s), Some(e)) => s.min(e).as_nanos(),
                (Some(s), None) => s.as_nanos(),
                (None, Some(e)) => e.as_nanos(),
                (None, None) => match &f.app {
                    App::Cbr(c) => start
                        .saturating_add(c.count.unwrap_or(0).saturating_mul(c.interval.as_nanos())),
                    App::Tcp(_) => horizon,
                },
            };
            end.saturating_sub(start)
        })
        .collect()
}

/// Packets a UDP source can have in flight at once, and the link (with
/// whether its queue, not its delay, holds the most) where they pile up.
fn udp_in_flight(w: &World, i: usize, active: u64) -> (u64, Option<(u32, bool)>) {
    let f = &w.ep.flows[i];
    let App::Cbr(c) = &f.app else {
        return (0, None);
    };
    let wire = c.payload as u64 + 28;
    let interval = c.interval.as_nanos().max(1);
    let sent = (active / interval)
        .saturating_add(1)
        .min(c.count.unwrap_or(u64::MAX));
    let mut spacing = interval;
    let mut held: u64 = 0;
    let mut worst = (0u64, None);
    for ld in path(w, f.egress[0], f.dst) {
        let l = &w.net.links[ld as usize];
        let tx = l.rate.tx_time(wire).as_nanos().max(1);
        let queue = if spacing < tx {
            l.queue
                .qdisc()
                .capacity_packets(wire)
                .saturating_add(l.device as u64)
        } else {
            0
        };
        spacing = spacing.max(tx);
        let pipe = l.delay.as_nanos().min(active) / spacing + 1;
        held = held.saturating_add(pipe).saturating_add(queue);
        let here = pipe.saturating_add(queue);
        if here > worst.0 {
            worst = (here, Some((ld, queue > pipe)));
        }
    }
    (held.min(sent), worst.1)
}

/// Segments per second a link direction can carry at the given IP size.
fn packet_rate(w: &World, ld: u32, size: u64) -> f64 {
    1e9 / w.net.links[ld as usize]
        .rate
        .tx_time(size)
        .as_nanos()
        .max(1) as f64
}

/// The parts of the estimate, largest concerns first.
fn estimate(w: &World) -> Vec<Part> {
    // What the built network holds, estimated and counted when the
    // scenario was checked (`scenario::budget`).
    let built = &w.built;
    let mut parts = vec![Part {
        bytes: built.bytes,
        field: built.largest.field.clone(),
        what: format!(
            "the network built from the scenario (most of it {})",
            built.largest.what
        ),
    }];
    let active = active_ns(w);
    parts.extend(udp_part(w, &active));
    parts.extend(interval_part(w, &active));
    if !w.scenario.trace.is_empty() {
        trace_parts(w, &active, &mut parts);
    }
    parts
}

/// UDP packets piling up: all flows' together, named by the worst one's
/// link.
fn udp_part(w: &World, active: &[u64]) -> Option<Part> {
    let link_name = |ld: u32| &w.net.link_names[w.net.links[ld as usize].link as usize];
    let mut udp_packets = 0u64;
    let mut udp_worst: (u64, Option<(usize, u32, bool)>) = (0, None);
    for (i, &a) in active.iter().enumerate() {
        let (n, at) = udp_in_flight(w, i, a);
        udp_packets = udp_packets.saturating_add(n);
        if n > udp_worst.0 {
            udp_worst = (n, at.map(|(ld, q)| (i, ld, q)));
        }
    }
    if let Some((i, ld, by_queue)) = udp_worst.1 {
        let l = &w.net.links[ld as usize];
        let (field, why) = if by_queue {
            (
                format!("links[{}].queue", w.net.link_entries[l.link as usize]),
                match l.device {
                    0 => format!("whose queue holds {}", l.queue.qdisc().describe()),
                    d => format!(
                        "whose queue holds {} above a device queue of {d} packets",
                        l.queue.qdisc().describe()
                    ),
                },
            )
        } else {
            (
                format!("links[{}].delay", w.net.link_entries[l.link as usize]),
                format!(
                    "whose delay of {} holds every packet sent meanwhile",
                    l.delay
                ),
            )
        };
        return Some(Part {
            bytes: udp_packets.saturating_mul(PACKET_BYTES),
            field,
            what: format!(
                "{} UDP packets in flight at once (flow '{}' on link '{}', {why})",
                grouped(udp_packets as f64),
                w.ep.flows[i].name,
                link_name(ld)
            ),
        });
    }
    None
}

/// The per-interval rows.
fn interval_part(w: &World, active: &[u64]) -> Option<Part> {
    let iv = w.scenario.interval?;
    let horizon = w
        .end
        .map(|e| e.as_nanos())
        .unwrap_or_else(|| active.iter().copied().max().unwrap_or(0));
    let rows = (w.ep.flows.len() as u64).saturating_mul(horizon.div_ceil(iv.as_nanos()));
    Some(Part {
        bytes: rows.saturating_mul(INTERVAL_ROW_BYTES),
        field: "interval".into(),
        what: format!(
            "{} per-interval rows ({} flows, windows of {iv} over {:.3} s)",
            grouped(rows as f64),
            w.ep.flows.len(),
            secs(horizon)
        ),
    })
}

/// Each TCP flow's slowest link (data direction), and what flows through
/// the bottlenecks.
struct Bottlenecks {
    /// Per bottleneck, its packet rate and the longest active time of the
    /// flows through it.
    rate: BTreeMap<u32, f64>,
    time: BTreeMap<u32, u64>,
    /// Per flow, its bottleneck (`NO_ROUTE` for none or a UDP flow).
    of_flow: Vec<u32>,
    /// The most series a TCP flow records.
    tcp_series: u64,
    /// The fewest segments per ACK among the flows (delayed ACK).
    per_ack: f64,
}

/// Each TCP flow's slowest link (data direction); flows that share it
/// share its packet rate.
fn bottlenecks(w: &World, active: &[u64]) -> Bottlenecks {
    let mut rate: BTreeMap<u32, f64> = BTreeMap::new();
    let mut time: BTreeMap<u32, u64> = BTreeMap::new();
    let mut of_flow = vec![NO_ROUTE; w.ep.flows.len()];
    let mut tcp_series = 0u64;
    // The fewest segments per ACK among the flows (delayed ACK).
    let mut per_ack = f64::INFINITY;
    for (i, f) in w.ep.flows.iter().enumerate() {
        let App::Tcp(t) = f.app else { continue };
        let t = &w.ep.tcps[t as usize];
        let size = (t.snd.mss() + (IPV4_HEADER + TCP_HEADER) as u64).max(1);
        let p = path(w, f.egress[0], f.dst);
        let Some(&b) = p
            .iter()
            .min_by_key(|&&ld| (w.net.links[ld as usize].rate, ld))
        else {
            continue;
        };
        of_flow[i] = b;
        let r = packet_rate(w, b, size);
        let e = rate.entry(b).or_insert(r);
        *e = e.max(r);
        let tm = time.entry(b).or_insert(0);
        *tm = (*tm).max(active[i]);
        tcp_series = tcp_series.max(t.series.len() as u64);
        per_ack = per_ack.min(t.snd.config().delayed_ack as f64);
    }
    Bottlenecks {
        rate,
        time,
        of_flow,
        tcp_series,
        per_ack,
    }
}

/// The recorded series and logs.
fn trace_parts(w: &World, active: &[u64], parts: &mut Vec<Part>) {
    let b = bottlenecks(w, active);
    let (tcp_series, per_ack) = (b.tcp_series, b.per_ack);
    // Segments over the run through all bottlenecks.
    let tcp_segments: f64 = b.rate.iter().map(|(l, r)| r * secs(b.time[l])).sum();
    let udp_sent: f64 =
        w.ep.flows
            .iter()
            .zip(active)
            .map(|(f, &a)| match &f.app {
                App::Cbr(c) => ((a / c.interval.as_nanos().max(1)) as f64)
                    .min(c.count.unwrap_or(u64::MAX) as f64),
                App::Tcp(_) => 0.0,
            })
            .sum();
    if tcp_series > 0 {
        // A sender's series change at most once per ACK it receives.
        let samples = tcp_series as f64 * tcp_segments / per_ack;
        parts.push(Part {
            bytes: (samples * SAMPLE_BYTES as f64) as u64,
            field: "trace".into(),
            what: format!(
                "about {} samples of {tcp_series} TCP series (up to one per ACK)",
                grouped(samples)
            ),
        });
    }
    parts.extend(link_series_part(w, active, &b));
    if w.scenario.traces(TraceKind::Drops) {
        // At most every packet; a run drops a small share, so this is an
        // upper estimate that only very long runs approach.
        let drops = 2.0 * tcp_segments + udp_sent;
        parts.push(Part {
            bytes: (drops * DROP_BYTES as f64 * 0.1) as u64,
            field: "trace".into(),
            what: format!(
                "the drop log (a tenth of up to {} packets dropped)",
                grouped(drops)
            ),
        });
    }
    if w.scenario.traces(TraceKind::Events) {
        let events = tcp_segments * 0.1;
        parts.push(Part {
            bytes: (events * EVENT_BYTES as f64) as u64,
            field: "trace".into(),
            what: format!("the TCP event log (about {} events)", grouped(events)),
        });
    }
}

/// The queue and sojourn series.
fn link_series_part(w: &World, active: &[u64], b: &Bottlenecks) -> Option<Part> {
    // Samples per packet and link: two for the queue (its arrival and its
    // departure), one for the sojourn.
    let per_packet = 2.0 * w.scenario.traces(TraceKind::Queue) as u8 as f64
        + w.scenario.traces(TraceKind::Sojourn) as u8 as f64;
    if per_packet <= 0.0 {
        return None;
    }
    // Packets through each link direction: at most its own rate, and at
    // most what the flows crossing it send, each TCP flow its fair share
    // of its bottleneck (and an ACK per delayed-ACK count of segments).
    let mut sharing: BTreeMap<u32, f64> = BTreeMap::new();
    for &l in &b.of_flow {
        if l != NO_ROUTE {
            *sharing.entry(l).or_insert(0.0) += 1.0;
        }
    }
    let mut offered = vec![0.0f64; w.net.links.len()];
    for (i, f) in w.ep.flows.iter().enumerate() {
        match &f.app {
            &App::Tcp(t) => {
                let t = &w.ep.tcps[t as usize];
                let l = b.of_flow[i];
                if l == NO_ROUTE {
                    continue;
                }
                let share = b.rate[&l] / sharing[&l];
                for ld in path(w, f.egress[0], f.dst) {
                    offered[ld as usize] += share;
                }
                let acks = share / t.snd.config().delayed_ack as f64;
                for ld in path(w, f.egress[1], f.src) {
                    offered[ld as usize] += acks;
                }
            }
            App::Cbr(c) => {
                for ld in path(w, f.egress[0], f.dst) {
                    offered[ld as usize] += 1e9 / c.interval.as_nanos().max(1) as f64;
                }
            }
        }
    }
    let horizon = secs(active.iter().copied().max().unwrap_or(0));
    let samples: f64 = offered
        .iter()
        .enumerate()
        .map(|(ld, &r)| per_packet * r.min(packet_rate(w, ld as u32, 40)) * horizon)
        .sum();
    Some(Part {
        bytes: (samples * SAMPLE_BYTES as f64) as u64,
        field: "trace".into(),
        what: format!(
            "about {} samples of the queue and sojourn series (per packet and link: two \
             and one)",
            grouped(samples)
        ),
    })
}

/// Refuses a scenario whose estimated memory exceeds its budget, naming the
/// field of the largest part.
pub(super) fn check_estimate(w: &World) -> Result<()> {
    let parts = estimate(w);
    let total: u64 = parts.iter().map(|p| p.bytes).fold(0, u64::saturating_add);
    if total <= w.budget {
        return Ok(());
    }
    let worst = parts
        .iter()
        .max_by_key(|p| p.bytes)
        .expect("a total over the budget has parts");
    Err(Error::invalid_allowed(
        worst.field.clone(),
        format!(
            "{} would take about {}{}, over the memory budget of {}",
            worst.what,
            human_bytes(worst.bytes),
            if parts.len() > 1 {
                format!(" (the run about {} in all)", human_bytes(total))
            } else {
                String::new()
            },
            human_bytes(w.budget)
        ),
        format!(
            "a run within memory_budget; make this smaller, or raise memory_budget (now {})",
            human_bytes(w.budget)
        ),
    ))
}

/// What the run holds now: the network (as estimated when it was checked)
/// and what grows, counted as the estimate counts it.
pub(super) fn in_use(w: &World) -> (u64, [(&'static str, u64); 5]) {
    let packets = slab_bytes(&w.sim.packets);
    let series = w.rec.series_samples.saturating_mul(SAMPLE_BYTES);
    let logs = w.rec.drop_log.as_ref().map_or(0, |l| l.len() as u64) * DROP_BYTES
        + w.rec.event_log.as_ref().map_or(0, |l| l.len() as u64) * EVENT_BYTES;
    let intervals = w.ep.interval_buckets.saturating_mul(INTERVAL_ROW_BYTES);
    let parts = [
        ("the network", w.built.bytes),
        ("packets in flight", packets),
        ("recorded series", series),
        ("logs", logs),
        ("per-interval rows", intervals),
    ];
    (parts.iter().map(|p| p.1).sum(), parts)
}

fn slab_bytes(s: &Slab<Packet>) -> u64 {
    s.reserved_bytes() + s.capacity_used() as u64 * 2 * std::mem::size_of::<InFlight>() as u64
}

/// Stops the run when what it holds exceeds its budget.
pub(super) fn check_use(w: &World) -> Result<()> {
    let (total, parts) = in_use(w);
    if total <= w.budget {
        return Ok(());
    }
    let detail: Vec<String> = parts
        .iter()
        .filter(|p| p.1 > 0)
        .map(|(what, b)| format!("{what} {}", human_bytes(*b)))
        .collect();
    Err(Error::OutOfMemory(format!(
        "at t = {:.6} s the run holds {} ({}), over its memory budget of {} (memory_budget); \
         raise the budget, record less, or shorten the run",
        secs(w.sim.now.as_nanos()),
        human_bytes(total),
        detail.join(", "),
        human_bytes(w.budget)
    )))
}
