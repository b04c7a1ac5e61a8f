//! mm/readahead.c, Linux 6.18: `file_ra_state`, `page_cache_sync_ra`,
//! `page_cache_async_ra`, `page_cache_ra_order`, `page_cache_ra_unbounded`,
//! `do_page_cache_ra`, `force_page_cache_ra` and `read_pages`.
//!
//! Read in the 6.12 source. These differences are in the 6.18.35 source,
//! and the folio layouts measured on 6.18.44 confirm them:
//! - `file_ra_state` carries `order`; `page_cache_ra_order` reads it
//!   instead of taking a parameter, and clamps it to `ilog2(size)`.
//! - `page_cache_sync_ra` starts every window at order 0, and
//!   `page_cache_async_ra` raises the order by 2 per window, then trims the
//!   window's end down to that order's alignment (capped by the alignment
//!   of `ra_pages`). A `read(4096)` walk on these machines ends up with
//!   folios of order 0, 2, 3, 4, 5, 6, 7, 8 and then 9, exactly as this
//!   produces.

use crate::event::{Event, EventSink, KFunc, RaWindow};
use crate::folio::{Folio, FolioFlags};
use crate::kernel::Patch;
use crate::machine::{Gfp, Machine};
use crate::page_cache::AddError;
use crate::tracepoint::{RaFields, Tracepoint};

/// `struct file_ra_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileRaState {
    pub start: u64,
    pub size: u64,
    pub async_size: u64,
    pub ra_pages: u64,
    pub order: u16,
    pub mmap_miss: u16,
    /// The last byte position read by `read()`, or -1.
    pub prev_pos: i64,
}

impl FileRaState {
    /// `file_ra_state_init`.
    pub fn new(ra_pages: u64) -> Self {
        FileRaState {
            start: 0,
            size: 0,
            async_size: 0,
            ra_pages,
            order: 0,
            mmap_miss: 0,
            prev_pos: -1,
        }
    }

    /// What the readahead tracepoints record of the state.
    pub fn trace_fields(&self) -> RaFields {
        RaFields {
            order: self.order as u32,
            size: self.size as u32,
            async_size: self.async_size as u32,
            ra_pages: self.ra_pages as u32,
            mmap_miss: self.mmap_miss as u32,
            prev_pos: self.prev_pos,
        }
    }

    pub fn window(&self) -> RaWindow {
        RaWindow {
            start: self.start,
            size: self.size,
            async_size: self.async_size,
            order: self.order.min(255) as u8,
        }
    }
}

/// `struct readahead_control`: where the batch being built starts and how
/// many pages it holds.
#[derive(Clone, Copy, Debug)]
pub struct Ractl {
    pub index: u64,
    pub nr_pages: u64,
}

impl Ractl {
    /// `DEFINE_READAHEAD(ractl, file, ra, mapping, index)`.
    pub fn new(index: u64) -> Self {
        Ractl { index, nr_pages: 0 }
    }
}

/// `get_init_ra_size`: the first window for a request of `size` pages.
pub fn get_init_ra_size(size: u64, max: u64) -> u64 {
    let newsize = size.max(1).next_power_of_two();
    if newsize <= max / 32 {
        newsize * 4
    } else if newsize <= max / 4 {
        newsize * 2
    } else {
        max
    }
}

/// `get_next_ra_size`: the next window after one of `cur` pages.
pub fn get_next_ra_size(cur: u64, max: u64) -> u64 {
    if cur < max / 16 {
        4 * cur
    } else if cur <= max / 2 {
        2 * cur
    } else {
        max
    }
}

fn ilog2(x: u64) -> u32 {
    63 - x.max(1).leading_zeros()
}

impl Machine {
    /// `read_pages`: submits the batch for I/O. The folios stay locked and
    /// not uptodate until [`Machine::complete_io`] runs.
    pub(crate) fn read_pages<S: EventSink>(&mut self, ractl: &mut Ractl, sink: &mut S) {
        if ractl.nr_pages == 0 {
            return;
        }
        self.submit_io(ractl.index, ractl.nr_pages, KFunc::ReadPages, sink);
        ractl.index += ractl.nr_pages;
        ractl.nr_pages = 0;
    }

