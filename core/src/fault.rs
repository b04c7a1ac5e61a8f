//! The mmap fault path of mm/filemap.c, Linux 6.18: `filemap_fault`,
//! `do_sync_mmap_readahead` and `do_async_mmap_readahead`.
//!
//! Read in the 6.12 source. The 6.18.35 source differs from it here, as
//! the measurements of 6.18.44 do:
//! - mmap read-around sets `ra->order = 0`: it reads order-0 folios, and
//!   only the async windows that follow raise the order (measured: a
//!   forward walk of a 2 GiB file caches 2048 order-0 pages first);
//! - a VM_EXEC branch reads `exec_folio_order()` folios with no async part;
//! - `do_async_mmap_readahead` leaves `mmap_miss` alone when the folio is
//!   locked (another fault is reading it).
//!
//! `maybe_unlock_mmap_for_io` drops the mmap lock on a first attempt, so
//! every fault that waits for I/O returns VM_FAULT_RETRY and is finished by
//! a second attempt with FAULT_FLAG_TRIED (see [`crate::memory`]).

use crate::event::{Event, EventSink, KFunc, MissCause, NoRaReason};
use crate::folio::{Folio, FolioFlags};
use crate::kernel::Patch;
use crate::machine::{Gfp, Machine};
use crate::readahead::Ractl;
use crate::tracepoint::Tracepoint;

/// MMAP_LOTSAMISS: past this many misses, mmap read-around stops.
pub const MMAP_LOTSAMISS: u16 = 100;

/// The `vm_fault` flags that matter here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultFlags {
    /// FAULT_FLAG_TRIED: this is a retry after VM_FAULT_RETRY|MAJOR.
    pub tried: bool,
    /// FAULT_FLAG_WRITE: a store.
    pub write: bool,
}

impl FaultFlags {
    /// `fault_flag_allow_retry_first`: the mmap lock may still be dropped.
    pub fn allow_retry_first(&self) -> bool {
        !self.tried
    }
}

/// What `filemap_fault` returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilemapFaultRet {
    pub major: bool,
    pub retry: bool,
    /// The locked folio for `finish_fault`, when not retrying; none with
    /// neither retry nor folio is VM_FAULT_SIGBUS.
    pub folio: Option<Folio>,
}

impl Machine {
    /// `maybe_unlock_mmap_for_io`: whether the lock is (or already was) dropped.
    fn maybe_unlock_mmap_for_io(&self, flags: FaultFlags, fpin: bool) -> bool {
        fpin || flags.allow_retry_first()
    }

    /// Moves `mmap_miss` and reports the change.
    pub(crate) fn set_mmap_miss<S: EventSink>(
        &mut self,
        new: u16,
        func: KFunc,
        cause: MissCause,
        sink: &mut S,
    ) {
        let old = self.ra.mmap_miss;
        if old != new {
            self.ra.mmap_miss = new;
            sink.emit(Event::MmapMiss {
                func,
                old,
                new,
                cause,
            });
        }
    }

    /// Whether hits may lower `mmap_miss` for this mapping. With the 7.x
    /// symmetry patch VM_SEQ_READ mappings stay out of it, and with the
    /// exec series VM_EXEC mappings too.
    pub(crate) fn mmap_miss_applies(&self) -> bool {
        let vm = self.mm.vm_flags;
        let seq_out = self.kernel.has(Patch::MmapMissSeqSymmetric) && vm.seq_read;
        let exec_out = self.kernel.has(Patch::ExecBypassMmapMiss) && vm.exec;
        !(seq_out || exec_out)
    }

