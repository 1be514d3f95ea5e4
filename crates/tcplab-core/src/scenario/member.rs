// SPDX-License-Identifier: MIT OR Apache-2.0
//! Checking one flow of a scenario, a single one or a member of a group:
//! its ends, its path (routable both ways, through routers only), its
//! times, its application, and for TCP its resolved configuration.

use std::cell::RefCell;

use super::checks::Guess;
use super::validate::{AppPlan, FlowPlan, LinkEntryPlan, LinkPlan, NodePlan};
use super::{ideal, tcp_group};
use super::{FlowKind, FlowSpec, OneOrMany, TraceSpec};
use crate::cc::CustomCc;
use crate::error::{Error, Result};
use crate::net::packet::{IPV4_HEADER, UDP_HEADER};
use crate::net::route::{self, RouteTable};
use crate::time::{SimDuration, SimTime};
use crate::units::Bytes;

/// The number of members of a link or flow entry: the length of its lists
/// (which must agree), or 1.
pub(super) fn members(counts: &[(&str, Option<usize>)], entry: &str) -> Result<usize> {
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
pub(super) fn member_path<T>(entry: &str, field: &str, v: &OneOrMany<T>, k: usize) -> String {
    match v {
        OneOrMany::One(_) => format!("{entry}.{field}"),
        OneOrMany::Many(_) => format!("{entry}.{field}[{k}]"),
    }
}

/// Looks a node up by name, trying a guess first (see
/// [`NodeIds::find`](super::checks::NodeIds::find)); the closure gives the
/// field's path for a message.
pub(super) type FindNode<'a> = dyn Fn(&str, &Guess, &dyn Fn() -> String) -> Result<u32> + 'a;

/// The network the flows run over: what checking a flow reads.
pub(super) struct Net<'a> {
    pub(super) nodes: &'a [NodePlan],
    pub(super) find_node: &'a FindNode<'a>,
    pub(super) adj: &'a route::Adjacency,
    pub(super) tables: &'a [RouteTable],
    pub(super) links: &'a [LinkPlan],
    pub(super) link_entries: &'a [LinkEntryPlan],
    /// The far end of each link direction.
    pub(super) link_to: &'a [u32],
    pub(super) is_host: &'a [bool],
}

/// What checking one flow needs from the rest of the plan.
pub(super) struct MemberCtx<'a> {
    pub(super) entry: &'a str,
    /// The entry's index in `flows` (a user-written controller's key).
    pub(super) entry_index: usize,
    pub(super) k: usize,
    pub(super) src: &'a OneOrMany<String>,
    pub(super) dst: &'a OneOrMany<String>,
    pub(super) starts: &'a OneOrMany<SimDuration>,
    pub(super) net: &'a Net<'a>,
    /// The guesses for `src` and `dst`, kept from member to member.
    pub(super) guesses: &'a [Guess; 2],
    /// A group's resolved TCP member for the next ones to copy (see
    /// [`tcp_group::TcpProto`]), or `None` for a flow resolved on its own.
    pub(super) tcp_proto: Option<&'a RefCell<Option<tcp_group::TcpProto>>>,
    pub(super) duration: Option<SimDuration>,
    pub(super) trace: &'a [TraceSpec],
}

/// Checks one flow (`m`, a single member with the entry's fields) and
/// plans it, filling its defaults into `m`.
pub(super) fn member(
    c: MemberCtx<'_>,
    m: &mut FlowSpec,
    name: String,
    custom: CustomCc<'_>,
) -> Result<FlowPlan> {
    let entry = c.entry;
    let p = |field: &str| format!("{entry}.{field}");
    let k = c.k;
    let (src, dst) = endpoints(&c)?;
    let route_err = |from: u32, to: u32, detail: String| {
        let mut detail = detail;
        if detail.contains("not connected") && route::connected_through_hosts(c.net.adj, from, to) {
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
            from: c.net.nodes[from as usize].name.clone(),
            to: c.net.nodes[to as usize].name.clone(),
            detail,
        }
    };
    let mut path_mtu = 65535;
    // One-way propagation each way, and the bottleneck's rate.
    let (mut hops, mut rev) = (Vec::new(), SimDuration::ZERO);
    route::walk(c.net.tables, c.net.link_to, c.net.is_host, src, dst, |ld| {
        let l = &c.net.link_entries[c.net.links[ld as usize / 2].entry as usize];
        path_mtu = path_mtu.min(l.mtu);
        hops.push(ideal::Hop::new(&l.rate[ld as usize % 2], l.delay));
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
    let mut ideal = None;
    let app = match m.kind {
        FlowKind::Udp => {
            let app = check_udp(m, &p, path_mtu)?;
            if c.duration.is_none() && m.stop.is_none() && m.count.is_none() {
                return Err(endless_error());
            }
            app
        }
        FlowKind::Tcp => {
            route::walk(c.net.tables, c.net.link_to, c.net.is_host, dst, src, |ld| {
                let l = &c.net.link_entries[c.net.links[ld as usize / 2].entry as usize];
                rev = rev + ideal::Hop::new(&l.rate[ld as usize % 2], l.delay).delay();
            })
            .map_err(|d| route_err(dst, src, format!("for the ACKs: {d}")))?;
            let tcp = tcp_group::tcp_member(
                c.tcp_proto,
                c.entry_index,
                entry,
                m,
                path_mtu,
                c.trace,
                custom,
            )?;
            if let Some(size) = tcp.transfer {
                let header = 40 + crate::tcp::base_options(tcp.cfg.timestamps) as u64;
                let mss = tcp.cfg.mss as u64;
                ideal = Some(ideal::completion(size, mss, header, start, &hops, rev));
            }
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
        ideal,
    })
}

/// A flow's two hosts, by name from its entry's lists.
fn endpoints(c: &MemberCtx<'_>) -> Result<(u32, u32)> {
    let (entry, k) = (c.entry, c.k);
    let [gs, gd] = c.guesses;
    let src = (c.net.find_node)(c.src.get(k), gs, &|| member_path(entry, "src", c.src, k))?;
    let dst = (c.net.find_node)(c.dst.get(k), gd, &|| member_path(entry, "dst", c.dst, k))?;
    for (field, n, v) in [("src", src, c.src), ("dst", dst, c.dst)] {
        if !c.net.nodes[n as usize].is_host {
            return Err(Error::invalid(
                member_path(entry, field, v, k),
                format!(
                    "'{}' is a router; flows start and end at hosts",
                    c.net.nodes[n as usize].name
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
    Ok((src, dst))
}

/// A UDP flow's constant-bit-rate source over a path whose smallest MTU
/// is `path_mtu`, its payload size filled in.
fn check_udp(m: &mut FlowSpec, p: &dyn Fn(&str) -> String, path_mtu: u32) -> Result<AppPlan> {
    let rate = m
        .rate
        .ok_or_else(|| Error::invalid(p("rate"), "required for a udp flow (e.g. '1.5Mbps')"))?;
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
    Ok(AppPlan::Cbr {
        interval: rate.interval(size),
        payload: size as u32,
        count: m.count,
    })
}
