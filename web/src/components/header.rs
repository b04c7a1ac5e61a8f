//! The title bar.

use yew::prelude::*;

use crate::context::use_setup;

#[component]
pub fn Header() -> Html {
    let s = use_setup().scenario;
    html! {
        <header class="header">
            <h1>{ "folioscope" }</h1>
            <span class="subtitle">{ "the Linux page cache, visible" }</span>
            <crate::components::open_file::OpenButtons />
            <crate::components::share::ShareButtons />
            <span class="kernel" data-testid="kernel">{ s.kernel.label() }</span>
        </header>
    }
}