    /// `do_sync_mmap_readahead`: the page at `pgoff` is not cached.
    /// Returns whether the mmap lock was dropped (`fpin`).
    ///
    /// 6.18 reads PMD folios for VM_HUGEPAGE first of all, whatever
    /// `mmap_miss` says. With [`Patch::ThpRaMmapMiss`] (v7.x) that read
    /// comes after the `mmap_miss` test, which VM_SEQ_READ mappings skip.
    pub(crate) fn do_sync_mmap_readahead<S: EventSink>(
        &mut self,
        pgoff: u64,
        flags: FaultFlags,
        sink: &mut S,
    ) -> bool {
        let vm = self.mm.vm_flags;
        let mut fpin = false;
        let thp_order = self.thp_readahead_order();
        let force_thp = thp_order.is_some();
        let gated = self.kernel.has(Patch::ThpRaMmapMiss);
        if let (Some(order), false) = (thp_order, gated) {
            return self.thp_readahead(pgoff, order, flags, sink);
        }
        if !force_thp {
            if vm.rand_read && !vm.exec {
                sink.emit(Event::NoReadahead {
                    func: KFunc::DoSyncMmapReadahead,
                    reason: NoRaReason::RandRead,
                    mmap_miss: self.ra.mmap_miss,
                });
                return fpin;
            }
            if self.ra.ra_pages == 0 {
                sink.emit(Event::NoReadahead {
                    func: KFunc::DoSyncMmapReadahead,
                    reason: NoRaReason::NoRaPages,
                    mmap_miss: self.ra.mmap_miss,
                });
                return fpin;
            }
            if vm.seq_read {
                fpin = self.maybe_unlock_mmap_for_io(flags, fpin);
                if self.kernel.has(Patch::DescRaSeqRead) && self.descending(pgoff, 1) {
                    self.window_ending_at(pgoff, sink);
                } else {
                    let req = self.ra.ra_pages;
                    self.page_cache_sync_ra(&mut Ractl::new(pgoff), req, sink);
                }
                return fpin;
            }
        }
        // 6.18 counts every mapping here; 7.x leaves VM_SEQ_READ out, and
        // the exec series VM_EXEC too.
        let exempt =
            (gated && vm.seq_read) || (vm.exec && self.kernel.has(Patch::ExecBypassMmapMiss));
        if !exempt {
            let mut mmap_miss = self.ra.mmap_miss;
            if mmap_miss < MMAP_LOTSAMISS * 10 {
                mmap_miss += 1;
                self.set_mmap_miss(
                    mmap_miss,
                    KFunc::DoSyncMmapReadahead,
                    MissCause::CacheMiss,
                    sink,
                );
            }
            if mmap_miss > MMAP_LOTSAMISS {
                sink.emit(Event::NoReadahead {
                    func: KFunc::DoSyncMmapReadahead,
                    reason: NoRaReason::LotsaMiss,
                    mmap_miss,
                });
                return fpin;
            }
        }
        if let Some(order) = thp_order {
            return self.thp_readahead(pgoff, order, flags, sink);
        }
        if vm.exec {
            // Executable text: folios of the arch's preferred order around
            // the fault, inside the VMA, with no async tail.
            let order = self.geo.exec_folio_order as u32;
            let nr = 1u64 << order;
            let start = pgoff & !(nr - 1);
            let ra_end = (start + self.ra.ra_pages)
                .next_multiple_of(nr)
                .min(self.mm.vm_pgoff + self.mm.vm_pages);
            self.ra.order = order as u16;
            self.ra.start = start;
            self.ra.size = ra_end - start;
            self.ra.async_size = 0;
        } else {
            // mmap read-around, centred on the fault.
            self.ra.start = pgoff.saturating_sub(self.ra.ra_pages / 2);
            self.ra.size = self.ra.ra_pages;
            self.ra.async_size = self.ra.ra_pages / 4;
            self.ra.order = 0;
        }
        sink.emit(Event::Window {
            func: KFunc::DoSyncMmapReadahead,
            window: self.ra.window(),
        });
        fpin = self.maybe_unlock_mmap_for_io(flags, fpin);
        let mut ractl = Ractl::new(self.ra.start);
        self.page_cache_ra_order(&mut ractl, sink);
        fpin
    }

