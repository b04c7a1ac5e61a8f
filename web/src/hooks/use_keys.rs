//! Keyboard shortcuts, as the help overlay lists them; a presentation
//! clicker sends PageDown, PageUp and `b`. PageDown walks whatever the
//! speaker is doing: a predict question (ask, reveal, the next one), a
//! story (the next stop), or else the run, one event at a time.

use folioscope_scenario::link::Mode;
use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::context::Dispatch;
use crate::state::{Action, State};

/// What the keys act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keys {
    pub mode: Mode,
    /// A story is on.
    pub story: bool,
    /// Predict mode is on.
    pub predicting: bool,
    /// A question is open: whether its answer is shown.
    pub question: Option<bool>,
}

impl Keys {
    pub fn of(s: &State) -> Keys {
        Keys {
            mode: s.mode,
            story: !s.story.is_none(),
            predicting: s.predict.is_some(),
            question: s.question.as_ref().map(|q| q.revealed),
        }
    }
}

/// The action of a key.
fn action_of(key: &str, shift: bool, k: Keys) -> Option<Action> {
    match (key, shift) {
        (" ", _) => Some(Action::TogglePlay),
        ("ArrowRight", false) => Some(Action::StepBy(1)),
        ("ArrowLeft", false) => Some(Action::StepBy(-1)),
        ("ArrowRight", true) => Some(Action::StepEvent(true)),
        ("ArrowLeft", true) => Some(Action::StepEvent(false)),
        ("Home", _) => Some(Action::Seek(0)),
        ("End", _) => Some(Action::Seek(u64::MAX)),
        ("?", _) => Some(Action::ToggleHelp),
        ("Escape", _) => Some(Action::Escape),
        // An open question first: reveal it, then ask the next one.
        ("PageDown", _) if k.question == Some(false) => Some(Action::Reveal),
        ("PageDown", _) if k.question == Some(true) => Some(Action::Ask),
        ("PageUp", _) if k.question.is_some() => Some(Action::CloseQuestion),
        ("PageDown", _) if k.story => Some(Action::NextStop(true)),
        ("PageUp", _) if k.story => Some(Action::NextStop(false)),
        ("PageDown", _) if k.predicting => Some(Action::Ask),
        ("PageDown", _) => Some(Action::StepEvent(true)),
        ("PageUp", _) => Some(Action::StepEvent(false)),
        ("b" | "B" | ".", _) if k.mode == Mode::Presenter => Some(Action::ToggleBlank),
        _ => None,
    }
}

/// Whether `key`, typed into an element named `tag`, is a shortcut:
/// Escape always, a clicker's page keys everywhere but in a text area
/// (the answer field of a question has the focus while the audience
/// answers), other keys only outside fields. Space and Enter on a focused
/// button, link or summary press it, as they do on every page; elsewhere
/// Space plays.
fn is_shortcut_in(tag: &str, key: &str) -> bool {
    match tag {
        "TEXTAREA" => key == "Escape",
        "INPUT" | "SELECT" => matches!(key, "Escape" | "PageDown" | "PageUp"),
        "BUTTON" | "A" | "SUMMARY" => !matches!(key, " " | "Enter"),
        _ => true,
    }
}

#[hook]
pub fn use_keys(keys: Keys, dispatch: Dispatch) {
    use_effect_with(keys, move |&keys| {
        let window = gloo::utils::window();
        let options = EventListenerOptions::enable_prevent_default();
        let listener = EventListener::new_with_options(&window, "keydown", options, move |e| {
            let Some(e) = e.dyn_ref::<KeyboardEvent>() else {
                return;
            };
            let tag = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .map(|t| t.tag_name())
                .unwrap_or_default();
            if !is_shortcut_in(&tag, &e.key()) {
                return;
            }
            if let Some(a) = action_of(&e.key(), e.shift_key(), keys) {
                e.prevent_default();
                dispatch.dispatch(a);
            }
        });
        move || drop(listener)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(story: bool, predicting: bool, question: Option<bool>) -> Keys {
        Keys {
            mode: Mode::Presenter,
            story,
            predicting,
            question,
        }
    }

    fn page_down(k: Keys) -> &'static str {
        match action_of("PageDown", false, k) {
            Some(Action::Reveal) => "reveal",
            Some(Action::Ask) => "ask",
            Some(Action::NextStop(true)) => "next stop",
            Some(Action::StepEvent(true)) => "next event",
            _ => "other",
        }
    }

    #[test]
    fn page_down_walks_the_question_then_the_story_then_the_run() {
        assert_eq!(page_down(keys(false, true, None)), "ask");
        assert_eq!(page_down(keys(false, true, Some(false))), "reveal");
        assert_eq!(page_down(keys(false, true, Some(true))), "ask");
        assert_eq!(page_down(keys(true, true, Some(false))), "reveal");
        assert_eq!(page_down(keys(true, true, None)), "next stop");
        assert_eq!(page_down(keys(true, false, None)), "next stop");
        assert_eq!(page_down(keys(false, false, None)), "next event");
    }

    #[test]
    fn fields_keep_their_keys_but_escape_and_the_clickers() {
        assert!(is_shortcut_in("INPUT", "PageDown") && is_shortcut_in("INPUT", "Escape"));
        assert!(!is_shortcut_in("INPUT", "ArrowRight") && !is_shortcut_in("SELECT", " "));
        assert!(!is_shortcut_in("TEXTAREA", "PageDown") && is_shortcut_in("TEXTAREA", "Escape"));
        assert!(is_shortcut_in("DIV", "b") && is_shortcut_in("DIV", " "));
        assert!(!is_shortcut_in("BUTTON", " ") && !is_shortcut_in("A", "Enter"));
        assert!(is_shortcut_in("BUTTON", "PageDown"));
    }
}
