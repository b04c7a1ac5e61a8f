//! The process side of an mmap of the file: a VMA, its `vm_flags`, and
//! its page tables, reduced to what the fault path reads (mm/memory.c,
//! Linux 6.18): which pages have a PTE, and for each PMD-sized range of
//! virtual addresses whether the PMD is none, points to a page table, or
//! maps a PMD-sized folio.
//!
//! A VMA maps `vm_pages` pages of the file from page `vm_pgoff` at virtual
//! page `vm_start`. The page tables are kept per VMA: fault-around never
//! crosses a VMA's ends, and a PMD can map a folio only where the VMA
//! covers the whole PMD range, so what one VMA sees of a page table that
//! it shares with a neighbour never changes what the fault path does.
//! Methods take file page indices, as the fault path does (`vmf->pgoff`),
//! and turn them into virtual pages where the page tables need them.
//!
//! A synthetic scenario's one mapping starts on a PMD boundary with
//! `vm_pgoff` 0, as `thp_get_unmapped_area` arranges for large ext4
//! mappings, so page index and PTE index agree modulo `PTRS_PER_PTE`.

use crate::config::Madvise;
use crate::cow::{Frozen, Store, TrackedVec};

/// PTE words per frozen chunk: 8192 pages. A random walk writes a word
/// here and one there, and each checkpoint copies the chunks it wrote.
/// Once chunks were numbered slots rather than counted allocations (see
/// `cow.rs`), a quarter of the old 512 cost the build no more: on the
/// 16 GiB link the timeline keeps a checkpoint every 256 accesses instead
/// of 512 within the same budget, with 84 MB of checkpoints a kernel
/// against 88, and e2e 06 (3 alternating runs) put its jump p95 at
/// 26.7 / 27.6 / 21.2 ms against 30.0 / 32.8 / 25.1, and its first render
/// at 857 / 965 / 837 ms against 985 / 998 / 1040. At 64 words the build
/// cost more than it gained. At 32 (2026-12-04) the link's PTE chunks
/// took 11.2 MB a kernel instead of 32.4, its peak 82.5 MB instead of
/// 103.4, and the native build was no slower; but in Chromium, 20 runs of
/// e2e 06 each, alternated in both orders, its jump median came to 10.9
/// against 10.05 ms and its first render to 729 against 708 ms (neither
/// a clear difference): no gain where the app runs, so it stayed at 128.
/// Since chunks are packed, memory is the reason for 32: the 16 GiB
/// comparison's checkpoints take 19.8 MB a kernel instead of 23.6 (the
/// walk example; the backward sequential link's 22.0 against 21.9), which
/// the app's wasm memory, held to 128 MB on 16 GiB views, needs more
/// than the build needs fewer chunks.
const PTE_CHUNK: usize = 32;

/// The PTE bits of a mapping, frozen for a checkpoint.
pub(crate) type FrozenPte = Frozen<u64, PTE_CHUNK>;

/// Where a timeline's frozen PTE bits are kept.
pub(crate) type PtePool = Store<u64, PTE_CHUNK>;

/// The virtual page where a synthetic scenario's mapping starts: a
/// PMD-aligned address of the kind `mmap` hands out for a large file.
pub const SYNTHETIC_VM_START: u64 = 0x7f00_0000_0000 >> 12;

