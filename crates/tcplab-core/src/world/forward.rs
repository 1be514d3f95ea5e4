// SPDX-License-Identifier: MIT OR Apache-2.0
//! The packet path: a packet enters a link direction's queue (or is dropped
//! when it is full), crosses the link, survives its error model or not, and
//! goes on along its route or to its destination.

use super::*;
use crate::net::arq::ArqFate;
use crate::net::error_model::{base_loses, ErrorModel, Fate};
use crate::net::packet::Ecn;
use crate::net::qdisc::{QueueDrop, Verdict};
use crate::net::shaper::Plan;

impl World {
    pub(super) fn send_from(&mut self, node: u32, pkt: Packet) {
        let id = self.packets.insert(pkt);
        self.forward(node, id);
    }

    #[inline]
    pub(super) fn forward(&mut self, node: u32, id: PacketId) {
        let dst = self.packets.get(id).dst;
        let ld = self.net.nodes[node as usize].routes.next(dst);
        self.send_on(ld, id);
    }

    /// Queues packet `id` on link direction `ld`, or drops it if `ld` is
    /// `NO_ROUTE` (which validated paths never give).
    #[inline]
    pub(super) fn send_on(&mut self, ld: u32, id: PacketId) {
        debug_assert_ne!(ld, NO_ROUTE, "validated paths always have a route");
        if ld == NO_ROUTE {
            self.packets.free(id);
            return;
        }
        self.enqueue(ld, id);
    }

    /// Brings link direction `ld`'s queue up to `now`: the packets whose
    /// transmission started by then leave it (recorded at their start times).
    #[inline(always)]
    pub(super) fn advance_link(&mut self, ld: u32, now: SimTime) {
        if self.net.links[ld as usize].queue.due(now) {
            self.advance_link_departures(ld, now);
        }
    }

