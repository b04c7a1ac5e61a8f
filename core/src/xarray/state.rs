//! `struct xa_state` and the `xas_*` cursor operations.
//!
//! The cursor follows lib/xarray.c: `xas_load` walks from the head,
//! `xas_next`/`xas_prev` step within a leaf without a walk and climb through
//! parents at a node's edge, `xas_find` scans forward, and `xas_store`
//! creates, fills and frees nodes and fixes `count` and `nr_values`.

use super::node::{
    decode, encode, is_internal_slot, is_node, is_sibling, node_of, sibling_of, NodeId, NIL,
    XA_CHUNK_MASK, XA_CHUNK_SHIFT, XA_CHUNK_SIZE,
};
use super::{Entry, Stat, XArray, XaMark};

/// Where the cursor stands: the kernel's `xa_node` field with its special
/// values `NULL` (the head), `XAS_RESTART` and `XAS_BOUNDS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XasNode {
    /// NULL: the cursor is at the head.
    Top,
    Node(NodeId),
    /// XAS_RESTART: the next operation walks from the head.
    Restart,
    /// XAS_BOUNDS: the index is outside the tree.
    Bounds,
}

/// `struct xa_state`.
#[derive(Clone, Copy, Debug)]
pub struct XaState {
    pub index: u64,
    pub shift: u8,
    pub sibs: u8,
    pub offset: u8,
    pub node: XasNode,
}

impl XaState {
    /// `XA_STATE(xas, xa, index)`.
    pub fn new(index: u64) -> Self {
        XaState {
            index,
            shift: 0,
            sibs: 0,
            offset: 0,
            node: XasNode::Restart,
        }
    }

    /// `XA_STATE_ORDER(xas, xa, index, order)`.
    pub fn new_order(index: u64, order: u8) -> Self {
        let mut s = Self::new(index);
        s.set_order(index, order);
        s
    }

    /// `xas_set_order`.
    pub fn set_order(&mut self, index: u64, order: u8) {
        self.index = if order < 64 {
            (index >> order) << order
        } else {
            0
        };
        self.shift = order - (order % XA_CHUNK_SHIFT);
        self.sibs = ((1u32 << (order % XA_CHUNK_SHIFT)) - 1) as u8;
        self.node = XasNode::Restart;
    }

    #[cfg(test)]
    /// `xas_set`: a new index, walked from the top next time.
    pub fn set(&mut self, index: u64) {
        self.index = index;
        self.node = XasNode::Restart;
    }

    /// `xas_reset`.
    pub fn reset(&mut self) {
        self.node = XasNode::Restart;
    }

    fn invalid(&self) -> bool {
        matches!(self.node, XasNode::Restart | XasNode::Bounds)
    }

    fn not_node(&self) -> bool {
        !matches!(self.node, XasNode::Node(_))
    }

    /// Moves the cursor into a node, counting the visit.
    #[inline]
    fn enter(&mut self, xa: &XArray, id: NodeId) {
        if self.node != XasNode::Node(id) {
            xa.bump(Stat::NodeVisit);
        }
        self.node = XasNode::Node(id);
    }

    fn set_bounds(&mut self) -> Entry {
        self.node = XasNode::Bounds;
        Entry::Empty
    }

    fn start(&mut self, xa: &XArray) -> Entry {
        if !self.invalid() {
            return self.reload(xa);
        }
        let head = xa.head_entry();
        match head {
            Entry::Node(id) => {
                if (self.index >> xa.node(id).shift) > XA_CHUNK_MASK {
                    return self.set_bounds();
                }
            }
            _ => {
                if self.index != 0 {
                    return self.set_bounds();
                }
            }
        }
        self.node = XasNode::Top;
        head
    }

    fn descend(&mut self, xa: &XArray, id: NodeId) -> Entry {
        let n = xa.node(id);
        let mut offset = ((self.index >> n.shift) & XA_CHUNK_MASK) as usize;
        let mut slot = n.slots[offset];
        let shift = n.shift;
        self.enter(xa, id);
        while is_sibling(slot) {
            offset = sibling_of(slot);
            slot = xa.node(id).slots[offset];
            if shift != 0 && is_node(slot) {
                self.offset = offset as u8;
                return Entry::Retry;
            }
        }
        self.offset = offset as u8;
        decode(slot)
    }

