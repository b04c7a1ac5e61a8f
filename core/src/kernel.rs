//! Kernel variants: a base kernel plus a set of patches, each a named
//! switch on the one model. A variant is never a copy of the model; the
//! code tests `kernel.has(Patch::X)` where a patch changes behaviour.
//!
//! The base is Linux 6.18 as measured on these machines (6.18.44). Later
//! kernels are the base with the patches merged since switched on; a patch
//! series under review adds its patches one toggle each, so the web app can
//! flip them hunk by hunk.

/// One patch (or one hunk of a series) the model can switch on. All but
/// those [`Patch::changes_behaviour`] names change what the model does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Patch {
    /// Roman Gushchin, v3, Oct 2025 (merged for 6.19).
    ThpRaMmapMiss,
    /// fujunjie, patch 1 of "tighten mmap_miss hit accounting" (0b9c0aeba938).
    MmapHitFaultAddress,
    /// fujunjie, patch 2 (9b0fcac3cfe7).
    MmapHitNotTried,
    /// Usama Arif, May 2026.
    MmapMissSeqSymmetric,
    /// 7.x readahead: no PG_readahead marker on a window cut off at EOF.
    RaNoMarkerAtEof,
    /// Usama Arif, exec series patch 1/2 (v6 = v7).
    ExecBypassMmapMiss,
    /// Usama Arif, exec series patch 2/2, v6.
    ExecThpOrderV6,
    /// Usama Arif, exec series patch 2/2, v7 (merged).
    ExecThpOrderV7,
    /// Qiliang Yuan, seed 000, patch 1: helpers only.
    DescRaHelpers,
    /// Qiliang Yuan, seed 000, patch 2.
    DescRaHugepage,
    /// Qiliang Yuan, seed 000, patch 3.
    DescRaSeqRead,
    /// Chi Zhiling, fbatch v2 patch 1: `filemap_get_read_batch` stops once
    /// a folio reaches `max`, before the `xas_advance`.
    ReadBatchExitBeforeAdvance,
    /// Patch 1 in Matthew Wilcox's shorter form (as in 7.3.4): the batch
    /// stops right after the `xas_advance`.
    ReadBatchExitAfterAdvance,
    /// Chi Zhiling, fbatch v2 patch 2: `filemap_get_folios_contig` stops
    /// once a folio reaches `end`, before the `xas_advance`.
    ContigExitBeforeAdvance,
    /// Patch 2 in Matthew Wilcox's form (as in 7.3.4): the walk stops
    /// right after the `xas_advance`.
    ContigExitAfterAdvance,
    /// fbatch v2 patch 3: `copy_zero_to_iter`, large zero copies.
    ShmemCopyZeroToIter,
    /// Matthew Wilcox's shmem hunk: every hole goes to `iov_iter_zero`.
    ShmemIovIterZero,
    /// Matthew Wilcox's lib/iov_iter.c hunk: `iov_iter_zero` copies the zero page.
    IovIterZeroPage,
    /// fbatch v2 patch 4: hwpoison handled inside the copy.
    ShmemHwpoisonInCopy,
    /// fbatch v2 patch 5: folio batching in `shmem_file_read_iter`.
    ShmemFolioBatch,
}

impl Patch {
    pub const ALL: [Patch; 20] = [
        Patch::ThpRaMmapMiss,
        Patch::MmapHitFaultAddress,
        Patch::MmapHitNotTried,
        Patch::MmapMissSeqSymmetric,
        Patch::RaNoMarkerAtEof,
        Patch::ExecBypassMmapMiss,
        Patch::ExecThpOrderV6,
        Patch::ExecThpOrderV7,
        Patch::DescRaHelpers,
        Patch::DescRaHugepage,
        Patch::DescRaSeqRead,
        Patch::ReadBatchExitBeforeAdvance,
        Patch::ReadBatchExitAfterAdvance,
        Patch::ContigExitBeforeAdvance,
        Patch::ContigExitAfterAdvance,
        Patch::ShmemCopyZeroToIter,
        Patch::ShmemIovIterZero,
        Patch::IovIterZeroPage,
        Patch::ShmemHwpoisonInCopy,
        Patch::ShmemFolioBatch,
    ];

