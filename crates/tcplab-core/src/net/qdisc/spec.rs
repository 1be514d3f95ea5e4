// SPDX-License-Identifier: MIT OR Apache-2.0
//! A discipline's parameters ([`Spec`]) and the scenario's `queue`: how it
//! is read (a limit alone, or a table with its `kind`) and written.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

use super::QueueSpec;
use crate::rng::Rng;
use crate::time::{Rate, SimDuration};
use crate::units::QueueLimit;

/// A discipline's parameters, as a link's `queue` gives them: what building,
/// checking, reading and writing them needs. `Built` is the discipline.
pub trait Spec: Sized + Serialize + serde::de::DeserializeOwned {
    type Built;
    /// The discipline, for a link direction of `rate` and `mtu` bytes;
    /// `rng` gives the direction's random stream to those that draw.
    fn build(&self, rate: Rate, mtu: u32, rng: impl FnOnce() -> Rng) -> Self::Built;
    /// Refuses parameters no discipline can run with, naming the parameter.
    fn check(&self) -> Result<(), String>;
    /// The packets of the device queue below the discipline (0: none).
    fn device_queue(&self) -> u32;
    /// The memory one link direction's discipline holds once built.
    fn built_bytes(&self) -> u64 {
        std::mem::size_of::<Self::Built>() as u64
    }
    /// What [`Self::built_bytes`] counts, for messages.
    fn built_what(&self, kind: &str) -> String {
        kind.into()
    }
    /// The parameters from the rest of a `queue` table (`kind` read off).
    fn parse<E: de::Error>(
        kind: &str,
        table: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Self, E> {
        let spec: Self = table_of(kind, table)?;
        spec.check().map_err(de::Error::custom)?;
        Ok(spec)
    }
    /// The parameters written out: a table with the `kind`.
    fn write<S: Serializer>(&self, kind: &str, s: S) -> Result<S::Ok, S::Error> {
        with_kind(kind, self, s)
    }
}

impl Default for QueueSpec {
    /// 100 packets of drop-tail, as ns-2's and ns-3's default queue.
    fn default() -> Self {
        QueueSpec::DropTail {
            limit: QueueLimit::default(),
        }
    }
}

/// The shortest period a discipline's timer may have (PIE's `t_update`,
/// Adaptive RED's `interval`; CoDel's clock ticks in 1.024 us already): a
/// timer far below a packet's time on the wire only costs wall time (PIE at
/// 1 ns updates two billion times per simulated second).
pub const MIN_TIMER: SimDuration = SimDuration::from_micros(1);

/// Refuses a discipline timer below [`MIN_TIMER`], naming the parameter.
pub(crate) fn check_timer(field: &str, t: SimDuration) -> Result<(), String> {
    if t < MIN_TIMER {
        return Err(format!(
            "{field}: at least 1 us (a discipline's timer; a 1500-B packet takes 1.2 us at 10 \
             Gb/s), got {t}"
        ));
    }
    Ok(())
}

impl<'de> Deserialize<'de> for QueueSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = QueueSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(
                    f,
                    "a queue limit ('100p', '64KiB') or a table {{ kind = \"droptail\", \
                     \"red\", \"codel\", \"fq_codel\" or \"pie\", limit = \"100p\", ... }}"
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<QueueSpec, E> {
                let limit = QueueLimit::deserialize(de::value::StrDeserializer::<E>::new(v))?;
                Ok(QueueSpec::DropTail { limit })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<QueueSpec, E> {
                let limit = QueueLimit::deserialize(de::value::U64Deserializer::<E>::new(v))?;
                Ok(QueueSpec::DropTail { limit })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<QueueSpec, E> {
                let limit = QueueLimit::deserialize(de::value::I64Deserializer::<E>::new(v))?;
                Ok(QueueSpec::DropTail { limit })
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<QueueSpec, E> {
                let limit = QueueLimit::deserialize(de::value::F64Deserializer::<E>::new(v))?;
                Ok(QueueSpec::DropTail { limit })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<QueueSpec, A::Error> {
                // The kind first, so that a discipline's parameters are read
                // (and refused) as that discipline's.
                let mut table = serde_json::Map::new();
                while let Some(k) = m.next_key::<String>()? {
                    let v: serde_json::Value = m.next_value()?;
                    table.insert(k, v);
                }
                let kind = match table.remove("kind") {
                    Some(serde_json::Value::String(k)) => k,
                    Some(other) => {
                        return Err(de::Error::invalid_type(
                            de::Unexpected::Other(&other.to_string()),
                            &"a discipline's name",
                        ))
                    }
                    None => return Err(de::Error::missing_field("kind")),
                };
                QueueSpec::parse(&kind, table)
            }
        }
        d.deserialize_any(V)
    }
}

/// Whether a discipline has no device queue below it (the serialized form
/// leaves the zero out).
pub(crate) fn no_device(d: &u32) -> bool {
    *d == 0
}

/// A discipline's parameters from the rest of its table, errors prefixed
/// with its kind.
pub(crate) fn table_of<T: serde::de::DeserializeOwned, E: de::Error>(
    kind: &str,
    table: serde_json::Map<String, serde_json::Value>,
) -> Result<T, E> {
    let value = serde_json::Value::Object(table);
    serde_path_to_error::deserialize(&value).map_err(|e| {
        // A parameter's problem names the parameter; an unknown one's
        // message names it already.
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." || inner.to_string().starts_with("unknown field") {
            E::custom(format!("{kind}: {inner}"))
        } else {
            E::custom(format!("{kind}: {path}: {inner}"))
        }
    })
}

/// A discipline's parameters as a table with its `kind`.
pub(crate) fn with_kind<T: Serialize, S: Serializer>(
    kind: &str,
    spec: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut table = serde_json::to_value(spec).map_err(serde::ser::Error::custom)?;
    if let serde_json::Value::Object(m) = &mut table {
        m.insert("kind".into(), kind.into());
    }
    table.serialize(s)
}
