//! Builds the view's timelines outside the reducer: a few milliseconds
//! before the first paint, then in slices of accesses of at most some
//! tens of milliseconds, each a task of its own, so that the page stays
//! responsive and shows how far the build has come, all kernels side by
//! side in the core's `Lockstep`, which finds where each compared kernel
//! parts from the first on the way. A timeline
//! is built once per scenario and kernel: those of the view before are
//! kept until the next view is built, so adding or dropping a compared
//! kernel builds only what is new.

use std::cell::RefCell;
use std::rc::Rc;

use folioscope_core::{Indexing, Kernel, Lockstep, Timeline};
use folioscope_scenario::Scenario;
use yew::prelude::*;

use crate::context::{Dispatch, Setup};
use crate::hooks::{next_frame, next_task};
use crate::seekers::SeekersHandle;
use crate::slices::{now_ms, run_in_tasks, Slices, FRAME_WORK_MS};
use crate::state::{Action, Built, BuiltSide, Kept, Progress, CHECKPOINT_BUDGET};

/// Milliseconds of building before the first paint: enough that the
/// browser starts optimising the model's hot functions on another core
/// while it paints, so that the rest of the build runs in optimised code
/// sooner.
const FIRST_WORK_MS: f64 = 4.0;

/// Milliseconds between the build's reports of its progress, after the
/// first. Each report is a render of the heading and a frame's style,
/// layout and paint, 1 to 3 ms. Reported after every slice, they took
/// 40.4 ms of rendering of the 16 GiB backward sequential link's build,
/// every 250 ms 15.6 ms (one load traced each, 2026-12-06). Four
/// reports a second still move.
const PROGRESS_EVERY_MS: f64 = 250.0;

/// Timelines and first differences built before, by scenario (with its
/// kernel).
#[derive(Default)]
struct Cache {
    timelines: Vec<(Scenario, Rc<Timeline>)>,
    diffs: Vec<((Scenario, Scenario), Option<u64>)>,
}

impl Cache {
    fn timeline(&self, s: &Scenario) -> Option<Rc<Timeline>> {
        self.timelines
            .iter()
            .find(|(k, _)| k == s)
            .map(|(_, t)| t.clone())
    }

    fn diff(&self, a: &Scenario, b: &Scenario) -> Option<Option<u64>> {
        self.diffs
            .iter()
            .find(|((x, y), _)| x == a && y == b)
            .map(|(_, d)| *d)
    }

    /// Keeps only what the view of `scenarios` uses.
    fn keep(&mut self, scenarios: &[Scenario]) {
        self.timelines.retain(|(s, _)| scenarios.contains(s));
        self.diffs
            .retain(|((a, b), _)| a == &scenarios[0] && scenarios.contains(b));
    }
}

/// Starts the build of `setup`'s timelines whenever the view has none.
#[hook]
pub fn use_build(setup: &Setup, dispatch: Dispatch, seekers: SeekersHandle) {
    let cache = use_mut_ref(Cache::default);
    let generation = use_mut_ref(|| 0u64);
    let wanted = setup
        .built
        .is_none()
        .then(|| (setup.scenario.clone(), setup.compare.clone()));
    use_effect_with(wanted, move |wanted| {
        *generation.borrow_mut() += 1;
        if let Some((scenario, compare)) = wanted.clone() {
            // The last view's machines and timelines go before the new
            // one is built, not after: held through the build, they took
            // the wasm memory of a page that went from the 16 GiB
            // comparison to the 16 GiB backward sequential link to 174.5
            // MB, against 114.4 and 95.9 for each alone. The cache is cut
            // to the new view here only: a build that another has
            // superseded returns before it adds to it.
            seekers.0.forget();
            cache.borrow_mut().keep(&scenarios_of(&scenario, &compare));
            let mine = *generation.borrow();
            wasm_bindgen_futures::spawn_local(async move {
                let still_wanted = move || *generation.borrow() == mine;
                build(scenario, compare, cache, still_wanted, dispatch, seekers).await;
            });
        }
    });
}

/// The view's scenario under each of its kernels, the first first.
fn scenarios_of(scenario: &Scenario, compare: &[Kernel]) -> Vec<Scenario> {
    std::iter::once(scenario.clone())
        .chain(compare.iter().map(|k| Scenario {
            kernel: k.clone(),
            ..scenario.clone()
        }))
        .collect()
}

