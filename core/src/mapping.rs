//! The process side of an mmap of the file: one VMA over the whole file,
//! its `vm_flags`, and its page tables, reduced to what the fault path
//! reads (mm/memory.c, Linux 6.18): which pages have a PTE, and for each
//! PMD-sized range whether the PMD is none, points to a page table, or maps
//! a PMD-sized folio.
//!
//! The VMA starts on a PMD boundary with `vm_pgoff` 0, as
//! `thp_get_unmapped_area` arranges for ext4 files, so page index and PTE
//! index agree modulo `PTRS_PER_PTE`.

use crate::config::Madvise;
use crate::cow::{Frozen, TrackedVec};

/// PTE words per frozen chunk.
const PTE_CHUNK: usize = 512;

/// The PTE bits of a mapping, frozen for a checkpoint.
pub(crate) type FrozenPte = Frozen<u64, PTE_CHUNK>;

/// The `vm_flags` bits the fault path tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VmFlags {
    /// VM_HUGEPAGE (MADV_HUGEPAGE).
    pub hugepage: bool,
    /// VM_SEQ_READ (MADV_SEQUENTIAL).
    pub seq_read: bool,
    /// VM_RAND_READ (MADV_RANDOM).
    pub rand_read: bool,
    /// VM_EXEC.
    pub exec: bool,
}

impl VmFlags {
    /// The flags `madvise()` leaves. MADV_HUGEPAGE fails with -EINVAL
    /// without CONFIG_TRANSPARENT_HUGEPAGE, leaving the mapping normal.
    pub fn from_madvise(m: Madvise, thp: bool, exec: bool) -> Self {
        VmFlags {
            hugepage: m == Madvise::Hugepage && thp,
            seq_read: m == Madvise::Sequential,
            rand_read: m == Madvise::Random,
            exec,
        }
    }
}

/// What a PMD entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pmd {
    None,
    /// Points to a page table of PTEs.
    Table,
    /// Maps a PMD-sized folio.
    Huge,
}

/// One VMA and its page tables.
#[derive(Clone, Debug)]
pub struct Mapping {
    pub vm_flags: VmFlags,
    /// `vma_pages(vma)`.
    pub vm_pages: u64,
    pub ptrs_per_pte: u64,
    /// log2(PTRS_PER_PTE), to index PMDs with a shift.
    pmd_shift: u32,
    /// One bit per page; written chunks (512 words, 32768 pages) are
    /// tracked for checkpoints, as the xarray's nodes are.
    pte: TrackedVec<u64, PTE_CHUNK>,
    /// One byte per PMD: small enough to copy whole.
    pmd: Vec<Pmd>,
    /// Pages mapped by PTEs.
    pub pte_mapped: u64,
    /// PMDs mapping a folio.
    pub pmd_mapped: u64,
    /// A hash of every mapped page and PMD, kept as they change.
    pub fingerprint: u64,
}

fn map_hash(page: u64, pmd: bool) -> u64 {
    crate::pattern::splitmix64((page << 1) | pmd as u64)
}

impl Mapping {
    pub fn new(vm_flags: VmFlags, vm_pages: u64, ptrs_per_pte: u64) -> Self {
        Mapping {
            vm_flags,
            vm_pages,
            ptrs_per_pte,
            pmd_shift: ptrs_per_pte.trailing_zeros(),
            pte: TrackedVec::filled(0, vm_pages.div_ceil(64) as usize),
            pmd: vec![Pmd::None; vm_pages.div_ceil(ptrs_per_pte) as usize],
            pte_mapped: 0,
            pmd_mapped: 0,
            fingerprint: 0,
        }
    }

    /// `pte_index(address)`.
    pub fn pte_index(&self, page: u64) -> u64 {
        page & (self.ptrs_per_pte - 1)
    }

    #[inline]
    pub fn pmd_of(&self, page: u64) -> Pmd {
        self.pmd[(page >> self.pmd_shift) as usize]
    }

    /// Whether a load from `page` finds a translation.
    #[inline]
    pub fn is_mapped(&self, page: u64) -> bool {
        match self.pmd_of(page) {
            Pmd::Huge => true,
            Pmd::None => false,
            Pmd::Table => self.pte[(page / 64) as usize] & (1 << (page % 64)) != 0,
        }
    }

    /// Whether a PTE (not a PMD) maps `page`.
    #[inline]
    pub fn pte_mapped(&self, page: u64) -> bool {
        self.pmd_of(page) == Pmd::Table && self.pte[(page / 64) as usize] & (1 << (page % 64)) != 0
    }

