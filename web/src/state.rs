//! The app's one state and the one place it changes: [`AppState`] and its
//! [`Action`]s, reduced by `impl Reducible`. Components read the state and
//! dispatch actions; nothing else mutates the model.

use std::cell::RefCell;
use std::collections::{BTreeSet, VecDeque};
use std::rc::Rc;

use folioscope_core::{Event, EventKind, EventSink, Kernel, Mark, Simulation, Timeline};
use folioscope_scenario::link::{Ignored, LogFilter, Mode, Panels, View, MAX_KERNELS};
use folioscope_scenario::params::label_of;
use folioscope_scenario::{describe, Scenario};
use yew::Reducible;

use crate::probe::ProbeOverlay;

/// Checkpoint memory the app allows one timeline.
pub const CHECKPOINT_BUDGET: usize = 96 << 20;

/// A banner: what was refused, and what the app did instead.
#[derive(Clone, Debug, PartialEq)]
pub struct BannerMsg {
    pub field: String,
    pub message: String,
    pub note: &'static str,
}

impl BannerMsg {
    /// A rejected edit: the view keeps the last good scenario.
    pub fn rejected(field: String, message: String) -> Self {
        BannerMsg {
            field,
            message,
            note: "the view keeps the last good scenario",
        }
    }

    /// Parameters of a link the view could not use.
    pub fn ignored(list: &[Ignored]) -> Option<Self> {
        (!list.is_empty()).then(|| BannerMsg {
            field: if list.len() == 1 {
                "link parameter ignored".into()
            } else {
                format!("{} link parameters ignored", list.len())
            },
            message: list
                .iter()
                .map(|i| format!("{} ({})", i.param, i.reason))
                .collect::<Vec<_>>()
                .join("; "),
            note: "each is left at its default",
        })
    }
}

/// A predict-mode question, asked just before the event it is about.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub mark: Mark,
    /// The step the question is asked at, and the step that answers it.
    pub ask_at: u64,
    pub reveal_at: u64,
    pub prompt: String,
    /// The true answer, and its unit.
    pub answer: u64,
    pub unit: &'static str,
    /// The audience's answer, once given: the reveal.
    pub given: Option<u64>,
}

/// One line of the event log: an event, the access that made it (1-based)
/// and its place among that access's events.
#[derive(Clone, Copy, Debug)]
pub struct LogLine {
    pub access: u64,
    pub index: usize,
    pub event: Event,
}

/// How many accesses of history the log rebuilds after a jump.
pub const LOG_ACCESSES: u64 = 40;
/// How many lines the log keeps.
pub const LOG_LINES: usize = 4000;

/// The events of the accesses just before the current step.
#[derive(Default)]
pub struct Recent {
    pub lines: VecDeque<LogLine>,
}

impl Recent {
    fn push(&mut self, line: LogLine) {
        if self.lines.len() == LOG_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }
}

/// A sink that records into [`Recent`], numbering events per access.
struct Recorder<'a> {
    recent: &'a mut Recent,
    access: u64,
    index: usize,
}

impl EventSink for Recorder<'_> {
    fn emit(&mut self, event: Event) {
        self.recent.push(LogLine {
            access: self.access,
            index: self.index,
            event,
        });
        self.index += 1;
    }
}

/// A scenario, run once, with a simulation standing at the current step.
pub struct Run {
    pub scenario: Scenario,
    pub timeline: Timeline,
    pub sim: RefCell<Simulation>,
    pub recent: RefCell<Recent>,
}

impl Run {
    pub fn new(scenario: &Scenario) -> Result<Rc<Run>, (String, String)> {
        let cfg = scenario
            .config()
            .map_err(|e| (label_of(e.field).to_string(), e.message))?;
        let timeline = Timeline::build(cfg, CHECKPOINT_BUDGET);
        let sim = RefCell::new(timeline.simulation_at(0));
        Ok(Rc::new(Run {
            scenario: scenario.clone(),
            timeline,
            sim,
            recent: RefCell::new(Recent::default()),
        }))
    }

