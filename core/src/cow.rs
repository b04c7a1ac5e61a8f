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
//! The list itself is cut into segments of 64 chunks (one word of dirty
//! bits), and a segment with no chunk written is shared too: otherwise
//! the list, 16 bytes a chunk, would cost each checkpoint of a 16 GiB file
//! 66 KB however little changed.

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

/// Chunks per segment of a frozen list: one word of dirty bits.
const SEGMENT: usize = 64;

/// A segment of a frozen list: up to [`SEGMENT`] shared chunks.
type Segment<T> = Rc<[Rc<[T]>]>;

/// The frozen form: chunks shared between checkpoints, in segments shared
/// between checkpoints too.
#[derive(Clone, Debug)]
pub struct Frozen<T: Clone, const N: usize> {
    segments: Vec<Segment<T>>,
    len: usize,
    /// Bytes of the chunks and segments this freeze made, and of its
    /// segment list.
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
    /// vector are shared with it, and so are segments none of whose chunks
    /// were written; the others are copied. Clears the marks.
    pub fn freeze(&mut self, prev: Option<&Frozen<T, N>>) -> Frozen<T, N> {
        let n = self.items.len().div_ceil(N);
        let nsegs = n.div_ceil(SEGMENT);
        let mut segments = Vec::with_capacity(nsegs);
        let (mut copied, mut new_segments) = (0, 0);
        for g in 0..nsegs {
            let chunks = g * SEGMENT..((g + 1) * SEGMENT).min(n);
            let clean = self.dirty.get(g).is_none_or(|&w| w == 0);
            let prev_seg = prev.and_then(|p| p.segments.get(g));
            // A segment is shared whole when none of its chunks was written
            // and it holds as many chunks, the last one as long.
            let whole = prev_seg.filter(|seg| {
                clean
                    && seg.len() == chunks.len()
                    && seg.last().map(|c| c.len()) == Some(self.chunk_range(chunks.end - 1).len())
            });
            if let Some(seg) = whole {
                segments.push(seg.clone());
                continue;
            }
            let mut seg = Vec::with_capacity(chunks.len());
            for c in chunks {
                let range = self.chunk_range(c);
                let shared = prev_seg
                    .filter(|_| !self.is_dirty(c))
                    .and_then(|seg| seg.get(c % SEGMENT))
                    .filter(|chunk| chunk.len() == range.len());
                match shared {
                    Some(chunk) => seg.push(chunk.clone()),
                    None => {
                        seg.push(Rc::from(&self.items[range]));
                        copied += 1;
                    }
                }
            }
            segments.push(Rc::from(seg));
            new_segments += 1;
        }
        self.dirty.iter_mut().for_each(|w| *w = 0);
        Frozen {
            new_bytes: copied * N * std::mem::size_of::<T>()
                + new_segments * Frozen::<T, N>::segment_bytes()
                + Frozen::<T, N>::list_bytes(nsegs),
            segments,
            len: self.items.len(),
        }
    }

    /// The items of chunk `c`.
    fn chunk_range(&self, c: usize) -> std::ops::Range<usize> {
        c * N..((c + 1) * N).min(self.items.len())
    }

    /// The live form of a frozen copy, with every chunk marked dirty: a
    /// freeze from it shares nothing it was not given.
    #[cfg(test)]
    pub fn thaw(frozen: &Frozen<T, N>) -> Self {
        let mut v = TrackedVec::default();
        v.thaw_into(frozen);
        v
    }

    /// Makes this vector the frozen one's items, in the memory it has:
    /// a timeline's seeker moves from checkpoint to checkpoint without
    /// allocating the page cache afresh each time.
    pub fn thaw_into(&mut self, frozen: &Frozen<T, N>) {
        self.items.clear();
        self.items.reserve(frozen.len);
        for chunk in frozen.segments.iter().flat_map(|seg| seg.iter()) {
            self.items.extend_from_slice(chunk);
        }
        self.mark_all();
    }
}

impl<T: Clone, const N: usize> Frozen<T, N> {
    /// Bytes of one segment's list of chunks.
    fn segment_bytes() -> usize {
        SEGMENT * std::mem::size_of::<Rc<[T]>>()
    }

    /// Bytes of a list of `segments` segments.
    fn list_bytes(segments: usize) -> usize {
        segments * std::mem::size_of::<Segment<T>>()
    }

    /// Bytes this freeze added beside the chunks and segments it shared.
    pub fn new_bytes(&self) -> usize {
        self.new_bytes
    }

    /// Bytes of the chunks and segments not yet in `seen`, which then
    /// holds them all: the memory of several frozen copies together.
    pub fn distinct_bytes(&self, seen: &mut HashSet<usize>) -> usize {
        let mut bytes = Self::list_bytes(self.segments.len());
        for seg in &self.segments {
            // A segment seen before brings only chunks seen before.
            if !seen.insert(Rc::as_ptr(seg) as *const u8 as usize) {
                continue;
            }
            bytes += Self::segment_bytes();
            let new = seg
                .iter()
                .filter(|c| seen.insert(Rc::as_ptr(c) as *const u8 as usize))
                .count();
            bytes += new * N * std::mem::size_of::<T>();
        }
        bytes
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

    /// Bytes of one segment's chunk list, and of one entry of the list of
    /// segments.
    const SEG: usize = SEGMENT * 16;
    const LIST: usize = 16;

    #[test]
    fn a_freeze_shares_what_was_not_written() {
        let mut v: TrackedVec<u64, 4> = TrackedVec::filled(7, 10);
        let first = v.freeze(None);
        assert_eq!(
            first.new_bytes(),
            3 * 4 * 8 + SEG + LIST,
            "all three chunks copied"
        );
        v[5] = 1;
        let second = v.freeze(Some(&first));
        assert_eq!(
            second.new_bytes(),
            4 * 8 + SEG + LIST,
            "only the written chunk copied"
        );
        let third = v.freeze(Some(&second));
        assert_eq!(third.new_bytes(), LIST, "nothing written, nothing copied");
        let mut seen = HashSet::new();
        let all: usize = [&first, &second, &third]
            .iter()
            .map(|f| f.distinct_bytes(&mut seen))
            .sum();
        assert_eq!(all, 4 * 4 * 8 + 2 * SEG + 3 * LIST);
        assert_eq!(
            TrackedVec::thaw(&first)[5],
            7,
            "the first copy kept its value"
        );
        assert_eq!(TrackedVec::thaw(&third)[5], 1);
        assert!(TrackedVec::thaw(&third) == v);
    }

    #[test]
    fn segments_with_nothing_written_are_shared_whole() {
        // 200 chunks of one item: four segments.
        let mut v: TrackedVec<u8, 1> = TrackedVec::filled(0, 200);
        let first = v.freeze(None);
        assert_eq!(first.new_bytes(), 200 + 4 * SEG + 4 * LIST);
        v[70] = 1;
        let second = v.freeze(Some(&first));
        assert_eq!(
            second.new_bytes(),
            1 + SEG + 4 * LIST,
            "one chunk and its segment copied"
        );
        let mut seen = HashSet::new();
        let both = first.distinct_bytes(&mut seen) + second.distinct_bytes(&mut seen);
        assert_eq!(both, 201 + 5 * SEG + 8 * LIST);
        assert_eq!(TrackedVec::thaw(&first)[70], 0);
        assert!(TrackedVec::thaw(&second) == v);
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
        assert_eq!(b.new_bytes(), 8 * 4 + SEG + LIST, "the last chunk grew");
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
