//! The app's state, a value, and the one place it changes: [`State`] and
//! its [`Action`]s, reduced by `impl Reducible`, as in Yew's
//! function_todomvc. `reduce` is pure and cheap: it builds no timeline and
//! runs no simulation of its own. Timelines are built outside it
//! (`hooks/use_build.rs`) and handed in, whole and never to change, by
//! [`Action::Built`]; simulations stand outside it too (`seekers.rs`),
//! moved to the state's step by the components that draw them. The
//! events of an access that it needs (to step through them) it asks of
//! those simulations ([`EventsOf`]), a cache whose answers are the
//! timeline's.

use std::ops::Deref;
use std::rc::{Rc, Weak};

use folioscope_core::{Event, EventKind, Kernel, KindSet, Mark, Timeline};
use folioscope_scenario::link::{Ignored, LogFilter, Mode, Panels, View, MAX_KERNELS};
use folioscope_scenario::params::label_of;
use folioscope_scenario::story::{check_caption, seed_story_len, Stop, Story, MAX_STOPS};
use folioscope_scenario::{describe, Scenario};
use yew::Reducible;

use crate::probe::ProbeOverlay;
use crate::recording::{RealCheck, Recorded};
use crate::seekers::SeekersHandle;

pub use folioscope_core::CHECKPOINT_BUDGET;

/// A value kept as it was made, compared by address: for values that never change
/// once made (built timelines, a probe report, an access's events), so
/// that comparing two states costs a pointer comparison.
#[derive(Debug)]
pub struct Kept<T>(pub Rc<T>);

impl<T> Kept<T> {
    pub fn new(v: T) -> Self {
        Kept(Rc::new(v))
    }

    /// Which value this is, without keeping it.
    pub fn id(&self) -> KeptId<T> {
        KeptId(Rc::downgrade(&self.0))
    }
}

impl<T> Clone for Kept<T> {
    fn clone(&self) -> Self {
        Kept(self.0.clone())
    }
}

impl<T> PartialEq for Kept<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// A [`Kept`] value's identity, held without keeping the value (a view's
/// timelines): equal for the same value, and never for another one made
/// after it went, even at its address.
#[derive(Debug)]
pub struct KeptId<T>(Weak<T>);

impl<T> Clone for KeptId<T> {
    fn clone(&self) -> Self {
        KeptId(self.0.clone())
    }
}

impl<T> PartialEq for KeptId<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.ptr_eq(&other.0)
    }
}

impl<T> Deref for Kept<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Where the reducer finds the events of an access: the app's seekers
/// (`Seekers::events_of`), which keep the last accesses' events and move
/// a position of theirs for any other, in memory they hold already; with
/// none (the reducer's tests), the timeline, which runs the access again
/// on a machine of its own. Not part of the state's value: any two are
/// equal.
#[derive(Clone, Default)]
pub struct EventsOf(pub Option<SeekersHandle>);

impl PartialEq for EventsOf {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for EventsOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventsOf")
    }
}

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
    /// The audience's answer, if one was typed.
    pub given: Option<u64>,
    /// Whether the answer is shown (and the view at the event).
    pub revealed: bool,
}

/// One kernel of the view, built: its timeline, and for a kernel compared
/// with the first, the first step after which their states part.
#[derive(Debug)]
pub struct BuiltSide {
    pub kernel: Kernel,
    pub timeline: Rc<Timeline>,
    pub first_diff: Option<u64>,
}

/// The timelines of a view: one scenario under each of its kernels (side
/// A's first), built once and never changed.
#[derive(Debug)]
pub struct Built {
    /// The scenario, with side A's kernel.
    pub scenario: Scenario,
    pub sides: Vec<BuiltSide>,
}

impl Built {
    /// Whether these are the timelines of `scenario` with `compare`.
    pub fn is_of(&self, scenario: &Scenario, compare: &[Kernel]) -> bool {
        self.scenario == *scenario
            && self.sides.len() == compare.len() + 1
            && self.sides[1..]
                .iter()
                .zip(compare)
                .all(|(s, k)| s.kernel == *k)
    }

    /// Side A's timeline.
    pub fn first(&self) -> &Timeline {
        &self.sides[0].timeline
    }
}

/// A position inside an access: the events of access `step + 1`, of which
/// the first `applied` have happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Cursor {
    pub events: Kept<Vec<Event>>,
    pub applied: usize,
}

impl Cursor {
    /// The events applied so far.
    pub fn applied_events(&self) -> &[Event] {
        &self.events[..self.applied]
    }
}

/// How far the build of the view's timelines has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub of: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    Xarray,
    Log,
    Plots,
}

/// Everything on screen, as a value.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The scenario, with side A's kernel.
    pub scenario: Scenario,
    /// The kernels compared with side A's (sides B, C).
    pub compare: Vec<Kernel>,
    /// The preset on screen, if the scenario still is one.
    pub preset: Option<String>,
    /// Accesses in the scenario.
    pub len: u64,
    /// The view's timelines, once built; until then the view waits.
    pub built: Option<Kept<Built>>,
    /// How far their build has come, while it runs.
    pub progress: Option<Progress>,
    /// Accesses done.
    pub step: u64,
    /// Inside access `step + 1`, after some of its events.
    pub cursor: Option<Cursor>,
    /// A link's position inside access `step + 1`, taken up once built.
    pub pending_event: Option<u32>,
    /// The parameters of the last link opened that the view ignores.
    pub ignored: Vec<Ignored>,
    pub playing: bool,
    /// Accesses per second while playing, as a power of two.
    pub speed_log2: u32,
    /// The accesses a second play reached over its last second, when short
    /// of the speed (`play_clock`).
    pub reached: Option<u64>,
    /// The pages in view: `[first, end)`.
    pub zoom: (u64, u64),
    /// A rejected parameter: the field and why. The last good state stays.
    pub banner: Option<BannerMsg>,
    pub help: bool,
    /// What "next" jumps to.
    pub mark: Mark,
    /// Event kinds the log hides, and the text it must contain.
    pub hidden_kinds: KindSet,
    pub log_text: String,
    pub panels: Panels,
    /// Full, embedded or presenter framing.
    pub mode: Mode,
    /// The event kind predict mode asks about, and the open question.
    pub predict: Option<Mark>,
    pub question: Option<Question>,
    /// The talk's story as the link carries it, and the stop on screen
    /// (from 0).
    pub story: Story,
    pub stop: Option<usize>,
    /// A seed story's stops, placed by the model on these timelines.
    pub placed: Option<(Kept<Built>, Vec<Stop>)>,
    /// The link's stop of a seed story, gone to once the story is placed.
    pub stop_pending: bool,
    /// The presenter's blank screen (`b`).
    pub blank: bool,
    /// The open-from-text dialog.
    pub open_text: bool,
    /// A dropped `folioscope probe` report, shown under the model.
    pub probe: Option<Kept<ProbeOverlay>>,
    /// The recording whose accesses are the scenario, while they are.
    pub recording: Option<Kept<Recorded>>,
    /// Side A's model held to the recording's events, once made.
    pub real_check: Option<Kept<RealCheck>>,
    /// A recording the page's link carries is being opened: the address
    /// is left as it is until it is.
    pub opening: bool,
    /// The last link or text copied, shown for copying by hand.
    pub shared: Option<String>,
    /// Where `reduce` finds an access's events.
    pub events: EventsOf,
}

