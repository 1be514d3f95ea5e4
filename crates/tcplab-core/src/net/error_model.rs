// SPDX-License-Identifier: MIT OR Apache-2.0
//! Error models, applied when a packet is received at the far end of a link
//! direction (as ns-3's `ReceiveErrorModel` on a device).
//!
//! - `Uniform`: each packet is lost with probability PER.
//! - `Ber`: a bit error rate turned into a per-packet loss probability from
//!   the packet's size: p = 1 - (1 - BER)^(8 * size).
//! - `GilbertElliott`: a two-state (Good/Bad) channel in continuous time.
//!   Each state lasts a sojourn time (deterministic or exponential with the
//!   given mean); when it ends, the next state is Bad with probability
//!   `p_bad`, else Good (it may repeat). Packets arriving in a state are lost
//!   with that state's probability. The channel starts in Good at t = 0.
//!   State changes and loss draws use two separate streams, so the loss
//!   probabilities do not perturb the state sequence.
//! - `List`: drops exactly the packets whose arrival count (from 1, over this
//!   link direction, optionally only those of one flow) is listed.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::{list_names, Error, Result};
use crate::net::arq::Arq;
use crate::net::jitter::Jitter;
use crate::net::packet::Packet;
use crate::net::reorder::Reorder;
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossModel {
    Uniform,
    Ber,
    GilbertElliott,
    List,
}

crate::deserialize_names!(LossModel {
    "uniform" => LossModel::Uniform,
    "ber" => LossModel::Ber,
    "gilbert_elliott" => LossModel::GilbertElliott,
    "list" => LossModel::List,
});

impl LossModel {
    pub fn name(self) -> &'static str {
        match self {
            LossModel::Uniform => "uniform",
            LossModel::Ber => "ber",
            LossModel::GilbertElliott => "gilbert_elliott",
            LossModel::List => "list",
        }
    }
    /// The parameters each model takes.
    pub fn params(self) -> &'static [&'static str] {
        match self {
            LossModel::Uniform => &["per"],
            LossModel::Ber => &["ber"],
            LossModel::GilbertElliott => &[
                "good_loss",
                "bad_loss",
                "good_time",
                "bad_time",
                "sojourn",
                "p_bad",
            ],
            LossModel::List => &["packets", "flow", "data_only"],
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Sojourn {
    Deterministic,
    Exponential,
}

crate::deserialize_names!(Sojourn {
    "deterministic" => Sojourn::Deterministic,
    "exponential" => Sojourn::Exponential,
});

/// An error model. `model` selects which of the other fields apply.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    pub model: LossModel,
    /// uniform: packet error rate in [0, 1].
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::f64_or_marker"
    )]
    pub per: Option<f64>,
    /// ber: bit error rate in [0, 1].
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::f64_or_marker"
    )]
    pub ber: Option<f64>,
    /// gilbert_elliott: loss probability in Good (default 0) and Bad.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::f64_or_marker"
    )]
    pub good_loss: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::f64_or_marker"
    )]
    pub bad_loss: Option<f64>,
    /// gilbert_elliott: sojourn time (or its mean) in Good and in Bad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub good_time: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_time: Option<SimDuration>,
    /// gilbert_elliott: deterministic (default) or exponential sojourns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sojourn: Option<Sojourn>,
    /// gilbert_elliott: probability that each new state is Bad (default 0.5).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::f64_or_marker"
    )]
    pub p_bad: Option<f64>,
    /// list: arrival numbers to drop, counting from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<Vec<u64>>,
    /// list: count only this flow's packets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<String>,
    /// list: count only packets that carry payload (TCP data segments, not
    /// SYNs or pure ACKs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_only: Option<bool>,
}

/// `v` if it is a probability (0 to 1); else the error naming `path`.
pub(crate) fn check_probability(path: String, v: f64) -> Result<f64> {
    if !(0.0..=1.0).contains(&v) || v.is_nan() {
        return Err(Error::invalid_allowed(
            path,
            format!("{v} is not a probability"),
            "0 to 1",
        ));
    }
    Ok(v)
}

