//! folioscope-web: the Yew app that animates the page-cache model.
//!
//! The app's state is a value ([`state::State`]), changed only by its
//! reducer; components read the slice of it they draw through contexts
//! ([`context`]) and send actions; the effects are hooks ([`hooks`]). The
//! timelines are built outside the reducer (`hooks::use_build`) and the
//! simulations stand outside the state ([`seekers`]). The model itself is
//! `folioscope-core`, the same code `folioscope run` uses.

mod app;
mod canvas;
mod components;
mod context;
mod gzip;
mod hooks;
mod indexing;
mod palette;
mod panic;
mod play_clock;
mod predict;
mod probe;
mod real_lane;
mod recording;
mod seekers;
mod slices;
mod state;
mod strip;
mod url;
mod warm;
mod xa_pixels;

fn main() {
    panic::install();
    yew::Renderer::<app::App>::new().render();
}
