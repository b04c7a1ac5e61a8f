//! The root component: the state, the play loop and the keyboard.

use std::rc::Rc;

use folioscope_core::{Madvise, Pattern};
use folioscope_scenario::Scenario;
use gloo::events::EventListener;
use gloo::render::{request_animation_frame, AnimationFrame};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::{
    banner::Banner, controls::Controls, file_strip::FileStrip, header::Header, help::Help,
    ra_panel::RaPanel, scenario_panel::ScenarioPanel,
};
use crate::state::{Action, AppState};

/// The app's state, shared with every component.
pub type AppContext = UseReducerHandle<AppState>;

/// The scenario on screen at load: a backward walk of a 2 GiB file under
/// MADV_HUGEPAGE, the case the first seed is about.
pub fn default_scenario() -> Scenario {
    Scenario {
        pattern: Pattern::Rev,
        madvise: Madvise::Hugepage,
        ..Scenario::default()
    }
}

#[component]
pub fn App() -> Html {
    let state = use_reducer(|| AppState::new(default_scenario()));

    // The play loop: one animation frame, one tick of speed/60 accesses.
    {
        let playing = state.playing;
        let speed = state.speed_log2;
        let dispatcher = state.dispatcher();
        use_effect_with((playing, speed), move |&(playing, speed)| {
            let frame: Rc<std::cell::RefCell<Option<AnimationFrame>>> = Default::default();
            if playing {
                fn schedule(
                    frame: Rc<std::cell::RefCell<Option<AnimationFrame>>>,
                    d: UseReducerDispatcher<AppState>,
                    speed: u32,
                ) {
                    let f2 = frame.clone();
                    *frame.borrow_mut() = Some(request_animation_frame(move |_| {
                        let per_frame = ((1u64 << speed) / 60).max(1);
                        d.dispatch(Action::Tick(per_frame));
                        schedule(f2, d, speed);
                    }));
                }
                schedule(frame.clone(), dispatcher, speed);
            }
            move || {
                frame.borrow_mut().take();
            }
        });
    }

    // Keyboard shortcuts.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let window = gloo::utils::window();
            let options = gloo::events::EventListenerOptions::enable_prevent_default();
            let listener = EventListener::new_with_options(&window, "keydown", options, move |e| {
                let Some(e) = e.dyn_ref::<KeyboardEvent>() else {
                    return;
                };
                // Typing in a field is not a shortcut.
                if let Some(t) = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                {
                    if matches!(t.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA") {
                        return;
                    }
                }
                let action = match (e.key().as_str(), e.shift_key()) {
                    (" ", _) => Some(Action::TogglePlay),
                    ("ArrowRight", false) => Some(Action::StepBy(1)),
                    ("ArrowLeft", false) => Some(Action::StepBy(-1)),
                    ("ArrowRight", true) => {
                        Some(Action::JumpMark(folioscope_core::Mark::MajorFault, true))
                    }
                    ("ArrowLeft", true) => {
                        Some(Action::JumpMark(folioscope_core::Mark::MajorFault, false))
                    }
                    ("Home", _) => Some(Action::Seek(0)),
                    ("End", _) => Some(Action::Seek(u64::MAX)),
                    ("?", _) => Some(Action::ToggleHelp),
                    ("Escape", _) => Some(Action::DismissBanner),
                    _ => None,
                };
                if let Some(a) = action {
                    e.prevent_default();
                    dispatcher.dispatch(a);
                }
            });
            move || drop(listener)
        });
    }

    html! {
        <ContextProvider<AppContext> context={state.clone()}>
            <Header />
            <Banner />
            <main class="layout">
                <ScenarioPanel />
                <section class="stage">
                    <FileStrip />
                    <Controls />
                    <RaPanel />
                </section>
            </main>
            if state.help { <Help /> }
        </ContextProvider<AppContext>>
    }
}