pub enum Action {
    /// A new scenario: the view waits for its timelines, or a banner says
    /// why the model refuses it.
    Apply(Scenario),
    /// A preset's view (see `folioscope_scenario::link::preset`): its
    /// scenario and every kernel of its row, at the end of the run.
    Preset(Box<View>),
    /// Compare with this kernel in this place among the compared ones (at
    /// the end: one more), or stop comparing with the one there.
    CompareWith(usize, Option<Kernel>),
    /// The build of the view's timelines has come this far.
    Progress(Progress),
    /// The view's timelines, built. Ignored if the view changed meanwhile.
    Built(Kept<Built>),
    Seek(u64),
    /// To the step where two kernels first part, zoomed to the pages
    /// `[first, end)` they hold differently there.
    Diverge(u64, u64, u64),
    StepBy(i64),
    /// One event forward or back.
    StepEvent(bool),
    /// To just after event `index` of access `step + 1`.
    JumpToEvent(u64, usize),
    /// Advance while playing, by this many accesses.
    Tick(u64),
    /// The speed play reached, when short of the speed shown.
    Reached(Option<u64>),
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
    /// The audience's answer as typed, if it is a whole number.
    Guess(Option<u64>),
    /// Show the answer, at the event.
    Reveal,
    CloseQuestion,
    /// Esc: close every overlay (help, the question, open-from-text, the
    /// copied text, the banner, the blank screen).
    Escape,
    /// To the story's next stop (`true`) or back.
    NextStop(bool),
    /// The seed preset's own story, from its first stop once placed.
    PlaySeedStory,
    /// A seed story's stops, placed by the model on these timelines.
    /// Ignored if the view changed meanwhile.
    StoryPlaced(Kept<Built>, Vec<Stop>),
    /// A stop here (step, pages in view, panels) with this caption, after
    /// the stop on screen.
    AddStop(String),
    /// Drop the stop on screen from the story.
    DropStop,
    LeaveStory,
    ShowOpenText(bool),
    Shared(Option<String>),
    /// A probe report was dropped on the app.
    Probe(Kept<ProbeOverlay>, Scenario, u64),
    CloseProbe,
    /// A recording was dropped or chosen (with its own view), or came in
    /// a link (with the link's view over it and what the link ignored).
    OpenRecording(Kept<Recorded>, Box<View>, Vec<Ignored>),
    /// A file or a link's recording could not be opened: the field and
    /// why. The view stays as it was.
    RecordingFailed(String, String),
    /// Side A's model held to the open recording's events.
    RealChecked(Kept<RealCheck>),
}

/// Accesses in `scenario`, or why the model refuses it.
fn len_of(scenario: &Scenario) -> Result<u64, (String, String)> {
    let cfg = scenario
        .config()
        .map_err(|e| (label_of(e.field).to_string(), e.message))?;
    Ok(cfg.pattern.len(cfg.file_size, cfg.page_size.bytes()))
}

impl State {
    /// The app as a link's view describes it, before any timeline is
    /// built; a scenario the model rejects (which a parsed link never
    /// holds) falls back to `fallback`.
    pub fn from_view(view: &View, ignored: &[Ignored], fallback: State) -> State {
        let Ok(len) = len_of(&view.scenario) else {
            return fallback;
        };
        let mut s = fallback.with_scenario(view.scenario.clone(), view.compare.clone(), len);
        s.preset = view.preset.clone();
        s.zoom = view.zoom.unwrap_or((0, s.pages()));
        s.panels = view.panels;
        s.hidden_kinds = view.log.hidden;
        s.log_text = view.log.text.clone();
        s.mark = view.mark;
        s.mode = view.mode;
        s.predict = view.predict;
        s.story = view.story.clone();
        s.stop = view.stop;
        s.stop_pending = view.story == Story::Seed && view.stop.is_some();
        s.question = None;
        s.playing = false;
        s.step = view.step.unwrap_or(len).min(len);
        s.pending_event = view.event;
        s.ignored = ignored.to_vec();
        s.banner = BannerMsg::ignored(ignored);
        // A seed story placed already on these timelines (going back
        // through the history) goes to the link's stop at once.
        match (s.stop_pending, s.stop) {
            (true, Some(i)) if s.stops().is_some() => s.go_to_stop(i),
            _ => s,
        }
    }

    /// The state of a view with nothing before it.
    pub fn of_view(view: &View, ignored: &[Ignored]) -> State {
        let blank = State {
            scenario: view.scenario.clone(),
            compare: Vec::new(),
            preset: None,
            len: 0,
            built: None,
            progress: None,
            step: 0,
            cursor: None,
            pending_event: None,
            ignored: Vec::new(),
            playing: false,
            speed_log2: 14,
            reached: None,
            zoom: (0, 0),
            banner: None,
            help: false,
            mark: Mark::MajorFault,
            hidden_kinds: KindSet::new(),
            log_text: String::new(),
            panels: Panels::default(),
            mode: Mode::Full,
            predict: None,
            question: None,
            story: Story::None,
            stop: None,
            placed: None,
            stop_pending: false,
            blank: false,
            open_text: false,
            probe: None,
            recording: None,
            real_check: None,
            opening: false,
            shared: None,
            events: EventsOf::default(),
        };
        State::from_view(view, ignored, blank)
    }

