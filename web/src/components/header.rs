//! The title bar.

use yew::prelude::*;

use crate::app::AppContext;

#[component]
pub fn Header() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let s = &state.scenario;
    html! {
        <header class="header">
            <h1>{ "folioscope" }</h1>
            <span class="subtitle">{ "the Linux page cache, visible" }</span>
            <crate::components::share::ShareButtons />
            <span class="kernel" data-testid="kernel">{ s.kernel.label() }</span>
        </header>
    }
}
