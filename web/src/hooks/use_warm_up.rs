//! Once the first view is built, a rehearsal of the work a jump does (see
//! `warm.rs`), then `data-warm="1"` on the root element, which tests wait
//! for as a user's first move would. `data-ready` says whether the view on
//! screen is built, for tests that change it, and a `folioscope-ready`
//! performance mark when it became so.

use yew::prelude::*;

use crate::context::Dispatch;

/// After the first frames are on screen.
const WARM_UP_DELAY_MS: u32 = 150;

/// `built`: whether the view's timelines are there; `len`: its accesses;
/// `here`: where the view stands (the step, and the events applied inside
/// the next access), to come back to; none while playing, which the
/// rehearsal would disturb.
#[hook]
pub fn use_warm_up(built: bool, len: u64, here: Option<(u64, Option<usize>)>, dispatch: Dispatch) {
    let done = use_mut_ref(|| false);
    let here_now = use_mut_ref(|| None::<(u64, Option<usize>)>);
    *here_now.borrow_mut() = here;
    let here = here_now;
    use_effect_with(built, move |&built| {
        if let Some(root) = gloo::utils::document().document_element() {
            let _ = root.set_attribute("data-ready", if built { "1" } else { "0" });
        }
        if built {
            // The moment a view's timelines are drawn, on the page's clock
            // (the timing test reads the first: the first render).
            if let Some(p) = gloo::utils::window().performance() {
                let _ = p.mark("folioscope-ready");
            }
        }
        if !built || *done.borrow() {
            return;
        }
        *done.borrow_mut() = true;
        let stops = [len * 3 / 4, len];
        gloo::timers::callback::Timeout::new(WARM_UP_DELAY_MS, move || {
            let back = *here.borrow();
            wasm_bindgen_futures::spawn_local(async move {
                if let Some((step, applied)) = back {
                    crate::warm::rehearse_jumps(&dispatch, &stops, step, applied).await;
                }
                if let Some(root) = gloo::utils::document().document_element() {
                    let _ = root.set_attribute("data-warm", "1");
                }
            });
        })
        .forget();
    });
}