    /// Moves the simulation to `step`, recording the events of the last
    /// accesses for the log: forward in place when that is close, from a
    /// checkpoint a little before `step` otherwise.
    pub fn seek(&self, step: u64) {
        let step = step.min(self.timeline.len());
        let mut sim = self.sim.borrow_mut();
        let mut recent = self.recent.borrow_mut();
        let here = sim.step_count();
        if step < here || step - here > self.timeline.interval() {
            *sim = self
                .timeline
                .simulation_at(step.saturating_sub(LOG_ACCESSES));
            recent.lines.clear();
        } else if step - here > LOG_ACCESSES {
            // Only the last accesses reach the log: run the rest silently.
            sim.run_to(step - LOG_ACCESSES, &mut folioscope_core::NoEvents);
            recent.lines.clear();
        }
        while sim.step_count() < step {
            let access = sim.step_count() + 1;
            let mut rec = Recorder {
                recent: &mut recent,
                access,
                index: 0,
            };
            sim.step(&mut rec);
        }
    }
}

/// A position inside an access: the events of access `step + 1`, of which
/// the first `applied` have happened.
#[derive(Clone)]
pub struct EventCursor {
    pub events: Rc<Vec<Event>>,
    pub applied: usize,
}

/// A kernel of compare mode besides the first, run on the same scenario.
#[derive(Clone)]
pub struct Compare {
    pub run: Rc<Run>,
    /// The first step after which its state and the first kernel's differ.
    pub first_diff: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Xarray,
    Log,
    Plots,
}

pub struct AppState {
    pub scenario: Scenario,
    pub run: Rc<Run>,
    pub step: u64,
    pub cursor: Option<EventCursor>,
    /// The kernels compared with the first (sides B, C, ...).
    pub compare: Vec<Compare>,
    pub playing: bool,
    /// Accesses per second while playing, as a power of two.
    pub speed_log2: u32,
    /// The pages in view: `[first, end)`.
    pub zoom: (u64, u64),
    /// A rejected parameter: the field and why. The last good state stays.
    pub banner: Option<BannerMsg>,
    pub help: bool,
    /// What "next" jumps to.
    pub mark: Mark,
    /// Event kinds the log hides, and the text it must contain.
    pub hidden_kinds: BTreeSet<EventKind>,
    pub log_text: String,
    pub panels: Panels,
    /// The preset on screen, if the scenario still is one.
    pub preset: Option<String>,
    /// Full, embedded or presenter framing.
    pub mode: Mode,
    /// The event kind predict mode asks about, and the open question.
    pub predict: Option<Mark>,
    pub question: Option<Question>,
    /// The presenter's blank screen (`b`).
    pub blank: bool,
    /// The open-from-text dialog.
    pub open_text: bool,
    /// A dropped `folioscope probe` report, shown under the model.
    pub probe: Option<Rc<ProbeOverlay>>,
    /// The last link or text copied, shown for copying by hand.
    pub shared: Option<String>,
    /// Bumped on every change, so that canvases know to redraw.
    pub generation: u64,
}

pub enum Action {
    /// A new scenario: re-run the model (and the compared kernel), or show why not.
    Apply(Scenario),
    /// A preset's view (see `folioscope_scenario::link::preset`): its
    /// scenario and every kernel of its row.
    Preset(Box<View>),
    /// Compare with this kernel in this place among the compared ones (at
    /// the end: one more), or stop comparing with the one there.
    CompareWith(usize, Option<Kernel>),
    Seek(u64),
    StepBy(i64),
    /// One event forward or back.
    StepEvent(bool),
    /// To just after event `index` of access `step + 1`.
    JumpToEvent(u64, usize),
    /// Advance while playing, by this many accesses.
    Tick(u64),
    TogglePlay,
    SetSpeed(u32),
    SetMark(Mark),
    JumpMark(bool),
    Zoom(u64, u64),
    ZoomReset,
    ToggleKind(EventKind),
    LogText(String),
    TogglePanel(Panel),
    Reject(String, String),
    DismissBanner,
    ToggleHelp,
    /// A view from a link (at load, on back/forward, or opened from text),
    /// with the parameters it had to ignore.
    OpenView(Box<View>, Vec<Ignored>),
    SetMode(Mode),
    ToggleBlank,
    SetPredict(Option<Mark>),
    /// Move to just before the next predicted event and ask about it.
    Ask,
    /// The audience's answer: reveal the event.
    Answer(u64),
    CloseQuestion,
    ShowOpenText(bool),
    Shared(Option<String>),
    /// A probe report was dropped on the app.
    Probe(Rc<ProbeOverlay>, Scenario, u64),
    CloseProbe,
}

impl PartialEq for AppState {
    /// Two states are the same view when nothing was dispatched in
    /// between: every change bumps the generation.
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation && Rc::ptr_eq(&self.run, &other.run)
    }
}

