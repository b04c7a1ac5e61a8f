//! The web app's first build of a view, timed: `first_build [REPEATS]
//! [LINK]`.
//!
//! It builds what `use_build` builds before the app first shows a view:
//! each kernel's timeline, side by side in the core's `Lockstep`, the
//! first kernel's checkpoints by length; for the app's default view
//! ([`folioscope_scenario::seeds::DEFAULT_PRESET`]), or for the view of a
//! link's query. It prints the first run's time, the best of `REPEATS`
//! (3 when none is given) and the first kernel's major faults, as one
//! JSON line. The same source runs native and as wasm (wasm32-wasip1
//! under Node), which is how `cargo xtask bench` measures it: in wasm
//! the first run is what a page's first load pays, before the engine has
//! optimised the model's code, and the best is what it pays once it has.

use std::time::Instant;

use folioscope_core::{Indexing, Lockstep, Summary, CHECKPOINT_BUDGET};
use folioscope_scenario::link::{parse_link, preset, View};
use folioscope_scenario::seeds::DEFAULT_PRESET;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let repeats: u32 = match args.get(1).map(|a| a.parse()) {
        None => 3,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("first_build: REPEATS must be a whole number above 0");
            std::process::exit(2);
        }
    };
    let view: View = match args.get(2) {
        Some(query) => {
            let parsed = parse_link(query);
            if let Some(ignored) = parsed.ignored.first() {
                eprintln!("first_build: link key {ignored}");
                std::process::exit(2);
            }
            parsed.view
        }
        None => preset(DEFAULT_PRESET).expect("the default preset is a seed row"),
    };
    let cfgs = match view
        .scenarios()
        .iter()
        .map(|s| s.config())
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("first_build: {e}");
            std::process::exit(2);
        }
    };
    let mut first_ms = None;
    let mut best_ms = f64::MAX;
    let mut summary = None;
    for _ in 0..repeats {
        let t = Instant::now();
        let indexing = Indexing::by_length(&cfgs[0], CHECKPOINT_BUDGET);
        let runs = cfgs.iter().map(|c| (c.clone(), true)).collect();
        let (built, _) = Lockstep::new(runs, indexing).finish();
        let first = built.into_iter().next().flatten().expect("built");
        let s = Summary::of(first.take_end().machine());
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        first_ms.get_or_insert(ms);
        best_ms = best_ms.min(ms);
        summary = Some(s);
    }
    let s = summary.expect("at least one run");
    println!(
        "{{\"first_ms\":{:.3},\"best_ms\":{best_ms:.3},\"kernels\":{},\"major_faults\":{}}}",
        first_ms.expect("at least one run"),
        cfgs.len(),
        s.major_faults
    );
}
