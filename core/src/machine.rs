//! The modelled machine: one file's page cache, its `file_ra_state`, one
//! process mapping it, and the counters. Every kernel function of the
//! model is a method on [`Machine`], in the module named after its kernel
//! file; this module holds the state and the plumbing they share (I/O
//! submission and completion, and charging new folios).
//!
//! A `Machine` is plain data: cloning it is a checkpoint.

use crate::backing::Backing;
use crate::config::{Config, Geometry, Madvise};
use crate::counters::Counters;
use crate::event::{Event, EventSink, KFunc};
use crate::folio::{Folio, FolioFlags};
use crate::kernel::Kernel;
use crate::mapping::{Mapping, VmFlags};
use crate::mmap::{OpenFile, Program, Vma};
use crate::page_cache::{AddError, AddressSpace};
use crate::readahead::FileRaState;
use crate::xarray::{XaStats, XA_CHUNK_SIZE};

/// BIO_MAX_VECS: the folios one bio can carry.
pub const BIO_MAX_VECS: u32 = 256;

/// How hard an allocation may try (the gfp flags that matter here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gfp {
    /// `readahead_gfp_mask`: __GFP_NORETRY, fail rather than reclaim hard.
    Readahead,
    /// A fault or a read that needs this very page.
    Normal,
}

/// The state of the modelled machine. Its fields are the model's own:
/// outside the crate it is read through its getters and views (such as
/// [`Machine::bins`]), never written.
#[derive(Clone, Debug)]
pub struct Machine {
    pub(crate) kernel: Kernel,
    pub(crate) geo: Geometry,
    pub(crate) thp: bool,
    pub(crate) cache: AddressSpace,
    pub(crate) ra: FileRaState,
    pub(crate) mm: Mapping,
    pub(crate) counters: Counters,
    /// FMODE_RANDOM on the open file (POSIX_FADV_RANDOM).
    pub(crate) fmode_random: bool,
    /// The file system under the file.
    pub(crate) backing: Backing,
    /// The page marked PG_hwpoison, if any.
    pub(crate) hwpoison: Option<u64>,
    /// Whether to take the model's fast paths, which must do exactly what
    /// the step-by-step code does; the crate's tests turn them off to
    /// compare.
    pub(crate) fast_paths: bool,
    /// The open file descriptions and mappings not in `ra` and `mm`.
    pub(crate) program: Program,
    /// Folios added to the page cache whose read is not submitted yet.
    unsubmitted: Vec<(u64, u8)>,
    /// Folios whose read was submitted and has not completed yet.
    inflight: Vec<(u64, u8)>,
}

impl Machine {
    /// A cold page cache, a fresh open file and a fresh mapping with the
    /// scenario's madvise applied; the xarray with room for `node_room`
    /// nodes, or for those of the whole file when none.
    pub(crate) fn with_node_room(cfg: &Config, node_room: Option<usize>) -> Self {
        let geo = *cfg.geometry();
        let vm_flags = VmFlags::from_madvise(cfg.madvise, cfg.thp, cfg.exec);
        // For read(), the advice is posix_fadvise's: SEQUENTIAL doubles
        // the file's ra_pages, RANDOM sets FMODE_RANDOM.
        let read_advice = cfg.pattern.uses_read();
        let ra_pages = if read_advice && cfg.madvise == Madvise::Sequential {
            geo.ra_pages * 2
        } else {
            geo.ra_pages
        };
        let ra = FileRaState::new(ra_pages);
        let fmode_random = read_advice && cfg.madvise == Madvise::Random;
        // A synthetic scenario starts with its file open and mapped; a
        // recorded program opens and maps it itself.
        let synthetic = !cfg.pattern.is_program();
        let placeholder = Mapping::placeholder(geo.ptrs_per_pte);
        let (mm, program) = if synthetic {
            let program = Program {
                files: vec![OpenFile { ra, fmode_random }],
                cur_file: Some(0),
                vmas: vec![Vma {
                    mm: 0,
                    ofd: 0,
                    mapping: placeholder,
                }],
                cur_vma: Some(0),
            };
            (
                Mapping::new(vm_flags, geo.nr_pages, geo.ptrs_per_pte),
                program,
            )
        } else {
            (placeholder, Program::default())
        };
        let mut m = Machine {
            kernel: cfg.kernel.clone(),
            geo,
            thp: cfg.thp,
            cache: AddressSpace::new(
                cfg.file_size,
                geo.page_shift,
                geo.mapping_min_order,
                geo.mapping_max_order,
                geo.memory_limit_pages,
                node_room,
            ),
            ra,
            mm,
            counters: Counters::default(),
            fmode_random,
            backing: cfg.backing,
            hwpoison: cfg.hwpoison,
            fast_paths: true,
            program,
            unsubmitted: Vec::new(),
            inflight: Vec::new(),
        };
        if let Backing::Tmpfs { huge, file } = cfg.backing {
            m.populate_tmpfs_file(file, huge);
        }
        m
    }

