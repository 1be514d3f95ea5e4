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
//! The disciplines are of two kinds: those that leave their packets in the
//! link's FIFO and rule on each arrival ([`Admits`]: drop-tail, RED), and
//! those that hold their own queue and pick the next packet when the link
//! falls idle ([`Holds`]: CoDel, FQ-CoDel, PIE). Each has its parameters
//! ([`Spec`]: building, checking, reading and writing them).
//!
//! Adding a discipline is one file in this folder and one row in the
//! [`qdiscs!`] table below, which generates [`Qdisc`] and [`QueueSpec`], their
//! dispatch by `match` (no `dyn` call per packet) and the lists [`KINDS`],
//! [`HOLDING`] and [`FIFO`]. Its state lives in the variant; state that a
//! packet need not read goes behind a `Box`, so that `Qdisc` stays small and
//! the link's hot cache lines hold only what every hop reads.

mod codel;
mod droptail;
mod fq_codel;
mod held;
mod pie;
mod red;
mod spec;

use serde::de;
use serde::ser::Serializer;
use serde::Serialize;

use crate::rng::Rng;
use crate::time::{Rate, SimTime};
use crate::units::QueueLimit;

pub use codel::{CoDel, CoDelSpec};
pub use droptail::DropTail;
pub use fq_codel::{FqCoDel, FqCoDelSpec};
pub use held::{Dropped, Queued};
pub use pie::{Pie, PieSpec};
pub use red::{Auto, Red, RedSpec};
pub(crate) use spec::{check_timer, no_device};
pub use spec::{Spec, MIN_TIMER};

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

/// A discipline that leaves its packets in the link direction's FIFO: it
/// rules on each arrival (drop-tail, RED).
pub trait Admits {
    /// The verdict on an arriving packet.
    fn enqueue(&mut self, a: &Arrival) -> Verdict;
    /// The most packets of `size` bytes the queue can hold.
    fn capacity_packets(&self, size: u64) -> u64;
    /// How the capacity reads in messages: "100 packets", "64000 bytes".
    fn describe(&self) -> String;
}

