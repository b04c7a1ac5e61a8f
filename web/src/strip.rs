//! The file strip as pixels: one RGBA buffer for a range of pages, drawn
//! with one `put_image_data`. Bands, top to bottom: how pages are mapped
//! (PMD, PTE), the folios by order (under I/O in orange, uncached pale),
//! PG_readahead ticks, and the readahead window with its async part.

use folioscope_core::folio::{Folio, FolioFlags};
use folioscope_core::mapping::Pmd;
use folioscope_core::xarray::Entry;
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

    /// The first page under column `x`.
    pub fn page_at(&self, x: u32) -> u64 {
        self.first + (self.pages() as u128 * x as u128 / self.width.max(1) as u128) as u64
    }

    /// The column of page `p`, if visible.
    pub fn x_of(&self, p: u64) -> Option<u32> {
        (p >= self.first && p < self.end)
            .then(|| ((p - self.first) as u128 * self.width as u128 / self.pages() as u128) as u32)
    }

    fn cols_of(&self, start: u64, end: u64) -> (u32, u32) {
        let s = start.max(self.first);
        let e = end.min(self.end);
        let c0 = ((s - self.first) as u128 * self.width as u128 / self.pages() as u128) as u32;
        let c1 =
            ((e - self.first) as u128 * self.width as u128).div_ceil(self.pages() as u128) as u32;
        (c0, c1.max(c0 + 1).min(self.width))
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
    let mut cols = vec![Column::default(); w as usize];
    m.cache
        .xa
        .for_each_entry_in(view.first, view.end - 1, |start, _order, e| {
            let Entry::Pointer(p) = e else { return };
            let f = Folio::decode(start, p);
            let (c0, c1) = view.cols_of(f.index, f.next_index());
            let pages_here = |c: u32| -> u32 {
                let p0 = view.page_at(c).max(f.index);
                let p1 = view.page_at(c + 1).max(p0 + 1).min(f.next_index());
                (p1.saturating_sub(p0)).max(1) as u32
            };
            for c in c0..c1 {
                let col = &mut cols[c as usize];
                if f.test(FolioFlags::LOCKED) || !f.test(FolioFlags::UPTODATE) {
                    col.locked = true;
                } else {
                    let n = pages_here(c);
                    col.by_order[(f.order as usize).min(13)] += n;
                    col.resident += n;
                }
            }
            if f.test(FolioFlags::READAHEAD) {
                if let Some(x) = view.x_of(f.index.max(view.first)) {
                    cols[x as usize].readahead = true;
                }
            }
        });
    // Mappings: a PMD covers whole ranges; PTEs are looked up page by page
    // only where the view is narrow enough for that to be cheap.
    for (c, col) in cols.iter_mut().enumerate() {
        let p0 = view.page_at(c as u32);
        let p1 = view.page_at(c as u32 + 1).max(p0 + 1).min(view.end);
        if m.mm.pmd_of(p0) == Pmd::Huge || m.mm.pmd_of(p1 - 1) == Pmd::Huge {
            col.pmd = true;
        } else {
            let step = ((p1 - p0) / 64).max(1);
            let mut p = p0;
            while p < p1 {
                if m.mm.pte_mapped(p) {
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
