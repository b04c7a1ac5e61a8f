//! `struct address_space` (mm/filemap.c, Linux 6.18): the file's page
//! cache, an [`XArray`] of folios, with `filemap_add_folio`, the lookups
//! the readahead and fault code make, `page_cache_next_miss` and
//! `page_cache_prev_miss`, and the memory-cgroup limit with LRU reclaim
//! (see [`crate::lru`]).
//!
//! Lookups the kernel makes go through the xarray cursor and are counted.
//! The model's own bookkeeping uses the uncounted `peek` family.

use crate::event::{Event, EventSink, KFunc};
use crate::folio::{Folio, FolioFlags, Shadow};
use crate::lru::Lru;
use crate::tracepoint::Tracepoint;
use crate::xarray::{pointer_payload, Entry, NodeId, Stat, Visit, XArray, XaState, XA_CHUNK_SIZE};

/// The error of `filemap_add_folio` the model can meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddError {
    /// -EEXIST: a folio already covers part of the range.
    Exists,
    /// -ENOMEM: the memory cgroup is full and reclaim found nothing to free
    /// quickly enough for a readahead allocation (__GFP_NORETRY).
    NoMem,
}

/// The file's page cache.
#[derive(Clone, Debug)]
pub struct AddressSpace {
    pub xa: XArray,
    /// i_size in bytes.
    pub i_size: u64,
    pub page_shift: u32,
    /// `mapping_min_folio_order`.
    pub min_order: u8,
    /// `mapping_max_folio_order`.
    pub max_order: u8,
    /// `mapping->nrpages`: pages of cached folios.
    pub nrpages: u64,
    /// Shadow entries present.
    pub nr_shadows: u64,
    /// Refaults that `workingset_refault` activated.
    pub nr_refaults: u64,
    /// The memory cgroup's LRU, when a limit is set.
    pub lru: Option<Lru>,
    /// `DIV_ROUND_UP(i_size, PAGE_SIZE)`, which the fault path reads often.
    max_idx: u64,
    /// A hash of every entry (index and payload), kept as entries change,
    /// so that two page caches can be told apart in O(1).
    pub fingerprint: u64,
}

/// The hash of one entry, XORed into [`AddressSpace::fingerprint`]: the
/// index spread over all 64 bits by an odd multiplier, the payload XORed
/// in, then one mix. A mix of the payload first as well cost 2% of a
/// fault's instructions (a fault hashes an entry four to six times).
fn entry_hash(index: u64, raw: u64) -> u64 {
    crate::pattern::splitmix64(index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ raw)
}

impl AddressSpace {
    /// An empty mapping of a file of `i_size` bytes, its xarray with room
    /// for `node_room` nodes, or for those of the whole file when none.
    pub fn new(
        i_size: u64,
        page_shift: u32,
        min_order: u8,
        max_order: u8,
        limit: Option<u64>,
        node_room: Option<usize>,
    ) -> Self {
        AddressSpace {
            xa: match node_room {
                Some(nodes) => XArray::with_room(nodes),
                None => XArray::with_room_for(i_size.div_ceil(1u64 << page_shift)),
            },
            i_size,
            page_shift,
            min_order,
            max_order,
            nrpages: 0,
            nr_shadows: 0,
            nr_refaults: 0,
            lru: limit.map(Lru::new),
            max_idx: i_size.div_ceil(1u64 << page_shift),
            fingerprint: 0,
        }
    }

    /// The last page index inside i_size.
    pub fn end_index(&self) -> u64 {
        (self.i_size - 1) >> self.page_shift
    }

    /// `DIV_ROUND_UP(i_size, PAGE_SIZE)`.
    pub fn max_idx(&self) -> u64 {
        self.max_idx
    }

    /// `mapping_large_folio_support`.
    pub fn large_folio_support(&self) -> bool {
        self.max_order > 0
    }

    /// `mapping_align_index`.
    pub fn align_index(&self, index: u64) -> u64 {
        index & !((1u64 << self.min_order) - 1)
    }

    /// `filemap_get_folio`: a counted lookup of the folio covering `index`.
    pub fn filemap_get_folio(&self, index: u64) -> Option<Folio> {
        match self.xa.load(index) {
            Entry::Pointer(p) => Some(Folio::decode_at(index, p)),
            _ => None,
        }
    }

