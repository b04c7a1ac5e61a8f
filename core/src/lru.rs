//! The file LRU of one memory cgroup (mm/vmscan.c, mm/swap.c and
//! mm/workingset.c, classic two-list LRU as on these machines, which run
//! without MGLRU): inactive and active lists, `folio_mark_accessed`, and
//! the non-resident age that shadow entries record for refault detection.
//!
//! Lists are ordered by a stamp that grows with every insertion, so the
//! oldest folio on a list is its first key.

use std::collections::BTreeMap;

use crate::folio::{Folio, FolioFlags, Shadow};

#[derive(Clone, Debug)]
pub struct Lru {
    pub limit_pages: u64,
    inactive: BTreeMap<u64, u64>,
    active: BTreeMap<u64, u64>,
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
            inactive: BTreeMap::new(),
            active: BTreeMap::new(),
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

    /// Adds a new folio to the head of its list; returns its stamp.
    pub fn insert(&mut self, folio: &Folio) -> u64 {
        let s = self.stamp();
        if folio.test(FolioFlags::ACTIVE) {
            self.active.insert(s, folio.index);
            self.active_pages += folio.nr_pages();
        } else {
            self.inactive.insert(s, folio.index);
            self.inactive_pages += folio.nr_pages();
        }
        s
    }

    /// Takes a folio off its list.
    pub fn remove(&mut self, folio: &Folio) {
        if folio.test(FolioFlags::ACTIVE) {
            if self.active.remove(&folio.lru_stamp).is_some() {
                self.active_pages -= folio.nr_pages();
            }
        } else if self.inactive.remove(&folio.lru_stamp).is_some() {
            self.inactive_pages -= folio.nr_pages();
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
        self.inactive.first_key_value().map(|(_, &i)| i)
    }

    /// The oldest active folio, to deactivate when the inactive list runs low.
    pub fn oldest_active(&self) -> Option<u64> {
        self.active.first_key_value().map(|(_, &i)| i)
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