    /// `pte_none`: no PTE for this page (a PMD mapping counts as not none).
    #[inline]
    pub fn pte_none(&self, page: u64) -> bool {
        !self.is_mapped(page)
    }

    /// `set_pte_range` for `nr` pages from `first`; allocates the page
    /// table if the PMD was none.
    pub fn set_pte_range(&mut self, first: u64, nr: u64) {
        for page in first..first + nr {
            let w = &mut self.pte[(page / 64) as usize];
            let bit = 1u64 << (page % 64);
            if *w & bit == 0 {
                *w |= bit;
                self.pte_mapped += 1;
                self.fingerprint ^= map_hash(page, false);
            }
        }
        let pmd = (first >> self.pmd_shift) as usize;
        if self.pmd[pmd] == Pmd::None {
            self.pmd[pmd] = Pmd::Table;
        }
    }

    /// `pmd_install`: a page table for the range, with no PTEs yet.
    pub fn pmd_install(&mut self, page: u64) {
        let pmd = (page >> self.pmd_shift) as usize;
        if self.pmd[pmd] == Pmd::None {
            self.pmd[pmd] = Pmd::Table;
        }
    }

    /// `set_pmd_at`: a PMD mapping of the folio at `index`.
    pub fn set_pmd(&mut self, index: u64) {
        let pmd = (index >> self.pmd_shift) as usize;
        debug_assert_eq!(self.pmd[pmd], Pmd::None);
        self.pmd[pmd] = Pmd::Huge;
        self.pmd_mapped += 1;
        self.fingerprint ^= map_hash(index, true);
    }

    /// `thp_vma_suitable_order` for the PMD holding `page`: the whole PMD
    /// range lies inside the VMA.
    pub fn pmd_suitable(&self, page: u64) -> bool {
        let start = page & !(self.ptrs_per_pte - 1);
        start + self.ptrs_per_pte <= self.vm_pages
    }

    /// Unmaps a folio's pages, as reclaim's `try_to_unmap` does.
    pub fn unmap_range(&mut self, first: u64, nr: u64) {
        let pmd = (first >> self.pmd_shift) as usize;
        if self.pmd[pmd] == Pmd::Huge {
            self.pmd[pmd] = Pmd::None;
            self.pmd_mapped -= 1;
            self.fingerprint ^= map_hash(first & !(self.ptrs_per_pte - 1), true);
            return;
        }
        for page in first..(first + nr).min(self.vm_pages) {
            let w = &mut self.pte[(page / 64) as usize];
            let bit = 1u64 << (page % 64);
            if *w & bit != 0 {
                *w &= !bit;
                self.pte_mapped -= 1;
                self.fingerprint ^= map_hash(page, false);
            }
        }
    }

    /// Whether any page of the range has a translation.
    pub fn any_mapped(&self, first: u64, nr: u64) -> bool {
        (first..(first + nr).min(self.vm_pages)).any(|p| self.is_mapped(p))
    }

    /// The fingerprint computed from scratch, to check the running one.
    pub fn recompute_fingerprint(&self) -> u64 {
        let mut fp = 0;
        for (i, &pmd) in self.pmd.iter().enumerate() {
            if pmd == Pmd::Huge {
                fp ^= map_hash(i as u64 * self.ptrs_per_pte, true);
            }
        }
        for (w, &bits) in self.pte.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let i = b.trailing_zeros() as u64;
                fp ^= map_hash(w as u64 * 64 + i, false);
                b &= b - 1;
            }
        }
        fp
    }

    /// Whether both map the same pages the same way.
    pub fn same_mappings(&self, other: &Mapping) -> bool {
        self.fingerprint == other.fingerprint && self.pte == other.pte && self.pmd == other.pmd
    }

    /// Bytes the page-table model holds.
    pub fn memory_bytes(&self) -> usize {
        self.pte.memory_bytes() + self.pmd.capacity()
    }

    /// The PTE bits, frozen: chunks not written since `prev` was frozen
    /// from this mapping are shared with it.
    pub(crate) fn freeze_pte(&mut self, prev: Option<&FrozenPte>) -> FrozenPte {
        self.pte.freeze(prev)
    }

    /// Takes the PTE bits out, leaving none, so the rest clones cheaply.
    pub(crate) fn take_pte(&mut self) -> TrackedVec<u64, PTE_CHUNK> {
        std::mem::take(&mut self.pte)
    }

    pub(crate) fn put_pte(&mut self, pte: TrackedVec<u64, PTE_CHUNK>) {
        self.pte = pte;
    }

    pub(crate) fn thaw_pte(&mut self, frozen: &FrozenPte) {
        self.pte = TrackedVec::thaw(frozen);
    }
}
