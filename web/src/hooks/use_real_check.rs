//! Holds side A's model to the open recording's kernel events, as
//! `folioscope check --recording` does: the model runs the recorded
//! accesses once more with its tracepoints on, a slice per frame once the
//! view's timelines are built, and `event_check::check_steps` finds the
//! first access after which the folio adds, readahead calls and removals
//! part. The end state, where the recording measured it, is held too.

use folioscope_core::{Event, EventLog, Simulation, Summary, Tracepoint};
use folioscope_scenario::event_check::{check_steps, is_compared};
use folioscope_scenario::{Report, Scenario};
use yew::prelude::*;

use crate::context::{Dispatch, Setup};
use crate::hooks::next_frame;
use crate::recording::{RealCheck, Recorded};
use crate::slices::now_ms;
use crate::state::{Action, Kept};

/// Accesses between looks at the clock.
const SLICE: u64 = 256;
/// Milliseconds of checking per frame.
const FRAME_WORK_MS: f64 = 10.0;

/// Starts the check whenever a recording's view is built and unchecked.
#[hook]
pub fn use_real_check(setup: &Setup, dispatch: Dispatch) {
    let generation = use_mut_ref(|| 0u64);
    let wanted = match (&setup.recording, &setup.built, &setup.real_check) {
        (Some(r), Some(_), None) => Some((r.clone(), setup.scenario.clone())),
        _ => None,
    };
    use_effect_with(wanted, move |wanted| {
        *generation.borrow_mut() += 1;
        if let Some((recorded, scenario)) = wanted.clone() {
            let mine = *generation.borrow();
            wasm_bindgen_futures::spawn_local(async move {
                let still_wanted = move || *generation.borrow() == mine;
                if let Some(c) = check(&recorded, scenario, still_wanted).await {
                    dispatch.dispatch(Action::RealChecked(Kept::new(c)));
                }
            });
        }
    });
}

async fn check(
    recorded: &Recorded,
    scenario: Scenario,
    still_wanted: impl Fn() -> bool,
) -> Option<RealCheck> {
    let cfg = scenario.config().ok()?;
    let mut sim = Simulation::new(cfg.clone());
    // The model's compared tracepoints, each with the access it came in.
    // The sink is the core's `EventLog`, as the timeline's own, so that
    // the model is not compiled for one more sink type (each is a copy of
    // the whole model in the wasm).
    let mut numbered: Vec<(u64, Tracepoint)> = Vec::new();
    let mut events = EventLog::new();
    while !sim.is_done() {
        next_frame().await;
        if !still_wanted() {
            return None;
        }
        let t0 = now_ms();
        while !sim.is_done() && now_ms() - t0 < FRAME_WORK_MS {
            for _ in 0..SLICE {
                events.clear();
                if !sim.step(&mut events) {
                    break;
                }
                let access = sim.step_count();
                numbered.extend(events.events().iter().filter_map(|e| match e {
                    Event::Tracepoint(tp) if is_compared(tp) => Some((access, *tp)),
                    _ => None,
                }));
            }
        }
    }
    let check = check_steps(
        &numbered,
        &recorded.compared_events(),
        recorded.inode,
        recorded.page_shift,
    );
    let end_state = recorded
        .rec
        .end
        .get(recorded.file as usize)
        .and_then(Option::as_ref)
        .map(|e| {
            Report::from_model(
                &cfg,
                &Summary::of(sim.machine()),
                sim.step_count(),
                sim.len(),
            )
            .end_state_differences(&e.resident, &e.folios)
        });
    Some(RealCheck {
        scenario,
        check,
        end_state,
    })
}
