//! The XArray of lib/xarray.c, Linux 6.18 (read in the 6.12 source; 6.18
//! changes nothing of substance here):
//! a radix tree of 64-slot nodes that indexes a file's folios.
//!
//! What is modelled, as the kernel has it:
//! - nodes with `shift`, `offset`, `count`, `nr_values`, a parent and three
//!   mark bitmaps (`struct xa_node`);
//! - multi-index entries: an entry of order `o` lives in the node whose
//!   shift is `o - o % 6` and spans `1 << (o % 6)` slots, the first holding
//!   the entry and the others sibling entries that point back at it;
//! - value entries (the page cache's shadows of evicted folios);
//! - the head, which holds a lone entry at index 0 without any node;
//! - `xas_expand`, `xas_shrink` and `xas_delete_node`, so the tree grows and
//!   shrinks as the kernel's does;
//! - the `xa_state` cursor ([`XaState`]) with `xas_load`, `xas_next`,
//!   `xas_prev`, `xas_advance`, `xas_find`, `xas_next_entry`,
//!   `xas_find_marked`, `xas_store` and the mark operations.
//!
//! What the model adds: [`XaStats`] counts node visits and calls, so that
//! the page-cache code above can report the lookups an operation makes. A
//! node visit is counted each time a cursor enters a node, going down or up.
//! Functions named `peek_*` or used for display and checking do not count.
//!
//! Entries are [`Entry`] values. The array does not know what a pointer
//! entry means; the page cache stores folios in them.

#[cfg(test)]
mod check;
mod node;
mod state;
#[cfg(test)]
mod tests;

use std::cell::Cell;

use crate::cow::{Frozen, Store, TrackedVec};

/// One node (about 570 bytes) per frozen chunk. A checkpoint copies the
/// chunks an interval wrote: with several nodes a chunk, a random walk,
/// which writes one leaf here and one there, copied its neighbours too.
/// The chunk list costs a slot number a node, and its unchanged segments
/// are shared. On the 16 GiB link (1% random, MADV_HUGEPAGE), chunks of
/// one node instead of four let the timeline keep a checkpoint every 512
/// accesses instead of 2048 within the same budget, and the app's cold
/// jumps there went from about 24 to 16 ms; the default preset's
/// checkpoints went from 2.7 to 1.7 MB a kernel. The price is in the
/// build: the more checkpoints, the more freezes. It took about a fifth
/// longer in the browser while a freeze still counted references to the
/// chunks it shared; slot numbers (see `cow.rs`) made that cost go.
const NODE_CHUNK: usize = 1;

/// The nodes of an array, frozen for a checkpoint.
pub(crate) type FrozenNodes = Frozen<Node, NODE_CHUNK>;

/// Where a timeline's frozen nodes are kept.
pub(crate) type NodePool = Store<Node, NODE_CHUNK>;

pub use node::{pointer_test, raw_bits, NodeId, MAX_PAYLOAD, XA_CHUNK_SHIFT, XA_CHUNK_SIZE};

const XA_CHUNK_MASK_U64: u64 = XA_CHUNK_SIZE as u64 - 1;
pub use state::{XaState, XasNode};

/// Decodes a raw slot, for the page cache's fast scans.
pub fn decode_slot(slot: u64) -> Entry {
    decode(slot)
}

/// The version in a node's stamp: a leaf's, as its parent's slot carries
/// it; another node's, whole.
fn stamp_version(n: &Node) -> u64 {
    if n.shift == 0 {
        n.version & LEAF_VERSION_MASK
    } else {
        n.version
    }
}

/// Hands `f` the entry whose canonical slot is `off` in node `n` (first
/// index `start`), with its order, if one starts there; returns how many
/// slots to move on: the entry's, with the sibling slots after it, or one.
#[inline]
fn visit_entry_at(n: &Node, off: usize, start: u64, f: &mut impl FnMut(Visit)) -> usize {
    let slot = n.slots[off];
    if slot == 0 || is_sibling(slot) {
        return 1;
    }
    let mut sibs = 0;
    while off + sibs + 1 < XA_CHUNK_SIZE && is_sibling(n.slots[off + sibs + 1]) {
        sibs += 1;
    }
    let order = n.shift + (sibs + 1).trailing_zeros() as u8;
    f(Visit::Entry(start, order, decode(slot)));
    sibs + 1
}

/// The stamp of the leaf a twig's raw slot points to, as the slot
/// carries it (the node's place and version), without reading the leaf;
/// None when the slot holds no node.
pub(crate) fn leaf_stamp_in_slot(slot: u64) -> Option<NodeStamp> {
    is_node(slot).then(|| (node_of(slot), leaf_version_of(slot)))
}

/// The raw slot that holds `entry`, for tests that make up a leaf's slots.
#[cfg(test)]
pub(crate) fn encode_slot(entry: Entry) -> u64 {
    node::encode(entry)
}

/// The payload of a raw slot that holds a pointer entry, or 0 for any
/// other slot, without a branch: for scans that test many slots. (Callers
/// whose payloads are never 0, as folios' are not, can tell them apart.)
#[inline]
pub fn pointer_payload(slot: u64) -> u64 {
    (slot >> node::TAG_BITS) * node::is_pointer(slot) as u64
}

use node::{
    decode, encode, is_node, is_sibling, is_value, leaf_slot, leaf_version_of, node_of, sibling_of,
    Node, LEAF_VERSION_MASK, NIL,
};

/// A node's place in the arena and how many times the slots there (and
/// under it, for a node over leaves) were written: along one run, the
/// same stamp means the same slots. A leaf's version is the part of it
/// its parent's slot carries (`LEAF_VERSION_MASK`).
pub type NodeStamp = (NodeId, u64);

/// What [`XArray::for_each_leaf_in`] and [`XArray::for_each_twig_in`]
/// visit.
#[derive(Clone, Copy, Debug)]
pub enum Visit<'a> {
    /// A node one level above the leaves (shift 6, 4096 indices) wholly
    /// inside the range, from its first index, with its stamp; its
    /// entries are not visited.
    Twig(u64, NodeStamp),
    /// A leaf node wholly inside the range: its first index and raw slots
    /// (decode them with [`decode_slot`]; sibling slots follow their entry),
    /// and its place in the arena and version ([`NodeStamp`]).
    Leaf(u64, &'a [u64; XA_CHUNK_SIZE], NodeStamp),
    /// An entry outside such a node: first index, order, entry.
    Entry(u64, u8, Entry),
}

/// How coarsely a range walk hands over what it meets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Grain {
    Entries,
    Leaves,
    Twigs,
}

impl Grain {
    /// Whether a walk at this grain hands a node at `shift` that lies
    /// wholly inside its range over by its stamp instead of walking it:
    /// leaves at the leaf grain, leaves and twigs at the twig grain.
    fn by_stamp(self, shift: u8) -> bool {
        match self {
            Grain::Entries => false,
            Grain::Leaves => shift == 0,
            Grain::Twigs => shift == 0 || shift == XA_CHUNK_SHIFT,
        }
    }
}