    /// The folio covering `index`, without counting a lookup.
    pub fn peek_folio(&self, index: u64) -> Option<Folio> {
        match self.xa.peek(index) {
            (Entry::Pointer(p), start) => Some(Folio::decode(start, p)),
            _ => None,
        }
    }

    /// Rewrites a folio's flags or stamp in place. The kernel holds a
    /// pointer to the folio, so this is not a lookup and is not counted.
    pub fn update(&mut self, folio: &Folio) {
        let payload = folio.encode();
        let mut old = 0;
        let done = self.xa.peek_modify_pointer(folio.index, |p| {
            old = p;
            payload
        });
        debug_assert!(done.is_some(), "updating a folio that is not cached");
        self.fingerprint ^=
            entry_hash(folio.index, old << 1) ^ entry_hash(folio.index, payload << 1);
    }

    pub fn set_flag(&mut self, index: u64, flag: FolioFlags) -> Option<Folio> {
        let mut f = self.peek_folio(index)?;
        if !f.test(flag) {
            f.flags.insert(flag);
            self.update(&f);
        }
        Some(f)
    }

    pub fn clear_flag(&mut self, index: u64, flag: FolioFlags) -> Option<Folio> {
        let mut f = self.peek_folio(index)?;
        if f.test(flag) {
            f.flags.remove(flag);
            self.update(&f);
        }
        Some(f)
    }

    /// `filemap_add_folio`: inserts a new locked folio, replacing shadows.
    /// Fails with -EEXIST if any page of the range is cached. The caller
    /// has charged the memory cgroup already (see [`crate::reclaim`]).
    pub fn filemap_add_folio<S: EventSink>(
        &mut self,
        index: u64,
        order: u8,
        flags: FolioFlags,
        func: KFunc,
        sink: &mut S,
    ) -> Result<Folio, AddError> {
        let nr = 1u64 << order;
        debug_assert_eq!(index & (nr - 1), 0, "folios are naturally aligned");
        // The kernel walks to the slot and checks for conflicts there: one
        // load, then the store.
        let mut xas = XaState::new_order(index, order);
        let first = xas.load(&self.xa);
        if let Entry::Pointer(_) = first {
            return Err(AddError::Exists);
        }
        if nr > 1 && self.first_present(index, index + nr).is_some() {
            return Err(AddError::Exists);
        }
        let mut folio = Folio::new(index, order, flags.union(FolioFlags::LOCKED));
        if self.nr_shadows > 0 {
            if let Some(shadow) = self.first_shadow(index, index + nr) {
                if let Some(lru) = self.lru.as_ref() {
                    if lru.refault_is_workingset(shadow) {
                        folio.flags.insert(FolioFlags::WORKINGSET);
                        folio.flags.insert(FolioFlags::ACTIVE);
                        self.nr_refaults += 1;
                        sink.emit(Event::Refault { index, order });
                    }
                }
                // A larger shadow than the folio is split first
                // (xas_split), so the rest of its range keeps its
                // eviction information.
                self.split_shadows(index, order);
            }
        }
        if let Some(lru) = self.lru.as_mut() {
            folio.lru_stamp = lru.insert(&folio);
        }
        // The store continues from where the conflict check stopped, as
        // the kernel's does; a shadow split changed the tree, so it starts
        // over then.
        if self.nr_shadows > 0 {
            xas.reset();
        }
        xas.store(&mut self.xa, Entry::Pointer(folio.encode()));
        self.fingerprint ^= entry_hash(index, folio.encode() << 1);
        self.nrpages += nr;
        sink.emit(Event::FolioAdded { func, index, order });
        sink.emit(Event::Tracepoint(Tracepoint::AddToPageCache {
            index,
            order,
        }));
        Ok(folio)
    }