/// The `vm_flags` bits the fault path tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VmFlags {
    /// VM_HUGEPAGE (MADV_HUGEPAGE).
    pub hugepage: bool,
    /// VM_NOHUGEPAGE (MADV_NOHUGEPAGE): `do_set_pmd` refuses PMD mappings.
    pub nohugepage: bool,
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
            nohugepage: false,
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
    /// `vma->vm_pgoff`: the file page the VMA starts at.
    pub vm_pgoff: u64,
    /// `vma->vm_start >> PAGE_SHIFT`.
    pub vm_start: u64,
    pub ptrs_per_pte: u64,
    /// log2(PTRS_PER_PTE), to index PMDs with a shift.
    pmd_shift: u32,
    /// The PMD index of `vm_start`, which `pmd[0]` stands for.
    pmd_base: u64,
    /// `vm_start - vm_pgoff`, wrapping: a file page plus this is its
    /// virtual page.
    vpn_delta: u64,
    /// One bit per page of the VMA; written chunks (`PTE_CHUNK` words)
    /// are tracked for checkpoints, as the xarray's nodes are.
    pte: TrackedVec<u64, PTE_CHUNK>,
    /// One byte per PMD the VMA touches: small enough to copy whole.
    pmd: Vec<Pmd>,
    /// This model's own: the PTE bits set under each PMD, kept as they
    /// change, so that a strip's count of mapped pages per column adds
    /// one number a page table instead of its 512 bits. The 16 GiB link's
    /// rebin counted all 65,536 words of its bits on every jump and every
    /// frame of play. Copied whole with the rest of a checkpoint's shell,
    /// as `pmd` is: two bytes a PMD.
    pmd_ptes: Vec<u16>,
    /// Pages mapped by PTEs.
    pub pte_mapped: u64,
    /// PMDs mapping a folio.
    pub pmd_mapped: u64,
    /// A hash of every mapped page and PMD, kept as they change.
    pub fingerprint: u64,
}

/// The low `nr` bits (`nr` at most 64).
fn low_bits(nr: u32) -> u64 {
    if nr >= 64 {
        u64::MAX
    } else {
        (1u64 << nr) - 1
    }
}

fn map_hash(page: u64, pmd: bool) -> u64 {
    crate::pattern::splitmix64((page << 1) | pmd as u64)
}

impl Mapping {
    /// A synthetic scenario's mapping: the whole file from a PMD boundary.
    pub fn new(vm_flags: VmFlags, vm_pages: u64, ptrs_per_pte: u64) -> Self {
        Mapping::at(vm_flags, SYNTHETIC_VM_START, vm_pages, 0, ptrs_per_pte)
    }

    /// A VMA of `vm_pages` pages of the file from page `vm_pgoff`, at
    /// virtual page `vm_start`, with no page tables yet.
    pub fn at(
        vm_flags: VmFlags,
        vm_start: u64,
        vm_pages: u64,
        vm_pgoff: u64,
        ptrs_per_pte: u64,
    ) -> Self {
        let pmd_shift = ptrs_per_pte.trailing_zeros();
        let pmd_base = vm_start >> pmd_shift;
        let pmd_last = (vm_start + vm_pages.max(1) - 1) >> pmd_shift;
        Mapping {
            vm_flags,
            vm_pages,
            vm_pgoff,
            vm_start,
            ptrs_per_pte,
            pmd_shift,
            pmd_base,
            vpn_delta: vm_start.wrapping_sub(vm_pgoff),
            pte: TrackedVec::filled(0, vm_pages.div_ceil(64) as usize),
            pmd: vec![Pmd::None; (pmd_last - pmd_base + 1) as usize],
            pmd_ptes: vec![0; (pmd_last - pmd_base + 1) as usize],
            pte_mapped: 0,
            pmd_mapped: 0,
            fingerprint: 0,
        }
    }

    /// A mapping of nothing, which holds the place of the one in use.
    pub(crate) fn placeholder(ptrs_per_pte: u64) -> Self {
        Mapping::at(VmFlags::default(), 0, 0, 0, ptrs_per_pte)
    }

    /// Forgets the page table bits' last frozen copy: the next freeze
    /// copies them all.
    pub(crate) fn forget_frozen(&mut self) {
        self.pte.forget_origin();
    }

    /// The virtual page at which file page `page` is mapped.
    #[inline]
    pub fn vpn_of(&self, page: u64) -> u64 {
        page.wrapping_add(self.vpn_delta)
    }

    /// Whether file page `page` lies inside the VMA.
    #[inline]
    pub fn contains(&self, page: u64) -> bool {
        page >= self.vm_pgoff && page - self.vm_pgoff < self.vm_pages
    }