#[derive(Debug)]
pub enum ErrorModel {
    Uniform {
        per: f64,
        rng: Rng,
    },
    Ber {
        ber: f64,
        rng: Rng,
    },
    GilbertElliott(GilbertElliott),
    List {
        /// Sorted, deduplicated arrival numbers to drop.
        drop: Vec<u64>,
        next: usize,
        seen: u64,
        /// Count only this flow's packets, if set.
        flow: Option<u32>,
        /// Count only packets carrying payload.
        data_only: bool,
    },
    /// A link schedule's loss probabilities over time, on top of the
    /// link's own model.
    Scheduled(Box<ScheduledLoss>),
    /// Delay jitter after the link's own model (which decides losses).
    Jittered(Box<Jittered>),
    /// Link-layer ARQ: the link's own model decides each attempt.
    Arq(Box<ArqModel>),
    /// Explicit reordering after the link's own model.
    Reordered(Box<ReorderModel>),
}

/// A link direction's reordering, after `base` has spared the packet.
#[derive(Debug)]
pub struct ReorderModel {
    pub base: Option<ErrorModel>,
    pub reorder: Reorder,
}

/// A link direction's ARQ and the model that decides each attempt.
#[derive(Debug)]
pub struct ArqModel {
    pub base: Option<ErrorModel>,
    pub arq: Arq,
}

/// A link direction's jitter, after `base` has spared the packet.
#[derive(Debug)]
pub struct Jittered {
    base: Option<ErrorModel>,
    jitter: Jitter,
}

/// What becomes of a packet that reaches the far end of a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Lost,
    /// It goes on at once.
    Now,
    /// It goes on at this time (delay jitter).
    Later(SimTime),
    /// The link's ARQ decides ([`ErrorModel::Arq`]).
    Arq,
    /// The link's reordering decides ([`ErrorModel::Reordered`]).
    Reorder,
}

/// From `at[k].0` on, each packet is lost with probability `at[k].1`,
/// unless `base` already lost it.
#[derive(Debug)]
pub struct ScheduledLoss {
    base: Option<ErrorModel>,
    at: Vec<(SimTime, f64)>,
    k: usize,
    rng: Rng,
}

#[derive(Debug)]
pub struct GilbertElliott {
    /// Loss probability in [Good, Bad].
    pub loss: [f64; 2],
    /// Sojourn time (or its mean) in [Good, Bad].
    pub sojourn: [SimDuration; 2],
    pub exponential: bool,
    /// Probability that each new state is Bad.
    pub p_bad: f64,
    bad: bool,
    until: SimTime,
    state_rng: Rng,
    loss_rng: Rng,
}

impl GilbertElliott {
    pub fn new(
        loss: [f64; 2],
        sojourn: [SimDuration; 2],
        exponential: bool,
        p_bad: f64,
        state_rng: Rng,
        loss_rng: Rng,
    ) -> Self {
        let mut ge = GilbertElliott {
            loss,
            sojourn,
            exponential,
            p_bad,
            bad: false,
            until: SimTime::ZERO,
            state_rng,
            loss_rng,
        };
        ge.until = SimTime::ZERO + ge.draw_sojourn(false);
        ge
    }

    fn draw_sojourn(&mut self, bad: bool) -> SimDuration {
        let mean = self.sojourn[bad as usize];
        let d = if self.exponential {
            let s = self.state_rng.exponential(mean.as_nanos() as f64);
            SimDuration::from_nanos(s.round() as u64)
        } else {
            mean
        };
        // A zero-length sojourn would stall time; one nanosecond is the floor.
        d.max(SimDuration::from_nanos(1))
    }

    /// Whether the channel is in the Bad state at `now`.
    pub fn is_bad_at(&mut self, now: SimTime) -> bool {
        while now >= self.until {
            self.bad = self.state_rng.bernoulli(self.p_bad);
            let d = self.draw_sojourn(self.bad);
            self.until += d;
        }
        self.bad
    }

    pub fn lose(&mut self, now: SimTime) -> bool {
        let bad = self.is_bad_at(now);
        let p = self.loss[bad as usize];
        p > 0.0 && self.loss_rng.bernoulli(p)
    }

