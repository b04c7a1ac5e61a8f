//! mm/fadvise.c's `generic_fadvise`, Linux 6.18, and the invalidation
//! POSIX_FADV_DONTNEED ends in (mm/truncate.c `mapping_try_invalidate`,
//! with `find_lock_entries` and `mapping_evict_folio`). `readahead(2)` and
//! MADV_WILLNEED reach the same code as POSIX_FADV_WILLNEED.

use crate::event::{Event, EventSink, KFunc};
use crate::folio::FolioFlags;
use crate::machine::Machine;
use crate::pattern::Fadvice;
use crate::readahead::Ractl;
use crate::tracepoint::Tracepoint;
use crate::xarray::Entry;

/// The byte range of an advice: `len` 0 means "to the end of the file".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FadviseRange {
    offset: u64,
    len: u64,
}

impl FadviseRange {
    pub(crate) fn bytes(offset: u64, len: u64) -> Self {
        FadviseRange { offset, len }
    }

    /// The last byte of the range; "as much as possible" is LLONG_MAX.
    fn endbyte(self) -> u64 {
        match self.offset.checked_add(self.len) {
            Some(end) if self.len > 0 => end - 1,
            _ => i64::MAX as u64,
        }
    }
}

impl Machine {
    /// `generic_fadvise` on the open file description in use.
    pub(crate) fn generic_fadvise<S: EventSink>(
        &mut self,
        range: FadviseRange,
        advice: Fadvice,
        func: KFunc,
        sink: &mut S,
    ) {
        let shift = self.geo.page_shift;
        let endbyte = range.endbyte();
        match advice {
            Fadvice::Normal => {
                self.ra.ra_pages = self.geo.ra_pages;
                self.fmode_random = false;
            }
            Fadvice::Random => self.fmode_random = true,
            Fadvice::Sequential => {
                self.ra.ra_pages = self.geo.ra_pages * 2;
                self.fmode_random = false;
            }
            Fadvice::WillNeed => {
                // From the first partial page to the last partial page.
                let start = range.offset >> shift;
                let end = endbyte >> shift;
                let nr = match end - start + 1 {
                    0 => u64::MAX,
                    n => n,
                };
                self.force_page_cache_ra(&mut Ractl::new(start), nr, sink);
                // The model completes reads before the next access.
                self.complete_io(sink);
            }
            // FMODE_NOREUSE only changes how the LRU ages the folios.
            Fadvice::NoReuse => {}
            Fadvice::DontNeed => {
                // Only whole pages are dropped, except that the last page
                // of the file goes even when the range ends inside it.
                let page_mask = (1u64 << shift) - 1;
                let start = (range.offset + page_mask) >> shift;
                let mut end = endbyte >> shift;
                if endbyte & page_mask != page_mask && endbyte != self.cache.i_size - 1 {
                    if end == 0 {
                        return;
                    }
                    end -= 1;
                }
                if end >= start {
                    self.mapping_try_invalidate(start, end, func, sink);
                }
            }
        }
    }

    /// `mapping_try_invalidate` over `[start, end]`: every folio wholly
    /// inside the range that is unlocked and mapped nowhere leaves the
    /// page cache, with no shadow; shadow entries inside the range go too.
    fn mapping_try_invalidate<S: EventSink>(
        &mut self,
        start: u64,
        end: u64,
        func: KFunc,
        sink: &mut S,
    ) {
        let mut entries = Vec::new();
        self.cache
            .xa
            .for_each_entry_in(start, end, |index, order, e| {
                entries.push((index, order, e))
            });
        for (index, order, e) in entries {
            let nr = 1u64 << order;
            // find_lock_entries leaves out entries reaching past either end;
            // a shadow reaching past the end stops the walk.
            if index < start {
                continue;
            }
            if index + nr - 1 > end {
                if e.is_value() {
                    break;
                }
                continue;
            }
            match e {
                Entry::Value(_) => {
                    self.cache.remove_entry(index, order);
                    sink.emit(Event::ShadowCleared { func, index, order });
                }
                Entry::Pointer(_) => {
                    let Some(folio) = self.cache.peek_folio(index) else {
                        continue;
                    };
                    // A locked folio (under I/O) is skipped by the trylock;
                    // a mapped one holds references mapping_evict_folio
                    // will not drop.
                    if folio.test(FolioFlags::LOCKED) || self.any_vma_maps(index, nr) {
                        continue;
                    }
                    if let Some(lru) = self.cache.lru.as_mut() {
                        lru.remove(&folio);
                    }
                    self.cache.remove_entry(index, order);
                    sink.emit(Event::Removed { func, index, order });
                    sink.emit(Event::Tracepoint(Tracepoint::DeleteFromPageCache {
                        index,
                        order,
                    }));
                }
                _ => {}
            }
        }
    }
}
