//! Read-only views of a [`Machine`], for what the app draws and the tables
//! print: the folios and mappings of a page range cut into bins at any zoom
//! ([`Machine::bins`]), the PTE and PMD mapping of a range
//! ([`Machine::mapped`]), and the xarray nodes that cover a range
//! ([`Machine::xa_tree`]). Views are values computed from the state; none
//! writes it, and none hands out the xarray's raw slots or the page tables.
//!
//! This is no kernel file: it is how a reader of the model sees it, in the
//! terms of `struct folio` (order, PG_locked, PG_uptodate, PG_readahead),
//! the page tables and the xarray's nodes.

use std::ops::Range;

use crate::changed::ChangedPages;
use crate::folio::{Folio, FolioFlags};
use crate::machine::Machine;
use crate::summary::FolioRun;
use crate::xarray::{
    decode_slot, leaf_stamp_in_slot, pointer_test, Entry, NodeId, NodeStamp, Visit, XArray,
    XA_CHUNK_SHIFT, XA_CHUNK_SIZE,
};

/// Folio orders a [`Bin`] tells apart; larger ones count as the largest.
pub const ORDERS: usize = 14;

/// A page range `[first, end)` cut into `bins` bins. Bin `x` covers pages
/// from [`Span::page_at`]`(x)` up to `page_at(x + 1)`, and at least one page
/// when there are more bins than pages, so that zoomed in past a page per
/// bin, neighbouring bins show the same page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    pub first: u64,
    /// One past the last page.
    pub end: u64,
    pub bins: u32,
}

impl Span {
    pub fn pages(&self) -> u64 {
        self.end.saturating_sub(self.first)
    }

    // Page counts stay under 2^24 (64 GiB of 4 KiB pages) and bin counts
    // under 2^16, so products fit in u64; u128 division is slow in wasm.

    /// The first page of bin `x`.
    pub fn page_at(&self, x: u32) -> u64 {
        self.first + self.pages() * x as u64 / self.bins.max(1) as u64
    }

    /// The first bin that shows page `p`, if it is inside the span.
    pub fn bin_of(&self, p: u64) -> Option<u32> {
        (p >= self.first && p < self.end).then(|| {
            // The bin below `p`'s share of the width, or the next one when
            // rounding put `p` at that one's start.
            let x = ((p - self.first) * self.bins as u64 / self.pages()) as u32;
            if self.bin_pages(x).end > p {
                x
            } else {
                x + 1
            }
        })
    }

    /// The pages bin `x` covers.
    pub fn bin_pages(&self, x: u32) -> Range<u64> {
        let start = self.page_at(x);
        start..self.page_at(x + 1).max(start + 1).min(self.end)
    }

    /// How many pages bin `x` holds: [`Span::bin_pages`]'s length, without
    /// counting them one by one (`Range<u64>` is no `ExactSizeIterator`,
    /// and its `count()` walks the range in a build for size).
    pub fn bin_len(&self, x: u32) -> u64 {
        let r = self.bin_pages(x);
        r.end.saturating_sub(r.start)
    }

    /// Calls `f(x, n)` for each bin `x` that holds `n > 0` pages of
    /// `[start, end)`, in order.
    pub fn for_each_overlap(&self, start: u64, end: u64, mut f: impl FnMut(usize, u32)) {
        let (s, e) = (start.max(self.first), end.min(self.end));
        if s >= e {
            return;
        }
        let mut x = self.bin_of(s).unwrap_or(0);
        while x < self.bins {
            let r = self.bin_pages(x);
            if r.start >= e {
                break;
            }
            let n = e.min(r.end).saturating_sub(s.max(r.start));
            if n > 0 {
                f(x as usize, n as u32);
            }
            x += 1;
        }
    }
}

/// What one bin of a [`Span`] holds.
#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct Bin {
    /// Pages of uptodate, unlocked folios, by folio order.
    pub by_order: [u32; ORDERS],
    /// Their sum: the bin's resident pages.
    pub resident: u32,
    /// Pages of locked folios: being read.
    pub locked: u32,
    /// Pages of folios present, unlocked and not uptodate (a fallocated
    /// tmpfs folio, never read or written).
    pub not_uptodate: u32,
    /// Folios marked PG_readahead whose first page in the span is here.
    pub readahead: u32,
    /// Folios whose first page is here (counted in the first bin that
    /// shows it), whatever their state: where one folio ends and the next
    /// begins, once pages are wide enough to tell apart.
    pub heads: u32,
    /// Pages under shadow entries: evicted by reclaim, remembered for
    /// refault detection (`workingset_eviction`), not cached.
    pub shadows: u32,
    /// Pages a PTE maps, in the mapping in use.
    pub pte_mapped: u32,
    /// Pages under a PMD mapping, in the mapping in use.
    pub pmd_mapped: u32,
}

/// Field by field, with neither a branch nor a call: the strips compare
/// each column's bin with the one they painted and with the first
/// kernel's at every frame, and the derived comparison called `memcmp`
/// for the orders in the app's wasm, a byte loop there.
impl PartialEq for Bin {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        // Indexed over fixed lengths: a crate built for size (the app)
        // made the iterators' `zip` and `fold` calls.
        let (a, b) = (self.scalars(), other.scalars());
        let mut d = 0;
        for i in 0..ORDERS {
            d |= self.by_order[i] ^ other.by_order[i];
        }
        for i in 0..a.len() {
            d |= a[i] ^ b[i];
        }
        d == 0
    }
}

/// A field added to the bin must be added to [`Bin::scalars`] too.
const _: () = assert!(std::mem::size_of::<Bin>() == (ORDERS + 8) * 4);

impl Bin {
    /// Every count of the bin but the orders.
    #[inline]
    fn scalars(&self) -> [u32; 8] {
        [
            self.resident,
            self.locked,
            self.not_uptodate,
            self.readahead,
            self.heads,
            self.shadows,
            self.pte_mapped,
            self.pmd_mapped,
        ]
    }

    /// Adds `o`'s page and folio counts (not its mapped pages) to these.
    fn add_counts(&mut self, o: &Bin) {
        for (a, b) in self.by_order.iter_mut().zip(o.by_order) {
            *a += b;
        }
        self.resident += o.resident;
        self.locked += o.locked;
        self.not_uptodate += o.not_uptodate;
        self.readahead += o.readahead;
        self.heads += o.heads;
        self.shadows += o.shadows;
    }

    /// Pages of folios present, whatever their state: resident, under
    /// I/O or not uptodate.
    pub fn cached(&self) -> u32 {
        self.resident + self.locked + self.not_uptodate
    }

    /// The order most resident pages belong to (the larger on a tie).
    pub fn main_order(&self) -> Option<u8> {
        (self.resident > 0)
            .then(|| {
                self.by_order
                    .iter()
                    .enumerate()
                    .max_by_key(|(o, n)| (**n, *o))
                    .map(|(o, _)| o as u8)
            })
            .flatten()
    }
}

/// What covers `page` in the machine's page cache.
pub(crate) fn covering_of(m: &Machine, page: u64) -> Covering {
    match m.cache.xa.peek(page) {
        (Entry::Pointer(p), start) => Covering::Folio(Folio::decode(start, p)),
        (Entry::Value(_), start) => Covering::Shadow {
            index: start,
            order: m.cache.xa.peek_order(page),
        },
        _ => Covering::Nothing,
    }
}

/// Whether a folio's page counts as resident, locked or not uptodate.
fn folio_state(f: &Folio) -> FolioState {
    if f.test(FolioFlags::LOCKED) {
        FolioState::Locked
    } else if !f.test(FolioFlags::UPTODATE) {
        FolioState::NotUptodate
    } else {
        FolioState::Resident
    }
}

enum FolioState {
    Resident,
    Locked,
    NotUptodate,
}

const UPTODATE_ONLY: u16 = FolioFlags::UPTODATE.bits();
const STATE_BITS: u16 = FolioFlags::UPTODATE
    .union(FolioFlags::LOCKED)
    .union(FolioFlags::READAHEAD)
    .bits();

/// Adds to, or takes from, the bins what folios and mappings put there.
/// The scan of a machine and the folding of events
/// ([`crate::Picture`]) both go through these, so a page counts the same
/// either way.
#[derive(Clone, Debug)]
pub(crate) struct Binner {
    pub span: Span,
    pub bins: Vec<Bin>,
}

impl Binner {
    pub fn new(span: Span) -> Self {
        Binner {
            span,
            bins: vec![Bin::default(); span.bins as usize],
        }
    }

