//! Permalinks: a whole view of the app as a readable, editable URL query,
//! for example `?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2,v7.4-rc2+desc-ra&step=51234`.
//!
//! Schema version 1. Every parameter is optional, and one at its default
//! is left out; the defaults are those of the preset named by `preset`,
//! or of [`Scenario::default`] without one:
//! - `v`: the schema version (1; a link without it is read as version 1);
//! - `preset`: a seed row's id (see `folioscope compare`);
//! - `kernel`: the kernel, or up to [`MAX_KERNELS`] separated by commas
//!   for compare mode, each a variant name with `+patch` / `-patch`
//!   toggles; a bad one is named and left at the preset's (or the
//!   default) kernel of its place, and the others stay;
//! - `size`, `page`, `ra_kb`, `fa`, `madvise`, `thp`, `memcg`, `exec`,
//!   `pattern`, `fs`, `tmpfs_huge`, `tmpfs_file`, `hwpoison`: the scenario;
//! - `step`: accesses done (the end of the run when absent); `ev`: events
//!   applied inside the next access;
//! - `zoom`: the pages in view, `FIRST-END`;
//! - `hide`: closed panels, of `xarray`, `log`, `plots`;
//! - `log_hide`: the event kinds the event log hides (`io,map`), and
//!   `log_text`: the text its lines must hold;
//! - `mark`: what "next" jumps to (`major`, `readahead`, `lotsamiss`);
//! - `embed=1`, `present=1`: the embedded and presenter frames;
//! - `predict`: the event kind predict mode pauses before;
//! - `story=seed`: the seed preset's own story, or `story1`, `story2`,
//!   ...: a speaker's stops, each `STEP~ZOOM~HIDE~CAPTION` (see
//!   [`crate::story`]); `stop`: the stop on screen, from 1;
//! - `rec`: a recording of a real program (`folioscope record`), gzipped
//!   and base64url-encoded, which the app replays; it is the base of the
//!   other parameters ([`parse_link_over`]), and the app writes it last.
//!
//! Parsing never fails: a parameter that is unknown, malformed or out of
//! range is left at its default and reported in [`Parsed::ignored`], so
//! that the app can name it in a banner.

use folioscope_core::{EventKind, Kernel, KindSet, Mark};
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::params::{by_field, by_key, Param, PARAMS};
pub use crate::parse::parse_kernel_label;
use crate::seeds::rows;
use crate::story::{parse_stop, seed_story_len, write_stop, Stop, Story, MAX_STOPS};
use folioscope_core::Scenario;

/// The schema version links are written with.
pub const SCHEMA: u32 = 1;

/// The published app's address, up to the `?`, as the build was told
/// it: `FOLIOSCOPE_SITE_URL` in the environment of the build (`cargo
/// xtask dist` hands it to Trunk, which hands it to cargo). `None` when
/// the build names no site: the app then links to wherever it is served,
/// and the CLI to [`LOCAL_URL`].
pub fn site_url() -> Option<&'static str> {
    option_env!("FOLIOSCOPE_SITE_URL").filter(|u| !u.trim().is_empty())
}

/// Where `cargo xtask serve` serves the app on this machine.
pub const LOCAL_URL: &str = "http://127.0.0.1:8080/";

/// The most kernels a view compares: as many as the largest seed row
/// has (seed000-rev-huge, seed003-cold).
pub const MAX_KERNELS: usize = 3;

/// Which panels are open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Panels {
    pub xarray: bool,
    pub log: bool,
    pub plots: bool,
}

impl Default for Panels {
    fn default() -> Self {
        Panels {
            xarray: true,
            log: true,
            plots: true,
        }
    }
}

/// The event log's filters.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LogFilter {
    /// Event kinds left out.
    pub hidden: KindSet,
    /// Text a line must hold (any case); empty for every line.
    pub text: String,
}

/// How the app is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Full,
    /// `embed=1`: the strip, the ra panel and the timeline, for iframes.
    Embed,
    /// `present=1`: large type, high contrast, no editing panels.
    Presenter,
}

/// Everything a link restores.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub preset: Option<String>,
    /// The scenario, with side A's kernel.
    pub scenario: Scenario,
    /// The kernels compared with side A's, run on the same scenario
    /// (sides B, C, ...); empty outside compare mode.
    pub compare: Vec<Kernel>,
    /// Accesses done; `None` is the end of the run.
    pub step: Option<u64>,
    /// Events applied inside access `step + 1`.
    pub event: Option<u32>,
    /// Pages in view, `[first, end)`; `None` is the whole file.
    pub zoom: Option<(u64, u64)>,
    pub panels: Panels,
    pub log: LogFilter,
    pub mark: Mark,
    pub mode: Mode,
    pub predict: Option<Mark>,
    pub story: Story,
    /// The story's stop on screen, from 0.
    pub stop: Option<usize>,
}

