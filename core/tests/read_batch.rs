//! Seed 004's patch 1 on the buffered read path of a disk file: a batch
//! that reaches `max` no longer loads the entry past it.

use folioscope_core::{
    Access, Config, Kernel, NoEvents, Patch, Pattern, Simulation, Summary, Variant,
};

fn run(kernel: Kernel) -> (Summary, folioscope_core::XaStats) {
    // Read the file once to fill the cache, then again in 64 KiB reads.
    let size: u64 = 16 << 20;
    let mut list: Vec<Access> = vec![Access::Read {
        offset: 0,
        len: size,
    }];
    list.extend((0..size / 65536).map(|k| Access::Read {
        offset: k * 65536,
        len: 65536,
    }));
    let mut parts = Config::defaults(Pattern::Trace(list), size)
        .unwrap()
        .scenario();
    parts.kernel = kernel;
    let mut sim = Simulation::new(Config::new(parts).unwrap());
    sim.run(&mut NoEvents);
    (Summary::of(sim.machine()), sim.machine().lookups())
}

#[test]
fn the_early_exit_saves_one_xas_next_per_batch() {
    let base = Kernel::from_variant(Variant::V7_1Rc5);
    let (s0, x0) = run(base.clone());
    for (p, saves_advance) in [
        (Patch::ReadBatchExitBeforeAdvance, true),
        (Patch::ReadBatchExitAfterAdvance, false),
    ] {
        let mut k = base.clone();
        k.patches = k.patches.with(p);
        let (s, x) = run(k);
        assert_eq!(s.folios, s0.folios, "the page cache ends the same");
        assert_eq!(s.bytes_read, s0.bytes_read);
        assert_eq!(s.counters.folio_get, s0.counters.folio_get);
        assert!(
            x.xas_next < x0.xas_next,
            "{}: {} vs {}",
            p.name(),
            x.xas_next,
            x0.xas_next
        );
        let saved = x0.xas_next - x.xas_next;
        // At least one per 64 KiB re-read, each a batch that ends at max.
        assert!(saved >= 256, "{}: saved {saved}", p.name());
        if saves_advance {
            assert_eq!(x0.xas_advance - x.xas_advance, saved);
        } else {
            assert_eq!(x.xas_advance, x0.xas_advance);
        }
    }
}
