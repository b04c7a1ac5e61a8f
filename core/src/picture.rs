//! What a reader is shown of a machine part way through an access: the
//! one place where events are folded into displayed state.
//!
//! A [`Picture`] starts from a machine between two accesses and folds in
//! the events of the next access, one at a time, as a user steps through
//! them: the bins of a page range (the same [`Bin`]s [`Machine::bins`]
//! computes), `file_ra_state`, and the running [`Figures`]. Folios and
//! mappings are counted in and out of the bins by the same code the scan
//! of a machine uses, so a folded picture and a fresh one count a page the
//! same way; the crate's tests hold a picture folded over a whole access
//! to the picture of the machine after it, on random scenarios.
//!
//! Events say what changed, not what was there before, so the picture
//! keeps the folios and pages the access changed so far, and reads the
//! rest from the machine it started from.
//!
//! A synthetic scenario has one open file and one mapping, and the picture
//! is exact after every event. A recorded program's access can switch the
//! open file or the mapping in use (a read through another file, a fault
//! through another process's mapping); inside such an access the picture
//! keeps showing the `file_ra_state` and the mapping that were in use when
//! it started, and the next access's picture shows the new ones. Its
//! figures follow every event either way.
//!
//! This is no kernel file: it is the reader's side of the events the
//! kernel functions of the other modules emit.

use crate::counters::Counters;
use crate::event::{CopySource, Event};
use crate::folio::{Folio, FolioFlags};
use crate::machine::Machine;
use crate::mapping::Pmd;
use crate::page_map::PageMap;
use crate::readahead::FileRaState;
use crate::view::{covering_of, Bin, Binner, Covering, Span};

/// The running counts that events carry, as a picture shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub major_faults: u64,
    pub minor_faults: u64,
    /// Bytes submitted for reading (`read_bytes` of /proc/self/io).
    pub bytes_read: u64,
    /// Block requests.
    pub read_ios: u64,
    /// Bytes `read()` copied out of folios.
    pub bytes_copied: u64,
    /// Bytes of holes filled from the zero page.
    pub bytes_zero_copied: u64,
    /// Bytes of holes filled by `clear_user()`.
    pub bytes_cleared: u64,
    /// `read()` calls that stopped with an error.
    pub read_errors: u64,
}

impl Figures {
    fn of(c: &Counters) -> Self {
        Figures {
            major_faults: c.major_faults,
            minor_faults: c.minor_faults,
            bytes_read: c.bytes_read,
            read_ios: c.read_ios,
            bytes_copied: c.bytes_copied,
            bytes_zero_copied: c.bytes_zero_copied,
            bytes_cleared: c.bytes_cleared,
            read_errors: c.read_errors,
        }
    }
}

/// An entry of the picture's own: what the access left at this index,
/// over `2^order` pages.
type Changed = (u8, Covering);

/// A machine as shown part way through the access that follows it.
#[derive(Clone, Debug)]
pub struct Picture<'m> {
    base: &'m Machine,
    binner: Option<Binner>,
    ra: FileRaState,
    figures: Figures,
    /// Entries the access added, changed or removed (folios, shadows), by
    /// first index. No entry lies inside another's range, and an entry of
    /// the machine the access changed is covered by these entirely.
    entries: PageMap<Changed>,
    /// Pages whose PTE the access set or cleared.
    ptes: PageMap<bool>,
    /// PMDs (by the file page of their first page) the access mapped or
    /// unmapped.
    pmds: PageMap<bool>,
}

impl<'m> Picture<'m> {
    /// The machine as it stands, between accesses; with a span, its
    /// folios and mappings are binned as [`Machine::bins`] bins them.
    pub fn new(m: &'m Machine, span: Option<Span>) -> Self {
        Self::over(m, span.map(|span| (span, m.bins(span))))
    }

    /// The machine as it stands, between accesses, over `bins`: what
    /// [`Machine::bins`] counts for `span` on `m`, which a caller that
    /// keeps a machine's bins from step to step has already (the web
    /// app's seekers). A scan of every page is the cost of
    /// [`Picture::new`] with a span, and stepping through one access's
    /// events on the 16 GiB comparison made it once an event: 145 of the
    /// 217 ms in the app's wasm over 32 such steps (V8's profiler,
    /// 2026-12-07).
    pub fn over_bins(m: &'m Machine, span: Span, bins: Vec<Bin>) -> Self {
        debug_assert_eq!(bins.len(), span.bins as usize);
        Self::over(m, Some((span, bins)))
    }

