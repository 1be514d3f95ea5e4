// SPDX-License-Identifier: MIT OR Apache-2.0
//! Checking a whole scenario before anything runs, and laying it out as a
//! [`Plan`]: nodes with their routes, links, flows with their resolved
//! applications and TCP configurations, error models. Every mistake is
//! refused here with the path of its field; the world builds what the plan
//! says and checks nothing itself.

use rustc_hash::FxHashMap;

use super::resolve::{self, TcpPlan};
use super::{
    flow_kind_params, FlowKind, FlowSpec, LinkSpec, OneOrMany, PcapSpec, Scenario, TraceSpec,
    DEFAULT_MEMORY_BUDGET,
};
use crate::cc::CustomCc;
use crate::error::{list_names, Error, Result};
use crate::net::error_model::ErrorModel;
use crate::net::packet::{IPV4_HEADER, UDP_HEADER};
use crate::net::qdisc::QueueSpec;
use crate::net::route::{self, RouteTable};
use crate::time::{Rate, SimDuration, SimTime};
use crate::units::{human_bytes, Bytes};

/// A memory budget below this cannot run a network of two hosts.
pub const MIN_MEMORY_BUDGET: u64 = 1 << 20;

/// A scenario checked and laid out for building.
pub struct Plan {
    /// The scenario with every default filled in (what results record).
    pub effective: Scenario,
    pub nodes: Vec<NodePlan>,
    pub links: Vec<LinkPlan>,
    pub flows: Vec<FlowPlan>,
    /// The memory budget, bytes.
    pub budget: u64,
}

pub struct NodePlan {
    pub name: String,
    pub is_host: bool,
    pub routes: RouteTable,
}

/// One full-duplex link; direction 0 is a -> b.
pub struct LinkPlan {
    pub name: String,
    /// Its entry in the scenario's `links`, and its member if a group's.
    pub entry: u32,
    pub member: Option<u32>,
    pub a: u32,
    pub b: u32,
    pub rate: Rate,
    pub delay: SimDuration,
    pub mtu: u32,
    pub queue: QueueSpec,
    /// Per direction, the error model applied on reception.
    pub error: [Option<ErrorModel>; 2],
}

