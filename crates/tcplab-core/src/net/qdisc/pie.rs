// SPDX-License-Identifier: MIT OR Apache-2.0
//! PIE, Proportional Integral controller Enhanced (Pan et al. 2013; RFC
//! 8033), as ns-3's `PieQueueDisc` runs it. Every `t_update` a drop
//! probability moves by `alpha * (qdelay - target) + beta * (qdelay -
//! qdelay_old)`, both terms scaled down while the probability is small; an
//! arriving packet is dropped (or, with `ecn` and a probability under
//! `mark_ecn_threshold`, marked) with that probability. The queueing delay
//! is the sojourn of the last packet to leave (0 if it left the queue
//! empty), so PIE holds its queue as the disciplines that decide at dequeue
//! do. A burst allowance of `max_burst` spares the first burst.
//!
//! As ns-3 (docs/scenarios.md lists where RFC 8033 and Linux differ):
//! - the updates run every `t_update` from t = 0 (ns-3 ignores `Supdate`);
//! - the burst allowance is armed by the first arrival, and again only
//!   after about 1.5 s of calm (both delays under `target / 2`, probability
//!   and allowance 0);
//! - no early drop while the last delay was under `target / 2` and the
//!   probability under 0.2, nor while at most 2 packets (in byte mode, 2
//!   mean packets) wait ahead of the arrival;
//! - the probability decays by 2% per update while both delays are 0, and
//!   an increase is capped at 0.02 once it is 0.1 or more;
//! - with `derandomize`, drops follow an accumulated probability (RFC 8033
//!   section 5.1's option).
//!
//! One uniform draw per arrival that reaches the random test, from the
//! direction's own stream.

use super::{Holds, Spec};
use crate::time::Rate;
use serde::{Deserialize, Serialize};

use super::codel::check_limit;
use super::held::{fits, Dropped, Fifo, Queued};
use super::QueueDrop;
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, QueueLimit};

/// PIE's parameters as a scenario gives them (`queue = { kind = "pie", ...
/// }`); the defaults are ns-3's (and RFC 8033's).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct PieSpec {
    pub limit: QueueLimit,
    /// The queueing delay PIE steers to (ns-3's `QueueDelayReference`).
    pub target: SimDuration,
    /// The update period (ns-3's `Tupdate`).
    pub t_update: SimDuration,
    /// The controller's gains, per second of delay error (ns-3's `A`, `B`).
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: SimDuration,
    /// Byte mode: a packet's probability is scaled by its size over this.
    pub mean_packet_size: Bytes,
    /// Cap an increase at 0.02 once the probability is at least 0.1.
    pub cap_drop_adjustment: bool,
    pub derandomize: bool,
    pub ecn: bool,
    /// With `ecn`, mark (instead of drop) only below this probability.
    pub mark_ecn_threshold: f64,
    /// Packets a device queue between the discipline and the wire holds
    /// (ns-3's `TxQueue` under a queue disc); 0: none.
    #[serde(skip_serializing_if = "super::no_device")]
    pub device_queue: u32,
}

impl Default for PieSpec {
    /// ns-3's `PieQueueDisc` defaults.
    fn default() -> Self {
        PieSpec {
            limit: QueueLimit::Packets(25),
            target: SimDuration::from_millis(15),
            t_update: SimDuration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimDuration::from_millis(150),
            mean_packet_size: Bytes(1000),
            cap_drop_adjustment: true,
            derandomize: false,
            ecn: false,
            mark_ecn_threshold: 0.1,
            device_queue: 0,
        }
    }
}

