//! Places a seed preset's story on the view's timelines, outside the
//! reducer: the stops' steps and figures come from the model's runs
//! (`folioscope_scenario::story::seed_story`), so they wait until the
//! timelines are built, and the story bar says "placing the story…"
//! for the frame it takes.

use folioscope_core::Timeline;
use folioscope_scenario::story::seed_story;
use yew::prelude::*;

use crate::context::Dispatch;
use crate::hooks::next_frame;
use crate::state::{Action, Built, Kept};

/// Places the story of `wanted`'s seed preset on its timelines, once
/// for each view that needs it.
#[hook]
pub fn use_seed_story(wanted: Option<(String, Kept<Built>)>, dispatch: Dispatch) {
    use_effect_with(wanted, move |wanted| {
        let Some((preset, built)) = wanted.clone() else {
            return;
        };
        wasm_bindgen_futures::spawn_local(async move {
            // The note that the story is being placed is painted first.
            next_frame().await;
            let timelines: Vec<&Timeline> = built.sides.iter().map(|s| &*s.timeline).collect();
            let stops = seed_story(&preset, timelines.as_slice()).unwrap_or_default();
            dispatch.dispatch(Action::StoryPlaced(built.clone(), stops));
        });
    });
}
