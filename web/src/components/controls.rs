//! The timeline controls: play and speed, steps by access and by event,
//! "next" of a chosen kind, jump to a step, and a scrubber that shows where
//! the events are dense (and, in compare mode, where the runs part).

use folioscope_core::Mark;
use folioscope_scenario::describe;
use folioscope_scenario::link::Mode;
use yew::prelude::*;

use crate::components::svg_paths::{push_fixed, SvgPaths};
use crate::context::{use_handles, use_moment, use_setup, use_ui};
use crate::hooks::{use_step_canvas, StepMark};
use crate::state::Action;

/// The id of the timeline's region, which the page's skip link focuses.
pub const TIMELINE_ID: &str = "timeline";

#[component]
pub fn Controls() -> Html {
    let d = use_handles().dispatch;
    let len = use_setup().len;
    let moment = use_moment();
    let ui = use_ui();
    let act = |a: fn() -> Action| {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(a()))
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
    let onmark = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let m = Mark::ALL
                .into_iter()
                .find(|m| describe::mark(*m) == s.value())
                .unwrap_or(Mark::MajorFault);
            d.dispatch(Action::SetMark(m));
        })
    };
    let onjump = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            match input.value().trim().parse::<u64>() {
                Ok(v) => d.dispatch(Action::Seek(v)),
                Err(_) => d.dispatch(Action::Reject(
                    "step".into(),
                    format!("'{}' is not a whole number of accesses", input.value()),
                )),
            }
        })
    };
    let inside = moment
        .cursor
        .as_ref()
        .map(|c| format!(" · event {} of {}", c.applied, c.events.len()));
    // Embedded, the controls keep to one line: the steps and the step
    // field; the jumps by kind and the speed are in the full view.
    let embed = ui.mode == Mode::Embed;
    html! {
        // The skip link's target (app.rs): focusable by script only.
        <section class="controls-wrap" id={TIMELINE_ID} tabindex="-1" aria-label="timeline">
            <div class="controls">
                <button data-testid="home" onclick={act(|| Action::Seek(0))} title="first step (Home)" aria-label="first step" aria-keyshortcuts="Home">{ "|◀" }</button>
                <button data-testid="ev-back" onclick={act(|| Action::StepEvent(false))} title="one event back (shift+←)" aria-label="previous event" aria-keyshortcuts="Shift+ArrowLeft">{ "◀ event" }</button>
                <button data-testid="back" onclick={act(|| Action::StepBy(-1))} title="one access back (←)" aria-label="previous access" aria-keyshortcuts="ArrowLeft">{ "◀" }</button>
                <button data-testid="play" class="play" onclick={act(|| Action::TogglePlay)} title="play / pause (space)" aria-keyshortcuts="Space">
                    { if ui.playing { "pause" } else { "play" } }
                </button>
                <button data-testid="fwd" onclick={act(|| Action::StepBy(1))} title="one access forward (→)" aria-label="next access" aria-keyshortcuts="ArrowRight">{ "▶" }</button>
                <button data-testid="ev-fwd" onclick={act(|| Action::StepEvent(true))} title="one event forward (shift+→)" aria-label="next event" aria-keyshortcuts="Shift+ArrowRight">{ "event ▶" }</button>
                <button data-testid="end" onclick={act(|| Action::Seek(u64::MAX))} title="last step (End)" aria-label="last step" aria-keyshortcuts="End">{ "▶|" }</button>
                if !embed {
                    <span class="group">
                        <button data-testid="prev-mark" onclick={act(|| Action::JumpMark(false))} title="previous of this kind" aria-label="previous event of this kind">{ "◀ prev" }</button>
                        <select data-testid="mark" onchange={onmark} aria-label="event kind to jump to">
                            { for Mark::ALL.iter().map(|m| html! { <option value={describe::mark(*m)} selected={*m == ui.mark}>{ describe::mark(*m) }</option> }) }
                        </select>
                        <button data-testid="next-mark" onclick={act(|| Action::JumpMark(true))} title="next of this kind" aria-label="next event of this kind">{ "next ▶" }</button>
                    </span>
                    <label class="speed">{ "speed " }
                        <select onchange={onspeed} data-testid="speed">
                            { for [4u32, 8, 10, 12, 14, 16, 18, 20, 22].iter().map(|&v| html! {
                                <option value={v.to_string()} selected={ui.speed_log2 == v}>{ format!("{} accesses/s", 1u64 << v) }</option>
                            }) }
                        </select>
                    </label>
                    // Always there, hidden when play keeps up: an element
                    // that came and went would shift its siblings in
                    // Yew's unkeyed diff.
                    <span class="reached" data-testid="reached" hidden={ui.reached.is_none()}
                        title="the speed play reached over its last second: this machine cannot run the model at the speed chosen">
                        { ui.reached.map(|r| format!("reaching {}/s", two_figures(r))).unwrap_or_default() }
                    </span>
                    <crate::components::question::PredictControls />
                }
                <label class="jump">{ "step " }
                    <input type="text" data-testid="jump" size="9" value={moment.step.to_string()} onchange={onjump} aria-label="jump to step" inputmode="numeric" />
                    <span class="muted">{ format!(" of {len}") }{ inside }</span>
                </label>
            </div>
            <Scrubber onscrub={onscrub} density={!embed} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct ScrubberProps {
    onscrub: Callback<InputEvent>,
    /// Whether the density of events shows above the range; the embedded
    /// frame has no room for it.
    density: bool,
}

/// The range input over a strip of event density, with the marks of the
/// chosen kind and the first difference of compare mode. The density and
/// the marks change only with the view's timelines and the kind: each is
/// one SVG path, built once.
#[component]
fn Scrubber(props: &ScrubberProps) -> Html {
    let setup = use_setup();
    let mark = use_ui().mark;
    let step = use_moment().step;
    let len = setup.len.max(1);
    let shapes = {
        let built = setup.built.clone();
        use_memo((built.clone(), mark), move |_| {
            let Some(built) = built else {
                return Vec::new();
            };
            let t = built.first();
            let (density, _bucket) = t.density();
            let max = density.iter().copied().max().unwrap_or(1).max(1) as f64;
            let n = density.len().max(1) as f64;
            let w = (1000.0 / n).max(0.6);
            let mut bars = String::new();
            for (i, &v) in density.iter().enumerate().filter(|(_, &v)| v > 0) {
                // A log scale, so a few events still show next to many.
                let h = ((v as f64).ln_1p() / max.ln_1p() * 18.0).max(1.0);
                bars.push('M');
                push_fixed(&mut bars, i as f64 / n * 1000.0, 2);
                bars.push_str(" 20h");
                push_fixed(&mut bars, w, 2);
                bars.push('v');
                push_fixed(&mut bars, -h, 2);
                bars.push('h');
                push_fixed(&mut bars, -w, 2);
                bars.push('z');
            }
            // Read from the timeline's runs: a slice of every mark would
            // cost 8 bytes each (32 MiB for a walk that faults on every
            // page of 16 GiB).
            let stride = (t.mark_count(mark) / 2000).max(1) as usize;
            let mut ticks = String::new();
            for s in t.mark_steps(mark).step_by(stride) {
                ticks.push('M');
                push_fixed(&mut ticks, s as f64 / len as f64 * 1000.0, 2);
                ticks.push_str(" 20V26");
            }
            vec![
                (AttrValue::from(bars), "density"),
                (AttrValue::from(ticks), "mark-tick"),
            ]
        })
    };
    let cursor_ref = use_step_canvas(StepMark::DensityCursor, step, setup.len, props.density);
    let thumb_ref = use_step_canvas(StepMark::RangeThumb, step, setup.len, true);
    let diff = setup
        .built
        .iter()
        .flat_map(|b| b.sides.iter().filter_map(|s| s.first_diff))
        .map(|s| {
            let x = s as f64 / len as f64 * 1000.0;
            html! { <line x1={format!("{x:.2}")} x2={format!("{x:.2}")} y1="0" y2="26" class="diff-line" /> }
        });
    html! {
        <div class="scrubber-wrap">
            <div class="density-box" hidden={!props.density}>
                <svg class="density-svg" viewBox="0 0 1000 26" preserveAspectRatio="none" data-testid="density"
                    role="img" aria-label={format!("events over the run, and where each {} is", describe::mark(mark))}>
                    <SvgPaths paths={shapes} />
                </svg>
                <svg class="density-diffs" viewBox="0 0 1000 26" preserveAspectRatio="none" aria-hidden="true">
                    { for diff }
                </svg>
                { crate::components::real_strip::real_marks(&setup) }
                <canvas class="step-canvas density-step" ref={cursor_ref} aria-hidden="true" />
            </div>
            <div class="range-box">
                <canvas class="step-canvas range-step" ref={thumb_ref} aria-hidden="true" />
                <input class="scrubber" type="range" min="0" max={setup.len.to_string()} value={step.to_string()}
                    oninput={props.onscrub.clone()} data-testid="scrubber" aria-label="step" />
            </div>
        </div>
    }
}

/// `n` to its two leading figures (9612 -> 9600), as a speed is told.
fn two_figures(n: u64) -> u64 {
    let mut unit = 1;
    while n / unit >= 100 {
        unit *= 10;
    }
    (n + unit / 2) / unit * unit
}

#[cfg(test)]
mod tests {
    use super::two_figures;

    #[test]
    fn speeds_are_told_to_two_figures() {
        for (n, want) in [
            (0, 0),
            (7, 7),
            (99, 99),
            (100, 100),
            (9612, 9600),
            (9650, 9700),
            (2_345_678, 2_300_000),
        ] {
            assert_eq!(two_figures(n), want, "{n}");
        }
    }
}
