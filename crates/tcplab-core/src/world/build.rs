// SPDX-License-Identifier: MIT OR Apache-2.0
//! Building the world from a checked plan: the link directions, the nodes,
//! and the flows with their connections.
//!
//! A large network's links and flows are built on two threads: each is
//! mostly first touches of fresh memory (at a million flows, 1.3 GB of link
//! directions on one side and 1.2 GB of flows and connections on the
//! other), and neither reads what the other builds. Each side builds
//! exactly what it builds alone, so the world is the same either way.

use super::*;
use crate::scenario::validate::{LinkEntryPlan, LinkPlan};
use crate::scenario::FlowPlan;

/// What building the links gives: the directions, each link's name and
/// scenario entry, and the trace-driven directions' shapers.
type BuiltLinks = (Vec<LinkDir>, Vec<String>, Vec<u32>, Vec<Shaper>);

/// What building the flows gives: the flows, their connections and each
/// flow's ideal completion time.
type BuiltFlows = (Vec<Flow>, Vec<TcpFlow>, Vec<Option<SimDuration>>);

impl World {
    /// Builds what a checked plan describes.
    pub fn from_plan(plan: Plan) -> Result<World> {
        let large = plan.links.len() + plan.flows.len() >= LARGE;
        World::from_plan_on(plan, large)
    }

    /// As `from_plan`, with the links built on a second thread when
    /// `two_threads`.
    pub(super) fn from_plan_on(plan: Plan, two_threads: bool) -> Result<World> {
        let Plan {
            effective: sc,
            nodes,
            links,
            link_entries,
            flows,
            budget,
            built,
        } = plan;
        let nodes: Vec<Node> = nodes
            .into_iter()
            .map(|n| Node {
                name: n.name,
                routes: n.routes,
            })
            .collect();
        let (seed, run) = (sc.seed, sc.run);
        let ((links, link_names, link_entries, shapers), (flows, tcps, ideal)) = both_if(
            two_threads,
            || build_links(links, &link_entries, &nodes, seed, run),
            || build_flows(flows, &nodes, seed, run),
        );
        let queue = EventQueue::new();
        let packets = Slab::new();
        let timers = vec![FlowTimers::default(); flows.len()];
        let mut world = World {
            sim: Sim {
                now: SimTime::ZERO,
                horizon: sc.duration.map_or(SimTime::MAX, |d| SimTime::ZERO + d),
                delay_percentiles: sc.delay_percentiles,
                queue,
                packets,
            },
            end: sc.duration.map(|d| SimTime::ZERO + d),
            net: Network {
                nodes,
                links,
                link_names,
                link_entries,
                shapers,
                held_drops: Vec::new(),
            },
            ep: Endpoints {
                timers,
                flows,
                tcps,
                ideal,
                scratch: Vec::new(),
                interval_buckets: 0,
            },
            rec: Recording {
                queue_trace: None,
                sojourn_trace: None,
                drop_log: None,
                event_log: None,
                pcap: Vec::new(),
                flow_opts: Vec::new(),
                pcap_rx: false,
                pcap_tx: false,
                series_samples: 0,
                any_series: false,
            },
            events: 0,
            last_activity: SimTime::ZERO,
            wall_seconds: 0.0,
            finished_at: None,
            budget,
            built,
            scenario: sc,
        };
        if world.scenario.traces(TraceKind::Queue) {
            // Every queue starts empty at t = 0.
            let start = (vec![0], vec![0.0]);
            world.rec.queue_trace = Some(vec![start; world.net.links.len()]);
        }
        if world.scenario.traces(TraceKind::Sojourn) {
            world.rec.sojourn_trace = Some(vec![(Vec::new(), Vec::new()); world.net.links.len()]);
        }
        if world.scenario.traces(TraceKind::Drops) {
            world.rec.drop_log = Some(Vec::new());
        }
        if world.scenario.traces(TraceKind::Events) {
            world.rec.event_log = Some(Vec::new());
        }
        world.rec.any_series = world.ep.tcps.iter().any(|t| !t.series.is_empty());
        memory::check_estimate(&world)?;
        for (i, f) in world.ep.flows.iter().enumerate() {
            world.sim.queue.push(f.start, Event::App { flow: i as u32 });
        }
        Ok(world)
    }
}

