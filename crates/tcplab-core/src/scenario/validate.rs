// SPDX-License-Identifier: MIT OR Apache-2.0
//! Checking a whole scenario before anything runs, and laying it out as a
//! [`Plan`]: nodes with their routes, links, flows with their resolved
//! applications and TCP configurations, error models. Every mistake is
//! refused here with the path of its field; the world builds what the plan
//! says and checks nothing itself.

use std::collections::HashMap;

use super::resolve::{self, TcpPlan};
use super::{flow_kind_params, FlowKind, PcapSpec, Scenario, TraceSpec, DEFAULT_MEMORY_BUDGET};
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
    let mut sc = scenario.clone();
    let budget = check_top_level(&mut sc)?;
    let (mut nodes, node_ids) = check_nodes(&sc)?;
    let find_node = |path: String, name: &str| -> Result<u32> {
        node_ids.get(name).copied().ok_or_else(|| {
            Error::invalid_allowed(
                path,
                format!("unknown node '{name}'"),
                list_names(nodes.iter().map(|n| &n.name)),
            )
        })
    };

    // ---- links ------------------------------------------------------------
    let mut links: Vec<LinkPlan> = Vec::new();
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
        for (dir, (from, to)) in [(a, b), (b, a)].into_iter().enumerate() {
            adj[from as usize].push(((2 * i + dir) as u32, to));
        }
        links.push(LinkPlan {
            name,
            a,
            b,
            rate: l.rate,
            delay: l.delay,
            mtu: l.mtu,
            queue: l.queue,
            error: [None, None],
        });
    }

    // ---- routes -----------------------------------------------------------
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
    // The far end of each link direction.
    let link_to: Vec<u32> = links.iter().flat_map(|l| [l.b, l.a]).collect();

    // ---- flows ------------------------------------------------------------
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
            if detail.contains("not connected") && route::connected_through_hosts(&adj, from, to) {
                detail = "they are connected only through a host, and hosts do not forward; \
                          declare the middle node as a router"
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
            .map(|&ld| links[ld as usize / 2].mtu)
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
                            "{size} B of payload does not fit: the smallest MTU on the path is \
                             {path_mtu} B, less 28 B of IPv4 and UDP headers"
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
                AppPlan::Cbr {
                    interval: rate.interval(size),
                    payload: size as u32,
                    count: f.count,
                }
            }
            FlowKind::Tcp => {
                route::path(&tables, &link_to, &is_host, dst, src)
                    .map_err(|d| route_err(dst, src, format!("for the ACKs: {d}")))?;
                let tcp = resolve::tcp(i, f, path_mtu, &sc.trace, custom)?;
                let endless = tcp.transfer.is_none()
                    && f.stop.is_none()
                    && tcp.edges.last().is_none_or(|e| e.1);
                if sc.duration.is_none() && endless {
                    return Err(endless_error());
                }
                AppPlan::Tcp(Box::new(tcp))
            }
        };
        flows.push(FlowPlan {
            name,
            kind: f.kind,
            src,
            dst,
            start: SimTime::ZERO + f.start,
            stop: f.stop.map(|s| SimTime::ZERO + s),
            app,
        });
    }

    check_probes(&sc, &flows)?;

    // ---- error models -----------------------------------------------------
    for (i, l) in sc.links.iter().enumerate() {
        for (dir, field, spec) in [(0, "loss", &l.loss), (1, "reverse_loss", &l.reverse_loss)] {
            let Some(spec) = spec else { continue };
            let lp = &links[i];
            let (from, to) = if dir == 0 { (lp.a, lp.b) } else { (lp.b, lp.a) };
            let stream = format!(
                "link:{}:{}>{}:{field}",
                lp.name, nodes[from as usize].name, nodes[to as usize].name
            );
            let model = ErrorModel::from_spec(
                &format!("links[{i}].{field}"),
                spec,
                &flow_ids,
                sc.seed,
                sc.run,
                &stream,
            )?;
            links[i].error[dir] = Some(model);
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
fn check_nodes(sc: &Scenario) -> Result<(Vec<NodePlan>, HashMap<String, u32>)> {
    let mut ids: HashMap<String, u32> = HashMap::new();
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
        if let Some(&prev) = ids.get(name) {
            return Err(Error::invalid(
                path,
                format!(
                    "duplicate node name '{name}' (already {}); names must be unique",
                    where_declared[prev as usize]
                ),
            ));
        }
        ids.insert(name.clone(), nodes.len() as u32);
        where_declared.push(path);
        nodes.push(NodePlan {
            name: name.clone(),
            is_host,
            routes: RouteTable::default(),
        });
    }
    Ok((nodes, ids))
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
