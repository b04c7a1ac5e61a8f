//! The banner that names a rejected parameter, or the parameters of a link
//! the view had to ignore, and what the app did instead.

use yew::prelude::*;

use crate::app::AppContext;
use crate::state::Action;

#[component]
pub fn Banner() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let Some(b) = state.banner.clone() else {
        return html! {};
    };
    let dismiss = {
        let d = state.dispatcher();
        Callback::from(move |_| d.dispatch(Action::DismissBanner))
    };
    html! {
        <div class="banner" role="alert" data-testid="banner">
            <strong>{ format!("{}: ", b.field) }</strong>{ b.message }
            <span class="banner-note">{ format!(" ({})", b.note) }</span>
            <button onclick={dismiss} aria-label="dismiss">{ "×" }</button>
        </div>
    }
}
