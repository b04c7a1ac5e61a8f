//! lib/iov_iter.c as a `read(2)` into a user buffer (ITER_UBUF) meets it,
//! Linux 6.18 (read in the 6.18.35 source; unchanged through 7.3.4), with
//! the zeroing helpers of seed 004 and its thread:
//! - `copy_folio_to_iter` / `copy_page_to_iter` check the range with
//!   `page_copy_sane`, then copy one subpage at a time (`kmap_local_page`
//!   and `_copy_to_iter` per page), so a 2 MiB folio is still copied in
//!   page-sized pieces;
//! - `iov_iter_zero` is `clear_user()` for user memory; Matthew Wilcox's
//!   lib/iov_iter.c hunk makes it copy the zero page instead;
//! - `copy_zero_to_iter` (fbatch v2 patch 3) copies from
//!   `largest_zero_folio()`. That is the huge zero folio only with
//!   CONFIG_PERSISTENT_HUGE_ZERO_FOLIO, which has no default and which the
//!   seed does not mention, so here it is the base zero page.
//!
//! The model counts bytes and pieces by source; it moves no data.

use crate::event::{CopySource, Event, EventSink, KFunc};
use crate::kernel::Patch;
use crate::machine::Machine;

/// The page-sized pieces a copy of `nr` bytes from `off` in a page-backed
/// source is made in.
pub fn pieces(off: u64, nr: u64, page: u64) -> u64 {
    if nr == 0 {
        return 0;
    }
    let first = off / page;
    let last = (off + nr - 1) / page;
    last - first + 1
}

impl Machine {
    fn page_bytes(&self) -> u64 {
        1u64 << self.geo.page_shift
    }

    /// `copy_folio_to_iter`: `nr` bytes from `off` within the folio, which
    /// sits at file offset `pos - off`. Returns the bytes copied.
    pub(crate) fn copy_folio_to_iter<S: EventSink>(
        &mut self,
        pos: u64,
        off: u64,
        nr: u64,
        sink: &mut S,
    ) -> u64 {
        self.counters.copy_chunks += pieces(off, nr, self.page_bytes());
        self.counters.bytes_copied += nr;
        sink.emit(Event::Copied {
            func: KFunc::CopyFolioToIter,
            offset: pos,
            len: nr,
            source: CopySource::Folio,
        });
        nr
    }

    /// `copy_page_to_iter(ZERO_PAGE(0), off, nr)`: `page_copy_sane` refuses
    /// (WARN, 0 bytes) a range that does not fit in the one page.
    pub(crate) fn copy_zero_page_to_iter<S: EventSink>(
        &mut self,
        pos: u64,
        off: u64,
        nr: u64,
        sink: &mut S,
    ) -> u64 {
        let page = self.page_bytes();
        if off + nr > page {
            return 0;
        }
        self.counters.zero_chunks += pieces(off, nr, page);
        self.counters.bytes_zero_copied += nr;
        sink.emit(Event::Copied {
            func: KFunc::CopyPageToIter,
            offset: pos,
            len: nr,
            source: CopySource::ZeroPage,
        });
        nr
    }

    /// `copy_zero_to_iter` (fbatch v2 patch 3): copies of the largest zero
    /// folio, each of at most its size.
    pub(crate) fn copy_zero_to_iter<S: EventSink>(
        &mut self,
        pos: u64,
        nr: u64,
        sink: &mut S,
    ) -> u64 {
        self.counters.zero_chunks += nr.div_ceil(self.page_bytes());
        self.counters.bytes_zero_copied += nr;
        sink.emit(Event::Copied {
            func: KFunc::CopyZeroToIter,
            offset: pos,
            len: nr,
            source: CopySource::ZeroPage,
        });
        nr
    }

    /// `iov_iter_zero` into one user segment: one `clear_user()`, or with
    /// the lib/iov_iter.c hunk Matthew Wilcox proposed, the zero page
    /// copied in page-sized pieces.
    pub(crate) fn iov_iter_zero<S: EventSink>(&mut self, pos: u64, nr: u64, sink: &mut S) -> u64 {
        let source = if self.kernel.has(Patch::IovIterZeroPage) {
            self.counters.zero_chunks += nr.div_ceil(self.page_bytes());
            self.counters.bytes_zero_copied += nr;
            CopySource::ZeroPage
        } else {
            self.counters.clear_calls += 1;
            self.counters.bytes_cleared += nr;
            CopySource::ClearUser
        };
        sink.emit(Event::Copied {
            func: KFunc::IovIterZero,
            offset: pos,
            len: nr,
            source,
        });
        nr
    }

    /// `copy_pages_to_iter` (fbatch v2 patch 4): the folio page by page,
    /// stopping before a poisoned page. Returns the bytes copied and
    /// whether it stopped at poison.
    pub(crate) fn copy_pages_to_iter<S: EventSink>(
        &mut self,
        folio_index: u64,
        pos: u64,
        off: u64,
        nr: u64,
        sink: &mut S,
    ) -> (u64, bool) {
        let page = self.page_bytes();
        let mut done = 0;
        while done < nr {
            let in_folio = off + done;
            if self.hwpoison == Some(folio_index + in_folio / page) {
                return (done, true);
            }
            let n = (nr - done).min(page - in_folio % page);
            done += self.copy_folio_to_iter(pos + done, in_folio, n, sink);
        }
        (done, false)
    }
}

#[cfg(test)]
mod tests {
    use super::pieces;

    #[test]
    fn pieces_count_the_pages_a_range_touches() {
        assert_eq!(pieces(0, 4096, 4096), 1);
        assert_eq!(pieces(0, 1 << 20, 4096), 256);
        assert_eq!(pieces(4095, 2, 4096), 2);
        assert_eq!(pieces(100, 0, 4096), 0);
        assert_eq!(pieces(8192, 4096, 4096), 1);
    }
}
