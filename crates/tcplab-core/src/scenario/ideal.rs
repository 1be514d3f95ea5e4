// SPDX-License-Identifier: MIT OR Apache-2.0
//! A transfer's ideal completion time, the denominator of its slowdown: the
//! same transfer alone on its path with a window that never limits.
//!
//! It is a lower bound on any completion time the run can give, so every
//! slowdown is at least 1, on links whose capacity varies too:
//! - a fixed rate: the data's bytes on the wire at that rate;
//! - a rate and delay schedule: its highest rate and its shortest delay;
//! - a capacity trace: the opportunities the trace offers from the moment
//!   the first data byte can reach the link, as mahimahi serves them
//!   ([`OPPORTUNITY_BYTES`] each), not the trace's mean rate: a transfer
//!   that meets a burst of capacity finishes sooner than the mean allows.

use crate::net::capacity::OPPORTUNITY_BYTES;
use crate::scenario::LinkRate;
use crate::time::{SimDuration, SimTime};

/// What the ideal time knows of one link direction of a path.
pub(super) struct Hop<'a> {
    rate: &'a LinkRate,
    /// The shortest propagation delay the direction can have.
    delay: SimDuration,
}

impl<'a> Hop<'a> {
    /// A link direction with its rate and its (base) propagation delay.
    pub(super) fn new(rate: &'a LinkRate, delay: SimDuration) -> Hop<'a> {
        let delay = match &rate.schedule {
            Some(s) => s.periods().map(|p| p.2).fold(delay, SimDuration::min),
            None => delay,
        };
        Hop { rate, delay }
    }

    /// The shortest propagation delay.
    pub(super) fn delay(&self) -> SimDuration {
        self.delay
    }

    /// The highest fixed rate (bit/s), or None on a capacity trace.
    fn fixed_bps(&self) -> Option<u64> {
        if self.rate.trace.is_some() {
            return None;
        }
        let base = self.rate.nominal.bps();
        Some(match &self.rate.schedule {
            Some(s) => s.periods().map(|p| p.1).fold(base, u64::max),
            None => base,
        })
    }
}

/// The ideal completion time of `size` bytes of payload sent from `start`
/// over the hops `fwd` (the data's path), the ACKs taking `rev` one way:
/// the handshake's propagation there and back (SYN, SYN-ACK), then the
/// data's propagation and its bytes on the wire (payload, and `header`
/// bytes of headers and options per segment of `mss`) through the
/// slowest hop. It leaves out the small packets' serialization and the
/// store-and-forward of the other hops.
pub(super) fn completion(
    size: u64,
    mss: u64,
    header: u64,
    start: SimDuration,
    fwd: &[Hop],
    rev: SimDuration,
) -> SimDuration {
    let segments = size.div_ceil(mss);
    let wire = size + segments * header;
    let one_way = fwd.iter().fold(SimDuration::ZERO, |t, h| t + h.delay);
    let slowest = fwd.iter().filter_map(Hop::fixed_bps).min();
    let tx_ns = slowest.map_or(0, |bps| {
        ((wire as u128 * 8 * 1_000_000_000).div_ceil(bps as u128)) as u64
    });
    let mut ideal = one_way + rev + one_way + SimDuration::from_nanos(tx_ns);
    // The data's first byte is sent when the SYN-ACK arrives.
    let sent = SimTime::ZERO + start + one_way + rev;
    let opportunities = wire.div_ceil(OPPORTUNITY_BYTES as u64).max(1);
    let mut before = SimDuration::ZERO;
    for hop in fwd {
        if let Some(trace) = &hop.rate.trace {
            // The last byte leaves with the trace's `opportunities`-th
            // opportunity after the first byte can arrive, then propagates.
            let first = trace.first_after(sent + before);
            let done = trace.time(first + opportunities - 1);
            let arrive = done + (one_way - before);
            ideal = ideal.max(arrive - (SimTime::ZERO + start));
        }
        before = before + hop.delay;
    }
    ideal
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::net::capacity::CapacityTrace;
    use crate::time::Rate;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_nanos(x * 1_000_000)
    }

    fn fixed(bps: u64) -> LinkRate {
        LinkRate {
            nominal: Rate::from_bps(bps),
            trace: None,
            schedule: None,
            loss_schedule: None,
        }
    }

    #[test]
    fn a_trace_counts_its_opportunities_from_the_transfer_s_own_start() {
        // One opportunity a millisecond at 1..=10 ms, repeating every 10 ms.
        let times: Vec<u64> = (1..=10).collect();
        let trace = Arc::new(CapacityTrace::from_times("t", &times).unwrap());
        let rate = LinkRate {
            nominal: trace.nominal(),
            trace: Some(trace),
            schedule: None,
            loss_schedule: None,
        };
        let hops = [Hop::new(&rate, ms(5))];
        // 3,000 B in 3 segments of 1,460 B with 40 B of headers: 3,120 B on
        // the wire, 3 opportunities. The data is sent at 10 ms (SYN 5 ms,
        // SYN-ACK 5 ms); the first opportunity after 10 ms is at 11 ms, the
        // third at 13 ms; 5 ms of propagation: 18 ms.
        assert_eq!(
            completion(3000, 1460, 40, SimDuration::ZERO, &hops, ms(5)),
            ms(18)
        );
        // From 3 ms later the opportunities are at 14, 15, 16 ms: 21 ms, 18 ms
        // after the start.
        assert_eq!(completion(3000, 1460, 40, ms(3), &hops, ms(5)), ms(18));
        // A fixed 1 Mb/s hop before it is slower: 3,120 B take 24.96 ms there.
        let slow = fixed(1_000_000);
        let hops = [Hop::new(&slow, ms(1)), Hop::new(&rate, ms(5))];
        let tx = SimDuration::from_nanos(24_960_000);
        assert_eq!(
            completion(3000, 1460, 40, SimDuration::ZERO, &hops, ms(6)),
            ms(18) + tx
        );
    }
}
