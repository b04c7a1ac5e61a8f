//! Beside a seed preset, the seed's published table as `folioscope
//! compare` prints it: the thread's figures, the model's, and the cost
//! model's estimate, with the thread on lore. The model's figures take
//! every row of the seed run to its end (seconds), so the table is made on
//! request, a slice of accesses per frame with its progress on screen, and
//! kept for the page's life.

use std::cell::RefCell;

use folioscope_scenario::compare::TableRun;
use folioscope_scenario::seeds::{row, rows, Seed};
use yew::prelude::*;

use crate::context::use_setup;
use crate::hooks::next_frame;
use crate::slices::now_ms;

/// Accesses between looks at the clock.
const SLICE: u64 = 2048;
/// Milliseconds of measuring per frame.
const FRAME_WORK_MS: f64 = 10.0;

thread_local! {
    /// Each seed's table, once made (a list: there are three seeds, and a
    /// map's code in the wasm costs more than the search).
    static TABLES: RefCell<Vec<(Seed, Result<String, String>)>> = const { RefCell::new(Vec::new()) };
}

/// Where the making of a table stands.
#[derive(Clone, Debug, PartialEq)]
enum Making {
    Idle,
    /// Cells measured of all, and the share of the current one.
    Running(usize, usize, f64),
    Done(Result<String, String>),
}

#[component]
pub fn SeedTable() -> Html {
    let setup = use_setup();
    let seed = setup.preset.as_deref().and_then(row).map(|r| r.seed);
    let making = use_state(|| Making::Idle);
    let Some(seed) = seed else {
        return html! {};
    };
    let kept = TABLES.with(|t| {
        t.borrow()
            .iter()
            .find(|(s, _)| *s == seed)
            .map(|(_, table)| table.clone())
    });
    let state = match (&*making, kept) {
        (_, Some(done)) => Making::Done(done),
        (Making::Done(_), None) => Making::Idle,
        (m, None) => m.clone(),
    };
    let cells: usize = rows()
        .iter()
        .filter(|r| r.seed == seed)
        .map(|r| r.columns.len())
        .sum();
    let onclick = {
        let making = making.clone();
        Callback::from(move |_| {
            let making = making.clone();
            making.set(Making::Running(0, cells, 0.0));
            wasm_bindgen_futures::spawn_local(async move {
                let done = make(seed, &making).await;
                TABLES.with(|t| {
                    let mut t = t.borrow_mut();
                    t.retain(|(s, _)| *s != seed);
                    t.push((seed, done.clone()));
                });
                making.set(Making::Done(done));
            });
        })
    };
    let body = match state {
        Making::Idle => html! {
            <p>
                <button data-testid="seed-table-run" {onclick}>{ "Make the table" }</button>
                <span class="muted">{ format!(" runs the model on all {cells} kernels of the seed's rows to their ends, as folioscope compare {} does (seconds).", seed.name()) }</span>
            </p>
        },
        Making::Running(done, of, part) => html! {
            <p class="muted" data-testid="seed-table-progress">
                { format!("Running the model: kernel {} of {of} of the table, {:.0}% through it.", (done + 1).min(of), part * 100.0) }
            </p>
        },
        Making::Done(Ok(text)) => {
            html! { <pre class="seed-table" data-testid="seed-table-text">{ text }</pre> }
        }
        Making::Done(Err(e)) => {
            html! { <p class="banner" data-testid="seed-table-error">{ format!("the table could not be made: {e}") }</p> }
        }
    };
    html! {
        <details class="panel seed-panel" data-testid="seed-table">
            <summary>{ format!("{}: the thread's table, the model's figures and the cost model's estimates", seed.name()) }</summary>
            <p>
                <a href={seed.lore()} target="_blank" rel="noopener" data-testid="seed-lore">{ seed.title() }</a>
                <span class="muted">{ format!(" (a search on lore.kernel.org; the seed file is {})", seed.file()) }</span>
            </p>
            { body }
        </details>
    }
}

/// Makes `seed`'s table between frames, telling `making` how far it is.
async fn make(seed: Seed, making: &UseStateHandle<Making>) -> Result<String, String> {
    let mut run = TableRun::new(seed, &rows())?;
    loop {
        let t0 = now_ms();
        while now_ms() - t0 < FRAME_WORK_MS {
            if run.advance(SLICE)? {
                return run.finish().map(|c| c.to_text());
            }
        }
        let (done, of, (k, n)) = run.progress();
        making.set(Making::Running(done, of, k as f64 / n.max(1) as f64));
        next_frame().await;
    }
}
