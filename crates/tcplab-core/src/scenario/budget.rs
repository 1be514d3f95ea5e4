// SPDX-License-Identifier: MIT OR Apache-2.0
//! The memory budget before anything is built.
//!
//! What the network built from a scenario holds (its nodes, links and
//! their queue disciplines, flows, routing tables, capacity traces, and the
//! transfers a workload expands into) is counted against `memory_budget`
//! from the scenario's counts, while it is checked and before it is built:
//! a scenario whose network would not fit is refused with a `ScenarioError`
//! that names the field of its largest part, the estimate and the budget.
//! Nothing of that size is allocated first: a capacity trace is counted as
//! it is read, and a workload's transfers from their expected number before
//! they are drawn. What grows during the run (`world::memory`) is then
//! counted on top of this part.
//!
//! The costs per item are measured (peak memory of a check and of a run,
//! the scenario given as Python data, at 100,000 items; docs/scenarios.md)
//! and rounded up: they include the item's entry in the scenario, its plan,
//! its built state and its row of the results.

use super::{FlowKind, FlowSpec, LinkSpec, Scenario};
use crate::error::{Error, Result};
use crate::units::{grouped, human_bytes};

/// A host or router: its name, plan, routing state and name-table entry.
pub const NODE_BYTES: u64 = 250;
/// A link: its two directions (320 B each), plan, name and results row.
pub const LINK_BYTES: u64 = 1_050;
/// A link given as an entry of its own (not a member of a group): the
/// entry in the scenario and in the effective scenario a check returns.
pub const LINK_ENTRY_BYTES: u64 = 1_000;
/// A TCP flow: its plan, connection (sender, receiver, controller), timers,
/// name and results row.
pub const TCP_FLOW_BYTES: u64 = 2_300;
/// A UDP flow: the same with a constant-bit-rate source.
pub const UDP_FLOW_BYTES: u64 = 1_000;
/// A flow given as an entry of its own, as for links.
pub const FLOW_ENTRY_BYTES: u64 = 1_400;
/// A workload's transfer besides its flow: the arrival drawn and its ends,
/// start and name in the expanded group.
pub const ARRIVAL_BYTES: u64 = 200;
/// One entry of a routing table: a node with several links has one per
/// node of the network.
pub const ROUTE_BYTES: u64 = 4;

/// One part of the estimate, with the field a user would change.
#[derive(Clone, Debug, Default)]
pub struct Part {
    pub bytes: u64,
    pub field: String,
    pub what: String,
}

/// The estimate of what the built network holds, part by part, against
/// the memory budget.
#[derive(Debug)]
pub struct Budget {
    limit: u64,
    total: u64,
    largest: Part,
}

/// What a checked scenario's network is estimated to hold: the total, and
/// its largest part (for the messages of the run's own estimate).
#[derive(Clone, Debug, Default)]
pub struct Built {
    pub bytes: u64,
    pub largest: Part,
}

impl Budget {
    pub fn new(limit: u64) -> Budget {
        Budget {
            limit,
            total: 0,
            largest: Part::default(),
        }
    }

    /// Bytes left in the budget.
    pub fn room(&self) -> u64 {
        self.limit.saturating_sub(self.total)
    }

    /// Counts a part (checked by [`Budget::check`]).
    pub fn add(&mut self, bytes: u64, field: impl Into<String>, what: impl Into<String>) {
        self.total = self.total.saturating_add(bytes);
        if bytes > self.largest.bytes || self.largest.field.is_empty() {
            self.largest = Part {
                bytes,
                field: field.into(),
                what: what.into(),
            };
        }
    }

    /// Refuses the scenario when the parts counted so far exceed the
    /// budget, naming the largest.
    pub fn check(&self) -> Result<()> {
        if self.total <= self.limit {
            return Ok(());
        }
        let p = &self.largest;
        Err(self.over(&p.field, &p.what, p.bytes, self.total))
    }

    /// The refusal of a part of `bytes` that does not fit in what is left.
    pub fn refuse(&self, field: &str, what: &str, bytes: u64) -> Error {
        self.over(field, what, bytes, self.total.saturating_add(bytes))
    }

