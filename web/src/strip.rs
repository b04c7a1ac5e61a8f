//! The file strip as pixels: one RGBA buffer for a range of pages, put on
//! the canvas with `put_image_data` (only the columns painted since the
//! last put: [`Raster::take_dirty`]). Each pixel column is a bin of pages (the
//! core's [`Bin`]), and every band shows how much of the bin is in each
//! state by height, so a column covering thousands of pages says how many
//! of them are cached, not only whether one is. Bands, top to bottom:
//!
//! - mapping: pages under a PMD mapping from the band's foot, pages a PTE
//!   maps above them;
//! - PG_readahead: a tick over each folio that carries the mark, above
//!   the folios rather than over their colour;
//! - folios: from the foot, resident pages by order (the bin's dominant
//!   order first, then the others by share), then pages under I/O, then
//!   pages present but not uptodate; from the top, pages under shadow
//!   entries (evicted); between them, pages never cached. Zoomed in to
//!   three pixels a page or more, a folio that follows another starts
//!   with a line, so that neighbouring folios of one order stay apart;
//! - `file_ra_state`: the window, and its async part;
//! - in compare mode, under another kernel's strip: the columns whose
//!   pages it holds differently from the first kernel.
//!
//! [`Raster::paint`] draws bins however they were made, again only where
//! they changed; [`render`] folds into a machine's bins the events
//! applied inside the access being stepped through. The real kernel's
//! lane paints its folio band with the same [`folio_band`].

use folioscope_core::{Bin, Event, FileRaState, Machine, Picture, Span, ORDERS};

use crate::palette::Palette;

pub const HEIGHT: u32 = 64;
pub const MAP_TOP: u32 = 0;
pub const MAP_BOTTOM: u32 = 7;
pub const RA_TOP: u32 = 9;
pub const RA_BOTTOM: u32 = 12;
pub const FOLIO_TOP: u32 = 13;
pub const FOLIO_BOTTOM: u32 = 49;
pub const WIN_TOP: u32 = 52;
pub const WIN_BOTTOM: u32 = 59;
pub const DIFF_TOP: u32 = 61;
pub const DIFF_BOTTOM: u32 = 64;
/// Pixels a page must span before folio edges are drawn.
pub const EDGE_MIN_PX: u64 = 3;

/// What a strip is drawn against: its current access, and in compare
/// mode the first kernel's bins, to mark where this kernel's differ.
#[derive(Clone, Copy, Default)]
pub struct Marks<'a> {
    pub cursor: Option<u64>,
    pub reference: Option<&'a [Bin]>,
}

/// A strip's pixels, kept from frame to frame with what each column was
/// painted from, so that a frame paints again only the columns whose
/// inputs changed: while playing, an access changes a few columns of a
/// thousand.
#[derive(Default)]
pub struct Raster {
    /// Pixels, `span.bins` × [`HEIGHT`], row-major, each one RGBA word
    /// (see [`pixel`]): one store a pixel. Written as three bytes, each
    /// with its bounds check, they were half the paint of a jump on the
    /// 16 GiB link; as words, the paint of the timing test's 40 jumps
    /// there took 38 ms in Chromium against 51 (2026-12-04, three
    /// profiles of each build, alternating).
    pixels: Vec<u32>,
    /// The span and palette the pixels were painted for.
    painted: Option<(Span, Palette)>,
    columns: Vec<Option<Column>>,
    /// How the readahead window covers each column, at the last paint.
    windows: Vec<Window>,
    /// The first and last columns painted since [`Raster::take_dirty`].
    dirty: Option<(u32, u32)>,
}

/// Everything column `x`'s pixels depend on: painting one is a function
/// of this alone, given the span and the palette.
#[derive(Clone, Copy, PartialEq)]
struct Column {
    bin: Bin,
    /// Whether the column before holds cached pages (a folio edge).
    left_cached: bool,
    window: Window,
    differs: bool,
    cursor: Option<[u8; 3]>,
}

/// How `file_ra_state`'s window covers a column.
#[derive(Clone, Copy, PartialEq)]
enum Window {
    Outside,
    Sync,
    Async,
}

