//! The 64-slot node of lib/xarray.c (`struct xa_node`) and the packed slot
//! encoding.
//!
//! A slot is one `u64`. The low three bits say what it holds, the rest is
//! the payload. A slot that points to a leaf node also carries the leaf's
//! version above the node id ([`leaf_slot`]). Packing keeps a node at
//! about 560 bytes, so that a whole 16 GiB file of order-0 folios stays
//! well inside the memory budget.

use super::Entry;

pub const XA_CHUNK_SHIFT: u8 = 6;
pub const XA_CHUNK_SIZE: usize = 1 << XA_CHUNK_SHIFT;
pub const XA_CHUNK_MASK: u64 = XA_CHUNK_SIZE as u64 - 1;
pub const XA_MAX_MARKS: usize = 3;

/// Index of a node in the array's arena.
pub type NodeId = u32;
pub const NIL: NodeId = u32::MAX;

pub(crate) const TAG_BITS: u32 = 3;
const TAG_MASK: u64 = (1 << TAG_BITS) - 1;
const TAG_POINTER: u64 = 1;
const TAG_VALUE: u64 = 2;
const TAG_SIBLING: u64 = 3;
const TAG_NODE: u64 = 4;
const TAG_RETRY: u64 = 5;

/// The largest payload a pointer or value entry can carry.
pub const MAX_PAYLOAD: u64 = u64::MAX >> TAG_BITS;

#[inline]
pub fn encode(entry: Entry) -> u64 {
    match entry {
        Entry::Empty => 0,
        Entry::Pointer(p) => (p << TAG_BITS) | TAG_POINTER,
        Entry::Value(v) => (v << TAG_BITS) | TAG_VALUE,
        Entry::Sibling(o) => ((o as u64) << TAG_BITS) | TAG_SIBLING,
        Entry::Node(n) => ((n as u64) << TAG_BITS) | TAG_NODE,
        Entry::Retry => TAG_RETRY,
    }
}

#[inline]
pub fn decode(slot: u64) -> Entry {
    let payload = slot >> TAG_BITS;
    match slot & TAG_MASK {
        TAG_POINTER => Entry::Pointer(payload),
        TAG_VALUE => Entry::Value(payload),
        TAG_SIBLING => Entry::Sibling(payload as u8),
        TAG_NODE => Entry::Node(payload as NodeId),
        TAG_RETRY => Entry::Retry,
        _ => Entry::Empty,
    }
}

/// A test of raw slots in one AND and one compare: `slot & mask ==
/// value` holds for a pointer entry whose payload, masked by
/// `payload_mask`, is `payload_value`, and for no other slot.
#[inline]
pub fn pointer_test(payload_mask: u64, payload_value: u64) -> (u64, u64) {
    (
        raw_bits(payload_mask) | TAG_MASK,
        raw_bits(payload_value) | TAG_POINTER,
    )
}

/// Where the bits `payload_bits` of a payload sit in a raw slot.
#[inline]
pub fn raw_bits(payload_bits: u64) -> u64 {
    payload_bits << TAG_BITS
}

#[inline]
pub fn is_pointer(slot: u64) -> bool {
    slot & TAG_MASK == TAG_POINTER
}

#[inline]
pub fn is_node(slot: u64) -> bool {
    slot & TAG_MASK == TAG_NODE
}

#[inline]
pub fn is_sibling(slot: u64) -> bool {
    slot & TAG_MASK == TAG_SIBLING
}

/// `xa_is_internal`: a sibling, a node or a retry entry.
#[inline]
pub fn is_internal_slot(slot: u64) -> bool {
    matches!(slot & TAG_MASK, TAG_SIBLING | TAG_NODE | TAG_RETRY)
}

#[inline]
pub fn is_value(slot: u64) -> bool {
    slot & TAG_MASK == TAG_VALUE
}

#[inline]
pub fn node_of(slot: u64) -> NodeId {
    (slot >> TAG_BITS) as NodeId
}

/// Where a slot that points to a leaf keeps the leaf's version: the bits
/// above the node id, which `node_of` and `decode` leave out. This model's
/// own, for display code that walks the tree (see `XArray::walk_node`).
const LEAF_VERSION_SHIFT: u32 = TAG_BITS + NodeId::BITS;

/// The bits of a leaf's version a slot can carry: 2^29 writes to one
/// place in the arena, far more than any run makes.
pub const LEAF_VERSION_MASK: u64 = u64::MAX >> LEAF_VERSION_SHIFT;

/// A slot pointing to leaf `id` at `version`.
#[inline]
pub fn leaf_slot(id: NodeId, version: u64) -> u64 {
    encode(Entry::Node(id)) | ((version & LEAF_VERSION_MASK) << LEAF_VERSION_SHIFT)
}

/// The version of the leaf a slot points to, as the slot carries it.
#[inline]
pub fn leaf_version_of(slot: u64) -> u64 {
    slot >> LEAF_VERSION_SHIFT
}

#[inline]
pub fn sibling_of(slot: u64) -> usize {
    (slot >> TAG_BITS) as usize
}

