//! folioscope-web: the Yew app that animates the page-cache model.
//!
//! The app holds one [`state::AppState`], changed only by its reducer;
//! components render the model's state and events and send actions. The
//! model itself is `folioscope-core`, the same code `folioscope run` uses.

mod app;
mod components;
mod palette;
mod panic;
mod predict;
mod probe;
mod state;
mod strip;
mod url;
mod warm;
mod xa_pixels;

fn main() {
    panic::install();
    yew::Renderer::<app::App>::new().render();
}
