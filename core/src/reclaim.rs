//! Reclaim under a memory cgroup limit (mm/memcontrol.c charging, mm/vmscan.c
//! `shrink_folio_list` and `shrink_active_list`, mm/workingset.c shadows),
//! reduced to the file LRU of one cgroup on the classic two-list LRU.
//!
//! Charging a new folio reclaims from the tail of the inactive list until
//! the cgroup fits its limit:
//! - a locked folio (read in flight) is skipped and rotated;
//! - a mapped folio whose PTEs were used since the last look is kept once
//!   (PG_referenced) and activated the second time, as `folio_check_references`
//!   does; an unused mapping is unmapped and reclaimed;
//! - an unmapped page-cache folio is reclaimed;
//! - when the inactive list is smaller than the active one, the oldest
//!   active folio is deactivated and gains PG_workingset.
//!
//! An evicted folio leaves a shadow entry with the non-resident age; a
//! refault within the workingset size comes back active and workingset.

use crate::event::{Event, EventSink};
use crate::folio::FolioFlags;
use crate::machine::Machine;
use crate::tracepoint::Tracepoint;

impl Machine {
    /// `mem_cgroup_charge` of `nr` pages, reclaiming as needed. Returns
    /// whether the charge fits the limit now.
    pub(crate) fn mem_cgroup_charge<S: EventSink>(&mut self, nr: u64, sink: &mut S) -> bool {
        // The LRU lives in the page cache; take it out while both are used.
        let Some(mut lru) = self.cache.lru.take() else {
            return true;
        };
        let fits = self.shrink_to_fit(&mut lru, nr, sink);
        self.cache.lru = Some(lru);
        fits
    }

    fn shrink_to_fit<S: EventSink>(
        &mut self,
        lru: &mut crate::lru::Lru,
        nr: u64,
        sink: &mut S,
    ) -> bool {
        let limit = lru.limit_pages;
        // Reclaim looks at a bounded number of folios per charge, as
        // try_charge's few rounds of SWAP_CLUSTER_MAX do.
        let mut budget = 4 * (32 + nr);
        while self.cache.nrpages + nr > limit && budget > 0 {
            budget -= 1;
            if lru.inactive_is_low() {
                if let Some(idx) = lru.oldest_active() {
                    if let Some(f) = self.cache.peek_folio(idx) {
                        let mut d = lru.deactivate(&f);
                        d.flags.insert(FolioFlags::WORKINGSET);
                        d.flags.remove(FolioFlags::YOUNG);
                        self.cache.update(&d);
                        continue;
                    }
                }
            }
            let Some(idx) = lru.oldest_inactive() else {
                break;
            };
            let Some(folio) = self.cache.peek_folio(idx) else {
                break;
            };
            if folio.test(FolioFlags::LOCKED) {
                let mut f = lru.deactivate(&folio);
                f.flags = folio.flags;
                self.cache.update(&f);
                continue;
            }
            let mapped = self.any_vma_maps(folio.index, folio.nr_pages());
            if mapped && folio.test(FolioFlags::YOUNG) {
                let mut f = if folio.test(FolioFlags::REFERENCED) {
                    lru.activate(&folio)
                } else {
                    let mut f = lru.deactivate(&folio);
                    f.flags = folio.flags;
                    f.flags.insert(FolioFlags::REFERENCED);
                    f
                };
                f.flags.remove(FolioFlags::YOUNG);
                self.cache.update(&f);
                continue;
            }
            // Reclaim it: unmap, then replace it with its shadow.
            self.unmap_everywhere(folio.index, folio.nr_pages());
            let shadow = lru.evict(&folio);
            self.cache.delete_from_page_cache(&folio, shadow);
            self.counters.evictions += 1;
            sink.emit(Event::Evicted {
                index: folio.index,
                order: folio.order,
            });
            sink.emit(Event::Tracepoint(Tracepoint::DeleteFromPageCache {
                index: folio.index,
                order: folio.order,
            }));
        }
        self.cache.nrpages + nr <= limit
    }

    /// A load through a mapping set the PTE accessed bit.
    pub(crate) fn pte_young(&mut self, page: u64) {
        if self.cache.lru.is_none() {
            return;
        }
        if let Some(f) = self.cache.peek_folio(page) {
            if !f.test(FolioFlags::YOUNG) {
                self.cache.set_flag(f.index, FolioFlags::YOUNG);
            }
        }
    }

    /// `folio_mark_accessed`, for `read()`.
    pub(crate) fn folio_mark_accessed(&mut self, index: u64) {
        self.counters.mark_accessed += 1;
        let Some(mut lru) = self.cache.lru.take() else {
            return;
        };
        if let Some(f) = self.cache.peek_folio(index) {
            let f2 = lru.mark_accessed(&f);
            if f2 != f {
                self.cache.update(&f2);
            }
        }
        self.cache.lru = Some(lru);
    }
}
