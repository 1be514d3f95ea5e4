// SPDX-License-Identifier: MIT OR Apache-2.0
//! Human units in scenarios: `"10Mbps"`, `"45ms"`, `"10MiB"`, `"100p"`.
//!
//! Every quantity accepts either a string with a unit or a bare number in the
//! base unit (rates in bit/s, durations in seconds, sizes in bytes, queue
//! limits in packets). Rates and sizes use SI prefixes (k = 1000) unless
//! written with a binary prefix (KiB = 1024). Values serialize back as exact
//! strings (`"45ms"`), so an effective configuration reads like the input.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::time::{Rate, SimDuration};

const RATE_UNITS: &[(&str, f64)] = &[
    ("bps", 1.0),
    ("b/s", 1.0),
    ("bit/s", 1.0),
    ("kbps", 1e3),
    ("kb/s", 1e3),
    ("kbit/s", 1e3),
    ("Kbps", 1e3),
    ("Mbps", 1e6),
    ("Mb/s", 1e6),
    ("Mbit/s", 1e6),
    ("Gbps", 1e9),
    ("Gb/s", 1e9),
    ("Gbit/s", 1e9),
];
const DURATION_UNITS: &[(&str, f64)] = &[
    ("ns", 1.0),
    ("us", 1e3),
    ("µs", 1e3),
    ("ms", 1e6),
    ("s", 1e9),
    ("min", 60e9),
];
const SIZE_UNITS: &[(&str, f64)] = &[
    ("B", 1.0),
    ("bytes", 1.0),
    ("KB", 1e3),
    ("kB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("KiB", 1024.0),
    ("MiB", 1048576.0),
    ("GiB", 1073741824.0),
    ("TB", 1e12),
    ("TiB", 1099511627776.0),
    ("PB", 1e15),
    ("PiB", 1125899906842624.0),
];

/// Splits `"1.5 Mbps"` into (1.5, "Mbps") and scales by the unit table.
fn parse_scaled(s: &str, units: &[(&str, f64)], what: &str, example: &str) -> Result<f64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        .unwrap_or(t.len());
    // "1e6bps": 'e' is part of the number only if followed by a digit.
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let allowed: Vec<&str> = units.iter().map(|u| u.0).collect();
    let value: f64 = num.parse().map_err(|_| {
        format!(
            "'{s}' is not a {what}; write a number and a unit ({}), e.g. '{example}'",
            allowed.join(", ")
        )
    })?;
    let scale = if unit.is_empty() {
        units[0].1
    } else {
        units
            .iter()
            .find(|u| u.0 == unit)
            .map(|u| u.1)
            .ok_or_else(|| {
                format!(
                    "'{s}': unknown unit '{unit}' for a {what}; allowed: {}",
                    allowed.join(", ")
                )
            })?
    };
    if !value.is_finite() {
        return Err(format!("'{s}' is not a finite {what}"));
    }
    Ok(value * scale)
}

/// The fastest rate a link or source may have: 1 Pb/s.
pub const MAX_RATE_BPS: u64 = 1_000_000_000_000_000;
/// The largest size: 2^53 bytes (8 PiB), the largest whole number every
/// tool on the way (JSON, Python floats) carries exactly.
pub const MAX_SIZE: u64 = 1 << 53;
const RATE_RANGE: &str = "1 bit/s to 1 Pb/s";
const DURATION_RANGE: &str = "0 s to 584 years (2^64 - 1 ns)";
const SIZE_RANGE: &str = "0 to 2^53 bytes (8 PiB)";

/// Parses a rate (`"10Mbps"`, a bare number is bit/s). Must be > 0.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let bps = parse_scaled(s, RATE_UNITS, "rate", "10Mbps")?;
    rate_from_f64(bps).map_err(|e| format!("'{s}': {e}"))
}

fn rate_from_f64(bps: f64) -> Result<Rate, String> {
    if !bps.is_finite() {
        return Err(format!("{bps} is not a rate (allowed: {RATE_RANGE})"));
    }
    let r = bps.round();
    if r < 1.0 {
        return Err(format!("{bps} bit/s is too small (allowed: {RATE_RANGE})"));
    }
    if r > MAX_RATE_BPS as f64 {
        return Err(format!(
            "{bps:e} bit/s is too large (allowed: {RATE_RANGE})"
        ));
    }
    Ok(Rate::from_bps(r as u64))
}

