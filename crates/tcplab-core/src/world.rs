// SPDX-License-Identifier: MIT OR Apache-2.0
//! The world: the network built from a scenario, and the run loop.
//!
//! `World::build` checks the whole scenario (names, ranges, routes, sizes)
//! and refuses it with a path-named error before anything runs. `run`
//! then processes events in (time, scheduling order) until the duration is
//! reached or nothing is left.

use std::collections::HashMap;
use std::path::Path;

mod memory;

use crate::alloc;
use crate::cc::registry::{self, CcSpec, Profile, VARIANTS};
use crate::cc::CustomCc;
use crate::engine::{Event, EventQueue, PacketId, Slab, TimerKind};
use crate::error::{Error, Result};
use crate::net::error_model::{ErrorModel, GilbertElliott};
use crate::net::link::{LinkDir, LinkStats};
use crate::net::packet::TCP_HEADER;
use crate::net::packet::{Packet, Proto, IPV4_HEADER, UDP_HEADER};
use crate::net::queue::{InFlight, LinkQueue};
use crate::net::route::{self, RouteTable, NO_ROUTE};
use crate::pcap::{FlowOptions, PcapWriter};
use crate::results::{
    DropCause, DropRecord, EventRecord, FlowResult, IntervalRecord, LinkResult, PcapRecord,
    Results, RunSummary, RunTiming, Series,
};
use crate::rng::Rng;
use crate::scenario::{
    flow_kind_params, AppKind, CapturePoint, FlowKind, FlowSpec, LossModel, LossSpec, PcapSpec,
    Scenario, Sojourn, TraceKind,
};
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::{Sender, TcpEvent};
use crate::tcp::{Recovery, RecoveryExit, TcpConfig, TcpHeader};
use crate::time::{SimDuration, SimTime};
use crate::units::{human_bytes, Bytes};

#[derive(Debug)]
struct Node {
    name: String,
    is_host: bool,
    routes: RouteTable,
}

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
    pub delay_sum_ns: u128,
    pub delay_min_ns: u64,
    pub delay_max_ns: u64,
}

/// A UDP constant-bit-rate source.
#[derive(Debug)]
struct Cbr {
    interval: SimDuration,
    payload: u32,
    count: Option<u64>,
    sent: u64,
}

/// The timers of a connection, one slot per kind. The queue holds at most
/// one live event per slot: re-arming to a later deadline only moves
/// `deadline`, and the event re-arms itself when it fires early; an earlier
/// deadline schedules a new event and bumps `gen`, which makes the old one
/// stale.
///
/// The slots of all flows live in one dense table, beside a copy of the
/// endpoint's deadline, so a stale or early timer event (most of them, with
/// thousands of flows) is settled without touching the connection. A
/// flow's three slots fill one cache line: `NEVER` stands for "none".
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct FlowTimers {
    /// Per [`TimerKind`]: when its queued event fires.
    scheduled: [SimTime; 3],
    /// Per kind: the endpoint's deadline as of its last action.
    deadline: [SimTime; 3],
    gen: [u32; 3],
}

const NEVER: SimTime = SimTime::MAX;
const _: () = assert!(
    std::mem::size_of::<FlowTimers>() == 64,
    "one cache line per flow"
);

impl Default for FlowTimers {
    fn default() -> Self {
        FlowTimers {
            scheduled: [NEVER; 3],
            deadline: [NEVER; 3],
            gen: [0; 3],
        }
    }
}

impl FlowTimers {
    /// Schedules the event of `kind` at `at`, making any earlier one stale.
    fn arm(&mut self, queue: &mut EventQueue, flow: u32, kind: TimerKind, at: SimTime) {
        let k = kind as usize;
        self.gen[k] = self.gen[k].wrapping_add(1);
        self.scheduled[k] = at;
        queue.push(
            at,
            Event::Timer {
                flow,
                kind,
                gen: self.gen[k],
            },
        );
    }
}

/// A recorded per-connection time series.
#[derive(Debug)]
struct TcpSeries {
    kind: TraceKind,
    times: Vec<u64>,
    values: Vec<f64>,
}

#[derive(Debug)]
struct TcpFlow {
    snd: Sender,
    rcv: Receiver,
    /// Application edges: (time, has data). Bulk: [(start, on)]; ON/OFF:
    /// each window; a stop time adds a final off edge.
    edges: Vec<(SimTime, bool)>,
    next_edge: usize,
    opened: bool,
    /// transfer: bytes to deliver.
    transfer: Option<u64>,
    completion: Option<SimTime>,
    series: Vec<TcpSeries>,
    rtt_samples: u64,
    cc_name: String,
    /// The controller is user-written and may fail.
    custom_cc: bool,
}

/// Both boxed, so that the `Flow` keeps its per-packet fields together.
#[derive(Debug)]
enum App {
    Cbr(Box<Cbr>),
    Tcp(Box<TcpFlow>),
}

/// Fields in the order the packet path uses them, from a cache-line
/// boundary (`repr(C)`, 64-byte aligned): a packet reads the endpoints, its
/// first hop and the application in line 0 and counts itself in lines 0
/// and 1, so a delivery touches one aligned pair of lines when there are
/// thousands of flows. A packet's number is its direction's `sent` count.
#[derive(Debug)]
#[repr(C, align(64))]
struct Flow {
    src: u32,
    dst: u32,
    /// The first link direction from src to dst and from dst to src.
    egress: [u32; 2],
    app: App,
    stats: FlowStats,
    name: String,
    kind: FlowKind,
    start: SimTime,
    stop: Option<SimTime>,
    /// Delivered bytes per interval (when the scenario asks for intervals).
    per_interval: Vec<u64>,
}

const _: () = assert!(
    std::mem::offset_of!(Flow, stats) + std::mem::offset_of!(FlowStats, delivered_bytes) + 8
        <= Flow::HOT_BYTES,
    "a flow's per-packet fields in its first two cache lines"
);

impl Flow {
    /// The bytes from its start that a packet reads or counts in.
    const HOT_BYTES: usize = 128;

    /// The counters of the direction a packet from node `src` travels in.
    #[inline]
    fn dir_stats(&mut self, src: u32) -> &mut DirStats {
        if src == self.src {
            &mut self.stats.fwd
        } else {
            &mut self.stats.rev
        }
    }
}

/// Asks for the cache lines of `*v` (a hint: no effect on results).
#[inline(always)]
fn prefetch<T>(v: &T) {
    prefetch_bytes(v, std::mem::size_of::<T>());
}

/// Asks for the cache lines of the first `n` bytes at `v`.
#[inline(always)]
fn prefetch_bytes<T>(v: &T, n: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = v as *const T as usize;
        let mut line = start & !63;
        while line < start + n {
            // SAFETY: prefetching is a hint; it never faults, even on an
            // invalid address, and the lines are those of a live value.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, n);
}

/// A dropped packet as logged during the run: (time, link direction, flow,
/// packet number, cause).
type DropEntry = (SimTime, u32, u32, u64, DropCause);

pub struct World {
    now: SimTime,
    /// The end of the run, if a duration was given.
    end: Option<SimTime>,
    queue: EventQueue,
    packets: Slab<Packet>,
    nodes: Vec<Node>,
    /// Link directions: index `2 * link + dir`, dir 0 is a -> b.
    links: Vec<LinkDir>,
    link_names: Vec<String>,
    flows: Vec<Flow>,
    /// Timer slots per flow.
    timers: Vec<FlowTimers>,
    events: u64,
    /// When the last event that did something happened.
    last_activity: SimTime,
    wall_seconds: f64,
    finished_at: Option<SimTime>,
    /// The scenario with every default filled in.
    scenario: Scenario,
    /// Per link direction, when `trace` asks for "queue": (times, lengths).
    queue_trace: Option<Vec<(Vec<u64>, Vec<f64>)>>,
    /// When `trace` asks for "drops": (time, link direction, flow, number, cause).
    drop_log: Option<Vec<DropEntry>>,
    /// When `trace` asks for "events": (flow, event).
    event_log: Option<Vec<(u32, TcpEvent)>>,
    /// Reused buffer for the segments a TCP endpoint emits.
    scratch: Vec<TcpHeader>,
    /// Some connection records a time series / runs a user-written
    /// controller. Checked before the per-flow fields, which sit on cache
    /// lines of their own that a packet need not touch otherwise.
    any_series: bool,
    any_custom_cc: bool,
    /// A user-written controller failed: the run stopped here.
    failure: Option<String>,
    /// Packet traces by link direction (empty when none is asked for).
    pcap: Vec<Option<PcapWriter>>,
    /// Capture on reception (after the error model) rather than on transmission.
    pcap_rx: bool,
    /// Per flow: the options its SYNs carry, for encoding them.
    flow_opts: Vec<FlowOptions>,
    /// The scenario's memory budget, bytes (see [`memory`]).
    budget: u64,
    /// Samples recorded in time series so far (queue and TCP series).
    series_samples: u64,
    /// Per-interval counters allocated so far, over all flows.
    interval_buckets: u64,
}

/// Every this many events the run asks whether to stop (Ctrl-C) and checks
/// its memory: a few hundred microseconds of wall time.
const CHECK_EVERY: u64 = 4096;

fn list_names<'a>(names: impl Iterator<Item = &'a String>) -> String {
    let v: Vec<&str> = names.map(|s| s.as_str()).collect();
    if v.len() > 20 {
        format!("{}, ... ({} in all)", v[..20].join(", "), v.len())
    } else if v.is_empty() {
        "(none declared)".to_string()
    } else {
        v.join(", ")
    }
}

