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
