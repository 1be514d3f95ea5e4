// SPDX-License-Identifier: MIT OR Apache-2.0
//! Link-layer ARQ on a link direction: a packet the error model loses is
//! sent again by the link, up to `attempts` transmissions in all, as the
//! local retransmission schemes of wireless hops (802.11's, LTE's RLC, and
//! the AIRMAIL and snoop schemes the Vegas and Westwood literature compares
//! against) hide losses from TCP.
//!
//! An attempt is lost or not at the far end, by the direction's error
//! model. A lost one is noticed `turnaround` later (the negative
//! acknowledgement's trip back and its handling), and the packet joins the
//! back of the link's queue again, ahead of nothing: the link goes on with
//! the packets behind it meanwhile, and the retransmission takes the
//! link's time as any packet does. A packet lost at its last attempt is
//! lost to TCP. Delivery is either in order (`order = "in"`, the default,
//! as RLC's acknowledged mode and 802.11's block acknowledgement deliver):
//! a packet that arrives while one sent before it is still being repaired
//! waits for it; or out of order (`"out"`): each packet goes on as soon as
//! it arrives.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::engine::PacketId;
use crate::error::{Error, Result};
use crate::time::{SimDuration, SimTime};

/// How an ARQ link delivers packets that overtook a repaired one.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ArqOrder {
    /// Hold them until the one before is delivered or lost for good.
    #[default]
    In,
    /// Deliver each as it arrives.
    Out,
}

crate::deserialize_names!(ArqOrder {
    "in" => ArqOrder::In,
    "out" => ArqOrder::Out,
});

fn default_turnaround() -> SimDuration {
    SimDuration::from_millis(1)
}

/// A link direction's `arq`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArqSpec {
    /// Transmissions in all, the first included (1: no retransmission).
    pub attempts: u32,
    /// From a lost attempt's arrival at the far end to its retransmission
    /// joining the queue.
    #[serde(default = "default_turnaround")]
    pub turnaround: SimDuration,
    #[serde(default)]
    pub order: ArqOrder,
}

impl ArqSpec {
    /// Checks it (`path` names the field in errors).
    pub fn check(&self, path: &str) -> Result<()> {
        if self.attempts == 0 {
            return Err(Error::invalid_allowed(
                format!("{path}.attempts"),
                "0 attempts",
                "1 or more transmissions in all (1: no retransmission; 2: one retry)",
            ));
        }
        Ok(())
    }
}

/// What an arrival at the far end of an ARQ link comes to.
#[derive(Debug, PartialEq, Eq)]
pub enum ArqFate {
    /// Lost; send it again at this time.
    Retry(SimTime),
    /// Lost at its last attempt; these packets, held behind it, go on.
    Lost(Vec<PacketId>),
    /// Delivered: these packets go on, in order (none while it waits for
    /// one sent before it).
    Deliver(Vec<PacketId>),
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    seq: u64,
    tries: u32,
    first_arrival: SimTime,
}

/// A link direction's ARQ state and counters.
#[derive(Debug)]
pub struct Arq {
    attempts: u32,
    turnaround: SimDuration,
    in_order: bool,
    /// Packets under way on the link: their order of first arrival, their
    /// attempts so far and when the first arrived.
    flying: FxHashMap<u32, InFlight>,
    next_seq: u64,
    /// In order: the next to deliver, those waiting for it (with their
    /// first arrivals), and the later ones lost for good.
    next_out: u64,
    held: BTreeMap<u64, (PacketId, SimTime)>,
    gone: BTreeSet<u64>,
    /// Retransmissions made, packets lost at their last attempt, packets
    /// delivered, and the delay ARQ added to them (from the first attempt's
    /// arrival to delivery), in ns.
    pub retries: u64,
    pub residual: u64,
    pub delivered: u64,
    pub added_ns: u64,
}

impl Arq {
    pub fn new(spec: &ArqSpec) -> Arq {
        Arq {
            attempts: spec.attempts,
            turnaround: spec.turnaround,
            in_order: spec.order == ArqOrder::In,
            flying: FxHashMap::default(),
            next_seq: 0,
            next_out: 0,
            held: BTreeMap::new(),
            gone: BTreeSet::new(),
            retries: 0,
            residual: 0,
            delivered: 0,
            added_ns: 0,
        }
    }

    /// Packet `id` reaches the far end at `now`; `lost` is the error
    /// model's verdict on this attempt.
    pub fn arrival(&mut self, id: PacketId, now: SimTime, lost: bool) -> ArqFate {
        let next_seq = &mut self.next_seq;
        let f = *self.flying.entry(id.0).or_insert_with(|| {
            *next_seq += 1;
            InFlight {
                seq: *next_seq - 1,
                tries: 1,
                first_arrival: now,
            }
        });
        if lost && f.tries < self.attempts {
            self.retries += 1;
            self.flying.insert(
                id.0,
                InFlight {
                    tries: f.tries + 1,
                    ..f
                },
            );
            return ArqFate::Retry(now + self.turnaround);
        }
        self.flying.remove(&id.0);
        if lost {
            self.residual += 1;
            let mut out = Vec::new();
            if self.in_order {
                self.gone.insert(f.seq);
                self.drain(now, &mut out);
            }
            return ArqFate::Lost(out);
        }
        let mut out = Vec::new();
        if self.in_order {
            self.held.insert(f.seq, (id, f.first_arrival));
            self.drain(now, &mut out);
        } else {
            self.count(now, f.first_arrival);
            out.push(id);
        }
        ArqFate::Deliver(out)
    }

