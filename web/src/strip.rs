//! The file strip as pixels: one RGBA buffer for a range of pages, drawn
//! with one `put_image_data`. Bands, top to bottom: how pages are mapped
//! (PMD, PTE), the folios by order (under I/O in orange, uncached pale),
//! PG_readahead ticks, and the readahead window with its async part.

use folioscope_core::folio::{Folio, FolioFlags};
use folioscope_core::mapping::Pmd;
use folioscope_core::xarray::{decode_slot, Entry, Visit};
use folioscope_core::{Event, Machine};

use crate::palette;

pub const HEIGHT: u32 = 64;
const MAP_TOP: u32 = 0;
const MAP_BOTTOM: u32 = 8;
const FOLIO_TOP: u32 = 11;
const FOLIO_BOTTOM: u32 = 47;
const WIN_TOP: u32 = 51;
const WIN_BOTTOM: u32 = 58;

/// What a column of the strip shows.
#[derive(Clone, Copy, Default)]
struct Column {
    /// Resident pages per order.
    by_order: [u32; 14],
    resident: u32,
    locked: bool,
    stale: bool,
    readahead: bool,
    pmd: bool,
    pte: bool,
}

/// A view of the strip: the page range and the size in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    pub first: u64,
    /// One past the last page.
    pub end: u64,
    pub width: u32,
}

impl View {
    pub fn pages(&self) -> u64 {
        self.end - self.first
    }

    // Page counts stay under 2^24 (64 GiB of 4 KiB pages) and widths
    // under 2^16, so products fit in u64; u128 division is slow in wasm.

    /// The first page under column `x`.
    pub fn page_at(&self, x: u32) -> u64 {
        self.first + self.pages() * x as u64 / self.width.max(1) as u64
    }

    /// The column of page `p`, if visible.
    pub fn x_of(&self, p: u64) -> Option<u32> {
        (p >= self.first && p < self.end)
            .then(|| ((p - self.first) * self.width as u64 / self.pages()) as u32)
    }

    fn cols_of(&self, start: u64, end: u64) -> (u32, u32) {
        let s = start.max(self.first);
        let e = end.min(self.end);
        let w = self.width as u64;
        let c0 = ((s - self.first) * w / self.pages()) as u32;
        let c1 = ((e - self.first) * w).div_ceil(self.pages()) as u32;
        (c0, c1.max(c0 + 1).min(self.width))
    }
}

/// The folios under each column: resident pages by order, and whether
/// any folio there is locked, not uptodate, or marked PG_readahead.
fn folio_columns(m: &Machine, view: View) -> Vec<Column> {
    let mut acc = Columns::new(view);
    // Whole leaves come as raw slots: zoomed out over a cached file, this
    // loop meets every page of it.
    m.cache
        .xa
        .for_each_leaf_in(view.first, view.end - 1, |v| match v {
            Visit::Entry(start, _order, Entry::Pointer(p)) => acc.add(Folio::decode(start, p)),
            Visit::Entry(..) => {}
            Visit::Leaf(base, slots) => acc.add_leaf(base, slots),
        });
    acc.cols
}

/// Folios added in index order to the columns of a view. Column x shows
/// pages [bounds[x], bounds[x + 1]), at least one page when zoomed in past
/// a page per pixel; one cursor walks the columns, so no entry divides.
struct Columns {
    view: View,
    cols: Vec<Column>,
    bounds: Vec<u64>,
    /// The column under the cursor: its first page, its end, and where the
    /// next column starts (the same page when zoomed in past one page).
    x0: usize,
    lo: u64,
    hi: u64,
    next: u64,
}

const UPTODATE_ONLY: u16 = FolioFlags::UPTODATE.bits();
const STATE_BITS: u16 = FolioFlags::UPTODATE
    .union(FolioFlags::LOCKED)
    .union(FolioFlags::READAHEAD)
    .bits();

impl Columns {
    fn new(view: View) -> Self {
        let w = view.width.max(1);
        let bounds: Vec<u64> = (0..=w).map(|x| view.page_at(x)).collect();
        let hi = bounds[1].max(bounds[0] + 1);
        Columns {
            view,
            cols: vec![Column::default(); w as usize],
            lo: bounds[0],
            next: bounds[1],
            bounds,
            x0: 0,
            hi,
        }
    }

    fn col_end(&self, x: usize) -> u64 {
        self.bounds[x + 1].max(self.bounds[x] + 1)
    }

    /// Moves the cursor to the column that holds page `s`.
    fn seek(&mut self, s: u64) {
        let last = self.cols.len() - 1;
        while self.x0 < last && self.hi <= s {
            self.x0 += 1;
            self.lo = self.bounds[self.x0];
            self.hi = self.col_end(self.x0);
            self.next = self.bounds[self.x0 + 1];
        }
    }

    /// Whether pages `[s, e)` all fall in the cursor's column alone.
    fn in_one_column(&self, s: u64, e: u64) -> bool {
        e <= self.hi && s >= self.lo && self.next >= e
    }