    /// Counts folio `f` in (`add`) or out of (`!add`) the bins.
    pub fn folio(&mut self, f: &Folio, add: bool) {
        let span = self.span;
        let order = (f.order as usize).min(ORDERS - 1);
        let state = folio_state(f);
        let bins = &mut self.bins;
        span.for_each_overlap(f.index, f.next_index(), |x, n| {
            let b = &mut bins[x];
            let field = match state {
                FolioState::Locked => &mut b.locked,
                FolioState::NotUptodate => &mut b.not_uptodate,
                FolioState::Resident => {
                    bump(&mut b.by_order[order], n, add);
                    &mut b.resident
                }
            };
            bump(field, n, add);
        });
        if f.test(FolioFlags::READAHEAD) && f.next_index() > span.first {
            if let Some(x) = span.bin_of(f.index.max(span.first)) {
                bump(&mut self.bins[x as usize].readahead, 1, add);
            }
        }
        if let Some(x) = span.bin_of(f.index) {
            bump(&mut self.bins[x as usize].heads, 1, add);
        }
    }

    /// Counts the pages `[start, end)` of a shadow entry in or out.
    pub fn shadow(&mut self, start: u64, end: u64, add: bool) {
        let bins = &mut self.bins;
        self.span
            .for_each_overlap(start, end, |x, n| bump(&mut bins[x].shadows, n, add));
    }
}

impl Binner {
    /// Counts pages `[start, end)` as PTE-mapped (`pmd` false) or under a
    /// PMD mapping, in or out.
    pub fn mapped(&mut self, start: u64, end: u64, pmd: bool, add: bool) {
        let bins = &mut self.bins;
        self.span.for_each_overlap(start, end, |x, n| {
            let b = &mut bins[x];
            bump(
                if pmd {
                    &mut b.pmd_mapped
                } else {
                    &mut b.pte_mapped
                },
                n,
                add,
            );
        });
    }
}

fn bump(v: &mut u32, n: u32, add: bool) {
    if add {
        *v += n;
    } else {
        *v -= n;
    }
}

/// What the nodes of one run's xarray add to the bins, by their stamps
/// (a node's place in the arena and the version of its slots, which every
/// slot write bumps, and a leaf's write its parent's too). Display code
/// that bins the same run again and again (a timeline's seeker) reads an
/// unchanged node's counts from here instead of its slots: zoomed out over
/// a large file, most of the time of binning went into loading them, and
/// then into walking the 65,536 leaves of a cached 16 GiB file.
#[derive(Clone, Debug, Default)]
pub struct LeafBins {
    leaves: LeafCounts,
    twigs: TwigCounts,
}

