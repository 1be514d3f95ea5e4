// SPDX-License-Identifier: MIT OR Apache-2.0
//! RED, Random Early Detection (Floyd and Jacobson 1993), with the gentle
//! mode (Floyd 2000), Adaptive RED (Floyd, Gummadi and Shenker 2001) and the
//! automatic parameter settings, as ns-3's `RedQueueDisc` (3.40 to 3.48)
//! runs them. Every arrival updates an exponentially weighted average of
//! the queue and, between `min_th` and `max_th` (`2 * max_th` when gentle),
//! drops it with a probability that grows with the average and with the
//! arrivals since the last drop; above, every arrival is dropped.
//!
//! Where ns-3 and the paper or ns-2 differ, this follows ns-3, which is what
//! it is validated against (docs/scenarios.md lists the differences):
//! - the queue measured is the waiting packets (or bytes), not the one being
//!   serialized, and a drop needs at least two waiting (`nQueued > 1`);
//! - the average decays over an idle period only when the queue emptied
//!   after a packet had to wait (ns-3 marks the queue idle when a dequeue
//!   finds it empty, which on a point-to-point link happens only after the
//!   device queue was full), by `(1 - w_q)^(m + 1)` with `m` the packets the
//!   link could have sent meanwhile, at `mean_packet_size`; with a device
//!   queue modelled (`device_queue`), from the device's ask instead, and
//!   the queue measured is the packets above the device;
//! - the count of arrivals since the last drop is not reset by a forced
//!   drop (ns-3's default; ns-2 resets it);
//! - the gentle region's slope keeps the initial `max_p` when Adaptive RED
//!   changes it;
//! - thresholds are in the unit of `limit` (packets, or bytes in byte mode).
//!
//! One uniform draw per early-drop test, from the direction's own stream.

use super::{Admits, Spec};
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{Arrival, DropTail, QueueDrop, Verdict};
use crate::rng::Rng;
use crate::time::{Rate, SimDuration, SimTime};
use crate::units::{Bytes, QueueLimit};

/// A parameter given as a number or as `"auto"` (derived from the link).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Auto {
    Auto,
    Value(f64),
}

impl<'de> Deserialize<'de> for Auto {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) if s == "auto" => Ok(Auto::Auto),
            serde_json::Value::Number(n) => Ok(Auto::Value(n.as_f64().unwrap_or(f64::NAN))),
            other => Err(serde::de::Error::custom(format!(
                "expected a number or \"auto\", got {other}"
            ))),
        }
    }
}

impl Serialize for Auto {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Auto::Auto => s.serialize_str("auto"),
            Auto::Value(v) => s.serialize_f64(*v),
        }
    }
}

/// RED's parameters as a scenario gives them (`queue = { kind = "red", ...
/// }`); the defaults are ns-3's.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedSpec {
    /// The hard limit; its unit (packets or bytes) is the unit of the
    /// thresholds and of the average (byte mode).
    pub limit: QueueLimit,
    /// Default 5, or `"auto"` with `adaptive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_th: Option<Auto>,
    /// Default 15, or `"auto"` with `adaptive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_th: Option<Auto>,
    /// The drop probability at `max_th` (ns-3: 1 / `LInterm` = 1/50).
    pub max_p: f64,
    /// The average's weight: default 0.002, or `"auto"` with `adaptive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub w_q: Option<Auto>,
    pub gentle: bool,
    /// Spaces drops out (Floyd and Jacobson's uniform inter-drop times).
    pub wait: bool,
    /// The packet size behind the link's packet rate (idle decay, the
    /// automatic settings) and byte mode's probabilities.
    pub mean_packet_size: Bytes,
    /// Adaptive RED: `max_p` adapts every `interval` to hold the average
    /// between the thresholds; thresholds and `w_q` default to "auto".
    pub adaptive: bool,
    /// The queueing delay the automatic `min_th` aims at.
    pub target_delay: SimDuration,
    pub interval: SimDuration,
    /// Bounds of the adapted `max_p`: `bottom` default "auto" (1/W, W the
    /// bandwidth-delay product at `rtt`, at most 0.01).
    pub top: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bottom: Option<Auto>,
    /// Additive increase (at most a quarter of `max_p`) and multiplicative
    /// decrease of the adapted `max_p`.
    pub alpha: f64,
    pub beta: f64,
    /// The round-trip time behind the automatic `bottom`.
    pub rtt: SimDuration,
    /// Mark ECN-capable packets instead of dropping them early (ns-3's
    /// `UseEcn`).
    pub ecn: bool,
    /// With `ecn`, still drop (not mark) above the drop region (ns-3's
    /// `UseHardDrop`).
    pub hard_drop: bool,
    /// Packets a device queue between the discipline and the wire holds
    /// (ns-3's `TxQueue` under a queue disc); 0: none.
    #[serde(skip_serializing_if = "super::no_device")]
    pub device_queue: u32,
}