    /// Long-run fraction of time in Bad and the resulting loss rate for
    /// packets arriving independently of the channel state.
    pub fn stationary_loss(loss: [f64; 2], sojourn: [SimDuration; 2], p_bad: f64) -> f64 {
        let tg = (1.0 - p_bad) * sojourn[0].as_nanos() as f64;
        let tb = p_bad * sojourn[1].as_nanos() as f64;
        let frac_bad = tb / (tg + tb);
        (1.0 - frac_bad) * loss[0] + frac_bad * loss[1]
    }
}

impl ErrorModel {
    /// Builds the model a scenario's `loss` table describes, refusing any
    /// parameter that is missing, out of range or not the model's.
    pub fn from_spec(
        path: &str,
        spec: &LossSpec,
        flow_ids: &HashMap<&str, u32, impl std::hash::BuildHasher>,
        seed: u64,
        run: u64,
        stream: &str,
    ) -> Result<ErrorModel> {
        let model = spec.model;
        let given: [(&str, bool); 11] = [
            ("per", spec.per.is_some()),
            ("ber", spec.ber.is_some()),
            ("good_loss", spec.good_loss.is_some()),
            ("bad_loss", spec.bad_loss.is_some()),
            ("good_time", spec.good_time.is_some()),
            ("bad_time", spec.bad_time.is_some()),
            ("sojourn", spec.sojourn.is_some()),
            ("p_bad", spec.p_bad.is_some()),
            ("packets", spec.packets.is_some()),
            ("flow", spec.flow.is_some()),
            ("data_only", spec.data_only.is_some()),
        ];
        for (field, is_set) in given {
            if is_set && !model.params().contains(&field) {
                return Err(Error::invalid_allowed(
                    format!("{path}.{field}"),
                    format!("not a parameter of the '{}' model", model.name()),
                    model.params().join(", "),
                ));
            }
        }
        let need = |field: &str| {
            Error::invalid(
                format!("{path}.{field}"),
                format!("required by the '{}' model", model.name()),
            )
        };
        let rng = || Rng::stream(seed, run, stream);
        Ok(match model {
            LossModel::Uniform => {
                let per =
                    check_probability(format!("{path}.per"), spec.per.ok_or_else(|| need("per"))?)?;
                ErrorModel::Uniform { per, rng: rng() }
            }
            LossModel::Ber => {
                let ber =
                    check_probability(format!("{path}.ber"), spec.ber.ok_or_else(|| need("ber"))?)?;
                ErrorModel::Ber { ber, rng: rng() }
            }
            LossModel::GilbertElliott => {
                let good =
                    check_probability(format!("{path}.good_loss"), spec.good_loss.unwrap_or(0.0))?;
                let bad = check_probability(
                    format!("{path}.bad_loss"),
                    spec.bad_loss.ok_or_else(|| need("bad_loss"))?,
                )?;
                let p_bad = check_probability(format!("{path}.p_bad"), spec.p_bad.unwrap_or(0.5))?;
                let mut times = [SimDuration::ZERO; 2];
                for (k, (field, v)) in [("good_time", spec.good_time), ("bad_time", spec.bad_time)]
                    .into_iter()
                    .enumerate()
                {
                    let v = v.ok_or_else(|| need(field))?;
                    if v.is_zero() {
                        return Err(Error::invalid(
                            format!("{path}.{field}"),
                            "must be longer than 0 s",
                        ));
                    }
                    times[k] = v;
                }
                let exponential = spec.sojourn == Some(Sojourn::Exponential);
                ErrorModel::GilbertElliott(GilbertElliott::new(
                    [good, bad],
                    times,
                    exponential,
                    p_bad,
                    Rng::stream(seed, run, &format!("{stream}:state")),
                    rng(),
                ))
            }
            LossModel::List => {
                let mut drop = spec.packets.clone().ok_or_else(|| need("packets"))?;
                if drop.contains(&0) {
                    return Err(Error::invalid_allowed(
                        format!("{path}.packets"),
                        "packets are counted from 1; 0 is not a packet number",
                        "whole numbers >= 1",
                    ));
                }
                drop.sort_unstable();
                drop.dedup();
                let flow = match &spec.flow {
                    None => None,
                    Some(name) => Some(*flow_ids.get(name.as_str()).ok_or_else(|| {
                        let mut names: Vec<&&str> = flow_ids.keys().collect();
                        names.sort();
                        Error::invalid_allowed(
                            format!("{path}.flow"),
                            format!("unknown flow '{name}'"),
                            list_names(names.into_iter()),
                        )
                    })?),
                };
                ErrorModel::List {
                    drop,
                    next: 0,
                    seen: 0,
                    flow,
                    data_only: spec.data_only.unwrap_or(false),
                }
            }
        })
    }