/// `struct xa_node`: shift, offset in the parent, the number of used slots,
/// the number of value slots, the parent, three mark bitmaps, and 64 slots.
///
/// `present` is this model's own summary, not the kernel's: bit i is set
/// when slot i holds anything but NULL or a value entry. It lets the
/// readahead model skip runs of cached pages in O(nodes), while still
/// counting the node visits the kernel's page-by-page `xa_load` makes.
// Copy, so that copying the arena (a checkpoint's freeze and thaw) is
// one memcpy rather than a clone per node.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub shift: u8,
    pub offset: u8,
    pub count: u8,
    pub nr_values: u8,
    pub parent: NodeId,
    pub present: u64,
    /// This model's own summary: bit i is set when slot i holds a node.
    pub children: u64,
    /// This model's own summary: bit i is set when slot i holds anything
    /// but NULL or a sibling, the slots `xas_find` stops at.
    pub canon: u64,
    /// This model's own summary: bit i is set when slot i holds a leaf
    /// node whose 64 slots all hold cached entries.
    pub full: u64,
    pub marks: [u64; XA_MAX_MARKS],
    pub slots: [u64; XA_CHUNK_SIZE],
    /// This model's own: how many times the slots of the node at this
    /// place in the arena were written, across frees and reuses, counting
    /// the writes to its children's slots when they are leaves
    /// (`XArray::count_leaf_write`). Along one deterministic run, a leaf's
    /// place and version name its slots' contents, and a node over leaves
    /// names theirs too, which lets display code keep what it read there.
    pub version: u64,
}

/// Words of a packed node before its slots: the small fields and the
/// parent, which slots hold something, which of those repeat the one
/// before, the summaries, the version and the marks.
const PACKED_HEAD: usize = 8 + XA_MAX_MARKS;
const _: () = assert!(XA_MAX_MARKS == 3, "pack writes three mark words");

/// A node frozen for a checkpoint keeps only the slots that hold
/// something, and of those only the ones that differ from the slot
/// before them that holds something: the 16 GiB comparison's nodes hold
/// 9 to 11 entries of 64 on average, so a copy takes about a quarter of
/// the node's 584 bytes; a leaf of a file read page by page holds 64
/// folios of one page whose entries are the same word (a folio's entry
/// does not hold its index), and a large folio's sibling entries all
/// name its first slot, so those take a word a run.
impl crate::cow::Frozenable for Node {
    fn pack(items: &[Node], out: &mut Vec<u64>) {
        for n in items {
            // Which slots hold something (`present` says, unless value
            // entries are among them), then which of those repeat,
            // visiting only them. A branch on each of the 64 slots was
            // most of the checkpoints' time in the memory cgroup preset's
            // build, whose nodes are sparse: natively its first build
            // took 608 ms so, 484 now (best of 3, five rounds alternated).
            // One pass over all 64 slots with no branch (a select for the
            // last slot held) lost too: `Checkpoint::take` went from 18.0
            // to 20.5% of that build's samples (perf, 2026-12-08).
            debug_assert!(
                n.nr_values != 0 || n.present == crate::cow::nonzero_bits(&n.slots),
                "with no value entries, `present` names the slots in use"
            );
            let used = if n.nr_values == 0 {
                n.present
            } else {
                crate::cow::nonzero_bits(&n.slots)
            };
            let (mut repeats, mut last, mut rest) = (0u64, 0u64, used);
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                repeats |= u64::from(n.slots[i] == last) << i;
                last = n.slots[i];
            }
            out.extend_from_slice(&[
                u64::from(n.shift)
                    | u64::from(n.offset) << 8
                    | u64::from(n.count) << 16
                    | u64::from(n.nr_values) << 24
                    | u64::from(n.parent) << 32,
                used,
                repeats,
                n.present,
                n.children,
                n.canon,
                n.full,
                n.version,
                n.marks[0],
                n.marks[1],
                n.marks[2],
            ]);
            let mut rest = used & !repeats;
            while rest != 0 {
                out.push(n.slots[rest.trailing_zeros() as usize]);
                rest &= rest - 1;
            }
        }
    }

    fn unpack(words: &[u64], out: &mut [Node]) {
        let mut at = 0;
        for n in out {
            at += unpack_node(&words[at..], n);
        }
    }

    fn unpack_push(words: &[u64], n: usize, out: &mut Vec<Node>) {
        // Made in place, then unpacked over, rather than built apart
        // and moved in; unpacking over them again is the one `unpack`,
        // which the app's size budget had no room to write twice.
        let start = out.len();
        out.resize(start + n, Node::new(0, 0, 0));
        Self::unpack(words, &mut out[start..]);
    }
}

/// Unpacks the node at the start of `w` over `n`; returns its words.
fn unpack_node(w: &[u64], n: &mut Node) -> usize {
    let head = w[0];
    let (used, repeats) = (w[1], w[2]);
    n.shift = head as u8;
    n.offset = (head >> 8) as u8;
    n.count = (head >> 16) as u8;
    n.nr_values = (head >> 24) as u8;
    n.parent = (head >> 32) as NodeId;
    n.present = w[3];
    n.children = w[4];
    n.canon = w[5];
    n.full = w[6];
    n.version = w[7];
    n.marks = [w[8], w[9], w[10]];
    n.slots = [0; XA_CHUNK_SIZE];
    let mut at = PACKED_HEAD;
    let mut last = 0;
    let mut rest = used;
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        if repeats >> i & 1 == 0 {
            last = w[at];
            at += 1;
        }
        n.slots[i] = last;
        rest &= rest - 1;
    }
    at
}

