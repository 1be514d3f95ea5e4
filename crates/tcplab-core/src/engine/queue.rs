// SPDX-License-Identifier: MIT OR Apache-2.0
//! The event queue, keyed by (time, insertion sequence): arrivals in a
//! binary min-heap, timer and application events on a [`TimerWheel`].
//!
//! With thousands of connections nearly every connection has a
//! retransmission timer pending, while only the links with packets on them
//! have an arrival pending: kept apart, the arrivals (most events) sift
//! through a heap of a few dozen entries instead of one dominated by timers,
//! and a timer costs O(1) instead of a sift through tens of thousands. Each
//! pop takes the earlier of the two heads, so the order is exactly that of
//! a single heap.
//!
//! The order is total and deliberate: earlier time first; at the same
//! instant, the event scheduled first runs first (FIFO), whatever its kind.
//! This makes a run deterministic by construction. Time never moves
//! backwards: scheduling before the last popped event is a logic error and
//! is asserted in debug builds.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::Event;
use crate::time::SimTime;

/// (time, sequence) packed into one integer, so that a heap compares once.
#[inline]
fn key(time: SimTime, seq: u64) -> u128 {
    ((time.as_nanos() as u128) << 64) | seq as u128
}

/// The time of a [`key`].
#[inline]
fn key_time(key: u128) -> SimTime {
    SimTime::from_nanos((key >> 64) as u64)
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl Entry {
    #[inline]
    fn new(time: SimTime, seq: u64, event: Event) -> Self {
        Entry {
            key: key(time, seq),
            event,
        }
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest entry.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// log2 of a wheel bucket's width in ns: about 4.2 ms.
const BUCKET_SHIFT: u32 = 22;
/// Buckets on the wheel (a power of two): a horizon of about 17.6 s.
const BUCKETS: usize = 4096;

/// A hashed timing wheel that pops in exact key order.
///
/// Time is cut into buckets of 2^[`BUCKET_SHIFT`] ns. `ready` is a heap of
/// every entry in bucket `cur` or earlier; `wheel` holds, unsorted, the
/// entries of the next `BUCKETS - 1` buckets, each in the slot of its bucket
/// number modulo `BUCKETS`; `far` is a heap of the rest. Whenever `ready`
/// runs dry, `cur` jumps to the next non-empty bucket (found through a
/// two-level bitmap), that bucket's entries become `ready`, and entries of
/// `far` that are now within the horizon move onto the wheel. So `ready` is
/// never empty while anything is pending, and its head is the minimum.
/// Insertion is O(1) (O(log n) beyond the horizon); a pop is a sift through
/// one bucket's entries.
///
/// Bucket buffers circulate: a drained one goes to `spare`, and an empty
/// slot that receives an entry takes the most recently drained buffer, so
/// with thousands of timers the entries are written to memory still in
/// cache rather than to a buffer that last held entries a revolution ago.
#[derive(Debug)]
struct TimerWheel {
    ready: BinaryHeap<Entry>,
    wheel: Vec<Vec<Entry>>,
    /// Emptied bucket buffers (with their capacity), most recent last.
    spare: Vec<Vec<Entry>>,
    /// Bit `i` of word `w`: slot `64 w + i` is not empty.
    occupied: [u64; BUCKETS / 64],
    /// Bit `w`: word `w` of `occupied` is not zero.
    summary: u64,
    far: BinaryHeap<Entry>,
    cur: u64,
    len: usize,
}

const _: () = assert!(BUCKETS == 64 * 64, "a two-level bitmap of 64-bit words");

impl Default for TimerWheel {
    fn default() -> Self {
        TimerWheel {
            ready: BinaryHeap::new(),
            wheel: (0..BUCKETS).map(|_| Vec::new()).collect(),
            spare: Vec::new(),
            occupied: [0; BUCKETS / 64],
            summary: 0,
            far: BinaryHeap::new(),
            cur: 0,
            len: 0,
        }
    }
}

impl TimerWheel {
    #[inline]
    fn bucket(e: &Entry) -> u64 {
        (e.key >> (64 + BUCKET_SHIFT)) as u64
    }

    #[inline]
    fn peek(&self) -> Option<&Entry> {
        self.ready.peek()
    }

    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entries are never earlier than the last one popped.
    #[inline]
    fn push(&mut self, e: Entry) {
        if self.len == 0 {
            self.cur = Self::bucket(&e);
        }
        self.len += 1;
        self.place(e);
    }

    #[inline]
    fn place(&mut self, e: Entry) {
        let b = Self::bucket(&e);
        if b <= self.cur {
            self.ready.push(e);
        } else if b - self.cur < BUCKETS as u64 {
            let slot = b as usize % BUCKETS;
            let bucket = &mut self.wheel[slot];
            if bucket.capacity() == 0 {
                // A drained buffer, or a new one with room for a bucket's
                // usual load rather than grown one doubling at a time.
                *bucket = self.spare.pop().unwrap_or_else(|| Vec::with_capacity(32));
            }
            bucket.push(e);
            self.occupied[slot / 64] |= 1 << (slot % 64);
            self.summary |= 1 << (slot / 64);
        } else {
            self.far.push(e);
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        let e = self.ready.pop()?;
        self.len -= 1;
        if self.ready.is_empty() && self.len > 0 {
            self.refill();
        }
        Some(e)
    }

    /// Moves `cur` to the next non-empty bucket and makes its entries ready.
    fn refill(&mut self) {
        let next = match self.next_occupied() {
            Some(b) => b,
            // Nothing on the wheel: everything left is beyond the horizon.
            None => Self::bucket(self.far.peek().expect("a pending entry")),
        };
        self.cur = next;
        let slot = next as usize % BUCKETS;
        if self.occupied[slot / 64] & (1 << (slot % 64)) != 0 {
            self.occupied[slot / 64] &= !(1 << (slot % 64));
            if self.occupied[slot / 64] == 0 {
                self.summary &= !(1 << (slot / 64));
            }
            let mut bucket = std::mem::take(&mut self.wheel[slot]);
            self.ready.extend(bucket.drain(..));
            if bucket.capacity() > 0 {
                self.spare.push(bucket);
            }
        }
        while let Some(e) = self.far.peek() {
            let b = Self::bucket(e);
            if b - self.cur >= BUCKETS as u64 {
                break;
            }
            let e = self.far.pop().expect("peeked");
            self.place(e);
        }
    }

    /// The bucket number of the first non-empty slot after `cur`.
    fn next_occupied(&self) -> Option<u64> {
        if self.summary == 0 {
            return None;
        }
        let start = (self.cur as usize + 1) % BUCKETS;
        // Slots from `start` to the end of the wheel, then from its start.
        let found = self
            .first_set_from(start)
            .or_else(|| self.first_set_from(0))?;
        let ahead = (found + BUCKETS - start) % BUCKETS;
        Some(self.cur + 1 + ahead as u64)
    }

    /// The first occupied slot at or after `from` (no wrapping).
    fn first_set_from(&self, from: usize) -> Option<usize> {
        let (w, bit) = (from / 64, from % 64);
        let here = self.occupied[w] & (u64::MAX << bit);
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        let later = if w + 1 < 64 {
            self.summary & (u64::MAX << (w + 1))
        } else {
            0
        };
        if later == 0 {
            return None;
        }
        let w = later.trailing_zeros() as usize;
        Some(w * 64 + self.occupied[w].trailing_zeros() as usize)
    }
}

/// A pending arrival: the link direction and the key of its head packet.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    key: u128,
    ld: u32,
}

/// The min-heap of pending arrivals, one per link direction with packets on
/// it. Written out rather than `BinaryHeap<Entry>` so that the element moved
/// down the heap stays in registers. A pop walks the hole to the bottom
/// first and then sifts the last element up from there (it is nearly always
/// late, so this takes fewer comparisons); a replacement of the head (the
/// link's next arrival, often soon) sifts down and stops where it fits.
#[derive(Debug, Default)]
struct ArrivalHeap {
    v: Vec<Arrival>,
}

impl ArrivalHeap {
    #[inline]
    fn peek(&self) -> Option<&Arrival> {
        self.v.first()
    }

    #[inline]
    fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    fn push(&mut self, a: Arrival) {
        self.v.push(a);
        self.sift_up(self.v.len() - 1, a);
    }

    /// Removes the head.
    #[inline]
    fn pop(&mut self) -> Option<Arrival> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        let top = self.v[0];
        self.fill_from_root(last);
        Some(top)
    }

    /// Replaces the head (which must exist) with `a`.
    #[inline]
    fn replace_top(&mut self, a: Arrival) {
        let v = &mut self.v[..];
        let mut hole = 0;
        while let Some(c) = Self::smaller_child(v, hole) {
            if a.key <= v[c].key {
                break;
            }
            v[hole] = v[c];
            hole = c;
        }
        v[hole] = a;
    }

    /// The smaller child of `hole`, if it has any (chosen without a branch).
    #[inline(always)]
    fn smaller_child(v: &[Arrival], hole: usize) -> Option<usize> {
        let c = 2 * hole + 1;
        if c >= v.len() {
            None
        } else if c + 1 < v.len() {
            Some(c + (v[c + 1].key < v[c].key) as usize)
        } else {
            Some(c)
        }
    }

    /// Moves the hole at the root down along the smaller children to a
    /// leaf, then puts `a` in it and sifts it up.
    #[inline]
    fn fill_from_root(&mut self, a: Arrival) {
        let v = &mut self.v[..];
        let mut hole = 0;
        while let Some(c) = Self::smaller_child(v, hole) {
            v[hole] = v[c];
            hole = c;
        }
        self.sift_up(hole, a);
    }

    #[inline]
    fn sift_up(&mut self, mut hole: usize, a: Arrival) {
        let v = &mut self.v[..];
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if v[parent].key <= a.key {
                break;
            }
            v[hole] = v[parent];
            hole = parent;
        }
        v[hole] = a;
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    /// Arrivals.
    heap: ArrivalHeap,
    /// Timer and application events.
    wheel: TimerWheel,
    next_seq: u64,
    last_popped: SimTime,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// O(log n).
    #[inline]
    pub fn push(&mut self, time: SimTime, event: Event) {
        debug_assert!(time >= self.last_popped, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.insert(Entry::new(time, seq, event));
    }

    #[inline]
    fn insert(&mut self, e: Entry) {
        match e.event {
            Event::Arrive { ld } => self.heap.push(Arrival { key: e.key, ld }),
            _ => self.wheel.push(e),
        }
    }

    /// Whether the next event is the wheel's first (rather than the first
    /// arrival). Keys are unique, so there is never a tie.
    #[inline]
    fn wheel_first(&self) -> bool {
        match (self.heap.peek(), self.wheel.peek()) {
            (Some(h), Some(t)) => t.key < h.key,
            (None, Some(_)) => true,
            _ => false,
        }
    }

    /// Takes the next insertion sequence number without scheduling anything,
    /// for an event that will be pushed later with [`Self::push_seq`] but
    /// must keep its place among events scheduled now.
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Schedules `event` with a sequence number from [`Self::reserve_seq`]:
    /// it runs exactly where it would have had it been pushed then.
    #[inline]
    pub fn push_seq(&mut self, time: SimTime, seq: u64, event: Event) {
        debug_assert!(time >= self.last_popped, "event scheduled in the past");
        debug_assert!(seq < self.next_seq, "sequence number not reserved");
        self.insert(Entry::new(time, seq, event));
    }

    /// The earliest event, O(log n).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let (key, event) = if self.wheel_first() {
            let e = self.wheel.pop()?;
            (e.key, e.event)
        } else {
            let a = self.heap.pop()?;
            (a.key, Event::Arrive { ld: a.ld })
        };
        let time = key_time(key);
        debug_assert!(time >= self.last_popped, "time went backwards");
        self.last_popped = time;
        Some((time, event))
    }

    /// The earliest event, like [`Self::pop`]; if `follow` gives the time and
    /// reserved sequence number of the same event's next occurrence (the
    /// next arrival on the same link), it is scheduled in the popped one's
    /// place, one sift instead of a pop and a push.
    #[inline]
    pub fn pop_and_follow(
        &mut self,
        follow: impl FnOnce(&Event) -> Option<(SimTime, u64)>,
    ) -> Option<(SimTime, Event)> {
        if self.wheel_first() {
            // Only arrivals have a successor to schedule in their place.
            return self.pop();
        }
        let top = *self.heap.peek()?;
        let time = key_time(top.key);
        let event = Event::Arrive { ld: top.ld };
        debug_assert!(time >= self.last_popped, "time went backwards");
        self.last_popped = time;
        match follow(&event) {
            Some((next, seq)) => {
                debug_assert!(next >= time && seq < self.next_seq);
                self.heap.replace_top(Arrival {
                    key: key(next, seq),
                    ld: top.ld,
                });
            }
            None => {
                self.heap.pop();
            }
        }
        Some((time, event))
    }

    /// The wheel's next timer or application event (`k` = 0) or the one
    /// after it (`k` = 1), if it falls in the current bucket: a hint for
    /// prefetching, O(1).
    #[inline]
    pub fn upcoming_timer(&self, k: usize) -> Option<(SimTime, Event)> {
        // The heap's head, then the smaller of its children (std's heap is
        // the usual implicit binary tree; were it not, only the hint would
        // be worse).
        let v = self.wheel.ready.as_slice();
        let e = match k {
            0 => v.first()?,
            1 => match (v.get(1), v.get(2)) {
                (Some(a), Some(b)) => {
                    if a.key < b.key {
                        a
                    } else {
                        b
                    }
                }
                (a, _) => a?,
            },
            _ => return None,
        };
        Some((key_time(e.key), e.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        let key = if self.wheel_first() {
            self.wheel.peek()?.key
        } else {
            self.heap.peek()?.key
        };
        Some(key_time(key))
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.wheel.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.len() == 0 && self.wheel.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::TimerKind;

    fn t(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    #[test]
    fn pops_in_time_order_and_fifo_at_equal_times() {
        let mut q = EventQueue::new();
        q.push(t(30), Event::App { flow: 0 });
        q.push(t(10), Event::App { flow: 1 });
        q.push(t(20), Event::App { flow: 2 });
        q.push(t(10), Event::App { flow: 3 });
        q.push(t(10), Event::Arrive { ld: 4 });
        let order: Vec<(u64, String)> = std::iter::from_fn(|| q.pop())
            .map(|(tm, e)| (tm.as_nanos(), format!("{e:?}")))
            .collect();
        assert_eq!(
            order,
            vec![
                (10, "App { flow: 1 }".to_string()),
                (10, "App { flow: 3 }".to_string()),
                (10, "Arrive { ld: 4 }".to_string()),
                (20, "App { flow: 2 }".to_string()),
                (30, "App { flow: 0 }".to_string()),
            ]
        );
    }

    #[test]
    fn a_reserved_sequence_keeps_its_place_at_equal_times() {
        let mut q = EventQueue::new();
        let early = q.reserve_seq();
        q.push(t(10), Event::App { flow: 1 });
        q.push_seq(t(10), early, Event::App { flow: 0 });
        q.push(t(10), Event::App { flow: 2 });
        let flows: Vec<String> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| format!("{e:?}"))
            .collect();
        assert_eq!(
            flows,
            ["App { flow: 0 }", "App { flow: 1 }", "App { flow: 2 }"]
        );
    }

    #[test]
    fn pop_and_follow_reschedules_the_same_event_in_place() {
        let mut q = EventQueue::new();
        q.push(t(10), Event::Arrive { ld: 1 });
        q.push(t(20), Event::App { flow: 7 });
        let next = q.reserve_seq();
        let got = q.pop_and_follow(|e| matches!(e, Event::Arrive { .. }).then_some((t(30), next)));
        assert_eq!(got.map(|(tm, _)| tm), Some(t(10)));
        assert_eq!(q.len(), 2);
        let rest: Vec<(u64, String)> = std::iter::from_fn(|| q.pop_and_follow(|_| None))
            .map(|(tm, e)| (tm.as_nanos(), format!("{e:?}")))
            .collect();
        assert_eq!(
            rest,
            [
                (20, "App { flow: 7 }".to_string()),
                (30, "Arrive { ld: 1 }".to_string())
            ]
        );
    }

    /// The queue against a plain heap: random delays from nanoseconds to
    /// minutes (within a bucket, across the wheel, beyond its horizon and
    /// across the wrap of its slots), many at the same instant, interleaved
    /// with pops. Both must give the same events in the same order.
    #[test]
    fn the_wheel_and_the_arrival_heap_pop_exactly_like_one_heap() {
        let mut rng = crate::rng::Rng::stream(7, 0, "wheel");
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        let mut popped = 0;
        for step in 0..200_000u32 {
            if rng.next_u64() % 5 < 3 {
                let delay = match rng.next_u64() % 6 {
                    0 => 0,
                    1 => rng.next_u64() % 1_000,
                    2 => rng.next_u64() % 5_000_000,
                    3 => rng.next_u64() % 200_000_000,
                    4 => rng.next_u64() % 20_000_000_000,
                    _ => rng.next_u64() % 600_000_000_000,
                };
                let ev = if step % 7 == 0 {
                    Event::App { flow: step }
                } else if step % 3 == 0 {
                    Event::Arrive { ld: step }
                } else {
                    Event::Timer {
                        flow: step,
                        kind: TimerKind::Rto,
                        gen: 0,
                    }
                };
                q.push(t(now + delay), ev);
                reference.push(Entry::new(t(now + delay), seq, ev));
                seq += 1;
            } else {
                let want = reference
                    .pop()
                    .map(|e| (key_time(e.key), format!("{:?}", e.event)));
                let got = q.pop().map(|(tm, e)| (tm, format!("{e:?}")));
                assert_eq!(got, want, "pop {popped}");
                if let Some((tm, _)) = got {
                    now = tm.as_nanos();
                    popped += 1;
                }
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(e) = reference.pop() {
            let got = q.pop().map(|(tm, e)| (tm, format!("{e:?}")));
            assert_eq!(got, Some((key_time(e.key), format!("{:?}", e.event))));
        }
        assert!(q.is_empty() && q.pop().is_none());
        assert!(popped > 50_000, "the pops were exercised: {popped}");
    }

    /// Arrivals alone, as a run with many busy links makes them: popped
    /// with `pop_and_follow`, which replaces the head with the link's next
    /// arrival about half the time (the heap's sift-down) and pops it
    /// otherwise (its walk to a leaf and sift-up), against a plain heap,
    /// from a few entries to thousands and back.
    #[test]
    fn followed_arrivals_pop_exactly_like_one_heap() {
        let mut rng = crate::rng::Rng::stream(11, 0, "arrivals");
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut now = 0u64;
        for step in 0..300_000u32 {
            let grow = if step < 150_000 { 3 } else { 1 };
            if rng.next_u64() % 4 < grow {
                let at = t(now + rng.next_u64() % 50_000);
                let seq = q.reserve_seq();
                q.push_seq(at, seq, Event::Arrive { ld: step });
                reference.push(Entry::new(at, seq, Event::Arrive { ld: step }));
                continue;
            }
            let Some(want) = reference.pop() else {
                continue;
            };
            let follow = rng.next_u64().is_multiple_of(2).then(|| {
                let at = t(key_time(want.key).as_nanos() + rng.next_u64() % 20_000);
                let seq = q.reserve_seq();
                reference.push(Entry::new(at, seq, want.event));
                (at, seq)
            });
            let got = q
                .pop_and_follow(|_| follow)
                .map(|(tm, e)| (tm, format!("{e:?}")));
            let expected = (key_time(want.key), format!("{:?}", want.event));
            assert_eq!(got, Some(expected), "step {step}");
            now = key_time(want.key).as_nanos();
            assert_eq!(q.len(), reference.len());
        }
        while let Some(want) = reference.pop() {
            let got = q.pop().map(|(tm, e)| (tm, format!("{e:?}")));
            assert_eq!(got, Some((key_time(want.key), format!("{:?}", want.event))));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn upcoming_timers_are_the_next_two_in_the_current_bucket() {
        let mut q = EventQueue::new();
        let app = |flow| Event::App { flow };
        // Bucket 0 (4.2 ms wide): 10, 20, 30 us, pushed out of order, with
        // an arrival between; bucket 1 at 5 ms.
        q.push(t(30_000), app(3));
        q.push(t(10_000), app(1));
        q.push(t(15_000), Event::Arrive { ld: 9 });
        q.push(t(20_000), app(2));
        q.push(t(5_000_000), app(4));
        let flow = |e: Option<(SimTime, Event)>| match e {
            Some((_, Event::App { flow })) => Some(flow),
            _ => None,
        };
        assert_eq!(flow(q.upcoming_timer(0)), Some(1));
        assert_eq!(flow(q.upcoming_timer(1)), Some(2));
        assert_eq!(flow(q.upcoming_timer(2)), None, "a hint two deep");
        q.pop();
        assert_eq!(flow(q.upcoming_timer(0)), Some(2));
        assert_eq!(flow(q.upcoming_timer(1)), Some(3));
        q.pop(); // the arrival
        q.pop();
        assert_eq!(flow(q.upcoming_timer(0)), Some(3));
        assert_eq!(flow(q.upcoming_timer(1)), None, "next bucket");
        q.pop();
        assert_eq!(flow(q.upcoming_timer(0)), Some(4), "bucket 1 is ready");
    }

    #[test]
    fn many_events_within_one_bucket_pop_in_order() {
        // Scheduled microseconds apart, out of order: the load of the bare
        // event-loop benchmark, all in the ready heap.
        let mut rng = crate::rng::Rng::stream(3, 0, "bucket");
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut now = 0u64;
        for seq in 0..20_000u64 {
            let at = now + rng.next_u64() % 16_000;
            q.push(t(at), Event::App { flow: seq as u32 });
            reference.push(Entry::new(t(at), seq, Event::App { flow: seq as u32 }));
            if seq % 2 == 1 {
                let (tm, _) = q.pop().expect("pending");
                assert_eq!(tm, key_time(reference.pop().expect("pending").key));
                now = tm.as_nanos();
            }
        }
        while let Some(e) = reference.pop() {
            assert_eq!(q.pop().map(|(tm, _)| tm), Some(key_time(e.key)));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn arrivals_and_timers_interleave_by_time_then_sequence() {
        let mut q = EventQueue::new();
        let timer = |flow| Event::Timer {
            flow,
            kind: TimerKind::DelayedAck,
            gen: 1,
        };
        q.push(t(50), timer(0));
        q.push(t(10), Event::Arrive { ld: 1 });
        q.push(t(50), Event::Arrive { ld: 2 });
        q.push(t(10), timer(3));
        // A timer far beyond the wheel's horizon, then one on it.
        q.push(t(3_600_000_000_000), timer(4));
        q.push(t(20_000_000), timer(5));
        assert_eq!(q.peek_time(), Some(t(10)));
        let order: Vec<String> = std::iter::from_fn(|| q.pop_and_follow(|_| None))
            .map(|(tm, e)| format!("{} {e:?}", tm.as_nanos()))
            .collect();
        assert_eq!(
            order,
            [
                "10 Arrive { ld: 1 }",
                "10 Timer { flow: 3, kind: DelayedAck, gen: 1 }",
                "50 Timer { flow: 0, kind: DelayedAck, gen: 1 }",
                "50 Arrive { ld: 2 }",
                "20000000 Timer { flow: 5, kind: DelayedAck, gen: 1 }",
                "3600000000000 Timer { flow: 4, kind: DelayedAck, gen: 1 }",
            ]
        );
    }

    #[test]
    #[should_panic(expected = "in the past")]
    #[cfg(debug_assertions)]
    fn refuses_the_past() {
        let mut q = EventQueue::new();
        q.push(t(10), Event::App { flow: 9 });
        q.pop();
        q.push(t(5), Event::App { flow: 9 });
    }
}
