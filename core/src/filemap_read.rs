//! Buffered `read()` of mm/filemap.c, Linux 6.18: `filemap_read`,
//! `filemap_get_pages`, `filemap_get_read_batch`, `filemap_create_folio`,
//! `filemap_readahead` and `filemap_update_page`, with `prev_pos`.
//!
//! A batch holds at most PAGEVEC_SIZE (31) folios and stops after a folio
//! that is not uptodate or carries PG_readahead; reaching the marker starts
//! async readahead, and a folio still under I/O is waited for and the batch
//! fetched again. Each batched folio holds a reference until its copy is
//! done.
//!
//! Seed 004's patch 1 ends a batch as soon as a folio reaches `max`,
//! before the `xas_advance` and without the `xas_next` that loaded the
//! entry past it; Matthew Wilcox's form of it (in 7.3.4) ends it right
//! after the `xas_advance`.

use crate::event::{Event, EventSink, KFunc};
use crate::folio::{Folio, FolioFlags};
use crate::kernel::Patch;
use crate::machine::{Gfp, Machine};
use crate::readahead::Ractl;
use crate::tracepoint::Tracepoint;
use crate::xarray::{Entry, XaState};

/// PAGEVEC_SIZE: the capacity of a `folio_batch`.
pub const PAGEVEC_SIZE: usize = 31;

impl Machine {
    /// `filemap_read` of `len` bytes at `offset` (a `pread`).
    pub(crate) fn filemap_read<S: EventSink>(&mut self, offset: u64, len: u64, sink: &mut S) {
        sink.emit(Event::ReadCall {
            func: KFunc::FilemapRead,
            offset,
            len,
        });
        let isize = self.cache.i_size;
        let mut pos = offset;
        let mut count = len;
        let mut last_pos = self.ra.prev_pos;
        if pos >= isize || count == 0 {
            return;
        }
        loop {
            if pos >= isize {
                break;
            }
            let batch = self.filemap_get_pages(pos, count, sink);
            if batch.is_empty() {
                break;
            }
            let end_offset = isize.min(pos + count);
            let page_shift = self.geo.page_shift;
            // Mark the first folio accessed only if this read did not
            // start in the folio the last one ended in.
            let first = batch[0];
            let fshift = page_shift + first.order as u32;
            if (pos as i64) >> fshift != (last_pos - 1) >> fshift {
                self.folio_mark_accessed(first.index);
            }
            for (i, f) in batch.iter().enumerate() {
                let fpos = f.index << page_shift;
                let fsize = f.nr_pages() << page_shift;
                if end_offset < fpos {
                    break;
                }
                if i > 0 {
                    self.folio_mark_accessed(f.index);
                }
                let off = pos & (fsize - 1);
                let bytes = (end_offset - pos).min(fsize - off);
                self.copy_folio_to_iter(pos, off, bytes, sink);
                pos += bytes;
                count -= bytes;
                last_pos = pos as i64;
            }
            self.counters.folio_put += batch.len() as u64;
            if count == 0 || pos >= isize {
                break;
            }
        }
        self.ra.prev_pos = last_pos;
        sink.emit(Event::PrevPos {
            func: KFunc::FilemapRead,
            pos: last_pos,
        });
        self.complete_io(sink);
    }

    /// `filemap_get_pages`: a batch of uptodate folios at `pos`, reading
    /// ahead or reading as needed.
    pub(crate) fn filemap_get_pages<S: EventSink>(
        &mut self,
        pos: u64,
        count: u64,
        sink: &mut S,
    ) -> Vec<Folio> {
        let page_shift = self.geo.page_shift;
        let index = pos >> page_shift;
        let min_bytes = 1u64 << (page_shift + self.cache.min_order as u32);
        let last_index = (pos + count).next_multiple_of(min_bytes) >> page_shift;
        loop {
            let mut batch = self.filemap_get_read_batch(index, last_index - 1);
            if batch.is_empty() {
                let mut ractl = Ractl::new(index);
                self.page_cache_sync_ra(&mut ractl, last_index - index, sink);
                batch = self.filemap_get_read_batch(index, last_index - 1);
            }
            if batch.is_empty() {
                match self.filemap_create_folio(pos, sink) {
                    Some(f) => return vec![f],
                    None => continue,
                }
            }
            let last = *batch.last().expect("not empty");
            if last.test(FolioFlags::READAHEAD) {
                let mut ractl = Ractl::new(last.index);
                self.page_cache_async_ra(&mut ractl, last, last_index - last.index, sink);
            }
            let last = self.cache.peek_folio(last.index).unwrap_or(last);
            if !last.test(FolioFlags::UPTODATE) {
                self.counters.folio_put += 1;
                if batch.len() > 1 {
                    // -EAGAIN: return what is ready; the next round waits.
                    batch.pop();
                    return batch;
                }
                // filemap_update_page: wait for the read in flight, then
                // AOP_TRUNCATED_PAGE sends us round again.
                if last.test(FolioFlags::LOCKED) {
                    self.complete_io(sink);
                } else {
                    self.submit_io(last.index, last.nr_pages(), KFunc::FilemapReadFolio, sink);
                    self.complete_io(sink);
                }
                continue;
            }
            sink.emit(Event::Tracepoint(Tracepoint::GetPages {
                index,
                last_index: last_index - 1,
            }));
            return batch;
        }
    }

    /// `filemap_get_read_batch`: contiguous folios from `index` up to `max`.
    fn filemap_get_read_batch(&mut self, index: u64, max: u64) -> Vec<Folio> {
        let exit_before_advance = self.kernel.has(Patch::ReadBatchExitBeforeAdvance);
        let exit_after_advance = self.kernel.has(Patch::ReadBatchExitAfterAdvance);
        let mut batch = Vec::new();
        if (exit_before_advance || exit_after_advance) && index > max {
            return batch;
        }
        let xa = &self.cache.xa;
        let mut xas = XaState::new(index);
        let mut e = xas.load(xa);
        while let Entry::Pointer(p) = e {
            // Patched, this test cannot fire (patch 1 as posted makes it a WARN_ON).
            if xas.index > max {
                break;
            }
            let folio = Folio::decode_at(xas.index, p);
            self.counters.folio_get += 1;
            batch.push(folio);
            if batch.len() == PAGEVEC_SIZE {
                break;
            }
            if !folio.test(FolioFlags::UPTODATE) || folio.test(FolioFlags::READAHEAD) {
                break;
            }
            let next = folio.next_index();
            if exit_before_advance && next > max {
                break;
            }
            xas.advance(xa, next - 1);
            if exit_after_advance && xas.index >= max {
                break;
            }
            e = xas.next(xa);
        }
        batch
    }

    /// `filemap_create_folio`: one order-min folio read synchronously.
    fn filemap_create_folio<S: EventSink>(&mut self, pos: u64, sink: &mut S) -> Option<Folio> {
        let min_order = self.cache.min_order;
        let index = (pos >> (self.geo.page_shift + min_order as u32)) << min_order;
        let f = self
            .add_folio(
                index,
                min_order,
                FolioFlags::empty(),
                Gfp::Normal,
                KFunc::FilemapCreateFolio,
                sink,
            )
            .ok()?;
        self.submit_io(f.index, f.nr_pages(), KFunc::FilemapReadFolio, sink);
        self.complete_io(sink);
        self.cache.peek_folio(index)
    }
}
