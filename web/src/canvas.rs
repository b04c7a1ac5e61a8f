//! What every canvas of the app needs: its 2d context, and a size
//! measured once and again on each resize of the window.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The canvas's 2d context; none when the browser gives none.
pub fn context_2d(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
}

/// Runs `measure` now and on every resize of the window, until the
/// listener it returns is dropped: sizes are read here, not at each
/// draw, where reading one would force a layout.
pub fn measure_on_resize(measure: impl Fn() + 'static) -> gloo::events::EventListener {
    measure();
    gloo::events::EventListener::new(&gloo::utils::window(), "resize", move |_| measure())
}
