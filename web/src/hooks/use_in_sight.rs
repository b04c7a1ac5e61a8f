//! Whether an element is in sight, or still below it: the panels that
//! need not follow every step while nobody sees them ask it.

use wasm_bindgen::closure::Closure;
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
            let mut watch = Watch::new(margin, move |e| in_sight.set(e.is_intersecting()));
            if let Some(w) = watch.as_mut() {
                w.watch(node.cast::<web_sys::Element>());
            }
            move || drop(watch)
        });
    }
    *in_sight
}

/// Whether the first element inside `node` that matches `selector` lies
/// wholly below the viewport (the page is not scrolled down to it yet),
/// as an IntersectionObserver tells; false when there is no such element.
/// An element that touches the viewport's edge counts as in sight, as the
/// observer says. The element is looked up again after each render, since
/// the block may make it anew (a view built, a panel added).
#[hook]
pub fn use_below_sight(node: &NodeRef, selector: Option<&'static str>) -> bool {
    let below = use_state(|| false);
    let watch = use_mut_ref(|| None::<Watch>);
    {
        let (watch, below) = (watch.clone(), below.clone());
        use_effect_with((), move |_| {
            *watch.borrow_mut() = Watch::new("0px", move |e| {
                let under = gloo::utils::window()
                    .inner_height()
                    .ok()
                    .and_then(|h| h.as_f64())
                    .is_some_and(|h| e.target().get_bounding_client_rect().top() >= h);
                below.set(!e.is_intersecting() && under);
            });
            move || drop(watch.borrow_mut().take())
        });
    }
    {
        let (node, watch, below) = (node.clone(), watch.clone(), below.clone());
        // After every render: the element may be another one now.
        use_effect(move || {
            let found = selector.and_then(|s| {
                node.cast::<web_sys::Element>()
                    .and_then(|el| el.query_selector(s).ok().flatten())
            });
            if let Some(w) = watch.borrow_mut().as_mut() {
                if w.watched != found {
                    if found.is_none() {
                        below.set(false);
                    }
                    w.watch(found);
                }
            }
        });
    }
    *below
}

/// An IntersectionObserver, its callback, and the element it watches;
/// dropping it disconnects the observer.
struct Watch {
    observer: web_sys::IntersectionObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
    watched: Option<web_sys::Element>,
}

impl Watch {
    /// An observer with `margin` around the viewport that calls `on` with
    /// the latest entry of each report.
    fn new(
        margin: &str,
        mut on: impl FnMut(web_sys::IntersectionObserverEntry) + 'static,
    ) -> Option<Watch> {
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Some(e) = entries
                .iter()
                .last()
                .and_then(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
            {
                on(e);
            }
        });
        let options = web_sys::IntersectionObserverInit::new();
        options.set_root_margin(margin);
        let observer = web_sys::IntersectionObserver::new_with_options(
            callback.as_ref().unchecked_ref(),
            &options,
        )
        .ok()?;
        Some(Watch {
            observer,
            _callback: callback,
            watched: None,
        })
    }

    /// Watches `el` instead of what it watched.
    fn watch(&mut self, el: Option<web_sys::Element>) {
        if let Some(old) = self.watched.take() {
            self.observer.unobserve(&old);
        }
        if let Some(el) = &el {
            self.observer.observe(el);
        }
        self.watched = el;
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
