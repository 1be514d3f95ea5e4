// SPDX-License-Identifier: MIT OR Apache-2.0
//! A table from names to their indices, for the millions of node and link
//! names a large scenario declares.
//!
//! A hash map of `&str` to `u32` spends 24 bytes a slot (about 100 MB for
//! two million names, each insert a cache and TLB miss in it). This table
//! keeps only the index and 32 bits of the name's hash, 8 bytes a slot: the
//! names themselves stay where they are, and are read only when the hash
//! bits match. Open addressing, at most half full, linear probing.

use std::hash::{Hash, Hasher};

/// An empty slot (no name has index `u32::MAX`: counts are checked first).
const EMPTY: u64 = u64::MAX;

pub(super) struct NameTable {
    /// (the hash's low 32 bits << 32) | index, or `EMPTY`.
    slots: Vec<u64>,
    /// Bits of the hash that choose the first slot.
    shift: u32,
}

impl NameTable {
    /// Room for `n` names.
    pub(super) fn with_capacity(n: usize) -> NameTable {
        let size = (2 * n).next_power_of_two().max(16);
        NameTable {
            slots: vec![EMPTY; size],
            shift: 64 - size.trailing_zeros(),
        }
    }

    fn hash(name: &str) -> u64 {
        let mut h = rustc_hash::FxHasher::default();
        name.hash(&mut h);
        // Fx mixes its low bits poorly: the first slot comes from the top
        // bits of a multiplied hash, the stored bits from the bottom ones.
        h.finish().wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// The index under `name` (whose hash is `h`), and the slot where it is
    /// or would go.
    #[inline]
    fn probe<'a>(
        &self,
        h: u64,
        name: &str,
        name_of: impl Fn(u32) -> &'a str,
    ) -> (Option<u32>, usize) {
        let tag = h as u32;
        let mask = self.slots.len() - 1;
        let mut at = (h >> self.shift) as usize;
        loop {
            let s = self.slots[at];
            if s == EMPTY {
                return (None, at);
            }
            if (s >> 32) as u32 == tag && name_of(s as u32) == name {
                return (Some(s as u32), at);
            }
            at = (at + 1) & mask;
        }
    }

    /// Enters `name` as index `i`, unless it is there already: then its
    /// earlier index. `name_of` gives the name of an index entered before.
    pub(super) fn insert<'a>(
        &mut self,
        name: &str,
        i: u32,
        name_of: impl Fn(u32) -> &'a str,
    ) -> Option<u32> {
        let h = Self::hash(name);
        match self.probe(h, name, name_of) {
            (Some(j), _) => Some(j),
            (None, at) => {
                self.slots[at] = (h as u32 as u64) << 32 | i as u64;
                None
            }
        }
    }

    /// The index entered under `name`.
    pub(super) fn get<'a>(&self, name: &str, name_of: impl Fn(u32) -> &'a str) -> Option<u32> {
        self.probe(Self::hash(name), name, name_of).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_found_at_the_index_it_was_entered_with_and_a_second_entry_is_refused() {
        let names: Vec<String> = (0..5000).map(|i| format!("h{i}")).collect();
        let of = |i: u32| names[i as usize].as_str();
        let mut t = NameTable::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            assert_eq!(t.insert(n, i as u32, of), None);
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(t.get(n, of), Some(i as u32));
        }
        assert_eq!(t.get("h5000", of), None);
        assert_eq!(t.get("", of), None);
        // Entering a name again gives the first index, and keeps it.
        let again = ["h17".to_string()];
        assert_eq!(t.insert(&again[0], 5000, |_| again[0].as_str()), Some(17));
        assert_eq!(t.get("h17", of), Some(17));
    }

    #[test]
    fn names_whose_first_slots_collide_are_told_apart_by_their_text() {
        // A table of 16 slots for 8 names: some land past their first slot.
        let names: Vec<String> = (0..8).map(|i| "x".repeat(i + 1)).collect();
        let of = |i: u32| names[i as usize].as_str();
        let mut t = NameTable::with_capacity(8);
        assert_eq!(t.slots.len(), 16);
        for (i, n) in names.iter().enumerate() {
            assert_eq!(t.insert(n, i as u32, of), None);
        }
        let first_slot = |n: &str| (NameTable::hash(n) >> t.shift) as usize;
        let displaced = names
            .iter()
            .filter(|n| t.probe(NameTable::hash(n), n, of).1 != first_slot(n))
            .count();
        assert!(displaced > 0);
        for (i, n) in names.iter().enumerate() {
            assert_eq!(t.get(n, of), Some(i as u32));
        }
        assert_eq!(t.slots.iter().filter(|&&s| s != EMPTY).count(), 8);
    }
}
