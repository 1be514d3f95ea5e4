// SPDX-License-Identifier: MIT OR Apache-2.0
//! The far end of a link direction: a packet survives its error model
//! (loss, jitter, ARQ's retransmissions, reordering) or not, and goes on
//! to its destination endpoint or its next link. The network decides
//! (`impl Network`); the world hands what goes on to the endpoints or back
//! to the network (`impl World`).

use super::*;
use crate::net::arq::ArqFate;
use crate::net::error_model::{base_loses, ErrorModel, Fate};

impl World {
    /// Packet `id` reaches the far end of link direction `ld`: through the
    /// link's error model ([`Network::fate`]), on to where it goes.
    pub(super) fn arrive(&mut self, ld: u32, id: PacketId) {
        match self.net.fate(ld, id, &mut self.sim) {
            Fate::Now => self.received(ld, id),
            Fate::Lost => {
                let (sim, ep, rec) = (&mut self.sim, &mut self.ep, &mut self.rec);
                self.net.lost_to_error(ld, id, sim, ep, rec);
            }
            // Delay jitter: on when it is over.
            Fate::Later(at) => self.sim.queue.push(at, Event::Release { ld, id }),
            Fate::Arq => self.arq_arrival(ld, id),
            Fate::Reorder => self.reorder_arrival(ld, id),
        }
    }

    /// Packet `id` has crossed link direction `ld` (and its error model and
    /// jitter): on to its destination, or its next link. Inlined into
    /// `arrive`, the hot caller, as it was part of it.
    #[inline(always)]
    pub(super) fn received(&mut self, ld: u32, id: PacketId) {
        let now = self.sim.now;
        let node = self.net.links[ld as usize].to;
        if self.rec.pcap_rx {
            self.rec
                .capture(ld, id, now, &self.sim.packets, &self.ep.flows);
        }
        let p = self.sim.packets.get(id);
        if p.dst == node {
            self.deliver(id);
        } else {
            self.send_on(p.next_hop, id);
        }
    }

    /// An attempt of packet `id` reaches the far end of link direction
    /// `ld`, whose ARQ decides ([`Network::arq_arrival`]); the packets it
    /// lets go on, go on.
    #[cold]
    #[inline(never)]
    fn arq_arrival(&mut self, ld: u32, id: PacketId) {
        for id in self
            .net
            .arq_arrival(ld, id, &mut self.sim, &mut self.ep, &mut self.rec)
        {
            self.received(ld, id);
        }
    }

    /// Packet `id` reaches the far end of link direction `ld`, whose
    /// reordering may hold it back; what goes on now goes on.
    #[cold]
    #[inline(never)]
    fn reorder_arrival(&mut self, ld: u32, id: PacketId) {
        for id in self.net.reorder_arrival(ld, id, &mut self.sim) {
            self.received(ld, id);
        }
    }

    /// A held packet's longest wait is over: on, if no later packets
    /// released it already ([`Network::unhold`]).
    pub(super) fn unhold(&mut self, ld: u32, tag: u32) {
        if let Some(id) = self.net.unhold(ld, tag) {
            self.received(ld, id);
        }
    }

    /// Sends packet `id` on link direction `ld` again (its ARQ's
    /// retransmission, [`Network::resend`]); if a schedule's outage loses
    /// it, the packets held behind it go on.
    #[cold]
    #[inline(never)]
    pub(super) fn resend(&mut self, ld: u32, id: PacketId) {
        for id in self
            .net
            .resend(ld, id, &mut self.sim, &mut self.ep, &mut self.rec)
        {
            self.received(ld, id);
        }
    }
}

impl Network {
    /// The arrival after the one at the front of link direction `ld`'s
    /// pipe, if it is on the wire already: (time, scheduling order), for
    /// the event queue to put in the popped arrival's place.
    #[inline(always)]
    pub(super) fn follower(&self, ld: u32) -> Option<(SimTime, u64)> {
        let q = &self.links[ld as usize].queue;
        q.second().map(|e| (e.arrive, e.seq))
    }

    /// The packet arriving at `now` at the far end of link direction `ld`,
    /// the link brought up to date first (its departures by `now`, or a
    /// discipline's dequeues).
    #[inline(always)]
    pub(super) fn pop_arrival(
        &mut self,
        ld: u32,
        now: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) -> InFlight {
        if self.links[ld as usize].queue.holds() {
            return self.pop_arrival_held(ld, now, sim, ep, rec);
        }
        self.advance_link(ld, now, rec);
        let q = &mut self.links[ld as usize].queue;
        q.pop_arrival().expect("an arrival has a packet")
    }

