//! The words shown to users about kernels and marks: what a patch changes
//! and where it comes from, what a variant is, and what each kind of mark
//! is called. The core names these things only by identifiers, the ones
//! command lines and links use (`Patch::name`, `Variant::name`); the prose
//! lives here, with the crate's other text forms.

use folioscope_core::{Mark, Patch, Variant};

/// What a patch changes, in one line: its subject, and in brackets what
/// the model does differently.
pub fn patch(p: Patch) -> &'static str {
    match p {
        Patch::ThpRaMmapMiss => {
            "mm: readahead: make thp readahead conditional to mmap_miss logic \
             (VM_HUGEPAGE reads only while mmap_miss <= MMAP_LOTSAMISS; VM_SEQ_READ keeps out of mmap_miss)"
        }
        Patch::MmapHitFaultAddress => {
            "mm/filemap: count only the faulting address as a mmap hit \
             (fault-around hits: at most one, for the faulting page; PMD mappings none)"
        }
        Patch::MmapHitNotTried => {
            "mm/filemap: do not count FAULT_FLAG_TRIED retries as mmap hits"
        }
        Patch::MmapMissSeqSymmetric => {
            "mm: make mmap_miss accounting symmetric for VM_SEQ_READ \
             (no mmap_miss decrements for VM_SEQ_READ or VM_EXEC mappings)"
        }
        Patch::RaNoMarkerAtEof => {
            "readahead: no PG_readahead marker when the window reaches EOF"
        }
        Patch::ExecBypassMmapMiss => {
            "mm: bypass mmap_miss heuristic for VM_EXEC readahead"
        }
        Patch::ExecThpOrderV6 => {
            "mm: use mapping_max_folio_order() for force_thp_readahead order, v6 \
             (preserve PMD-sized readahead where it fits, else fall back to at most 2M)"
        }
        Patch::ExecThpOrderV7 => {
            "mm: use mapping_max_folio_order() for force_thp_readahead order, v7 \
             (cap max THP order at 2M)"
        }
        Patch::DescRaHelpers => {
            "mm/filemap: move the mmap hit check of filemap_map_pages() into helpers"
        }
        Patch::DescRaHugepage => {
            "mm/filemap: read ahead downwards on descending VM_HUGEPAGE faults \
             (also read the folio below when it is not cached either; a PMD mapping of the faulting address is a hit)"
        }
        Patch::DescRaSeqRead => {
            "mm/filemap: extend VM_SEQ_READ readahead below descending faults \
             (read the window that ends at the fault)"
        }
        Patch::ReadBatchExitBeforeAdvance => {
            "mm/filemap: reduce unnecessary xarray lookups when read cached pages \
             (filemap_get_read_batch breaks once a folio reaches max: no xas_advance, no xas_next past it)"
        }
        Patch::ReadBatchExitAfterAdvance => {
            "patch 1 as Matthew Wilcox proposed it and 7.3.4 has it \
             (xas_advance, then break once xa_index reaches max: no xas_next past it)"
        }
        Patch::ContigExitBeforeAdvance => {
            "mm/filemap: reduce xarray lookups in filemap_get_folios_contig() \
             (break once a folio reaches end: no xas_advance, no xas_next past it)"
        }
        Patch::ContigExitAfterAdvance => {
            "patch 2 in Matthew Wilcox's form, as in 7.3.4 (xas_advance, then break at end)"
        }
        Patch::ShmemCopyZeroToIter => {
            "mm/shmem: introduce copy_zero_to_iter() for large zeroing \
             (a hole of any length is copied from the largest zero folio)"
        }
        Patch::ShmemIovIterZero => {
            "Matthew Wilcox's shmem hunk (Chi Zhiling's v3 plan): holes always go to iov_iter_zero(), \
             which is clear_user() for read(2) unless the iov_iter hunk is applied too"
        }
        Patch::IovIterZeroPage => {
            "Matthew Wilcox's lib/iov_iter.c hunk: iov_iter_zero() to user memory copies \
             the zero page in 4 KiB pieces instead of clear_user()"
        }
        Patch::ShmemHwpoisonInCopy => {
            "mm/shmem: remove page-copy fallback in shmem read path \
             (a large folio with a poisoned page is looked up once and copied page by page)"
        }
        Patch::ShmemFolioBatch => {
            "mm/shmem: optimize file read with folio batching \
             (filemap_get_folios_contig fills a batch of up to 31 folios, no folio lock; \
             holes fall back to shmem_get_folio)"
        }
    }
}

