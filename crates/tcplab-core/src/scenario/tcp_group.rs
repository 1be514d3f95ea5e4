// SPDX-License-Identifier: MIT OR Apache-2.0
//! A group's TCP members resolved once: the first member's resolved plan
//! is copied, with a fresh controller and its own start, for the next
//! members whose path has the same MTU. Resolving each would fill in the
//! same defaults and build the same controller, and with a million flows
//! it would be most of checking's time.

use std::cell::RefCell;

use super::app::app_edges;
use super::resolve::{self, TcpPlan};
use crate::cc::CustomCc;
use crate::error::Result;
use crate::scenario::{AppKind, FlowSpec, TraceSpec};
use crate::time::{SimDuration, SimTime};
use crate::units::Bytes;

impl TcpPlan {
    /// The same plan for another member of its group, whose application
    /// (of kind `app`) starts at `start`: a bulk or transfer application
    /// turns on then, an onoff one keeps its windows. `None` when the
    /// controller cannot be copied (a Python one).
    fn copy_for(&self, app: AppKind, start: SimTime, stop: Option<SimDuration>) -> Option<TcpPlan> {
        let edges = match app {
            AppKind::Bulk | AppKind::Transfer => app_edges(vec![(start, true)], stop),
            AppKind::Onoff | AppKind::Poisson => self.edges.clone(),
        };
        Some(TcpPlan {
            cfg: self.cfg.clone(),
            cc: self.cc.fresh()?,
            cc_name: self.cc_name.clone(),
            custom_cc: self.custom_cc,
            fine_retransmit: self.fine_retransmit,
            edges,
            transfer: self.transfer,
            series: self.series.clone(),
            probes: self.probes.clone(),
            events: self.events,
            handshake: self.handshake,
            pacing: self.pacing.clone(),
        })
    }
}

/// A group's first resolved TCP member, which its next members copy when
/// their path has the same MTU (resolving theirs would fill in the same
/// defaults and build the same controller): a group of a million flows
/// resolves its configuration once. Groups whose members differ in more
/// than their start (a workload's transfer sizes) do not keep one.
pub(super) struct TcpProto {
    path_mtu: u32,
    /// The member's `mss` once resolved (it follows the path).
    mss: Option<Bytes>,
    app: AppKind,
    plan: TcpPlan,
}

/// The plan of member `f` of a group (its `start` and `mss` set for it),
/// copied from `proto` when that fits and resolved otherwise; a resolved
/// plan becomes the group's `proto`. Without `proto`, as [`resolve::tcp`].
pub(super) fn tcp_member(
    proto: Option<&RefCell<Option<TcpProto>>>,
    flow: usize,
    entry: &str,
    f: &mut FlowSpec,
    path_mtu: u32,
    trace: &[TraceSpec],
    custom: CustomCc<'_>,
) -> Result<TcpPlan> {
    let Some(proto) = proto else {
        return resolve::tcp(flow, entry, f, path_mtu, trace, custom);
    };
    let start = SimTime::ZERO + *f.start.get(0);
    if let Some(p) = proto.borrow().as_ref().filter(|p| p.path_mtu == path_mtu) {
        if let Some(plan) = p.plan.copy_for(p.app, start, f.stop) {
            f.mss = p.mss;
            return Ok(plan);
        }
    }
    let plan = resolve::tcp(flow, entry, f, path_mtu, trace, custom)?;
    let app = f.app.as_ref().map_or(AppKind::Bulk, |a| a.kind);
    *proto.borrow_mut() = plan.copy_for(app, start, f.stop).map(|copy| TcpProto {
        path_mtu,
        mss: f.mss,
        app,
        plan: copy,
    });
    Ok(plan)
}