/// Parses a duration (`"45ms"`; a bare number is seconds). Must be >= 0.
pub fn parse_duration(s: &str) -> Result<SimDuration, String> {
    let t = s.trim();
    // A bare number is seconds.
    let ns = match t.parse::<f64>() {
        Ok(v)
            if !t
                .chars()
                .any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') =>
        {
            v * 1e9
        }
        _ => parse_scaled(s, DURATION_UNITS, "duration", "45ms")?,
    };
    duration_from_ns(ns).map_err(|e| format!("'{s}': {e}"))
}

fn duration_from_ns(ns: f64) -> Result<SimDuration, String> {
    if ns.is_nan() {
        return Err(format!("NaN is not a duration (allowed: {DURATION_RANGE})"));
    }
    if ns < 0.0 {
        return Err(format!(
            "a duration cannot be negative, got {}s (allowed: {DURATION_RANGE})",
            ns * 1e-9
        ));
    }
    SimDuration::from_secs_f64(ns * 1e-9)
        .ok_or_else(|| format!("{:e} s is too long (allowed: {DURATION_RANGE})", ns * 1e-9))
}

/// Parses a size in bytes (`"10MiB"`, `"1000B"`; a bare number is bytes).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let b = parse_scaled(s, SIZE_UNITS, "size", "1000B")?;
    size_from_f64(b).map_err(|e| format!("'{s}': {e}"))
}

fn size_from_f64(b: f64) -> Result<u64, String> {
    if !b.is_finite() {
        return Err(format!("{b} is not a size (allowed: {SIZE_RANGE})"));
    }
    if b < 0.0 {
        return Err(format!(
            "a size cannot be negative, got {b} B (allowed: {SIZE_RANGE})"
        ));
    }
    if b > MAX_SIZE as f64 {
        return Err(format!("{b:e} B is too large (allowed: {SIZE_RANGE})"));
    }
    if (b - b.round()).abs() > 1e-6 {
        return Err(format!("a size must be a whole number of bytes, got {b} B"));
    }
    Ok(b.round() as u64)
}

/// A byte count for messages: "512 B", "3.2 MiB", "4 GiB", "1.5 TiB".
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else if v >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// A count with thousands separators: 10,000,000,000.
pub fn grouped(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count written with or without a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Bytes(pub u64);

/// The limit of a drop-tail queue: packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

impl Default for QueueLimit {
    /// 100 packets, as ns-2's and ns-3's default drop-tail queue.
    fn default() -> Self {
        QueueLimit::Packets(100)
    }
}

/// Parses a queue limit: packets (`"100p"`, `"100 packets"`, a bare
/// whole number) or bytes (a size, `"64KiB"`), at most 2^53 of either.
pub fn parse_queue(s: &str) -> Result<QueueLimit, String> {
    let t = s.trim();
    const ALLOWED: &str = "packets ('100p') or bytes ('64KiB', '150000B'), at most 2^53 of either";
    for suffix in ["packets", "pkts", "p"] {
        if let Some(n) = t.strip_suffix(suffix) {
            let n = n.trim();
            if let Ok(v) = n.parse::<u64>() {
                return packets(v as f64).map_err(|e| format!("'{s}': {e}"));
            }
            if let Ok(v) = n.parse::<f64>() {
                return packets(v).map_err(|e| format!("'{s}': {e}"));
            }
        }
    }
    if let Ok(v) = t.parse::<u64>() {
        return packets(v as f64).map_err(|e| format!("'{s}': {e}"));
    }
    match parse_size(t) {
        Ok(b) => Ok(QueueLimit::Bytes(b)),
        Err(e) if e.contains("unknown unit") => {
            let unit = t.trim_start_matches(|c: char| c.is_ascii_digit() || "+-.e".contains(c));
            let units: Vec<&str> = SIZE_UNITS.iter().map(|u| u.0).collect();
            Err(format!(
                "'{s}': unknown unit '{}' for a queue limit (allowed: p or packets, or a \
                 size in {})",
                unit.trim(),
                units.join(", ")
            ))
        }
        Err(e) if e.contains("is not a size") => {
            Err(format!("'{s}' is not a queue limit (allowed: {ALLOWED})"))
        }
        Err(e) => Err(format!("{e}; a queue limit is {ALLOWED}")),
    }
}

/// A queue limit of `p` packets: a whole number from 0 to 2^53.
fn packets(p: f64) -> Result<QueueLimit, String> {
    if !p.is_finite() || p < 0.0 || p.fract() != 0.0 || p > MAX_SIZE as f64 {
        let got = if p.abs() >= 1e15 {
            format!("{p:e}")
        } else {
            format!("{p}")
        };
        Err(format!(
            "a queue limit in packets must be a whole number from 0 to 2^53, got {got}"
        ))
    } else {
        Ok(QueueLimit::Packets(p as u64))
    }
}

// ---- serde: accept a number or a string; write an exact string ----------

/// JSON has no NaN or infinity: the Python side writes a non-finite float
/// as one of these strings, so that the message can say what is allowed.
pub fn non_finite(s: &str) -> Option<f64> {
    match s {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// An `f64` field that also takes the non-finite markers of [`non_finite`]
/// (so that the range check, not the parser, refuses them).
pub fn f64_or_marker<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a number")
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v as f64))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v as f64))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            non_finite(v)
                .map(Some)
                .ok_or_else(|| E::custom(format!("'{v}' is not a number")))
        }
    }
    d.deserialize_any(V)
}