impl Default for RedSpec {
    /// ns-3's `RedQueueDisc` defaults.
    fn default() -> Self {
        RedSpec {
            limit: QueueLimit::Packets(25),
            min_th: None,
            max_th: None,
            max_p: 0.02,
            w_q: None,
            gentle: true,
            wait: true,
            mean_packet_size: Bytes(500),
            adaptive: false,
            target_delay: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(500),
            top: 0.5,
            bottom: None,
            alpha: 0.01,
            beta: 0.9,
            rtt: SimDuration::from_millis(100),
            ecn: false,
            hard_drop: true,
            device_queue: 0,
        }
    }
}

/// The thresholds' defaults when they are not automatic (ns-3's `MinTh`
/// and `MaxTh`).
const DEFAULT_MIN_TH: f64 = 5.0;
const DEFAULT_MAX_TH: f64 = 15.0;

fn unit_interval(field: &str, v: f64) -> Result<(), String> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(format!("{field}: a probability in [0, 1], got {v}"))
    }
}

fn non_negative(field: &str, v: Option<Auto>) -> Result<(), String> {
    match v {
        Some(Auto::Value(x)) if !(x.is_finite() && x >= 0.0) => Err(format!(
            "{field}: a number of at least 0 or \"auto\", got {x}"
        )),
        _ => Ok(()),
    }
}

impl RedSpec {
    /// Refuses parameters no RED can run with, naming the parameter.
    pub fn check(&self) -> Result<(), String> {
        unit_interval("max_p", self.max_p)?;
        unit_interval("top", self.top)?;
        unit_interval("alpha", self.alpha)?;
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!("beta: a factor in (0, 1), got {}", self.beta));
        }
        non_negative("min_th", self.min_th)?;
        non_negative("max_th", self.max_th)?;
        if let Some(Auto::Value(b)) = self.bottom {
            unit_interval("bottom", b)?;
        }
        if let Some(Auto::Value(w)) = self.w_q {
            if !(w > 0.0 && w <= 1.0) {
                return Err(format!("w_q: a weight in (0, 1] or \"auto\", got {w}"));
            }
        }
        match (self.min_th, self.max_th) {
            (Some(Auto::Value(lo)), Some(Auto::Value(hi))) if lo > hi => {
                return Err(format!("max_th: at least min_th ({lo}), got {hi}"))
            }
            // One threshold given, the other's default on the wrong side.
            (Some(Auto::Value(lo)), None) if lo > DEFAULT_MAX_TH => {
                return Err(format!(
                    "max_th: the default {DEFAULT_MAX_TH} is below min_th ({lo}); give max_th \
                     too, at least min_th"
                ))
            }
            (None, Some(Auto::Value(hi))) if hi < DEFAULT_MIN_TH => {
                return Err(format!(
                    "min_th: the default {DEFAULT_MIN_TH} is above max_th ({hi}); give min_th \
                     too, at most max_th"
                ))
            }
            (Some(Auto::Auto), Some(Auto::Value(_))) | (Some(Auto::Value(_)), Some(Auto::Auto)) => {
                return Err(
                    "min_th, max_th: \"auto\" sets both (max_th = 3 min_th); give both or neither"
                        .into(),
                )
            }
            _ => {}
        }
        if self.mean_packet_size.0 == 0 {
            return Err("mean_packet_size: at least 1 B".into());
        }
        super::check_timer("interval", self.interval)?;
        match self.limit {
            QueueLimit::Packets(0) | QueueLimit::Bytes(0) => {
                Err("limit: at least one packet or byte".into())
            }
            _ => Ok(()),
        }
    }
}

