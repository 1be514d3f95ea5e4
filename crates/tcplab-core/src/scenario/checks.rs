// SPDX-License-Identifier: MIT OR Apache-2.0
//! The checks of a scenario that stand apart from laying it out: the run's
//! own fields, the node names, the names of everything, the probes a trace
//! asks for, the packet-trace request.

use std::cell::Cell;

use super::names::NameTable;
use crate::par::{both_if, LARGE};

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
/// first) and each name's index among them. A large scenario checks the
/// names and enters them in the table on two threads; the error reported
/// is the one at the first node either finds, as if checked in one pass.
pub(super) fn check_nodes<'a>(
    hosts: &'a [String],
    routers: &'a [String],
) -> Result<(Vec<NodePlan>, NodeIds<'a>)> {
    let n = hosts.len() + routers.len();
    let path = |i: usize| {
        if i < hosts.len() {
            format!("hosts[{i}]")
        } else {
            format!("routers[{}]", i - hosts.len())
        }
    };
    let name_of = |i: u32| node_name(hosts, routers, i);
    let all = || hosts.iter().chain(routers);
    // Each side stops at its first finding: (the node, its error).
    let named = || -> (Vec<NodePlan>, Option<(usize, Error)>) {
        let mut nodes = Vec::with_capacity(n);
        for (i, name) in all().enumerate() {
            if name.trim().is_empty() {
                let e = Error::invalid(path(i), "a node needs a non-empty name");
                return (nodes, Some((i, e)));
            }
            if let Err(e) = check_name(name, || path(i)) {
                return (nodes, Some((i, e)));
            }
            nodes.push(NodePlan {
                name: name.clone(),
                is_host: i < hosts.len(),
                routes: RouteTable::default(),
            });
        }
        (nodes, None)
    };
    let entered = || -> (NameTable, Option<(usize, Error)>) {
        let mut ids = NameTable::with_capacity(n);
        for (i, name) in all().enumerate() {
            // One probe per name: the insert tells of an earlier one.
            if let Some(j) = ids.insert(name, i as u32, name_of) {
                let e = Error::invalid(
                    path(i),
                    format!(
                        "duplicate node name '{name}' (already {}); names must be unique",
                        path(j as usize)
                    ),
                );
                return (ids, Some((i, e)));
            }
        }
        (ids, None)
    };
    let ((ids, duplicate), (nodes, bad_name)) = both_if(n >= LARGE, entered, named);
    // A node's name is checked before it is entered.
    match (bad_name, duplicate) {
        (Some((i, e)), Some((j, _))) if i <= j => return Err(e),
        (_, Some((_, e))) | (Some((_, e)), None) => return Err(e),
        (None, None) => {}
    }
    Ok((
        nodes,
        NodeIds {
            ids,
            hosts,
            routers,
        },
    ))
}

/// Node `i`'s name: hosts first, then routers.
fn node_name<'a>(hosts: &'a [String], routers: &'a [String], i: u32) -> &'a str {
    let i = i as usize;
    match hosts.get(i) {
        Some(h) => h,
        None => &routers[i - hosts.len()],
    }
}

/// Node names to their indices among the nodes.
pub(super) struct NodeIds<'a> {
    ids: NameTable,
    hosts: &'a [String],
    routers: &'a [String],
}

/// Where a run of lookups' next name probably is, which one string
/// comparison confirms before the name is hashed: with a million flows,
/// most of six million lookups then touch no hash table.
///
/// A group's members name nodes at a steady stride (hosts declared in
/// order, or every other one when senders and receivers alternate) or name
/// the same node (a shared router), and a run often alternates between two
/// such sequences (the ends of access links declared in turn: a sender,
/// then the far router). So the lookups alternate between two lanes, each
/// with its last index and stride.
#[derive(Default)]
pub(super) struct Guess {
    /// Per lane: the last index found and the step that led to it.
    lanes: [Cell<(u32, u32)>; 2],
    /// The lane of the next lookup.
    turn: Cell<bool>,
}

