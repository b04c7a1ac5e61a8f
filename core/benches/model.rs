//! Criterion benchmarks of whole scenarios on the model, and of a timeline
//! jump. `cargo xtask bench` prints their medians with the figures that
//! have targets: the backward walk of a 2 GiB file under MADV_SEQUENTIAL
//! (524,288 major faults on the real kernel) against the running kernel,
//! native and in wasm.

use criterion::{criterion_group, criterion_main, Criterion};
use folioscope_core::{Config, Madvise, NoEvents, Pattern, Simulation, Timeline};

fn scenario(pattern: Pattern, madvise: Madvise, size: u64) -> Config {
    let mut p = Config::defaults(pattern, size).expect("valid").scenario();
    p.madvise = madvise;
    Config::new(p).expect("valid")
}

fn walks(c: &mut Criterion) {
    let mut g = c.benchmark_group("2 GiB walks");
    g.sample_size(10);
    for (name, pattern, madvise) in [
        ("rev sequential", Pattern::Rev, Madvise::Sequential),
        ("rev normal", Pattern::Rev, Madvise::Normal),
        ("rev hugepage", Pattern::Rev, Madvise::Hugepage),
        ("fwd normal", Pattern::Fwd, Madvise::Normal),
        ("read 4096", Pattern::Read { bs: 4096 }, Madvise::Normal),
    ] {
        let cfg = scenario(pattern, madvise, 2 << 30);
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut sim = Simulation::new(cfg.clone());
                sim.run(&mut NoEvents);
                sim.machine().counters().major_faults
            })
        });
    }
    g.finish();
}

fn timeline(c: &mut Criterion) {
    let cfg = scenario(Pattern::Rev, Madvise::Sequential, 2 << 30);
    let t = Timeline::build(cfg, 96 << 20);
    let mut g = c.benchmark_group("timeline");
    g.sample_size(20);
    // A jump anywhere: one checkpoint copy plus at most one interval of steps.
    g.bench_function("jump to a step in a 524288-access walk", |b| {
        let mut k = 0u64;
        b.iter(|| {
            k = (k + 104_729) % t.len();
            t.machine_at(k).counters().major_faults
        })
    });
    g.finish();
}

criterion_group!(benches, walks, timeline);
criterion_main!(benches);
