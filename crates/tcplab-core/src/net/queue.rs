// SPDX-License-Identifier: MIT OR Apache-2.0
//! The packets of one link direction, from admission to arrival: waiting in
//! the FIFO, being serialized, or propagating. Which packets are admitted
//! is the link's queue discipline's call ([`crate::net::qdisc`]).
//!
//! A FIFO link with a fixed rate knows, when it admits a packet, exactly when
//! that packet will start serializing: when the one before it is done. So no
//! event marks the end of a transmission. Each admitted packet carries its
//! start time, and a packet has left the queue once its start time has come
//! ([`LinkQueue::advance`] brings the queue up to date, reporting each
//! departure in order). At one instant, departures come before arrivals.
//! Only the packet at the head of the pipe has an arrival event scheduled.

use crate::engine::PacketId;
use crate::net::qdisc::{Arrival, DropTail, Qdisc, Verdict};
use crate::time::SimTime;

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

/// Entries a pipe keeps inline, in the link's own cache lines.
const INLINE: usize = 2;

/// The admitted packets of a link, oldest first, in a ring: in `inline`
/// until the link first holds more than [`INLINE`] of them, in `heap` from
/// then on. With thousands of access links, each carrying one connection's
/// few packets, a packet's entry is then written and read in cache lines
/// the hop touches anyway, not in a buffer of its own elsewhere (-8 to -11%
/// at 10,000 flows). A pipe never moves back inline: links that carry more
/// switch back and forth often, and that cost 4-8% with 10 to 100 flows.
/// The storage in use is picked by `mask` (its capacity minus one, a power
/// of two) without a branch, so a long pipe costs what a plain ring costs.
#[derive(Debug)]
struct Pipe {
    inline: [InFlight; INLINE],
    /// Every slot initialized; its length (the capacity) a power of two,
    /// at least `2 * INLINE`.
    heap: Vec<InFlight>,
    /// How many entries, from the oldest, have started serializing (kept
    /// here, beside the ring's indices, for a compact record).
    departed: u32,
    head: u32,
    len: u32,
    /// `INLINE - 1` while inline, `heap.len() - 1` otherwise.
    mask: u32,
}

const EMPTY: InFlight = InFlight {
    tx_start: SimTime::ZERO,
    arrive: SimTime::ZERO,
    seq: 0,
    id: PacketId(0),
    size: 0,
};

impl Pipe {
    fn new() -> Self {
        Pipe {
            inline: [EMPTY; INLINE],
            // Allocated by the first spill, not here: with a million flows
            // most of the four million link directions never hold more than
            // `INLINE` packets, and their rings would be 0.6 GB to fault in.
            heap: Vec::new(),
            departed: 0,
            head: 0,
            len: 0,
            mask: INLINE as u32 - 1,
        }
    }

    /// Whether the entries are in `heap`.
    #[inline]
    fn spilled(&self) -> bool {
        self.mask as usize >= INLINE
    }

    /// Slot `at` modulo the capacity of the storage in use, picked without
    /// a branch (a bounds-checked pick costs 3-4% with few flows, where a
    /// pipe is read several times per event).
    #[inline]
    fn slot(&self, at: usize) -> &InFlight {
        let base = if self.spilled() {
            self.heap.as_ptr()
        } else {
            self.inline.as_ptr()
        };
        // SAFETY: the storage in use has `mask + 1` initialized slots
        // (`INLINE` inline, `heap.len()` on the heap), and `at & mask` is
        // at most `mask`.
        unsafe { &*base.add(at & self.mask as usize) }
    }

    #[inline]
    fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    fn get(&self, i: usize) -> Option<&InFlight> {
        if i < self.len as usize {
            Some(self.slot(self.head as usize + i))
        } else {
            None
        }
    }

    #[inline]
    fn push_back(&mut self, e: InFlight) {
        if self.len > self.mask {
            self.grow();
        }
        let at = ((self.head + self.len) & self.mask) as usize;
        if self.spilled() {
            self.heap[at] = e;
        } else {
            self.inline[at] = e;
        }
        self.len += 1;
    }

