//! A recording of a real program (`folioscope record`) opened in the app:
//! dropped on the page, chosen with "Open recording…", or carried in a
//! link. Its accesses become the scenario, replayed on the model of the
//! kernel it ran on; its kernel events become the real-kernel lane under
//! the model's strip (`components/real_strip.rs`), marks on the timeline
//! and the event check (`hooks/use_real_check.rs`).
//!
//! A dropped file is sniffed, not trusted by its name: gzip is unzipped
//! with the browser's own `DecompressionStream` (`gzip.rs`), then the text
//! is a recording (`folioscope-recording 1`), a `folioscope probe --json`
//! report, or refused in one line naming what is wrong.

use folioscope_core::{Scenario, Tracepoint};
use folioscope_scenario::base64url;
use folioscope_scenario::event_check::{is_compared, StepCheck};
use folioscope_scenario::link::{
    parse_link_over, recording_param, to_link, to_link_over, Parsed, View, RECORDING_KEY,
};
use folioscope_scenario::recording::format::is_gzip;
use folioscope_scenario::recording::real_cache::RealCache;
use folioscope_scenario::recording::Recording;
use folioscope_scenario::tracepoint_text::TraceInode;

use crate::context::Dispatch;
use crate::gzip;
use crate::probe::ProbeOverlay;
use crate::state::{Action, Kept, State};

/// The largest gzipped recording a link carries: base64url makes it a
/// third longer, and a link of some 5.5 KB still pastes into a mail.
pub const LINK_MAX_GZ: usize = 4096;

/// A recording, read once for everything the app shows of it.
#[derive(Debug)]
pub struct Recorded {
    pub rec: Recording,
    /// The file replayed: the first the program accessed.
    pub file: u32,
    /// The program and the file, as the what-if table is titled.
    pub title: String,
    /// The file's device and inode, as its tracepoints name it.
    pub inode: TraceInode,
    pub page_shift: u32,
    /// The file's accesses on the recorded kernel and machine.
    pub scenario: Scenario,
    /// The real page cache at any step.
    pub real: RealCache,
    /// The file's kernel events, each with the accesses done before it.
    pub events: Vec<(u64, Tracepoint)>,
    /// Steps after which the kernel added a folio, and made a readahead
    /// call, each once.
    pub add_steps: Vec<u64>,
    pub readahead_steps: Vec<u64>,
    /// The file's accesses.
    pub accesses: u64,
    /// The two as ticks over the timeline (SVG paths in a box 1000 wide
    /// and 26 high), made once.
    pub marks: [yew::AttrValue; 2],
    /// The gzipped file's size, and the file as a link carries it when it
    /// is at most [`LINK_MAX_GZ`].
    pub gz_len: usize,
    pub link: Option<String>,
}

impl Recorded {
    /// Reads what the app needs of `rec`, whose gzipped file is `gz`.
    pub fn new(rec: Recording, gz: &[u8]) -> Result<Recorded, (String, String)> {
        let bad = |e: folioscope_scenario::recording::RecordingError| {
            ("recording".to_string(), e.to_string())
        };
        let file = rec.first_accessed_file().map_err(bad)?;
        let scenario = rec.scenario(file).map_err(bad)?;
        scenario
            .config()
            .map_err(|e| ("recording".to_string(), e.to_string()))?;
        let f = &rec.files[file as usize];
        let title = format!("{} reading {}", rec.command.join(" "), f.path);
        let events = rec.numbered_events(file);
        let steps_of = |keep: fn(&Tracepoint) -> bool| {
            let mut v: Vec<u64> = events
                .iter()
                .filter(|(_, t)| keep(t))
                .map(|(s, _)| *s)
                .collect();
            v.dedup();
            v
        };
        let add_steps = steps_of(|t| matches!(t, Tracepoint::AddToPageCache { .. }));
        let readahead_steps = steps_of(Tracepoint::is_readahead);
        let accesses = rec.accesses(file).len() as u64;
        let marks = [
            ticks(&add_steps, accesses, 0, 4).into(),
            ticks(&readahead_steps, accesses, 4, 9).into(),
        ];
        let link = (gz.len() <= LINK_MAX_GZ).then(|| base64url::encode(gz));
        Ok(Recorded {
            file,
            title,
            inode: f.inode,
            page_shift: rec.machine.page_size.trailing_zeros(),
            real: RealCache::of(&rec, file),
            scenario,
            add_steps,
            readahead_steps,
            accesses,
            marks,
            gz_len: gz.len(),
            link,
            events,
            rec,
        })
    }

    /// The view a recording opens: its scenario, from the first step.
    pub fn view(&self) -> View {
        View {
            scenario: self.scenario.clone(),
            ..View::default()
        }
    }