impl Default for View {
    fn default() -> Self {
        View {
            preset: None,
            scenario: Scenario::default(),
            compare: Vec::new(),
            step: None,
            event: None,
            zoom: None,
            panels: Panels::default(),
            log: LogFilter::default(),
            mark: Mark::MajorFault,
            mode: Mode::Full,
            predict: None,
            story: Story::None,
            stop: None,
        }
    }
}

/// A parameter a link carried that the view does not use, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ignored {
    pub param: String,
    pub reason: String,
}

impl std::fmt::Display for Ignored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.param, self.reason)
    }
}

/// A parsed link: the view, and what it had to leave out.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub view: View,
    pub ignored: Vec<Ignored>,
}

/// The short names of [`Mark`]s in links.
pub fn mark_name(m: Mark) -> &'static str {
    match m {
        Mark::MajorFault => "major",
        Mark::Readahead => "readahead",
        Mark::LotsaMissCrossing => "lotsamiss",
    }
}

fn parse_mark(text: &str) -> Result<Mark, String> {
    Mark::ALL
        .into_iter()
        .find(|m| mark_name(*m) == text)
        .ok_or_else(|| format!("'{text}' is not one of major, readahead, lotsamiss"))
}

/// The view a preset opens: the seed row's scenario with its first
/// kernel, compared with every other kernel of the row. This is the one
/// place a preset becomes a view; the CLI and the app call it too.
pub fn preset(id: &str) -> Option<View> {
    static ROWS: std::sync::OnceLock<Vec<crate::seeds::Row>> = std::sync::OnceLock::new();
    let r = ROWS.get_or_init(rows).iter().find(|r| r.id == id)?;
    let (first, rest) = r.columns.split_first()?;
    Some(View {
        preset: Some(r.id.clone()),
        scenario: Scenario {
            kernel: first.kernel.clone(),
            ..r.scenario.clone()
        },
        compare: rest.iter().map(|c| c.kernel.clone()).collect(),
        ..View::default()
    })
}

/// The view a link starts from: the preset's, or the default.
fn base_of(preset: Option<&str>) -> View {
    preset.and_then(self::preset).unwrap_or_default()
}

impl View {
    /// Every kernel on screen: side A's, then the compared ones.
    pub fn kernels(&self) -> impl Iterator<Item = &Kernel> {
        std::iter::once(&self.scenario.kernel).chain(&self.compare)
    }

    /// The scenario of each kernel on screen.
    pub fn scenarios(&self) -> Vec<Scenario> {
        self.kernels()
            .map(|k| Scenario {
                kernel: k.clone(),
                ..self.scenario.clone()
            })
            .collect()
    }
}

/// The characters a link writes as they are: besides letters and digits,
/// those that kernel labels, sizes and patterns are made of, so that a
/// link stays readable in a mail.
const LINK_SAFE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b':')
    .remove(b',')
    .remove(b'+');

/// Percent-decodes a key or value. A `%` not followed by two hex digits
/// stays as it is, as browsers read it; the bytes must be UTF-8.
fn decode(text: &str) -> Result<String, String> {
    percent_decode_str(text)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| "not UTF-8 once %-escapes are decoded".to_string())
}

/// Percent-encodes all but the characters links are readable with.
fn encode(text: &str) -> String {
    utf8_percent_encode(text, LINK_SAFE).to_string()
}

/// The query part of a link, or of a URL that holds one.
fn query_of(text: &str) -> &str {
    let t = text.trim();
    let t = t.split('#').next().unwrap_or("");
    match t.find('?') {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

/// The parameters besides the scenario's.
const VIEW_PARAMS: [&str; 16] = [
    "v",
    "preset",
    "kernel",
    "step",
    "ev",
    "zoom",
    "hide",
    "log_hide",
    "log_text",
    "mark",
    "embed",
    "present",
    "predict",
    "story",
    "stop",
    RECORDING_KEY,
];

/// A speaker's stop `n` (from 1) is the link key `story{n}`.
fn stop_number(key: &str) -> Option<usize> {
    let n = key.strip_prefix("story")?;
    if n.starts_with('0') {
        return None;
    }
    n.parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_STOPS).contains(n))
}

/// The key of a recording carried in a link.
pub const RECORDING_KEY: &str = "rec";

/// The recording a link carries (`rec`), as it is written there
/// (base64url of the gzipped file), if any.
pub fn recording_param(text: &str) -> Option<String> {
    query_of(text)
        .split('&')
        .filter_map(|part| part.split_once('='))
        .find(|(k, _)| *k == RECORDING_KEY)
        .and_then(|(_, v)| decode(v).ok())
}

