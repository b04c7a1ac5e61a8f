//! Fault-around, Linux 6.18: `do_fault_around` (mm/memory.c) and
//! `filemap_map_pages` with `next_uptodate_folio`, `filemap_map_pmd`,
//! `filemap_map_folio_range` and `filemap_map_order0_folio`
//! (mm/filemap.c).
//!
//! What 6.18 does here:
//! - the window is `fault_around_pages` (64 KiB by default), aligned, and
//!   clamped to the VMA and the page table;
//! - folios that are locked, not uptodate or marked PG_readahead are
//!   skipped, so a reader reaching a readahead marker always takes the
//!   `filemap_fault` path that starts async readahead;
//! - since 6.18-rc1 ("map entire large folio faultaround"), a large folio
//!   that lies inside the VMA and one page table is mapped whole;
//! - every page examined in a folio that is not PG_workingset counts as an
//!   mmap hit, including pages whose PTE was already there; the total is
//!   taken off `mmap_miss`. A PMD mapping counts nothing.
//!
//! One difference from the 6.18.35 source, where the measured kernel wins:
//! that source PMD-maps (and maps whole) only folios that end before the
//! page holding EOF (`file_end >= folio_next_index`). The measured 6.18.44
//! PMD-maps the last folio of a 2 GiB file too (FilePmdMapped covers all
//! 1024 PMDs after a backward MADV_HUGEPAGE walk, with one fault each), so
//! the model allows a folio that ends exactly at EOF.

use crate::event::{Event, EventSink, KFunc, MissCause};
use crate::folio::{Folio, FolioFlags};
use crate::kernel::Patch;
use crate::machine::Machine;
use crate::mapping::Pmd;
use crate::tracepoint::Tracepoint;
use crate::xarray::{
    pointer_test, raw_bits, Entry, XaState, XasNode, XA_CHUNK_SHIFT, XA_CHUNK_SIZE,
};

/// What mapping one folio (or a window of them) counted towards the mmap
/// hit check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hits {
    /// 6.18: examined pages of folios that are not PG_workingset.
    pub pages: u32,
    /// The faulting address was mapped here.
    pub mapped_fault: bool,
    /// ... by a folio that is not PG_workingset: the 7.x hit.
    pub fault_hit: bool,
    /// The fault was mapped by a PMD (a hit only with the desc-ra series).
    pub pmd: bool,
}

impl Hits {
    fn add(&mut self, other: Hits) {
        self.pages = self.pages.wrapping_add(other.pages);
        self.mapped_fault |= other.mapped_fault;
        self.fault_hit |= other.fault_hit;
        self.pmd |= other.pmd;
    }
}

/// What `filemap_map_pages` achieved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapPagesRet {
    /// VM_FAULT_NOPAGE: the faulting address is mapped now.
    pub nopage: bool,
}

impl Machine {
    /// `should_fault_around`.
    pub(crate) fn should_fault_around(&self) -> bool {
        self.geo.fault_around_pages > 1
    }

    /// `do_fault_around` for a fault at `pgoff`.
    pub(crate) fn do_fault_around<S: EventSink>(
        &mut self,
        pgoff: u64,
        tried: bool,
        sink: &mut S,
    ) -> MapPagesRet {
        let nr = self.geo.fault_around_pages;
        let pte_off = self.mm.pte_index(pgoff);
        // The page offset of the fault within the VMA.
        let vma_off = pgoff - self.mm.vm_pgoff;
        let from_pte = (pte_off & !(nr - 1)).max(pte_off - pte_off.min(vma_off));
        let to_pte = (from_pte + nr)
            .min(self.geo.ptrs_per_pte)
            .min(pte_off + self.mm.vm_pages - vma_off)
            - 1;
        let start = pgoff + from_pte - pte_off;
        let end = pgoff + to_pte - pte_off;
        self.filemap_map_pages(pgoff, start, end, tried, sink)
    }

