//! Storage for the xarray's nodes and the page tables that can be frozen
//! cheaply. Not a kernel structure: it exists for the timeline's
//! checkpoints.
//!
//! The live machine keeps its items in one flat vector, since the model
//! reads nodes on every lookup and an extra pointer per read cost a tenth
//! of a walk's time. A table of segments in front of the items (4096
//! nodes a segment, so that an arena could grow without a whole file's
//! room taken in one piece) costs the same way: its one more load per
//! read took the 2 GiB backward walk from 80 to 89-94 ms natively
//! (2026-12-07). Each write marks its chunk of `N` items dirty. A
//! frozen copy is a list of chunks kept in a [`Store`]: freezing again
//! copies only the chunks written since the last freeze and shares the
//! rest with it, so a checkpoint costs what changed in its interval, not
//! the whole page cache. The list itself is cut into segments of 64
//! chunks (one word of dirty bits), and a segment with no chunk written
//! is shared too: otherwise the list would cost each checkpoint of a
//! 16 GiB file a word a node however little changed.
//!
//! A frozen chunk is packed into words ([`Frozenable`]): an xarray node
//! keeps its head and only the slots that hold something and differ from
//! the one before them, and a chunk of PTE words with few of them set
//! keeps only those. On the 16 GiB
//! comparison, whose nodes hold 9 to 11 entries of 64, a kernel's
//! timeline peaked at 84.5 MB instead of 111.6 with nodes packed, and at
//! 66.0 MB with the PTE words too (natively, the walk example); the
//! app's wasm memory after the timing test's jumps and play came to 232
//! and then 199 MB instead of 285 (2026-12-06). With nodes packed, its
//! jumps took the same time in Chromium (the thaws against the strips'
//! bins in CPU profiles of the 40 jumps, three of each build). A leaf
//! full of page-sized folios (a file read whole) packs to its head and
//! one word: the 16 GiB backward walk's timeline peaked at 72.4 MB
//! instead of 104.1.
//!
//! Chunks and segments are slots of the store, named by number, not
//! reference-counted allocations: a freeze of a written segment copies
//! the numbers of its unwritten chunks and touches nothing else. With a
//! count in each chunk, that freeze incremented 63 counts, each in a
//! chunk somewhere in memory: in a profile of the 16 GiB link's build,
//! those increments were most of the freeze's time, and the decrements
//! when checkpoints were dropped cost about as much again. The owner of
//! the store (the timeline being built) instead frees what no kept copy
//! reaches, with [`Store::sweep`], when it drops checkpoints.
//!
//! The live vector remembers the frozen copy it was last frozen to or
//! thawed from, its origin: each chunk not written since equals the
//! origin's chunk at its place. Freezing shares those chunks, and thawing
//! a copy that holds the very same chunk (the same slot of the same
//! store) leaves them as they are. A seeker moving between checkpoints
//! then copies only the chunks that differ between them, not the whole
//! page cache. A slot is reused only after a sweep, and a sweep keeps
//! every origin it is given, so equal slots mean equal chunks.

use std::marker::PhantomData;
use std::ops::{Index, IndexMut};
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

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

/// A word whose `k` lowest bits are set (`k` at most 64).
fn low_bits(k: usize) -> u64 {
    if k >= 64 {
        u64::MAX
    } else {
        (1u64 << k) - 1
    }
}

/// Bit i is set when `words[i]` is not 0, for at most 64 words: the
/// PTE words a packed chunk keeps, and a node's slots in use. Out of
/// line, for the app's size budget: both packings ask.
#[inline(never)]
pub(crate) fn nonzero_bits(words: &[u64]) -> u64 {
    let mut bits = 0;
    for (i, &w) in words.iter().enumerate() {
        bits |= u64::from(w != 0) << i;
    }
    bits
}

/// How many of segment `g`'s first `k_end` chunks of `N` items, in a
/// vector of `n` items, lie whole before item `have`: a prefix of them.
fn present_chunks<const N: usize>(g: usize, k_end: usize, n: usize, have: usize) -> usize {
    if have >= n {
        return k_end;
    }
    // Each chunk but the vector's last ends N items after its start, and
    // that one ends at `n`, past `have`.
    (have / N).saturating_sub(g * SEGMENT).min(k_end)
}

/// The frozen form: the numbers of its segments in a [`Store`], each
/// segment the numbers of up to [`SEGMENT`] chunks there.
#[derive(Clone, Debug)]
pub struct Frozen<T: Clone, const N: usize> {
    /// The store's identity: slots of another store are other chunks.
    store: u32,
    segments: Rc<[u32]>,
    len: usize,
    /// Bytes of the chunks and segments this freeze made, and of its
    /// segment list.
    new_bytes: usize,
    items: PhantomData<fn() -> T>,
}

