// SPDX-License-Identifier: MIT OR Apache-2.0
//! One direction of a full-duplex point-to-point link: a rate, a propagation
//! delay, an MTU, a drop-tail egress queue at the sending node, and an
//! optional error model applied at the receiving node.
//!
//! A packet handed to an idle link starts serializing at once; otherwise it
//! waits in the queue (or is dropped when the queue is full). Serialization
//! takes `size * 8 / rate` and the packet arrives `delay` after its last bit
//! left. The link knows each packet's start time when it admits it (see
//! [`crate::net::queue`]), so a hop costs one event per packet, its arrival.

use crate::net::error_model::ErrorModel;
use crate::net::queue::LinkQueue;
use crate::time::{Rate, SimDuration, SimTime};

#[derive(Debug, Default, Clone)]
#[repr(C)]
pub struct LinkStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Time spent serializing, clipped to the end of the run.
    pub busy_ns: u64,
    pub queue_changed_at: SimTime,
    /// Integral of the queue length (packets) over time, in packet-ns.
    pub queue_area: u128,
    pub queue_max: u64,
    pub drops_queue: u64,
    pub drops_error: u64,
}

/// Fields in the order the packet path uses them (`repr(C)` keeps it): what
/// every admission reads comes first, so a hop touches as few cache lines as
/// possible when there are tens of thousands of links.
#[derive(Debug)]
#[repr(C)]
pub struct LinkDir {
    /// The waiting, serializing and propagating packets.
    pub queue: LinkQueue,
    /// When the last admitted packet will have been serialized.
    pub busy_until: SimTime,
    pub rate: Rate,
    /// `rate.exact_ns_per_byte()`, or 0: serialization time without a division.
    pub ns_per_byte: u64,
    pub delay: SimDuration,
    pub to: u32,
    pub from: u32,
    /// Index of the link in the scenario; this direction is `link*2 + dir`.
    pub link: u32,
    pub mtu: u32,
    pub stats: LinkStats,
    pub error: Option<Box<ErrorModel>>,
}

impl LinkDir {
    /// How long `bytes` take to serialize (as `Rate::tx_time`).
    #[inline]
    pub fn tx_time(&self, bytes: u64) -> SimDuration {
        if self.ns_per_byte != 0 {
            SimDuration::from_nanos(bytes * self.ns_per_byte)
        } else {
            self.rate.tx_time(bytes)
        }
    }
}

impl LinkStats {
    /// Accounts for a queue length change from `old_len` at `at` (for the
    /// time average and the maximum).
    #[inline]
    pub fn note_queue(&mut self, at: SimTime, old_len: usize, new_len: usize) {
        self.queue_area += old_len as u128 * (at - self.queue_changed_at).as_nanos() as u128;
        self.queue_changed_at = at;
        self.queue_max = self.queue_max.max(new_len as u64);
    }
}
