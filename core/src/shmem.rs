//! mm/shmem.c, v7.1-rc5: the tmpfs read path, `shmem_file_read_iter` and
//! `shmem_get_folio` with SGP_READ. Both are line for line the same in
//! 6.18.35, 7.2.13 and 7.3.4 (v7.1-rc5 itself was rebuilt from the
//! context of the seed's patches).
//!
//! The baseline looks up one folio per loop turn through `shmem_get_folio`
//! (a walk from the root, a reference, the folio lock), and copies at
//! most that folio, or one page of zeroes when there is no uptodate folio:
//! SGP_READ hands back no folio for a hole *or* for a fallocated folio
//! that was never written, so both read as the zero page.
//!
//! Seed 004 (fbatch v2) changes it, one toggle per patch:
//! - patch 3 copies holes of any length from the largest zero folio;
//!   Matthew Wilcox's alternative sends every hole to `iov_iter_zero`;
//! - patch 4 drops the page-by-page fallback for a large folio with a
//!   poisoned page and checks each page inside the copy instead;
//! - patch 5 fills a folio batch with `filemap_get_folios_contig` (no
//!   lock, up to 31 folios) and falls back to `shmem_get_folio` only when
//!   the batch comes back empty, which on a sparse file is every page.
//!
//! The tmpfs file is made before the reads, the way the seed's tests made
//! theirs; see [`Machine::populate_tmpfs_file`].

use crate::backing::TmpfsFile;
use crate::event::{Event, EventSink, KFunc, NoEvents, ReadErrno};
use crate::folio::{Folio, FolioFlags};
use crate::kernel::Patch;
use crate::machine::Machine;
use crate::xarray::{Entry, XaState};

/// What a turn of the read loop copies from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// An uptodate folio, with its reference held.
    Folio(Folio),
    /// Nothing readable: a hole, or a folio that is not uptodate.
    Zeroes { folio: Option<Folio> },
}

impl Machine {
    /// Makes the tmpfs file: `shmem_write_begin` for every page of a
    /// written file, `shmem_fallocate` (SGP_FALLOC) for a fallocated one,
    /// nothing for a sparse one. With `huge=always` both allocate PMD-sized
    /// folios, which `shmem_huge_global_enabled` allows whatever i_size is.
    /// Fallocated folios stay !uptodate and unzeroed. Setting up is not
    /// part of the scenario, so its lookups are not counted.
    pub(crate) fn populate_tmpfs_file(&mut self, file: TmpfsFile, huge: bool) {
        let order = if huge { self.geo.pmd_order } else { 0 };
        let nr = 1u64 << order;
        if file != TmpfsFile::Sparse {
            let written = file == TmpfsFile::Written;
            let mut index = 0;
            while index < self.geo.nr_pages {
                let f = self
                    .cache
                    .filemap_add_folio(
                        index,
                        order,
                        FolioFlags::empty(),
                        KFunc::ShmemGetFolio,
                        &mut NoEvents,
                    )
                    .expect("a fresh tmpfs file has room for every folio");
                if written {
                    self.cache.folio_end_read(f.index, &mut NoEvents);
                } else {
                    self.cache.clear_flag(f.index, FolioFlags::LOCKED);
                }
                index += nr;
                if order == 0 && self.fast_paths {
                    index += self.populate_rest_of_leaf(index, written);
                }
            }
        }
        if let Some(page) = self.hwpoison {
            let f = self
                .cache
                .peek_folio(page)
                .expect("config allows poison only where a folio is");
            let flag = if f.order == 0 {
                FolioFlags::HWPOISON
            } else {
                FolioFlags::HAS_HWPOISONED
            };
            self.cache.set_flag(f.index, flag);
        }
        self.cache.xa.reset_stats();
    }

    /// The pages of a file of page-sized folios from `at` to the end of
    /// the leaf the add before went into, made in one step: the same
    /// folios, slots, leaf versions, fingerprint and page count as one add
    /// and one end of read (written) or unlock (fallocated) after another.
    /// Returns how many; none where the loop must go on one by one
    /// ([`crate::page_cache::AddressSpace::order0_run_room`] says when).
    /// Made one by one, the 1 GiB file was about half of the first build
    /// of seed 004's presets with THP off: natively 28.5 ms for both
    /// kernels against 15.3 ms this way
    /// (`seed004-thpoff-1m-normal`, best of five), and in Chromium 44 ms
    /// of the page's task before its first paint against 13 ms (a CPU
    /// profile each, 2026-12-07).
    fn populate_rest_of_leaf(&mut self, at: u64, written: bool) -> u64 {
        let left = self.geo.nr_pages.saturating_sub(at);
        if left == 0 {
            return 0;
        }
        // A lookup of the first page left remembers its leaf, if it has
        // one (the add before made it); what it counts goes with the
        // rest of the setting up.
        self.cache.xa.load(at);
        let Some((leaf, k)) = self.cache.order0_run_room(at, left) else {
            return 0;
        };
        self.cache.add_order0_run(at, k, leaf, None);
        let done = self.cache.settle_order0_run(at, k, written);
        debug_assert!(done, "the run just added is page-sized folios in one leaf");
        k as u64
    }

