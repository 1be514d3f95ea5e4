// SPDX-License-Identifier: MIT OR Apache-2.0
//! Queue disciplines: what a link direction's egress queue admits.
//!
//! The seam: every packet handed to a link direction asks its discipline
//! first, idle link or not ([`Qdisc::enqueue`]), and gets a [`Verdict`]:
//! enqueue it, drop it (with the cause), or enqueue it marked
//! Congestion Experienced. The discipline is told the time and the state of
//! the queue it guards ([`Arrival`]). A link direction is a FIFO at a fixed
//! rate, so a packet's sojourn is known when it is admitted: `tx_start -
//! now` is how long it will wait, which is what sojourn-time disciplines
//! (CoDel, PIE) need.
//!
//! Adding a discipline is one file in this folder and one row in [`Qdisc`]
//! and [`QueueSpec`]: its state lives in the variant; state that a packet
//! need not read goes behind a `Box`, so that `Qdisc` stays small and the
//! link's hot cache lines hold only what every hop reads.

mod codel;
mod droptail;
mod fq_codel;
mod held;
mod pie;
mod red;

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

use crate::rng::Rng;
use crate::time::{Rate, SimDuration, SimTime};
use crate::units::QueueLimit;

pub use codel::{CoDel, CoDelSpec};
pub use droptail::DropTail;
pub use fq_codel::{FqCoDel, FqCoDelSpec};
pub use held::{Dropped, Queued};
pub use pie::{Pie, PieSpec};
pub use red::{Auto, Red, RedSpec};

/// What a discipline decides for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue it with its ECN field set to Congestion Experienced.
    Mark,
    Drop(QueueDrop),
}

/// Why a discipline dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDrop {
    /// The queue is full.
    Overflow,
    /// An active queue management's early (random) drop.
    Early,
    /// An AQM's forced drop (RED's average above its drop region).
    Forced,
}

/// A packet arriving at a link direction, and the queue it finds.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub now: SimTime,
    /// IP bytes.
    pub size: u32,
    /// When it would start serializing: `now` on an idle link, else when the
    /// packets ahead of it are done.
    pub tx_start: SimTime,
    /// Packets and bytes waiting ahead of it in the discipline (not the one
    /// being serialized, nor those in a device queue below the discipline).
    pub waiting_packets: u64,
    pub waiting_bytes: u64,
    /// Packets waiting in the device queue below the discipline (the oldest
    /// waiting; 0 without one).
    pub device_packets: u64,
    /// ECN-capable transport: a discipline with marking on may mark it
    /// instead of dropping it.
    pub ect: bool,
}

impl Arrival {
    /// Whether it waits (the link is busy) rather than going on the wire.
    #[inline]
    pub fn waits(&self) -> bool {
        self.tx_start > self.now
    }
}

/// A link direction's discipline and its state.
#[derive(Debug, Clone)]
pub enum Qdisc {
    DropTail(DropTail),
    Red(Box<Red>),
    CoDel(Box<CoDel>),
    FqCoDel(Box<FqCoDel>),
    Pie(Box<Pie>),
    /// Marks every packet and drops none: for the tests of the marking path.
    #[cfg(test)]
    MarkAll,
}

impl Qdisc {
    /// The discipline `spec` describes, for a link direction of `rate` and
    /// `mtu` bytes; `rng` gives the direction's random stream to those that
    /// draw.
    pub fn from_spec(spec: &QueueSpec, rate: Rate, mtu: u32, rng: impl FnOnce() -> Rng) -> Qdisc {
        match spec {
            QueueSpec::DropTail { limit } => Qdisc::DropTail(DropTail::new(*limit)),
            QueueSpec::Red(r) => Qdisc::Red(Box::new(Red::new(r, rate, rng()))),
            QueueSpec::CoDel(c) => Qdisc::CoDel(Box::new(CoDel::new(c))),
            QueueSpec::FqCoDel(f) => Qdisc::FqCoDel(Box::new(FqCoDel::new(f, mtu))),
            QueueSpec::Pie(p) => Qdisc::Pie(Box::new(Pie::new(p, rng()))),
        }
    }