    /// `xas_load`.
    pub fn load(&mut self, xa: &XArray) -> Entry {
        xa.bump(Stat::Load);
        self.load_uncounted_call(xa)
    }

    #[inline(always)]
    fn load_uncounted_call(&mut self, xa: &XArray) -> Entry {
        // A walk from the head to a remembered leaf: start there, and
        // count the nodes the walk would have entered.
        if self.shift == 0 && self.invalid() {
            if let Some(h) = xa.leaf_hint(self.index) {
                xa.bump_visits(h.depth as u64);
                self.node = XasNode::Node(h.id);
                let n = xa.node(h.id);
                let mut offset = (self.index & XA_CHUNK_MASK) as usize;
                let mut slot = n.slots[offset];
                if is_sibling(slot) {
                    offset = sibling_of(slot);
                    slot = n.slots[offset];
                }
                self.offset = offset as u8;
                return decode(slot);
            }
        }
        self.load_walk(xa)
    }

    /// The rest of [`XaState::load`]: the walk from the head, or from the
    /// node the cursor stands on. Out of line, so that the remembered-leaf
    /// path above stays small where it is inlined.
    #[inline(never)]
    fn load_walk(&mut self, xa: &XArray) -> Entry {
        let from_top = self.invalid();
        let entry = self.start(xa);
        let Entry::Node(mut id) = entry else {
            return entry;
        };
        let mut depth = 0u32;
        // A child's shift is its parent's less XA_CHUNK_SHIFT, so the walk
        // keeps it rather than reading each node's: the slot's address
        // then does not wait on loading the node's header, and a node out
        // of the caches costs one wait instead of two (on the 16 GiB link,
        // perf put half of this walk's time on that header's load).
        let mut shift = xa.node(id).shift;
        // The walk down works on raw slots and decodes once at the end:
        // this is the model's hottest loop.
        loop {
            let n = xa.node(id);
            debug_assert_eq!(
                n.shift, shift,
                "a child's shift is its parent's less one chunk"
            );
            if self.shift > shift {
                return Entry::Node(id);
            }
            let mut offset = ((self.index >> shift) & XA_CHUNK_MASK) as usize;
            let mut slot = n.slots[offset];
            if self.node != XasNode::Node(id) {
                xa.bump(Stat::NodeVisit);
                self.node = XasNode::Node(id);
            }
            depth += 1;
            if is_sibling(slot) {
                offset = sibling_of(slot);
                slot = n.slots[offset];
                if shift != 0 && is_node(slot) {
                    self.offset = offset as u8;
                    return Entry::Retry;
                }
            }
            self.offset = offset as u8;
            if shift == 0 {
                if from_top {
                    xa.remember_leaf(id, self.index, depth);
                }
                return decode(slot);
            }
            if !is_node(slot) {
                return decode(slot);
            }
            id = node_of(slot);
            shift -= XA_CHUNK_SHIFT;
        }
    }

    /// `xas_reload`: the entry at the cursor, without a walk.
    pub fn reload(&self, xa: &XArray) -> Entry {
        match self.node {
            XasNode::Node(id) => {
                let n = xa.node(id);
                let off = ((self.index >> n.shift) & XA_CHUNK_MASK) as usize;
                let slot = n.slots[off];
                if is_sibling(slot) {
                    decode(n.slots[sibling_of(slot)])
                } else {
                    decode(slot)
                }
            }
            _ => xa.head_entry(),
        }
    }

    /// `xas_advance`: moves to `index` inside the current node.
    pub fn advance(&mut self, xa: &XArray, index: u64) {
        xa.bump(Stat::Advance);
        let shift = match self.node {
            XasNode::Node(id) => xa.node(id).shift,
            _ => 0,
        };
        self.index = index;
        self.offset = ((index >> shift) & XA_CHUNK_MASK) as u8;
    }

