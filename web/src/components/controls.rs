//! The timeline controls: play, step, speed and a scrubber.

use folioscope_core::Mark;
use yew::prelude::*;

use crate::app::AppContext;
use crate::state::Action;

#[component]
pub fn Controls() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let d = state.dispatcher();
    let len = state.len();
    let act = |a: fn() -> Action| {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(a()))
    };
    let onscrub = {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<u64>() {
                d.dispatch(Action::Seek(v));
            }
        })
    };
    let onspeed = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Ok(v) = s.value().parse::<u32>() {
                d.dispatch(Action::SetSpeed(v));
            }
        })
    };
    let mark_button = |mark: Mark, fwd: bool, label: &'static str, id: &'static str| {
        let d = d.clone();
        html! { <button data-testid={id} onclick={Callback::from(move |_| d.dispatch(Action::JumpMark(mark, fwd)))}>{ label }</button> }
    };
    html! {
        <div class="controls">
            <button data-testid="home" onclick={act(|| Action::Seek(0))} title="Home">{ "⏮" }</button>
            <button data-testid="back" onclick={act(|| Action::StepBy(-1))} title="←">{ "◀" }</button>
            <button data-testid="play" onclick={act(|| Action::TogglePlay)} title="space">
                { if state.playing { "pause" } else { "play" } }
            </button>
            <button data-testid="fwd" onclick={act(|| Action::StepBy(1))} title="→">{ "▶" }</button>
            <button data-testid="end" onclick={act(|| Action::Seek(u64::MAX))} title="End">{ "⏭" }</button>
            { mark_button(Mark::MajorFault, true, "next major fault", "next-major") }
            { mark_button(Mark::Readahead, true, "next readahead", "next-ra") }
            { mark_button(Mark::LotsaMissCrossing, true, "next LOTSAMISS crossing", "next-crossing") }
            <label class="speed">{ "speed " }
                <select onchange={onspeed} data-testid="speed">
                    { for [6u32, 10, 14, 18, 22].iter().map(|&v| html! {
                        <option value={v.to_string()} selected={state.speed_log2 == v}>{ format!("{} /s", 1u64 << v) }</option>
                    }) }
                </select>
            </label>
            <input class="scrubber" type="range" min="0" max={len.to_string()} value={state.step.to_string()}
                oninput={onscrub} data-testid="scrubber" aria-label="step" />
        </div>
    }
}
