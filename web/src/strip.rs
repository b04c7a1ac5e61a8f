//! The file strip as pixels: one RGBA buffer for a range of pages, drawn
//! with one `put_image_data`. Bands, top to bottom: how pages are mapped
//! (PMD, PTE), the folios by order (under I/O in orange, uncached pale),
//! PG_readahead ticks, and the readahead window with its async part.

use folioscope_core::{Event, Machine, Picture, Span};

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
    // The machine before the access, and what its first events did.
    let mut picture = Picture::new(m, Some(view));
    for e in overlay {
        picture.apply(e);
    }
    let ra = picture.ra();
    let mut put = |x: u32, y0: u32, y1: u32, rgb: [u8; 3]| {
        for y in y0..y1 {
            let i = ((y * w + x) * 4) as usize;
            buf[i..i + 3].copy_from_slice(&rgb);
            buf[i + 3] = 255;
        }
    };
    for (x, b) in picture.bins().iter().enumerate() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use folioscope_core::{Config, Madvise, Pattern, Scenario, Simulation};

    /// Stepping through every event of an access draws what the machine
    /// after it draws: the strip's overlay is the core's one folding of
    /// events, and a whole access folded is the next step.
    #[test]
    fn an_access_stepped_through_draws_the_step_after_it() {
        let cfg = Config::new(Scenario {
            file_size: 64 << 20,
            pattern: Pattern::Random {
                milli_pct: 50_000,
                seed: 5,
            },
            madvise: Madvise::Hugepage,
            memory_limit: Some(8 << 20),
            ..Scenario::default()
        })
        .unwrap();
        let mut sim = Simulation::new(cfg);
        let pages = sim.machine().geometry().nr_pages;
        let views = [
            Span {
                first: 0,
                end: pages,
                bins: 700,
            },
            Span {
                first: 15_000,
                end: 15_600,
                bins: 1200,
            },
        ];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut drawn_changes = 0;
        for _ in 0..200 {
            let before = sim.machine().clone();
            let mut events = Vec::new();
            sim.step(&mut events);
            for view in views {
                render(&before, view, None, &events, &mut a);
                render(sim.machine(), view, None, &[], &mut b);
                assert!(a == b, "{view:?}");
                let mut c = Vec::new();
                render(&before, view, None, &[], &mut c);
                drawn_changes += (c != b) as u32;
            }
        }
        assert!(drawn_changes > 10, "the accesses change the drawing");
    }
}