/// How a chunk of items is kept frozen: packed into words, so that an
/// item with little in it (an xarray node holding a few entries of its
/// 64 slots) takes little room in every checkpoint that copies it.
pub trait Frozenable: Clone {
    /// Appends the packed form of `items`, one chunk, to `out`.
    fn pack(items: &[Self], out: &mut Vec<u64>);
    /// Unpacks `words` (a chunk `pack` made) over `out`, whose length is
    /// the chunk's.
    fn unpack(words: &[u64], out: &mut [Self]);
    /// Unpacks the `n` items of `words` onto the end of `out`.
    fn unpack_push(words: &[u64], n: usize, out: &mut Vec<Self>);
}

#[cfg(test)]
macro_rules! frozen_as_words {
    ($($t:ty),*) => {$(
        /// One word an item.
        impl Frozenable for $t {
            fn pack(items: &[Self], out: &mut Vec<u64>) {
                out.extend(items.iter().map(|&x| x as u64));
            }
            fn unpack(words: &[u64], out: &mut [Self]) {
                for (o, &w) in out.iter_mut().zip(words) {
                    *o = w as $t;
                }
            }
            fn unpack_push(words: &[u64], n: usize, out: &mut Vec<Self>) {
                out.extend(words[..n].iter().map(|&w| w as $t));
            }
        }
    )*};
}
// The tests' vectors; the model freezes nodes and words.
#[cfg(test)]
frozen_as_words!(u8, u16, u32);

/// Words, as the page tables' bits are: a chunk with few words set (a
/// random walk maps a page here and a few there) keeps a bit a word for
/// which are set, then those words; any other chunk is copied whole, at
/// its own length, which is how `unpack` tells the two apart. On the
/// 16 GiB comparison most of a checkpoint's PTE chunks hold a few set
/// words of 32 (`PTE_CHUNK`). An item by item loop where a whole copy
/// does would be no copy in the app's wasm: the 16 GiB jumps took about
/// 3% longer so.
impl Frozenable for u64 {
    fn pack(items: &[Self], out: &mut Vec<u64>) {
        let masks = items.len().div_ceil(64);
        let set = items.iter().filter(|&&w| w != 0).count();
        if masks + set >= items.len() {
            out.extend_from_slice(items);
            return;
        }
        for block in items.chunks(64) {
            out.push(nonzero_bits(block));
        }
        out.extend(items.iter().copied().filter(|&w| w != 0));
    }

    fn unpack(words: &[u64], out: &mut [Self]) {
        if words.len() == out.len() {
            out.copy_from_slice(words);
            return;
        }
        out.fill(0);
        let masks = out.len().div_ceil(64);
        let mut next = masks;
        for (j, &mask) in words[..masks].iter().enumerate() {
            let mut rest = mask;
            while rest != 0 {
                out[j * 64 + rest.trailing_zeros() as usize] = words[next];
                next += 1;
                rest &= rest - 1;
            }
        }
    }

    fn unpack_push(words: &[u64], n: usize, out: &mut Vec<Self>) {
        let start = out.len();
        out.resize(start + n, 0);
        Self::unpack(words, &mut out[start..]);
    }
}

/// Slots of `N` items, in blocks that never move: a block is allocated
/// full size and only ever filled, so a chunk's memory stays where it
/// was written, and a large store never copies itself to grow.
#[derive(Debug)]
struct Slots<T: Clone, const N: usize> {
    blocks: Vec<Vec<T>>,
    /// Slots freed by a sweep, reused before new ones.
    free: Vec<u32>,
    /// Slots made, free or not.
    made: usize,
}

impl<T: Clone, const N: usize> Slots<T, N> {
    /// Slots per block: about 64 KiB of items.
    const PER_BLOCK: usize = {
        let bytes = N * std::mem::size_of::<T>();
        if bytes == 0 || bytes >= 1 << 16 {
            1
        } else {
            (1 << 16) / bytes
        }
    };

    fn new() -> Self {
        Slots {
            blocks: Vec::new(),
            free: Vec::new(),
            made: 0,
        }
    }

    /// A slot holding `items`, at most `N` of them and at least one.
    fn put(&mut self, items: &[T]) -> u32 {
        debug_assert!(!items.is_empty() && items.len() <= N);
        if let Some(s) = self.free.pop() {
            let at = (s as usize % Self::PER_BLOCK) * N;
            self.blocks[s as usize / Self::PER_BLOCK][at..at + items.len()].clone_from_slice(items);
            return s;
        }
        if self
            .blocks
            .last()
            .is_none_or(|b| b.len() == Self::PER_BLOCK * N)
        {
            self.blocks.push(Vec::with_capacity(Self::PER_BLOCK * N));
        }
        let block = self.blocks.last_mut().expect("a block with room");
        block.extend_from_slice(items);
        // A short chunk (the last of a vector) still fills its slot, so
        // that the next slot starts where the arithmetic says.
        let last = items[items.len() - 1].clone();
        block.resize(block.len() + N - items.len(), last);
        self.made += 1;
        (self.made - 1) as u32
    }