    /// Packet `id` was lost on the way, not by an attempt (a schedule's
    /// outage took its retransmission): the packets held behind it go on.
    pub fn abandon(&mut self, id: PacketId, now: SimTime) -> Vec<PacketId> {
        let mut out = Vec::new();
        if let Some(f) = self.flying.remove(&id.0) {
            if self.in_order {
                self.gone.insert(f.seq);
                self.drain(now, &mut out);
            }
        }
        out
    }

    /// In order: everything from the next to deliver on that has arrived
    /// (or is lost for good) goes on.
    fn drain(&mut self, now: SimTime, out: &mut Vec<PacketId>) {
        loop {
            if self.gone.remove(&self.next_out) {
                self.next_out += 1;
            } else if let Some((id, first)) = self.held.remove(&self.next_out) {
                self.count(now, first);
                out.push(id);
                self.next_out += 1;
            } else {
                return;
            }
        }
    }

    fn count(&mut self, now: SimTime, first_arrival: SimTime) {
        self.delivered += 1;
        self.added_ns += (now - first_arrival).as_nanos();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arq(attempts: u32, order: ArqOrder) -> Arq {
        Arq::new(&ArqSpec {
            attempts,
            turnaround: SimDuration::from_millis(2),
            order,
        })
    }
    fn ms(v: u64) -> SimTime {
        SimTime::from_nanos(v * 1_000_000)
    }
    fn p(i: u32) -> PacketId {
        PacketId(i)
    }

    #[test]
    fn a_lost_attempt_is_retried_until_the_last() {
        let mut a = arq(3, ArqOrder::Out);
        assert_eq!(a.arrival(p(7), ms(10), true), ArqFate::Retry(ms(12)));
        assert_eq!(a.arrival(p(7), ms(15), true), ArqFate::Retry(ms(17)));
        // The third attempt is the last: lost to TCP.
        assert_eq!(a.arrival(p(7), ms(20), true), ArqFate::Lost(vec![]));
        assert_eq!((a.retries, a.residual), (2, 1));
        // A new packet starts again from one attempt.
        assert_eq!(a.arrival(p(7), ms(30), true), ArqFate::Retry(ms(32)));
        assert_eq!(a.arrival(p(7), ms(35), false), ArqFate::Deliver(vec![p(7)]));
        assert_eq!((a.delivered, a.added_ns), (1, 5_000_000));
        // One attempt in all: no retransmission.
        let mut once = arq(1, ArqOrder::Out);
        assert_eq!(once.arrival(p(1), ms(1), true), ArqFate::Lost(vec![]));
    }

    #[test]
    fn in_order_holds_later_packets_until_the_repaired_one() {
        let mut a = arq(4, ArqOrder::In);
        assert_eq!(a.arrival(p(1), ms(1), false), ArqFate::Deliver(vec![p(1)]));
        assert_eq!(a.arrival(p(2), ms(2), true), ArqFate::Retry(ms(4)));
        // 3 and 4 arrive while 2 is repaired: held.
        assert_eq!(a.arrival(p(3), ms(3), false), ArqFate::Deliver(vec![]));
        assert_eq!(a.arrival(p(4), ms(4), false), ArqFate::Deliver(vec![]));
        // 2 arrives: 2, 3 and 4 go on, in order.
        assert_eq!(
            a.arrival(p(2), ms(6), false),
            ArqFate::Deliver(vec![p(2), p(3), p(4)])
        );
        // Held 3 and 2 ms; 2 itself 4 ms after its first arrival.
        assert_eq!((a.delivered, a.added_ns), (4, 9_000_000));
        // A packet lost for good releases those behind it.
        assert_eq!(a.arrival(p(5), ms(7), true), ArqFate::Retry(ms(9)));
        assert_eq!(a.arrival(p(6), ms(8), false), ArqFate::Deliver(vec![]));
        for t in [10, 12] {
            assert!(matches!(a.arrival(p(5), ms(t), true), ArqFate::Retry(_)));
        }
        assert_eq!(a.arrival(p(5), ms(14), true), ArqFate::Lost(vec![p(6)]));
        assert_eq!(a.arrival(p(8), ms(15), false), ArqFate::Deliver(vec![p(8)]));
    }

    #[test]
    fn out_of_order_delivers_each_as_it_arrives() {
        let mut a = arq(4, ArqOrder::Out);
        assert_eq!(a.arrival(p(2), ms(2), true), ArqFate::Retry(ms(4)));
        assert_eq!(a.arrival(p(3), ms(3), false), ArqFate::Deliver(vec![p(3)]));
        assert_eq!(a.arrival(p(2), ms(6), false), ArqFate::Deliver(vec![p(2)]));
    }
}
