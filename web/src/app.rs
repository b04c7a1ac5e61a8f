//! The root component: the state, the play loop, the keyboard, the
//! page's address (a permalink of the view, kept in the history), dropped
//! probe reports, and the frame: full, embedded or presenter.

use std::rc::Rc;

use folioscope_core::{Madvise, Pattern};
use folioscope_scenario::Scenario;
use gloo::events::EventListener;
use gloo::render::{request_animation_frame, AnimationFrame};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use folioscope_scenario::link::{parse_link, preset, to_link, Mode, View};

use crate::components::{
    banner::Banner,
    compare_bar::CompareBar,
    controls::Controls,
    event_log::EventLog,
    file_strip::{FileStrip, Side},
    header::Header,
    help::Help,
    plots::Plots,
    probe_strip::ProbeStrip,
    question::QuestionOverlay,
    ra_panel::RaPanel,
    scenario_panel::ScenarioPanel,
    share::{OpenText, Shared},
    xarray_view::XarrayView,
};
use crate::state::{Action, AppState, Panel};
use crate::url;

/// How long the view must stay still before it becomes a history entry,
/// so that playing does not flood the history.
const HISTORY_DEBOUNCE_MS: u32 = 500;

/// The app's state, shared with every component.
pub type AppContext = UseReducerHandle<AppState>;

/// The preset on screen at load: the first row of the first seed, a
/// backward walk of a 2 GiB file under MADV_HUGEPAGE, v7.4-rc2 against the
/// patched kernel.
/// After the first frames are on screen.
const WARM_UP_DELAY_MS: u32 = 150;

pub const DEFAULT_PRESET: &str = "seed000-rev-huge";

/// The default preset's view: its scenario and every kernel of its row.
pub fn default_view() -> View {
    preset(DEFAULT_PRESET).unwrap_or_else(|| View {
        scenario: Scenario {
            pattern: Pattern::Rev,
            madvise: Madvise::Hugepage,
            ..Scenario::default()
        },
        ..View::default()
    })
}

/// The sides of the kernels compared with the first.
fn compared(n: usize) -> impl Iterator<Item = Side> {
    (0..n).map(Side::Compared)
}

/// The ra panels of every kernel, side by side.
fn ra_row(compared_n: usize) -> Html {
    let columns = ["one", "two", "three"].get(compared_n).copied();
    html! {
        <div class={classes!("ra-row", (compared_n > 0).then_some(columns))}>
            <RaPanel side={Side::A} />
            { for compared(compared_n).map(|side| html! { <RaPanel {side} /> }) }
        </div>
    }
}