    /// `shmem_get_folio(inode, index, 0, &folio, SGP_READ)`: the uptodate
    /// folio at `index`, locked and referenced, or none for a hole or a
    /// folio that is not uptodate.
    fn shmem_get_folio_read<S: EventSink>(&mut self, index: u64, sink: &mut S) -> Option<Folio> {
        self.counters.shmem_get_folio += 1;
        // filemap_get_entry: one walk from the root, a reference, a reload.
        let mut xas = XaState::new(index);
        let found = match xas.load(&self.cache.xa) {
            Entry::Pointer(p) => Some(Folio::decode_at(index, p)),
            _ => None,
        };
        let uptodate = found.is_some_and(|f| f.test(FolioFlags::UPTODATE));
        sink.emit(Event::Lookup {
            func: KFunc::ShmemGetFolio,
            index,
            folios: uptodate as u32,
        });
        let folio = found?;
        self.counters.folio_get += 1;
        self.counters.folio_lock += 1;
        if uptodate {
            return Some(folio);
        }
        // A fallocated folio: SGP_READ leaves it as it is and reads zeroes.
        self.counters.folio_unlock += 1;
        self.counters.folio_put += 1;
        None
    }

    /// Whether the page at `index` is poisoned (PageHWPoison).
    fn page_hwpoison(&self, index: u64) -> bool {
        self.hwpoison == Some(index)
    }

