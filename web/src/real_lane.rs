//! The real kernel's lane as pixels: the page cache a recording's events
//! built by a step, binned as the model's strip bins its machine (core
//! [`Bin`]s, each column's band shared out by order as the strip's is,
//! `strip::folio_band`), and below it the
//! pages whose folio differs from the model's at the same step. A page's
//! state is the order of the folio holding it, or none: folios are
//! naturally aligned, so equal orders page by page are equal folios.

use folioscope_core::{Bin, FolioRun, Span, ORDERS};

use crate::palette::Palette;

pub const HEIGHT: u32 = 40;
const FOLIO_TOP: u32 = 4;
const FOLIO_BOTTOM: u32 = 30;
const DIFF_TOP: u32 = 32;

/// The lane over one view at one step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lane {
    /// The real folios, binned.
    pub bins: Vec<Bin>,
    /// Per bin: whether any of its pages differs from the model's.
    pub differs: Vec<bool>,
    pub differing_pages: u64,
    /// Both sides' folios over the view, as runs.
    pub real: Vec<FolioRun>,
    pub model: Vec<FolioRun>,
}

/// Folios `(index, order)` in index order, as runs of one order.
pub fn runs_of(folios: &[(u64, u8)]) -> Vec<FolioRun> {
    let mut runs: Vec<FolioRun> = Vec::new();
    for &(index, order) in folios {
        match runs.last_mut() {
            Some(r)
                if r.order == order
                    && r.start.saturating_add(r.count << r.order.min(63)) == index =>
            {
                r.count += 1
            }
            _ => runs.push(FolioRun {
                start: index,
                order,
                count: 1,
            }),
        }
    }
    runs
}

/// Runs as text, `START:ORDER:COUNT` joined by commas, as the probe's
/// report lists folios: what the lane's test hooks carry.
pub fn runs_text(runs: &[FolioRun]) -> String {
    runs.iter()
        .map(|r| format!("{}:{}:{}", r.start, r.order, r.count))
        .collect::<Vec<_>>()
        .join(",")
}

/// Where each run's pages are, `(start, end, order)`, in page order.
fn pieces(runs: &[FolioRun]) -> Vec<(u64, u64, u8)> {
    runs.iter()
        .map(|r| {
            let end = r
                .start
                .saturating_add(r.count.saturating_mul(1u64 << r.order.min(63)));
            (r.start, end, r.order)
        })
        .collect()
}

/// The page ranges of `[first, end)` whose folio order (or absence)
/// differs between `a` and `b`, merged.
pub fn differing(a: &[FolioRun], b: &[FolioRun], first: u64, end: u64) -> Vec<(u64, u64)> {
    let (pa, pb) = (pieces(a), pieces(b));
    let mut cuts: Vec<u64> = vec![first, end];
    for &(s, e, _) in pa.iter().chain(&pb) {
        cuts.extend([s.clamp(first, end), e.clamp(first, end)]);
    }
    folioscope_scenario::sort::sort_by_u64_key(&mut cuts, |&c| c);
    cuts.dedup();
    let state = |p: &[(u64, u64, u8)], k: &mut usize, page: u64| {
        while *k < p.len() && p[*k].1 <= page {
            *k += 1;
        }
        p.get(*k).filter(|x| x.0 <= page).map(|x| x.2)
    };
    let (mut ka, mut kb) = (0, 0);
    let mut out: Vec<(u64, u64)> = Vec::new();
    for w in cuts.windows(2) {
        let (s, e) = (w[0], w[1]);
        if state(&pa, &mut ka, s) != state(&pb, &mut kb, s) {
            match out.last_mut() {
                Some(last) if last.1 == s => last.1 = e,
                _ => out.push((s, e)),
            }
        }
    }
    out
}

/// The lane of `real`'s folios against the `model`'s, over `view`.
pub fn lane(real: &[(u64, u8)], model: Vec<FolioRun>, view: Span) -> Lane {
    let mut bins = vec![Bin::default(); view.bins as usize];
    for &(index, order) in real {
        view.for_each_overlap(
            index,
            index.saturating_add(1u64 << order.min(63)),
            |x, n| {
                let b = &mut bins[x];
                b.by_order[(order as usize).min(ORDERS - 1)] += n;
                b.resident += n;
            },
        );
    }
    let real = runs_of(real);
    let ranges = differing(&real, &model, view.first, view.end);
    let mut differs = vec![false; view.bins as usize];
    for &(s, e) in &ranges {
        view.for_each_overlap(s, e, |x, _| differs[x] = true);
    }
    Lane {
        bins,
        differs,
        differing_pages: ranges.iter().map(|(s, e)| e - s).sum(),
        real,
        model,
    }
}

