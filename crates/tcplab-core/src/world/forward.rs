// SPDX-License-Identifier: MIT OR Apache-2.0
//! The packet path onto a link: a packet enters a link direction's queue
//! (or is dropped when it is full) and is put on the wire, its arrival at
//! the far end fixed (see [`super::arrival`] for what happens there).

use super::*;
use crate::net::packet::Ecn;
use crate::net::qdisc::{QueueDrop, Verdict};
use crate::net::shaper::Plan;

impl World {
    pub(super) fn send_from(&mut self, node: u32, pkt: Packet) {
        let id = self.sim.packets.insert(pkt);
        self.net
            .forward(node, id, &mut self.sim, &mut self.ep, &mut self.rec);
    }

    /// Hands packet `id` to link direction `ld` ([`Network::send_on`]):
    /// the packet path's entry, compiled out of line with the network's
    /// steps inlined into it.
    #[inline]
    pub(super) fn send_on(&mut self, ld: u32, id: PacketId) {
        self.net
            .send_on(ld, id, &mut self.sim, &mut self.ep, &mut self.rec);
    }
}

impl Network {
    #[inline]
    pub(super) fn forward(
        &mut self,
        node: u32,
        id: PacketId,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        let dst = sim.packets.get(id).dst;
        let ld = self.nodes[node as usize].routes.next(dst);
        self.send_on(ld, id, sim, ep, rec);
    }

    /// Queues packet `id` on link direction `ld`, or drops it if `ld` is
    /// `NO_ROUTE` (which validated paths never give).
    #[inline(always)]
    pub(super) fn send_on(
        &mut self,
        ld: u32,
        id: PacketId,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        debug_assert_ne!(ld, NO_ROUTE, "validated paths always have a route");
        if ld == NO_ROUTE {
            sim.packets.free(id);
            return;
        }
        self.enqueue(ld, id, sim, ep, rec);
    }

    /// Brings link direction `ld`'s queue up to `now`: the packets whose
    /// transmission started by then leave it (recorded at their start times).
    #[inline(always)]
    pub(super) fn advance_link(&mut self, ld: u32, now: SimTime, rec: &mut Recording) {
        if self.links[ld as usize].queue.due(now) {
            self.advance_link_departures(ld, now, rec);
        }
    }

    #[inline(never)]
    pub(super) fn advance_link_departures(&mut self, ld: u32, now: SimTime, rec: &mut Recording) {
        self.departures::<false>(ld, now, (0, 0), rec);
    }

    /// The departures from link direction `ld`'s pipe by `now`, with
    /// `above` (packets, bytes) waiting above them in a discipline that
    /// holds its queue (over a device queue, whose packets are the pipe's
    /// waiting ones), counted in the queue too. `HELD` only keeps the two
    /// callers' loops apart, each compiled with its closure inlined.
    #[inline(always)]
    pub(super) fn departures<const HELD: bool>(
        &mut self,
        ld: u32,
        now: SimTime,
        above: (u64, u64),
        rec: &mut Recording,
    ) {
        let (above, above_bytes) = above;
        let l = &mut self.links[ld as usize];
        let stats = &mut l.stats;
        let mut trace = rec.queue_trace.as_mut().map(|tr| &mut tr[ld as usize]);
        let samples = &mut rec.series_samples;
        l.queue.advance(now, |at, len, bytes, size| {
            let (len, bytes) = (len + above as usize, bytes + above_bytes);
            stats.note_queue(at, len + 1, bytes + size as u64, len);
            if let Some((t, v)) = trace.as_mut() {
                alloc::push(t, at.as_nanos(), "the queue series");
                alloc::push(v, len as f64, "the queue series");
                *samples += 1;
            }
        });
    }

    /// A packet reaches the egress of link direction `ld`: it goes onto the
    /// wire at once if the link is idle, else waits (or is dropped when the
    /// queue is full). Its start, end of serialization and arrival are all
    /// known now; only its arrival will be an event.
    #[inline(always)]
    pub(super) fn enqueue(
        &mut self,
        ld: u32,
        id: PacketId,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        // Drop-tail, the common case, in few instructions: nothing to ask
        // of a discipline unless the packet would wait.
        let l = &self.links[ld as usize];
        let Some(dt) = l.queue.drop_tail().filter(|_| l.shaper == NO_SHAPER) else {
            return self.enqueue_disciplined(ld, id, sim, ep, rec);
        };
        let now = sim.now;
        self.advance_link(ld, now, rec);
        let size = self.route_onwards(ld, id, &mut sim.packets);
        let l = &mut self.links[ld as usize];
        let tx_start = l.busy_until.max(now);
        if tx_start > now {
            let old = l.queue.len();
            if !dt.fits(old as u64, l.queue.bytes(), size) {
                self.refused(ld, id, Verdict::Drop(QueueDrop::Overflow), sim, ep, rec);
                return;
            }
            l.stats.note_queue(now, old, l.queue.bytes(), old + 1);
            rec.queue_at(ld, now, old + 1);
        }
        self.transmit(ld, id, size, now, tx_start, now, sim, ep, rec);
    }

