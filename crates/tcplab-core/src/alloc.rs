// SPDX-License-Identifier: MIT OR Apache-2.0
//! Growing the run's big buffers without aborting the process.
//!
//! Rust aborts when an allocation fails. The buffers that grow with a run
//! (the packet slab, link pipes, recorded series and logs, per-interval
//! counters) grow through [`push`] and [`reserve`] instead: a failed
//! reservation unwinds with an [`OutOfMemory`] payload, which the bindings
//! turn into a Python `MemoryError` (the world is dropped; nothing else is
//! lost). A run normally stops long before that, at its memory budget (see
//! `world::memory`), which does not depend on the machine.

/// The payload of the unwind when a buffer could not grow.
#[derive(Debug, Clone)]
pub struct OutOfMemory {
    /// Which buffer.
    pub what: &'static str,
    /// The size it asked for, in bytes.
    pub bytes: usize,
}

impl std::fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the machine could not provide {} for {}",
            crate::units::human_bytes(self.bytes as u64),
            self.what
        )
    }
}

/// Makes room for `additional` more elements (amortized, as `Vec::reserve`),
/// or unwinds with [`OutOfMemory`].
#[cold]
#[inline(never)]
pub fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &'static str) {
    if v.try_reserve(additional).is_err() {
        let bytes = v
            .len()
            .saturating_add(additional)
            .saturating_mul(std::mem::size_of::<T>());
        std::panic::panic_any(OutOfMemory { what, bytes });
    }
}

/// `v.push(x)`, growing through [`reserve`].
#[inline]
pub fn push<T>(v: &mut Vec<T>, x: T, what: &'static str) {
    if v.len() == v.capacity() {
        reserve(v, 1, what);
    }
    v.push(x);
}

/// `q.push_back(x)` for a deque, grown as [`push`] grows a vector.
#[inline(always)]
pub fn push_deque<T>(q: &mut std::collections::VecDeque<T>, x: T, what: &'static str) {
    if q.len() == q.capacity() {
        grow_deque(q, what);
    }
    q.push_back(x);
}

/// Room for one more in a full deque, or the unwinding [`OutOfMemory`].
#[cold]
#[inline(never)]
fn grow_deque<T>(q: &mut std::collections::VecDeque<T>, what: &'static str) {
    if q.try_reserve(1).is_err() {
        let bytes = q.len().saturating_add(1) * std::mem::size_of::<T>();
        std::panic::panic_any(OutOfMemory { what, bytes });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_reservation_unwinds_with_the_payload_not_an_abort() {
        let r = std::panic::catch_unwind(|| {
            let mut v: Vec<u64> = Vec::new();
            // More than any address space holds: try_reserve fails at once.
            reserve(&mut v, usize::MAX / 16, "a test buffer");
        });
        let payload = r.unwrap_err();
        let oom = payload
            .downcast_ref::<OutOfMemory>()
            .expect("an OutOfMemory payload");
        assert_eq!(oom.what, "a test buffer");
        assert!(oom.to_string().contains("a test buffer"));
    }

    #[test]
    fn push_grows_like_vec_push() {
        let mut v = Vec::new();
        for i in 0..1000u32 {
            push(&mut v, i, "t");
        }
        assert_eq!(v.len(), 1000);
        assert_eq!(v[999], 999);
    }
}
