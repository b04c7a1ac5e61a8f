//! A rehearsal, once after load, of the work a jump does. The browser
//! compiles and optimises wasm code when it first runs; without this, the
//! user's first jump pays for that and takes two frames. Measured on
//! 2026-12-03 (a jump 1.5 s after the view was ready, to 3/8 of the run,
//! from input to the next frame; 8 loads each, built dists alternating):
//! median 16.9 ms with the rehearsal, 30.2 ms without; the second jump
//! took 21.7 and 23.5 ms.
//!
//! The rehearsal is real jumps, within one task: to a step restored from
//! a checkpoint, to the end, and back. Every render happens before the
//! browser paints, so the user sees nothing.

use crate::state::{Action, State};

/// Jumps to each of `stops`, then back to `step` (inside its access after
/// `applied` events), letting the app render each before the next frame.
pub async fn rehearse_jumps(
    d: &yew::UseReducerDispatcher<State>,
    stops: &[u64],
    step: u64,
    applied: Option<usize>,
) {
    for &stop in stops {
        d.dispatch(Action::Seek(stop));
        microtask().await;
    }
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