async fn build(
    scenario: Scenario,
    compare: Vec<Kernel>,
    cache: Rc<RefCell<Cache>>,
    still_wanted: impl Fn() -> bool,
    dispatch: Dispatch,
    seekers: SeekersHandle,
) {
    let scenarios = scenarios_of(&scenario, &compare);
    // The reducer has checked every kernel's configuration.
    let Ok(cfgs) = scenarios
        .iter()
        .map(Scenario::config)
        .collect::<Result<Vec<_>, _>>()
    else {
        return;
    };
    // What was built before: each side's timeline, and each compared
    // side's first difference (itself maybe none).
    let mut timelines: Vec<Option<Rc<Timeline>>> = {
        let c = cache.borrow();
        scenarios.iter().map(|s| c.timeline(s)).collect()
    };
    let mut diffs: Vec<Option<Option<u64>>> = {
        let c = cache.borrow();
        scenarios[1..]
            .iter()
            .map(|s| c.diff(&scenarios[0], s))
            .collect()
    };
    // The runs to make: side A's, and each other side that lacks its
    // timeline or its first difference.
    let runs: Vec<usize> = (0..scenarios.len())
        .filter(|&i| i == 0 || timelines[i].is_none() || diffs[i - 1].is_none())
        .collect();
    if runs.len() > 1 || timelines[0].is_none() {
        // A short run's checkpoints are taken once the view is drawn
        // (`use_warm_up`).
        let indexing = Indexing::by_length(&cfgs[0], CHECKPOINT_BUDGET);
        let mut lockstep = Lockstep::new(
            runs.iter()
                .map(|&i| (cfgs[i].clone(), timelines[i].is_none()))
                .collect(),
            indexing,
        );
        let mut first = true;
        let mut slices = Slices::default();
        let mut told_at = f64::NEG_INFINITY;
        loop {
            let budget = if first { FIRST_WORK_MS } else { FRAME_WORK_MS };
            if slices.run_for(budget, |n| lockstep.advance(n)) {
                break;
            }
            let now = now_ms();
            if now - told_at >= PROGRESS_EVERY_MS {
                told_at = now;
                dispatch.dispatch(Action::Progress(Progress {
                    done: lockstep.done(),
                    of: lockstep.len(),
                }));
            }
            if first {
                // Then the first paint: a frame for it, and the one it is
                // painted in. Going on in a task right after the paint
                // instead made the default view's build take longer (its
                // script median 392 against 319 ms, ready 696 against 618
                // ms, 10 loads each alternated on 2026-12-05), presumably
                // as the build then ran longer before the browser had
                // optimised the model's code (not traced).
                first = false;
                next_frame().await;
                next_frame().await;
            } else {
                // A task's break rather than a frame's: the browser paints
                // the progress when a frame is due, and the build goes on
                // at once instead of idling out the rest of each frame.
                next_task().await;
            }
            if !still_wanted() {
                return;
            }
        }
        let (built, found) = lockstep.finish();
        for (&i, t) in runs.iter().zip(built) {
            if let Some(t) = t {
                timelines[i] = Some(Rc::new(t));
            }
        }
        for (k, &i) in runs.iter().enumerate().skip(1) {
            diffs[i - 1] = Some(found[k - 1]);
        }
    }
    let sides: Vec<BuiltSide> = scenarios
        .iter()
        .enumerate()
        .map(|(i, s)| BuiltSide {
            kernel: s.kernel.clone(),
            timeline: timelines[i].clone().expect("built or kept"),
            first_diff: if i == 0 { None } else { diffs[i - 1].flatten() },
        })
        .collect();
    {
        let mut c = cache.borrow_mut();
        for (s, side) in scenarios.iter().zip(&sides) {
            if c.timeline(s).is_none() {
                c.timelines.push((s.clone(), side.timeline.clone()));
            }
        }
        for (s, side) in scenarios.iter().zip(&sides).skip(1) {
            if c.diff(&scenarios[0], s).is_none() {
                c.diffs
                    .push(((scenarios[0].clone(), s.clone()), side.first_diff));
            }
        }
    }
    let built = Kept::new(Built { scenario, sides });
    // The leaves' counts and the first draw go in tasks of their own, not
    // the build's last slice's.
    if count_leaves(&built, &seekers, &still_wanted).await {
        dispatch.dispatch(Action::Built(built));
    }
}

/// Pages of a file a unit of [`count_leaves`]'s slices counts.
const PAGES_PER_UNIT: u64 = 4096;

/// Counts what the xarray leaves of each side of `built` add to its
/// strip's bins (`Seekers::count_leaves`), in slices of tasks like the
/// build's, so that the view's first draw, in a task of its own after
/// them (`run_in_tasks`'s last break), only adds up kept counts. Drawn
/// with the build's last slice and counted as it was drawn, the first
/// draw of the 16 GiB memory cgroup preset took a task of 65 to 95 ms,
/// and of the 16 GiB comparison 51 to 77 ms (2026-12-07). Returns
/// whether the view is still wanted.
async fn count_leaves(
    built: &Kept<Built>,
    seekers: &SeekersHandle,
    still_wanted: &impl Fn() -> bool,
) -> bool {
    run_in_tasks(
        &mut |n| seekers.0.count_leaves(built, n * PAGES_PER_UNIT),
        still_wanted,
    )
    .await
        && still_wanted()
}