/// One slot's content, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// NULL.
    Empty,
    /// A pointer entry; the payload is the user's (the page cache: a folio).
    Pointer(u64),
    /// A value entry (`xa_mk_value`); the page cache uses them as shadows.
    Value(u64),
    /// An internal sibling entry: the canonical slot of a multi-index entry.
    Sibling(u8),
    /// An internal node entry.
    Node(NodeId),
    /// XA_RETRY_ENTRY, seen by a walker that raced with a split or free.
    Retry,
}

impl Entry {
    pub fn is_empty(self) -> bool {
        self == Entry::Empty
    }
    pub fn is_value(self) -> bool {
        matches!(self, Entry::Value(_))
    }
    pub fn is_sibling(self) -> bool {
        matches!(self, Entry::Sibling(_))
    }
    pub fn is_node(self) -> bool {
        matches!(self, Entry::Node(_))
    }
    /// `xa_is_internal`: siblings, nodes and retry entries.
    pub fn is_internal(self) -> bool {
        matches!(self, Entry::Sibling(_) | Entry::Node(_) | Entry::Retry)
    }
}

/// The three marks; the page cache calls them DIRTY, WRITEBACK and TOWRITE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XaMark {
    Mark0 = 0,
    Mark1 = 1,
    Mark2 = 2,
}

impl XaMark {
    pub const ALL: [XaMark; 3] = [XaMark::Mark0, XaMark::Mark1, XaMark::Mark2];
    fn bit(self) -> usize {
        self as usize
    }
}

/// Counters of the work the cursor did, for lookup accounting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XaStats {
    /// Nodes entered by a cursor, going down or up.
    pub node_visits: u64,
    pub xas_load: u64,
    pub xas_next: u64,
    /// `xas_advance`: a cursor move inside the node, no memory touched.
    pub xas_advance: u64,
    pub xas_prev: u64,
    pub xas_find: u64,
    pub xas_store: u64,
}

impl XaStats {
    pub fn since(&self, earlier: &XaStats) -> XaStats {
        XaStats {
            node_visits: self.node_visits - earlier.node_visits,
            xas_load: self.xas_load - earlier.xas_load,
            xas_next: self.xas_next - earlier.xas_next,
            xas_advance: self.xas_advance - earlier.xas_advance,
            xas_prev: self.xas_prev - earlier.xas_prev,
            xas_find: self.xas_find - earlier.xas_find,
            xas_store: self.xas_store - earlier.xas_store,
        }
    }
}

/// `struct xarray`: the head, the head's marks, and an arena of nodes.
#[derive(Clone, Debug, Default)]
pub struct XArray {
    head: u64,
    head_marks: u8,
    /// Written chunks are tracked for checkpoints: see [`crate::cow`].
    nodes: TrackedVec<Node, NODE_CHUNK>,
    free: Vec<NodeId>,
    stats: StatCells,
    /// Bumped whenever a node is allocated or freed, which is when a
    /// remembered path may stop being the path.
    generation: u64,
    /// The leaf the last walk from the head ended in.
    hint: Cell<LeafHint>,
}

/// A remembered walk: the leaf covering `base..base + 64`, found at
/// `depth` nodes from the head while the tree had `generation`. A walk to
/// an index in that range from the head would end in the same leaf, so the
/// model may start there and count the `depth` visits the walk makes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LeafHint {
    pub id: NodeId,
    pub base: u64,
    pub depth: u32,
    pub generation: u64,
    pub valid: bool,
}

/// The counters, one cell each, so that bumping one touches one word.
#[derive(Clone, Debug, Default)]
struct StatCells {
    node_visits: Cell<u64>,
    xas_load: Cell<u64>,
    xas_next: Cell<u64>,
    xas_prev: Cell<u64>,
    xas_find: Cell<u64>,
    xas_store: Cell<u64>,
    xas_advance: Cell<u64>,
}

/// Which counter to bump.
#[derive(Clone, Copy)]
pub enum Stat {
    NodeVisit,
    Load,
    Next,
    Prev,
    Find,
    Store,
    Advance,
}

/// What [`XArray::peek_present_run`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PresentRun {
    /// The first index without a cached entry, or the limit.
    pub end: u64,
    /// Node visits of loading every index before `end`.
    pub visits: u64,
    /// Node visits of the load at `end`, when `end` is below the limit.
    pub miss_visits: u64,
}

/// What [`XArray::path`] found: the nodes passed, each as (id, shift,
/// offset in its parent, first index, slot taken), and the entry's
/// canonical slot in the last one with its count of sibling slots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XaPathRaw {
    pub nodes: Vec<(NodeId, u8, u8, u64, u8)>,
    pub slot: u8,
    pub siblings: u8,
}

/// One node as the visualizer sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    pub id: NodeId,
    pub shift: u8,
    pub offset: u8,
    /// The first index this node covers.
    pub base: u64,
    pub count: u8,
    pub nr_values: u8,
    pub depth: u8,
    pub slots: Vec<Entry>,
    pub marks: [u64; 3],
}

/// The most nodes [`XArray::with_room_for`] reserves: 73 MiB of address
/// space (584 bytes a node), the nodes of a 32 GiB file of 4 KiB pages.
const RESERVED_NODES_MAX: usize = 1 << 17;

/// Nodes in an array that holds every index below `indices`: a leaf per
/// 64 indices, a node above per 64 of those, and so on up to one head.
fn nodes_to_hold(indices: u64) -> usize {
    let mut total = 0u64;
    let mut level = indices;
    loop {
        level = level.div_ceil(XA_CHUNK_SIZE as u64);
        total += level;
        if level <= 1 {
            return total as usize;
        }
    }
}

impl XArray {
    #[cfg(test)]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty array with room for the nodes of one that holds every
    /// index below `indices`, up to [`RESERVED_NODES_MAX`]: the run that
    /// fills it never grows its arena by doublings, each of which copied
    /// every node (the 2 GiB backward walk's peak RSS natively: 11.6 ->
    /// 7.0 MB). Room reserved and never used is address space, not
    /// memory: no page of it is touched (natively; a wasm memory grows
    /// by all of it, see [`XArray::with_room`]).
    pub fn with_room_for(indices: u64) -> Self {
        Self::with_room(nodes_to_hold(indices).min(RESERVED_NODES_MAX))
    }

    /// An empty array with room for `nodes` nodes: a second run of a
    /// scenario knows from the first how many it will hold. In a wasm
    /// memory, unlike a process's address space, room reserved counts as
    /// memory as soon as it is taken, and the memory never shrinks.
    pub(crate) fn with_room(nodes: usize) -> Self {
        let mut xa = Self::default();
        xa.nodes.reserve(nodes);
        xa
    }

    /// Nodes in the arena, in use or free: the most the array has held
    /// at once.
    pub(crate) fn arena_len(&self) -> usize {
        self.nodes.len()
    }

