// SPDX-License-Identifier: MIT OR Apache-2.0
//! Drop-tail: a packet that would wait beyond the limit, in packets or in
//! bytes, is dropped. The packet being serialized is not in the queue, as in
//! ns-2 and ns-3, so a 100-packet queue holds 100 waiting packets, and a
//! packet that finds the link idle is never dropped.

use super::{Arrival, QueueDrop, Verdict};
use crate::units::QueueLimit;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropTail {
    limit: QueueLimit,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail { limit }
    }

    #[inline(always)]
    pub fn enqueue(&mut self, a: &Arrival) -> Verdict {
        if !a.waits() || self.fits(a.waiting_packets, a.waiting_bytes, a.size) {
            Verdict::Enqueue
        } else {
            Verdict::Drop(QueueDrop::Overflow)
        }
    }

    /// Whether a packet of `size` bytes may wait behind `packets` waiting
    /// packets of `bytes` bytes.
    #[inline(always)]
    pub fn fits(&self, packets: u64, bytes: u64, size: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => packets < n,
            QueueLimit::Bytes(b) => bytes + size as u64 <= b,
        }
    }

    pub fn capacity_packets(&self, size: u64) -> u64 {
        match self.limit {
            QueueLimit::Packets(n) => n,
            QueueLimit::Bytes(b) => b / size.max(1),
        }
    }

    pub fn describe(&self) -> String {
        match self.limit {
            QueueLimit::Packets(n) => format!("{n} packets"),
            QueueLimit::Bytes(b) => format!("{b} bytes"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn arrival(waiting_packets: u64, waiting_bytes: u64, busy: bool) -> Arrival {
        Arrival {
            now: SimTime::from_nanos(10),
            size: 500,
            tx_start: SimTime::from_nanos(if busy { 20 } else { 10 }),
            waiting_packets,
            waiting_bytes,
            device_packets: 0,
            ect: false,
        }
    }

    #[test]
    fn drops_beyond_the_packet_limit_only_when_the_packet_would_wait() {
        let mut d = DropTail::new(QueueLimit::Packets(2));
        assert_eq!(d.enqueue(&arrival(1, 500, true)), Verdict::Enqueue);
        assert_eq!(
            d.enqueue(&arrival(2, 1000, true)),
            Verdict::Drop(QueueDrop::Overflow)
        );
        // An idle link takes the packet onto the wire: never dropped, even
        // with a limit of 0.
        let mut zero = DropTail::new(QueueLimit::Packets(0));
        assert_eq!(zero.enqueue(&arrival(0, 0, false)), Verdict::Enqueue);
        assert_eq!(
            zero.enqueue(&arrival(0, 0, true)),
            Verdict::Drop(QueueDrop::Overflow)
        );
    }

    #[test]
    fn a_byte_limit_counts_the_arriving_packet() {
        let mut d = DropTail::new(QueueLimit::Bytes(1000));
        assert_eq!(d.enqueue(&arrival(1, 500, true)), Verdict::Enqueue);
        assert_eq!(
            d.enqueue(&arrival(2, 501, true)),
            Verdict::Drop(QueueDrop::Overflow)
        );
    }
}
