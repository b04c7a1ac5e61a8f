//! The contexts the components read: the state cut into slices, each
//! provided on its own, so that a component subscribes to the slice it
//! draws and a change re-renders only the components whose slice changed.
//! A jump changes the [`Moment`]; the scenario panel, the header and the
//! compare bar read the [`Setup`] and stay as they are. There are few
//! slices on purpose: each context costs the bundle its own code.

use std::cell::RefCell;
use std::rc::Rc;

use folioscope_core::{Kernel, KindSet, Mark};
use folioscope_scenario::link::{Mode, Panels};
use folioscope_scenario::story::{seed_story_len, Stop, Story};
use folioscope_scenario::Scenario;
use yew::prelude::*;

use crate::probe::ProbeOverlay;
use crate::recording::{RealCheck, Recorded};
use crate::seekers::SeekersHandle;
use crate::state::{BannerMsg, Built, Cursor, Kept, Progress, Question, State};

/// Sends actions; it never changes, so it re-renders no one.
pub type Dispatch = UseReducerDispatcher<State>;

/// What the view is of: the scenario, its kernels, and their timelines
/// once built.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub scenario: Scenario,
    pub compare: Vec<Kernel>,
    pub preset: Option<String>,
    /// Accesses in the scenario.
    pub len: u64,
    pub pages: u64,
    pub built: Option<Kept<Built>>,
    /// The recording whose accesses the scenario is, and side A's model
    /// held to its events.
    pub recording: Option<Kept<Recorded>>,
    pub real_check: Option<Kept<RealCheck>>,
}

/// Where in the run the view stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Moment {
    pub step: u64,
    pub cursor: Option<Cursor>,
}

impl Moment {
    /// The events applied so far inside the current access.
    pub fn applied_events(&self) -> &[folioscope_core::Event] {
        self.cursor.as_ref().map_or(&[], Cursor::applied_events)
    }
}

/// The pages in view, `[first, end)`, of `pages`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zoom {
    pub first: u64,
    pub end: u64,
    pub pages: u64,
}

/// How the view looks and moves, and what sits over it: each changes
/// seldom, and none with the step.
#[derive(Clone, Debug, PartialEq)]
pub struct Ui {
    pub mark: Mark,
    pub hidden_kinds: KindSet,
    pub log_text: String,
    pub panels: Panels,
    pub mode: Mode,
    pub predict: Option<Mark>,
    pub playing: bool,
    pub speed_log2: u32,
    /// The speed play reached, while playing short of `speed_log2`.
    pub reached: Option<u64>,
    pub banner: Option<BannerMsg>,
    pub help: bool,
    pub question: Option<Question>,
    pub blank: bool,
    pub open_text: bool,
    pub shared: Option<String>,
    pub probe: Option<Kept<ProbeOverlay>>,
    pub story: StoryOnScreen,
}

/// The story as its bar shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoryOnScreen {
    /// A story is on: the seed preset's own (`seed`) or the speaker's.
    pub on: bool,
    pub seed: bool,
    /// Its stops; none while a seed story is placed.
    pub stops: Option<Vec<Stop>>,
    /// The stop shown last, and whether the view still stands there.
    pub stop: Option<usize>,
    pub at_stop: bool,
    /// Whether the view's preset has a story of its own.
    pub seed_preset: bool,
}

/// What never changes for the app's life: the dispatcher, the latest
/// state for callbacks, and the simulations. Reading it re-renders no one.
#[derive(Clone, PartialEq)]
pub struct Handles {
    pub dispatch: Dispatch,
    pub latest: Latest,
    pub seekers: SeekersHandle,
}

/// The whole state as of the last render, for callbacks that need all of
/// it (copying a link) without subscribing to every change.
#[derive(Clone, Default)]
pub struct Latest(Rc<RefCell<Option<UseReducerHandle<State>>>>);

impl Latest {
    pub fn set(&self, state: UseReducerHandle<State>) {
        *self.0.borrow_mut() = Some(state);
    }

    /// The state; the app sets it before any component can ask.
    pub fn get(&self) -> UseReducerHandle<State> {
        self.0.borrow().clone().expect("the app renders first")
    }
}

impl PartialEq for Latest {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl State {
    pub fn setup(&self) -> Setup {
        Setup {
            scenario: self.scenario.clone(),
            compare: self.compare.clone(),
            preset: self.preset.clone(),
            len: self.len,
            pages: self.pages(),
            built: self.built.clone(),
            recording: self.recording.clone(),
            real_check: self.real_check.clone(),
        }
    }

    pub fn moment(&self) -> Moment {
        Moment {
            step: self.step,
            cursor: self.cursor.clone(),
        }
    }

    pub fn zoom_slice(&self) -> Zoom {
        Zoom {
            first: self.zoom.0,
            end: self.zoom.1,
            pages: self.pages(),
        }
    }

    pub fn ui(&self) -> Ui {
        Ui {
            mark: self.mark,
            hidden_kinds: self.hidden_kinds,
            log_text: self.log_text.clone(),
            panels: self.panels,
            mode: self.mode,
            predict: self.predict,
            playing: self.playing,
            speed_log2: self.speed_log2,
            reached: self.reached.filter(|_| self.playing),
            banner: self.banner.clone(),
            help: self.help,
            question: self.question.clone(),
            blank: self.blank,
            open_text: self.open_text,
            shared: self.shared.clone(),
            probe: self.probe.clone(),
            story: StoryOnScreen {
                on: !self.story.is_none(),
                seed: self.story == Story::Seed,
                stops: self.stops().map(<[Stop]>::to_vec),
                stop: self.stop,
                at_stop: self.stop.is_some_and(|i| self.at_stop(i)),
                seed_preset: self.preset.as_deref().and_then(seed_story_len).is_some(),
            },
        }
    }
}

#[hook]
pub fn use_handles() -> Handles {
    use_context::<Handles>().expect("the app provides the handles")
}

#[hook]
pub fn use_setup() -> Setup {
    use_context::<Setup>().expect("the app provides the setup")
}

/// How far the build of the view's timelines has come, while it runs: a
/// slice of its own, as it changes every few milliseconds of a build and
/// only the strips' heads show it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Building(pub Option<Progress>);

#[hook]
pub fn use_building() -> Option<Progress> {
    use_context::<Building>()
        .expect("the app provides the build's progress")
        .0
}

#[hook]
pub fn use_moment() -> Moment {
    use_context::<Moment>().expect("the app provides the moment")
}

#[hook]
pub fn use_zoom() -> Zoom {
    use_context::<Zoom>().expect("the app provides the zoom")
}

#[hook]
pub fn use_ui() -> Ui {
    use_context::<Ui>().expect("the app provides the ui")
}
