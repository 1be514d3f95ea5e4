// SPDX-License-Identifier: MIT OR Apache-2.0
//! A link direction's `rate`: a fixed rate (`"10Mbps"`, a number of bit/s)
//! or a capacity trace in mahimahi's format (`{ trace = "file" }`; see
//! [`crate::net::capacity`]).

use std::fmt;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::net::capacity::CapacityTrace;
use crate::time::Rate;

#[derive(Clone, Debug, PartialEq)]
pub enum RateSpec {
    Fixed(Rate),
    /// A trace file: a path, relative to the working directory (a scenario
    /// file's loader makes it relative to the file's folder).
    Trace {
        file: String,
    },
}

impl From<Rate> for RateSpec {
    fn from(r: Rate) -> Self {
        RateSpec::Fixed(r)
    }
}

/// A link direction's rate as the world runs it.
#[derive(Clone, Debug)]
pub struct LinkRate {
    /// The fixed rate, or a trace's mean capacity: what the checks and the
    /// defaults that need one rate (RED's automatic settings, a workload's
    /// load, a transfer's ideal time) use.
    pub nominal: Rate,
    pub trace: Option<Arc<CapacityTrace>>,
}

impl<'de> Deserialize<'de> for RateSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RateSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(
                    f,
                    "a rate ('10Mbps', a number of bit/s) or a capacity trace \
                     {{ trace = \"file\" }}"
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<RateSpec, E> {
                Rate::deserialize(de::value::StrDeserializer::<E>::new(v)).map(RateSpec::Fixed)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<RateSpec, E> {
                Rate::deserialize(de::value::U64Deserializer::<E>::new(v)).map(RateSpec::Fixed)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<RateSpec, E> {
                Rate::deserialize(de::value::I64Deserializer::<E>::new(v)).map(RateSpec::Fixed)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<RateSpec, E> {
                Rate::deserialize(de::value::F64Deserializer::<E>::new(v)).map(RateSpec::Fixed)
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<RateSpec, A::Error> {
                let mut file = None;
                while let Some(k) = m.next_key::<String>()? {
                    match k.as_str() {
                        "trace" if file.is_none() => file = Some(m.next_value::<String>()?),
                        "trace" => return Err(de::Error::duplicate_field("trace")),
                        other => return Err(de::Error::unknown_field(other, &["trace"])),
                    }
                }
                let file = file.ok_or_else(|| de::Error::missing_field("trace"))?;
                if file.is_empty() {
                    return Err(de::Error::custom("a trace file's path is empty"));
                }
                Ok(RateSpec::Trace { file })
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for RateSpec {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            RateSpec::Fixed(r) => r.serialize(s),
            RateSpec::Trace { file } => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("trace", file)?;
                m.end()
            }
        }
    }
}

/// Reads each trace file a scenario names once, however many links use it.
#[derive(Default)]
pub struct TraceFiles {
    read: FxHashMap<String, Arc<CapacityTrace>>,
}

impl TraceFiles {
    /// The rate `spec` describes; `path` names the field in errors.
    pub fn resolve(&mut self, spec: &RateSpec, path: &str) -> Result<LinkRate> {
        let file = match spec {
            RateSpec::Fixed(r) => {
                return Ok(LinkRate {
                    nominal: *r,
                    trace: None,
                })
            }
            RateSpec::Trace { file } => file,
        };
        let trace = match self.read.get(file) {
            Some(t) => t.clone(),
            None => {
                let field = format!("{path}.trace");
                let text = std::fs::read_to_string(file).map_err(|e| {
                    Error::invalid_allowed(
                        &field,
                        format!("cannot read the trace file '{file}': {e}"),
                        "a mahimahi trace: one delivery opportunity per line, in ms",
                    )
                })?;
                let t = CapacityTrace::parse(file, &text).map_err(|e| {
                    Error::invalid_allowed(
                        &field,
                        format!("'{file}', {e}"),
                        "a mahimahi trace: one delivery opportunity per line, \
                         in whole ms, non-decreasing, the last above 0",
                    )
                })?;
                let t = Arc::new(t);
                self.read.insert(file.clone(), t.clone());
                t
            }
        };
        Ok(LinkRate {
            nominal: trace.nominal(),
            trace: Some(trace),
        })
    }
}