    /// The verdict on an arriving packet, for the disciplines that leave
    /// their packets in the link's FIFO (not [`Self::holds`]).
    #[inline(always)]
    pub fn enqueue(&mut self, a: &Arrival) -> Verdict {
        match self {
            Qdisc::DropTail(d) => d.enqueue(a),
            Qdisc::Red(r) => r.enqueue(a),
            Qdisc::CoDel(_) | Qdisc::FqCoDel(_) | Qdisc::Pie(_) => {
                unreachable!("a discipline that holds its queue is offered packets")
            }
            #[cfg(test)]
            Qdisc::MarkAll => Verdict::Mark,
        }
    }

    /// Whether it keeps the waiting packets itself and picks the next one
    /// when the link falls idle ([`Self::offer`], [`Self::take`]).
    #[inline(always)]
    pub fn holds(&self) -> bool {
        matches!(self, Qdisc::CoDel(_) | Qdisc::FqCoDel(_) | Qdisc::Pie(_))
    }

    /// Gives a discipline that [`Self::holds`] a packet; what it drops (the
    /// packet itself or others) goes to `dropped`.
    #[inline]
    pub fn offer(&mut self, p: Queued, dropped: &mut Vec<Dropped>) {
        match self {
            Qdisc::CoDel(c) => c.enqueue(p, dropped),
            Qdisc::FqCoDel(f) => f.enqueue(p, dropped),
            Qdisc::Pie(q) => q.enqueue(p, dropped),
            _ => unreachable!("only a discipline that holds its queue is offered packets"),
        }
    }

    /// The packet to send at `at` from a discipline that [`Self::holds`],
    /// after the drops it makes on the way (to `dropped`).
    #[inline]
    pub fn take(&mut self, at: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued> {
        match self {
            Qdisc::CoDel(c) => c.dequeue(at, dropped),
            Qdisc::FqCoDel(f) => f.dequeue(at, dropped),
            Qdisc::Pie(q) => q.dequeue(at),
            _ => None,
        }
    }

    /// Packets and bytes a discipline that [`Self::holds`] has waiting.
    #[inline]
    pub fn waiting(&self) -> (u64, u64) {
        match self {
            Qdisc::CoDel(c) => c.waiting(),
            Qdisc::FqCoDel(f) => f.waiting(),
            Qdisc::Pie(q) => q.waiting(),
            _ => (0, 0),
        }
    }

    /// The most packets of `size` bytes the queue can hold (for the memory
    /// estimate).
    pub fn capacity_packets(&self, size: u64) -> u64 {
        match self {
            Qdisc::DropTail(d) => d.capacity_packets(size),
            Qdisc::Red(r) => r.capacity_packets(size),
            Qdisc::CoDel(c) => DropTail::new(c.limit()).capacity_packets(size),
            Qdisc::FqCoDel(f) => DropTail::new(f.limit()).capacity_packets(size),
            Qdisc::Pie(q) => DropTail::new(q.limit()).capacity_packets(size),
            #[cfg(test)]
            Qdisc::MarkAll => u64::MAX,
        }
    }

    /// How the capacity reads in messages: "100 packets", "64000 bytes".
    pub fn describe(&self) -> String {
        match self {
            Qdisc::DropTail(d) => d.describe(),
            Qdisc::Red(r) => r.describe(),
            Qdisc::CoDel(c) => DropTail::new(c.limit()).describe(),
            Qdisc::FqCoDel(f) => DropTail::new(f.limit()).describe(),
            Qdisc::Pie(q) => DropTail::new(q.limit()).describe(),
            #[cfg(test)]
            Qdisc::MarkAll => "no limit".into(),
        }
    }
}

// ---- the scenario's `queue` ------------------------------------------------

/// A link's `queue`: a drop-tail limit (`"100p"`, `"64KiB"`, a number of
/// packets), or a table naming the discipline and its parameters
/// (`{ kind = "droptail", limit = "100p" }`), as `cc` does.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    DropTail { limit: QueueLimit },
    Red(Box<RedSpec>),
    CoDel(Box<CoDelSpec>),
    FqCoDel(Box<FqCoDelSpec>),
    Pie(Box<PieSpec>),
}