    #[inline(never)]
    pub(super) fn advance_link_departures(&mut self, ld: u32, now: SimTime) {
        self.departures::<false>(ld, now, (0, 0));
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
    ) {
        let (above, above_bytes) = above;
        let l = &mut self.net.links[ld as usize];
        let stats = &mut l.stats;
        let mut trace = self.rec.queue_trace.as_mut().map(|tr| &mut tr[ld as usize]);
        let samples = &mut self.rec.series_samples;
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
    #[inline]
    pub(super) fn enqueue(&mut self, ld: u32, id: PacketId) {
        // Drop-tail, the common case, in few instructions: nothing to ask
        // of a discipline unless the packet would wait.
        let l = &self.net.links[ld as usize];
        let Some(dt) = l.queue.drop_tail().filter(|_| l.shaper == NO_SHAPER) else {
            return self.enqueue_disciplined(ld, id);
        };
        let now = self.now;
        self.advance_link(ld, now);
        let size = self.route_onwards(ld, id);
        let l = &mut self.net.links[ld as usize];
        let tx_start = l.busy_until.max(now);
        if tx_start > now {
            let old = l.queue.len();
            if !dt.fits(old as u64, l.queue.bytes(), size) {
                self.refused(ld, id, Verdict::Drop(QueueDrop::Overflow));
                return;
            }
            l.stats.note_queue(now, old, l.queue.bytes(), old + 1);
            self.record_queue(ld, old + 1);
        }
        self.transmit(ld, id, size, now, tx_start, now);
    }

    /// [`Self::enqueue`] through any other discipline (one that holds its
    /// queue, or one that judges every arrival: RED), or onto a link
    /// direction driven by a capacity trace.
    #[inline(never)]
    fn enqueue_disciplined(&mut self, ld: u32, id: PacketId) {
        if self.net.links[ld as usize].queue.holds() {
            return self.enqueue_held(ld, id);
        }
        let now = self.now;
        self.advance_link(ld, now);
        let size = self.route_onwards(ld, id);
        let ect = matches!(self.packets.get(id).ecn, Ecn::Ect0 | Ecn::Ect1);
        let Some((tx_start, plan)) = self.plan_on(ld, id, size, now) else {
            return;
        };
        let l = &mut self.net.links[ld as usize];
        let verdict = l.queue.admit(now, tx_start, size, ect, l.device);
        if !matches!(verdict, Verdict::Enqueue) && self.refused(ld, id, verdict) {
            return;
        }
        self.put(ld, id, size, tx_start, plan);
    }

    /// When packet `id` of `size` bytes, reaching link direction `ld` at
    /// `now`, would start, with a shaped direction's plan for it (a
    /// trace's opportunities, a schedule's rates); `None` when a schedule's
    /// outage leaves it no transmission (it is dropped).
    #[inline]
    fn plan_on(
        &mut self,
        ld: u32,
        id: PacketId,
        size: u32,
        now: SimTime,
    ) -> Option<(SimTime, Option<Plan>)> {
        let l = &self.net.links[ld as usize];
        let plan = match self.net.shapers.get(l.shaper as usize) {
            Some(s) => match s.plan(now, size) {
                Some(p) => Some(p),
                None => {
                    self.lost_to_outage(ld, id, now);
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
    fn put(&mut self, ld: u32, id: PacketId, size: u32, tx_start: SimTime, plan: Option<Plan>) {
        let now = self.now;
        let l = &mut self.net.links[ld as usize];
        if tx_start > now {
            let old = l.queue.len();
            l.stats.note_queue(now, old, l.queue.bytes(), old + 1);
            self.record_queue(ld, old + 1);
        }
        match plan {
            Some(p) => {
                let l = &self.net.links[ld as usize];
                let arrive = self.net.shapers[l.shaper as usize].commit(p, l.delay);
                self.transmit_until(ld, id, size, now, tx_start, p.done, arrive, now);
            }
            None => self.transmit(ld, id, size, now, tx_start, now),
        }
    }

    /// Drops packet `id` at link direction `ld` at `at`: its schedule's
    /// outage (or its end of sending) leaves it no transmission.
    #[cold]
    #[inline(never)]
    pub(super) fn lost_to_outage(&mut self, ld: u32, id: PacketId, at: SimTime) {
        let shaper = self.net.links[ld as usize].shaper as usize;
        self.net.shapers[shaper].drops += 1;
        let p = self.packets.remove(id);
        self.ep.dir_stats(&p).lost_error += 1;
        self.rec.drop_at(ld, &p, DropCause::Outage, at);
    }

    /// Sets packet `id`'s next hop beyond link direction `ld` (and asks for
    /// that link's hot lines from memory); its size.
    #[inline(always)]
    pub(super) fn route_onwards(&mut self, ld: u32, id: PacketId) -> u32 {
        let p = self.packets.get_mut(id);
        let size = p.size;
        // The route onwards is looked up now rather than on arrival, so
        // that the link the packet takes next (or, at its destination, the
        // reverse of this one: a host's one link, over which a reply most
        // likely leaves) can be asked for from memory a hop ahead.
        let to = self.net.links[ld as usize].to;
        p.next_hop = if to == p.dst {
            NO_ROUTE
        } else {
            self.net.nodes[to as usize].routes.next(p.dst)
        };
        let ahead = if p.next_hop == NO_ROUTE {
            ld ^ 1
        } else {
            p.next_hop
        };
        if let Some(l) = self.net.links.get(ahead as usize) {
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
    pub(super) fn transmit(
        &mut self,
        ld: u32,
        id: PacketId,
        size: u32,
        queued: SimTime,
        tx_start: SimTime,
        admitted: SimTime,
    ) {
        let l = &self.net.links[ld as usize];
        let done = tx_start + l.tx_time(size as u64);
        let arrive = done + l.delay;
        self.transmit_until(ld, id, size, queued, tx_start, done, arrive, admitted);
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
    ) {
        let l = &mut self.net.links[ld as usize];
        l.busy_until = done;
        // Counted (and captured) only if it starts before the run ends.
        let started = tx_start <= self.horizon;
        if started {
            l.tx_packets += 1;
            l.tx_bytes += size as u64;
            l.busy_ns += (done.min(self.horizon) - tx_start).as_nanos();
            if let Some(tr) = &mut self.rec.sojourn_trace {
                record_sojourn_sample(&mut tr[ld as usize], tx_start, tx_start - queued);
                self.rec.series_samples += 1;
            }
            if tx_start > queued {
                let wait = (tx_start - queued).as_nanos();
                let s = &mut l.stats;
                s.sojourn_sum += wait;
                s.sojourn_max = s.sojourn_max.max(wait);
                if self.delay_percentiles {
                    record_sojourn(s, wait);
                }
            }
        }
        // The arrival's place among events at the same instant is fixed now.
        let seq = self.queue.reserve_seq();
        if l.queue.front().is_none() {
            self.queue.push_seq(arrive, seq, Event::Arrive { ld });
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
        if started && self.rec.pcap_tx {
            self.capture(ld, id, tx_start);
        }
    }

    pub(super) fn arrive(&mut self, ld: u32, id: PacketId) {
        let now = self.now;
        let l = &mut self.net.links[ld as usize];
        if let Some(em) = &mut l.error {
            match em.receive(now, self.packets.get(id)) {
                Fate::Now => {}
                Fate::Lost => return self.lost_to_error(ld, id),
                // Delay jitter: on when it is over.
                Fate::Later(at) => return self.queue.push(at, Event::Release { ld, id }),
                Fate::Arq => return self.arq_arrival(ld, id),
                Fate::Reorder => return self.reorder_arrival(ld, id),
            }
        }
        self.received(ld, id);
    }

    /// Drops packet `id`, lost to link direction `ld`'s error model on
    /// arrival (after its last attempt, with ARQ).
    #[cold]
    #[inline(never)]
    fn lost_to_error(&mut self, ld: u32, id: PacketId) {
        self.net.links[ld as usize].stats.drops_error += 1;
        let p = self.packets.remove(id);
        self.ep.dir_stats(&p).lost_error += 1;
        self.record_drop(ld, &p, DropCause::Error);
    }

    /// Packet `id` has crossed link direction `ld` (and its error model and
    /// jitter): on to its destination, or its next link. Inlined into
    /// `arrive`, the hot caller, as it was part of it.
    #[inline(always)]
    pub(super) fn received(&mut self, ld: u32, id: PacketId) {
        let now = self.now;
        let node = self.net.links[ld as usize].to;
        if self.rec.pcap_rx {
            self.capture(ld, id, now);
        }
        let p = self.packets.get(id);
        if p.dst == node {
            self.deliver(id);
        } else {
            self.send_on(p.next_hop, id);
        }
    }

    /// An attempt of packet `id` reaches the far end of link direction
    /// `ld`, whose ARQ decides: send it again, lose it for good, or deliver
    /// it (and, in order, the packets it held up).
    #[cold]
    #[inline(never)]
    fn arq_arrival(&mut self, ld: u32, id: PacketId) {
        let now = self.now;
        let l = &mut self.net.links[ld as usize];
        let Some(ErrorModel::Arq(a)) = l.error.as_deref_mut() else {
            unreachable!("an ARQ arrival comes from an ARQ link")
        };
        let lost = base_loses(&mut a.base, now, self.packets.get(id));
        let go = match a.arq.arrival(id, now, lost) {
            ArqFate::Retry(at) => return self.queue.push(at, Event::Retransmit { ld, id }),
            ArqFate::Lost(go) => {
                self.lost_to_error(ld, id);
                go
            }
            ArqFate::Deliver(go) => go,
        };
        for id in go {
            self.received(ld, id);
        }
    }

    /// Packet `id` reaches the far end of link direction `ld`, whose
    /// reordering may hold it back; what goes on now goes on.
    #[cold]
    #[inline(never)]
    fn reorder_arrival(&mut self, ld: u32, id: PacketId) {
        let now = self.now;
        let Some(ErrorModel::Reordered(r)) = self.net.links[ld as usize].error.as_deref_mut()
        else {
            unreachable!("a reordering arrival comes from a reordering link")
        };
        let out = r.reorder.arrival(id, now);
        if let Some((tag, until)) = out.held {
            self.queue.push(until, Event::Unhold { ld, tag });
        }
        for id in out.go {
            self.received(ld, id);
        }
    }

    /// A held packet's longest wait is over: on, if no later packets
    /// released it already.
    pub(super) fn unhold(&mut self, ld: u32, tag: u32) {
        let Some(ErrorModel::Reordered(r)) = self.net.links[ld as usize].error.as_deref_mut()
        else {
            unreachable!("a held packet comes from a reordering link")
        };
        if let Some(id) = r.reorder.timed_out(tag) {
            self.received(ld, id);
        }
    }

    /// Sends packet `id` on link direction `ld` again (its ARQ's
    /// retransmission): at the back of the link's FIFO, past its
    /// discipline (the link's own buffer keeps it).
    #[cold]
    #[inline(never)]
    pub(super) fn resend(&mut self, ld: u32, id: PacketId) {
        let now = self.now;
        self.advance_link(ld, now);
        let size = self.packets.get(id).size;
        if let Some((tx_start, plan)) = self.plan_on(ld, id, size, now) {
            return self.put(ld, id, size, tx_start, plan);
        }
        // Lost to a schedule's outage: the packets held behind it go on.
        let Some(ErrorModel::Arq(a)) = self.net.links[ld as usize].error.as_deref_mut() else {
            unreachable!("a retransmission comes from an ARQ link")
        };
        for id in a.arq.abandon(id, now) {
            self.received(ld, id);
        }
    }

    /// A verdict other than enqueue: marks the packet, or drops it (then
    /// true).
    #[cold]
    #[inline(never)]
    fn refused(&mut self, ld: u32, id: PacketId, verdict: Verdict) -> bool {
        let l = &mut self.net.links[ld as usize];
        match verdict {
            Verdict::Enqueue => false,
            Verdict::Mark => {
                l.stats.marks += 1;
                self.packets.get_mut(id).ecn = Ecn::Ce;
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
                let p = self.packets.remove(id);
                self.ep.dir_stats(&p).lost_queue += 1;
                self.record_drop(ld, &p, cause);
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
