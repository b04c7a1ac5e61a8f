//! Reads the kernel makes for a program through a pipe: fs/splice.c's
//! `splice_direct_to_actor` (behind `copy_file_range` on one file system,
//! and `sendfile`) and mm/filemap.c's `filemap_splice_read`, Linux 6.18.
//!
//! The internal pipe has PIPE_DEF_BUFFERS (16) buffers of at most a page
//! each and is drained after every read, so the file is read at most 16
//! pages at a time. Unlike `filemap_read`, every folio handed to the pipe
//! is marked accessed, and `prev_pos` follows each folio.

use crate::event::{Event, EventSink, KFunc};
use crate::folio::Folio;
use crate::machine::Machine;

/// PIPE_DEF_BUFFERS: the buffers of the pipe `splice_direct_to_actor` uses.
pub const PIPE_DEF_BUFFERS: u64 = 16;

impl Machine {
    /// `splice_direct_to_actor`: `len` bytes from `offset` of the file in
    /// use, through the internal pipe, until done or at EOF.
    pub(crate) fn splice_direct_to_actor<S: EventSink>(
        &mut self,
        offset: u64,
        len: u64,
        sink: &mut S,
    ) {
        sink.emit(Event::ReadCall {
            func: KFunc::FilemapSpliceRead,
            offset,
            len,
        });
        let mut pos = offset;
        let mut left = len;
        while left > 0 {
            // do_splice_read: no more than the empty pipe can take.
            let chunk = left.min(PIPE_DEF_BUFFERS << self.geo.page_shift);
            let n = self.filemap_splice_read(&mut pos, chunk, sink);
            if n == 0 {
                break;
            }
            left -= n;
        }
        self.complete_io(sink);
    }

    /// `filemap_splice_read` into an empty pipe of PIPE_DEF_BUFFERS.
    fn filemap_splice_read<S: EventSink>(&mut self, ppos: &mut u64, len: u64, sink: &mut S) -> u64 {
        let isize = self.cache.i_size;
        let page_shift = self.geo.page_shift;
        let mut len = len;
        let mut buffers = PIPE_DEF_BUFFERS;
        let mut total = 0;
        'out: while len > 0 {
            if *ppos >= isize {
                break;
            }
            let batch = self.filemap_get_pages(*ppos, len, sink);
            let end_offset = isize.min(*ppos + len);
            for f in &batch {
                if f.index << page_shift >= end_offset {
                    self.counters.folio_put += batch.len() as u64;
                    break 'out;
                }
                self.folio_mark_accessed(f.index);
                let want = len.min(isize - *ppos);
                let n = splice_folio_into_pipe(f, *ppos, want, &mut buffers, page_shift);
                if n == 0 {
                    self.counters.folio_put += batch.len() as u64;
                    break 'out;
                }
                len -= n;
                total += n;
                *ppos += n;
                self.ra.prev_pos = *ppos as i64;
                sink.emit(Event::PrevPos {
                    func: KFunc::FilemapSpliceRead,
                    pos: *ppos as i64,
                });
                if buffers == 0 {
                    self.counters.folio_put += batch.len() as u64;
                    break 'out;
                }
            }
            self.counters.folio_put += batch.len() as u64;
        }
        total
    }
}

/// `splice_folio_into_pipe`: bytes of `folio` from file position `fpos`,
/// at most `size`, one pipe buffer per page touched, while buffers last.
fn splice_folio_into_pipe(
    folio: &Folio,
    fpos: u64,
    size: u64,
    buffers: &mut u64,
    page_shift: u32,
) -> u64 {
    let page = 1u64 << page_shift;
    let mut offset = fpos - (folio.index << page_shift);
    let size = size.min((folio.nr_pages() << page_shift) - offset);
    offset %= page;
    let mut spliced = 0;
    while spliced < size && *buffers > 0 {
        spliced += (page - offset).min(size - spliced);
        offset = 0;
        *buffers -= 1;
    }
    spliced
}
