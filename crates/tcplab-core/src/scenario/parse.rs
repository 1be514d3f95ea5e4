// SPDX-License-Identifier: MIT OR Apache-2.0
//! Parsing helpers: messages without the JSON text's positions, and the
//! fields that take more than one form.

use crate::error::user_words;

/// A parser message without serde_json's "at line 1 column 231": a place in
/// the JSON text the bindings made, not in the user's file. The field path
/// says where the mistake is; the rest is put in the user's words
/// ([`user_words`]).
pub(super) fn without_position(message: &str) -> String {
    let mut m = message.replace('`', "'");
    if let Some(at) = m.rfind(" at line ") {
        let tail = &m[at + " at line ".len()..];
        let mut words = tail.split(' ');
        let is_position = words.next().is_some_and(|n| n.parse::<u64>().is_ok())
            && words.next() == Some("column")
            && words.next().is_some_and(|n| n.parse::<u64>().is_ok())
            && words.next().is_none();
        if is_position {
            m.truncate(at);
        }
    }
    user_words(&m)
}

/// `delayed_ack`: a number of segments (at least 1), or a switch: `true` is
/// RFC 1122's every second segment, `false` an ACK per segment.
pub(super) fn delayed_ack_from<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<u16>, D::Error> {
    use serde::de::{self, Visitor};
    struct V;
    impl Visitor<'_> for V {
        type Value = Option<u16>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(
                f,
                "a number of segments (1 ACKs every segment) or true/false"
            )
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Self::Value, E> {
            Ok(Some(if v { 2 } else { 1 }))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
            match u16::try_from(v) {
                Ok(0) => Err(E::custom(
                    "0 is not a number of segments (allowed: 1 to 65535; 1, or false, ACKs every \
                     segment)",
                )),
                Ok(n) => Ok(Some(n)),
                Err(_) => Err(E::custom(format!(
                    "{v} segments is too many (allowed: 1 to 65535)"
                ))),
            }
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
            match u64::try_from(v) {
                Ok(u) => self.visit_u64(u),
                Err(_) => Err(E::custom(format!(
                    "{v} is not a number of segments (allowed: 1 to 65535)"
                ))),
            }
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
            if v.fract() == 0.0 && v >= 0.0 && v <= u32::MAX as f64 {
                self.visit_u64(v as u64)
            } else {
                Err(E::custom(format!(
                    "{v} is not a whole number of segments (allowed: 1 to 65535)"
                )))
            }
        }
    }
    d.deserialize_any(V)
}
