// SPDX-License-Identifier: MIT OR Apache-2.0
//! Laying out a scenario's flows over its network: each entry checked, a
//! workload expanded into its transfers, each member planned
//! ([`super::member::member`]), and the entry rewritten with the defaults
//! its flows resolved to.

use std::cell::RefCell;

use super::budget::Budget;
use super::checks::{check_name, Guess};
use super::member::{member, member_path, members, MemberCtx, Net};
use super::validate::{start_jitter, FlowPlan};
use super::{concat, flow_kind_params, workload, AppKind, FlowSpec, OneOrMany};
use crate::cc::CustomCc;
use crate::error::{Error, Result};
use crate::net::route;
use crate::scenario::TraceSpec;
use crate::time::SimDuration;
use crate::units::Bytes;

/// A flow's entry in the scenario's `flows` and its member in it.
pub(super) type Origin = (u32, u32);

/// The run an entry's flows belong to.
#[derive(Clone, Copy)]
pub(super) struct Run<'a> {
    pub(super) seed: u64,
    pub(super) run: u64,
    pub(super) duration: Option<SimDuration>,
    pub(super) trace: &'a [TraceSpec],
}

/// The flows of a scenario (`specs`, of the run `run`), and each one's entry and member (for messages about
/// its name); each entry shows the defaults its flows resolved to.
pub(super) fn plan_flows(
    specs: &mut [FlowSpec],
    run: Run<'_>,
    net: &Net<'_>,
    budget: &mut Budget,
    custom: CustomCc<'_>,
) -> Result<(Vec<FlowPlan>, Vec<Origin>)> {
    let n_flows: usize = specs.iter().map(FlowSpec::members).sum();
    let mut flows = Vec::with_capacity(n_flows);
    let mut origin: Vec<Origin> = Vec::with_capacity(n_flows);
    for (i, f) in specs.iter_mut().enumerate() {
        let first = flows.len();
        plan_entry(i, f, run, net, budget, &mut flows, custom)?;
        origin.extend((0..flows.len() - first).map(|k| (i as u32, k as u32)));
    }
    Ok((flows, origin))
}

