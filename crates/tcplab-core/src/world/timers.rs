// SPDX-License-Identifier: MIT OR Apache-2.0
//! Connection timers: a dense table of per-flow slots beside the event
//! queue, so that a stale or early timer event is settled without touching
//! the connection.

use super::*;

/// The timers of a connection, one slot per kind. The queue holds at most
/// one live event per slot: re-arming to a later deadline only moves
/// `deadline`, and the event re-arms itself when it fires early; an earlier
/// deadline schedules a new event and bumps `gen`, which makes the old one
/// stale.
///
/// The slots of all flows live in one dense table, beside a copy of the
/// endpoint's deadline, so a stale or early timer event (most of them, with
/// thousands of flows) is settled without touching the connection. A
/// flow's three slots fill one cache line: `NEVER` stands for "none".
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct FlowTimers {
    /// Per [`TimerKind`]: when its queued event fires.
    pub(super) scheduled: [SimTime; 3],
    /// Per kind: the endpoint's deadline as of its last action.
    pub(super) deadline: [SimTime; 3],
    pub(super) gen: [u32; 3],
}

pub(super) const NEVER: SimTime = SimTime::MAX;
const _: () = assert!(
    std::mem::size_of::<FlowTimers>() == 64,
    "one cache line per flow"
);

impl Default for FlowTimers {
    fn default() -> Self {
        FlowTimers {
            scheduled: [NEVER; 3],
            deadline: [NEVER; 3],
            gen: [0; 3],
        }
    }
}

impl FlowTimers {
    /// Schedules the event of `kind` at `at`, making any earlier one stale.
    pub(super) fn arm(&mut self, queue: &mut EventQueue, flow: u32, kind: TimerKind, at: SimTime) {
        let k = kind as usize;
        self.gen[k] = self.gen[k].wrapping_add(1);
        self.scheduled[k] = at;
        queue.push(
            at,
            Event::Timer {
                flow,
                kind,
                gen: self.gen[k],
            },
        );
    }
}

impl World {
    /// Handles a timer event: the endpoints settle it against the flow's
    /// slots ([`Endpoints::timer_due`]); one that is due fires on the
    /// connection ([`Endpoints::fire_timer`]), and what it sends goes out.
    /// False if it was stale or cancelled (a no-op).
    pub(super) fn timer(&mut self, flow: u32, kind: TimerKind, gen: u32) -> bool {
        if !self.ep.timer_due(flow, kind, gen, &mut self.sim) {
            return false;
        }
        let mut out = std::mem::take(&mut self.ep.scratch);
        let Some(from_sender) = self.ep.fire_timer(flow, kind, self.sim.now, &mut out) else {
            self.ep.scratch = out;
            return false;
        };
        // Two calls with constant directions, each compiled for its own.
        if from_sender {
            self.emit_tcp(flow, true, &mut out);
        } else {
            self.emit_tcp(flow, false, &mut out);
        }
        self.ep.scratch = out;
        self.after_tcp(flow);
        true
    }
}

impl Endpoints {
    /// Settles a timer event of `flow` against its slots: false if it was
    /// stale or cancelled, or its deadline moved later (it is re-armed).
    #[inline(always)]
    pub(super) fn timer_due(
        &mut self,
        flow: u32,
        kind: TimerKind,
        gen: u32,
        sim: &mut Sim,
    ) -> bool {
        let slots = &mut self.timers[flow as usize];
        let k = kind as usize;
        if slots.gen[k] != gen {
            return false; // superseded by an earlier deadline
        }
        slots.scheduled[k] = NEVER;
        match slots.deadline[k] {
            NEVER => false,
            d if d > sim.now => {
                // Moved later since this event was scheduled: wait again.
                slots.arm(&mut sim.queue, flow, kind, d);
                false
            }
            _ => true,
        }
    }

    /// A due timer of `flow` acts on its connection at `now`, its segments
    /// into `out`; whether they leave from the sender (`None` for a flow
    /// without a connection).
    #[inline(always)]
    pub(super) fn fire_timer(
        &mut self,
        flow: u32,
        kind: TimerKind,
        now: SimTime,
        out: &mut Vec<TcpHeader>,
    ) -> Option<bool> {
        let App::Tcp(i) = self.flows[flow as usize].app else {
            return None;
        };
        let t = &mut self.tcps[i as usize];
        match kind {
            TimerKind::Rto => {
                t.snd.on_rto(now, out);
                Some(true)
            }
            TimerKind::DelayedAck => {
                out.extend(t.rcv.on_delack_timer(now));
                Some(false)
            }
            TimerKind::Pace => {
                t.snd.on_pace(now, out);
                Some(true)
            }
        }
    }

    /// After a TCP endpoint acted: its timers' deadlines into the slots, and
    /// an earlier deadline into the event queue.
    #[inline]
    pub(super) fn sync_timers(&mut self, queue: &mut EventQueue, flow: u32) {
        let App::Tcp(i) = self.flows[flow as usize].app else {
            return;
        };
        let t = &self.tcps[i as usize];
        let slots = &mut self.timers[flow as usize];
        for (kind, deadline) in [
            (TimerKind::Rto, t.snd.rto_deadline()),
            (TimerKind::DelayedAck, t.rcv.delack_deadline),
            (TimerKind::Pace, t.snd.pace_deadline()),
        ] {
            let d = deadline.unwrap_or(NEVER);
            slots.deadline[kind as usize] = d;
            if d < slots.scheduled[kind as usize] {
                slots.arm(queue, flow, kind, d);
            }
        }
    }
}
