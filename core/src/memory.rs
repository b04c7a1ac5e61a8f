//! A read fault on a file mapping, from the architecture's fault handler to
//! the PTE (arch/x86/mm/fault.c and mm/memory.c, Linux 6.18):
//! `handle_mm_fault` → `do_read_fault` → `do_fault_around` or
//! `filemap_fault` + `finish_fault`, with `do_set_pmd` and
//! `mm_account_fault`.
//!
//! The first attempt runs under the per-VMA lock. When it returns
//! VM_FAULT_RETRY (the lock was dropped for I/O), the handler retries under
//! the mmap lock, with FAULT_FLAG_TRIED only if the first attempt was
//! major; a second retry always carries FAULT_FLAG_TRIED. The completed
//! attempt is accounted: major if it had VM_FAULT_MAJOR or FAULT_FLAG_TRIED.

use crate::event::{Event, EventSink, FaultOutcome, KFunc};
use crate::fault::FaultFlags;
use crate::folio::{Folio, FolioFlags};
use crate::machine::Machine;
use crate::mapping::Pmd;
use crate::tracepoint::Tracepoint;

/// How one `handle_mm_fault` call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AttemptRet {
    major: bool,
    retry: bool,
}

impl Machine {
    /// A load of one byte of `page` through the mapping.
    pub(crate) fn touch<S: EventSink>(&mut self, page: u64, sink: &mut S) {
        if self.mm.is_mapped(page) {
            self.pte_young(page);
            return;
        }
        self.page_fault(page, false, sink);
    }

    /// A store to `page` through the mapping. A store to a page mapped by a
    /// PTE copies it (or makes it writable) without the page cache. A store
    /// to a page mapped by a PMD splits the PMD first, which for a file
    /// folio only zaps it (`__split_huge_pmd_locked`), so the store then
    /// faults on the page like any unmapped one.
    pub(crate) fn touch_write<S: EventSink>(&mut self, page: u64, sink: &mut S) {
        match self.mm.pmd_of(page) {
            Pmd::Huge => {
                let head = page - (self.mm.pte_index(page));
                self.mm.unmap_range(head, self.geo.ptrs_per_pte);
            }
            _ if self.mm.is_mapped(page) => {
                self.pte_young(page);
                return;
            }
            _ => {}
        }
        self.page_fault(page, true, sink);
    }

    /// A user fault on `page`, from `exc_page_fault` to `mm_account_fault`.
    fn page_fault<S: EventSink>(&mut self, page: u64, write: bool, sink: &mut S) {
        sink.emit(Event::Tracepoint(Tracepoint::PageFaultUser {
            address: self.mm.vpn_of(page) << self.geo.page_shift,
            write,
        }));
        sink.emit(Event::FaultStart { page, tried: false });
        // The per-VMA lock attempt.
        let flags = |tried| FaultFlags { tried, write };
        let first = self.handle_mm_fault(page, flags(false), sink);
        let mut tried = false;
        let mut ret = first;
        if first.retry {
            // lock_mmap: FAULT_FLAG_TRIED only if that attempt was major.
            tried = first.major;
            loop {
                ret = self.handle_mm_fault(page, flags(tried), sink);
                if !ret.retry {
                    break;
                }
                tried = true;
            }
        }
        let major = ret.major || tried;
        if major {
            self.counters.major_faults += 1;
        } else {
            self.counters.minor_faults += 1;
        }
        sink.emit(Event::FaultAccounted { page, major });
        self.pte_young(page);
    }

    /// One attempt: `handle_mm_fault` → `do_read_fault`.
    fn handle_mm_fault<S: EventSink>(
        &mut self,
        page: u64,
        flags: FaultFlags,
        sink: &mut S,
    ) -> AttemptRet {
        let r = if flags.write {
            self.do_write_fault(page, flags, sink)
        } else {
            self.do_read_fault(page, flags, sink)
        };
        // Reads submitted during the attempt complete before the next one.
        self.complete_io(sink);
        r
    }

