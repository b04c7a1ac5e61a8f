use folioscope_core::*;
use std::time::Instant;
fn main() {
    let cfg = Config::new(Scenario {
        pattern: Pattern::Rev,
        madvise: Madvise::Hugepage,
        ..Scenario::default()
    })
    .unwrap();
    let t = Timeline::build(cfg, 96 << 20);
    for step in [1000u64, 200_000, 524_288] {
        let m = t.machine_at(step);
        let span = Span {
            first: 0,
            end: m.geometry().nr_pages,
            bins: 1300,
        };
        let t0 = Instant::now();
        let mut n = 0;
        for _ in 0..100 {
            n += m.bins(span).len();
        }
        let a = t0.elapsed().as_secs_f64() * 10.0;
        let t0 = Instant::now();
        for _ in 0..100 {
            n += m.xa_tree(0, m.geometry().nr_pages, 12).nodes.len();
        }
        let b = t0.elapsed().as_secs_f64() * 10.0;
        let mut sim = t.simulation_at(0);
        let t0 = Instant::now();
        t.seek_logged(&mut sim, step, 40, |_, _| {});
        let c = t0.elapsed().as_secs_f64() * 1000.0;
        println!("step {step}: bins {a:.3} ms, xa_tree {b:.3} ms, seek {c:.3} ms ({n})");
    }
}
