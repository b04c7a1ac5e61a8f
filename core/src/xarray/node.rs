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

/// Words every packed node starts with: the small fields, the parent and
/// which of the optional words follow; which slots hold something; the
/// version.
const PACKED_FIXED: usize = 3;
const _: () = assert!(XA_MAX_MARKS == 3, "pack writes three mark words");

/// The optional words of a packed node, in the order they follow the
/// fixed ones (repeats, `present`, `children`, `canon`, `full`), each
/// with what unpacking assumes it holds when it is left out: no repeats,
/// the slots in use (a node with no value entries; one with no sibling
/// entries), no children (a leaf), no full leaves. Bit k of the first
/// word's [`HAS_AT`] bits says whether word k is kept, and the bit after
/// them whether the three marks are (none set when they are not).
const OPTIONAL: [Assumed; 5] = [
    Assumed::None,
    Assumed::InUse,
    Assumed::None,
    Assumed::InUse,
    Assumed::None,
];
const HAS_MARKS: u64 = 1 << OPTIONAL.len();

/// What an optional word of a packed node holds when it is left out.
#[derive(Clone, Copy)]
enum Assumed {
    None,
    InUse,
}

impl Assumed {
    fn word(self, in_use: u64) -> u64 {
        match self {
            Assumed::None => 0,
            Assumed::InUse => in_use,
        }
    }
}

/// Where the fields sit in a packed node's first word: shift and offset
/// below 64, count and nr_values at most 64 (XA_CHUNK_SIZE), the bits
/// above, then the parent.
const OFFSET_AT: u32 = 6;
const COUNT_AT: u32 = 12;
const NR_VALUES_AT: u32 = 19;
const HAS_AT: u32 = 26;
const PARENT_AT: u32 = 32;
const _: () = assert!(
    OPTIONAL.len() < (PARENT_AT - HAS_AT) as usize,
    "a bit for each optional word and one for the marks"
);

