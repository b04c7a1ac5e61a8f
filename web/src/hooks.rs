//! The app's effects, one hook each: building the view's timelines, the
//! page's address and history, the play loop, the keyboard, a dropped
//! recording or probe report, a recording in the page's link, the event
//! check of a recording, the placing of a seed preset's story, the
//! rehearsal of a jump after load; whether an element is in sight (or
//! still below it), a value once it has stood still, and the step drawn
//! on the scrubber.

mod use_build;
mod use_file_drop;
mod use_history;
mod use_in_sight;
mod use_keys;
mod use_play;
mod use_real_check;
mod use_recording_link;
mod use_seed_story;
mod use_step_canvas;
mod use_still;
mod use_warm_up;

pub use use_build::use_build;
pub use use_file_drop::use_file_drop;
pub use use_history::use_history;
pub use use_in_sight::{use_below_sight, use_in_sight};
pub use use_keys::{use_keys, Keys};
pub use use_play::use_play;
pub use use_real_check::use_real_check;
pub use use_recording_link::use_recording_link;
pub use use_seed_story::use_seed_story;
pub use use_step_canvas::{use_step_canvas, StepMark};
pub use use_still::use_still;
pub use use_warm_up::use_warm_up;

/// Resolves at the browser's next animation frame.
pub async fn next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = gloo::utils::window().request_animation_frame(&resolve);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Resolves in a task of its own, as soon as the browser has run what
/// waits (input, and a frame when one is due): a message posted to
/// oneself, which unlike a zero timeout is never held back to 4 ms, and
/// unlike an animation frame does not leave the rest of the frame idle.
pub async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let Ok(channel) = web_sys::MessageChannel::new() else {
            let _ = gloo::utils::window().request_animation_frame(&resolve);
            return;
        };
        channel.port1().set_onmessage(Some(&resolve));
        let _ = channel.port2().post_message(&wasm_bindgen::JsValue::NULL);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
