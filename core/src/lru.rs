//! The file LRU of one memory cgroup (mm/vmscan.c, mm/swap.c and
//! mm/workingset.c, classic two-list LRU as on these machines, which run
//! without MGLRU): inactive and active lists, `folio_mark_accessed`, and
//! the non-resident age that shadow entries record for refault detection.
//!
//! Lists are ordered by a stamp that grows with every insertion, so the
//! oldest folio on a list is the live entry of that list with the lowest
//! stamp. Both lists are kept in one log indexed by stamp: an insertion
//! appends, a removal clears its entry, and each list's oldest is found
//! by a cursor that only moves forward. The log is in chunks shared
//! between clones until written: a timeline's checkpoint clones the
//! machine, and reclaim works at the lists' old ends and inserts at their
//! new ends, so a checkpoint copies a few chunks instead of the whole
//! list. With the lists in a `BTreeMap` each, every checkpoint of the
//! 2 GiB memory cgroup preset held a whole copy: 3.2 GB over its build.

use std::collections::VecDeque;
use std::rc::Rc;

use crate::folio::{Folio, FolioFlags, Shadow};

/// Stamps per chunk of the log.
const CHUNK: usize = 1024;

/// A chunk of the log: per stamp, 0 when no folio holds it (any more),
/// else the folio's index shifted left by two, with bit 1 set for the
/// active list and bit 0 always set.
type Chunk = [u64; CHUNK];

const LIVE: u64 = 1;
const ACTIVE_BIT: u64 = 2;

