// SPDX-License-Identifier: MIT OR Apache-2.0
//! Trace-driven link capacity, as mahimahi's link emulator (`mm-link`)
//! models a cellular link.
//!
//! A trace lists delivery opportunities, one per line, each a time in whole
//! milliseconds since the trace started; several opportunities in one
//! millisecond repeat its time. The trace repeats with the period of its
//! last time. Each opportunity can deliver up to [`OPPORTUNITY_BYTES`] of
//! the queue's packets, in order, counted in bytes: a packet larger than
//! what is left of an opportunity continues in the next one and leaves the
//! link with the opportunity that carries its last byte; several small
//! packets share one; what a queue cannot use of an opportunity is lost.
//!
//! Time is continuous here and whole milliseconds in mahimahi, which serves
//! an opportunity before it reads the packets that arrived in the same
//! millisecond. So a packet that arrives at an idle link waits for the
//! first opportunity strictly after the millisecond of its arrival, and a
//! packet can use what its predecessor left of an opportunity only if it
//! arrived before that opportunity's millisecond. With opportunities at
//! whole milliseconds both rules read: an opportunity serves the packets
//! that arrived before its time.

use std::sync::Arc;

use crate::time::{Rate, SimTime};

/// What one delivery opportunity carries: mahimahi's `PACKET_SIZE` (an MTU
/// of 1500 B and the 4 bytes of the tunnel's header).
pub const OPPORTUNITY_BYTES: u32 = 1504;

const NS_PER_MS: u64 = 1_000_000;

/// A capacity trace: its opportunities, in milliseconds, non-decreasing.
#[derive(Debug, PartialEq)]
pub struct CapacityTrace {
    /// The file it was read from, as the scenario named it.
    pub file: String,
    times_ms: Vec<u64>,
    /// The trace's period: its last time (at least 1 ms).
    period_ms: u64,
    /// For each millisecond of the period, the opportunities at or before
    /// it: an idle link's next opportunity in O(1). Empty for a trace over
    /// [`INDEXED_MS`] long, which searches instead.
    count_le: Vec<u32>,
}

/// Why a trace could not be read.
#[derive(Debug)]
pub enum TraceError {
    /// Not a trace: the line and what is wrong with it.
    Bad(String),
    Io(std::io::Error),
    /// It holds more than it was allowed: `needs` bytes for the
    /// opportunities read so far (in the first `read` bytes of the input),
    /// or for those and the index.
    TooLarge {
        opportunities: u64,
        read: u64,
        needs: u64,
    },
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceError::Bad(m) => write!(f, "{m}"),
            TraceError::Io(e) => write!(f, "{e}"),
            TraceError::TooLarge {
                opportunities,
                read,
                needs,
            } => write!(
                f,
                "{opportunities} opportunities in its first {read} bytes need {needs} bytes"
            ),
        }
    }
}

/// The longest period indexed per millisecond (2^24 ms, 4.7 hours: 64 MB).
const INDEXED_MS: u64 = 1 << 24;

impl CapacityTrace {
    /// Reads mahimahi's format from `text`: one time per line, in whole
    /// milliseconds, non-decreasing, the last one above 0. Blank lines are
    /// skipped. An error names the line (from 1).
    pub fn parse(file: &str, text: &str) -> Result<CapacityTrace, String> {
        CapacityTrace::read(file, text.as_bytes(), u64::MAX).map_err(|e| match e {
            TraceError::Bad(m) => m,
            e => e.to_string(),
        })
    }

