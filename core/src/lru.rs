//! The file LRU of one memory cgroup (mm/vmscan.c, mm/swap.c and
//! mm/workingset.c, classic two-list LRU as on these machines, which run
//! without MGLRU): inactive and active lists, `folio_mark_accessed`, and
//! the non-resident age that shadow entries record for refault detection.
//!
//! Lists are ordered by a stamp that grows with every insertion, so the
//! oldest folio on a list is its entry with the lowest stamp. Each list
//! is its entries in stamp order, in leaves of at most [`LEAF`] shared
//! between clones until written: a timeline's checkpoint clones the
//! machine, and reclaim works at the lists' old ends and inserts at their
//! new ends, so a checkpoint copies a few leaves instead of the whole
//! lists. With the lists in a `BTreeMap` each, every checkpoint of the 2
//! GiB memory cgroup preset held a whole copy: 3.2 GB over its build. A
//! leaf that falls to a quarter is merged with a neighbour, so that the
//! leaves hold the live entries and not the gaps between them: a log
//! indexed by stamp, tried first, kept a chunk for each long-lived folio
//! (134 MB in a bare run of 1 GiB read 5% at random in a 256 MiB cgroup,
//! against 8 MB with the maps).

use std::collections::VecDeque;
use std::rc::Rc;

use crate::folio::{Folio, FolioFlags, Shadow};

/// Entries a leaf holds at most; it is merged with a neighbour below a
/// quarter of that. The crate's tests use small leaves, so that their
/// few thousand operations fill, empty and merge many.
const LEAF: usize = if cfg!(test) { 8 } else { 256 };

/// A list's entries, (stamp, folio index), in stamp order: at most
/// [`LEAF`] of them, at least one. A deque, as reclaim takes the oldest
/// entry off the front of the first leaf: with vectors, searching for it
/// and shifting the rest down took 29% of a bare run's time (perf; 2 GiB
/// read 5% at random in a 256 MiB cgroup).
type Leaf = VecDeque<(u64, u64)>;

/// One LRU list.
#[derive(Clone, Debug, Default)]
struct List {
    leaves: VecDeque<Rc<Leaf>>,
}

/// The leaf at `i`, writable: copied first when a clone shares it.
fn leaf_mut(leaves: &mut VecDeque<Rc<Leaf>>, i: usize) -> &mut Leaf {
    Rc::make_mut(&mut leaves[i])
}

impl List {
    /// Adds an entry with a stamp above every other.
    fn push(&mut self, stamp: u64, index: u64) {
        match self.leaves.len().checked_sub(1) {
            Some(last) if self.leaves[last].len() < LEAF => {
                leaf_mut(&mut self.leaves, last).push_back((stamp, index));
            }
            _ => {
                let mut leaf = VecDeque::with_capacity(LEAF);
                leaf.push_back((stamp, index));
                self.leaves.push_back(Rc::new(leaf));
            }
        }
    }

    /// Takes the entry of `stamp` off; whether there was one.
    fn remove(&mut self, stamp: u64) -> bool {
        // Reclaim takes the oldest entry: no search for it.
        if self.leaves.front().is_some_and(|l| l[0].0 == stamp) {
            let leaf = leaf_mut(&mut self.leaves, 0);
            leaf.pop_front();
            if leaf.is_empty() {
                self.leaves.pop_front();
            }
            return true;
        }
        let i = self.leaves.partition_point(|l| l[0].0 <= stamp);
        let Some(i) = i.checked_sub(1) else {
            return false;
        };
        let Ok(at) = self.leaves[i].binary_search_by_key(&stamp, |e| e.0) else {
            return false;
        };
        leaf_mut(&mut self.leaves, i).remove(at);
        let len = self.leaves[i].len();
        if len == 0 {
            self.leaves.remove(i);
        } else if len < LEAF / 4 {
            // Into the neighbour after it when both fit one leaf, else
            // into the one before it.
            let with = [i + 1, i.wrapping_sub(1)]
                .into_iter()
                .find(|&j| self.leaves.get(j).is_some_and(|l| l.len() + len <= LEAF));
            if let Some(j) = with {
                let (lo, hi) = (i.min(j), i.max(j));
                if let Some(taken) = self.leaves.remove(hi) {
                    leaf_mut(&mut self.leaves, lo).extend(taken.iter().copied());
                }
            }
        }
        true
    }