    fn over(m: &'m Machine, binned: Option<(Span, Vec<Bin>)>) -> Self {
        let binner = binned.map(|(span, bins)| Binner { span, bins });
        Picture {
            base: m,
            binner,
            ra: m.ra,
            figures: Figures::of(&m.counters),
            entries: PageMap::default(),
            ptes: PageMap::default(),
            pmds: PageMap::default(),
        }
    }

    /// Folds in the next event of the access, in the order the access
    /// emitted them.
    pub fn apply(&mut self, e: &Event) {
        match *e {
            Event::FolioAdded { index, order, .. } => {
                // A new folio is locked, and marked PG_readahead by an
                // event of its own.
                self.set_folio(Folio::new(index, order, FolioFlags::LOCKED));
            }
            Event::FolioUptodate { index, .. } => {
                if let Some(mut f) = self.folio_at(index) {
                    f.flags.insert(FolioFlags::UPTODATE);
                    f.flags.remove(FolioFlags::LOCKED);
                    self.set_folio(f);
                }
            }
            Event::ReadaheadFlag { index, set, .. } => {
                if let Some(mut f) = self.folio_at(index) {
                    if set {
                        f.flags.insert(FolioFlags::READAHEAD);
                    } else {
                        f.flags.remove(FolioFlags::READAHEAD);
                    }
                    self.set_folio(f);
                }
            }
            Event::Evicted { index, order } => {
                self.unmap(index, 1u64 << order);
                self.replace(index, order, Covering::Shadow { index, order });
            }
            Event::Removed { index, order, .. } => {
                self.unmap(index, 1u64 << order);
                self.replace(index, order, Covering::Nothing);
            }
            Event::ShadowCleared { index, order, .. } => {
                self.replace(index, order, Covering::Nothing);
            }
            Event::PtesMapped { first, nr, .. } => {
                for page in first..first + nr as u64 {
                    if self.in_mapping(page) && !self.pte_mapped(page) {
                        self.ptes.insert(page, true);
                        if let Some(b) = self.binner.as_mut() {
                            b.mapped(page, page + 1, false, true);
                        }
                    }
                }
            }
            Event::PmdMapped { index, .. } => {
                let head = self.pmd_head(index);
                if self.in_mapping(head) && !self.pmd_mapped(head) {
                    self.pmds.insert(head, true);
                    let end = head + self.base.geo.ptrs_per_pte;
                    if let Some(b) = self.binner.as_mut() {
                        b.mapped(head, end, true, true);
                    }
                }
            }
            Event::Window { window, .. } => {
                self.ra.start = window.start;
                self.ra.size = window.size;
                self.ra.async_size = window.async_size;
                self.ra.order = window.order as u16;
            }
            Event::MmapMiss { new, .. } => self.ra.mmap_miss = new,
            Event::PrevPos { pos, .. } => self.ra.prev_pos = pos,
            Event::FaultAccounted { major, .. } => {
                if major {
                    self.figures.major_faults += 1;
                } else {
                    self.figures.minor_faults += 1;
                }
            }
            Event::IoSubmitted { nr, requests, .. } => {
                self.figures.bytes_read += (nr as u64) << self.base.geo.page_shift;
                self.figures.read_ios += requests as u64;
            }
            Event::Copied { len, source, .. } => match source {
                CopySource::Folio => self.figures.bytes_copied += len,
                CopySource::ZeroPage => self.figures.bytes_zero_copied += len,
                CopySource::ClearUser => self.figures.bytes_cleared += len,
            },
            Event::ReadError { .. } => self.figures.read_errors += 1,
            Event::FaultStart { .. }
            | Event::FaultAttempt { .. }
            | Event::NoReadahead { .. }
            | Event::ReadCall { .. }
            | Event::Lookup { .. }
            | Event::Refault { .. }
            | Event::Tracepoint(_) => {}
        }
    }

    /// The bins of the span the picture was made with; empty without one.
    pub fn bins(&self) -> &[Bin] {
        self.binner.as_ref().map_or(&[], |b| &b.bins)
    }

    /// `file_ra_state` as the events so far left it.
    pub fn ra(&self) -> FileRaState {
        self.ra
    }

    /// The running counts as the events so far left them.
    pub fn figures(&self) -> Figures {
        self.figures
    }

    /// What covers `page` now: a folio, a shadow, or nothing. A folio's
    /// PG_uptodate, PG_locked and PG_readahead are as the events so far
    /// left them; the LRU's flags and stamp, which no event tells, as they
    /// stood before the access.
    pub fn covering(&self, page: u64) -> Covering {
        self.entry_at(page).2
    }

