// SPDX-License-Identifier: MIT OR Apache-2.0
//! Rate and delay schedules: a link direction whose rate and propagation
//! delay change at given times (handovers, fading, outages), without a
//! trace file.
//!
//! The rate is piecewise constant. A packet's bits go out at the rate of
//! each moment: one that starts in one period and ends in the next is
//! carried by both, exactly (in integer bit-nanoseconds). A rate of 0 is an
//! outage: with `outage = "hold"` the link holds its packets and resumes
//! where it stopped (a packet on the wire pauses); with `"drop"` every
//! packet that would be on the wire during the outage is lost, as on a link
//! that is down. A packet's propagation delay is the delay in force when its
//! last bit leaves; a link keeps its packets in order, so when the delay
//! falls a packet never arrives before the one ahead of it.

use std::sync::Arc;

use crate::time::{SimDuration, SimTime};

/// What happens to packets during an outage (a period of rate 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outage {
    /// The link holds them, and sends on when the outage ends.
    Hold,
    /// Every packet that would be on the wire during it is lost.
    Drop,
}

/// One direction's schedule: from `at[k]` on (`at[0]` is 0), the rate
/// `bps[k]` (0: an outage) and the propagation delay `delay[k]`.
#[derive(Debug, PartialEq)]
pub struct LinkSchedule {
    at: Vec<SimTime>,
    bps: Vec<u64>,
    delay: Vec<SimDuration>,
    pub outage: Outage,
}

impl LinkSchedule {
    /// A schedule of `(from, bps, delay)` periods, the first from 0, the
    /// times increasing (checked by the scenario).
    pub fn new(periods: &[(SimTime, u64, SimDuration)], outage: Outage) -> LinkSchedule {
        debug_assert!(periods.first().is_some_and(|p| p.0 == SimTime::ZERO));
        debug_assert!(periods.windows(2).all(|w| w[0].0 < w[1].0));
        LinkSchedule {
            at: periods.iter().map(|p| p.0).collect(),
            bps: periods.iter().map(|p| p.1).collect(),
            delay: periods.iter().map(|p| p.2).collect(),
            outage,
        }
    }

    /// The end of period `k` (never, for the last).
    #[inline]
    fn end(&self, k: usize) -> SimTime {
        self.at.get(k + 1).copied().unwrap_or(SimTime::MAX)
    }

    /// The period that holds `t`, searching on from period `k` (at or
    /// before it: times only move forward on a link direction).
    #[inline]
    fn period(&self, t: SimTime, mut k: usize) -> usize {
        while t >= self.end(k) {
            k += 1;
        }
        k
    }

    /// The periods' rates, delays and the times they start (for the
    /// results and tests).
    pub fn periods(&self) -> impl Iterator<Item = (SimTime, u64, SimDuration)> + '_ {
        (0..self.at.len()).map(|k| (self.at[k], self.bps[k], self.delay[k]))
    }
}

/// A transmission the schedule allows: when it starts and ends, its
/// delay, and the period its end falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub start: SimTime,
    pub done: SimTime,
    pub delay: SimDuration,
    period: usize,
}

/// The state of a scheduled link direction.
#[derive(Debug, Clone)]
pub struct ScheduleLink {
    pub schedule: Arc<LinkSchedule>,
    /// When the last packet's last bit leaves, and its period.
    busy_until: SimTime,
    period: usize,
    /// The latest arrival at the far end (the order is kept).
    last_arrive: SimTime,
}

impl ScheduleLink {
    pub fn new(schedule: Arc<LinkSchedule>) -> ScheduleLink {
        ScheduleLink {
            schedule,
            busy_until: SimTime::ZERO,
            period: 0,
            last_arrive: SimTime::ZERO,
        }
    }

    /// The earliest a packet that is ready at `ready` can start: then, or
    /// after an outage (holding), and never before the last one is done;
    /// `None` if the link never sends again.
    pub fn start_at(&self, ready: SimTime) -> Option<(SimTime, usize)> {
        let s = &self.schedule;
        let t = ready.max(self.busy_until);
        let mut k = s.period(t, self.period);
        if s.outage == Outage::Drop {
            return Some((t, k));
        }
        while s.bps[k] == 0 {
            if k + 1 == s.at.len() {
                return None;
            }
            k += 1;
        }
        Some((t.max(s.at[k]), k))
    }

    /// The transmission of `bytes` starting at `start` (from
    /// [`Self::start_at`]), or `None` when it cannot be made: it meets an
    /// outage that drops, or the link never sends again.
    pub fn plan(&self, start: (SimTime, usize), bytes: u64) -> Option<Slot> {
        let s = &self.schedule;
        let (mut t, mut k) = start;
        // Work left in bit-nanoseconds per second: a period of r bit/s
        // carries r * dt of it in dt ns.
        let mut left = bytes as u128 * 8 * 1_000_000_000;
        loop {
            let r = s.bps[k] as u128;
            if r == 0 {
                if s.outage == Outage::Drop || k + 1 == s.at.len() {
                    return None;
                }
            } else {
                let end = s.end(k);
                let room = (end - t).as_nanos() as u128 * r;
                if left <= room || end == SimTime::MAX {
                    let ns = left.div_ceil(r).min(u64::MAX as u128) as u64;
                    let done = t + SimDuration::from_nanos(ns);
                    // The period in force at `done` (the next one, when
                    // the last bit leaves just as it begins).
                    let k = s.period(done, k);
                    return Some(Slot {
                        start: start.0,
                        done,
                        delay: s.delay[k],
                        period: k,
                    });
                }
                left -= room;
            }
            k += 1;
            t = s.at[k];
        }
    }