impl AppState {
    pub fn new(scenario: Scenario, compare: Vec<Kernel>, preset: Option<String>) -> Self {
        let run = Run::new(&scenario).unwrap_or_else(|(f, m)| {
            // The default scenario is valid; anything else is a bug worth seeing.
            panic!("default scenario rejected: {f}: {m}")
        });
        let pages = scenario.file_size.div_ceil(scenario.page_size);
        let state = AppState {
            scenario: scenario.clone(),
            run: run.clone(),
            step: 0,
            cursor: None,
            compare: Vec::new(),
            playing: false,
            speed_log2: 14,
            zoom: (0, pages),
            banner: None,
            help: false,
            mark: Mark::MajorFault,
            hidden_kinds: BTreeSet::new(),
            log_text: String::new(),
            panels: Panels::default(),
            preset,
            mode: Mode::Full,
            predict: None,
            question: None,
            blank: false,
            open_text: false,
            probe: None,
            shared: None,
            generation: 0,
        };
        let end = run.timeline.len();
        state.with_run(scenario, run, compare).at(end)
    }

    /// The app as a link's view describes it; a scenario the model
    /// rejects (which a parsed link never holds) falls back to `fallback`.
    pub fn from_view(view: &View, ignored: &[Ignored], fallback: AppState) -> AppState {
        let Ok(run) = Run::new(&view.scenario) else {
            return fallback;
        };
        let mut s = AppState {
            generation: fallback.generation + 1,
            ..fallback
        };
        s = s.with_run(view.scenario.clone(), run, view.compare.clone());
        s.preset = view.preset.clone();
        let pages = s.pages();
        s.zoom = view.zoom.unwrap_or((0, pages));
        s.panels = view.panels;
        s.hidden_kinds = view.log.hidden.clone();
        s.log_text = view.log.text.clone();
        s.mark = view.mark;
        s.mode = view.mode;
        s.predict = view.predict;
        s.question = None;
        s.playing = false;
        let len = s.len();
        let step = view.step.unwrap_or(len).min(len);
        let mut ignored: Vec<Ignored> = ignored.to_vec();
        s = match view.event {
            Some(e) if step < len => {
                let events = Rc::new(s.run.timeline.events_of(step + 1));
                if (e as usize) < events.len() {
                    s.inside(step, events, e as usize)
                } else {
                    ignored.push(Ignored {
                        param: "ev".into(),
                        reason: format!("access {} has {} events", step + 1, events.len()),
                    });
                    s.at(step)
                }
            }
            _ => s.at(step),
        };
        s.banner = BannerMsg::ignored(&ignored);
        s
    }

    /// The view a link of this state restores.
    pub fn view(&self) -> View {
        let len = self.len();
        View {
            preset: self.preset.clone(),
            scenario: self.scenario.clone(),
            compare: self.compare_kernels(),
            step: (self.step < len).then_some(self.step),
            event: self.cursor.as_ref().map(|c| c.applied as u32),
            zoom: (self.zoom != (0, self.pages())).then_some(self.zoom),
            panels: self.panels,
            log: LogFilter {
                hidden: self.hidden_kinds.clone(),
                text: self.log_text.clone(),
            },
            mark: self.mark,
            mode: self.mode,
            predict: self.predict,
        }
    }

    pub fn len(&self) -> u64 {
        self.run.timeline.len()
    }

    /// The kernels compared with the first.
    pub fn compare_kernels(&self) -> Vec<Kernel> {
        self.compare
            .iter()
            .map(|c| c.run.scenario.kernel.clone())
            .collect()
    }

    pub fn pages(&self) -> u64 {
        self.scenario.file_size.div_ceil(self.scenario.page_size)
    }

    /// The events applied so far inside the current access.
    pub fn applied_events(&self) -> &[Event] {
        match &self.cursor {
            Some(c) => &c.events[..c.applied],
            None => &[],
        }
    }

    fn next(self: &Rc<Self>) -> AppState {
        AppState {
            scenario: self.scenario.clone(),
            run: self.run.clone(),
            step: self.step,
            cursor: self.cursor.clone(),
            compare: self.compare.clone(),
            playing: self.playing,
            speed_log2: self.speed_log2,
            zoom: self.zoom,
            banner: self.banner.clone(),
            help: self.help,
            mark: self.mark,
            hidden_kinds: self.hidden_kinds.clone(),
            log_text: self.log_text.clone(),
            panels: self.panels,
            preset: self.preset.clone(),
            mode: self.mode,
            predict: self.predict,
            question: self.question.clone(),
            blank: self.blank,
            open_text: self.open_text,
            probe: self.probe.clone(),
            shared: self.shared.clone(),
            generation: self.generation + 1,
        }
    }

