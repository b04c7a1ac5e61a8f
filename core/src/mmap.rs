//! A recorded program's open files and mappings of the file: `open(2)`
//! (`file_ra_state_init`), `mmap` and `munmap` (mm/mmap.c, mm/vma.c) and
//! the `vm_flags` advice of `madvise` (mm/madvise.c), Linux 6.18.
//!
//! Each open file description has its own `file_ra_state`, as `struct
//! file` does: reads through it and faults on mappings made from it use
//! that state. Each mapping is a VMA of one process. The model keeps the
//! description and the VMA in use in [`Machine::ra`] and [`Machine::mm`],
//! where every kernel function of the model reads them, and parks the
//! others here; switching is a swap, so a program that uses one file
//! description and one mapping pays nothing for the others.

use crate::event::{EventSink, KFunc};
use crate::fadvise::FadviseRange;
use crate::machine::Machine;
use crate::mapping::{Mapping, VmFlags};
use crate::pattern::{Access, Fadvice, Madvice, MAX_RW_COUNT};
use crate::readahead::FileRaState;

/// An open file description's readahead side: `f_ra` and FMODE_RANDOM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpenFile {
    pub ra: FileRaState,
    /// FMODE_RANDOM (POSIX_FADV_RANDOM).
    pub fmode_random: bool,
}

/// One VMA of the file in one process.
#[derive(Clone, Debug)]
pub(crate) struct Vma {
    /// The process whose address space holds it.
    pub mm: u32,
    /// The open file description it was mapped from (`vma->vm_file`).
    pub ofd: u32,
    /// Its page tables; a placeholder while it is the one in `Machine::mm`.
    pub mapping: Mapping,
}

/// The program's open file descriptions and VMAs of the file.
#[derive(Clone, Debug, Default)]
pub(crate) struct Program {
    /// Indexed by open file description; the one in use is stale here.
    pub files: Vec<OpenFile>,
    pub cur_file: Option<u32>,
    /// Live VMAs in no particular order; the one in use holds a placeholder.
    /// None remembers a frozen copy (`Mapping::forget_frozen`).
    pub vmas: Vec<Vma>,
    pub cur_vma: Option<usize>,
}

impl Machine {
    /// Makes `ofd` the open file description in use.
    pub(crate) fn use_file(&mut self, ofd: u32) {
        let p = &mut self.program;
        if p.cur_file == Some(ofd) {
            return;
        }
        if let Some(cur) = p.cur_file {
            p.files[cur as usize] = OpenFile {
                ra: self.ra,
                fmode_random: self.fmode_random,
            };
        }
        let f = p.files[ofd as usize];
        self.ra = f.ra;
        self.fmode_random = f.fmode_random;
        p.cur_file = Some(ofd);
    }

    /// Makes VMA number `i` the one in `mm`, and its file the one in use.
    fn use_vma(&mut self, i: usize) {
        let p = &mut self.program;
        if p.cur_vma != Some(i) {
            // A parked mapping forgets its last frozen copy: checkpoints
            // clone parked mappings whole, and the build frees the chunks
            // of the copies no checkpoint and no mapping in use keeps, so
            // a parked mapping frozen against one later would share
            // chunks that hold something else by then.
            self.mm.forget_frozen();
            if let Some(cur) = p.cur_vma {
                std::mem::swap(&mut self.mm, &mut p.vmas[cur].mapping);
            }
            std::mem::swap(&mut self.mm, &mut p.vmas[i].mapping);
            p.cur_vma = Some(i);
        }
        let ofd = self.program.vmas[i].ofd;
        self.use_file(ofd);
    }

    /// Puts the VMA in use back in its slot, so the slots hold them all.
    /// It forgets its last frozen copy, as `use_vma` makes it: the
    /// timeline's build frees the chunks of frozen copies that only parked
    /// mappings would still remember (`Stores::sweep`).
    fn park_vma(&mut self) {
        if let Some(cur) = self.program.cur_vma.take() {
            self.mm.forget_frozen();
            std::mem::swap(&mut self.mm, &mut self.program.vmas[cur].mapping);
        }
    }

