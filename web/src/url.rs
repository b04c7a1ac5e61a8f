//! The page's address: the link of the view on screen, kept in the
//! browser's history so that back and forward walk through the user's
//! steps. The link's format is `folioscope_scenario::link`'s.

use web_sys::window;

/// The query of the page's address, with its `?`.
pub fn query() -> String {
    window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// The app's address without query or fragment: the base of its links.
pub fn base() -> String {
    window()
        .map(|w| {
            let l = w.location();
            format!(
                "{}{}",
                l.origin().unwrap_or_default(),
                l.pathname().unwrap_or_default()
            )
        })
        .unwrap_or_default()
}

/// The address links made to be shared start with: the published site
/// the build names (`FOLIOSCOPE_SITE_URL`), or else this page's own.
pub fn share_base() -> String {
    folioscope_scenario::link::site_url()
        .map(str::to_string)
        .unwrap_or_else(base)
}

/// The page's full address.
pub fn href() -> String {
    window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default()
}

/// Records `url` as a new history entry, or replaces the current one.
pub fn set(url: &str, push: bool) {
    let Some(h) = window().and_then(|w| w.history().ok()) else {
        return;
    };
    let _ = if push {
        h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url))
    } else {
        h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url))
    };
}

/// Puts `text` on the clipboard; browsers that refuse still show it.
pub fn copy(text: &str) {
    if let Some(w) = window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}
