// SPDX-License-Identifier: MIT OR Apache-2.0
//! The scenario: a plain, serializable description of one run.
//!
//! The same structure comes from Python builders (as JSON) and from TOML
//! files. Parsing reports the exact path of a bad field
//! (`links[1].loss.per`); unknown fields are refused. Semantic checks (names,
//! ranges, routes) happen when the world is built, before the first event,
//! see [`crate::world::World::build`].

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::time::{Rate, SimDuration};
use crate::units::{Bytes, QueueLimit};

fn default_seed() -> u64 {
    1
}
fn default_mtu() -> u32 {
    1500
}
fn is_zero(v: &u64) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label for the run (free text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Simulated time to run. Without it, the run ends when no event is left
    /// (every source must then have an end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<SimDuration>,
    /// Seed of every random stream (default 1).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Run index: a second axis of independent replications under one seed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub run: u64,
    /// End hosts: sources and sinks of traffic; they do not forward.
    #[serde(default)]
    pub hosts: Vec<String>,
    /// Routers forward packets between links.
    #[serde(default)]
    pub routers: Vec<String>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Explicit routes overriding the shortest paths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<RouteSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Optional recordings: time series and event logs (see [`TraceKind`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TraceKind>,
}

/// What a run can record beyond its counters. Nothing is recorded, and
/// nothing slows down, unless asked for.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// Queue length (waiting packets) of every link direction, at each change.
    Queue,
    /// Every dropped packet: time, link direction, flow, packet number, cause.
    Drops,
}

/// A full-duplex point-to-point link between nodes `a` and `b`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Defaults to "a-b" from the two ends' names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    /// Rate of each direction, bit/s.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Drop-tail limit of the egress queue in each direction (default 100
    /// packets).
    #[serde(default)]
    pub queue: QueueLimit,
    /// Largest IP datagram, bytes (default 1500).
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// Error model on the a -> b direction (applied at b).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// Error model on the b -> a direction (applied at a).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_loss: Option<LossSpec>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossModel {
    Uniform,
    Ber,
    GilbertElliott,
    List,
}

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
            LossModel::List => &["packets", "flow"],
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Sojourn {
    Deterministic,
    Exponential,
}

/// An error model. `model` selects which of the other fields apply.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    pub model: LossModel,
    /// uniform: packet error rate in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<f64>,
    /// ber: bit error rate in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ber: Option<f64>,
    /// gilbert_elliott: loss probability in Good (default 0) and Bad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub good_loss: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_bad: Option<f64>,
    /// list: arrival numbers to drop, counting from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<Vec<u64>>,
    /// list: count only this flow's packets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<String>,
}

/// At `node`, send packets for host `to` to the neighbour `next`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub node: String,
    pub to: String,
    pub next: String,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// UDP constant bit rate source with a sink.
    Udp,
}

impl FlowKind {
    pub fn name(self) -> &'static str {
        match self {
            FlowKind::Udp => "udp",
        }
    }
}

/// A traffic flow from host `src` to host `dst`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub kind: FlowKind,
    /// Defaults to the kind and the flow's index ("udp0").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    /// When the source starts (default 0).
    #[serde(default)]
    pub start: SimDuration,
    /// When the source stops (default: the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<SimDuration>,
    /// udp: the application's sending rate (payload bits per second, as
    /// ns-3's OnOffApplication counts it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// udp: payload bytes per datagram; 28 B of IPv4 and UDP headers are
    /// added on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    /// udp: stop after this many datagrams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

impl Scenario {
    /// Parses a scenario from JSON, naming the path of any bad field.
    pub fn from_json(text: &str) -> Result<Scenario> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { path };
            Error::invalid(path, e.into_inner().to_string().replace('`', "'"))
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a scenario always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_defaults() {
        let s = Scenario::from_json(
            r#"{"hosts":["a","b"],"links":[{"a":"a","b":"b","rate":"10Mbps","delay":"45ms"}]}"#,
        )
        .unwrap();
        assert_eq!(s.seed, 1);
        assert_eq!(s.links[0].mtu, 1500);
        assert_eq!(s.links[0].queue, QueueLimit::Packets(100));
        assert_eq!(s.links[0].delay, SimDuration::from_millis(45));
        let again = Scenario::from_json(&s.to_json()).unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn errors_name_the_path() {
        let e = Scenario::from_json(
            r#"{"links":[{"a":"a","b":"b","rate":"10Mbps","delay":"1ms"},
                          {"a":"a","b":"b","rate":"10Mbs","delay":"1ms"}]}"#,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("links[1].rate: '10Mbs': unknown unit"),
            "{e}"
        );
        let e =
            Scenario::from_json(r#"{"links":[{"a":"a","b":"b","rte":1,"delay":0}]}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field 'rte'"), "{e}");
        let e =
            Scenario::from_json(r#"{"flows":[{"kind":"tcpp","src":"a","dst":"b"}]}"#).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("flows[0].kind: unknown variant 'tcpp'"),
            "{e}"
        );
    }
}
