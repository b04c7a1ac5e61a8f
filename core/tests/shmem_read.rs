//! The tmpfs read path (mm/shmem.c, seed 004) against the counts worked out
//! by hand from `shmem_file_read_iter`, `shmem_get_folio` and the fbatch v2
//! patches: per `read()` call, for every file kind, THP setting and block
//! size of the seed's tables. A 64 MiB file has the same three-level tree
//! as the seed's 1 GiB one, so the per-call counts are the same.

use folioscope_core::Counters;
use folioscope_core::{
    Backing, Config, Kernel, NoEvents, Patch, Pattern, Scenario, Simulation, TmpfsFile, Variant,
};

const SIZE: u64 = 64 << 20;

/// The counts of one run, and the xarray's, per read() call.
#[derive(Debug, PartialEq)]
struct PerRead {
    iterations: u64,
    sgf: u64,
    contig: u64,
    xas_load: u64,
    nodes: u64,
    xas_next: u64,
    get: u64,
    put: u64,
    lock: u64,
    unlock: u64,
    data_chunks: u64,
    zero_chunks: u64,
    errors: u64,
}

fn run_kernel(
    kernel: Kernel,
    file: TmpfsFile,
    huge: bool,
    bs: u64,
    poison: Option<u64>,
) -> (Counters, folioscope_core::XaStats) {
    let cfg = Config::new(Scenario {
        kernel,
        file_size: SIZE,
        pattern: Pattern::Read { bs },
        backing: Backing::Tmpfs { huge, file },
        hwpoison: poison,
        ..Scenario::default()
    })
    .expect("a valid tmpfs scenario");
    let mut sim = Simulation::new(cfg);
    sim.run(&mut NoEvents);
    (*sim.machine().counters(), sim.machine().lookups())
}

fn per_read(kernel: Kernel, file: TmpfsFile, huge: bool, bs: u64) -> PerRead {
    let (c, xa) = run_kernel(kernel, file, huge, bs, None);
    let n = c.accesses;
    assert_eq!(n, SIZE / bs);
    let each = |v: u64| {
        assert_eq!(
            v % n,
            0,
            "a count that is not the same for every read: {v} over {n}"
        );
        v / n
    };
    PerRead {
        iterations: each(c.read_iterations),
        sgf: each(c.shmem_get_folio),
        contig: each(c.get_folios_contig),
        xas_load: each(xa.xas_load),
        nodes: each(xa.node_visits),
        xas_next: each(xa.xas_next),
        get: each(c.folio_get),
        put: each(c.folio_put),
        lock: each(c.folio_lock),
        unlock: each(c.folio_unlock),
        data_chunks: each(c.copy_chunks),
        zero_chunks: each(c.zero_chunks),
        errors: each(c.read_errors),
    }
}

fn expected_baseline(file: TmpfsFile, huge: bool, bs: u64) -> PerRead {
    let p = bs / 4096;
    let (it, nodes_each, refs) = match (file, huge) {
        (TmpfsFile::Written, true) => (1, 2, 1),
        (TmpfsFile::Sparse, _) => (p, 0, 0),
        (_, true) => (p, 2, p),
        (_, false) => (p, 3, p),
    };
    PerRead {
        iterations: it,
        sgf: it,
        contig: 0,
        xas_load: it,
        nodes: it * nodes_each,
        xas_next: 0,
        get: refs,
        put: refs,
        lock: refs,
        unlock: refs,
        data_chunks: if file == TmpfsFile::Written { p } else { 0 },
        zero_chunks: if file == TmpfsFile::Written { 0 } else { p },
        errors: 0,
    }
}