/// Adaptive RED's state.
#[derive(Debug, Clone)]
struct Adapt {
    interval: SimDuration,
    top: f64,
    bottom: f64,
    alpha: f64,
    beta: f64,
    last_set: SimTime,
}

/// One link direction's RED.
#[derive(Debug, Clone)]
pub struct Red {
    /// The hard limit, as drop-tail's.
    hard: DropTail,
    bytes: bool,
    min_th: f64,
    max_th: f64,
    w_q: f64,
    max_p: f64,
    /// `p_b = v_a * avg + v_b` below `max_th`, `v_c * avg + v_d` above.
    v_a: f64,
    v_b: f64,
    v_c: f64,
    v_d: f64,
    gentle: bool,
    wait: bool,
    mean_packet: f64,
    /// Packets of `mean_packet_size` per second at the link's rate.
    ptc: f64,
    adapt: Option<Adapt>,
    avg: f64,
    /// Arrivals (and their bytes) since the last early drop.
    count: u64,
    count_bytes: u64,
    /// Whether the average was already in the drop region at the last
    /// arrival (the first arrival in it is never dropped).
    old: bool,
    /// Since when the queue is idle, if it is.
    idle_since: Option<SimTime>,
    /// The last admitted packet: when it starts and whether it waited.
    last_start: SimTime,
    last_waited: bool,
    ecn: bool,
    hard_drop: bool,
    rng: Rng,
    /// With a device queue below: its packets, the starts of the last that
    /// many admitted packets (newest last), and when the device asks (or
    /// asked) the emptied queue for a packet.
    device: u32,
    device_starts: VecDeque<SimTime>,
    device_idle: SimTime,
}

impl Red {
    /// RED for a link direction of `rate`, drawing from `rng`.
    pub fn new(spec: &RedSpec, rate: Rate, rng: Rng) -> Red {
        let bytes = matches!(spec.limit, QueueLimit::Bytes(_));
        let mean_packet = spec.mean_packet_size.0 as f64;
        let ptc = rate.bps() as f64 / (8.0 * mean_packet);
        let auto = |v: Option<Auto>| match v {
            None => spec.adaptive,
            Some(a) => a == Auto::Auto,
        };
        let (min_th, max_th) = if auto(spec.min_th) && auto(spec.max_th) {
            let mut lo = (spec.target_delay.as_secs_f64() * ptc / 2.0).max(5.0);
            if bytes {
                lo *= mean_packet;
            }
            (lo, 3.0 * lo)
        } else {
            let value = |v: Option<Auto>, default: f64| match v {
                Some(Auto::Value(x)) => x,
                _ => default,
            };
            (
                value(spec.min_th, DEFAULT_MIN_TH),
                value(spec.max_th, DEFAULT_MAX_TH),
            )
        };
        let w_q = match spec.w_q {
            Some(Auto::Value(w)) => w,
            Some(Auto::Auto) => 1.0 - (-1.0 / ptc).exp(),
            None if spec.adaptive => 1.0 - (-1.0 / ptc).exp(),
            None => 0.002,
        };
        let diff = if max_th > min_th {
            max_th - min_th
        } else {
            1.0
        };
        let adapt = spec.adaptive.then(|| Adapt {
            interval: spec.interval,
            top: spec.top,
            bottom: match spec.bottom {
                Some(Auto::Value(b)) => b,
                _ => (8.0 * mean_packet * spec.rtt.as_secs_f64() / rate.bps() as f64).min(0.01),
            },
            alpha: spec.alpha,
            beta: spec.beta,
            last_set: SimTime::ZERO,
        });
        Red {
            hard: DropTail::new(spec.limit),
            bytes,
            min_th,
            max_th,
            w_q,
            max_p: spec.max_p,
            v_a: 1.0 / diff,
            v_b: -min_th / diff,
            v_c: (1.0 - spec.max_p) / max_th,
            v_d: 2.0 * spec.max_p - 1.0,
            gentle: spec.gentle,
            wait: spec.wait,
            mean_packet,
            ptc,
            adapt,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle_since: Some(SimTime::ZERO),
            last_start: SimTime::ZERO,
            last_waited: false,
            ecn: spec.ecn,
            hard_drop: spec.hard_drop,
            rng,
            device: spec.device_queue,
            device_starts: VecDeque::new(),
            device_idle: SimTime::ZERO,
        }
    }