impl PieSpec {
    /// Refuses parameters PIE cannot run with, naming the parameter.
    pub fn check(&self) -> Result<(), String> {
        check_limit(self.limit)?;
        if self.target.as_nanos() == 0 {
            return Err("target: more than 0".into());
        }
        super::check_timer("t_update", self.t_update)?;
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{name}: a gain of at least 0, got {v}"));
            }
        }
        if !(0.0..=1.0).contains(&self.mark_ecn_threshold) {
            return Err(format!(
                "mark_ecn_threshold: a probability in [0, 1], got {}",
                self.mark_ecn_threshold
            ));
        }
        if self.mean_packet_size.0 == 0 {
            return Err("mean_packet_size: at least 1 B".into());
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Burst {
    None,
    Protecting,
    In,
}

/// One link direction's PIE.
#[derive(Clone, Debug)]
pub struct Pie {
    spec: PieSpec,
    fifo: Fifo,
    drop_prob: f64,
    /// The last measured queueing delay and the one at the last update.
    qdelay: SimDuration,
    qdelay_old: SimDuration,
    accu_prob: f64,
    burst: Burst,
    burst_allowance: SimDuration,
    burst_reset: u32,
    /// Calm updates that end a burst period: 1.5 s of them.
    burst_reset_limit: u32,
    next_update: SimTime,
    rng: Rng,
}

impl Pie {
    pub fn new(spec: &PieSpec, rng: Rng) -> Pie {
        Pie {
            spec: spec.clone(),
            fifo: Fifo::default(),
            drop_prob: 0.0,
            qdelay: SimDuration::ZERO,
            qdelay_old: SimDuration::ZERO,
            accu_prob: 0.0,
            burst: Burst::None,
            burst_allowance: SimDuration::ZERO,
            burst_reset: 0,
            burst_reset_limit: (1.5 / spec.t_update.as_secs_f64()) as u32,
            next_update: SimTime::ZERO,
            rng,
        }
    }

    /// Runs the probability updates due by `now`.
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            self.update();
            self.next_update += self.spec.t_update;
        }
    }

    /// One update of the drop probability (ns-3's `CalculateP`).
    fn update(&mut self) {
        let s = &self.spec;
        let (qdelay, old) = (self.qdelay.as_secs_f64(), self.qdelay_old.as_secs_f64());
        let reference = s.target.as_secs_f64();
        let mut p = 0.0;
        if self.burst_allowance > SimDuration::ZERO {
            self.drop_prob = 0.0;
        } else {
            p = s.alpha * (qdelay - reference) + s.beta * (qdelay - old);
            // Small probabilities move in small steps (RFC 8033 4.2's
            // auto-tuning, as ns-3 divides).
            p /= match self.drop_prob {
                d if d < 1e-6 => 2048.0,
                d if d < 1e-5 => 512.0,
                d if d < 1e-4 => 128.0,
                d if d < 1e-3 => 32.0,
                d if d < 1e-2 => 8.0,
                d if d < 0.1 => 2.0,
                _ => 1.0,
            };
            if s.cap_drop_adjustment && self.drop_prob >= 0.1 && p > 0.02 {
                p = 0.02;
            }
        }
        p += self.drop_prob;
        if self.qdelay.as_nanos() == 0 && self.qdelay_old.as_nanos() == 0 {
            p *= 0.98;
        }
        self.drop_prob = p.clamp(0.0, 1.0);
        self.burst_allowance = if self.burst_allowance < s.t_update {
            SimDuration::ZERO
        } else {
            self.burst_allowance - s.t_update
        };
        let half = s.target.as_nanos() / 2;
        let calm = self.qdelay.as_nanos() < half
            && self.qdelay_old.as_nanos() < half
            && self.drop_prob == 0.0
            && self.burst_allowance == SimDuration::ZERO;
        if calm {
            match self.burst {
                Burst::Protecting => {
                    self.burst = Burst::In;
                    self.burst_reset = 0;
                }
                Burst::In => {
                    self.burst_reset += 1;
                    if self.burst_reset > self.burst_reset_limit {
                        self.burst_reset = 0;
                        self.burst = Burst::None;
                    }
                }
                Burst::None => {}
            }
        } else if self.burst == Burst::In {
            self.burst_reset = 0;
        }
        self.qdelay_old = self.qdelay;
    }

    /// Whether an arrival of `size` bytes finding `packets` and `bytes`
    /// waiting is dropped early (ns-3's `DropEarly`).
    fn drop_early(&mut self, size: u32, packets: u64, bytes: u64) -> bool {
        if self.burst_allowance > SimDuration::ZERO {
            return false;
        }
        if self.burst == Burst::None {
            self.burst = Burst::Protecting;
            self.burst_allowance = self.spec.max_burst;
        }
        let mean = self.spec.mean_packet_size.0;
        let (p, few) = match self.spec.limit {
            QueueLimit::Bytes(_) => (
                self.drop_prob * size as f64 / mean as f64,
                bytes <= 2 * mean,
            ),
            QueueLimit::Packets(_) => (self.drop_prob, packets <= 2),
        };
        let half = self.spec.target.as_nanos() / 2;
        if (self.qdelay_old.as_nanos() < half && self.drop_prob < 0.2) || few {
            return false;
        }
        if self.spec.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        self.rng.uniform() <= p
    }

    /// Queues `p`, or drops (or marks) it.
    pub fn enqueue(&mut self, mut p: Queued, dropped: &mut Vec<Dropped>) {
        self.catch_up(p.enqueued);
        let (packets, bytes) = (self.fifo.len() as u64, self.fifo.bytes());
        let why = if !fits(self.spec.limit, packets, bytes, p.size) {
            // ns-3's "forced drop": the queue is full.
            Some(QueueDrop::Overflow)
        } else if self.drop_early(p.size, packets, bytes) {
            let marks = self.spec.ecn && self.drop_prob < self.spec.mark_ecn_threshold && p.mark();
            (!marks).then_some(QueueDrop::Early)
        } else {
            None
        };
        match why {
            Some(why) => {
                self.accu_prob = 0.0;
                crate::alloc::push(
                    dropped,
                    Dropped {
                        id: p.id,
                        at: p.enqueued,
                        why,
                    },
                    "the dropped packets",
                );
            }
            None => self.fifo.push(p),
        }
    }

    /// The next packet; its sojourn becomes the measured delay (0 if it
    /// leaves the queue empty).
    pub fn dequeue(&mut self, at: SimTime) -> Option<Queued> {
        self.catch_up(at);
        let p = self.fifo.pop()?;
        self.qdelay = if self.fifo.len() == 0 {
            SimDuration::ZERO
        } else {
            at - p.enqueued
        };
        Some(p)
    }

    pub fn waiting(&self) -> (u64, u64) {
        (self.fifo.len() as u64, self.fifo.bytes())
    }

    pub fn limit(&self) -> QueueLimit {
        self.spec.limit
    }

    /// The drop probability (tests).
    #[cfg(test)]
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }
}

impl Holds for Pie {
    #[inline]
    fn offer(&mut self, p: Queued, dropped: &mut Vec<Dropped>) {
        self.enqueue(p, dropped)
    }
    #[inline]
    fn take(&mut self, at: SimTime, _dropped: &mut Vec<Dropped>) -> Option<Queued> {
        self.dequeue(at)
    }
    #[inline]
    fn waiting(&self) -> (u64, u64) {
        Pie::waiting(self)
    }
    fn limit(&self) -> QueueLimit {
        Pie::limit(self)
    }
}

impl Spec for PieSpec {
    type Built = Pie;
    fn build(&self, _rate: Rate, _mtu: u32, rng: impl FnOnce() -> Rng) -> Pie {
        Pie::new(self, rng())
    }
    fn check(&self) -> Result<(), String> {
        PieSpec::check(self)
    }
    fn device_queue(&self) -> u32 {
        self.device_queue
    }
}

#[cfg(test)]
#[path = "pie_tests.rs"]
mod tests;