    /// Every link direction brought up to `at`: the departures (or a
    /// discipline's dequeues) that happened by then, at the end of a run.
    pub(super) fn advance_all(
        &mut self,
        at: SimTime,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        for ld in 0..self.links.len() as u32 {
            if self.links[ld as usize].queue.holds() {
                self.advance_held(ld, at, sim, ep, rec);
            } else {
                self.advance_link(ld, at, rec);
            }
        }
    }

    /// What link direction `ld`'s error model makes of packet `id`
    /// reaching its far end now (no error model: it goes on).
    #[inline(always)]
    pub(super) fn fate(&mut self, ld: u32, id: PacketId, sim: &mut Sim) -> Fate {
        match &mut self.links[ld as usize].error {
            Some(em) => em.receive(sim.now, sim.packets.get(id)),
            None => Fate::Now,
        }
    }

    /// The packet held back by `ld`'s reordering under `tag`, if no later
    /// packets released it already.
    pub(super) fn unhold(&mut self, ld: u32, tag: u32) -> Option<PacketId> {
        let Some(ErrorModel::Reordered(r)) = self.links[ld as usize].error.as_deref_mut() else {
            unreachable!("a held packet comes from a reordering link")
        };
        r.reorder.timed_out(tag)
    }

    /// Drops packet `id`, lost to link direction `ld`'s error model on
    /// arrival (after its last attempt, with ARQ).
    #[cold]
    #[inline(never)]
    fn lost_to_error(
        &mut self,
        ld: u32,
        id: PacketId,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) {
        self.links[ld as usize].stats.drops_error += 1;
        let p = sim.packets.remove(id);
        ep.dir_stats(&p).lost_error += 1;
        rec.drop_at(ld, &p, DropCause::Error, sim.now);
    }

    /// An attempt of packet `id` reaches the far end of link direction
    /// `ld`, whose ARQ decides: send it again, lose it for good, or deliver
    /// it (and, in order, the packets it held up). The packets that go on.
    fn arq_arrival(
        &mut self,
        ld: u32,
        id: PacketId,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) -> Vec<PacketId> {
        let now = sim.now;
        let l = &mut self.links[ld as usize];
        let Some(ErrorModel::Arq(a)) = l.error.as_deref_mut() else {
            unreachable!("an ARQ arrival comes from an ARQ link")
        };
        let lost = base_loses(&mut a.base, now, sim.packets.get(id));
        match a.arq.arrival(id, now, lost) {
            ArqFate::Retry(at) => {
                sim.queue.push(at, Event::Retransmit { ld, id });
                Vec::new()
            }
            ArqFate::Lost(go) => {
                self.lost_to_error(ld, id, sim, ep, rec);
                go
            }
            ArqFate::Deliver(go) => go,
        }
    }

    /// Packet `id` reaches the far end of link direction `ld`, whose
    /// reordering may hold it back; the packets that go on now.
    fn reorder_arrival(&mut self, ld: u32, id: PacketId, sim: &mut Sim) -> Vec<PacketId> {
        let Some(ErrorModel::Reordered(r)) = self.links[ld as usize].error.as_deref_mut() else {
            unreachable!("a reordering arrival comes from a reordering link")
        };
        let out = r.reorder.arrival(id, sim.now);
        if let Some((tag, until)) = out.held {
            sim.queue.push(until, Event::Unhold { ld, tag });
        }
        out.go
    }

    /// Sends packet `id` on link direction `ld` again (its ARQ's
    /// retransmission): at the back of the link's FIFO, past its
    /// discipline (the link's own buffer keeps it). The packets that go on
    /// at once (none, unless a schedule's outage loses it).
    fn resend(
        &mut self,
        ld: u32,
        id: PacketId,
        sim: &mut Sim,
        ep: &mut Endpoints,
        rec: &mut Recording,
    ) -> Vec<PacketId> {
        let now = sim.now;
        self.advance_link(ld, now, rec);
        let size = sim.packets.get(id).size;
        if let Some((tx_start, plan)) = self.plan_on(ld, id, size, now, sim, ep, rec) {
            self.put(ld, id, size, tx_start, plan, sim, ep, rec);
            return Vec::new();
        }
        // Lost to a schedule's outage: the packets held behind it go on.
        let Some(ErrorModel::Arq(a)) = self.links[ld as usize].error.as_deref_mut() else {
            unreachable!("a retransmission comes from an ARQ link")
        };
        a.arq.abandon(id, now)
    }
}