fn expected_fbatch(file: TmpfsFile, huge: bool, bs: u64, patch2: bool) -> PerRead {
    let p = bs / 4096;
    let data_chunks = if file == TmpfsFile::Written { p } else { 0 };
    let zero_chunks = p - data_chunks;
    if file == TmpfsFile::Sparse {
        // Every page: an empty batch, then the shmem_get_folio fallback.
        return PerRead {
            iterations: p,
            sgf: p,
            contig: p,
            xas_load: 2 * p,
            nodes: 0,
            xas_next: 0,
            get: 0,
            put: 0,
            lock: 0,
            unlock: 0,
            data_chunks,
            zero_chunks,
            errors: 0,
        };
    }
    if huge {
        return PerRead {
            iterations: 1,
            sgf: 0,
            contig: 1,
            xas_load: 1,
            nodes: 2 + u64::from(!patch2),
            xas_next: u64::from(!patch2),
            get: 1,
            put: 1,
            lock: 0,
            unlock: 0,
            data_chunks,
            zero_chunks,
            errors: 0,
        };
    }
    let calls = p.div_ceil(31);
    // Leaf boundaries the xas_next walks cross inside one read; without
    // patch 2 the last call of a read also steps into the next leaf when
    // the read ends on one (a 1M read always does; 64k reads one in four).
    let crossings = if bs == 1 << 20 { 3 } else { 0 };
    PerRead {
        iterations: p,
        sgf: 0,
        contig: calls,
        xas_load: calls,
        nodes: 3 * calls + 2 * crossings,
        xas_next: p - calls + u64::from(!patch2),
        get: p,
        put: p,
        lock: 0,
        unlock: 0,
        data_chunks,
        zero_chunks,
        errors: 0,
    }
}

#[test]
fn the_baseline_makes_one_lookup_per_page_or_folio() {
    for huge in [false, true] {
        for file in TmpfsFile::ALL {
            for bs in [1 << 20, 65536, 4096] {
                assert_eq!(
                    per_read(Kernel::from_variant(Variant::V7_1Rc5), file, huge, bs),
                    expected_baseline(file, huge, bs),
                    "v7.1-rc5, {} file, huge {huge}, bs {bs}",
                    file.name()
                );
            }
        }
    }
}

#[test]
fn the_series_batches_lookups_and_falls_back_on_holes() {
    for huge in [false, true] {
        for file in TmpfsFile::ALL {
            for bs in [1 << 20, 65536, 4096] {
                assert_eq!(
                    per_read(Kernel::from_variant(Variant::V7_1Rc5Fbatch), file, huge, bs),
                    expected_fbatch(file, huge, bs, true),
                    "v7.1-rc5+fbatch, {} file, huge {huge}, bs {bs}",
                    file.name()
                );
            }
        }
    }
}

#[test]
fn patch_2_saves_the_xas_next_past_the_end_of_each_read() {
    let with = Kernel::from_variant(Variant::V7_1Rc5Fbatch);
    let mut without = with.clone();
    without.patches = without.patches.without(Patch::ContigExitBeforeAdvance);
    for huge in [false, true] {
        for file in [TmpfsFile::Written, TmpfsFile::Fallocated] {
            for bs in [1 << 20, 65536, 4096] {
                let (a, xa_a) = run_kernel(with.clone(), file, huge, bs, None);
                let (b, xa_b) = run_kernel(without.clone(), file, huge, bs, None);
                // One more xas_next and xas_advance per read; the walk
                // past the end sometimes crosses into the next node.
                assert_eq!(xa_b.xas_next, xa_a.xas_next + b.accesses, "{}", file.name());
                assert_eq!(xa_b.xas_advance, xa_a.xas_advance + b.accesses);
                assert!(xa_b.node_visits >= xa_a.node_visits);
                assert_eq!(xa_b.xas_load, xa_a.xas_load);
                assert_eq!(a, b, "nothing else changes");
            }
        }
    }
}

#[test]
fn patch_1_does_not_touch_the_tmpfs_read_path() {
    let base = Kernel::from_variant(Variant::V7_1Rc5);
    for p in [
        Patch::ReadBatchExitBeforeAdvance,
        Patch::ReadBatchExitAfterAdvance,
    ] {
        let mut k = base.clone();
        k.patches = k.patches.with(p);
        for file in TmpfsFile::ALL {
            assert_eq!(
                run_kernel(k.clone(), file, false, 65536, None),
                run_kernel(base.clone(), file, false, 65536, None)
            );
        }
    }
}