    /// The order of the forced VM_HUGEPAGE read, if there is one.
    ///
    /// 6.18 (and 7.x before the exec series) reads PMD-sized folios, and
    /// only where the PMD order fits the page cache: not with 64 KiB pages
    /// on arm64, where it is 13 against a maximum of 11. The exec series
    /// caps the order at 2 MiB instead: v6 keeps the PMD order where it
    /// fits and falls back to the cap; v7 always uses the cap.
    fn thp_readahead_order(&self) -> Option<u8> {
        let vm = self.mm.vm_flags;
        if !(self.thp && vm.hugepage) {
            return None;
        }
        let pmd_fits = self.geo.pmd_order <= self.geo.max_pagecache_order;
        let cap = || self.cache.max_order.min(self.geo.order_2m);
        if self.kernel.has(Patch::ExecThpOrderV7) {
            self.cache.large_folio_support().then(cap)
        } else if self.kernel.has(Patch::ExecThpOrderV6) {
            if pmd_fits {
                Some(self.geo.pmd_order)
            } else {
                self.cache.large_folio_support().then(cap)
            }
        } else {
            pmd_fits.then_some(self.geo.pmd_order)
        }
    }

    /// The VM_HUGEPAGE read: the folio of `order` holding the fault and,
    /// unless VM_RAND_READ, the next one, with PG_readahead on the second.
    /// Like the kernel, it leaves `ra->start` as it was.
    ///
    /// With [`Patch::DescRaHugepage`], a fault is descending when the PMD
    /// above is cached and the one below is not: then the PMD below is read
    /// with the faulting one instead, with no marker. (Seed 000, v2: "take
    /// a fault as descending only when the folio below it is not cached
    /// either, so a hole between two cached ranges is still read as one
    /// large folio".)
    fn thp_readahead<S: EventSink>(
        &mut self,
        pgoff: u64,
        order: u8,
        flags: FaultFlags,
        sink: &mut S,
    ) -> bool {
        let vm = self.mm.vm_flags;
        let fpin = self.maybe_unlock_mmap_for_io(flags, false);
        let nr = 1u64 << order;
        let mut index = pgoff & !(nr - 1);
        if self.kernel.has(Patch::DescRaHugepage) && self.descending(index, nr) {
            index -= nr;
            self.ra.size = 2 * nr;
            self.ra.async_size = 0;
        } else {
            self.ra.size = nr;
            if !vm.rand_read {
                self.ra.size *= 2;
            }
            self.ra.async_size = nr;
        }
        self.ra.order = order as u16;
        sink.emit(Event::Window {
            func: KFunc::DoSyncMmapReadahead,
            window: crate::event::RaWindow {
                start: index,
                ..self.ra.window()
            },
        });
        let mut ractl = Ractl::new(index);
        self.page_cache_ra_order(&mut ractl, sink);
        fpin
    }

    /// A descending fault at the `nr`-page unit starting at `index`: the
    /// unit above is cached, the unit below is not (and exists).
    fn descending(&self, index: u64, nr: u64) -> bool {
        index >= nr
            && self.cache.filemap_get_folio(index + nr).is_some()
            && self.cache.filemap_get_folio(index - nr).is_none()
    }

    /// [`Patch::DescRaSeqRead`]: the `ra_pages` window that ends at the fault.
    fn window_ending_at<S: EventSink>(&mut self, pgoff: u64, sink: &mut S) {
        let n = self.ra.ra_pages.min(pgoff + 1);
        self.ra.start = pgoff + 1 - n;
        self.ra.size = n;
        self.ra.async_size = 0;
        self.ra.order = 0;
        sink.emit(Event::Window {
            func: KFunc::DoSyncMmapReadahead,
            window: self.ra.window(),
        });
        let mut ractl = Ractl::new(self.ra.start);
        self.page_cache_ra_order(&mut ractl, sink);
    }

