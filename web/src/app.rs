//! The app: the state and its reducer, the contexts that hand each
//! component its slice of the state, the effects (hooks/), and the frame:
//! full, embedded or presenter.
//!
//! The path from a URL to the drawn strip: `url::query` → `parse_link`
//! (scenario) → `State::from_view` (the state, no timeline yet) →
//! `hooks::use_build` (the core's `Lockstep`, between frames) →
//! `Action::Built` → the `Setup` and `Moment` contexts → `FileStrip` →
//! `Seekers::bins` (the simulation moved to the step with
//! `Timeline::seek_logged`, its bins brought up to date by
//! `Machine::rebin`) → `Raster::paint`, or part way through an access
//! `strip::render` (a core `Picture` folded over those bins) →
//! `put_image_data`.

use folioscope_core::{Madvise, Pattern};
use folioscope_scenario::link::{parse_link, preset, recording_param, Mode, View};
use folioscope_scenario::Scenario;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::{
    banner::Banner,
    compare_bar::CompareBar,
    controls::{Controls, TIMELINE_ID},
    embed_bar::EmbedBar,
    event_log::EventLog,
    file_strip::{FileStrip, Side},
    header::Header,
    held_out_of_sight::HeldOutOfSight,
    help::Help,
    intro::Intro,
    plots::Plots,
    probe_strip::ProbeStrip,
    question::QuestionOverlay,
    ra_panel::RaRow,
    real_strip::RealStrip,
    scenario_panel::ScenarioPanel,
    seed_table::SeedTable,
    share::{OpenText, Shared},
    story::StoryBar,
    what_if::WhatIfPanel,
    xarray_view::XarrayView,
};
use crate::context::{
    use_handles, use_setup, use_ui, Building, Handles, Latest, Moment, Setup, Ui, Zoom,
};
use crate::hooks::{
    use_build, use_file_drop, use_history, use_keys, use_play, use_real_check, use_recording_link,
    use_seed_story, use_warm_up, Keys,
};
use crate::seekers::SeekersHandle;
use crate::state::{Action, EventsOf, Panel, State};
use crate::url;

/// The preset on screen at load (defined with the seeds' rows).
pub use folioscope_scenario::seeds::DEFAULT_PRESET;

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

/// The state at load: the page's link, or the default view.
fn initial_state() -> State {
    let start = State::of_view(&default_view(), &[]);
    let query = url::query();
    if query.trim_start_matches('?').is_empty() {
        return start;
    }
    if recording_param(&query).is_some() {
        // The link's recording opens once the browser has unzipped it
        // (hooks/use_recording_link.rs).
        return State {
            opening: true,
            ..start
        };
    }
    let parsed = parse_link(&query);
    // A link that only frames the page (`?embed=1`, `?present=1`) frames
    // the view a bare link opens.
    let mode = parsed.view.mode;
    let framing_only = View {
        mode,
        ..View::default()
    };
    if parsed.ignored.is_empty() && parsed.view == framing_only {
        let view = View {
            mode,
            ..default_view()
        };
        return State::from_view(&view, &[], start);
    }
    State::from_view(&parsed.view, &parsed.ignored, start)
}

#[component]
pub fn App() -> Html {
    let seekers = use_memo((), |_| SeekersHandle::default());
    let state = use_reducer({
        let seekers = (*seekers).clone();
        move || {
            let mut s = initial_state();
            s.events = EventsOf(Some(seekers));
            s
        }
    });
    let dispatch = state.dispatcher();
    let latest = use_memo((), |_| Latest::default());
    latest.set(state.clone());

    let setup = state.setup();
    use_build(&setup, dispatch.clone(), (*seekers).clone());
    use_real_check(&setup, dispatch.clone());
    // While playing the view changes every frame and never settles.
    let link = (!state.playing && !state.opening).then(|| state.link(&url::base()));
    use_history(link, dispatch.clone());
    use_play(state.playing, state.speed_log2, dispatch.clone());
    use_keys(Keys::of(&state), dispatch.clone());
    use_seed_story(state.story_to_place(), dispatch.clone());
    use_file_drop(dispatch.clone());
    use_recording_link(dispatch.clone());
    use_warm_up(
        state.built.clone(),
        state.len,
        (!state.playing).then(|| (state.step, state.cursor.as_ref().map(|c| c.applied))),
        dispatch.clone(),
        (*seekers).clone(),
    );

    let handles = Handles {
        dispatch,
        latest: (*latest).clone(),
        seekers: (*seekers).clone(),
    };
    html! {
        <ContextProvider<Handles> context={handles}>
        <ContextProvider<Setup> context={setup}>
        <ContextProvider<Building> context={Building(state.progress)}>
        <ContextProvider<Moment> context={state.moment()}>
        <ContextProvider<Zoom> context={state.zoom_slice()}>
        <ContextProvider<Ui> context={state.ui()}>
            <Frame />
        </ContextProvider<Ui>>
        </ContextProvider<Zoom>>
        </ContextProvider<Moment>>
        </ContextProvider<Building>>
        </ContextProvider<Setup>>
        </ContextProvider<Handles>>
    }
}