    /// Where [`AddressSpace::add_order0_run`] may add folios from `at`
    /// on: the leaf the last walk remembered for `at` (its id, depth and
    /// `at`'s slot) and how many of its slots from there, at most `max`,
    /// are NULL. None where each folio must be added one by one: a
    /// memory limit (each is charged and may reclaim), shadows (a refault
    /// check each), folios larger than a page, no leaf remembered, or no
    /// NULL slot at `at`.
    pub(crate) fn order0_run_room(
        &self,
        at: u64,
        max: u64,
    ) -> Option<((NodeId, u32, usize), usize)> {
        if self.min_order != 0 || self.lru.is_some() || self.nr_shadows != 0 {
            return None;
        }
        let leaf = self.xa.hinted_leaf(at)?;
        // A leaf has 64 slots: `max` past that adds nothing, and the
        // bound fits a usize on wasm32.
        let max = max.min(XA_CHUNK_SIZE as u64) as usize;
        let k = self.xa.empty_slots_from(leaf.0, leaf.2, max);
        (k > 0).then_some((leaf, k))
    }

    /// `filemap_add_folio` of `k` order-0 folios from `first` on, into
    /// NULL slots of leaf `id` (at `depth`), as many calls would add them
    /// with no LRU and no shadows: the same folios, counted loads and
    /// stores, fingerprint and page count, the slots written in one step.
    /// The folio at `readahead_at` carries PG_readahead. The caller emits
    /// the events each add would have (`Machine::ra_add_order0_run`).
    pub(crate) fn add_order0_run(
        &mut self,
        first: u64,
        k: usize,
        (id, depth, off): (NodeId, u32, usize),
        readahead_at: Option<u64>,
    ) {
        debug_assert!(self.lru.is_none() && self.nr_shadows == 0);
        // Each add's load visits the leaf's path; each makes one store.
        self.xa.bump_by(Stat::Load, k as u64);
        self.xa.bump_visits(depth as u64 * k as u64);
        self.xa.bump_by(Stat::Store, k as u64);
        // The payloads go straight into the slots: gathered in an array of
        // a leaf's size first, zeroing it was 1.7% of the instructions of
        // `cargo xtask bench`'s walk, whose runs are one page long.
        let fingerprint = &mut self.fingerprint;
        self.xa.fill_leaf(id, off, k, |j| {
            let index = first + j as u64;
            let mut flags = FolioFlags::LOCKED;
            if readahead_at == Some(index) {
                flags.insert(FolioFlags::READAHEAD);
            }
            let payload = Folio::new(index, 0, flags).encode();
            *fingerprint ^= entry_hash(index, payload << 1);
            payload
        });
        self.nrpages += k as u64;
    }

    /// The first index in `[from, to)` that holds a folio, uncounted.
    pub fn first_present(&self, from: u64, to: u64) -> Option<u64> {
        self.first_entry(from, to, |e| matches!(e, Entry::Pointer(_)))
            .map(|(i, _)| i)
    }

    /// The first shadow in `[from, to)`, uncounted.
    fn first_shadow(&self, from: u64, to: u64) -> Option<Shadow> {
        match self.first_entry(from, to, |e| e.is_value()) {
            Some((_, Entry::Value(v))) => Some(Shadow::decode(v)),
            _ => None,
        }
    }

    fn first_entry(
        &self,
        from: u64,
        to: u64,
        want: impl Fn(Entry) -> bool,
    ) -> Option<(u64, Entry)> {
        if from >= to {
            return None;
        }
        let saved = self.xa.stats();
        let mut idx = from;
        let mut e = self.xa.find(&mut idx, to - 1, None);
        let found = loop {
            if e.is_empty() {
                break None;
            }
            if want(e) {
                break Some((idx.max(from), e));
            }
            e = self.xa.find_after(&mut idx, to - 1, None);
        };
        self.xa.set_stats(saved);
        found
    }

    /// Removes shadows overlapping `[index, index + 2^order)`; a larger
    /// shadow is split into pieces of the new folio's order around it.
    fn split_shadows(&mut self, index: u64, order: u8) {
        let nr = 1u64 << order;
        let mut i = index;
        while i < index + nr {
            let (e, start) = self.xa.peek(i);
            let sorder = self.xa.peek_order(i);
            match e {
                Entry::Value(v) => {
                    let send = start + (1u64 << sorder);
                    self.xa.store_order(start, sorder, Entry::Empty);
                    self.fingerprint ^= entry_hash(start, (v << 1) | 1);
                    self.nr_shadows -= 1;
                    if sorder > order {
                        // Put back the parts outside the new folio.
                        let mut j = start;
                        while j < send {
                            if j != index {
                                self.xa.store_order(j, order, Entry::Value(v));
                                self.fingerprint ^= entry_hash(j, (v << 1) | 1);
                                self.nr_shadows += 1;
                            }
                            j += nr;
                        }
                    }
                    i = send.max(i + 1);
                }
                _ => i += 1,
            }
        }
    }