    /// `xas_next`: the entry at index + 1 (raw: may be a sibling).
    pub fn next(&mut self, xa: &XArray) -> Entry {
        xa.bump(Stat::Next);
        if let XasNode::Node(id) = self.node {
            let n = xa.node(id);
            if n.shift == 0 && (self.offset as u64) != XA_CHUNK_MASK {
                self.index = self.index.wrapping_add(1);
                self.offset += 1;
                return decode(n.slots[self.offset as usize]);
            }
        }
        self.next_slow(xa)
    }

    fn next_slow(&mut self, xa: &XArray) -> Entry {
        if self.node != XasNode::Restart {
            self.index = self.index.wrapping_add(1);
        }
        let id = match self.node {
            XasNode::Top => return self.set_bounds(),
            XasNode::Restart | XasNode::Bounds => return self.load_uncounted_call(xa),
            XasNode::Node(id) => id,
        };
        let mut id = id;
        let mut offset = self.offset as usize;
        if offset as u64 != (self.index >> xa.node(id).shift) & XA_CHUNK_MASK {
            offset += 1;
        }
        while offset == XA_CHUNK_SIZE {
            let n = xa.node(id);
            offset = n.offset as usize + 1;
            if n.parent == NIL {
                self.offset = offset as u8;
                return self.set_bounds();
            }
            id = n.parent;
            self.enter(xa, id);
        }
        loop {
            let slot = xa.node(id).slots[offset];
            if !is_node(slot) {
                self.offset = offset as u8;
                return decode(slot);
            }
            id = node_of(slot);
            self.enter(xa, id);
            offset = ((self.index >> xa.node(id).shift) & XA_CHUNK_MASK) as usize;
        }
    }

    /// `xas_prev`: the entry at index - 1 (raw: may be a sibling).
    /// Kept out of line: inlined into `page_cache_prev_miss`'s loop it
    /// costs the backward walk more instructions (measured with callgrind).
    #[inline(never)]
    pub fn prev(&mut self, xa: &XArray) -> Entry {
        xa.bump(Stat::Prev);
        if let XasNode::Node(id) = self.node {
            let n = xa.node(id);
            if n.shift == 0 && self.offset != 0 {
                self.index = self.index.wrapping_sub(1);
                self.offset -= 1;
                return decode(n.slots[self.offset as usize]);
            }
        }
        self.prev_slow(xa)
    }

    fn prev_slow(&mut self, xa: &XArray) -> Entry {
        if self.node != XasNode::Restart {
            self.index = self.index.wrapping_sub(1);
        }
        let id = match self.node {
            XasNode::Top => return self.set_bounds(),
            XasNode::Restart | XasNode::Bounds => return self.load_uncounted_call(xa),
            XasNode::Node(id) => id,
        };
        let mut id = id;
        let mut offset = self.offset as i32;
        if offset as u64 != (self.index >> xa.node(id).shift) & XA_CHUNK_MASK {
            offset -= 1;
        }
        while offset < 0 {
            let n = xa.node(id);
            offset = n.offset as i32 - 1;
            if n.parent == NIL {
                self.offset = 255;
                return self.set_bounds();
            }
            id = n.parent;
            self.enter(xa, id);
        }
        loop {
            let slot = xa.node(id).slots[offset as usize];
            if !is_node(slot) {
                self.offset = offset as u8;
                return decode(slot);
            }
            id = node_of(slot);
            self.enter(xa, id);
            offset = ((self.index >> xa.node(id).shift) & XA_CHUNK_MASK) as i32;
        }
    }

    fn move_index(&mut self, shift: u8, offset: usize) {
        // Everything below the next level goes, not just this level's six
        // bits: a walk that came up from a deeper start lands on the slot's
        // first index, as lib/xarray.c's xas_move_index does.
        self.index &= !XA_CHUNK_MASK << shift;
        self.index = self.index.wrapping_add((offset as u64) << shift);
    }