/// Renders the strip into `raster` (width × HEIGHT × 4): the machine's
/// state, binned already (`bins`, what `Machine::bins` counts for `view`
/// on `m`), then `overlay`, the events already applied inside the access
/// being stepped through.
pub fn render(
    m: &Machine,
    view: Span,
    bins: &[Bin],
    overlay: &[Event],
    marks: Marks,
    palette: &Palette,
    raster: &mut Raster,
) {
    if view.pages() == 0 {
        raster.paint(&[], view, None, marks, palette);
        return;
    }
    // The machine before the access, and what its first events did.
    let mut picture = Picture::over_bins(m, view, bins.to_vec());
    for e in overlay {
        picture.apply(e);
    }
    raster.paint(picture.bins(), view, Some(picture.ra()), marks, palette);
}

impl Raster {
    /// The first and last columns painted since the last call, if any:
    /// what the canvas lacks of these pixels.
    pub fn take_dirty(&mut self) -> Option<(u32, u32)> {
        self.dirty.take()
    }

    /// Forgets what was painted, for a canvas drawn over by other means:
    /// the next paint paints every column.
    pub fn forget(&mut self) {
        self.painted = None;
    }

    /// The pixels as RGBA bytes, for an `ImageData`.
    pub fn rgba(&self) -> &[u8] {
        bytemuck::cast_slice(&self.pixels)
    }

    /// Paints `bins`, one per pixel column of `span`, with the readahead
    /// window of `ra` and `marks`, over what the last call painted.
    pub fn paint(
        &mut self,
        bins: &[Bin],
        span: Span,
        ra: Option<FileRaState>,
        marks: Marks,
        p: &Palette,
    ) {
        let w = span.bins.max(1);
        if self
            .painted
            .as_ref()
            .is_none_or(|(s, q)| *s != span || q != p)
        {
            self.pixels.clear();
            self.pixels.resize((w * HEIGHT) as usize, WHITE);
            self.columns.clear();
            self.columns.resize(w as usize, None);
            self.painted = Some((span, p.clone()));
            self.dirty = Some((0, w - 1));
        }
        let cursor_bin = marks.cursor.and_then(|page| span.bin_of(page));
        let edges = span.pages() > 0 && span.bins as u64 >= EDGE_MIN_PX * span.pages();
        let mut left_cached = false;
        // Set out once: zeroing it for each column was a fifth of the
        // paint in the build for size. `segments` writes what it returns.
        let mut segs = [(0u32, [0u8; 3]); ORDERS + 2];
        let stride = w as usize;
        // How the window covers each column, found once: found column by
        // column, its divisions were a seventh of a paint where no column
        // changes, a frame of play (natively 0.125 -> 0.107 ms at 1142
        // columns).
        windows(ra, span, &mut self.windows);
        let windows = &self.windows[..];
        // A slice, not the Vec: indexing a Vec is a call in this build.
        let pixels = &mut self.pixels[..];
        // The cursor's columns, found once: looked for at each column,
        // they were 7% of a paint where no column changes, a frame of play
        // (natively 69 -> 64 µs at 1622 columns).
        let mut cursor_at = [None; CURSOR_COLUMNS];
        if let Some(c) = cursor_bin {
            for (slot, column) in cursor_at.iter_mut().zip(cursor_columns(c, w, p)) {
                *slot = Some(column);
            }
        }
        for x in 0..w {
            let cursor = cursor_at
                .iter()
                .flatten()
                .find(|&&(cx, _)| cx == x)
                .map(|&(_, rgb)| rgb);
            let column = bins.get(x as usize).map(|&bin| Column {
                bin,
                left_cached: edges && left_cached,
                window: windows.get(x as usize).copied().unwrap_or(Window::Outside),
                differs: marks
                    .reference
                    .and_then(|r| r.get(x as usize))
                    .is_some_and(|r| *r != bin),
                cursor,
            });
            left_cached = column.is_some_and(|c| c.bin.cached() > 0);
            let key = column.or(cursor.map(|cursor| Column {
                bin: Bin::default(),
                left_cached: false,
                window: Window::Outside,
                differs: false,
                cursor: Some(cursor),
            }));
            if self.columns[x as usize] == key {
                continue;
            }
            self.columns[x as usize] = key;
            self.dirty = Some(self.dirty.map_or((x, x), |(a, b)| (a.min(x), b.max(x))));
            let col = match (column, cursor) {
                (_, Some(rgb)) => [pixel(rgb); HEIGHT as usize],
                (Some(c), None) => {
                    let pages = span.bin_len(x).max(1) as u32;
                    paint_column(&c, pages, edges, p, &mut segs)
                }
                (None, None) => [WHITE; HEIGHT as usize],
            };
            let mut i = x as usize;
            for px in col {
                pixels[i] = px;
                i += stride;
            }
        }
    }
}

