//! Structural validation of an [`XArray`], the invariants lib/xarray.c keeps
//! with `XA_NODE_BUG_ON`: shifts step by six, children know their parent
//! and offset, `count` and `nr_values` match the slots, siblings point back
//! at an aligned canonical slot, no node is empty, and marks propagate.

use super::node::{decode, is_node, is_sibling, is_value, node_of, sibling_of, NodeId, NIL};
use super::{Entry, XArray, XA_CHUNK_SHIFT, XA_CHUNK_SIZE};

/// The first broken invariant found, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XaCheckError(pub String);

impl std::fmt::Display for XaCheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "xarray invariant broken: {}", self.0)
    }
}

impl std::error::Error for XaCheckError {}

fn fail<T>(msg: String) -> Result<T, XaCheckError> {
    Err(XaCheckError(msg))
}

impl XArray {
    /// Checks every structural invariant; the model runs this in tests after
    /// each step.
    pub fn check(&self) -> Result<(), XaCheckError> {
        let head = self.head;
        let mut reachable = 0usize;
        if is_node(head) {
            let root = node_of(head);
            if self.node(root).parent != NIL {
                return fail(format!("root node {root} has a parent"));
            }
            let marks = self.check_node(root, None, 0, &mut reachable)?;
            if marks != self.head_marks {
                return fail(format!(
                    "head marks {:03b} but the root holds {marks:03b}",
                    self.head_marks
                ));
            }
        } else {
            if decode(head).is_internal() && head != 0 {
                return fail("head holds a sibling or retry entry".into());
            }
            if head == 0 && self.head_marks != 0 {
                return fail("empty array with marks set".into());
            }
        }
        if reachable + self.free.len() != self.nodes.len() {
            return fail(format!(
                "{} nodes reachable, {} free, {} allocated",
                reachable,
                self.free.len(),
                self.nodes.len()
            ));
        }
        Ok(())
    }

    /// Returns the marks this node holds anywhere, as three bits.
    fn check_node(
        &self,
        id: NodeId,
        parent: Option<(NodeId, u8)>,
        depth: u32,
        reachable: &mut usize,
    ) -> Result<u8, XaCheckError> {
        *reachable += 1;
        if depth > 11 {
            return fail(format!("node {id} is deeper than 11 levels"));
        }
        let n = self.node(id);
        if let Some((p, off)) = parent {
            if n.parent != p || n.offset != off {
                return fail(format!(
                    "node {id} says parent {}/offset {}, but sits in {p}/{off}",
                    n.parent, n.offset
                ));
            }
            if n.shift + XA_CHUNK_SHIFT != self.node(p).shift {
                return fail(format!(
                    "node {id} shift {} under a parent of shift {}",
                    n.shift,
                    self.node(p).shift
                ));
            }
            if n.count == 0 {
                return fail(format!("node {id} is empty but still linked"));
            }
        }
        let mut count = 0u32;
        let mut values = 0u32;
        let mut present = 0u64;
        let mut children = 0u64;
        let mut marks_here = 0u8;
        let mut off = 0;
        while off < XA_CHUNK_SIZE {
            let slot = n.slots[off];
            if slot != 0 {
                count += 1;
                if !is_value(slot) {
                    present |= 1 << off;
                }
            }
            if is_sibling(slot) {
                return fail(format!(
                    "node {id} slot {off}: a sibling with no entry before it"
                ));
            }
            for m in 0..3 {
                if n.get_mark(off, m) {
                    if slot == 0 {
                        return fail(format!("node {id} slot {off}: mark {m} on an empty slot"));
                    }
                    marks_here |= 1 << m;
                }
            }
            if is_node(slot) {
                children |= 1 << off;
                if n.shift == 0 {
                    return fail(format!("leaf node {id} holds a node at slot {off}"));
                }
                let expected = self.child_slot(node_of(slot));
                if slot != expected {
                    return fail(format!(
                        "node {id} slot {off}: {slot:#x}, but the child's version says {expected:#x}"
                    ));
                }
                let child_marks =
                    self.check_node(node_of(slot), Some((id, off as u8)), depth + 1, reachable)?;
                for m in 0..3 {
                    let here = n.get_mark(off, m);
                    let below = child_marks & (1 << m) != 0;
                    if here != below {
                        return fail(format!(
                            "node {id} slot {off}: mark {m} is {here} but the child says {below}"
                        ));
                    }
                }
                off += 1;
                continue;
            }
            if slot != 0 && is_value(slot) {
                values += 1;
            }
            if slot != 0 && matches!(decode(slot), Entry::Retry) {
                return fail(format!(
                    "node {id} slot {off}: a retry entry in a live tree"
                ));
            }
            // Siblings that follow a canonical entry.
            let mut sibs = 0usize;
            while off + sibs + 1 < XA_CHUNK_SIZE && is_sibling(n.slots[off + sibs + 1]) {
                let s = n.slots[off + sibs + 1];
                if sibling_of(s) != off {
                    return fail(format!(
                        "node {id} slot {}: sibling points at {} not {off}",
                        off + sibs + 1,
                        sibling_of(s)
                    ));
                }
                for m in 0..3 {
                    if n.get_mark(off + sibs + 1, m) {
                        return fail(format!(
                            "node {id} slot {}: mark {m} on a sibling",
                            off + sibs + 1
                        ));
                    }
                }
                sibs += 1;
            }
            if sibs > 0 {
                if slot == 0 {
                    return fail(format!(
                        "node {id} slot {off}: siblings after an empty slot"
                    ));
                }
                let span = sibs + 1;
                if !span.is_power_of_two() || off % span != 0 {
                    return fail(format!(
                        "node {id} slot {off}: a multi-index entry of {span} slots is not aligned"
                    ));
                }
                count += sibs as u32;
                if !is_value(slot) {
                    present |= ((1u64 << sibs) - 1) << (off + 1);
                }
                if is_value(slot) {
                    values += sibs as u32;
                } else if is_node(slot) {
                    return fail(format!("node {id} slot {off}: siblings of a node"));
                }
            }
            off += sibs + 1;
        }
        if count != n.count as u32 {
            return fail(format!(
                "node {id}: count {} but {count} slots used",
                n.count
            ));
        }
        if values != n.nr_values as u32 {
            return fail(format!(
                "node {id}: nr_values {} but {values} value slots",
                n.nr_values
            ));
        }
        let mut canon = 0u64;
        for off in 0..XA_CHUNK_SIZE {
            let slot = n.slots[off];
            if slot != 0 && !is_sibling(slot) {
                canon |= 1 << off;
            }
        }
        if canon != n.canon {
            return fail(format!(
                "node {id}: canon summary {:#x} but slots say {canon:#x}",
                n.canon
            ));
        }
        let mut full = 0u64;
        for off in 0..XA_CHUNK_SIZE {
            let slot = n.slots[off];
            if is_node(slot) {
                let c = self.node(node_of(slot));
                if c.shift == 0 && c.present == u64::MAX {
                    full |= 1 << off;
                }
            }
        }
        if full != n.full {
            return fail(format!(
                "node {id}: full summary {:#x} but children say {full:#x}",
                n.full
            ));
        }
        if children != n.children {
            return fail(format!(
                "node {id}: children summary {:#x} but slots say {children:#x}",
                n.children
            ));
        }
        if present != n.present {
            return fail(format!(
                "node {id}: present summary {:#x} but slots say {present:#x}",
                n.present
            ));
        }
        Ok(marks_here)
    }
}