/// The link directions, two per link (a -> b, then b -> a).
fn build_links(
    plan: Vec<LinkPlan>,
    entries: &[LinkEntryPlan],
    nodes: &[Node],
    seed: u64,
    run: u64,
) -> BuiltLinks {
    let mut links = Vec::with_capacity(2 * plan.len());
    let mut link_names = Vec::with_capacity(plan.len());
    let mut link_entries = Vec::with_capacity(plan.len());
    let mut shapers = Vec::new();
    for (i, l) in plan.into_iter().enumerate() {
        let [fwd, rev] = l.error;
        let shared = &entries[l.entry as usize];
        let [qf, qr] = &shared.queue;
        let [rf, rr] = &shared.rate;
        for (from, to, error, queue, rate) in [(l.a, l.b, fwd, qf, rf), (l.b, l.a, rev, qr, rr)] {
            // A discipline that draws has a stream of its own, named
            // after its link direction as the error models' are.
            let rng = || {
                let name = |n: u32| nodes[n as usize].name.as_str();
                let stream = link_stream(&l.name, name(from), name(to), "queue");
                Rng::stream(seed, run, &stream)
            };
            let kind = match (&rate.trace, &rate.schedule) {
                (Some(t), _) => Some(ShaperKind::Trace(TraceLink::new(t.clone()))),
                (None, Some(s)) => Some(ShaperKind::Schedule(ScheduleLink::new(s.clone()))),
                (None, None) => None,
            };
            let shaper = match kind {
                Some(k) => {
                    shapers.push(Shaper::new(k));
                    shapers.len() as u32 - 1
                }
                None => NO_SHAPER,
            };
            let nominal = rate.nominal;
            links.push(LinkDir {
                link: i as u32,
                shaper,
                to,
                rate: nominal,
                ns_per_byte: nominal.exact_ns_per_byte().unwrap_or(0),
                delay: shared.delay,
                device: queue.device_queue(),
                queue: LinkQueue::new(Qdisc::from_spec(queue, nominal, shared.mtu, rng)),
                error,
                busy_until: SimTime::ZERO,
                tx_packets: 0,
                tx_bytes: 0,
                busy_ns: 0,
                stats: LinkStats::default(),
            });
        }
        link_names.push(l.name);
        link_entries.push(l.entry);
    }
    (links, link_names, link_entries, shapers)
}

/// The flows, each with its source's state and first hop each way.
fn build_flows(plan: Vec<FlowPlan>, nodes: &[Node], seed: u64, run: u64) -> BuiltFlows {
    let ideal = plan.iter().map(|f| f.ideal).collect();
    let n_tcp = plan
        .iter()
        .filter(|f| matches!(f.app, AppPlan::Tcp(_)))
        .count();
    let mut tcps = Vec::with_capacity(n_tcp);
    let flows = plan
        .into_iter()
        .map(|f| {
            let app = match f.app {
                AppPlan::Cbr {
                    interval,
                    payload,
                    count,
                } => App::Cbr(Box::new(Cbr {
                    interval,
                    payload,
                    count,
                    sent: 0,
                })),
                AppPlan::Tcp(mut t) => {
                    // A controller that draws (CDG's backoff) has a
                    // stream of its own, named after its flow.
                    let stream = crate::scenario::concat(&["flow:", &f.name, ":cc"]);
                    t.cc.seed(Rng::stream(seed, run, &stream));
                    tcps.push(TcpFlow::new(*t));
                    App::Tcp(tcps.len() as u32 - 1)
                }
            };
            Flow {
                // Routes are fixed: each endpoint's first hop is looked up once.
                egress: [
                    nodes[f.src as usize].routes.next(f.dst),
                    nodes[f.dst as usize].routes.next(f.src),
                ],
                name: f.name,
                kind: f.kind,
                src: f.src,
                dst: f.dst,
                start: f.start,
                stop: f.stop,
                app,
                stats: FlowStats::default(),
                delays: None,
                per_interval: Vec::new(),
            }
        })
        .collect();
    (flows, tcps, ideal)
}
