//! Keyboard shortcuts, as the help overlay lists them; a presentation
//! clicker sends PageDown, PageUp and `b`.

use folioscope_scenario::link::Mode;
use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::context::Dispatch;
use crate::state::Action;

/// The action of a key, in `mode`, with predict mode on or off and its
/// question asked and not yet answered (`Some(true)`).
fn action_of(
    key: &str,
    shift: bool,
    mode: Mode,
    predicting: bool,
    asking: Option<bool>,
) -> Option<Action> {
    match (key, shift) {
        (" ", _) => Some(Action::TogglePlay),
        ("ArrowRight", false) => Some(Action::StepBy(1)),
        ("ArrowLeft", false) => Some(Action::StepBy(-1)),
        ("ArrowRight", true) => Some(Action::StepEvent(true)),
        ("ArrowLeft", true) => Some(Action::StepEvent(false)),
        ("Home", _) => Some(Action::Seek(0)),
        ("End", _) => Some(Action::Seek(u64::MAX)),
        ("?", _) => Some(Action::ToggleHelp),
        ("Escape", _) => Some(Action::DismissBanner),
        ("PageDown", _) if predicting => match asking {
            Some(true) => None,
            _ => Some(Action::Ask),
        },
        ("PageDown", _) => Some(Action::StepEvent(true)),
        ("PageUp", _) => Some(Action::StepEvent(false)),
        ("b" | "B" | ".", _) if mode == Mode::Presenter => Some(Action::ToggleBlank),
        _ => None,
    }
}

#[hook]
pub fn use_keys(mode: Mode, predicting: bool, asking: Option<bool>, dispatch: Dispatch) {
    use_effect_with(
        (mode, predicting, asking),
        move |&(mode, predicting, asking)| {
            let window = gloo::utils::window();
            let options = EventListenerOptions::enable_prevent_default();
            let listener = EventListener::new_with_options(&window, "keydown", options, move |e| {
                let Some(e) = e.dyn_ref::<KeyboardEvent>() else {
                    return;
                };
                // Typing in a field is not a shortcut; Escape, which types
                // nothing, still dismisses the banner.
                if let Some(t) = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                {
                    if matches!(t.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
                        && e.key() != "Escape"
                    {
                        return;
                    }
                    // Space and Enter press a focused button, link or
                    // summary, as they do on every page; elsewhere Space
                    // plays.
                    if matches!(t.tag_name().as_str(), "BUTTON" | "A" | "SUMMARY")
                        && matches!(e.key().as_str(), " " | "Enter")
                    {
                        return;
                    }
                }
                if let Some(a) = action_of(&e.key(), e.shift_key(), mode, predicting, asking) {
                    e.prevent_default();
                    dispatch.dispatch(a);
                }
            });
            move || drop(listener)
        },
    );
}
