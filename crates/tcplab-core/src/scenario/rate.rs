// SPDX-License-Identifier: MIT OR Apache-2.0
//! A link direction's `rate`: a fixed rate (`"10Mbps"`, a number of bit/s)
//! or a capacity trace in mahimahi's format (`{ trace = "file" }`; see
//! [`crate::net::capacity`]); and its `schedule` of rate, delay and loss
//! changes ([`crate::net::schedule`]).

use std::fmt;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::budget::Budget;
use crate::error::{Error, Result};
use crate::net::capacity::{CapacityTrace, TraceError};
use crate::net::error_model::check_probability;
use crate::net::schedule::{LinkSchedule, Outage};
use crate::time::{Rate, SimDuration, SimTime};
use crate::units::{grouped, human_bytes};

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
    /// A schedule of rate and delay changes (fixed rates only).
    pub schedule: Option<Arc<LinkSchedule>>,
    /// The schedule's packet loss probability from each time on.
    pub loss_schedule: Option<Vec<(SimTime, f64)>>,
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
    /// The rate `spec` describes; `path` names the field in errors. A trace
    /// file is counted against `budget` as it is read.
    pub fn resolve(
        &mut self,
        spec: &RateSpec,
        path: &str,
        budget: &mut Budget,
    ) -> Result<LinkRate> {
        let file = match spec {
            RateSpec::Fixed(r) => {
                return Ok(LinkRate {
                    nominal: *r,
                    trace: None,
                    schedule: None,
                    loss_schedule: None,
                })
            }
            RateSpec::Trace { file } => file,
        };
        let trace = match self.read.get(file) {
            Some(t) => t.clone(),
            None => {
                let field = format!("{path}.trace");
                let t = Arc::new(read_trace(file, &field, budget)?);
                budget.add(
                    t.bytes(),
                    &field,
                    format!(
                        "the capacity trace '{file}' ({} opportunities)",
                        t.opportunities()
                    ),
                );
                self.read.insert(file.clone(), t.clone());
                t
            }
        };
        Ok(LinkRate {
            nominal: trace.nominal(),
            trace: Some(trace),
            schedule: None,
            loss_schedule: None,
        })
    }
}

const TRACE_ALLOWED: &str = "a mahimahi trace: one delivery opportunity per line, in whole ms, \
                             non-decreasing, the last above 0";

/// Reads the trace `file` (at scenario field `field`) within what is left
/// of `budget`. Only a regular file is opened: a FIFO or a device would
/// block the check (or never end), out of reach of Ctrl-C.
fn read_trace(file: &str, field: &str, budget: &Budget) -> Result<CapacityTrace> {
    let cannot = |e: std::io::Error| {
        Error::invalid_allowed(
            field,
            format!("cannot read the trace file '{file}': {e}"),
            TRACE_ALLOWED,
        )
    };
    let meta = std::fs::metadata(file).map_err(cannot)?;
    if let Some(kind) = not_regular(&meta) {
        return Err(Error::invalid_allowed(
            field,
            format!("'{file}' is {kind}, not a regular file"),
            TRACE_ALLOWED,
        ));
    }
    let f = std::fs::File::open(file).map_err(cannot)?;
    // The same file as the one looked at (not one put in its place since).
    if let Some(kind) = not_regular(&f.metadata().map_err(cannot)?) {
        return Err(Error::invalid_allowed(
            field,
            format!("'{file}' is {kind}, not a regular file"),
            TRACE_ALLOWED,
        ));
    }
    let room = budget.room();
    CapacityTrace::read(file, std::io::BufReader::new(f), room).map_err(|e| match e {
        TraceError::Bad(m) => {
            Error::invalid_allowed(field, format!("'{file}', {m}"), TRACE_ALLOWED)
        }
        TraceError::Io(e) => cannot(e),
        TraceError::TooLarge {
            opportunities,
            read,
            needs,
        } => {
            // The whole file at the rate of its first part.
            let size = meta.len().max(read);
            let all = (opportunities as f64 * size as f64 / read.max(1) as f64) as u64;
            let bytes = ((needs as f64) * size as f64 / read.max(1) as f64) as u64;
            budget.refuse(
                field,
                &format!(
                    "the capacity trace '{file}' ({}, about {} opportunities)",
                    human_bytes(size),
                    grouped(all as f64)
                ),
                bytes.max(needs),
            )
        }
    })
}

/// What a file is when it is not a regular file ("a directory", "a FIFO
/// (named pipe)", ...), or None for a regular file.
pub fn not_regular(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
    }
    Some("a special file")
}