    /// `base` (the link's own model, if any) with a schedule's losses:
    /// `(from, probability)`, the first from 0, the times increasing.
    pub fn scheduled(base: Option<ErrorModel>, at: Vec<(SimTime, f64)>, rng: Rng) -> ErrorModel {
        ErrorModel::Scheduled(Box::new(ScheduledLoss {
            base,
            at,
            k: 0,
            rng,
        }))
    }

    /// `base` (the link's own model, if any) followed by `jitter`.
    pub fn jittered(base: Option<ErrorModel>, jitter: Jitter) -> ErrorModel {
        ErrorModel::Jittered(Box::new(Jittered { base, jitter }))
    }

    /// `base` (the link's own model, if any) deciding each attempt of an ARQ.
    pub fn with_arq(base: Option<ErrorModel>, arq: Arq) -> ErrorModel {
        ErrorModel::Arq(Box::new(ArqModel { base, arq }))
    }

    /// `base` (the link's own model, if any) followed by reordering.
    pub fn with_reorder(base: Option<ErrorModel>, reorder: Reorder) -> ErrorModel {
        ErrorModel::Reordered(Box::new(ReorderModel { base, reorder }))
    }

    /// The reordering, if the direction has one.
    pub fn reorder(&self) -> Option<&Reorder> {
        match self {
            ErrorModel::Reordered(r) => Some(&r.reorder),
            _ => None,
        }
    }

    /// The ARQ, if the direction has one.
    pub fn arq(&self) -> Option<&Arq> {
        match self {
            ErrorModel::Arq(a) => Some(&a.arq),
            _ => None,
        }
    }

    /// What becomes of a packet arriving at `now`: lost, on at once, on
    /// after a jitter, or up to the link's ARQ or reordering.
    #[inline]
    pub fn receive(&mut self, now: SimTime, pkt: &Packet) -> Fate {
        let (lost, spared) = match self {
            ErrorModel::Arq(_) => return Fate::Arq,
            ErrorModel::Reordered(r) => (base_loses(&mut r.base, now, pkt), Fate::Reorder),
            ErrorModel::Jittered(j) => {
                if base_loses(&mut j.base, now, pkt) {
                    return Fate::Lost;
                }
                (false, Fate::Later(j.jitter.release(now)))
            }
            model => (model.lose(now, pkt), Fate::Now),
        };
        if lost {
            Fate::Lost
        } else {
            spared
        }
    }

