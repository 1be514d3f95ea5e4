// SPDX-License-Identifier: MIT OR Apache-2.0
//! Simulated time and link rates.
//!
//! `SimTime` is an instant (nanoseconds since the start of a run) and
//! `SimDuration` a span of nanoseconds; the type system keeps them apart:
//! instant - instant = duration, instant + duration = instant, and there is no
//! instant + instant. `Rate` is a link or sending rate in bit/s.
//!
//! All arithmetic is integer. The one rounding rule lives in
//! [`Rate::tx_time`]: a transmission time is rounded *up* to the next whole
//! nanosecond, so "latency = transmission + propagation" is exact and
//! testable.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};

/// An instant of simulated time: nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A span of simulated time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

/// A rate in bits per second. Always positive once validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(u64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// "Never": later than any event a run can schedule.
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * 1_000_000_000)
    }
    /// Seconds as a float, rounded to the nearest nanosecond. `None` if
    /// negative, not finite or beyond ~584 years.
    pub fn from_secs_f64(s: f64) -> Option<Self> {
        let ns = (s * 1e9).round();
        if !ns.is_finite() || ns < 0.0 || ns > u64::MAX as f64 {
            None
        } else {
            Some(SimDuration(ns as u64))
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
}

impl Rate {
    pub const fn from_bps(bps: u64) -> Self {
        Rate(bps)
    }
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialize `bytes` onto a link of this rate: `bytes * 8 / rate`,
    /// rounded up to the nanosecond.
    pub fn tx_time(self, bytes: u64) -> SimDuration {
        let den = self.0.max(1);
        // 64-bit arithmetic whenever it cannot overflow (any packet size).
        if let Some(num) = bytes.checked_mul(8_000_000_000) {
            return SimDuration(num.div_ceil(den));
        }
        let num = bytes as u128 * 8 * 1_000_000_000;
        SimDuration(num.div_ceil(den as u128).min(u64::MAX as u128) as u64)
    }
    /// Nanoseconds per byte when that is a whole number (8e9 divisible by
    /// the rate: 1 Gb/s, 100 Mb/s, 2 Mb/s, ...), so `tx_time` is a product.
    pub fn exact_ns_per_byte(self) -> Option<u64> {
        let bps = self.0.max(1);
        (8_000_000_000 % bps == 0).then_some(8_000_000_000 / bps)
    }
    /// The interval between packets of `bytes` sent at this rate (the same
    /// rounding as `tx_time`).
    pub fn interval(self, bytes: u64) -> SimDuration {
        self.tx_time(bytes)
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        *self = *self + d;
    }
}

impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    /// Saturates at zero; asking for a negative span is a logic error.
    fn sub(self, earlier: SimTime) -> SimDuration {
        debug_assert!(
            earlier <= self,
            "time went backwards: {earlier:?} > {self:?}"
        );
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(o.0))
    }
}

impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(o.0))
    }
}

impl Mul<u64> for SimDuration {
    type Output = SimDuration;
    fn mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

impl fmt::Display for SimDuration {
    /// The largest unit that shows the value exactly: `45ms`, `10us`, `1500ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        for (unit, scale) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
            if ns.is_multiple_of(scale) && ns != 0 {
                return write!(f, "{}{unit}", ns / scale);
            }
        }
        write!(f, "{ns}ns")
    }
}

impl fmt::Display for Rate {
    /// The largest unit that shows the value exactly: `2Mbps`, `1500kbps`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (unit, scale) in [
            ("Gbps", 1_000_000_000),
            ("Mbps", 1_000_000),
            ("kbps", 1_000),
        ] {
            if b.is_multiple_of(scale) && b != 0 {
                return write!(f, "{}{unit}", b / scale);
            }
        }
        write!(f, "{b}bps")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_is_exact_or_rounded_up() {
        // 1500 B at 10 Mb/s = 12000 bits / 1e7 = 1.2 ms exactly.
        assert_eq!(
            Rate::from_bps(10_000_000).tx_time(1500),
            SimDuration::from_micros(1200)
        );
        // 1 B at 3 bit/s = 8/3 s = 2.666..., rounded up to ...667 ns.
        assert_eq!(Rate::from_bps(3).tx_time(1).as_nanos(), 2_666_666_667);
        // Whole nanoseconds per byte when 8e9 / rate divides exactly.
        assert_eq!(Rate::from_bps(2_000_000).exact_ns_per_byte(), Some(4000));
        assert_eq!(Rate::from_bps(3).exact_ns_per_byte(), None);
        for bps in [1_000_000_000, 100_000_000, 10_000_000, 2_000_000, 1_500_000] {
            let r = Rate::from_bps(bps);
            if let Some(k) = r.exact_ns_per_byte() {
                assert_eq!(r.tx_time(1500).as_nanos(), 1500 * k);
            }
        }
    }

    #[test]
    fn instants_and_durations() {
        let t = SimTime::ZERO + SimDuration::from_millis(45);
        assert_eq!(t - SimTime::ZERO, SimDuration::from_millis(45));
        assert_eq!(
            SimDuration::from_secs_f64(0.0001),
            Some(SimDuration::from_micros(100))
        );
        assert_eq!(SimDuration::from_secs_f64(-1.0), None);
    }

    #[test]
    fn display_picks_exact_unit() {
        assert_eq!(SimDuration::from_millis(45).to_string(), "45ms");
        assert_eq!(SimDuration::from_millis(1500).to_string(), "1500ms");
        assert_eq!(SimDuration::from_nanos(10_001).to_string(), "10001ns");
        assert_eq!(SimDuration::ZERO.to_string(), "0ns");
        assert_eq!(Rate::from_bps(2_000_000).to_string(), "2Mbps");
        assert_eq!(Rate::from_bps(1_500_000).to_string(), "1500kbps");
    }
}