    /// Gives back the arena's room past the nodes it holds, for an array
    /// that will not grow again: a run's at its end. It shrinks in
    /// place: moving the nodes to a block of their own instead, so that
    /// the whole room went back in one piece for the next view's build,
    /// made the app's wasm memory larger, not smaller (the 16 GiB
    /// backward sequential link alone 96.0 -> 111.4 MB, after the 16 GiB
    /// comparison 151.4 -> 188.6 MB; one load each, 2026-12-07).
    pub(crate) fn shrink_arena(&mut self) {
        self.nodes.shrink_to_fit();
    }

    /// Makes room in the arena for `room` nodes in all, now rather than
    /// at the first thaw or step that needs it.
    pub(crate) fn reserve_arena(&mut self, room: usize) {
        self.nodes.reserve(room.saturating_sub(self.nodes.len()));
    }

    /// Brings the pages behind the arena's room into memory now. Room
    /// only reserved is address space, and the first write to each of
    /// its pages faults: a run from the start then takes those faults
    /// as it adds nodes.
    pub(crate) fn touch_arena_room(&mut self) {
        self.nodes.touch_room(Node::new(0, NIL, 0));
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.head == 0
    }

    /// The head, the nodes (versions and summaries too) and the free
    /// list, for tests that hold two arrays made two ways to be one.
    #[cfg(test)]
    pub(crate) fn shape(&self) -> String {
        format!(
            "{:?} {:?} {:?}",
            self.head,
            self.nodes.as_slice(),
            self.free
        )
    }

    /// Bytes the node arena has allocated, used or not.
    #[cfg(test)]
    pub(crate) fn arena_bytes(&self) -> usize {
        self.nodes.memory_bytes()
    }

    pub fn stats(&self) -> XaStats {
        let c = &self.stats;
        XaStats {
            node_visits: c.node_visits.get(),
            xas_load: c.xas_load.get(),
            xas_next: c.xas_next.get(),
            xas_advance: c.xas_advance.get(),
            xas_prev: c.xas_prev.get(),
            xas_find: c.xas_find.get(),
            xas_store: c.xas_store.get(),
        }
    }

    /// Puts the counters back, after work the kernel would not have done.
    pub fn set_stats(&self, s: XaStats) {
        let c = &self.stats;
        c.node_visits.set(s.node_visits);
        c.xas_load.set(s.xas_load);
        c.xas_next.set(s.xas_next);
        c.xas_advance.set(s.xas_advance);
        c.xas_prev.set(s.xas_prev);
        c.xas_find.set(s.xas_find);
        c.xas_store.set(s.xas_store);
    }

    pub fn reset_stats(&self) {
        self.set_stats(XaStats::default());
    }

    /// The remembered leaf for `index`, if the tree has not changed shape.
    #[inline]
    pub(crate) fn leaf_hint(&self, index: u64) -> Option<LeafHint> {
        let h = self.hint.get();
        (h.valid
            && h.generation == self.generation
            && (index >> XA_CHUNK_SHIFT) == (h.base >> XA_CHUNK_SHIFT))
            .then_some(h)
    }

    #[inline]
    pub(crate) fn remember_leaf(&self, id: NodeId, index: u64, depth: u32) {
        self.hint.set(LeafHint {
            id,
            base: index & !(XA_CHUNK_SIZE as u64 - 1),
            depth,
            generation: self.generation,
            valid: true,
        });
    }

    #[inline(always)]
    pub(crate) fn bump_visits(&self, n: u64) {
        let c = &self.stats.node_visits;
        c.set(c.get() + n);
    }

    #[inline(always)]
    pub fn bump(&self, which: Stat) {
        self.bump_by(which, 1);
    }

    /// Adds `n` to one counter, for lookups the model made in bulk.
    #[inline(always)]
    pub fn bump_by(&self, which: Stat, n: u64) {
        let c = match which {
            Stat::NodeVisit => &self.stats.node_visits,
            Stat::Load => &self.stats.xas_load,
            Stat::Next => &self.stats.xas_next,
            Stat::Prev => &self.stats.xas_prev,
            Stat::Find => &self.stats.xas_find,
            Stat::Store => &self.stats.xas_store,
            Stat::Advance => &self.stats.xas_advance,
        };
        c.set(c.get() + n);
    }

    /// `xa_load`: the entry at `index`, siblings resolved. Counted.
    pub fn load(&self, index: u64) -> Entry {
        let mut xas = XaState::new(index);
        loop {
            let e = xas.load(self);
            if e == Entry::Retry {
                xas.reset();
                continue;
            }
            return if e.is_internal() { Entry::Empty } else { e };
        }
    }

    #[cfg(test)]
    /// `xa_store`: stores an order-0 entry; returns the old one. Counted.
    pub fn store(&mut self, index: u64, entry: Entry) -> Entry {
        XaState::new(index).store(self, entry)
    }

    /// Stores `entry` over `1 << order` indices starting at the aligned `index`.
    pub fn store_order(&mut self, index: u64, order: u8, entry: Entry) -> Entry {
        XaState::new_order(index, order).store(self, entry)
    }

    #[cfg(test)]
    /// `xa_erase`.
    pub fn erase(&mut self, index: u64) -> Entry {
        XaState::new(index).store(self, Entry::Empty)
    }

    #[cfg(test)]
    /// `xa_get_order`: the order of the entry at `index`.
    pub fn get_order(&self, index: u64) -> u8 {
        let mut xas = XaState::new(index);
        let e = xas.load(self);
        if e.is_empty() {
            return 0;
        }
        xas.get_order(self)
    }

    #[cfg(test)]
    pub fn set_mark(&mut self, index: u64, mark: XaMark) {
        let mut xas = XaState::new(index);
        let e = xas.load(self);
        if !e.is_empty() && !e.is_internal() {
            xas.set_mark(self, mark);
        }
    }

    /// For the property test, native only.
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn clear_mark(&mut self, index: u64, mark: XaMark) {
        let mut xas = XaState::new(index);
        let e = xas.load(self);
        if !e.is_empty() && !e.is_internal() {
            xas.clear_mark(self, mark);
        }
    }

    #[cfg(test)]
    pub fn get_mark(&self, index: u64, mark: XaMark) -> bool {
        let mut xas = XaState::new(index);
        let e = xas.load(self);
        !e.is_empty() && xas.get_mark(self, mark)
    }

    /// `xa_marked`: whether any entry carries the mark.
    pub fn marked(&self, mark: XaMark) -> bool {
        self.head_marks & (1 << mark.bit()) != 0
    }

    /// `xa_find`: the first entry at or after `*index` up to `max`, either
    /// any present entry or one carrying `mark`; moves `*index` to it.
    pub fn find(&self, index: &mut u64, max: u64, mark: Option<XaMark>) -> Entry {
        let mut xas = XaState::new(*index);
        loop {
            let e = match mark {
                Some(m) => xas.find_marked(self, max, m),
                None => xas.find(self, max),
            };
            if e == Entry::Retry {
                xas.reset();
                continue;
            }
            if !e.is_empty() {
                *index = xas.index;
            }
            return e;
        }
    }

