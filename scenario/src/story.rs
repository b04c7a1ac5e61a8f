//! Stories for talks: an ordered list of stops through one view, each a
//! step, the pages in view, the open panels and a caption of one or two
//! lines, which a speaker walks with PageDown and PageUp.
//!
//! A story travels in the link itself, one parameter a stop
//! (`story1=STEP~ZOOM~HIDE~CAPTION`, `story2=...`; see [`write_stop`]),
//! or, for a seed preset, as `story=seed`: the story that preset ships
//! with, which tells its thread's argument. A seed story's stops are
//! placed by the model's own runs (the first MMAP_LOTSAMISS crossing, the
//! access where two kernels part, the figures at the end), through
//! [`Facts`], so no step or figure in a caption is written by hand.

use folioscope_core::{Mark, Summary, Timeline};

use crate::link::Panels;
use crate::report::ReadPathReport;
use crate::seeds::{row, Seed};

/// The most stops a story holds.
pub const MAX_STOPS: usize = 12;

/// The longest caption, in characters, over its (at most two) lines.
pub const MAX_CAPTION: usize = 240;

/// One stop of a story.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    /// Accesses done; `None` is the end of the run.
    pub step: Option<u64>,
    /// Pages in view, `[first, end)`; `None` is the whole file.
    pub zoom: Option<(u64, u64)>,
    pub panels: Panels,
    /// One or two lines, separated by `\n`.
    pub caption: String,
}

/// Where a view's story comes from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Story {
    #[default]
    None,
    /// The seed preset's own story (`story=seed`), placed by the model.
    Seed,
    /// A speaker's own stops, spelled out in the link.
    Own(Vec<Stop>),
}

impl Story {
    pub fn is_none(&self) -> bool {
        *self == Story::None
    }
}

/// Checks a caption: one or two lines, not empty, not too long.
pub fn check_caption(caption: &str) -> Result<(), String> {
    if caption.trim().is_empty() {
        return Err("the caption is empty".into());
    }
    if caption.lines().count() > 2 {
        return Err("a caption has at most two lines".into());
    }
    let n = caption.chars().count();
    if n > MAX_CAPTION {
        return Err(format!(
            "the caption has {n} characters; at most {MAX_CAPTION}"
        ));
    }
    Ok(())
}

/// The panels' names as `hide` writes them: the closed ones.
pub fn hidden_panels(p: Panels) -> String {
    [("xarray", p.xarray), ("log", p.log), ("plots", p.plots)]
        .into_iter()
        .filter(|(_, open)| !open)
        .map(|(n, _)| n)
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads a `hide` list: the names of closed panels.
pub fn parse_hidden(text: &str) -> Result<Panels, String> {
    let mut panels = Panels::default();
    for name in text.split(',').filter(|n| !n.is_empty()) {
        match name {
            "xarray" => panels.xarray = false,
            "log" => panels.log = false,
            "plots" => panels.plots = false,
            other => return Err(format!("'{other}' is not one of xarray, log, plots")),
        }
    }
    Ok(panels)
}

/// A stop as its link parameter's value: `STEP~ZOOM~HIDE~CAPTION`, the
/// step a number or `end`, the zoom `FIRST-END` or empty for the whole
/// file, the closed panels as `hide` lists them, the caption last (so it
/// may hold `~`) with its line break as a newline.
pub fn write_stop(s: &Stop) -> String {
    format!(
        "{}~{}~{}~{}",
        s.step.map_or("end".to_string(), |n| n.to_string()),
        s.zoom.map_or(String::new(), |(a, b)| format!("{a}-{b}")),
        hidden_panels(s.panels),
        s.caption
    )
}

/// Reads a stop written by [`write_stop`], for a run of `len` accesses
/// over `pages` pages; the error names the field.
pub fn parse_stop(text: &str, len: u64, pages: u64) -> Result<Stop, String> {
    let mut parts = text.splitn(4, '~');
    let (Some(step), Some(zoom), Some(hide), Some(caption)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("'{text}' is not STEP~ZOOM~HIDE~CAPTION"));
    };
    let step = match step {
        "end" => None,
        s => match s.parse::<u64>() {
            Ok(n) if n < len => Some(n),
            Ok(n) if n == len => None,
            Ok(n) => {
                return Err(format!(
                    "step {n} is past the end of the run ({len} accesses)"
                ))
            }
            Err(_) => return Err(format!("step '{s}' is not a whole number or end")),
        },
    };
    let zoom = if zoom.is_empty() {
        None
    } else {
        match zoom
            .split_once('-')
            .and_then(|(a, b)| Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?)))
        {
            Some((a, b)) if a < b && b <= pages => (a, b).ne(&(0, pages)).then_some((a, b)),
            _ => {
                return Err(format!(
                    "zoom '{zoom}' is not a range of the file's {pages} pages"
                ))
            }
        }
    };
    let panels = parse_hidden(hide).map_err(|e| format!("hide: {e}"))?;
    check_caption(caption).map_err(|e| format!("caption: {e}"))?;
    Ok(Stop {
        step,
        zoom,
        panels,
        caption: caption.to_string(),
    })
}