    /// Patches that rewrite the same hunk another way: at most one of each
    /// pair can be applied.
    pub const EXCLUSIVE: [(Patch, Patch); 4] = [
        (Patch::ExecThpOrderV6, Patch::ExecThpOrderV7),
        (
            Patch::ReadBatchExitBeforeAdvance,
            Patch::ReadBatchExitAfterAdvance,
        ),
        (
            Patch::ContigExitBeforeAdvance,
            Patch::ContigExitAfterAdvance,
        ),
        (Patch::ShmemCopyZeroToIter, Patch::ShmemIovIterZero),
    ];

    /// Whether the model behaves differently with the patch. A series can
    /// hold a patch that only moves code (seed 000's patch 1 makes helpers
    /// for the two that follow); it is a toggle so the series reads patch
    /// by patch, and nothing in the model tests it.
    pub fn changes_behaviour(self) -> bool {
        !matches!(self, Patch::DescRaHelpers)
    }

    fn bit(self) -> u64 {
        1 << (self as u32)
    }

    /// The name used on command lines and in links.
    pub fn name(self) -> &'static str {
        match self {
            Patch::ThpRaMmapMiss => "thp-ra-mmap-miss",
            Patch::MmapHitFaultAddress => "mmap-hit-fault-address",
            Patch::MmapHitNotTried => "mmap-hit-not-tried",
            Patch::MmapMissSeqSymmetric => "mmap-miss-seq-symmetric",
            Patch::RaNoMarkerAtEof => "ra-no-marker-at-eof",
            Patch::ExecBypassMmapMiss => "exec-bypass-mmap-miss",
            Patch::ExecThpOrderV6 => "exec-thp-order-v6",
            Patch::ExecThpOrderV7 => "exec-thp-order-v7",
            Patch::DescRaHelpers => "desc-ra-1-helpers",
            Patch::DescRaHugepage => "desc-ra-2-hugepage",
            Patch::DescRaSeqRead => "desc-ra-3-seq-read",
            Patch::ReadBatchExitBeforeAdvance => "fbatch-1-read-batch",
            Patch::ReadBatchExitAfterAdvance => "fbatch-1-exit-after-advance",
            Patch::ContigExitBeforeAdvance => "fbatch-2-contig",
            Patch::ContigExitAfterAdvance => "fbatch-2-exit-after-advance",
            Patch::ShmemCopyZeroToIter => "fbatch-3-copy-zero",
            Patch::ShmemIovIterZero => "fbatch-3-shmem-iov-iter-zero",
            Patch::IovIterZeroPage => "fbatch-3-iov-iter-zero-page",
            Patch::ShmemHwpoisonInCopy => "fbatch-4-hwpoison",
            Patch::ShmemFolioBatch => "fbatch-5-folio-batch",
        }
    }
}

/// A set of patches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PatchSet(u64);

impl PatchSet {
    pub fn of(patches: &[Patch]) -> Self {
        patches.iter().fold(PatchSet::default(), |s, p| s.with(*p))
    }
    pub fn with(mut self, p: Patch) -> Self {
        self.0 |= p.bit();
        self
    }
    pub fn without(mut self, p: Patch) -> Self {
        self.0 &= !p.bit();
        self
    }
    pub fn contains(&self, p: Patch) -> bool {
        self.0 & p.bit() != 0
    }
    pub fn iter(&self) -> impl Iterator<Item = Patch> + '_ {
        Patch::ALL.into_iter().filter(|p| self.contains(*p))
    }

    /// The first pair of patches in the set that rewrite the same hunk.
    pub fn conflict(&self) -> Option<(Patch, Patch)> {
        Patch::EXCLUSIVE
            .into_iter()
            .find(|(a, b)| self.contains(*a) && self.contains(*b))
    }
}

/// A kernel: a named variant and the patches it carries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// The variant it started from.
    pub variant: Variant,
    pub patches: PatchSet,
}

/// The named kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Linux 6.18, the kernel of these machines.
    V6_18,
    /// v7.4-rc2: 6.18 with the mmap_miss and readahead changes merged since.
    V7_4Rc2,
    /// v7.4-rc2 without 0b9c0aeba938 and the retry patch after it: the
    /// seed's "just before 0b9c0aeba938" reference.
    V7_4Rc2Before0b9c,
    /// v7.4-rc2 with the descending-readahead series of seed 000.
    V7_4Rc2DescRa,
    /// mm-unstable of 28 May 2026, the exec series' base (seed 003's baseline).
    Mm20260528,
    /// That base with the exec series, v6.
    Mm20260528ExecV6,
    /// That base with the exec series, v7 (as merged).
    Mm20260528ExecV7,
    /// v7.1-rc5, the base of seed 004's shmem series.
    V7_1Rc5,
    /// v7.1-rc5 with the five patches of the fbatch v2 series.
    V7_1Rc5Fbatch,
}