    /// [`Self::enqueue`] through any other discipline (one that holds its
    /// queue, or one that judges every arrival: RED), or onto a link
    /// direction driven by a capacity trace.
    #[inline(never)]
    fn enqueue_disciplined(
        &mut self,
        ld: u32,
        id: PacketId,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        if self.links[ld as usize].queue.holds() {
            return self.enqueue_held(ld, id, sim, ep, rec);
        }
        let now = sim.now;
        self.advance_link(ld, now, rec);
        let size = self.route_onwards(ld, id, &mut sim.packets);
        let ect = matches!(sim.packets.get(id).ecn, Ecn::Ect0 | Ecn::Ect1);
        let Some((tx_start, plan)) = self.plan_on(ld, id, size, now, sim, ep, rec) else {
            return;
        };
        let l = &mut self.links[ld as usize];
        let verdict = l.queue.admit(now, tx_start, size, ect, l.device);
        if !matches!(verdict, Verdict::Enqueue) && self.refused(ld, id, verdict, sim, ep, rec) {
            return;
        }
        self.put(ld, id, size, tx_start, plan, sim, ep, rec);
    }

    /// When packet `id` of `size` bytes, reaching link direction `ld` at
    /// `now`, would start, with a shaped direction's plan for it (a
    /// trace's opportunities, a schedule's rates); `None` when a schedule's
    /// outage leaves it no transmission (it is dropped).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn plan_on(
        &mut self,
        ld: u32,
        id: PacketId,
        size: u32,
        now: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) -> Option<(SimTime, Option<Plan>)> {
        let l = &self.links[ld as usize];
        let plan = match self.shapers.get(l.shaper as usize) {
            Some(s) => match s.plan(now, size) {
                Some(p) => Some(p),
                None => {
                    self.lost_to_outage(ld, id, now, sim, ep, rec);
                    return None;
                }
            },
            None => None,
        };
        Some((plan.map_or(l.busy_until.max(now), |p| p.tx_start), plan))
    }

    /// Puts packet `id` on link direction `ld` to start at `tx_start`, as
    /// [`Self::plan_on`] planned it (counted in the queue if it waits).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn put(
        &mut self,
        ld: u32,
        id: PacketId,
        size: u32,
        tx_start: SimTime,
        plan: Option<Plan>,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        let now = sim.now;
        let l = &mut self.links[ld as usize];
        if tx_start > now {
            let old = l.queue.len();
            l.stats.note_queue(now, old, l.queue.bytes(), old + 1);
            rec.queue_at(ld, now, old + 1);
        }
        match plan {
            Some(p) => {
                let l = &self.links[ld as usize];
                let arrive = self.shapers[l.shaper as usize].commit(p, l.delay);
                self.transmit_until(
                    ld, id, size, now, tx_start, p.done, arrive, now, sim, ep, rec,
                );
            }
            None => self.transmit(ld, id, size, now, tx_start, now, sim, ep, rec),
        }
    }

    /// Drops packet `id` at link direction `ld` at `at`: its schedule's
    /// outage (or its end of sending) leaves it no transmission.
    #[cold]
    #[inline(never)]
    pub(super) fn lost_to_outage(
        &mut self,
        ld: u32,
        id: PacketId,
        at: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        let shaper = self.links[ld as usize].shaper as usize;
        self.shapers[shaper].drops += 1;
        let p = sim.packets.remove(id);
        ep.dir_stats(&p).lost_error += 1;
        rec.drop_at(ld, &p, DropCause::Outage, at);
    }

    /// Sets packet `id`'s next hop beyond link direction `ld` (and asks for
    /// that link's hot lines from memory); its size.
    #[inline(always)]
    pub(super) fn route_onwards(
        &mut self,
        ld: u32,
        id: PacketId,
        packets: &mut Slab<Packet>,
    ) -> u32 {
        let p = packets.get_mut(id);
        let size = p.size;
        // The route onwards is looked up now rather than on arrival, so
        // that the link the packet takes next (or, at its destination, the
        // reverse of this one: a host's one link, over which a reply most
        // likely leaves) can be asked for from memory a hop ahead.
        let to = self.links[ld as usize].to;
        p.next_hop = if to == p.dst {
            NO_ROUTE
        } else {
            self.nodes[to as usize].routes.next(p.dst)
        };
        let ahead = if p.next_hop == NO_ROUTE {
            ld ^ 1
        } else {
            p.next_hop
        };
        if let Some(l) = self.links.get(ahead as usize) {
            prefetch_bytes(l, LinkDir::HOT_BYTES);
        }
        size
    }

    /// Puts packet `id` of `size` bytes, queued at `queued`, on link
    /// direction `ld`'s pipe, to start serializing at `tx_start` (now, or
    /// when the packets ahead of it are done); schedules its arrival if it
    /// heads the pipe. `admitted` is when the link took it: now, or the
    /// time a discipline that holds its queue handed it down (see
    /// [`Self::transmit_until`]).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transmit(
        &mut self,
        ld: u32,
        id: PacketId,
        size: u32,
        queued: SimTime,
        tx_start: SimTime,
        admitted: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        let l = &self.links[ld as usize];
        let done = tx_start + l.tx_time(size as u64);
        let arrive = done + l.delay;
        self.transmit_until(
            ld, id, size, queued, tx_start, done, arrive, admitted, sim, ep, rec,
        );
    }

    /// As [`Self::transmit`], the packet's last bit leaving at `done` and
    /// the packet arriving at the far end at `arrive` (a shaped direction's
    /// plan), admitted to the link at `admitted` (now, or the time a
    /// discipline that holds its queue handed it down): it waits if it
    /// starts later.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transmit_until(
        &mut self,
        ld: u32,
        id: PacketId,
        size: u32,
        queued: SimTime,
        tx_start: SimTime,
        done: SimTime,
        arrive: SimTime,
        admitted: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        let l = &mut self.links[ld as usize];
        l.busy_until = done;
        // Counted (and captured) only if it starts before the run ends.
        let started = tx_start <= sim.horizon;
        if started {
            l.tx_packets += 1;
            l.tx_bytes += size as u64;
            l.busy_ns += (done.min(sim.horizon) - tx_start).as_nanos();
            if let Some(tr) = &mut rec.sojourn_trace {
                record_sojourn_sample(&mut tr[ld as usize], tx_start, tx_start - queued);
                rec.series_samples += 1;
            }
            if tx_start > queued {
                let wait = (tx_start - queued).as_nanos();
                let s = &mut l.stats;
                s.sojourn_sum += wait;
                s.sojourn_max = s.sojourn_max.max(wait);
                if sim.delay_percentiles {
                    record_sojourn(s, wait);
                }
            }
        }
        // The arrival's place among events at the same instant is fixed now.
        let seq = sim.queue.reserve_seq();
        if l.queue.front().is_none() {
            sim.queue.push_seq(arrive, seq, Event::Arrive { ld });
        }
        l.queue.push(
            InFlight {
                tx_start,
                arrive,
                seq,
                id,
                size,
            },
            admitted,
        );
        if started && rec.pcap_tx {
            rec.capture(ld, id, tx_start, &sim.packets, &ep.flows);
        }
    }

    /// A verdict other than enqueue: marks the packet, or drops it (then
    /// true).
    #[cold]
    #[inline(never)]
    fn refused(
        &mut self,
        ld: u32,
        id: PacketId,
        verdict: Verdict,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) -> bool {
        let l = &mut self.links[ld as usize];
        match verdict {
            Verdict::Enqueue => false,
            Verdict::Mark => {
                l.stats.marks += 1;
                sim.packets.get_mut(id).ecn = Ecn::Ce;
                false
            }
            Verdict::Drop(why) => {
                let cause = if why == QueueDrop::Overflow {
                    l.stats.drops_queue += 1;
                    DropCause::Queue
                } else {
                    l.stats.drops_aqm += 1;
                    DropCause::Aqm
                };
                let p = sim.packets.remove(id);
                ep.dir_stats(&p).lost_queue += 1;
                rec.drop_at(ld, &p, cause, sim.now);
                true
            }
        }
    }
}

/// Counts a sojourn in the link direction's distribution, made at its first.
#[cold]
#[inline(never)]
fn record_sojourn(s: &mut LinkStats, wait: u64) {
    s.sojourn.get_or_insert_with(Default::default).record(wait);
}

/// One sample of a link direction's sojourn series.
#[cold]
#[inline(never)]
fn record_sojourn_sample(tr: &mut (Vec<u64>, Vec<f64>), at: SimTime, wait: SimDuration) {
    alloc::push(&mut tr.0, at.as_nanos(), "the sojourn series");
    alloc::push(&mut tr.1, wait.as_secs_f64(), "the sojourn series");
}
