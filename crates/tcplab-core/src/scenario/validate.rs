// SPDX-License-Identifier: MIT OR Apache-2.0
//! Checking a whole scenario before anything runs, and laying it out as a
//! [`Plan`]: nodes with their routes, links, flows with their resolved
//! applications and TCP configurations, error models. Every mistake is
//! refused here with the path of its field; the world builds what the plan
//! says and checks nothing itself.

use rustc_hash::FxHashMap;

use super::budget::{self, Budget, Built};
use super::checks::{check_nodes, check_pcap, check_probes, check_top_level, Guess};
use super::member::Net;
use super::member::{member_path, FindNode};
use super::plan_flows::{plan_flows, Run};
use super::plan_links::plan_links;
use super::reception;
use super::resolve::TcpPlan;
use super::{FlowKind, LinkRate, OneOrMany, Scenario};
use crate::cc::CustomCc;
use crate::error::{list_names, Error, Result};
use crate::net::error_model::ErrorModel;
use crate::net::qdisc::QueueSpec;
use crate::net::route::{self, RouteTable};
use crate::time::{SimDuration, SimTime};

/// A memory budget below this cannot run a network of two hosts.
pub const MIN_MEMORY_BUDGET: u64 = 1 << 20;

/// A scenario checked and laid out for building.
pub struct Plan {
    /// The scenario with every default filled in (what results record).
    pub effective: Scenario,
    pub nodes: Vec<NodePlan>,
    pub links: Vec<LinkPlan>,
    /// Per entry of the scenario's `links`: what its members share.
    pub link_entries: Vec<LinkEntryPlan>,
    pub flows: Vec<FlowPlan>,
    /// The memory budget, bytes.
    pub budget: u64,
    /// What the network built from the plan is estimated to hold.
    pub built: Built,
}

pub struct NodePlan {
    pub name: String,
    pub is_host: bool,
    pub routes: RouteTable,
}

/// What every member of one entry of the scenario's `links` shares (kept
/// once per entry: a group of a million links holds one copy).
pub struct LinkEntryPlan {
    /// Per direction (0: a -> b), the rate or capacity trace.
    pub rate: [LinkRate; 2],
    pub delay: SimDuration,
    pub mtu: u32,
    /// Per direction (0: a -> b), the egress queue's discipline.
    pub queue: [QueueSpec; 2],
}

/// One full-duplex link; direction 0 is a -> b.
pub struct LinkPlan {
    pub name: String,
    /// Its entry in the scenario's `links` (and in [`Plan::link_entries`]),
    /// and its member if a group's.
    pub entry: u32,
    pub member: Option<u32>,
    pub a: u32,
    pub b: u32,
    /// Per direction, the error model applied on reception (boxed: most
    /// links have none).
    pub error: [Option<Box<ErrorModel>>; 2],
}

pub struct FlowPlan {
    pub name: String,
    pub kind: FlowKind,
    pub src: u32,
    pub dst: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub app: AppPlan,
    /// A TCP transfer's completion time alone on its path (see
    /// `ideal::completion`): its slowdown's denominator.
    pub ideal: Option<SimDuration>,
}

pub enum AppPlan {
    /// A UDP constant-bit-rate source.
    Cbr {
        interval: SimDuration,
        payload: u32,
        count: Option<u64>,
    },
    Tcp(Box<TcpPlan>),
}

/// Checks `scenario` completely and lays it out; `custom` supplies the
/// user-written controllers of flows whose `cc` is "python".
pub fn plan(scenario: &Scenario, custom: CustomCc<'_>) -> Result<Plan> {
    plan_owned(scenario.clone(), custom)
}

