//! A panic shows an overlay with the message instead of leaving a dead page.

use wasm_bindgen::JsCast;

pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info.to_string();
        web_sys::console::error_1(&format!("folioscope panicked: {msg}").into());
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let Ok(el) = doc.create_element("div") else {
            return;
        };
        el.set_class_name("panic-overlay");
        el.set_attribute("role", "alert").ok();
        el.set_text_content(Some(&format!(
            "folioscope hit an internal error and stopped: {msg}. Reload the page to start again."
        )));
        if let Some(body) = doc.body() {
            let _ = body.append_child(el.unchecked_ref());
        }
    }));
}