/// Entry `i` of the flows (`f`): its members' plans, appended to `flows`.
fn plan_entry(
    i: usize,
    f: &mut FlowSpec,
    run: Run<'_>,
    net: &Net<'_>,
    budget: &mut Budget,
    flows: &mut Vec<FlowPlan>,
    custom: CustomCc<'_>,
) -> Result<()> {
    let entry = format!("flows[{i}]");
    let p = |field: &str| format!("{entry}.{field}");
    let poisson = f.app.as_ref().is_some_and(|a| a.kind == AppKind::Poisson);
    let (n, group) = check_entry(&entry, f, poisson)?;
    // A workload becomes a group of transfers, one per arrival.
    let expanded = if poisson {
        Some(expand(i, &entry, f, run, net, budget)?)
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
    if f.start_jitter.is_some_and(|j| j.is_zero()) {
        return Err(Error::invalid_allowed(
            p("start_jitter"),
            "0 s spreads nothing",
            "a duration longer than 0 s, or leave it out",
        ));
    }
    let tcp_proto = RefCell::new(None);
    let shared = Members {
        entry: &entry,
        i,
        src: &src,
        dst: &dst,
        names: &names,
        starts: &starts,
        sizes: &sizes,
        tcp_proto: (group && sizes.is_empty()).then_some(&tcp_proto),
        guesses: [Guess::default(), Guess::default()],
        run,
    };
    let mut m = f.clone();
    let mut first_mss = None;
    for k in 0..n {
        let plan = shared.member(k, f, &mut m, net, flows.len(), custom)?;
        flows.push(plan);
        check_alike_paths(&mut first_mss, m.mss, k, &p)?;
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
        (eff.src, eff.dst, eff.start, eff.name, eff.app) = (o.src, o.dst, o.start, o.name, o.app);
    }
    *f = eff;
    Ok(())
}

/// An entry's number of members and whether it is a group; refuses a
/// field of the other kind of flow, and a Python controller for a group.
fn check_entry(entry: &str, f: &FlowSpec, poisson: bool) -> Result<(usize, bool)> {
    let p = |field: &str| format!("{entry}.{field}");
    let name_count = f.name.as_ref().and_then(|x| x.count());
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
            entry,
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
    Ok((n, group))
}

/// A poisson entry (`i`, `f`) drawn into its transfers.
fn expand(
    i: usize,
    entry: &str,
    f: &FlowSpec,
    run: Run<'_>,
    net: &Net<'_>,
    budget: &mut Budget,
) -> Result<workload::Expanded> {
    let p = |field: &str| format!("{entry}.{field}");
    let bottleneck = |a: &str, b: &str| -> Result<u64> {
        let guess = Guess::default();
        let s = (net.find_node)(a, &guess, &|| p("src"))?;
        let d = (net.find_node)(b, &guess, &|| p("dst"))?;
        let mut c = u64::MAX;
        route::walk(net.tables, net.link_to, net.is_host, s, d, |ld| {
            let entry = &net.link_entries[net.links[ld as usize / 2].entry as usize];
            c = c.min(entry.rate[ld as usize % 2].nominal.bps());
        })
        .map_err(|detail| Error::Unroutable {
            path: entry.to_string(),
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
    let mut rng = crate::rng::Rng::stream(run.seed, run.run, &stream);
    workload::expand(entry, f, &mut rng, run.duration, &bottleneck, budget)
}

/// The first member's MSS in `first`; refuses a later member whose path
/// gave it another (`k`: its index).
fn check_alike_paths(
    first: &mut Option<Option<Bytes>>,
    mss: Option<Bytes>,
    k: usize,
    p: &dyn Fn(&str) -> String,
) -> Result<()> {
    match *first {
        None => *first = Some(mss),
        Some(f) if f != mss => {
            return Err(Error::invalid_allowed(
                p("mss"),
                format!(
                    "the group's flows have paths with different MTUs ({} and {} of \
                     payload for its first flow and flow {k})",
                    f.map_or(0, |b| b.0),
                    mss.map_or(0, |b| b.0)
                ),
                "an mss set for the group, or groups of flows over alike paths",
            ))
        }
        Some(_) => {}
    }
    Ok(())
}

/// What an entry's members share: their lists, taken out of the entry.
struct Members<'a> {
    entry: &'a str,
    i: usize,
    src: &'a OneOrMany<String>,
    dst: &'a OneOrMany<String>,
    names: &'a Option<OneOrMany<String>>,
    starts: &'a OneOrMany<SimDuration>,
    /// A workload's transfer sizes, one per member (else empty).
    sizes: &'a [u64],
    tcp_proto: Option<&'a RefCell<Option<super::tcp_group::TcpProto>>>,
    guesses: [Guess; 2],
    run: Run<'a>,
}

impl Members<'_> {
    /// Member `k` planned (`m`: the entry's fields, reused from member to
    /// member; `f`: the entry; `flow`: the flow's index).
    fn member(
        &self,
        k: usize,
        f: &FlowSpec,
        m: &mut FlowSpec,
        net: &Net<'_>,
        flow: usize,
        custom: CustomCc<'_>,
    ) -> Result<FlowPlan> {
        let p = |field: &str| format!("{}.{field}", self.entry);
        m.mss = f.mss;
        let name = match self.names {
            Some(v) => v.get(k).clone(),
            None => concat(&[f.kind.name(), &flow.to_string()]),
        };
        if !self.sizes.is_empty() {
            m.app = Some(workload::transfer(self.sizes[k]));
        }
        let start = *self.starts.get(k);
        let jitter = match f.start_jitter {
            None => SimDuration::ZERO,
            Some(j) => {
                if let Some(end) = self.run.duration.filter(|&d| start + j > d) {
                    return Err(Error::invalid(
                        p("start_jitter"),
                        format!(
                            "a start of {start} plus up to {j} may fall after the end of \
                             the run ({end})"
                        ),
                    ));
                }
                start_jitter(self.run.seed, self.run.run, &name, j)
            }
        };
        m.start = OneOrMany::One(start + jitter);
        let name_path = || match self.names {
            Some(v) => member_path(self.entry, "name", v, k),
            None => p("name"),
        };
        check_name(&name, name_path)?;
        member(
            MemberCtx {
                entry: self.entry,
                entry_index: self.i,
                k,
                src: self.src,
                dst: self.dst,
                starts: self.starts,
                net,
                guesses: &self.guesses,
                tcp_proto: self.tcp_proto,
                duration: self.run.duration,
                trace: self.run.trace,
            },
            m,
            name,
            custom,
        )
    }
}
