// SPDX-License-Identifier: MIT OR Apache-2.0
//! One direction of a full-duplex point-to-point link: a rate, a propagation
//! delay, an MTU, a drop-tail egress queue at the sending node, and an
//! optional error model applied at the receiving node.
//!
//! A packet handed to an idle link starts serializing at once; otherwise it
//! waits in the queue (or is dropped when the queue is full). Serialization
//! takes `size * 8 / rate` and the packet arrives `delay` after its last bit
//! left. Only a busy link with a backlog has a `TxDone` event pending, so an
//! uncongested hop costs one event per packet.

use std::collections::VecDeque;

use crate::engine::PacketId;
use crate::net::error_model::ErrorModel;
use crate::net::queue::DropTail;
use crate::time::{Rate, SimDuration, SimTime};

#[derive(Debug, Default, Clone)]
pub struct LinkStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops_queue: u64,
    pub drops_error: u64,
    /// Time spent serializing, clipped to the end of the run.
    pub busy_ns: u64,
    pub queue_max: u64,
    /// Integral of the queue length (packets) over time, in packet-ns.
    pub queue_area: u128,
    pub queue_changed_at: SimTime,
}

#[derive(Debug)]
pub struct LinkDir {
    /// Index of the link in the scenario; this direction is `link*2 + dir`.
    pub link: u32,
    pub from: u32,
    pub to: u32,
    pub rate: Rate,
    pub delay: SimDuration,
    pub mtu: u32,
    pub queue: DropTail,
    pub error: Option<ErrorModel>,
    /// When the packet now on the wire has been serialized.
    pub busy_until: SimTime,
    /// A `TxDone` event is scheduled at `busy_until`.
    pub txdone_pending: bool,
    /// Packets serialized and propagating, in sending order, each with its
    /// arrival time and the event sequence number reserved when it was
    /// sent; only the head has an `Arrive` event in the queue.
    pub pipe: VecDeque<(SimTime, u64, PacketId)>,
    pub stats: LinkStats,
}

impl LinkDir {
    /// Accounts for a queue length change at `now` (for the time average).
    #[inline]
    pub fn note_queue(&mut self, now: SimTime, old_len: usize) {
        let s = &mut self.stats;
        s.queue_area += old_len as u128 * (now - s.queue_changed_at).as_nanos() as u128;
        s.queue_changed_at = now;
        s.queue_max = s.queue_max.max(self.queue.len() as u64);
    }
}