/// A discipline that keeps the waiting packets itself and picks the next
/// one when the link falls idle (CoDel, FQ-CoDel, PIE).
pub trait Holds {
    /// Takes a packet; what it drops (the packet itself or others) goes to
    /// `dropped`.
    fn offer(&mut self, p: Queued, dropped: &mut Vec<Dropped>);
    /// The packet to send at `at`, after the drops it makes on the way (to
    /// `dropped`).
    fn take(&mut self, at: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued>;
    /// Packets and bytes waiting.
    fn waiting(&self) -> (u64, u64);
    /// Its limit.
    fn limit(&self) -> QueueLimit;
    /// The most packets of `size` bytes it can hold.
    fn capacity_packets(&self, size: u64) -> u64 {
        DropTail::new(self.limit()).capacity_packets(size)
    }
    /// How the capacity reads in messages.
    fn describe(&self) -> String {
        DropTail::new(self.limit()).describe()
    }
}

/// A discipline whose state a packet need not read lives behind a box.
impl<T: Admits> Admits for Box<T> {
    #[inline(always)]
    fn enqueue(&mut self, a: &Arrival) -> Verdict {
        (**self).enqueue(a)
    }
    fn capacity_packets(&self, size: u64) -> u64 {
        (**self).capacity_packets(size)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
}

impl<T: Holds> Holds for Box<T> {
    #[inline]
    fn offer(&mut self, p: Queued, dropped: &mut Vec<Dropped>) {
        (**self).offer(p, dropped)
    }
    #[inline]
    fn take(&mut self, at: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued> {
        (**self).take(at, dropped)
    }
    #[inline]
    fn waiting(&self) -> (u64, u64) {
        (**self).waiting()
    }
    fn limit(&self) -> QueueLimit {
        (**self).limit()
    }
    fn capacity_packets(&self, size: u64) -> u64 {
        (**self).capacity_packets(size)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
}

/// Picks a row's code by its side: `fifo` (the discipline [`Admits`]) or
/// `holding` (it [`Holds`]).
macro_rules! on_side {
    (fifo, $fifo:expr, $holding:expr) => {
        $fifo
    };
    (holding, $fifo:expr, $holding:expr) => {
        $holding
    };
}

/// A `QueueSpec` pattern binding a row's parameters to `$s`, whatever the
/// variant's shape (drop-tail's `{ limit }`, the others' boxed spec).
macro_rules! spec_pat {
    ($v:ident { $f:ident : $t:ty } $s:ident) => {
        QueueSpec::$v { $f: $s }
    };
    ($v:ident ( $t:ty ) $s:ident) => {
        QueueSpec::$v($s)
    };
}

/// A `QueueSpec` read from the rest of its table.
macro_rules! spec_parse {
    ($v:ident { $f:ident : $t:ty } $kind:ident $table:ident) => {
        QueueSpec::$v {
            $f: <$t as Spec>::parse($kind, $table)?,
        }
    };
    ($v:ident ( Box<$t:ty> ) $kind:ident $table:ident) => {
        QueueSpec::$v(Box::new(<$t as Spec>::parse($kind, $table)?))
    };
}

/// Declares the disciplines: each row gives its side (`fifo` or
/// `holding`), its variant in [`QueueSpec`] with its parameters, its state
/// in [`Qdisc`] (boxed if a packet need not read it) and its `kind`. Adding
/// a discipline is one file in this folder (its [`Spec`], and [`Admits`]
/// or [`Holds`]) and one row.
macro_rules! qdiscs {
    ($($side:ident $v:ident $shape:tt => $state:ty, $kind:literal;)+) => {
        /// A link direction's discipline and its state.
        #[derive(Debug, Clone)]
        pub enum Qdisc {
            $($v($state),)+
            /// Marks every packet and drops none: for the tests of the
            /// marking path.
            #[cfg(test)]
            MarkAll,
        }

        /// A link's `queue`: a drop-tail limit (`"100p"`, `"64KiB"`, a
        /// number of packets), or a table naming the discipline and its
        /// parameters (`{ kind = "droptail", limit = "100p" }`), as `cc`
        /// does.
        #[derive(Clone, Debug, PartialEq)]
        pub enum QueueSpec {
            $($v $shape,)+
        }

        /// The disciplines a `kind` names, and whether each holds its queue.
        const ROWS: &[(&str, bool)] = &[$(($kind, on_side!($side, false, true))),+];

        /// The disciplines a `kind` names.
        pub const KINDS: &[&str] = &[$($kind),+];

        /// The disciplines of [`KINDS`] that hold their own queue
        /// ([`Qdisc::holds`]).
        pub const HOLDING: &[&str] = &pick::<{ count(ROWS, true) }>(ROWS, true);

        /// The disciplines of [`KINDS`] that leave their packets in the
        /// link's FIFO.
        pub const FIFO: &[&str] = &pick::<{ count(ROWS, false) }>(ROWS, false);

        impl Qdisc {
            /// The discipline `spec` describes, for a link direction of
            /// `rate` and `mtu` bytes; `rng` gives the direction's random
            /// stream to those that draw.
            pub fn from_spec(
                spec: &QueueSpec,
                rate: Rate,
                mtu: u32,
                rng: impl FnOnce() -> Rng,
            ) -> Qdisc {
                match spec {
                    $(spec_pat!($v $shape s) => Qdisc::$v(<$state>::from(s.build(rate, mtu, rng))),)+
                }
            }

            /// The verdict on an arriving packet, for the disciplines that
            /// leave their packets in the link's FIFO; one that
            /// [`Self::holds`] rules when offered the packet, and admits it
            /// here.
            #[inline(always)]
            pub fn enqueue(&mut self, a: &Arrival) -> Verdict {
                match self {
                    $(Qdisc::$v(_q) => on_side!($side, Admits::enqueue(_q, a), Verdict::Enqueue),)+
                    #[cfg(test)]
                    Qdisc::MarkAll => Verdict::Mark,
                }
            }

            /// Whether it keeps the waiting packets itself and picks the
            /// next one when the link falls idle ([`Self::offer`],
            /// [`Self::take`]).
            #[inline(always)]
            pub fn holds(&self) -> bool {
                match self {
                    $(Qdisc::$v(_) => on_side!($side, false, true),)+
                    #[cfg(test)]
                    Qdisc::MarkAll => false,
                }
            }

            /// Gives a discipline that [`Self::holds`] a packet; what it
            /// drops (the packet itself or others) goes to `dropped`. One
            /// that does not has no room of its own: the packet overflows.
            #[inline]
            pub fn offer(&mut self, p: Queued, dropped: &mut Vec<Dropped>) {
                match self {
                    $(Qdisc::$v(_q) => on_side!($side, Dropped::overflow(dropped, p.id, p.enqueued), Holds::offer(_q, p, dropped)),)+
                    #[cfg(test)]
                    Qdisc::MarkAll => Dropped::overflow(dropped, p.id, p.enqueued),
                }
            }

            /// The packet to send at `at` from a discipline that
            /// [`Self::holds`], after the drops it makes on the way (to
            /// `dropped`).
            #[inline]
            pub fn take(&mut self, at: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued> {
                match self {
                    $(Qdisc::$v(_q) => on_side!($side, None, Holds::take(_q, at, dropped)),)+
                    #[cfg(test)]
                    Qdisc::MarkAll => None,
                }
            }

            /// Packets and bytes a discipline that [`Self::holds`] has
            /// waiting.
            #[inline]
            pub fn waiting(&self) -> (u64, u64) {
                match self {
                    $(Qdisc::$v(_q) => on_side!($side, (0, 0), Holds::waiting(_q)),)+
                    #[cfg(test)]
                    Qdisc::MarkAll => (0, 0),
                }
            }

            /// The most packets of `size` bytes the queue can hold (for the
            /// memory estimate).
            pub fn capacity_packets(&self, size: u64) -> u64 {
                match self {
                    $(Qdisc::$v(q) => on_side!($side, Admits::capacity_packets(q, size), Holds::capacity_packets(q, size)),)+
                    #[cfg(test)]
                    Qdisc::MarkAll => u64::MAX,
                }
            }

            /// How the capacity reads in messages: "100 packets", "64000
            /// bytes".
            pub fn describe(&self) -> String {
                match self {
                    $(Qdisc::$v(q) => on_side!($side, Admits::describe(q), Holds::describe(q)),)+
                    #[cfg(test)]
                    Qdisc::MarkAll => "no limit".into(),
                }
            }
        }

        impl QueueSpec {
            /// Its `kind`, one of [`KINDS`].
            pub fn kind(&self) -> &'static str {
                match self {
                    $(spec_pat!($v $shape _s) => $kind,)+
                }
            }

            /// Whether the discipline built from it holds its own queue
            /// ([`Qdisc::holds`]): one of [`HOLDING`].
            pub fn holds(&self) -> bool {
                match self {
                    $(spec_pat!($v $shape _s) => on_side!($side, false, true),)+
                }
            }

            /// The packets of the device queue below the discipline (0:
            /// none). Drop-tail's is folded into its limit when it is read.
            pub fn device_queue(&self) -> u32 {
                match self {
                    $(spec_pat!($v $shape s) => s.device_queue(),)+
                }
            }

            /// The memory one link direction's discipline holds once built,
            /// before any packet: its state, and FQ-CoDel's table of flow
            /// buckets (4 B each). Drop-tail's fits in the link direction
            /// itself.
            pub fn built_bytes(&self) -> u64 {
                match self {
                    $(spec_pat!($v $shape s) => s.built_bytes(),)+
                }
            }

            /// What [`Self::built_bytes`] counts, for messages.
            pub fn built_what(&self) -> String {
                match self {
                    $(spec_pat!($v $shape s) => s.built_what($kind),)+
                }
            }

            /// The `kind` named in a `queue` table, read from the rest of
            /// the table.
            fn parse<E: de::Error>(
                kind: &str,
                table: serde_json::Map<String, serde_json::Value>,
            ) -> Result<QueueSpec, E> {
                Ok(match kind {
                    $($kind => spec_parse!($v $shape kind table),)+
                    other => return Err(de::Error::unknown_variant(other, KINDS)),
                })
            }
        }

        impl Serialize for QueueSpec {
            /// Drop-tail as its limit alone (`"100p"`), the short form; the
            /// others as a table with their kind.
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(spec_pat!($v $shape spec) => spec.write($kind, s),)+
                }
            }
        }
    };
}

qdiscs! {
    fifo DropTail { limit: QueueLimit } => DropTail, "droptail";
    fifo Red(Box<RedSpec>) => Box<Red>, "red";
    holding CoDel(Box<CoDelSpec>) => Box<CoDel>, "codel";
    holding FqCoDel(Box<FqCoDelSpec>) => Box<FqCoDel>, "fq_codel";
    holding Pie(Box<PieSpec>) => Box<Pie>, "pie";
}

/// How many of `rows` hold their queue (`holds`) or do not.
const fn count(rows: &[(&str, bool)], holds: bool) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < rows.len() {
        if rows[i].1 == holds {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The kinds of `rows` that hold their queue (`holds`) or do not, in order.
const fn pick<const N: usize>(rows: &[(&'static str, bool)], holds: bool) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut j) = (0, 0);
    while i < rows.len() {
        if rows[i].1 == holds {
            out[j] = rows[i].0;
            j += 1;
        }
        i += 1;
    }
    out
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
        assert_eq!(HOLDING, ["codel", "fq_codel", "pie"]);
        assert_eq!(FIFO, ["droptail", "red"]);
        assert_eq!(KINDS.len(), HOLDING.len() + FIFO.len());
    }

    #[test]
    fn each_side_answers_the_others_calls_without_panicking() {
        let rate = Rate::from_bps(10_000_000);
        let rng = || Rng::stream(1, 0, "test");
        let at = SimTime::ZERO;
        let p = Queued {
            id: crate::engine::PacketId(0),
            size: 1500,
            enqueued: at,
            ect: false,
            ce: false,
            hash: 0,
        };
        let mut dropped = Vec::new();
        let mut fifo = Qdisc::from_spec(&QueueSpec::default(), rate, 1500, rng);
        fifo.offer(p, &mut dropped);
        assert_eq!(dropped.len(), 1);
        assert_eq!(fifo.take(at, &mut dropped), None);
        assert_eq!(fifo.waiting(), (0, 0));
        let spec = spec(r#"{"kind": "codel"}"#).unwrap();
        let mut holding = Qdisc::from_spec(&spec, rate, 1500, rng);
        let a = Arrival {
            now: at,
            size: 1500,
            tx_start: at,
            waiting_packets: 0,
            waiting_bytes: 0,
            device_packets: 0,
            ect: false,
        };
        assert_eq!(holding.enqueue(&a), Verdict::Enqueue);
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