    /// The bit of `page` in `pte`: its page offset within the VMA.
    #[inline]
    fn bit_of(&self, page: u64) -> u64 {
        page - self.vm_pgoff
    }

    #[inline]
    fn pmd_slot(&self, page: u64) -> usize {
        ((self.vpn_of(page) >> self.pmd_shift) - self.pmd_base) as usize
    }

    /// `pte_index(address)` of the address mapping file page `page`.
    pub fn pte_index(&self, page: u64) -> u64 {
        self.vpn_of(page) & (self.ptrs_per_pte - 1)
    }

    /// What the PMD over file page `page` holds; `page` must lie inside
    /// the VMA, as it does on the fault path. See [`Mapping::pmd_at`].
    #[inline]
    pub fn pmd_of(&self, page: u64) -> Pmd {
        self.pmd[self.pmd_slot(page)]
    }

    /// What the PMD over file page `page` holds, for any page: none
    /// outside the VMA.
    pub fn pmd_at(&self, page: u64) -> Pmd {
        if self.contains(page) {
            self.pmd_of(page)
        } else {
            Pmd::None
        }
    }

    /// Whether a PTE maps file page `page`, for any page.
    pub fn pte_mapped_at(&self, page: u64) -> bool {
        self.contains(page) && self.pte_mapped(page)
    }

    #[inline]
    fn pte_bit(&self, page: u64) -> bool {
        let b = self.bit_of(page);
        self.pte[(b / 64) as usize] & (1 << (b % 64)) != 0
    }

    /// Whether a load from `page` finds a translation.
    #[inline]
    pub fn is_mapped(&self, page: u64) -> bool {
        match self.pmd_of(page) {
            Pmd::Huge => true,
            Pmd::None => false,
            Pmd::Table => self.pte_bit(page),
        }
    }

    /// Whether a PTE (not a PMD) maps `page`.
    #[inline]
    pub fn pte_mapped(&self, page: u64) -> bool {
        self.pmd_of(page) == Pmd::Table && self.pte_bit(page)
    }

