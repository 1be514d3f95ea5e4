// SPDX-License-Identifier: MIT OR Apache-2.0
//! FQ-CoDel (RFC 8290), as ns-3's `FqCoDelQueueDisc` and Linux's
//! `sch_fq_codel` run it: packets are hashed by flow into `flows` queues,
//! each with its own CoDel state (shared parameters); a deficit round robin
//! with a `quantum` of bytes serves them, flows that just became active
//! (the "new" list) before the others (the "old" list), so that sparse
//! flows see almost no queue.
//!
//! - A flow that empties while on the new list moves to the end of the old
//!   list (ns-3; Linux and RFC 8290 section 4.2 do so only when that list
//!   has flows, and otherwise drop it from the lists); an old flow that
//!   empties leaves the lists.
//! - Over `limit`, the flow with the most bytes loses packets from its head
//!   until half its bytes or `drop_batch` packets are gone, at least one
//!   (Linux's `fq_codel_drop`, which ns-3 follows); the arriving packet is
//!   queued first, so it may survive.
//! - A flow is what tcplab's connections are: one flow and one direction.
//!   The hash is tcplab's own (ns-3 and Linux hash the 5-tuple), so which
//!   flows share a queue differs from theirs; `perturbation` changes it.

use super::{Holds, Spec};
use crate::rng::Rng;
use crate::time::Rate;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::codel::{check_limit, check_times, CoDelParams, CoDelVars};
use super::held::{Dropped, Fifo, Queued};
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, QueueLimit};

/// FQ-CoDel's parameters as a scenario gives them (`queue = { kind =
/// "fq_codel", ... }`); the defaults are ns-3's.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct FqCoDelSpec {
    pub limit: QueueLimit,
    pub target: SimDuration,
    pub interval: SimDuration,
    pub min_bytes: Bytes,
    /// Flow queues (hash buckets).
    pub flows: u32,
    /// Bytes a flow may send per round; default the link's MTU (as ns-3;
    /// Linux adds its 14-byte Ethernet header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
    /// Most packets dropped from the fattest flow at one overflow.
    pub drop_batch: u32,
    pub ecn: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<SimDuration>,
    /// Mixed into the flow hash.
    pub perturbation: u32,
    /// Packets a device queue between the discipline and the wire holds
    /// (ns-3's `TxQueue` under a queue disc); 0: none.
    #[serde(skip_serializing_if = "super::no_device")]
    pub device_queue: u32,
}

impl Default for FqCoDelSpec {
    /// ns-3's `FqCoDelQueueDisc` defaults.
    fn default() -> Self {
        FqCoDelSpec {
            limit: QueueLimit::Packets(10240),
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            min_bytes: Bytes(1500),
            flows: 1024,
            quantum: None,
            drop_batch: 64,
            ecn: true,
            ce_threshold: None,
            perturbation: 0,
            device_queue: 0,
        }
    }
}