    /// The index of the entry with the lowest stamp.
    fn first(&self) -> Option<u64> {
        self.leaves.front().map(|l| l[0].1)
    }

    /// Bytes of the list that `prev`, the same list in an earlier clone,
    /// does not share: its spine, and each leaf that is not also `prev`'s.
    /// A leaf is shared unchanged or copied when written, so two clones
    /// share a leaf only where both have it at the same first stamp: one
    /// walk over both, in stamp order.
    fn bytes_beside(&self, prev: Option<&List>) -> usize {
        let entry = std::mem::size_of::<(u64, u64)>();
        let mut own = self.leaves.capacity() * std::mem::size_of::<Rc<Leaf>>();
        let mut j = 0;
        for leaf in &self.leaves {
            if let Some(p) = prev {
                while j < p.leaves.len() && p.leaves[j][0].0 < leaf[0].0 {
                    j += 1;
                }
                if p.leaves.get(j).is_some_and(|l| Rc::ptr_eq(l, leaf)) {
                    continue;
                }
            }
            own += leaf.capacity() * entry;
        }
        own
    }
}

/// Which list: the index into [`Lru`]'s lists.
const INACTIVE: usize = 0;
const ACTIVE: usize = 1;

fn list_of(folio: &Folio) -> usize {
    if folio.test(FolioFlags::ACTIVE) {
        ACTIVE
    } else {
        INACTIVE
    }
}

#[derive(Clone, Debug)]
pub struct Lru {
    pub limit_pages: u64,
    lists: [List; 2],
    pub inactive_pages: u64,
    pub active_pages: u64,
    clock: u64,
    /// `lruvec->nonresident_age`: advances on every eviction and activation.
    pub nonresident_age: u64,
}

impl Lru {
    pub fn new(limit_pages: u64) -> Self {
        Lru {
            limit_pages,
            lists: [List::default(), List::default()],
            inactive_pages: 0,
            active_pages: 0,
            clock: 0,
            nonresident_age: 0,
        }
    }

