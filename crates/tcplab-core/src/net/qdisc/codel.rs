// SPDX-License-Identifier: MIT OR Apache-2.0
//! CoDel, Controlled Delay (Nichols and Jacobson 2012; RFC 8289), as
//! ns-3's `CoDelQueueDisc` and Linux's `codel.h` run it. Each packet is
//! timestamped on arrival; when it leaves, its sojourn time is compared with
//! `target`. Once sojourns have stayed above `target` (with more than
//! `min_bytes` still queued) for an `interval`, CoDel enters its dropping
//! state: it drops (or, with `ecn`, marks) a leaving packet, and schedules
//! the next drop `interval / sqrt(count)` later, until a sojourn falls
//! below `target`.
//!
//! As ns-3 and Linux, times are kept in units of 1024 ns and
//! `1 / sqrt(count)` as a 16-bit fixed-point number refined by one Newton
//! step per drop; re-entering the dropping state soon after leaving it
//! starts from the previous drop rate (`count - lastcount`). Arrivals over
//! `limit` are dropped (the arriving packet). Where ns-3 and Linux differ,
//! this follows ns-3 (docs/scenarios.md lists the points): the byte
//! floor `min_bytes` is strict, a mark in the dropping state schedules the
//! next from now, the drop rate resumes only once `drop_next` has passed,
//! and the CE threshold marks only with `ecn` on. One difference remains:
//! ns-3 also leaves the dropping state when the link asks an emptied queue
//! for a packet, which a link here never does (the next packet's short
//! sojourn ends the state instead).
//!
//! [`CoDelVars::dequeue`] is the algorithm over any [`Fifo`], so FQ-CoDel
//! runs one per flow queue.

use super::{Holds, Spec};
use crate::rng::Rng;
use crate::time::Rate;
use serde::{Deserialize, Serialize};

use super::held::{fits, Dropped, Fifo, Queued};
use super::QueueDrop;
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, QueueLimit};

/// CoDel's parameters as a scenario gives them (`queue = { kind = "codel",
/// ... }`); the defaults are ns-3's (and RFC 8289's for target and
/// interval).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoDelSpec {
    pub limit: QueueLimit,
    /// The acceptable standing sojourn time.
    pub target: SimDuration,
    /// The sliding window over which sojourns must stay above `target`.
    pub interval: SimDuration,
    /// No drop while fewer than this many bytes stay queued (one MTU).
    pub min_bytes: Bytes,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// With `ecn`, mark ECN-capable packets whose sojourn exceeds this,
    /// whatever the state (the shallow threshold of DCTCP-style marking);
    /// off by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<SimDuration>,
    /// Packets a device queue between the discipline and the wire holds
    /// (ns-3's `TxQueue` under a queue disc); 0: none.
    #[serde(skip_serializing_if = "super::no_device")]
    pub device_queue: u32,
}

impl Default for CoDelSpec {
    /// ns-3's `CoDelQueueDisc` defaults.
    fn default() -> Self {
        CoDelSpec {
            limit: QueueLimit::Bytes(1_500_000),
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            min_bytes: Bytes(1500),
            ecn: false,
            ce_threshold: None,
            device_queue: 0,
        }
    }
}

impl CoDelSpec {
    /// Refuses parameters CoDel cannot run with, naming the parameter.
    pub fn check(&self) -> Result<(), String> {
        check_limit(self.limit)?;
        check_times(self.target, self.interval)?;
        check_ce(self.ecn, self.ce_threshold)
    }
}

pub(super) fn check_limit(limit: QueueLimit) -> Result<(), String> {
    match limit {
        QueueLimit::Packets(0) | QueueLimit::Bytes(0) => {
            Err("limit: at least one packet or byte".into())
        }
        _ => Ok(()),
    }
}

/// A CE threshold marks, so it needs marking on (ns-3 ignores it without).
pub(super) fn check_ce(ecn: bool, ce_threshold: Option<SimDuration>) -> Result<(), String> {
    match ce_threshold {
        Some(_) if !ecn => Err("ce_threshold: marks, so it needs ecn = true".into()),
        _ => Ok(()),
    }
}

pub(super) fn check_times(target: SimDuration, interval: SimDuration) -> Result<(), String> {
    if target.as_nanos() < UNIT {
        return Err(format!("target: at least 1.024 us, got {target}"));
    }
    if interval < target {
        return Err(format!(
            "interval: at least target ({target}), got {interval}"
        ));
    }
    if interval.as_nanos() >> SHIFT > u32::MAX as u64 {
        return Err(format!("interval: at most 4398 s, got {interval}"));
    }
    Ok(())
}