    /// The VMA of process `mm` that holds virtual page `vpn`.
    fn find_vma(&self, mm: u32, vpn: u64) -> Option<usize> {
        let hit = |i: usize, m: &Mapping| {
            self.program.vmas[i].mm == mm && vpn >= m.vm_start && vpn < m.vm_start + m.vm_pages
        };
        if let Some(cur) = self.program.cur_vma {
            if hit(cur, &self.mm) {
                return Some(cur);
            }
        }
        (0..self.program.vmas.len())
            .find(|&i| Some(i) != self.program.cur_vma && hit(i, &self.program.vmas[i].mapping))
    }

    /// Every mapping of the file, the one in use included.
    pub(crate) fn for_each_mapping(&self, mut f: impl FnMut(&Mapping)) {
        for (i, v) in self.program.vmas.iter().enumerate() {
            if Some(i) == self.program.cur_vma {
                f(&self.mm);
            } else {
                f(&v.mapping);
            }
        }
    }

    /// Pages of `[first, end)` mapped by PTEs and by PMDs, summed over
    /// every mapping.
    pub(crate) fn count_mapped_everywhere(&self, first: u64, end: u64) -> (u64, u64) {
        let (mut pte, mut pmd) = (0, 0);
        self.for_each_mapping(|m| {
            let (a, b) = m.count_mapped(first, end);
            pte += a;
            pmd += b;
        });
        (pte, pmd)
    }

    /// Whether any mapping maps a page of `[first, first + nr)`.
    pub(crate) fn any_vma_maps(&self, first: u64, nr: u64) -> bool {
        let mut mapped = false;
        self.for_each_mapping(|m| mapped |= m.any_mapped(first, nr));
        mapped
    }

    /// Unmaps `[first, first + nr)` from every mapping, as `try_to_unmap` does.
    pub(crate) fn unmap_everywhere(&mut self, first: u64, nr: u64) {
        self.mm.unmap_range(first, nr);
        let cur = self.program.cur_vma;
        for (i, v) in self.program.vmas.iter_mut().enumerate() {
            if Some(i) != cur {
                v.mapping.unmap_range(first, nr);
            }
        }
    }

    /// `open(2)`: open file description `ofd` with `file_ra_state_init`.
    pub(crate) fn open_file(&mut self, ofd: u32) {
        debug_assert_eq!(ofd as usize, self.program.files.len());
        self.program.files.push(OpenFile {
            ra: FileRaState::new(self.geo.ra_pages),
            fmode_random: false,
        });
    }

    /// `mmap` of `pages` file pages from `pgoff`, through `ofd`, at `vpn`
    /// of process `mm`. Whatever the range held before is unmapped first,
    /// as MAP_FIXED does.
    pub(crate) fn do_mmap(
        &mut self,
        mm: u32,
        vpn: u64,
        pages: u64,
        ofd: u32,
        pgoff: u64,
        exec: bool,
    ) {
        self.do_munmap(mm, vpn, pages);
        let flags = VmFlags {
            exec,
            ..VmFlags::default()
        };
        let mapping = Mapping::at(flags, vpn, pages, pgoff, self.geo.ptrs_per_pte);
        self.program.vmas.push(Vma { mm, ofd, mapping });
    }

    /// `munmap`: VMAs inside the range go, VMAs across its ends are cut.
    pub(crate) fn do_munmap(&mut self, mm: u32, vpn: u64, pages: u64) {
        self.park_vma();
        let end = vpn + pages;
        let mut kept = Vec::with_capacity(self.program.vmas.len() + 1);
        for v in std::mem::take(&mut self.program.vmas) {
            let (s, e) = (v.mapping.vm_start, v.mapping.vm_start + v.mapping.vm_pages);
            if v.mm != mm || e <= vpn || s >= end {
                kept.push(v);
                continue;
            }
            let Vma {
                mm: owner,
                ofd,
                mut mapping,
            } = v;
            let right = (e > end).then(|| mapping.split_off(end));
            if s < vpn {
                mapping.split_off(vpn);
                kept.push(Vma {
                    mm: owner,
                    ofd,
                    mapping,
                });
            }
            if let Some(r) = right {
                kept.push(Vma {
                    mm: owner,
                    ofd,
                    mapping: r,
                });
            }
        }
        self.program.vmas = kept;
    }

