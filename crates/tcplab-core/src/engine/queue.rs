// SPDX-License-Identifier: MIT OR Apache-2.0
//! The event queue: a binary min-heap keyed by (time, insertion sequence).
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

/// An entry's key is (time, sequence) packed into one integer, so that the
/// heap compares once.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl Entry {
    #[inline]
    fn new(time: SimTime, seq: u64, event: Event) -> Self {
        Entry {
            key: ((time.as_nanos() as u128) << 64) | seq as u128,
            event,
        }
    }
    #[inline]
    fn time(&self) -> SimTime {
        SimTime::from_nanos((self.key >> 64) as u64)
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

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
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
        self.heap.push(Entry::new(time, seq, event));
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
        self.heap.push(Entry::new(time, seq, event));
    }

    /// The earliest event, O(log n).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let e = self.heap.pop()?;
        let time = e.time();
        debug_assert!(time >= self.last_popped, "time went backwards");
        self.last_popped = time;
        Some((time, e.event))
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
        let mut top = self.heap.peek_mut()?;
        let time = top.time();
        let event = top.event;
        debug_assert!(time >= self.last_popped, "time went backwards");
        self.last_popped = time;
        match follow(&event) {
            Some((next, seq)) => {
                debug_assert!(next >= time && seq < self.next_seq);
                // Restores the heap order when `top` goes out of scope.
                *top = Entry::new(next, seq, event);
            }
            None => {
                std::collections::binary_heap::PeekMut::pop(top);
            }
        }
        Some((time, event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time())
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
