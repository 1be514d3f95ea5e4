// SPDX-License-Identifier: MIT OR Apache-2.0
//! A compact histogram of durations in nanoseconds, for delay percentiles
//! (queue sojourns, one-way delays): log-linear buckets, 32 per power of
//! two, so a percentile read from a bucket's midpoint is within 1.6% of
//! the sample (values under 32 ns are exact). Only the buckets between the
//! smallest and the largest sample are stored, so a queue whose sojourns
//! span a few octaves costs a few hundred bytes, and one that never queues
//! costs nothing. The count, the mean (from the exact sum) and the maximum
//! are exact.

/// Sub-buckets per power of two: 2^SUB_BITS.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hist {
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
    /// Samples of 0 (kept apart: most packets never wait).
    zeros: u64,
    /// The index of `bins[0]`.
    lo: u32,
    bins: Vec<u32>,
}

/// The bucket of a value of at least 1.
#[inline]
fn index(v: u64) -> u32 {
    if v < SUB {
        return v as u32;
    }
    let e = 63 - v.leading_zeros();
    let m = (v >> (e - SUB_BITS)) & (SUB - 1);
    ((e - SUB_BITS + 1) << SUB_BITS) + m as u32
}

/// The smallest value of bucket `i`, and its width.
fn bounds(i: u32) -> (u64, u64) {
    if (i as u64) < SUB {
        return (i as u64, 1);
    }
    let e = (i >> SUB_BITS) + SUB_BITS - 1;
    let m = (i as u64) & (SUB - 1);
    let width = 1u64 << (e - SUB_BITS);
    ((SUB + m) * width, width)
}

impl Hist {
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.min = if self.count == 0 { v } else { self.min.min(v) };
        self.count += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
        if v == 0 {
            self.zeros += 1;
            return;
        }
        let i = index(v);
        match i.checked_sub(self.lo) {
            Some(k) if (k as usize) < self.bins.len() => self.bins[k as usize] += 1,
            _ => self.grow_to(i),
        }
    }

    /// Counts a sample in bucket `i`, outside the stored range.
    #[cold]
    #[inline(never)]
    fn grow_to(&mut self, i: u32) {
        if self.bins.is_empty() {
            self.lo = i;
            self.bins.push(1);
        } else if i < self.lo {
            let more = (self.lo - i) as usize;
            let mut bins = Vec::new();
            crate::alloc::reserve(&mut bins, more + self.bins.len(), "a delay histogram");
            bins.resize(more, 0);
            bins.extend_from_slice(&self.bins);
            bins[0] = 1;
            self.bins = bins;
            self.lo = i;
        } else {
            let k = (i - self.lo) as usize;
            let more = k + 1 - self.bins.len();
            crate::alloc::reserve(&mut self.bins, more, "a delay histogram");
            self.bins.resize(k + 1, 0);
            self.bins[k] = 1;
        }
    }

    /// Counts `n` more samples of 0.
    pub fn add_zeros(&mut self, n: u64) {
        if n > 0 {
            self.min = 0;
        }
        self.count += n;
        self.zeros += n;
    }

    /// The smallest sample, or NaN without samples.
    pub fn min(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.min as f64
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The mean, or NaN without samples.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// The largest sample, or NaN without samples.
    pub fn max(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.max as f64
        }
    }

    /// The `q`-quantile (0 < q <= 1) by nearest rank: the midpoint of the
    /// bucket holding the `ceil(q * count)`-th smallest sample, within the
    /// smallest and largest samples (so exact below 32 and when all samples
    /// are equal), or NaN without samples.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        if rank <= self.zeros {
            return 0.0;
        }
        let mut seen = self.zeros;
        for (k, &n) in self.bins.iter().enumerate() {
            seen += n as u64;
            if seen >= rank {
                let (low, width) = bounds(self.lo + k as u32);
                let mid = low as f64 + (width as f64 - 1.0) / 2.0;
                return mid.clamp(self.min as f64, self.max as f64);
            }
        }
        self.max as f64
    }

    /// The stored buckets with a sample: (smallest value, width, count).
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        let zero = (self.zeros > 0).then_some((0, 1, self.zeros));
        zero.into_iter()
            .chain(
                self.bins
                    .iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(|(k, &n)| {
                        let (low, width) = bounds(self.lo + k as u32);
                        (low, width, n as u64)
                    }),
            )
    }
}

