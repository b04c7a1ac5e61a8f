//! The XArray of lib/xarray.c (Linux 6.12, unchanged in substance in 6.18):
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

mod check;
mod node;
mod state;
#[cfg(test)]
mod tests;

use std::cell::Cell;

pub use check::XaCheckError;
pub use node::{NodeId, MAX_PAYLOAD, XA_CHUNK_SHIFT, XA_CHUNK_SIZE};
pub use state::{XaState, XasNode};

use node::{decode, encode, is_node, is_sibling, is_value, node_of, sibling_of, Node, NIL};

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
    pub fn pointer(self) -> Option<u64> {
        match self {
            Entry::Pointer(p) => Some(p),
            _ => None,
        }
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
    nodes: Vec<Node>,
    free: Vec<NodeId>,
    stats: Cell<XaStats>,
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

impl XArray {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.head == 0
    }

    pub fn stats(&self) -> XaStats {
        self.stats.get()
    }

    pub fn reset_stats(&self) {
        self.stats.set(XaStats::default());
    }

    fn bump(&self, f: impl FnOnce(&mut XaStats)) {
        let mut s = self.stats.get();
        f(&mut s);
        self.stats.set(s);
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

    /// `xa_store`: stores an order-0 entry; returns the old one. Counted.
    pub fn store(&mut self, index: u64, entry: Entry) -> Entry {
        XaState::new(index).store(self, entry)
    }

    /// Stores `entry` over `1 << order` indices starting at the aligned `index`.
    pub fn store_order(&mut self, index: u64, order: u8, entry: Entry) -> Entry {
        XaState::new_order(index, order).store(self, entry)
    }

    /// `xa_erase`.
    pub fn erase(&mut self, index: u64) -> Entry {
        XaState::new(index).store(self, Entry::Empty)
    }

    /// `xa_get_order`: the order of the entry at `index`.
    pub fn get_order(&self, index: u64) -> u8 {
        let mut xas = XaState::new(index);
        let e = xas.load(self);
        if e.is_empty() {
            return 0;
        }
        xas.get_order(self)
    }

    pub fn set_mark(&mut self, index: u64, mark: XaMark) {
        let mut xas = XaState::new(index);
        let e = xas.load(self);
        if !e.is_empty() && !e.is_internal() {
            xas.set_mark(self, mark);
        }
    }

    pub fn clear_mark(&mut self, index: u64, mark: XaMark) {
        let mut xas = XaState::new(index);
        let e = xas.load(self);
        if !e.is_empty() && !e.is_internal() {
            xas.clear_mark(self, mark);
        }
    }

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
        loop {
            let n = &self.nodes[node_of(slot) as usize];
            let mut off = ((index >> n.shift) & node::XA_CHUNK_MASK) as usize;
            slot = n.slots[off];
            if is_sibling(slot) {
                off = sibling_of(slot);
                slot = n.slots[off];
            }
            if !is_node(slot) {
                let start = (index & !node_span_mask(n.shift)) + ((off as u64) << n.shift);
                return (decode(slot), start);
            }
        }
    }

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
    /// or a value), or `limit`; and the node visits that a page-by-page
    /// `xa_load` of the skipped indices would have made. Not counted itself:
    /// the caller adds the returned visits, as the kernel would have made them.
    pub fn peek_present_run(&self, from: u64, limit: u64) -> (u64, u64) {
        if from >= limit {
            return (from, 0);
        }
        let head = self.head;
        if !is_node(head) {
            if from == 0 && head != 0 && !is_value(head) {
                return (1.min(limit), 0);
            }
            return (from, 0);
        }
        let root = node_of(head);
        if (from >> self.nodes[root as usize].shift) > node::XA_CHUNK_MASK {
            return (from, 0);
        }
        let mut visits = 0;
        let end = self.run_in(root, 1, from, limit, &mut visits);
        (end, visits)
    }

    /// Scans node `id` (at `depth`) from `from`; returns the first absent
    /// index, or the end of the node's range (clamped to `limit`).
    fn run_in(&self, id: NodeId, depth: u64, from: u64, limit: u64, visits: &mut u64) -> u64 {
        let n = &self.nodes[id as usize];
        let shift = n.shift as u32;
        let base = from & !node_span_mask(n.shift);
        let node_end = base
            .saturating_add(node_span_mask(n.shift))
            .saturating_add(1);
        let mut off = ((from >> shift) & node::XA_CHUNK_MASK) as usize;
        let mut pos = from;
        while off < XA_CHUNK_SIZE && pos < limit {
            // Skip a run of present slots that hold entries, not child nodes.
            let present = n.present >> off;
            if present & 1 == 0 {
                return pos;
            }
            let slot = n.slots[off];
            if is_node(slot) {
                let child_end = self.run_in(node_of(slot), depth + 1, pos, limit, visits);
                let slot_end = base + ((off as u64 + 1) << shift);
                if child_end < slot_end.min(limit) {
                    return child_end;
                }
                pos = slot_end.min(limit);
                off += 1;
                continue;
            }
            // A run of entry slots (pointers and their siblings), all at this depth.
            let mut run = present.trailing_ones() as usize;
            // Child nodes inside the run must be walked on their own.
            for k in 0..run {
                if is_node(n.slots[off + k]) {
                    run = k;
                    break;
                }
            }
            let run_end = (base + (((off + run) as u64) << shift)).min(limit);
            *visits += (run_end - pos) * depth;
            pos = run_end;
            off += run;
        }
        pos.min(node_end).min(limit)
    }

    /// Every present entry (pointer or value) in index order, with its first
    /// index and order. Not counted.
    pub fn for_each_entry(&self, mut f: impl FnMut(u64, u8, Entry)) {
        let head = self.head;
        if head == 0 {
            return;
        }
        if !is_node(head) {
            f(0, 0, decode(head));
            return;
        }
        self.walk_entries(node_of(head), 0, &mut f);
    }

    fn walk_entries(&self, id: NodeId, base: u64, f: &mut impl FnMut(u64, u8, Entry)) {
        let n = &self.nodes[id as usize];
        let mut off = 0;
        while off < XA_CHUNK_SIZE {
            let slot = n.slots[off];
            let start = base + ((off as u64) << n.shift);
            if is_node(slot) {
                self.walk_entries(node_of(slot), start, f);
                off += 1;
            } else if slot != 0 && !is_sibling(slot) {
                let mut sibs = 0;
                while off + sibs + 1 < XA_CHUNK_SIZE && is_sibling(n.slots[off + sibs + 1]) {
                    sibs += 1;
                }
                let order = n.shift + (sibs + 1).trailing_zeros() as u8;
                f(start, order, decode(slot));
                off += sibs + 1;
            } else {
                off += 1;
            }
        }
    }

    /// The nodes that cover `[first, last]`, top-down, for the tree view.
    pub fn nodes_in_range(&self, first: u64, last: u64, max_nodes: usize) -> Vec<NodeView> {
        let mut out = Vec::new();
        if is_node(self.head) {
            self.collect_nodes(node_of(self.head), 0, 1, first, last, max_nodes, &mut out);
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn collect_nodes(
        &self,
        id: NodeId,
        base: u64,
        depth: u8,
        first: u64,
        last: u64,
        max: usize,
        out: &mut Vec<NodeView>,
    ) {
        if out.len() >= max {
            return;
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
            self.collect_nodes(node_of(slot), start, depth + 1, first, last, max, out);
        }
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
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.free.capacity() * std::mem::size_of::<NodeId>()
    }

    // ---- arena ----

    fn alloc(&mut self, shift: u8, parent: NodeId, offset: u8) -> NodeId {
        let node = Node::new(shift, parent, offset);
        if let Some(id) = self.free.pop() {
            self.nodes[id as usize] = node;
            id
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as NodeId
        }
    }

    fn release(&mut self, id: NodeId) {
        let n = &mut self.nodes[id as usize];
        n.count = 0;
        n.nr_values = 0;
        n.present = 0;
        n.slots = [0; XA_CHUNK_SIZE];
        n.marks = [0; 3];
        n.parent = NIL;
        self.free.push(id);
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