    /// As [`Self::parse`], line by line from `input`, holding at most
    /// `max_bytes` of times and index ([`Self::bytes`]): a trace that needs
    /// more stops with [`TraceError::TooLarge`] before it grows past that.
    pub fn read(
        file: &str,
        mut input: impl std::io::BufRead,
        max_bytes: u64,
    ) -> Result<CapacityTrace, TraceError> {
        let mut times_ms: Vec<u64> = Vec::new();
        let mut line = Vec::new();
        let mut n = 0u64;
        let mut read = 0u64;
        loop {
            line.clear();
            let got = input.read_until(b'\n', &mut line).map_err(TraceError::Io)?;
            if got == 0 {
                break;
            }
            read += got as u64;
            n += 1;
            let text = String::from_utf8_lossy(&line);
            let s = text.trim();
            if s.is_empty() {
                continue;
            }
            let t: u64 = s.parse().map_err(|_| {
                TraceError::Bad(format!(
                    "line {n}: '{s}' is not a time in whole milliseconds"
                ))
            })?;
            if let Some(&last) = times_ms.last() {
                if t < last {
                    return Err(TraceError::Bad(format!(
                        "line {n}: {t} ms comes after {last} ms; times must not decrease"
                    )));
                }
            }
            if times_ms.len() == times_ms.capacity() {
                let want = (times_ms.len().max(4) as u64).saturating_mul(2);
                if want.saturating_mul(8) > max_bytes {
                    return Err(TraceError::TooLarge {
                        opportunities: times_ms.len() as u64,
                        read,
                        needs: 8 * times_ms.len() as u64,
                    });
                }
                times_ms.reserve_exact(want as usize - times_ms.len());
            }
            times_ms.push(t);
        }
        let period_ms = match times_ms.last() {
            None => {
                return Err(TraceError::Bad(
                    "no delivery opportunities (an empty trace)".into(),
                ))
            }
            Some(0) => {
                return Err(TraceError::Bad(
                    "every opportunity is at 0 ms; a trace must last 1 ms or more".into(),
                ))
            }
            Some(&p) => p,
        };
        let mut count_le = Vec::new();
        if period_ms <= INDEXED_MS && times_ms.len() < u32::MAX as usize {
            let held = 8 * times_ms.len() as u64 + 4 * period_ms;
            if held > max_bytes {
                return Err(TraceError::TooLarge {
                    opportunities: times_ms.len() as u64,
                    read,
                    needs: held,
                });
            }
            count_le.reserve_exact(period_ms as usize);
            let mut i = 0;
            for m in 0..period_ms {
                while i < times_ms.len() && times_ms[i] <= m {
                    i += 1;
                }
                count_le.push(i as u32);
            }
        }
        Ok(CapacityTrace {
            file: file.to_string(),
            times_ms,
            period_ms,
            count_le,
        })
    }

    /// The memory the trace holds: its times and its per-millisecond index.
    pub fn bytes(&self) -> u64 {
        8 * self.times_ms.len() as u64 + 4 * self.count_le.len() as u64
    }

    /// A trace from its times (tests and built-in traces).
    pub fn from_times(file: &str, times_ms: &[u64]) -> Result<CapacityTrace, String> {
        let text: Vec<String> = times_ms.iter().map(u64::to_string).collect();
        CapacityTrace::parse(file, &text.join("\n"))
    }

    /// Opportunities per period.
    pub fn opportunities(&self) -> usize {
        self.times_ms.len()
    }

    /// How long the trace lasts before it repeats, in ms.
    pub fn period_ms(&self) -> u64 {
        self.period_ms
    }

    /// The mean capacity over one period, in bit/s (every opportunity full).
    pub fn mean_bps(&self) -> f64 {
        self.times_ms.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0 * 1000.0 / self.period_ms as f64
    }

    /// The mean capacity as a [`Rate`] (rounded; at least 1 bit/s): what
    /// the scenario's checks and defaults that need one rate use.
    pub fn nominal(&self) -> Rate {
        Rate::from_bps(self.mean_bps().round().max(1.0) as u64)
    }

    /// When opportunity `j` comes, counting from the first (`j = 0`) and
    /// through the trace's repetitions.
    #[inline]
    pub fn time(&self, j: u64) -> SimTime {
        let n = self.times_ms.len() as u64;
        let ms = (j / n) * self.period_ms + self.times_ms[(j % n) as usize];
        SimTime::from_nanos(ms.saturating_mul(NS_PER_MS))
    }

    /// The first opportunity that serves a packet arriving at an idle link
    /// at `now`: the first after `now`'s whole millisecond.
    pub fn first_after(&self, now: SimTime) -> u64 {
        let ms = now.as_nanos() / NS_PER_MS;
        let (cycle, within) = (ms / self.period_ms, ms % self.period_ms);
        let n = self.times_ms.len() as u64;
        // The times are whole ms: "after `within`" is "at `within` + 1 or
        // later", so the first after the opportunities at or before it.
        let i = match self.count_le.get(within as usize) {
            Some(&c) => c as u64,
            None => self.times_ms.partition_point(|&t| t <= within) as u64,
        };
        cycle * n + i
    }

    /// Opportunities that come in `(0, end]` (the capacity a run of `end`
    /// was offered, with `first_after`'s rule: those at 0 serve nothing).
    pub fn opportunities_until(&self, end: SimTime) -> u64 {
        self.first_after(end) - self.first_after(SimTime::ZERO)
    }
}

/// The state of a trace-driven link direction: where the next packet can
/// start if it arrives in time.
#[derive(Debug, Clone)]
pub struct TraceLink {
    pub trace: Arc<CapacityTrace>,
    /// The opportunity a packet waiting behind the last one starts in, and
    /// the bytes it has left: the last one's own, with what it left, or the
    /// one after, whole.
    next: u64,
    left: u32,
}

