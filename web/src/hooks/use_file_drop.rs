//! A file dropped anywhere on the page: a recording of a real program
//! (`folioscope record`) or a `folioscope probe --json` report, read and
//! shown by `recording::open_file`, which "Open recording…" and "Open
//! probe report…" (`components/open_file.rs`) call too.

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::context::Dispatch;

#[hook]
pub fn use_file_drop(dispatch: Dispatch) {
    use_effect_with((), move |_| {
        let window = gloo::utils::window();
        let options = EventListenerOptions::enable_prevent_default();
        let over = EventListener::new_with_options(&window, "dragover", options, |e| {
            e.prevent_default();
        });
        let dropped = EventListener::new_with_options(&window, "drop", options, move |e| {
            e.prevent_default();
            if let Some(file) = e
                .dyn_ref::<web_sys::DragEvent>()
                .and_then(|e| e.data_transfer())
                .and_then(|t| t.files())
                .and_then(|f| f.get(0))
            {
                crate::recording::open_file(file, dispatch.clone());
            }
        });
        move || {
            drop(over);
            drop(dropped);
        }
    });
}