    /// Takes `slot` (from [`Self::plan`]): the link is busy until its end.
    /// Its arrival at the far end, in order behind the last one.
    pub fn commit(&mut self, slot: Slot) -> SimTime {
        self.busy_until = slot.done;
        self.period = slot.period;
        let arrive = (slot.done + slot.delay).max(self.last_arrive);
        self.last_arrive = arrive;
        arrive
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Rate;

    fn ms(v: u64) -> SimTime {
        SimTime::from_nanos(v * 1_000_000)
    }
    fn d(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    /// 1 Mb/s for 10 ms, an outage for 10 ms, 2 Mb/s from 20 ms; the delay
    /// 5 ms, then 1 ms from 20 ms.
    fn link(outage: Outage) -> ScheduleLink {
        let s = LinkSchedule::new(
            &[
                (ms(0), 1_000_000, d(5)),
                (ms(10), 0, d(5)),
                (ms(20), 2_000_000, d(1)),
            ],
            outage,
        );
        ScheduleLink::new(Arc::new(s))
    }

    fn send(l: &mut ScheduleLink, ready: u64, bytes: u64) -> Option<(f64, f64, f64)> {
        let start = l.start_at(ms(ready))?;
        let slot = l.plan(start, bytes)?;
        let arrive = l.commit(slot);
        let f = |t: SimTime| t.as_nanos() as f64 / 1e6;
        Some((f(slot.start), f(slot.done), f(arrive)))
    }

    #[test]
    fn a_constant_schedule_serializes_as_a_fixed_rate_does() {
        for bps in [1_000_000u64, 3_000_000, 7_777_777] {
            let s = LinkSchedule::new(&[(SimTime::ZERO, bps, d(1))], Outage::Hold);
            let mut l = ScheduleLink::new(Arc::new(s));
            let mut t = SimTime::ZERO;
            for bytes in [40u64, 1500, 999, 1] {
                let slot = l.plan(l.start_at(t).unwrap(), bytes).unwrap();
                assert_eq!(slot.done - slot.start, Rate::from_bps(bps).tx_time(bytes));
                l.commit(slot);
                t = slot.done;
            }
        }
    }

    #[test]
    fn a_packet_is_carried_by_each_rate_it_meets_and_waits_out_an_outage() {
        let mut l = link(Outage::Hold);
        // 1000 B at 1 Mb/s: 8 ms; arrives 5 ms later.
        assert_eq!(send(&mut l, 0, 1000), Some((0.0, 8.0, 13.0)));
        // Starts at 8 ms: 2 ms (250 B) before the outage, the other 750 B
        // at 2 Mb/s from 20 ms: 3 ms. The delay is 1 ms by then.
        assert_eq!(send(&mut l, 1, 1000), Some((8.0, 23.0, 24.0)));
        // Ready in the outage: held until it ends (and the link is busy).
        let mut l = link(Outage::Hold);
        assert_eq!(send(&mut l, 12, 500), Some((20.0, 22.0, 23.0)));
    }

    #[test]
    fn an_outage_that_drops_takes_every_packet_it_meets() {
        let mut l = link(Outage::Drop);
        assert_eq!(send(&mut l, 0, 1000), Some((0.0, 8.0, 13.0)));
        // Would still be on the wire at 10 ms: lost, and the link stays free.
        assert_eq!(send(&mut l, 1, 1000), None);
        assert_eq!(send(&mut l, 8, 250), Some((8.0, 10.0, 15.0)));
        assert_eq!(send(&mut l, 15, 100), None);
        assert_eq!(send(&mut l, 20, 250), Some((20.0, 21.0, 22.0)));
    }

    #[test]
    fn packets_keep_their_order_when_the_delay_falls() {
        let s = LinkSchedule::new(
            &[(ms(0), 8_000_000, d(50)), (ms(2), 8_000_000, d(1))],
            Outage::Hold,
        );
        let mut l = ScheduleLink::new(Arc::new(s));
        // 1000 B at 8 Mb/s: 1 ms. The first arrives at 51 ms; the second
        // ends at 2 ms, when the delay is 1 ms, but waits behind it.
        assert_eq!(send(&mut l, 0, 1000), Some((0.0, 1.0, 51.0)));
        assert_eq!(send(&mut l, 0, 1000), Some((1.0, 2.0, 51.0)));
        assert_eq!(send(&mut l, 30, 1000), Some((30.0, 31.0, 51.0)));
        assert_eq!(send(&mut l, 60, 1000), Some((60.0, 61.0, 62.0)));
    }

    #[test]
    fn a_link_that_never_sends_again_sends_nothing() {
        let s = LinkSchedule::new(&[(ms(0), 1_000_000, d(1)), (ms(10), 0, d(1))], Outage::Hold);
        let mut l = ScheduleLink::new(Arc::new(s));
        assert_eq!(send(&mut l, 9, 1000), None, "would end after 10 ms");
        assert_eq!(send(&mut l, 11, 10), None);
        assert_eq!(send(&mut l, 0, 125), Some((0.0, 1.0, 2.0)));
    }
}