/// One change of a link direction's schedule: from `at` on, each field
/// given replaces the one in force.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScheduleEntry {
    pub at: SimDuration,
    /// The rate; 0 is an outage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<ScheduleRate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<SimDuration>,
    /// The probability that a packet is lost, on top of the link's `loss`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
}

/// A schedule's rate: a rate, or 0 for an outage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScheduleRate {
    Outage,
    Rate(Rate),
}

/// What a link's outages do to packets.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum OutageSpec {
    #[default]
    Hold,
    Drop,
}

crate::deserialize_names!(OutageSpec {
    "hold" => OutageSpec::Hold,
    "drop" => OutageSpec::Drop,
});

impl<'de> Deserialize<'de> for ScheduleRate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ScheduleRate;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(
                    f,
                    "a rate ('10Mbps', a number of bit/s), or 0 for an outage"
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<ScheduleRate, E> {
                // "0", "0bps", "0 Mbps": an outage, in any unit.
                let number = v
                    .trim()
                    .trim_end_matches(|c: char| c.is_alphabetic() || c == '/');
                if number.trim().parse::<f64>() == Ok(0.0) {
                    return Ok(ScheduleRate::Outage);
                }
                Rate::deserialize(de::value::StrDeserializer::<E>::new(v)).map(ScheduleRate::Rate)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<ScheduleRate, E> {
                if v == 0.0 {
                    return Ok(ScheduleRate::Outage);
                }
                Rate::deserialize(de::value::F64Deserializer::<E>::new(v)).map(ScheduleRate::Rate)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<ScheduleRate, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<ScheduleRate, E> {
                self.visit_f64(v as f64)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for ScheduleRate {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            ScheduleRate::Outage => s.serialize_u64(0),
            ScheduleRate::Rate(r) => r.serialize(s),
        }
    }
}

/// Adds `entries` (the field at `path`) to a direction's `rate` and the
/// link's `delay`: its periods, and its losses if any entry sets one.
pub fn add_schedule(
    rate: &mut LinkRate,
    entries: &[ScheduleEntry],
    delay: SimDuration,
    outage: OutageSpec,
    path: &str,
) -> Result<()> {
    if rate.trace.is_some() {
        return Err(Error::invalid_allowed(
            path,
            "this direction's rate is a capacity trace",
            "a schedule for a direction at a fixed rate",
        ));
    }
    if entries.is_empty() {
        return Err(Error::invalid_allowed(
            path,
            "an empty schedule",
            "one or more changes { at, rate, delay, loss }",
        ));
    }
    let mut periods = vec![(SimTime::ZERO, rate.nominal.bps(), delay)];
    let mut losses = vec![(SimTime::ZERO, 0.0)];
    let mut any_loss = false;
    for (i, e) in entries.iter().enumerate() {
        let at = SimTime::ZERO + e.at;
        let last = periods[periods.len() - 1].0;
        if i > 0 && at <= last {
            return Err(Error::invalid_allowed(
                format!("{path}[{i}].at"),
                format!(
                    "{} does not come after the change before ({})",
                    e.at,
                    last - SimTime::ZERO
                ),
                "times that increase from one change to the next",
            ));
        }
        if e.rate.is_none() && e.delay.is_none() && e.loss.is_none() {
            return Err(Error::invalid_allowed(
                format!("{path}[{i}]"),
                "a change that changes nothing",
                "one or more of rate, delay and loss",
            ));
        }
        if let Some(p) = e.loss {
            check_probability(format!("{path}[{i}].loss"), p)?;
        }
        let (_, mut bps, mut d) = periods[periods.len() - 1];
        let mut p = losses[losses.len() - 1].1;
        match e.rate {
            Some(ScheduleRate::Outage) => bps = 0,
            Some(ScheduleRate::Rate(r)) => bps = r.bps(),
            None => {}
        }
        d = e.delay.unwrap_or(d);
        if let Some(l) = e.loss {
            p = l;
            any_loss = true;
        }
        if at == SimTime::ZERO {
            periods[0] = (at, bps, d);
            losses[0] = (at, p);
        } else {
            periods.push((at, bps, d));
            losses.push((at, p));
        }
    }
    let outage = match outage {
        OutageSpec::Hold => Outage::Hold,
        OutageSpec::Drop => Outage::Drop,
    };
    rate.schedule = Some(Arc::new(LinkSchedule::new(&periods, outage)));
    rate.loss_schedule = any_loss.then_some(losses);
    Ok(())
}
