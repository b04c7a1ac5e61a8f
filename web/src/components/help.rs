//! The keyboard help overlay (`?`).

use yew::prelude::*;

use crate::context::use_handles;
use crate::state::Action;

#[component]
pub fn Help() -> Html {
    let d = use_handles().dispatch;
    let close = { Callback::from(move |_| d.dispatch(Action::ToggleHelp)) };
    let keys = [
        ("space", "play / pause"),
        ("← →", "one access back / forward"),
        ("shift + ← →", "one event back / forward"),
        ("Home / End", "first / last step"),
        (
            "PageDown / PageUp",
            "a clicker's keys: the story's next / previous stop; in predict mode ask, reveal, ask the next; else one event forward / back",
        ),
        ("b", "blank the screen (presenter mode)"),
        ("?", "this help"),
        ("Esc", "close every overlay: help, a question, a dialog, a banner"),
    ];
    html! {
        <div class="overlay" data-testid="help" onclick={close}>
            <div class="help">
                <h2>{ "Keyboard" }</h2>
                <table>
                    { for keys.iter().map(|(k, v)| html! { <tr><td class="key">{ *k }</td><td>{ *v }</td></tr> }) }
                </table>
                <p class="muted">{ "Click anywhere to close." }</p>
            </div>
        </div>
    }
}
