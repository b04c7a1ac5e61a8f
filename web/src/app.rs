//! The root component: the state, the play loop and the keyboard.

use std::rc::Rc;

use folioscope_core::{Madvise, Pattern};
use folioscope_scenario::Scenario;
use gloo::events::EventListener;
use gloo::render::{request_animation_frame, AnimationFrame};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::{
    banner::Banner,
    compare_bar::CompareBar,
    controls::Controls,
    event_log::EventLog,
    file_strip::{FileStrip, Side},
    header::Header,
    help::Help,
    plots::Plots,
    ra_panel::RaPanel,
    scenario_panel::ScenarioPanel,
    xarray_view::XarrayView,
};
use crate::state::{Action, AppState, Panel};

/// The app's state, shared with every component.
pub type AppContext = UseReducerHandle<AppState>;

/// The preset on screen at load: the first row of the first seed, a
/// backward walk of a 2 GiB file under MADV_HUGEPAGE, v7.4-rc2 against the
/// patched kernel.
pub const DEFAULT_PRESET: &str = "seed000-rev-huge";

/// The default preset's scenario and second kernel.
pub fn default_scenario() -> (Scenario, Option<folioscope_core::Kernel>) {
    match folioscope_scenario::seeds::row(DEFAULT_PRESET) {
        Some(r) => {
            let mut s = r.scenario.clone();
            s.kernel = r.columns[0].kernel.clone();
            (s, r.columns.get(1).map(|c| c.kernel.clone()))
        }
        None => (
            Scenario {
                pattern: Pattern::Rev,
                madvise: Madvise::Hugepage,
                ..Scenario::default()
            },
            None,
        ),
    }
}

#[component]
pub fn App() -> Html {
    let state = use_reducer(|| {
        let (scenario, compare) = default_scenario();
        AppState::new(scenario, compare, Some(DEFAULT_PRESET.to_string()))
    });

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
                    ("ArrowRight", true) => Some(Action::StepEvent(true)),
                    ("ArrowLeft", true) => Some(Action::StepEvent(false)),
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

    let toggle = |p: Panel| {
        let d = state.dispatcher();
        Callback::from(move |_| d.dispatch(Action::TogglePanel(p)))
    };
    let panels = state.panels;
    let comparing = state.compare.is_some();
    html! {
        <ContextProvider<AppContext> context={state.clone()}>
            <Header />
            <Banner />
            <main class="layout">
                <ScenarioPanel />
                <section class="stage">
                    <CompareBar />
                    <FileStrip side={Side::A} />
                    if comparing { <FileStrip side={Side::B} /> }
                    <Controls />
                    <div class={classes!("ra-row", comparing.then_some("two"))}>
                        <RaPanel side={Side::A} />
                        if comparing { <RaPanel side={Side::B} /> }
                    </div>
                    <div class="panel-toggles">
                        <label><input type="checkbox" checked={panels.plots} onchange={toggle(Panel::Plots)} data-testid="toggle-plots" />{ "plots" }</label>
                        <label><input type="checkbox" checked={panels.log} onchange={toggle(Panel::Log)} data-testid="toggle-log" />{ "event log" }</label>
                        <label><input type="checkbox" checked={panels.xarray} onchange={toggle(Panel::Xarray)} data-testid="toggle-xarray" />{ "xarray" }</label>
                    </div>
                    if panels.plots { <Plots /> }
                    <div class="lower">
                        if panels.log { <EventLog /> }
                        if panels.xarray { <XarrayView /> }
                    </div>
                </section>
            </main>
            if state.help { <Help /> }
        </ContextProvider<AppContext>>
    }
}