/// The scenario parameters links carry besides the kernels, in the
/// order they are written and applied.
fn scenario_params() -> impl Iterator<Item = &'static Param> {
    PARAMS.iter().filter(|p| !p.is_kernel())
}

/// Sets one scenario parameter from a link.
fn apply_param(s: &mut Scenario, p: &Param, value: &str) -> Result<(), String> {
    if p.key == "pattern" && value.trim().starts_with("trace") {
        return Err("a trace cannot travel in a link; use a preset".into());
    }
    (p.parse)(s, value)
}

/// The number of accesses in a scenario, if it is valid.
fn scenario_len(s: &Scenario) -> Option<u64> {
    let cfg = s.config().ok()?;
    Some(cfg.pattern.len(cfg.file_size, cfg.page_size.bytes()))
}

/// Parses a link, or any text whose first `?` starts one.
pub fn parse_link(text: &str) -> Parsed {
    parse_link_over(text, None)
}

/// Parses a link whose parameters are read against `base` instead of the
/// preset's view or the default: the view of the recording the link
/// carries, whose scenario the link's parameters change.
pub fn parse_link_over(text: &str, base: Option<&View>) -> Parsed {
    let mut ignored = Vec::new();
    let mut ignore = |param: &str, reason: String| {
        ignored.push(Ignored {
            param: param.to_string(),
            reason,
        })
    };
    // Key and value pairs, decoded; repeats and unknown keys are ignored.
    let mut pairs: Vec<(String, String)> = Vec::new();
    for part in query_of(text).split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let key = match decode(k) {
            Ok(k) => k,
            Err(e) => {
                ignore(if k.is_empty() { "(no name)" } else { k }, e);
                continue;
            }
        };
        let value = match decode(v) {
            Ok(v) => v,
            Err(e) => {
                ignore(if key.is_empty() { "(no name)" } else { &key }, e);
                continue;
            }
        };
        if key.is_empty() {
            ignore("(no name)", format!("'{part}' has no parameter name"));
        } else if !VIEW_PARAMS.contains(&key.as_str())
            && by_key(&key).is_none()
            && stop_number(&key).is_none()
        {
            ignore(&key, "not a folioscope link parameter".into());
        } else if pairs.iter().any(|(k, _)| *k == key) {
            ignore(&key, "given twice; the first one counts".into());
        } else {
            pairs.push((key, value));
        }
    }
    let get = |key: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };

    if let Some(v) = get("v") {
        if v != SCHEMA.to_string() {
            ignore(
                "v",
                format!("schema version '{v}' is unknown; read as version {SCHEMA}"),
            );
        }
    }
    let preset = match get("preset") {
        Some(id) if preset(id).is_some() => Some(id),
        Some(id) => {
            ignore("preset", format!("'{id}' is not a preset"));
            None
        }
        None => None,
    };
    let mut view = match base {
        Some(b) => b.clone(),
        None => base_of(preset),
    };

    // The scenario: each parameter on its own, then the whole, dropping
    // whichever parameter the model's validation names.
    let mut applied: Vec<&'static Param> = Vec::new();
    let mut scenario = view.scenario.clone();
    for p in scenario_params() {
        if let Some(value) = get(p.key) {
            let mut next = scenario.clone();
            match apply_param(&mut next, p, value) {
                Ok(()) => {
                    scenario = next;
                    applied.push(p);
                }
                Err(e) => ignore(p.key, e),
            }
        }
    }
    // Validate the whole; revert the parameter the model names, or if
    // that was not given (or the model names a field no parameter sets),
    // the one applied last, until the scenario holds. The kernel is the
    // base's here, which holds with any scenario; the link's kernels are
    // checked after.
    let same = |a: &Param, b: &Param| a.key == b.key;
    let mut rounds = 0;
    while let Err(e) = scenario.config() {
        rounds += 1;
        if rounds > PARAMS.len() + 2 {
            scenario = view.scenario.clone();
            break;
        }
        let named = by_field(e.field);
        let named_key = named.map_or(e.field, |p| p.key);
        let culprit = match named {
            Some(p) if applied.iter().any(|q| same(p, q)) => p,
            _ => match applied.last() {
                Some(last) => *last,
                None => {
                    scenario = view.scenario.clone();
                    ignore(named_key, e.message.clone());
                    break;
                }
            },
        };
        let base = (culprit.format)(&view.scenario);
        if apply_param(&mut scenario, culprit, &base).is_err() {
            scenario = view.scenario.clone();
            applied.clear();
        }
        applied.retain(|q| !same(q, culprit));
        let why = if named.is_some_and(|p| same(p, culprit)) {
            e.message.clone()
        } else {
            format!("does not fit the rest ({named_key}: {})", e.message)
        };
        ignore(culprit.key, why);
    }
    // The kernels, each on its own: a bad one is named and its place
    // keeps the base's kernel (or is left out), so that a typo in one
    // keeps the others and the comparison.
    if let Some(value) = get("kernel") {
        let labels: Vec<&str> = value.split(',').collect();
        if labels.len() > MAX_KERNELS {
            ignore(
                "kernel",
                format!(
                    "{} kernels; at most {MAX_KERNELS} are compared",
                    labels.len()
                ),
            );
        } else {
            let base: Vec<Kernel> = view.kernels().cloned().collect();
            let mut kernels = Vec::new();
            for (i, label) in labels.into_iter().enumerate() {
                let checked = parse_kernel_label(label).and_then(|k| {
                    let mut s = scenario.clone();
                    s.kernel = k.clone();
                    match s.config() {
                        Err(e) => Err(format!("'{}': {}", k.label(), e.message)),
                        Ok(_) => Ok(k),
                    }
                });
                match (checked, base.get(i)) {
                    (Ok(k), _) => kernels.push(k),
                    (Err(e), Some(k)) => {
                        ignore(
                            "kernel",
                            format!("{e}; kernel {} stays {}", i + 1, k.label()),
                        );
                        kernels.push(k.clone());
                    }
                    (Err(e), None) => ignore("kernel", format!("{e}; left out")),
                }
            }
            if !kernels.is_empty() {
                scenario.kernel = kernels.remove(0);
                view.compare = kernels;
            }
        }
    }
    view.scenario = scenario;
    let len = scenario_len(&view.scenario).unwrap_or(0);
    let pages = view
        .scenario
        .file_size
        .div_ceil(view.scenario.page_size.max(1));

    if let Some(v) = get("step") {
        match v.parse::<u64>() {
            Ok(s) if s < len => view.step = Some(s),
            Ok(s) if s == len => view.step = None,
            Ok(s) => ignore(
                "step",
                format!("{s} is past the end of the run ({len} accesses)"),
            ),
            Err(_) => ignore("step", format!("'{v}' is not a whole number")),
        }
    }
    if let Some(v) = get("ev") {
        match v.parse::<u32>() {
            Ok(e) if view.step.is_some() => view.event = Some(e),
            Ok(_) => ignore("ev", "there is no access after the end of the run".into()),
            Err(_) => ignore("ev", format!("'{v}' is not a whole number")),
        }
    }
    if let Some(v) = get("zoom") {
        let range = v
            .split_once('-')
            .and_then(|(a, b)| Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?)));
        match range {
            Some((a, b)) if a < b && b <= pages => {
                view.zoom = (a, b).ne(&(0, pages)).then_some((a, b))
            }
            Some((a, b)) => ignore(
                "zoom",
                format!("{a}-{b} is not a range of the file's {pages} pages"),
            ),
            None => ignore("zoom", format!("'{v}' is not FIRST-END")),
        }
    }
    if let Some(v) = get("hide") {
        let mut panels = Panels::default();
        let mut ok = true;
        for name in v.split(',').filter(|n| !n.is_empty()) {
            match name {
                "xarray" => panels.xarray = false,
                "log" => panels.log = false,
                "plots" => panels.plots = false,
                other => {
                    ignore(
                        "hide",
                        format!("'{other}' is not one of xarray, log, plots"),
                    );
                    ok = false;
                }
            }
        }
        if ok {
            view.panels = panels;
        }
    }
    if let Some(v) = get("log_hide") {
        let kinds: Result<KindSet, String> = v
            .split(',')
            .filter(|n| !n.is_empty())
            .map(|name| {
                EventKind::ALL
                    .into_iter()
                    .find(|k| k.name() == name)
                    .ok_or_else(|| format!("'{name}' is not an event kind ({})", kind_names()))
            })
            .collect();
        match kinds {
            Ok(hidden) => view.log.hidden = hidden,
            Err(e) => ignore("log_hide", e),
        }
    }
    if let Some(v) = get("log_text") {
        view.log.text = v.to_string();
    }
    if let Some(v) = get("mark") {
        match parse_mark(v) {
            Ok(m) => view.mark = m,
            Err(e) => ignore("mark", e),
        }
    }
    if let Some(v) = get("predict") {
        match parse_mark(v) {
            Ok(m) => view.predict = Some(m),
            Err(e) => ignore("predict", e),
        }
    }
    for (key, mode) in [("embed", Mode::Embed), ("present", Mode::Presenter)] {
        match get(key) {
            Some("1") if view.mode == Mode::Full => view.mode = mode,
            Some("1") => ignore(key, "embed=1 and present=1 exclude each other".into()),
            Some("0") | None => {}
            Some(v) => ignore(key, format!("'{v}' is not 0 or 1")),
        }
    }
    parse_story(&mut view, &pairs, len, pages, &mut ignore);
    Parsed { view, ignored }
}

