// SPDX-License-Identifier: MIT OR Apache-2.0
//! Short-flow workloads: transfers arriving as a Poisson process, with
//! sizes drawn from an empirical distribution.
//!
//! A flow entry with `app = { kind = "poisson", ... }` is expanded, when
//! the scenario is checked, into one transfer per arrival. Arrival times
//! and sizes come from the entry's own random stream (the seed, the run
//! and the entry's index), so that seeds differ and adding another flow
//! leaves the draws alone.
//!
//! Sizes follow a CDF given as points (size, cumulative probability),
//! interpolated linearly between points as the pFabric and PIAS ns-2
//! scripts' empirical variables do. Two CDFs are built in, in packets of
//! 1460 B as those scripts give them:
//! - `websearch`: the web-search workload measured for DCTCP (Alizadeh et
//!   al., SIGCOMM 2010), as used by pFabric (2013); mean 1141 packets
//!   (1.67 MB) by this interpolation, against the 1138 those scripts state;
//! - `datamining`: the data-mining workload measured for VL2 (Greenberg et
//!   al., SIGCOMM 2009), as used by pFabric; mean 5117 packets (7.47 MB).

use serde::{Deserialize, Serialize};

use super::budget::Budget;
use super::{AppKind, AppSpec, FlowSpec, OneOrMany};
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::time::SimDuration;
use crate::units::{grouped, Bytes};

/// The packet size of the built-in CDFs' units.
pub const CDF_PACKET: f64 = 1460.0;

/// The web-search CDF: (size in 1460-B packets, cumulative probability).
const WEBSEARCH: &[(f64, f64)] = &[
    (6.0, 0.0),
    (6.0, 0.15),
    (13.0, 0.2),
    (19.0, 0.3),
    (33.0, 0.4),
    (53.0, 0.53),
    (133.0, 0.6),
    (667.0, 0.7),
    (1333.0, 0.8),
    (3333.0, 0.9),
    (6667.0, 0.97),
    (20000.0, 1.0),
];

/// The data-mining CDF, in the same units.
const DATAMINING: &[(f64, f64)] = &[
    (1.0, 0.0),
    (1.0, 0.5),
    (2.0, 0.6),
    (3.0, 0.7),
    (7.0, 0.8),
    (267.0, 0.9),
    (2107.0, 0.95),
    (66667.0, 0.99),
    (666667.0, 1.0),
];

/// The built-in distributions' names.
pub const NAMED: &[&str] = &["websearch", "datamining"];

/// A flow-size distribution: a built-in one by name, or a CDF as
/// `[[bytes, probability], ...]`.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Named(String),
    Points(Vec<(f64, f64)>),
}

impl Serialize for SizeDist {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            SizeDist::Named(n) => n.serialize(s),
            SizeDist::Points(p) => p.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SizeDist {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::{self, value, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SizeDist;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(
                    f,
                    "a distribution's name ({}) or a CDF as [[bytes, probability], ...]",
                    NAMED.join(", ")
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<SizeDist, E> {
                Ok(SizeDist::Named(v.to_string()))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                a: A,
            ) -> std::result::Result<SizeDist, A::Error> {
                Vec::<(f64, f64)>::deserialize(value::SeqAccessDeserializer::new(a))
                    .map(SizeDist::Points)
            }
        }
        d.deserialize_any(V)
    }
}

/// A checked CDF in bytes: sizes and probabilities non-decreasing, the
/// last probability 1.
#[derive(Clone, Debug)]
pub struct Cdf {
    points: Vec<(f64, f64)>,
}

impl Cdf {
    /// Checks `dist` (`field` names it in messages).
    pub fn new(dist: &SizeDist, field: &str) -> Result<Cdf> {
        let points: Vec<(f64, f64)> = match dist {
            SizeDist::Named(n) => {
                let table = match n.as_str() {
                    "websearch" => WEBSEARCH,
                    "datamining" => DATAMINING,
                    _ => {
                        return Err(Error::invalid_allowed(
                            field,
                            format!("no built-in distribution '{n}'"),
                            format!(
                                "{}, or a CDF as [[bytes, probability], ...]",
                                NAMED.join(", ")
                            ),
                        ))
                    }
                };
                table.iter().map(|&(s, p)| (s * CDF_PACKET, p)).collect()
            }
            SizeDist::Points(p) => p.clone(),
        };
        let allowed = "points [bytes, probability] with both non-decreasing, sizes >= 1 B, \
                       probabilities in [0, 1] and the last 1";
        if points.is_empty() {
            return Err(Error::invalid_allowed(field, "an empty CDF", allowed));
        }
        let mut last = (0.0, 0.0);
        for (k, &(s, p)) in points.iter().enumerate() {
            let bad = |what: String| Error::invalid_allowed(format!("{field}[{k}]"), what, allowed);
            if !(s.is_finite() && s >= 1.0) {
                return Err(bad(format!("size {s} B is not at least 1 B")));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err(bad(format!("probability {p} is not in [0, 1]")));
            }
            if k > 0 && (s < last.0 || p < last.1) {
                return Err(bad(format!(
                    "[{s}, {p}] comes after [{}, {}]: sizes and probabilities must not decrease",
                    last.0, last.1
                )));
            }
            last = (s, p);
        }
        if last.1 != 1.0 {
            return Err(Error::invalid_allowed(
                field,
                format!("the last probability is {}, not 1", last.1),
                allowed,
            ));
        }
        Ok(Cdf { points })
    }