    /// Adds a folio to the page cache, charging the memory cgroup first.
    /// A readahead allocation gives up when reclaim cannot make room at
    /// once; a fault or a read needs its page and overcharges instead.
    pub(crate) fn add_folio<S: EventSink>(
        &mut self,
        index: u64,
        order: u8,
        flags: FolioFlags,
        gfp: Gfp,
        func: KFunc,
        sink: &mut S,
    ) -> Result<Folio, AddError> {
        if self.cache.lru.is_some() {
            // Charging happens before the insertion can fail; a conflict
            // then just returns the charge, so check for it first.
            if self.cache.peek_folio(index).is_some()
                || self
                    .cache
                    .first_present(index, index + (1u64 << order))
                    .is_some()
            {
                let _ = self.cache.xa.load(index);
                return Err(AddError::Exists);
            }
            if !self.mem_cgroup_charge(1u64 << order, sink) && gfp == Gfp::Readahead {
                return Err(AddError::NoMem);
            }
        }
        let f = self
            .cache
            .filemap_add_folio(index, order, flags, func, sink)?;
        self.unsubmitted.push((index, order));
        Ok(f)
    }

    /// Order-0 folios added at `first..first + k` outside [`Machine::add_folio`],
    /// to be read as its own are.
    pub(crate) fn added_unsubmitted(&mut self, first: u64, k: u64) {
        self.unsubmitted.extend((first..first + k).map(|i| (i, 0)));
    }

    /// Starts the read of `nr` pages from `first`: counts the bytes, and
    /// the bios ext4 builds for them: a bio holds at most BIO_MAX_VECS
    /// (256) folios and max_sectors_kb (4 MiB), so order-0 readahead goes
    /// out in 1 MiB bios and PMD-sized folios two to a bio.
    pub(crate) fn submit_io<S: EventSink>(
        &mut self,
        first: u64,
        nr: u64,
        func: KFunc,
        sink: &mut S,
    ) {
        let page = 1u64 << self.geo.page_shift;
        let max_io = crate::config::DEFAULT_IO_KB * 1024;
        self.counters.bytes_read += nr * page;
        let end = first + nr;
        let inflight = &mut self.inflight;
        let (mut bios, mut vecs, mut bytes) = (0u64, 0u32, 0u64);
        self.unsubmitted.retain(|&(i, o)| {
            if i >= first && i < end {
                inflight.push((i, o));
                let fbytes = page << o;
                if bios == 0 || vecs == BIO_MAX_VECS || bytes + fbytes > max_io {
                    bios += 1;
                    vecs = 0;
                    bytes = 0;
                }
                vecs += 1;
                bytes += fbytes;
                false
            } else {
                true
            }
        });
        let requests = bios.max(1);
        self.counters.read_ios += requests;
        sink.emit(Event::IoSubmitted {
            func,
            first,
            nr: nr.min(u32::MAX as u64) as u32,
            requests: requests.min(u32::MAX as u64) as u32,
        });
    }

    /// Completes every read in flight: the folios become uptodate and are
    /// unlocked. The model completes I/O when a task waits on a folio and
    /// at the end of each fault attempt or `read()` call.
    #[inline]
    pub(crate) fn complete_io<S: EventSink>(&mut self, sink: &mut S) {
        if !self.inflight.is_empty() {
            self.complete_reads(sink);
        }
    }

    /// [`Machine::complete_io`] with reads in flight.
    fn complete_reads<S: EventSink>(&mut self, sink: &mut S) {
        let inflight = std::mem::take(&mut self.inflight);
        let mut j = 0;
        while j < inflight.len() {
            let (index, order) = inflight[j];
            // The fast path: consecutive order-0 folios in one leaf (order-0
            // readahead) are completed together, the leaf found once.
            let next = inflight.get(j + 1).copied();
            if self.fast_paths && order == 0 && next == Some((index + 1, 0)) {
                let k = order0_run_in_leaf(&inflight[j..]);
                if k > 1 && self.cache.end_read_order0_run(index, k) {
                    for i in index..index + k as u64 {
                        sink.emit(Event::FolioUptodate { index: i, order: 0 });
                    }
                } else {
                    for &(i, _) in &inflight[j..j + k] {
                        self.cache.folio_end_read(i, sink);
                    }
                }
                j += k;
                continue;
            }
            self.cache.folio_end_read(index, sink);
            j += 1;
        }
        self.inflight = inflight;
        self.inflight.clear();
    }

    /// Whether any read is in flight.
    pub fn io_in_flight(&self) -> bool {
        !self.inflight.is_empty()
    }

    /// Adds page-by-page `xa_load` calls the model performed in bulk.
    pub(crate) fn count_loads(&self, loads: u64, visits: u64) {
        self.cache.xa.bump_by(crate::xarray::Stat::Load, loads);
        self.cache
            .xa
            .bump_by(crate::xarray::Stat::NodeVisit, visits);
    }

