//! The what-if table of an open recording: the program's accesses on every
//! kernel variant, with faults, MB read, I/Os and the time under seed
//! 000's device model, made by the same code as `folioscope compare
//! --recording` (`whatif::WhatIfRun`). It is made on demand, a slice of
//! accesses per frame with its progress on screen, so the page keeps
//! answering, and shown as the CLI prints it; a button under it puts each
//! kernel beside the real kernel (as side A, whose strip the real lane
//! sits under).

use std::rc::Rc;

use folioscope_core::Kernel;
use folioscope_scenario::whatif::{kernels, WhatIf, WhatIfRun};
use folioscope_scenario::Scenario;
use yew::prelude::*;

use crate::context::{use_handles, use_setup};
use crate::hooks::next_frame;
use crate::slices::now_ms;
use crate::state::Action;

/// Milliseconds of work per frame.
const FRAME_WORK_MS: f64 = 12.0;
/// Accesses between looks at the clock.
const SLICE: u64 = 2048;

/// The table's state: what it was made for (the scenario on the recorded
/// kernel), and how far it has come.
#[derive(Clone, PartialEq)]
enum Table {
    Running {
        of: Scenario,
        done: u64,
        len: u64,
        running: String,
    },
    Made {
        of: Scenario,
        table: Rc<WhatIf>,
        kernels: Rc<Vec<Kernel>>,
    },
    Failed(String),
}

#[component]
pub fn WhatIfPanel() -> Html {
    let d = use_handles().dispatch;
    let setup = use_setup();
    let table = use_state(|| None::<Table>);
    let Some(r) = setup.recording.as_ref() else {
        return html! {};
    };
    // The table replays the scenario on screen (with any parameter the
    // user changed) on every kernel, the recorded one first, as the CLI
    // does with the same options.
    let of = Scenario {
        kernel: r.scenario.kernel.clone(),
        ..setup.scenario.clone()
    };
    let current = (*table).clone().filter(|t| match t {
        Table::Running { of: o, .. } | Table::Made { of: o, .. } => *o == of,
        Table::Failed(_) => true,
    });
    let start = {
        let table = table.clone();
        let (of, title) = (of.clone(), r.title.clone());
        Callback::from(move |_: MouseEvent| {
            let table = table.clone();
            let (of, title) = (of.clone(), title.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let ks = kernels(&of.kernel);
                let mut run = match WhatIfRun::new(&title, &of, &ks) {
                    Ok(run) => run,
                    Err(e) => return table.set(Some(Table::Failed(e))),
                };
                loop {
                    table.set(Some(Table::Running {
                        of: of.clone(),
                        done: run.done(),
                        len: run.len(),
                        running: run.running(),
                    }));
                    next_frame().await;
                    let t0 = now_ms();
                    let mut done = false;
                    while !done && now_ms() - t0 < FRAME_WORK_MS {
                        done = run.advance(SLICE);
                    }
                    if done {
                        break;
                    }
                }
                table.set(Some(Table::Made {
                    of,
                    table: Rc::new(run.finish()),
                    kernels: Rc::new(ks),
                }));
            });
        })
    };
    let side_a = setup.scenario.kernel.clone();
    let body = match current {
        None => html! {
            <p class="muted">
                { "The program's accesses on every kernel variant, as folioscope compare --recording prints them. " }
                <button data-testid="whatif-run" onclick={start}>{ "Make the what-if table" }</button>
            </p>
        },
        Some(Table::Running {
            done, len, running, ..
        }) => html! {
            <p data-testid="whatif-progress">
                <progress max={len.to_string()} value={done.to_string()} aria-label="what-if table" />
                { format!(" {running}: {}%", done * 100 / len.max(1)) }
            </p>
        },
        Some(Table::Failed(e)) => html! { <p class="banner" role="alert">{ e }</p> },
        Some(Table::Made { table, kernels, .. }) => {
            // Any kernel of the table can replay the program as side A,
            // whose strip the real lane sits under.
            let beside = kernels.iter().filter(|k| **k != side_a).map(|k| {
                let d = d.clone();
                let next = Scenario {
                    kernel: k.clone(),
                    ..setup.scenario.clone()
                };
                let onclick =
                    Callback::from(move |_: MouseEvent| d.dispatch(Action::Apply(next.clone())));
                html! { <button {onclick} data-testid="whatif-beside">{ k.label() }</button> }
            });
            html! {
                <>
                    <pre class="whatif" data-testid="whatif-text">{ table.to_text() }</pre>
                    <p class="recording-steps">{ format!("beside the real kernel, now {}: ", side_a.label()) }{ for beside }</p>
                </>
            }
        }
    };
    html! {
        <div class="panel whatif-panel" data-testid="whatif">
            <h3>{ "what if: the program on every kernel" }</h3>
            { body }
        </div>
    }
}
