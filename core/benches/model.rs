//! Criterion benchmarks of whole scenarios on the model, of a timeline
//! jump, and of the strip's bins after a jump on the 16 GiB link. `cargo
//! xtask bench` prints their medians with the figures that have targets:
//! the backward walk of a 2 GiB file under MADV_SEQUENTIAL (524,288 major
//! faults on the real kernel) against the running kernel, native and in
//! wasm.

use criterion::{criterion_group, criterion_main, Criterion};
use folioscope_core::{
    Bin, ChangedPages, Config, Kernel, LeafBins, Machine, Madvise, NoEvents, Pattern, Simulation,
    Span, Timeline, Variant, CHECKPOINT_BUDGET,
};

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
    let t = Timeline::build(cfg, CHECKPOINT_BUDGET);
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

/// The strip of the 16 GiB link (`size=16G&madvise=hugepage&pattern=
/// random:1:1`, v7.4-rc2) binned after each jump of e2e 06's 16 GiB
/// sequence from its end down, as a seeker bins them: 39/40 of the run,
/// then 38/40, and on to 30/40 and back to 39/40, every page changed and
/// the counts of the nodes the jump left alone kept. With the seeks, this
/// is one of the two largest parts of the app's work on a jump there (a
/// CPU profile in Chromium on 2026-12-05: 2.0 ms each, of 6.1 ms of
/// script, for two kernels).
fn strip_after_jumps(c: &mut Criterion) {
    const SIZE: u64 = 16 << 30;
    let random = Pattern::Random {
        milli_pct: 1000,
        seed: 1,
    };
    let mut p = scenario(random, Madvise::Hugepage, SIZE).scenario();
    p.kernel = Kernel::from_variant(Variant::by_name("v7.4-rc2").expect("a variant"));
    let cfg = Config::new(p).expect("valid");
    let t = Timeline::build(cfg.clone(), CHECKPOINT_BUDGET);
    let machines: Vec<Machine> = (30..40)
        .rev()
        .map(|k| t.machine_at(t.len() * k / 40))
        .collect();
    let mut everything = ChangedPages::new(&cfg);
    everything.set_everything();
    let mut g = c.benchmark_group("strip");
    g.sample_size(20);
    // The strips e2e 06 draws in its windows 1400 and 1920 pixels wide.
    for columns in [1102, 1622] {
        let span = Span {
            first: 0,
            end: SIZE / 4096,
            bins: columns,
        };
        let mut kept = LeafBins::default();
        let mut bins: Vec<Bin> = Vec::new();
        let name = format!("16 GiB link, bins after a jump, {columns} columns");
        g.bench_function(name, |b| {
            let mut k = 0;
            b.iter(|| {
                k = (k + 1) % machines.len();
                machines[k].rebin(span, &mut bins, &everything, &mut kept);
                bins[0].resident
            })
        });
    }
    g.finish();
}

criterion_group!(benches, walks, timeline, strip_after_jumps);
criterion_main!(benches);