    /// `xa_find_after`: like [`XArray::find`], for entries that start after `*index`.
    pub fn find_after(&self, index: &mut u64, max: u64, mark: Option<XaMark>) -> Entry {
        let Some(mut from) = index.checked_add(1) else {
            return Entry::Empty;
        };
        loop {
            if from > max {
                return Entry::Empty;
            }
            let mut at = from;
            let e = self.find(&mut at, max, mark);
            if e.is_empty() {
                return e;
            }
            // An entry that began at or before the old index was seen already.
            let (_, start) = self.peek(at);
            if start <= *index {
                let order = self.peek_order(at) as u32;
                let mask = if order >= 64 {
                    u64::MAX
                } else {
                    (1u64 << order) - 1
                };
                match (start | mask).checked_add(1) {
                    Some(n) => {
                        from = n;
                        continue;
                    }
                    None => return Entry::Empty,
                }
            }
            *index = at.max(start);
            return e;
        }
    }

    /// The order of the entry covering `index`, without counting.
    pub fn peek_order(&self, index: u64) -> u8 {
        let mut slot = self.head;
        if !is_node(slot) {
            return 0;
        }
        loop {
            let n = &self.nodes[node_of(slot) as usize];
            let mut off = ((index >> n.shift) & node::XA_CHUNK_MASK) as usize;
            slot = n.slots[off];
            if is_sibling(slot) {
                off = sibling_of(slot);
                slot = n.slots[off];
            }
            if !is_node(slot) {
                let mut order = 0u8;
                while off + (1usize << order) < XA_CHUNK_SIZE
                    && is_sibling(n.slots[off + (1usize << order)])
                {
                    order += 1;
                }
                return order + n.shift;
            }
        }
    }

    // ---- uncounted access, for the model's own bookkeeping and display ----

    /// The entry at `index` with siblings resolved, and the index where that
    /// entry starts. Not counted as a lookup.
    pub fn peek(&self, index: u64) -> (Entry, u64) {
        if let Some(h) = self.leaf_hint(index) {
            let n = &self.nodes[h.id as usize];
            let mut off = (index & node::XA_CHUNK_MASK) as usize;
            let mut slot = n.slots[off];
            if is_sibling(slot) {
                off = sibling_of(slot);
                slot = n.slots[off];
            }
            return (decode(slot), h.base + off as u64);
        }
        let mut slot = self.head;
        if !is_node(slot) {
            return if index == 0 {
                (decode(slot), 0)
            } else {
                (Entry::Empty, index)
            };
        }
        let root = &self.nodes[node_of(slot) as usize];
        if (index >> root.shift) > node::XA_CHUNK_MASK {
            return (Entry::Empty, index);
        }
        // Each level's shift from the root's, as `XaState::load` keeps it:
        // the slot's load does not wait on the node's header.
        let mut shift = root.shift;
        loop {
            let n = &self.nodes[node_of(slot) as usize];
            debug_assert_eq!(
                n.shift, shift,
                "a child's shift is its parent's less one chunk"
            );
            let mut off = ((index >> shift) & node::XA_CHUNK_MASK) as usize;
            slot = n.slots[off];
            if is_sibling(slot) {
                off = sibling_of(slot);
                slot = n.slots[off];
            }
            if !is_node(slot) {
                let start = (index & !node_span_mask(shift)) + ((off as u64) << shift);
                return (decode(slot), start);
            }
            shift -= node::XA_CHUNK_SHIFT;
        }
    }

    /// Rewrites the payload of the pointer entry covering `index` in place
    /// (its canonical slot; siblings only point there), with `f` given the
    /// old payload. Not counted: the page cache changes a folio it holds,
    /// it does not look it up. Returns the new payload, or None if no
    /// pointer entry covers `index`.
    pub fn peek_modify_pointer(&mut self, index: u64, f: impl FnOnce(u64) -> u64) -> Option<u64> {
        if let Some(h) = self.leaf_hint(index) {
            let id = h.id;
            let n = &mut self.nodes[id as usize];
            let mut off = (index & node::XA_CHUNK_MASK) as usize;
            if is_sibling(n.slots[off]) {
                off = sibling_of(n.slots[off]);
            }
            let Entry::Pointer(p) = decode(n.slots[off]) else {
                return None;
            };
            let new = f(p);
            n.slots[off] = encode(Entry::Pointer(new));
            n.version += 1;
            self.count_leaf_write(id);
            return Some(new);
        }
        let head = self.head;
        if !is_node(head) {
            if let (0, Entry::Pointer(p)) = (index, decode(head)) {
                let new = f(p);
                debug_assert!(new <= MAX_PAYLOAD && new != 0);
                self.head = encode(Entry::Pointer(new));
                return Some(new);
            }
            return None;
        }
        let mut id = node_of(head);
        if (index >> self.nodes[id as usize].shift) > node::XA_CHUNK_MASK {
            return None;
        }
        loop {
            let n = &self.nodes[id as usize];
            let mut off = ((index >> n.shift) & node::XA_CHUNK_MASK) as usize;
            let mut slot = n.slots[off];
            if is_sibling(slot) {
                off = sibling_of(slot);
                slot = n.slots[off];
            }
            if is_node(slot) {
                id = node_of(slot);
                continue;
            }
            let Entry::Pointer(p) = decode(slot) else {
                return None;
            };
            let new = f(p);
            debug_assert!(new <= MAX_PAYLOAD && new != 0);
            // Same kind of entry, so no summary bit changes.
            let n = &mut self.nodes[id as usize];
            n.slots[off] = encode(Entry::Pointer(new));
            n.version += 1;
            self.count_leaf_write(id);
            return Some(new);
        }
    }

    /// The slots `lo..=hi` of leaf node `id`, for fast scans over order-0
    /// entries, if none of them is internal (a sibling: a leaf holds no
    /// node). None if `id` is not a leaf or a slot there is a sibling.
    pub(crate) fn leaf_window(&self, id: NodeId, lo: usize, hi: usize) -> Option<&[u64]> {
        let n = self.nodes.get(id as usize)?;
        if n.shift != 0 {
            return None;
        }
        let window = &n.slots[lo..=hi];
        // A pointer entry's siblings are present but not canonical; a
        // value entry's are neither, and only a leaf with values has them.
        let mask = (u64::MAX >> (XA_CHUNK_SIZE - 1 - (hi - lo))) << lo;
        let siblings = n.present & !n.canon & mask != 0
            || (n.nr_values != 0 && window.iter().any(|&s| is_sibling(s)));
        (!siblings).then_some(window)
    }

    #[cfg(test)]
    /// The depth (number of nodes walked) at which `index`'s slot lives.
    pub fn peek_depth(&self, index: u64) -> u32 {
        let mut slot = self.head;
        let mut depth = 0;
        while is_node(slot) {
            let n = &self.nodes[node_of(slot) as usize];
            if (index >> n.shift) > node::XA_CHUNK_MASK && depth == 0 {
                return 1;
            }
            depth += 1;
            let mut off = ((index >> n.shift) & node::XA_CHUNK_MASK) as usize;
            slot = n.slots[off];
            if is_sibling(slot) {
                off = sibling_of(slot);
                slot = n.slots[off];
            }
        }
        depth
    }

