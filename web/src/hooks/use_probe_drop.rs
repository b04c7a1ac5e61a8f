//! A `folioscope probe --json` report dropped anywhere on the page, or
//! chosen with the header's button ([`open_file`]): read, compared with
//! the model at its step (`probe.rs`), and shown.

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::context::Dispatch;
use crate::state::{Action, Kept};

#[hook]
pub fn use_probe_drop(dispatch: Dispatch) {
    use_effect_with((), move |_| {
        let window = gloo::utils::window();
        let options = EventListenerOptions::enable_prevent_default();
        let over = EventListener::new_with_options(&window, "dragover", options, |e| {
            e.prevent_default();
        });
        let dropped = EventListener::new_with_options(&window, "drop", options, move |e| {
            e.prevent_default();
            let Some(file) = e
                .dyn_ref::<web_sys::DragEvent>()
                .and_then(|e| e.data_transfer())
                .and_then(|t| t.files())
                .and_then(|f| f.get(0))
            else {
                return;
            };
            open_file(file, dispatch.clone());
        });
        move || {
            drop(over);
            drop(dropped);
        }
    });
}

/// Reads a real kernel's file (a probe report) and shows it, or names in
/// a banner what is wrong with it.
pub fn open_file(file: web_sys::File, d: Dispatch) {
    wasm_bindgen_futures::spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(file.text())
            .await
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        match crate::probe::load(&text) {
            Ok((overlay, scenario, step)) => {
                d.dispatch(Action::Probe(Kept::new(overlay), scenario, step))
            }
            Err((field, message)) => {
                d.dispatch(Action::Reject(format!("probe report {field}"), message))
            }
        }
    });
}