/// Which list: the index into [`Lru::oldest`].
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
    /// The log from stamp `first_stamp` on; chunks before it held no
    /// live entry and were dropped.
    chunks: VecDeque<Rc<Chunk>>,
    first_stamp: u64,
    /// Per list, a stamp at or below its oldest live entry.
    oldest: [u64; 2],
    /// Chunks this LRU made or copied since [`Lru::take_fresh_bytes`].
    fresh_chunks: usize,
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
            chunks: VecDeque::new(),
            first_stamp: 1,
            oldest: [1, 1],
            fresh_chunks: 0,
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

    /// The log's word for `stamp`, if the log still holds it.
    fn word(&self, stamp: u64) -> Option<u64> {
        let at = stamp.checked_sub(self.first_stamp)? as usize;
        Some(self.chunks.get(at / CHUNK)?[at % CHUNK])
    }

    /// The log's word for `stamp`, writable: a chunk shared with a clone
    /// is copied first. The log holds `stamp`.
    fn word_mut(&mut self, stamp: u64) -> &mut u64 {
        let at = (stamp - self.first_stamp) as usize;
        let chunk = &mut self.chunks[at / CHUNK];
        if Rc::strong_count(chunk) > 1 {
            self.fresh_chunks += 1;
        }
        &mut Rc::make_mut(chunk)[at % CHUNK]
    }

    /// Adds a new folio to the head of its list; returns its stamp.
    pub fn insert(&mut self, folio: &Folio) -> u64 {
        let s = self.stamp();
        if (s - self.first_stamp) as usize >= self.chunks.len() * CHUNK {
            self.chunks.push_back(Rc::new([0; CHUNK]));
            self.fresh_chunks += 1;
        }
        let list = list_of(folio);
        *self.word_mut(s) = (folio.index << 2) | if list == ACTIVE { ACTIVE_BIT } else { 0 } | LIVE;
        *self.pages_mut(list) += folio.nr_pages();
        s
    }

    fn pages(&self, list: usize) -> u64 {
        if list == ACTIVE {
            self.active_pages
        } else {
            self.inactive_pages
        }
    }

    fn pages_mut(&mut self, list: usize) -> &mut u64 {
        if list == ACTIVE {
            &mut self.active_pages
        } else {
            &mut self.inactive_pages
        }
    }

    /// Takes a folio off its list.
    pub fn remove(&mut self, folio: &Folio) {
        let list = list_of(folio);
        let on_list = |w: u64| w & LIVE != 0 && (w & ACTIVE_BIT != 0) == (list == ACTIVE);
        if self.word(folio.lru_stamp).is_some_and(on_list) {
            *self.word_mut(folio.lru_stamp) = 0;
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
    pub fn oldest_inactive(&mut self) -> Option<u64> {
        self.oldest_of(INACTIVE)
    }

    /// The oldest active folio, to deactivate when the inactive list runs low.
    pub fn oldest_active(&mut self) -> Option<u64> {
        self.oldest_of(ACTIVE)
    }

    /// The index of `list`'s live entry with the lowest stamp. Its cursor
    /// moves up to it: stamps only grow, so none below it can be that
    /// list's again. Chunks below both lists' cursors are dropped (an
    /// empty list's is past the clock).
    fn oldest_of(&mut self, list: usize) -> Option<u64> {
        let want = if list == ACTIVE { ACTIVE_BIT } else { 0 };
        let mut s = self.oldest[list].max(self.first_stamp);
        // Past the clock, the next insertion's stamp, no entry is live.
        let found = loop {
            if s > self.clock {
                break None;
            }
            // The log holds every stamp from first_stamp to the clock.
            let Some(w) = self.word(s) else {
                break None;
            };
            if w & LIVE != 0 && w & ACTIVE_BIT == want {
                break Some(w >> 2);
            }
            s += 1;
        };
        self.oldest[list] = s;
        // An empty list has no live entry up to the clock.
        for l in [INACTIVE, ACTIVE] {
            if self.pages(l) == 0 {
                self.oldest[l] = self.clock + 1;
            }
        }
        let below = self.oldest[INACTIVE].min(self.oldest[ACTIVE]);
        while below - self.first_stamp >= CHUNK as u64 {
            self.chunks.pop_front();
            self.first_stamp += CHUNK as u64;
        }
        found
    }

    /// Bytes of log chunks made or copied since [`Lru::take_fresh_bytes`]:
    /// what a clone taken now holds that one taken then did not.
    pub(crate) fn fresh_bytes(&self) -> usize {
        self.fresh_chunks * std::mem::size_of::<Chunk>()
    }

    /// [`Lru::fresh_bytes`], and starts counting again.
    pub(crate) fn take_fresh_bytes(&mut self) -> usize {
        let b = self.fresh_bytes();
        self.fresh_chunks = 0;
        b
    }

    /// Bytes of the log, each chunk shared by n holders counted as 1/n of
    /// its size, so that the holders' figures add up to the memory taken.
    pub(crate) fn shared_bytes(&self) -> usize {
        let chunk = std::mem::size_of::<Chunk>();
        self.chunks
            .iter()
            .map(|c| chunk / Rc::strong_count(c))
            .sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<Rc<Chunk>>()
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
    /// before its log: the log must do exactly what they do.
    #[cfg(not(target_arch = "wasm32"))]
    #[derive(Clone, Debug, Default)]
    struct Maps {
        lists: [BTreeMap<u64, u64>; 2],
        pages: [u64; 2],
        clock: u64,
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
            2 if !held.is_empty() => {
                let f = held[i];
                let a = lru.mark_accessed(&f);
                // What mark_accessed does, on the maps.
                let mut b = f;
                if !b.test(FolioFlags::REFERENCED) {
                    b.flags.insert(FolioFlags::REFERENCED);
                } else if !b.test(FolioFlags::ACTIVE) {
                    maps.remove(&b);
                    b.flags.remove(FolioFlags::REFERENCED);
                    b.flags.insert(FolioFlags::ACTIVE);
                    b.lru_stamp = maps.insert(&b);
                    maps.nonresident_age += b.nr_pages();
                }
                assert_eq!(a, b);
                stale.push(f);
                held[i] = a;
            }
            3 if !held.is_empty() => {
                let f = held[i];
                let a = if pick.is_multiple_of(2) {
                    lru.deactivate(&f)
                } else {
                    lru.activate(&f)
                };
                maps.remove(&f);
                let mut b = f;
                b.flags.remove(FolioFlags::REFERENCED);
                if pick.is_multiple_of(2) {
                    b.flags.remove(FolioFlags::ACTIVE);
                } else {
                    b.flags.insert(FolioFlags::ACTIVE);
                    maps.nonresident_age += b.nr_pages();
                }
                b.lru_stamp = maps.insert(&b);
                assert_eq!(a, b);
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
        /// The log does what the two maps do, over any operations, and a
        /// clone taken part way answers as the maps cloned then, however
        /// the original changed the chunks they shared after.
        #[test]
        fn the_log_orders_as_two_maps_would(
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

    /// Reclaim at the old ends drops whole chunks, and a clone holds only
    /// the chunks written since it was taken anew.
    #[test]
    fn old_chunks_go_and_a_clone_copies_what_is_written() {
        let mut lru = Lru::new(1 << 20);
        let mut held = std::collections::VecDeque::new();
        for i in 0..(4 * CHUNK as u64) {
            let mut f = Folio::new(i, 0, FolioFlags::empty());
            f.lru_stamp = lru.insert(&f);
            held.push_back(f);
        }
        assert_eq!(lru.chunks.len(), 4);
        assert_eq!(lru.take_fresh_bytes(), 4 * std::mem::size_of::<Chunk>());
        let before = lru.clone();
        // Evict the oldest chunk's worth and a page more, as reclaim does.
        for _ in 0..=CHUNK {
            assert_eq!(lru.oldest_inactive(), Some(held[0].index));
            lru.evict(&held.pop_front().unwrap());
        }
        assert_eq!(lru.oldest_inactive(), Some(held[0].index));
        assert_eq!(lru.chunks.len(), 3, "the chunk with no live entry goes");
        assert_eq!(
            lru.fresh_bytes(),
            2 * std::mem::size_of::<Chunk>(),
            "two chunks copied since the clone: the first, dropped since, and the second"
        );
        let mut before = before;
        assert_eq!(before.oldest_inactive(), Some(0), "the clone kept its own");
        assert_eq!(before.inactive_pages, 4 * CHUNK as u64);
    }
}
