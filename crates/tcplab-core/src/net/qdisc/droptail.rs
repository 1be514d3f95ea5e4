// SPDX-License-Identifier: MIT OR Apache-2.0
//! Drop-tail: a packet that would wait beyond the limit, in packets or in
//! bytes, is dropped. The packet being serialized is not in the queue, as in
//! ns-2 and ns-3, so a 100-packet queue holds 100 waiting packets, and a
//! packet that finds the link idle is never dropped.

use serde::de;
use serde::{Deserialize, Serialize, Serializer};

use super::{Admits, Arrival, QueueDrop, Spec, Verdict};
use crate::rng::Rng;
use crate::time::Rate;
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

impl Admits for DropTail {
    #[inline(always)]
    fn enqueue(&mut self, a: &Arrival) -> Verdict {
        DropTail::enqueue(self, a)
    }
    fn capacity_packets(&self, size: u64) -> u64 {
        DropTail::capacity_packets(self, size)
    }
    fn describe(&self) -> String {
        DropTail::describe(self)
    }
}

/// Drop-tail's parameters are its limit (a device queue below it folded
/// in), written as the limit alone (`"100p"`), the short form.
impl Spec for QueueLimit {
    type Built = DropTail;
    fn build(&self, _rate: Rate, _mtu: u32, _rng: impl FnOnce() -> Rng) -> DropTail {
        DropTail::new(*self)
    }
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
    fn device_queue(&self) -> u32 {
        0
    }
    /// It fits in the link direction itself.
    fn built_bytes(&self) -> u64 {
        0
    }
    fn built_what(&self, _kind: &str) -> String {
        "drop-tail".into()
    }
    fn parse<E: de::Error>(
        _kind: &str,
        table: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Self, E> {
        let mut limit = QueueLimit::default();
        let mut device = 0u32;
        for (k, v) in table {
            match k.as_str() {
                "limit" => limit = QueueLimit::deserialize(v).map_err(de::Error::custom)?,
                "device_queue" => {
                    device = u32::deserialize(v)
                        .map_err(|e| de::Error::custom(format!("device_queue: {e}")))?
                }
                other => {
                    return Err(de::Error::unknown_field(
                        other,
                        &["kind", "limit", "device_queue"],
                    ))
                }
            }
        }
        with_device(limit, device).map_err(de::Error::custom)
    }
    fn write<S: Serializer>(&self, _kind: &str, s: S) -> Result<S::Ok, S::Error> {
        self.serialize(s)
    }
}

/// A drop-tail limit with a device queue of `device` packets below it: a
/// packet limit holds that many more (the device takes the oldest waiting
/// packets, and the discipline counts the rest), the same FIFO. A byte
/// limit is refused: the discipline would count bytes and the device
/// packets.
fn with_device(limit: QueueLimit, device: u32) -> Result<QueueLimit, String> {
    match limit {
        _ if device == 0 => Ok(limit),
        QueueLimit::Packets(n) => Ok(QueueLimit::Packets(n.saturating_add(device as u64))),
        QueueLimit::Bytes(_) => Err(
            "device_queue: drop-tail takes one only with a packet limit (the device \
             counts packets, the limit bytes)"
                .into(),
        ),
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
