//! The figures of a machine at one step, shaped like what `folioscope
//! probe` measures on the real kernel: fault counts, bytes read, residency
//! as runs of pages, and the folio layout as runs of equal-order folios.

use crate::counters::Counters;
use crate::folio::FolioFlags;
use crate::machine::Machine;
use crate::readahead::FileRaState;
use crate::xarray::XaStats;

/// A run of adjacent folios of one order: `[start_page, order, count]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FolioRun {
    pub start: u64,
    pub order: u8,
    pub count: u64,
}

/// The figures of a machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub major_faults: u64,
    pub minor_faults: u64,
    pub bytes_read: u64,
    pub read_ios: u64,
    pub bytes_copied: u64,
    /// Pages in uptodate folios (what `mincore()` reports).
    pub resident_pages: u64,
    /// Runs of resident pages, `[start_page, length]`.
    pub resident: Vec<(u64, u64)>,
    pub folios: Vec<FolioRun>,
    /// Cached folios by order.
    pub folios_by_order: Vec<(u8, u64)>,
    pub mmap_miss: u16,
    pub ra: FileRaState,
    pub xa: XaStats,
    pub xa_nodes: usize,
    pub pte_mapped_pages: u64,
    pub pmd_mappings: u64,
    /// FilePmdMapped of smaps, in KiB.
    pub file_pmd_mapped_kb: u64,
    pub evictions: u64,
    pub refaults: u64,
    pub accesses: u64,
    /// Every running count, including the read path's operation counts.
    pub counters: Counters,
}

impl Summary {
    pub fn of(m: &Machine) -> Self {
        let mut resident: Vec<(u64, u64)> = Vec::new();
        let mut folios: Vec<FolioRun> = Vec::new();
        let mut by_order = [0u64; 32];
        let mut resident_pages = 0;
        // `count` adjacent folios like `f` at a time.
        m.cache.for_each_folio_run(|f, count| {
            by_order[f.order as usize] += count;
            if !f.test(FolioFlags::UPTODATE) {
                return;
            }
            let n = count << f.order;
            resident_pages += n;
            match resident.last_mut() {
                Some((s, l)) if *s + *l == f.index => *l += n,
                _ => resident.push((f.index, n)),
            }
            match folios.last_mut() {
                Some(r) if r.order == f.order && r.start + (r.count << r.order) == f.index => {
                    r.count += count
                }
                _ => folios.push(FolioRun {
                    start: f.index,
                    order: f.order,
                    count,
                }),
            }
        });
        let page_kb = (1u64 << m.geo.page_shift) / 1024;
        let (pte_mapped, pmd_mapped) = m.mapped_totals();
        Summary {
            major_faults: m.counters.major_faults,
            minor_faults: m.counters.minor_faults,
            bytes_read: m.counters.bytes_read,
            read_ios: m.counters.read_ios,
            bytes_copied: m.counters.bytes_copied,
            resident_pages,
            resident,
            folios,
            folios_by_order: by_order
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(o, &c)| (o as u8, c))
                .collect(),
            mmap_miss: m.ra.mmap_miss,
            ra: m.ra,
            xa: m.cache.xa.stats(),
            xa_nodes: m.cache.xa.node_count(),
            pte_mapped_pages: pte_mapped,
            pmd_mappings: pmd_mapped,
            file_pmd_mapped_kb: pmd_mapped * (1u64 << m.geo.pmd_order) * page_kb,
            evictions: m.counters.evictions,
            refaults: m.cache.nr_refaults,
            accesses: m.counters.accesses,
            counters: m.counters,
        }
    }
}