    /// `shmem_file_read_iter` for a `read()` of `len` bytes at `offset`.
    pub(crate) fn shmem_file_read_iter<S: EventSink>(
        &mut self,
        offset: u64,
        len: u64,
        sink: &mut S,
    ) {
        sink.emit(Event::ReadCall {
            func: KFunc::ShmemFileReadIter,
            offset,
            len,
        });
        let page_shift = self.geo.page_shift;
        let page = 1u64 << page_shift;
        let batching = self.kernel.has(Patch::ShmemFolioBatch);
        let poison_in_copy = self.kernel.has(Patch::ShmemHwpoisonInCopy);
        let i_size = self.cache.i_size;
        let mut pos = offset;
        let mut count = len;
        let mut error = None;
        // Patch 5's folio batch lives for one read() call.
        let mut batch: Vec<Folio> = Vec::new();
        let mut next_in_batch = 0;
        loop {
            if pos >= i_size {
                break;
            }
            self.counters.read_iterations += 1;
            let index = pos >> page_shift;
            let source = if batching {
                let folio = if next_in_batch < batch.len() {
                    next_in_batch += 1;
                    Some(batch[next_in_batch - 1])
                } else {
                    self.counters.folio_put += batch.len() as u64;
                    batch.clear();
                    next_in_batch = 0;
                    let mut start = index;
                    // v2 does not cap `end` at i_size (v3 will).
                    let end = (pos + count - 1) >> page_shift;
                    let got = self.filemap_get_folios_contig(&mut start, end, &mut batch);
                    sink.emit(Event::Lookup {
                        func: KFunc::FilemapGetFoliosContig,
                        index,
                        folios: got as u32,
                    });
                    if got > 0 {
                        next_in_batch = 1;
                        Some(batch[0])
                    } else {
                        // Holes and swap entries: the old lookup, and the
                        // folio joins the batch as already consumed.
                        let f = self.shmem_get_folio_read(index, sink);
                        if let Some(f) = f {
                            self.counters.folio_unlock += 1;
                            batch.push(f);
                            next_in_batch = 1;
                        }
                        f
                    }
                };
                // The uptodate test is made without the folio lock.
                match folio {
                    Some(f) if f.test(FolioFlags::UPTODATE) => Source::Folio(f),
                    f => Source::Zeroes { folio: f },
                }
            } else {
                match self.shmem_get_folio_read(index, sink) {
                    Some(f) => {
                        self.counters.folio_unlock += 1;
                        Source::Folio(f)
                    }
                    None => Source::Zeroes { folio: None },
                }
            };

            // The baseline's poison checks, before the copy.
            let mut fallback_page_copy = false;
            if let Source::Folio(f) = source {
                if !poison_in_copy {
                    if self.page_hwpoison(index) {
                        if !batching {
                            self.counters.folio_put += 1;
                        }
                        error = Some(ReadErrno::Eio);
                        break;
                    }
                    fallback_page_copy = f.order > 0 && f.test(FolioFlags::HAS_HWPOISONED);
                }
            }

            let end_offset = i_size.min(pos + count);
            let fsize = match source {
                Source::Folio(f) if !fallback_page_copy => f.nr_pages() << page_shift,
                // Patch 5 steps over a whole !uptodate folio at once.
                Source::Zeroes { folio: Some(f) } if batching => f.nr_pages() << page_shift,
                _ => page,
            };
            let off = pos & (fsize - 1);
            let nr = (end_offset - pos).min(fsize - off);

            let ret = match source {
                Source::Folio(f) => {
                    if off == 0 {
                        self.folio_mark_accessed(f.index);
                    }
                    let in_folio = pos - (f.index << page_shift);
                    let poisoned =
                        f.test(FolioFlags::HWPOISON) || f.test(FolioFlags::HAS_HWPOISONED);
                    let ret = if poison_in_copy && poisoned {
                        let (done, hit) = self.copy_pages_to_iter(f.index, pos, in_folio, nr, sink);
                        if hit {
                            error = Some(ReadErrno::Eio);
                        }
                        done
                    } else {
                        // The fallback copies from the one subpage.
                        self.copy_folio_to_iter(pos, in_folio, nr, sink)
                    };
                    if !batching {
                        self.counters.folio_put += 1;
                    }
                    ret
                }
                Source::Zeroes { .. } => {
                    if self.kernel.has(Patch::ShmemIovIterZero) {
                        self.iov_iter_zero(pos, nr, sink)
                    } else if self.kernel.has(Patch::ShmemCopyZeroToIter) {
                        self.copy_zero_to_iter(pos, nr, sink)
                    } else {
                        // read(2) is user-backed: the zero-page copy.
                        self.copy_zero_page_to_iter(pos, off, nr, sink)
                    }
                }
            };
            pos += ret;
            count -= ret;
            if error.is_some() {
                break;
            }
            if count == 0 {
                break;
            }
            if ret < nr {
                error = Some(ReadErrno::Efault);
                break;
            }
        }
        self.counters.folio_put += batch.len() as u64;
        if let Some(errno) = error {
            self.counters.read_errors += 1;
            sink.emit(Event::ReadError {
                func: KFunc::ShmemFileReadIter,
                offset: pos,
                errno,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backing::Backing;
    use crate::config::{Config, Scenario};
    use crate::pattern::Pattern;

    /// A sparse 8 MiB tmpfs file and 12 KiB more, the last leaf part full.
    fn sparse_file() -> Config {
        Config::new(Scenario {
            file_size: (8 << 20) + (12 << 10),
            pattern: Pattern::Read { bs: 65536 },
            backing: Backing::Tmpfs {
                huge: false,
                file: TmpfsFile::Sparse,
            },
            ..Scenario::default()
        })
        .unwrap()
    }

    /// A tmpfs file of page-sized folios made a leaf at a time is the file
    /// made a folio at a time: the same entries, nodes (their versions
    /// too), fingerprint and page count, written or fallocated.
    #[test]
    fn a_file_made_a_leaf_at_a_time_is_the_same_file() {
        let cfg = sparse_file();
        for file in [TmpfsFile::Written, TmpfsFile::Fallocated] {
            let made = |fast| {
                let mut m = Machine::with_node_room(&cfg, None);
                m.fast_paths = fast;
                m.populate_tmpfs_file(file, false);
                m
            };
            let (fast, slow) = (made(true), made(false));
            assert_eq!(fast.cache.nrpages, 2051, "{file:?}");
            assert!(fast.same_state(&slow), "{file:?}");
            assert_eq!(fast.cache.xa.shape(), slow.cache.xa.shape(), "{file:?}");
        }
    }

    /// The rest of a leaf is made at once after its first pages: page 0
    /// alone is held in the head, page 1 makes the first leaf.
    #[test]
    fn the_rest_of_a_leaf_is_made_in_one_step() {
        let mut m = Machine::with_node_room(&sparse_file(), None);
        for index in 0..2 {
            m.cache
                .filemap_add_folio(
                    index,
                    0,
                    FolioFlags::empty(),
                    KFunc::ShmemGetFolio,
                    &mut NoEvents,
                )
                .unwrap();
            m.cache.folio_end_read(index, &mut NoEvents);
        }
        assert_eq!(m.populate_rest_of_leaf(2, true), 62);
        let f = m.cache.peek_folio(63).expect("page 63 is cached");
        assert!(f.test(FolioFlags::UPTODATE) && !f.test(FolioFlags::LOCKED));
        assert_eq!(m.populate_rest_of_leaf(64, true), 0, "no leaf there yet");
    }
}