impl QueueSpec {
    /// Its `kind`, one of [`KINDS`].
    pub fn kind(&self) -> &'static str {
        match self {
            QueueSpec::DropTail { .. } => "droptail",
            QueueSpec::Red(_) => "red",
            QueueSpec::CoDel(_) => "codel",
            QueueSpec::FqCoDel(_) => "fq_codel",
            QueueSpec::Pie(_) => "pie",
        }
    }

    /// Whether the discipline built from it holds its own queue
    /// ([`Qdisc::holds`]): one of [`HOLDING`].
    pub fn holds(&self) -> bool {
        HOLDING.contains(&self.kind())
    }

    /// The packets of the device queue below the discipline (0: none).
    /// Drop-tail's is folded into its limit when it is read.
    pub fn device_queue(&self) -> u32 {
        match self {
            QueueSpec::DropTail { .. } => 0,
            QueueSpec::Red(r) => r.device_queue,
            QueueSpec::CoDel(c) => c.device_queue,
            QueueSpec::FqCoDel(f) => f.device_queue,
            QueueSpec::Pie(p) => p.device_queue,
        }
    }
}

impl QueueSpec {
    /// The memory one link direction's discipline holds once built, before
    /// any packet: its state, and FQ-CoDel's table of flow buckets (4 B
    /// each). Drop-tail's fits in the link direction itself.
    pub fn built_bytes(&self) -> u64 {
        match self {
            QueueSpec::DropTail { .. } => 0,
            QueueSpec::Red(_) => std::mem::size_of::<Red>() as u64,
            QueueSpec::CoDel(_) => std::mem::size_of::<CoDel>() as u64,
            QueueSpec::FqCoDel(f) => std::mem::size_of::<FqCoDel>() as u64 + 4 * u64::from(f.flows),
            QueueSpec::Pie(_) => std::mem::size_of::<Pie>() as u64,
        }
    }