pub struct FlowPlan {
    pub name: String,
    pub kind: FlowKind,
    pub src: u32,
    pub dst: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub app: AppPlan,
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

/// The number of members of a link or flow entry: the length of its lists
/// (which must agree), or 1.
fn members(counts: &[(&str, Option<usize>)], entry: &str) -> Result<usize> {
    let mut n: Option<(usize, &str)> = None;
    for &(field, c) in counts {
        let Some(c) = c else { continue };
        if c == 0 {
            return Err(Error::invalid(
                format!("{entry}.{field}"),
                "an empty list (a group needs at least one member)",
            ));
        }
        match n {
            Some((m, other)) if m != c => {
                return Err(Error::invalid(
                    format!("{entry}.{field}"),
                    format!(
                    "{c} values, but {other} has {m}: a group's lists have one value per member"
                ),
                ))
            }
            _ => n = Some((c, field)),
        }
    }
    Ok(n.map_or(1, |x| x.0))
}

/// The path of a member's value: `flows[3].src[17]`, or `flows[3].src` for
/// a single value.
fn member_path<T>(entry: &str, field: &str, v: &OneOrMany<T>, k: usize) -> String {
    match v {
        OneOrMany::One(_) => format!("{entry}.{field}"),
        OneOrMany::Many(_) => format!("{entry}.{field}[{k}]"),
    }
}

/// As [`plan`], taking the scenario (which becomes the effective one).
pub fn plan_owned(mut sc: Scenario, custom: CustomCc<'_>) -> Result<Plan> {
    let budget = check_top_level(&mut sc)?;
    let mut nodes = check_nodes(&sc)?;
    let node_ids: FxHashMap<&str, u32> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i as u32))
        .collect();
    let find_node = |name: &str, path: &dyn Fn() -> String| -> Result<u32> {
        node_ids.get(name).copied().ok_or_else(|| {
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
    for (i, l) in sc.links.iter_mut().enumerate() {
        let entry = format!("links[{i}]");
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
        for k in 0..n {
            let (a_name, b_name) = (l.a.get(k), l.b.get(k));
            let a = find_node(a_name, &|| member_path(&entry, "a", &l.a, k))?;
            let b = find_node(b_name, &|| member_path(&entry, "b", &l.b, k))?;
            if a == b {
                return Err(Error::invalid(
                    member_path(&entry, "b", &l.b, k),
                    format!("a link joins two different nodes, both ends are '{a_name}'"),
                ));
            }
            let name = match &l.name {
                Some(names) => names.get(k).clone(),
                None => format!("{a_name}-{b_name}"),
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
                rate: l.rate,
                delay: l.delay,
                mtu: l.mtu,
                queue: l.queue,
                error: [None, None],
            });
        }
        if l.name.is_none() && n == 1 && l.a.count().is_none() && l.b.count().is_none() {
            // A single link shows its default name; a group's are "a-b".
            l.name = Some(OneOrMany::One(links[links.len() - 1].name.clone()));
        }
    }

    // Names are unique (checked once all are known: a map that borrows them
    // costs no copy of a million names).
    {
        let mut ids: FxHashMap<&str, u32> =
            FxHashMap::with_capacity_and_hasher(links.len(), Default::default());
        for (id, l) in links.iter().enumerate() {
            if let Some(&prev) = ids.get(l.name.as_str()) {
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
            ids.insert(&l.name, id as u32);
        }
    }
    let ends: Vec<(u32, u32)> = links.iter().map(|l| (l.a, l.b)).collect();
    let adj = route::Adjacency::new(nodes.len(), &ends);
    drop(ends);

    // ---- routes -----------------------------------------------------------
    let is_host: Vec<bool> = nodes.iter().map(|n| n.is_host).collect();
    let mut tables = route::shortest_paths(&adj, &is_host);
    for (i, r) in sc.routes.iter().enumerate() {
        let at = find_node(&r.node, &|| format!("routes[{i}].node"))?;
        let to = find_node(&r.to, &|| format!("routes[{i}].to"))?;
        let next = find_node(&r.next, &|| format!("routes[{i}].next"))?;
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
        let n = members(
            &[
                ("src", f.src.count()),
                ("dst", f.dst.count()),
                ("name", name_count),
                ("start", f.start.count()),
            ],
            &entry,
        )?;
        let group = [f.src.count(), f.dst.count(), name_count, f.start.count()]
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
        // The members' own values, taken out of the entry; the rest is
        // resolved into one copy that every member reuses (resolving fills
        // in the same defaults each time, except the mss, which follows
        // each member's path and is reset for each).
        let src = std::mem::replace(&mut f.src, OneOrMany::One(String::new()));
        let dst = std::mem::replace(&mut f.dst, OneOrMany::One(String::new()));
        let names = f.name.take();
        let starts = std::mem::replace(&mut f.start, OneOrMany::One(SimDuration::ZERO));
        let given_mss = f.mss;
        let mut m = f.clone();
        let mut first_mss = None;
        for k in 0..n {
            let flow = flows.len();
            m.mss = given_mss;
            m.start = OneOrMany::One(*starts.get(k));
            let name = match &names {
                Some(v) => v.get(k).clone(),
                None => format!("{}{flow}", f.kind.name()),
            };
            let name_path = || match &names {
                Some(v) => member_path(&entry, "name", v, k),
                None => p("name"),
            };
            check_name(&name, name_path)?;
            let plan = member(
                MemberCtx {
                    entry: &entry,
                    flow,
                    k,
                    src: &src,
                    dst: &dst,
                    starts: &starts,
                    nodes: &nodes,
                    find_node: &find_node,
                    adj: &adj,
                    tables: &tables,
                    links: &links,
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

    // ---- error models -----------------------------------------------------
    for lp in links.iter_mut() {
        let spec = &sc.links[lp.entry as usize];
        for (dir, field, loss) in [
            (0, "loss", &spec.loss),
            (1, "reverse_loss", &spec.reverse_loss),
        ] {
            let Some(loss) = loss else { continue };
            let (from, to) = if dir == 0 { (lp.a, lp.b) } else { (lp.b, lp.a) };
            let stream = format!(
                "link:{}:{}>{}:{field}",
                lp.name, nodes[from as usize].name, nodes[to as usize].name
            );
            lp.error[dir] = Some(ErrorModel::from_spec(
                &format!("links[{}].{field}", lp.entry),
                loss,
                &flow_ids,
                sc.seed,
                sc.run,
                &stream,
            )?);
        }
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
        flows,
        budget,
    })
}

/// Each `cc:NAME` in `trace` names a quantity some flow's congestion
/// control reports.
fn check_probes(sc: &Scenario, flows: &[FlowPlan]) -> Result<()> {
    for (i, t) in sc.trace.iter().enumerate() {
        let TraceSpec::Probe(name) = t else { continue };
        let mut offered: Vec<String> = Vec::new();
        let mut found = false;
        for f in flows {
            if let AppPlan::Tcp(tcp) = &f.app {
                for p in &tcp.probes {
                    found |= p.name == name.as_str();
                    let item = format!("cc:{} ({}, {})", p.name, tcp.cc_name, p.unit);
                    if !offered.contains(&item) {
                        offered.push(item);
                    }
                }
            }
        }
        if !found {
            return Err(Error::invalid_allowed(
                format!("trace[{i}]"),
                format!("no flow's congestion control reports '{name}'"),
                if offered.is_empty() {
                    "none: no flow's congestion control reports anything of its own".into()
                } else {
                    offered.join(", ")
                },
            ));
        }
    }
    Ok(())
}

/// The run's own fields; returns the memory budget.
fn check_top_level(sc: &mut Scenario) -> Result<u64> {
    if sc.duration.is_some_and(|d| d.is_zero()) {
        return Err(Error::invalid("duration", "must be longer than 0 s"));
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
        .get_or_insert(Bytes(DEFAULT_MEMORY_BUDGET))
        .0;
    if budget < MIN_MEMORY_BUDGET {
        return Err(Error::invalid_allowed(
            "memory_budget",
            format!("{} is too small to run anything", human_bytes(budget)),
            format!("at least {}", human_bytes(MIN_MEMORY_BUDGET)),
        ));
    }
    Ok(budget)
}

/// Hosts and routers: names unique and not empty.
fn check_nodes(sc: &Scenario) -> Result<Vec<NodePlan>> {
    let mut ids: FxHashMap<&str, (bool, usize)> = FxHashMap::default();
    let mut nodes = Vec::with_capacity(sc.hosts.len() + sc.routers.len());
    let declared = sc
        .hosts
        .iter()
        .enumerate()
        .map(|(i, n)| (true, i, n))
        .chain(sc.routers.iter().enumerate().map(|(i, n)| (false, i, n)));
    let path =
        |is_host: bool, i: usize| format!("{}[{i}]", if is_host { "hosts" } else { "routers" });
    for (is_host, i, name) in declared {
        if name.trim().is_empty() {
            return Err(Error::invalid(
                path(is_host, i),
                "a node needs a non-empty name",
            ));
        }
        check_name(name, || path(is_host, i))?;
        if let Some(&(h, j)) = ids.get(name.as_str()) {
            return Err(Error::invalid(
                path(is_host, i),
                format!(
                    "duplicate node name '{name}' (already {}); names must be unique",
                    path(h, j)
                ),
            ));
        }
        ids.insert(name, (is_host, i));
        nodes.push(NodePlan {
            name: name.clone(),
            is_host,
            routes: RouteTable::default(),
        });
    }
    Ok(nodes)
}

/// Names never hold control characters (results join names with NUL, and
/// messages print them).
fn check_name(name: &str, path: impl Fn() -> String) -> Result<()> {
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(Error::invalid_allowed(
            path(),
            format!("{name:?} holds the control character {c:?}"),
            "names of printable characters",
        ));
    }
    if name.trim().is_empty() {
        return Err(Error::invalid(path(), "must not be empty"));
    }
    Ok(())
}

/// Where a link was declared: `links[3]`, or `links[3]` member 17.
fn link_entry_path(l: &LinkPlan) -> String {
    match l.member {
        Some(k) => format!("links[{}], member {k}", l.entry),
        None => format!("links[{}]", l.entry),
    }
}

/// Looks a node up by name; the closure gives the field's path for a
/// message.
type FindNode<'a> = dyn Fn(&str, &dyn Fn() -> String) -> Result<u32> + 'a;

/// What checking one flow needs from the rest of the plan.
struct MemberCtx<'a> {
    entry: &'a str,
    flow: usize,
    k: usize,
    src: &'a OneOrMany<String>,
    dst: &'a OneOrMany<String>,
    starts: &'a OneOrMany<SimDuration>,
    nodes: &'a [NodePlan],
    find_node: &'a FindNode<'a>,
    adj: &'a route::Adjacency,
    tables: &'a [RouteTable],
    links: &'a [LinkPlan],
    link_to: &'a [u32],
    is_host: &'a [bool],
    duration: Option<SimDuration>,
    trace: &'a [TraceSpec],
}

/// Checks one flow (`m`, a single member with the entry's fields) and
/// plans it, filling its defaults into `m`.
fn member(
    c: MemberCtx<'_>,
    m: &mut FlowSpec,
    name: String,
    custom: CustomCc<'_>,
) -> Result<FlowPlan> {
    let entry = c.entry;
    let p = |field: &str| format!("{entry}.{field}");
    let k = c.k;
    let src = (c.find_node)(c.src.get(k), &|| member_path(entry, "src", c.src, k))?;
    let dst = (c.find_node)(c.dst.get(k), &|| member_path(entry, "dst", c.dst, k))?;
    for (field, n, v) in [("src", src, c.src), ("dst", dst, c.dst)] {
        if !c.nodes[n as usize].is_host {
            return Err(Error::invalid(
                member_path(entry, field, v, k),
                format!(
                    "'{}' is a router; flows start and end at hosts",
                    c.nodes[n as usize].name
                ),
            ));
        }
    }
    if src == dst {
        return Err(Error::invalid(
            member_path(entry, "dst", c.dst, k),
            "a flow needs two different hosts",
        ));
    }
    let route_err = |from: u32, to: u32, detail: String| {
        let mut detail = detail;
        if detail.contains("not connected") && route::connected_through_hosts(c.adj, from, to) {
            detail = "they are connected only through a host, and hosts do not forward; \
                      declare the middle node as a router"
                .into();
        }
        Error::Unroutable {
            path: if c.src.count().is_some() || c.dst.count().is_some() {
                format!("{entry}, member {k}")
            } else {
                entry.to_string()
            },
            from: c.nodes[from as usize].name.clone(),
            to: c.nodes[to as usize].name.clone(),
            detail,
        }
    };
    let mut path_mtu = 65535;
    route::walk(c.tables, c.link_to, c.is_host, src, dst, |ld| {
        path_mtu = path_mtu.min(c.links[ld as usize / 2].mtu);
    })
    .map_err(|d| route_err(src, dst, d))?;
    let start = *m.start.get(0);
    if let Some(stop) = m.stop {
        if stop <= start {
            return Err(Error::invalid(
                p("stop"),
                format!("must be after start ({start}), got {stop}"),
            ));
        }
    }
    if let Some(d) = c.duration {
        if start >= d {
            return Err(Error::invalid(
                member_path(entry, "start", c.starts, k),
                format!("{start} is not before the end of the run ({d})"),
            ));
        }
    }
    let kind = m.kind;
    let endless_error = || {
        Error::invalid(
            "duration",
            format!(
                "required: {entry} ('{name}') never ends by itself (give it a stop time{}), so \
                 the run would never end",
                if kind == FlowKind::Udp {
                    " or a count"
                } else {
                    " or a transfer size"
                }
            ),
        )
    };
    let app = match m.kind {
        FlowKind::Udp => {
            let rate = m.rate.ok_or_else(|| {
                Error::invalid(p("rate"), "required for a udp flow (e.g. '1.5Mbps')")
            })?;
            let size = m.size.get_or_insert(Bytes(1000)).0;
            let max = path_mtu.saturating_sub(IPV4_HEADER + UDP_HEADER) as u64;
            if size == 0 || size > max {
                return Err(Error::invalid_allowed(
                    p("size"),
                    format!(
                        "{size} B of payload does not fit: the smallest MTU on the path is \
                         {path_mtu} B, less 28 B of IPv4 and UDP headers"
                    ),
                    format!("1 to {max} B"),
                ));
            }
            if m.count == Some(0) {
                return Err(Error::invalid_allowed(
                    p("count"),
                    "must be positive",
                    ">= 1",
                ));
            }
            if c.duration.is_none() && m.stop.is_none() && m.count.is_none() {
                return Err(endless_error());
            }
            AppPlan::Cbr {
                interval: rate.interval(size),
                payload: size as u32,
                count: m.count,
            }
        }
        FlowKind::Tcp => {
            route::walk(c.tables, c.link_to, c.is_host, dst, src, |_| {})
                .map_err(|d| route_err(dst, src, format!("for the ACKs: {d}")))?;
            let tcp = resolve::tcp(c.flow, entry, m, path_mtu, c.trace, custom)?;
            let endless =
                tcp.transfer.is_none() && m.stop.is_none() && tcp.edges.last().is_none_or(|e| e.1);
            if c.duration.is_none() && endless {
                return Err(endless_error());
            }
            AppPlan::Tcp(Box::new(tcp))
        }
    };
    Ok(FlowPlan {
        name,
        kind: m.kind,
        src,
        dst,
        start: SimTime::ZERO + start,
        stop: m.stop.map(|s| SimTime::ZERO + s),
        app,
    })
}

/// The trace request (files are created only when the run starts, so
/// checking a scenario never touches them).
fn check_pcap(spec: &PcapSpec, links: &[LinkPlan]) -> Result<()> {
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
            if !links.iter().any(|l| &l.name == n) {
                return Err(Error::invalid_allowed(
                    format!("pcap.links[{i}]"),
                    format!("unknown link '{n}'"),
                    list_names(links.iter().map(|l| &l.name)),
                ));
            }
        }
    }
    Ok(())
}