    /// The view a link of this state restores.
    pub fn view(&self) -> View {
        View {
            preset: self.preset.clone(),
            scenario: self.scenario.clone(),
            compare: self.compare.clone(),
            step: (self.step < self.len).then_some(self.step),
            event: match (&self.cursor, self.pending_event) {
                (Some(c), _) => Some(c.applied as u32),
                (None, pending) => pending,
            },
            zoom: (self.zoom != (0, self.pages())).then_some(self.zoom),
            panels: self.panels,
            log: LogFilter {
                hidden: self.hidden_kinds,
                text: self.log_text.clone(),
            },
            mark: self.mark,
            mode: self.mode,
            predict: self.predict,
            story: self.story.clone(),
            stop: self.stop,
        }
    }

    pub fn pages(&self) -> u64 {
        self.scenario.file_size.div_ceil(self.scenario.page_size)
    }

    /// The view's timelines, if built.
    pub fn built(&self) -> Option<&Built> {
        self.built.as_deref()
    }

    /// Side A's timeline, if built.
    fn timeline(&self) -> Option<&Timeline> {
        self.built().map(Built::first)
    }

    /// The events of access `access` (1-based) of the first kernel.
    fn events_of(&self, access: u64) -> Vec<Event> {
        match (&self.events.0, &self.built) {
            (Some(seekers), Some(built)) => seekers.0.events_of(built, 0, access),
            _ => self
                .timeline()
                .map_or_else(Vec::new, |t| t.events_of(access)),
        }
    }

    /// A new scenario and kernels: the timelines built for other ones go.
    fn with_scenario(mut self, scenario: Scenario, compare: Vec<Kernel>, len: u64) -> Self {
        let pages = scenario.file_size.div_ceil(scenario.page_size);
        if self.pages() != pages {
            self.zoom = (0, pages);
        }
        // A compared kernel the model refuses on this scenario is left out
        // (a parsed link names it in its banner).
        self.compare = compare
            .into_iter()
            .filter(|k| {
                let mut other = scenario.clone();
                other.kernel = k.clone();
                other.config().is_ok()
            })
            .take(MAX_KERNELS - 1)
            .collect();
        // A recording stays while its accesses are the scenario's, and
        // its check while it is of the scenario on screen.
        if self
            .recording
            .as_ref()
            .is_some_and(|r| r.scenario.pattern != scenario.pattern)
        {
            self.recording = None;
        }
        if self
            .real_check
            .as_ref()
            .is_some_and(|c| c.scenario != scenario)
        {
            self.real_check = None;
        }
        self.scenario = scenario;
        self.len = len;
        if !self
            .built()
            .is_some_and(|b| b.is_of(&self.scenario, &self.compare))
        {
            // A seed story placed on those timelines goes with them,
            // rather than keep them in memory.
            self.built = None;
            self.placed = None;
            self.progress = None;
        }
        self.banner = None;
        self.pending_event = None;
        self.ignored.clear();
        let step = self.step;
        self.at(step)
    }

    /// At an access boundary.
    fn at(mut self, step: u64) -> Self {
        self.step = step.min(self.len);
        self.cursor = None;
        self
    }

    /// Inside access `step + 1`, after `applied` of its `events`.
    fn inside(self, step: u64, events: Vec<Event>, applied: usize) -> Self {
        let mut s = self.at(step);
        if applied == 0 {
            return s;
        }
        if applied >= events.len() {
            return s.at(step + 1);
        }
        s.cursor = Some(Cursor {
            events: Kept::new(events),
            applied,
        });
        s
    }

    /// Takes up a link's position inside an access, now that the events
    /// are known.
    fn take_pending_event(mut self) -> Self {
        let Some(e) = self.pending_event.take().filter(|_| self.built.is_some()) else {
            return self;
        };
        let step = self.step;
        if step >= self.len {
            return self;
        }
        let events = self.events_of(step + 1);
        if (e as usize) < events.len() {
            self.inside(step, events, e as usize)
        } else {
            self.ignored.push(Ignored {
                param: "ev".into(),
                reason: format!("access {} has {} events", step + 1, events.len()),
            });
            self.banner = BannerMsg::ignored(&self.ignored);
            self
        }
    }

    /// The story's stops: a speaker's own, or a seed story once placed on
    /// the view's timelines; none without a story or while placing.
    pub fn stops(&self) -> Option<&[Stop]> {
        match &self.story {
            Story::None => None,
            Story::Own(stops) => Some(stops),
            Story::Seed => self
                .placed
                .as_ref()
                .filter(|(b, _)| Some(b) == self.built.as_ref())
                .map(|(_, stops)| stops.as_slice()),
        }
    }

    /// The seed preset and timelines whose story is to be placed: a seed
    /// story on built timelines that it is not placed on yet.
    pub fn story_to_place(&self) -> Option<(String, Kept<Built>)> {
        if self.story != Story::Seed || self.stops().is_some() {
            return None;
        }
        Some((self.preset.clone()?, self.built.clone()?))
    }

    /// Whether the view stands where stop `i` puts it.
    pub fn at_stop(&self, i: usize) -> bool {
        self.stops().and_then(|s| s.get(i)).is_some_and(|stop| {
            stop.step.unwrap_or(self.len) == self.step
                && self.cursor.is_none()
                && stop.zoom.unwrap_or((0, self.pages())) == self.zoom
        })
    }

    /// At stop `i` of the story: its step, pages in view and panels.
    fn go_to_stop(mut self, i: usize) -> Self {
        let Some(stop) = self.stops().and_then(|s| s.get(i)).cloned() else {
            return self;
        };
        self.zoom = stop.zoom.unwrap_or((0, self.pages()));
        self.panels = stop.panels;
        self.stop = Some(i);
        self.stop_pending = false;
        self.playing = false;
        self.question = None;
        self.pending_event = None;
        let len = self.len;
        self.at(stop.step.unwrap_or(len))
    }

