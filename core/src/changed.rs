//! Which pages a run of accesses changed, as their events tell it: what
//! [`Machine::rebin`](crate::Machine::rebin) needs to bring the bins of a
//! span up to date without walking the whole xarray again.
//!
//! This is no kernel file: like [`crate::Picture`], it is the reader's side
//! of the events the kernel functions of the other modules emit. Every
//! change to what a bin counts (a folio added, its PG_uptodate, PG_locked
//! or PG_readahead changed, a folio evicted or removed, a shadow cleared,
//! PTEs or a PMD set or cleared) comes with an event naming its pages;
//! the picture tests hold events to that on random scenarios, and this
//! crate's tests hold a rebinned span to a fresh one.
//!
//! A recorded program's accesses (`Pattern::Trace` with `mmap`, `munmap`,
//! `madvise`, other files) change mappings without an event that names the
//! pages, so for those every page counts as changed.

use crate::config::Config;
use crate::event::Event;
use crate::pattern::Pattern;

/// Past this many separate ranges, tracking them costs more than a fresh
/// walk saves: every page counts as changed.
const MAX_RANGES: usize = 4096;

/// Page ranges `[start, end)` that events changed, since the last
/// [`ChangedPages::clear`]; or every page.
#[derive(Clone, Debug)]
pub struct ChangedPages {
    ranges: Vec<(u64, u64)>,
    everything: bool,
    /// The scenario's accesses change pages only as events tell.
    told: bool,
    /// Pages under one PMD: the most a PMD mapping or unmapping reaches
    /// around the page an event names.
    ptrs_per_pte: u64,
}

impl ChangedPages {
    /// Nothing changed yet, for the accesses of `cfg`'s scenario.
    pub fn new(cfg: &Config) -> Self {
        let told = !matches!(cfg.pattern, Pattern::Trace(_));
        ChangedPages {
            ranges: Vec::new(),
            everything: !told,
            told,
            ptrs_per_pte: cfg.geometry().ptrs_per_pte,
        }
    }

    /// Forgets what changed: the bins are up to date.
    pub fn clear(&mut self) {
        self.ranges.clear();
        self.everything = !self.told;
    }

    /// Every page counts as changed (the machine moved some other way than
    /// by accesses whose events were noted).
    pub fn set_everything(&mut self) {
        self.ranges.clear();
        self.everything = true;
    }

    /// Whether every page counts as changed.
    pub fn is_everything(&self) -> bool {
        self.everything
    }

    /// The ranges changed, in the order noted; overlapping ones may repeat.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Notes the pages event `e` changed the shown state of.
    pub fn note(&mut self, e: &Event) {
        if self.everything {
            return;
        }
        let pmd = self.ptrs_per_pte;
        // The PMD-sized block around `index`, wherever the mapping's PMDs
        // fall: reclaim unmaps a PMD mapping of its folio whole.
        let around = |index: u64, nr: u64| (index.saturating_sub(pmd - 1), index + nr.max(pmd));
        let range = match *e {
            Event::FolioAdded { index, order, .. } | Event::FolioUptodate { index, order } => {
                (index, index + (1u64 << order))
            }
            // Only the bin of the folio's first page counts the flag.
            Event::ReadaheadFlag { index, .. } => (index, index + 1),
            Event::Evicted { index, order } | Event::Removed { index, order, .. } => {
                around(index, 1u64 << order)
            }
            Event::ShadowCleared { index, order, .. } => (index, index + (1u64 << order)),
            Event::PtesMapped { first, nr, .. } => (first, first + nr as u64),
            Event::PmdMapped { index, .. } => around(index, pmd),
            _ => return,
        };
        let full = self.ranges.len() == MAX_RANGES;
        match self.ranges.last_mut() {
            Some(last) if range.0 <= last.1 && range.1 >= last.0 => {
                *last = (last.0.min(range.0), last.1.max(range.1))
            }
            _ if full => self.set_everything(),
            _ => self.ranges.push(range),
        }
    }
}
