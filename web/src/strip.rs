//! The file strip as pixels: one RGBA buffer for a range of pages, drawn
//! with one `put_image_data`. Bands, top to bottom: how pages are mapped
//! (PMD, PTE), the folios by order (under I/O in orange, uncached pale),
//! PG_readahead ticks, and the readahead window with its async part.

use folioscope_core::{Bin, Event, FileRaState, Machine, Span};

use crate::palette;

pub const HEIGHT: u32 = 64;
const MAP_TOP: u32 = 0;
const MAP_BOTTOM: u32 = 8;
const FOLIO_TOP: u32 = 11;
const FOLIO_BOTTOM: u32 = 47;
const WIN_TOP: u32 = 51;
const WIN_BOTTOM: u32 = 58;

/// Renders the strip into `buf` (resized to width × HEIGHT × 4): the
/// machine's state, then `overlay`, the events already applied inside the
/// access being stepped through.
pub fn render(m: &Machine, view: Span, cursor: Option<u64>, overlay: &[Event], buf: &mut Vec<u8>) {
    let w = view.bins.max(1);
    buf.clear();
    buf.resize((w * HEIGHT * 4) as usize, 255);
    if view.pages() == 0 {
        return;
    }
    let mut bins = m.bins(view);
    let mut ra = m.ra();
    apply_overlay(&view, overlay, &mut bins, &mut ra);
    let mut put = |x: u32, y0: u32, y1: u32, rgb: [u8; 3]| {
        for y in y0..y1 {
            let i = ((y * w + x) * 4) as usize;
            buf[i..i + 3].copy_from_slice(&rgb);
            buf[i + 3] = 255;
        }
    };
    for (x, b) in bins.iter().enumerate() {
        let x = x as u32;
        if b.pmd_mapped > 0 {
            put(x, MAP_TOP, MAP_BOTTOM, palette::PMD);
        } else if b.pte_mapped > 0 {
            put(x, MAP_TOP + 3, MAP_BOTTOM, palette::PTE);
        }
        let rgb = match b.main_order() {
            Some(order) => palette::order_rgb(order),
            None if b.locked > 0 => palette::LOCKED,
            None if b.not_uptodate > 0 => palette::NOT_UPTODATE,
            None => palette::UNCACHED,
        };
        put(x, FOLIO_TOP, FOLIO_BOTTOM, rgb);
        if b.locked > 0 && b.resident > 0 {
            put(x, FOLIO_TOP, FOLIO_TOP + 6, palette::LOCKED);
        }
        if b.readahead > 0 {
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
    if let Some(c) = cursor.and_then(|p| view.bin_of(p)) {
        put(c, 0, HEIGHT, palette::CURSOR);
        if c + 1 < w {
            put(c + 1, 0, HEIGHT, palette::CURSOR);
        }
    }
}

/// Paints the effect of events that happened inside the current access.
fn apply_overlay(view: &Span, overlay: &[Event], bins: &mut [Bin], ra: &mut FileRaState) {
    let cols_of = |start: u64, end: u64| {
        let s = start.max(view.first);
        let e = end.min(view.end);
        let w = view.bins as u64;
        let c0 = ((s - view.first) * w / view.pages()) as u32;
        let c1 = ((e - view.first) * w).div_ceil(view.pages()) as u32;
        c0..c1.max(c0 + 1).min(view.bins)
    };
    for e in overlay {
        match *e {
            Event::FolioAdded { index, order, .. } => {
                let end = index + (1u64 << order);
                if end > view.first && index < view.end {
                    for c in cols_of(index, end) {
                        bins[c as usize].locked = 1;
                    }
                }
            }
            Event::FolioUptodate { index, order } => {
                let end = index + (1u64 << order);
                if end > view.first && index < view.end {
                    for c in cols_of(index, end) {
                        let b = &mut bins[c as usize];
                        b.locked = 0;
                        b.by_order[(order as usize).min(13)] += 1;
                        b.resident += 1;
                    }
                }
            }
            Event::ReadaheadFlag { index, set, .. } => {
                if let Some(x) = view.bin_of(index) {
                    bins[x as usize].readahead = set as u32;
                }
            }
            Event::PtesMapped { first, nr, .. } => {
                let end = first + nr as u64;
                if end > view.first && first < view.end {
                    for c in cols_of(first, end) {
                        bins[c as usize].pte_mapped = 1;
                    }
                }
            }
            Event::PmdMapped { index, .. } => {
                if let Some(x) = view.bin_of(index.max(view.first)) {
                    bins[x as usize].pmd_mapped = 1;
                }
            }
            Event::Evicted { index, order } => {
                let end = index + (1u64 << order);
                if end > view.first && index < view.end {
                    for c in cols_of(index, end) {
                        let b = &mut bins[c as usize];
                        b.by_order = [0; 14];
                        b.resident = 0;
                        b.pte_mapped = 0;
                        b.pmd_mapped = 0;
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
