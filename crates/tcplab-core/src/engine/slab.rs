// SPDX-License-Identifier: MIT OR Apache-2.0
//! A slab with a free list: packets in flight live here and events refer to
//! them by a 32-bit id. After warm-up, no allocation happens per packet.

/// Index of a packet in the [`Slab`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketId(pub u32);

#[derive(Debug)]
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
    live: usize,
}

impl<T: Copy> Slab<T> {
    pub fn new() -> Self {
        Slab {
            items: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }

    #[inline]
    pub fn insert(&mut self, v: T) -> PacketId {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.items[i as usize] = v;
            PacketId(i)
        } else {
            crate::alloc::push(&mut self.items, v, "packets in flight");
            PacketId((self.items.len() - 1) as u32)
        }
    }

    /// As [`Self::insert`], with the value made by `make` once its slot is
    /// known, so that it can be written in place rather than built
    /// elsewhere and copied in (a packet is 160 bytes).
    #[inline(always)]
    pub fn insert_with(&mut self, make: impl FnOnce() -> T) -> PacketId {
        match self.free.pop() {
            Some(i) => {
                self.live += 1;
                self.items[i as usize] = make();
                PacketId(i)
            }
            None => self.insert(make()),
        }
    }

    /// Frees the slot and returns its value. Freeing twice is a logic error.
    #[inline]
    pub fn remove(&mut self, id: PacketId) -> T {
        self.free(id);
        self.items[id.0 as usize]
    }

    /// Frees the slot without copying its value out. Freeing twice is a
    /// logic error.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.live -= 1;
        crate::alloc::push(&mut self.free, id.0, "packets in flight");
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &T {
        &self.items[id.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut T {
        &mut self.items[id.0 as usize]
    }

    /// Packets currently stored.
    pub fn live(&self) -> usize {
        self.live
    }

    /// The high-water mark of slots ever used.
    pub fn capacity_used(&self) -> usize {
        self.items.len()
    }

    /// Bytes reserved by the slab (slots and free list).
    pub fn reserved_bytes(&self) -> u64 {
        (self.items.capacity() * std::mem::size_of::<T>() + self.free.capacity() * 4) as u64
    }
}

impl<T: Copy> Default for Slab<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_freed_slots() {
        let mut s = Slab::new();
        let a = s.insert(1u32);
        let b = s.insert(2u32);
        assert_eq!(s.remove(a), 1);
        let c = s.insert(3u32);
        assert_eq!(c, a);
        assert_eq!(*s.get(b), 2);
        assert_eq!(s.live(), 2);
        assert_eq!(s.capacity_used(), 2);
        s.free(b);
        assert_eq!(s.insert_with(|| 4), b, "a freed slot, written in place");
        assert_eq!(s.insert_with(|| 5), PacketId(2), "a new slot");
        assert_eq!((*s.get(b), *s.get(PacketId(2)), s.live()), (4, 5, 3));
    }
}