/// An opaque white pixel.
const WHITE: u32 = u32::MAX;

/// Colour `rgb` as an opaque pixel word: its bytes in memory are R, G, B
/// and A, as an `ImageData` holds them.
fn pixel([r, g, b]: [u8; 3]) -> u32 {
    u32::from_le_bytes([r, g, b, 255])
}

/// Paints `bins` into `buf` afresh; see [`Raster::paint`].
#[cfg(test)]
pub fn paint(
    bins: &[Bin],
    span: Span,
    ra: Option<FileRaState>,
    marks: Marks,
    p: &Palette,
    buf: &mut Vec<u8>,
) {
    let mut raster = Raster::default();
    raster.paint(bins, span, ra, marks, p);
    *buf = raster.rgba().to_vec();
}

/// How `ra`'s window covers each column of `span`, into `out`: the
/// columns that show its pages, and of those, the ones that show its
/// async part.
fn windows(ra: Option<FileRaState>, span: Span, out: &mut Vec<Window>) {
    out.clear();
    out.resize(span.bins as usize, Window::Outside);
    let Some(ra) = ra.filter(|ra| ra.size > 0) else {
        return;
    };
    let end = ra.start + ra.size;
    span.for_each_overlap(ra.start, end, |x, _| out[x] = Window::Sync);
    if ra.async_size > 0 {
        span.for_each_overlap(end - ra.async_size, end, |x, _| out[x] = Window::Async);
    }
}

/// How `ra`'s window covers the pages of column `x`: [`windows`], column
/// by column, for the tests.
#[cfg(test)]
fn window(ra: Option<FileRaState>, span: Span, x: u32) -> Window {
    let Some(ra) = ra.filter(|ra| ra.size > 0) else {
        return Window::Outside;
    };
    let r = span.bin_pages(x);
    let async_from = ra.start + ra.size - ra.async_size;
    let overlaps = |a: u64, b: u64| r.start < b && a < r.end;
    if ra.async_size > 0 && overlaps(async_from, ra.start + ra.size) {
        Window::Async
    } else if overlaps(ra.start, ra.start + ra.size) {
        Window::Sync
    } else {
        Window::Outside
    }
}

/// The pixels of one column of `pages` pages, top first.
fn paint_column(
    c: &Column,
    pages: u32,
    edges: bool,
    p: &Palette,
    segs: &mut [(u32, [u8; 3]); ORDERS + 2],
) -> [u32; HEIGHT as usize] {
    let mut col = [WHITE; HEIGHT as usize];
    let mut put = |y0: u32, y1: u32, rgb: [u8; 3]| {
        col[y0 as usize..y1 as usize].fill(pixel(rgb));
    };
    let b = &c.bin;
    // Mapping: PMD-mapped pages from the foot, PTE-mapped above.
    let map_h = MAP_BOTTOM - MAP_TOP;
    let pmd = share_px(b.pmd_mapped.min(pages), pages, map_h);
    let pte = share_px(b.pte_mapped.min(pages), pages, map_h).min(map_h - pmd);
    put(MAP_BOTTOM - pmd, MAP_BOTTOM, p.pmd);
    put(MAP_BOTTOM - pmd - pte, MAP_BOTTOM - pmd, p.pte);

    if b.readahead > 0 {
        put(RA_TOP, RA_BOTTOM, p.readahead);
    }

    let cached_h = folio_band(b, pages, (FOLIO_TOP, FOLIO_BOTTOM), p, segs, &mut put);
    // An edge only where a folio meets another: next to a page that is
    // not cached, the change of colour shows where it starts.
    if edges && b.heads > 0 && cached_h > 0 && c.left_cached {
        put(FOLIO_BOTTOM - cached_h, FOLIO_BOTTOM, p.folio_edge);
    }

    // file_ra_state's window over the pages of the column.
    match c.window {
        Window::Async => put(WIN_TOP, WIN_BOTTOM, p.window_async),
        Window::Sync => put(WIN_TOP, WIN_BOTTOM, p.window),
        Window::Outside => {}
    }

    // Where this kernel holds the column's pages differently from the
    // first kernel (their states and orders, shadows, mappings,
    // PG_readahead marks or folio starts).
    if c.differs {
        put(DIFF_TOP, DIFF_BOTTOM, p.differs);
    }
    col
}