    /// A leaf's 64 slots. When the leaf lies in one column, resident
    /// folios with no other state are counted in a tight loop.
    fn add_leaf(&mut self, base: u64, slots: &[u64; 64]) {
        let (s, e) = (base.max(self.view.first), (base + 64).min(self.view.end));
        self.seek(s);
        if !self.in_one_column(s, e) {
            for (k, &raw) in slots.iter().enumerate() {
                if let Entry::Pointer(p) = decode_slot(raw) {
                    self.add(Folio::decode(base + k as u64, p));
                }
            }
            return;
        }
        let x0 = self.x0;
        for (k, &raw) in slots.iter().enumerate() {
            let Entry::Pointer(p) = decode_slot(raw) else {
                continue;
            };
            let f = Folio::decode(base + k as u64, p);
            if f.flags.bits() & STATE_BITS == UPTODATE_ONLY {
                let col = &mut self.cols[x0];
                col.by_order[(f.order as usize).min(13)] += f.nr_pages() as u32;
                col.resident += f.nr_pages() as u32;
            } else {
                self.add(f);
            }
        }
    }

    fn add(&mut self, f: Folio) {
        let view = self.view;
        let (s, e) = (f.index.max(view.first), f.next_index().min(view.end));
        self.seek(s);
        let order = (f.order as usize).min(13);
        if self.in_one_column(s, e) && f.flags.bits() & STATE_BITS == UPTODATE_ONLY {
            // The common case when zoomed out: a resident folio inside one
            // column.
            let col = &mut self.cols[self.x0];
            col.by_order[order] += (e - s) as u32;
            col.resident += (e - s) as u32;
            return;
        }
        let mut x = self.x0;
        while x < self.cols.len() && self.bounds[x] < e {
            let n = e.min(self.col_end(x)).saturating_sub(s.max(self.bounds[x]));
            if n > 0 {
                let col = &mut self.cols[x];
                if f.test(FolioFlags::LOCKED) {
                    col.locked = true;
                } else if !f.test(FolioFlags::UPTODATE) {
                    // Present, idle and never read or written: a
                    // fallocated tmpfs folio.
                    col.stale = true;
                } else {
                    col.by_order[order] += n as u32;
                    col.resident += n as u32;
                }
            }
            x += 1;
        }
        if f.test(FolioFlags::READAHEAD) {
            if let Some(x) = view.x_of(f.index.max(view.first)) {
                self.cols[x as usize].readahead = true;
            }
        }
    }
}

/// Renders the strip into `buf` (resized to width × HEIGHT × 4): the
/// machine's state, then `overlay`, the events already applied inside the
/// access being stepped through.
pub fn render(m: &Machine, view: View, cursor: Option<u64>, overlay: &[Event], buf: &mut Vec<u8>) {
    let w = view.width.max(1);
    buf.clear();
    buf.resize((w * HEIGHT * 4) as usize, 255);
    if view.pages() == 0 {
        return;
    }
    let mut cols = folio_columns(m, view);
    // Mappings: a PMD covers whole ranges; PTEs are looked up page by page
    // only where the view is narrow enough for that to be cheap.
    for (c, col) in cols.iter_mut().enumerate() {
        let p0 = view.page_at(c as u32);
        let p1 = view.page_at(c as u32 + 1).max(p0 + 1).min(view.end);
        if m.mm.pmd_at(p0) == Pmd::Huge || m.mm.pmd_at(p1 - 1) == Pmd::Huge {
            col.pmd = true;
        } else {
            let step = ((p1 - p0) / 64).max(1);
            let mut p = p0;
            while p < p1 {
                if m.mm.pte_mapped_at(p) {
                    col.pte = true;
                    break;
                }
                p += step;
            }
        }
    }
    let mut ra = m.ra;
    apply_overlay(&view, overlay, &mut cols, &mut ra);
    let mut put = |x: u32, y0: u32, y1: u32, rgb: [u8; 3]| {
        for y in y0..y1 {
            let i = ((y * w + x) * 4) as usize;
            buf[i..i + 3].copy_from_slice(&rgb);
            buf[i + 3] = 255;
        }
    };
    for (x, col) in cols.iter().enumerate() {
        let x = x as u32;
        if col.pmd {
            put(x, MAP_TOP, MAP_BOTTOM, palette::PMD);
        } else if col.pte {
            put(x, MAP_TOP + 3, MAP_BOTTOM, palette::PTE);
        }
        let rgb = if col.resident > 0 {
            let (order, _) = col
                .by_order
                .iter()
                .enumerate()
                .max_by_key(|(o, n)| (**n, *o))
                .expect("fourteen orders");
            palette::order_rgb(order as u8)
        } else if col.locked {
            palette::LOCKED
        } else if col.stale {
            palette::NOT_UPTODATE
        } else {
            palette::UNCACHED
        };
        put(x, FOLIO_TOP, FOLIO_BOTTOM, rgb);
        if col.locked && col.resident > 0 {
            put(x, FOLIO_TOP, FOLIO_TOP + 6, palette::LOCKED);
        }
        if col.readahead {
            put(x, FOLIO_TOP - 3, FOLIO_BOTTOM + 3, palette::READAHEAD);
        }
        let p = view.page_at(x);
        if ra.size > 0 && p >= ra.start && p < ra.start + ra.size {
            let async_from = ra.start + ra.size - ra.async_size;
            let rgb = if p >= async_from {
                palette::WINDOW_ASYNC
            } else {
                palette::WINDOW
            };
            put(x, WIN_TOP, WIN_BOTTOM, rgb);
        }
    }
    if let Some(c) = cursor.and_then(|p| view.x_of(p)) {
        put(c, 0, HEIGHT, palette::CURSOR);
        if c + 1 < w {
            put(c + 1, 0, HEIGHT, palette::CURSOR);
        }
    }
}