    /// `page_cache_ra_unbounded`: order-min folios for `nr_to_read` pages,
    /// skipping pages already cached; PG_readahead on the folio
    /// `lookahead_size` pages before the end.
    pub(crate) fn page_cache_ra_unbounded<S: EventSink>(
        &mut self,
        ractl: &mut Ractl,
        nr_to_read: u64,
        lookahead_size: u64,
        sink: &mut S,
    ) {
        sink.emit(Event::Tracepoint(Tracepoint::RaUnbounded {
            index: ractl.index,
            nr_to_read,
            lookahead_size,
        }));
        let min_order = self.cache.min_order;
        let min_nrpages = 1u64 << min_order;
        let index = self.cache.align_index(ractl.index);
        let mut mark = u64::MAX;
        if lookahead_size <= nr_to_read {
            let ra_folio_index =
                (ractl.index + nr_to_read - lookahead_size).next_multiple_of(min_nrpages);
            mark = ra_folio_index - index;
        }
        let nr_to_read = nr_to_read + ractl.index - index;
        ractl.index = index;

        let mut i = 0;
        while i < nr_to_read {
            let at = index + i;
            if !self.fast_paths {
                // The kernel's way: load each index in turn.
                if let crate::xarray::Entry::Pointer(_) = self.cache.xa.load(at) {
                    self.read_pages(ractl, sink);
                    ractl.index += min_nrpages;
                    i = ractl.index + ractl.nr_pages - index;
                    continue;
                }
            } else {
                // The fast path: a run of cached pages is skipped in one
                // step, with the same lookups counted.
                let run = self.cache.xa.peek_present_run(at, index + nr_to_read);
                if run.end > at {
                    self.count_loads(run.end - at, run.visits);
                    self.read_pages(ractl, sink);
                    ractl.index = run.end;
                    i = ractl.index + ractl.nr_pages - index;
                    continue;
                }
                // A run of uncached pages in the leaf the last add walked
                // to: its order-0 folios are added in one step.
                if let Some(k) =
                    self.ra_add_order0_run(at, nr_to_read - i, mark.wrapping_sub(i), sink)
                {
                    ractl.nr_pages += k;
                    i += k;
                    continue;
                }
                self.count_loads(1, run.miss_visits);
            }
            let flags = if i == mark {
                FolioFlags::READAHEAD
            } else {
                FolioFlags::empty()
            };
            match self.add_folio(
                at,
                min_order,
                flags,
                Gfp::Readahead,
                KFunc::PageCacheRaUnbounded,
                sink,
            ) {
                Ok(_) => {
                    if i == mark {
                        sink.emit(Event::ReadaheadFlag {
                            func: KFunc::PageCacheRaUnbounded,
                            index: at,
                            set: true,
                        });
                    }
                    ractl.nr_pages += min_nrpages;
                    i += min_nrpages;
                }
                // Out of memory: stop here and read what was allocated.
                Err(AddError::NoMem) => break,
                Err(AddError::Exists) => {
                    self.read_pages(ractl, sink);
                    ractl.index += min_nrpages;
                    i = ractl.index + ractl.nr_pages - index;
                }
            }
        }
        self.read_pages(ractl, sink);
    }

    /// The fast path of `page_cache_ra_unbounded` for order-0 folios: at
    /// an uncached `at`, in the leaf the xarray remembers, the folios for
    /// that leaf's NULL slots from `at` on (at most `left`), as the loop
    /// adds them one by one: each page's lookup and `filemap_add_folio`
    /// counted, PG_readahead on the folio `mark` pages on, the same
    /// events. Returns how many, or None where the one-by-one loop must
    /// run: larger folios, a memory limit (each folio is charged and may
    /// reclaim), shadows (a refault check each), or another leaf. On the
    /// 16 GiB comparison link 1% of the accesses, async readahead falling
    /// back to 2,041 order-0 folios each, took 45% of the model's time.
    fn ra_add_order0_run<S: EventSink>(
        &mut self,
        at: u64,
        left: u64,
        mark: u64,
        sink: &mut S,
    ) -> Option<u64> {
        let (k, readahead_at) = self.ra_add_order0_run_quietly(at, left, mark)?;
        for index in at..at + k {
            sink.emit(Event::FolioAdded {
                func: KFunc::PageCacheRaUnbounded,
                index,
                order: 0,
            });
            sink.emit(Event::Tracepoint(Tracepoint::AddToPageCache {
                index,
                order: 0,
            }));
            if readahead_at == Some(index) {
                sink.emit(Event::ReadaheadFlag {
                    func: KFunc::PageCacheRaUnbounded,
                    index,
                    set: true,
                });
            }
        }
        Some(k)
    }

    /// [`Machine::ra_add_order0_run`] but its events: how many folios, and
    /// the one marked PG_readahead. Not generic over the sink, and out of
    /// line, so that the app's wasm carries it once.
    #[inline(never)]
    fn ra_add_order0_run_quietly(
        &mut self,
        at: u64,
        left: u64,
        mark: u64,
    ) -> Option<(u64, Option<u64>)> {
        let (leaf, k) = self.cache.order0_run_room(at, left)?;
        let depth = leaf.1;
        // Each page's miss, as the loop's own lookup counts it.
        self.count_loads(k as u64, depth as u64 * k as u64);
        let readahead_at = (mark < k as u64).then(|| at + mark);
        self.cache.add_order0_run(at, k, leaf, readahead_at);
        self.added_unsubmitted(at, k as u64);
        Some((k as u64, readahead_at))
    }