    /// The story's stops as a speaker may change them: a seed story's
    /// placed stops become the speaker's own.
    fn editable_stops(&self) -> Result<Vec<Stop>, String> {
        match (&self.story, self.stops()) {
            (Story::None, _) => Ok(Vec::new()),
            (_, Some(stops)) => Ok(stops.to_vec()),
            (_, None) => Err("the seed's story is still being placed".into()),
        }
    }

    /// Without a story that no longer fits the view: a seed story needs
    /// its seed preset, a speaker's stops the run's steps and pages.
    fn story_fits(mut self) -> Self {
        let (len, pages) = (self.len, self.pages());
        let fits = match &self.story {
            Story::None => true,
            Story::Seed => self.preset.as_deref().and_then(seed_story_len).is_some(),
            Story::Own(stops) => stops.iter().all(|s| {
                s.step.is_none_or(|n| n < len) && s.zoom.is_none_or(|(_, end)| end <= pages)
            }),
        };
        if !fits {
            self = self.without_story();
        }
        self
    }

    fn without_story(mut self) -> Self {
        self.story = Story::None;
        self.stop = None;
        self.placed = None;
        self.stop_pending = false;
        self
    }

    fn rejected(mut self, field: String, message: String) -> Self {
        self.banner = Some(BannerMsg::rejected(field, message));
        self
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let s = (*self).clone();
        let next = match action {
            Action::Apply(scenario) => match len_of(&scenario) {
                Ok(len) => {
                    let compare = s.compare.clone();
                    let mut s = s.with_scenario(scenario, compare, len);
                    s.preset = None;
                    s.story_fits()
                }
                Err((field, message)) => s.rejected(field, message),
            },
            Action::Preset(view) => match len_of(&view.scenario) {
                Ok(len) => {
                    let View {
                        scenario,
                        compare,
                        preset,
                        ..
                    } = *view;
                    let mut s = s.with_scenario(scenario, compare, len).without_story();
                    s.preset = preset;
                    s.at(len)
                }
                Err((field, message)) => s.rejected(field, message),
            },
            Action::CompareWith(place, kernel) => {
                let mut kernels = s.compare.clone();
                match kernel {
                    Some(k) if place < kernels.len() => kernels[place] = k,
                    Some(k) => kernels.push(k),
                    None if place < kernels.len() => {
                        kernels.remove(place);
                    }
                    None => return self,
                }
                let (scenario, len) = (s.scenario.clone(), s.len);
                s.with_scenario(scenario, kernels, len)
            }
            Action::Progress(p) => {
                if s.built.is_some() {
                    return self;
                }
                let mut s = s;
                s.progress = Some(p);
                s
            }
            Action::Built(built) => {
                if !built.is_of(&s.scenario, &s.compare) {
                    return self;
                }
                let mut s = s;
                s.built = Some(built);
                s.progress = None;
                s.take_pending_event()
            }
            Action::Seek(step) => s.at(step),
            Action::Diverge(step, first, end) => {
                let pages = s.pages();
                let end = end.min(pages);
                let first = first.min(end.saturating_sub(1));
                let mut s = s.at(step);
                s.playing = false;
                s.zoom = (first, end.max(first + 1));
                s
            }
            Action::StepBy(d) => {
                let step = s.step.saturating_add_signed(d);
                let mut s = s;
                s.playing = false;
                s.at(step)
            }
            Action::StepEvent(forward) => {
                if self.built.is_none() {
                    return self;
                }
                let mut s = s;
                s.playing = false;
                let step = s.step;
                match (s.cursor.clone(), forward) {
                    (Some(c), true) => s.inside(step, c.events.to_vec(), c.applied + 1),
                    (Some(c), false) => s.inside(step, c.events.to_vec(), c.applied - 1),
                    (None, true) if step < s.len => {
                        let events = self.events_of(step + 1);
                        s.inside(step, events, 1)
                    }
                    (None, false) if step > 0 => {
                        let events = self.events_of(step);
                        let applied = events.len().saturating_sub(1);
                        s.inside(step - 1, events, applied)
                    }
                    _ => s,
                }
            }
            Action::JumpToEvent(step, index) => {
                if self.built.is_none() {
                    return self;
                }
                let events = self.events_of(step + 1);
                let mut s = s;
                s.playing = false;
                s.inside(step, events, index + 1)
            }
            Action::Tick(n) => {
                let step = s.step + n;
                let mut s = s.at(step);
                if s.step >= s.len {
                    s.playing = false;
                }
                s
            }
            Action::Reached(reached) => State { reached, ..s },
            Action::TogglePlay => {
                let mut s = s;
                s.playing = !s.playing;
                s.reached = None;
                if s.playing && s.step >= s.len {
                    s = s.at(0);
                }
                s
            }
            Action::SetSpeed(v) => State {
                speed_log2: v.min(22),
                reached: None,
                ..s
            },
            Action::SetMark(mark) => State { mark, ..s },
            Action::JumpMark(forward) => {
                let Some(t) = self.timeline() else {
                    return self;
                };
                let target = if forward {
                    t.next_mark(s.mark, s.step)
                } else {
                    t.prev_mark(s.mark, s.step)
                };
                match target {
                    Some(step) => {
                        let mut s = s;
                        s.playing = false;
                        s.at(step)
                    }
                    None => return self,
                }
            }
            Action::Zoom(first, end) => {
                let pages = s.pages();
                let end = end.min(pages);
                let first = first.min(end.saturating_sub(1));
                State {
                    zoom: (first, end.max(first + 1)),
                    ..s
                }
            }
            Action::ZoomReset => {
                let pages = s.pages();
                State {
                    zoom: (0, pages),
                    ..s
                }
            }
            Action::ToggleKind(k) => {
                let mut s = s;
                if !s.hidden_kinds.remove(k) {
                    s.hidden_kinds.insert(k);
                }
                s
            }
            Action::LogText(log_text) => State { log_text, ..s },
            Action::TogglePanel(p) => {
                let mut s = s;
                match p {
                    Panel::Xarray => s.panels.xarray = !s.panels.xarray,
                    Panel::Log => s.panels.log = !s.panels.log,
                    Panel::Plots => s.panels.plots = !s.panels.plots,
                }
                s
            }
            Action::Reject(field, message) => s.rejected(field, message),
            Action::DismissBanner => State { banner: None, ..s },
            Action::ToggleHelp => State { help: !s.help, ..s },
            Action::OpenView(view, ignored) => {
                let mut fallback = s;
                fallback.banner = BannerMsg::ignored(&ignored);
                let mut s = State::from_view(&view, &ignored, fallback);
                s.probe = None;
                s.open_text = false;
                s
            }
            Action::SetMode(mode) => State {
                mode,
                blank: false,
                ..s
            },
            Action::ToggleBlank => State {
                blank: !s.blank,
                ..s
            },
            Action::SetPredict(predict) => State {
                predict,
                question: None,
                ..s
            },
            Action::Ask => {
                let (Some(mark), Some(t)) = (self.predict, self.timeline()) else {
                    return self;
                };
                match crate::predict::question(t, mark, self.step, |a| self.events_of(a)) {
                    Some(q) => {
                        let ask_at = q.ask_at;
                        let mut s = s;
                        s.playing = false;
                        s.question = Some(q);
                        s.at(ask_at)
                    }
                    None => State {
                        banner: Some(BannerMsg {
                            field: "predict".into(),
                            message: format!(
                                "no {} after step {}",
                                describe::mark(mark),
                                self.step
                            ),
                            note: "the run ends first",
                        }),
                        ..s
                    },
                }
            }
            Action::Guess(given) => {
                let Some(mut q) = s.question.clone() else {
                    return self;
                };
                q.given = given;
                State {
                    question: Some(q),
                    ..s
                }
            }
            Action::Reveal => {
                let Some(mut q) = s.question.clone() else {
                    return self;
                };
                q.revealed = true;
                let reveal_at = q.reveal_at;
                let mut s = s;
                s.question = Some(q);
                s.at(reveal_at)
            }
            Action::CloseQuestion => State {
                question: None,
                ..s
            },
            Action::Escape => State {
                help: false,
                question: None,
                open_text: false,
                shared: None,
                banner: None,
                blank: false,
                ..s
            },
            Action::NextStop(forward) => {
                let Some(n) = s.stops().map(<[Stop]>::len) else {
                    return self;
                };
                // Back from a stop the view has moved away from goes to
                // that stop again.
                let target = match (s.stop, forward) {
                    (None, true) => Some(0),
                    (Some(i), true) => Some(i + 1),
                    (Some(i), false) if !s.at_stop(i) => Some(i),
                    (Some(i), false) => i.checked_sub(1),
                    (None, false) => None,
                };
                match target.filter(|&i| i < n) {
                    Some(i) => s.go_to_stop(i),
                    None => return self,
                }
            }
            Action::PlaySeedStory => {
                if s.preset.as_deref().and_then(seed_story_len).is_none() {
                    return self;
                }
                let mut s = s;
                if s.story != Story::Seed {
                    s.placed = None;
                }
                s.story = Story::Seed;
                s.stop = Some(0);
                s.stop_pending = true;
                if s.stops().is_some() {
                    s.go_to_stop(0)
                } else {
                    s
                }
            }
            Action::StoryPlaced(built, stops) => {
                if s.story != Story::Seed || s.built.as_ref() != Some(&built) {
                    return self;
                }
                if stops.is_empty() {
                    return Rc::new(s.without_story());
                }
                let last = stops.len() - 1;
                let mut s = s;
                s.placed = Some((built, stops));
                s.stop = s.stop.map(|i| i.min(last));
                match (s.stop_pending, s.stop) {
                    (true, Some(i)) => s.go_to_stop(i),
                    _ => s,
                }
            }
            Action::AddStop(caption) => {
                let caption = caption.trim().to_string();
                if let Err(e) = check_caption(&caption) {
                    return Rc::new(s.rejected("caption".into(), e));
                }
                let mut stops = match s.editable_stops() {
                    Ok(stops) => stops,
                    Err(e) => return Rc::new(s.rejected("story".into(), e)),
                };
                if stops.len() >= MAX_STOPS {
                    return Rc::new(s.rejected(
                        "story".into(),
                        format!("a story has at most {MAX_STOPS} stops"),
                    ));
                }
                let at = s.stop.map_or(stops.len(), |i| (i + 1).min(stops.len()));
                stops.insert(
                    at,
                    Stop {
                        step: (s.step < s.len).then_some(s.step),
                        zoom: (s.zoom != (0, s.pages())).then_some(s.zoom),
                        panels: s.panels,
                        caption,
                    },
                );
                let mut s = s.without_story();
                s.story = Story::Own(stops);
                s.stop = Some(at);
                s.banner = None;
                s
            }
            Action::DropStop => {
                let (Some(i), Ok(mut stops)) = (s.stop, s.editable_stops()) else {
                    return self;
                };
                if i >= stops.len() {
                    return self;
                }
                stops.remove(i);
                let mut s = s.without_story();
                if !stops.is_empty() {
                    s.story = Story::Own(stops);
                    s.stop = i.checked_sub(1);
                }
                s
            }
            Action::LeaveStory => s.without_story(),
            Action::ShowOpenText(open_text) => State { open_text, ..s },
            Action::Shared(shared) => State { shared, ..s },
            Action::Probe(overlay, scenario, step) => match len_of(&scenario) {
                Ok(len) => {
                    let mut s = s.with_scenario(scenario, Vec::new(), len);
                    s.preset = None;
                    s.probe = Some(overlay);
                    s.story_fits().at(step)
                }
                Err((field, message)) => State {
                    banner: Some(BannerMsg {
                        field: format!("probe report {field}"),
                        message,
                        note: "the report was not loaded",
                    }),
                    ..s
                },
            },
            Action::CloseProbe => State { probe: None, ..s },
            Action::OpenRecording(rec, view, ignored) => match len_of(&view.scenario) {
                Ok(_) => {
                    let mut fallback = s;
                    fallback.recording = Some(rec.clone());
                    let mut s = State::from_view(&view, &ignored, fallback);
                    s.recording = Some(rec);
                    s.probe = None;
                    s.opening = false;
                    s.open_text = false;
                    s
                }
                Err((field, message)) => State {
                    opening: false,
                    banner: Some(BannerMsg {
                        field: format!("recording {field}"),
                        message,
                        note: "the recording was not opened",
                    }),
                    ..s
                },
            },
            Action::RecordingFailed(field, message) => State {
                opening: false,
                banner: Some(BannerMsg {
                    field,
                    message,
                    note: "the view keeps its last good state",
                }),
                ..s
            },
            Action::RealChecked(check) => {
                if s.recording.is_none() || check.scenario != s.scenario {
                    return self;
                }
                State {
                    real_check: Some(check),
                    ..s
                }
            }
        };
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folioscope_core::{Config, Indexing, Lockstep, Madvise, Pattern};

    /// A value's id is equal to its own only, and does not keep it.
    #[test]
    fn a_kept_id_names_its_value_without_keeping_it() {
        let (a, b) = (Kept::new(vec![7u8; 64]), Kept::new(vec![7u8; 64]));
        let id = a.id();
        assert!(id == a.id() && id != b.id());
        let value = Rc::downgrade(&a.0);
        drop(a);
        assert!(value.upgrade().is_none());
        assert!(id != b.id() && id == id.clone());
    }

    fn scenario() -> Scenario {
        Scenario {
            file_size: 8 << 20,
            pattern: Pattern::Rev,
            madvise: Madvise::Hugepage,
            ..Scenario::default()
        }
    }

    fn view(scenario: Scenario, compare: Vec<Kernel>) -> View {
        View {
            scenario,
            compare,
            ..View::default()
        }
    }

    /// The view's timelines, built as `use_build` builds them.
    fn built(s: &State) -> Kept<Built> {
        let scenarios: Vec<Scenario> = std::iter::once(s.scenario.clone())
            .chain(s.compare.iter().map(|k| Scenario {
                kernel: k.clone(),
                ..s.scenario.clone()
            }))
            .collect();
        let cfgs: Vec<(Config, bool)> = scenarios
            .iter()
            .map(|s| (s.config().unwrap(), true))
            .collect();
        let (timelines, diffs) = Lockstep::new(
            cfgs,
            Indexing::AsItRuns {
                budget_bytes: 16 << 20,
            },
        )
        .finish();
        Kept::new(Built {
            scenario: s.scenario.clone(),
            sides: scenarios
                .iter()
                .zip(timelines)
                .enumerate()
                .map(|(i, (sc, t))| BuiltSide {
                    kernel: sc.kernel.clone(),
                    timeline: Rc::new(t.unwrap()),
                    first_diff: if i == 0 { None } else { diffs[i - 1] },
                })
                .collect(),
        })
    }

    fn reduce(s: State, a: Action) -> State {
        (*Rc::new(s).reduce(a)).clone()
    }

    /// A state with its timelines built, at `step`.
    fn ready_at(step: u64) -> State {
        let s = State::of_view(&view(scenario(), Vec::new()), &[]);
        let b = built(&s);
        reduce(reduce(s, Action::Built(b)), Action::Seek(step))
    }

    #[test]
    fn opening_a_view_builds_nothing_and_knows_its_length() {
        let s = State::of_view(&view(scenario(), vec![Kernel::v6_18()]), &[]);
        assert!(s.built.is_none() && s.progress.is_none());
        assert_eq!(s.len, 2048, "a backward walk touches each of 2048 pages");
        assert_eq!(s.step, s.len, "a view without a step is at the end");
        let mut other = scenario();
        other.file_size = 4 << 20;
        let s = reduce(s, Action::Apply(other));
        assert!(s.built.is_none());
        assert_eq!((s.len, s.zoom), (1024, (0, 1024)));
    }

    #[test]
    fn timelines_of_another_view_are_refused() {
        let s = State::of_view(&view(scenario(), Vec::new()), &[]);
        let stale = built(&s);
        let mut other = scenario();
        other.read_ahead_kb = 128;
        let s = reduce(s, Action::Apply(other));
        let before = Rc::new(s);
        let after = before.clone().reduce(Action::Built(stale));
        assert!(Rc::ptr_eq(&before, &after), "the state did not change");
        let fresh = built(&before);
        let after = before.clone().reduce(Action::Built(fresh.clone()));
        assert_eq!(after.built, Some(fresh));
    }

    #[test]
    fn a_rejected_scenario_keeps_the_last_good_one() {
        let s = ready_at(10);
        let mut bad = scenario();
        bad.page_size = 3000;
        let r = reduce(s.clone(), Action::Apply(bad));
        assert_eq!(r.scenario, s.scenario);
        assert_eq!(r.built, s.built);
        let b = r.banner.expect("a banner");
        assert!(b.field.contains("page"), "{}", b.field);
    }

    /// A step whose next access faults, so that it makes many events.
    fn before_a_fault(s: &State) -> u64 {
        s.built().unwrap().first().marks(Mark::MajorFault)[1] - 1
    }

    #[test]
    fn stepping_through_an_access_event_by_event_ends_at_the_next_step() {
        let k = before_a_fault(&ready_at(0));
        let s = ready_at(k);
        let events = s.built().unwrap().first().events_of(k + 1);
        assert!(events.len() > 1, "access {} makes several events", k + 1);
        let mut s = reduce(s, Action::StepEvent(true));
        assert_eq!((s.step, s.cursor.as_ref().map(|c| c.applied)), (k, Some(1)));
        assert_eq!(s.cursor.as_ref().unwrap().applied_events(), &events[..1]);
        for k in 2..events.len() {
            s = reduce(s, Action::StepEvent(true));
            assert_eq!(s.cursor.as_ref().map(|c| c.applied), Some(k));
        }
        s = reduce(s, Action::StepEvent(true));
        assert_eq!((s.step, s.cursor.is_none()), (k + 1, true));
        // And back: into the access, at its last event but one.
        s = reduce(s, Action::StepEvent(false));
        assert_eq!(
            (s.step, s.cursor.as_ref().map(|c| c.applied)),
            (k, Some(events.len() - 1))
        );
    }

    #[test]
    fn seeks_clamp_and_marks_jump_where_the_timeline_has_them() {
        let s = reduce(ready_at(0), Action::Seek(u64::MAX));
        assert_eq!(s.step, s.len);
        let s = reduce(s, Action::Seek(0));
        let s = reduce(s, Action::JumpMark(true));
        let marks = s.built().unwrap().first().marks(Mark::MajorFault).to_vec();
        assert_eq!(s.step, marks[0]);
        let s = reduce(s, Action::JumpMark(true));
        assert_eq!(s.step, marks[1]);
        let s = reduce(s, Action::JumpMark(false));
        assert_eq!(s.step, marks[0]);
    }

    #[test]
    fn a_links_event_is_taken_up_once_built() {
        let mut v = view(scenario(), Vec::new());
        v.step = Some(before_a_fault(&ready_at(0)));
        v.event = Some(2);
        let s = State::of_view(&v, &[]);
        assert_eq!((s.pending_event, s.cursor.is_none()), (Some(2), true));
        assert_eq!(s.view().event, Some(2), "the link keeps it meanwhile");
        let b = built(&s);
        let s = reduce(s, Action::Built(b.clone()));
        assert_eq!(s.cursor.as_ref().map(|c| c.applied), Some(2));
        // One past the access's events: named in the banner, at the step.
        v.event = Some(10_000);
        let s = reduce(State::of_view(&v, &[]), Action::Built(b));
        assert!(s.cursor.is_none());
        assert!(s.banner.unwrap().message.contains("ev"));
    }

    #[test]
    fn comparing_changes_the_kernels_and_waits_for_their_timelines() {
        let s = ready_at(5);
        let k = folioscope_scenario::parse::parse_kernel_label("v7.4-rc2").unwrap();
        let s = reduce(s, Action::CompareWith(0, Some(k.clone())));
        assert_eq!(s.compare, vec![k.clone()]);
        assert!(s.built.is_none(), "the view waits for the compared kernel");
        assert_eq!(s.step, 5);
        let b = built(&s);
        let s = reduce(s, Action::Built(b));
        assert_eq!(s.built().unwrap().sides.len(), 2);
        let s = reduce(s, Action::CompareWith(0, None));
        assert!(s.compare.is_empty() && s.built.is_none());
    }

    /// tac's recording, opened as a dropped file opens it.
    fn tac() -> (Kept<crate::recording::Recorded>, View) {
        let gz = include_bytes!("../../cli/tests/fixtures/replay/tac-64m.rec.gz");
        let rec = folioscope_scenario::recording::Recording::parse(gz).unwrap();
        let r = crate::recording::Recorded::new(rec, gz).unwrap();
        let view = r.view();
        (Kept::new(r), view)
    }

    #[test]
    fn a_recording_is_the_scenario_while_its_accesses_are() {
        let (r, view) = tac();
        let s = reduce(
            ready_at(3),
            Action::OpenRecording(r.clone(), Box::new(view), Vec::new()),
        );
        assert_eq!(s.recording, Some(r.clone()));
        assert_eq!(s.scenario, r.scenario);
        assert_eq!((s.len, s.step), (r.accesses, r.accesses));
        assert!(s.built.is_none() && s.banner.is_none());
        // Another kernel beside the real one keeps the recording.
        let k = folioscope_scenario::parse::parse_kernel_label("v7.4-rc2").unwrap();
        let s = reduce(
            s,
            Action::Apply(Scenario {
                kernel: k.clone(),
                ..r.scenario.clone()
            }),
        );
        assert_eq!((s.recording.is_some(), &s.scenario.kernel), (true, &k));
        // Another pattern is another scenario: the recording goes.
        let s = reduce(s, Action::Apply(scenario()));
        assert!(s.recording.is_none());
    }

    #[test]
    fn a_recording_that_fails_keeps_the_last_good_state() {
        let (r, view) = tac();
        let s = reduce(
            ready_at(3),
            Action::OpenRecording(r.clone(), Box::new(view), Vec::new()),
        );
        let failed = reduce(
            s.clone(),
            Action::RecordingFailed("recording".into(), "line 7: r: delta: bad".into()),
        );
        let b = failed.banner.clone().expect("a banner");
        assert_eq!(
            (b.field.as_str(), b.message.as_str()),
            ("recording", "line 7: r: delta: bad")
        );
        assert_eq!(
            State {
                banner: None,
                ..failed
            },
            s
        );
        // A view the model refuses (a page size it has not) is not opened.
        let mut bad = r.view();
        bad.scenario.page_size = 3000;
        let refused = reduce(
            s.clone(),
            Action::OpenRecording(r, Box::new(bad), Vec::new()),
        );
        assert_eq!(refused.scenario, s.scenario);
        assert!(refused.banner.is_some());
    }

    #[test]
    fn a_check_is_taken_for_the_scenario_on_screen_only() {
        use folioscope_scenario::event_check::check_steps;
        let (r, view) = tac();
        let s = reduce(
            State::of_view(&View::default(), &[]),
            Action::OpenRecording(r.clone(), Box::new(view), Vec::new()),
        );
        let check = |scenario: Scenario| {
            Kept::new(crate::recording::RealCheck {
                scenario,
                check: check_steps(&[], &r.compared_events(), r.inode, r.page_shift),
                end_state: None,
            })
        };
        let mut other = r.scenario.clone();
        other.read_ahead_kb = 128;
        let refused = reduce(s.clone(), Action::RealChecked(check(other.clone())));
        assert!(refused.real_check.is_none());
        let taken = reduce(s, Action::RealChecked(check(r.scenario.clone())));
        // A model with no events parts from the kernel where tac's first
        // readahead came: its third access, the second read.
        assert_eq!(taken.real_check.as_ref().unwrap().check.step, Some(3));
        // A change of scenario drops it.
        let s = reduce(taken, Action::Apply(other));
        assert!(s.real_check.is_none() && s.recording.is_some());
    }

    #[test]
    fn a_small_recording_travels_in_its_link() {
        let (r, view) = tac();
        let s = reduce(
            State::of_view(&View::default(), &[]),
            Action::OpenRecording(r.clone(), Box::new(view), Vec::new()),
        );
        let s = reduce(s, Action::Seek(4000));
        let link = s.link("https://x.example/");
        assert!(
            link.starts_with("https://x.example/?v=1&step=4000&rec="),
            "{link}"
        );
        let carried = folioscope_scenario::link::recording_param(&link).unwrap();
        assert_eq!(Some(carried), r.link);
        let p = folioscope_scenario::link::parse_link_over(&link, Some(&r.view()));
        assert_eq!((p.view, p.ignored), (s.view(), vec![]));
    }

    #[test]
    fn going_where_two_kernels_part_seeks_and_zooms_at_once() {
        let s = reduce(ready_at(5), Action::Diverge(40, 100, 300));
        assert_eq!((s.step, s.zoom), (40, (100, 300)));
        let s = reduce(s, Action::Diverge(u64::MAX, 5000, 9000));
        assert_eq!(
            (s.step, s.zoom),
            (s.len, (2047, 2048)),
            "clamped to the file"
        );
    }

    #[test]
    fn a_speakers_story_is_walked_stop_by_stop_and_travels_in_the_link() {
        let s = reduce(
            ready_at(100),
            Action::AddStop("  Readahead\nat work ".into()),
        );
        assert_eq!((s.stop, s.banner.is_none()), (Some(0), true));
        let s = reduce(reduce(s, Action::Seek(900)), Action::Zoom(10, 500));
        let s = reduce(
            reduce(s, Action::TogglePanel(Panel::Log)),
            Action::AddStop("Two".into()),
        );
        let Story::Own(stops) = &s.story else {
            panic!("{:?}", s.story)
        };
        assert_eq!(stops[0].caption, "Readahead\nat work");
        assert_eq!((stops[0].step, stops[0].zoom), (Some(100), None));
        assert_eq!((stops[1].step, stops[1].zoom), (Some(900), Some((10, 500))));
        assert!(!stops[1].panels.log);
        // Back to the first stop: its step, pages and panels.
        let first = reduce(s.clone(), Action::NextStop(false));
        assert_eq!(
            (first.stop, first.step, first.zoom),
            (Some(0), 100, (0, 2048))
        );
        assert!(first.panels.log && first.at_stop(0));
        let back = Rc::new(first.clone());
        assert!(
            Rc::ptr_eq(&back, &back.clone().reduce(Action::NextStop(false))),
            "no stop before the first"
        );
        // Moved away from a stop, back goes to that stop again.
        let moved = reduce(s.clone(), Action::Seek(950));
        assert!(!moved.at_stop(1));
        assert_eq!(reduce(moved, Action::NextStop(false)).step, 900);
        // The link opens at the stop.
        let link = s.link("https://x.example/");
        assert!(
            link.contains("story2=") && link.ends_with("stop=2"),
            "{link}"
        );
        let p = folioscope_scenario::link::parse_link(&link);
        let opened = State::from_view(&p.view, &p.ignored, ready_at(0));
        assert_eq!(
            (opened.stop, opened.step, opened.zoom),
            (Some(1), 900, (10, 500))
        );
        assert_eq!(opened.story, s.story);
        // A bad caption is refused, and a story that no longer fits the
        // run goes.
        let r = reduce(s.clone(), Action::AddStop("a\nb\nc".into()));
        assert_eq!(
            (r.story == s.story, r.banner.unwrap().field),
            (true, "caption".to_string())
        );
        let mut smaller = scenario();
        smaller.file_size = 2 << 20;
        let r = reduce(s.clone(), Action::Apply(smaller));
        assert!(r.story.is_none() && r.stop.is_none());
        let r = reduce(reduce(s, Action::DropStop), Action::DropStop);
        assert!(r.story.is_none());
    }

    #[test]
    fn a_seed_story_waits_for_its_timelines_and_then_goes_to_its_stop() {
        let mut v = view(scenario(), Vec::new());
        v.preset = Some("seed000-rev-huge".into());
        let s = State::of_view(&v, &[]);
        let s = reduce(s, Action::PlaySeedStory);
        assert_eq!(
            (s.story.clone(), s.stop, s.stops()),
            (Story::Seed, Some(0), None)
        );
        assert!(
            s.story_to_place().is_none(),
            "nothing to place on before the build"
        );
        let b = built(&s);
        let s = reduce(s, Action::Built(b.clone()));
        let (preset, on) = s.story_to_place().expect("to be placed");
        assert_eq!((preset.as_str(), &on), ("seed000-rev-huge", &b));
        let timelines: Vec<&Timeline> = b.sides.iter().map(|x| &*x.timeline).collect();
        let stops = folioscope_scenario::story::seed_story(&preset, timelines.as_slice()).unwrap();
        // Stops placed on other timelines are refused.
        let stale = reduce(s.clone(), Action::StoryPlaced(built(&s), stops.clone()));
        assert!(stale.stops().is_none());
        let s = reduce(s, Action::StoryPlaced(b, stops.clone()));
        assert_eq!(s.stops(), Some(stops.as_slice()));
        assert!(s.story_to_place().is_none() && s.at_stop(0));
        assert_eq!(s.step, stops[0].step.unwrap_or(s.len));
        let s = reduce(s, Action::NextStop(true));
        assert_eq!((s.stop, s.step), (Some(1), stops[1].step.unwrap_or(s.len)));
        // Another scenario is not the seed's: its story goes.
        let mut other = scenario();
        other.read_ahead_kb = 64;
        assert!(reduce(s, Action::Apply(other)).story.is_none());
    }

    #[test]
    fn a_clickers_page_down_asks_reveals_and_asks_again() {
        let s = reduce(ready_at(0), Action::SetPredict(Some(Mark::MajorFault)));
        let s = reduce(s, Action::Ask);
        let q = s.question.clone().unwrap();
        assert_eq!((q.revealed, s.step), (false, q.reveal_at - 1));
        let s = reduce(reduce(s, Action::Guess(Some(3))), Action::Reveal);
        let r = s.question.clone().unwrap();
        assert_eq!((r.revealed, r.given, s.step), (true, Some(3), q.reveal_at));
        let s = reduce(s, Action::Ask);
        assert!(s.question.as_ref().unwrap().reveal_at > q.reveal_at);
        let s = reduce(reduce(s, Action::ToggleHelp), Action::Escape);
        assert!(s.question.is_none() && !s.help && !s.open_text);
    }

    #[test]
    fn states_compare_by_value() {
        let s = ready_at(3);
        let a = reduce(reduce(s.clone(), Action::Seek(7)), Action::Seek(9));
        let b = reduce(s.clone(), Action::Seek(9));
        assert_eq!(a, b, "the same view, however it was reached");
        assert_ne!(a, s);
        assert_eq!(reduce(a.clone(), Action::ToggleHelp).help, !a.help);
    }
}