    /// `folio_within_vma` and one page table: whether a folio of `nr`
    /// pages at file page `index` lies inside the VMA, and its virtual
    /// range inside one PMD.
    pub fn folio_fits(&self, index: u64, nr: u64) -> bool {
        index >= self.vm_pgoff
            && index + nr <= self.vm_pgoff + self.vm_pages
            && self.vpn_of(index) >> self.pmd_shift == self.vpn_of(index + nr - 1) >> self.pmd_shift
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
            let b = self.bit_of(page);
            let w = &mut self.pte[(b / 64) as usize];
            let bit = 1u64 << (b % 64);
            if *w & bit == 0 {
                *w |= bit;
                self.pte_mapped += 1;
                let slot = self.pmd_slot(page);
                self.pmd_ptes[slot] += 1;
                self.fingerprint ^= map_hash(page, false);
            }
        }
        let pmd = self.pmd_slot(first);
        if self.pmd[pmd] == Pmd::None {
            self.pmd[pmd] = Pmd::Table;
        }
    }

    /// `set_pte_range` for each page of `want` (bit i for page `first +
    /// i`) that a load finds unmapped, in one write of the page table
    /// bits; returns those pages. The pages (at most 64) lie inside the VMA
    /// and under one PMD, as a fault-around window's do.
    pub fn map_unmapped(&mut self, first: u64, nr: u32, want: u64) -> u64 {
        let pmd = self.pmd_slot(first);
        let b = self.bit_of(first);
        let (w, s) = ((b / 64) as usize, (b % 64) as u32);
        let mapped = match self.pmd[pmd] {
            Pmd::Huge => return 0,
            // No page table: no PTE yet.
            Pmd::None => 0,
            Pmd::Table => {
                let mut bits = self.pte[w] >> s;
                if s != 0 && s + nr > 64 {
                    bits |= self.pte[w + 1] << (64 - s);
                }
                bits
            }
        };
        let new = want & low_bits(nr) & !mapped;
        if new == 0 {
            return 0;
        }
        self.pte[w] |= new << s;
        if s != 0 && new >> (64 - s) != 0 {
            self.pte[w + 1] |= new >> (64 - s);
        }
        self.pte_mapped += new.count_ones() as u64;
        self.pmd_ptes[pmd] += new.count_ones() as u16;
        let mut rest = new;
        while rest != 0 {
            self.fingerprint ^= map_hash(first + rest.trailing_zeros() as u64, false);
            rest &= rest - 1;
        }
        self.pmd[pmd] = Pmd::Table;
        new
    }

    /// `pmd_install`: a page table for the range, with no PTEs yet.
    pub fn pmd_install(&mut self, page: u64) {
        let pmd = self.pmd_slot(page);
        if self.pmd[pmd] == Pmd::None {
            self.pmd[pmd] = Pmd::Table;
        }
    }

    /// `set_pmd_at`: a PMD mapping of the folio at `index`.
    pub fn set_pmd(&mut self, index: u64) {
        let pmd = self.pmd_slot(index);
        debug_assert_eq!(self.pmd[pmd], Pmd::None);
        self.pmd[pmd] = Pmd::Huge;
        self.pmd_mapped += 1;
        self.fingerprint ^= map_hash(index, true);
    }

    /// `thp_vma_suitable_order` for the PMD holding `page`: the virtual
    /// and file offsets agree modulo a PMD, and the whole PMD range lies
    /// inside the VMA.
    pub fn pmd_suitable(&self, page: u64) -> bool {
        let mask = self.ptrs_per_pte - 1;
        if self.vm_start.wrapping_sub(self.vm_pgoff) & mask != 0 {
            return false;
        }
        let start = self.vpn_of(page) & !mask;
        start >= self.vm_start && start + self.ptrs_per_pte <= self.vm_start + self.vm_pages
    }

    /// Unmaps a folio's pages, as reclaim's `try_to_unmap` does: the
    /// PMD mapping it or the PTEs of its pages inside the VMA.
    pub fn unmap_range(&mut self, first: u64, nr: u64) {
        let lo = first.max(self.vm_pgoff);
        let hi = (first + nr).min(self.vm_pgoff + self.vm_pages);
        if lo >= hi {
            return;
        }
        let pmd = self.pmd_slot(lo);
        if self.pmd[pmd] == Pmd::Huge {
            self.pmd[pmd] = Pmd::None;
            self.pmd_mapped -= 1;
            let head = lo - (self.vpn_of(lo) & (self.ptrs_per_pte - 1));
            self.fingerprint ^= map_hash(head, true);
            return;
        }
        for page in lo..hi {
            let b = self.bit_of(page);
            let w = &mut self.pte[(b / 64) as usize];
            let bit = 1u64 << (b % 64);
            if *w & bit != 0 {
                *w &= !bit;
                self.pte_mapped -= 1;
                let slot = self.pmd_slot(page);
                self.pmd_ptes[slot] -= 1;
                self.fingerprint ^= map_hash(page, false);
            }
        }
    }

    /// Splits the VMA at virtual page `at` (inside it): this keeps the pages
    /// below, the returned VMA holds the rest. A PMD mapping across `at`
    /// is split into PTEs first, as `split_huge_pmd` does.
    pub fn split_off(&mut self, at: u64) -> Mapping {
        debug_assert!(at > self.vm_start && at < self.vm_start + self.vm_pages);
        let mask = self.ptrs_per_pte - 1;
        let at_page = self.vm_pgoff + at - self.vm_start;
        if at & mask != 0 && self.pmd_of(at_page) == Pmd::Huge {
            let head = at_page - (at & mask);
            let slot = self.pmd_slot(head);
            self.pmd[slot] = Pmd::Table;
            self.pmd_mapped -= 1;
            self.set_pte_range(head, self.ptrs_per_pte);
        }
        let mut right = Mapping::at(
            self.vm_flags,
            at,
            self.vm_start + self.vm_pages - at,
            at_page,
            self.ptrs_per_pte,
        );
        for page in at_page..self.vm_pgoff + self.vm_pages {
            match self.pmd_of(page) {
                Pmd::Huge if right.pmd_of(page) == Pmd::None => {
                    let slot = right.pmd_slot(page);
                    right.pmd[slot] = Pmd::Huge;
                    right.pmd_mapped += 1;
                }
                Pmd::Table => {
                    right.pmd_install(page);
                    if self.pte_bit(page) {
                        right.set_pte_range(page, 1);
                    }
                }
                _ => {}
            }
        }
        self.vm_pages = at - self.vm_start;
        let mut pte = TrackedVec::filled(0, self.vm_pages.div_ceil(64) as usize);
        for w in 0..pte.len() {
            let keep = if (w as u64 + 1) * 64 <= self.vm_pages {
                u64::MAX
            } else {
                (1u64 << (self.vm_pages % 64)) - 1
            };
            pte[w] = self.pte[w] & keep;
        }
        self.pte = pte;
        let last = (self.vm_start + self.vm_pages - 1) >> self.pmd_shift;
        self.pmd.truncate((last - self.pmd_base + 1) as usize);
        self.pmd_ptes = self.count_pmd_ptes();
        self.pte_mapped = self.pte.iter().map(|w| w.count_ones() as u64).sum();
        self.pmd_mapped = self.pmd.iter().filter(|&&p| p == Pmd::Huge).count() as u64;
        self.fingerprint = self.recompute_fingerprint();
        right.fingerprint = right.recompute_fingerprint();
        right
    }

    /// How many file pages of `[first, end)` a PTE maps, and how many lie
    /// under a PMD mapping: one PMD-sized step at a time, counting PTE bits
    /// by whole words.
    pub(crate) fn count_mapped(&self, first: u64, end: u64) -> (u64, u64) {
        let lo = first.max(self.vm_pgoff);
        let hi = end.min(self.vm_pgoff + self.vm_pages);
        let mask = self.ptrs_per_pte - 1;
        let (mut pte, mut pmd) = (0, 0);
        let mut p = lo;
        while p < hi {
            let seg_end = (p + (self.ptrs_per_pte - (self.vpn_of(p) & mask))).min(hi);
            let slot = self.pmd_slot(p);
            match self.pmd[slot] {
                Pmd::Huge => pmd += seg_end - p,
                // A whole page table: its count.
                Pmd::Table if seg_end - p == self.ptrs_per_pte => pte += self.pmd_ptes[slot] as u64,
                Pmd::Table => pte += self.count_pte_bits(self.bit_of(p), self.bit_of(seg_end)),
                Pmd::None => {}
            }
            p = seg_end;
        }
        (pte, pmd)
    }

    /// Set PTE bits in `[from, to)`: the words between the first and the
    /// last counted whole, those two masked. The strip counts every PMD's
    /// worth of a large file this way on each jump.
    fn count_pte_bits(&self, from: u64, to: u64) -> u64 {
        if from >= to {
            return 0;
        }
        let pte = &self.pte.as_slice()[(from / 64) as usize..=((to - 1) / 64) as usize];
        let head = u64::MAX << (from % 64);
        let tail = u64::MAX >> (63 - (to - 1) % 64);
        let [first, middle @ .., last] = pte else {
            return (pte[0] & head & tail).count_ones() as u64;
        };
        let whole: u32 = middle.iter().map(|w| w.count_ones()).sum();
        ((first & head).count_ones() + whole + (last & tail).count_ones()) as u64
    }

    /// The PTE bits set under each PMD, counted from the bits: what
    /// `pmd_ptes` keeps.
    fn count_pmd_ptes(&self) -> Vec<u16> {
        let mut counts = vec![0u16; self.pmd.len()];
        for (w, &bits) in self.pte.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let page = self.vm_pgoff + w as u64 * 64 + b.trailing_zeros() as u64;
                counts[self.pmd_slot(page)] += 1;
                b &= b - 1;
            }
        }
        counts
    }

    /// Whether the kept counts of PTEs per PMD are the bits' counts: for
    /// the crate's invariant checks.
    #[cfg(test)]
    pub(crate) fn pmd_ptes_agree(&self) -> bool {
        self.pmd_ptes == self.count_pmd_ptes()
    }

    /// Whether any page of the range has a translation.
    pub fn any_mapped(&self, first: u64, nr: u64) -> bool {
        let lo = first.max(self.vm_pgoff);
        let hi = (first + nr).min(self.vm_pgoff + self.vm_pages);
        (lo..hi).any(|p| self.is_mapped(p))
    }

    /// The fingerprint computed from scratch, to check the running one.
    pub fn recompute_fingerprint(&self) -> u64 {
        let mut fp = 0;
        for (i, &pmd) in self.pmd.iter().enumerate() {
            if pmd == Pmd::Huge {
                let vpn = (self.pmd_base + i as u64) << self.pmd_shift;
                fp ^= map_hash(self.vm_pgoff + vpn - self.vm_start, true);
            }
        }
        for (w, &bits) in self.pte.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let i = b.trailing_zeros() as u64;
                fp ^= map_hash(self.vm_pgoff + w as u64 * 64 + i, false);
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
        self.pte.memory_bytes() + self.pmd.capacity() + 2 * self.pmd_ptes.capacity()
    }

    /// The PTE bits, frozen into `pool`: chunks not written since the
    /// last freeze or thaw are shared with the copy it made or was given.
    pub(crate) fn freeze_pte(&mut self, pool: &mut PtePool) -> FrozenPte {
        self.pte.freeze(pool)
    }

    /// The frozen PTE bits these were last frozen to or thawed from.
    pub(crate) fn pte_origin(&self) -> Option<&FrozenPte> {
        self.pte.origin()
    }

    /// Takes the PTE bits out, leaving none, so the rest clones cheaply.
    pub(crate) fn take_pte(&mut self) -> TrackedVec<u64, PTE_CHUNK> {
        std::mem::take(&mut self.pte)
    }

    pub(crate) fn put_pte(&mut self, pte: TrackedVec<u64, PTE_CHUNK>) {
        self.pte = pte;
    }

    /// The PTE bits are thawed into the memory of those there, if any.
    pub(crate) fn thaw_pte(&mut self, frozen: &FrozenPte, pool: &PtePool) {
        self.pte.thaw_into(frozen, pool);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count_mapped` counts what asking page by page counts, for ranges
    /// that start and end inside a word of PTE bits, on word edges, within
    /// one word, and over PMDs with no page table, from a VMA that starts
    /// inside the file.
    #[test]
    fn mapped_counts_are_the_pages_mapped_one_by_one() {
        let mut m = Mapping::at(VmFlags::default(), SYNTHETIC_VM_START + 3, 2048, 5, 512);
        let mut x = 7u64;
        for i in 0..400 {
            x = crate::pattern::splitmix64(x);
            let first = 5 + x % 1900;
            let nr = 1 + (x >> 32) % 40;
            if !m.folio_fits(first, nr) {
                continue;
            }
            // Mostly maps, as faults do; now and then a window of a
            // fault-around, or an unmap, as reclaim's.
            match i % 7 {
                5 => {
                    m.map_unmapped(first, nr as u32, x >> 7);
                }
                6 => m.unmap_range(first, nr / 2),
                _ => m.set_pte_range(first, nr),
            }
        }
        assert!(m.pmd_ptes_agree(), "the PTEs kept per PMD are the bits'");
        let one_by_one =
            |a: u64, b: u64| (a..b).filter(|&p| m.contains(p) && m.pte_mapped(p)).count() as u64;
        for a in [0, 5, 6, 63, 64, 69, 70, 128, 133, 517, 1000, 2052] {
            for len in [0, 1, 2, 58, 59, 64, 65, 127, 128, 300, 511, 512, 513, 2100] {
                let b = a + len;
                assert_eq!(m.count_mapped(a, b), (one_by_one(a, b), 0), "[{a}, {b})");
            }
        }
    }
}
