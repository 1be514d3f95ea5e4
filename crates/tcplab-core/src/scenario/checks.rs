// SPDX-License-Identifier: MIT OR Apache-2.0
//! The checks of a scenario that stand apart from laying it out: the run's
//! own fields, the node names, the names of everything, the probes a trace
//! asks for, the packet-trace request.

use std::cell::Cell;

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

/// Hosts and routers: names unique and not empty. Gives the nodes (hosts
/// first) and each name's index among them.
pub(super) fn check_nodes<'a>(
    hosts: &'a [String],
    routers: &'a [String],
) -> Result<(Vec<NodePlan>, NodeIds<'a>)> {
    let mut ids: FxHashMap<&str, u32> =
        FxHashMap::with_capacity_and_hasher(hosts.len() + routers.len(), Default::default());
    let mut nodes = Vec::with_capacity(hosts.len() + routers.len());
    let declared = hosts
        .iter()
        .enumerate()
        .map(|(i, n)| (true, i, n))
        .chain(routers.iter().enumerate().map(|(i, n)| (false, i, n)));
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
        // One probe per name: the insert tells of an earlier one.
        if let Some(j) = ids.insert(name, nodes.len() as u32) {
            let j = j as usize;
            let earlier = if j < hosts.len() {
                path(true, j)
            } else {
                path(false, j - hosts.len())
            };
            return Err(Error::invalid(
                path(is_host, i),
                format!("duplicate node name '{name}' (already {earlier}); names must be unique"),
            ));
        }
        nodes.push(NodePlan {
            name: name.clone(),
            is_host,
            routes: RouteTable::default(),
        });
    }
    Ok((nodes, NodeIds { ids }))
}

/// Node names to their indices among the nodes.
///
/// A group's members mostly name the node after the one their previous
/// member named (hosts declared in order) or the same one (a shared
/// router), so each place that looks names up keeps a guess, and one string
/// comparison confirms it before the name is hashed: with a million flows,
/// most of six million lookups then touch no hash table.
pub(super) struct NodeIds<'a> {
    ids: FxHashMap<&'a str, u32>,
}

impl NodeIds<'_> {
    /// `name`'s index among `nodes`, trying `guess` and the node after it
    /// first; `guess` becomes the index found.
    pub(super) fn find(&self, nodes: &[NodePlan], name: &str, guess: &Cell<u32>) -> Option<u32> {
        let g = guess.get() as usize;
        let found = if nodes.get(g).is_some_and(|n| n.name == name) {
            Some(g as u32)
        } else if nodes.get(g + 1).is_some_and(|n| n.name == name) {
            Some(g as u32 + 1)
        } else {
            self.ids.get(name).copied()
        };
        if let Some(i) = found {
            guess.set(i);
        }
        found
    }
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

/// `parts` joined, in a string allocated once at its final length (what
/// `format!` costs several growths for: names and paths are built for every
/// member of a group).
pub(crate) fn concat(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::check_nodes;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_guess_is_used_only_when_its_name_matches() {
        let (hosts, routers) = (names(&["h0", "h1", "h2", "h3"]), names(&["r0"]));
        let (nodes, ids) = check_nodes(&hosts, &routers).unwrap();
        let guess = Cell::new(0);
        // In order: the guess's successor, each found where it is.
        for (i, n) in ["h0", "h1", "h2", "h3", "r0"].iter().enumerate() {
            assert_eq!(ids.find(&nodes, n, &guess), Some(i as u32));
            assert_eq!(guess.get(), i as u32);
        }
        // Out of order, repeated, backwards: a wrong guess falls back to the names.
        for (n, i) in [
            ("h1", 1),
            ("h1", 1),
            ("h0", 0),
            ("r0", 4),
            ("h2", 2),
            ("h3", 3),
        ] {
            assert_eq!(ids.find(&nodes, n, &guess), Some(i));
            assert_eq!(guess.get(), i);
        }
        // An unknown name is not found and leaves the guess alone.
        assert_eq!(ids.find(&nodes, "h4", &guess), None);
        assert_eq!(guess.get(), 3);
        // A guess past the end is harmless.
        let far = Cell::new(9);
        assert_eq!(ids.find(&nodes, "h2", &far), Some(2));
    }

    #[test]
    fn a_duplicate_router_names_the_router_it_repeats() {
        let (hosts, routers) = (names(&["a", "b"]), names(&["r", "s", "r"]));
        let e = check_nodes(&hosts, &routers).err().unwrap().to_string();
        assert!(
            e.starts_with("routers[2]: duplicate node name 'r' (already routers[0])"),
            "{e}"
        );
    }
}