    /// `xas_find`: the next present entry at or after the cursor, up to `max`.
    pub fn find(&mut self, xa: &XArray, max: u64) -> Entry {
        xa.bump(Stat::Find);
        if self.node == XasNode::Bounds {
            return Entry::Empty;
        }
        if self.index > max {
            return self.set_bounds();
        }
        let mut offset;
        match self.node {
            XasNode::Top => {
                self.index = 1;
                return self.set_bounds();
            }
            XasNode::Restart => {
                let e = self.load_uncounted_call(xa);
                if !e.is_empty() || self.not_node() {
                    return e;
                }
                offset = self.offset as usize;
            }
            XasNode::Node(id) => {
                offset = self.offset as usize;
                if xa.node(id).shift == 0 && offset as u64 != (self.index & XA_CHUNK_MASK) {
                    offset = (((self.index.wrapping_sub(1)) & XA_CHUNK_MASK) + 1) as usize;
                }
            }
            XasNode::Bounds => unreachable!(),
        }
        let XasNode::Node(mut id) = self.node else {
            return Entry::Empty;
        };
        offset += 1;
        self.move_index(xa.node(id).shift, offset);
        loop {
            if self.index > max {
                break;
            }
            if offset == XA_CHUNK_SIZE {
                let n = xa.node(id);
                offset = n.offset as usize + 1;
                if n.parent == NIL {
                    self.offset = offset as u8;
                    return self.set_bounds();
                }
                id = n.parent;
                self.enter(xa, id);
                self.offset = offset as u8;
                // The index already points past the child; re-derive the offset.
                continue;
            }
            let n = xa.node(id);
            if n.shift == 0 {
                // A leaf holds no nodes: the walk stops at the first slot
                // from here that holds an entry (neither NULL nor a
                // sibling) if that is at or before `max`, and otherwise
                // just past `max` or at the leaf's end.
                let ahead = n.canon >> offset;
                let next = offset + ahead.trailing_zeros() as usize;
                let last = if (max >> XA_CHUNK_SHIFT) == (self.index >> XA_CHUNK_SHIFT) {
                    (max & XA_CHUNK_MASK) as usize
                } else {
                    XA_CHUNK_SIZE - 1
                };
                if next <= last {
                    // The index moves only with the offset, as it does
                    // slot by slot.
                    if next != offset {
                        self.move_index(0, next);
                    }
                    self.offset = next as u8;
                    return decode(n.slots[next]);
                }
                offset = last + 1;
                self.move_index(0, offset);
                continue;
            }
            let slot = n.slots[offset];
            if is_node(slot) {
                id = node_of(slot);
                self.enter(xa, id);
                offset = 0;
                self.offset = 0;
                continue;
            }
            if slot != 0 && !is_sibling(slot) {
                self.offset = offset as u8;
                return decode(slot);
            }
            // Step over the NULL and sibling slots in one go, stopping
            // where the kernel's slot-by-slot walk would: at the next slot
            // that holds something, at the node's end, or just past `max`.
            let n = xa.node(id);
            let ahead = (n.canon >> offset) & !1;
            let mut next = if ahead == 0 {
                XA_CHUNK_SIZE
            } else {
                offset + ahead.trailing_zeros() as usize
            };
            let bits = n.shift as u32 + XA_CHUNK_SHIFT as u32;
            if bits >= 64 || (max >> bits) == (self.index >> bits) {
                next = next.min(((max >> n.shift) & XA_CHUNK_MASK) as usize + 1);
            }
            offset = next.max(offset + 1);
            self.move_index(n.shift, offset);
        }
        self.offset = offset.min(255) as u8;
        Entry::Empty
    }

    /// `xas_next_entry`: `xas_find` with the kernel's leaf fast path.
    pub fn next_entry(&mut self, xa: &XArray, max: u64) -> Entry {
        if let XasNode::Node(id) = self.node {
            let n = xa.node(id);
            if n.shift == 0 && self.offset as u64 == (self.index & XA_CHUNK_MASK) {
                loop {
                    if self.index >= max || self.offset as u64 == XA_CHUNK_MASK {
                        return self.find(xa, max);
                    }
                    let slot = n.slots[(self.offset as usize + 1) & (XA_CHUNK_SIZE - 1)];
                    if is_internal_slot(slot) {
                        return self.find(xa, max);
                    }
                    self.offset += 1;
                    self.index += 1;
                    if slot != 0 {
                        return decode(slot);
                    }
                }
            }
        }
        self.find(xa, max)
    }