impl FqCoDelSpec {
    /// Refuses parameters FQ-CoDel cannot run with, naming the parameter.
    pub fn check(&self) -> Result<(), String> {
        check_limit(self.limit)?;
        check_times(self.target, self.interval)?;
        super::codel::check_ce(self.ecn, self.ce_threshold)?;
        if self.flows == 0 {
            return Err("flows: at least 1".into());
        }
        if self.quantum.is_some_and(|q| q.0 == 0) {
            return Err("quantum: at least 1 B".into());
        }
        if self.drop_batch == 0 {
            return Err("drop_batch: at least 1".into());
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Inactive,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct Flow {
    fifo: Fifo,
    vars: CoDelVars,
    deficit: i64,
    status: Status,
}

/// One link direction's FQ-CoDel.
#[derive(Clone, Debug)]
pub struct FqCoDel {
    limit: QueueLimit,
    par: CoDelParams,
    quantum: i64,
    drop_batch: u32,
    perturbation: u32,
    /// Bucket to index in `queues` (`u32::MAX`: no flow yet): flow queues
    /// are made when their first packet comes.
    bucket: Vec<u32>,
    queues: Vec<Flow>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    packets: u64,
    bytes: u64,
}

/// The hash of a flow key (a 32-bit finalizer, as MurmurHash3's).
#[inline]
fn flow_hash(key: u32, perturbation: u32) -> u32 {
    let mut h = key ^ perturbation.wrapping_mul(0x9e37_79b9);
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The bucket of a flow key, its hash modulo the number of buckets: a mask
/// when that is a power of two (the default 1,024; the same bucket, without
/// a division per packet).
#[inline]
fn bucket_of(key: u32, perturbation: u32, buckets: u32) -> usize {
    let h = flow_hash(key, perturbation);
    if buckets.is_power_of_two() {
        (h & (buckets - 1)) as usize
    } else {
        (h % buckets) as usize
    }
}

impl FqCoDel {
    /// FQ-CoDel for a link direction whose MTU is `mtu` bytes.
    pub fn new(spec: &FqCoDelSpec, mtu: u32) -> FqCoDel {
        FqCoDel {
            limit: spec.limit,
            par: CoDelParams::new(
                spec.target,
                spec.interval,
                spec.min_bytes,
                spec.ecn,
                spec.ce_threshold,
            ),
            quantum: spec.quantum.map_or(mtu as u64, |q| q.0) as i64,
            drop_batch: spec.drop_batch,
            perturbation: spec.perturbation,
            bucket: vec![u32::MAX; spec.flows as usize],
            queues: Vec::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            packets: 0,
            bytes: 0,
        }
    }

    fn over_limit(&self) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => self.packets > n,
            QueueLimit::Bytes(b) => self.bytes > b,
        }
    }

    /// Queues `p` in its flow's queue; over the limit, drops from the
    /// fattest flow.
    pub fn enqueue(&mut self, p: Queued, dropped: &mut Vec<Dropped>) {
        let b = bucket_of(p.hash, self.perturbation, self.bucket.len() as u32);
        if self.bucket[b] == u32::MAX {
            self.bucket[b] = self.queues.len() as u32;
            self.queues.push(Flow {
                fifo: Fifo::default(),
                vars: CoDelVars::default(),
                deficit: 0,
                status: Status::Inactive,
            });
        }
        let i = self.bucket[b];
        let f = &mut self.queues[i as usize];
        if f.status == Status::Inactive {
            f.status = Status::New;
            f.deficit = self.quantum;
            self.new_flows.push_back(i);
        }
        f.fifo.push(p);
        self.packets += 1;
        self.bytes += p.size as u64;
        if self.over_limit() {
            self.drop_from_fattest(p.enqueued, dropped);
        }
    }

    /// Drops packets from the head of the flow with the most bytes, until
    /// half of them or `drop_batch` packets are gone.
    fn drop_from_fattest(&mut self, at: SimTime, dropped: &mut Vec<Dropped>) {
        let Some(fat) = (0..self.queues.len()).max_by_key(|&i| {
            // The first of equals, as Linux's scan.
            (self.queues[i].fifo.bytes(), std::cmp::Reverse(i))
        }) else {
            return;
        };
        let f = &mut self.queues[fat];
        let threshold = f.fifo.bytes() / 2;
        let (mut gone, mut n) = (0u64, 0u32);
        while n == 0 || (gone < threshold && n < self.drop_batch) {
            let Some(p) = f.fifo.pop() else { break };
            gone += p.size as u64;
            n += 1;
            Dropped::overflow(dropped, p.id, at);
        }
        self.packets -= n as u64;
        self.bytes -= gone;
    }

    /// The next packet, by deficit round robin over the flows, each through
    /// its CoDel.
    pub fn dequeue(&mut self, at: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued> {
        loop {
            let (i, new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (i, true),
                (None, Some(&i)) => (i, false),
                (None, None) => return None,
            };
            let f = &mut self.queues[i as usize];
            if f.deficit <= 0 {
                f.deficit += self.quantum;
                f.status = Status::Old;
                self.pop_list(new);
                self.old_flows.push_back(i);
                continue;
            }
            let (n0, b0) = (f.fifo.len(), f.fifo.bytes());
            let out = f.vars.dequeue(&self.par, &mut f.fifo, at, dropped);
            self.packets -= (n0 - f.fifo.len()) as u64;
            self.bytes -= b0 - f.fifo.bytes();
            match out {
                Some(p) => {
                    f.deficit -= p.size as i64;
                    return Some(p);
                }
                None => {
                    // An emptied new flow goes to the old list (as ns-3;
                    // Linux only if that list has flows), an emptied old
                    // one leaves the lists.
                    f.status = if new { Status::Old } else { Status::Inactive };
                    self.pop_list(new);
                    if new {
                        self.old_flows.push_back(i);
                    }
                }
            }
        }
    }

    fn pop_list(&mut self, new: bool) {
        if new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    pub fn waiting(&self) -> (u64, u64) {
        (self.packets, self.bytes)
    }

    pub fn limit(&self) -> QueueLimit {
        self.limit
    }

    /// Flow queues made so far (tests).
    #[cfg(test)]
    pub fn queues(&self) -> usize {
        self.queues.len()
    }
}

impl Holds for FqCoDel {
    #[inline]
    fn offer(&mut self, p: Queued, dropped: &mut Vec<Dropped>) {
        self.enqueue(p, dropped)
    }
    #[inline]
    fn take(&mut self, at: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued> {
        self.dequeue(at, dropped)
    }
    #[inline]
    fn waiting(&self) -> (u64, u64) {
        FqCoDel::waiting(self)
    }
    fn limit(&self) -> QueueLimit {
        FqCoDel::limit(self)
    }
}

impl Spec for FqCoDelSpec {
    type Built = FqCoDel;
    fn build(&self, _rate: Rate, mtu: u32, _rng: impl FnOnce() -> Rng) -> FqCoDel {
        FqCoDel::new(self, mtu)
    }
    fn check(&self) -> Result<(), String> {
        FqCoDelSpec::check(self)
    }
    fn device_queue(&self) -> u32 {
        self.device_queue
    }
    /// Its state and its table of flow buckets (4 B each).
    fn built_bytes(&self) -> u64 {
        std::mem::size_of::<FqCoDel>() as u64 + 4 * u64::from(self.flows)
    }
    fn built_what(&self, _kind: &str) -> String {
        format!(
            "fq_codel with {} flow queues per direction",
            crate::units::grouped(f64::from(self.flows))
        )
    }
}

#[cfg(test)]
#[path = "fq_codel_tests.rs"]
mod tests;
