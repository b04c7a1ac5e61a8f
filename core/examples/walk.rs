//! One scenario, timed: `walk PATTERN MADVISE SIZE_GIB REPEATS [timeline]
//! [KERNEL] [MEMCG_GIB]`, the kernel a variant's name (v6.18 when none is
//! given), the file's page cache in a memory cgroup of that limit when
//! one is given.
//! Prints the best time in milliseconds, the figures and (on Linux) the
//! peak resident memory, as one JSON line. With `timeline` it builds the
//! checkpointed timeline the web app keeps, as the app does (a short
//! run's checkpoints by a second run, `Indexing::by_length`), instead of
//! a bare run. The same source runs native and as wasm (wasm32-wasip1
//! under Node), which is how `cargo xtask bench` measures the wasm/native
//! ratio in one run.

use std::time::Instant;

use folioscope_core::{
    Config, Indexing, Kernel, Madvise, NoEvents, Pattern, Simulation, Summary, Timeline,
    TimelineBuilder, Variant, CHECKPOINT_BUDGET,
};

/// Peak resident set in KiB, where the platform tells it.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `cfg`'s timeline, indexed as the web app indexes it: a short run's
/// checkpoints by a second run once the first is built.
fn app_timeline(cfg: &Config) -> Timeline {
    let t = TimelineBuilder::indexing(cfg.clone(), Indexing::by_length(cfg, CHECKPOINT_BUDGET))
        .finish();
    if let Some(index) = t.index_builder(CHECKPOINT_BUDGET) {
        t.set_index(index);
    }
    t
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let pattern = match arg(1, "rev").as_str() {
        "fwd" => Pattern::Fwd,
        "rev" => Pattern::Rev,
        "random1" => Pattern::Random {
            milli_pct: 1000,
            seed: 1,
        },
        "random5" => Pattern::Random {
            milli_pct: 5000,
            seed: 1,
        },
        other => {
            eprintln!("walk: unknown pattern {other}");
            std::process::exit(2);
        }
    };
    let madvise = Madvise::ALL
        .into_iter()
        .find(|m| m.name() == arg(2, "sequential"))
        .unwrap_or(Madvise::Sequential);
    let gib: u64 = arg(3, "2").parse().unwrap_or(2);
    let repeats: u32 = arg(4, "5").parse().unwrap_or(5);
    let mut p = Config::defaults(pattern, gib << 30)
        .expect("valid")
        .scenario();
    p.madvise = madvise;
    if let Some(name) = args.get(6) {
        let Some(variant) = Variant::by_name(name) else {
            eprintln!("walk: unknown kernel {name}");
            std::process::exit(2);
        };
        p.kernel = Kernel::from_variant(variant);
    }
    if let Some(gib) = args.get(7) {
        let Ok(gib) = gib.parse::<u64>() else {
            eprintln!("walk: MEMCG_GIB must be a whole number, not {gib}");
            std::process::exit(2);
        };
        p.memory_limit = Some(gib << 30);
    }
    let cfg = Config::new(p).expect("valid");
    let timeline = arg(5, "") == "timeline";
    let mut best = f64::MAX;
    let mut summary = None;
    for _ in 0..repeats {
        let t = Instant::now();
        let s = if timeline {
            Summary::of(app_timeline(&cfg).take_end().machine())
        } else {
            let mut sim = Simulation::new(cfg.clone());
            sim.run(&mut NoEvents);
            Summary::of(sim.machine())
        };
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
        summary = Some(s);
    }
    let s = summary.expect("at least one run");
    let rss = peak_rss_kb()
        .map(|k| k.to_string())
        .unwrap_or_else(|| "null".into());
    println!(
        "{{\"ms\":{best:.3},\"major_faults\":{},\"bytes_read\":{},\"xa_nodes\":{},\"peak_rss_kb\":{rss}}}",
        s.major_faults, s.bytes_read, s.xa_nodes
    );
}
