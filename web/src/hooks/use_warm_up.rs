//! Once a view is built and drawn, work a user's first jumps would
//! otherwise do: the checkpoints its build left for later
//! (`indexing.rs`); for the first view, a rehearsal of a jump (see
//! `warm.rs`); for every view, the seekers' spare positions
//! (`Seekers::make_spares`). Then `data-warm="1"` on the root element,
//! which tests wait for as a user's first move would, and a
//! `folioscope-warm` performance mark. `data-ready` says whether the view
//! on screen is built, for tests that change it, and a `folioscope-ready`
//! performance mark when it became so.

use yew::prelude::*;

use crate::context::Dispatch;
use crate::hooks::next_task;
use crate::seekers::SeekersHandle;
use crate::state::{Built, Kept};

/// After the first frames are on screen.
const WARM_UP_DELAY_MS: u32 = 150;

/// Free heap the first jumps find once the view is warm: the counts a
/// position keeps (its `LeafBins`, its bins) are made as it is first
/// drawn. On the 16 GiB comparison they grew the wasm memory by 7 MB
/// over the timing test's jumps, and one jump there (the test's last, to
/// the spare position) took 15 to 20 ms in six runs of e2e 06, against
/// 7 and 10 ms in two runs with this reserve (2026-12-06). Kept in
/// pieces (`FREE_PIECE`), which the holes the heap has already meet.
const JUMP_RESERVE: usize = 8 << 20;

/// `built`: the view's timelines, once there; `len`: its accesses;
/// `here`: where the view stands (the step, and the events applied inside
/// the next access), to come back to; none while playing, which the
/// rehearsal would disturb.
#[hook]
pub fn use_warm_up(
    built: Option<Kept<Built>>,
    len: u64,
    here: Option<(u64, Option<usize>)>,
    dispatch: Dispatch,
    seekers: SeekersHandle,
) {
    let rehearsed = use_mut_ref(|| false);
    let here_now = use_mut_ref(|| None::<(u64, Option<usize>)>);
    *here_now.borrow_mut() = here;
    let here = here_now;
    let shown = use_mut_ref(|| None::<Kept<Built>>);
    shown.borrow_mut().clone_from(&built);
    use_effect_with(built, move |built| {
        if let Some(root) = gloo::utils::document().document_element() {
            let _ = root.set_attribute("data-ready", if built.is_some() { "1" } else { "0" });
            // A view built anew is warm once its own warm-up is done.
            let _ = root.set_attribute("data-warm", "0");
        }
        let Some(built) = built.clone() else {
            return;
        };
        // The moment a view's timelines are drawn, on the page's clock
        // (the timing test reads the first: the first render).
        if let Some(p) = gloo::utils::window().performance() {
            let _ = p.mark("folioscope-ready");
        }
        let rehearse = !std::mem::replace(&mut *rehearsed.borrow_mut(), true);
        let stops = [len * 3 / 4, len];
        gloo::timers::callback::Timeout::new(WARM_UP_DELAY_MS, move || {
            wasm_bindgen_futures::spawn_local(async move {
                let on_screen = || shown.borrow().as_ref() == Some(&built);
                crate::indexing::index_timelines(&built, on_screen).await;
                if !on_screen() {
                    return;
                }
                let back = *here.borrow();
                if let (true, Some((step, applied))) = (rehearse, back) {
                    crate::warm::rehearse_jumps(&dispatch, &stops, step, applied).await;
                    // The spares in a task of their own, not the
                    // rehearsal's: together they took a task of 36 to 62
                    // ms on the memory cgroup preset, the rehearsal 26 to
                    // 48 of it and the spares 10 to 14 (four loads,
                    // 2026-12-07). Eight loads of each, alternated: a task
                    // over 50 ms after the first paint in 5 of 8 (52 to 97
                    // ms) against none.
                    next_task().await;
                    if !on_screen() {
                        return;
                    }
                }
                seekers.0.make_spares(&built);
                crate::reserve_heap(JUMP_RESERVE, crate::FREE_PIECE);
                if let Some(root) = gloo::utils::document().document_element() {
                    let _ = root.set_attribute("data-warm", "1");
                }
                if let Some(p) = gloo::utils::window().performance() {
                    let _ = p.mark("folioscope-warm");
                }
            });
        })
        .forget();
    });
}