    /// Bytes of model state, for the memory budget and checkpoint spacing.
    pub fn memory_bytes(&self) -> usize {
        let mut maps = 0;
        self.for_each_mapping(|m| maps += m.memory_bytes());
        self.cache.xa.memory_bytes() + maps + self.inflight.capacity() * 16
    }

    /// Whether two machines hold the same state where a reader of the
    /// page cache can see it: `file_ra_state`, the xarray's entries with
    /// their flags, and the page tables; lookup counters are not compared.
    /// Fingerprints kept as entries and mappings change make this O(1)
    /// when the states differ, and a full comparison confirms a match.
    pub fn same_state(&self, other: &Machine) -> bool {
        if self.differs_quickly(other) {
            return false;
        }
        self.mm.same_mappings(&other.mm) && {
            let mut a = Vec::new();
            let mut b = Vec::new();
            self.cache.xa.for_each_entry(|i, o, e| a.push((i, o, e)));
            other.cache.xa.for_each_entry(|i, o, e| b.push((i, o, e)));
            a == b
        }
    }

    /// Whether the states differ, by the O(1) fingerprints alone.
    pub fn differs_quickly(&self, other: &Machine) -> bool {
        self.ra != other.ra
            || self.cache.nrpages != other.cache.nrpages
            || self.cache.fingerprint != other.cache.fingerprint
            || self.mm.fingerprint != other.mm.fingerprint
            || self.parked_state() != other.parked_state()
    }

    /// What the open files and mappings not in use hold: the readahead
    /// state of each and a hash of each mapping. Empty for a synthetic
    /// scenario, whose one file and mapping are always in use.
    fn parked_state(&self) -> (Vec<OpenFile>, u64) {
        let p = &self.program;
        let files = (0..p.files.len())
            .filter(|&i| Some(i as u32) != p.cur_file)
            .map(|i| p.files[i])
            .collect();
        let mut hash = 0u64;
        for (i, v) in p.vmas.iter().enumerate() {
            if Some(i) != p.cur_vma {
                hash = crate::pattern::splitmix64(
                    hash ^ v.mapping.fingerprint ^ v.mapping.vm_start.rotate_left(17),
                );
            }
        }
        (files, hash)
    }

    /// How many TLB entries the current mappings need: one per PMD, one
    /// per PTE, except that on arm64 a naturally aligned run of CONT_PTES
    /// pages of one folio takes one contpte entry (16 × 4K, 128 × 16K or
    /// 32 × 64K pages).
    pub fn translations(&self) -> u64 {
        let cont_order: Option<u8> = match (self.geo.arch, self.geo.page_shift) {
            (crate::config::Arch::Arm64, 12) => Some(4),
            (crate::config::Arch::Arm64, 14) => Some(7),
            (crate::config::Arch::Arm64, 16) => Some(5),
            _ => None,
        };
        let mut n = 0;
        self.for_each_mapping(|m| {
            n += m.pmd_mapped;
            self.cache.for_each_folio(|f| {
                if m.pmd_at(f.index) == crate::mapping::Pmd::Huge {
                    return;
                }
                let mapped = (f.index..f.next_index())
                    .filter(|&p| m.pte_mapped_at(p))
                    .count() as u64;
                n += match cont_order {
                    Some(c) if f.order >= c && mapped == f.nr_pages() => f.nr_pages() >> c,
                    _ => mapped,
                };
            });
        });
        n
    }

    /// The kernel variant and patches this machine runs.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The kernel constants of its configuration.
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// The file system under the file.
    pub fn backing(&self) -> Backing {
        self.backing
    }

    /// The running counts since the scenario started.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The page cache's xarray lookups since the scenario started: node
    /// visits and `xas_*` calls.
    pub fn lookups(&self) -> XaStats {
        self.cache.xa.stats()
    }

    /// `file_ra_state` of the open file in use.
    pub fn ra(&self) -> FileRaState {
        self.ra
    }

    /// `mapping->nrpages`: pages in the page cache.
    pub fn nrpages(&self) -> u64 {
        self.cache.nrpages
    }

    /// Pages mapped by PTEs and PMD mappings, over every mapping.
    pub fn mapped_totals(&self) -> (u64, u64) {
        let (mut pte, mut pmd) = (0, 0);
        self.for_each_mapping(|m| {
            pte += m.pte_mapped;
            pmd += m.pmd_mapped;
        });
        (pte, pmd)
    }

    /// The `ra_pages` the fault path sees.
    pub fn ra_pages(&self) -> u64 {
        self.ra.ra_pages
    }
}

/// How many of `reads`' first entries are order-0 folios at consecutive
/// indices in the leaf of the first: at least one.
fn order0_run_in_leaf(reads: &[(u64, u8)]) -> usize {
    let first = reads[0].0;
    let leaf_end = (first | (XA_CHUNK_SIZE as u64 - 1)) + 1;
    1 + reads[1..]
        .iter()
        .zip(first + 1..leaf_end)
        .take_while(|&(&(i, o), want)| o == 0 && i == want)
        .count()
}
