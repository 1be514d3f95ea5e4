// SPDX-License-Identifier: MIT OR Apache-2.0
//! The packet path through a link direction whose discipline holds its own
//! queue (CoDel, FQ-CoDel, PIE: [`Qdisc::holds`]).
//!
//! Such a discipline decides what leaves, and when to drop, as the link
//! falls idle, so a packet's start is not known when it arrives. Yet no
//! event is needed for it: while packets wait, the link is busy until a
//! known time (`busy_until`), and the packet on the wire arrives at the far
//! end no earlier. So the link is brought up to date lazily, before each
//! arrival at its queue and before each arrival at its far end: every
//! dequeue that fell due meanwhile runs then, at its own time, in order
//! ([`Network::advance_held`]). The results are those of dequeuing on time:
//! the discipline sees the same times and the same queue, and the packets
//! it sends arrive when they would have.
//!
//! A link direction driven by a capacity trace is the exception: its next
//! opportunity can come after the packet on the wire has arrived, so it
//! schedules an [`Event::Dequeue`] for it while packets wait.

use super::*;
use crate::net::packet::Ecn;
use crate::net::qdisc::{QueueDrop, Queued};
use crate::net::queue::InFlight;

impl Network {
    /// Offers packet `id` to link direction `ld`'s discipline, and sends it
    /// (or whatever the discipline picks) at once if the link is idle.
    pub(super) fn enqueue_held(
        &mut self,
        ld: u32,
        id: PacketId,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        let now = sim.now;
        self.advance_held(ld, now, sim, ep, rec);
        let size = self.route_onwards(ld, id, &mut sim.packets);
        let p = sim.packets.get(id);
        let q = Queued {
            id,
            size,
            enqueued: now,
            ect: matches!(p.ecn, Ecn::Ect0 | Ecn::Ect1),
            ce: false,
            // One flow per connection and direction.
            hash: p.flow.wrapping_mul(2) | (p.src > p.dst) as u32,
        };
        let l = &mut self.links[ld as usize];
        let before = l.queue.waiting();
        let device = l.device;
        // The device asked the emptied discipline for a packet as soon as
        // it had room (ns-3's dequeue that finds the queue empty: it ends
        // CoDel's dropping state, and retires FQ-CoDel's emptied flows).
        let room = device > 0 && l.queue.device_room_at(device).is_none_or(|t| t <= now);
        if room && l.queue.qdisc().waiting().0 == 0 {
            let none = l.queue.qdisc_mut().take(now, &mut self.held_drops);
            debug_assert!(none.is_none());
        }
        l.queue.qdisc_mut().offer(q, &mut self.held_drops);
        // An idle link sends at once: the packet passes through the
        // discipline (which sees it leave after no wait) without counting
        // in the queue, as it would not behind a drop-tail. An idle trace
        // link waits for its next opportunity. Over a device queue with
        // room, the packet goes down to it at once.
        let mut idle = l.busy_until <= now || room;
        if idle && l.shaper != NO_SHAPER {
            l.busy_until = self.shapers[l.shaper as usize].idle_start(now);
            idle = l.busy_until <= now;
        }
        let out = if idle {
            l.queue.qdisc_mut().take(now, &mut self.held_drops)
        } else {
            None
        };
        // Sent before the queue is settled: over a device queue the packet
        // may wait there, and it counts.
        if let Some(q) = out {
            self.send_held(ld, q, now, sim, ep, rec);
        }
        self.settle_held(ld, now, before, sim, ep, rec);
        self.wake_held(ld, &mut sim.queue);
    }

    /// Makes sure a trace-driven link direction whose discipline holds
    /// packets dequeues on time: the next dequeue (at `busy_until`, an
    /// opportunity) may come after every packet on the wire has arrived,
    /// so no arrival would bring the link up to date then.
    #[inline(always)]
    pub(super) fn wake_held(&mut self, ld: u32, queue: &mut EventQueue) {
        if self.links[ld as usize].shaper != NO_SHAPER {
            self.wake_shaped(ld, queue);
        }
    }

    /// [`Self::wake_held`] for a link direction driven by a capacity trace.
    #[inline(never)]
    fn wake_shaped(&mut self, ld: u32, queue: &mut EventQueue) {
        let l = &self.links[ld as usize];
        if l.queue.qdisc().waiting().0 == 0 {
            return;
        }
        let t = &mut self.shapers[l.shaper as usize];
        if t.wake < l.busy_until && l.busy_until < SimTime::MAX {
            t.wake = l.busy_until;
            queue.push(l.busy_until, Event::Dequeue { ld });
        }
    }

    /// Runs every dequeue of link direction `ld` due by `now`, each at its
    /// time: while packets wait, the next leaves when the link is done with
    /// the one before (or, over a device queue, when the device has room).
    #[inline(always)]
    pub(super) fn advance_held(
        &mut self,
        ld: u32,
        now: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        if self.links[ld as usize].device > 0 {
            return self.advance_device(ld, now, sim, ep, rec);
        }
        loop {
            let l = &self.links[ld as usize];
            let at = l.busy_until;
            if at > now || l.queue.qdisc().waiting().0 == 0 {
                return self.wake_held(ld, &mut sim.queue);
            }
            self.dequeue_held(ld, at, sim, ep, rec);
        }
    }

