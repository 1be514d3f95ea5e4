// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a run records beyond its counters, when asked: `trace = [...]` names
//! built-in recordings ([`TraceKind`]) and quantities the congestion
//! controls report about themselves (`"cc:w_max"`, see
//! [`crate::cc::Probe`]). Nothing is recorded, and nothing slows down,
//! unless asked for.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::cc::Probe;

/// Declares the built-in recordings: variant, name, what it records.
macro_rules! trace_kinds {
    ($($variant:ident = $name:literal, $doc:literal;)+) => {
        /// The built-in recordings.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum TraceKind {
            $(#[doc = $doc] $variant),+
        }

        impl TraceKind {
            /// Every built-in recording, in the table's order.
            pub const ALL: &'static [TraceKind] = &[$(TraceKind::$variant),+];

            pub fn name(self) -> &'static str {
                match self {
                    $(TraceKind::$variant => $name),+
                }
            }

            /// What it records.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(TraceKind::$variant => $doc),+
                }
            }
        }
    };
}

trace_kinds! {
    Queue = "queue", "Queue length (waiting packets) of every link direction, at each change.";
    Sojourn = "sojourn", "Queueing delay (seconds) of every packet put on the wire, per link direction, at the start of its transmission.";
    Drops = "drops", "Every dropped packet: time, link direction, flow, packet number, cause.";
    Cwnd = "cwnd", "TCP: congestion window (bytes), at each change.";
    Ssthresh = "ssthresh", "TCP: slow-start threshold (bytes), at each change.";
    Srtt = "srtt", "TCP: smoothed RTT (seconds), at each change.";
    Rtt = "rtt", "TCP: every RTT sample (seconds).";
    Rto = "rto", "TCP: retransmission timeout (seconds), at each change.";
    State = "state", "TCP: congestion state (0 Open, 1 Disorder, 2 Recovery, 3 Loss, 4 CWR).";
    Inflight = "inflight", "TCP: bytes in flight, at each change.";
    Events = "events", "TCP: the event log (fast retransmits, timeouts, retransmissions, ...).";
    Bwe = "bwe", "Short for cc:bwe (Westwood, Westwood+, Petra, BBR), in a series named bwe.";
    Diff = "diff", "Short for cc:diff (Vegas), in a series named diff.";
}

impl TraceKind {
    /// The per-connection series (not link series or logs).
    pub const TCP_SERIES: [TraceKind; 9] = [
        TraceKind::Cwnd,
        TraceKind::Ssthresh,
        TraceKind::Srtt,
        TraceKind::Rtt,
        TraceKind::Rto,
        TraceKind::State,
        TraceKind::Inflight,
        TraceKind::Bwe,
        TraceKind::Diff,
    ];

    /// The probe a short name stands for (`bwe`, `diff`).
    pub fn probe(self) -> Option<&'static str> {
        match self {
            TraceKind::Bwe => Some("bwe"),
            TraceKind::Diff => Some("diff"),
            _ => None,
        }
    }
}

/// One entry of `trace`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceSpec {
    Kind(TraceKind),
    /// `"cc:NAME"`: a quantity the flow's congestion control reports.
    Probe(String),
}

impl TraceSpec {
    /// As written in a scenario, and as the recorded series is named.
    pub fn name(&self) -> String {
        match self {
            TraceSpec::Kind(k) => k.name().to_string(),
            TraceSpec::Probe(p) => format!("cc:{p}"),
        }
    }
}

fn names() -> String {
    let v: Vec<&str> = TraceKind::ALL.iter().map(|k| k.name()).collect();
    v.join(", ")
}

impl Serialize for TraceSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for TraceSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = TraceSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "one of {}, or 'cc:NAME'", names())
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TraceSpec, E> {
                if let Some(probe) = v.strip_prefix("cc:") {
                    if probe.is_empty() {
                        return Err(E::custom(
                            "'cc:' needs the quantity's name, e.g. 'cc:w_max'",
                        ));
                    }
                    return Ok(TraceSpec::Probe(probe.to_string()));
                }
                match TraceKind::ALL.iter().find(|k| k.name() == v) {
                    Some(&k) => Ok(TraceSpec::Kind(k)),
                    None => Err(E::custom(format!(
                        "unknown recording '{v}' (allowed: {}, or 'cc:NAME' for a quantity of \
                         the congestion control)",
                        names()
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A connection's series: the built-in ones in their order, then the
/// controller's own quantities that `trace` names, in its order.
pub(super) fn series_for(trace: &[TraceSpec], probes: &[Probe]) -> Vec<TraceSpec> {
    let builtin = TraceKind::TCP_SERIES
        .iter()
        .map(|&k| TraceSpec::Kind(k))
        .filter(|k| trace.contains(k));
    let own = trace
        .iter()
        .filter(|t| matches!(t, TraceSpec::Probe(p) if probes.iter().any(|q| q.name == p.as_str())))
        .cloned();
    builtin.chain(own).collect()
}