    /// Moves the entries, in order, to the start of a ring twice as large:
    /// a heap ring of `2 * INLINE` when first leaving `inline`.
    #[cold]
    fn grow(&mut self) {
        let mut ring = if self.spilled() {
            let mut ring = Vec::new();
            crate::alloc::reserve(&mut ring, 2 * self.heap.len(), "packets in flight");
            ring.resize(2 * self.heap.len(), EMPTY);
            ring
        } else if self.heap.is_empty() {
            vec![EMPTY; 2 * INLINE]
        } else {
            std::mem::take(&mut self.heap)
        };
        for (i, slot) in ring.iter_mut().enumerate().take(self.len as usize) {
            *slot = *self.get(i).expect("within the length");
        }
        self.heap = ring;
        self.head = 0;
        self.mask = self.heap.len() as u32 - 1;
    }

    #[inline]
    fn pop_front(&mut self) -> Option<InFlight> {
        if self.len == 0 {
            return None;
        }
        let e = *self.slot(self.head as usize);
        self.head = (self.head + 1) & self.mask;
        self.len -= 1;
        Some(e)
    }
}

#[derive(Debug)]
pub struct LinkQueue {
    /// The discipline that admits packets (drop-tail by default).
    qdisc: Qdisc,
    /// Admitted packets in sending order; the first `pipe.departed` have
    /// started serializing, the rest wait.
    pipe: Pipe,
    waiting_bytes: u64,
}

impl LinkQueue {
    pub fn new(qdisc: Qdisc) -> Self {
        LinkQueue {
            qdisc,
            pipe: Pipe::new(),
            waiting_bytes: 0,
        }
    }

    /// The discipline.
    pub fn qdisc(&self) -> &Qdisc {
        &self.qdisc
    }

    /// Whether the discipline keeps the waiting packets itself
    /// ([`Qdisc::holds`]): then the pipe holds only packets on the wire.
    #[inline(always)]
    pub fn holds(&self) -> bool {
        self.qdisc.holds()
    }

    /// The discipline if it is drop-tail (the packet path's fast case).
    #[inline(always)]
    pub fn drop_tail(&self) -> Option<DropTail> {
        match &self.qdisc {
            Qdisc::DropTail(d) => Some(*d),
            _ => None,
        }
    }

    /// The discipline, for [`Qdisc::offer`] and [`Qdisc::take`].
    #[inline]
    pub fn qdisc_mut(&mut self) -> &mut Qdisc {
        &mut self.qdisc
    }

    /// Packets and bytes waiting, in the pipe or in a discipline that holds
    /// them.
    #[inline]
    pub fn waiting(&self) -> (u64, u64) {
        let (packets, bytes) = self.qdisc.waiting();
        (self.len() as u64 + packets, self.waiting_bytes + bytes)
    }

    /// Replaces the discipline (tests of the world's handling of verdicts).
    #[cfg(test)]
    pub fn set_qdisc(&mut self, qdisc: Qdisc) {
        self.qdisc = qdisc;
    }