    /// `xas_find_marked`: the next entry at or after the cursor carrying `mark`.
    pub fn find_marked(&mut self, xa: &XArray, max: u64, mark: XaMark) -> Entry {
        xa.bump(Stat::Find);
        let m = mark as usize;
        if self.index > max {
            return self.set_bounds();
        }
        // Walk from the head along marked slots only. Simple and exact; the
        // kernel's version resumes mid-tree, which only saves visits.
        // A walked cursor has processed the entry it points at: resume
        // after the whole of it, which may span several indices.
        let start = match self.node {
            XasNode::Restart => self.index,
            XasNode::Bounds => return Entry::Empty,
            _ => {
                let order = self.get_order(xa) as u32;
                let mask = if order >= 64 {
                    u64::MAX
                } else {
                    (1u64 << order) - 1
                };
                (self.index | mask).wrapping_add(1)
            }
        };
        if start > max || (start == 0 && self.node != XasNode::Restart) {
            return self.set_bounds();
        }
        let head = xa.head_entry();
        let Entry::Node(root) = head else {
            if start == 0 && xa.marked(mark) && !head.is_empty() {
                self.node = XasNode::Top;
                self.index = 0;
                return head;
            }
            return self.set_bounds();
        };
        let mut id = root;
        self.enter(xa, id);
        let mut index = start;
        loop {
            let n = xa.node(id);
            if (index >> n.shift) > XA_CHUNK_MASK && n.parent == NIL {
                return self.set_bounds();
            }
            let off = ((index >> n.shift) & XA_CHUNK_MASK) as usize;
            let marks = n.marks[m] >> off;
            if marks == 0 {
                // Nothing marked in the rest of this node: climb until an
                // ancestor's range holds the index after this node.
                let bits = n.shift as u32 + XA_CHUNK_SHIFT as u32;
                let mask = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                let Some(next) = (index | mask).checked_add(1) else {
                    return self.set_bounds();
                };
                if next > max {
                    return self.set_bounds();
                }
                let mut cur = id;
                loop {
                    let parent = xa.node(cur).parent;
                    if parent == NIL {
                        return self.set_bounds();
                    }
                    cur = parent;
                    self.enter(xa, cur);
                    let pbits = xa.node(cur).shift as u32 + XA_CHUNK_SHIFT as u32;
                    if pbits >= 64 || (next >> pbits) == (index >> pbits) {
                        break;
                    }
                }
                index = next;
                id = cur;
                continue;
            }
            let hit = off + marks.trailing_zeros() as usize;
            if hit != off {
                index = (index & !((1u64 << (n.shift + XA_CHUNK_SHIFT)) - 1))
                    + ((hit as u64) << n.shift);
            }
            if index > max {
                return self.set_bounds();
            }
            let slot = n.slots[hit];
            if is_node(slot) {
                id = node_of(slot);
                self.enter(xa, id);
                continue;
            }
            if slot == 0 || is_sibling(slot) {
                // A stale mark bit on an empty or sibling slot cannot happen
                // once marks are squashed; step past it defensively.
                index = (index | ((1u64 << n.shift) - 1)).wrapping_add(1);
                continue;
            }
            self.index = index;
            self.offset = hit as u8;
            return decode(slot);
        }
    }

    /// `xas_get_order`: the order of the entry the cursor points at.
    pub fn get_order(&self, xa: &XArray) -> u8 {
        let XasNode::Node(id) = self.node else {
            return 0;
        };
        let n = xa.node(id);
        let mut order = 0u8;
        loop {
            let slot = self.offset as usize + (1usize << order);
            if slot >= XA_CHUNK_SIZE || !is_sibling(n.slots[slot]) {
                break;
            }
            order += 1;
        }
        order + n.shift
    }

    // ---- marks ----

    #[cfg(test)]
    /// `xas_get_mark`.
    pub fn get_mark(&self, xa: &XArray, mark: XaMark) -> bool {
        match self.node {
            XasNode::Restart | XasNode::Bounds => false,
            XasNode::Top => xa.marked(mark),
            XasNode::Node(id) => xa.node(id).get_mark(self.offset as usize, mark as usize),
        }
    }

