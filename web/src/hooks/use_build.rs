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

use folioscope_core::{Kernel, Lockstep, Timeline};
use folioscope_scenario::Scenario;
use yew::prelude::*;

use crate::context::{Dispatch, Setup};
use crate::hooks::{next_frame, next_task};
use crate::state::{Action, Built, BuiltSide, Kept, Progress, CHECKPOINT_BUDGET};

/// Accesses between the first two looks at the clock; after that, as
/// many as the last ones ran in about [`CHUNK_MS`]. A fixed 1024 ran
/// 7 to 17 ms on the 16 GiB link (60 to 150 accesses a millisecond, each
/// reading large folios), so its tasks overran the budget to 50-61 ms;
/// the default view runs about 1,400 a millisecond.
const FIRST_CHUNK: u64 = 256;
/// Milliseconds between looks at the clock: a task overruns its budget
/// by about this much.
const CHUNK_MS: f64 = 1.0;
/// Milliseconds of building per task: the longest the page waits on it,
/// kept under the 50 ms of a long task. Each break costs the progress's
/// render and, when one is due, a frame: with 12 ms tasks the default
/// view's build took about 90 ms longer from its first paint (12 loads
/// each, median paint-to-built 443 against 355 ms).
const FRAME_WORK_MS: f64 = 40.0;
/// Milliseconds of building before the first paint: enough that the
/// browser starts optimising the model's hot functions on another core
/// while it paints, so that the rest of the build runs in optimised code
/// sooner.
const FIRST_WORK_MS: f64 = 4.0;

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
pub fn use_build(setup: &Setup, dispatch: Dispatch) {
    let cache = use_mut_ref(Cache::default);
    let generation = use_mut_ref(|| 0u64);
    let wanted = setup
        .built
        .is_none()
        .then(|| (setup.scenario.clone(), setup.compare.clone()));
    use_effect_with(wanted, move |wanted| {
        *generation.borrow_mut() += 1;
        if let Some((scenario, compare)) = wanted.clone() {
            let mine = *generation.borrow();
            wasm_bindgen_futures::spawn_local(async move {
                let still_wanted = move || *generation.borrow() == mine;
                build(scenario, compare, cache, still_wanted, dispatch).await;
            });
        }
    });
}

/// The accesses to run before the next look at the clock, after `chunk`
/// of them took `ms`: about [`CHUNK_MS`]'s worth, moving by at most a
/// factor of two (or four down) a step, so that one slow access does not
/// shrink it to nothing, nor a clock that did not tick grow it past all.
fn next_chunk(chunk: u64, ms: f64) -> u64 {
    let aim = if ms > 0.0 {
        (chunk as f64 * CHUNK_MS / ms) as u64
    } else {
        chunk * 2
    };
    aim.clamp(chunk / 4, chunk * 2).clamp(16, 1 << 16)
}

fn now_ms() -> f64 {
    gloo::utils::window()
        .performance()
        .map(|p| p.now())
        .unwrap_or_default()
}

async fn build(
    scenario: Scenario,
    compare: Vec<Kernel>,
    cache: Rc<RefCell<Cache>>,
    still_wanted: impl Fn() -> bool,
    dispatch: Dispatch,
) {
    let scenarios: Vec<Scenario> = std::iter::once(scenario.clone())
        .chain(compare.iter().map(|k| Scenario {
            kernel: k.clone(),
            ..scenario.clone()
        }))
        .collect();
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
        let mut lockstep = Lockstep::new(
            runs.iter()
                .map(|&i| (cfgs[i].clone(), timelines[i].is_none()))
                .collect(),
            CHECKPOINT_BUDGET,
        );
        let mut first = true;
        let mut chunk = FIRST_CHUNK;
        loop {
            let t0 = now_ms();
            let budget = if first { FIRST_WORK_MS } else { FRAME_WORK_MS };
            let mut done = false;
            let mut now = t0;
            while !done && now - t0 < budget {
                done = lockstep.advance(chunk);
                let then = now;
                now = now_ms();
                chunk = next_chunk(chunk, now - then);
            }
            if done {
                break;
            }
            dispatch.dispatch(Action::Progress(Progress {
                done: lockstep.done(),
                of: lockstep.len(),
            }));
            if first {
                // Then the first paint: a frame for it, and the one it is
                // painted in.
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
        c.keep(&scenarios);
    }
    dispatch.dispatch(Action::Built(Kept::new(Built { scenario, sides })));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs chunks of accesses that cost `per_access` ms each, as the
    /// build does, and returns the chunk sizes.
    fn chunks(per_access: f64, n: usize) -> Vec<u64> {
        let mut chunk = FIRST_CHUNK;
        let mut out = vec![];
        for _ in 0..n {
            let ms = chunk as f64 * per_access;
            chunk = next_chunk(chunk, ms);
            out.push(chunk);
        }
        out
    }

    #[test]
    fn a_chunk_comes_to_take_about_a_millisecond() {
        // The 16 GiB link's slowest accesses, and the default view's.
        for per_ms in [60.0, 150.0, 1_400.0] {
            let c = *chunks(1.0 / per_ms, 12).last().unwrap();
            let ms = c as f64 / per_ms;
            assert!(
                (0.5..=2.0).contains(&ms),
                "{per_ms}/ms: {c} accesses, {ms} ms"
            );
        }
    }

    #[test]
    fn a_chunk_stays_within_its_bounds() {
        // A clock that never ticks, and accesses of a second each.
        assert_eq!(*chunks(0.0, 40).last().unwrap(), 1 << 16);
        assert_eq!(*chunks(1000.0, 40).last().unwrap(), 16);
        // One slow chunk shrinks it by four at most.
        assert_eq!(next_chunk(1024, 1e6), 256);
    }
}