    /// `madvise` over `[vpn, vpn + pages)` of process `mm`.
    pub(crate) fn do_madvise<S: EventSink>(
        &mut self,
        mm: u32,
        vpn: u64,
        pages: u64,
        advice: Madvice,
        sink: &mut S,
    ) {
        let end = vpn + pages;
        match advice {
            Madvice::WillNeed => {
                // madvise_willneed: POSIX_FADV_WILLNEED on the file range
                // each VMA maps, through the file it was mapped from.
                let pieces: Vec<(u32, u64, u64)> = self
                    .vmas_in(mm, vpn, end)
                    .into_iter()
                    .map(|(i, s, e)| {
                        let m = self.mapping_of(i);
                        (self.program.vmas[i].ofd, m.vm_pgoff + s - m.vm_start, e - s)
                    })
                    .collect();
                let shift = self.geo.page_shift;
                for (ofd, first, nr) in pieces {
                    self.use_file(ofd);
                    self.generic_fadvise(
                        FadviseRange::bytes(first << shift, nr << shift),
                        Fadvice::WillNeed,
                        KFunc::Madvise,
                        sink,
                    );
                }
            }
            Madvice::DontNeed => {
                // zap_page_range_single: the page tables go, the cache stays.
                for (i, s, e) in self.vmas_in(mm, vpn, end) {
                    let m = self.mapping_of_mut(i);
                    let first = m.vm_pgoff + s - m.vm_start;
                    m.unmap_range(first, e - s);
                }
            }
            _ => {
                // madvise_update_vma: the flags change on exactly the range,
                // so VMAs across its ends are split first.
                self.park_vma();
                self.split_at(mm, vpn);
                self.split_at(mm, end);
                for v in self.program.vmas.iter_mut() {
                    let m = &mut v.mapping;
                    if v.mm == mm && m.vm_start >= vpn && m.vm_start + m.vm_pages <= end {
                        apply_madvice(&mut m.vm_flags, advice, self.thp);
                    }
                }
            }
        }
    }

    /// One access of a recorded program.
    pub(crate) fn program_access<S: EventSink>(&mut self, access: Access, sink: &mut S) {
        match access {
            Access::Touch { page } => self.touch(page, sink),
            Access::Read { offset, len } => self.filemap_read(offset, len, sink),
            Access::Open { ofd } => self.open_file(ofd),
            Access::ReadAt { ofd, offset, len } => {
                self.use_file(ofd);
                self.filemap_read(offset, len.min(MAX_RW_COUNT), sink);
            }
            Access::SpliceRead { ofd, offset, len } => {
                self.use_file(ofd);
                self.splice_direct_to_actor(offset, len.min(MAX_RW_COUNT), sink);
            }
            Access::Fadvise {
                ofd,
                offset,
                len,
                advice,
            } => {
                self.use_file(ofd);
                let range = FadviseRange::bytes(offset, len);
                self.generic_fadvise(range, advice, KFunc::GenericFadvise, sink);
            }
            Access::Mmap {
                mm,
                vpn,
                pages,
                ofd,
                pgoff,
                exec,
            } => self.do_mmap(mm, vpn, pages, ofd, pgoff, exec),
            Access::Munmap { mm, vpn, pages } => self.do_munmap(mm, vpn, pages),
            Access::Madvise {
                mm,
                vpn,
                pages,
                advice,
            } => self.do_madvise(mm, vpn, pages, advice, sink),
            Access::Fault { mm, vpn, write } => self.user_fault(mm, vpn, write, sink),
        }
    }

