// SPDX-License-Identifier: MIT OR Apache-2.0
//! Laying out a scenario's links: each entry's rates (traces read once per
//! file, schedules added), queues and members, the members' ends and names
//! (unique across the scenario).

use super::budget::Budget;
use super::checks::{check_name, Guess};
use super::member::{member_path, members, FindNode};
use super::validate::{link_entry_path, LinkEntryPlan, LinkPlan};
use super::{add_schedule, concat, LinkRate, LinkSpec, OneOrMany, TraceFiles};
use crate::error::{Error, Result};
use crate::net::qdisc::QueueSpec;

/// The links of a scenario (`specs`), each member with its ends (found by `find_node`),
/// and what each entry's members share; a single link's default name is
/// written back. Traces count against `budget`.
pub(super) fn plan_links(
    specs: &mut [LinkSpec],
    find_node: &FindNode<'_>,
    budget: &mut Budget,
) -> Result<(Vec<LinkPlan>, Vec<LinkEntryPlan>)> {
    // Sized for every member at once: a million links would otherwise be
    // copied some twenty times as the vector grows.
    let n_links: usize = specs.iter().map(LinkSpec::members).sum();
    let mut links: Vec<LinkPlan> = Vec::with_capacity(n_links);
    let mut link_entries: Vec<LinkEntryPlan> = Vec::with_capacity(specs.len());
    let mut trace_files = TraceFiles::default();
    for (i, l) in specs.iter_mut().enumerate() {
        let entry = format!("links[{i}]");
        let (fwd_rate, rev_rate, rev_queue) = entry_rates(l, &entry, &mut trace_files, budget)?;
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

    check_link_names(specs, &links)?;
    Ok((links, link_entries))
}

/// A link entry's rate each way (0: a -> b) with its schedule, and the
/// reverse direction's queue; a device queue is refused on a direction
/// whose rate varies.
fn entry_rates(
    l: &LinkSpec,
    entry: &str,
    trace_files: &mut TraceFiles,
    budget: &mut Budget,
) -> Result<(LinkRate, LinkRate, QueueSpec)> {
    // Each direction's rate: a trace is read (once per file) here.
    let fwd_rate = trace_files.resolve(&l.rate, &format!("{entry}.rate"), budget)?;
    let mut rev_rate = match &l.reverse_rate {
        Some(r) => trace_files.resolve(r, &format!("{entry}.reverse_rate"), budget)?,
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
    Ok((fwd_rate, rev_rate, rev_queue.clone()))
}

/// Refuses a link name used twice.
fn check_link_names(specs: &[LinkSpec], links: &[LinkPlan]) -> Result<()> {
    // Names are unique (checked once all are known: a map that borrows them
    // costs no copy of a million names).
    let mut ids = super::names::NameTable::with_capacity(links.len());
    let name_of = |i: u32| links[i as usize].name.as_str();
    for (id, l) in links.iter().enumerate() {
        // One probe per name: the insert tells of an earlier one.
        if let Some(prev) = ids.insert(&l.name, id as u32, name_of) {
            let spec = &specs[l.entry as usize];
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
    Ok(())
}