/// Where a packet starts: an opportunity and the bytes it has left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    pub opportunity: u64,
    pub left: u32,
}

impl TraceLink {
    pub fn new(trace: Arc<CapacityTrace>) -> TraceLink {
        TraceLink {
            trace,
            next: 0,
            left: OPPORTUNITY_BYTES,
        }
    }

    /// Where a packet arriving at `now` starts, once those before it are
    /// served: behind the last packet if that one's opportunity is still to
    /// come, else (the link idle, the rest of the last opportunity lost) at
    /// the first opportunity after `now`.
    #[inline]
    pub fn start_for(&self, now: SimTime) -> Start {
        if self.trace.time(self.next) > now {
            self.waiting_start()
        } else {
            Start {
                opportunity: self.trace.first_after(now),
                left: OPPORTUNITY_BYTES,
            }
        }
    }

    /// Where a packet already waiting starts: behind the last one.
    #[inline]
    pub fn waiting_start(&self) -> Start {
        Start {
            opportunity: self.next,
            left: self.left,
        }
    }

    /// Marks the link idle until `s` (a discipline that holds its queue
    /// waits for that opportunity before it picks a packet).
    pub fn restart_at(&mut self, s: Start) {
        self.next = s.opportunity;
        self.left = s.left;
    }

    /// The time of opportunity `s`.
    #[inline]
    pub fn at(&self, s: Start) -> SimTime {
        self.trace.time(s.opportunity)
    }

    /// Serves a packet of `size` bytes from `s`: its first and last
    /// opportunities' times (it starts and leaves then). The link goes on
    /// behind it.
    pub fn serve(&mut self, s: Start, size: u32) -> (SimTime, SimTime) {
        let slot = self.plan(s, size);
        self.take(slot);
        (slot.start, slot.done)
    }

    /// What [`Self::serve`] would do, without doing it.
    #[inline]
    pub fn plan(&self, s: Start, size: u32) -> TraceSlot {
        let (mut j, mut left, mut need) = (s.opportunity, s.left, size);
        while need > left {
            need -= left;
            j += 1;
            left = OPPORTUNITY_BYTES;
        }
        left -= need;
        // An opportunity used up hands the next packet the one after it.
        let (next, left) = if left == 0 {
            (j + 1, OPPORTUNITY_BYTES)
        } else {
            (j, left)
        };
        TraceSlot {
            start: self.trace.time(s.opportunity),
            done: self.trace.time(j),
            next,
            left,
        }
    }

    /// Takes a planned transmission: the link goes on behind it.
    #[inline]
    pub fn take(&mut self, slot: TraceSlot) {
        self.next = slot.next;
        self.left = slot.left;
    }
}