    /// What [`Self::built_bytes`] counts, for messages.
    pub fn built_what(&self) -> String {
        match self {
            QueueSpec::DropTail { .. } => "drop-tail".into(),
            QueueSpec::Red(_) => "red".into(),
            QueueSpec::CoDel(_) => "codel".into(),
            QueueSpec::FqCoDel(f) => format!(
                "fq_codel with {} flow queues per direction",
                crate::units::grouped(f64::from(f.flows))
            ),
            QueueSpec::Pie(_) => "pie".into(),
        }
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

/// The disciplines a `kind` names.
pub const KINDS: &[&str] = &["droptail", "red", "codel", "fq_codel", "pie"];

/// The disciplines of [`KINDS`] that hold their own queue ([`Qdisc::holds`]):
/// the one list of them (`every_kind_holds_its_queue_as_listed` checks it
/// against what each built discipline says).
pub const HOLDING: &[&str] = &["codel", "fq_codel", "pie"];

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
                match kind.as_str() {
                    "droptail" => {
                        let mut limit = QueueLimit::default();
                        let mut device = 0u32;
                        for (k, v) in table {
                            match k.as_str() {
                                "limit" => {
                                    limit = QueueLimit::deserialize(v).map_err(de::Error::custom)?
                                }
                                "device_queue" => {
                                    device = u32::deserialize(v).map_err(|e| {
                                        de::Error::custom(format!("device_queue: {e}"))
                                    })?
                                }
                                other => {
                                    return Err(de::Error::unknown_field(
                                        other,
                                        &["kind", "limit", "device_queue"],
                                    ))
                                }
                            }
                        }
                        Ok(QueueSpec::DropTail {
                            limit: with_device(limit, device).map_err(de::Error::custom)?,
                        })
                    }
                    "red" => {
                        let spec: RedSpec = table_of("red", table)?;
                        spec.check().map_err(de::Error::custom)?;
                        Ok(QueueSpec::Red(Box::new(spec)))
                    }
                    "codel" => {
                        let spec: CoDelSpec = table_of("codel", table)?;
                        spec.check().map_err(de::Error::custom)?;
                        Ok(QueueSpec::CoDel(Box::new(spec)))
                    }
                    "fq_codel" => {
                        let spec: FqCoDelSpec = table_of("fq_codel", table)?;
                        spec.check().map_err(de::Error::custom)?;
                        Ok(QueueSpec::FqCoDel(Box::new(spec)))
                    }
                    "pie" => {
                        let spec: PieSpec = table_of("pie", table)?;
                        spec.check().map_err(de::Error::custom)?;
                        Ok(QueueSpec::Pie(Box::new(spec)))
                    }
                    other => Err(de::Error::unknown_variant(other, KINDS)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for QueueSpec {
    /// Drop-tail as its limit alone (`"100p"`), the short form; the
    /// others as a table with their kind.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            QueueSpec::DropTail { limit } => limit.serialize(s),
            QueueSpec::Red(r) => with_kind("red", r, s),
            QueueSpec::CoDel(c) => with_kind("codel", c, s),
            QueueSpec::FqCoDel(f) => with_kind("fq_codel", f, s),
            QueueSpec::Pie(p) => with_kind("pie", p, s),
        }
    }
}

/// A drop-tail limit with a device queue of `device` packets below it: a
/// packet limit holds that many more (the device takes the oldest waiting
/// packets, and the discipline counts the rest), the same FIFO. A byte
/// limit is refused: the discipline would count bytes and the device
/// packets.
fn with_device(limit: QueueLimit, device: u32) -> Result<QueueLimit, String> {
    match limit {
        _ if device == 0 => Ok(limit),
        QueueLimit::Packets(n) => Ok(QueueLimit::Packets(n.saturating_add(device as u64))),
        QueueLimit::Bytes(_) => Err(
            "device_queue: drop-tail takes one only with a packet limit (the device \
             counts packets, the limit bytes)"
                .into(),
        ),
    }
}

/// Whether a discipline has no device queue below it (the serialized form
/// leaves the zero out).
pub(crate) fn no_device(d: &u32) -> bool {
    *d == 0
}

/// A discipline's parameters from the rest of its table, errors prefixed
/// with its kind.
fn table_of<T: serde::de::DeserializeOwned, E: de::Error>(
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
fn with_kind<T: Serialize, S: Serializer>(kind: &str, spec: &T, s: S) -> Result<S::Ok, S::Error> {
    let mut table = serde_json::to_value(spec).map_err(serde::ser::Error::custom)?;
    if let serde_json::Value::Object(m) = &mut table {
        m.insert("kind".into(), kind.into());
    }
    table.serialize(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> Result<QueueSpec, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn every_kind_holds_its_queue_as_listed() {
        for kind in KINDS {
            let spec = spec(&format!(r#"{{"kind": "{kind}"}}"#)).unwrap();
            assert_eq!(spec.kind(), *kind);
            let built = Qdisc::from_spec(&spec, Rate::from_bps(10_000_000), 1500, || {
                Rng::stream(1, 0, "test")
            });
            assert_eq!(built.holds(), spec.holds(), "{kind}");
            assert_eq!(spec.holds(), HOLDING.contains(kind), "{kind}");
        }
        assert!(HOLDING.iter().all(|h| KINDS.contains(h)));
    }

    #[test]
    fn a_limit_or_a_table_names_drop_tail() {
        let p100 = QueueSpec::DropTail {
            limit: QueueLimit::Packets(100),
        };
        assert_eq!(spec("\"100p\"").unwrap(), p100);
        assert_eq!(spec("100").unwrap(), p100);
        assert_eq!(
            spec(r#"{"kind": "droptail", "limit": "64KiB"}"#).unwrap(),
            QueueSpec::DropTail {
                limit: QueueLimit::Bytes(65536)
            }
        );
        assert_eq!(spec(r#"{"kind": "droptail"}"#).unwrap(), p100);
        // The short form back out, so an effective scenario reads as written.
        assert_eq!(serde_json::to_string(&p100).unwrap(), "\"100p\"");
    }

    #[test]
    fn unknown_kinds_and_fields_are_refused_by_name() {
        let e = spec(r#"{"kind": "blue", "limit": "100p"}"#).unwrap_err();
        assert!(
            e.contains("unknown variant `blue`, expected one of `droptail`, `red`, `codel`"),
            "{e}"
        );
        let e = spec(r#"{"kind": "droptail", "limt": "100p"}"#).unwrap_err();
        assert!(e.contains("unknown field `limt`"), "{e}");
        let e = spec(r#"{"limit": "100p"}"#).unwrap_err();
        assert!(e.contains("missing field `kind`"), "{e}");
        assert!(spec("\"lots\"").is_err());
    }
}