/// Paints `lane` into `buf` (width × [`HEIGHT`] × 4), with the cursor at
/// page `cursor`, in the style sheet's colours `p`.
pub fn paint(lane: &Lane, view: Span, cursor: Option<u64>, p: &Palette, buf: &mut Vec<u8>) {
    let w = view.bins.max(1);
    buf.clear();
    buf.resize((w * HEIGHT * 4) as usize, 255);
    let mut put = |x: u32, y0: u32, y1: u32, rgb: [u8; 3]| {
        for y in y0..y1 {
            let i = ((y * w + x) * 4) as usize;
            buf[i..i + 3].copy_from_slice(&rgb);
        }
    };
    let mut segs = [(0u32, [0u8; 3]); ORDERS + 2];
    for (x, b) in lane.bins.iter().enumerate() {
        // As the strip draws a column: each order by its share of the
        // column's pages, so a column a hundredth cached is drawn so.
        let pages = view.bin_len(x as u32).max(1) as u32;
        crate::strip::folio_band(
            b,
            pages,
            (FOLIO_TOP, FOLIO_BOTTOM),
            p,
            &mut segs,
            |y0, y1, rgb| put(x as u32, y0, y1, rgb),
        );
        if lane.differs[x] {
            put(x as u32, DIFF_TOP, HEIGHT, p.differs);
        }
    }
    if let Some(c) = cursor.and_then(|page| view.bin_of(page)) {
        for (x, rgb) in crate::strip::cursor_columns(c, w, p) {
            put(x, 0, HEIGHT, rgb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folioscope_core::{Config, Simulation};
    use folioscope_scenario::recording::real_cache::RealCache;
    use folioscope_scenario::recording::Recording;

    const TAC: &[u8] = include_bytes!("../../cli/tests/fixtures/replay/tac-64m.rec.gz");

    fn run(start: u64, order: u8, count: u64) -> FolioRun {
        FolioRun {
            start,
            order,
            count,
        }
    }

    #[test]
    fn differing_pages_are_found_by_order_and_presence() {
        let a = vec![run(0, 2, 2), run(8, 0, 4)];
        assert_eq!(differing(&a, &a, 0, 100), vec![]);
        // One order-3 folio where two order-2 ones are: all 8 pages.
        let b = vec![run(0, 3, 1), run(8, 0, 4)];
        assert_eq!(differing(&a, &b, 0, 100), vec![(0, 8)]);
        // A page missing, and one more: counted, and cut to the range.
        let c = vec![run(0, 2, 2), run(8, 0, 3), run(20, 0, 1)];
        assert_eq!(differing(&a, &c, 0, 100), vec![(11, 12), (20, 21)]);
        assert_eq!(differing(&a, &c, 4, 11), vec![]);
        assert_eq!(
            runs_of(&[(0, 0), (1, 0), (4, 2), (8, 2)]),
            vec![run(0, 0, 2), run(4, 2, 2)]
        );
        assert_eq!(runs_text(&a), "0:2:2,8:0:4");
    }

    #[test]
    fn bins_hold_each_page_once_at_any_zoom() {
        let real = [(0, 9), (512, 0), (600, 2)];
        for view in [
            Span {
                first: 0,
                end: 2048,
                bins: 700,
            },
            Span {
                first: 500,
                end: 520,
                bins: 100,
            },
            Span {
                first: 0,
                end: 2048,
                bins: 3,
            },
        ] {
            let l = lane(&real, runs_of(&real), view);
            let pages: u32 = l.bins.iter().map(|b| b.resident).sum();
            let want: u64 = real
                .iter()
                .map(|&(i, o)| {
                    (i + (1 << o))
                        .min(view.end)
                        .saturating_sub(i.max(view.first))
                })
                .sum();
            if view.bins as u64 <= view.pages() {
                assert_eq!(pages as u64, want, "{view:?}");
            }
            assert_eq!(l.differing_pages, 0);
            assert!(l.differs.iter().all(|d| !d));
        }
    }

    /// Over a real program's run, the lane of the recorded kernel's cache
    /// equals the model's at every step it is checked at: the recording
    /// is one `folioscope check` holds identical.
    #[test]
    fn the_real_lane_of_tac_matches_the_model_step_by_step() {
        let rec = Recording::parse(TAC).unwrap();
        let cache = RealCache::of(&rec, 0);
        let cfg = Config::new(rec.scenario(0).unwrap()).unwrap();
        let pages = cfg.geometry().nr_pages;
        let mut sim = Simulation::new(cfg);
        let view = Span {
            first: 0,
            end: pages,
            bins: 900,
        };
        let mut checked = 0;
        while !sim.is_done() {
            let step = sim.step_count();
            if step.is_multiple_of(500) {
                let real = cache.folios_at(step, 0, pages);
                let l = lane(&real, sim.machine().folio_runs(0, pages), view);
                assert_eq!(l.differing_pages, 0, "step {step}");
                assert_eq!(l.real, l.model, "step {step}");
                checked += 1;
            }
            sim.step(&mut folioscope_core::NoEvents);
        }
        assert!(checked > 10);
        // A model one step behind differs somewhere.
        let real = cache.folios_at(sim.step_count(), 0, pages);
        let mut before = Simulation::new(sim.config().clone());
        before.run_to(sim.step_count() - 4000, &mut folioscope_core::NoEvents);
        let l = lane(&real, before.machine().folio_runs(0, pages), view);
        assert!(l.differing_pages > 0 && l.differs.iter().any(|d| *d));
    }
}