    fn stamp(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn pages_mut(&mut self, list: usize) -> &mut u64 {
        if list == ACTIVE {
            &mut self.active_pages
        } else {
            &mut self.inactive_pages
        }
    }

    /// Adds a new folio to the head of its list; returns its stamp.
    pub fn insert(&mut self, folio: &Folio) -> u64 {
        let s = self.stamp();
        let list = list_of(folio);
        self.lists[list].push(s, folio.index);
        *self.pages_mut(list) += folio.nr_pages();
        s
    }

    /// Takes a folio off its list.
    pub fn remove(&mut self, folio: &Folio) {
        let list = list_of(folio);
        if self.lists[list].remove(folio.lru_stamp) {
            *self.pages_mut(list) -= folio.nr_pages();
        }
    }

    /// `folio_mark_accessed`: the first access sets PG_referenced, the
    /// second moves an inactive folio to the active list. Returns the
    /// folio as it is now.
    pub fn mark_accessed(&mut self, folio: &Folio) -> Folio {
        let mut f = *folio;
        if !f.test(FolioFlags::REFERENCED) {
            f.flags.insert(FolioFlags::REFERENCED);
        } else if !f.test(FolioFlags::ACTIVE) {
            self.remove(&f);
            f.flags.remove(FolioFlags::REFERENCED);
            f.flags.insert(FolioFlags::ACTIVE);
            f.lru_stamp = self.insert(&f);
            self.nonresident_age += f.nr_pages();
        }
        f
    }

    /// The oldest inactive folio, the next reclaim candidate.
    pub fn oldest_inactive(&self) -> Option<u64> {
        self.lists[INACTIVE].first()
    }

    /// The oldest active folio, to deactivate when the inactive list runs low.
    pub fn oldest_active(&self) -> Option<u64> {
        self.lists[ACTIVE].first()
    }

    /// Bytes of the lists that `prev`, an earlier clone of this LRU
    /// (the checkpoint before), does not share with them: what a clone
    /// taken now holds beside it. Counted from the lists as they are, not
    /// as they were written: leaves made and dropped again in between
    /// (reclaim churning through a small cgroup) are no memory of the
    /// clone, and once counted, 4.95 MB of a 1 MiB cgroup's checkpoint
    /// made a timeline thin its checkpoints for nothing.
    pub(crate) fn bytes_beside(&self, prev: Option<&Lru>) -> usize {
        (0..2)
            .map(|i| self.lists[i].bytes_beside(prev.map(|p| &p.lists[i])))
            .sum()
    }

    /// `inactive_is_low`: keep the inactive list at least as big as the
    /// active one (the ratio for a small cgroup).
    pub fn inactive_is_low(&self) -> bool {
        self.inactive_pages < self.active_pages
    }

    /// Moves a folio to the inactive list head (`deactivate`).
    pub fn deactivate(&mut self, folio: &Folio) -> Folio {
        let mut f = *folio;
        self.remove(&f);
        f.flags.remove(FolioFlags::ACTIVE);
        f.flags.remove(FolioFlags::REFERENCED);
        f.lru_stamp = self.insert(&f);
        f
    }

    /// Moves an inactive folio back to the active list (`folio_activate`).
    pub fn activate(&mut self, folio: &Folio) -> Folio {
        let mut f = *folio;
        self.remove(&f);
        f.flags.insert(FolioFlags::ACTIVE);
        f.flags.remove(FolioFlags::REFERENCED);
        f.lru_stamp = self.insert(&f);
        self.nonresident_age += f.nr_pages();
        f
    }

    /// `workingset_eviction`: the shadow the evicted folio leaves.
    pub fn evict(&mut self, folio: &Folio) -> Shadow {
        self.remove(folio);
        let shadow = Shadow {
            eviction: self.nonresident_age,
            workingset: folio.test(FolioFlags::WORKINGSET) || folio.test(FolioFlags::ACTIVE),
        };
        self.nonresident_age += folio.nr_pages();
        shadow
    }

    /// `workingset_refault`: a refault within the active list's size of
    /// its eviction is part of the workingset and is activated.
    pub fn refault_is_workingset(&self, shadow: Shadow) -> bool {
        let distance = self.nonresident_age.saturating_sub(shadow.eviction);
        distance <= self.active_pages + self.inactive_pages.min(self.active_pages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(not(target_arch = "wasm32"))]
    use std::collections::BTreeMap;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The lists as two maps from stamp to index, as the LRU kept them
    /// before its leaves: the leaves must do exactly what they do.
    #[cfg(not(target_arch = "wasm32"))]
    #[derive(Clone, Debug, Default)]
    struct Maps {
        lists: [BTreeMap<u64, u64>; 2],
        pages: [u64; 2],
        clock: u64,
        /// Advanced by every eviction and every move onto the active list.
        nonresident_age: u64,
    }

    #[cfg(not(target_arch = "wasm32"))]
    impl Maps {
        fn insert(&mut self, f: &Folio) -> u64 {
            self.clock += 1;
            self.lists[list_of(f)].insert(self.clock, f.index);
            self.pages[list_of(f)] += f.nr_pages();
            self.clock
        }
        fn remove(&mut self, f: &Folio) {
            if self.lists[list_of(f)].remove(&f.lru_stamp).is_some() {
                self.pages[list_of(f)] -= f.nr_pages();
            }
        }
        fn oldest(&self, list: usize) -> Option<u64> {
            self.lists[list].first_key_value().map(|(_, &i)| i)
        }
    }

    /// One step of a random walk over both: an operation on a held
    /// folio (or a stale copy of it), or a clone kept for later.
    #[cfg(not(target_arch = "wasm32"))]
    fn step(
        lru: &mut Lru,
        maps: &mut Maps,
        held: &mut Vec<Folio>,
        stale: &mut Vec<Folio>,
        op: u8,
        pick: usize,
        index: u64,
    ) {
        let i = if held.is_empty() {
            0
        } else {
            pick % held.len()
        };
        match op % 8 {
            0 | 1 => {
                let flags = if index.is_multiple_of(3) {
                    FolioFlags::ACTIVE
                } else {
                    FolioFlags::empty()
                };
                let mut f = Folio::new(index, (index % 4) as u8, flags);
                f.lru_stamp = lru.insert(&f);
                assert_eq!(f.lru_stamp, maps.insert(&f));
                held.push(f);
            }
            // The folio moves on the lists as the LRU says: the maps
            // take what its new stamp says.
            2 | 3 if !held.is_empty() => {
                let f = held[i];
                let a = match (op % 8, pick % 2) {
                    (2, _) => lru.mark_accessed(&f),
                    (_, 0) => lru.deactivate(&f),
                    _ => lru.activate(&f),
                };
                if a.lru_stamp != f.lru_stamp {
                    maps.remove(&f);
                    assert_eq!(maps.insert(&a), a.lru_stamp);
                    if a.test(FolioFlags::ACTIVE) {
                        maps.nonresident_age += a.nr_pages();
                    }
                }
                stale.push(f);
                held[i] = a;
            }
            4 if !held.is_empty() => {
                let f = held.swap_remove(i);
                let shadow = lru.evict(&f);
                maps.remove(&f);
                assert_eq!(shadow.eviction, maps.nonresident_age);
                maps.nonresident_age += f.nr_pages();
            }
            5 if !stale.is_empty() => {
                // A folio as it was before it moved: its old stamp is no
                // longer on its list, and nothing changes.
                let f = stale[pick % stale.len()];
                lru.remove(&f);
                maps.remove(&f);
            }
            6 => {
                assert_eq!(lru.oldest_inactive(), maps.oldest(INACTIVE));
                assert_eq!(lru.oldest_active(), maps.oldest(ACTIVE));
            }
            _ if !held.is_empty() => {
                let f = held.swap_remove(i);
                lru.remove(&f);
                maps.remove(&f);
            }
            _ => {}
        }
        assert_eq!(
            (lru.inactive_pages, lru.active_pages),
            (maps.pages[0], maps.pages[1])
        );
        assert_eq!(lru.nonresident_age, maps.nonresident_age);
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// The leaves do what the two maps do, over any operations, and a
        /// clone taken part way answers as the maps cloned then, however
        /// the original changed the leaves they shared after.
        #[test]
        fn the_leaves_order_as_two_maps_would(
            ops in proptest::collection::vec((0u8..8, 0usize..4096, 0u64..4096), 1..6000),
            clone_at in 0usize..6000,
        ) {
            let mut lru = Lru::new(1 << 20);
            let mut maps = Maps::default();
            let (mut held, mut stale) = (Vec::new(), Vec::new());
            let mut kept = None;
            for (n, &(op, pick, index)) in ops.iter().enumerate() {
                if n == clone_at {
                    kept = Some((lru.clone(), maps.clone(), held.clone()));
                }
                step(&mut lru, &mut maps, &mut held, &mut stale, op, pick, index);
            }
            assert_eq!(lru.oldest_inactive(), maps.oldest(INACTIVE));
            assert_eq!(lru.oldest_active(), maps.oldest(ACTIVE));
            if let Some((mut lru, mut maps, mut held)) = kept {
                let mut stale = Vec::new();
                for &(op, pick, index) in ops.iter().rev() {
                    step(&mut lru, &mut maps, &mut held, &mut stale, op, pick, index);
                }
            }
        }
    }

    /// A folio long on the active list keeps one leaf, not every leaf
    /// the inactive list filled and emptied since; survivors scattered
    /// over many leaves end up in few.
    #[test]
    fn the_leaves_hold_the_entries_not_the_gaps() {
        let mut lru = Lru::new(1 << 20);
        lru.insert(&Folio::new(0, 0, FolioFlags::ACTIVE));
        for i in 1..(100 * LEAF as u64) {
            let mut f = Folio::new(i, 0, FolioFlags::empty());
            f.lru_stamp = lru.insert(&f);
            lru.evict(&f);
        }
        assert_eq!(lru.lists[INACTIVE].leaves.len(), 0);
        assert_eq!(lru.lists[ACTIVE].leaves.len(), 1);
        assert_eq!(lru.oldest_active(), Some(0));
        assert_eq!(lru.oldest_inactive(), None);
        // One in 32 survives on the inactive list.
        let mut folios = Vec::new();
        for i in 0..(64 * LEAF as u64) {
            let mut f = Folio::new(i, 0, FolioFlags::empty());
            f.lru_stamp = lru.insert(&f);
            folios.push(f);
        }
        for (n, f) in folios.iter().enumerate() {
            if n % 32 != 31 {
                lru.remove(f);
            }
        }
        let live = 2 * LEAF;
        assert_eq!(lru.inactive_pages, live as u64);
        let leaves = lru.lists[INACTIVE].leaves.len();
        assert!(
            leaves * (LEAF / 4) <= 2 * live + LEAF / 2,
            "{leaves} leaves for {live} entries"
        );
        assert_eq!(lru.oldest_inactive(), Some(31));
    }

    /// Reclaim at the old end drops whole leaves, and a clone holds only
    /// the leaves written since it was taken anew: a leaf copied and then
    /// dropped in between is none of its memory.
    #[test]
    fn old_leaves_go_and_a_clone_copies_what_is_written() {
        let entry = std::mem::size_of::<(u64, u64)>();
        let spine = |l: &Lru| {
            l.lists
                .iter()
                .map(|x| x.leaves.capacity() * std::mem::size_of::<Rc<Leaf>>())
                .sum::<usize>()
        };
        let room = |l: &Lru, i: usize| l.lists[INACTIVE].leaves[i].capacity() * entry;
        let mut lru = Lru::new(1 << 20);
        let mut held = std::collections::VecDeque::new();
        for i in 0..(4 * LEAF as u64) {
            let mut f = Folio::new(i, 0, FolioFlags::empty());
            f.lru_stamp = lru.insert(&f);
            held.push_back(f);
        }
        assert_eq!(lru.lists[INACTIVE].leaves.len(), 4);
        let all: usize = (0..4).map(|i| room(&lru, i)).sum();
        assert!(all >= 4 * LEAF * entry);
        assert_eq!(lru.bytes_beside(None), spine(&lru) + all);
        let before = lru.clone();
        assert_eq!(
            lru.bytes_beside(Some(&before)),
            spine(&lru),
            "a clone shares every leaf"
        );
        // Evict the oldest leaf's worth and a page more, as reclaim does.
        for _ in 0..=LEAF {
            assert_eq!(lru.oldest_inactive(), Some(held[0].index));
            lru.evict(&held.pop_front().unwrap());
        }
        assert_eq!(lru.oldest_inactive(), Some(held[0].index));
        assert_eq!(lru.lists[INACTIVE].leaves.len(), 3, "the emptied leaf goes");
        assert_eq!(
            lru.bytes_beside(Some(&before)),
            spine(&lru) + room(&lru, 0),
            "one leaf copied since the clone and held: the first, copied too, is gone"
        );
        assert_eq!(before.oldest_inactive(), Some(0), "the clone kept its own");
        assert_eq!(before.inactive_pages, 4 * LEAF as u64);
        assert_eq!(before.lists[INACTIVE].leaves.len(), 4);
    }
}