    /// The entry covering `index` now, with its first index and order:
    /// the picture's own, else the machine's (which the access left as it
    /// was, since a changed one is covered by the picture's entirely).
    fn entry_at(&self, index: u64) -> (u64, u8, Covering) {
        if let Some((k, (order, c))) = self.entries.at_or_below(index) {
            if index < k + (1u64 << order) {
                return (k, order, c);
            }
        }
        match covering_of(self.base, index) {
            Covering::Folio(f) => (f.index, f.order, Covering::Folio(f)),
            c @ Covering::Shadow { index, order } => (index, order, c),
            Covering::Nothing => (index, 0, Covering::Nothing),
        }
    }

    fn folio_at(&self, index: u64) -> Option<Folio> {
        match self.entry_at(index).2 {
            Covering::Folio(f) => Some(f),
            _ => None,
        }
    }

    /// Puts `f` over its pages: the folio that was there (a flag changed),
    /// or the shadows and holes a new folio fills. A larger shadow is
    /// split into pieces of the folio's order around it, as
    /// `filemap_add_folio` splits it.
    fn set_folio(&mut self, f: Folio) {
        let mut i = f.index;
        while i < f.next_index() {
            let (start, order, c) = self.entry_at(i);
            let end = start + (1u64 << order);
            match c {
                Covering::Folio(old) => self.count(&old, false),
                Covering::Shadow { .. } => {
                    let (s, e) = (start.max(f.index), end.min(f.next_index()));
                    if let Some(b) = self.binner.as_mut() {
                        b.shadow(s, e, false);
                    }
                    if order > f.order {
                        let mut j = start;
                        while j < end {
                            let piece = Covering::Shadow {
                                index: j,
                                order: f.order,
                            };
                            self.entries.insert(j, (f.order, piece));
                            j += f.nr_pages();
                        }
                    }
                }
                Covering::Nothing => {}
            }
            i = end.max(i + 1);
        }
        self.entries.remove_range(f.index + 1, f.next_index());
        self.entries.insert(f.index, (f.order, Covering::Folio(f)));
        self.count(&f, true);
    }

    /// Puts `with` (a shadow, or nothing) over the folio or shadow of
    /// `order` at `index`.
    fn replace(&mut self, index: u64, order: u8, with: Covering) {
        match self.entry_at(index) {
            (_, _, Covering::Folio(old)) => self.count(&old, false),
            (s, o, Covering::Shadow { .. }) => {
                if let Some(b) = self.binner.as_mut() {
                    b.shadow(s, s + (1u64 << o), false);
                }
            }
            (_, _, Covering::Nothing) => {}
        }
        if let (Covering::Shadow { .. }, Some(b)) = (with, self.binner.as_mut()) {
            b.shadow(index, index + (1u64 << order), true);
        }
        self.entries.insert(index, (order, with));
    }

    fn count(&mut self, f: &Folio, add: bool) {
        if let Some(b) = self.binner.as_mut() {
            b.folio(f, add);
        }
    }

    /// Whether `page` lies inside the mapping shown: the one in use when
    /// the access started (a recorded program's access may map through
    /// another, which the picture does not show).
    fn in_mapping(&self, page: u64) -> bool {
        self.base.mm.contains(page)
    }

    fn pte_mapped(&self, page: u64) -> bool {
        match self.ptes.get(page) {
            Some(m) => m,
            None => self.in_mapping(page) && self.base.mm.pte_mapped(page),
        }
    }

    /// The file page where the PMD holding `page` starts.
    fn pmd_head(&self, page: u64) -> u64 {
        let mm = &self.base.mm;
        page - (mm.vpn_of(page) & (mm.ptrs_per_pte - 1))
    }

    fn pmd_mapped(&self, head: u64) -> bool {
        match self.pmds.get(head) {
            Some(m) => m,
            None => self.in_mapping(head) && self.base.mm.pmd_of(head) == Pmd::Huge,
        }
    }

    /// Reclaim's unmapping of a folio's pages before it leaves the cache:
    /// the PMD mapping them, or their PTEs.
    fn unmap(&mut self, index: u64, nr: u64) {
        let head = self.pmd_head(index);
        if self.in_mapping(head) && self.pmd_mapped(head) {
            self.pmds.insert(head, false);
            let end = head + self.base.geo.ptrs_per_pte;
            if let Some(b) = self.binner.as_mut() {
                b.mapped(head, end, true, false);
            }
            return;
        }
        for page in index..index + nr {
            if self.pte_mapped(page) {
                self.ptes.insert(page, false);
                if let Some(b) = self.binner.as_mut() {
                    b.mapped(page, page + 1, false, false);
                }
            }
        }
    }
}
