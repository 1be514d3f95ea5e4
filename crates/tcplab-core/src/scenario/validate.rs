// SPDX-License-Identifier: MIT OR Apache-2.0
//! Checking a whole scenario before anything runs, and laying it out as a
//! [`Plan`]: nodes with their routes, links, flows with their resolved
//! applications and TCP configurations, error models. Every mistake is
//! refused here with the path of its field; the world builds what the plan
//! says and checks nothing itself.

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use super::budget::{self, Budget, Built};
use super::checks::{check_name, check_nodes, check_pcap, check_probes, check_top_level, Guess};
use super::member::{member, member_path, members, MemberCtx};
use super::reception;
use super::resolve::TcpPlan;
use super::{
    add_schedule, concat, flow_kind_params, workload, AppKind, FlowKind, FlowSpec, LinkRate,
    LinkSpec, OneOrMany, Scenario, TraceFiles,
};
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

    // ---- links ------------------------------------------------------------
    // Sized for every member at once: a million links would otherwise be
    // copied some twenty times as the vector grows.
    let n_links: usize = sc.links.iter().map(LinkSpec::members).sum();
    let mut links: Vec<LinkPlan> = Vec::with_capacity(n_links);
    let mut link_entries: Vec<LinkEntryPlan> = Vec::with_capacity(sc.links.len());
    let mut trace_files = TraceFiles::default();
    for (i, l) in sc.links.iter_mut().enumerate() {
        let entry = format!("links[{i}]");
        // Each direction's rate: a trace is read (once per file) here.
        let fwd_rate = trace_files.resolve(&l.rate, &format!("{entry}.rate"), &mut budget)?;
        let mut rev_rate = match &l.reverse_rate {
            Some(r) => trace_files.resolve(r, &format!("{entry}.reverse_rate"), &mut budget)?,
            None => fwd_rate.clone(),
        };
        let mut fwd_rate = fwd_rate;
        let outage = l.outage.unwrap_or_default();
        for (rate, field, entries) in [
            (&mut fwd_rate, "schedule", &l.schedule),
            (&mut rev_rate, "reverse_schedule", &l.reverse_schedule),
        ] {
            if let Some(entries) = entries {
                add_schedule(rate, entries, l.delay, outage, &format!("{entry}.{field}"))?;
            }
        }
        // A device queue releases packets as a fixed-rate link starts them;
        // a capacity trace or schedule plans its own starts.
        let rev_queue = l.reverse_queue.as_ref().unwrap_or(&l.queue);
        for (rate, queue, field) in [
            (&fwd_rate, &l.queue, "queue"),
            (
                &rev_rate,
                rev_queue,
                if l.reverse_queue.is_some() {
                    "reverse_queue"
                } else {
                    "queue"
                },
            ),
        ] {
            if queue.device_queue() > 0 && (rate.trace.is_some() || rate.schedule.is_some()) {
                return Err(Error::invalid_allowed(
                    format!("{entry}.{field}.device_queue"),
                    "a device queue on a direction whose rate follows a trace or a schedule",
                    "device_queue on a fixed-rate direction",
                ));
            }
        }
        let name_count = l.name.as_ref().and_then(|x| x.count());
        let n = members(
            &[("a", l.a.count()), ("b", l.b.count()), ("name", name_count)],
            &entry,
        )?;
        if !(68..=65535).contains(&l.mtu) {
            return Err(Error::invalid_allowed(
                format!("{entry}.mtu"),
                format!("{} B is not a valid IPv4 MTU", l.mtu),
                "68 to 65535 bytes",
            ));
        }
        let (guess_a, guess_b) = (Guess::default(), Guess::default());
        for k in 0..n {
            let (a_name, b_name) = (l.a.get(k), l.b.get(k));
            let a = find_node(a_name, &guess_a, &|| member_path(&entry, "a", &l.a, k))?;
            let b = find_node(b_name, &guess_b, &|| member_path(&entry, "b", &l.b, k))?;
            if a == b {
                return Err(Error::invalid(
                    member_path(&entry, "b", &l.b, k),
                    format!("a link joins two different nodes, both ends are '{a_name}'"),
                ));
            }
            let name = match &l.name {
                Some(names) => names.get(k).clone(),
                None => concat(&[a_name, "-", b_name]),
            };
            let name_path = || match &l.name {
                Some(names) => member_path(&entry, "name", names, k),
                None => format!("{entry}.name"),
            };
            check_name(&name, name_path)?;
            links.push(LinkPlan {
                name,
                entry: i as u32,
                member: (n > 1 || l.a.count().is_some() || l.b.count().is_some())
                    .then_some(k as u32),
                a,
                b,
                error: [None, None],
            });
        }
        link_entries.push(LinkEntryPlan {
            rate: [fwd_rate, rev_rate],
            delay: l.delay,
            mtu: l.mtu,
            queue: [l.queue.clone(), rev_queue.clone()],
        });
        if l.name.is_none() && n == 1 && l.a.count().is_none() && l.b.count().is_none() {
            // A single link shows its default name; a group's are "a-b".
            l.name = Some(OneOrMany::One(links[links.len() - 1].name.clone()));
        }
    }

    // Names are unique (checked once all are known: a map that borrows them
    // costs no copy of a million names).
    {
        let mut ids = super::names::NameTable::with_capacity(links.len());
        let name_of = |i: u32| links[i as usize].name.as_str();
        for (id, l) in links.iter().enumerate() {
            // One probe per name: the insert tells of an earlier one.
            if let Some(prev) = ids.insert(&l.name, id as u32, name_of) {
                let spec = &sc.links[l.entry as usize];
                let path = match (&spec.name, l.member) {
                    (Some(names @ OneOrMany::Many(_)), Some(k)) => {
                        member_path(&format!("links[{}]", l.entry), "name", names, k as usize)
                    }
                    _ => format!("links[{}].name", l.entry),
                };
                return Err(Error::invalid(
                    path,
                    format!(
                        "duplicate link name '{}' (also {}); give parallel links distinct names",
                        l.name,
                        link_entry_path(&links[prev as usize])
                    ),
                ));
            }
        }
    }
    let ends: Vec<(u32, u32)> = links.iter().map(|l| (l.a, l.b)).collect();
    let adj = route::Adjacency::new(nodes.len(), &ends);
    drop(ends);
    let multi = (0..nodes.len() as u32)
        .filter(|&n| adj.of(n).len() > 1)
        .count();
    budget::count_routes(&mut budget, nodes.len(), multi, sc.routes.len())?;

    // ---- routes -----------------------------------------------------------
    let is_host: Vec<bool> = nodes.iter().map(|n| n.is_host).collect();
    let mut tables = route::shortest_paths(&adj, &is_host);
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
    // The far end of each link direction.
    let link_to: Vec<u32> = links.iter().flat_map(|l| [l.b, l.a]).collect();

    // ---- flows ------------------------------------------------------------
    let n_flows: usize = sc.flows.iter().map(FlowSpec::members).sum();
    let mut flows = Vec::with_capacity(n_flows);
    // Each flow's entry and member (for messages about its name).
    let mut origin: Vec<(u32, u32)> = Vec::with_capacity(n_flows);
    let duration = sc.duration;
    for (i, f) in sc.flows.iter_mut().enumerate() {
        let entry = format!("flows[{i}]");
        let p = |field: &str| format!("{entry}.{field}");
        let name_count = f.name.as_ref().and_then(|x| x.count());
        let poisson = f.app.as_ref().is_some_and(|a| a.kind == AppKind::Poisson);
        let n = if poisson {
            1
        } else {
            members(
                &[
                    ("src", f.src.count()),
                    ("dst", f.dst.count()),
                    ("name", name_count),
                    ("start", f.start.count()),
                ],
                &entry,
            )?
        };
        let group = poisson
            || [f.src.count(), f.dst.count(), name_count, f.start.count()]
                .iter()
                .any(Option::is_some);
        for (field, is_set) in f.kind_fields() {
            if is_set && !flow_kind_params(f.kind).contains(&field) {
                return Err(Error::invalid_allowed(
                    p(field),
                    format!("not a parameter of a {} flow", f.kind.name()),
                    flow_kind_params(f.kind).join(", "),
                ));
            }
        }
        if group && f.cc.as_ref().is_some_and(|c| c.name == "python") {
            return Err(Error::invalid_allowed(
                p("cc"),
                "a variant written in Python drives one flow, not a group",
                "a built-in variant for a group, or one flow per controller",
            ));
        }
        // A workload becomes a group of transfers, one per arrival.
        let expanded = if poisson {
            let bottleneck = |a: &str, b: &str| -> Result<u64> {
                let guess = Guess::default();
                let s = find_node(a, &guess, &|| p("src"))?;
                let d = find_node(b, &guess, &|| p("dst"))?;
                let mut c = u64::MAX;
                route::walk(&tables, &link_to, &is_host, s, d, |ld| {
                    let entry = &link_entries[links[ld as usize / 2].entry as usize];
                    c = c.min(entry.rate[ld as usize % 2].nominal.bps());
                })
                .map_err(|detail| Error::Unroutable {
                    path: entry.clone(),
                    from: a.to_string(),
                    to: b.to_string(),
                    detail,
                })?;
                Ok(c)
            };
            let stream = match &f.name {
                Some(OneOrMany::One(n)) => format!("workload:{n}"),
                _ => format!("workload:{i}"),
            };
            let mut rng = crate::rng::Rng::stream(sc.seed, sc.run, &stream);
            Some(workload::expand(
                &entry,
                f,
                &mut rng,
                duration,
                &bottleneck,
                &mut budget,
            )?)
        } else {
            None
        };
        let original = expanded.as_ref().map(|_| f.clone());
        let (n, sizes) = match expanded {
            Some(x) => {
                f.src = x.src;
                f.dst = x.dst;
                f.start = x.starts;
                f.name = x.names;
                (x.sizes.len(), x.sizes)
            }
            None => (n, Vec::new()),
        };
        // The members' own values, taken out of the entry; the rest is
        // resolved into one copy that every member reuses (resolving fills
        // in the same defaults each time, except the mss, which follows
        // each member's path and is reset for each).
        let src = std::mem::replace(&mut f.src, OneOrMany::One(String::new()));
        let dst = std::mem::replace(&mut f.dst, OneOrMany::One(String::new()));
        let names = f.name.take();
        let starts = std::mem::replace(&mut f.start, OneOrMany::One(SimDuration::ZERO));
        let given_mss = f.mss;
        if f.start_jitter.is_some_and(|j| j.is_zero()) {
            return Err(Error::invalid_allowed(
                p("start_jitter"),
                "0 s spreads nothing",
                "a duration longer than 0 s, or leave it out",
            ));
        }
        let mut m = f.clone();
        let mut first_mss = None;
        let guesses = [Guess::default(), Guess::default()];
        let tcp_proto = RefCell::new(None);
        for k in 0..n {
            let flow = flows.len();
            m.mss = given_mss;
            let name = match &names {
                Some(v) => v.get(k).clone(),
                None => concat(&[f.kind.name(), &flow.to_string()]),
            };
            if !sizes.is_empty() {
                m.app = Some(workload::transfer(sizes[k]));
            }
            let start = *starts.get(k);
            let jitter = match f.start_jitter {
                None => SimDuration::ZERO,
                Some(j) => {
                    if let Some(end) = duration.filter(|&d| start + j > d) {
                        return Err(Error::invalid(
                            p("start_jitter"),
                            format!(
                                "a start of {start} plus up to {j} may fall after the end of \
                                 the run ({end})"
                            ),
                        ));
                    }
                    start_jitter(sc.seed, sc.run, &name, j)
                }
            };
            m.start = OneOrMany::One(start + jitter);
            let name_path = || match &names {
                Some(v) => member_path(&entry, "name", v, k),
                None => p("name"),
            };
            check_name(&name, name_path)?;
            let plan = member(
                MemberCtx {
                    entry: &entry,
                    entry_index: i,
                    k,
                    src: &src,
                    dst: &dst,
                    starts: &starts,
                    nodes: &nodes,
                    find_node: &find_node,
                    guesses: &guesses,
                    tcp_proto: (group && sizes.is_empty()).then_some(&tcp_proto),
                    adj: &adj,
                    tables: &tables,
                    links: &links,
                    link_entries: &link_entries,
                    link_to: &link_to,
                    is_host: &is_host,
                    duration,
                    trace: &sc.trace,
                },
                &mut m,
                name,
                custom,
            )?;
            flows.push(plan);
            origin.push((i as u32, k as u32));
            match first_mss {
                None => first_mss = Some(m.mss),
                Some(first) if first != m.mss => {
                    return Err(Error::invalid_allowed(
                        p("mss"),
                        format!(
                            "the group's flows have paths with different MTUs ({} and {} of \
                             payload for its first flow and flow {k})",
                            first.map_or(0, |b| b.0),
                            m.mss.map_or(0, |b| b.0)
                        ),
                        "an mss set for the group, or groups of flows over alike paths",
                    ))
                }
                Some(_) => {}
            }
        }
        // The entry shows the defaults its flows resolved to.
        let mut eff = m;
        eff.src = src;
        eff.dst = dst;
        eff.start = starts;
        eff.name =
            names.or_else(|| (!group).then(|| OneOrMany::One(flows[flows.len() - 1].name.clone())));
        if let Some(o) = original {
            // A workload shows as written, with its flows' resolved defaults.
            (eff.src, eff.dst, eff.start, eff.name, eff.app) =
                (o.src, o.dst, o.start, o.name, o.app);
        }
        *f = eff;
    }

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

    // ---- what each direction does to a packet on arrival ---------------------
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

/// Where a link was declared: `links[3]`, or `links[3]` member 17.
fn link_entry_path(l: &LinkPlan) -> String {
    match l.member {
        Some(k) => format!("links[{}], member {k}", l.entry),
        None => format!("links[{}]", l.entry),
    }
}

/// Flow `name`'s random start delay: uniform over the whole nanoseconds
/// in [0, `jitter`), from its own stream, so that adding a flow leaves the
/// others' draws alone.
fn start_jitter(seed: u64, run: u64, name: &str, jitter: SimDuration) -> SimDuration {
    let mut rng = crate::rng::Rng::stream(seed, run, &format!("start:{name}"));
    let ns = ((rng.next_u64() as u128 * jitter.as_nanos() as u128) >> 64) as u64;
    SimDuration::from_nanos(ns)
}
