//! mm/filemap.c, Linux 6.18 (read in the 6.18.35 source; the same body in
//! v7.1-rc5): `filemap_get_folios_contig`, which fills a folio batch with
//! the folios that follow each other from `start`, stopping at a gap, a
//! value or sibling entry, `end`, or a full batch. In this model only
//! shmem's batched read (seed 004, patch 5) calls it.
//!
//! Patch 2 of the fbatch v2 series stops the walk once a folio reaches
//! `end`, saving the `xas_advance` and the `xas_next` that loaded the entry
//! past it; Matthew Wilcox's form (in 7.3.4) keeps the `xas_advance`.

use crate::filemap_read::PAGEVEC_SIZE;
use crate::folio::Folio;
use crate::kernel::Patch;
use crate::machine::Machine;
use crate::xarray::{Entry, XaState};

impl Machine {
    /// Appends contiguous folios from `*start` up to `end` to `batch`,
    /// each with a reference taken, and moves `*start` past the last one.
    /// Returns how many it added.
    pub(crate) fn filemap_get_folios_contig(
        &mut self,
        start: &mut u64,
        end: u64,
        batch: &mut Vec<Folio>,
    ) -> usize {
        self.counters.get_folios_contig += 1;
        let exit_before_advance = self.kernel.has(Patch::ContigExitBeforeAdvance);
        let exit_after_advance = self.kernel.has(Patch::ContigExitAfterAdvance);
        if (exit_before_advance || exit_after_advance) && *start > end {
            return 0;
        }
        let first = batch.len();
        let xa = &self.cache.xa;
        let mut xas = XaState::new(*start);
        let mut entry = xas.load(xa);
        // Entries that end the walk: a gap, a swap (value) entry, or the
        // middle of a large folio; 6.18 also tests xa_index <= end first.
        while let Entry::Pointer(p) = entry {
            if !(exit_before_advance || exit_after_advance) && xas.index > end {
                break;
            }
            let folio = Folio::decode_at(xas.index, p);
            self.counters.folio_get += 1;
            batch.push(folio);
            if batch.len() == PAGEVEC_SIZE {
                // 6.18 sets *start and returns here; the patched loops
                // break to the same update below.
                break;
            }
            let next = folio.next_index();
            if exit_before_advance && next > end {
                break;
            }
            xas.advance(xa, next - 1);
            if exit_after_advance && xas.index >= end {
                break;
            }
            entry = xas.next(xa);
        }
        if let Some(last) = batch.last() {
            if batch.len() > first {
                *start = last.next_index();
            }
        }
        batch.len() - first
    }
}