    /// The first `len` items of slot `s`.
    #[inline]
    fn get(&self, s: u32, len: usize) -> &[T] {
        let at = (s as usize % Self::PER_BLOCK) * N;
        &self.blocks[s as usize / Self::PER_BLOCK][at..at + len]
    }

    /// Slots in use.
    fn used(&self) -> usize {
        self.made - self.free.len()
    }

    /// Frees every slot not marked, and not free already.
    fn free_unmarked(&mut self, mut marked: Vec<bool>) {
        for &s in &self.free {
            marked[s as usize] = true;
        }
        let newly: Vec<u32> = (0..self.made as u32)
            .filter(|&s| !marked[s as usize])
            .collect();
        self.free.extend(newly);
    }
}

/// Packed chunks of any length, in blocks of words that never move: a
/// block is allocated full size and only ever filled, so a chunk's
/// memory stays where it was written, and a large store never copies
/// itself to grow. The words a sweep frees go to the next chunk that
/// fits in them, the tightest fit first, so that they are never left
/// for want of a chunk of the very same length.
#[derive(Debug, Default)]
struct PackedSlots {
    blocks: Vec<Vec<u64>>,
    /// Each slot's block, offset, length and room, in words: a chunk put
    /// in freed words may leave some of them unused.
    places: Vec<Place>,
    /// Slots freed by a sweep, reused before new ones.
    free: Vec<u32>,
    /// Words freed by a sweep, by their room: (block, offset).
    holes: Vec<Vec<(u32, u32)>>,
    /// Words held by the slots in use, their unused room included.
    used_words: usize,
}

#[derive(Clone, Copy, Debug)]
struct Place {
    block: u32,
    offset: u32,
    len: u32,
    room: u32,
}

impl PackedSlots {
    /// Words a block holds, 64 KiB, or more for a longer chunk.
    const BLOCK_WORDS: usize = 8192;

    /// A slot holding `words`, which it copies.
    fn put(&mut self, words: &[u64]) -> u32 {
        let len = words.len();
        let freed =
            (len..self.holes.len()).find_map(|room| self.holes[room].pop().map(|at| (at, room)));
        let place = match freed {
            Some(((block, offset), room)) => {
                let at = offset as usize;
                self.blocks[block as usize][at..at + len].copy_from_slice(words);
                Place {
                    block,
                    offset,
                    len: len as u32,
                    room: room as u32,
                }
            }
            None => {
                if self
                    .blocks
                    .last()
                    .is_none_or(|b| b.len() + len > b.capacity())
                {
                    self.blocks
                        .push(Vec::with_capacity(Self::BLOCK_WORDS.max(len)));
                }
                let block = self.blocks.last_mut().expect("a block with room");
                let offset = block.len() as u32;
                block.extend_from_slice(words);
                Place {
                    block: (self.blocks.len() - 1) as u32,
                    offset,
                    len: len as u32,
                    room: len as u32,
                }
            }
        };
        self.used_words += place.room as usize;
        match self.free.pop() {
            Some(s) => {
                self.places[s as usize] = place;
                s
            }
            None => {
                self.places.push(place);
                (self.places.len() - 1) as u32
            }
        }
    }

    /// The words of slot `s`.
    #[inline]
    fn get(&self, s: u32) -> &[u64] {
        let p = self.places[s as usize];
        &self.blocks[p.block as usize][p.offset as usize..(p.offset + p.len) as usize]
    }

    /// Slots made, free or not.
    fn made(&self) -> usize {
        self.places.len()
    }

    /// Frees every slot not marked, and not free already, keeping its
    /// words for a later chunk that fits in them.
    fn free_unmarked(&mut self, mut marked: Vec<bool>) {
        for &s in &self.free {
            marked[s as usize] = true;
        }
        for (s, p) in self.places.iter().enumerate() {
            if marked[s] {
                continue;
            }
            let room = p.room as usize;
            if self.holes.len() <= room {
                self.holes.resize_with(room + 1, Vec::new);
            }
            self.holes[room].push((p.block, p.offset));
            self.used_words -= room;
            self.free.push(s as u32);
        }
    }
}

/// Where frozen copies keep their chunks and segments. Its owner frees
/// what it no longer needs with [`Store::sweep`].
#[derive(Debug)]
pub struct Store<T: Clone, const N: usize> {
    id: u32,
    chunks: PackedSlots,
    segments: Slots<u32, SEGMENT>,
    /// Scratch for packing a chunk.
    packing: Vec<u64>,
    items: PhantomData<fn() -> T>,
}