    /// The first index in `[from, limit)` that holds no pointer entry (NULL
    /// or a value), or `limit`; the node visits that a page-by-page
    /// `xa_load` of the skipped indices would have made; and the visits of
    /// the load that finds the gap. Not counted itself: the caller adds
    /// the visits, as the kernel would have made them.
    ///
    /// A backward walk's readahead asks, access after access, for nearly
    /// the run it asked for last: one index lower, one less far. Finding
    /// it from the last run instead, by scanning only the pages gained and
    /// lost at its two ends, cost more: the 2 GiB backward MADV_SEQUENTIAL
    /// walk took 1,678 M instructions against 1,489 M (callgrind,
    /// 2026-12-06), since a lone page far from the leaf hint is scanned
    /// from the head, and this scan climbs from the hint over whole full
    /// leaves a bit test at a time.
    pub fn peek_present_run(&self, from: u64, limit: u64) -> PresentRun {
        let mut run = PresentRun {
            end: from,
            visits: 0,
            miss_visits: 0,
        };
        if from >= limit {
            return run;
        }
        let head = self.head;
        if !is_node(head) {
            if from == 0 && head != 0 && !is_value(head) {
                run.end = 1.min(limit);
            }
            return run;
        }
        let root = node_of(head);
        if (from >> self.nodes[root as usize].shift) > node::XA_CHUNK_MASK {
            return run;
        }
        if let Some(h) = self.leaf_hint(from) {
            // Start in the remembered leaf and climb through its parents
            // while the run goes on past the node scanned: each parent
            // picks the run up at the slot after the child it came from,
            // where the walk from the head would be at that point.
            let mut id = h.id;
            let mut depth = h.depth as u64;
            let mut end = self.run_in_leaf(id, depth, from, limit, &mut run);
            let mut node_end = h.base + XA_CHUNK_SIZE as u64;
            while end == node_end && end < limit {
                let n = &self.nodes[id as usize];
                if n.parent == NIL {
                    // Past the top of the tree: the load there visits nothing.
                    run.miss_visits = 0;
                    break;
                }
                id = n.parent;
                depth -= 1;
                let p = &self.nodes[id as usize];
                node_end = (end - 1) | node_span_mask(p.shift);
                node_end = node_end.wrapping_add(1);
                if n.offset as usize == XA_CHUNK_SIZE - 1 {
                    continue;
                }
                end = self.run_in(id, depth, end, limit, &mut run);
            }
            run.end = end;
            return run;
        }
        run.end = self.run_in(root, 1, from, limit, &mut run);
        run
    }

    /// [`XArray::run_in`] for a node just above the leaves that holds no
    /// entry itself, only leaves (and NULL or value slots): the page cache
    /// of order-0 folios. Each page in a leaf costs `depth + 1` visits; a
    /// run of full leaves is one `trailing_ones`, and the run ends in the
    /// first leaf that is not full, or at a slot with no leaf.
    fn run_in_leaves(
        &self,
        id: NodeId,
        depth: u64,
        from: u64,
        limit: u64,
        run: &mut PresentRun,
    ) -> u64 {
        let n = &self.nodes[id as usize];
        let base = from & !node_span_mask(XA_CHUNK_SHIFT);
        let full = n.children & n.full;
        let mut pos = from;
        let mut off = ((from >> XA_CHUNK_SHIFT) & XA_CHUNK_MASK_U64) as u32;
        while off < XA_CHUNK_SIZE as u32 {
            let k = off + (full >> off).trailing_ones();
            let end = pos.max(base + ((k as u64) << XA_CHUNK_SHIFT)).min(limit);
            run.visits += (end - pos) * (depth + 1);
            pos = end;
            if pos >= limit || k == XA_CHUNK_SIZE as u32 {
                return pos;
            }
            if (n.children >> k) & 1 == 0 {
                run.miss_visits = depth;
                return pos;
            }
            let leaf_end = base + ((k as u64 + 1) << XA_CHUNK_SHIFT);
            let end = self.run_in_leaf(node_of(n.slots[k as usize]), depth + 1, pos, limit, run);
            if end < leaf_end.min(limit) || end >= limit {
                return end;
            }
            pos = leaf_end;
            off = k + 1;
        }
        pos
    }

    /// [`XArray::run_in`] for a leaf: entries there cost `depth` visits a
    /// page, and the run ends at the first slot with no pointer entry.
    #[inline]
    fn run_in_leaf(
        &self,
        id: NodeId,
        depth: u64,
        from: u64,
        limit: u64,
        run: &mut PresentRun,
    ) -> u64 {
        let off = from & XA_CHUNK_MASK_U64;
        let ones = (self.nodes[id as usize].present >> off).trailing_ones() as u64;
        let end = (from + ones).min(limit);
        run.visits += (end - from) * depth;
        if end < limit && off + ones < XA_CHUNK_SIZE as u64 {
            run.miss_visits = depth;
        }
        end
    }

    /// Scans node `id` (at `depth`) from `from`; returns the first absent
    /// index, or the end of the node's range (clamped to `limit`).
    fn run_in(&self, id: NodeId, depth: u64, from: u64, limit: u64, run: &mut PresentRun) -> u64 {
        let n = &self.nodes[id as usize];
        if n.shift == 0 {
            return self.run_in_leaf(id, depth, from, limit, run);
        }
        if n.shift == XA_CHUNK_SHIFT && n.present & !n.children == 0 {
            return self.run_in_leaves(id, depth, from, limit, run);
        }
        let shift = n.shift as u32;
        let base = from & !node_span_mask(n.shift);
        let slot_start = |k: usize| base + ((k as u64) << shift);
        let mut off = ((from >> shift) & node::XA_CHUNK_MASK) as usize;
        let mut pos = from;
        // Slots that are wholly cached: entries, and full leaves below.
        let leaves = n.children & n.full;
        let solid = (n.present & !n.children) | leaves;
        while off < XA_CHUNK_SIZE && pos < limit {
            let len = ((solid >> off).trailing_ones() as usize).min(XA_CHUNK_SIZE - off);
            if len > 0 {
                let end = slot_start(off + len).min(limit);
                // Only the slots that start before `end` are walked.
                let used = (((end - 1 - slot_start(off)) >> shift) + 1) as usize;
                // Entries here cost `depth` visits a page, full leaves one more.
                let mut extra = 0;
                let mask = if used == 64 {
                    u64::MAX
                } else {
                    ((1u64 << used) - 1) << off
                };
                let in_run = leaves & mask;
                if in_run != 0 {
                    extra = (in_run.count_ones() as u64) << shift;
                    if leaves & (1 << off) != 0 {
                        extra -= pos - slot_start(off);
                    }
                    let last = off + used - 1;
                    if leaves & (1 << last) != 0 {
                        extra -= slot_start(last + 1) - end.max(slot_start(last));
                    }
                }
                run.visits += (end - pos) * depth + extra;
                pos = end;
                off += len;
                continue;
            }
            if (n.present >> off) & 1 == 0 {
                run.miss_visits = depth;
                return pos;
            }
            // A child node that is not a full leaf: walk it.
            let slot = n.slots[off];
            let slot_end = slot_start(off + 1);
            let child_end = self.run_in(node_of(slot), depth + 1, pos, limit, run);
            if child_end < slot_end.min(limit) {
                return child_end;
            }
            pos = slot_end.min(limit);
            off += 1;
        }
        pos.min(limit)
    }