/// The stops as a mail lists them: one numbered line each, wrapped by the
/// caller.
pub fn numbered_lines(stops: &[Stop], len: u64) -> Vec<String> {
    stops
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let step = s.step.unwrap_or(len);
            let zoom = s
                .zoom
                .map_or(String::new(), |(a, b)| format!(", pages {a}-{}", b - 1));
            format!(
                "{}. step {step}{zoom}: {}",
                i + 1,
                s.caption.replace('\n', " ")
            )
        })
        .collect()
}

/// What a seed story is placed by: the model's runs of the view's
/// kernels, side A first.
pub trait Facts {
    /// Each kernel's label.
    fn labels(&self) -> Vec<String>;
    /// Accesses in the run.
    fn accesses(&self) -> u64;
    /// Pages in the file.
    fn pages(&self) -> u64;
    /// The first step after which `mark` happened on `side`.
    fn first_mark(&self, side: usize, mark: Mark) -> Option<u64>;
    /// The first step after which `side` holds another state than side A.
    fn first_difference(&self, side: usize) -> Option<u64>;
    /// `side`'s figures after `step` accesses.
    fn summary_at(&self, side: usize, step: u64) -> Summary;
}

/// The model's timelines of the view's kernels, side A first, are facts.
impl Facts for [&Timeline] {
    fn labels(&self) -> Vec<String> {
        self.iter().map(|t| t.config().kernel.label()).collect()
    }
    fn accesses(&self) -> u64 {
        self.first().map_or(0, |t| t.len())
    }
    fn pages(&self) -> u64 {
        self.first().map_or(0, |t| {
            let c = t.config();
            c.file_size.div_ceil(c.page_size.bytes())
        })
    }
    fn first_mark(&self, side: usize, mark: Mark) -> Option<u64> {
        self[side].next_mark(mark, 0)
    }
    fn first_difference(&self, side: usize) -> Option<u64> {
        self[0].first_difference(self[side])
    }
    fn summary_at(&self, side: usize, step: u64) -> Summary {
        Summary::of(&self[side].machine_at(step))
    }
}

/// How many stops a seed preset's story has, without running anything:
/// a link's `stop` is checked against it.
pub fn seed_story_len(preset: &str) -> Option<usize> {
    let r = row(preset)?;
    Some(plan(r.seed, r.columns.len()).len())
}

/// A stop of a seed story, before the model places it.
#[derive(Clone, Copy)]
enum Anchor {
    /// Side A's first readahead.
    FirstReadahead,
    /// Side A's first MMAP_LOTSAMISS crossing.
    LotsaMiss,
    /// A few accesses after side A's crossing, where its faults read one
    /// page each.
    AfterLotsaMiss,
    /// Where side `n` first parts from side A.
    Parting(usize),
    /// The end of the run.
    End,
}

/// A seed's story, stop by stop, for a row of `kernels` kernels.
fn plan(seed: Seed, kernels: usize) -> Vec<Anchor> {
    let mut stops = vec![Anchor::FirstReadahead];
    if seed == Seed::S000 {
        stops.push(Anchor::LotsaMiss);
        stops.push(Anchor::AfterLotsaMiss);
    }
    stops.extend((1..kernels).map(Anchor::Parting));
    stops.push(Anchor::End);
    stops
}

