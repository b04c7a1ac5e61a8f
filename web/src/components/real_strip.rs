//! The real kernel's lane, under the model's strip: the page cache the
//! recording's events had built by the step on screen
//! (`recording::Recorded::real`), over the same pages and with the same
//! cursor, with the pages whose folio differs from side A's model ticked
//! in red. Its head says what was recorded and how side A's model fares
//! against the kernel's events (identical, or the first access after which
//! they part, one click away), and steps from one real kernel event to the
//! next. Its canvas carries both sides' folios as text (`data-real`,
//! `data-model`), for tests. [`real_marks`] puts the kernel's events on
//! the timeline.

use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};
use yew::prelude::*;

use folioscope_core::Span;
use folioscope_scenario::event_check::Verdict;

use crate::context::{use_handles, use_moment, use_setup, use_zoom, Setup};
use crate::real_lane::{self, Lane};
use crate::state::Action;

/// What the lane shows, once drawn.
#[derive(Clone, Debug, Default, PartialEq)]
struct Drawn {
    step: u64,
    pages: u64,
    folios: usize,
    differing: u64,
    real: String,
    model: String,
}

#[component]
pub fn RealStrip() -> Html {
    let d = use_handles().dispatch;
    let setup = use_setup();
    let step = use_moment().step;
    let zoom = use_zoom();
    let seekers = use_handles().seekers;
    let canvas_ref = use_node_ref();
    let drawn = use_state(Drawn::default);

    // Draw whenever the recording, the model, the step or the zoom change.
    {
        let canvas_ref = canvas_ref.clone();
        let drawn = drawn.clone();
        let shown = (setup.recording.clone(), setup.built.clone(), step, zoom);
        use_effect_with(shown, move |(recording, built, step, zoom)| {
            let (Some(r), Some(built), Some(canvas)) =
                (recording, built, canvas_ref.cast::<HtmlCanvasElement>())
            else {
                return;
            };
            let w = canvas
                .parent_element()
                .map_or(1000, |p| p.client_width().max(200) as u32);
            canvas.set_width(w);
            let view = Span {
                first: zoom.first,
                end: zoom.end,
                bins: w,
            };
            let real = r.real.folios_at(*step, view.first, view.end);
            let mut lane = Lane::default();
            let mut cursor = None;
            seekers.0.with(built, 0, *step, |sim, _log| {
                let cfg = sim.config();
                cursor = step
                    .checked_sub(1)
                    .map(|s| cfg.pattern.access(s, cfg.file_size, cfg.page_size.bytes()))
                    .and_then(|a| sim.machine().page_of(&a));
                let model = sim.machine().folio_runs(view.first, view.end);
                lane = real_lane::lane(&real, model, view);
            });
            let mut buf = Vec::new();
            real_lane::paint(&lane, view, cursor, &crate::palette::current(), &mut buf);
            let img =
                ImageData::new_with_u8_clamped_array_and_sh(Clamped(&buf), w, real_lane::HEIGHT);
            if let (Ok(Some(ctx)), Ok(img)) = (canvas.get_context("2d"), img) {
                let _ = ctx
                    .unchecked_into::<CanvasRenderingContext2d>()
                    .put_image_data(&img, 0.0, 0.0);
            }
            drawn.set(Drawn {
                step: *step,
                pages: real.iter().map(|&(_, o)| 1u64 << o).sum(),
                folios: real.len(),
                differing: lane.differing_pages,
                real: real_lane::runs_text(&lane.real),
                model: real_lane::runs_text(&lane.model),
            });
        });
    }

    let Some(r) = setup.recording.as_ref() else {
        return html! {};
    };
    let seek = |to: Option<u64>| {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(s) = to {
                d.dispatch(Action::Seek(s));
            }
        })
    };
    let model = setup.scenario.kernel.label();
    let verdict = match &setup.real_check {
        None => {
            html! { <span class="muted">{ format!("checking the {model} model against the kernel's events…") }</span> }
        }
        Some(c) => {
            let k = &c.check.check;
            let counts = format!(
                "{} folio adds, {} readahead calls, {} removals",
                k.adds, k.readahead_calls, k.removals
            );
            let end = match &c.end_state {
                None => String::new(),
                Some(d) if d.is_empty() => "; the same end state".into(),
                Some(d) => format!("; the end state differs ({})", d.join("; ")),
            };
            let at = c.check.step;
            let what = match (&k.verdict, at) {
                (Verdict::Identical, _) => format!("identical to the {model} model, event by event: {counts}{end}"),
                (Verdict::Disturbed { .. }, _) => format!("disturbed (a folio was evicted in the background) after {} accesses, {counts} alike", at.unwrap_or(0)),
                (_, _) => format!("parts from the {model} model after access {}, {counts} alike{end} ", at.unwrap_or(0)),
            };
            html! {
                <div data-testid="real-check" data-identical={k.is_identical().to_string()}
                    data-step={at.map(|s| s.to_string()).unwrap_or_default()}>
                    { what }
                    if let (false, Some(_)) = (k.is_identical(), at) {
                        <button data-testid="jump-divergence" onclick={seek(at)}>{ "jump there" }</button>
                        <details>
                            <summary>{ "the events there" }</summary>
                            <pre class="real-check-lines">{ k.lines().join("\n") }</pre>
                        </details>
                    }
                </div>
            }
        }
    };
    let next = |steps: &[u64]| steps.iter().copied().find(|&s| s > step);
    let prev = |steps: &[u64]| steps.iter().rev().copied().find(|&s| s < step);
    let go = |text: &str, id: &str, to: Option<u64>| {
        html! { <button data-testid={id.to_string()} disabled={to.is_none()} onclick={seek(to)}>{ text.to_string() }</button> }
    };
    let dr = &*drawn;
    let said = if dr.differing == 0 {
        format!(
            "after {} accesses: {} pages in {} folios, as the model has them",
            dr.step, dr.pages, dr.folios
        )
    } else {
        format!(
            "after {} accesses: {} pages in {} folios; {} pages differ from the model (red)",
            dr.step, dr.pages, dr.folios, dr.differing
        )
    };
    let m = &r.rec.machine;
    html! {
        <div class="strip-wrap real-strip" data-testid="real-lane">
            <div class="strip-head">
                <strong class="strip-kernel">{ format!("real kernel ({})", m.release) }</strong>
                <span data-testid="recording-title">{ r.title.clone() }</span>
                <span class="muted">{ format!("{} accesses, {} kernel events, {:.1} KB", r.accesses, r.events.len(), r.gz_len as f64 / 1024.0) }</span>
            </div>
            { verdict }
            <div class="strip-canvas">
                <canvas ref={canvas_ref} height={real_lane::HEIGHT.to_string()}
                    data-testid="real-strip" data-step={dr.step.to_string()}
                    data-real={dr.real.clone()} data-model={dr.model.clone()}
                    data-differing={dr.differing.to_string()}
                    role="img" aria-label={format!("the real kernel's page cache {said}")} />
            </div>
            <div class="recording-steps">
                <span data-testid="real-lane-text">{ said }</span>
                { go("◀ readahead", "prev-real-ra", prev(&r.readahead_steps)) }
                { go("readahead ▶", "next-real-ra", next(&r.readahead_steps)) }
                { go("◀ folio add", "prev-real-add", prev(&r.add_steps)) }
                { go("folio add ▶", "next-real-add", next(&r.add_steps)) }
            </div>
        </div>
    }
}

/// The real kernel's events over the scrubber: ticks where it added
/// folios and made readahead calls (paths made once per recording), and a
/// dashed line where side A's model parts from it.
pub fn real_marks(setup: &Setup) -> Html {
    let Some(r) = &setup.recording else {
        return html! {};
    };
    let parted = setup
        .real_check
        .as_ref()
        .and_then(|c| c.check.step)
        .map(|s| {
            let x = format!("{:.1}", s as f64 / setup.len.max(1) as f64 * 1000.0);
            html! { <line x1={x.clone()} x2={x} y1="0" y2="26" class="real-divergence" /> }
        });
    html! {
        <svg class="real-marks" viewBox="0 0 1000 26" preserveAspectRatio="none" data-testid="real-marks" aria-hidden="true">
            <path d={r.marks[0].clone()} class="real-add" />
            <path d={r.marks[1].clone()} class="real-ra" />
            { for parted }
        </svg>
    }
}