/// A line for a patch that changes nothing the model does, or `None`.
pub fn patch_behaviour(p: Patch) -> Option<&'static str> {
    (!p.changes_behaviour())
        .then_some("no change in behaviour: the model runs the same with it or without it")
}

/// Where a patch comes from: a lore link, a commit, or a seed file.
pub fn patch_source(p: Patch) -> &'static str {
    match p {
        Patch::ThpRaMmapMiss => {
            "https://lore.kernel.org/r/20251006175106.377411-1-roman.gushchin@linux.dev"
        }
        Patch::MmapHitFaultAddress => {
            "commit 0b9c0aeba938, https://lkml.rescloud.iu.edu/hypermail/linux/kernel/2604.3/05792.html"
        }
        Patch::MmapHitNotTried => {
            "commit 9b0fcac3cfe7, https://lkml.rescloud.iu.edu/hypermail/linux/kernel/2604.3/05792.html"
        }
        Patch::MmapMissSeqSymmetric => {
            "https://lore.kernel.org/r/20260525145751.2671248-1-usama.arif@linux.dev"
        }
        Patch::RaNoMarkerAtEof => "mm/readahead.c between 6.18 and 7.2 (do_page_cache_ra, page_cache_ra_order)",
        Patch::ExecBypassMmapMiss | Patch::ExecThpOrderV7 => {
            "seed 003_a4c409d76b7fdaa2.txt, [PATCH v7 0/2] mm: improve large folio readahead for exec memory"
        }
        Patch::ExecThpOrderV6 => {
            "https://lore.kernel.org/all/20260528165635.2068012-1-usama.arif@linux.dev/ (v6), seed 003"
        }
        Patch::DescRaHelpers | Patch::DescRaHugepage | Patch::DescRaSeqRead => {
            "seed 000_f39f93ff61fd38a9.txt, [PATCH v2 0/3] mm/filemap: read ahead for mmap readers that move backwards"
        }
        Patch::ReadBatchExitBeforeAdvance
        | Patch::ContigExitBeforeAdvance
        | Patch::ShmemCopyZeroToIter
        | Patch::ShmemHwpoisonInCopy
        | Patch::ShmemFolioBatch => {
            "seed 004_025df3dcdb2ef7bd.txt, [PATCH v2 0/5] mm/shmem: optimize read with reduced xarray lookups and folio batching"
        }
        Patch::ReadBatchExitAfterAdvance | Patch::ContigExitAfterAdvance => {
            "seed 004, Matthew Wilcox's reply to patch 1/5 (\"make the same change in patch 2/5\"); in 7.3.4"
        }
        Patch::ShmemIovIterZero | Patch::IovIterZeroPage => {
            "seed 004, Matthew Wilcox's reply to patch 3/5 (\"I think Hugh put this optimisation in the wrong place\")"
        }
    }
}

/// What a kernel variant is, in one line.
pub fn variant(v: Variant) -> &'static str {
    match v {
        Variant::V6_18 => "Linux 6.18 as measured on these machines (6.18.44)",
        Variant::V7_4Rc2 => "v7.4-rc2's fault path and readahead (as in 7.2.13 and 7.3.4)",
        Variant::V7_4Rc2Before0b9c => {
            "v7.4-rc2 just before 0b9c0aeba938 (seed 000's reference)"
        }
        Variant::V7_4Rc2DescRa => {
            "v7.4-rc2 + [PATCH v2 0/3] read ahead for mmap readers that move backwards"
        }
        Variant::Mm20260528 => {
            "mm-unstable of 28 May 2026, before the exec series (seed 003's baseline)"
        }
        Variant::Mm20260528ExecV6 => "mm-unstable of 28 May 2026 + exec series v6",
        Variant::Mm20260528ExecV7 => "mm-unstable of 28 May 2026 + exec series v7",
        Variant::V7_1Rc5 => {
            "v7.1-rc5: shmem_file_read_iter as in 6.18 (seed 004's baseline)"
        }
        Variant::V7_1Rc5Fbatch => {
            "v7.1-rc5 + [PATCH v2 0/5] mm/shmem: optimize read with reduced xarray lookups and folio batching"
        }
    }
}

/// What a mark on the timeline is called, as "next ..." reads it.
pub fn mark(m: Mark) -> &'static str {
    match m {
        Mark::MajorFault => "major fault",
        Mark::Readahead => "readahead",
        Mark::LotsaMissCrossing => "MMAP_LOTSAMISS crossing",
    }
}