/// How far past the crossing the third stop of seed 000's story is.
const AFTER_CROSSING: u64 = 64;

/// The story a seed preset ships with, placed by `facts` (the preset's
/// kernels, side A first); `None` for a view that is not a seed preset.
pub fn seed_story<F: Facts + ?Sized>(preset: &str, facts: &F) -> Option<Vec<Stop>> {
    let r = row(preset)?;
    let labels = facts.labels();
    let len = facts.accesses();
    let a = labels.first()?.clone();
    let panels = Panels::default();
    let at = |step: Option<u64>, caption: String| Stop {
        step: step.filter(|s| *s < len),
        zoom: None,
        panels,
        caption,
    };
    let crossing = facts.first_mark(0, Mark::LotsaMissCrossing);
    let mut stops = Vec::new();
    for anchor in plan(r.seed, labels.len()) {
        stops.push(match anchor {
            Anchor::FirstReadahead if r.scenario.backing.is_tmpfs() => at(
                Some(1.min(len)),
                format!(
                    "{}.\n{a}: read() copies out of tmpfs folios; no disk is read.",
                    sentence(&r.title)
                ),
            ),
            Anchor::FirstReadahead => {
                let step = facts.first_mark(0, Mark::Readahead).unwrap_or(1.min(len));
                let s = facts.summary_at(0, step);
                at(
                    Some(step),
                    format!(
                        "{}.\n{a}: access {step} reads {} KiB in {} I/O{}.",
                        sentence(&r.title),
                        s.bytes_read / 1024,
                        s.read_ios,
                        plural(s.read_ios)
                    ),
                )
            }
            Anchor::LotsaMiss => match crossing {
                Some(step) => at(
                    Some(step),
                    format!(
                        "{a}: mmap_miss passes MMAP_LOTSAMISS at access {step}.\n\
                         From here the fault path stops reading around."
                    ),
                ),
                None => at(
                    None,
                    format!("{a}: mmap_miss never passes MMAP_LOTSAMISS in this run."),
                ),
            },
            Anchor::AfterLotsaMiss => match crossing {
                Some(c) => {
                    let step = (c + AFTER_CROSSING).min(len);
                    let (before, after) = (facts.summary_at(0, c), facts.summary_at(0, step));
                    let majors = after.major_faults - before.major_faults;
                    let pages = (after.bytes_read - before.bytes_read) / r.scenario.page_size;
                    at(
                        Some(step),
                        format!(
                            "{a}, accesses {}..{step}: {majors} major fault{}, {pages} page{} read:\n\
                             every page is read on its own.",
                            c + 1,
                            plural(majors),
                            plural(pages)
                        ),
                    )
                }
                None => at(
                    None,
                    format!("{a}: its faults keep reading around to the end."),
                ),
            },
            Anchor::Parting(side) => {
                let b = &labels[side];
                match facts.first_difference(side) {
                    Some(step) => {
                        let (sa, sb) = (facts.summary_at(0, step), facts.summary_at(side, step));
                        at(
                            Some(step),
                            format!(
                                "{b} first parts from {a} after access {step}:\n{}.",
                                differences(&sb, &sa)
                            ),
                        )
                    }
                    None => {
                        let (sa, sb) = (facts.summary_at(0, len), facts.summary_at(side, len));
                        let (ra, rb) = (ReadPathReport::of(&sa), ReadPathReport::of(&sb));
                        let work = if (ra.xas_load, ra.iterations) != (rb.xas_load, rb.iterations)
                        {
                            format!(
                                "\nThe read path's work differs: xas_load {} against {}.",
                                rb.xas_load, ra.xas_load
                            )
                        } else {
                            String::new()
                        };
                        at(
                            None,
                            format!("{b} holds the same page cache as {a} for the whole run.{work}"),
                        )
                    }
                }
            }
            Anchor::End => {
                let figures: Vec<String> = (0..labels.len())
                    .map(|side| {
                        let s = facts.summary_at(side, len);
                        format!(
                            "{} {} major fault{}, {:.0} MB read",
                            labels[side],
                            s.major_faults,
                            plural(s.major_faults),
                            s.bytes_read as f64 / 1048576.0
                        )
                    })
                    .collect();
                at(None, format!("At the end: {}.", figures.join("; ")))
            }
        });
    }
    // A story runs forwards: stops in the order of their steps (the end
    // last), those at one step in the order above.
    crate::sort::sort_by_u64_key(&mut stops, |s| s.step.unwrap_or(u64::MAX));
    // Each stop shows the pages its kernels hold then, where they are a
    // small part of the file: on a whole file of 2 GiB the first
    // readahead is a pixel.
    let pages = facts.pages();
    for stop in &mut stops {
        let at = stop.step.unwrap_or(len);
        let held: Vec<Summary> = (0..labels.len()).map(|k| facts.summary_at(k, at)).collect();
        stop.zoom = cached_span(&held, pages);
    }
    Some(stops)
}