/// Paints one column's folio band `[top, bottom)` for bin `b` of `pages`
/// pages through `put(y0, y1, colour)`: folios from the foot, shadows from
/// the top, never-cached pages between, each by its share of the pages.
/// Returns the cached height. The real kernel's lane paints its bands the
/// same way.
pub fn folio_band(
    b: &Bin,
    pages: u32,
    (top, bottom): (u32, u32),
    p: &Palette,
    segs: &mut [(u32, [u8; 3]); ORDERS + 2],
    mut put: impl FnMut(u32, u32, [u8; 3]),
) -> u32 {
    put(top, bottom, p.uncached);
    let band = bottom - top;
    let cached = b.cached().min(pages);
    let cached_h = share_px(cached, pages, band);
    let shadow_h = share_px(b.shadows, pages, band).min(band - cached_h);
    put(top, top + shadow_h, p.shadow);
    let mut below = 0u32;
    let mut y = bottom;
    let k = segments(b, p, segs);
    for &(n, rgb) in &segs[..k] {
        below += n;
        // Cumulative rounding, up, so that the segments fill the cached
        // height and the dominant order shows first. Clamped: a damaged
        // recording's lane can hold overlapping folios, more pages than
        // the column has.
        let h = (below as u64 * cached_h as u64).div_ceil(cached.max(1) as u64);
        let seg_top = bottom - h.min(cached_h as u64) as u32;
        put(seg_top, y, rgb);
        y = seg_top;
    }
    cached_h
}

/// How many columns [`cursor_columns`] draws the current access in.
const CURSOR_COLUMNS: usize = 4;

/// The current access at column `c` of a canvas `w` columns wide: two
/// dark columns set off by light ones, each with its colour; the real
/// kernel's lane draws it the same way.
pub fn cursor_columns(c: u32, w: u32, p: &Palette) -> impl Iterator<Item = (u32, [u8; 3])> {
    let columns: [(i64, [u8; 3]); CURSOR_COLUMNS] = [
        (-1, p.cursor_edge),
        (0, p.cursor),
        (1, p.cursor),
        (2, p.cursor_edge),
    ];
    columns.into_iter().filter_map(move |(dx, rgb)| {
        let x = c as i64 + dx;
        (x >= 0 && x < w as i64).then_some((x as u32, rgb))
    })
}

/// The cached pages of a bin as (pages, colour), foot first: resident
/// pages by order, the dominant order first and the others by share (the
/// larger order first on a tie), then pages under I/O, then pages present
/// but not uptodate. Written into `out`; returns how many. No allocation:
/// this runs for every column of every frame.
pub fn segments(b: &Bin, p: &Palette, out: &mut [(u32, [u8; 3]); ORDERS + 2]) -> usize {
    let mut n = 0;
    for o in 0..ORDERS {
        let k = b.by_order[o];
        if k == 0 {
            continue;
        }
        // Insertion by share, larger orders first on a tie.
        let mut i = n;
        while i > 0 && out[i - 1].0 <= k {
            out[i] = out[i - 1];
            i -= 1;
        }
        out[i] = (k, p.order(o as u8));
        n += 1;
    }
    for (k, rgb) in [(b.locked, p.under_io), (b.not_uptodate, p.not_uptodate)] {
        if k > 0 {
            out[n] = (k, rgb);
            n += 1;
        }
    }
    n
}

/// The height of `n` pages of `of` in a band `h` pixels tall: rounded, and
/// at least one pixel for any page at all, so that one cached page in a
/// thousand still shows (the inspector gives the exact count).
pub fn share_px(n: u32, of: u32, h: u32) -> u32 {
    if n == 0 || h == 0 {
        return 0;
    }
    ((n as u64 * h as u64 + of as u64 / 2) / of.max(1) as u64).clamp(1, h as u64) as u32
}

