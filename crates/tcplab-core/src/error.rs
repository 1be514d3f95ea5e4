// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one error type of the core. Every scenario mistake names the field
//! (`links[1].loss.per`), says what is wrong, and where it helps, what is
//! allowed.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// A scenario field is missing, malformed or out of range.
    Invalid {
        path: String,
        problem: String,
        allowed: Option<String>,
    },
    /// A flow's endpoints are not connected (or explicit routes loop).
    Unroutable {
        path: String,
        from: String,
        to: String,
        detail: String,
    },
    /// Reading or writing a file failed.
    Io(String),
    /// A bug: an invariant of the simulator broke. Never the user's fault.
    Internal(String),
    /// The run was asked to stop (Ctrl-C) and stopped.
    Interrupted,
    /// The run outgrew its memory budget, or the machine ran out of memory.
    OutOfMemory(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// A list of names for a message: all of them, or the first 20.
pub fn list_names<S: AsRef<str>>(names: impl Iterator<Item = S>) -> String {
    let v: Vec<S> = names.collect();
    let v: Vec<&str> = v.iter().map(AsRef::as_ref).collect();
    if v.len() > 20 {
        format!("{}, ... ({} in all)", v[..20].join(", "), v.len())
    } else if v.is_empty() {
        "(none declared)".to_string()
    } else {
        v.join(", ")
    }
}

impl Error {
    pub fn invalid(path: impl Into<String>, problem: impl Into<String>) -> Error {
        Error::Invalid {
            path: path.into(),
            problem: problem.into(),
            allowed: None,
        }
    }
    pub fn invalid_allowed(
        path: impl Into<String>,
        problem: impl Into<String>,
        allowed: impl Into<String>,
    ) -> Error {
        Error::Invalid {
            path: path.into(),
            problem: problem.into(),
            allowed: Some(allowed.into()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid {
                path,
                problem,
                allowed,
            } => {
                if path.is_empty() {
                    write!(f, "{problem}")?;
                } else {
                    write!(f, "{path}: {problem}")?;
                }
                if let Some(a) = allowed {
                    write!(f, " (allowed: {a})")?;
                }
                Ok(())
            }
            Error::Unroutable {
                path,
                from,
                to,
                detail,
            } => {
                write!(f, "{path}: no route from '{from}' to '{to}'")?;
                if !detail.is_empty() {
                    write!(f, " ({detail})")?;
                }
                Ok(())
            }
            Error::Io(m) => write!(f, "I/O error: {m}"),
            Error::Internal(m) => write!(f, "internal error (a tcplab bug, please report): {m}"),
            Error::Interrupted => write!(f, "interrupted"),
            Error::OutOfMemory(m) => write!(f, "out of memory: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// Returns `Err(Error::Invalid)` unless the condition holds.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $path:expr, $($msg:tt)+) => {
        if !$cond {
            return Err($crate::error::Error::invalid($path, format!($($msg)+)));
        }
    };
}

/// A parser's message in the words of a scenario's user: serde's
/// `invalid type: string "NaN", expected f64` becomes `expected a finite
/// number, got NaN`, `expected u32` `expected a whole number from 0 to
/// 4294967295`, `expected struct LinkSpec` `expected a table`. Rust's type
/// names never reach a user; messages of other forms are left as they are
/// (as is a message already in these words, so it may be applied twice).
pub fn user_words(message: &str) -> String {
    let m = message.replace('`', "'");
    for head in ["invalid type: ", "invalid value: "] {
        if let Some(at) = m.find(head) {
            let rest = &m[at + head.len()..];
            if let Some(comma) = rest.find(", expected ") {
                let got = got_words(&rest[..comma]);
                let want = expected_words(&rest[comma + ", expected ".len()..]);
                return format!("{}expected {want}, got {got}", &m[..at]);
            }
        }
    }
    if let Some(at) = m.find("invalid length ") {
        let rest = &m[at + "invalid length ".len()..];
        if let Some(comma) = rest.find(", expected ") {
            let n = &rest[..comma];
            let want = expected_words(&rest[comma + ", expected ".len()..]);
            let values = if n == "1" { "value" } else { "values" };
            return format!("{}expected {want}, got {n} {values}", &m[..at]);
        }
    }
    m
}

/// serde's `Unexpected` as a user writes the value.
fn got_words(got: &str) -> String {
    let quoted = |prefix: &str| {
        got.strip_prefix(prefix)
            .map(|v| v.trim_matches('\'').to_string())
    };
    if let Some(s) = got.strip_prefix("string ") {
        return match s.trim_matches('"') {
            "NaN" => "NaN".into(),
            "Infinity" => "infinity".into(),
            "-Infinity" => "-infinity".into(),
            _ => s.to_string(),
        };
    }
    for prefix in ["integer ", "floating point ", "boolean "] {
        if let Some(v) = quoted(prefix) {
            return v;
        }
    }
    if let Some(c) = quoted("char ") {
        return format!("\"{c}\"");
    }
    match got {
        "map" | "newtype struct" | "struct variant" => "a table".into(),
        "sequence" | "tuple variant" => "a list".into(),
        "null" | "unit" | "unit variant" => "nothing (null)".into(),
        "Option value" => "a value".into(),
        _ => got.to_string(),
    }
}

/// serde's `Expected` (a type's name or a visitor's own words) as what a
/// user may write.
fn expected_words(want: &str) -> String {
    let whole = |max: &str| format!("a whole number from 0 to {max}");
    match want {
        "u8" => whole("255"),
        "u16" => whole("65535"),
        "u32" => whole("4294967295"),
        "u64" | "u128" | "usize" => "a whole number of 0 or more".into(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a finite number".into(),
        "a boolean" => "true or false".into(),
        "a borrowed string" => "a string".into(),
        "a character" => "a single character".into(),
        "a sequence" => "a list".into(),
        "a map" => "a table".into(),
        "unit" => "nothing (null)".into(),
        "option" => "a value".into(),
        "variant identifier" | "field identifier" => "a name".into(),
        _ => {
            if let Some(n) = want.strip_prefix("a tuple of size ") {
                format!("a list of {n} values")
            } else if want.starts_with("tuple struct ") {
                "a list".into()
            } else if want.starts_with("struct ") {
                "a table".into()
            } else if want.starts_with("enum ") {
                "one of its names".into()
            } else {
                want.to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_are_put_in_the_users_words() {
        let cases = [
            (
                "invalid type: string \"NaN\", expected f64",
                "expected a finite number, got NaN",
            ),
            (
                "invalid type: string \"r\", expected u64",
                "expected a whole number of 0 or more, got \"r\"",
            ),
            (
                "invalid value: integer `9223372036854775808`, expected u32",
                "expected a whole number from 0 to 4294967295, got 9223372036854775808",
            ),
            (
                "invalid type: integer `3`, expected struct LinkSpec",
                "expected a table, got 3",
            ),
            (
                "invalid type: map, expected a sequence",
                "expected a list, got a table",
            ),
            (
                "red: max_p: invalid type: boolean `true`, expected f64",
                "red: max_p: expected a finite number, got true",
            ),
            (
                "invalid length 3, expected a tuple of size 2",
                "expected a list of 2 values, got 3 values",
            ),
            (
                "invalid type: null, expected a string",
                "expected a string, got nothing (null)",
            ),
            // Left alone: other forms, and the visitors' own words.
            (
                "unknown field 'limt', expected one of 'kind', 'limit'",
                "unknown field 'limt', expected one of 'kind', 'limit'",
            ),
            (
                "invalid type: map, expected a duration (a number or a string with a unit)",
                "expected a duration (a number or a string with a unit), got a table",
            ),
        ];
        for (serde, user) in cases {
            assert_eq!(user_words(serde), user);
            assert_eq!(user_words(&user_words(serde)), user, "twice");
        }
    }
}