    fn over(&self, field: &str, what: &str, bytes: u64, total: u64) -> Error {
        let all = if human_bytes(total) != human_bytes(bytes) {
            format!(" (the network about {} in all)", human_bytes(total))
        } else {
            String::new()
        };
        Error::invalid_allowed(
            field,
            format!(
                "{what} would take about {} before the run starts{all}, over the memory budget \
                 of {}",
                human_bytes(bytes),
                human_bytes(self.limit)
            ),
            format!(
                "a network within memory_budget; make this smaller, or raise memory_budget (now \
                 {})",
                human_bytes(self.limit)
            ),
        )
    }

    pub fn built(self) -> Built {
        Built {
            bytes: self.total,
            largest: self.largest,
        }
    }
}

/// Counts the scenario's nodes, links (with their disciplines) and flows
/// other than workloads, from its counts alone, and refuses it if they do
/// not fit.
pub(super) fn count_network(sc: &Scenario, budget: &mut Budget) -> Result<()> {
    let nodes = (sc.hosts.len() + sc.routers.len()) as u64;
    budget.add(
        nodes.saturating_mul(NODE_BYTES),
        if sc.routers.len() > sc.hosts.len() {
            "routers"
        } else {
            "hosts"
        },
        format!("{} hosts and routers", grouped(nodes as f64)),
    );
    count_links(&sc.links, budget);
    count_flows(&sc.flows, budget);
    budget.check()
}

fn count_links(links: &[LinkSpec], budget: &mut Budget) {
    let mut n = 0u64;
    let mut bytes = 0u64;
    // The one entry whose disciplines hold the most (FQ-CoDel's flow
    // table), named on its own.
    let mut queues = (0u64, String::new(), String::new());
    for (i, l) in links.iter().enumerate() {
        let members = l.members() as u64;
        n += members;
        bytes = bytes
            .saturating_add(members.saturating_mul(LINK_BYTES))
            .saturating_add(LINK_ENTRY_BYTES);
        let rev = l.reverse_queue.as_ref().unwrap_or(&l.queue);
        let q = members.saturating_mul(l.queue.built_bytes().saturating_add(rev.built_bytes()));
        if q > queues.0 {
            let field = match &l.reverse_queue {
                Some(r) if r.built_bytes() > l.queue.built_bytes() => "reverse_queue",
                _ => "queue",
            };
            let spec = if field == "queue" { &l.queue } else { rev };
            let what = format!(
                "the queue disciplines of links[{i}] ({} link{} of {})",
                grouped(members as f64),
                if members == 1 { "" } else { "s" },
                spec.built_what()
            );
            // The entry counted so far joins the rest.
            bytes = bytes.saturating_add(queues.0);
            queues = (q, format!("links[{i}].{field}"), what);
        } else {
            bytes = bytes.saturating_add(q);
        }
    }
    if n > 0 {
        budget.add(bytes, "links", in_entries(n, "links", links.len()));
    }
    if queues.0 > 0 {
        budget.add(queues.0, queues.1, queues.2);
    }
}

fn count_flows(flows: &[FlowSpec], budget: &mut Budget) {
    let mut n = 0u64;
    let mut bytes = 0u64;
    for f in flows {
        if f.app
            .as_ref()
            .is_some_and(|a| a.kind == super::AppKind::Poisson)
        {
            continue; // counted when expanded (`workload::expand`)
        }
        let members = f.members() as u64;
        n += members;
        bytes = bytes
            .saturating_add(members.saturating_mul(flow_bytes(f.kind)))
            .saturating_add(FLOW_ENTRY_BYTES);
    }
    if n > 0 {
        budget.add(bytes, "flows", in_entries(n, "flows", flows.len()));
    }
}

/// "1,000 links (3 entries)": `n` members of `entries` entries of a list.
fn in_entries(n: u64, what: &str, entries: usize) -> String {
    let plural = if entries == 1 { "y" } else { "ies" };
    format!(
        "{} {what} ({} entr{plural})",
        grouped(n as f64),
        grouped(entries as f64)
    )
}

