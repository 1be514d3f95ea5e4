// SPDX-License-Identifier: MIT OR Apache-2.0
//! Drop-tail FIFO: a packet that would exceed the limit (in packets or bytes)
//! is dropped on arrival. The packet being serialized is not in the queue,
//! as in ns-2 and ns-3, so a 100-packet queue holds 100 waiting packets.

use std::collections::VecDeque;

use crate::engine::PacketId;
use crate::units::QueueLimit;

#[derive(Debug)]
pub struct DropTail {
    limit: QueueLimit,
    q: VecDeque<(PacketId, u32)>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail {
            limit,
            q: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Enqueues unless the limit would be exceeded; false means dropped.
    #[inline]
    pub fn push(&mut self, id: PacketId, size: u32) -> bool {
        let fits = match self.limit {
            QueueLimit::Packets(n) => (self.q.len() as u64) < n,
            QueueLimit::Bytes(b) => self.bytes + size as u64 <= b,
        };
        if fits {
            self.q.push_back((id, size));
            self.bytes += size as u64;
        }
        fits
    }

    #[inline]
    pub fn pop(&mut self) -> Option<PacketId> {
        let (id, size) = self.q.pop_front()?;
        self.bytes -= size as u64;
        Some(id)
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_limit() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.push(PacketId(0), 100));
        assert!(q.push(PacketId(1), 100));
        assert!(!q.push(PacketId(2), 100));
        assert_eq!(q.pop(), Some(PacketId(0)));
        assert!(q.push(PacketId(3), 100));
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn byte_limit() {
        let mut q = DropTail::new(QueueLimit::Bytes(1000));
        assert!(q.push(PacketId(0), 600));
        assert!(!q.push(PacketId(1), 500));
        assert!(q.push(PacketId(2), 400));
        assert_eq!(q.bytes(), 1000);
        q.pop();
        assert_eq!(q.bytes(), 400);
    }
}