    #[cfg(test)]
    /// `xas_set_mark`: sets the mark here and on every ancestor.
    pub fn set_mark(&self, xa: &mut XArray, mark: XaMark) {
        let m = mark as usize;
        let mut node = match self.node {
            XasNode::Restart | XasNode::Bounds => return,
            XasNode::Top => NIL,
            XasNode::Node(id) => id,
        };
        let mut offset = self.offset as usize;
        while node != NIL {
            let n = xa.node_mut(node);
            if n.set_mark(offset, m) {
                return;
            }
            offset = n.offset as usize;
            node = n.parent;
        }
        xa.head_marks |= 1 << m;
    }

    /// `xas_clear_mark`: clears the mark here, and on ancestors left with none.
    pub fn clear_mark(&self, xa: &mut XArray, mark: XaMark) {
        let m = mark as usize;
        let mut node = match self.node {
            XasNode::Restart | XasNode::Bounds => return,
            XasNode::Top => NIL,
            XasNode::Node(id) => id,
        };
        let mut offset = self.offset as usize;
        while node != NIL {
            let n = xa.node_mut(node);
            if !n.clear_mark(offset, m) {
                return;
            }
            if n.any_mark(m) {
                return;
            }
            offset = n.offset as usize;
            node = n.parent;
        }
        xa.head_marks &= !(1 << m);
    }

    fn init_marks(&self, xa: &mut XArray) {
        for mark in XaMark::ALL {
            self.clear_mark(xa, mark);
        }
    }

    fn squash_marks(&self, xa: &mut XArray) {
        let XasNode::Node(id) = self.node else { return };
        let first = self.offset as usize;
        let sibs = self.sibs as usize;
        let n = xa.node_mut(id);
        for m in 0..3 {
            let mask = ((1u64 << sibs) - 1) << (first + 1);
            if n.marks[m] & mask == 0 {
                continue;
            }
            n.marks[m] |= 1 << first;
            n.marks[m] &= !mask;
        }
    }

    // ---- store ----

    /// `xas_max`: the highest index the store needs the tree to reach.
    fn max_index_needed(&self) -> u64 {
        let mut max = self.index;
        if self.shift != 0 || self.sibs != 0 {
            let mask = ((self.sibs as u64 + 1) << self.shift) - 1;
            max |= mask;
            if mask == max {
                max += 1;
            }
        }
        max
    }

    /// `xas_expand`: grows the tree until it can hold the index.
    fn expand(&mut self, xa: &mut XArray, head: Entry) -> u8 {
        let max = self.max_index_needed();
        let mut shift: u8;
        let mut head = head;
        let mut node = NIL;
        match head {
            Entry::Empty => {
                if max == 0 {
                    return 0;
                }
                shift = 0;
                while (max >> shift) >= XA_CHUNK_SIZE as u64 {
                    shift += XA_CHUNK_SHIFT;
                }
                return shift + XA_CHUNK_SHIFT;
            }
            Entry::Node(id) => {
                node = id;
                shift = xa.node(id).shift + XA_CHUNK_SHIFT;
            }
            _ => shift = 0,
        }
        self.node = XasNode::Top;
        let max_index = |xa: &XArray, head: Entry| -> u64 {
            match head {
                Entry::Node(id) => {
                    let s = xa.node(id).shift as u32 + XA_CHUNK_SHIFT as u32;
                    if s >= 64 {
                        u64::MAX
                    } else {
                        (1u64 << s) - 1
                    }
                }
                _ => 0,
            }
        };
        while max > max_index(xa, head) {
            let id = xa.alloc(shift, NIL, 0);
            {
                let head_marks = xa.head_marks;
                let slot = match head {
                    Entry::Node(old) => xa.child_slot(old),
                    _ => encode(head),
                };
                let n = xa.node_mut(id);
                n.count = 1;
                if head.is_value() {
                    n.nr_values = 1;
                }
                n.set_slot(0, slot, !head.is_empty() && !head.is_value());
                for m in 0..3 {
                    if head_marks & (1 << m) != 0 {
                        n.set_mark(0, m);
                    }
                }
            }
            if let Entry::Node(old) = head {
                let o = xa.node_mut(old);
                o.offset = 0;
                o.parent = id;
                xa.sync_full(old);
            }
            head = Entry::Node(id);
            xa.set_head(head);
            node = id;
            shift += XA_CHUNK_SHIFT;
        }
        self.node = if node == NIL {
            XasNode::Top
        } else {
            XasNode::Node(node)
        };
        shift
    }