/// What one flow of `kind` holds.
pub fn flow_bytes(kind: FlowKind) -> u64 {
    match kind {
        FlowKind::Tcp => TCP_FLOW_BYTES,
        FlowKind::Udp => UDP_FLOW_BYTES,
    }
}

/// Counts the routing tables: one entry per node of the network for each
/// node with several links, and for each node an explicit route is set at
/// (`routed`).
pub(super) fn count_routes(
    budget: &mut Budget,
    nodes: usize,
    multi: usize,
    routed: usize,
) -> Result<()> {
    let tables = (multi + routed) as u64;
    let bytes = tables
        .saturating_mul(nodes as u64)
        .saturating_mul(ROUTE_BYTES);
    budget.add(
        bytes,
        "routers",
        format!(
            "the routing tables ({} nodes with several links or explicit routes, each with an \
             entry for each of the {} nodes)",
            grouped(tables as f64),
            grouped(nodes as f64)
        ),
    );
    budget.check()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_part_is_named_with_the_estimate_and_the_budget() {
        let mut b = Budget::new(1 << 20);
        b.add(600_000, "flows", "300 flows");
        b.add(100, "hosts", "2 hosts and routers");
        assert!(b.check().is_ok());
        b.add(
            700_000,
            "links[0].queue",
            "the queue disciplines of links[0]",
        );
        let e = b.check().unwrap_err().to_string();
        assert!(
            e.starts_with("links[0].queue: the queue disciplines"),
            "{e}"
        );
        assert!(e.contains("about 684 KiB before the run starts"), "{e}");
        assert!(e.contains("(the network about 1.2 MiB in all)"), "{e}");
        assert!(e.contains("over the memory budget of 1 MiB"), "{e}");
        assert_eq!(b.room(), 0);
    }

    fn refused(json: &str) -> Error {
        let sc = Scenario::from_json(json).unwrap();
        match super::super::plan(&sc, &mut |_| None) {
            Ok(_) => panic!("accepted: {json}"),
            Err(e) => e,
        }
    }

    const TWO_HOSTS: &str = r#""duration": "2s", "hosts": ["a", "b"],
        "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "1ms" LINK}],
        "flows": [{"kind": "tcp", "src": "a", "dst": "b" FLOW}]"#;

    fn two_hosts(top: &str, link: &str, flow: &str) -> String {
        format!(
            "{{{top}{}}}",
            TWO_HOSTS.replace("LINK", link).replace("FLOW", flow)
        )
    }

    #[test]
    fn what_would_not_fit_is_refused_before_it_is_built() {
        // 32 GB of flow buckets: refused before the table is allocated.
        let e = refused(&two_hosts(
            "",
            r#", "queue": {"kind": "fq_codel", "flows": 4000000000}"#,
            "",
        ));
        let m = e.to_string();
        assert!(
            m.starts_with("links[0].queue: the queue disciplines of links[0]"),
            "{m}"
        );
        assert!(m.contains("over the memory budget of 4 GiB"), "{m}");
        // Two thousand million arrivals: refused before the first is drawn.
        let e = refused(&two_hosts(
            "",
            "",
            r#", "app": {"kind": "poisson", "sizes": "websearch", "arrival_rate": 1e9}"#,
        ));
        let m = e.to_string();
        assert!(
            m.starts_with("flows[0].app.arrival_rate: about 2,000,000,000 transfers"),
            "{m}"
        );
        // A workload that fits is drawn, and counts in what the network holds.
        let sc = Scenario::from_json(&two_hosts(
            r#""memory_budget": "100MB", "#,
            "",
            r#", "app": {"kind": "poisson", "sizes": "websearch", "arrival_rate": 100}"#,
        ))
        .unwrap();
        let plan = super::super::plan(&sc, &mut |_| None).unwrap();
        let n = plan.flows.len() as u64;
        assert!(n > 150 && n < 250, "{n}");
        assert!(plan.built.bytes >= n * (TCP_FLOW_BYTES + ARRIVAL_BYTES));
        assert_eq!(plan.built.largest.field, "flows[0].app.arrival_rate");
    }
}