    /// Every present entry (pointer or value) in index order, with its first
    /// index and order. Not counted.
    pub fn for_each_entry(&self, f: impl FnMut(u64, u8, Entry)) {
        self.for_each_entry_in(0, u64::MAX, f);
    }

    /// Every present entry overlapping `[first, last]`, in index order.
    /// Not counted; for display.
    pub fn for_each_entry_in(&self, first: u64, last: u64, mut f: impl FnMut(u64, u8, Entry)) {
        self.walk(first, last, Grain::Entries, &mut |v| {
            if let Visit::Entry(i, o, e) = v {
                f(i, o, e)
            }
        });
    }

    /// Like [`XArray::for_each_entry_in`], but hands each leaf node that
    /// lies wholly inside `[first, last]` over as raw slots, so that display
    /// code drawing hundreds of thousands of order-0 folios scans them in a
    /// tight loop. Uncounted.
    pub fn for_each_leaf_in(&self, first: u64, last: u64, mut f: impl FnMut(Visit)) {
        self.walk(first, last, Grain::Leaves, &mut f);
    }

    /// Like [`XArray::for_each_leaf_in`], but hands each node one level
    /// above the leaves that lies wholly inside `[first, last]` over by
    /// its stamp alone, for display code that keeps what it counted
    /// there. Uncounted.
    pub fn for_each_twig_in(&self, first: u64, last: u64, mut f: impl FnMut(Visit)) {
        self.walk(first, last, Grain::Twigs, &mut f);
    }

    /// The children of twig `id` (a node one level above the leaves, from
    /// index `base`) as [`XArray::for_each_leaf_in`] hands them over for a
    /// range that holds the whole twig: each leaf with its stamp (read from
    /// this twig's slot, not the leaf), each entry with its order. The
    /// general walk's range checks are all true here, and a changed twig
    /// is counted again leaf by leaf on every jump at the 16 GiB link's
    /// zoom. Uncounted; for display.
    pub fn for_each_in_twig(&self, id: NodeId, base: u64, mut f: impl FnMut(Visit)) {
        let n = &self.nodes[id as usize];
        debug_assert_eq!(n.shift, XA_CHUNK_SHIFT);
        let mut off = 0;
        while off < XA_CHUNK_SIZE {
            let slot = n.slots[off];
            let start = base + ((off as u64) << XA_CHUNK_SHIFT);
            if is_node(slot) {
                self.hand_over(node_of(slot), 0, start, leaf_version_of(slot), &mut f);
                off += 1;
            } else {
                off += visit_entry_at(n, off, start, &mut f);
            }
        }
    }

    /// The raw slots of node `id`: a twig's, from which a binning that
    /// kept them tells which of its leaves changed since, or a leaf's.
    pub(crate) fn node_slots(&self, id: NodeId) -> &[u64; XA_CHUNK_SIZE] {
        &self.nodes[id as usize].slots
    }

    /// The slots of leaf `id` that a reader of its entries must look at:
    /// when it holds no value entry, those holding an entry (the `canon`
    /// summary); all 64 otherwise, since the sibling slots of a value
    /// entry (a shadow) stand for shadow pages too.
    pub(crate) fn leaf_entry_slots(&self, id: NodeId) -> u64 {
        let n = &self.nodes[id as usize];
        if n.nr_values == 0 {
            n.canon
        } else {
            u64::MAX
        }
    }

    /// The range walk under all three: entries in index order, and at a
    /// coarser `grain`, whole nodes inside the range.
    fn walk(&self, first: u64, last: u64, grain: Grain, f: &mut impl FnMut(Visit)) {
        let head = self.head;
        if head == 0 || first > last {
            return;
        }
        if !is_node(head) {
            if first == 0 {
                f(Visit::Entry(0, 0, decode(head)));
            }
            return;
        }
        let root = node_of(head);
        let n = &self.nodes[root as usize];
        if grain.by_stamp(n.shift) && first == 0 && node_span_mask(n.shift) <= last {
            self.hand_over(root, n.shift, 0, stamp_version(n), f);
        } else {
            self.walk_node(root, 0, first, last, grain, f);
        }
    }

    /// Hands node `id` (at `shift`, from index `base`) over by its stamp,
    /// with `version`, which the caller read: a leaf with its slots, a
    /// twig alone.
    fn hand_over(&self, id: NodeId, shift: u8, base: u64, version: u64, f: &mut impl FnMut(Visit)) {
        let n = &self.nodes[id as usize];
        debug_assert_eq!((n.shift, stamp_version(n)), (shift, version));
        f(if shift == 0 {
            Visit::Leaf(base, &n.slots, (id, version))
        } else {
            Visit::Twig(base, (id, version))
        });
    }

    /// Walks node `id` from index `base`: its children wholly inside the
    /// range that the grain hands over by stamp go over whole, the others
    /// are walked into.
    fn walk_node(
        &self,
        id: NodeId,
        base: u64,
        first: u64,
        last: u64,
        grain: Grain,
        f: &mut impl FnMut(Visit),
    ) {
        let n = &self.nodes[id as usize];
        let span = |k: usize| base.saturating_add((k as u64) << n.shift);
        let lo = if first <= base {
            0
        } else {
            let off = (first - base) >> n.shift;
            // A range that starts past this node (a tree shorter than the
            // range's first index) holds none of its entries.
            if off >= XA_CHUNK_SIZE as u64 {
                return;
            }
            off as usize
        };
        // Start at the canonical slot of an entry that covers `first`.
        let mut off = lo;
        while off > 0 && is_sibling(n.slots[off]) {
            off -= 1;
        }
        // Children handed over whole by their stamp (leaves, or twigs at
        // the twig grain). A leaf's version is in this node's slot for it,
        // so handing leaves over reads nothing of theirs: on the 16 GiB
        // link, loading each leaf's version was most of the walk's time.
        // A twig's versions are read first, in a loop of independent
        // loads, so that the waits on memory overlap instead of queueing
        // one behind the other's handling.
        let child_shift = n.shift.wrapping_sub(XA_CHUNK_SHIFT);
        let by_stamp = grain.by_stamp(child_shift);
        let whole_child =
            |start: u64| start >= first && start + node_span_mask(child_shift) <= last;
        let mut versions = [0u64; XA_CHUNK_SIZE];
        if by_stamp && child_shift == 0 {
            for (v, &slot) in versions.iter_mut().zip(&n.slots) {
                *v = leaf_version_of(slot);
            }
        } else if by_stamp {
            let mut kids = n.children;
            while kids != 0 {
                let k = kids.trailing_zeros() as usize;
                kids &= kids - 1;
                if whole_child(span(k)) {
                    versions[k] = self.nodes[node_of(n.slots[k]) as usize].version;
                }
            }
        }
        while off < XA_CHUNK_SIZE {
            let start = span(off);
            if start > last {
                break;
            }
            let slot = n.slots[off];
            if is_node(slot) {
                let id = node_of(slot);
                if by_stamp && whole_child(start) {
                    self.hand_over(id, child_shift, start, versions[off], f);
                } else {
                    self.walk_node(id, start, first, last, grain, f);
                }
                off += 1;
            } else {
                off += visit_entry_at(n, off, start, f);
            }
        }
    }