    /// `xas_create`: makes the slot for the store and returns what is there.
    /// `slot` is reported through `self.node`/`self.offset` (Top = head).
    fn create(&mut self, xa: &mut XArray, allow_root: bool) -> Entry {
        let order = self.shift;
        let mut entry;
        let mut shift: u8;
        match self.node {
            XasNode::Top | XasNode::Restart | XasNode::Bounds => {
                let head = xa.head_entry();
                self.node = XasNode::Top;
                shift = self.expand(xa, head);
                if shift == 0 && !allow_root {
                    shift = XA_CHUNK_SHIFT;
                }
                entry = xa.head_entry();
                // The walk restarts from the head, as the kernel's does.
                self.node = XasNode::Top;
            }
            XasNode::Node(id) => {
                shift = xa.node(id).shift;
                entry = decode(xa.node(id).slots[self.offset as usize]);
            }
        }
        while shift > order {
            shift -= XA_CHUNK_SHIFT;
            let id = match entry {
                Entry::Empty => {
                    let (parent, off) = match self.node {
                        XasNode::Node(p) => (p, self.offset),
                        _ => (NIL, 0),
                    };
                    let id = xa.alloc(shift, parent, off);
                    if parent == NIL {
                        xa.set_head(Entry::Node(id));
                    } else {
                        let slot = xa.child_slot(id);
                        let p = xa.node_mut(parent);
                        p.count += 1;
                        p.set_slot(off as usize, slot, true);
                    }
                    id
                }
                Entry::Node(id) => id,
                _ => break,
            };
            entry = self.descend(xa, id);
        }
        entry
    }

    /// `xas_store`: stores `entry` (over `sibs + 1` slots for a multi-index
    /// state) and returns the entry that was there first.
    pub fn store(&mut self, xa: &mut XArray, entry: Entry) -> Entry {
        xa.bump(Stat::Store);
        if let Some(old) = self.store_in_leaf(xa, entry) {
            return old;
        }
        let mut first = if !entry.is_empty() {
            let allow_root = !entry.is_node();
            self.create(xa, allow_root)
        } else {
            self.load_uncounted_call(xa)
        };
        if self.invalid() {
            return first;
        }
        let node = match self.node {
            XasNode::Node(id) => id,
            _ => NIL,
        };
        if node != NIL && self.shift < xa.node(node).shift {
            self.sibs = 0;
        }
        if first == entry && self.sibs == 0 {
            return first;
        }
        let value = entry.is_value();
        let mut entry = entry;
        let mut next = first;
        let mut offset = self.offset as usize;
        let max = offset + self.sibs as usize;
        if node != NIL && self.sibs != 0 {
            self.squash_marks(xa);
        }
        if entry.is_empty() {
            self.init_marks(xa);
        }
        let mut count: i32 = 0;
        let mut values: i32 = 0;
        let ret = first;
        loop {
            if node == NIL {
                xa.set_head(entry);
            } else {
                xa.write_slot(node, offset, encode(entry), !entry.is_empty() && !value);
            }
            if let Entry::Node(child) = next {
                if node == NIL || xa.node(node).shift != 0 {
                    free_nodes(xa, child);
                }
            }
            if node == NIL {
                break;
            }
            count += next.is_empty() as i32 - entry.is_empty() as i32;
            values += (!first.is_value()) as i32 - (!value) as i32;
            if !entry.is_empty() {
                if offset == max {
                    break;
                }
                if !entry.is_sibling() {
                    entry = Entry::Sibling(self.offset);
                }
            } else if offset as u64 == XA_CHUNK_MASK {
                break;
            }
            offset += 1;
            next = decode(xa.node(node).slots[offset]);
            if !next.is_sibling() {
                if entry.is_empty() && offset > max {
                    break;
                }
                first = next;
            }
        }
        self.update_node(xa, node, count, values);
        if node != NIL && xa.node(node).count != 0 {
            xa.sync_full(node);
        }
        ret
    }