/// A leaf to count: its node, read only when counted, so that a leaf
/// whose counts are kept (most leaves of a jump's binning on the 16 GiB
/// link) costs no load of its node's summary, a cache line apart from
/// the kept counts.
#[derive(Clone, Copy)]
enum Leaf<'a> {
    Node(&'a XArray, NodeId),
    /// Raw slots, every one read: the tests'.
    #[cfg(test)]
    Slots(&'a [u64; XA_CHUNK_SIZE]),
}

impl<'a> Leaf<'a> {
    fn of(xa: &'a XArray, (id, _): NodeStamp) -> Self {
        Leaf::Node(xa, id)
    }

    /// The leaf's raw slots, and the ones among them a count reads
    /// ([`XArray::leaf_entry_slots`]).
    fn slots(self) -> (&'a [u64; XA_CHUNK_SIZE], u64) {
        match self {
            Leaf::Node(xa, id) => (xa.node_slots(id), xa.leaf_entry_slots(id)),
            #[cfg(test)]
            Leaf::Slots(slots) => (slots, u64::MAX),
        }
    }
}

/// What each leaf adds to a bin that holds it whole, whatever the span.
#[derive(Clone, Debug, Default)]
struct LeafCounts {
    /// By the leaf's place in the file, in blocks of the 64 places under
    /// one twig, allocated as leaves there are met. A walk meets a twig's
    /// leaves in index order, so their counts are read one after the
    /// other from one block. Kept by node id instead, they lay scattered
    /// over a megabyte on the 16 GiB link, and loading them was three
    /// quarters of the time of adding a kept leaf (`perf annotate`). A
    /// block is 2 KiB, allocated once a leaf under its twig was counted:
    /// at most 2 MB at 16 GiB and 8 MB at the 64 GiB limit, where by id
    /// it was 32 bytes a node.
    blocks: Vec<Option<Box<[LeafCount; XA_CHUNK_SIZE]>>>,
    /// A scan of one bin, reused to count a leaf.
    alone: Option<Scan>,
}

/// A leaf's page and folio counts (a [`Bin`]'s but its mapped pages),
/// each at most its 64 slots, a byte each, eight to a word (in the order
/// of [`leaf_fields`]): a large file has tens of thousands of leaves, and
/// the walk that reads them waits on memory. Eight to a word, a twig's
/// leaves add up a word at a time ([`Lanes`]).
#[derive(Clone, Copy, Debug, Default)]
struct LeafCount {
    /// The leaf's version the counts were made at, plus one (0: none). A
    /// stamp's leaf version is what its parent's slot carries, 29 bits at
    /// most, so 32 hold it.
    version: u32,
    /// The leaf's node: another node may have held this place before.
    id: NodeId,
    bytes: [u64; LEAF_WORDS],
}

/// The counts a leaf keeps: by order, then resident, locked, not
/// uptodate, PG_readahead, folio heads and shadows.
const LEAF_FIELDS: usize = ORDERS + 6;
const LEAF_WORDS: usize = LEAF_FIELDS.div_ceil(8);

/// `b`'s counts in the order a [`LeafCount`] keeps them: the one place
/// that lists them, for packing and for adding up.
fn leaf_fields(b: &mut Bin) -> [&mut u32; LEAF_FIELDS] {
    let Bin {
        by_order,
        resident,
        locked,
        not_uptodate,
        readahead,
        heads,
        shadows,
        ..
    } = b;
    let mut all =
        by_order
            .iter_mut()
            .chain([resident, locked, not_uptodate, readahead, heads, shadows]);
    std::array::from_fn(|_| all.next().expect("LEAF_FIELDS counts"))
}

impl LeafCount {
    fn of((id, version): NodeStamp, b: &Bin) -> Self {
        debug_assert!(version < u32::MAX as u64);
        let mut bytes = [0u64; LEAF_WORDS];
        let mut b = *b;
        for (i, v) in leaf_fields(&mut b).into_iter().enumerate() {
            debug_assert!(*v <= XA_CHUNK_SIZE as u32);
            bytes[i / 8] |= (*v as u64) << (8 * (i % 8));
        }
        LeafCount {
            version: version as u32 + 1,
            id,
            bytes,
        }
    }

    fn add_to(&self, b: &mut Bin) {
        let mut lanes = Lanes::default();
        lanes.add(self);
        lanes.add_to(b);
    }

    /// Whether these are the counts of the leaf stamped `stamp`.
    fn made_at(&self, (id, version): NodeStamp) -> bool {
        self.version as u64 == version + 1 && self.id == id
    }

    /// Takes these counts off `b`, which holds them.
    fn take_from(&self, b: &mut Bin) {
        for (i, v) in leaf_fields(b).into_iter().enumerate() {
            let n = ((self.bytes[i / 8] >> (8 * (i % 8))) & 0xff) as u32;
            debug_assert!(*v >= n, "a bin holds the counts of the leaves in it");
            *v -= n;
        }
    }
}

/// Leaves' counts added up sixteen bits a count: a word of a
/// [`LeafCount`]'s bytes splits into its even and its odd bytes, four
/// counts each, and adds in two additions. A bin's counts within one twig
/// are at most its 4,096 pages, well inside sixteen bits.
#[derive(Clone, Copy, Debug, Default)]
struct Lanes([u64; 2 * LEAF_WORDS]);

impl Lanes {
    const EVEN: u64 = 0x00ff_00ff_00ff_00ff;

    fn add(&mut self, c: &LeafCount) {
        for (k, &w) in c.bytes.iter().enumerate() {
            self.0[2 * k] += w & Self::EVEN;
            self.0[2 * k + 1] += (w >> 8) & Self::EVEN;
        }
    }

    fn add_to(&self, b: &mut Bin) {
        for (i, v) in leaf_fields(b).into_iter().enumerate() {
            let lane = self.0[2 * (i / 8) + (i % 2)];
            *v += ((lane >> (16 * ((i % 8) / 2))) & 0xffff) as u32;
        }
    }
}

impl LeafCounts {
    /// The counts kept of the leaf stamped `stamp` at `base`, if those
    /// are the ones kept for its place.
    fn kept(&self, stamp: NodeStamp, base: u64) -> Option<&LeafCount> {
        let (block, k) = Self::place(base);
        let e = &self.blocks.get(block)?.as_ref()?[k];
        e.made_at(stamp).then_some(e)
    }

    /// Where the counts of the leaf from `base` are kept: the block of
    /// its twig's place, and its own place in that block.
    fn place(base: u64) -> (usize, usize) {
        let place = base >> XA_CHUNK_SHIFT;
        (
            (place >> XA_CHUNK_SHIFT) as usize,
            (place & (XA_CHUNK_SIZE as u64 - 1)) as usize,
        )
    }

    /// The counts of the leaf stamped `stamp`, from `base`: kept, or
    /// counted and kept.
    fn counted(&mut self, stamp: NodeStamp, base: u64, leaf: Leaf) -> &LeafCount {
        let (block, k) = Self::place(base);
        if block >= self.blocks.len() {
            self.blocks.resize(block + 1, None);
        }
        let leaves = self.blocks[block]
            .get_or_insert_with(|| Box::new([LeafCount::default(); XA_CHUNK_SIZE]));
        let e = &mut leaves[k];
        if !e.made_at(stamp) {
            let span = Span {
                first: base,
                end: base + XA_CHUNK_SIZE as u64,
                bins: 1,
            };
            let alone = self.alone.get_or_insert_with(|| Scan::new(span));
            alone.restart(span);
            alone.add_slots(base, leaf, true);
            *e = LeafCount::of(stamp, &alone.binner.bins[0]);
        }
        e
    }

    /// Adds to `bin` the counts of the leaf stamped `stamp`, from `base`:
    /// kept, or counted and kept.
    fn add(&mut self, stamp: NodeStamp, base: u64, leaf: Leaf, bin: &mut Bin) {
        self.counted(stamp, base, leaf).add_to(bin);
    }
}

/// The pages under a node one level above the leaves: 4096.
const TWIG_PAGES: u64 = 1 << (2 * XA_CHUNK_SHIFT);

/// A twig's counts are kept only while a bin holds at least this many
/// pages: zoomed in further, it spreads over more bins than it is worth
/// keeping, and the span holds few twigs anyway.
const TWIG_MIN_PAGES_PER_BIN: u64 = 256;

/// What each node one level above the leaves (a twig) adds to the bins
/// of one span, the bins it overlaps; forgotten when the span changes.
/// Kept by the twig's place in the file, its bins in one array in file
/// order, so that a walk over the span reads them one after the other:
/// kept by node id, each in an allocation of its own, reading a twig's
/// counts was two waits on memory, and twice as slow as counting again
/// the twigs that changed (a CPU profile of the 16 GiB link's jumps).
#[derive(Clone, Debug, Default)]
struct TwigCounts {
    span: Option<Span>,
    /// The place (first page / [`TWIG_PAGES`]) of the span's first twig.
    first_place: u64,
    /// By place from `first_place`: the stamp the counts were made at,
    /// the version plus one (0: none).
    stamps: Vec<(NodeId, u64)>,
    /// By place, 64 each: the twig's raw slots when its counts were
    /// made, which tell the leaves that changed since.
    slots: Vec<u64>,
    /// By place: the first bin the twig overlaps.
    first_bins: Vec<u32>,
    /// By place, and one more: where its counts start in `bins`.
    starts: Vec<u32>,
    bins: Vec<Bin>,
    /// A scan of the span, all zero between uses, to count a twig in.
    scratch: Option<Scan>,
    /// The kept leaves' counts of a twig being counted, by its bins.
    lanes: Vec<Lanes>,
}

impl TwigCounts {
    /// Starts over for `span`: no twig counted, each place's bins laid
    /// out.
    fn reset(&mut self, span: Span) {
        self.span = Some(span);
        self.scratch = None;
        self.first_place = span.first / TWIG_PAGES;
        let last_place = (span.end - 1) / TWIG_PAGES;
        self.stamps.clear();
        self.slots.clear();
        self.first_bins.clear();
        self.starts.clear();
        let mut total = 0u32;
        for place in self.first_place..=last_place {
            let lo = (place * TWIG_PAGES).max(span.first);
            let hi = (place * TWIG_PAGES + TWIG_PAGES - 1).min(span.end - 1);
            let (x0, x1) = (span.bin_of(lo).unwrap_or(0), span.bin_of(hi).unwrap_or(0));
            self.stamps.push((0, 0));
            self.first_bins.push(x0);
            self.starts.push(total);
            total += x1 - x0 + 1;
        }
        self.starts.push(total);
        self.slots.resize(self.stamps.len() * XA_CHUNK_SIZE, 0);
        self.bins.clear();
        self.bins.resize(total as usize, Bin::default());
    }

    /// The counts of the twig stamped `stamp` at `base`, in the span's
    /// bins from the first it overlaps, and that bin: kept, brought up to
    /// date from the slots they were made at ([`swap_changed_leaves`]),
    /// or counted (with the kept counts of its leaves) and kept.
    fn counts(
        &mut self,
        xa: &XArray,
        span: Span,
        base: u64,
        (id, version): NodeStamp,
        leaves: &mut LeafCounts,
    ) -> (usize, &[Bin]) {
        if self.span != Some(span) {
            self.reset(span);
        }
        let p = (base / TWIG_PAGES - self.first_place) as usize;
        let (s, e) = (self.starts[p] as usize, self.starts[p + 1] as usize);
        let first = self.first_bins[p] as usize;
        if self.stamps[p] != (id, version + 1) {
            let slots = xa.node_slots(id);
            let kept_slots = &mut self.slots[p * XA_CHUNK_SIZE..(p + 1) * XA_CHUNK_SIZE];
            let scratch = self.scratch.get_or_insert_with(|| Scan::new(span));
            // Counted before at this place: when only leaves that lie in
            // one bin changed since, as on most frames of play, their
            // counts are swapped and the rest stands; else all are
            // counted afresh below.
            if self.stamps[p].1 != 0
                && swap_changed_leaves(
                    xa,
                    base,
                    (kept_slots, slots),
                    scratch,
                    &mut self.bins[s..e],
                    first,
                    leaves,
                )
            {
                kept_slots.copy_from_slice(slots);
                self.stamps[p] = (id, version + 1);
                return (first, &self.bins[s..e]);
            }
            scratch.place(base);
            debug_assert_eq!(scratch.x as usize, first);
            // The twig lies inside the span: the walk that met it was.
            let end = first + (e - s);
            debug_assert_eq!(span.bin_of(base + TWIG_PAGES - 1), Some(end as u32 - 1));
            // A leaf inside one bin adds its kept counts to that bin's
            // lanes, a word at a time; the others are counted slot by
            // slot, and entries of the twig itself one by one.
            let lanes = &mut self.lanes;
            lanes.clear();
            lanes.resize(end - first, Lanes::default());
            xa.for_each_in_twig(id, base, |v| match v {
                Visit::Entry(start, order, e) => scratch.add_entry(start, order, e),
                Visit::Leaf(b, _, stamp) => {
                    let leaf = Leaf::of(xa, stamp);
                    scratch.seek(b);
                    if scratch.in_one_bin(b, b + XA_CHUNK_SIZE as u64) {
                        lanes[scratch.x as usize - first].add(leaves.counted(stamp, b, leaf));
                    } else {
                        scratch.add_slots(b, leaf, false);
                    }
                }
                // A twig's children are leaves and entries.
                Visit::Twig(..) => {}
            });
            let counted = &mut scratch.binner.bins[first..end];
            for (l, bin) in lanes.iter().zip(counted.iter_mut()) {
                l.add_to(bin);
            }
            self.bins[s..e].copy_from_slice(counted);
            counted.fill(Bin::default());
            kept_slots.copy_from_slice(slots);
            self.stamps[p] = (id, version + 1);
        }
        (first, &self.bins[s..e])
    }
}

/// Brings `bins`, a twig's kept counts from bin `first` on, from the
/// twig's slots `old` (from `base`) when they were made to its slots `new`
/// now, slot by slot: where a leaf went, its kept counts come off its
/// bin, and where one came, its counts (counted and kept in `leaves` if
/// new) go on. Returns false as soon as a slot that differs is not that,
/// leaving `bins` part way, to be counted afresh: an entry of the twig
/// itself changed, a leaf lies over two bins (the full count takes it
/// slot by slot), or the counts of a leaf that went are no longer kept.
// Out of line: inlined into the twig's count, its first form cost the
// app's wasm 0.3 KB more, gzipped, against a budget with less than that
// left.
#[inline(never)]
fn swap_changed_leaves(
    xa: &XArray,
    base: u64,
    (old, new): (&[u64], &[u64; XA_CHUNK_SIZE]),
    scratch: &mut Scan,
    bins: &mut [Bin],
    first: usize,
    leaves: &mut LeafCounts,
) -> bool {
    // The cursor moves on from the twig's first bin as the leaves do:
    // placing it afresh for each leaf took six divisions.
    scratch.place(base);
    for (k, (&o, &n)) in old.iter().zip(new).enumerate() {
        if o == n {
            continue;
        }
        let start = base + ((k as u64) << XA_CHUNK_SHIFT);
        scratch.seek(start);
        if !scratch.in_one_bin(start, start + XA_CHUNK_SIZE as u64) {
            return false;
        }
        let bin = &mut bins[scratch.x as usize - first];
        match leaf_stamp_in_slot(o) {
            Some(stamp) => match leaves.kept(stamp, start) {
                Some(c) => c.take_from(bin),
                None => return false,
            },
            None if o != 0 => return false,
            None => {}
        }
        match leaf_stamp_in_slot(n) {
            Some(stamp) => leaves.add(stamp, start, Leaf::of(xa, stamp), bin),
            None if n != 0 => return false,
            None => {}
        }
    }
    true
}

/// The scan of a machine's folios into bins, in index order: one cursor
/// walks the bins, and a leaf of the xarray that lies in one bin alone is
/// counted in a tight loop, since zoomed out over a cached file this scan
/// meets every page of it.
#[derive(Clone, Debug)]
struct Scan {
    binner: Binner,
    /// The bin under the cursor: its pages, and where the next bin starts
    /// (the same page when zoomed in past one page per bin).
    x: u32,
    lo: u64,
    hi: u64,
    next: u64,
}

impl Scan {
    fn new(span: Span) -> Self {
        let r = span.bin_pages(0);
        Scan {
            binner: Binner::new(span),
            x: 0,
            lo: r.start,
            hi: r.end,
            next: span.page_at(1),
        }
    }

    /// Starts again, empty, over `span`, which has as many bins.
    fn restart(&mut self, span: Span) {
        debug_assert_eq!(span.bins as usize, self.binner.bins.len());
        let r = span.bin_pages(0);
        self.binner.span = span;
        self.binner.bins.fill(Bin::default());
        self.x = 0;
        self.lo = r.start;
        self.hi = r.end;
        self.next = span.page_at(1);
    }

    /// Moves the cursor to the bin that page `s` starts in.
    fn seek(&mut self, s: u64) {
        let span = self.binner.span;
        while self.x + 1 < span.bins && self.hi <= s {
            self.x += 1;
            let r = span.bin_pages(self.x);
            self.lo = r.start;
            self.hi = r.end;
            self.next = span.page_at(self.x + 1);
        }
    }

    /// Puts the cursor on the bin that page `s` starts in, wherever it was.
    fn place(&mut self, s: u64) {
        let span = self.binner.span;
        self.x = span.bin_of(s).unwrap_or(0);
        let r = span.bin_pages(self.x);
        self.lo = r.start;
        self.hi = r.end;
        self.next = span.page_at(self.x + 1);
    }

    /// Whether pages `[s, e)` all fall in the cursor's bin alone.
    fn in_one_bin(&self, s: u64, e: u64) -> bool {
        e <= self.hi && s >= self.lo && self.next >= e
    }

    fn add(&mut self, f: Folio) {
        let span = self.binner.span;
        let (s, e) = (f.index.max(span.first), f.next_index().min(span.end));
        self.seek(s);
        if self.in_one_bin(s, e) && f.flags.bits() & STATE_BITS == UPTODATE_ONLY {
            // The common case zoomed out: a resident folio in one bin.
            let b = &mut self.binner.bins[self.x as usize];
            b.by_order[(f.order as usize).min(ORDERS - 1)] += (e - s) as u32;
            b.resident += (e - s) as u32;
            b.heads += (f.index >= span.first) as u32;
        } else {
            self.binner.folio(&f, true);
        }
    }

    /// An entry the walk met outside a whole leaf: a folio, or a shadow's
    /// pages.
    fn add_entry(&mut self, start: u64, order: u8, e: Entry) {
        match e {
            Entry::Pointer(p) => self.add(Folio::decode(start, p)),
            Entry::Value(_) => self.binner.shadow(start, start + (1u64 << order), true),
            _ => {}
        }
    }

    /// A leaf's 64 raw slots from `base`; the walk hands over only leaves
    /// that lie wholly inside the span. A leaf inside one bin adds the
    /// same counts to it whatever the span: with `kept`, those of a leaf
    /// whose slots did not change since are read from there.
    fn add_leaf(&mut self, base: u64, leaf: Leaf, stamp: NodeStamp, kept: Option<&mut LeafCounts>) {
        let span = self.binner.span;
        let (s, e) = (base.max(span.first), (base + 64).min(span.end));
        self.seek(s);
        let one = self.in_one_bin(s, e);
        if let (true, Some(kept)) = (one, kept) {
            kept.add(stamp, base, leaf, &mut self.binner.bins[self.x as usize]);
            return;
        }
        self.add_slots(base, leaf, one);
    }

    /// A twig wholly inside the span, from `base`, by its stamp: its
    /// counts, kept in `kept` or counted there, added to the bins it
    /// overlaps.
    fn add_twig(&mut self, xa: &XArray, base: u64, stamp: NodeStamp, kept: &mut LeafBins) {
        let span = self.binner.span;
        let (first, counts) = kept.twigs.counts(xa, span, base, stamp, &mut kept.leaves);
        for (b, c) in self.binner.bins[first..].iter_mut().zip(counts) {
            b.add_counts(c);
        }
    }

    /// Counts a leaf's slots; `one`: the leaf lies in the cursor's bin.
    ///
    /// Only the slots [`Leaf::slots`] names, in order: a leaf of the 16 GiB
    /// link holds 8 entries of 64 slots on average, and reading every slot
    /// was most of the cost of its first strips (callgrind, natively, one
    /// binning of a kernel's end state at 1102 columns: 42.3 million
    /// instructions before, 18.4 after; counting and keeping each leaf's
    /// counts, as the app's first binning does, 50.9 and 27.1; the default
    /// view's end state, whose leaves are full, 25.2 and 25.8, 27.0 and
    /// 27.6).
    fn add_slots(&mut self, base: u64, leaf: Leaf, one: bool) {
        let (raw, mut read) = leaf.slots();
        if one && read == u64::MAX && full_of_small_resident_folios(raw) {
            // A leaf of a file read page by page: 64 folios of one page,
            // uptodate, neither locked nor PG_readahead, tested together
            // instead of decoded one by one. The first binning of a 2 GiB
            // backward MADV_SEQUENTIAL walk's end state (1102 columns,
            // every leaf counted and kept) took 1.59-1.64 ms natively
            // before, 0.63-0.67 ms after.
            let b = &mut self.binner.bins[self.x as usize];
            b.by_order[0] += XA_CHUNK_SIZE as u32;
            b.resident += XA_CHUNK_SIZE as u32;
            b.heads += XA_CHUNK_SIZE as u32;
            return;
        }
        let slots = std::iter::from_fn(|| {
            let k = (read != 0).then(|| read.trailing_zeros() as usize)?;
            read &= read - 1;
            Some((k, raw[k]))
        });
        // Whether the entry the slots so far belong to is a shadow: its
        // sibling slots, which follow it, are shadow pages too.
        let mut in_shadow = false;
        for (k, raw) in slots {
            match decode_slot(raw) {
                Entry::Pointer(p) => {
                    in_shadow = false;
                    let f = Folio::decode(base + k as u64, p);
                    if one && f.flags.bits() & STATE_BITS == UPTODATE_ONLY {
                        let b = &mut self.binner.bins[self.x as usize];
                        b.by_order[(f.order as usize).min(ORDERS - 1)] += f.nr_pages() as u32;
                        b.resident += f.nr_pages() as u32;
                        b.heads += 1;
                    } else {
                        self.add(f);
                    }
                }
                Entry::Value(_) => {
                    in_shadow = true;
                    self.add_shadow(base + k as u64);
                }
                Entry::Sibling(_) if in_shadow => self.add_shadow(base + k as u64),
                Entry::Sibling(_) => {}
                _ => in_shadow = false,
            }
        }
    }

    fn add_shadow(&mut self, page: u64) {
        self.seek(page);
        if self.in_one_bin(page, page + 1) {
            self.binner.bins[self.x as usize].shadows += 1;
        } else {
            self.binner.shadow(page, page + 1, true);
        }
    }
}

/// Whether every slot of a leaf holds a folio of order 0 whose flags
/// read uptodate, neither locked nor PG_readahead: what
/// [`Scan::add_slots`] counts as one page resident, at order 0, and one
/// head. Each slot is tested raw, with no early exit, so that the test
/// runs as a few wide operations.
fn full_of_small_resident_folios(raw: &[u64; XA_CHUNK_SIZE]) -> bool {
    let (mask, want) = pointer_test(
        Folio::payload_order_bits() | Folio::payload_bits(FolioFlags::from_bits(STATE_BITS)),
        Folio::payload_bits(FolioFlags::UPTODATE),
    );
    raw.iter()
        .fold(0, |off, &slot| off | ((slot & mask) ^ want))
        == 0
}

/// How the pages of a range are mapped, in the mapping in use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mapped {
    /// Pages a PTE maps.
    pub pte_pages: u64,
    /// Pages under a PMD mapping.
    pub pmd_pages: u64,
}