    /// `do_page_cache_ra`: `page_cache_ra_unbounded` clipped at EOF.
    pub(crate) fn do_page_cache_ra<S: EventSink>(
        &mut self,
        ractl: &mut Ractl,
        nr_to_read: u64,
        lookahead_size: u64,
        sink: &mut S,
    ) {
        if self.cache.i_size == 0 {
            return;
        }
        let index = ractl.index;
        let end_index = self.cache.end_index();
        if index > end_index {
            return;
        }
        let mut lookahead_size = lookahead_size;
        let nr = if nr_to_read > end_index - index {
            // 7.x: a window cut off at EOF sets no marker.
            if self.kernel.has(Patch::RaNoMarkerAtEof) {
                lookahead_size = 0;
            }
            end_index - index + 1
        } else {
            nr_to_read
        };
        self.page_cache_ra_unbounded(ractl, nr, lookahead_size, sink);
    }

    /// `force_page_cache_ra`: reads exactly what was asked, in 2 MiB chunks.
    pub(crate) fn force_page_cache_ra<S: EventSink>(
        &mut self,
        ractl: &mut Ractl,
        nr_to_read: u64,
        sink: &mut S,
    ) {
        let max_pages = self.geo.io_pages.max(self.ra.ra_pages);
        let mut nr = nr_to_read.min(max_pages);
        let chunk_max = (2 << 20) >> self.geo.page_shift;
        while nr > 0 {
            let chunk = chunk_max.min(nr);
            self.do_page_cache_ra(ractl, chunk, 0, sink);
            nr -= chunk;
        }
    }

    /// `ra_alloc_folio`.
    fn ra_alloc_folio<S: EventSink>(
        &mut self,
        ractl: &mut Ractl,
        index: u64,
        mark: u64,
        order: u8,
        sink: &mut S,
    ) -> Result<(), AddError> {
        let mark = mark & !((1u64 << order) - 1);
        let flags = if index == mark {
            FolioFlags::READAHEAD
        } else {
            FolioFlags::empty()
        };
        self.add_folio(
            index,
            order,
            flags,
            Gfp::Readahead,
            KFunc::PageCacheRaOrder,
            sink,
        )?;
        if index == mark {
            sink.emit(Event::ReadaheadFlag {
                func: KFunc::PageCacheRaOrder,
                index,
                set: true,
            });
        }
        ractl.nr_pages += 1u64 << order;
        Ok(())
    }

    /// `page_cache_ra_order`: the window `ra` describes, in folios of
    /// `ra.order` where alignment and EOF allow.
    pub(crate) fn page_cache_ra_order<S: EventSink>(&mut self, ractl: &mut Ractl, sink: &mut S) {
        let start = ractl.index;
        sink.emit(Event::Tracepoint(Tracepoint::RaOrder {
            index: start,
            ra: RaFields {
                mmap_miss: 0,
                prev_pos: 0,
                ..self.ra.trace_fields()
            },
        }));
        let mut index = start;
        let min_order = self.cache.min_order;
        let mut limit = self.cache.end_index();
        let mut mark = index + self.ra.size - self.ra.async_size;
        let mut err = false;
        if self.cache.large_folio_support() {
            let window_end = index + self.ra.size - 1;
            if limit > window_end {
                limit = window_end;
            } else if self.kernel.has(Patch::RaNoMarkerAtEof) {
                // 7.x: the window reaches EOF, so no marker.
                mark = u64::MAX;
            } else {
                limit = limit.min(window_end);
            }
            let mut new_order = (self.ra.order as u32).min(self.cache.max_order as u32);
            new_order = new_order.min(ilog2(self.ra.size));
            new_order = new_order.max(min_order as u32);
            self.ra.order = new_order as u16;
            sink.emit(Event::Window {
                func: KFunc::PageCacheRaOrder,
                window: self.ra.window(),
            });
            ractl.index = self.cache.align_index(index);
            index = ractl.index;
            while index <= limit {
                let mut order = new_order;
                if index & ((1u64 << order) - 1) != 0 {
                    order = index.trailing_zeros();
                }
                while order > min_order as u32 && index + (1u64 << order) - 1 > limit {
                    order -= 1;
                }
                if self
                    .ra_alloc_folio(ractl, index, mark, order as u8, sink)
                    .is_err()
                {
                    err = true;
                    break;
                }
                index += 1u64 << order;
            }
            self.read_pages(ractl, sink);
            if !err {
                return;
            }
        } else if self.ra.order != 0 {
            self.ra.order = 0;
            sink.emit(Event::Window {
                func: KFunc::PageCacheRaOrder,
                window: self.ra.window(),
            });
        }
        // Fallback: a cached folio was in the way, or no large folios.
        if self.ra.size > index - start {
            let nr = self.ra.size - (index - start);
            let lookahead = self.ra.async_size;
            self.do_page_cache_ra(ractl, nr, lookahead, sink);
        }
    }

