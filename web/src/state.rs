//! The app's one state and the one place it changes: [`AppState`] and its
//! [`Action`]s, reduced by `impl Reducible`. Components read the state and
//! dispatch actions; nothing else mutates the model.

use std::cell::RefCell;
use std::rc::Rc;

use folioscope_core::{Mark, Simulation, Timeline};
use folioscope_scenario::Scenario;
use yew::Reducible;

/// Checkpoint memory the app allows a timeline.
pub const CHECKPOINT_BUDGET: usize = 96 << 20;

/// A scenario, run once, with a simulation standing at the current step.
pub struct Run {
    pub timeline: Timeline,
    pub sim: RefCell<Simulation>,
}

/// The name the scenario panel shows for a model field.
pub fn field_label(field: &str) -> String {
    match field {
        "file_size" => "file size".into(),
        "page_size" => "page size".into(),
        "memory_limit" => "memory limit".into(),
        f => f.into(),
    }
}

impl Run {
    pub fn new(scenario: &Scenario) -> Result<Rc<Run>, (String, String)> {
        let cfg = scenario
            .config()
            .map_err(|e| (field_label(e.field), e.message))?;
        let timeline = Timeline::build(cfg, CHECKPOINT_BUDGET);
        let sim = RefCell::new(timeline.simulation_at(0));
        Ok(Rc::new(Run { timeline, sim }))
    }

    /// Moves the simulation to `step`.
    pub fn seek(&self, step: u64) {
        self.timeline.seek(&mut self.sim.borrow_mut(), step);
    }
}

pub struct AppState {
    pub scenario: Scenario,
    pub run: Rc<Run>,
    pub step: u64,
    pub playing: bool,
    /// Accesses per second while playing, as a power of two.
    pub speed_log2: u32,
    /// The pages in view: `[first, end)`.
    pub zoom: (u64, u64),
    /// A rejected parameter: the field and why. The last good state stays.
    pub banner: Option<(String, String)>,
    pub help: bool,
    /// Bumped on every change, so that canvases know to redraw.
    pub generation: u64,
}

/// Two states are the same view when nothing was dispatched in between:
/// every change bumps the generation.
impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation && Rc::ptr_eq(&self.run, &other.run)
    }
}

pub enum Action {
    /// A new scenario: re-run the model, or show why not.
    Apply(Scenario),
    Seek(u64),
    StepBy(i64),
    /// Advance while playing, by this many accesses.
    Tick(u64),
    TogglePlay,
    SetSpeed(u32),
    JumpMark(Mark, bool),
    Zoom(u64, u64),
    ZoomReset,
    Reject(String, String),
    DismissBanner,
    ToggleHelp,
}

impl AppState {
    pub fn new(scenario: Scenario) -> Self {
        let run = Run::new(&scenario).unwrap_or_else(|(f, m)| {
            // The default scenario is valid; anything else is a bug worth seeing.
            panic!("default scenario rejected: {f}: {m}")
        });
        let end = run.timeline.len();
        run.seek(end);
        let pages = scenario.file_size.div_ceil(scenario.page_size);
        AppState {
            scenario,
            run,
            step: end,
            playing: false,
            speed_log2: 14,
            zoom: (0, pages),
            banner: None,
            help: false,
            generation: 0,
        }
    }

    pub fn len(&self) -> u64 {
        self.run.timeline.len()
    }

    fn with(self: &Rc<Self>) -> AppState {
        AppState {
            scenario: self.scenario.clone(),
            run: self.run.clone(),
            step: self.step,
            playing: self.playing,
            speed_log2: self.speed_log2,
            zoom: self.zoom,
            banner: self.banner.clone(),
            help: self.help,
            generation: self.generation + 1,
        }
    }

    fn at(mut self, step: u64) -> Self {
        let step = step.min(self.len());
        self.run.seek(step);
        self.step = step;
        self
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let next = match action {
            Action::Apply(scenario) => match Run::new(&scenario) {
                Ok(run) => {
                    let mut s = self.with();
                    let pages = scenario.file_size.div_ceil(scenario.page_size);
                    let step = self.step.min(run.timeline.len());
                    s.scenario = scenario;
                    s.run = run;
                    s.zoom = (0, pages);
                    s.banner = None;
                    s.at(step)
                }
                Err((field, message)) => {
                    let mut s = self.with();
                    s.banner = Some((field, message));
                    s
                }
            },
            Action::Seek(step) => self.with().at(step),
            Action::StepBy(d) => {
                let step = self.step.saturating_add_signed(d);
                let mut s = self.with();
                s.playing = false;
                s.at(step)
            }
            Action::Tick(n) => {
                let step = self.step + n;
                let mut s = self.with().at(step);
                if s.step >= s.len() {
                    s.playing = false;
                }
                s
            }
            Action::TogglePlay => {
                let mut s = self.with();
                s.playing = !s.playing;
                if s.playing && s.step >= s.len() {
                    s = s.at(0);
                }
                s
            }
            Action::SetSpeed(v) => {
                let mut s = self.with();
                s.speed_log2 = v.min(22);
                s
            }
            Action::JumpMark(mark, forward) => {
                let t = &self.run.timeline;
                let target = if forward {
                    t.next_mark(mark, self.step)
                } else {
                    t.prev_mark(mark, self.step)
                };
                match target {
                    Some(step) => {
                        let mut s = self.with();
                        s.playing = false;
                        s.at(step)
                    }
                    None => return self,
                }
            }
            Action::Zoom(first, end) => {
                let pages = self.scenario.file_size.div_ceil(self.scenario.page_size);
                let end = end.min(pages);
                let first = first.min(end.saturating_sub(1));
                let mut s = self.with();
                s.zoom = (first, end.max(first + 1));
                s
            }
            Action::ZoomReset => {
                let pages = self.scenario.file_size.div_ceil(self.scenario.page_size);
                let mut s = self.with();
                s.zoom = (0, pages);
                s
            }
            Action::Reject(field, message) => {
                let mut s = self.with();
                s.banner = Some((field, message));
                s
            }
            Action::DismissBanner => {
                let mut s = self.with();
                s.banner = None;
                s
            }
            Action::ToggleHelp => {
                let mut s = self.with();
                s.help = !s.help;
                s
            }
        };
        Rc::new(next)
    }
}