/// What an xarray slot holds, decoded for a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Empty,
    /// The canonical slot of a folio.
    Folio(Folio),
    /// A sibling slot of the multi-index entry in slot `canonical`.
    Sibling {
        canonical: u8,
    },
    /// A shadow entry (a value entry) left by reclaim.
    Shadow(u64),
    /// A child node.
    Node(u32),
}

/// One xarray node as the tree view draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    pub id: u32,
    pub shift: u8,
    pub offset: u8,
    /// The first index this node covers.
    pub base: u64,
    pub count: u8,
    pub nr_values: u8,
    /// 1 for the head node.
    pub depth: u8,
    pub slots: Vec<Slot>,
    /// XA_MARK_0..2, one bit per slot.
    pub marks: [u64; 3],
}

/// The nodes of the xarray that cover a range, level by level from the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XaTree {
    pub nodes: Vec<NodeView>,
    /// Whether more nodes cover the range than were asked for.
    pub more: bool,
    /// Nodes in the whole tree.
    pub node_count: usize,
    /// 0 for an empty tree or one entry at the head.
    pub height: u32,
    /// Whether any entry of the tree carries a mark.
    pub any_mark: bool,
    /// `mapping->nrpages`.
    pub nrpages: u64,
}

/// What covers one page of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Covering {
    /// Never cached, or forgotten: no entry.
    Nothing,
    Folio(Folio),
    /// A shadow entry of `order` from `index`: the page was evicted.
    Shadow {
        index: u64,
        order: u8,
    },
}

