//! Whether an element is in sight: the panels that need not follow every
//! step while nobody sees them ask it.

use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Whether the element is in sight, or within `margin` of it (as CSS's
/// `margin` writes it), as an IntersectionObserver tells; true until it
/// first says otherwise.
#[hook]
pub fn use_in_sight(node: &NodeRef, margin: &'static str) -> bool {
    let in_sight = use_state(|| true);
    {
        let (node, in_sight) = (node.clone(), in_sight.clone());
        use_effect_with((), move |_| {
            let callback = wasm_bindgen::closure::Closure::<dyn FnMut(js_sys::Array)>::new(
                move |entries: js_sys::Array| {
                    if let Some(e) = entries
                        .iter()
                        .last()
                        .and_then(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
                    {
                        in_sight.set(e.is_intersecting());
                    }
                },
            );
            let options = web_sys::IntersectionObserverInit::new();
            options.set_root_margin(margin);
            let observer = web_sys::IntersectionObserver::new_with_options(
                callback.as_ref().unchecked_ref(),
                &options,
            )
            .ok();
            if let (Some(o), Some(el)) = (&observer, node.cast::<web_sys::Element>()) {
                o.observe(&el);
            }
            move || {
                if let Some(o) = observer {
                    o.disconnect();
                }
                drop(callback);
            }
        });
    }
    *in_sight
}