impl NodeIds<'_> {
    /// `name`'s index among `nodes`, trying `guess`'s prediction first.
    pub(super) fn find(&self, nodes: &[NodePlan], name: &str, guess: &Guess) -> Option<u32> {
        let turn = guess.turn.get();
        guess.turn.set(!turn);
        let lane = &guess.lanes[turn as usize];
        let (last, step) = lane.get();
        let g = last.wrapping_add(step);
        let found = if nodes.get(g as usize).is_some_and(|n| n.name == name) {
            Some(g)
        } else {
            self.ids
                .get(name, |i| node_name(self.hosts, self.routers, i))
        };
        if let Some(i) = found {
            lane.set((i, i.wrapping_sub(last)));
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
    use super::{check_nodes, Guess};

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_guess_finds_every_name_whether_it_is_right_or_wrong() {
        let hosts: Vec<String> = (0..8).map(|i| format!("h{i}")).collect();
        let routers = names(&["r0", "r1"]);
        let (nodes, ids) = check_nodes(&hosts, &routers).unwrap();
        let find = |guess: &Guess, n: &str| ids.find(&nodes, n, guess);
        // Alternating lanes: senders every other host, then a router.
        let g = Guess::default();
        for (n, i) in [
            ("h0", 0),
            ("r1", 9),
            ("h2", 2),
            ("r1", 9),
            ("h4", 4),
            ("r1", 9),
        ] {
            assert_eq!(find(&g, n), Some(i), "{n}");
        }
        // Each lane now predicts its next: h6 (stride 2) and r1 (stride 0).
        assert_eq!(g.lanes[0].get(), (4, 2));
        assert_eq!(g.lanes[1].get(), (9, 0));
        // A wrong prediction (h7 where h6 was predicted) still finds the
        // name; an unknown name is not found and leaves its lane alone.
        assert_eq!(find(&g, "h7"), Some(7));
        assert_eq!(find(&g, "r0"), Some(8));
        assert_eq!(find(&g, "x"), None);
        assert_eq!(g.lanes[0].get(), (7, 3));
        // Backwards, and a prediction past the end.
        let g = Guess::default();
        for (n, i) in [
            ("h7", 7),
            ("h7", 7),
            ("h5", 5),
            ("h5", 5),
            ("h3", 3),
            ("r1", 9),
            ("h1", 1),
        ] {
            assert_eq!(find(&g, n), Some(i), "{n}");
        }
        for (n, i) in [
            ("r0", 8),
            ("r1", 9),
            ("h0", 0),
            ("r1", 9),
            ("r1", 9),
            ("h0", 0),
        ] {
            assert_eq!(find(&g, n), Some(i), "{n}");
        }
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

    /// Hosts named `h0` to `h{n-1}`.
    fn first_n(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("h{i}")).collect()
    }

    /// The error `check_nodes` gives for `n` hosts named `h{i}`, with the
    /// names at the given indices replaced.
    fn first_error(n: usize, replaced: &[(usize, &str)]) -> String {
        let mut hosts = first_n(n);
        for &(i, name) in replaced {
            hosts[i] = name.to_string();
        }
        check_nodes(&hosts, &names(&["r"]))
            .err()
            .unwrap()
            .to_string()
    }

    #[test]
    fn the_error_reported_is_at_the_first_bad_node_on_one_thread_or_two() {
        // 100 nodes are checked on one thread, 30,000 on two
        // (crate::par::LARGE); the messages are the same.
        for n in [100, 30_000] {
            let (early, late) = (n / 3, n / 2);
            let dup = |i: usize| format!("hosts[{i}]: duplicate node name 'h1' (already hosts[1])");
            let ctl = |i: usize| format!("hosts[{i}]: \"h\\u{{7}}\" holds the control character");
            let e = first_error(n, &[(early, "h1"), (late, "h\u{7}")]);
            assert!(e.starts_with(&dup(early)), "{n}: {e}");
            let e = first_error(n, &[(early, "h\u{7}"), (late, "h1")]);
            assert!(e.starts_with(&ctl(early)), "{n}: {e}");
            let e = first_error(n, &[(late, " ")]);
            assert!(
                e.starts_with(&format!("hosts[{late}]: a node needs a non-empty name")),
                "{n}: {e}"
            );
            // A name both repeated and empty: its emptiness, checked first.
            let e = first_error(n, &[(early, " "), (late, " ")]);
            assert!(
                e.starts_with(&format!("hosts[{early}]: a node needs")),
                "{n}: {e}"
            );
            assert!(check_nodes(&first_n(n), &names(&["r"])).is_ok());
        }
    }
}
