// SPDX-License-Identifier: MIT OR Apache-2.0
//! The packets of one link direction, from admission to arrival: waiting in
//! a drop-tail FIFO, being serialized, or propagating.
//!
//! Drop-tail: a packet that would exceed the limit (in packets or bytes) is
//! dropped on arrival. The packet being serialized is not in the queue, as
//! in ns-2 and ns-3, so a 100-packet queue holds 100 waiting packets.
//!
//! A FIFO link with a fixed rate knows, when it admits a packet, exactly when
//! that packet will start serializing: when the one before it is done. So no
//! event marks the end of a transmission. Each admitted packet carries its
//! start time, and a packet has left the queue once its start time has come
//! ([`LinkQueue::advance`] brings the queue up to date, reporting each
//! departure in order). At one instant, departures come before arrivals.
//! Only the packet at the head of the pipe has an arrival event scheduled.

use std::collections::VecDeque;

use crate::engine::PacketId;
use crate::time::SimTime;
use crate::units::QueueLimit;

/// One admitted packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// When its first bit goes on the wire.
    pub tx_start: SimTime,
    /// When its last bit reaches the far end.
    pub arrive: SimTime,
    /// The event sequence number reserved for its arrival.
    pub seq: u64,
    pub id: PacketId,
    pub size: u32,
}

#[derive(Debug)]
pub struct LinkQueue {
    limit: QueueLimit,
    /// Admitted packets in sending order; `pipe[..departed]` have started
    /// serializing, `pipe[departed..]` wait.
    pipe: VecDeque<InFlight>,
    departed: usize,
    waiting_bytes: u64,
}

impl LinkQueue {
    pub fn new(limit: QueueLimit) -> Self {
        LinkQueue {
            limit,
            // Allocated now rather than by a link's first packet: with
            // tens of thousands of links, that is tens of thousands of
            // allocations (and page faults) inside the event loop.
            pipe: VecDeque::with_capacity(4),
            departed: 0,
            waiting_bytes: 0,
        }
    }

    /// Packets waiting (as of the last [`Self::advance`]).
    #[inline]
    pub fn len(&self) -> usize {
        self.pipe.len() - self.departed
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes waiting (as of the last [`Self::advance`]).
    pub fn bytes(&self) -> u64 {
        self.waiting_bytes
    }

    /// Whether a packet of `size` bytes may wait without exceeding the limit.
    #[inline]
    pub fn fits(&self, size: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => (self.len() as u64) < n,
            QueueLimit::Bytes(b) => self.waiting_bytes + size as u64 <= b,
        }
    }

    /// Whether some packet counted as waiting has started by `now` (so
    /// [`Self::advance`] has work to do).
    #[inline]
    pub fn due(&self, now: SimTime) -> bool {
        self.pipe
            .get(self.departed)
            .is_some_and(|e| e.tx_start <= now)
    }

    /// Takes out of the queue every packet whose transmission has started by
    /// `now`, in order, calling `departed(tx_start, waiting_after)` for each.
    #[inline]
    pub fn advance(&mut self, now: SimTime, mut departed: impl FnMut(SimTime, usize)) {
        while let Some(e) = self.pipe.get(self.departed) {
            if e.tx_start > now {
                break;
            }
            let (t, size) = (e.tx_start, e.size);
            self.departed += 1;
            self.waiting_bytes -= size as u64;
            departed(t, self.len());
        }
    }

    /// Appends an admitted packet. It waits if it starts after `now` (the
    /// caller checked [`Self::fits`]); otherwise the link was idle and it
    /// goes straight onto the wire, never entering the queue.
    #[inline]
    pub fn push(&mut self, e: InFlight, now: SimTime) {
        debug_assert!(self.pipe.back().is_none_or(|b| b.arrive <= e.arrive));
        let waits = e.tx_start > now;
        debug_assert!(waits || self.is_empty(), "an idle link has no queue");
        if waits {
            self.waiting_bytes += e.size as u64;
        } else {
            self.departed += 1;
        }
        self.pipe.push_back(e);
    }

    /// The packet that arrives next.
    #[inline]
    pub fn front(&self) -> Option<&InFlight> {
        self.pipe.front()
    }

    /// The packet that arrives after the head.
    #[inline]
    pub fn second(&self) -> Option<&InFlight> {
        self.pipe.get(1)
    }

    /// Removes the head when it arrives; [`Self::advance`] must have run up
    /// to its arrival time (so it has departed).
    #[inline]
    pub fn pop_arrival(&mut self) -> Option<InFlight> {
        debug_assert!(self.departed > 0 || self.pipe.is_empty());
        let e = self.pipe.pop_front()?;
        self.departed -= 1;
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    /// A packet of `size` that starts at `start` and takes `size` ns.
    fn pkt(id: u32, start: u64, size: u32) -> InFlight {
        InFlight {
            tx_start: t(start),
            arrive: t(start + size as u64 + 1000),
            seq: id as u64,
            id: PacketId(id),
            size,
        }
    }

    #[test]
    fn packet_limit_counts_waiting_packets_only() {
        let mut q = LinkQueue::new(QueueLimit::Packets(2));
        q.push(pkt(0, 0, 100), t(0)); // idle link: on the wire at once
        assert_eq!(q.len(), 0);
        assert!(q.fits(100));
        q.push(pkt(1, 100, 100), t(0));
        q.push(pkt(2, 200, 100), t(0));
        assert_eq!(q.len(), 2);
        assert!(!q.fits(100));
        // At t = 100 packet 1 starts: one place frees up.
        let mut seen = vec![];
        q.advance(t(100), |at, n| seen.push((at.as_nanos(), n)));
        assert_eq!(seen, [(100, 1)]);
        assert!(q.fits(100));
    }

    #[test]
    fn byte_limit() {
        let mut q = LinkQueue::new(QueueLimit::Bytes(1000));
        q.push(pkt(0, 0, 50), t(0));
        assert!(q.fits(600));
        q.push(pkt(1, 50, 600), t(0));
        assert!(!q.fits(500));
        assert!(q.fits(400));
        q.push(pkt(2, 650, 400), t(0));
        assert_eq!(q.bytes(), 1000);
        q.advance(t(50), |_, _| {});
        assert_eq!(q.bytes(), 400);
    }

    #[test]
    fn departures_are_reported_in_order_and_arrivals_pop_in_order() {
        let mut q = LinkQueue::new(QueueLimit::Packets(10));
        for (i, start) in [0, 100, 200, 300].into_iter().enumerate() {
            q.push(pkt(i as u32, start, 100), t(0));
        }
        let mut seen = vec![];
        q.advance(t(250), |at, n| seen.push((at.as_nanos(), n)));
        assert_eq!(seen, [(100, 2), (200, 1)]);
        // The first arrives at 1100.
        q.advance(t(1100), |at, n| seen.push((at.as_nanos(), n)));
        assert_eq!(seen.last(), Some(&(300, 0)));
        assert_eq!(q.pop_arrival().map(|e| e.id), Some(PacketId(0)));
        assert_eq!(q.front().map(|e| e.id), Some(PacketId(1)));
        assert_eq!(q.len(), 0);
    }
}
