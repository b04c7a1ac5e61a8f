//! The banner that names a rejected parameter; the last good state stays.

use yew::prelude::*;

use crate::app::AppContext;
use crate::state::Action;

#[component]
pub fn Banner() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let Some((field, message)) = state.banner.clone() else {
        return html! {};
    };
    let dismiss = {
        let d = state.dispatcher();
        Callback::from(move |_| d.dispatch(Action::DismissBanner))
    };
    html! {
        <div class="banner" role="alert" data-testid="banner">
            <strong>{ format!("{field}: ") }</strong>{ message }
            <span class="banner-note">{ " (the view keeps the last good scenario)" }</span>
            <button onclick={dismiss} aria-label="dismiss">{ "×" }</button>
        </div>
    }
}