/// Deserializes a name-only enum from its names: a value of another type is
/// refused with the names allowed (serde's derive, through serde_json, says
/// only "expected value").
pub fn one_of<'de, D: Deserializer<'de>, T: Copy>(
    d: D,
    names: &'static [&'static str],
    values: &'static [T],
) -> Result<T, D::Error> {
    struct V<T: 'static>(&'static [&'static str], &'static [T]);
    impl<T: Copy> Visitor<'_> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            let quoted: Vec<String> = self.0.iter().map(|n| format!("'{n}'")).collect();
            write!(f, "one of {}", quoted.join(", "))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            match self.0.iter().position(|n| *n == v) {
                Some(i) => Ok(self.1[i]),
                None => Err(E::unknown_variant(v, self.0)),
            }
        }
    }
    d.deserialize_any(V(names, values))
}

/// `impl Deserialize` for a name-only enum through [`one_of`]:
/// `deserialize_names!(FlowKind { "udp" => FlowKind::Udp, "tcp" => FlowKind::Tcp });`
#[macro_export]
macro_rules! deserialize_names {
    ($t:ty { $($name:literal => $v:expr),+ $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(
                d: D,
            ) -> std::result::Result<Self, D::Error> {
                $crate::units::one_of(d, &[$($name),+], &[$($v),+])
            }
        }
    };
}

/// Accepts a number (in the base unit) or a string with a unit.
struct NumOrStr<FS, FN> {
    what: &'static str,
    from_str: FS,
    from_num: FN,
}

