// SPDX-License-Identifier: MIT OR Apache-2.0
//! The hot path's memory layout: prefetching a hop ahead and the timers two
//! ahead, and the checks that keep per-packet fields on few cache lines.

use super::*;

/// Asks for the cache lines of `*v` (a hint: no effect on results).
#[inline(always)]
pub(super) fn prefetch<T>(v: &T) {
    prefetch_bytes(v, std::mem::size_of::<T>());
}

/// Asks for the cache lines of the first `n` bytes at `v`.
#[inline(always)]
pub(super) fn prefetch_bytes<T>(v: &T, n: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = v as *const T as usize;
        if std::mem::align_of::<T>() >= 64 {
            // A value on a line boundary (the links, flows and timer
            // slots): a fixed count of lines, which unrolls.
            for i in 0..n.div_ceil(64) {
                // SAFETY: as below.
                unsafe { _mm_prefetch::<_MM_HINT_T0>((start + 64 * i) as *const i8) };
            }
            return;
        }
        let mut line = start & !63;
        while line < start + n {
            // SAFETY: prefetching is a hint; it never faults, even on an
            // invalid address, and the lines are those of a live value.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, n);
}

impl World {
    /// A timer or application event popped: prefetches for the next two
    /// in its bucket, which come a few arrivals later. Most timers are
    /// stale or fire early and touch only their slots; one that will fire
    /// reads the connection and sends a segment. So: the slots and the
    /// `Flow` of the second; for the first, whose slots are in cache by now,
    /// the connection state and its egress link if it will fire.
    #[inline(never)]
    pub(super) fn prefetch_timers(&self) {
        if let Some((_, Event::Timer { flow, .. })) = self.sim.queue.upcoming_timer(1) {
            prefetch_bytes(&self.ep.flows[flow as usize], Flow::HOT_BYTES);
            prefetch(&self.ep.timers[flow as usize]);
        }
        let Some((at, Event::Timer { flow, kind, gen })) = self.sim.queue.upcoming_timer(0) else {
            return;
        };
        let slots = &self.ep.timers[flow as usize];
        let k = kind as usize;
        if slots.gen[k] == gen && slots.deadline[k] <= at {
            let f = &self.ep.flows[flow as usize];
            if let App::Tcp(i) = f.app {
                if let Some(t) = self.ep.tcps.get(i as usize) {
                    prefetch(t);
                }
            }
            let dir = (kind == TimerKind::DelayedAck) as usize;
            if let Some(l) = self.net.links.get(f.egress[dir] as usize) {
                prefetch_bytes(l, LinkDir::HOT_BYTES);
            }
        }
    }
}
