//! The checkpoints of a view's timelines built with `Indexing::Later`
//! (see `use_build`), taken once the view is drawn: each timeline's
//! second run, in slices of a task each (`Timeline::index_builder`, then
//! `Timeline::set_index`). Until then the view seeks from the start.

use crate::slices::run_in_tasks;
use crate::state::{Built, CHECKPOINT_BUDGET};

/// Indexes each of `built`'s timelines that is not, one after another;
/// stops, leaving the rest, once `still_wanted` says no.
pub async fn index_timelines(built: &Built, still_wanted: impl Fn() -> bool) {
    // A second run's machine is held as the end for a whole spare
    // position; a view whose spares are narrow frees it at once, before
    // the next kernel's run makes its own.
    let whole_spares = crate::seekers::whole_spares(built);
    for side in &built.sides {
        let timeline = &side.timeline;
        let Some(mut builder) = timeline.index_builder(CHECKPOINT_BUDGET) else {
            continue;
        };
        // With a task's break before the first slice and after the last
        // (`run_in_tasks`): the second run's machine takes its arena's
        // room in pages first touched, and the next kernel's (or the
        // rehearsal of a jump) follows the last slice. In a slice's task
        // they took the 16 GiB comparison's warm-up to tasks of 64 to 82
        // ms (2026-12-07). A run done is kept even if the view went
        // meanwhile: the cache may hold its timeline for the next.
        if !run_in_tasks(&mut |n| builder.advance(n), &still_wanted).await {
            return;
        }
        timeline.set_index(builder);
        if !whole_spares {
            timeline.release_end();
        }
    }
}
