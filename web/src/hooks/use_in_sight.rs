//! Whether an element is in sight, or still below it: the panels that
//! need not follow every step while nobody sees them ask it.

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

/// Whether the first element inside `node` that matches `selector` lies
/// wholly below the viewport (the page is not scrolled down to it yet),
/// as an IntersectionObserver tells; false when there is no such element.
/// An element that touches the viewport's edge counts as in sight, as the
/// observer says.
/// The element is looked up again after each render, since the block may
/// make it anew (a view built, a panel added).
#[hook]
pub fn use_below_sight(node: &NodeRef, selector: Option<&'static str>) -> bool {
    let below = use_state(|| false);
    let observer = use_mut_ref(|| None::<Watch>);
    {
        let (observer, below) = (observer.clone(), below.clone());
        use_effect_with((), move |_| {
            let callback = wasm_bindgen::closure::Closure::<dyn FnMut(js_sys::Array)>::new(
                move |entries: js_sys::Array| {
                    if let Some(e) = entries
                        .iter()
                        .last()
                        .and_then(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
                    {
                        let under = gloo::utils::window()
                            .inner_height()
                            .ok()
                            .and_then(|h| h.as_f64())
                            .is_some_and(|h| e.target().get_bounding_client_rect().top() >= h);
                        below.set(!e.is_intersecting() && under);
                    }
                },
            );
            let made = web_sys::IntersectionObserver::new(callback.as_ref().unchecked_ref()).ok();
            *observer.borrow_mut() = made.map(|o| Watch {
                observer: o,
                _callback: callback,
                watched: None,
            });
            move || {
                if let Some(w) = observer.borrow_mut().take() {
                    w.observer.disconnect();
                }
            }
        });
    }
    {
        let (node, observer, below) = (node.clone(), observer.clone(), below.clone());
        // After every render: the element may be another one now.
        use_effect(move || {
            let found = selector.and_then(|s| {
                node.cast::<web_sys::Element>()
                    .and_then(|el| el.query_selector(s).ok().flatten())
            });
            if let Some(w) = observer.borrow_mut().as_mut() {
                if w.watched != found {
                    if let Some(old) = w.watched.take() {
                        w.observer.unobserve(&old);
                    }
                    match &found {
                        Some(el) => w.observer.observe(el),
                        None => below.set(false),
                    }
                    w.watched = found;
                }
            }
        });
    }
    *below
}

/// An observer, its callback, and the element it watches.
struct Watch {
    observer: web_sys::IntersectionObserver,
    _callback: wasm_bindgen::closure::Closure<dyn FnMut(js_sys::Array)>,
    watched: Option<web_sys::Element>,
}
