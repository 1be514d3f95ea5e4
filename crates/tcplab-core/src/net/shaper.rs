// SPDX-License-Identifier: MIT OR Apache-2.0
//! A link direction whose rate is not fixed: driven by a capacity trace
//! ([`crate::net::capacity`]) or by a rate and delay schedule
//! ([`crate::net::schedule`]). The world asks it, for each packet, when the
//! packet can start, when its last bit leaves and when it arrives; a
//! fixed-rate direction has none and takes the packet path's fast case.

use crate::net::capacity::{TraceLink, TraceSlot};
use crate::net::schedule::{ScheduleLink, Slot};
use crate::time::{SimDuration, SimTime};

#[derive(Debug, Clone)]
pub enum ShaperKind {
    Trace(TraceLink),
    Schedule(ScheduleLink),
}

/// A shaped link direction: its kind and, for a discipline that holds its
/// queue, the latest time a dequeue event is scheduled for.
#[derive(Debug, Clone)]
pub struct Shaper {
    pub kind: ShaperKind,
    pub wake: SimTime,
    /// Packets its schedule's outages dropped.
    pub drops: u64,
}

/// A transmission the shaper allows, not yet taken ([`Shaper::commit`]).
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub tx_start: SimTime,
    pub done: SimTime,
    how: How,
}

#[derive(Clone, Copy, Debug)]
enum How {
    Trace(TraceSlot),
    Schedule(Slot),
}

impl Shaper {
    pub fn new(kind: ShaperKind) -> Shaper {
        Shaper {
            kind,
            wake: SimTime::ZERO,
            drops: 0,
        }
    }

    /// The transmission of a packet of `size` bytes that reaches the link
    /// at `now`; `None` if it cannot be made (an outage that drops, or a
    /// link that never sends again).
    pub fn plan(&self, now: SimTime, size: u32) -> Option<Plan> {
        match &self.kind {
            ShaperKind::Trace(t) => Some(trace_plan(t, t.start_for(now), size)),
            ShaperKind::Schedule(s) => schedule_plan(s, now, size),
        }
    }

    /// As [`Self::plan`], for a packet a discipline gives out at `at`, the
    /// time [`Self::next_start`] or [`Self::idle_start`] gave.
    pub fn plan_dequeued(&self, at: SimTime, size: u32) -> Option<Plan> {
        match &self.kind {
            ShaperKind::Trace(t) => {
                let s = t.waiting_start();
                debug_assert_eq!(t.at(s), at);
                Some(trace_plan(t, s, size))
            }
            ShaperKind::Schedule(s) => schedule_plan(s, at, size),
        }
    }

    /// Takes `p`: the link goes on behind it. When the packet arrives at
    /// the far end: its end plus `delay` (a trace's), or the schedule's
    /// delay, in order.
    pub fn commit(&mut self, p: Plan, delay: SimDuration) -> SimTime {
        match (&mut self.kind, p.how) {
            (ShaperKind::Trace(t), How::Trace(slot)) => {
                t.take(slot);
                p.done + delay
            }
            (ShaperKind::Schedule(s), How::Schedule(slot)) => s.commit(slot),
            _ => unreachable!("a plan is committed to the shaper that made it"),
        }
    }

    /// When a discipline that holds its queue can next give out a packet,
    /// once the last one is on the wire (`SimTime::MAX`: never).
    pub fn next_start(&self) -> SimTime {
        match &self.kind {
            ShaperKind::Trace(t) => t.at(t.waiting_start()),
            ShaperKind::Schedule(s) => s.start_at(SimTime::ZERO).map_or(SimTime::MAX, |x| x.0),
        }
    }

    /// When a packet reaching the idle link at `now` can start (a trace
    /// then waits for that opportunity, whatever was left of the last).
    pub fn idle_start(&mut self, now: SimTime) -> SimTime {
        match &mut self.kind {
            ShaperKind::Trace(t) => {
                let s = t.start_for(now);
                t.restart_at(s);
                t.at(s)
            }
            ShaperKind::Schedule(s) => s.start_at(now).map_or(SimTime::MAX, |x| x.0),
        }
    }
}

fn trace_plan(t: &TraceLink, s: crate::net::capacity::Start, size: u32) -> Plan {
    let slot = t.plan(s, size);
    Plan {
        tx_start: slot.start,
        done: slot.done,
        how: How::Trace(slot),
    }
}

fn schedule_plan(s: &ScheduleLink, ready: SimTime, size: u32) -> Option<Plan> {
    let slot = s.plan(s.start_at(ready)?, size as u64)?;
    Some(Plan {
        tx_start: slot.start,
        done: slot.done,
        how: How::Schedule(slot),
    })
}
