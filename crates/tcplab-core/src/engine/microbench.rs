// SPDX-License-Identifier: MIT OR Apache-2.0
//! The bare event loop, for `bench/engine.py`: what scheduling and popping
//! events costs with nothing simulated, so the distance between it and a
//! full simulation is visible.
//!
//! `pending` events wait in the queue at all times, each pointing to a
//! packet of the real size in the slab; every step pops the earliest, takes
//! its packet out of the slab, puts it back (as a hop does) and schedules
//! the next event 1 ns to 16 us later.

use super::{Event, EventQueue, PacketId, Slab};
use crate::time::{SimDuration, SimTime};

/// A stand-in for a packet: the size of the simulator's (160 bytes, see
/// `net::packet`), with the two fields a hop here reads and writes.
#[derive(Clone, Copy)]
#[repr(C)]
struct Packet {
    size: u32,
    number: u64,
    rest: [u64; 18],
}

/// Runs `events` steps with `pending` events queued; returns the wall
/// seconds and a checksum (so that nothing is optimized away).
pub fn event_loop(events: u64, pending: u32) -> (f64, u64) {
    let mut q = EventQueue::new();
    let mut slab: Slab<Packet> = Slab::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        // xorshift64*
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let packet = Packet {
        size: 1500,
        number: 0,
        rest: [0; 18],
    };
    for _ in 0..pending.max(1) {
        let id = slab.insert(packet);
        let at = SimTime::ZERO + SimDuration::from_nanos(1 + next() % 16_000);
        q.push(at, Event::App { flow: id.0 });
    }
    let started = std::time::Instant::now();
    let mut sum = 0u64;
    for _ in 0..events {
        let Some((now, Event::App { flow })) = q.pop() else {
            break;
        };
        let mut p = slab.remove(PacketId(flow));
        p.number += 1;
        sum = sum.wrapping_add(p.size as u64 + p.number);
        let id = slab.insert(p);
        q.push(
            now + SimDuration::from_nanos(1 + next() % 16_000),
            Event::App { flow: id.0 },
        );
    }
    (started.elapsed().as_secs_f64(), sum)
}

#[cfg(test)]
mod tests {
    #[test]
    fn runs_the_requested_number_of_steps() {
        let (secs, sum) = super::event_loop(1000, 10);
        assert!(secs >= 0.0);
        // Each step adds 1500 + the packet's new number (>= 1).
        assert!(sum >= 1000 * 1501);
    }
}