impl Variant {
    pub const ALL: [Variant; 9] = [
        Variant::V6_18,
        Variant::V7_4Rc2,
        Variant::V7_4Rc2Before0b9c,
        Variant::V7_4Rc2DescRa,
        Variant::Mm20260528,
        Variant::Mm20260528ExecV6,
        Variant::Mm20260528ExecV7,
        Variant::V7_1Rc5,
        Variant::V7_1Rc5Fbatch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Variant::V6_18 => "v6.18",
            Variant::V7_4Rc2 => "v7.4-rc2",
            Variant::V7_4Rc2Before0b9c => "v7.4-rc2-before-0b9c0aeba938",
            Variant::V7_4Rc2DescRa => "v7.4-rc2+desc-ra",
            Variant::Mm20260528 => "mm-2026-05-28",
            Variant::Mm20260528ExecV6 => "mm-2026-05-28+exec-v6",
            Variant::Mm20260528ExecV7 => "mm-2026-05-28+exec-v7",
            Variant::V7_1Rc5 => "v7.1-rc5",
            Variant::V7_1Rc5Fbatch => "v7.1-rc5+fbatch",
        }
    }

    /// The patches the variant carries on top of the 6.18 model.
    pub fn patches(self) -> PatchSet {
        let mm_0528 = PatchSet::of(&[
            Patch::ThpRaMmapMiss,
            Patch::MmapHitFaultAddress,
            Patch::MmapHitNotTried,
            Patch::MmapMissSeqSymmetric,
            Patch::RaNoMarkerAtEof,
        ]);
        // Patches 1 and 2 of seed 004 reached 7.3.4 in Matthew Wilcox's form.
        let v7_4 = mm_0528
            .with(Patch::ExecBypassMmapMiss)
            .with(Patch::ExecThpOrderV7)
            .with(Patch::ReadBatchExitAfterAdvance)
            .with(Patch::ContigExitAfterAdvance);
        // The EOF marker change is in 7.2.13; which release took it was
        // not pinned down, and no seed-004 figure depends on it.
        let v7_1 = PatchSet::of(&[Patch::ThpRaMmapMiss, Patch::RaNoMarkerAtEof]);
        match self {
            Variant::V6_18 => PatchSet::default(),
            Variant::V7_4Rc2 => v7_4,
            Variant::V7_4Rc2Before0b9c => v7_4
                .without(Patch::MmapHitFaultAddress)
                .without(Patch::MmapHitNotTried),
            Variant::V7_4Rc2DescRa => v7_4
                .with(Patch::DescRaHelpers)
                .with(Patch::DescRaHugepage)
                .with(Patch::DescRaSeqRead),
            Variant::Mm20260528 => mm_0528,
            Variant::Mm20260528ExecV6 => mm_0528
                .with(Patch::ExecBypassMmapMiss)
                .with(Patch::ExecThpOrderV6),
            Variant::Mm20260528ExecV7 => mm_0528
                .with(Patch::ExecBypassMmapMiss)
                .with(Patch::ExecThpOrderV7),
            Variant::V7_1Rc5 => v7_1,
            Variant::V7_1Rc5Fbatch => v7_1
                .with(Patch::ReadBatchExitBeforeAdvance)
                .with(Patch::ContigExitBeforeAdvance)
                .with(Patch::ShmemCopyZeroToIter)
                .with(Patch::ShmemHwpoisonInCopy)
                .with(Patch::ShmemFolioBatch),
        }
    }

    pub fn by_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }
}

impl Kernel {
    pub fn v6_18() -> Self {
        Kernel::from_variant(Variant::V6_18)
    }

    pub fn from_variant(variant: Variant) -> Self {
        Kernel {
            variant,
            patches: variant.patches(),
        }
    }

    #[inline]
    pub fn has(&self, p: Patch) -> bool {
        self.patches.contains(p)
    }

    /// The variant's name, with `+patch` or `-patch` for each difference.
    pub fn label(&self) -> String {
        let mut s = self.variant.name().to_string();
        let base = self.variant.patches();
        for p in Patch::ALL {
            match (base.contains(p), self.patches.contains(p)) {
                (false, true) => s.push_str(&format!("+{}", p.name())),
                (true, false) => s.push_str(&format!("-{}", p.name())),
                _ => {}
            }
        }
        s
    }
}