    /// `next_uptodate_folio`: the next folio in the window that can be
    /// mapped without waiting.
    fn next_uptodate_folio(&self, xas: &mut XaState, end_pgoff: u64) -> Option<Folio> {
        let max_idx = self.cache.max_idx();
        let mut e = xas.next_entry(&self.cache.xa, end_pgoff);
        loop {
            let Entry::Pointer(p) = e else {
                if e.is_empty() {
                    return None;
                }
                // A shadow or a retry: look further.
                e = xas.next_entry(&self.cache.xa, end_pgoff);
                continue;
            };
            let folio = Folio::decode_at(xas.index, p);
            let usable = !folio.test(FolioFlags::LOCKED)
                && folio.test(FolioFlags::UPTODATE)
                && !folio.test(FolioFlags::READAHEAD)
                && xas.index < max_idx;
            if usable {
                return Some(folio);
            }
            e = xas.next_entry(&self.cache.xa, end_pgoff);
        }
    }

    /// Whether a folio may be mapped past i_size; see the module notes.
    fn within_eof(&self, folio: &Folio) -> bool {
        folio.next_index() <= self.cache.max_idx()
    }

    /// `filemap_map_pages` over `[start_pgoff, end_pgoff]` for a fault at `fault_pgoff`.
    pub(crate) fn filemap_map_pages<S: EventSink>(
        &mut self,
        fault_pgoff: u64,
        start_pgoff: u64,
        end_pgoff: u64,
        tried: bool,
        sink: &mut S,
    ) -> MapPagesRet {
        let mut ret = MapPagesRet { nopage: false };
        let file_end = self.cache.max_idx() - 1;
        let end_pgoff = end_pgoff.min(file_end);
        let mut xas = XaState::new(start_pgoff);
        let mut hits = Hits::default();
        let mut folio = self.next_uptodate_folio(&mut xas, end_pgoff);
        // The tracepoint fires once the window was walked with PTEs: not
        // when nothing could be mapped, nor after a PMD mapping.
        let mut traced = folio.is_some();
        if let Some(first) = folio {
            if self.within_eof(&first) && self.filemap_map_pmd(fault_pgoff, &first, sink) {
                ret.nopage = true;
                folio = None;
                traced = false;
                // 6.18 and v7.4-rc2 never count a PMD mapping as a hit; the
                // descending-readahead series counts the faulting address's.
                if self.kernel.has(Patch::DescRaHugepage) && !first.test(FolioFlags::WORKINGSET) {
                    hits.fault_hit = true;
                    hits.pmd = true;
                }
            }
        }
        while let Some(f) = folio {
            if f.order == 0 && self.fast_paths {
                if let Some(h) = self.map_pages_leaf(&xas, end_pgoff, fault_pgoff, sink) {
                    ret.nopage |= h.mapped_fault;
                    hits.add(h);
                    break;
                }
            }
            let index = xas.index;
            let nr_pages = f.next_index().min(end_pgoff + 1) - index;
            let h = if f.order == 0 {
                self.filemap_map_order0_folio(fault_pgoff, &f, sink)
            } else {
                self.filemap_map_folio_range(fault_pgoff, &f, index, nr_pages, sink)
            };
            ret.nopage |= h.mapped_fault;
            hits.add(h);
            folio = self.next_uptodate_folio(&mut xas, end_pgoff);
        }
        if traced {
            sink.emit(Event::Tracepoint(Tracepoint::MapPages {
                index: start_pgoff,
                last_index: end_pgoff,
            }));
        }
        self.account_fault_around_hits(hits, tried, sink);
        ret
    }