/// A packet's transmission on a trace: its first and last opportunities'
/// times, and where the next packet starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceSlot {
    pub start: SimTime,
    pub done: SimTime,
    next: u64,
    left: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: f64) -> SimTime {
        SimTime::from_nanos((v * 1e6).round() as u64)
    }

    fn link(times: &[u64]) -> TraceLink {
        TraceLink::new(Arc::new(CapacityTrace::from_times("t", times).unwrap()))
    }

    /// A packet arriving at `now` is admitted and served.
    fn send(l: &mut TraceLink, now: f64, size: u32) -> (f64, f64) {
        let s = l.start_for(ms(now));
        let (a, b) = l.serve(s, size);
        (a.as_nanos() as f64 / 1e6, b.as_nanos() as f64 / 1e6)
    }

    #[test]
    fn parsing_names_the_bad_line() {
        let e = CapacityTrace::parse("f", "1\n2\nx3\n").unwrap_err();
        assert_eq!(e, "line 3: 'x3' is not a time in whole milliseconds");
        let e = CapacityTrace::parse("f", "1\n5\n\n4\n").unwrap_err();
        assert_eq!(e, "line 4: 4 ms comes after 5 ms; times must not decrease");
        assert!(CapacityTrace::parse("f", "\n\n")
            .unwrap_err()
            .contains("empty"));
        assert!(CapacityTrace::parse("f", "0\n0")
            .unwrap_err()
            .contains("1 ms or more"));
        assert!(CapacityTrace::parse("f", "-1").is_err());
        assert!(CapacityTrace::parse("f", "1.5").is_err());
        let t = CapacityTrace::parse("f", "0\n3\n3\n10\n").unwrap();
        assert_eq!((t.opportunities(), t.period_ms()), (4, 10));
    }

    #[test]
    fn the_trace_repeats_with_the_period_of_its_last_time() {
        let t = CapacityTrace::from_times("t", &[0, 3, 3, 10]).unwrap();
        let times: Vec<u64> = (0..9).map(|j| t.time(j).as_nanos() / NS_PER_MS).collect();
        assert_eq!(times, [0, 3, 3, 10, 10, 13, 13, 20, 20]);
        // 4 opportunities of 1504 B per 10 ms.
        assert_eq!(t.mean_bps(), 4.0 * 1504.0 * 8.0 * 100.0);
        // After the whole millisecond of the arrival.
        assert_eq!(t.first_after(ms(0.0)), 1);
        assert_eq!(t.first_after(ms(2.9)), 1);
        assert_eq!(t.first_after(ms(3.0)), 3);
        assert_eq!(t.first_after(ms(9.99)), 3);
        assert_eq!(t.first_after(ms(10.0)), 5);
        // 20 and 23 (twice) are in the millisecond or before: 30 ms.
        assert_eq!(t.first_after(ms(23.5)), 11);
        // (0, 25 ms]: 3, 3, 10, 10 (period 2's first), 13, 13, 20, 20, 23, 23.
        assert_eq!(t.opportunities_until(ms(25.0)), 10);
    }

    #[test]
    fn the_per_millisecond_index_finds_what_a_search_finds() {
        let mut rng = crate::rng::Rng::stream(3, 0, "trace");
        let mut t = 0;
        let times: Vec<u64> = (0..2000)
            .map(|_| {
                t += rng.next_u64() % 4; // gaps and repeats
                t
            })
            .collect();
        let tr = CapacityTrace::from_times("t", &times).unwrap();
        assert_eq!(tr.count_le.len() as u64, tr.period_ms());
        let mut searched = CapacityTrace::from_times("t", &times).unwrap();
        searched.count_le.clear();
        for ns in (0..3 * tr.period_ms() * NS_PER_MS).step_by(333_333) {
            let now = SimTime::from_nanos(ns);
            assert_eq!(tr.first_after(now), searched.first_after(now));
        }
    }

    #[test]
    fn one_opportunity_carries_1504_bytes_of_one_or_several_packets() {
        let mut l = link(&[1]); // one opportunity every ms: 12.032 Mb/s
                                // Three 500-B packets share the opportunity at 1 ms; the fourth
                                // gets its last 4 bytes, spans to 2 ms.
        assert_eq!(send(&mut l, 0.0, 500), (1.0, 1.0));
        assert_eq!(send(&mut l, 0.1, 500), (1.0, 1.0));
        assert_eq!(send(&mut l, 0.2, 500), (1.0, 1.0));
        assert_eq!(send(&mut l, 0.3, 500), (1.0, 2.0));
        // 1008 B left at 2 ms: a 1008-B packet fills it exactly ...
        assert_eq!(send(&mut l, 0.4, 1008), (2.0, 2.0));
        // ... and the next starts whole at 3 ms.
        assert_eq!(send(&mut l, 0.5, 1504), (3.0, 3.0));
        // A 4000-B packet spans three opportunities.
        assert_eq!(send(&mut l, 0.6, 4000), (4.0, 6.0));
    }

    #[test]
    fn an_idle_link_loses_what_is_left_of_an_opportunity() {
        let mut l = link(&[1]);
        assert_eq!(send(&mut l, 0.0, 100), (1.0, 1.0));
        // Arrives after the 1 ms opportunity: its 1404 B are gone, and the
        // one at 2 ms serves it.
        assert_eq!(send(&mut l, 1.2, 100), (2.0, 2.0));
        // Arriving at 2 ms exactly, or within that millisecond, misses it.
        assert_eq!(send(&mut l, 2.0, 100), (3.0, 3.0));
        assert_eq!(send(&mut l, 7.99, 100), (8.0, 8.0));
    }

    #[test]
    fn a_packet_uses_its_predecessors_rest_only_if_it_came_before() {
        let mut l = link(&[5, 5, 10]);
        assert_eq!(send(&mut l, 0.0, 1000), (5.0, 5.0));
        // In time for the rest of the first 5 ms opportunity.
        assert_eq!(send(&mut l, 4.0, 1000), (5.0, 5.0));
        // The rest of the second 5 ms opportunity (1008 B), then 10 ms.
        assert_eq!(send(&mut l, 4.5, 1500), (5.0, 10.0));
        // Idle after 10 ms: a packet at 12 ms waits for 15 ms.
        assert_eq!(send(&mut l, 12.0, 40), (15.0, 15.0));
    }
}