/// One node on the way from the xarray's head to a page's entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathNode {
    pub id: u32,
    pub shift: u8,
    /// The node's slot in its parent (`xa_node.offset`).
    pub offset: u8,
    /// The first index the node covers.
    pub base: u64,
    /// The slot the walk takes in this node for the page.
    pub slot: u8,
}

/// The walk `xas_load` makes to a page's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XaPath {
    /// From the head down; empty when the head holds the lone entry (or
    /// nothing).
    pub nodes: Vec<PathNode>,
    /// The entry's canonical slot in the last node, and the sibling slots
    /// that follow it (a multi-index entry spans `1 + siblings` slots).
    pub slot: u8,
    pub siblings: u8,
}

/// One page as the folio inspector shows it: what covers it, the path to
/// its entry, and how the file's mappings map it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageView {
    pub page: u64,
    pub covering: Covering,
    pub path: XaPath,
    /// Mappings that map the page with a PTE, and under a PMD.
    pub pte_mappings: u32,
    pub pmd_mappings: u32,
}

impl Machine {
    /// The folios and mappings of `span`, one [`Bin`] per bin.
    pub fn bins(&self, span: Span) -> Vec<Bin> {
        if span.bins == 0 || span.pages() == 0 {
            return vec![Bin::default(); span.bins as usize];
        }
        self.scan_columns(span, &[(0, span.bins)], None).bins
    }

    /// Brings `bins`, the bins of `span` on this machine before the
    /// accesses that `changed` noted, up to date: only the bins those
    /// accesses' pages fall in are counted again, unless that is most of
    /// them. `kept` holds the counts of leaves binned before, on this
    /// machine's run (the same timeline) and no other. The result equals
    /// [`Machine::bins`] of the span.
    pub fn rebin(
        &self,
        span: Span,
        bins: &mut Vec<Bin>,
        changed: &ChangedPages,
        kept: &mut LeafBins,
    ) {
        let n = span.bins as usize;
        if span.bins == 0 || span.pages() == 0 {
            *bins = self.bins(span);
            return;
        }
        let all = [(0, span.bins)];
        if changed.is_everything() || bins.len() != n {
            *bins = self.scan_columns(span, &all, Some(kept)).bins;
            return;
        }
        let mut dirty = vec![false; n];
        for &(s, e) in changed.ranges() {
            // A folio that starts before the span counts its flag in the
            // span's first bin.
            let s = s.max(span.first);
            span.for_each_overlap(s, e.max(s + 1), |x, _| dirty[x] = true);
        }
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for x in (0..n).filter(|&x| dirty[x]) {
            match runs.last_mut() {
                Some(r) if r.1 == x as u32 => r.1 += 1,
                _ => runs.push((x as u32, x as u32 + 1)),
            }
        }
        let count: u32 = runs.iter().map(|r| r.1 - r.0).sum();
        if count as usize * 2 > n {
            *bins = self.scan_columns(span, &all, Some(kept)).bins;
            return;
        }
        if runs.is_empty() {
            return;
        }
        let fresh = self.scan_columns(span, &runs, Some(kept));
        for &(x0, x1) in &runs {
            let (x0, x1) = (x0 as usize, x1 as usize);
            bins[x0..x1].copy_from_slice(&fresh.bins[x0..x1]);
        }
    }

    /// Counts into `kept` what each xarray leaf wholly inside pages
    /// `[first, end)` adds to a bin, as a binning of this machine would,
    /// ahead of it: a strip's first binning of a large file then only adds
    /// up kept counts. The app counts a view's leaves this way in slices
    /// of tasks before it first draws the view: the first draw of the
    /// 16 GiB memory cgroup preset, which counted them for its two strips,
    /// took a task of 65 to 69 ms (the strips' binning, natively, 21 ms a
    /// kernel, against 2 ms once counted).
    /// Counted as the binning of the range's whole twigs a bin each, in
    /// which every leaf lies in one bin: the walk the strips' binning
    /// makes, which the app's wasm holds already, rather than one of its
    /// own (a copy of the xarray's walk, 0.5 KB).
    pub fn count_leaves(&self, first: u64, end: u64, kept: &mut LeafBins) {
        let first = first.next_multiple_of(TWIG_PAGES);
        let twigs = end.saturating_sub(first) / TWIG_PAGES;
        if twigs > 0 {
            let span = Span {
                first,
                end: first + twigs * TWIG_PAGES,
                bins: twigs as u32,
            };
            self.scan_columns(span, &[(0, span.bins)], Some(kept));
        }
    }

    /// A binner of `span` whose bins in the column `runs` (ascending,
    /// disjoint `[x0, x1)`) hold what [`Machine::bins`] counts there; its
    /// other bins hold partial counts, of entries that reach into a run.
    fn scan_columns(
        &self,
        span: Span,
        runs: &[(u32, u32)],
        mut kept: Option<&mut LeafBins>,
    ) -> Binner {
        let mut scan = Scan::new(span);
        let xa = &self.cache.xa;
        // Whole twigs, kept, when a bin holds enough pages for that to pay.
        let twigs = kept.is_some() && span.pages() / span.bins as u64 >= TWIG_MIN_PAGES_PER_BIN;
        // What two runs' walks both meet (an entry over the gap between
        // them, a twig both reach into) counts once, where the first met
        // it: it adds to every bin it overlaps.
        let mut counted_to = 0u64;
        for &(x0, x1) in runs {
            let (mut first, mut end) = (span.page_at(x0), span.bin_pages(x1 - 1).end);
            if twigs {
                // The run's twigs whole, so that the walk meets them whole
                // and their kept counts serve: a column of the 16 GiB link
                // holds less than a twig, and walked alone it was counted
                // leaf by leaf, which made a frame's few hundred changed
                // columns cost more than counting them all.
                first = (first - first % TWIG_PAGES).max(span.first);
                end = end.next_multiple_of(TWIG_PAGES).min(span.end);
            }
            let visit = |v: Visit| match v {
                Visit::Entry(start, order, e) => {
                    if start < counted_to {
                        return;
                    }
                    counted_to = start + (1u64 << order);
                    scan.add_entry(start, order, e);
                }
                Visit::Leaf(base, ..) | Visit::Twig(base, _) if base < counted_to => {}
                Visit::Leaf(base, _, stamp) => {
                    counted_to = base + XA_CHUNK_SIZE as u64;
                    scan.add_leaf(
                        base,
                        Leaf::of(xa, stamp),
                        stamp,
                        kept.as_deref_mut().map(|k| &mut k.leaves),
                    )
                }
                Visit::Twig(base, stamp) => {
                    counted_to = base + TWIG_PAGES;
                    if let Some(k) = kept.as_deref_mut() {
                        scan.add_twig(xa, base, stamp, k)
                    }
                }
            };
            if twigs {
                xa.for_each_twig_in(first, end - 1, visit);
            } else {
                xa.for_each_leaf_in(first, end - 1, visit);
            }
            for x in x0..x1 {
                let r = span.bin_pages(x);
                let (pte, pmd) = self.count_mapped_everywhere(r.start, r.end);
                let b = &mut scan.binner.bins[x as usize];
                b.pte_mapped = pte as u32;
                b.pmd_mapped = pmd as u32;
            }
        }
        scan.binner
    }

