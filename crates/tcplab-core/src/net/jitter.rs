// SPDX-License-Identifier: MIT OR Apache-2.0
//! Delay jitter on a link direction: an extra delay for each packet, drawn
//! from a distribution, added when the packet reaches the far end.
//!
//! By default packets keep their order: a packet is released no earlier
//! than the one before it, as on a real serial link, where a packet cannot
//! overtake the one ahead of it on the same wire. That is the default
//! because a reordering link is the exception, and reordering changes what
//! TCP sees (duplicate ACKs, spurious fast retransmits): it must be asked
//! for (`reorder = true`), and then each packet takes its own delay and
//! may overtake others (as netem's jitter does).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

/// The distributions a jitter draws from.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum JitterDist {
    /// Uniform on [low, high).
    Uniform,
    /// Normal with `mean` and `std`, truncated at 0 (negative draws are
    /// drawn again).
    Normal,
    /// Exponential with `mean`.
    Exponential,
    /// Pareto with `scale` (its minimum) and `shape`.
    Pareto,
}

crate::deserialize_names!(JitterDist {
    "uniform" => JitterDist::Uniform,
    "normal" => JitterDist::Normal,
    "exponential" => JitterDist::Exponential,
    "pareto" => JitterDist::Pareto,
});

/// A link direction's `jitter`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JitterSpec {
    pub dist: JitterDist,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub std: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<f64>,
    /// Whether packets may overtake each other (default: they keep order).
    #[serde(default)]
    pub reorder: bool,
}

#[derive(Debug, Clone, Copy)]
enum Draw {
    Uniform { low: f64, width: f64 },
    Normal { mean: f64, std: f64 },
    Exponential { mean: f64 },
    Pareto { scale: f64, shape: f64 },
}

/// A link direction's jitter, ready to draw (seconds inside).
#[derive(Debug)]
pub struct Jitter {
    draw: Draw,
    reorder: bool,
    rng: Rng,
    /// The latest release so far (packets that keep order wait for it).
    last: SimTime,
}

impl JitterSpec {
    /// Checks the parameters against the distribution (`path` names the
    /// field in errors) and makes the jitter, drawing from `rng`.
    pub fn build(&self, path: &str, rng: Rng) -> Result<Jitter> {
        let (needs, allowed): (&[&str], &str) = match self.dist {
            JitterDist::Uniform => (&["high"], "low (default 0) and high"),
            JitterDist::Normal => (&["mean", "std"], "mean and std"),
            JitterDist::Exponential => (&["mean"], "mean"),
            JitterDist::Pareto => (&["scale", "shape"], "scale and shape"),
        };
        let given = [
            ("low", self.low.is_some()),
            ("high", self.high.is_some()),
            ("mean", self.mean.is_some()),
            ("std", self.std.is_some()),
            ("scale", self.scale.is_some()),
            ("shape", self.shape.is_some()),
        ];
        let dist = serde_json::to_value(self.dist).unwrap_or_default();
        let dist = dist.as_str().unwrap_or("");
        for (name, is) in given {
            let takes =
                needs.contains(&name) || (name == "low" && self.dist == JitterDist::Uniform);
            if is && !takes {
                return Err(Error::invalid_allowed(
                    format!("{path}.{name}"),
                    format!("not a parameter of the {dist} distribution"),
                    allowed,
                ));
            }
            if !is && needs.contains(&name) {
                return Err(Error::invalid_allowed(
                    format!("{path}.{name}"),
                    format!("the {dist} distribution needs it"),
                    allowed,
                ));
            }
        }
        let s = |d: Option<SimDuration>| d.map_or(0.0, SimDuration::as_secs_f64);
        let draw = match self.dist {
            JitterDist::Uniform => {
                let (low, high) = (s(self.low), s(self.high));
                if high < low {
                    return Err(Error::invalid_allowed(
                        format!("{path}.high"),
                        format!("{} is below low", self.high.unwrap_or_default()),
                        "high >= low",
                    ));
                }
                Draw::Uniform {
                    low,
                    width: high - low,
                }
            }
            JitterDist::Normal => Draw::Normal {
                mean: s(self.mean),
                std: s(self.std),
            },
            JitterDist::Exponential => Draw::Exponential { mean: s(self.mean) },
            JitterDist::Pareto => {
                let shape = self.shape.unwrap_or_default();
                if !(shape.is_finite() && shape > 0.0) {
                    return Err(Error::invalid_allowed(
                        format!("{path}.shape"),
                        format!("{shape} is not a shape"),
                        "a number above 0 (above 1 for a finite mean)",
                    ));
                }
                Draw::Pareto {
                    scale: s(self.scale),
                    shape,
                }
            }
        };
        Ok(Jitter {
            draw,
            reorder: self.reorder,
            rng,
            last: SimTime::ZERO,
        })
    }
}