/// The sides of the kernels compared with the first.
fn compared(n: usize) -> impl Iterator<Item = Side> {
    (0..n).map(Side::Compared)
}

/// Every kernel's sides: the first's, then those compared with it.
fn sides(compared_n: usize) -> impl Iterator<Item = Side> {
    std::iter::once(Side::A).chain(compared(compared_n))
}

/// The page's layout. It reads what decides the layout (panels, framing,
/// the number of kernels, overlays), not the step: a jump leaves it be.
#[component]
fn Frame() -> Html {
    let d = use_handles().dispatch;
    let setup = use_setup();
    let ui = use_ui();
    let toggle = |p: Panel| {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::TogglePanel(p)))
    };
    let panels = ui.panels;
    let compared_n = setup.compare.len();
    if ui.mode == Mode::Embed {
        // The minimal frame for a 640×400 iframe: the compare banner, each
        // kernel's strip headed by its counters on one line, the steps,
        // and a way to the full view.
        return html! {
            <div class="app embed" data-testid="embed">
                <EmbedBar />
                <Banner />
                <CompareBar />
                <FileStrip side={Side::A} compact=true />
                if setup.recording.is_some() { <RealStrip /> }
                { for compared(compared_n).map(|side| html! { <FileStrip {side} compact=true /> }) }
                <Controls />
            </div>
        };
    }
    let presenter = ui.mode == Mode::Presenter;
    html! {
        <div class={classes!("app", presenter.then_some("presenter"))} data-testid={if presenter { "presenter-view" } else { "full-view" }}>
            <SkipLink />
            <Header />
            if !presenter { <Intro /> }
            <Banner />
            <Shared />
            // The stage comes before the scenario panel, which the wide
            // layout places on its left: on a phone the strip is then near
            // the top, and the keyboard reaches it first.
            <main class={classes!("layout", presenter.then_some("no-editing"))}>
                <section class="stage">
                    <StoryBar />
                    <CompareBar />
                    if !presenter { <SeedTable /> }
                    <FileStrip side={Side::A} />
                    if ui.probe.is_some() { <ProbeStrip /> }
                    if setup.recording.is_some() { <RealStrip /> }
                    { for compared(compared_n).map(|side| html! { <FileStrip {side} /> }) }
                    <Controls />
                    // Under the kernels' names, the file_ra_state panel
                    // is the first figure that follows the step.
                    <HeldOutOfSight live=".panel"><RaRow /></HeldOutOfSight>
                    // Presenter mode shows no more than fits one screen.
                    if !presenter { <WhatIfPanel /> }
                    <div class="panel-toggles" hidden={presenter}>
                        <label><input type="checkbox" checked={panels.plots} onchange={toggle(Panel::Plots)} data-testid="toggle-plots" />{ "plots" }</label>
                        <label><input type="checkbox" checked={panels.log} onchange={toggle(Panel::Log)} data-testid="toggle-log" />{ "event log" }</label>
                        <label><input type="checkbox" checked={panels.xarray} onchange={toggle(Panel::Xarray)} data-testid="toggle-xarray" />{ "xarray" }</label>
                    </div>
                    if panels.plots && !presenter { <HeldOutOfSight><Plots /></HeldOutOfSight> }
                    if presenter {
                    } else if compared_n == 0 {
                        <HeldOutOfSight class="lower" after_first_build=true>
                            if panels.log { <EventLog side={Side::A} /> }
                            if panels.xarray { <XarrayView side={Side::A} /> }
                        </HeldOutOfSight>
                    } else {
                        // Each kernel's log, then each kernel's xarray,
                        // side by side under one cursor.
                        if panels.log {
                            <HeldOutOfSight class={classes!("lower", "sides", format!("sides-{}", compared_n + 1))} testid="logs" after_first_build=true>
                                { for sides(compared_n).map(|side| html! { <EventLog {side} /> }) }
                            </HeldOutOfSight>
                        }
                        if panels.xarray {
                            <HeldOutOfSight class={classes!("lower", "sides", format!("sides-{}", compared_n + 1))} testid="xarrays" after_first_build=true>
                                { for sides(compared_n).map(|side| html! { <XarrayView {side} /> }) }
                            </HeldOutOfSight>
                        }
                    }
                </section>
                if !presenter { <ScenarioPanel /> }
            </main>
            <QuestionOverlay />
            <OpenText />
            if ui.help { <Help /> }
            if ui.blank { <div class="blank" data-testid="blank" /> }
        </div>
    }
}

/// The page's first focusable element, shown when focused: it moves the
/// focus to the timeline's controls, past the header's buttons, the
/// compare banner and the strips.
#[component]
fn SkipLink() -> Html {
    let onclick = Callback::from(|e: MouseEvent| {
        // Focused by hand: following the fragment would change the URL
        // the app keeps the view in.
        e.prevent_default();
        if let Some(el) = gloo::utils::document()
            .get_element_by_id(TIMELINE_ID)
            .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    });
    html! {
        <a class="skip-link" href={format!("#{TIMELINE_ID}")} {onclick} data-testid="skip-link">{ "skip to the timeline controls" }</a>
    }
}