#[component]
pub fn App() -> Html {
    let state = use_reducer(|| {
        let view = default_view();
        let start = AppState::new(view.scenario, view.compare, view.preset);
        let query = url::query();
        if query.trim_start_matches('?').is_empty() {
            return start;
        }
        let parsed = parse_link(&query);
        AppState::from_view(&parsed.view, &parsed.ignored, start)
    });

    // The address follows the view: the first settled view replaces the
    // loaded address, later ones become history entries; going back or
    // forward restores the view of that entry without adding one.
    {
        let timer: Rc<std::cell::RefCell<Option<gloo::timers::callback::Timeout>>> =
            use_mut_ref(|| None);
        let first = use_mut_ref(|| true);
        let restoring = use_mut_ref(|| false);
        {
            let restoring = restoring.clone();
            let d = state.dispatcher();
            use_effect_with((), move |_| {
                let listener = EventListener::new(&gloo::utils::window(), "popstate", move |_| {
                    *restoring.borrow_mut() = true;
                    let p = parse_link(&url::query());
                    d.dispatch(Action::OpenView(Box::new(p.view), p.ignored));
                });
                move || drop(listener)
            });
        }
        // While playing the view changes every frame and never settles:
        // no link is built until it stops.
        let link = (!state.playing).then(|| to_link(&state.view(), &url::base()));
        use_effect_with(link, move |link| {
            let Some(link) = link.clone() else {
                timer.borrow_mut().take();
                return;
            };
            let t = gloo::timers::callback::Timeout::new(HISTORY_DEBOUNCE_MS, move || {
                if link != url::href() {
                    let push = !*first.borrow() && !*restoring.borrow();
                    url::set(&link, push);
                }
                *first.borrow_mut() = false;
                *restoring.borrow_mut() = false;
            });
            *timer.borrow_mut() = Some(t);
        });
    }

    // Once, in the first idle moment after load: see warm.rs.
    {
        // Where the view is when the rehearsal starts, to come back to.
        let here = use_mut_ref(|| None::<(u64, Option<usize>)>);
        *here.borrow_mut() =
            (!state.playing).then(|| (state.step, state.cursor.as_ref().map(|c| c.applied)));
        let stops = [state.len() * 3 / 4, state.len()];
        let d = state.dispatcher();
        use_effect_with((), move |_| {
            gloo::timers::callback::Timeout::new(WARM_UP_DELAY_MS, move || {
                let back = *here.borrow();
                wasm_bindgen_futures::spawn_local(async move {
                    if let Some((step, applied)) = back {
                        crate::warm::rehearse_jumps(&d, &stops, step, applied).await;
                    }
                    // For tests that time the first jump.
                    if let Some(root) = gloo::utils::document().document_element() {
                        let _ = root.set_attribute("data-warm", "1");
                    }
                });
            })
            .forget();
        });
    }

    // A `folioscope probe --json` report dropped anywhere on the page.
    {
        let d = state.dispatcher();
        use_effect_with((), move |_| {
            let window = gloo::utils::window();
            let options = gloo::events::EventListenerOptions::enable_prevent_default();
            let over = EventListener::new_with_options(&window, "dragover", options, |e| {
                e.prevent_default();
            });
            let drop_listener =
                EventListener::new_with_options(&window, "drop", options, move |e| {
                    e.prevent_default();
                    let Some(file) = e
                        .dyn_ref::<web_sys::DragEvent>()
                        .and_then(|e| e.data_transfer())
                        .and_then(|t| t.files())
                        .and_then(|f| f.get(0))
                    else {
                        return;
                    };
                    let d = d.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let text = wasm_bindgen_futures::JsFuture::from(file.text())
                            .await
                            .ok()
                            .and_then(|v| v.as_string())
                            .unwrap_or_default();
                        match crate::probe::load(&text) {
                            Ok((overlay, scenario, step)) => {
                                d.dispatch(Action::Probe(Rc::new(overlay), scenario, step))
                            }
                            Err((field, message)) => {
                                d.dispatch(Action::Reject(format!("probe report {field}"), message))
                            }
                        }
                    });
                });
            move || {
                drop(over);
                drop(drop_listener);
            }
        });
    }

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
        let mode = state.mode;
        let predicting = state.predict.is_some();
        let asking = state.question.as_ref().map(|q| q.given.is_none());
        use_effect_with(
            (mode, predicting, asking),
            move |&(mode, predicting, asking)| {
                let window = gloo::utils::window();
                let options = gloo::events::EventListenerOptions::enable_prevent_default();
                let listener =
                    EventListener::new_with_options(&window, "keydown", options, move |e| {
                        let Some(e) = e.dyn_ref::<KeyboardEvent>() else {
                            return;
                        };
                        // Typing in a field is not a shortcut; Escape, which
                        // types nothing, still dismisses the banner.
                        if let Some(t) = e
                            .target()
                            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        {
                            if matches!(t.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
                                && e.key() != "Escape"
                            {
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
                            // A presentation clicker sends PageDown, PageUp and b.
                            ("PageDown", _) if predicting => match asking {
                                Some(true) => None,
                                _ => Some(Action::Ask),
                            },
                            ("PageDown", _) => Some(Action::StepEvent(true)),
                            ("PageUp", _) => Some(Action::StepEvent(false)),
                            ("b" | "B" | ".", _) if mode == Mode::Presenter => {
                                Some(Action::ToggleBlank)
                            }
                            _ => None,
                        };
                        if let Some(a) = action {
                            e.prevent_default();
                            dispatcher.dispatch(a);
                        }
                    });
                move || drop(listener)
            },
        );
    }

    let toggle = |p: Panel| {
        let d = state.dispatcher();
        Callback::from(move |_| d.dispatch(Action::TogglePanel(p)))
    };
    let panels = state.panels;
    let compared_n = state.compare.len();
    let probe = state.probe.is_some();
    if state.mode == Mode::Embed {
        // The minimal frame for iframes: strip, ra panel, timeline, and a
        // way back to the full view.
        let mut full = state.view();
        full.mode = Mode::Full;
        let full_link = to_link(&full, &url::base());
        return html! {
            <ContextProvider<AppContext> context={state.clone()}>
                <div class="app embed" data-testid="embed">
                    <div class="embed-bar">
                        <strong>{ "folioscope" }</strong>
                        <span class="muted">{ format!(" {}", state.scenario.kernel.label()) }</span>
                        <a href={full_link} target="_blank" rel="noopener" data-testid="full-view">{ "open the full view \u{2197}" }</a>
                    </div>
                    <Banner />
                    <FileStrip side={Side::A} />
                    { for compared(compared_n).map(|side| html! { <FileStrip {side} /> }) }
                    <Controls />
                    { ra_row(compared_n) }
                </div>
            </ContextProvider<AppContext>>
        };
    }
    let presenter = state.mode == Mode::Presenter;
    html! {
        <ContextProvider<AppContext> context={state.clone()}>
            <div class={classes!("app", presenter.then_some("presenter"))} data-testid={if presenter { "presenter-view" } else { "full-view" }}>
            <Header />
            <Banner />
            <Shared />
            <main class={classes!("layout", presenter.then_some("no-editing"))}>
                if !presenter { <ScenarioPanel /> }
                <section class="stage">
                    <CompareBar />
                    <FileStrip side={Side::A} />
                    if probe { <ProbeStrip /> }
                    { for compared(compared_n).map(|side| html! { <FileStrip {side} /> }) }
                    <Controls />
                    { ra_row(compared_n) }
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
            <QuestionOverlay />
            <OpenText />
            if state.help { <Help /> }
            if state.blank { <div class="blank" data-testid="blank" /> }
            </div>
        </ContextProvider<AppContext>>
    }
}