    /// The average queue (packets, or bytes in byte mode).
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The thresholds and the weight in force (after the automatic
    /// settings), and the current `max_p`.
    pub fn parameters(&self) -> (f64, f64, f64, f64) {
        (self.min_th, self.max_th, self.w_q, self.max_p)
    }

    pub fn enqueue(&mut self, a: &Arrival) -> Verdict {
        if self.device > 0 {
            // Idle if the device has asked the emptied queue for a packet
            // by now (ns-3's dequeue that finds it empty).
            self.idle_since =
                (a.waiting_packets == 0 && self.device_idle <= a.now).then_some(self.device_idle);
        } else if a.waiting_packets == 0 && self.last_waited {
            // The last packet waited and has gone on the wire with nothing
            // behind it: the queue has been empty since it started.
            self.idle_since = Some(self.last_start);
            self.last_waited = false;
        }
        let queued = if self.bytes {
            a.waiting_bytes
        } else {
            a.waiting_packets
        } as f64;
        let mut m = 0u64;
        if let Some(since) = self.idle_since.take() {
            let idle = (a.now.max(since) - since).as_secs_f64();
            m = (self.ptc * idle).min(u32::MAX as f64) as u64;
        }
        // (1 - w_q)^(m + 1); a packet that finds the queue busy (m = 0,
        // nearly every one) needs no pow, whose x^1 is x exactly.
        let keep = if m == 0 {
            1.0 - self.w_q
        } else {
            (1.0 - self.w_q).powf((m + 1) as f64)
        };
        let avg = self.avg * keep + self.w_q * queued;
        self.adapt_max_p(avg, a.now);
        self.avg = avg;
        self.count += 1;
        self.count_bytes += a.size as u64;
        let mut verdict = Verdict::Enqueue;
        if avg >= self.min_th && queued > 1.0 {
            let forced = if self.gentle {
                avg >= 2.0 * self.max_th
            } else {
                avg >= self.max_th
            };
            if forced {
                verdict = if self.ecn && !self.hard_drop && a.ect {
                    Verdict::Mark
                } else {
                    Verdict::Drop(QueueDrop::Forced)
                };
            } else if !self.old {
                self.count = 1;
                self.count_bytes = a.size as u64;
                self.old = true;
            } else if self.drop_early(a.size) {
                verdict = if self.ecn && a.ect {
                    Verdict::Mark
                } else {
                    Verdict::Drop(QueueDrop::Early)
                };
            }
        } else {
            self.old = false;
        }
        if verdict != Verdict::Enqueue && verdict != Verdict::Mark {
            return verdict;
        }
        if let Verdict::Drop(why) = self.hard.enqueue(a) {
            return Verdict::Drop(why);
        }
        self.last_start = a.tx_start;
        self.last_waited = a.waits();
        if self.device > 0 {
            self.admitted_over_device(a);
        }
        verdict
    }

    /// When the device below will next ask the queue, emptied, for a
    /// packet, now that `a`'s packet is admitted (ns-3 asks after each
    /// packet it hands down while the device has room, and when the device
    /// wakes from full): at once if the device still has room once the
    /// packet is down, else when the packet `device` places from the newest
    /// starts (the first start that leaves the device room with nothing
    /// behind it in the queue).
    fn admitted_over_device(&mut self, a: &Arrival) {
        let d = self.device as usize;
        if self.device_starts.len() == d {
            self.device_starts.pop_front();
        }
        crate::alloc::push_deque(&mut self.device_starts, a.tx_start, "RED's device queue");
        let held = if a.waits() {
            a.waiting_packets + a.device_packets + 1
        } else {
            0
        };
        self.device_idle = if held < d as u64 {
            a.now
        } else {
            self.device_starts[0]
        };
    }

    /// Adaptive RED's step, at most once per `interval`: `max_p` down by
    /// `beta` while the average is in the lower 40% between the thresholds,
    /// up by `alpha` (at most a quarter of it) in the upper 40%.
    fn adapt_max_p(&mut self, avg: f64, now: SimTime) {
        let Some(ad) = &mut self.adapt else { return };
        if now <= ad.last_set + ad.interval {
            return;
        }
        let part = 0.4 * (self.max_th - self.min_th);
        if avg < self.min_th + part && self.max_p > ad.bottom {
            self.max_p *= ad.beta;
            ad.last_set = now;
        } else if avg > self.max_th - part && ad.top > self.max_p {
            self.max_p += ad.alpha.min(0.25 * self.max_p);
            ad.last_set = now;
        }
    }

    /// The drop probability the average alone gives (`p_b`): from 0 at
    /// `min_th` to `max_p` at `max_th`, then (gentle) to 1 at `2 * max_th`.
    fn base_probability(&self) -> f64 {
        let p = if self.gentle && self.avg >= self.max_th {
            self.v_c * self.avg + self.v_d
        } else if self.avg >= self.max_th {
            1.0
        } else {
            (self.v_a * self.avg + self.v_b) * self.max_p
        };
        p.min(1.0)
    }

    /// The early-drop test: the probability from the average, spread by the
    /// count since the last drop, then one uniform draw.
    fn drop_early(&mut self, size: u32) -> bool {
        let mut p = self.base_probability();
        let count = if self.bytes {
            // Integer division, as ns-3.
            (self.count_bytes / self.mean_packet as u64) as f64
        } else {
            self.count as f64
        };
        let cp = count * p;
        p = if self.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p / (1.0 - cp)
        } else {
            1.0
        };
        if self.bytes && p < 1.0 {
            p = p * size as f64 / self.mean_packet;
        }
        p = p.min(1.0);
        if self.rng.uniform() <= p {
            self.count = 0;
            self.count_bytes = 0;
            true
        } else {
            false
        }
    }

    pub fn capacity_packets(&self, size: u64) -> u64 {
        self.hard.capacity_packets(size)
    }

    pub fn describe(&self) -> String {
        format!("RED, {}", self.hard.describe())
    }
}

impl Admits for Red {
    #[inline(always)]
    fn enqueue(&mut self, a: &Arrival) -> Verdict {
        Red::enqueue(self, a)
    }
    fn capacity_packets(&self, size: u64) -> u64 {
        Red::capacity_packets(self, size)
    }
    fn describe(&self) -> String {
        Red::describe(self)
    }
}

impl Spec for RedSpec {
    type Built = Red;
    fn build(&self, rate: Rate, _mtu: u32, rng: impl FnOnce() -> Rng) -> Red {
        Red::new(self, rate, rng())
    }
    fn check(&self) -> Result<(), String> {
        RedSpec::check(self)
    }
    fn device_queue(&self) -> u32 {
        self.device_queue
    }
}

#[cfg(test)]
#[path = "red_tests.rs"]
mod tests;