/// Reads the story (`story=seed` or `story1`, `story2`, ...) and the stop
/// on screen, whose step, zoom and panels the view then shows.
fn parse_story(
    view: &mut View,
    pairs: &[(String, String)],
    len: u64,
    pages: u64,
    ignore: &mut dyn FnMut(&str, String),
) {
    let mut own: Vec<(usize, Stop)> = Vec::new();
    for (k, v) in pairs {
        if let Some(n) = stop_number(k) {
            match parse_stop(v, len, pages) {
                Ok(s) => own.push((n, s)),
                Err(e) => ignore(k, e),
            }
        }
    }
    crate::sort::sort_by_u64_key(&mut own, |(n, _)| *n as u64);
    let seed = pairs.iter().find(|(k, _)| k == "story").map(|(_, v)| v);
    let count = match seed.map(String::as_str) {
        Some("seed") if !own.is_empty() => {
            ignore(
                "story",
                "a link has the seed's story or its own stops, not both; the stops count".into(),
            );
            view.story = Story::Own(own.into_iter().map(|(_, s)| s).collect());
            None
        }
        Some("seed") => match view.preset.as_deref().and_then(seed_story_len) {
            Some(n) => {
                view.story = Story::Seed;
                Some(n)
            }
            None => {
                ignore("story", "only a seed preset has a story of its own".into());
                None
            }
        },
        Some(v) => {
            ignore("story", format!("'{v}' is not seed"));
            None
        }
        None if own.is_empty() => None,
        None => {
            view.story = Story::Own(own.into_iter().map(|(_, s)| s).collect());
            None
        }
    };
    let count = count.or(match &view.story {
        Story::Own(stops) => Some(stops.len()),
        _ => None,
    });
    if let Some(v) = pairs.iter().find(|(k, _)| k == "stop").map(|(_, v)| v) {
        match (v.parse::<usize>(), count) {
            (_, None) => ignore("stop", "the link has no story".into()),
            (Ok(n), Some(c)) if (1..=c).contains(&n) => {
                view.stop = Some(n - 1);
                if let Story::Own(stops) = &view.story {
                    let s = &stops[n - 1];
                    view.step = s.step;
                    view.event = None;
                    view.zoom = s.zoom;
                    view.panels = s.panels;
                }
            }
            (Ok(n), Some(c)) => ignore("stop", format!("{n} is not a stop of the story's {c}")),
            (Err(_), _) => ignore("stop", format!("'{v}' is not a whole number")),
        }
    }
}