/// The pages from the first one any of `held` caches to the last, with
/// an eighth of their span (at least [`SPAN_MARGIN`] pages) on each side,
/// if that is under half the file of `pages`.
fn cached_span(held: &[Summary], pages: u64) -> Option<(u64, u64)> {
    let first = held
        .iter()
        .filter_map(|s| s.resident.first())
        .map(|r| r.0)
        .min()?;
    let end = held
        .iter()
        .filter_map(|s| s.resident.last())
        .map(|&(start, n)| start + n)
        .max()?;
    let margin = ((end - first) / 8).max(SPAN_MARGIN);
    let (a, b) = (first.saturating_sub(margin), (end + margin).min(pages));
    (a < b && b - a < pages / 2).then_some((a, b))
}

/// The fewest pages shown on each side of a stop's cached ones.
const SPAN_MARGIN: u64 = 16;

/// What differs between two kernels' figures at one step (`b`'s first),
/// the first two of pages cached, major faults, mmap_miss and the
/// readahead window.
fn differences(b: &Summary, a: &Summary) -> String {
    let window = |s: &Summary| format!("{}+{}/{}", s.ra.start, s.ra.size, s.ra.async_size);
    let figures = [
        (
            "pages cached",
            b.resident_pages.to_string(),
            a.resident_pages.to_string(),
        ),
        (
            "major faults",
            b.major_faults.to_string(),
            a.major_faults.to_string(),
        ),
        (
            "mmap_miss",
            b.mmap_miss.to_string(),
            a.mmap_miss.to_string(),
        ),
        ("ra window", window(b), window(a)),
    ];
    let differ: Vec<String> = figures
        .into_iter()
        .filter(|(_, x, y)| x != y)
        .take(2)
        .map(|(name, x, y)| format!("{name} {x} against {y}"))
        .collect();
    if differ.is_empty() {
        "the same figures, other folios or mappings".into()
    } else {
        differ.join(", ")
    }
}