    /// A user page fault at `vpn` of process `mm`: the VMA holding it is
    /// put in use and the fault taken there. A fault outside every VMA of
    /// the file is not the file's and is ignored.
    pub(crate) fn user_fault<S: EventSink>(
        &mut self,
        mm: u32,
        vpn: u64,
        write: bool,
        sink: &mut S,
    ) {
        let Some(i) = self.find_vma(mm, vpn) else {
            return;
        };
        self.use_vma(i);
        let page = self.mm.vm_pgoff + vpn - self.mm.vm_start;
        if write {
            self.touch_write(page, sink);
        } else {
            self.touch(page, sink);
        }
    }

    /// The file page an access is about, for a cursor: the page touched or
    /// faulted on, the first page read or advised, or the first page mapped.
    pub fn page_of(&self, access: &Access) -> Option<u64> {
        let shift = self.geo.page_shift;
        match *access {
            Access::Touch { page } => Some(page),
            Access::Read { offset, .. }
            | Access::ReadAt { offset, .. }
            | Access::SpliceRead { offset, .. }
            | Access::Fadvise { offset, .. } => Some(offset >> shift),
            Access::Mmap { pgoff, .. } => Some(pgoff),
            Access::Fault { mm, vpn, .. } => self.file_page_at(mm, vpn),
            Access::Open { .. } | Access::Munmap { .. } | Access::Madvise { .. } => None,
        }
    }

    /// The file page a user fault at `vpn` of process `mm` lands on.
    pub fn file_page_at(&self, mm: u32, vpn: u64) -> Option<u64> {
        let i = self.find_vma(mm, vpn)?;
        let m = self.mapping_of(i);
        Some(m.vm_pgoff + vpn - m.vm_start)
    }

    fn mapping_of(&self, i: usize) -> &Mapping {
        if self.program.cur_vma == Some(i) {
            &self.mm
        } else {
            &self.program.vmas[i].mapping
        }
    }

    fn mapping_of_mut(&mut self, i: usize) -> &mut Mapping {
        if self.program.cur_vma == Some(i) {
            &mut self.mm
        } else {
            &mut self.program.vmas[i].mapping
        }
    }

    /// The VMAs of `mm` overlapping `[vpn, end)`, with the overlap.
    fn vmas_in(&self, mm: u32, vpn: u64, end: u64) -> Vec<(usize, u64, u64)> {
        (0..self.program.vmas.len())
            .filter(|&i| self.program.vmas[i].mm == mm)
            .filter_map(|i| {
                let m = self.mapping_of(i);
                let s = m.vm_start.max(vpn);
                let e = (m.vm_start + m.vm_pages).min(end);
                (s < e).then_some((i, s, e))
            })
            .collect()
    }

    /// Splits the VMA of `mm` that holds `vpn` inside, so one starts there.
    fn split_at(&mut self, mm: u32, vpn: u64) {
        let Some(i) = self.program.vmas.iter().position(|v| {
            v.mm == mm && v.mapping.vm_start < vpn && vpn < v.mapping.vm_start + v.mapping.vm_pages
        }) else {
            return;
        };
        let ofd = self.program.vmas[i].ofd;
        let right = self.program.vmas[i].mapping.split_off(vpn);
        self.program.vmas.push(Vma {
            mm,
            ofd,
            mapping: right,
        });
    }
}

/// The `vm_flags` change of one `madvise` advice. MADV_HUGEPAGE fails
/// without CONFIG_TRANSPARENT_HUGEPAGE and changes nothing.
fn apply_madvice(flags: &mut VmFlags, advice: Madvice, thp: bool) {
    match advice {
        Madvice::Normal => {
            flags.seq_read = false;
            flags.rand_read = false;
        }
        Madvice::Random => {
            flags.seq_read = false;
            flags.rand_read = true;
        }
        Madvice::Sequential => {
            flags.rand_read = false;
            flags.seq_read = true;
        }
        Madvice::Hugepage if thp => {
            flags.nohugepage = false;
            flags.hugepage = true;
        }
        Madvice::NoHugepage if thp => {
            flags.hugepage = false;
            flags.nohugepage = true;
        }
        _ => {}
    }
}