impl View {
    /// Every field spelled out, defaults included (but for the log's
    /// filters, written only when set): what a link opens, pinned by the
    /// tests so that old links keep opening the same view.
    pub fn explain(&self) -> String {
        let mut parts = vec![
            format!("preset={}", self.preset.as_deref().unwrap_or("-")),
            format!("kernel={}", self.scenario.kernel.label()),
            format!(
                "compare={}",
                if self.compare.is_empty() {
                    "-".into()
                } else {
                    labels(&self.compare)
                }
            ),
        ];
        for p in scenario_params() {
            parts.push(format!("{}={}", p.key, (p.format)(&self.scenario)));
        }
        parts.push(format!(
            "step={}",
            self.step.map(|s| s.to_string()).unwrap_or("end".into())
        ));
        parts.push(format!(
            "ev={}",
            self.event.map(|e| e.to_string()).unwrap_or("-".into())
        ));
        parts.push(format!(
            "zoom={}",
            self.zoom
                .map(|(a, b)| format!("{a}-{b}"))
                .unwrap_or("all".into())
        ));
        parts.push(format!(
            "panels={}{}{}",
            if self.panels.xarray { "x" } else { "-" },
            if self.panels.log { "l" } else { "-" },
            if self.panels.plots { "p" } else { "-" }
        ));
        // The log's filters came after the first pinned links; they are
        // spelled out only when set, so that those read as they did.
        if !self.log.hidden.is_empty() {
            let names: Vec<&str> = self.log.hidden.iter().map(|k| k.name()).collect();
            parts.push(format!("log_hide={}", names.join(",")));
        }
        if !self.log.text.is_empty() {
            parts.push(format!("log_text={:?}", self.log.text));
        }
        parts.push(format!("mark={}", mark_name(self.mark)));
        match &self.story {
            Story::None => {}
            Story::Seed => parts.push("story=seed".into()),
            Story::Own(stops) => {
                for (i, st) in stops.iter().enumerate() {
                    parts.push(format!("story{}={:?}", i + 1, write_stop(st)));
                }
            }
        }
        if let Some(n) = self.stop {
            parts.push(format!("stop={}", n + 1));
        }
        parts.push(format!("mode={:?}", self.mode));
        parts.push(format!(
            "predict={}",
            self.predict.map(mark_name).unwrap_or("-")
        ));
        parts.join(" ")
    }
}