    /// The rest of `filemap_map_pages` when the window is order-0 folios in
    /// one leaf: the same folios mapped and counted, from the leaf's slots
    /// directly instead of one `xas_next_entry` each. The cursor stands on
    /// the first folio, which it maps too. It counts what the slot-by-slot
    /// walk counts: no node visits, and the one `xas_find` that ends it.
    /// None when the window does not qualify.
    ///
    /// The window is at most one leaf, 64 pages, so what
    /// `next_uptodate_folio` and `filemap_map_order0_folio` test of a page
    /// is one bit of a word: whether its folio can be mapped (uptodate,
    /// not locked, not PG_readahead, not poisoned), whether it also counts
    /// as an mmap hit (not PG_workingset), and whether the page has a
    /// translation already. The pages mapped are the mappable unmapped
    /// ones, in one write to the page table bits, and their events go out
    /// in page order as the folio-by-folio walk emits them.
    fn map_pages_leaf<S: EventSink>(
        &mut self,
        xas: &XaState,
        end_pgoff: u64,
        fault_pgoff: u64,
        sink: &mut S,
    ) -> Option<Hits> {
        let XasNode::Node(id) = xas.node else {
            return None;
        };
        let first = xas.index;
        if first >> XA_CHUNK_SHIFT != end_pgoff >> XA_CHUNK_SHIFT
            || xas.offset as u64 != first & (XA_CHUNK_SIZE as u64 - 1)
        {
            return None;
        }
        let lo = (first & 63) as usize;
        let hi = (end_pgoff & 63) as usize;
        // `xas_next_entry` calls `xas_find` at an internal entry, such as a
        // sibling of a large folio's shadow: such a window is left to the
        // walk that counts it.
        let window = self.cache.xa.leaf_window(id, lo, hi)?;
        // Bit i stands for slot lo + i, page first + i. A page is mapped
        // if its folio is uptodate, neither locked, marked PG_readahead
        // nor poisoned; it counts as an mmap hit if not PG_workingset
        // either. Each slot is tested raw, in one AND and one compare
        // (which also fails for any entry that is not a folio). From the
        // last slot down, shifting each bit in at the bottom: a scalar
        // loop with no variable shifts.
        let busy = FolioFlags::UPTODATE
            .union(FolioFlags::LOCKED)
            .union(FolioFlags::READAHEAD)
            .union(FolioFlags::HWPOISON);
        let (mask, ready) = pointer_test(
            Folio::payload_bits(busy),
            Folio::payload_bits(FolioFlags::UPTODATE),
        );
        let (mut live, mut seen) = (0u64, 0u64);
        for &slot in window.iter().rev() {
            live = (live << 1) | (slot & mask == ready) as u64;
            seen |= slot;
        }
        // PG_workingset is rare (a refault under a memory limit): only a
        // window where its bit is seen, in any slot, is read again for
        // the hits.
        let mut hit = live;
        let ws_bits = Folio::payload_bits(FolioFlags::WORKINGSET);
        if seen & raw_bits(ws_bits) != 0 {
            let (ws_mask, ws) = pointer_test(ws_bits, ws_bits);
            for (i, &slot) in window.iter().enumerate() {
                if slot & ws_mask == ws {
                    hit &= !(1u64 << i);
                }
            }
        }
        let nr = (hi - lo + 1) as u32;
        let new = self.mm.map_unmapped(first, nr, live);
        let mut rest = new;
        while rest != 0 {
            sink.emit(Event::PtesMapped {
                func: KFunc::FilemapMapPages,
                first: first + rest.trailing_zeros() as u64,
                nr: 1,
            });
            rest &= rest - 1;
        }
        let fault = fault_pgoff.wrapping_sub(first);
        let mapped_fault = fault < nr as u64 && (new >> fault) & 1 != 0;
        self.cache.xa.bump(crate::xarray::Stat::Find);
        Some(Hits {
            pages: hit.count_ones(),
            mapped_fault,
            fault_hit: mapped_fault && (hit >> fault) & 1 != 0,
            pmd: false,
        })
    }

    /// The mmap hit check, once the window is mapped (the helpers of the
    /// descending-readahead series' patch 1 are this function).
    ///
    /// 6.18 takes every examined page of a folio that is not PG_workingset
    /// off `mmap_miss`. [`Patch::MmapHitFaultAddress`] counts only the
    /// faulting address, once; [`Patch::MmapHitNotTried`] counts nothing
    /// on a FAULT_FLAG_TRIED retry; the symmetry patches leave VM_SEQ_READ
    /// and VM_EXEC mappings alone.
    fn account_fault_around_hits<S: EventSink>(&mut self, hits: Hits, tried: bool, sink: &mut S) {
        if !self.mmap_miss_applies() || (tried && self.kernel.has(Patch::MmapHitNotTried)) {
            return;
        }
        let (n, cause) = if self.kernel.has(Patch::MmapHitFaultAddress) || hits.pmd {
            let cause = if hits.pmd {
                MissCause::PmdHit
            } else {
                MissCause::FaultAroundHits { pages: 1 }
            };
            (hits.fault_hit as u16, cause)
        } else {
            let n = (hits.pages & 0xffff) as u16;
            (n, MissCause::FaultAroundHits { pages: n as u32 })
        };
        let new = self.ra.mmap_miss.saturating_sub(n);
        self.set_mmap_miss(new, KFunc::FilemapMapPages, cause, sink);
    }