    /// The store of the page cache's most common case, as [`XaState::store`]
    /// makes it: one pointer or value entry into the empty leaf slot the
    /// cursor stands on (after the load that checked for a conflict). It
    /// creates no node and touches no mark; the slot is filled and the
    /// leaf's `count` and `nr_values` grow. None for any other store.
    #[inline]
    fn store_in_leaf(&mut self, xa: &mut XArray, entry: Entry) -> Option<Entry> {
        let XasNode::Node(id) = self.node else {
            return None;
        };
        let value = match entry {
            Entry::Pointer(_) => false,
            Entry::Value(_) => true,
            _ => return None,
        };
        let off = self.offset as usize;
        let n = xa.node(id);
        if self.shift != 0 || self.sibs != 0 || n.shift != 0 || n.slots[off] != 0 {
            return None;
        }
        let n = xa.write_slot(id, off, encode(entry), !value);
        n.count += 1;
        n.nr_values += value as u8;
        // The slot was empty, so the leaf was not full: the parent's
        // summary changes only if this store filled it.
        if n.present == u64::MAX {
            xa.sync_full(id);
        }
        Some(Entry::Empty)
    }

    fn update_node(&mut self, xa: &mut XArray, node: NodeId, count: i32, values: i32) {
        if node == NIL || (count == 0 && values == 0) {
            return;
        }
        let n = xa.node_mut(node);
        n.count = (n.count as i32 + count) as u8;
        n.nr_values = (n.nr_values as i32 + values) as u8;
        if count < 0 {
            self.delete_node(xa);
        }
    }

    /// `xas_delete_node`: frees emptied nodes upwards, then shrinks the root.
    fn delete_node(&mut self, xa: &mut XArray) {
        let XasNode::Node(mut node) = self.node else {
            return;
        };
        loop {
            let n = xa.node(node);
            if n.count != 0 {
                break;
            }
            let parent = n.parent;
            let off = n.offset;
            xa.release(node);
            if parent == NIL {
                xa.set_head(Entry::Empty);
                xa.head_marks = 0;
                self.node = XasNode::Bounds;
                return;
            }
            self.node = XasNode::Node(parent);
            self.offset = off;
            let p = xa.node_mut(parent);
            p.set_slot(off as usize, 0, false);
            for m in 0..3 {
                p.clear_mark(off as usize, m);
            }
            p.count -= 1;
            node = parent;
        }
        if xa.node(node).parent == NIL {
            self.shrink(xa, node);
        }
    }

    /// `xas_shrink`: collapses a root that only uses slot 0.
    fn shrink(&mut self, xa: &mut XArray, mut node: NodeId) {
        loop {
            let n = xa.node(node);
            if n.count != 1 {
                break;
            }
            let slot = n.slots[0];
            if slot == 0 {
                break;
            }
            if !is_node(slot) && n.shift != 0 {
                break;
            }
            let marks = (0..3).fold(0u8, |acc, m| acc | ((n.get_mark(0, m) as u8) << m));
            self.node = XasNode::Bounds;
            xa.set_head(decode(slot));
            xa.head_marks = marks;
            xa.release(node);
            if !is_node(slot) {
                break;
            }
            node = node_of(slot);
            xa.node_mut(node).parent = NIL;
        }
    }
}

/// `xas_free_nodes`: frees a detached subtree.
fn free_nodes(xa: &mut XArray, top: NodeId) {
    let mut stack = vec![top];
    while let Some(id) = stack.pop() {
        let n = xa.node(id);
        if n.shift != 0 {
            for &slot in n.slots.iter() {
                if is_node(slot) {
                    stack.push(node_of(slot));
                }
            }
        }
        xa.release(id);
    }
}