    /// `do_read_fault`: fault-around first, `filemap_fault` if that did not
    /// map the address.
    fn do_read_fault<S: EventSink>(
        &mut self,
        page: u64,
        flags: FaultFlags,
        sink: &mut S,
    ) -> AttemptRet {
        if self.should_fault_around() {
            let r = self.do_fault_around(page, flags.tried, sink);
            if r.nopage {
                sink.emit(Event::FaultAttempt {
                    func: KFunc::DoFaultAround,
                    page,
                    outcome: FaultOutcome::NoPage,
                    major: false,
                });
                return AttemptRet {
                    major: false,
                    retry: false,
                };
            }
        }
        let r = self.filemap_fault(page, flags, sink);
        if r.retry {
            sink.emit(Event::FaultAttempt {
                func: KFunc::FilemapFault,
                page,
                outcome: FaultOutcome::Retry,
                major: r.major,
            });
            return AttemptRet {
                major: r.major,
                retry: true,
            };
        }
        let outcome = match r.folio {
            Some(folio) => {
                self.finish_fault(page, &folio, sink);
                FaultOutcome::Locked
            }
            None => FaultOutcome::Sigbus,
        };
        sink.emit(Event::FaultAttempt {
            func: KFunc::FilemapFault,
            page,
            outcome,
            major: r.major,
        });
        AttemptRet {
            major: r.major,
            retry: false,
        }
    }

    /// `do_cow_fault` or `do_shared_fault`: a store needs the page itself,
    /// so there is no fault-around; `__do_fault` reads it and one page is
    /// mapped (a private copy, or the shared page made writable).
    fn do_write_fault<S: EventSink>(
        &mut self,
        page: u64,
        flags: FaultFlags,
        sink: &mut S,
    ) -> AttemptRet {
        let r = self.filemap_fault(page, flags, sink);
        let outcome = if r.retry {
            FaultOutcome::Retry
        } else if r.folio.is_some() {
            self.mm.set_pte_range(page, 1);
            sink.emit(Event::PtesMapped {
                func: KFunc::FinishFault,
                first: page,
                nr: 1,
            });
            FaultOutcome::Locked
        } else {
            FaultOutcome::Sigbus
        };
        sink.emit(Event::FaultAttempt {
            func: KFunc::FilemapFault,
            page,
            outcome,
            major: r.major,
        });
        AttemptRet {
            major: r.major,
            retry: r.retry,
        }
    }

    /// `finish_fault`: maps the folio `filemap_fault` returned, whole when
    /// it fits the VMA and one page table, with a PMD when it is PMD-sized.
    fn finish_fault<S: EventSink>(&mut self, page: u64, folio: &Folio, sink: &mut S) {
        let file_end = self.cache.max_idx();
        let mut needs_fallback = file_end < folio.next_index();
        loop {
            if self.mm.pmd_of(page) == crate::mapping::Pmd::None {
                if !needs_fallback
                    && folio.order >= self.geo.pmd_order
                    && self.do_set_pmd(page, folio, sink)
                {
                    return;
                }
                self.mm.pmd_install(page);
            }
            let mut first = page;
            let mut nr = 1u64;
            if !needs_fallback && folio.nr_pages() > 1 {
                let idx = page - folio.index;
                let vma_off = page - self.mm.vm_pgoff;
                let pte_off = self.mm.pte_index(page);
                let n = folio.nr_pages();
                let fits = !(vma_off < idx
                    || vma_off + (n - idx) > self.mm.vm_pages
                    || pte_off < idx
                    || pte_off + (n - idx) > self.geo.ptrs_per_pte);
                if fits {
                    first = folio.index;
                    nr = n;
                }
            }
            if nr == 1 {
                if !self.mm.pte_none(page) {
                    return;
                }
            } else if (first..first + nr).any(|p| !self.mm.pte_none(p)) {
                needs_fallback = true;
                continue;
            }
            self.mm.set_pte_range(first, nr);
            sink.emit(Event::PtesMapped {
                func: KFunc::FinishFault,
                first,
                nr: nr as u32,
            });
            return;
        }
    }

    /// `do_set_pmd`: one PMD for a PMD-sized folio. False is VM_FAULT_FALLBACK.
    pub(crate) fn do_set_pmd<S: EventSink>(
        &mut self,
        page: u64,
        folio: &Folio,
        sink: &mut S,
    ) -> bool {
        if !self.thp {
            return false;
        }
        // `vma_thp_disabled`: MADV_NOHUGEPAGE refuses any PMD mapping.
        if self.mm.vm_flags.nohugepage {
            return false;
        }
        if !self.mm.pmd_suitable(page) {
            return false;
        }
        if folio.order != self.geo.pmd_order {
            return false;
        }
        if folio.test(FolioFlags::HAS_HWPOISONED) || folio.test(FolioFlags::HWPOISON) {
            return false;
        }
        if self.mm.pmd_of(page) != crate::mapping::Pmd::None {
            return false;
        }
        self.mm.set_pmd(folio.index);
        sink.emit(Event::PmdMapped {
            func: KFunc::DoSetPmd,
            index: folio.index,
        });
        true
    }
}