    /// One page: what covers it, the xarray path to its entry, and how it
    /// is mapped.
    pub fn page_view(&self, page: u64) -> PageView {
        let raw = self.cache.xa.path(page);
        let (pte, pmd) = self.count_mapped_everywhere(page, page + 1);
        PageView {
            page,
            covering: covering_of(self, page),
            path: XaPath {
                nodes: raw
                    .nodes
                    .iter()
                    .map(|&(id, shift, offset, base, slot)| PathNode {
                        id,
                        shift,
                        offset,
                        base,
                        slot,
                    })
                    .collect(),
                slot: raw.slot,
                siblings: raw.siblings,
            },
            pte_mappings: pte as u32,
            pmd_mappings: pmd as u32,
        }
    }

    /// The pages of `[first, end)` whose state differs between this
    /// machine and `other` (another kernel's, at the same step), as runs
    /// `[start, end)` in order: a page differs when different entries
    /// cover it (another folio, order or flags; a shadow against a folio
    /// or nothing) or its mappings map it differently.
    pub fn differing_pages(&self, other: &Machine, first: u64, end: u64) -> Vec<(u64, u64)> {
        let mut runs: Vec<(u64, u64)> = Vec::new();
        let mut differ = |p: u64| match runs.last_mut() {
            Some(r) if r.1 == p => r.1 = p + 1,
            _ => runs.push((p, p + 1)),
        };
        let mut p = first;
        while p < end {
            let (a, b) = (covering_of(self, p), covering_of(other, p));
            if a != b {
                differ(p);
                p += 1;
                continue;
            }
            // One entry covers the page in both: the rest of it at once,
            // page by page only for how its pages are mapped.
            match a {
                Covering::Folio(f) => {
                    for q in p..f.next_index().min(end) {
                        if self.count_mapped_everywhere(q, q + 1)
                            != other.count_mapped_everywhere(q, q + 1)
                        {
                            differ(q);
                        }
                    }
                    p = f.next_index().max(p + 1);
                }
                Covering::Shadow { index, order } => p = (index + (1u64 << order)).max(p + 1),
                Covering::Nothing => p += 1,
            }
        }
        runs
    }

    /// The folios that overlap pages `[first, end)`, locked or not, in
    /// index order, as runs of adjacent folios of one order: the page
    /// cache as the kernel's add and delete tracepoints tell it, which a
    /// recording's real page cache is held to page by page.
    pub fn folio_runs(&self, first: u64, end: u64) -> Vec<FolioRun> {
        let mut runs: Vec<FolioRun> = Vec::new();
        if first >= end {
            return runs;
        }
        let mut push = |f: Folio| {
            if f.next_index() <= first || f.index >= end {
                return;
            }
            match runs.last_mut() {
                Some(r) if r.order == f.order && r.start + (r.count << r.order) == f.index => {
                    r.count += 1
                }
                _ => runs.push(FolioRun {
                    start: f.index,
                    order: f.order,
                    count: 1,
                }),
            }
        };
        // A folio that starts before `first` and covers it sits at its
        // own aligned index, at most the largest order below.
        let from = first & !((1u64 << (ORDERS - 1)) - 1);
        self.cache.xa.for_each_leaf_in(from, end - 1, |v| match v {
            Visit::Entry(start, _order, Entry::Pointer(p)) => push(Folio::decode(start, p)),
            // A leaf walk hands over no twig.
            Visit::Entry(..) | Visit::Twig(..) => {}
            Visit::Leaf(base, slots, _) => {
                for (k, &raw) in slots.iter().enumerate() {
                    if let Entry::Pointer(p) = decode_slot(raw) {
                        push(Folio::decode(base + k as u64, p));
                    }
                }
            }
        });
        runs
    }

    /// How the pages `[first, end)` are mapped, over every mapping of the
    /// file (a page two mappings map counts twice).
    pub fn mapped(&self, first: u64, end: u64) -> Mapped {
        let (pte_pages, pmd_pages) = self.count_mapped_everywhere(first, end);
        Mapped {
            pte_pages,
            pmd_pages,
        }
    }

