// SPDX-License-Identifier: MIT OR Apache-2.0
//! One direction of a full-duplex point-to-point link: a rate (fixed, or a
//! capacity trace: [`crate::net::capacity`]), a propagation delay, an MTU,
//! an egress queue at the sending node, and an optional error model applied
//! at the receiving node.
//!
//! A packet handed to an idle link starts serializing at once; otherwise it
//! waits in the queue (or is dropped when the queue is full). Serialization
//! takes `size * 8 / rate` and the packet arrives `delay` after its last bit
//! left. The link knows each packet's start time when it admits it (see
//! [`crate::net::queue`]), so a hop costs one event per packet, its arrival.

use crate::hist::Hist;
use crate::net::error_model::ErrorModel;
use crate::net::queue::LinkQueue;
use crate::time::{Rate, SimDuration, SimTime};

/// A [`LinkDir::shaper`] for a direction at a fixed rate.
pub const NO_SHAPER: u32 = u32::MAX;

/// The queue counters of a link direction (the per-packet ones live in
/// [`LinkDir`] itself, beside what the packet path reads). The first 64
/// bytes are what a packet that waits updates: one cache line, the fourth
/// of the `LinkDir`.
#[derive(Debug, Default, Clone)]
#[repr(C)]
pub struct LinkStats {
    /// Integral of the queue length (packets) over time, in packet-ns.
    pub queue_area: u128,
    /// Integral of the waiting bytes over time, in byte-ns.
    pub queue_bytes_area: u128,
    pub queue_changed_at: SimTime,
    pub queue_max: u64,
    /// Sum and maximum of the sojourns (ns) of the packets that waited.
    pub sojourn_sum: u64,
    pub sojourn_max: u64,
    pub drops_queue: u64,
    /// Drops by the discipline's own decision (RED's early and forced).
    pub drops_aqm: u64,
    pub drops_error: u64,
    /// Packets the queue discipline marked Congestion Experienced.
    pub marks: u64,
    /// With `delay_percentiles`: the sojourns (ns) of the packets that
    /// waited; those that did not are `tx_packets` less its count.
    pub sojourn: Option<Box<Hist>>,
}

/// Laid out by cache line (`repr(C)`, 64-byte aligned), because with tens of
/// thousands of links each hop's link is usually out of cache: lines 0 to 2
/// hold the queue with its first packets and everything else an admission
/// or an arrival touches; the rest is read when the run ends or when a
/// packet has to wait.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct LinkDir {
    /// The waiting, serializing and propagating packets.
    pub queue: LinkQueue,
    /// When the last admitted packet will have been serialized.
    pub busy_until: SimTime,
    /// `rate.exact_ns_per_byte()`, or 0: serialization time without a division.
    pub ns_per_byte: u64,
    pub delay: SimDuration,
    pub error: Option<Box<ErrorModel>>,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Time spent serializing, clipped to the end of the run.
    pub busy_ns: u64,
    pub to: u32,
    /// The direction's capacity trace in the world's `shapers`, or
    /// [`NO_SHAPER`] for a fixed rate (which the packet path's fast case
    /// serves). The sending node is the reverse direction's `to`.
    pub shaper: u32,
    /// Line 3: touched by a packet that waits.
    pub stats: LinkStats,
    /// The fixed rate, or the trace's mean capacity.
    pub rate: Rate,
    /// Index of the link in the scenario; this direction is `link*2 + dir`.
    pub link: u32,
    /// Packets the device queue between a discipline that holds its queue
    /// (or RED) and the wire holds: ns-3's `TxQueue` under a queue disc. 0:
    /// none, the discipline hands a packet over when the link falls idle.
    pub device: u32,
}

impl LinkDir {
    /// The bytes from its start that a packet's hop reads (lines 0 to 2).
    pub const HOT_BYTES: usize = 192;

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
    /// Accounts for a queue change from `old_len` packets and `old_bytes`
    /// to `new_len` packets at `at` (for the time averages and the maximum).
    #[inline]
    pub fn note_queue(&mut self, at: SimTime, old_len: usize, old_bytes: u64, new_len: usize) {
        let dt = (at - self.queue_changed_at).as_nanos() as u128;
        self.queue_area += old_len as u128 * dt;
        self.queue_bytes_area += old_bytes as u128 * dt;
        self.queue_changed_at = at;
        self.queue_max = self.queue_max.max(new_len as u64);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_hop_touches_three_cache_lines() {
        use std::mem::offset_of;
        assert_eq!(std::mem::size_of::<super::LinkQueue>(), 128);
        assert!(offset_of!(super::LinkDir, to) + 4 <= super::LinkDir::HOT_BYTES);
        // A waiting packet's counters: the next line, whole.
        assert_eq!(offset_of!(super::LinkDir, stats), 192);
        assert_eq!(offset_of!(super::LinkStats, sojourn_max) + 8, 64);
        // The device queue's size in the last line, read off the fast path.
        assert_eq!(std::mem::size_of::<super::LinkDir>(), 320);
    }
}