    /// Marks the folio's read complete: uptodate and unlocked.
    pub fn folio_end_read<S: EventSink>(&mut self, index: u64, sink: &mut S) {
        let mut old = 0;
        let done = self.xa.peek_modify_pointer(index, |p| {
            old = p;
            let mut f = Folio::decode(index, p);
            f.flags.insert(FolioFlags::UPTODATE);
            f.flags.remove(FolioFlags::LOCKED);
            f.encode()
        });
        if let Some(p) = done {
            let f = Folio::decode_at(index, p);
            self.fingerprint ^= entry_hash(f.index, old << 1) ^ entry_hash(f.index, p << 1);
            sink.emit(Event::FolioUptodate {
                index: f.index,
                order: f.order,
            });
        }
    }

    /// [`AddressSpace::folio_end_read`] of the `k` order-0 folios from
    /// `first` on, when they lie in one leaf: the same flags, fingerprint
    /// and leaf versions as `k` calls, the leaf found once. False, with
    /// nothing done, when any of those slots holds something else. The
    /// caller emits the events.
    pub(crate) fn end_read_order0_run(&mut self, first: u64, k: usize) -> bool {
        self.settle_order0_run(first, k, true)
    }

    /// [`AddressSpace::end_read_order0_run`] when `uptodate`; otherwise
    /// the folios are only unlocked, as `clear_flag(LOCKED)` on each
    /// leaves them (a fallocated tmpfs file's).
    pub(crate) fn settle_order0_run(&mut self, first: u64, k: usize, uptodate: bool) -> bool {
        let off = (first & (XA_CHUNK_SIZE as u64 - 1)) as usize;
        if off + k > XA_CHUNK_SIZE {
            return false;
        }
        let Some(id) = self.xa.leaf_for(first) else {
            return false;
        };
        let all_order0 =
            self.xa
                .leaf_slots(id, off, k)
                .iter()
                .zip(first..)
                .all(|(&slot, index)| {
                    let p = pointer_payload(slot);
                    p != 0 && Folio::decode(index, p).order == 0
                });
        if !all_order0 {
            return false;
        }
        let fingerprint = &mut self.fingerprint;
        self.xa.modify_leaf_pointers(id, off, k, |j, p| {
            let index = first + j as u64;
            let mut f = Folio::decode(index, p);
            if uptodate {
                f.flags.insert(FolioFlags::UPTODATE);
            }
            f.flags.remove(FolioFlags::LOCKED);
            let new = f.encode();
            *fingerprint ^= entry_hash(index, p << 1) ^ entry_hash(index, new << 1);
            new
        });
        true
    }

    /// `page_cache_next_miss`: the first index at or after `index` with no
    /// folio, within `max_scan`; `index + max_scan` when there is none.
    pub fn page_cache_next_miss(&self, index: u64, max_scan: u64) -> u64 {
        let mut xas = XaState::new(index);
        let mut nr = max_scan;
        while nr > 0 {
            nr -= 1;
            let e = xas.next(&self.xa);
            if e.is_empty() || e.is_value() {
                return xas.index;
            }
            if xas.index == 0 {
                return 0;
            }
        }
        index + max_scan
    }

    /// `page_cache_prev_miss`: the last index at or before `index` with no
    /// folio, within `max_scan`; `u64::MAX` on wrap-around.
    pub fn page_cache_prev_miss(&self, index: u64, max_scan: u64) -> u64 {
        let mut xas = XaState::new(index);
        let mut nr = max_scan;
        while nr > 0 {
            nr -= 1;
            let e = xas.prev(&self.xa);
            if e.is_empty() || e.is_value() {
                break;
            }
            if xas.index == u64::MAX {
                break;
            }
        }
        xas.index
    }