    /// The mean size in bytes: the first point's mass at its size, then
    /// each segment's probability at its midpoint (exact for the linear
    /// interpolation [`Cdf::size`] draws from).
    pub fn mean(&self) -> f64 {
        let (s0, p0) = self.points[0];
        let mut m = s0 * p0;
        for w in self.points.windows(2) {
            m += (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0;
        }
        m
    }

    /// The size, in whole bytes (at least 1), at probability `u` in [0, 1):
    /// the first point's size below its probability, else linear between
    /// the two points around `u`.
    pub fn size(&self, u: f64) -> u64 {
        let (s0, p0) = self.points[0];
        let s = if u < p0 {
            s0
        } else {
            // The first segment whose end is above u (the last one at u -> 1).
            let k = self.points.partition_point(|&(_, p)| p <= u).max(1);
            let k = k.min(self.points.len() - 1);
            let (a, b) = (self.points[k - 1], self.points[k]);
            if b.1 > a.1 {
                a.0 + (b.0 - a.0) * (u - a.1) / (b.1 - a.1)
            } else {
                b.0
            }
        };
        (s.round() as u64).max(1)
    }
}

/// One transfer of a workload: when it starts, its size, and which of the
/// entry's (src, dst) pairs it uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    pub start: SimDuration,
    pub size: u64,
    pub pair: usize,
}

/// The arrivals of a Poisson process of `rate` per second in [`from`,
/// `until`), each with a size from `cdf` and one of `pairs` pairs chosen
/// uniformly, drawn from `rng` (interarrival, size, pair, in that order);
/// `None` once there are more than `max`.
pub fn arrivals(
    rng: &mut Rng,
    rate: f64,
    from: SimDuration,
    until: SimDuration,
    cdf: &Cdf,
    pairs: usize,
    max: usize,
) -> Option<Vec<Arrival>> {
    let mut out = Vec::new();
    let mut t = from.as_nanos() as f64;
    let end = until.as_nanos() as f64;
    loop {
        t += rng.exponential(1e9 / rate);
        if t >= end {
            return Some(out);
        }
        if out.len() >= max {
            return None;
        }
        let size = cdf.size(rng.uniform());
        let pair = if pairs > 1 {
            ((rng.next_u64() as u128 * pairs as u128) >> 64) as usize
        } else {
            0
        };
        out.push(Arrival {
            start: SimDuration::from_nanos(t as u64),
            size,
            pair,
        });
    }
}

/// A workload entry expanded into a group of transfers, one per arrival.
pub(super) struct Expanded {
    pub src: OneOrMany<String>,
    pub dst: OneOrMany<String>,
    pub starts: OneOrMany<SimDuration>,
    /// `name` + index when the entry names the workload.
    pub names: Option<OneOrMany<String>>,
    pub sizes: Vec<u64>,
}

/// An arrival's application: a transfer of `size` bytes.
pub(super) fn transfer(size: u64) -> AppSpec {
    AppSpec {
        kind: AppKind::Transfer,
        size: Some(Bytes(size)),
        schedule: None,
        load: None,
        arrival_rate: None,
        sizes: None,
        until: None,
    }
}

/// Checks a poisson entry (`f`, at `entry`) and draws its arrivals, which
/// are counted against `budget` (from their expected number before any is
/// drawn). `bottleneck(src, dst)` is the smallest link rate on that pair's
/// path in bit/s; `stream` names the entry's random stream.
pub(super) fn expand(
    entry: &str,
    f: &FlowSpec,
    rng: &mut Rng,
    duration: Option<SimDuration>,
    bottleneck: &dyn Fn(&str, &str) -> Result<u64>,
    budget: &mut Budget,
) -> Result<Expanded> {
    let p = |field: &str| format!("{entry}.{field}");
    let app = f.app.as_ref().expect("a poisson entry has an app");
    let prefix = check_poisson(f, app, &p)?;
    let dist = app.sizes.as_ref().ok_or_else(|| {
        Error::invalid_allowed(
            p("app.sizes"),
            "required for a poisson workload",
            format!(
                "{}, or a CDF as [[bytes, probability], ...]",
                NAMED.join(", ")
            ),
        )
    })?;
    let cdf = Cdf::new(dist, &p("app.sizes"))?;
    let pairs = super::member::members(&[("src", f.src.count()), ("dst", f.dst.count())], entry)?;
    let rate = arrival_rate(f, app, &p, &cdf, pairs, bottleneck)?;
    let from = *f.start.get(0);
    let until = app.until.or(duration).ok_or_else(|| {
        Error::invalid(
            p("app.until"),
            "required without a run duration: when the arrivals end",
        )
    })?;
    if until <= from {
        return Err(Error::invalid(
            p("app.until"),
            format!("must be after the start ({from}), got {until}"),
        ));
    }
    if let Some(d) = duration.filter(|&d| until > d) {
        return Err(Error::invalid(
            p("app.until"),
            format!("{until} is after the end of the run ({d})"),
        ));
    }
    // Each transfer is a flow of the network: its cost, from the expected
    // number of arrivals, is refused before any is drawn; the draws stop
    // once they would outgrow what is left of the budget.
    let each = super::budget::flow_bytes(f.kind) + super::budget::ARRIVAL_BYTES;
    let field = p(if app.load.is_some() {
        "app.load"
    } else {
        "app.arrival_rate"
    });
    let secs = (until - from).as_secs_f64();
    let what = |n: f64| {
        format!(
            "about {} transfers ({} per second for {secs} s)",
            grouped(n),
            if rate >= 100.0 {
                grouped(rate)
            } else {
                format!("{rate:.3}")
            }
        )
    };
    let expected = rate * secs;
    if expected * each as f64 > budget.room() as f64 {
        return Err(budget.refuse(&field, &what(expected), (expected * each as f64) as u64));
    }
    let max = (budget.room() / each) as usize;
    let a = arrivals(rng, rate, from, until, &cdf, pairs, max)
        .ok_or_else(|| budget.refuse(&field, &what(max as f64 + 1.0), (max as u64 + 1) * each))?;
    budget.add(a.len() as u64 * each, field, what(a.len() as f64));
    let pick =
        |v: &OneOrMany<String>| OneOrMany::Many(a.iter().map(|x| v.get(x.pair).clone()).collect());
    Ok(Expanded {
        src: pick(&f.src),
        dst: pick(&f.dst),
        starts: OneOrMany::Many(a.iter().map(|x| x.start).collect()),
        names: prefix.map(|n| OneOrMany::Many((0..a.len()).map(|k| format!("{n}{k}")).collect())),
        sizes: a.iter().map(|x| x.size).collect(),
    })
}

/// Refuses what a poisson entry cannot have; returns the prefix of its
/// flows' names.
fn check_poisson(
    f: &FlowSpec,
    app: &AppSpec,
    p: &dyn Fn(&str) -> String,
) -> Result<Option<String>> {
    for (field, set, why) in [
        ("app.size", app.size.is_some(), "sizes come from app.sizes"),
        (
            "app.schedule",
            app.schedule.is_some(),
            "only an onoff application has one",
        ),
        (
            "stop",
            f.stop.is_some(),
            "arrivals end at app.until; each transfer runs to its end",
        ),
        (
            "start_jitter",
            f.start_jitter.is_some(),
            "arrival times are already random",
        ),
    ] {
        if set {
            return Err(Error::invalid(
                p(field),
                format!("not for a poisson workload: {why}"),
            ));
        }
    }
    if f.start.count().is_some() {
        return Err(Error::invalid(
            p("start"),
            "a poisson workload has one start (its first possible arrival), not a list",
        ));
    }
    Ok(match &f.name {
        None => None,
        Some(OneOrMany::One(n)) => Some(n.clone()),
        Some(OneOrMany::Many(_)) => return Err(Error::invalid(
            p("name"),
            "a poisson workload takes one name, the prefix of its flows' names (web0, web1, ...)",
        )),
    })
}

/// A poisson entry's arrivals per second: its `arrival_rate`, or its `load`
/// of the slowest bottleneck among its `pairs` of hosts for transfers of
/// the mean size of `cdf`.
fn arrival_rate(
    f: &FlowSpec,
    app: &AppSpec,
    p: &dyn Fn(&str) -> String,
    cdf: &Cdf,
    pairs: usize,
    bottleneck: &dyn Fn(&str, &str) -> Result<u64>,
) -> Result<f64> {
    Ok(match (app.load, app.arrival_rate) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(Error::invalid_allowed(
                p("app.load"),
                "a poisson workload needs exactly one of load and arrival_rate",
                "load (a fraction of the bottleneck, e.g. 0.5) or arrival_rate (flows per second)",
            ))
        }
        (Some(load), None) => {
            if !(load.is_finite() && load > 0.0) {
                return Err(Error::invalid_allowed(
                    p("app.load"),
                    format!("{load}"),
                    "a fraction of the bottleneck's rate above 0 (above 1 overloads it)",
                ));
            }
            let mut c = u64::MAX;
            for k in 0..pairs {
                c = c.min(bottleneck(f.src.get(k), f.dst.get(k))?);
            }
            load * c as f64 / (8.0 * cdf.mean())
        }
        (None, Some(r)) => {
            if !(r.is_finite() && r > 0.0) {
                return Err(Error::invalid_allowed(
                    p("app.arrival_rate"),
                    format!("{r}"),
                    "flows per second, above 0",
                ));
            }
            r
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(n: &str) -> Cdf {
        Cdf::new(&SizeDist::Named(n.into()), "sizes").unwrap()
    }

    #[test]
    fn built_in_means_match_the_published_ones() {
        // PIAS's and pFabric's scripts give mean sizes of 1138 and 5117
        // packets of 1460 B.
        let web = named("websearch").mean() / CDF_PACKET;
        let dm = named("datamining").mean() / CDF_PACKET;
        assert!((web - 1138.0).abs() / 1138.0 < 0.005, "{web}");
        assert!((dm - 5117.0).abs() / 5117.0 < 0.001, "{dm}");
    }

    #[test]
    fn sizes_interpolate_between_points() {
        let c = Cdf::new(&SizeDist::Points(vec![(100.0, 0.5), (300.0, 1.0)]), "s").unwrap();
        assert_eq!(c.size(0.0), 100);
        assert_eq!(c.size(0.49), 100);
        assert_eq!(c.size(0.5), 100);
        assert_eq!(c.size(0.75), 200);
        assert_eq!(c.size(0.999), 300);
        assert_eq!(c.mean(), 0.5 * 100.0 + 0.5 * 200.0);
        let web = named("websearch");
        assert_eq!(web.size(0.1), 6 * 1460);
        assert_eq!(web.size(0.175), (9.5 * 1460.0) as u64);
    }

    #[test]
    fn sampled_mean_and_rate_follow_the_distribution() {
        let cdf = named("datamining");
        let mut rng = Rng::stream(1, 0, "workload:test");
        let a = arrivals(
            &mut rng,
            1000.0,
            SimDuration::ZERO,
            SimDuration::from_secs(100),
            &cdf,
            3,
            usize::MAX,
        )
        .unwrap();
        // 100,000 expected arrivals: within 4 standard deviations (1265).
        assert!((a.len() as f64 - 1e5).abs() < 1265.0, "{}", a.len());
        assert!(a.windows(2).all(|w| w[0].start <= w[1].start));
        let below = a.iter().filter(|x| x.size <= 1460).count() as f64 / a.len() as f64;
        assert!((below - 0.5).abs() < 0.01, "{below}");
        for p in 0..3 {
            let share = a.iter().filter(|x| x.pair == p).count() as f64 / a.len() as f64;
            assert!((share - 1.0 / 3.0).abs() < 0.01, "{share}");
        }
    }

    #[test]
    fn bad_cdfs_are_refused_by_field() {
        let e = |p: Vec<(f64, f64)>| Cdf::new(&SizeDist::Points(p), "f.sizes").unwrap_err();
        assert!(e(vec![]).to_string().contains("empty"));
        assert!(e(vec![(10.0, 0.5)]).to_string().contains("not 1"));
        let m = e(vec![(10.0, 0.5), (5.0, 1.0)]).to_string();
        assert!(
            m.contains("f.sizes[1]") && m.contains("must not decrease"),
            "{m}"
        );
        assert!(e(vec![(0.5, 1.0)]).to_string().contains("at least 1 B"));
        let n = Cdf::new(&SizeDist::Named("web".into()), "f.sizes")
            .unwrap_err()
            .to_string();
        assert!(n.contains("websearch, datamining"), "{n}");
    }
}