/// As [`plan`], taking the scenario (which becomes the effective one).
pub fn plan_owned(mut sc: Scenario, custom: CustomCc<'_>) -> Result<Plan> {
    let limit = check_top_level(&mut sc)?;
    // What the network will hold, counted before any of it is built.
    let mut budget = Budget::new(limit);
    budget::count_network(&sc, &mut budget)?;
    let (mut nodes, node_ids) = check_nodes(&sc.hosts, &sc.routers)?;
    let find_node = |name: &str, guess: &Guess, path: &dyn Fn() -> String| -> Result<u32> {
        node_ids.find(&nodes, name, guess).ok_or_else(|| {
            Error::invalid_allowed(
                path(),
                format!("unknown node '{name}'"),
                list_names(nodes.iter().map(|n| &n.name)),
            )
        })
    };
    let (mut links, link_entries) = plan_links(&mut sc.links, &find_node, &mut budget)?;
    let ends: Vec<(u32, u32)> = links.iter().map(|l| (l.a, l.b)).collect();
    let adj = route::Adjacency::new(nodes.len(), &ends);
    drop(ends);
    let multi = (0..nodes.len() as u32)
        .filter(|&n| adj.of(n).len() > 1)
        .count();
    budget::count_routes(&mut budget, nodes.len(), multi, sc.routes.len())?;

    let is_host: Vec<bool> = nodes.iter().map(|n| n.is_host).collect();
    let tables = routes(&sc, &adj, &nodes, &find_node, &is_host)?;
    // The far end of each link direction.
    let link_to: Vec<u32> = links.iter().flat_map(|l| [l.b, l.a]).collect();

    let net = Net {
        nodes: &nodes,
        find_node: &find_node,
        adj: &adj,
        tables: &tables,
        links: &links,
        link_entries: &link_entries,
        link_to: &link_to,
        is_host: &is_host,
    };
    let run = Run {
        seed: sc.seed,
        run: sc.run,
        duration: sc.duration,
        trace: &sc.trace,
    };
    let (flows, origin) = plan_flows(&mut sc.flows, run, &net, &mut budget, custom)?;
    check_probes(&sc, &flows)?;
    // Names are unique (checked once all are known, as for links).
    let mut flow_ids: FxHashMap<&str, u32> =
        FxHashMap::with_capacity_and_hasher(flows.len(), Default::default());
    for (id, f) in flows.iter().enumerate() {
        if flow_ids.insert(&f.name, id as u32).is_some() {
            let (e, k) = origin[id];
            let path = match &sc.flows[e as usize].name {
                Some(names @ OneOrMany::Many(_)) => {
                    member_path(&format!("flows[{e}]"), "name", names, k as usize)
                }
                _ => format!("flows[{e}].name"),
            };
            return Err(Error::invalid(
                path,
                format!("duplicate flow name '{}'", f.name),
            ));
        }
    }

    // What each direction does to a packet on arrival.
    for lp in links.iter_mut() {
        let spec = &sc.links[lp.entry as usize];
        let shared = &link_entries[lp.entry as usize];
        reception::build(lp, spec, shared, &nodes, &flow_ids, sc.seed, sc.run)?;
    }
    for (n, t) in nodes.iter_mut().zip(tables) {
        n.routes = t;
    }
    if let Some(spec) = &sc.pcap {
        check_pcap(spec, &links)?;
    }
    Ok(Plan {
        effective: sc,
        nodes,
        links,
        link_entries,
        flows,
        budget: limit,
        built: budget.built(),
    })
}

/// The routing tables: shortest paths over `adj`, then the scenario's own
/// routes.
fn routes(
    sc: &Scenario,
    adj: &route::Adjacency,
    nodes: &[NodePlan],
    find_node: &FindNode<'_>,
    is_host: &[bool],
) -> Result<Vec<RouteTable>> {
    let mut tables = route::shortest_paths(adj, is_host);
    for (i, r) in sc.routes.iter().enumerate() {
        let guess = Guess::default();
        let at = find_node(&r.node, &guess, &|| format!("routes[{i}].node"))?;
        let to = find_node(&r.to, &guess, &|| format!("routes[{i}].to"))?;
        let next = find_node(&r.next, &guess, &|| format!("routes[{i}].next"))?;
        let ld = adj
            .of(at)
            .iter()
            .find(|&&(_, nb)| nb == next)
            .map(|&(ld, _)| ld);
        let Some(ld) = ld else {
            let nbs: Vec<String> = adj
                .of(at)
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
    Ok(tables)
}

/// Where a link was declared: `links[3]`, or `links[3]` member 17.
pub(super) fn link_entry_path(l: &LinkPlan) -> String {
    match l.member {
        Some(k) => format!("links[{}], member {k}", l.entry),
        None => format!("links[{}]", l.entry),
    }
}

/// Flow `name`'s random start delay: uniform over the whole nanoseconds
/// in [0, `jitter`), from its own stream, so that adding a flow leaves the
/// others' draws alone.
pub(super) fn start_jitter(seed: u64, run: u64, name: &str, jitter: SimDuration) -> SimDuration {
    let mut rng = crate::rng::Rng::stream(seed, run, &format!("start:{name}"));
    let ns = ((rng.next_u64() as u128 * jitter.as_nanos() as u128) >> 64) as u64;
    SimDuration::from_nanos(ns)
}