/// CoDel's clock: nanoseconds >> 10 (units of 1.024 us), as ns-3 and Linux.
const SHIFT: u32 = 10;
const UNIT: u64 = 1 << SHIFT;
/// Bits of the fixed-point `1 / sqrt(count)`.
const REC_INV_SQRT_SHIFT: u32 = 16;

#[inline]
fn units(t: SimTime) -> u64 {
    t.as_nanos() >> SHIFT
}

/// The parameters in CoDel's units, shared by every queue one discipline
/// runs (FQ-CoDel's flows).
#[derive(Clone, Copy, Debug)]
pub struct CoDelParams {
    target: u64,
    interval: u64,
    min_bytes: u64,
    ecn: bool,
    ce_threshold: Option<u64>,
}

impl CoDelParams {
    pub fn new(
        target: SimDuration,
        interval: SimDuration,
        min_bytes: Bytes,
        ecn: bool,
        ce_threshold: Option<SimDuration>,
    ) -> Self {
        CoDelParams {
            target: target.as_nanos() >> SHIFT,
            interval: interval.as_nanos() >> SHIFT,
            min_bytes: min_bytes.0,
            ecn,
            ce_threshold: ce_threshold.map(|c| c.as_nanos() >> SHIFT),
        }
    }
}

/// One queue's CoDel state.
#[derive(Clone, Copy, Debug)]
pub struct CoDelVars {
    /// Drops (or marks) since the dropping state was entered.
    pub count: u32,
    last_count: u32,
    pub dropping: bool,
    /// `1 / sqrt(count)` in 0.16 fixed point.
    rec_inv_sqrt: u16,
    /// When sojourns will have been above target for an interval (0: they
    /// are not above it).
    first_above: u64,
    /// When the next drop is due, in the dropping state.
    drop_next: u64,
}

impl Default for CoDelVars {
    fn default() -> Self {
        CoDelVars {
            count: 0,
            last_count: 0,
            dropping: false,
            rec_inv_sqrt: !0u32 as u16,
            first_above: 0,
            drop_next: 0,
        }
    }
}

/// One Newton-Raphson step towards `1 / sqrt(count)` from `rec`, in the
/// 0.16 fixed point ns-3 and Linux keep it in (computed in 0.32).
fn newton_step(rec: u16, count: u32) -> u16 {
    let invsqrt = (rec as u64) << REC_INV_SQRT_SHIFT;
    let invsqrt2 = (invsqrt * invsqrt) >> 32;
    let val = ((3u64 << 32).wrapping_sub(count as u64 * invsqrt2)) >> 2;
    let val = (val.wrapping_mul(invsqrt)) >> (32 - 2 + 1);
    (val >> REC_INV_SQRT_SHIFT) as u16
}

/// `t + interval / sqrt(count)`.
fn control_law(t: u64, interval: u64, rec: u16) -> u64 {
    let r = (rec as u64) << REC_INV_SQRT_SHIFT;
    t + ((interval * r) >> 32)
}

impl CoDelVars {
    /// Whether CoDel may drop `p`, leaving at `now` with `backlog` bytes
    /// still queued behind it; updates the time sojourns went above target.
    /// As ns-3: a sojourn equal to target counts as above, fewer than
    /// `min_bytes` left (Linux: at most) forbids a drop, and the drop needs
    /// `now` strictly after `first_above`.
    fn ok_to_drop(&mut self, par: &CoDelParams, p: &Queued, now: u64, backlog: u64) -> bool {
        let sojourn = now.saturating_sub(units(p.enqueued));
        if sojourn < par.target || backlog < par.min_bytes {
            self.first_above = 0;
            return false;
        }
        if self.first_above == 0 {
            self.first_above = now + par.interval;
            false
        } else {
            now > self.first_above
        }
    }