    /// `do_async_mmap_readahead`: the page at `pgoff` is cached in `folio`.
    pub(crate) fn do_async_mmap_readahead<S: EventSink>(
        &mut self,
        pgoff: u64,
        folio: Folio,
        flags: FaultFlags,
        sink: &mut S,
    ) -> bool {
        let mut fpin = false;
        if self.mm.vm_flags.rand_read || self.ra.ra_pages == 0 {
            return fpin;
        }
        if !folio.test(FolioFlags::LOCKED) && self.mmap_miss_applies() {
            let m = self.ra.mmap_miss;
            if m > 0 {
                self.set_mmap_miss(
                    m - 1,
                    KFunc::DoAsyncMmapReadahead,
                    MissCause::CacheHit,
                    sink,
                );
            }
        }
        if folio.test(FolioFlags::READAHEAD) {
            fpin = self.maybe_unlock_mmap_for_io(flags, fpin);
            let mut ractl = Ractl::new(pgoff);
            let req = self.ra.ra_pages;
            self.page_cache_async_ra(&mut ractl, folio, req, sink);
        }
        fpin
    }

    /// `filemap_fault`: finds or reads the folio for `pgoff`.
    pub(crate) fn filemap_fault<S: EventSink>(
        &mut self,
        pgoff: u64,
        flags: FaultFlags,
        sink: &mut S,
    ) -> FilemapFaultRet {
        let mut ret = FilemapFaultRet {
            major: false,
            retry: false,
            folio: None,
        };
        // Past i_size: VM_FAULT_SIGBUS, before the tracepoint.
        if pgoff >= self.cache.max_idx() {
            return ret;
        }
        sink.emit(Event::Tracepoint(Tracepoint::FilemapFault { index: pgoff }));
        let mut fpin = false;
        let folio = match self.cache.filemap_get_folio(pgoff) {
            Some(f) => {
                if !flags.tried {
                    fpin = self.do_async_mmap_readahead(pgoff, f, flags, sink);
                }
                f
            }
            None => {
                // PGMAJFAULT: nothing cached at all.
                ret.major = true;
                fpin = self.do_sync_mmap_readahead(pgoff, flags, sink);
                match self.filemap_get_folio_creat(pgoff, sink) {
                    Some(f) => f,
                    None => {
                        ret.retry = true;
                        return ret;
                    }
                }
            }
        };
        // lock_folio_maybe_drop_mmap: a folio under I/O is waited for,
        // dropping the mmap lock first when that is still allowed.
        let mut folio = folio;
        if folio.test(FolioFlags::LOCKED) {
            fpin = self.maybe_unlock_mmap_for_io(flags, fpin);
            self.complete_io(sink);
            folio = self.cache.peek_folio(pgoff).unwrap_or(folio);
        }
        if !folio.test(FolioFlags::UPTODATE) {
            // page_not_uptodate: read it now, synchronously.
            fpin = self.maybe_unlock_mmap_for_io(flags, fpin);
            self.submit_io(folio.index, folio.nr_pages(), KFunc::FilemapReadFolio, sink);
            self.complete_io(sink);
            folio = self.cache.peek_folio(pgoff).unwrap_or(folio);
        }
        if fpin {
            ret.retry = true;
            return ret;
        }
        ret.folio = Some(folio);
        ret
    }

    /// `__filemap_get_folio(FGP_CREAT | FGP_FOR_MMAP)`: the cached folio,
    /// or a new order-min folio, returned unlocked and not uptodate.
    fn filemap_get_folio_creat<S: EventSink>(&mut self, pgoff: u64, sink: &mut S) -> Option<Folio> {
        if let Some(f) = self.cache.filemap_get_folio(pgoff) {
            return Some(f);
        }
        let min_order = self.cache.min_order;
        let index = pgoff & !((1u64 << min_order) - 1);
        let mut f = self
            .add_folio(
                index,
                min_order,
                FolioFlags::empty(),
                Gfp::Normal,
                KFunc::FilemapFault,
                sink,
            )
            .ok()?;
        // FGP_FOR_MMAP: returned unlocked, still not uptodate.
        f.flags.remove(FolioFlags::LOCKED);
        self.cache.update(&f);
        Some(f)
    }
}