impl Jitter {
    /// One extra delay, in seconds (at least 0).
    fn sample(&mut self) -> f64 {
        let r = &mut self.rng;
        match self.draw {
            Draw::Uniform { low, width } => low + width * r.uniform(),
            Draw::Normal { mean, std } => loop {
                // Box-Muller, through `libm` for the same values everywhere;
                // mean >= 0, so at least half the draws are kept.
                let (u1, u2) = (1.0 - r.uniform(), r.uniform());
                let z = libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(std::f64::consts::TAU * u2);
                let x = mean + std * z;
                if x >= 0.0 {
                    break x;
                }
            },
            Draw::Exponential { mean } => r.exponential(mean),
            Draw::Pareto { scale, shape } => scale / libm::pow(1.0 - r.uniform(), 1.0 / shape),
        }
    }

    /// When a packet reaching the far end at `now` is released to it.
    pub fn release(&mut self, now: SimTime) -> SimTime {
        let extra = SimDuration::from_secs_f64(self.sample()).unwrap_or(SimDuration::MAX);
        let mut t = now + extra;
        if !self.reorder {
            t = t.max(self.last);
        }
        self.last = self.last.max(t);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> JitterSpec {
        serde_json::from_str(json).unwrap()
    }

    fn jitter(json: &str) -> Jitter {
        spec(json).build("j", Rng::stream(1, 0, "jitter")).unwrap()
    }

    fn mean_of(j: &mut Jitter, n: usize) -> f64 {
        (0..n).map(|_| j.sample()).sum::<f64>() / n as f64
    }

    #[test]
    fn each_distribution_has_its_mean() {
        let n = 200_000;
        let close =
            |got: f64, want: f64, tol: f64| assert!((got - want).abs() < tol, "{got} {want}");
        close(
            mean_of(
                &mut jitter(r#"{"dist":"uniform","low":0.01,"high":0.03}"#),
                n,
            ),
            0.02,
            1e-4,
        );
        close(
            mean_of(&mut jitter(r#"{"dist":"exponential","mean":0.01}"#), n),
            0.01,
            1e-4,
        );
        // Truncated at 0: mean + std * phi(a) / (1 - Phi(a)), a = -mean / std;
        // with mean 0 that is std * sqrt(2 / pi).
        let want = 0.01 * (2.0 / std::f64::consts::PI).sqrt();
        close(
            mean_of(&mut jitter(r#"{"dist":"normal","mean":0,"std":0.01}"#), n),
            want,
            1e-4,
        );
        // Pareto: shape * scale / (shape - 1).
        close(
            mean_of(
                &mut jitter(r#"{"dist":"pareto","scale":0.01,"shape":3}"#),
                n,
            ),
            0.015,
            2e-4,
        );
        let mut j = jitter(r#"{"dist":"normal","mean":0.005,"std":0.01}"#);
        assert!((0..10_000).all(|_| j.sample() >= 0.0));
    }

    #[test]
    fn packets_keep_their_order_unless_reordering_is_asked_for() {
        for (reorder, keeps) in [(false, true), (true, false)] {
            let mut j = jitter(&format!(
                r#"{{"dist":"uniform","high":0.01,"reorder":{reorder}}}"#
            ));
            let releases: Vec<SimTime> = (0..1000)
                .map(|i| j.release(SimTime::from_nanos(i * 1_000_000)))
                .collect();
            assert_eq!(releases.windows(2).all(|w| w[0] <= w[1]), keeps);
        }
    }

    #[test]
    fn parameters_are_checked_against_the_distribution() {
        let err = |json: &str| {
            spec(json)
                .build("links[0].jitter", Rng::stream(1, 0, "j"))
                .unwrap_err()
                .to_string()
        };
        assert!(err(r#"{"dist":"uniform","mean":0.1,"high":1}"#)
            .starts_with("links[0].jitter.mean: not a parameter of the uniform distribution"));
        assert!(err(r#"{"dist":"normal","mean":0.1}"#)
            .starts_with("links[0].jitter.std: the normal distribution needs it"));
        assert!(err(r#"{"dist":"uniform","low":0.2,"high":0.1}"#).contains("high >= low"));
        assert!(err(r#"{"dist":"pareto","scale":0.1,"shape":0}"#).contains("jitter.shape"));
        assert!(
            serde_json::from_str::<JitterSpec>(r#"{"dist":"normal","mean":-1,"std":1}"#).is_err()
        );
        assert!(serde_json::from_str::<JitterSpec>(r#"{"dist":"gauss"}"#).is_err());
    }
}