    /// The packet `fifo` gives out at `at`, after the drops CoDel makes
    /// (reported to `dropped`); `None` if it is (or becomes) empty. The
    /// steps and their order are ns-3's `CoDelQueueDisc::DoDequeue`.
    #[inline(always)]
    pub fn dequeue(
        &mut self,
        par: &CoDelParams,
        fifo: &mut Fifo,
        at: SimTime,
        dropped: &mut Vec<Dropped>,
    ) -> Option<Queued> {
        let now = units(at);
        let Some(mut p) = fifo.pop() else {
            self.dropping = false;
            return None;
        };
        let mut drop = |p: Queued| {
            crate::alloc::push(
                dropped,
                Dropped {
                    id: p.id,
                    at,
                    why: QueueDrop::Early,
                },
                "the dropped packets",
            )
        };
        let ok = self.ok_to_drop(par, &p, now, fifo.bytes());
        let mut marked = false;
        if self.dropping {
            if !ok {
                self.dropping = false;
            } else {
                while self.dropping && now >= self.drop_next {
                    self.count = self.count.wrapping_add(1);
                    self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
                    if par.ecn && p.mark() {
                        marked = true;
                        // ns-3 counts from now here (Linux: from drop_next).
                        self.drop_next = control_law(now, par.interval, self.rec_inv_sqrt);
                        break;
                    }
                    drop(p);
                    let Some(next) = fifo.pop() else {
                        self.first_above = 0;
                        self.dropping = false;
                        return None;
                    };
                    p = next;
                    if self.ok_to_drop(par, &p, now, fifo.bytes()) {
                        self.drop_next =
                            control_law(self.drop_next, par.interval, self.rec_inv_sqrt);
                    } else {
                        self.dropping = false;
                    }
                }
            }
        } else if ok {
            marked = par.ecn && p.mark();
            let mut next = Some(p);
            if !marked {
                drop(p);
                next = fifo.pop();
                match &next {
                    Some(q) => {
                        self.ok_to_drop(par, q, now, fifo.bytes());
                    }
                    None => self.first_above = 0,
                }
            }
            self.dropping = true;
            // Re-entering soon after the last episode resumes its drop
            // rate; as ns-3 computes it, only once drop_next has passed.
            let delta = self.count.wrapping_sub(self.last_count);
            if delta > 1
                && delta < 1 << 31
                && now >= self.drop_next
                && now - self.drop_next < 16 * par.interval
            {
                self.count = delta;
                self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = !0u32 as u16;
            }
            self.last_count = self.count;
            self.drop_next = control_law(now, par.interval, self.rec_inv_sqrt);
            p = next?;
        }
        // The shallow threshold marks what leaves above it, with ECN on.
        if par.ecn
            && !marked
            && par
                .ce_threshold
                .is_some_and(|ce| now - units(p.enqueued) > ce)
        {
            p.mark();
        }
        Some(p)
    }
}

/// One link direction's CoDel.
#[derive(Clone, Debug)]
pub struct CoDel {
    limit: QueueLimit,
    par: CoDelParams,
    vars: CoDelVars,
    fifo: Fifo,
}

impl CoDel {
    pub fn new(spec: &CoDelSpec) -> CoDel {
        CoDel {
            limit: spec.limit,
            par: CoDelParams::new(
                spec.target,
                spec.interval,
                spec.min_bytes,
                spec.ecn,
                spec.ce_threshold,
            ),
            vars: CoDelVars::default(),
            fifo: Fifo::default(),
        }
    }

    /// Queues `p`, or drops it when the queue is full.
    pub fn enqueue(&mut self, p: Queued, dropped: &mut Vec<Dropped>) {
        if fits(
            self.limit,
            self.fifo.len() as u64,
            self.fifo.bytes(),
            p.size,
        ) {
            self.fifo.push(p);
        } else {
            Dropped::overflow(dropped, p.id, p.enqueued);
        }
    }

    pub fn dequeue(&mut self, at: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued> {
        self.vars.dequeue(&self.par, &mut self.fifo, at, dropped)
    }

    pub fn waiting(&self) -> (u64, u64) {
        (self.fifo.len() as u64, self.fifo.bytes())
    }

    pub fn limit(&self) -> QueueLimit {
        self.limit
    }

    /// The state, for tests.
    #[cfg(test)]
    pub fn vars(&self) -> &CoDelVars {
        &self.vars
    }
}

impl Holds for CoDel {
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
        CoDel::waiting(self)
    }
    fn limit(&self) -> QueueLimit {
        CoDel::limit(self)
    }
}

impl Spec for CoDelSpec {
    type Built = CoDel;
    fn build(&self, _rate: Rate, _mtu: u32, _rng: impl FnOnce() -> Rng) -> CoDel {
        CoDel::new(self)
    }
    fn check(&self) -> Result<(), String> {
        CoDelSpec::check(self)
    }
    fn device_queue(&self) -> u32 {
        self.device_queue
    }
}

#[cfg(test)]
#[path = "codel_tests.rs"]
mod tests;