    /// The kernel's events the check compares, with their accesses.
    pub fn compared_events(&self) -> Vec<(u64, Tracepoint)> {
        self.events
            .iter()
            .filter(|(_, t)| is_compared(t))
            .copied()
            .collect()
    }
}

/// Ticks from `y0` to `y1` at each of `steps` of `len`, at most one per
/// column of a box 1000 wide.
fn ticks(steps: &[u64], len: u64, y0: u32, y1: u32) -> String {
    let mut out = String::new();
    let mut last = None;
    for &s in steps {
        let x = s * 1000 / len.max(1);
        if last != Some(x) {
            out.push_str(&format!("M{x} {y0}V{y1}"));
            last = Some(x);
        }
    }
    out
}

/// The event check of side A's model against the recorded kernel.
#[derive(Debug, PartialEq)]
pub struct RealCheck {
    /// The scenario the model ran, side A's kernel included.
    pub scenario: Scenario,
    pub check: StepCheck,
    /// The end state's differences, when the recording measured it.
    pub end_state: Option<Vec<String>>,
}

/// What a dropped or chosen file turned out to be.
pub enum Opened {
    Recording(Box<Recorded>),
    Probe(ProbeOverlay, Scenario, u64),
}

/// Reads a dropped or chosen file. Errors are a field and a message.
pub async fn open_bytes(bytes: Vec<u8>) -> Result<Opened, (String, String)> {
    let (text, gz) = if is_gzip(&bytes) {
        let plain = gzip::gunzip(&bytes).await.map_err(|e| {
            (
                "recording gzip".to_string(),
                format!("the file is truncated or damaged ({e})"),
            )
        })?;
        (plain, Some(bytes))
    } else {
        (bytes, None)
    };
    let text = String::from_utf8(text).map_err(|e| {
        (
            "file".to_string(),
            format!(
                "not text: byte {} is not UTF-8; open a recording or a probe report",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    let head = text.trim_start();
    if head.starts_with(folioscope_scenario::recording::format::MAGIC) {
        let rec = Recording::parse(text.as_bytes())
            .map_err(|e| ("recording".to_string(), e.to_string()))?;
        let gz = match gz {
            Some(gz) => gz,
            None => gzip::gzip(text.as_bytes()).await.unwrap_or_default(),
        };
        return Recorded::new(rec, &gz).map(|r| Opened::Recording(Box::new(r)));
    }
    if head.starts_with('{') {
        return crate::probe::load(&text)
            .map(|(o, s, step)| Opened::Probe(o, s, step))
            .map_err(|(field, message)| (format!("probe report {field}"), message));
    }
    let traced = ["sys_enter_", "mm_filemap_add_to_page_cache", "page_cache_"];
    if traced.iter().any(|t| head.contains(t)) {
        return Err((
            "file".into(),
            "this is trace text, not a recording: build one from it with `folioscope record --from-trace FILE --release R` (docs/recording.md), then open that".into(),
        ));
    }
    Err((
        "file".into(),
        "neither a recording (its first line is 'folioscope-recording 1') nor a `folioscope probe --json` report".into(),
    ))
}

/// Opens a file the user dropped or chose, and shows it or says why not.
pub fn open_file(file: web_sys::File, d: Dispatch) {
    wasm_bindgen_futures::spawn_local(async move {
        let bytes = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
            .await
            .map(|b| js_sys::Uint8Array::new(&b).to_vec());
        let opened = match bytes {
            Ok(bytes) => open_bytes(bytes).await,
            Err(_) => Err(("file".into(), "the browser could not read it".into())),
        };
        match opened {
            Ok(Opened::Recording(r)) => {
                let view = r.view();
                d.dispatch(Action::OpenRecording(
                    Kept::new(*r),
                    Box::new(view),
                    Vec::new(),
                ))
            }
            Ok(Opened::Probe(o, s, step)) => d.dispatch(Action::Probe(Kept::new(o), s, step)),
            Err((field, message)) => d.dispatch(Action::RecordingFailed(field, message)),
        }
    });
}

/// Opens the recording a link carries, with the link's view over it.
/// Returns false when the link carries none.
pub fn open_link(query: String, d: Dispatch) -> bool {
    let Some(encoded) = recording_param(&query) else {
        return false;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let failed =
            |message: String| Action::RecordingFailed("link parameter rec".into(), message);
        let bytes = match base64url::decode(&encoded) {
            Ok(b) => b,
            Err(e) => return d.dispatch(failed(e)),
        };
        match open_bytes(bytes).await {
            Ok(Opened::Recording(r)) => {
                let Parsed { view, ignored } = parse_link_over(&query, Some(&r.view()));
                d.dispatch(Action::OpenRecording(
                    Kept::new(*r),
                    Box::new(view),
                    ignored,
                ))
            }
            Ok(Opened::Probe(..)) => d.dispatch(failed("holds no recording".into())),
            Err((field, message)) => d.dispatch(failed(format!("{field}: {message}"))),
        }
    });
    true
}

impl State {
    /// The view's permalink. A recording's view is written over the
    /// recording's own view, with the recording last when it is small
    /// enough to travel; otherwise the link names a trace it does not
    /// carry, and opening it says so.
    pub fn link(&self, base: &str) -> String {
        match &self.recording {
            Some(r) => match &r.link {
                Some(encoded) => format!(
                    "{}&{RECORDING_KEY}={encoded}",
                    to_link_over(&self.view(), base, Some(&r.view()))
                ),
                None => to_link(&self.view(), base),
            },
            None => to_link(&self.view(), base),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const TAC: &[u8] = include_bytes!("../../cli/tests/fixtures/replay/tac-64m.rec.gz");

    /// A fixture's text, as the browser unzips it.
    pub(crate) fn text_of(gz: &[u8]) -> String {
        folioscope_scenario::recording::format::write_text(&Recording::parse(gz).unwrap())
    }

    #[test]
    fn a_recording_is_read_for_the_lane_and_the_marks() {
        let rec = Recording::parse(TAC).unwrap();
        let r = Recorded::new(rec, TAC).unwrap();
        assert_eq!(r.file, 0);
        assert!(r.title.starts_with("tac "), "{}", r.title);
        assert_eq!(r.gz_len, TAC.len());
        let link = r
            .link
            .as_deref()
            .expect("a 2.3 KB recording travels in links");
        assert_eq!(base64url::decode(link).unwrap(), TAC);
        assert!(!r.add_steps.is_empty() && !r.readahead_steps.is_empty());
        assert!(r.add_steps.windows(2).all(|w| w[0] < w[1]));
        let len = r.scenario.config().unwrap();
        let len = len.pattern.len(len.file_size, len.page_size.bytes());
        assert!(*r.add_steps.last().unwrap() <= len);
    }
}

#[cfg(test)]
mod damaged {
    use super::*;
    use folioscope_core::{NoEvents, Simulation, Span};

    const FIXTURES: [&[u8]; 3] = [
        include_bytes!("../../cli/tests/fixtures/replay/tac-64m.rec.gz"),
        include_bytes!("../../cli/tests/fixtures/replay/loader-hugepage-512m.rec.gz"),
        include_bytes!("../../cli/tests/fixtures/replay/revwalk-hugepage-512m.rec.gz"),
    ];

    /// Recordings with one number changed anywhere (to 0, 1, -1, a huge
    /// value, or doubled) are refused with an error, or open and replay
    /// and draw without a panic: what a damaged file dropped on the app
    /// meets.
    #[test]
    fn any_one_number_changed_is_refused_or_replayed_without_a_panic() {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        let (mut refused, mut opened) = (0, 0);
        for gz in FIXTURES {
            let text = crate::recording::tests::text_of(gz);
            let lines: Vec<&str> = text.lines().collect();
            for _ in 0..120 {
                let n = 4 + next() as usize % (lines.len() - 4);
                let mut words: Vec<String> = lines[n].split(' ').map(str::to_string).collect();
                let k = next() as usize % words.len();
                let Ok(v) = words[k].parse::<i64>() else {
                    continue;
                };
                words[k] = match next() % 5 {
                    0 => "0".into(),
                    1 => "1".into(),
                    2 => "-1".into(),
                    3 => "18446744073709551615".into(),
                    _ => v.saturating_mul(2).to_string(),
                };
                let mut changed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                changed[n] = words.join(" ");
                let changed = changed.join("\n");
                let Ok(rec) = Recording::parse(changed.as_bytes()) else {
                    refused += 1;
                    continue;
                };
                let Ok(r) = Recorded::new(rec, gz) else {
                    refused += 1;
                    continue;
                };
                opened += 1;
                let cfg = r.scenario.config().unwrap();
                let pages = cfg.geometry().nr_pages;
                let mut sim = Simulation::new(cfg);
                sim.run_to(300, &mut NoEvents);
                let view = Span {
                    first: 0,
                    end: pages,
                    bins: 500,
                };
                let step = sim.step_count();
                let real = r.real.folios_at(step, 0, pages);
                let lane = crate::real_lane::lane(&real, sim.machine().folio_runs(0, pages), view);
                let mut buf = Vec::new();
                crate::real_lane::paint(
                    &lane,
                    view,
                    Some(pages / 2),
                    &crate::palette::current(),
                    &mut buf,
                );
            }
        }
        assert!(
            refused > 20 && opened > 20,
            "{refused} refused, {opened} opened"
        );
    }
}