fn check_probability(path: String, v: f64) -> Result<f64> {
    if !(0.0..=1.0).contains(&v) || v.is_nan() {
        return Err(Error::invalid_allowed(
            path,
            format!("{v} is not a probability"),
            "0 to 1",
        ));
    }
    Ok(v)
}

impl World {
    /// Checks `scenario` completely and builds the network, ready to run.
    pub fn build(scenario: &Scenario) -> Result<World> {
        World::build_with(scenario, &mut |_| None)
    }

    /// As `build`, with user-written controllers for flows whose `cc` is
    /// "python".
    pub fn build_with(scenario: &Scenario, custom: CustomCc<'_>) -> Result<World> {
        let mut sc = scenario.clone();
        if let Some(d) = sc.duration {
            if d.is_zero() {
                return Err(Error::invalid("duration", "must be longer than 0 s"));
            }
        }
        if sc.interval.is_some_and(|d| d.is_zero()) {
            return Err(Error::invalid("interval", "must be longer than 0 s"));
        }
        if sc.flows.is_empty() {
            return Err(Error::invalid_allowed(
                "flows",
                "the scenario has no flows, so there is nothing to run",
                "at least one flow: [[flows]] kind = \"tcp\" or \"udp\", src, dst (see \
                 docs/scenarios.md)",
            ));
        }
        let budget = sc
            .memory_budget
            .get_or_insert(Bytes(crate::scenario::DEFAULT_MEMORY_BUDGET))
            .0;
        if budget < memory::MIN_BUDGET {
            return Err(Error::invalid_allowed(
                "memory_budget",
                format!("{} is too small to run anything", human_bytes(budget)),
                format!("at least {}", human_bytes(memory::MIN_BUDGET)),
            ));
        }

        // ---- nodes --------------------------------------------------------
        let mut node_ids: HashMap<String, u32> = HashMap::new();
        let mut nodes = Vec::new();
        let mut where_declared: Vec<String> = Vec::new();
        let declared = sc
            .hosts
            .iter()
            .enumerate()
            .map(|(i, n)| (format!("hosts[{i}]"), n, true))
            .chain(
                sc.routers
                    .iter()
                    .enumerate()
                    .map(|(i, n)| (format!("routers[{i}]"), n, false)),
            );
        for (path, name, is_host) in declared {
            if name.trim().is_empty() {
                return Err(Error::invalid(path, "a node needs a non-empty name"));
            }
            if let Some(&prev) = node_ids.get(name) {
                return Err(Error::invalid(
                    path,
                    format!(
                        "duplicate node name '{name}' (already {}); names must be unique",
                        where_declared[prev as usize]
                    ),
                ));
            }
            node_ids.insert(name.clone(), nodes.len() as u32);
            where_declared.push(path);
            nodes.push(Node {
                name: name.clone(),
                is_host,
                routes: RouteTable::default(),
            });
        }
        let node_names = || list_names(nodes.iter().map(|n| &n.name));
        let find_node = |path: String, name: &str| -> Result<u32> {
            node_ids.get(name).copied().ok_or_else(|| {
                Error::invalid_allowed(path, format!("unknown node '{name}'"), node_names())
            })
        };

        // ---- links --------------------------------------------------------
        let mut links = Vec::new();
        let mut link_names = Vec::new();
        let mut link_ids: HashMap<String, usize> = HashMap::new();
        let mut adj: route::Adjacency = vec![Vec::new(); nodes.len()];
        for (i, l) in sc.links.iter_mut().enumerate() {
            let a = find_node(format!("links[{i}].a"), &l.a)?;
            let b = find_node(format!("links[{i}].b"), &l.b)?;
            if a == b {
                return Err(Error::invalid(
                    format!("links[{i}].b"),
                    format!("a link joins two different nodes, both ends are '{}'", l.a),
                ));
            }
            let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b));
            if name.trim().is_empty() {
                return Err(Error::invalid(
                    format!("links[{i}].name"),
                    "must not be empty",
                ));
            }
            if let Some(prev) = link_ids.get(&name) {
                return Err(Error::invalid(
                    format!("links[{i}].name"),
                    format!(
                        "duplicate link name '{name}' (also links[{prev}]); give parallel links \
                         distinct names"
                    ),
                ));
            }
            if !(68..=65535).contains(&l.mtu) {
                return Err(Error::invalid_allowed(
                    format!("links[{i}].mtu"),
                    format!("{} B is not a valid IPv4 MTU", l.mtu),
                    "68 to 65535 bytes",
                ));
            }
            l.name = Some(name.clone());
            link_ids.insert(name.clone(), i);
            link_names.push(name);
            for (dir, (from, to)) in [(a, b), (b, a)].into_iter().enumerate() {
                let ld = (2 * i + dir) as u32;
                adj[from as usize].push((ld, to));
                links.push(LinkDir {
                    link: i as u32,
                    from,
                    to,
                    rate: l.rate,
                    ns_per_byte: l.rate.exact_ns_per_byte().unwrap_or(0),
                    delay: l.delay,
                    mtu: l.mtu,
                    queue: LinkQueue::new(l.queue),
                    error: None,
                    busy_until: SimTime::ZERO,
                    tx_packets: 0,
                    tx_bytes: 0,
                    busy_ns: 0,
                    stats: LinkStats::default(),
                });
            }
        }

        // ---- routes -------------------------------------------------------
        let is_host: Vec<bool> = nodes.iter().map(|n| n.is_host).collect();
        let mut tables = route::shortest_paths(&adj, &is_host);
        for (i, r) in sc.routes.iter().enumerate() {
            let at = find_node(format!("routes[{i}].node"), &r.node)?;
            let to = find_node(format!("routes[{i}].to"), &r.to)?;
            let next = find_node(format!("routes[{i}].next"), &r.next)?;
            let ld = adj[at as usize]
                .iter()
                .find(|&&(_, nb)| nb == next)
                .map(|&(ld, _)| ld);
            let Some(ld) = ld else {
                let nbs: Vec<String> = adj[at as usize]
                    .iter()
                    .map(|&(_, nb)| nodes[nb as usize].name.clone())
                    .collect();
                return Err(Error::invalid_allowed(
                    format!("routes[{i}].next"),
                    format!("'{}' is not a neighbour of '{}'", r.next, r.node),
                    list_names(nbs.iter()),
                ));
            };
            route::set_route(&mut tables, at, to, ld);
        }
        let link_to: Vec<u32> = links.iter().map(|l| l.to).collect();

        // ---- flows --------------------------------------------------------
        let mut flows = Vec::new();
        let mut flow_ids: HashMap<String, u32> = HashMap::new();
        for (i, f) in sc.flows.iter_mut().enumerate() {
            let p = |field: &str| format!("flows[{i}].{field}");
            let name = f
                .name
                .clone()
                .unwrap_or_else(|| format!("{}{i}", f.kind.name()));
            if flow_ids.contains_key(&name) {
                return Err(Error::invalid(
                    p("name"),
                    format!("duplicate flow name '{name}'"),
                ));
            }
            f.name = Some(name.clone());
            flow_ids.insert(name.clone(), i as u32);
            let src = find_node(p("src"), &f.src)?;
            let dst = find_node(p("dst"), &f.dst)?;
            for (field, n) in [("src", src), ("dst", dst)] {
                if !nodes[n as usize].is_host {
                    return Err(Error::invalid(
                        p(field),
                        format!(
                            "'{}' is a router; flows start and end at hosts",
                            nodes[n as usize].name
                        ),
                    ));
                }
            }
            if src == dst {
                return Err(Error::invalid(p("dst"), "a flow needs two different hosts"));
            }
            let route_err = |from: u32, to: u32, detail: String| {
                let mut detail = detail;
                if detail.contains("not connected")
                    && route::connected_through_hosts(&adj, from, to)
                {
                    detail = "they are connected only through a host, and hosts do not \
                              forward; declare the middle node as a router"
                        .into();
                }
                Error::Unroutable {
                    path: format!("flows[{i}]"),
                    from: nodes[from as usize].name.clone(),
                    to: nodes[to as usize].name.clone(),
                    detail,
                }
            };
            let hops = route::path(&tables, &link_to, &is_host, src, dst)
                .map_err(|d| route_err(src, dst, d))?;
            let path_mtu = hops
                .iter()
                .map(|&ld| links[ld as usize].mtu)
                .min()
                .unwrap_or(65535);
            for (field, is_set) in f.kind_fields() {
                if is_set && !flow_kind_params(f.kind).contains(&field) {
                    return Err(Error::invalid_allowed(
                        p(field),
                        format!("not a parameter of a {} flow", f.kind.name()),
                        flow_kind_params(f.kind).join(", "),
                    ));
                }
            }
            if let Some(stop) = f.stop {
                if stop <= f.start {
                    return Err(Error::invalid(
                        p("stop"),
                        format!("must be after start ({}), got {}", f.start, stop),
                    ));
                }
            }
            if let Some(d) = sc.duration {
                if f.start >= d {
                    return Err(Error::invalid(
                        p("start"),
                        format!("{} is not before the end of the run ({d})", f.start),
                    ));
                }
            }
            let kind = f.kind;
            let endless_error = || {
                Error::invalid(
                    "duration",
                    format!(
                        "required: flows[{i}] ('{name}') never ends by itself (give it a stop \
                         time{}), so the run would never end",
                        if kind == FlowKind::Udp {
                            " or a count"
                        } else {
                            " or a transfer size"
                        }
                    ),
                )
            };
            let app = match f.kind {
                FlowKind::Udp => {
                    let rate = f.rate.ok_or_else(|| {
                        Error::invalid(p("rate"), "required for a udp flow (e.g. '1.5Mbps')")
                    })?;
                    let size = f.size.get_or_insert(Bytes(1000)).0;
                    let max = path_mtu.saturating_sub(IPV4_HEADER + UDP_HEADER) as u64;
                    if size == 0 || size > max {
                        return Err(Error::invalid_allowed(
                            p("size"),
                            format!(
                                "{size} B of payload does not fit: the smallest MTU on the path \
                                 is {path_mtu} B, less 28 B of IPv4 and UDP headers"
                            ),
                            format!("1 to {max} B"),
                        ));
                    }
                    if f.count == Some(0) {
                        return Err(Error::invalid_allowed(
                            p("count"),
                            "must be positive",
                            ">= 1",
                        ));
                    }
                    if sc.duration.is_none() && f.stop.is_none() && f.count.is_none() {
                        return Err(endless_error());
                    }
                    App::Cbr(Box::new(Cbr {
                        interval: rate.interval(size),
                        payload: size as u32,
                        count: f.count,
                        sent: 0,
                    }))
                }
                FlowKind::Tcp => {
                    route::path(&tables, &link_to, &is_host, dst, src)
                        .map_err(|d| route_err(dst, src, format!("for the ACKs: {d}")))?;
                    let tcp = build_tcp(i, f, path_mtu, &sc.trace, custom)?;
                    let endless = tcp.transfer.is_none()
                        && f.stop.is_none()
                        && tcp.edges.last().is_none_or(|e| e.1);
                    if sc.duration.is_none() && endless {
                        return Err(endless_error());
                    }
                    App::Tcp(Box::new(tcp))
                }
            };
            flows.push(Flow {
                name,
                kind: f.kind,
                src,
                dst,
                start: SimTime::ZERO + f.start,
                stop: f.stop.map(|s| SimTime::ZERO + s),
                app,
                stats: FlowStats {
                    delay_min_ns: u64::MAX,
                    ..FlowStats::default()
                },
                egress: [NO_ROUTE; 2],
                per_interval: Vec::new(),
            });
        }

        // ---- error models -------------------------------------------------
        for (i, l) in sc.links.iter().enumerate() {
            for (dir, field, spec) in [(0, "loss", &l.loss), (1, "reverse_loss", &l.reverse_loss)] {
                let Some(spec) = spec else { continue };
                let ld = &links[2 * i + dir];
                let stream = format!(
                    "link:{}:{}>{}:{field}",
                    link_names[i], nodes[ld.from as usize].name, nodes[ld.to as usize].name
                );
                let model = build_error_model(
                    &format!("links[{i}].{field}"),
                    spec,
                    &flow_ids,
                    sc.seed,
                    sc.run,
                    &stream,
                )?;
                links[2 * i + dir].error = Some(Box::new(model));
            }
        }

        for (n, t) in nodes.iter_mut().zip(tables) {
            n.routes = t;
        }
        // Routes are fixed: each endpoint's first hop is looked up once.
        for f in &mut flows {
            f.egress = [
                nodes[f.src as usize].routes.next(f.dst),
                nodes[f.dst as usize].routes.next(f.src),
            ];
        }
        let mut world = World {
            now: SimTime::ZERO,
            end: sc.duration.map(|d| SimTime::ZERO + d),
            queue: EventQueue::new(),
            packets: Slab::new(),
            nodes,
            links,
            link_names,
            timers: vec![FlowTimers::default(); flows.len()],
            flows,
            events: 0,
            last_activity: SimTime::ZERO,
            wall_seconds: 0.0,
            finished_at: None,
            queue_trace: None,
            drop_log: None,
            event_log: None,
            scratch: Vec::new(),
            any_series: false,
            any_custom_cc: false,
            failure: None,
            pcap: Vec::new(),
            pcap_rx: false,
            flow_opts: Vec::new(),
            budget,
            series_samples: 0,
            interval_buckets: 0,
            scenario: sc,
        };
        if world.scenario.trace.contains(&TraceKind::Queue) {
            // Every queue starts empty at t = 0.
            let start = (vec![0], vec![0.0]);
            world.queue_trace = Some(vec![start; world.links.len()]);
        }
        if world.scenario.trace.contains(&TraceKind::Drops) {
            world.drop_log = Some(Vec::new());
        }
        if world.scenario.trace.contains(&TraceKind::Events) {
            world.event_log = Some(Vec::new());
        }
        for f in &world.flows {
            if let App::Tcp(t) = &f.app {
                world.any_series |= !t.series.is_empty();
                world.any_custom_cc |= t.custom_cc;
            }
        }
        if let Some(spec) = world.scenario.pcap.clone() {
            world.check_pcap(&spec)?;
        }
        memory::check_estimate(&world)?;
        for (i, f) in world.flows.iter().enumerate() {
            world.queue.push(f.start, Event::App { flow: i as u32 });
        }
        Ok(world)
    }

    /// Runs to the end of the duration, or until no event is left. Fails
    /// before the first event if a trace file cannot be created.
    pub fn run(&mut self) -> Result<()> {
        self.run_polled(&mut || false)
    }

    /// As [`World::run`], asking `stop` every few thousand events (a few
    /// hundred microseconds of wall time) whether to stop: the bindings
    /// answer from Python's signal handlers, so Ctrl-C stops a run with
    /// [`Error::Interrupted`]. The memory budget is checked at the same
    /// points ([`Error::OutOfMemory`]).
    pub fn run_polled(&mut self, stop: &mut dyn FnMut() -> bool) -> Result<()> {
        if let Some(spec) = self.scenario.pcap.clone() {
            self.open_pcap(&spec)?;
        }
        let started = std::time::Instant::now();
        let end = self.end.unwrap_or(SimTime::MAX);
        loop {
            // An arrival's successor on the same link takes its place in the
            // event queue at once.
            let links = &self.links;
            let popped = self.queue.pop_and_follow(|ev| match *ev {
                Event::Arrive { ld } => {
                    links[ld as usize].queue.second().map(|e| (e.arrive, e.seq))
                }
                _ => None,
            });
            let Some((t, ev)) = popped else { break };
            if t > end {
                break;
            }
            self.now = t;
            self.events += 1;
            if self.events.is_multiple_of(CHECK_EVERY) {
                self.checkpoint(stop)?;
            }
            if !matches!(ev, Event::Arrive { .. }) {
                self.prefetch_timers();
            }
            let acted = match ev {
                Event::Arrive { ld } => {
                    self.advance_link(ld, t);
                    let q = &mut self.links[ld as usize].queue;
                    let e = q.pop_arrival().expect("an arrival has a packet");
                    debug_assert_eq!(e.arrive, t);
                    self.arrive(ld, e.id);
                    true
                }
                Event::App { flow } => {
                    self.app(flow);
                    true
                }
                Event::Timer { flow, kind, gen } => self.timer(flow, kind, gen),
            };
            if acted {
                self.last_activity = t;
            }
            if self.failure.is_some() {
                break;
            }
        }
        // Without a duration the run ends with its last real event, not with
        // a cancelled timer that popped later.
        let finished = self.end.unwrap_or(self.last_activity);
        self.finished_at = Some(finished);
        // Queues up to date at the end: departures that happened by then.
        for ld in 0..self.links.len() as u32 {
            self.advance_link(ld, finished);
        }
        for w in self.pcap.iter_mut().flatten() {
            w.flush();
        }
        self.wall_seconds = started.elapsed().as_secs_f64();
        Ok(())
    }

    /// Asks whether to stop, and checks the memory the run holds against
    /// its budget.
    #[cold]
    #[inline(never)]
    fn checkpoint(&self, stop: &mut dyn FnMut() -> bool) -> Result<()> {
        if stop() {
            return Err(Error::Interrupted);
        }
        memory::check_use(self)
    }

    /// Checks the trace request (files are created only when the run starts,
    /// so checking a scenario never touches them).
    fn check_pcap(&self, spec: &PcapSpec) -> Result<()> {
        if spec.dir.trim().is_empty() {
            return Err(Error::invalid_allowed(
                "pcap.dir",
                "an empty directory name",
                "a directory to write the traces into",
            ));
        }
        if !(40..=65_535).contains(&spec.snaplen) {
            return Err(Error::invalid_allowed(
                "pcap.snaplen",
                format!("{} B", spec.snaplen),
                "40 to 65535 bytes",
            ));
        }
        if let Some(names) = &spec.links {
            for (i, n) in names.iter().enumerate() {
                if !self.link_names.contains(n) {
                    return Err(Error::invalid_allowed(
                        format!("pcap.links[{i}]"),
                        format!("unknown link '{n}'"),
                        list_names(self.link_names.iter()),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Creates the trace files, before the first event.
    fn open_pcap(&mut self, spec: &PcapSpec) -> Result<()> {
        let dir = Path::new(&spec.dir);
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Io(format!("pcap.dir '{}': {e}", spec.dir)))?;
        self.pcap_rx = spec.capture == CapturePoint::Rx;
        self.pcap = (0..self.links.len()).map(|_| None).collect();
        // Names stay distinct on case-insensitive file systems too: a name
        // equal to an earlier one but for case gets the link's index.
        let mut taken = std::collections::HashSet::new();
        let stems: Vec<String> = self
            .link_names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let stem = crate::pcap::file_stem(name);
                if taken.insert(stem.to_lowercase()) {
                    stem
                } else {
                    format!("{stem}~{i}")
                }
            })
            .collect();
        for (ld, l) in self.links.iter().enumerate() {
            let name = &self.link_names[l.link as usize];
            if spec.links.as_ref().is_some_and(|v| !v.contains(name)) {
                continue;
            }
            let file = &stems[l.link as usize];
            let path = dir.join(format!("{file}-{}.pcap", ld % 2));
            let w = PcapWriter::create(&path, spec.snaplen)
                .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
            self.pcap[ld] = Some(w);
        }
        self.flow_opts = self
            .flows
            .iter()
            .map(|f| match &f.app {
                App::Tcp(t) => {
                    let c = t.snd.config();
                    FlowOptions {
                        mss: c.mss.min(65_535) as u16,
                        wscale: c
                            .window_scaling
                            .then(|| crate::tcp::window_shift(c.rcv_buf, true)),
                        sack: c.sack,
                        timestamps: c.timestamps,
                    }
                }
                App::Cbr(_) => FlowOptions::default(),
            })
            .collect();
        Ok(())
    }

    #[inline]
    fn capture(&mut self, ld: u32, id: PacketId, at: SimTime) {
        if let Some(w) = &mut self.pcap[ld as usize] {
            let p = self.packets.get(id);
            let f = p.flow as usize;
            w.write(at, p, self.flows[f].src, &self.flow_opts[f]);
        }
    }

    /// Why the run stopped early, if a user-written controller failed.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    // ---- packet path ------------------------------------------------------

    fn send_from(&mut self, node: u32, pkt: Packet) {
        let id = self.packets.insert(pkt);
        self.forward(node, id);
    }

    #[inline]
    fn forward(&mut self, node: u32, id: PacketId) {
        let dst = self.packets.get(id).dst;
        let ld = self.nodes[node as usize].routes.next(dst);
        self.send_on(ld, id);
    }

    /// Queues packet `id` on link direction `ld`, or drops it if `ld` is
    /// `NO_ROUTE` (which validated paths never give).
    #[inline]
    fn send_on(&mut self, ld: u32, id: PacketId) {
        debug_assert_ne!(ld, NO_ROUTE, "validated paths always have a route");
        if ld == NO_ROUTE {
            self.packets.free(id);
            return;
        }
        self.enqueue(ld, id);
    }

    /// Brings link direction `ld`'s queue up to `now`: the packets whose
    /// transmission started by then leave it (recorded at their start times).
    #[inline(always)]
    fn advance_link(&mut self, ld: u32, now: SimTime) {
        if self.links[ld as usize].queue.due(now) {
            self.advance_link_departures(ld, now);
        }
    }

    #[inline(never)]
    fn advance_link_departures(&mut self, ld: u32, now: SimTime) {
        let l = &mut self.links[ld as usize];
        let stats = &mut l.stats;
        let mut trace = self.queue_trace.as_mut().map(|tr| &mut tr[ld as usize]);
        let samples = &mut self.series_samples;
        l.queue.advance(now, |at, len| {
            stats.note_queue(at, len + 1, len);
            if let Some((t, v)) = trace.as_mut() {
                alloc::push(t, at.as_nanos(), "the queue series");
                alloc::push(v, len as f64, "the queue series");
                *samples += 1;
            }
        });
    }

    /// A packet reaches the egress of link direction `ld`: it goes onto the
    /// wire at once if the link is idle, else waits (or is dropped when the
    /// queue is full). Its start, end of serialization and arrival are all
    /// known now; only its arrival will be an event.
    #[inline]
    fn enqueue(&mut self, ld: u32, id: PacketId) {
        let now = self.now;
        self.advance_link(ld, now);
        let p = self.packets.get_mut(id);
        let size = p.size;
        // The route onwards is looked up now rather than on arrival, so
        // that the link the packet takes next (or, at its destination, the
        // reverse of this one: a host's one link, over which a reply most
        // likely leaves) can be asked for from memory a hop ahead.
        let to = self.links[ld as usize].to;
        p.next_hop = if to == p.dst {
            NO_ROUTE
        } else {
            self.nodes[to as usize].routes.next(p.dst)
        };
        let ahead = if p.next_hop == NO_ROUTE {
            ld ^ 1
        } else {
            p.next_hop
        };
        if let Some(l) = self.links.get(ahead as usize) {
            prefetch_bytes(l, LinkDir::HOT_BYTES);
        }
        let l = &mut self.links[ld as usize];
        let tx_start = l.busy_until.max(now);
        if tx_start > now {
            if !l.queue.fits(size) {
                l.stats.drops_queue += 1;
                let p = self.packets.remove(id);
                self.dir_stats(&p).lost_queue += 1;
                self.record_drop(ld, &p, DropCause::Queue);
                return;
            }
            let old = l.queue.len();
            l.stats.note_queue(now, old, old + 1);
            self.record_queue(ld, old + 1);
        }
        let l = &mut self.links[ld as usize];
        let done = tx_start + l.tx_time(size as u64);
        l.busy_until = done;
        // Counted (and captured) only if it starts before the run ends.
        let started = self.end.is_none_or(|e| tx_start <= e);
        if started {
            l.tx_packets += 1;
            l.tx_bytes += size as u64;
            let busy_end = match self.end {
                Some(e) if e < done => e,
                _ => done,
            };
            l.busy_ns += (busy_end - tx_start).as_nanos();
        }
        let arrive = done + l.delay;
        // The arrival's place among events at the same instant is fixed now.
        let seq = self.queue.reserve_seq();
        if l.queue.front().is_none() {
            self.queue.push_seq(arrive, seq, Event::Arrive { ld });
        }
        l.queue.push(
            InFlight {
                tx_start,
                arrive,
                seq,
                id,
                size,
            },
            now,
        );
        if started && !self.pcap.is_empty() && !self.pcap_rx {
            self.capture(ld, id, tx_start);
        }
    }

    /// A timer or application event popped: prefetches for the next two
    /// in its bucket, which come a few arrivals later. Most timers are
    /// stale or fire early and touch only their slots; one that will fire
    /// reads the connection and sends a segment. So: the slots and the
    /// `Flow` of the second; for the first, whose slots are in cache by now,
    /// the connection state and its egress link if it will fire.
    #[inline(never)]
    fn prefetch_timers(&self) {
        if let Some((_, Event::Timer { flow, .. })) = self.queue.upcoming_timer(1) {
            prefetch_bytes(&self.flows[flow as usize], Flow::HOT_BYTES);
            prefetch(&self.timers[flow as usize]);
        }
        let Some((at, Event::Timer { flow, kind, gen })) = self.queue.upcoming_timer(0) else {
            return;
        };
        let slots = &self.timers[flow as usize];
        let k = kind as usize;
        if slots.gen[k] == gen && slots.deadline[k] <= at {
            let f = &self.flows[flow as usize];
            if let App::Tcp(t) = &f.app {
                prefetch(&**t);
            }
            let dir = (kind == TimerKind::DelayedAck) as usize;
            if let Some(l) = self.links.get(f.egress[dir] as usize) {
                prefetch_bytes(l, LinkDir::HOT_BYTES);
            }
        }
    }

    #[inline]
    fn record_queue(&mut self, ld: u32, len: usize) {
        if let Some(tr) = &mut self.queue_trace {
            let (t, v) = &mut tr[ld as usize];
            alloc::push(t, self.now.as_nanos(), "the queue series");
            alloc::push(v, len as f64, "the queue series");
            self.series_samples += 1;
        }
    }

    #[inline]
    fn record_drop(&mut self, ld: u32, p: &Packet, cause: DropCause) {
        if let Some(log) = &mut self.drop_log {
            alloc::push(log, (self.now, ld, p.flow, p.number, cause), "the drop log");
        }
    }

    fn arrive(&mut self, ld: u32, id: PacketId) {
        let now = self.now;
        let l = &mut self.links[ld as usize];
        if let Some(em) = &mut l.error {
            if em.lose(now, self.packets.get(id)) {
                l.stats.drops_error += 1;
                let p = self.packets.remove(id);
                self.dir_stats(&p).lost_error += 1;
                self.record_drop(ld, &p, DropCause::Error);
                return;
            }
        }
        let node = l.to;
        if self.pcap_rx {
            self.capture(ld, id, now);
        }
        let p = self.packets.get(id);
        if p.dst == node {
            self.deliver(id);
        } else {
            self.send_on(p.next_hop, id);
        }
    }

    /// The counters of the direction `p` travels in.
    #[inline]
    fn dir_stats(&mut self, p: &Packet) -> &mut DirStats {
        self.flows[p.flow as usize].dir_stats(p.src)
    }

    /// Hands packet `id` to its destination endpoint and frees it. The
    /// packet is read in place: copying it out of the slab first costs more
    /// than the rest of a delivery when the slab is out of cache.
    fn deliver(&mut self, id: PacketId) {
        let now = self.now;
        let p = self.packets.get(id);
        let flow = p.flow;
        let f = &mut self.flows[flow as usize];
        let to_receiver = p.src == f.src;
        f.dir_stats(p.src).arrived += 1;
        match &mut f.app {
            App::Cbr(_) => {
                if let Some(iv) = self.scenario.interval {
                    self.interval_buckets +=
                        add_interval(&mut f.per_interval, now, iv, p.payload as u64);
                }
                let s = &mut f.stats;
                s.delivered_bytes += p.payload as u64;
                let d = (now - p.sent_at).as_nanos();
                s.delay_sum_ns += d as u128;
                s.delay_min_ns = s.delay_min_ns.min(d);
                s.delay_max_ns = s.delay_max_ns.max(d);
                self.packets.free(id);
            }
            App::Tcp(t) => {
                let mut out = std::mem::take(&mut self.scratch);
                if to_receiver {
                    let r = t.rcv.on_segment(now, &p.tcp);
                    self.packets.free(id);
                    if r.delivered > 0 {
                        f.stats.delivered_bytes += r.delivered;
                        if let Some(iv) = self.scenario.interval {
                            self.interval_buckets +=
                                add_interval(&mut f.per_interval, now, iv, r.delivered);
                        }
                        if t.transfer.is_some_and(|n| t.rcv.delivered >= n)
                            && t.completion.is_none()
                        {
                            t.completion = Some(now);
                        }
                    }
                    out.extend(r.ack);
                    self.emit_tcp(flow, false, &mut out);
                } else {
                    t.snd.on_segment(now, &p.tcp, &mut out);
                    self.packets.free(id);
                    self.emit_tcp(flow, true, &mut out);
                }
                self.scratch = out;
                self.after_tcp(flow);
            }
        }
    }

    /// Sends the segments an endpoint produced: from the sender (src) when
    /// `from_sender`, else from the receiver (dst).
    fn emit_tcp(&mut self, flow: u32, from_sender: bool, out: &mut Vec<TcpHeader>) {
        let now = self.now;
        for h in out.drain(..) {
            let f = &mut self.flows[flow as usize];
            let (src, dst, number, egress) = if from_sender {
                f.stats.fwd.sent += 1;
                f.stats.sent_bytes += h.len as u64;
                (f.src, f.dst, f.stats.fwd.sent, f.egress[0])
            } else {
                f.stats.rev.sent += 1;
                (f.dst, f.src, f.stats.rev.sent, f.egress[1])
            };
            let pkt = Packet {
                flow,
                src,
                dst,
                size: IPV4_HEADER + TCP_HEADER + h.opt_len as u32 + h.len,
                payload: h.len,
                next_hop: NO_ROUTE,
                number,
                sent_at: now,
                proto: Proto::Tcp,
                tcp: h,
            };
            let id = self.packets.insert(pkt);
            self.send_on(egress, id);
        }
    }

    /// After a TCP endpoint acted: sync its timers, record its series.
    fn after_tcp(&mut self, flow: u32) {
        let now = self.now;
        let App::Tcp(t) = &mut self.flows[flow as usize].app else {
            return;
        };
        let slots = &mut self.timers[flow as usize];
        for (kind, deadline) in [
            (TimerKind::Rto, t.snd.rto_deadline),
            (TimerKind::DelayedAck, t.rcv.delack_deadline),
            (TimerKind::Pace, t.snd.pace_deadline),
        ] {
            let d = deadline.unwrap_or(NEVER);
            slots.deadline[kind as usize] = d;
            if d < slots.scheduled[kind as usize] {
                slots.arm(&mut self.queue, flow, kind, d);
            }
        }
        if self.any_series && !t.series.is_empty() {
            let snd = &t.snd;
            let new_sample = snd.rtt.samples != t.rtt_samples;
            t.rtt_samples = snd.rtt.samples;
            for s in &mut t.series {
                let v = match s.kind {
                    TraceKind::Cwnd => snd.tcb.cwnd as f64,
                    TraceKind::Ssthresh => snd.tcb.ssthresh.min(1 << 53) as f64,
                    TraceKind::Srtt => snd.rtt.srtt.map_or(f64::NAN, |d| d.as_secs_f64()),
                    TraceKind::Rto => snd.rtt.rto().as_secs_f64(),
                    TraceKind::State => snd.tcb.ca_state.code(),
                    TraceKind::Inflight => snd.flight_size() as f64,
                    TraceKind::Bwe => match snd.cc.probe("bwe") {
                        Some(v) => v,
                        None => continue,
                    },
                    TraceKind::Diff => match snd.cc.probe("diff") {
                        Some(v) => v,
                        None => continue,
                    },
                    TraceKind::Rtt => {
                        if !new_sample {
                            continue;
                        }
                        snd.rtt.latest.map_or(f64::NAN, |d| d.as_secs_f64())
                    }
                    _ => continue,
                };
                let changed = s.kind == TraceKind::Rtt
                    || s.values
                        .last()
                        .is_none_or(|&last| last.to_bits() != v.to_bits());
                if changed {
                    alloc::push(&mut s.times, now.as_nanos(), "a TCP series");
                    alloc::push(&mut s.values, v, "a TCP series");
                    self.series_samples += 1;
                }
            }
        }
        if self.any_custom_cc && t.custom_cc {
            if let Some(e) = t.snd.cc.take_error() {
                self.failure = Some(format!("flow '{}': {e}", self.flows[flow as usize].name));
                return;
            }
        }
        let Some(log) = &mut self.event_log else {
            return;
        };
        let App::Tcp(t) = &mut self.flows[flow as usize].app else {
            return;
        };
        if let Some(ev) = &mut t.snd.events {
            for e in ev.drain(..) {
                alloc::push(log, (flow, e), "the TCP event log");
            }
        }
    }

    /// Handles a timer event; false if it was stale or cancelled (a no-op).
    fn timer(&mut self, flow: u32, kind: TimerKind, gen: u32) -> bool {
        let now = self.now;
        let slots = &mut self.timers[flow as usize];
        let k = kind as usize;
        if slots.gen[k] != gen {
            return false; // superseded by an earlier deadline
        }
        slots.scheduled[k] = NEVER;
        match slots.deadline[k] {
            NEVER => false,
            d if d > now => {
                // Moved later since this event was scheduled: wait again.
                slots.arm(&mut self.queue, flow, kind, d);
                false
            }
            _ => {
                let App::Tcp(t) = &mut self.flows[flow as usize].app else {
                    return false;
                };
                let mut out = std::mem::take(&mut self.scratch);
                match kind {
                    TimerKind::Rto => {
                        t.snd.on_rto(now, &mut out);
                        self.emit_tcp(flow, true, &mut out);
                    }
                    TimerKind::DelayedAck => {
                        out.extend(t.rcv.on_delack_timer(now));
                        self.emit_tcp(flow, false, &mut out);
                    }
                    TimerKind::Pace => {
                        t.snd.on_pace(now, &mut out);
                        self.emit_tcp(flow, true, &mut out);
                    }
                }
                self.scratch = out;
                self.after_tcp(flow);
                true
            }
        }
    }

    // ---- applications -----------------------------------------------------

    fn app(&mut self, flow: u32) {
        let now = self.now;
        let f = &mut self.flows[flow as usize];
        let (src, dst) = (f.src, f.dst);
        match &mut f.app {
            App::Cbr(c) => {
                if f.stop.is_some_and(|s| now >= s) {
                    return;
                }
                if c.count.is_some_and(|n| c.sent >= n) {
                    return;
                }
                c.sent += 1;
                f.stats.fwd.sent += 1;
                let pkt = Packet {
                    flow,
                    src,
                    dst,
                    size: c.payload + IPV4_HEADER + UDP_HEADER,
                    payload: c.payload,
                    next_hop: NO_ROUTE,
                    number: f.stats.fwd.sent,
                    sent_at: now,
                    proto: Proto::Udp,
                    tcp: TcpHeader::default(),
                };
                let more = c.count.is_none_or(|n| c.sent < n);
                let next = now + c.interval;
                f.stats.sent_bytes += c.payload as u64;
                if more && f.stop.is_none_or(|s| next < s) {
                    self.queue.push(next, Event::App { flow });
                }
                self.send_from(src, pkt);
            }
            App::Tcp(t) => {
                let mut out = std::mem::take(&mut self.scratch);
                if !t.opened {
                    t.opened = true;
                    if let Some(n) = t.transfer {
                        t.snd.set_app_limit(now, n, &mut out);
                        t.snd.close(now, &mut out);
                    }
                    t.snd.open(now, &mut out);
                }
                while t.next_edge < t.edges.len() && t.edges[t.next_edge].0 <= now {
                    let on = t.edges[t.next_edge].1;
                    t.next_edge += 1;
                    if t.transfer.is_some() {
                        continue; // a transfer's data is fixed; a stop does not cut it
                    }
                    if on {
                        t.snd.set_app_limit(now, u64::MAX, &mut out);
                    } else {
                        t.snd.pause_app();
                    }
                }
                if let Some(&(at, _)) = t.edges.get(t.next_edge) {
                    self.queue.push(at, Event::App { flow });
                }
                self.emit_tcp(flow, true, &mut out);
                self.scratch = out;
                self.after_tcp(flow);
            }
        }
    }

    // ---- results ----------------------------------------------------------

    fn flow_result(&self, f: &Flow, end: SimTime) -> FlowResult {
        let s = &f.stats;
        let (tcp, completion) = match &f.app {
            App::Tcp(t) => (Some(t), t.completion),
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
        let per_s = |bytes: u64| {
            if active.is_zero() {
                0.0
            } else {
                bytes as f64 * 8.0 / active.as_secs_f64()
            }
        };
        let n = s.fwd.arrived;
        let (dmin, dmean, dmax) = if n == 0 || tcp.is_some() {
            (f64::NAN, f64::NAN, f64::NAN)
        } else {
            (
                s.delay_min_ns as f64 * 1e-9,
                s.delay_sum_ns as f64 / n as f64 * 1e-9,
                s.delay_max_ns as f64 * 1e-9,
            )
        };
        let (retx, retx_bytes, timeouts, frs, data_segs) = tcp.map_or((0, 0, 0, 0, 0), |t| {
            let st = &t.snd.stats;
            (
                st.retransmitted_segments,
                st.retransmitted_bytes,
                st.timeouts,
                st.fast_retransmits,
                st.segments_sent,
            )
        });
        FlowResult {
            flow: f.name.clone(),
            kind: f.kind.name().to_string(),
            src: self.nodes[f.src as usize].name.clone(),
            dst: self.nodes[f.dst as usize].name.clone(),
            start_s: f.start.as_secs_f64(),
            sent_packets: s.fwd.sent,
            sent_bytes: s.sent_bytes,
            delivered_packets: s.fwd.arrived,
            delivered_bytes: s.delivered_bytes,
            lost_queue: s.fwd.lost_queue,
            lost_error: s.fwd.lost_error,
            in_flight_packets: s.fwd.in_flight(),
            goodput_bps: per_s(s.delivered_bytes),
            delay_min_s: dmin,
            delay_mean_s: dmean,
            delay_max_s: dmax,
            throughput_bps: if tcp.is_some() {
                per_s(s.sent_bytes)
            } else {
                f64::NAN
            },
            unique_sent_bps: if tcp.is_some() {
                per_s(s.sent_bytes - retx_bytes)
            } else {
                f64::NAN
            },
            retransmitted_segments: retx,
            retransmission_ratio: if data_segs == 0 {
                0.0
            } else {
                retx as f64 / data_segs as f64
            },
            timeouts,
            fast_retransmits: frs,
            dupacks: tcp.map_or(0, |t| t.snd.stats.dupacks),
            completion_time_s: completion.map_or(f64::NAN, |c| (c - f.start).as_secs_f64()),
            acked_bytes: tcp.map_or(0, |t| t.snd.bytes_acked()),
            ack_packets: s.rev.sent,
            acks_lost: s.rev.lost_queue + s.rev.lost_error,
            cc: tcp.map_or(String::new(), |t| t.cc_name.clone()),
            recovery: tcp.map_or(String::new(), |t| {
                t.snd.config().recovery.name().to_string()
            }),
            mss: tcp.map_or(0, |t| t.snd.mss()),
        }
    }

    /// The counters of the run, as plain records; the recorded series move
    /// into them (not copied: with every series recorded they are most of
    /// the run's memory).
    pub fn into_results(mut self) -> Results {
        let end = self.finished_at.unwrap_or(self.now);
        let end_ns = end.as_nanos();
        let flows = self
            .flows
            .iter()
            .map(|f| self.flow_result(f, end))
            .collect();
        let links = self
            .links
            .iter()
            .map(|l| {
                let s = &l.stats;
                let area = s.queue_area
                    + l.queue.len() as u128
                        * (end.max(s.queue_changed_at) - s.queue_changed_at).as_nanos() as u128;
                LinkResult {
                    link: self.link_names[l.link as usize].clone(),
                    src: self.nodes[l.from as usize].name.clone(),
                    dst: self.nodes[l.to as usize].name.clone(),
                    rate_bps: l.rate.bps(),
                    delay_s: l.delay.as_secs_f64(),
                    tx_packets: l.tx_packets,
                    tx_bytes: l.tx_bytes,
                    drops_queue: s.drops_queue,
                    drops_error: s.drops_error,
                    utilization: if end_ns == 0 {
                        0.0
                    } else {
                        l.busy_ns as f64 / end_ns as f64
                    },
                    queue_max_packets: s.queue_max,
                    queue_mean_packets: if end_ns == 0 {
                        0.0
                    } else {
                        area as f64 / end_ns as f64
                    },
                }
            })
            .collect();
        let dir_name = |ld: usize| {
            let l = &self.links[ld];
            (
                self.link_names[l.link as usize].clone(),
                self.nodes[l.from as usize].name.clone(),
                self.nodes[l.to as usize].name.clone(),
            )
        };
        let drops = self
            .drop_log
            .iter()
            .flatten()
            .map(|&(t, ld, flow, packet, cause)| {
                let (link, src, dst) = dir_name(ld as usize);
                DropRecord {
                    time_ns: t.as_nanos(),
                    link,
                    src,
                    dst,
                    flow: self.flows[flow as usize].name.clone(),
                    packet,
                    cause,
                }
            })
            .collect();
        let mut series = Vec::new();
        for (ld, (t, v)) in self.queue_trace.iter_mut().flatten().enumerate() {
            let (link, src, dst) = dir_name(ld);
            series.push(Series {
                name: "queue".into(),
                target: format!("{link}:{src}>{dst}"),
                times_ns: std::mem::take(t),
                values: std::mem::take(v),
            });
        }
        let events = self
            .event_log
            .iter()
            .flatten()
            .map(|&(flow, e)| EventRecord {
                time_ns: e.time.as_nanos(),
                flow: self.flows[flow as usize].name.clone(),
                event: e.kind.name().to_string(),
                seq: e.seq,
                cwnd: e.cwnd,
                ssthresh: e.ssthresh.min(1 << 53),
            })
            .collect();
        for f in &mut self.flows {
            if let App::Tcp(t) = &mut f.app {
                for s in &mut t.series {
                    series.push(Series {
                        name: s.kind.name().to_string(),
                        target: f.name.clone(),
                        times_ns: std::mem::take(&mut s.times),
                        values: std::mem::take(&mut s.values),
                    });
                }
            }
        }
        let mut intervals = Vec::new();
        if let Some(iv) = self.scenario.interval {
            let n = end.as_nanos().div_ceil(iv.as_nanos()) as usize;
            for f in &self.flows {
                for k in 0..n {
                    let start = SimTime::from_nanos(k as u64 * iv.as_nanos());
                    let stop = (start + iv).min(end);
                    let bytes = f.per_interval.get(k).copied().unwrap_or(0);
                    let span = (stop - start).as_secs_f64();
                    intervals.push(IntervalRecord {
                        flow: f.name.clone(),
                        start_s: start.as_secs_f64(),
                        end_s: stop.as_secs_f64(),
                        delivered_bytes: bytes,
                        goodput_bps: if span > 0.0 {
                            bytes as f64 * 8.0 / span
                        } else {
                            0.0
                        },
                    });
                }
            }
        }
        let pcap = self
            .pcap
            .iter()
            .enumerate()
            .filter_map(|(ld, w)| {
                let w = w.as_ref()?;
                let (link, src, dst) = dir_name(ld);
                Some(PcapRecord {
                    path: w.path().display().to_string(),
                    link,
                    src,
                    dst,
                    packets: w.records,
                    error: w.error.clone(),
                })
            })
            .collect();
        Results {
            flows,
            links,
            drops,
            events,
            intervals,
            pcap,
            series,
            summary: RunSummary {
                sim_seconds: end.as_secs_f64(),
                events: self.events,
                peak_packets: self.packets.capacity_used() as u64,
            },
            timing: RunTiming {
                wall_seconds: self.wall_seconds,
                events_per_second: if self.wall_seconds > 0.0 {
                    self.events as f64 / self.wall_seconds
                } else {
                    0.0
                },
            },
            scenario: self.scenario.clone(),
        }
    }
}

/// Adds `bytes` to the bucket of the interval containing `now`; returns how
/// many buckets it added.
fn add_interval(buckets: &mut Vec<u64>, now: SimTime, interval: SimDuration, bytes: u64) -> u64 {
    let k = (now.as_nanos() / interval.as_nanos()) as usize;
    let mut added = 0;
    if buckets.len() <= k {
        added = (k + 1 - buckets.len()) as u64;
        alloc::reserve(buckets, k + 1 - buckets.len(), "per-interval counters");
        buckets.resize(k + 1, 0);
    }
    buckets[k] += bytes;
    added
}

fn build_error_model(
    path: &str,
    spec: &LossSpec,
    flow_ids: &HashMap<String, u32>,
    seed: u64,
    run: u64,
    stream: &str,
) -> Result<ErrorModel> {
    let model = spec.model;
    let given: [(&str, bool); 11] = [
        ("per", spec.per.is_some()),
        ("ber", spec.ber.is_some()),
        ("good_loss", spec.good_loss.is_some()),
        ("bad_loss", spec.bad_loss.is_some()),
        ("good_time", spec.good_time.is_some()),
        ("bad_time", spec.bad_time.is_some()),
        ("sojourn", spec.sojourn.is_some()),
        ("p_bad", spec.p_bad.is_some()),
        ("packets", spec.packets.is_some()),
        ("flow", spec.flow.is_some()),
        ("data_only", spec.data_only.is_some()),
    ];
    for (field, is_set) in given {
        if is_set && !model.params().contains(&field) {
            return Err(Error::invalid_allowed(
                format!("{path}.{field}"),
                format!("not a parameter of the '{}' model", model.name()),
                model.params().join(", "),
            ));
        }
    }
    let need = |field: &str| {
        Error::invalid(
            format!("{path}.{field}"),
            format!("required by the '{}' model", model.name()),
        )
    };
    let rng = || Rng::stream(seed, run, stream);
    Ok(match model {
        LossModel::Uniform => {
            let per =
                check_probability(format!("{path}.per"), spec.per.ok_or_else(|| need("per"))?)?;
            ErrorModel::Uniform { per, rng: rng() }
        }
        LossModel::Ber => {
            let ber =
                check_probability(format!("{path}.ber"), spec.ber.ok_or_else(|| need("ber"))?)?;
            ErrorModel::Ber { ber, rng: rng() }
        }
        LossModel::GilbertElliott => {
            let good =
                check_probability(format!("{path}.good_loss"), spec.good_loss.unwrap_or(0.0))?;
            let bad = check_probability(
                format!("{path}.bad_loss"),
                spec.bad_loss.ok_or_else(|| need("bad_loss"))?,
            )?;
            let p_bad = check_probability(format!("{path}.p_bad"), spec.p_bad.unwrap_or(0.5))?;
            let mut times = [SimDuration::ZERO; 2];
            for (k, (field, v)) in [("good_time", spec.good_time), ("bad_time", spec.bad_time)]
                .into_iter()
                .enumerate()
            {
                let v = v.ok_or_else(|| need(field))?;
                if v.is_zero() {
                    return Err(Error::invalid(
                        format!("{path}.{field}"),
                        "must be longer than 0 s",
                    ));
                }
                times[k] = v;
            }
            let exponential = spec.sojourn == Some(Sojourn::Exponential);
            ErrorModel::GilbertElliott(GilbertElliott::new(
                [good, bad],
                times,
                exponential,
                p_bad,
                Rng::stream(seed, run, &format!("{stream}:state")),
                rng(),
            ))
        }
        LossModel::List => {
            let mut drop = spec.packets.clone().ok_or_else(|| need("packets"))?;
            if drop.contains(&0) {
                return Err(Error::invalid_allowed(
                    format!("{path}.packets"),
                    "packets are counted from 1; 0 is not a packet number",
                    "whole numbers >= 1",
                ));
            }
            drop.sort_unstable();
            drop.dedup();
            let flow = match &spec.flow {
                None => None,
                Some(name) => Some(*flow_ids.get(name).ok_or_else(|| {
                    let mut names: Vec<&String> = flow_ids.keys().collect();
                    names.sort();
                    Error::invalid_allowed(
                        format!("{path}.flow"),
                        format!("unknown flow '{name}'"),
                        list_names(names.into_iter()),
                    )
                })?),
            };
            ErrorModel::List {
                drop,
                next: 0,
                seen: 0,
                flow,
                data_only: spec.data_only.unwrap_or(false),
            }
        }
    })
}

/// Resolves a TCP flow's configuration (filling the defaults into `f`, so the
/// effective scenario shows them) and builds its endpoints.
fn build_tcp(
    i: usize,
    f: &mut FlowSpec,
    path_mtu: u32,
    trace: &[TraceKind],
    custom: CustomCc<'_>,
) -> Result<TcpFlow> {
    let p = |field: &str| format!("flows[{i}].{field}");
    let profile = *f.profile.get_or_insert(Profile::Paper);
    let linux = profile == Profile::Linux;
    let ns3 = profile == Profile::Ns3;
    let spec = f.cc.get_or_insert_with(|| CcSpec::named("newreno")).clone();
    let mut user_cc = None;
    if spec.name == "python" {
        user_cc = Some(custom(i).ok_or_else(|| {
            Error::invalid(
                p("cc"),
                "'python' names a variant written in Python: pass a tcplab.CongestionControl \
                 object as cc= from Python (it cannot be given in a file)",
            )
        })?);
    }
    let python_info = registry::VariantInfo {
        name: "python",
        recovery: Recovery::Newreno,
        summary: "a variant written in Python",
    };
    let info = if user_cc.is_some() {
        Some(&python_info)
    } else {
        VARIANTS.iter().find(|v| v.name == spec.name)
    };
    let Some(info) = info else {
        let names: Vec<&str> = VARIANTS.iter().map(|v| v.name).chain(["python"]).collect();
        return Err(Error::invalid_allowed(
            p("cc"),
            format!("unknown variant '{}'", spec.name),
            names.join(", "),
        ));
    };
    let recovery = *f.recovery.get_or_insert(info.recovery);
    let sack = *f
        .sack
        .get_or_insert(recovery == Recovery::Sack || linux || ns3);
    if recovery == Recovery::Sack && !sack {
        return Err(Error::invalid(
            p("sack"),
            "the sack recovery needs the SACK option on",
        ));
    }
    let timestamps = *f.timestamps.get_or_insert(linux || ns3);
    let window_scaling = *f.window_scaling.get_or_insert(true);
    let base = crate::tcp::base_options(timestamps);
    let max_mss = path_mtu.saturating_sub(IPV4_HEADER + TCP_HEADER + base) as u64;
    let mss = f.mss.get_or_insert(Bytes(max_mss)).0;
    if !(8..=max_mss).contains(&mss) {
        return Err(Error::invalid_allowed(
            p("mss"),
            format!(
                "{mss} B does not fit: the smallest MTU on the path is {path_mtu} B, less 40 B \
                 of IPv4 and TCP headers{}",
                if timestamps {
                    " and 12 B of timestamps"
                } else {
                    ""
                }
            ),
            format!("8 to {max_mss} B"),
        ));
    }
    let rcv_buf = f
        .rcv_buf
        .get_or_insert(Bytes(if ns3 { 128 << 10 } else { 4 << 20 }))
        .0;
    let max_buf = if window_scaling {
        65_535u64 << 14
    } else {
        65_535
    };
    if rcv_buf < mss || rcv_buf > max_buf {
        return Err(Error::invalid_allowed(
            p("rcv_buf"),
            format!(
                "{rcv_buf} B cannot be advertised{}",
                if window_scaling {
                    ""
                } else {
                    " without window scaling"
                }
            ),
            format!("{mss} (one MSS) to {max_buf} B"),
        ));
    }
    let delayed_ack = *f.delayed_ack.get_or_insert(2);
    if delayed_ack == 0 {
        return Err(Error::invalid_allowed(
            p("delayed_ack"),
            "0 is not a number of segments",
            "1 (an ACK per segment) or more",
        ));
    }
    let delayed_ack_timeout = *f
        .delayed_ack_timeout
        .get_or_insert(SimDuration::from_millis(200));
    if delayed_ack_timeout.is_zero() {
        return Err(Error::invalid(
            p("delayed_ack_timeout"),
            "must be longer than 0 s",
        ));
    }
    // RFC 5681 3.1: 4 segments up to an SMSS of 1095 B, 3 up to 2190 B, else 2.
    let default_iw = match mss {
        0..=1095 => 4,
        1096..=2190 => 3,
        _ => 2,
    };
    let iw = *f
        .initial_cwnd
        .get_or_insert(if linux || ns3 { 10 } else { default_iw as u32 });
    if iw == 0 {
        return Err(Error::invalid_allowed(
            p("initial_cwnd"),
            "must be positive",
            ">= 1 segment",
        ));
    }
    let initial_ssthresh = f.initial_ssthresh.map_or(u64::MAX, |b| b.0);
    if initial_ssthresh < mss {
        return Err(Error::invalid_allowed(
            p("initial_ssthresh"),
            format!("{initial_ssthresh} B is less than one segment"),
            format!(">= {mss} B"),
        ));
    }
    let abc = *f.abc.get_or_insert(linux);
    let min_rto = *f.min_rto.get_or_insert(if linux {
        SimDuration::from_millis(200)
    } else {
        SimDuration::from_secs(1)
    });
    let max_rto = *f.max_rto.get_or_insert(SimDuration::from_secs(60));
    let initial_rto = *f.initial_rto.get_or_insert(SimDuration::from_secs(1));
    let clock_granularity = *f
        .clock_granularity
        .get_or_insert(SimDuration::from_millis(1));
    if max_rto < min_rto {
        return Err(Error::invalid(
            p("max_rto"),
            format!("{max_rto} is below min_rto ({min_rto})"),
        ));
    }
    if initial_rto.is_zero() {
        return Err(Error::invalid(p("initial_rto"), "must be longer than 0 s"));
    }
    let restart_after_idle = *f.restart_after_idle.get_or_insert(true);
    let dupthresh = *f.dupthresh.get_or_insert(3);
    if dupthresh == 0 {
        return Err(Error::invalid_allowed(
            p("dupthresh"),
            "must be positive",
            ">= 1",
        ));
    }
    let cfg = TcpConfig {
        mss: mss as u32,
        recovery,
        sack,
        timestamps,
        window_scaling,
        rcv_buf,
        delayed_ack,
        delayed_ack_timeout,
        initial_cwnd: iw as u64 * mss,
        initial_ssthresh,
        abc,
        min_rto,
        max_rto,
        initial_rto,
        clock_granularity,
        restart_after_idle,
        dupthresh,
        fine_retransmit: false,
        recovery_exit: *f.recovery_exit.get_or_insert(if linux || ns3 {
            RecoveryExit::Ssthresh
        } else {
            RecoveryExit::Flight
        }),
    };
    let built = match user_cc {
        Some(cc) => registry::Built {
            cc,
            recovery: info.recovery,
            spec: spec.clone(),
        },
        None => registry::build(&spec, &p("cc"), profile, abc)?,
    };
    let custom_cc = spec.name == "python";
    f.cc = Some(built.spec);
    let mut cfg = cfg;
    cfg.fine_retransmit = built.cc.fine_retransmit();
    let variant = spec.name.clone();

    // The application.
    let app = f.app.get_or_insert(crate::scenario::AppSpec {
        kind: AppKind::Bulk,
        size: None,
        schedule: None,
    });
    let start = SimTime::ZERO + f.start;
    let mut edges = Vec::new();
    let mut transfer = None;
    match app.kind {
        AppKind::Bulk | AppKind::Transfer => {
            if app.schedule.is_some() {
                return Err(Error::invalid(
                    p("app.schedule"),
                    "only an onoff application has one",
                ));
            }
            if app.kind == AppKind::Transfer {
                let size = app.size.ok_or_else(|| {
                    Error::invalid(p("app.size"), "required for a transfer (e.g. '10MiB')")
                })?;
                if size.0 == 0 {
                    return Err(Error::invalid_allowed(
                        p("app.size"),
                        "must be positive",
                        ">= 1 B",
                    ));
                }
                transfer = Some(size.0);
            } else if app.size.is_some() {
                return Err(Error::invalid(p("app.size"), "only a transfer has a size"));
            }
            edges.push((start, true));
        }
        AppKind::Onoff => {
            if app.size.is_some() {
                return Err(Error::invalid(p("app.size"), "only a transfer has a size"));
            }
            let sched = app.schedule.clone().ok_or_else(|| {
                Error::invalid(p("app.schedule"), "required for onoff: [[on, off], ...]")
            })?;
            let mut last = SimDuration::ZERO;
            for (k, &(on, off)) in sched.iter().enumerate() {
                if off <= on || (k > 0 && on < last) {
                    return Err(Error::invalid(
                        format!("flows[{i}].app.schedule[{k}]"),
                        format!(
                            "windows must be increasing and not overlap: [{on}, {off}] after \
                             a window ending at {last}"
                        ),
                    ));
                }
                last = off;
                edges.push((SimTime::ZERO + on, true));
                edges.push((SimTime::ZERO + off, false));
            }
        }
    }
    if let Some(stop) = f.stop {
        let stop = SimTime::ZERO + stop;
        edges.retain(|e| e.0 < stop);
        edges.push((stop, false));
    }
    edges.sort_by_key(|e| e.0);

    let mut snd = Sender::new(cfg.clone(), built.cc);
    if trace.contains(&TraceKind::Events) {
        snd.events = Some(Vec::new());
    }
    let series = TraceKind::TCP_SERIES
        .iter()
        .filter(|k| trace.contains(k))
        .map(|&kind| TcpSeries {
            kind,
            times: Vec::new(),
            values: Vec::new(),
        })
        .collect();
    Ok(TcpFlow {
        snd,
        rcv: Receiver::new(&cfg),
        edges,
        next_edge: 0,
        opened: false,
        transfer,
        completion: None,
        series,
        rtt_samples: 0,
        cc_name: variant,
        custom_cc,
    })
}
