//! The first visit's explanation: one short paragraph on what an access
//! is, what the strip shows and what the banner means, until it is
//! dismissed (remembered in the browser's local storage), by its button
//! or by Esc. On a phone it starts folded to one line.

use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The local-storage key that says the explanation was dismissed.
const DISMISSED: &str = "folioscope-intro-dismissed";

/// The widest page, in CSS pixels, that counts as a phone's (as the
/// stylesheet's narrowest media query does).
const NARROW_PX: f64 = 600.0;

fn storage() -> Option<web_sys::Storage> {
    gloo::utils::window().local_storage().ok().flatten()
}

#[component]
pub fn Intro() -> Html {
    let shown = use_state(|| {
        storage()
            .and_then(|s| s.get_item(DISMISSED).ok().flatten())
            .is_none()
    });
    // On a phone the explanation starts folded to one line, so that the
    // strip is on the first screen.
    let narrow = use_state(|| {
        gloo::utils::window()
            .inner_width()
            .ok()
            .and_then(|w| w.as_f64())
            .is_some_and(|w| w <= NARROW_PX)
    });
    let dismiss = {
        let shown = shown.clone();
        Callback::from(move |_: ()| {
            if let Some(s) = storage() {
                let _ = s.set_item(DISMISSED, "1");
            }
            shown.set(false);
        })
    };
    // Esc closes it, as it closes every overlay.
    {
        let dismiss = dismiss.clone();
        use_effect_with(*shown, move |&shown| {
            let listener = shown.then(|| {
                gloo::events::EventListener::new(&gloo::utils::window(), "keydown", move |e| {
                    let key = e
                        .dyn_ref::<web_sys::KeyboardEvent>()
                        .map(web_sys::KeyboardEvent::key);
                    if key.as_deref() == Some("Escape") {
                        dismiss.emit(());
                    }
                })
            });
            move || drop(listener)
        });
    }
    if !*shown {
        return html! {};
    }
    let dismiss = dismiss.reform(|_: MouseEvent| ());
    html! {
        <div class="intro" data-testid="intro" role="note">
            <details open={!*narrow}>
            <summary>{ "How to read this page" }</summary>
            <p>
                { "folioscope runs a model of Linux's page cache on a scenario, one " }<strong>{ "access" }</strong>
                { " at a time: a page touched through a file mapping (a page fault) or one read() call. The " }
                <strong>{ "strip" }</strong>
                { " is the file, page 0 at the left: each column fills from its foot with the share of its pages in the page cache, coloured by folio order (darker is larger), evicted pages hang from its top, the band above says how pages are mapped and the band below where the readahead window is. Hover over it to inspect a page. A " }
                <strong>{ "banner" }</strong>
                { ", when one shows, names what in a link or an edit the app could not use and what it did instead; in compare mode a bar says where the kernels part." }
            </p>
            </details>
            <button onclick={dismiss} data-testid="intro-dismiss">{ "Got it" }</button>
        </div>
    }
}