    /// The walk from the head to the entry covering `index`: each node
    /// passed (id, shift, offset in its parent, first index, and the slot
    /// taken), then the slot holding the entry in the last node and how
    /// many sibling slots follow it. Not counted; for display. No nodes
    /// when the head holds a lone entry or nothing.
    pub fn path(&self, index: u64) -> XaPathRaw {
        let mut out = XaPathRaw::default();
        let mut slot = self.head;
        let mut base = 0u64;
        while is_node(slot) {
            let id = node_of(slot);
            let n = &self.nodes[id as usize];
            if index.saturating_sub(base) >> n.shift > XA_CHUNK_MASK_U64 {
                // An index past what the tree spans: nothing covers it.
                return XaPathRaw::default();
            }
            let off = ((index >> n.shift) & XA_CHUNK_MASK_U64) as usize;
            out.nodes.push((id, n.shift, n.offset, base, off as u8));
            slot = n.slots[off];
            let mut canonical = off;
            if is_sibling(slot) {
                canonical = sibling_of(slot);
                slot = n.slots[canonical];
            }
            if !is_node(slot) {
                let mut siblings = 0;
                while canonical + siblings + 1 < XA_CHUNK_SIZE
                    && is_sibling(n.slots[canonical + siblings + 1])
                {
                    siblings += 1;
                }
                out.slot = canonical as u8;
                out.siblings = siblings as u8;
                return out;
            }
            base += (off as u64) << n.shift;
        }
        out
    }

    /// The nodes that cover `[first, last]`, level by level from the top
    /// (at most `max_nodes`), for the tree view.
    pub fn nodes_in_range(&self, first: u64, last: u64, max_nodes: usize) -> Vec<NodeView> {
        let mut out = Vec::new();
        if !is_node(self.head) {
            return out;
        }
        let mut level = vec![(node_of(self.head), 0u64)];
        let mut depth = 1u8;
        while !level.is_empty() && out.len() < max_nodes {
            let mut next = Vec::new();
            for (id, base) in level {
                if out.len() >= max_nodes {
                    break;
                }
                let n = &self.nodes[id as usize];
                out.push(NodeView {
                    id,
                    shift: n.shift,
                    offset: n.offset,
                    base,
                    count: n.count,
                    nr_values: n.nr_values,
                    depth,
                    slots: n.slots.iter().map(|&s| decode(s)).collect(),
                    marks: n.marks,
                });
                for off in 0..XA_CHUNK_SIZE {
                    let slot = n.slots[off];
                    if !is_node(slot) {
                        continue;
                    }
                    let start = base + ((off as u64) << n.shift);
                    let end = start.saturating_add((1u64 << n.shift) - 1);
                    if end < first || start > last {
                        continue;
                    }
                    next.push((node_of(slot), start));
                }
            }
            level = next;
            depth += 1;
        }
        out
    }

    /// The number of nodes in use.
    pub fn node_count(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    /// The height of the tree: 0 for an empty or head-only array.
    pub fn height(&self) -> u32 {
        if !is_node(self.head) {
            return 0;
        }
        self.nodes[node_of(self.head) as usize].shift as u32 / 6 + 1
    }

    /// Bytes the arena holds, for the memory budget.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.memory_bytes() + self.free.capacity() * std::mem::size_of::<NodeId>()
    }

    /// The nodes, frozen into `pool`: chunks not written since the last
    /// freeze or thaw are shared with the copy it made or was given.
    pub(crate) fn freeze_nodes(&mut self, pool: &mut NodePool) -> FrozenNodes {
        self.nodes.freeze(pool)
    }

    /// The frozen nodes these were last frozen to or thawed from.
    pub(crate) fn nodes_origin(&self) -> Option<&FrozenNodes> {
        self.nodes.origin()
    }

    /// Takes the nodes out, leaving none, so the rest clones cheaply.
    pub(crate) fn take_nodes(&mut self) -> TrackedVec<Node, NODE_CHUNK> {
        std::mem::take(&mut self.nodes)
    }

    pub(crate) fn put_nodes(&mut self, nodes: TrackedVec<Node, NODE_CHUNK>) {
        self.nodes = nodes;
    }

    /// Puts back nodes frozen from an array in this one's state.
    /// The nodes are thawed into the memory of those there, if any.
    /// With room for `room` nodes first when the frozen nodes outgrow the
    /// room the arena has, so that a machine moved along its timeline
    /// never grows its arena: growing it by an eighth at a time made 2 s
    /// of the 16 GiB link's play spend 54 ms in `realloc` in Chromium,
    /// from the run's start, where the xarray grows by about 200 nodes a
    /// frame. Not when they fit: not for an empty array (a run's start),
    /// since reserving room for the simulation the app keeps in reserve
    /// at each kernel's start made the 16 GiB link's first jump to the
    /// start take 11-21 ms in four of six e2e 06 runs, against 5-7 ms
    /// without it; and not for a machine given a smaller room on purpose
    /// ([`Timeline::simulation_at_start_with_room_for`]).
    ///
    /// [`Timeline::simulation_at_start_with_room_for`]: crate::Timeline::simulation_at_start_with_room_for
    pub(crate) fn thaw_nodes(&mut self, frozen: &FrozenNodes, pool: &NodePool, room: usize) {
        if frozen.len() > self.nodes.capacity() {
            self.reserve_arena(room);
        }
        self.nodes.thaw_into(frozen, pool);
    }

    // ---- arena ----

    fn alloc(&mut self, shift: u8, parent: NodeId, offset: u8) -> NodeId {
        self.generation += 1;
        let mut node = Node::new(shift, parent, offset);
        if let Some(id) = self.free.pop() {
            node.version = self.nodes[id as usize].version + 1;
            self.nodes[id as usize] = node;
            id
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as NodeId
        }
    }

    fn release(&mut self, id: NodeId) {
        self.generation += 1;
        let n = &mut self.nodes[id as usize];
        n.count = 0;
        n.nr_values = 0;
        n.present = 0;
        n.children = 0;
        n.full = 0;
        n.canon = 0;
        n.slots = [0; XA_CHUNK_SIZE];
        n.version += 1;
        n.marks = [0; 3];
        n.parent = NIL;
        self.free.push(id);
    }

