//! The banner that names a rejected parameter, or the parameters of a link
//! the view had to ignore, and what the app did instead.

use yew::prelude::*;

use crate::context::{use_handles, use_ui};
use crate::state::Action;

#[component]
pub fn Banner() -> Html {
    let d = use_handles().dispatch;
    let Some(b) = use_ui().banner else {
        return html! {};
    };
    let dismiss = { Callback::from(move |_| d.dispatch(Action::DismissBanner)) };
    html! {
        <div class="banner" role="alert" data-testid="banner">
            <strong>{ format!("{}: ", b.field) }</strong>{ b.message }
            <span class="banner-note">{ format!(" ({})", b.note) }</span>
            <button onclick={dismiss} aria-label="dismiss">{ "×" }</button>
        </div>
    }
}