/// Paints the effect of events that happened inside the current access.
fn apply_overlay(
    view: &View,
    overlay: &[Event],
    cols: &mut [Column],
    ra: &mut folioscope_core::readahead::FileRaState,
) {
    for e in overlay {
        match *e {
            Event::FolioAdded { index, order, .. } => {
                let (c0, c1) = view.cols_of(index, index + (1u64 << order));
                if index + (1u64 << order) > view.first && index < view.end {
                    for c in c0..c1 {
                        cols[c as usize].locked = true;
                    }
                }
            }
            Event::FolioUptodate { index, order } => {
                let end = index + (1u64 << order);
                if end > view.first && index < view.end {
                    let (c0, c1) = view.cols_of(index, end);
                    for c in c0..c1 {
                        let col = &mut cols[c as usize];
                        col.locked = false;
                        col.by_order[(order as usize).min(13)] += 1;
                        col.resident += 1;
                    }
                }
            }
            Event::ReadaheadFlag { index, set, .. } => {
                if let Some(x) = view.x_of(index) {
                    cols[x as usize].readahead = set;
                }
            }
            Event::PtesMapped { first, nr, .. } => {
                let end = first + nr as u64;
                if end > view.first && first < view.end {
                    let (c0, c1) = view.cols_of(first, end);
                    for c in c0..c1 {
                        cols[c as usize].pte = true;
                    }
                }
            }
            Event::PmdMapped { index, .. } => {
                if let Some(x) = view.x_of(index.max(view.first)) {
                    cols[x as usize].pmd = true;
                }
            }
            Event::Evicted { index, order } => {
                let end = index + (1u64 << order);
                if end > view.first && index < view.end {
                    let (c0, c1) = view.cols_of(index, end);
                    for c in c0..c1 {
                        let col = &mut cols[c as usize];
                        col.by_order = [0; 14];
                        col.resident = 0;
                        col.pte = false;
                        col.pmd = false;
                    }
                }
            }
            Event::Window { window, .. } => {
                ra.start = window.start;
                ra.size = window.size;
                ra.async_size = window.async_size;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folioscope_core::{Config, NoEvents, Pattern, Simulation};

    type Cell = (u32, [u32; 14], bool, bool, bool);

    /// Page by page, what the folio columns should hold.
    fn naive(m: &Machine, view: View) -> Vec<Cell> {
        (0..view.width)
            .map(|x| {
                let p0 = view.page_at(x);
                let p1 = view.page_at(x + 1).max(p0 + 1).min(view.end);
                let mut by = [0u32; 14];
                let (mut n, mut locked, mut stale, mut ra) = (0, false, false, false);
                for p in p0..p1 {
                    if let Some(f) = m.cache.peek_folio(p) {
                        if f.test(FolioFlags::LOCKED) {
                            locked = true;
                        } else if !f.test(FolioFlags::UPTODATE) {
                            stale = true;
                        } else {
                            by[f.order as usize] += 1;
                            n += 1;
                        }
                        let first = f.index.max(view.first);
                        if f.test(FolioFlags::READAHEAD) && p == first {
                            ra = true;
                        }
                    }
                }
                (n, by, locked, stale, ra)
            })
            .collect()
    }

    #[test]
    fn columns_count_what_a_page_by_page_walk_counts() {
        let cfg = Config::defaults(Pattern::Stride(3), 64 << 20).unwrap();
        let mut sim = Simulation::new(cfg);
        sim.run_to(900, &mut NoEvents);
        let m = sim.machine();
        let pages = m.geo.nr_pages;
        for view in [
            View {
                first: 0,
                end: pages,
                width: 1300,
            },
            View {
                first: 0,
                end: pages,
                width: 7,
            },
            View {
                first: 1000,
                end: 1010,
                width: 100,
            },
            View {
                first: 511,
                end: 2049,
                width: 333,
            },
            View {
                first: 5,
                end: 6,
                width: 10,
            },
        ] {
            let got: Vec<Cell> = folio_columns(m, view)
                .iter()
                .map(|c| (c.resident, c.by_order, c.locked, c.stale, c.readahead))
                .collect();
            assert_eq!(got, naive(m, view), "{view:?}");
        }
        let full = View {
            first: 0,
            end: pages,
            width: 1300,
        };
        assert!(
            folio_columns(m, full).iter().any(|c| c.resident > 0),
            "a cache to draw"
        );
    }
}