    /// `ractl_max_pages`.
    fn ractl_max_pages(&self, req_size: u64) -> u64 {
        let mut max_pages = self.ra.ra_pages;
        if req_size > max_pages && self.geo.io_pages > max_pages {
            max_pages = req_size.min(self.geo.io_pages);
        }
        max_pages
    }

    /// `page_cache_sync_ra`: a read missed the cache at `ractl.index`.
    pub(crate) fn page_cache_sync_ra<S: EventSink>(
        &mut self,
        ractl: &mut Ractl,
        req_count: u64,
        sink: &mut S,
    ) {
        let index = ractl.index;
        sink.emit(Event::Tracepoint(Tracepoint::SyncRa {
            index,
            req_count,
            ra: self.ra.trace_fields(),
        }));
        let mut req_count = req_count;
        let mut do_forced_ra = self.fmode_random;
        if self.ra.ra_pages == 0 {
            req_count = 1;
            do_forced_ra = true;
        }
        if do_forced_ra {
            self.force_page_cache_ra(ractl, req_count, sink);
            return;
        }
        let max_pages = self.ractl_max_pages(req_count);
        let prev_index = (self.ra.prev_pos as u64) >> self.geo.page_shift;
        if index == 0 || req_count > max_pages || index.wrapping_sub(prev_index) <= 1 {
            // Start of file, oversized read, or a sequential miss.
            self.ra.start = index;
            self.ra.size = get_init_ra_size(req_count, max_pages);
            self.ra.async_size = if self.ra.size > req_count {
                self.ra.size - req_count
            } else {
                self.ra.size >> 1
            };
        } else {
            let miss = self.cache.page_cache_prev_miss(index - 1, max_pages);
            let mut contig_count = index.wrapping_sub(miss).wrapping_sub(1);
            if contig_count <= req_count {
                // A small random read: read it as is, leave the state alone.
                self.do_page_cache_ra(ractl, req_count, 0, sink);
                return;
            }
            if miss == u64::MAX {
                contig_count *= 2;
            }
            self.ra.start = index;
            self.ra.size = (contig_count + req_count).min(max_pages);
            self.ra.async_size = 1;
        }
        self.ra.order = 0;
        sink.emit(Event::Window {
            func: KFunc::PageCacheSyncRa,
            window: self.ra.window(),
        });
        ractl.index = self.ra.start;
        self.page_cache_ra_order(ractl, sink);
    }

    /// `page_cache_async_ra`: a reader reached the PG_readahead folio.
    pub(crate) fn page_cache_async_ra<S: EventSink>(
        &mut self,
        ractl: &mut Ractl,
        folio: Folio,
        req_count: u64,
        sink: &mut S,
    ) {
        if self.ra.ra_pages == 0 {
            return;
        }
        sink.emit(Event::Tracepoint(Tracepoint::AsyncRa {
            index: ractl.index,
            req_count,
            ra: self.ra.trace_fields(),
        }));
        self.cache.clear_flag(folio.index, FolioFlags::READAHEAD);
        sink.emit(Event::ReadaheadFlag {
            func: KFunc::PageCacheAsyncRa,
            index: folio.index,
            set: false,
        });
        let index = ractl.index;
        let max_pages = self.ractl_max_pages(req_count);
        let expected =
            (self.ra.start + self.ra.size - self.ra.async_size) & !(folio.nr_pages() - 1);
        if index == expected {
            // The expected marker: a sequential stream. Push the window on.
            self.ra.start += self.ra.size;
            self.ra.size = self.ra.size.max(get_next_ra_size(self.ra.size, max_pages));
        } else {
            // A marker without valid state (interleaved streams): size the
            // previous window from what is cached after the marker.
            let start = self.cache.page_cache_next_miss(index + 1, max_pages);
            if start == 0 || start - index > max_pages {
                return;
            }
            self.ra.start = start;
            self.ra.size = start - index;
            self.ra.size += req_count;
            self.ra.size = get_next_ra_size(self.ra.size, max_pages);
        }
        self.ra.order += 2;
        let align = 1u64 << (self.ra.order as u32).min(max_pages.trailing_zeros());
        let end = self.ra.start + self.ra.size;
        let aligned_end = end & !(align - 1);
        if aligned_end > self.ra.start {
            self.ra.size -= end - aligned_end;
        }
        self.ra.async_size = self.ra.size;
        sink.emit(Event::Window {
            func: KFunc::PageCacheAsyncRa,
            window: self.ra.window(),
        });
        ractl.index = self.ra.start;
        self.page_cache_ra_order(ractl, sink);
    }
}
