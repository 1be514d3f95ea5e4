// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the disciplines that hold their own queue share: CoDel, FQ-CoDel
//! and PIE decide when a packet leaves (or by how long it waited), so they
//! keep the waiting packets themselves, and the link asks them for the next
//! one each time it falls idle (see `world/held.rs`). Drop-tail and RED
//! decide at arrival alone and leave their packets in the link's own FIFO.

use std::collections::VecDeque;

use super::QueueDrop;
use crate::engine::PacketId;
use crate::time::SimTime;
use crate::units::QueueLimit;

/// A packet waiting in a discipline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub id: PacketId,
    /// IP bytes.
    pub size: u32,
    pub enqueued: SimTime,
    /// ECN-capable transport (ECT(0) or ECT(1)): it may be marked instead
    /// of dropped.
    pub ect: bool,
    /// Marked Congestion Experienced by the discipline.
    pub ce: bool,
    /// The flow it belongs to, for disciplines that tell flows apart.
    pub hash: u32,
}

impl Queued {
    /// Marks it CE if it is ECN-capable; whether it was.
    #[inline]
    pub fn mark(&mut self) -> bool {
        if self.ect {
            self.ce = true;
        }
        self.ect
    }
}

/// A packet a discipline dropped, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dropped {
    pub id: PacketId,
    pub at: SimTime,
    pub why: QueueDrop,
}

impl Dropped {
    /// Notes packet `id` dropped at `at` for want of room.
    #[inline]
    pub fn overflow(dropped: &mut Vec<Dropped>, id: PacketId, at: SimTime) {
        let d = Dropped {
            id,
            at,
            why: QueueDrop::Overflow,
        };
        crate::alloc::push(dropped, d, "the dropped packets");
    }
}

/// A FIFO of waiting packets with its byte count.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    q: VecDeque<Queued>,
    bytes: u64,
}

impl Fifo {
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    #[inline]
    pub fn push(&mut self, p: Queued) {
        self.bytes += p.size as u64;
        crate::alloc::push_deque(&mut self.q, p, "packets in a queue discipline");
    }

    /// The id of the packet at the head (tests).
    #[cfg(test)]
    pub fn front_id(&self) -> Option<u32> {
        self.q.front().map(|p| p.id.0)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Queued> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
}

/// Whether a packet of `size` bytes fits a queue of `packets` and `bytes`
/// under `limit` (counting the packet itself).
#[inline]
pub fn fits(limit: QueueLimit, packets: u64, bytes: u64, size: u32) -> bool {
    match limit {
        QueueLimit::Packets(n) => packets < n,
        QueueLimit::Bytes(b) => bytes + size as u64 <= b,
    }
}