impl Node {
    pub fn new(shift: u8, parent: NodeId, offset: u8) -> Self {
        Node {
            shift,
            offset,
            count: 0,
            nr_values: 0,
            parent,
            present: 0,
            children: 0,
            full: 0,
            canon: 0,
            marks: [0; XA_MAX_MARKS],
            slots: [0; XA_CHUNK_SIZE],
            version: 0,
        }
    }

    /// Writes a slot and keeps the `present` summary in step. `present`
    /// is false for NULL and for value entries and their siblings.
    #[inline]
    pub fn set_slot(&mut self, offset: usize, slot: u64, present: bool) {
        self.slots[offset] = slot;
        self.version += 1;
        let bit = 1u64 << offset;
        if present {
            self.present |= bit;
        } else {
            self.present &= !bit;
        }
        if is_node(slot) {
            self.children |= bit;
        } else {
            self.children &= !bit;
        }
        if slot != 0 && !is_sibling(slot) {
            self.canon |= bit;
        } else {
            self.canon &= !bit;
        }
        // A new child starts out not full; `XArray::sync_full` says otherwise.
        self.full &= !bit;
    }

    #[inline]
    pub fn get_mark(&self, offset: usize, mark: usize) -> bool {
        self.marks[mark] & (1 << offset) != 0
    }

    /// Returns whether the mark was already set.
    #[inline]
    pub fn set_mark(&mut self, offset: usize, mark: usize) -> bool {
        let was = self.get_mark(offset, mark);
        self.marks[mark] |= 1 << offset;
        was
    }

    /// Returns whether the mark was set before.
    #[inline]
    pub fn clear_mark(&mut self, offset: usize, mark: usize) -> bool {
        let was = self.get_mark(offset, mark);
        self.marks[mark] &= !(1 << offset);
        was
    }

    #[inline]
    pub fn any_mark(&self, mark: usize) -> bool {
        self.marks[mark] != 0
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::cow::Frozenable;
    use proptest::prelude::*;

    /// A node with `slots` written where `used` says, over garbage, in
    /// runs of `run` slots of one word. Its summaries are garbage too,
    /// but for what packing reads: with no value entries counted, the
    /// slots `present` names are the ones written.
    fn node(
        fields: (u8, u8, u8, u8, u32),
        words: [u64; 8],
        used: u64,
        fill: u64,
        run: usize,
    ) -> Node {
        let (shift, offset, count, nr_values, parent) =
            (fields.0, fields.1, fields.2, fields.3, fields.4);
        let mut n = Node::new(shift, parent, offset);
        n.count = count;
        n.nr_values = nr_values;
        [n.present, n.children, n.canon, n.full, n.version] =
            [words[0], words[1], words[2], words[3], words[4]];
        n.marks = [words[5], words[6], words[7]];
        for (i, slot) in n.slots.iter_mut().enumerate() {
            if used >> i & 1 == 1 {
                *slot = fill.wrapping_mul((i / run) as u64 + 1) | 1;
            }
        }
        if nr_values == 0 {
            n.present = used;
        }
        n
    }

    proptest! {
        /// Packed and unpacked, over a node that held anything, or onto
        /// the end of a vector, a node is the same node; its packed form
        /// is its head and the slots that hold something other than the
        /// slot before them that holds something.
        #[test]
        fn a_packed_node_unpacks_to_itself(
            fields in any::<(u8, u8, u8, u8, u32)>(),
            words in any::<[u64; 8]>(),
            used in any::<u64>(),
            fill in any::<u64>(),
            other in any::<u64>(),
            runs in (1usize..=64, 1usize..=64),
        ) {
            let nodes = [
                node(fields, words, used, fill, runs.0),
                node(fields, words, !used, other, runs.1),
            ];
            let mut packed = Vec::new();
            Node::pack(&nodes, &mut packed);
            let mut kept = 0;
            for n in &nodes {
                let held: Vec<u64> = n.slots.iter().copied().filter(|&s| s != 0).collect();
                kept += held.iter().enumerate().filter(|&(k, &s)| k == 0 || held[k - 1] != s).count();
            }
            prop_assert_eq!(packed.len(), 2 * PACKED_HEAD + kept);
            let mut over = [node(fields, words, u64::MAX, other, 1); 2];
            Node::unpack(&packed, &mut over);
            let mut pushed = vec![node(fields, words, 0, 0, 1)];
            Node::unpack_push(&packed, 2, &mut pushed);
            for i in 0..2 {
                prop_assert_eq!(format!("{:?}", over[i]), format!("{:?}", nodes[i]));
                prop_assert_eq!(format!("{:?}", pushed[i + 1]), format!("{:?}", nodes[i]));
            }
        }
    }
}