    /// Keeps the parent's `full` summary in step with a leaf's slots.
    fn sync_full(&mut self, id: NodeId) {
        let n = &self.nodes[id as usize];
        if n.shift != 0 || n.parent == NIL {
            return;
        }
        let (parent, bit, full) = (n.parent, 1u64 << n.offset, n.present == u64::MAX);
        let p = &mut self.nodes[parent as usize];
        if full {
            p.full |= bit;
        } else {
            p.full &= !bit;
        }
    }

    /// The remembered leaf, if `index` lies in it: its node, its depth
    /// (the visits a walk to it makes), and `index`'s offset there.
    pub(crate) fn hinted_leaf(&self, index: u64) -> Option<(NodeId, u32, usize)> {
        let h = self.leaf_hint(index)?;
        Some((h.id, h.depth, (index & (XA_CHUNK_SIZE as u64 - 1)) as usize))
    }

    /// How many slots of leaf `id` from `off` on, at most `max`, are NULL.
    pub(crate) fn empty_slots_from(&self, id: NodeId, off: usize, max: usize) -> usize {
        let n = &self.nodes[id as usize];
        n.slots[off..]
            .iter()
            .take(max)
            .take_while(|&&s| s == 0)
            .count()
    }

    /// Stores `k` pointer entries into the NULL slots of leaf `id` from
    /// `off` on, the `j`th with payload `payload(j)`, called in order: the
    /// node the same as after one `xas_store` of each in turn
    /// (`XaState::store` on a leaf slot), its parent's version and slot as
    /// `count_leaf_write` leaves them after the last. The caller counts
    /// the stores.
    pub(crate) fn fill_leaf(
        &mut self,
        id: NodeId,
        off: usize,
        k: usize,
        mut payload: impl FnMut(usize) -> u64,
    ) {
        if k == 0 {
            return;
        }
        let n = &mut self.nodes[id as usize];
        debug_assert!(n.shift == 0 && off + k <= XA_CHUNK_SIZE);
        debug_assert!(n.slots[off..off + k].iter().all(|&s| s == 0));
        for (j, slot) in n.slots[off..off + k].iter_mut().enumerate() {
            *slot = encode(Entry::Pointer(payload(j)));
        }
        n.version += k as u64;
        let bits = if k == XA_CHUNK_SIZE {
            u64::MAX
        } else {
            ((1u64 << k) - 1) << off
        };
        n.present |= bits;
        n.canon |= bits;
        n.children &= !bits;
        n.full &= !bits;
        n.count += k as u8;
        let full = n.present == u64::MAX;
        self.count_leaf_writes(id, k as u64);
        if full {
            self.sync_full(id);
        }
    }

    /// The leaf that holds `index`'s slot, uncounted: the remembered one,
    /// or found by a walk from the head. None when the walk ends above
    /// the leaves (a large entry, or no node).
    pub(crate) fn leaf_for(&self, index: u64) -> Option<NodeId> {
        if let Some(h) = self.leaf_hint(index) {
            return Some(h.id);
        }
        if !is_node(self.head) {
            return None;
        }
        let mut id = node_of(self.head);
        if (index >> self.nodes[id as usize].shift) > node::XA_CHUNK_MASK {
            return None;
        }
        loop {
            let n = &self.nodes[id as usize];
            if n.shift == 0 {
                return Some(id);
            }
            let slot = n.slots[((index >> n.shift) & node::XA_CHUNK_MASK) as usize];
            if !is_node(slot) {
                return None;
            }
            id = node_of(slot);
        }
    }

    /// The raw slots `off..off + k` of leaf `id`.
    pub(crate) fn leaf_slots(&self, id: NodeId, off: usize, k: usize) -> &[u64] {
        &self.nodes[id as usize].slots[off..off + k]
    }

    /// Rewrites the pointer entries in slots `off..off + k` of leaf `id`,
    /// each payload to `f(j, payload)` for its `j`th slot: the node and
    /// its parent the same as after one `peek_modify_pointer` of each in
    /// turn. The caller has checked that each slot holds a pointer.
    pub(crate) fn modify_leaf_pointers(
        &mut self,
        id: NodeId,
        off: usize,
        k: usize,
        mut f: impl FnMut(usize, u64) -> u64,
    ) {
        let n = &mut self.nodes[id as usize];
        debug_assert!(n.shift == 0);
        for (j, slot) in n.slots[off..off + k].iter_mut().enumerate() {
            let Entry::Pointer(p) = decode(*slot) else {
                unreachable!("the caller checked for pointers");
            };
            let new = f(j, p);
            debug_assert!(new <= MAX_PAYLOAD && new != 0);
            *slot = encode(Entry::Pointer(new));
        }
        n.version += k as u64;
        self.count_leaf_writes(id, k as u64);
    }

    /// [`XArray::count_leaf_write`] for `k` writes to the slots of leaf
    /// `id` made at once: its parent's version `k` further, and its slot
    /// for the leaf as the last write leaves it.
    #[inline]
    fn count_leaf_writes(&mut self, id: NodeId, k: u64) {
        let n = &self.nodes[id as usize];
        if n.shift == 0 && n.parent != NIL {
            let (parent, off, slot) = (n.parent, n.offset as usize, leaf_slot(id, n.version));
            let p = &mut self.nodes[parent as usize];
            p.version += k;
            // Not `set_slot`: the slot still points to the same node, so
            // no summary changes, and the version is bumped once above.
            p.slots[off] = slot;
        }
    }

    /// Writes slot `off` of node `id` ([`Node::set_slot`]), counting a
    /// leaf's write in its parent's version too; returns the node.
    fn write_slot(&mut self, id: NodeId, off: usize, slot: u64, present: bool) -> &mut Node {
        self.nodes[id as usize].set_slot(off, slot, present);
        self.count_leaf_write(id);
        &mut self.nodes[id as usize]
    }

    /// A write to the slots of leaf `id` bumps its parent's version as
    /// well, so that the version of a node whose children are leaves names
    /// their slots with its own: display code keeps what it counted under
    /// such a node (`view::LeafBins`) without visiting its 64 leaves.
    /// The parent's slot for the leaf carries the leaf's new version.
    #[inline]
    fn count_leaf_write(&mut self, id: NodeId) {
        self.count_leaf_writes(id, 1);
    }

    /// The slot that points to node `id`: a leaf's carries its version.
    pub(crate) fn child_slot(&self, id: NodeId) -> u64 {
        let n = &self.nodes[id as usize];
        if n.shift == 0 {
            leaf_slot(id, n.version)
        } else {
            encode(Entry::Node(id))
        }
    }

    fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    fn set_head(&mut self, entry: Entry) {
        self.head = encode(entry);
    }

    fn head_entry(&self) -> Entry {
        decode(self.head)
    }
}

/// The mask of the indices one node of this shift covers.
fn node_span_mask(shift: u8) -> u64 {
    let bits = shift as u32 + XA_CHUNK_SHIFT as u32;
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}