/// The event kinds' names, for errors.
fn kind_names() -> String {
    EventKind::ALL.map(EventKind::name).join(", ")
}

/// Kernels as a link lists them: labels separated by commas.
fn labels(kernels: &[Kernel]) -> String {
    kernels
        .iter()
        .map(Kernel::label)
        .collect::<Vec<_>>()
        .join(",")
}

/// Writes the view as a link: `base` (up to and without `?`), then the
/// parameters that differ from the defaults.
pub fn to_link(view: &View, base: &str) -> String {
    to_link_over(view, base, None)
}

/// Writes the view as a link whose parameters are those that differ from
/// `defaults` (a recording's view; see [`parse_link_over`]), or from the
/// preset's view or the default without it.
pub fn to_link_over(view: &View, base: &str, defaults: Option<&View>) -> String {
    let defaults = defaults
        .cloned()
        .unwrap_or_else(|| base_of(view.preset.as_deref()));
    let mut q: Vec<(&str, String)> = vec![("v", SCHEMA.to_string())];
    if let Some(p) = &view.preset {
        q.push(("preset", p.clone()));
    }
    if !view.kernels().eq(defaults.kernels()) {
        let all: Vec<Kernel> = view.kernels().cloned().collect();
        q.push(("kernel", labels(&all)));
    }
    for p in scenario_params() {
        let mine = (p.format)(&view.scenario);
        if p.applies_to(&view.scenario) && mine != (p.format)(&defaults.scenario) {
            q.push((p.key, mine));
        }
    }
    if let Some(s) = view.step {
        q.push(("step", s.to_string()));
    }
    if let Some(e) = view.event {
        q.push(("ev", e.to_string()));
    }
    if let Some((a, b)) = view.zoom {
        q.push(("zoom", format!("{a}-{b}")));
    }
    let hidden: Vec<&str> = [
        ("xarray", view.panels.xarray),
        ("log", view.panels.log),
        ("plots", view.panels.plots),
    ]
    .into_iter()
    .filter(|(_, open)| !open)
    .map(|(n, _)| n)
    .collect();
    if !hidden.is_empty() {
        q.push(("hide", hidden.join(",")));
    }
    if !view.log.hidden.is_empty() {
        let names: Vec<&str> = view.log.hidden.iter().map(|k| k.name()).collect();
        q.push(("log_hide", names.join(",")));
    }
    if !view.log.text.is_empty() {
        q.push(("log_text", view.log.text.clone()));
    }
    if view.mark != Mark::MajorFault {
        q.push(("mark", mark_name(view.mark).into()));
    }
    match view.mode {
        Mode::Full => {}
        Mode::Embed => q.push(("embed", "1".into())),
        Mode::Presenter => q.push(("present", "1".into())),
    }
    if let Some(m) = view.predict {
        q.push(("predict", mark_name(m).into()));
    }
    let own_keys: Vec<String>;
    match &view.story {
        Story::None => {}
        Story::Seed => q.push(("story", "seed".into())),
        Story::Own(stops) => {
            own_keys = (1..=stops.len()).map(|n| format!("story{n}")).collect();
            for (k, s) in own_keys.iter().zip(stops) {
                q.push((k.as_str(), write_stop(s)));
            }
        }
    }
    if let (Some(n), false) = (view.stop, view.story.is_none()) {
        q.push(("stop", (n + 1).to_string()));
    }
    let query: Vec<String> = q
        .into_iter()
        .map(|(k, v)| format!("{k}={}", encode(&v)))
        .collect();
    format!("{base}?{}", query.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_example_opens() {
        let p =
            parse_link("?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2,v7.4-rc2+desc-ra&step=51234");
        assert_eq!(p.ignored, vec![]);
        assert_eq!(p.view.preset.as_deref(), Some("seed000-rev-huge"));
        assert_eq!(p.view.scenario.kernel.label(), "v7.4-rc2");
        assert_eq!(labels(&p.view.compare), "v7.4-rc2+desc-ra");
        assert_eq!(p.view.step, Some(51234));
    }

    #[test]
    fn a_preset_opens_every_kernel_of_its_row() {
        let v = preset("seed000-rev-huge").unwrap();
        assert_eq!(
            v.kernels().map(Kernel::label).collect::<Vec<_>>(),
            [
                "v7.4-rc2",
                "v7.4-rc2+desc-ra",
                "v7.4-rc2-before-0b9c0aeba938"
            ]
        );
        assert_eq!(parse_link("?v=1&preset=seed000-rev-huge").view, v);
        assert_eq!(to_link(&v, ""), "?v=1&preset=seed000-rev-huge");
        for r in rows() {
            let v = preset(&r.id).unwrap();
            assert_eq!(v.kernels().count(), r.columns.len(), "{}", r.id);
            assert!(r.columns.len() <= MAX_KERNELS, "{}", r.id);
        }
        // Two of the three, as an older link named them, stay two.
        let p = parse_link("?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2,v7.4-rc2+desc-ra");
        assert_eq!(p.view.compare.len(), 1);
    }

    #[test]
    fn a_bad_kernel_keeps_the_others_and_the_comparison() {
        let p = parse_link("?v=1&kernel=v7.4-rc3,v7.4-rc2+desc-ra");
        assert_eq!(p.view.scenario.kernel.label(), "v6.18");
        assert_eq!(labels(&p.view.compare), "v7.4-rc2+desc-ra");
        assert_eq!(p.ignored.len(), 1);
        assert_eq!(p.ignored[0].param, "kernel");
        assert!(
            p.ignored[0].reason.contains("'v7.4-rc3'"),
            "{}",
            p.ignored[0]
        );
        // In a preset, the bad one's place keeps the preset's kernel.
        let p = parse_link("?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2,v7.4-rc2+desc-rx");
        assert_eq!(labels(&p.view.compare), "v7.4-rc2+desc-ra");
        assert!(p.ignored[0].reason.contains("desc-rx"), "{}", p.ignored[0]);
        // A kernel the model rejects (two patches on one hunk) is named,
        // and a place the base has no kernel for is left out.
        let p = parse_link("?v=1&kernel=v7.4-rc2,v7.1-rc5+fbatch+fbatch-1-willy");
        assert_eq!(p.view.scenario.kernel.label(), "v7.4-rc2");
        assert!(p.view.compare.is_empty());
        assert!(p.ignored[0].reason.contains("left out"), "{}", p.ignored[0]);
        let p = parse_link("?v=1&kernel=v6.18,v6.18,v6.18,v6.18");
        assert_eq!(p.ignored[0].param, "kernel");
        assert!(p.view.compare.is_empty());
    }

    #[test]
    fn a_story_travels_in_the_link() {
        // A speaker's own stops, and the stop on screen, whose step, zoom
        // and panels the view shows.
        let text = "?v=1&size=64M&pattern=rev&story1=5~~~Readahead%20works&story2=900~0-4096~log~Then%0Aone%20page%20a%20fault&stop=2";
        let p = parse_link(text);
        assert_eq!(p.ignored, vec![]);
        let Story::Own(stops) = &p.view.story else {
            panic!("{:?}", p.view.story)
        };
        assert_eq!(stops.len(), 2);
        assert_eq!(stops[1].caption, "Then\none page a fault");
        assert_eq!(p.view.stop, Some(1));
        assert_eq!(p.view.step, Some(900));
        assert_eq!(p.view.zoom, Some((0, 4096)));
        assert!(!p.view.panels.log);
        assert_eq!(parse_link(&to_link(&p.view, "")).view, p.view);
        // A seed preset's own story is named, not spelled out.
        let p = parse_link("?v=1&preset=seed000-rev-huge&story=seed&stop=3");
        assert_eq!(p.ignored, vec![]);
        assert_eq!(p.view.story, Story::Seed);
        assert_eq!(
            to_link(&p.view, ""),
            "?v=1&preset=seed000-rev-huge&story=seed&stop=3"
        );
        // Bad stories are named and left out.
        let p = parse_link("?v=1&story=seed&story1=99999999~~~x&stop=9&story0=1~~~x");
        let named: Vec<(&str, &str)> = p
            .ignored
            .iter()
            .map(|i| (i.param.as_str(), i.reason.as_str()))
            .collect();
        assert_eq!(named[0].0, "story0");
        assert!(
            named[1].0 == "story1" && named[1].1.starts_with("step 99999999"),
            "{named:?}"
        );
        assert_eq!(
            named[2],
            ("story", "only a seed preset has a story of its own")
        );
        assert_eq!(named[3], ("stop", "the link has no story"));
        assert!(p.view.story.is_none());
    }

    #[test]
    fn defaults_are_left_out() {
        let p = parse_link("?v=1&preset=seed000-rev-huge&step=7");
        assert_eq!(
            to_link(&p.view, "https://x.example/f/"),
            "https://x.example/f/?v=1&preset=seed000-rev-huge&step=7"
        );
        assert_eq!(to_link(&View::default(), ""), "?v=1");
    }

    #[test]
    fn bad_parameters_are_named_and_left_at_their_defaults() {
        let p = parse_link("?v=1&size=0&step=zz&bogus=3&zoom=9-3&kernel=v6.18&hide=xarray,nope");
        let names: Vec<&str> = p.ignored.iter().map(|i| i.param.as_str()).collect();
        assert_eq!(names, vec!["bogus", "size", "step", "zoom", "hide"]);
        assert_eq!(p.view.scenario.file_size, Scenario::default().file_size);
        assert!(p.view.panels.xarray, "a bad hide list changes nothing");
    }

    #[test]
    fn a_scenario_the_model_rejects_drops_the_parameter_it_names() {
        // tmpfs files are read with read(): the model names `pattern`,
        // whose default (fwd) does not fit tmpfs either, so `fs` goes too.
        let p = parse_link("?v=1&fs=tmpfs&pattern=rev");
        let names: Vec<&str> = p.ignored.iter().map(|i| i.param.as_str()).collect();
        assert_eq!(names, vec!["pattern", "fs"], "{:?}", p.ignored);
        assert!(p.view.scenario.config().is_ok());
        // A read pattern fits.
        let p = parse_link("?v=1&fs=tmpfs&pattern=read:1M&tmpfs_file=sparse");
        assert_eq!(p.ignored, vec![]);
        assert!(p.view.scenario.backing.is_tmpfs());
    }

    #[test]
    fn values_are_percent_encoded_but_labels_stay_readable() {
        assert_eq!(encode("v7.4-rc2+desc-ra,v6.18"), "v7.4-rc2+desc-ra,v6.18");
        assert_eq!(encode("a b&c=d%é"), "a%20b%26c%3Dd%25%C3%A9");
        assert_eq!(decode("a%20b%26c%3Dd%25%C3%A9").as_deref(), Ok("a b&c=d%é"));
        // A stray '%' stays, as browsers read it; broken UTF-8 is named.
        assert_eq!(decode("50%").as_deref(), Ok("50%"));
        assert!(decode("%C3").is_err());
    }

    #[test]
    fn the_site_url_is_a_base_links_can_follow() {
        for base in site_url().into_iter().chain([LOCAL_URL]) {
            assert!(!base.contains(['?', '#']), "{base}");
            let link = to_link(&View::default(), base);
            assert_eq!(parse_link(&link).view, View::default());
        }
    }

    #[test]
    fn links_keep_the_logs_filters() {
        let mut v = View::default();
        v.log.hidden = [EventKind::Io, EventKind::Map].into();
        v.log.text = "window start & more".into();
        let link = to_link(&v, "");
        assert_eq!(
            link,
            "?v=1&log_hide=map,io&log_text=window%20start%20%26%20more"
        );
        assert_eq!(
            parse_link(&link),
            Parsed {
                view: v,
                ignored: vec![]
            }
        );
        let p = parse_link("?v=1&log_hide=io,nope&log_text=x");
        assert_eq!(p.ignored[0].param, "log_hide");
        assert!(p.view.log.hidden.is_empty(), "a bad list changes nothing");
        assert_eq!(p.view.log.text, "x");
    }

    #[test]
    fn a_recordings_link_is_read_over_its_view() {
        use folioscope_core::{Access, Pattern};
        let base = View {
            scenario: Scenario {
                file_size: 64 << 20,
                read_ahead_kb: 8192,
                pattern: Pattern::Trace(vec![
                    Access::Open { ofd: 0 },
                    Access::ReadAt {
                        ofd: 0,
                        offset: 0,
                        len: 4096,
                    },
                ]),
                ..Scenario::default()
            },
            ..View::default()
        };
        let mut v = base.clone();
        v.step = Some(1);
        v.scenario.read_ahead_kb = 128;
        let link = to_link_over(&v, "", Some(&base));
        assert_eq!(link, "?v=1&ra_kb=128&step=1");
        let with_rec = format!("{link}&rec=H4sI-_abc");
        assert_eq!(recording_param(&with_rec).as_deref(), Some("H4sI-_abc"));
        assert_eq!(recording_param(&link), None);
        let p = parse_link_over(&with_rec, Some(&base));
        assert_eq!(p.ignored, vec![]);
        assert_eq!(p.view, v);
    }

    #[test]
    fn an_unknown_schema_is_read_as_version_1() {
        let p = parse_link("?v=7&step=3");
        assert_eq!(p.ignored[0].param, "v");
        assert_eq!(p.view.step, Some(3));
    }
}