    /// [`Self::advance_held`] over a device queue: the discipline hands a
    /// packet down each time the device has room (when the packet as many
    /// places from the newest handed down starts), and the packets in the
    /// device start as the link is done with the one before. Both kinds of
    /// step are taken in time order, so the queue's time averages see each.
    #[inline(never)]
    fn advance_device(
        &mut self,
        ld: u32,
        now: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        loop {
            let l = &self.links[ld as usize];
            if l.queue.qdisc().waiting().0 == 0 {
                break;
            }
            // The device is full while the discipline holds packets (each
            // time it has room, a packet goes down), so it has a time.
            let at = l.queue.device_room_at(l.device).unwrap_or(now);
            if at > now {
                break;
            }
            self.device_departures(ld, at, rec);
            self.dequeue_held(ld, at, sim, ep, rec);
        }
        self.device_departures(ld, now, rec);
    }

    /// The packets of `ld`'s device queue that started by `at`, the
    /// discipline's counted in the queue above them.
    fn device_departures(&mut self, ld: u32, at: SimTime, rec: &mut Recording) {
        let q = &self.links[ld as usize].queue;
        if q.due(at) {
            let above = q.qdisc().waiting();
            self.departures::<true>(ld, at, above, rec);
        }
    }

    /// Takes the packet to send at `at` from `ld`'s discipline and puts it
    /// on the wire.
    fn dequeue_held(
        &mut self,
        ld: u32,
        at: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        let l = &mut self.links[ld as usize];
        let before = l.queue.waiting();
        let out = l.queue.qdisc_mut().take(at, &mut self.held_drops);
        if let Some(q) = out {
            self.send_held(ld, q, at, sim, ep, rec);
        }
        self.settle_held(ld, at, before, sim, ep, rec);
    }

    /// Puts a packet the discipline gave out at `at` on the wire.
    #[inline(always)]
    fn send_held(
        &mut self,
        ld: u32,
        q: Queued,
        at: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        if q.ce {
            self.links[ld as usize].stats.marks += 1;
            sim.packets.get_mut(q.id).ecn = Ecn::Ce;
        }
        let l = &self.links[ld as usize];
        let shaper = l.shaper;
        if shaper == NO_SHAPER {
            // Handed to a device queue, it starts when the link is done
            // with the packets ahead of it there.
            let start = at.max(l.busy_until);
            return self.transmit(ld, q.id, q.size, q.enqueued, start, at, sim, ep, rec);
        }
        // A shaped link: from `at` as its plan allows; the next dequeue
        // comes when the link can start another packet.
        let delay = self.links[ld as usize].delay;
        let t = &mut self.shapers[shaper as usize];
        let Some(p) = t.plan_dequeued(at, q.size) else {
            return self.lost_to_outage(ld, q.id, at, sim, ep, rec);
        };
        let arrive = t.commit(p, delay);
        let next = t.next_start();
        let now = sim.now;
        self.transmit_until(
            ld, q.id, q.size, q.enqueued, p.tx_start, p.done, arrive, now, sim, ep, rec,
        );
        self.links[ld as usize].busy_until = next;
    }

    /// Accounts for what one call to `ld`'s discipline at `at` did: the
    /// packets it dropped, and the queue's change from `before` (packets,
    /// bytes).
    #[inline(always)]
    fn settle_held(
        &mut self,
        ld: u32,
        at: SimTime,
        before: (u64, u64),
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        if !self.held_drops.is_empty() {
            self.record_held_drops(ld, sim, ep, rec);
        }
        let l = &mut self.links[ld as usize];
        let after = l.queue.waiting();
        if after != before {
            let (old, new) = (before.0 as usize, after.0 as usize);
            l.stats.note_queue(at, old, before.1, new);
            rec.queue_at(ld, at, new);
        }
    }

    /// Counts and logs the packets `ld`'s discipline dropped in its last
    /// call (each at its own time).
    #[inline(never)]
    fn record_held_drops(
        &mut self,
        ld: u32,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        let mut dropped = std::mem::take(&mut self.held_drops);
        for d in dropped.drain(..) {
            let l = &mut self.links[ld as usize];
            let cause = if d.why == QueueDrop::Overflow {
                l.stats.drops_queue += 1;
                DropCause::Queue
            } else {
                l.stats.drops_aqm += 1;
                DropCause::Aqm
            };
            let p = sim.packets.remove(d.id);
            ep.dir_stats(&p).lost_queue += 1;
            rec.drop_at(ld, &p, cause, d.at);
        }
        self.held_drops = dropped;
    }

    /// The packet arriving now at the far end of `ld`, after the dequeues
    /// due by now; schedules the arrival of the next one when the engine
    /// could not (it was not on the wire yet when this arrival popped).
    pub(super) fn pop_arrival_held(
        &mut self,
        ld: u32,
        now: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) -> InFlight {
        let followed = self.links[ld as usize].queue.second().is_some();
        self.advance_held(ld, now, sim, ep, rec);
        let q = &mut self.links[ld as usize].queue;
        let e = q.pop_arrival().expect("an arrival has a packet");
        if !followed {
            if let Some(next) = q.front() {
                let (arrive, seq) = (next.arrive, next.seq);
                sim.queue.push_seq(arrive, seq, Event::Arrive { ld });
            }
        }
        e
    }
}