    /// Packets waiting (as of the last [`Self::advance`]).
    #[inline]
    pub fn len(&self) -> usize {
        self.pipe.len() - self.pipe.departed as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes waiting (as of the last [`Self::advance`]).
    pub fn bytes(&self) -> u64 {
        self.waiting_bytes
    }

    /// Asks the discipline about a packet of `size` bytes arriving at `now`
    /// that would start serializing at `tx_start`, with a device queue of
    /// `device` packets below the discipline (the queue must be up to date:
    /// [`Self::advance`] to `now`).
    #[inline(always)]
    pub fn admit(
        &mut self,
        now: SimTime,
        tx_start: SimTime,
        size: u32,
        ect: bool,
        device: u32,
    ) -> Verdict {
        let (mut packets, mut bytes) = (self.len() as u64, self.waiting_bytes);
        // The device holds the oldest waiting packets; the discipline counts
        // the rest.
        let in_device = packets.min(device as u64);
        for k in 0..in_device as usize {
            let e = self.pipe.get(self.pipe.departed as usize + k);
            bytes -= e.map_or(0, |e| e.size as u64);
        }
        packets -= in_device;
        let arrival = Arrival {
            now,
            size,
            tx_start,
            waiting_packets: packets,
            waiting_bytes: bytes,
            device_packets: in_device,
            ect,
        };
        self.qdisc.enqueue(&arrival)
    }

    /// When the device queue of `device` packets below a discipline that
    /// holds its queue has room for the next packet: when the packet
    /// `device` places from the newest handed over starts (at that instant
    /// the device holds `device - 1`). `None`: it has room whatever the time
    /// (fewer handed over than it holds).
    #[inline]
    pub fn device_room_at(&self, device: u32) -> Option<SimTime> {
        let n = self.pipe.len();
        let d = device as usize;
        (n >= d).then(|| self.pipe.get(n - d).map_or(SimTime::ZERO, |e| e.tx_start))
    }

    /// Whether some packet counted as waiting has started by `now` (so
    /// [`Self::advance`] has work to do).
    #[inline]
    pub fn due(&self, now: SimTime) -> bool {
        self.pipe
            .get(self.pipe.departed as usize)
            .is_some_and(|e| e.tx_start <= now)
    }

    /// Takes out of the queue every packet whose transmission has started by
    /// `now`, in order, calling `departed(tx_start, waiting_after,
    /// bytes_after, size)` for each.
    #[inline]
    pub fn advance(&mut self, now: SimTime, mut departed: impl FnMut(SimTime, usize, u64, u32)) {
        while let Some(e) = self.pipe.get(self.pipe.departed as usize) {
            if e.tx_start > now {
                break;
            }
            let (t, size) = (e.tx_start, e.size);
            self.pipe.departed += 1;
            self.waiting_bytes -= size as u64;
            departed(t, self.len(), self.waiting_bytes, size);
        }
    }

    /// Appends an admitted packet. It waits if it starts after `now` (the
    /// caller asked [`Self::admit`]); otherwise the link was idle and it
    /// goes straight onto the wire, never entering the queue.
    #[inline]
    pub fn push(&mut self, e: InFlight, now: SimTime) {
        let last = self.pipe.len().checked_sub(1);
        debug_assert!(last
            .and_then(|i| self.pipe.get(i))
            .is_none_or(|b| b.arrive <= e.arrive));
        let waits = e.tx_start > now;
        debug_assert!(waits || self.is_empty(), "an idle link has no queue");
        if waits {
            self.waiting_bytes += e.size as u64;
        } else {
            self.pipe.departed += 1;
        }
        self.pipe.push_back(e);
    }

    /// The packet that arrives next.
    #[inline]
    pub fn front(&self) -> Option<&InFlight> {
        self.pipe.get(0)
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
        debug_assert!(self.pipe.departed > 0 || self.pipe.len() == 0);
        let e = self.pipe.pop_front()?;
        self.pipe.departed -= 1;
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::qdisc::{DropTail, QueueDrop};
    use crate::units::QueueLimit;
    use std::collections::VecDeque;

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

    /// Against a plain deque: random pushes and pops, from a pipe that
    /// stays inline through its spill to a heap ring that grows and wraps.
    #[test]
    fn the_pipe_keeps_order_inline_and_on_the_heap() {
        let mut rng = crate::rng::Rng::stream(5, 0, "pipe");
        let mut p = Pipe::new();
        let mut reference = VecDeque::new();
        for i in 0..20_000u32 {
            // At most two entries at first (inline), then mostly pushes.
            let push = if i < 2_000 {
                reference.len() < 2 && rng.next_u64().is_multiple_of(2)
            } else {
                rng.next_u64() % 5 < 3
            };
            if push {
                let e = pkt(i, i as u64, 1);
                p.push_back(e);
                reference.push_back(e);
            } else {
                assert_eq!(p.pop_front(), reference.pop_front());
            }
            if i == 1_999 {
                assert!(!p.spilled(), "at most two entries so far");
            }
            assert_eq!(p.len(), reference.len());
            for k in [0, 1, reference.len().saturating_sub(1), reference.len()] {
                assert_eq!(p.get(k), reference.get(k));
            }
        }
        assert!(p.spilled() && p.heap.len() > 1_000, "spilled and grown");
        while let Some(e) = reference.pop_front() {
            assert_eq!(p.pop_front(), Some(e));
        }
        assert_eq!(p.pop_front(), None);
    }

    #[test]
    fn a_pipe_spills_on_its_third_packet_and_stays_on_the_heap() {
        let mut p = Pipe::new();
        p.push_back(pkt(0, 0, 1));
        p.push_back(pkt(1, 1, 1));
        assert!(!p.spilled());
        assert_eq!(p.pop_front().map(|e| e.id), Some(PacketId(0)));
        p.push_back(pkt(2, 2, 1)); // wraps within the inline slots
        assert!(!p.spilled());
        assert_eq!(p.get(1).map(|e| e.id), Some(PacketId(2)));
        // No heap ring until a spill needs one (most of a million-flow
        // network's link directions never do).
        assert_eq!(p.heap.capacity(), 0);
        p.push_back(pkt(3, 3, 1));
        assert!(p.spilled());
        assert_eq!(p.heap.len(), 2 * INLINE);
        let ids: Vec<u32> = (0..3).map(|i| p.get(i).map_or(99, |e| e.id.0)).collect();
        assert_eq!(ids, [1, 2, 3]);
        while p.pop_front().is_some() {}
        p.push_back(pkt(4, 4, 1));
        assert!(p.spilled(), "empty again, still on the heap");
        assert_eq!(p.pop_front().map(|e| e.id), Some(PacketId(4)));
    }

    fn drop_tail(limit: QueueLimit) -> LinkQueue {
        LinkQueue::new(Qdisc::DropTail(DropTail::new(limit)))
    }

    const DROPPED: Verdict = Verdict::Drop(QueueDrop::Overflow);

    #[test]
    fn packet_limit_counts_waiting_packets_only() {
        let mut q = drop_tail(QueueLimit::Packets(2));
        q.push(pkt(0, 0, 100), t(0)); // idle link: on the wire at once
        assert_eq!(q.len(), 0);
        assert_eq!(q.admit(t(0), t(100), 100, false, 0), Verdict::Enqueue);
        q.push(pkt(1, 100, 100), t(0));
        q.push(pkt(2, 200, 100), t(0));
        assert_eq!(q.len(), 2);
        assert_eq!(q.admit(t(0), t(300), 100, false, 0), DROPPED);
        // At t = 100 packet 1 starts: one place frees up.
        let mut seen = vec![];
        q.advance(t(100), |at, n, _, _| seen.push((at.as_nanos(), n)));
        assert_eq!(seen, [(100, 1)]);
        assert_eq!(q.admit(t(100), t(300), 100, false, 0), Verdict::Enqueue);
    }

    #[test]
    fn byte_limit() {
        let mut q = drop_tail(QueueLimit::Bytes(1000));
        q.push(pkt(0, 0, 50), t(0));
        assert_eq!(q.admit(t(0), t(50), 600, false, 0), Verdict::Enqueue);
        q.push(pkt(1, 50, 600), t(0));
        assert_eq!(q.admit(t(0), t(650), 500, false, 0), DROPPED);
        assert_eq!(q.admit(t(0), t(650), 400, false, 0), Verdict::Enqueue);
        q.push(pkt(2, 650, 400), t(0));
        assert_eq!(q.bytes(), 1000);
        q.advance(t(50), |_, _, _, _| {});
        assert_eq!(q.bytes(), 400);
    }

    #[test]
    fn departures_are_reported_in_order_and_arrivals_pop_in_order() {
        let mut q = drop_tail(QueueLimit::Packets(10));
        for (i, start) in [0, 100, 200, 300].into_iter().enumerate() {
            q.push(pkt(i as u32, start, 100), t(0));
        }
        let mut seen = vec![];
        q.advance(t(250), |at, n, _, _| seen.push((at.as_nanos(), n)));
        assert_eq!(seen, [(100, 2), (200, 1)]);
        // The first arrives at 1100.
        q.advance(t(1100), |at, n, _, _| seen.push((at.as_nanos(), n)));
        assert_eq!(seen.last(), Some(&(300, 0)));
        assert_eq!(q.pop_arrival().map(|e| e.id), Some(PacketId(0)));
        assert_eq!(q.front().map(|e| e.id), Some(PacketId(1)));
        assert_eq!(q.len(), 0);
    }
}