/// One-way delays of one direction of a flow (ns), with the jitter as
/// ns-3's FlowMonitor defines it: the mean absolute difference between the
/// delays of consecutive received packets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Delays {
    pub hist: Hist,
    last: u64,
    jitter_sum: u128,
}

impl Delays {
    #[inline]
    pub fn record(&mut self, d: u64) {
        if self.hist.count() > 0 {
            self.jitter_sum += d.abs_diff(self.last) as u128;
        }
        self.last = d;
        self.hist.record(d);
    }

    /// The mean jitter, or NaN with fewer than two samples.
    pub fn jitter(&self) -> f64 {
        match self.hist.count() {
            0 | 1 => f64::NAN,
            n => self.jitter_sum as f64 / (n - 1) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_values_without_gaps() {
        let mut next = 1;
        // The last bucket (1919) ends at u64::MAX.
        for i in 1..1919u32 {
            let (low, width) = bounds(i);
            assert_eq!(low, next, "bucket {i}");
            assert_eq!(index(low), i);
            assert_eq!(index(low + width - 1), i);
            // A bucket is at most 1/32 of its values wide.
            assert!(width == 1 || width * SUB <= low, "bucket {i}");
            next = low + width;
        }
        assert_eq!(bounds(1919), (next, u64::MAX - next + 1));
        assert_eq!(index(u64::MAX), 1919);
    }

    #[test]
    fn quantiles_are_within_the_bucket_precision() {
        let mut h = Hist::default();
        // 0, 10 us, 20 us, ..., 9.99 ms (1000 samples), and 100 zeros.
        for k in 0..1000u64 {
            h.record(k * 10_000);
        }
        for _ in 0..100 {
            h.record(0);
        }
        assert_eq!(h.count(), 1100);
        assert_eq!(
            h.mean(),
            (0..1000u64).map(|k| k * 10_000).sum::<u64>() as f64 / 1100.0
        );
        assert_eq!(h.max(), 9_990_000.0);
        assert_eq!(h.quantile(0.05), 0.0);
        // The 550th smallest is 4.49 ms, the 1045th 9.44 ms.
        for (q, want) in [(0.5, 4_490_000.0), (0.95, 9_440_000.0)] {
            let got = h.quantile(q);
            assert!((got - want).abs() / want < 0.016, "q {q}: {got} vs {want}");
        }
        assert_eq!(h.quantile(1.0), 9_990_000.0);
        assert!(Hist::default().quantile(0.5).is_nan());
        assert!(Hist::default().mean().is_nan());
    }

    #[test]
    fn jitter_is_the_mean_difference_of_consecutive_delays() {
        let mut d = Delays::default();
        assert!(d.jitter().is_nan());
        for v in [100, 130, 110, 110] {
            d.record(v);
        }
        // |30| + |-20| + 0 over three differences.
        assert_eq!(d.jitter(), 50.0 / 3.0);
        assert_eq!(
            (d.hist.min(), d.hist.max(), d.hist.mean()),
            (100.0, 130.0, 112.5)
        );
    }

    #[test]
    fn the_range_grows_both_ways_and_counts_stay() {
        let mut h = Hist::default();
        for v in [5_000, 1_000_000, 50, 5_000, 7] {
            h.record(v);
        }
        let b: Vec<(u64, u64, u64)> = h.buckets().collect();
        assert_eq!(b.iter().map(|x| x.2).sum::<u64>(), 5);
        assert_eq!(b[0], (7, 1, 1));
        assert_eq!(b[1], (50, 1, 1));
        assert!(b[2].0 <= 5_000 && 5_000 < b[2].0 + b[2].1 && b[2].2 == 2);
        // Small values are exact; the stored range spans 7 to 1e6 only.
        assert_eq!(h.quantile(0.2), 7.0);
        assert!(h.bins.len() < 20 * 32);
    }
}