/// Black or white, whichever reads better on `rgb` (for page numbers).
pub fn label_colour(rgb: [u8; 3]) -> &'static str {
    let [r, g, b] = rgb.map(|c| c as u32);
    if r * 299 + g * 587 + b * 114 > 140_000 {
        "#000000"
    } else {
        "#ffffff"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::palette;
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
        let p = palette::style_sheet().unwrap();
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
        // One raster a view for each of the two ways of drawing, kept
        // from step to step as the app keeps them, so that what they
        // paint again is checked against a raster painted afresh.
        let mut a: [Raster; 2] = Default::default();
        let mut b: [Raster; 2] = Default::default();
        let mut drawn_changes = 0;
        for _ in 0..200 {
            let before = sim.machine().clone();
            let mut events = Vec::new();
            sim.step(&mut events);
            for (i, view) in views.into_iter().enumerate() {
                // A machine's strip over its own bins, with `overlay`.
                let draw = |m: &Machine, overlay: &[Event], raster: &mut Raster| {
                    render(
                        m,
                        view,
                        &m.bins(view),
                        overlay,
                        Marks::default(),
                        &p,
                        raster,
                    )
                };
                draw(&before, &events, &mut a[i]);
                draw(sim.machine(), &[], &mut b[i]);
                assert!(a[i].rgba() == b[i].rgba(), "{view:?}");
                let mut fresh = Raster::default();
                draw(sim.machine(), &[], &mut fresh);
                assert!(fresh.rgba() == b[i].rgba(), "repainted columns, {view:?}");
                let mut c = Raster::default();
                draw(&before, &[], &mut c);
                drawn_changes += (c.rgba() != b[i].rgba()) as u32;
            }
        }
        assert!(drawn_changes > 10, "the accesses change the drawing");
    }

    /// The colours of column `x`'s folio band, foot first, one per pixel.
    fn column(buf: &[u8], w: u32, x: u32) -> Vec<[u8; 3]> {
        (FOLIO_TOP..FOLIO_BOTTOM)
            .rev()
            .map(|y| {
                let i = ((y * w + x) * 4) as usize;
                [buf[i], buf[i + 1], buf[i + 2]]
            })
            .collect()
    }

    /// A bin a hundredth cached is drawn a hundredth filled, in the
    /// colours of its orders by share, with its shadows from the top.
    #[test]
    fn a_column_is_filled_by_the_share_of_its_pages_in_each_state() {
        let p = palette::style_sheet().unwrap();
        let span = Span {
            first: 0,
            end: 3600,
            bins: 3,
        };
        let mut bins = vec![Bin::default(); 3];
        // 12 of 1200 pages cached (order 0: 4, order 2: 8), 600 shadows.
        bins[0].by_order[0] = 4;
        bins[0].by_order[2] = 8;
        bins[0].resident = 12;
        bins[0].shadows = 600;
        // All cached: order 9 three quarters, under I/O the rest.
        bins[1].by_order[9] = 900;
        bins[1].resident = 900;
        bins[1].locked = 300;
        let mut buf = Vec::new();
        // Against a first kernel's bins that hold the same first column.
        let reference = vec![bins[0], Bin::default(), Bin::default()];
        let marks = Marks {
            cursor: None,
            reference: Some(&reference),
        };
        paint(&bins, span, None, marks, &p, &mut buf);
        let diff_row = |x: u32| {
            let i = ((DIFF_TOP * 3 + x) * 4) as usize;
            [buf[i], buf[i + 1], buf[i + 2]] == p.differs
        };
        assert_eq!(
            [diff_row(0), diff_row(1), diff_row(2)],
            [false, true, false]
        );
        let band = (FOLIO_BOTTOM - FOLIO_TOP) as usize;
        let c0 = column(&buf, 3, 0);
        // 1% of 36 px rounds to none, but cached pages always show.
        assert_eq!(c0[0], p.order(2), "the dominant order at the foot");
        assert_eq!(&c0[1..band / 2], vec![p.uncached; band / 2 - 1].as_slice());
        assert_eq!(&c0[band / 2..], vec![p.shadow; band / 2].as_slice());
        let c1 = column(&buf, 3, 1);
        assert_eq!(&c1[..27], vec![p.order(9); 27].as_slice());
        assert_eq!(&c1[27..], vec![p.under_io; 9].as_slice());
        assert_eq!(column(&buf, 3, 2), vec![p.uncached; band]);
    }

    /// A raster kept from frame to frame, each frame changing a few bins,
    /// the cursor, the readahead window or the first kernel's bins, holds
    /// what a raster painted afresh holds; and so does a canvas that is
    /// given only the columns it reports painted (`take_dirty`).
    #[test]
    fn a_kept_raster_paints_what_a_fresh_one_does() {
        let p = palette::style_sheet().unwrap();
        let mut seed = 0x5eed_u64;
        let mut r = move |n: u32| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as u32) % n.max(1)
        };
        for (first, end, w) in [(0, 4096, 300), (100, 140, 200), (0, 1 << 19, 1040)] {
            let span = Span {
                first,
                end,
                bins: w,
            };
            let mut bins = vec![Bin::default(); w as usize - r(3) as usize];
            let mut reference = bins.clone();
            let mut kept = Raster::default();
            let stride = w as usize * 4;
            let mut canvas = vec![0u8; stride * HEIGHT as usize];
            for frame in 0..100 {
                for _ in 0..r(6) {
                    let i = r(bins.len() as u32) as usize;
                    let b = &mut bins[i];
                    b.by_order[r(ORDERS as u32) as usize] += r(8);
                    b.resident = b.by_order.iter().sum();
                    b.heads += r(2);
                    b.readahead = r(2);
                    b.shadows = r(5);
                    b.pmd_mapped = r(9);
                    b.locked = r(3);
                }
                if r(4) == 0 {
                    reference = bins.clone();
                }
                let mut ra = FileRaState::new(512);
                (ra.start, ra.size) = (first + r(3000) as u64, r(600) as u64);
                ra.async_size = r(ra.size as u32 + 1) as u64;
                let marks = Marks {
                    cursor: (r(5) > 0).then(|| first + r(span.pages() as u32) as u64),
                    reference: (r(3) > 0).then_some(&reference[..]),
                };
                let ra = (r(4) > 0).then_some(ra);
                kept.paint(&bins, span, ra, marks, &p);
                let mut fresh = Vec::new();
                paint(&bins, span, ra, marks, &p, &mut fresh);
                assert!(kept.rgba() == fresh, "{span:?}, frame {frame}");
                if let Some((x0, x1)) = kept.take_dirty() {
                    let cols = x0 as usize * 4..(x1 as usize + 1) * 4;
                    for (to, from) in canvas
                        .chunks_exact_mut(stride)
                        .zip(fresh.chunks_exact(stride))
                    {
                        to[cols.clone()].copy_from_slice(&from[cols.clone()]);
                    }
                }
                assert!(canvas == fresh, "the canvas: {span:?}, frame {frame}");
            }
        }
    }

    /// The window's columns found once are those found column by column,
    /// zoomed out and in past a page a column, for windows inside, across
    /// and outside the span.
    #[test]
    fn windows_are_the_columns_the_window_covers() {
        let spans = [
            (0, 1 << 20, 1142),
            (1000, 1100, 700),
            (5, 9, 40),
            (0, 3000, 3000),
        ];
        let mut out = Vec::new();
        for (first, end, bins) in spans {
            let span = Span { first, end, bins };
            for (start, size, async_size) in [
                (0, 0, 0),
                (0, 32, 32),
                (1003, 64, 16),
                (990, 20, 5),
                (7, 1, 0),
                (900_000, 2048, 1024),
                (2_000_000, 512, 512),
            ] {
                let ra = FileRaState {
                    start,
                    size,
                    async_size,
                    ..FileRaState::new(2048)
                };
                windows(Some(ra), span, &mut out);
                for x in 0..bins {
                    assert!(
                        out[x as usize] == window(Some(ra), span, x),
                        "{span:?}, {ra:?}, column {x}"
                    );
                }
                windows(None, span, &mut out);
                assert!(out.iter().all(|w| *w == Window::Outside));
            }
        }
    }

    #[test]
    fn shares_round_and_any_page_shows() {
        assert_eq!(share_px(0, 100, 36), 0);
        assert_eq!(share_px(1, 4096, 36), 1);
        assert_eq!(share_px(50, 100, 36), 18);
        assert_eq!(share_px(100, 100, 36), 36);
        assert_eq!(share_px(7, 5, 36), 36, "never taller than the band");
    }
}
