//! The embedded frame's title line: the app's name, the pages in view
//! (the strips' heads have room only for their kernel and counters), and
//! a link to the full view of the same moment.

use folioscope_scenario::link::Mode;
use yew::prelude::*;

use crate::context::{use_handles, use_moment, use_setup, use_ui, use_zoom};
use crate::url;

#[component]
pub fn EmbedBar() -> Html {
    let zoom = use_zoom();
    html! {
        <div class="embed-bar">
            <strong>{ "folioscope" }</strong>
            <span class="muted" data-testid="zoom-embed">{ format!("pages {}..{} of {}", zoom.first, zoom.end.saturating_sub(1), zoom.pages) }</span>
            <FullViewLink />
        </div>
    }
}

/// The link to the full view of the same moment.
#[component]
fn FullViewLink() -> Html {
    // Subscribed to what the link holds, so that it follows the view.
    let _ = (use_setup(), use_moment(), use_zoom(), use_ui());
    let latest = use_handles().latest;
    let mut full = (*latest.get()).clone();
    full.mode = Mode::Full;
    let href = full.link(&url::base());
    html! {
        <a {href} target="_blank" rel="noopener" data-testid="full-view">{ "open the full view \u{2197}" }</a>
    }
}