impl<'de, T, FS, FN> Visitor<'de> for NumOrStr<FS, FN>
where
    FS: Fn(&str) -> Result<T, String>,
    FN: Fn(f64) -> Result<T, String>,
{
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} (a number or a string with a unit)", self.what)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        if let Some(x) = non_finite(v) {
            return self.visit_f64(x);
        }
        (self.from_str)(v).map_err(E::custom)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        (self.from_num)(v).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumOrStr {
            what: "rate",
            from_str: parse_rate,
            from_num: rate_from_f64,
        })
    }
}
impl<'de> Deserialize<'de> for SimDuration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumOrStr {
            what: "duration",
            from_str: parse_duration,
            from_num: |s: f64| duration_from_ns(s * 1e9),
        })
    }
}
impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumOrStr {
            what: "size",
            from_str: |s: &str| parse_size(s).map(Bytes),
            from_num: |b: f64| size_from_f64(b).map(Bytes),
        })
    }
}
impl<'de> Deserialize<'de> for QueueLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumOrStr {
            what: "queue limit",
            from_str: parse_queue,
            from_num: packets,
        })
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
impl Serialize for SimDuration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}B", self.0))
    }
}
impl Serialize for QueueLimit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            QueueLimit::Packets(p) => s.collect_str(&format_args!("{p}p")),
            QueueLimit::Bytes(b) => s.collect_str(&format_args!("{b}B")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mbps").unwrap().bps(), 10_000_000);
        assert_eq!(parse_rate("1.5 Mb/s").unwrap().bps(), 1_500_000);
        assert_eq!(parse_rate("400kbps").unwrap().bps(), 400_000);
        assert_eq!(parse_rate("1e6").unwrap().bps(), 1_000_000);
        assert!(parse_rate("0Mbps").unwrap_err().contains("too small"));
        let e = parse_rate("2e19bps").unwrap_err();
        assert!(e.contains("too large") && e.contains("1 Pb/s"), "{e}");
        assert!(rate_from_f64(f64::NAN)
            .unwrap_err()
            .contains("NaN is not a rate"));
        assert!(rate_from_f64(f64::INFINITY)
            .unwrap_err()
            .contains("allowed: 1 bit/s"));
        assert!(parse_rate("-2Mbps").is_err());
        assert!(parse_rate("10Mbs")
            .unwrap_err()
            .contains("unknown unit 'Mbs'"));
        assert!(parse_rate("fast").unwrap_err().contains("is not a rate"));
    }

    #[test]
    fn durations() {
        assert_eq!(
            parse_duration("45ms").unwrap(),
            SimDuration::from_millis(45)
        );
        assert_eq!(
            parse_duration("10us").unwrap(),
            SimDuration::from_micros(10)
        );
        assert_eq!(
            parse_duration("0.01ms").unwrap(),
            SimDuration::from_micros(10)
        );
        assert_eq!(parse_duration("600").unwrap(), SimDuration::from_secs(600));
        assert_eq!(
            parse_duration("0.1ms").unwrap(),
            SimDuration::from_micros(100)
        );
        assert!(parse_duration("-1s").unwrap_err().contains("negative"));
        assert!(parse_duration("1e12s").unwrap_err().contains("too long"));
        assert!(duration_from_ns(f64::NAN).unwrap_err().contains("NaN"));
        assert!(parse_duration("nan").is_err() && parse_duration("inf").is_err());
        assert!(parse_duration("3 days").is_err());
    }

    #[test]
    fn sizes_and_queues() {
        assert_eq!(parse_size("10MiB").unwrap(), 10 * 1024 * 1024);
        assert_eq!(parse_size("1000B").unwrap(), 1000);
        assert_eq!(parse_size("1.5KB").unwrap(), 1500);
        assert!(parse_size("1.5B").unwrap_err().contains("whole number"));
        assert!(parse_size("1e30B").unwrap_err().contains("too large"));
        assert!(size_from_f64(f64::NAN).is_err());
        // The largest size, in the unit the messages name it in.
        assert_eq!(parse_size("8PiB").unwrap(), MAX_SIZE);
        assert!(parse_size("9PiB").unwrap_err().contains("too large"));
        assert_eq!(parse_queue("8PiB").unwrap(), QueueLimit::Bytes(MAX_SIZE));
        let e = parse_queue("9PiB").unwrap_err();
        assert!(
            e.contains("too large (allowed: 0 to 2^53 bytes (8 PiB)); a queue limit is packets"),
            "{e}"
        );
        let e = parse_queue("8EiB").unwrap_err();
        assert!(
            e.starts_with("'8EiB': unknown unit 'EiB' for a queue limit (allowed: p or packets"),
            "{e}"
        );
        let e = parse_queue("1e30p").unwrap_err();
        assert!(e.contains("whole number from 0 to 2^53, got 1e30"), "{e}");
        assert!(parse_queue("1e30B").unwrap_err().contains("too large"));
        assert_eq!(parse_queue("100p").unwrap(), QueueLimit::Packets(100));
        assert_eq!(
            parse_queue("125 packets").unwrap(),
            QueueLimit::Packets(125)
        );
        assert_eq!(parse_queue("64KiB").unwrap(), QueueLimit::Bytes(65536));
        assert!(parse_queue("lots").is_err());
    }

    #[test]
    fn serde_round_trip() {
        let r: Rate = serde_json::from_str("\"2Mbps\"").unwrap();
        assert_eq!(serde_json::to_string(&r).unwrap(), "\"2Mbps\"");
        let d: SimDuration = serde_json::from_str("0.045").unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), "\"45ms\"");
        let q: QueueLimit = serde_json::from_str("50").unwrap();
        assert_eq!(q, QueueLimit::Packets(50));
    }
}
