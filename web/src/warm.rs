//! A rehearsal, once after load, of the work a jump does: replaying from
//! a checkpoint, the strip's columns and pixels, the xarray's nodes and
//! the log's lines, on each run's last state, drawn into scratch buffers.
//! The browser compiles and optimises wasm code when it first runs; without
//! this, the user's first jump pays for that and takes two frames.
//!
//! The model's part runs on scratch buffers ([`rehearse`]); the page's part
//! (Yew's reconciling of a full state, the canvases) can only run on the
//! page, so [`rehearse_jump`] jumps there and back within one task: both
//! renders happen before the browser paints, and the user sees nothing.

use std::rc::Rc;

use folioscope_scenario::text::event_line;

use crate::state::{Action, AppState, Run};
use crate::{strip, xa_pixels};

/// The xarray view's node places (components/xarray_view.rs).
const NODES: usize = 12;

pub fn rehearse(runs: &[Rc<Run>], width: u32) {
    for run in runs {
        let t = &run.timeline;
        let machine = t.end();
        let pages = machine.cache.max_idx().max(1);
        let view = strip::View {
            first: 0,
            end: pages,
            width: width.max(1),
        };
        let mut rgba = Vec::new();
        strip::render(machine, view, Some(pages / 2), &[], &mut rgba);
        let mut px = vec![0u8; xa_pixels::WIDTH * xa_pixels::HEIGHT * 4];
        for node in machine.cache.xa.nodes_in_range(0, pages - 1, NODES) {
            xa_pixels::render(&node, &mut px);
        }
        let step = t.len() * 3 / 4;
        let sim = t.simulation_at(step);
        for e in t.events_of(step + 1) {
            std::hint::black_box(event_line(&e));
        }
        std::hint::black_box((sim.step_count(), rgba.len(), px[0]));
    }
}

/// Jumps to `far` and back to `step` (inside its access after `applied`
/// events), letting the app render each before the next frame.
pub async fn rehearse_jump(
    d: &yew::UseReducerDispatcher<AppState>,
    far: u64,
    step: u64,
    applied: Option<usize>,
) {
    d.dispatch(Action::Seek(far));
    microtask().await;
    match applied {
        Some(a) if a > 0 => d.dispatch(Action::JumpToEvent(step, a - 1)),
        _ => d.dispatch(Action::Seek(step)),
    }
    microtask().await;
}

/// Yields until the microtasks queued so far, Yew's render among them,
/// have run.
async fn microtask() {
    let _ = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(
        &wasm_bindgen::JsValue::NULL,
    ))
    .await;
}