    /// The xarray nodes that cover pages `[first, end)`, at most
    /// `max_nodes` of them, from the head down.
    pub fn xa_tree(&self, first: u64, end: u64, max_nodes: usize) -> XaTree {
        let xa = &self.cache.xa;
        let raw = xa.nodes_in_range(first, end.saturating_sub(1), max_nodes + 1);
        let more = raw.len() > max_nodes;
        let nodes = raw
            .into_iter()
            .take(max_nodes)
            .map(|n| NodeView {
                slots: n
                    .slots
                    .iter()
                    .enumerate()
                    .map(|(off, e)| match *e {
                        Entry::Pointer(p) => {
                            Slot::Folio(Folio::decode_at(n.base + ((off as u64) << n.shift), p))
                        }
                        Entry::Sibling(c) => Slot::Sibling { canonical: c },
                        Entry::Value(v) => Slot::Shadow(v),
                        Entry::Node(id) => Slot::Node(id),
                        // A retry entry is only seen by a walk racing a
                        // change, which the model never has.
                        Entry::Empty | Entry::Retry => Slot::Empty,
                    })
                    .collect(),
                id: n.id,
                shift: n.shift,
                offset: n.offset,
                base: n.base,
                count: n.count,
                nr_values: n.nr_values,
                depth: n.depth,
                marks: n.marks,
            })
            .collect();
        XaTree {
            nodes,
            more,
            node_count: xa.node_count(),
            height: xa.height(),
            any_mark: crate::xarray::XaMark::ALL.into_iter().any(|m| xa.marked(m)),
            nrpages: self.cache.nrpages,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Madvise, NoEvents, Pattern, Scenario, Simulation};

    #[test]
    fn bins_differ_when_any_field_does() {
        let base = Bin {
            by_order: [3; ORDERS],
            resident: 1,
            locked: 2,
            not_uptodate: 3,
            readahead: 4,
            heads: 5,
            shadows: 6,
            pte_mapped: 7,
            pmd_mapped: 8,
        };
        let copy = base;
        assert_eq!(base, copy);
        let changes: [fn(&mut Bin); 9] = [
            |b| b.resident += 1,
            |b| b.locked += 1,
            |b| b.not_uptodate += 1,
            |b| b.readahead += 1,
            |b| b.heads += 1,
            |b| b.shadows += 1,
            |b| b.pte_mapped += 1,
            |b| b.pmd_mapped += 1,
            |b| b.by_order[0] ^= 1 << 31,
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut other = base;
            change(&mut other);
            assert_ne!(base, other, "change {i}");
        }
        for o in 0..ORDERS {
            let mut other = base;
            other.by_order[o] += 1;
            assert_ne!(base, other, "order {o}");
        }
    }

    #[test]
    fn a_leaf_is_counted_from_its_entries_and_a_shadow_from_its_siblings_too() {
        // A leaf with no value entry is read at the slots that hold
        // entries alone; one with a value (a shadow, here of an order-2
        // folio: a value and three siblings) is read slot by slot, since
        // the shadow's siblings are shadow pages too.
        let folio = |index| {
            let f = Folio::new(index, 0, FolioFlags::UPTODATE);
            Entry::Pointer(f.encode())
        };
        let span = Span {
            first: 0,
            end: 64,
            bins: 1,
        };
        // The leaf's slots read, and its pages resident and shadowed.
        let count = |xa: &XArray| {
            let mut scan = Scan::new(span);
            let mut read = 0;
            xa.for_each_leaf_in(0, 63, |v| {
                if let Visit::Leaf(base, _, stamp) = v {
                    read = Leaf::of(xa, stamp).slots().1.count_ones();
                    scan.add_slots(base, Leaf::of(xa, stamp), true);
                }
            });
            let b = scan.binner.bins[0];
            (read, b.resident, b.shadows)
        };
        let mut xa = XArray::new();
        xa.store(8, folio(8));
        xa.store(40, folio(40));
        assert_eq!(count(&xa), (2, 2, 0));
        xa.store_order(0, 2, Entry::Value(7));
        assert_eq!(count(&xa), (64, 2, 4));
    }

    #[test]
    fn a_leaf_place_another_node_holds_now_is_counted_again() {
        // A leaf freed at a place and another allocated there later can
        // carry the same version number: what was kept for the first must
        // not stand for the second, whose own counts are then kept.
        let resident = |n: usize| {
            let mut slots = [0u64; XA_CHUNK_SIZE];
            for s in &mut slots[..n] {
                let f = Folio::new(0, 0, FolioFlags::UPTODATE);
                *s = crate::xarray::encode_slot(Entry::Pointer(f.encode()));
            }
            slots
        };
        let mut kept = LeafCounts::default();
        let (mut first, mut second, mut again) = (Bin::default(), Bin::default(), Bin::default());
        let (one, two) = (resident(1), resident(2));
        kept.add((5, 3), 128, Leaf::Slots(&one), &mut first);
        kept.add((9, 3), 128, Leaf::Slots(&two), &mut second);
        kept.add((9, 3), 128, Leaf::Slots(&two), &mut again);
        assert_eq!((first.resident, second.resident, again.resident), (1, 2, 2));
    }

    #[test]
    fn a_backward_sequential_walk_leaves_full_leaves_and_some_that_are_not() {
        let sim = run_64m(Pattern::Rev, Madvise::Sequential, 12_000);
        let m = sim.machine();
        let (mut full, mut not) = (0, 0);
        m.cache.xa.for_each_leaf_in(0, m.geo.nr_pages - 1, |v| {
            if let Visit::Leaf(_, raw, _) = v {
                if full_of_small_resident_folios(raw) {
                    full += 1;
                } else {
                    not += 1;
                }
            }
        });
        // The bins test walks this state: both of add_slots' ways count.
        assert!(full > 100 && not > 0, "{full} full leaves, {not} others");
    }

    #[test]
    fn a_full_leaf_is_counted_at_once_only_if_every_folio_is_a_plain_resident_page() {
        let slot = |order: u8, flags: FolioFlags| {
            crate::xarray::encode_slot(Entry::Pointer(Folio::new(0, order, flags).encode()))
        };
        let plain = slot(0, FolioFlags::UPTODATE);
        // Flags the bins do not tell apart leave a page plain.
        let referenced = slot(0, FolioFlags::UPTODATE.union(FolioFlags::REFERENCED));
        let mut leaf = [plain; XA_CHUNK_SIZE];
        leaf[9] = referenced;
        assert!(full_of_small_resident_folios(&leaf));
        let count = |leaf: &[u64; XA_CHUNK_SIZE]| {
            let span = Span {
                first: 0,
                end: 64,
                bins: 1,
            };
            let mut scan = Scan::new(span);
            scan.add_slots(0, Leaf::Slots(leaf), true);
            scan.binner.bins[0]
        };
        let mut one_by_one = leaf;
        one_by_one[63] = 0;
        let (all, less_one) = (count(&leaf), count(&one_by_one));
        assert_eq!((all.resident, all.heads, all.by_order[0]), (64, 64, 64));
        assert_eq!((less_one.resident, less_one.heads), (63, 63));
        for odd in [
            slot(1, FolioFlags::UPTODATE),
            slot(0, FolioFlags::UPTODATE.union(FolioFlags::READAHEAD)),
            slot(0, FolioFlags::UPTODATE.union(FolioFlags::LOCKED)),
            slot(0, FolioFlags::empty()),
            crate::xarray::encode_slot(Entry::Value(5)),
            0,
        ] {
            for at in [0, 31, 63] {
                let mut l = leaf;
                l[at] = odd;
                assert!(!full_of_small_resident_folios(&l), "{odd:#x} at {at}");
            }
        }
    }

    /// A simulation of `scenario`, `steps` accesses in.
    fn run_scenario(scenario: Scenario, steps: u64) -> Simulation {
        let mut sim = Simulation::new(Config::new(scenario).unwrap());
        sim.run_to(steps, &mut NoEvents);
        sim
    }

    /// A simulation of a 64 MiB file read with `pattern` under
    /// `madvise`, `steps` accesses in.
    fn run_64m(pattern: Pattern, madvise: Madvise, steps: u64) -> Simulation {
        run_scenario(
            Scenario {
                file_size: 64 << 20,
                pattern,
                madvise,
                ..Scenario::default()
            },
            steps,
        )
    }

    /// A simulation of a 64 MiB file read 20% at random under `madvise`
    /// in a memory cgroup of `limit` bytes, `steps` accesses in: reclaim
    /// leaves shadows among the folios.
    fn random_64m_limited(madvise: Madvise, limit: u64, steps: u64) -> Simulation {
        run_scenario(
            Scenario {
                file_size: 64 << 20,
                pattern: Pattern::Random {
                    milli_pct: 20_000,
                    seed: 9,
                },
                madvise,
                memory_limit: Some(limit),
                ..Scenario::default()
            },
            steps,
        )
    }

    /// Page by page, what the bins should hold.
    fn naive(m: &Machine, span: Span) -> Vec<Bin> {
        (0..span.bins)
            .map(|x| {
                let mut b = Bin::default();
                for p in span.bin_pages(x) {
                    if let (Entry::Value(_), _) = m.cache.xa.peek(p) {
                        b.shadows += 1;
                    }
                    if let Some(f) = m.cache.peek_folio(p) {
                        if f.index == p && span.bin_of(p) == Some(x) {
                            b.heads += 1;
                        }
                        match folio_state(&f) {
                            FolioState::Locked => b.locked += 1,
                            FolioState::NotUptodate => b.not_uptodate += 1,
                            FolioState::Resident => {
                                b.by_order[(f.order as usize).min(ORDERS - 1)] += 1;
                                b.resident += 1;
                            }
                        }
                        let first = f.index.max(span.first);
                        if f.test(FolioFlags::READAHEAD)
                            && p == first
                            && span.bin_of(first) == Some(x)
                        {
                            b.readahead += 1;
                        }
                    }
                    if m.mm.pte_mapped(p) {
                        b.pte_mapped += 1;
                    }
                    if m.mm.contains(p) && m.mm.pmd_of(p) == crate::mapping::Pmd::Huge {
                        b.pmd_mapped += 1;
                    }
                }
                b
            })
            .collect()
    }

    fn spans(pages: u64) -> Vec<Span> {
        vec![
            Span {
                first: 0,
                end: pages,
                bins: 1300,
            },
            Span {
                first: 0,
                end: pages,
                bins: 7,
            },
            Span {
                first: 1000,
                end: 1010,
                bins: 100,
            },
            Span {
                first: 511,
                end: 2049,
                bins: 333,
            },
            Span {
                first: 5,
                end: 6,
                bins: 10,
            },
        ]
    }

    #[test]
    fn folio_runs_hold_each_page_of_a_range_in_its_folio() {
        for (pattern, madvise, steps) in [
            (Pattern::Stride(3), Madvise::Normal, 900),
            (Pattern::Rev, Madvise::Hugepage, 20),
        ] {
            let sim = run_64m(pattern, madvise, steps);
            let m = sim.machine();
            let pages = m.geo.nr_pages;
            for (first, end) in [(0, pages), (1000, 1010), (511, 2049), (16000, 16001)] {
                let runs = m.folio_runs(first, end);
                let mut from_runs = Vec::new();
                for r in &runs {
                    for k in 0..r.count {
                        from_runs.push((r.start + (k << r.order), r.order));
                    }
                }
                let mut walked: Vec<(u64, u8)> = Vec::new();
                for p in first..end {
                    if let Some(f) = m.cache.peek_folio(p) {
                        if walked.last() != Some(&(f.index, f.order)) {
                            walked.push((f.index, f.order));
                        }
                    }
                }
                assert_eq!(from_runs, walked, "{first}..{end}");
                assert!(!runs.is_empty() || (first, end) != (0, pages));
            }
        }
    }

    #[test]
    fn each_page_is_in_the_bin_bin_of_names_and_in_no_bin_before() {
        for span in spans(16384).into_iter().chain([Span {
            first: 3,
            end: 40,
            bins: 1000,
        }]) {
            for p in span.first..span.end {
                let x = span.bin_of(p).unwrap();
                assert!(span.bin_pages(x).contains(&p), "{span:?} page {p}");
                assert!(
                    x == 0 || !span.bin_pages(x - 1).contains(&p),
                    "{span:?} page {p}"
                );
            }
            assert_eq!(span.bin_of(span.end), None);
        }
    }

    #[test]
    fn bins_count_what_a_page_by_page_walk_counts() {
        let mut shadows_seen = false;
        for (pattern, madvise, steps, memory_limit) in [
            (Pattern::Stride(3), Madvise::Normal, 900, None),
            (Pattern::Rev, Madvise::Hugepage, 20, None),
            // Every page read alone: leaves full of order-0 folios
            // (`full_of_small_resident_folios`), and one partly filled
            // where the walk stands.
            (Pattern::Rev, Madvise::Sequential, 12_000, None),
            (
                Pattern::Random {
                    milli_pct: 5000,
                    seed: 3,
                },
                Madvise::Normal,
                400,
                None,
            ),
            // Under a memory limit, reclaim leaves shadows: of PMD-sized
            // folios, and of the small folios leaves hold.
            (
                Pattern::Random {
                    milli_pct: 20_000,
                    seed: 9,
                },
                Madvise::Hugepage,
                600,
                Some(8 << 20),
            ),
            (
                Pattern::Random {
                    milli_pct: 20_000,
                    seed: 9,
                },
                Madvise::Normal,
                2000,
                Some(4 << 20),
            ),
        ] {
            let sim = run_scenario(
                Scenario {
                    file_size: 64 << 20,
                    pattern,
                    madvise,
                    memory_limit,
                    ..Scenario::default()
                },
                steps,
            );
            let m = sim.machine();
            for span in spans(m.geo.nr_pages) {
                let (got, want) = (m.bins(span), naive(m, span));
                if let Some(x) = (0..got.len()).find(|&x| got[x] != want[x]) {
                    panic!("{span:?} bin {x}: {:?}, want {:?}", got[x], want[x]);
                }
            }
            let whole = m.bins(spans(m.geo.nr_pages)[0]);
            assert!(whole.iter().any(|b| b.resident > 0), "a cache to draw");
            if m.cache.nr_shadows > 0 {
                shadows_seen = true;
            }
            assert!(
                whole.iter().any(|b| b.pte_mapped + b.pmd_mapped > 0),
                "mappings to draw"
            );
        }
        assert!(
            shadows_seen,
            "a scenario under a memory limit leaves shadows"
        );
    }

    /// Leaves counted ahead, in pieces that start and end anywhere, are
    /// every leaf wholly inside the pieces' twigs, each kept at its
    /// stamp; and a binning after them counts what it counts without.
    #[test]
    fn leaves_counted_ahead_are_kept_and_change_no_bin() {
        let sim = random_64m_limited(Madvise::Normal, 4 << 20, 2000);
        let m = sim.machine();
        let pages = m.geo.nr_pages;
        let mut kept = LeafBins::default();
        let mut first = 0;
        for end in [5000, 5000, 9000, pages] {
            m.count_leaves(first, end, &mut kept);
            first = end;
        }
        // A piece counts the twigs it holds whole: [4096, 12288) lies
        // across the pieces' ends, and is left to the binning.
        let counted = |p: u64| !(TWIG_PAGES..3 * TWIG_PAGES).contains(&p);
        let mut leaves = 0;
        m.cache.xa.for_each_leaf_in(0, pages - 1, |v| {
            if let Visit::Leaf(base, _, stamp) = v {
                leaves += 1;
                assert_eq!(
                    kept.leaves.kept(stamp, base).is_some(),
                    counted(base),
                    "the leaf from page {base}"
                );
            }
        });
        assert!(leaves > 64, "{leaves} leaves to count");
        for span in spans(pages) {
            let mut bins = Vec::new();
            let mut changed = ChangedPages::new(sim.config());
            changed.set_everything();
            m.rebin(span, &mut bins, &changed, &mut kept);
            assert!(bins == m.bins(span), "{span:?}");
        }
    }

    /// Every page's view names what covers it as the xarray's walk finds
    /// it, along nodes the tree view shows, ending in the entry's slots.
    #[test]
    fn a_page_view_walks_the_tree_to_the_entry() {
        let sim = random_64m_limited(Madvise::Hugepage, 8 << 20, 600);
        let m = sim.machine();
        let (mut folios, mut shadows, mut siblings) = (0, 0, 0);
        for page in (0..m.geo.nr_pages).step_by(7) {
            let v = m.page_view(page);
            assert_eq!(v.covering, covering_of(m, page), "page {page}");
            let (pte, pmd) = m.count_mapped_everywhere(page, page + 1);
            assert_eq!((v.pte_mappings as u64, v.pmd_mappings as u64), (pte, pmd));
            let Some(last) = v.path.nodes.last() else {
                assert_eq!(v.covering, Covering::Nothing, "page {page}: no nodes");
                continue;
            };
            let tree = m.xa_tree(page, page + 1, 64);
            for n in &v.path.nodes {
                assert!(
                    tree.nodes.iter().any(|t| t.id == n.id
                        && t.shift == n.shift
                        && t.offset == n.offset
                        && t.base == n.base),
                    "page {page}: node {n:?} is in the tree"
                );
                assert_eq!(n.slot as u64, (page - n.base) >> n.shift, "page {page}");
            }
            let node = tree.nodes.iter().find(|t| t.id == last.id).unwrap();
            let (slot, sibs) = (v.path.slot as usize, v.path.siblings as usize);
            let first = node.base + ((slot as u64) << node.shift);
            let nr = ((sibs as u64) + 1) << node.shift;
            match (v.covering, node.slots[slot]) {
                (Covering::Folio(f), Slot::Folio(g)) => {
                    assert_eq!(f, g);
                    assert_eq!((f.index, f.nr_pages()), (first, nr), "page {page}");
                    folios += 1;
                }
                (Covering::Shadow { index, order }, Slot::Shadow(_)) => {
                    assert_eq!((index, 1u64 << order), (first, nr), "page {page}");
                    shadows += 1;
                }
                (Covering::Nothing, Slot::Empty) => {}
                (c, s) => panic!("page {page}: {c:?} in slot {s:?}"),
            }
            for k in slot + 1..=slot + sibs {
                assert_eq!(
                    node.slots[k],
                    Slot::Sibling {
                        canonical: slot as u8
                    }
                );
            }
            siblings += sibs;
            if slot + sibs + 1 < 64 {
                assert_ne!(
                    node.slots[slot + sibs + 1],
                    Slot::Sibling {
                        canonical: slot as u8
                    }
                );
            }
        }
        assert!(
            folios > 0 && shadows > 0 && siblings > 0,
            "{folios} {shadows} {siblings}"
        );
    }

    /// Two kernels' machines differ on exactly the pages whose views
    /// differ, as runs.
    #[test]
    fn differing_pages_are_the_pages_whose_views_differ() {
        let run = |kernel: crate::Kernel| {
            let sim = run_scenario(
                Scenario {
                    kernel,
                    file_size: 64 << 20,
                    pattern: Pattern::Rev,
                    madvise: Madvise::Hugepage,
                    ..Scenario::default()
                },
                4000,
            );
            sim.machine().clone()
        };
        let a = run(crate::Kernel::from_variant(crate::Variant::V7_4Rc2));
        let b = run(crate::Kernel::from_variant(crate::Variant::V7_4Rc2DescRa));
        let pages = a.geo.nr_pages;
        let runs = a.differing_pages(&b, 0, pages);
        let want: Vec<u64> = (0..pages)
            .filter(|&p| {
                let (x, y) = (a.page_view(p), b.page_view(p));
                (x.covering, x.pte_mappings, x.pmd_mappings)
                    != (y.covering, y.pte_mappings, y.pmd_mappings)
            })
            .collect();
        let got: Vec<u64> = runs.iter().flat_map(|&(s, e)| s..e).collect();
        assert_eq!(got, want);
        assert!(!want.is_empty(), "the kernels part by access 4000");
        assert!(
            runs.windows(2).all(|w| w[0].1 < w[1].0),
            "runs apart, in order"
        );
        assert!(a.differing_pages(&a.clone(), 0, pages).is_empty());
    }

    #[test]
    fn mapped_counts_ptes_and_pmds_of_a_range() {
        let sim = run_64m(Pattern::Rev, Madvise::Hugepage, 3);
        let m = sim.machine();
        let pages = m.geo.nr_pages;
        let want = (0..pages).filter(|&p| m.mm.pmd_of(p) == crate::mapping::Pmd::Huge);
        assert_eq!(m.mapped(0, pages).pmd_pages, want.count() as u64);
        assert!(m.mapped(0, pages).pmd_pages >= 512, "a PMD mapping");
        assert_eq!(m.mapped(0, 100).pmd_pages, 0);
    }

    #[test]
    fn the_tree_view_decodes_folios_and_siblings() {
        let sim = run_scenario(
            Scenario {
                file_size: 8 << 20,
                pattern: Pattern::Fwd,
                ..Scenario::default()
            },
            40,
        );
        let t = sim.machine().xa_tree(0, 2048, 12);
        assert!(!t.nodes.is_empty());
        assert_eq!(t.nrpages, sim.machine().cache.nrpages);
        let leaf = t.nodes.iter().find(|n| n.shift == 0).expect("a leaf");
        for (off, s) in leaf.slots.iter().enumerate() {
            if let Slot::Folio(f) = s {
                assert_eq!(f.index, leaf.base + off as u64);
                assert!(f.test(FolioFlags::UPTODATE));
            }
            if let Slot::Sibling { canonical } = s {
                assert!(matches!(leaf.slots[*canonical as usize], Slot::Folio(_)));
            }
        }
    }
}