impl<T: Clone, const N: usize> Default for Store<T, N> {
    fn default() -> Self {
        static NEXT_ID: AtomicU32 = AtomicU32::new(0);
        Store {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            chunks: PackedSlots::default(),
            segments: Slots::new(),
            packing: Vec::new(),
            items: PhantomData,
        }
    }
}

impl<T: Clone, const N: usize> Store<T, N> {
    /// Bytes of one segment's chunk numbers.
    const SEGMENT_BYTES: usize = SEGMENT * std::mem::size_of::<u32>();

    /// Bytes of the chunks and segments in use.
    pub fn bytes(&self) -> usize {
        self.chunks.used_words * 8 + self.segments.used() * Self::SEGMENT_BYTES
    }

    /// Frees the chunks and segments that none of `kept` reaches. Every
    /// frozen copy still to be thawed or frozen against (a live vector's
    /// origin too) must be among them: their slots may be reused.
    pub fn sweep<'a>(&mut self, kept: impl IntoIterator<Item = &'a Frozen<T, N>>)
    where
        T: 'a,
    {
        let mut segments = vec![false; self.segments.made];
        let mut chunks = vec![false; self.chunks.made()];
        for f in kept.into_iter().filter(|f| f.store == self.id) {
            for (g, &s) in f.segments.iter().enumerate() {
                if !std::mem::replace(&mut segments[s as usize], true) {
                    for &c in self.segments.get(s, f.segment_chunks(g)) {
                        chunks[c as usize] = true;
                    }
                }
            }
        }
        self.segments.free_unmarked(segments);
        self.chunks.free_unmarked(chunks);
    }
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
    /// thaw shares nothing.
    pub fn forget_origin(&mut self) {
        let chunks = self.items.len().div_ceil(N);
        self.dirty = vec![u64::MAX; chunks.div_ceil(64)];
        self.origin = None;
    }

    /// The frozen copy of the last freeze or thaw, which a sweep of its
    /// store must keep while this vector may be frozen again.
    pub fn origin(&self) -> Option<&Frozen<T, N>> {
        self.origin.as_ref()
    }

    /// Marks the chunk of item `i`, which must exist: `push` and `filled`
    /// size the marks.
    #[inline]
    fn mark(&mut self, i: usize) {
        let c = i >> Self::CHUNK_SHIFT;
        self.dirty[c / 64] |= 1 << (c % 64);
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        self.items.get(i)
    }

    /// Gives back the room reserved past the items: the allocator shrinks
    /// the vector where it stands, copying nothing.
    pub fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
        self.dirty.shrink_to_fit();
    }

    /// Items the vector has room for without growing.
    pub fn capacity(&self) -> usize {
        self.items.capacity()
    }

    /// Room for `additional` more items, so that pushing them never
    /// reallocates and copies the vector.
    pub fn reserve(&mut self, additional: usize) {
        self.items.reserve_exact(additional);
        let chunks = (self.items.len() + additional).div_ceil(N);
        let words = chunks.div_ceil(64);
        self.dirty
            .reserve_exact(words.saturating_sub(self.dirty.len()));
    }

    /// Writes `value` into the room past the items, once every 4 KiB
    /// (the page of the OS under a wasm memory too), so that the pages
    /// behind the room are in memory before a run fills it. The items are
    /// unchanged: the writes are to room no item holds yet.
    pub fn touch_room(&mut self, value: T)
    where
        T: Copy,
    {
        let per_page = (4096 / std::mem::size_of::<T>().max(1)).max(1);
        for slot in self.items.spare_capacity_mut().iter_mut().step_by(per_page) {
            slot.write(value);
        }
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

    /// The items, to read; reading needs no mark.
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }

    pub fn memory_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<T>() + self.dirty.capacity() * 8
    }

    /// A frozen copy, kept in `store`. Chunks not written since the
    /// origin (the last freeze or thaw) are shared with it, and so are
    /// segments none of whose chunks were written; the others are copied.
    /// Clears the marks, and the copy becomes the origin.
    pub fn freeze(&mut self, store: &mut Store<T, N>) -> Frozen<T, N>
    where
        T: Frozenable,
    {
        let prev = self.origin.take().filter(|o| o.store == store.id);
        let len = self.items.len();
        let n = len.div_ceil(N);
        let nsegs = n.div_ceil(SEGMENT);
        let mut segments = Vec::with_capacity(nsegs);
        let (mut copied_words, mut new_segments) = (0, 0);
        for g in 0..nsegs {
            let chunks = g * SEGMENT..((g + 1) * SEGMENT).min(n);
            // The segment's marks: one word, as SEGMENT is 64.
            let written = self.dirty.get(g).copied().unwrap_or(0);
            let prev_seg = prev.as_ref().and_then(|p| Some((p, *p.segments.get(g)?)));
            // A segment is shared whole when none of its chunks was written
            // and it covers the same items in both.
            if let Some((p, s)) = prev_seg {
                if written == 0 && p.covers_alike(len, chunks.end * N) {
                    segments.push(s);
                    continue;
                }
            }
            let mut ids = [0u32; SEGMENT];
            let prev_ids = prev_seg.map(|(p, s)| {
                let k = p.segment_chunks(g);
                ids[..k].copy_from_slice(store.segments.get(s, k));
                (p, k)
            });
            // The chunks shared with the previous copy, as bits, so that
            // the walk below visits only the ones it copies (as in
            // `thaw_into`): the previous copy's chunks at their places,
            // not written since, and covering the same items in both.
            let shared = prev_ids.map_or(0, |(p, have)| {
                let alike = if p.len == len {
                    chunks.len()
                } else {
                    (p.len.min(len) / N).saturating_sub(g * SEGMENT)
                };
                low_bits(have.min(alike)) & !written
            });
            let mut copy = low_bits(chunks.len()) & !shared;
            while copy != 0 {
                let k = copy.trailing_zeros() as usize;
                copy &= copy - 1;
                let c = g * SEGMENT + k;
                store.packing.clear();
                T::pack(&self.items[self.chunk_range(c)], &mut store.packing);
                ids[k] = store.chunks.put(&store.packing);
                copied_words += store.packing.len();
            }
            segments.push(store.segments.put(&ids[..chunks.len()]));
            new_segments += 1;
        }
        self.dirty.iter_mut().for_each(|w| *w = 0);
        let frozen = Frozen {
            store: store.id,
            new_bytes: copied_words * 8
                + new_segments * Store::<T, N>::SEGMENT_BYTES
                + Frozen::<T, N>::list_bytes(nsegs),
            segments: segments.into(),
            len,
            items: PhantomData,
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
    pub fn thaw(frozen: &Frozen<T, N>, store: &Store<T, N>) -> Self
    where
        T: Frozenable,
    {
        let mut v = TrackedVec::default();
        v.thaw_into(frozen, store);
        v
    }

    /// Makes this vector the frozen one's items, in the memory it has:
    /// a timeline's seeker moves from checkpoint to checkpoint without
    /// allocating the page cache afresh each time. Chunks not written
    /// since the origin, where `frozen` holds the origin's own chunk, are
    /// left as they are; whole segments so when `frozen` shares the
    /// origin's segment. The others are copied from `store`, which holds
    /// `frozen`. `frozen` becomes the origin. Returns how many chunks it
    /// copied.
    pub fn thaw_into(&mut self, frozen: &Frozen<T, N>, store: &Store<T, N>) -> usize
    where
        T: Frozenable,
    {
        debug_assert_eq!(frozen.store, store.id, "thawed from its own store");
        let origin = self.origin.take().filter(|o| o.store == frozen.store);
        let n = frozen.len;
        // Items past the frozen length go; a chunk they shortened was
        // written or is not the origin's, so it is copied below.
        let mut have = self.items.len().min(n);
        // The vector grows chunk by chunk below. Without room for all of
        // them (a restored xarray keeps room for the most nodes its run
        // held), room for them at once and an eighth more for the items
        // the run adds after, so
        // that neither the thaw nor the replay that follows it reallocates
        // and copies what is there (a seeker's first move to the end of a
        // large run thaws every node into an empty vector).
        if self.items.capacity() < n {
            self.items.reserve_exact(n + n / 8 - self.items.len());
        }
        let mut copied = 0;
        for (g, &seg) in frozen.segments.iter().enumerate() {
            let dirty_word = self.dirty.get(g).copied().unwrap_or(u64::MAX);
            let origin_seg = origin.as_ref().and_then(|o| Some((o, *o.segments.get(g)?)));
            let k_end = frozen.segment_chunks(g);
            let seg_end = ((g * SEGMENT + k_end) * N).min(n);
            if dirty_word == 0 && seg_end <= have && origin_seg.is_some_and(|(_, s)| s == seg) {
                continue;
            }
            let ids = store.segments.get(seg, k_end);
            // The chunks kept as they are, as bits: present whole (before
            // `have`), not written since the origin, and the origin's own
            // chunk at that place. Found word-wise first, so that the walk
            // below visits only the chunks it copies: with chunks of one
            // node, a 16 GiB file's thaw met some 30,000 of them to copy
            // a few thousand.
            let mut kept = match origin_seg {
                Some(_) => low_bits(present_chunks::<N>(g, k_end, n, have)) & !dirty_word,
                None => 0,
            };
            // The origin's chunk numbers are read only where a chunk may
            // be kept: not for a segment written through.
            if let Some((o, s)) = origin_seg.filter(|_| kept != 0) {
                let origin_ids = store.segments.get(s, o.segment_chunks(g));
                let mut same = 0u64;
                for (k, (a, b)) in ids.iter().zip(origin_ids).enumerate() {
                    same |= ((a == b) as u64) << k;
                }
                kept &= same;
            }
            let mut copy = low_bits(k_end) & !kept;
            while copy != 0 {
                let k = copy.trailing_zeros() as usize;
                copy &= copy - 1;
                let start = (g * SEGMENT + k) * N;
                let end = (start + N).min(n);
                copied += 1;
                let words = store.chunks.get(ids[k]);
                if end <= have {
                    T::unpack(words, &mut self.items[start..end]);
                } else {
                    // The first chunk past what is kept: from here on the
                    // vector grows chunk by chunk.
                    self.items.truncate(start);
                    T::unpack_push(words, end - start, &mut self.items);
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
    /// Bytes of a list of `segments` segments.
    fn list_bytes(segments: usize) -> usize {
        segments * std::mem::size_of::<u32>()
    }

    /// Chunks in segment `g`.
    fn segment_chunks(&self, g: usize) -> usize {
        (self.len.div_ceil(N) - g * SEGMENT).min(SEGMENT)
    }

    /// Whether this copy's items and a vector of `len` items end alike
    /// before item `end`: both reach it, or both stop at the same place.
    fn covers_alike(&self, len: usize, end: usize) -> bool {
        self.len.min(end) == len.min(end)
    }

    /// Items in the frozen vector.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes this freeze added beside the chunks and segments it shared.
    pub fn new_bytes(&self) -> usize {
        self.new_bytes
    }

    /// Bytes of its own: the list of its segments. The chunks and
    /// segments are counted once for the store ([`Store::bytes`]).
    pub fn own_bytes(&self) -> usize {
        Self::list_bytes(self.segments.len())
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

    /// Bytes of one segment's chunk numbers, and of one entry of the list
    /// of segments.
    const SEG: usize = SEGMENT * 4;
    const LIST: usize = 4;

    #[test]
    fn touching_the_room_changes_no_item_and_marks_no_chunk() {
        let mut store = Store::default();
        let mut v: TrackedVec<u64, 4> = TrackedVec::filled(7, 10);
        let _ = v.freeze(&mut store);
        v.reserve(5000);
        let room = v.items.capacity();
        v.touch_room(9);
        assert_eq!(v.as_slice(), &[7; 10]);
        assert_eq!(v.items.capacity(), room, "the room is the same room");
        assert_eq!(
            v.freeze(&mut store).new_bytes(),
            LIST,
            "nothing written, nothing copied"
        );
        v.push(3);
        assert_eq!(v.as_slice()[10..], [3]);
    }

    #[test]
    fn a_freeze_shares_what_was_not_written() {
        let mut store = Store::default();
        let mut v: TrackedVec<u64, 4> = TrackedVec::filled(7, 10);
        let first = v.freeze(&mut store);
        assert_eq!(
            first.new_bytes(),
            10 * 8 + SEG + LIST,
            "all three chunks copied, the last holding two items"
        );
        v[5] = 1;
        let second = v.freeze(&mut store);
        assert_eq!(
            second.new_bytes(),
            4 * 8 + SEG + LIST,
            "only the written chunk copied"
        );
        let third = v.freeze(&mut store);
        assert_eq!(third.new_bytes(), LIST, "nothing written, nothing copied");
        assert_eq!(store.bytes(), (10 + 4) * 8 + 2 * SEG);
        assert_eq!(
            first.own_bytes() + second.own_bytes() + third.own_bytes(),
            3 * LIST
        );
        assert_eq!(
            TrackedVec::thaw(&first, &store)[5],
            7,
            "the first copy kept its value"
        );
        assert_eq!(TrackedVec::thaw(&third, &store)[5], 1);
        assert!(TrackedVec::thaw(&third, &store) == v);
    }

    #[test]
    fn segments_with_nothing_written_are_shared_whole() {
        // 200 chunks of one item, a word each: four segments.
        let mut store = Store::default();
        let mut v: TrackedVec<u8, 1> = TrackedVec::filled(0, 200);
        let first = v.freeze(&mut store);
        assert_eq!(first.new_bytes(), 200 * 8 + 4 * SEG + 4 * LIST);
        v[70] = 1;
        let second = v.freeze(&mut store);
        assert_eq!(
            second.new_bytes(),
            8 + SEG + 4 * LIST,
            "one chunk and its segment copied"
        );
        assert_eq!(store.bytes(), 201 * 8 + 5 * SEG);
        assert_eq!(TrackedVec::thaw(&first, &store)[70], 0);
        assert!(TrackedVec::thaw(&second, &store) == v);
    }

    #[test]
    fn pushes_and_thawed_copies_freeze_in_full() {
        let mut store = Store::default();
        let mut v: TrackedVec<u32, 8> = TrackedVec::default();
        for i in 0..20 {
            v.push(i);
        }
        let a = v.freeze(&mut store);
        v.push(20);
        let b = v.freeze(&mut store);
        assert_eq!(
            b.new_bytes(),
            5 * 8 + SEG + LIST,
            "the last chunk grew to five"
        );
        let mut back = TrackedVec::thaw(&b, &store);
        assert_eq!(
            back.iter().copied().collect::<Vec<_>>(),
            (0..21).collect::<Vec<_>>()
        );
        let c = back.freeze(&mut store);
        assert_eq!(
            c.new_bytes(),
            LIST,
            "a thawed copy shares what it was given"
        );
        back[0] = 9;
        assert_eq!(back.freeze(&mut store).new_bytes(), 8 * 8 + SEG + LIST);
        assert_eq!(TrackedVec::thaw(&a, &store).len(), 20);
    }

    #[test]
    fn a_thaw_copies_only_the_chunks_that_differ() {
        // 300 chunks of 4: five segments.
        let mut store = Store::default();
        let mut v: TrackedVec<u64, 4> = TrackedVec::filled(0, 1200);
        let a = v.freeze(&mut store);
        v[5] = 1;
        v[900] = 2;
        let b = v.freeze(&mut store);
        let mut seeker = TrackedVec::thaw(&a, &store);
        assert_eq!(
            seeker.thaw_into(&b, &store),
            2,
            "a to b: the two chunks written"
        );
        assert!(seeker == v);
        assert_eq!(seeker.thaw_into(&b, &store), 0, "b to b: nothing");
        seeker[1199] = 3;
        assert_eq!(
            seeker.thaw_into(&a, &store),
            3,
            "b to a: those two, and the one written since"
        );
        assert_eq!(seeker.iter().filter(|&&x| x != 0).count(), 0);
        assert_eq!(seeker.thaw_into(&a, &store), 0);
        // A copy frozen elsewhere holds equal chunks, not the same ones.
        let other = TrackedVec::<u64, 4>::filled(0, 1200).freeze(&mut store);
        assert_eq!(seeker.thaw_into(&other, &store), 300);
    }

    #[test]
    fn the_same_slots_of_another_store_are_other_chunks() {
        let (mut one, mut two) = (Store::default(), Store::default());
        let a = TrackedVec::<u64, 4>::filled(1, 8).freeze(&mut one);
        let mut w = TrackedVec::<u64, 4>::filled(2, 8);
        let b = w.freeze(&mut two);
        let mut seeker = TrackedVec::thaw(&a, &one);
        assert_eq!(seeker.thaw_into(&b, &two), 2, "both chunks copied");
        assert!(seeker == w);
        let mut three = Store::default();
        assert_eq!(
            seeker.freeze(&mut three).new_bytes(),
            2 * 4 * 8 + SEG + LIST,
            "a freeze into a store that is not the origin's shares nothing"
        );
    }

    #[test]
    fn a_sweep_frees_what_no_kept_copy_reaches_and_the_next_freeze_reuses_it() {
        // Two chunks of 4 in one segment.
        let mut store = Store::default();
        // Words of 9, none unset: chunks kept whole.
        let mut v: TrackedVec<u64, 4> = TrackedVec::filled(9, 8);
        let a = v.freeze(&mut store);
        v[0] = 1;
        let b = v.freeze(&mut store);
        v[0] = 2;
        let c = v.freeze(&mut store);
        assert_eq!(store.bytes(), 4 * 32 + 3 * SEG);
        drop(b);
        // `c` is also `v`'s origin.
        store.sweep([&a, &c]);
        assert_eq!(
            store.bytes(),
            3 * 32 + 2 * SEG,
            "b's own chunk and segment freed"
        );
        v[0] = 3;
        let d = v.freeze(&mut store);
        assert_eq!(store.bytes(), 4 * 32 + 3 * SEG);
        assert_eq!(
            (store.chunks.made(), store.segments.made),
            (4, 3),
            "d took b's slots"
        );
        for (f, x) in [(&a, 9), (&c, 2), (&d, 3)] {
            let back = TrackedVec::thaw(f, &store);
            assert_eq!((back[0], back[4], back.len()), (x, 9, 8));
        }
    }

    #[test]
    fn freed_words_take_a_shorter_chunk_the_tightest_fit_first() {
        let mut slots = PackedSlots::default();
        let (a, b, c) = (slots.put(&[1; 5]), slots.put(&[2; 3]), slots.put(&[3; 4]));
        assert_eq!(slots.used_words, 12);
        // Free the chunks of 5 and 3 words; the one of 4 stays.
        let mut keep = vec![false; slots.made()];
        keep[c as usize] = true;
        slots.free_unmarked(keep);
        assert_eq!(slots.used_words, 4);
        let grown = slots.blocks[0].len();
        let d = slots.put(&[4; 2]);
        assert_eq!(slots.get(d), &[4, 4]);
        assert_eq!(slots.used_words, 4 + 3, "in the 3 freed words, all held");
        let e = slots.put(&[5; 4]);
        assert_eq!(slots.get(e), &[5; 4]);
        assert_eq!(slots.blocks[0].len(), grown, "both went in freed words");
        assert_eq!(slots.get(c), &[3; 4]);
        assert!(
            [a, b].contains(&d) && [a, b].contains(&e),
            "their slots reused"
        );
        // Freed again, the 3 words hold a chunk of 3 once more.
        let mut keep = vec![true; slots.made()];
        keep[d as usize] = false;
        slots.free_unmarked(keep);
        let f = slots.put(&[6; 3]);
        assert_eq!((slots.get(f), slots.blocks[0].len()), (&[6; 3][..], grown));
    }

    #[test]
    fn a_thaw_into_an_empty_vector_leaves_room_to_grow_without_copying() {
        // 1024 items: a vector grown by doubling would be full.
        let mut store = Store::default();
        let frozen = TrackedVec::<u32, 4>::filled(0, 1024).freeze(&mut store);
        let mut seeker = TrackedVec::default();
        seeker.thaw_into(&frozen, &store);
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
        let mut store = Store::default();
        let mut v: TrackedVec<u32, 4> = TrackedVec::default();
        for i in 0..10 {
            v.push(i);
        }
        let short = v.freeze(&mut store);
        for i in 10..300 {
            v.push(i);
        }
        let long = v.freeze(&mut store);
        let mut seeker = TrackedVec::thaw(&short, &store);
        assert_eq!(
            seeker.thaw_into(&long, &store),
            75 - 2,
            "the short copy's two whole chunks kept"
        );
        assert!(seeker == v);
        assert_eq!(
            seeker.thaw_into(&short, &store),
            1,
            "only the shortened chunk"
        );
        assert_eq!(
            seeker.iter().copied().collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>()
        );
        seeker.push(10);
        assert_eq!(seeker.thaw_into(&long, &store), 75 - 2);
        assert!(seeker == v);
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// A chunk of words packs to no more than itself, sparse or not,
        /// and unpacks to itself over any words or onto a vector's end.
        #[test]
        fn words_pack_to_at_most_themselves_and_back(
            chunk in proptest::collection::vec(
                proptest::prop_oneof![3 => proptest::strategy::Just(0u64), 1 => proptest::prelude::any::<u64>()],
                1..=128,
            ),
            junk in proptest::prelude::any::<u64>(),
        ) {
            let mut packed = Vec::new();
            u64::pack(&chunk, &mut packed);
            let set = chunk.iter().filter(|&&w| w != 0).count();
            proptest::prop_assert_eq!(packed.len(), chunk.len().min(chunk.len().div_ceil(64) + set));
            let mut over = vec![junk; chunk.len()];
            u64::unpack(&packed, &mut over);
            proptest::prop_assert_eq!(&over, &chunk);
            let mut pushed = vec![junk];
            u64::unpack_push(&packed, chunk.len(), &mut pushed);
            proptest::prop_assert_eq!(&pushed[1..], &chunk[..]);
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// Whatever was written, pushed, frozen, thawed and swept before,
        /// a thaw leaves the vector equal to the frozen copy's items.
        #[test]
        fn a_thaw_restores_the_frozen_items(
            ops in proptest::collection::vec((0u8..5, 0usize..700, proptest::prelude::any::<u16>()), 1..300)
        ) {
            let mut store = Store::default();
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
                    2 => frozen.push((builder.freeze(&mut store), builder.iter().copied().collect())),
                    3 if !frozen.is_empty() => {
                        let (f, items) = &frozen[i % frozen.len()];
                        seeker.thaw_into(f, &store);
                        proptest::prop_assert_eq!(&seeker.iter().copied().collect::<Vec<_>>(), items);
                        if x % 3 == 0 && !items.is_empty() {
                            seeker[x as usize % items.len()] = x;
                        }
                        if x % 5 == 0 {
                            seeker.push(x);
                        }
                    }
                    4 => {
                        // Drop some copies; the two vectors' origins stay.
                        let mut k = 0;
                        frozen.retain(|_| {
                            k += 1;
                            (x >> (k % 16)) & 1 == 1
                        });
                        let kept: Vec<&Frozen<u16, 4>> = frozen
                            .iter()
                            .map(|f| &f.0)
                            .chain(builder.origin())
                            .chain(seeker.origin())
                            .collect();
                        store.sweep(kept);
                    }
                    _ => {}
                }
            }
            for (f, items) in &frozen {
                proptest::prop_assert_eq!(&TrackedVec::thaw(f, &store).iter().copied().collect::<Vec<_>>(), items);
            }
        }
    }
}