    /// Decides the fate of a packet arriving at `now`: true means lost.
    #[inline]
    pub fn lose(&mut self, now: SimTime, pkt: &Packet) -> bool {
        match self {
            ErrorModel::Jittered(j) => base_loses(&mut j.base, now, pkt),
            ErrorModel::Arq(a) => base_loses(&mut a.base, now, pkt),
            ErrorModel::Reordered(r) => base_loses(&mut r.base, now, pkt),
            ErrorModel::Scheduled(s) => {
                // The base model decides first, so that its draws are
                // those it makes without a schedule.
                if base_loses(&mut s.base, now, pkt) {
                    return true;
                }
                while s.at.get(s.k + 1).is_some_and(|&(t, _)| t <= now) {
                    s.k += 1;
                }
                let p = s.at[s.k].1;
                p > 0.0 && s.rng.bernoulli(p)
            }
            ErrorModel::Uniform { per, rng } => *per > 0.0 && rng.bernoulli(*per),
            ErrorModel::Ber { ber, rng } => {
                let bits = pkt.size as f64 * 8.0;
                // 1 - (1 - ber)^bits, accurate for tiny ber; `libm` for the
                // same value on every machine.
                let p = -libm::expm1(bits * libm::log1p(-*ber));
                *ber > 0.0 && rng.bernoulli(p)
            }
            ErrorModel::GilbertElliott(ge) => ge.lose(now),
            ErrorModel::List {
                drop,
                next,
                seen,
                flow,
                data_only,
            } => {
                if flow.is_some_and(|f| f != pkt.flow) || (*data_only && pkt.payload == 0) {
                    return false;
                }
                *seen += 1;
                if drop.get(*next) == Some(seen) {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
        }
    }
}

/// Whether a wrapper's `base` (the link's own model, if it has one) loses
/// the packet.
#[inline]
pub fn base_loses(base: &mut Option<ErrorModel>, now: SimTime, pkt: &Packet) -> bool {
    base.as_mut().is_some_and(|b| b.lose(now, pkt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Proto;

    fn pkt(flow: u32, size: u32) -> Packet {
        Packet {
            flow,
            src: 0,
            dst: 1,
            size,
            payload: 0,
            next_hop: crate::net::route::NO_ROUTE,
            number: 0,
            sent_at: SimTime::ZERO,
            proto: Proto::Udp,
            ecn: crate::net::packet::Ecn::NotEct,
            tcp: Default::default(),
        }
    }

    #[test]
    fn list_drops_exactly_the_listed_arrivals() {
        let mut m = ErrorModel::List {
            drop: vec![2, 4, 5],
            next: 0,
            seen: 0,
            flow: None,
            data_only: false,
        };
        let lost: Vec<bool> = (0..6)
            .map(|_| m.lose(SimTime::ZERO, &pkt(0, 100)))
            .collect();
        assert_eq!(lost, [false, true, false, true, true, false]);
    }

    #[test]
    fn list_with_flow_filter_counts_only_that_flow() {
        let mut m = ErrorModel::List {
            drop: vec![2],
            next: 0,
            seen: 0,
            flow: Some(1),
            data_only: false,
        };
        let seq = [(0, false), (1, false), (0, false), (1, true), (1, false)];
        for (f, expect) in seq {
            assert_eq!(m.lose(SimTime::ZERO, &pkt(f, 100)), expect);
        }
    }

    #[test]
    fn ber_probability_grows_with_size() {
        // BER 1e-5: 1000-B packets lost with p = 1 - (1-1e-5)^8000 = 0.0769.
        let mut m = ErrorModel::Ber {
            ber: 1e-5,
            rng: Rng::stream(1, 0, "b"),
        };
        let n = 100_000;
        let lost = (0..n)
            .filter(|_| m.lose(SimTime::ZERO, &pkt(0, 1000)))
            .count();
        let p = 1.0 - (1.0f64 - 1e-5).powi(8000);
        let sd = (p * (1.0 - p) / n as f64).sqrt();
        assert!((lost as f64 / n as f64 - p).abs() < 4.0 * sd, "{lost}");
    }

    #[test]
    fn deterministic_gilbert_elliott_follows_its_sojourns() {
        // Bad with probability 1 after every sojourn: Good for [0, 1 s), then
        // Bad forever in 100 ms steps.
        let mut ge = GilbertElliott::new(
            [0.0, 1.0],
            [SimDuration::from_secs(1), SimDuration::from_millis(100)],
            false,
            1.0,
            Rng::stream(1, 0, "s"),
            Rng::stream(1, 0, "l"),
        );
        assert!(!ge.lose(SimTime::from_nanos(999_999_999)));
        assert!(ge.lose(SimTime::from_nanos(1_000_000_000)));
        assert!(ge.lose(SimTime::from_nanos(5_000_000_000)));
    }

    #[test]
    fn stationary_loss_formula() {
        // Good 1 s, Bad 0.1 s, p_bad 0.5, loss 0 / 0.1: bad fraction 0.1/1.1.
        let l = GilbertElliott::stationary_loss(
            [0.0, 0.1],
            [SimDuration::from_secs(1), SimDuration::from_millis(100)],
            0.5,
        );
        assert!((l - 0.1 * 0.1 / 1.1).abs() < 1e-12);
    }
}