    /// Moves both runs to `step`, at an access boundary.
    fn at(mut self, step: u64) -> Self {
        let step = step.min(self.len());
        self.run.seek(step);
        for c in &self.compare {
            c.run.seek(step);
        }
        self.step = step;
        self.cursor = None;
        self
    }

    /// Inside access `step + 1`, after `applied` of its events.
    fn inside(self, step: u64, events: Rc<Vec<Event>>, applied: usize) -> Self {
        let mut s = self.at(step);
        if applied == 0 {
            return s;
        }
        if applied >= events.len() {
            return s.at(step + 1);
        }
        s.cursor = Some(EventCursor { events, applied });
        s
    }

    fn with_run(mut self, scenario: Scenario, run: Rc<Run>, compare: Vec<Kernel>) -> Self {
        let pages = scenario.file_size.div_ceil(scenario.page_size);
        let step = self.step.min(run.timeline.len());
        if self.pages() != pages {
            self.zoom = (0, pages);
        }
        self.compare = compare
            .into_iter()
            .take(MAX_KERNELS - 1)
            .filter_map(|k| {
                let mut other = scenario.clone();
                other.kernel = k;
                let crun = Run::new(&other).ok()?;
                let first_diff = run.timeline.first_difference(&crun.timeline);
                Some(Compare {
                    run: crun,
                    first_diff,
                })
            })
            .collect();
        self.scenario = scenario;
        self.run = run;
        self.banner = None;
        self.at(step)
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let next = match action {
            Action::Apply(scenario) => match Run::new(&scenario) {
                Ok(run) => {
                    let compare = self.compare_kernels();
                    let mut s = self.next().with_run(scenario, run, compare);
                    s.preset = None;
                    s
                }
                Err((field, message)) => {
                    let mut s = self.next();
                    s.banner = Some(BannerMsg::rejected(field, message));
                    s
                }
            },
            Action::Preset(view) => match Run::new(&view.scenario) {
                Ok(run) => {
                    let View {
                        scenario,
                        compare,
                        preset,
                        ..
                    } = *view;
                    let mut s = self.next().with_run(scenario, run, compare);
                    s.preset = preset;
                    let end = s.len();
                    s.at(end)
                }
                Err((field, message)) => {
                    let mut s = self.next();
                    s.banner = Some(BannerMsg::rejected(field, message));
                    s
                }
            },
            Action::CompareWith(place, kernel) => {
                let mut kernels = self.compare_kernels();
                match kernel {
                    Some(k) if place < kernels.len() => kernels[place] = k,
                    Some(k) => kernels.push(k),
                    None if place < kernels.len() => {
                        kernels.remove(place);
                    }
                    None => {}
                }
                let scenario = self.scenario.clone();
                let run = self.run.clone();
                self.next().with_run(scenario, run, kernels)
            }
            Action::Seek(step) => self.next().at(step),
            Action::StepBy(d) => {
                let step = self.step.saturating_add_signed(d);
                let mut s = self.next();
                s.playing = false;
                s.at(step)
            }
            Action::StepEvent(forward) => {
                let mut s = self.next();
                s.playing = false;
                let step = s.step;
                match (s.cursor.clone(), forward) {
                    (Some(c), true) => s.inside(step, c.events, c.applied + 1),
                    (Some(c), false) => s.inside(step, c.events, c.applied - 1),
                    (None, true) if step < s.len() => {
                        let events = Rc::new(s.run.timeline.events_of(step + 1));
                        s.inside(step, events, 1)
                    }
                    (None, false) if step > 0 => {
                        let events = Rc::new(s.run.timeline.events_of(step));
                        let applied = events.len().saturating_sub(1);
                        s.inside(step - 1, events, applied)
                    }
                    _ => s,
                }
            }
            Action::JumpToEvent(step, index) => {
                let events = Rc::new(self.run.timeline.events_of(step + 1));
                let mut s = self.next();
                s.playing = false;
                s.inside(step, events, index + 1)
            }
            Action::Tick(n) => {
                let step = self.step + n;
                let mut s = self.next().at(step);
                if s.step >= s.len() {
                    s.playing = false;
                }
                s
            }
            Action::TogglePlay => {
                let mut s = self.next();
                s.playing = !s.playing;
                if s.playing && s.step >= s.len() {
                    s = s.at(0);
                }
                s
            }
            Action::SetSpeed(v) => {
                let mut s = self.next();
                s.speed_log2 = v.min(22);
                s
            }
            Action::SetMark(m) => {
                let mut s = self.next();
                s.mark = m;
                s
            }
            Action::JumpMark(forward) => {
                let t = &self.run.timeline;
                let target = if forward {
                    t.next_mark(self.mark, self.step)
                } else {
                    t.prev_mark(self.mark, self.step)
                };
                match target {
                    Some(step) => {
                        let mut s = self.next();
                        s.playing = false;
                        s.at(step)
                    }
                    None => return self,
                }
            }
            Action::Zoom(first, end) => {
                let pages = self.pages();
                let end = end.min(pages);
                let first = first.min(end.saturating_sub(1));
                let mut s = self.next();
                s.zoom = (first, end.max(first + 1));
                s
            }
            Action::ZoomReset => {
                let pages = self.pages();
                let mut s = self.next();
                s.zoom = (0, pages);
                s
            }
            Action::ToggleKind(k) => {
                let mut s = self.next();
                if !s.hidden_kinds.remove(&k) {
                    s.hidden_kinds.insert(k);
                }
                s
            }
            Action::LogText(t) => {
                let mut s = self.next();
                s.log_text = t;
                s
            }
            Action::TogglePanel(p) => {
                let mut s = self.next();
                match p {
                    Panel::Xarray => s.panels.xarray = !s.panels.xarray,
                    Panel::Log => s.panels.log = !s.panels.log,
                    Panel::Plots => s.panels.plots = !s.panels.plots,
                }
                s
            }
            Action::Reject(field, message) => {
                let mut s = self.next();
                s.banner = Some(BannerMsg::rejected(field, message));
                s
            }
            Action::DismissBanner => {
                let mut s = self.next();
                s.banner = None;
                s
            }
            Action::ToggleHelp => {
                let mut s = self.next();
                s.help = !s.help;
                s
            }
            Action::OpenView(view, ignored) => {
                let mut fallback = self.next();
                fallback.banner = BannerMsg::ignored(&ignored);
                let mut s = AppState::from_view(&view, &ignored, fallback);
                s.probe = None;
                s.open_text = false;
                s
            }
            Action::SetMode(m) => {
                let mut s = self.next();
                s.mode = m;
                s.blank = false;
                s
            }
            Action::ToggleBlank => {
                let mut s = self.next();
                s.blank = !s.blank;
                s
            }
            Action::SetPredict(m) => {
                let mut s = self.next();
                s.predict = m;
                s.question = None;
                s
            }
            Action::Ask => {
                let Some(mark) = self.predict else {
                    return self;
                };
                match crate::predict::question(&self.run.timeline, mark, self.step) {
                    Some(q) => {
                        let ask_at = q.ask_at;
                        let mut s = self.next();
                        s.playing = false;
                        s.question = Some(q);
                        s.at(ask_at)
                    }
                    None => {
                        let mut s = self.next();
                        s.banner = Some(BannerMsg {
                            field: "predict".into(),
                            message: format!(
                                "no {} after step {}",
                                describe::mark(mark),
                                self.step
                            ),
                            note: "the run ends first",
                        });
                        s
                    }
                }
            }
            Action::Answer(given) => {
                let Some(mut q) = self.question.clone() else {
                    return self;
                };
                q.given = Some(given);
                let reveal_at = q.reveal_at;
                let mut s = self.next();
                s.question = Some(q);
                s.at(reveal_at)
            }
            Action::CloseQuestion => {
                let mut s = self.next();
                s.question = None;
                s
            }
            Action::ShowOpenText(open) => {
                let mut s = self.next();
                s.open_text = open;
                s
            }
            Action::Shared(text) => {
                let mut s = self.next();
                s.shared = text;
                s
            }
            Action::Probe(overlay, scenario, step) => match Run::new(&scenario) {
                Ok(run) => {
                    let mut s = self.next().with_run(scenario, run, Vec::new());
                    s.preset = None;
                    s.probe = Some(overlay);
                    s.at(step)
                }
                Err((field, message)) => {
                    let mut s = self.next();
                    s.banner = Some(BannerMsg {
                        field: format!("probe report {field}"),
                        message,
                        note: "the report was not loaded",
                    });
                    s
                }
            },
            Action::CloseProbe => {
                let mut s = self.next();
                s.probe = None;
                s
            }
        };
        Rc::new(next)
    }
}
