//! Storage for the xarray's nodes and the page tables that can be frozen
//! cheaply. Not a kernel structure: it exists for the timeline's
//! checkpoints.
//!
//! The live machine keeps its items in one flat vector, since the model
//! reads nodes on every lookup and an extra pointer per read cost a tenth
//! of a walk's time. Each write marks its chunk of `N` items dirty. A
//! frozen copy is a list of shared chunks: freezing again copies only the
//! chunks written since the last freeze and shares the rest with it, so a
//! checkpoint costs what changed in its interval, not the whole page cache.

use std::collections::HashSet;
use std::ops::{Index, IndexMut};
use std::rc::Rc;

/// The live form: a flat vector with one dirty bit per chunk of `N` items.
#[derive(Clone, Debug)]
pub struct TrackedVec<T: Clone, const N: usize> {
    items: Vec<T>,
    /// Chunks written since the last [`TrackedVec::freeze`].
    dirty: Vec<u64>,
}

impl<T: Clone, const N: usize> Default for TrackedVec<T, N> {
    fn default() -> Self {
        TrackedVec {
            items: Vec::new(),
            dirty: Vec::new(),
        }
    }
}

/// The frozen form: chunks shared between checkpoints.
#[derive(Clone, Debug)]
pub struct Frozen<T: Clone, const N: usize> {
    chunks: Vec<Rc<[T]>>,
    len: usize,
    /// Bytes of the chunks this freeze copied, and of its chunk list.
    new_bytes: usize,
}

impl<T: Clone, const N: usize> TrackedVec<T, N> {
    const CHUNK_SHIFT: u32 = {
        assert!(N.is_power_of_two());
        N.trailing_zeros()
    };

    /// `n` copies of `value`, all dirty.
    pub fn filled(value: T, n: usize) -> Self {
        let mut v = TrackedVec {
            items: vec![value; n],
            dirty: Vec::new(),
        };
        v.mark_all();
        v
    }

    /// Marks every chunk, so the next freeze shares nothing.
    pub fn mark_all(&mut self) {
        let chunks = self.items.len().div_ceil(N);
        self.dirty = vec![u64::MAX; chunks.div_ceil(64)];
    }

    /// Marks the chunk of item `i`, which must exist: `push` and `filled`
    /// size the marks.
    #[inline]
    fn mark(&mut self, i: usize) {
        let c = i >> Self::CHUNK_SHIFT;
        self.dirty[c / 64] |= 1 << (c % 64);
    }

    fn is_dirty(&self, c: usize) -> bool {
        self.dirty
            .get(c / 64)
            .is_some_and(|w| w & (1 << (c % 64)) != 0)
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        self.items.get(i)
    }

    pub fn push(&mut self, value: T) {
        let chunk = self.items.len() >> Self::CHUNK_SHIFT;
        if chunk / 64 >= self.dirty.len() {
            self.dirty.push(0);
        }
        self.items.push(value);
        self.mark(self.items.len() - 1);
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    pub fn memory_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<T>() + self.dirty.capacity() * 8
    }

    /// A frozen copy. Chunks not written since `prev` was frozen from this
    /// vector are shared with it; the others are copied. Clears the marks.
    pub fn freeze(&mut self, prev: Option<&Frozen<T, N>>) -> Frozen<T, N> {
        let n = self.items.len().div_ceil(N);
        let mut chunks = Vec::with_capacity(n);
        let mut copied = 0;
        for c in 0..n {
            let range = c * N..((c + 1) * N).min(self.items.len());
            let shared = prev
                .filter(|_| !self.is_dirty(c))
                .and_then(|p| p.chunks.get(c))
                .filter(|chunk| chunk.len() == range.len());
            match shared {
                Some(chunk) => chunks.push(chunk.clone()),
                None => {
                    chunks.push(Rc::from(&self.items[range]));
                    copied += 1;
                }
            }
        }
        self.dirty.iter_mut().for_each(|w| *w = 0);
        Frozen {
            new_bytes: copied * N * std::mem::size_of::<T>() + Frozen::<T, N>::spine_bytes(n),
            chunks,
            len: self.items.len(),
        }
    }

    /// The live form of a frozen copy, with every chunk marked dirty: a
    /// freeze from it shares nothing it was not given.
    pub fn thaw(frozen: &Frozen<T, N>) -> Self {
        let mut items = Vec::with_capacity(frozen.len);
        for chunk in &frozen.chunks {
            items.extend_from_slice(chunk);
        }
        let mut v = TrackedVec {
            items,
            dirty: Vec::new(),
        };
        v.mark_all();
        v
    }
}

impl<T: Clone, const N: usize> Frozen<T, N> {
    fn spine_bytes(chunks: usize) -> usize {
        chunks * std::mem::size_of::<Rc<[T]>>()
    }

    /// Bytes this freeze added beside the chunks it shared.
    pub fn new_bytes(&self) -> usize {
        self.new_bytes
    }

    /// Bytes of the chunks not yet in `seen`, which then holds them all:
    /// the memory of several frozen copies together.
    pub fn distinct_bytes(&self, seen: &mut HashSet<usize>) -> usize {
        let new = self
            .chunks
            .iter()
            .filter(|c| seen.insert(Rc::as_ptr(c) as *const u8 as usize))
            .count();
        new * N * std::mem::size_of::<T>() + Self::spine_bytes(self.chunks.len())
    }
}

impl<T: Clone, const N: usize> Index<usize> for TrackedVec<T, N> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.items[i]
    }
}

impl<T: Clone, const N: usize> IndexMut<usize> for TrackedVec<T, N> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        self.mark(i);
        &mut self.items[i]
    }
}

impl<T: Clone + PartialEq, const N: usize> PartialEq for TrackedVec<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freeze_shares_what_was_not_written() {
        let mut v: TrackedVec<u64, 4> = TrackedVec::filled(7, 10);
        let first = v.freeze(None);
        assert_eq!(
            first.new_bytes(),
            3 * 4 * 8 + 3 * 16,
            "all three chunks copied"
        );
        v[5] = 1;
        let second = v.freeze(Some(&first));
        assert_eq!(
            second.new_bytes(),
            4 * 8 + 3 * 16,
            "only the written chunk copied"
        );
        let third = v.freeze(Some(&second));
        assert_eq!(third.new_bytes(), 3 * 16, "nothing written, nothing copied");
        let mut seen = HashSet::new();
        let all: usize = [&first, &second, &third]
            .iter()
            .map(|f| f.distinct_bytes(&mut seen))
            .sum();
        assert_eq!(all, 4 * 4 * 8 + 3 * 3 * 16);
        assert_eq!(
            TrackedVec::thaw(&first)[5],
            7,
            "the first copy kept its value"
        );
        assert_eq!(TrackedVec::thaw(&third)[5], 1);
        assert!(TrackedVec::thaw(&third) == v);
    }

    #[test]
    fn pushes_and_thawed_copies_freeze_in_full() {
        let mut v: TrackedVec<u32, 8> = TrackedVec::default();
        for i in 0..20 {
            v.push(i);
        }
        let a = v.freeze(None);
        v.push(20);
        let b = v.freeze(Some(&a));
        assert_eq!(b.new_bytes(), 8 * 4 + 3 * 16, "the last chunk grew");
        let mut back = TrackedVec::thaw(&b);
        assert_eq!(
            back.iter().copied().collect::<Vec<_>>(),
            (0..21).collect::<Vec<_>>()
        );
        let c = back.freeze(Some(&b));
        assert_eq!(
            c.new_bytes(),
            b.new_bytes() + 2 * 8 * 4,
            "a thawed copy shares nothing"
        );
    }
}