#[test]
fn batching_without_a_large_zero_copy_fails_on_large_fallocated_folios() {
    let mut k = Kernel::from_variant(Variant::V7_1Rc5Fbatch);
    k.patches = k.patches.without(Patch::ShmemCopyZeroToIter);
    // page_copy_sane refuses 64 KiB from the 4 KiB zero page: -EFAULT.
    let got = per_read(k.clone(), TmpfsFile::Fallocated, true, 65536);
    assert_eq!(got.errors, 1);
    assert_eq!(got.zero_chunks, 0);
    // Order-0 folios never ask for more than a page.
    assert_eq!(per_read(k, TmpfsFile::Fallocated, false, 65536).errors, 0);
}

#[test]
fn holes_sent_to_iov_iter_zero_are_cleared_or_copied_from_the_zero_page() {
    let mut shmem_only = Kernel::from_variant(Variant::V7_1Rc5Fbatch);
    shmem_only.patches = shmem_only
        .patches
        .without(Patch::ShmemCopyZeroToIter)
        .with(Patch::ShmemIovIterZero);
    let (c, _) = run_kernel(
        shmem_only.clone(),
        TmpfsFile::Fallocated,
        true,
        1 << 20,
        None,
    );
    assert_eq!(c.bytes_cleared, SIZE);
    assert_eq!(c.clear_calls, c.accesses);
    assert_eq!(c.bytes_zero_copied, 0);
    let mut both = shmem_only;
    both.patches = both.patches.with(Patch::IovIterZeroPage);
    let (c, _) = run_kernel(both, TmpfsFile::Fallocated, true, 1 << 20, None);
    assert_eq!((c.bytes_cleared, c.bytes_zero_copied), (0, SIZE));
    assert_eq!(c.zero_chunks, SIZE / 4096);
}

#[test]
fn a_poisoned_page_in_a_large_folio() {
    // Page 700 lies in the second PMD folio (pages 512..1024).
    let poison = Some(700);
    let base = Kernel::from_variant(Variant::V7_1Rc5);
    let (c, _) = run_kernel(base, TmpfsFile::Written, true, 1 << 20, poison);
    // The read of 512..768 goes page by page, a lookup per 4 KiB, and
    // stops at page 700 with -EIO after copying 188 pages.
    let reads = SIZE >> 20;
    assert_eq!(c.read_errors, 1);
    // Both 1M reads of the poisoned folio go page by page; the first stops
    // at the poisoned page.
    assert_eq!(c.shmem_get_folio, (reads - 2) + (700 - 512 + 1) + 256);
    assert_eq!(c.bytes_copied, SIZE - (768 - 700) * 4096);
    let mut patched = Kernel::from_variant(Variant::V7_1Rc5);
    patched.patches = patched.patches.with(Patch::ShmemHwpoisonInCopy);
    let (p, _) = run_kernel(patched, TmpfsFile::Written, true, 1 << 20, poison);
    // Patch 4: one lookup for that read, the copy checks page by page.
    assert_eq!(p.read_errors, 1);
    assert_eq!(p.shmem_get_folio, reads);
    assert_eq!(p.bytes_copied, c.bytes_copied);
}

#[test]
fn conflicting_versions_of_one_hunk_are_refused() {
    let mut k = Kernel::from_variant(Variant::V7_1Rc5Fbatch);
    k.patches = k.patches.with(Patch::ShmemIovIterZero);
    let err = Config::new(Scenario {
        kernel: k,
        file_size: SIZE,
        pattern: Pattern::Read { bs: 4096 },
        backing: Backing::Tmpfs {
            huge: false,
            file: TmpfsFile::Written,
        },
        ..Scenario::default()
    })
    .unwrap_err();
    assert_eq!(err.field, "kernel");
}