/// A title as the start of a sentence. Titles are ASCII; `to_uppercase`
/// would bring Unicode's case tables into the app's wasm.
fn sentence(title: &str) -> String {
    let mut c = title.chars();
    c.next()
        .map(|f| std::iter::once(f.to_ascii_uppercase()).chain(c).collect())
        .unwrap_or_default()
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::preset;
    use folioscope_core::Timeline;

    fn timelines(id: &str, size: u64) -> Vec<Timeline> {
        let mut v = preset(id).unwrap();
        v.scenario.file_size = size;
        v.scenarios()
            .into_iter()
            .map(|s| Timeline::build(s.config().unwrap(), 64 << 20))
            .collect()
    }

    #[test]
    fn a_stop_goes_through_its_link_value() {
        let s = Stop {
            step: Some(51201),
            zoom: Some((100, 4096)),
            panels: Panels {
                xarray: false,
                log: true,
                plots: false,
            },
            caption: "mmap_miss passes ~100~\nthen one page a fault".into(),
        };
        assert_eq!(parse_stop(&write_stop(&s), 524288, 524288), Ok(s));
        let e = parse_stop("9~~~x", 5, 5).unwrap_err();
        assert!(e.starts_with("step 9"), "{e}");
        assert!(parse_stop("1~~bogus~x", 5, 5)
            .unwrap_err()
            .starts_with("hide:"));
        assert!(parse_stop("1~~~", 5, 5)
            .unwrap_err()
            .starts_with("caption:"));
        assert!(parse_stop("1~~~a\nb\nc", 5, 5)
            .unwrap_err()
            .contains("two lines"));
        assert!(parse_stop("1~4-2~~a", 5, 5)
            .unwrap_err()
            .starts_with("zoom"));
        assert!(parse_stop("just words", 5, 5).is_err());
    }

    #[test]
    fn seed_000s_story_is_placed_by_the_model() {
        // A 256 MiB backward MADV_HUGEPAGE walk: v7.4-rc2 crosses
        // MMAP_LOTSAMISS, and the patched kernel keeps reading ahead.
        let tl = timelines("seed000-rev-huge", 256 << 20);
        let refs: Vec<&Timeline> = tl.iter().collect();
        let stops = seed_story("seed000-rev-huge", refs.as_slice()).unwrap();
        assert_eq!(Some(stops.len()), seed_story_len("seed000-rev-huge"));
        let crossing = tl[0].next_mark(Mark::LotsaMissCrossing, 0).unwrap();
        let find = |what: &str| stops.iter().find(|s| s.caption.contains(what)).unwrap();
        let passes = find("passes MMAP_LOTSAMISS");
        assert_eq!(passes.step, Some(crossing));
        assert!(passes.caption.contains(&format!("access {crossing}")));
        // After the crossing, each fault reads one page.
        let after = find("on its own");
        assert!(
            after.caption.contains(&format!(
                "{AFTER_CROSSING} major faults, {AFTER_CROSSING} pages read"
            )),
            "{}",
            after.caption
        );
        // The patched kernel parts from v7.4-rc2 before the crossing.
        let parted = find("+desc-ra first parts").step.unwrap();
        assert!(parted < crossing, "{parted} >= {crossing}");
        // Stops run forwards, and the story ends at the end.
        let key = |s: &Stop| s.step.unwrap_or(u64::MAX);
        assert!(stops.windows(2).all(|w| key(&w[0]) <= key(&w[1])));
        assert!(stops
            .last()
            .unwrap()
            .caption
            .starts_with("At the end: v7.4-rc2 "));
        for s in &stops {
            check_caption(&s.caption).unwrap();
        }
        // The first stops show the end of the file, which the backward
        // walk has cached, and the link reads each stop back.
        let pages = (256 << 20) / 4096;
        let (a, b) = stops[0].zoom.expect("the first readahead, zoomed in");
        assert!(b == pages && a > pages / 2, "{a}..{b}");
        let len = tl[0].len();
        for s in &stops {
            assert_eq!(parse_stop(&write_stop(s), len, pages).as_ref(), Ok(s));
        }
    }

    #[test]
    fn kernels_that_never_part_say_what_differs() {
        let tl = timelines("seed004-thpon-64k-falloc", 64 << 20);
        let refs: Vec<&Timeline> = tl.iter().collect();
        let stops = seed_story("seed004-thpon-64k-falloc", refs.as_slice()).unwrap();
        let parting = stops
            .iter()
            .find(|s| s.caption.contains("parts") || s.caption.contains("same page cache"))
            .unwrap();
        assert_eq!(parting.step, None);
        assert!(
            parting.caption.contains("same page cache"),
            "{}",
            parting.caption
        );
        assert!(parting.caption.contains("xas_load"), "{}", parting.caption);
    }

    #[test]
    fn the_mail_lists_stops_as_numbered_lines() {
        let stops = vec![
            Stop {
                step: Some(3),
                zoom: Some((0, 10)),
                panels: Panels::default(),
                caption: "one\ntwo".into(),
            },
            Stop {
                step: None,
                zoom: None,
                panels: Panels::default(),
                caption: "end".into(),
            },
        ];
        assert_eq!(
            numbered_lines(&stops, 9),
            ["1. step 3, pages 0-9: one two", "2. step 9: end"]
        );
    }
}
