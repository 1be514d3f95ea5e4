// SPDX-License-Identifier: MIT OR Apache-2.0
//! The checks of a scenario that stand apart from laying it out: the run's
//! own fields, the node names, the names of everything, the probes a trace
//! asks for, the packet-trace request.

use rustc_hash::FxHashMap;

use super::validate::{AppPlan, FlowPlan, LinkPlan, NodePlan, MIN_MEMORY_BUDGET};
use super::{PcapSpec, Scenario, TraceSpec, DEFAULT_MEMORY_BUDGET};
use crate::error::{list_names, Error, Result};
use crate::net::route::RouteTable;
use crate::units::{human_bytes, Bytes};

/// Each `cc:NAME` in `trace` names a quantity some flow's congestion
/// control reports.
pub(super) fn check_probes(sc: &Scenario, flows: &[FlowPlan]) -> Result<()> {
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
pub(super) fn check_top_level(sc: &mut Scenario) -> Result<u64> {
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
pub(super) fn check_nodes(sc: &Scenario) -> Result<Vec<NodePlan>> {
    let mut ids: FxHashMap<&str, (bool, usize)> =
        FxHashMap::with_capacity_and_hasher(sc.hosts.len() + sc.routers.len(), Default::default());
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
pub(super) fn check_name(name: &str, path: impl Fn() -> String) -> Result<()> {
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

/// The trace request (files are created only when the run starts, so
/// checking a scenario never touches them).
pub(super) fn check_pcap(spec: &PcapSpec, links: &[LinkPlan]) -> Result<()> {
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