    /// The fingerprint computed from scratch, to check the running one
    /// (by the invariants, native tests only).
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn recompute_fingerprint(&self) -> u64 {
        let mut fp = 0;
        self.xa.for_each_entry(|index, _, e| match e {
            Entry::Pointer(p) => fp ^= entry_hash(index, p << 1),
            Entry::Value(v) => fp ^= entry_hash(index, (v << 1) | 1),
            _ => {}
        });
        fp
    }

    /// Every cached folio in index order, uncounted. Whole leaves come as
    /// raw slots, scanned in a tight loop: a folio's payload carries its
    /// order, so a leaf's folios are its pointer slots.
    pub fn for_each_folio(&self, mut f: impl FnMut(Folio)) {
        self.xa.for_each_leaf_in(0, u64::MAX, |v| match v {
            Visit::Leaf(base, slots, _) => {
                for (k, &slot) in slots.iter().enumerate() {
                    let p = pointer_payload(slot);
                    if p != 0 {
                        f(Folio::decode(base + k as u64, p));
                    }
                }
            }
            Visit::Entry(index, _order, Entry::Pointer(p)) => f(Folio::decode(index, p)),
            // A leaf walk hands over no twig.
            Visit::Entry(..) | Visit::Twig(..) => {}
        });
    }

    /// Every cached folio in index order, uncounted, in runs: `f(folio, n)`
    /// stands for `n` adjacent folios of `folio`'s order and flags, the
    /// first of them `folio` (LRU stamps are not told apart). A leaf of
    /// order-0 folios comes as a few runs, for figures that count pages.
    pub fn for_each_folio_run(&self, mut f: impl FnMut(Folio, u64)) {
        self.xa.for_each_leaf_in(0, u64::MAX, |v| match v {
            Visit::Leaf(base, slots, _) => {
                // The open run: its first folio, its flags and its length.
                let mut run: Option<(Folio, u16, u64)> = None;
                for (k, &slot) in slots.iter().enumerate() {
                    let p = pointer_payload(slot);
                    let folio = (p != 0).then(|| Folio::decode(base + k as u64, p));
                    match (&mut run, folio) {
                        (Some((_, flags, n)), Some(g))
                            if g.order == 0 && g.flags.bits() == *flags =>
                        {
                            *n += 1;
                            continue;
                        }
                        _ => {}
                    }
                    if let Some((first, _, n)) = run.take() {
                        f(first, n);
                    }
                    match folio {
                        Some(g) if g.order == 0 => run = Some((g, g.flags.bits(), 1)),
                        Some(g) => f(g, 1),
                        None => {}
                    }
                }
                if let Some((first, _, n)) = run {
                    f(first, n);
                }
            }
            Visit::Entry(index, _order, Entry::Pointer(p)) => f(Folio::decode(index, p), 1),
            Visit::Entry(..) | Visit::Twig(..) => {}
        });
    }

    /// Removes the entry of `order` at `index`, folio or shadow, leaving
    /// nothing: `__filemap_remove_folio` with no shadow, or
    /// `clear_shadow_entries`.
    pub fn remove_entry(&mut self, index: u64, order: u8) {
        let mut xas = XaState::new_order(index, order);
        match xas.store(&mut self.xa, Entry::Empty) {
            Entry::Pointer(p) => {
                self.fingerprint ^= entry_hash(index, p << 1);
                self.nrpages -= 1u64 << order;
            }
            Entry::Value(v) => {
                self.fingerprint ^= entry_hash(index, (v << 1) | 1);
                self.nr_shadows -= 1;
            }
            _ => {}
        }
    }

    /// Evicts a folio, leaving a shadow: the page cache half of reclaim.
    pub fn delete_from_page_cache(&mut self, folio: &Folio, shadow: Shadow) {
        let mut xas = XaState::new_order(folio.index, folio.order);
        xas.store(&mut self.xa, Entry::Value(shadow.encode()));
        self.fingerprint ^= entry_hash(folio.index, folio.encode() << 1)
            ^ entry_hash(folio.index, (shadow.encode() << 1) | 1);
        self.nrpages -= folio.nr_pages();
        self.nr_shadows += 1;
    }
}