    /// `filemap_map_pmd`: maps a PMD-sized folio with one PMD if the PMD is
    /// still none; installs a page table otherwise.
    fn filemap_map_pmd<S: EventSink>(
        &mut self,
        fault_pgoff: u64,
        folio: &Folio,
        sink: &mut S,
    ) -> bool {
        match self.mm.pmd_of(fault_pgoff) {
            Pmd::Huge => return true,
            Pmd::None => {
                if folio.order >= self.geo.pmd_order && self.do_set_pmd(fault_pgoff, folio, sink) {
                    return true;
                }
                self.mm.pmd_install(fault_pgoff);
            }
            Pmd::Table => {}
        }
        false
    }

    /// `filemap_map_order0_folio`. Returns (mapped the fault, pages counted).
    fn filemap_map_order0_folio<S: EventSink>(
        &mut self,
        fault_pgoff: u64,
        folio: &Folio,
        sink: &mut S,
    ) -> Hits {
        if folio.test(FolioFlags::HWPOISON) {
            return Hits::default();
        }
        let counts = !folio.test(FolioFlags::WORKINGSET);
        if !self.mm.pte_none(folio.index) {
            return Hits {
                pages: counts as u32,
                ..Hits::default()
            };
        }
        self.mm.set_pte_range(folio.index, 1);
        sink.emit(Event::PtesMapped {
            func: KFunc::FilemapMapPages,
            first: folio.index,
            nr: 1,
        });
        let mapped_fault = folio.index == fault_pgoff;
        Hits {
            pages: counts as u32,
            mapped_fault,
            fault_hit: mapped_fault && counts,
            pmd: false,
        }
    }

    /// `filemap_map_folio_range`: maps pages of a large folio from `index`,
    /// or the whole folio where it fits the VMA and one page table.
    fn filemap_map_folio_range<S: EventSink>(
        &mut self,
        fault_pgoff: u64,
        folio: &Folio,
        index: u64,
        nr_pages: u64,
        sink: &mut S,
    ) -> Hits {
        let whole = self.within_eof(folio) && self.mm.folio_fits(folio.index, folio.nr_pages());
        let (first, nr) = if whole {
            (folio.index, folio.nr_pages())
        } else {
            (index, nr_pages)
        };
        let poisoned = folio.test(FolioFlags::HWPOISON) || folio.test(FolioFlags::HAS_HWPOISONED);
        let counts = !folio.test(FolioFlags::WORKINGSET);
        let mut counted = 0u32;
        let mut mapped_fault = false;
        let mut run_start = first;
        let mut run_len = 0u64;
        for page in first..first + nr {
            // The model poisons a large folio's first page only.
            let skip_poison = poisoned && page == folio.index;
            let mut skip = skip_poison;
            if !skip_poison {
                if counts {
                    counted += 1;
                }
                skip = !self.mm.pte_none(page);
            }
            if skip {
                if run_len > 0 {
                    mapped_fault |= self.map_run(run_start, run_len, fault_pgoff, sink);
                }
                run_start = page + 1;
                run_len = 0;
            } else {
                run_len += 1;
            }
        }
        if run_len > 0 {
            mapped_fault |= self.map_run(run_start, run_len, fault_pgoff, sink);
        }
        Hits {
            pages: counted,
            mapped_fault,
            fault_hit: mapped_fault && counts,
            pmd: false,
        }
    }

    fn map_run<S: EventSink>(
        &mut self,
        first: u64,
        nr: u64,
        fault_pgoff: u64,
        sink: &mut S,
    ) -> bool {
        self.mm.set_pte_range(first, nr);
        sink.emit(Event::PtesMapped {
            func: KFunc::FilemapMapPages,
            first,
            nr: nr as u32,
        });
        fault_pgoff >= first && fault_pgoff < first + nr
    }
}
