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
//!
//! The live vector remembers the frozen copy it was last frozen to or
//! thawed from, its origin: each chunk not written since equals the
//! origin's chunk at its place. Freezing shares those chunks, and thawing
//! a copy that holds the very same chunk (the same allocation) leaves
//! them as they are. A seeker moving between checkpoints then copies
//! only the chunks that differ between them, not the whole page cache.

use std::collections::HashSet;
use std::ops::{Index, IndexMut};
use std::rc::Rc;

/// The live form: a flat vector with one dirty bit per chunk of `N` items.
#[derive(Clone, Debug)]
pub struct TrackedVec<T: Clone, const N: usize> {
    items: Vec<T>,
    /// Chunks written since the last freeze or thaw.
    dirty: Vec<u64>,
    /// The frozen copy of the last freeze or thaw, if any: every chunk
    /// not marked dirty holds what this one's chunk at its place holds.
    origin: Option<Frozen<T, N>>,
}

impl<T: Clone, const N: usize> Default for TrackedVec<T, N> {
    fn default() -> Self {
        TrackedVec {
            items: Vec::new(),
            dirty: Vec::new(),
            origin: None,
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
            origin: None,
        };
        v.forget_origin();
        v
    }

    /// Marks every chunk and drops the origin, so the next freeze or
    /// thaw shares nothing and keeps no old frozen copy alive.
    pub fn forget_origin(&mut self) {
        let chunks = self.items.len().div_ceil(N);
        self.dirty = vec![u64::MAX; chunks.div_ceil(64)];
        self.origin = None;
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

    /// A frozen copy. Chunks not written since the origin (the last freeze
    /// or thaw) are shared with it, and so are segments none of whose
    /// chunks were written; the others are copied. Clears the marks, and
    /// the copy becomes the origin.
    pub fn freeze(&mut self) -> Frozen<T, N> {
        let prev = self.origin.take();
        let prev = prev.as_ref();
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
        let frozen = Frozen {
            new_bytes: copied * N * std::mem::size_of::<T>()
                + new_segments * Frozen::<T, N>::segment_bytes()
                + Frozen::<T, N>::list_bytes(nsegs),
            segments,
            len: self.items.len(),
        };
        self.origin = Some(frozen.clone());
        frozen
    }

    /// The items of chunk `c`.
    fn chunk_range(&self, c: usize) -> std::ops::Range<usize> {
        c * N..((c + 1) * N).min(self.items.len())
    }

    /// The live form of a frozen copy, whose origin it is.
    #[cfg(test)]
    pub fn thaw(frozen: &Frozen<T, N>) -> Self {
        let mut v = TrackedVec::default();
        v.thaw_into(frozen);
        v
    }

    /// Makes this vector the frozen one's items, in the memory it has:
    /// a timeline's seeker moves from checkpoint to checkpoint without
    /// allocating the page cache afresh each time. Chunks not written
    /// since the origin, where `frozen` holds the origin's own chunk, are
    /// left as they are; whole segments so when `frozen` shares the
    /// origin's segment. The others are copied. `frozen` becomes the
    /// origin. Returns how many chunks it copied.
    pub fn thaw_into(&mut self, frozen: &Frozen<T, N>) -> usize {
        let origin = self.origin.take();
        let n = frozen.len;
        // Items past the frozen length go; a chunk they shortened was
        // written or is not the origin's, so it is copied below.
        let mut have = self.items.len().min(n);
        // The vector grows chunk by chunk below: room for all of them at
        // once, and an eighth more for the items the run adds after, so
        // that neither the thaw nor the replay that follows it reallocates
        // and copies what is there (a seeker's first move to the end of a
        // large run thaws every node into an empty vector).
        let room = n + n / 8;
        if self.items.capacity() < room {
            self.items.reserve_exact(room - self.items.len());
        }
        let mut copied = 0;
        for (g, seg) in frozen.segments.iter().enumerate() {
            let clean_word = self.dirty.get(g).copied().unwrap_or(u64::MAX);
            let origin_seg = origin.as_ref().and_then(|o| o.segments.get(g));
            let seg_end = (g * SEGMENT + seg.len()) * N;
            if clean_word == 0
                && seg_end.min(n) <= have
                && origin_seg.is_some_and(|o| Rc::ptr_eq(o, seg))
            {
                continue;
            }
            for (k, chunk) in seg.iter().enumerate() {
                let c = g * SEGMENT + k;
                let start = c * N;
                let kept = start + chunk.len() <= have
                    && clean_word & (1 << k) == 0
                    && origin_seg
                        .and_then(|o| o.get(k))
                        .is_some_and(|o| Rc::ptr_eq(o, chunk));
                if kept {
                    continue;
                }
                copied += 1;
                if start + chunk.len() <= have {
                    self.items[start..start + chunk.len()].clone_from_slice(chunk);
                } else {
                    // The first chunk past what is kept: from here on the
                    // vector grows chunk by chunk.
                    self.items.truncate(start);
                    self.items.extend_from_slice(chunk);
                    have = self.items.len();
                }
            }
        }
        self.items.truncate(n);
        self.dirty.clear();
        self.dirty.resize(n.div_ceil(N).div_ceil(64), 0);
        self.origin = Some(frozen.clone());
        copied
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
        let first = v.freeze();
        assert_eq!(
            first.new_bytes(),
            3 * 4 * 8 + SEG + LIST,
            "all three chunks copied"
        );
        v[5] = 1;
        let second = v.freeze();
        assert_eq!(
            second.new_bytes(),
            4 * 8 + SEG + LIST,
            "only the written chunk copied"
        );
        let third = v.freeze();
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
        let first = v.freeze();
        assert_eq!(first.new_bytes(), 200 + 4 * SEG + 4 * LIST);
        v[70] = 1;
        let second = v.freeze();
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
        let a = v.freeze();
        v.push(20);
        let b = v.freeze();
        assert_eq!(b.new_bytes(), 8 * 4 + SEG + LIST, "the last chunk grew");
        let mut back = TrackedVec::thaw(&b);
        assert_eq!(
            back.iter().copied().collect::<Vec<_>>(),
            (0..21).collect::<Vec<_>>()
        );
        let c = back.freeze();
        assert_eq!(
            c.new_bytes(),
            LIST,
            "a thawed copy shares what it was given"
        );
        back[0] = 9;
        assert_eq!(back.freeze().new_bytes(), 8 * 4 + SEG + LIST);
        assert_eq!(TrackedVec::thaw(&a).len(), 20);
    }

    #[test]
    fn a_thaw_copies_only_the_chunks_that_differ() {
        // 300 chunks of 4: five segments.
        let mut v: TrackedVec<u64, 4> = TrackedVec::filled(0, 1200);
        let a = v.freeze();
        v[5] = 1;
        v[900] = 2;
        let b = v.freeze();
        let mut seeker = TrackedVec::thaw(&a);
        assert_eq!(seeker.thaw_into(&b), 2, "a to b: the two chunks written");
        assert!(seeker == v);
        assert_eq!(seeker.thaw_into(&b), 0, "b to b: nothing");
        seeker[1199] = 3;
        assert_eq!(
            seeker.thaw_into(&a),
            3,
            "b to a: those two, and the one written since"
        );
        assert_eq!(seeker.iter().filter(|&&x| x != 0).count(), 0);
        assert_eq!(seeker.thaw_into(&a), 0);
        // A copy frozen elsewhere holds equal chunks, not the same ones.
        let other = TrackedVec::<u64, 4>::filled(0, 1200).freeze();
        assert_eq!(seeker.thaw_into(&other), 300);
    }

    #[test]
    fn a_thaw_into_an_empty_vector_leaves_room_to_grow_without_copying() {
        // 1024 items: a vector grown by doubling would be full.
        let frozen = TrackedVec::<u32, 4>::filled(0, 1024).freeze();
        let mut seeker = TrackedVec::default();
        seeker.thaw_into(&frozen);
        let at = seeker.items.as_ptr();
        for i in 0..128 {
            seeker.push(i);
        }
        assert_eq!(seeker.len(), 1152);
        assert_eq!(
            seeker.items.as_ptr(),
            at,
            "an eighth more items fit where the thaw put them"
        );
    }

    #[test]
    fn a_thaw_grows_and_shrinks_to_the_frozen_length() {
        let mut v: TrackedVec<u32, 4> = TrackedVec::default();
        for i in 0..10 {
            v.push(i);
        }
        let short = v.freeze();
        for i in 10..300 {
            v.push(i);
        }
        let long = v.freeze();
        let mut seeker = TrackedVec::thaw(&short);
        assert_eq!(
            seeker.thaw_into(&long),
            75 - 2,
            "the short copy's two whole chunks kept"
        );
        assert!(seeker == v);
        assert_eq!(seeker.thaw_into(&short), 1, "only the shortened chunk");
        assert_eq!(
            seeker.iter().copied().collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>()
        );
        seeker.push(10);
        assert_eq!(seeker.thaw_into(&long), 75 - 2);
        assert!(seeker == v);
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// Whatever was written, pushed, frozen and thawed before, a thaw
        /// leaves the vector equal to the frozen copy's items.
        #[test]
        fn a_thaw_restores_the_frozen_items(
            ops in proptest::collection::vec((0u8..4, 0usize..700, proptest::prelude::any::<u16>()), 1..300)
        ) {
            let mut builder: TrackedVec<u16, 4> = TrackedVec::filled(0, 100);
            let mut frozen: Vec<(Frozen<u16, 4>, Vec<u16>)> = Vec::new();
            let mut seeker: TrackedVec<u16, 4> = TrackedVec::default();
            for (op, i, x) in ops {
                match op {
                    0 => {
                        let len = builder.len();
                        builder[i % len] = x;
                    }
                    1 => builder.push(x),
                    2 => frozen.push((builder.freeze(), builder.iter().copied().collect())),
                    _ if !frozen.is_empty() => {
                        let (f, items) = &frozen[i % frozen.len()];
                        seeker.thaw_into(f);
                        proptest::prop_assert_eq!(&seeker.iter().copied().collect::<Vec<_>>(), items);
                        if x % 3 == 0 && !items.is_empty() {
                            seeker[x as usize % items.len()] = x;
                        }
                        if x % 5 == 0 {
                            seeker.push(x);
                        }
                    }
                    _ => {}
                }
            }
            for (f, items) in &frozen {
                proptest::prop_assert_eq!(&TrackedVec::thaw(f).iter().copied().collect::<Vec<_>>(), items);
            }
        }
    }
}