/// A node frozen for a checkpoint keeps only the slots that hold
/// something, and of those only the ones that differ from the slot
/// before them that holds something: the 16 GiB comparison's nodes hold
/// 9 to 11 entries of 64 on average, so a copy takes about a quarter of
/// the node's 584 bytes; a leaf of a file read page by page holds 64
/// folios of one page whose entries are the same word (a folio's entry
/// does not hold its index), and a large folio's sibling entries all
/// name its first slot, so those take a word a run.
///
/// Of the words before the slots, only three are always kept (see
/// [`OPTIONAL`]): eleven were, and in a sparse
/// leaf they were most of its copy. Natively (2026-12-08) a kernel's
/// checkpoints took 15.6 instead of 19.8 MB on the 16 GiB comparison,
/// 18.2 instead of 22.0 on the 16 GiB backward walk and 78.8 instead of
/// 93.8 in the memory cgroup preset; the comparison's live memory once
/// indexed went from 88.1 to 79.6 MB. The preset's did not move (323.3
/// against 326.1 MB) until the budget came down to match
/// ([`crate::CHECKPOINT_BUDGET`]): its stores keep the blocks they filled
/// up to it. Seeks took as long: the timing test's jumps natively, three
/// rounds each, 0.84-0.91 against 0.89-0.94 ms warm; in Chromium, its 40
/// jumps on the comparison in four runs of 4 to 10 fresh pages of each
/// build alternated, medians within 6% either way, as often faster as
/// slower. Reading the optional words with masks rather than a branch
/// each made no difference there either.
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
            debug_assert!(
                n.shift < 64 && n.offset < 64 && n.count <= 64 && n.nr_values <= 64,
                "a node's small fields fit their bits"
            );
            let head = out.len();
            out.extend_from_slice(&[0, used, n.version]);
            let mut has = 0;
            let optional = [repeats, n.present, n.children, n.canon, n.full];
            for (k, (word, assumed)) in optional.into_iter().zip(OPTIONAL).enumerate() {
                if word != assumed.word(used) {
                    has |= 1 << k;
                    out.push(word);
                }
            }
            if n.marks != [0; XA_MAX_MARKS] {
                has |= HAS_MARKS;
                out.extend_from_slice(&n.marks);
            }
            out[head] = u64::from(n.shift)
                | u64::from(n.offset) << OFFSET_AT
                | u64::from(n.count) << COUNT_AT
                | u64::from(n.nr_values) << NR_VALUES_AT
                | has << HAS_AT
                | u64::from(n.parent) << PARENT_AT;
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
    let used = w[1];
    n.shift = (head & 63) as u8;
    n.offset = (head >> OFFSET_AT & 63) as u8;
    n.count = (head >> COUNT_AT & 127) as u8;
    n.nr_values = (head >> NR_VALUES_AT & 127) as u8;
    n.parent = (head >> PARENT_AT) as NodeId;
    n.version = w[2];
    let has = head >> HAS_AT & 63;
    let mut at = PACKED_FIXED;
    let mut optional = [0; OPTIONAL.len()];
    for (k, (word, assumed)) in optional.iter_mut().zip(OPTIONAL).enumerate() {
        *word = if has >> k & 1 == 0 {
            assumed.word(used)
        } else {
            at += 1;
            w[at - 1]
        };
    }
    let repeats;
    [repeats, n.present, n.children, n.canon, n.full] = optional;
    n.marks = if has & HAS_MARKS == 0 {
        [0; XA_MAX_MARKS]
    } else {
        at += XA_MAX_MARKS;
        [w[at - 3], w[at - 2], w[at - 1]]
    };
    n.slots = [0; XA_CHUNK_SIZE];
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
        /// is its fixed words, those of its summaries and marks that are
        /// not what unpacking assumes, and the slots that hold something
        /// other than the slot before them that holds something. Half the
        /// summaries are drawn as those assumptions, so that both ways
        /// are met.
        #[test]
        fn a_packed_node_unpacks_to_itself(
            fields in (0u8..64, 0u8..64, 0u8..=64, 0u8..=64, any::<u32>()),
            words in any::<[u64; 8]>(),
            assumed in any::<u8>(),
            used in any::<u64>(),
            fill in any::<u64>(),
            other in any::<u64>(),
            runs in (1usize..=64, 1usize..=64),
        ) {
            let assume = |mut n: Node| {
                let held = crate::cow::nonzero_bits(&n.slots);
                let fields = [&mut n.present, &mut n.children, &mut n.canon, &mut n.full];
                for (k, (field, as_assumed)) in fields.into_iter().zip([held, 0, held, 0]).enumerate() {
                    if assumed >> k & 1 == 1 {
                        *field = as_assumed;
                    }
                }
                if assumed >> 4 & 1 == 1 {
                    n.marks = [0; XA_MAX_MARKS];
                }
                n
            };
            let nodes = [
                assume(node(fields, words, used, fill, runs.0)),
                assume(node(fields, words, !used, other, runs.1)),
            ];
            let mut packed = Vec::new();
            Node::pack(&nodes, &mut packed);
            let mut expected = 0;
            for n in &nodes {
                let held: Vec<u64> = n.slots.iter().copied().filter(|&s| s != 0).collect();
                let kept = held.iter().enumerate().filter(|&(k, &s)| k == 0 || held[k - 1] != s).count();
                let in_use = crate::cow::nonzero_bits(&n.slots);
                let optional = [
                    kept < held.len(),
                    n.present != in_use,
                    n.children != 0,
                    n.canon != in_use,
                    n.full != 0,
                ];
                let marks = if n.marks == [0; XA_MAX_MARKS] { 0 } else { XA_MAX_MARKS };
                expected += PACKED_FIXED + optional.iter().filter(|&&o| o).count() + marks + kept;
            }
            prop_assert_eq!(packed.len(), expected);
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
