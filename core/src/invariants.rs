//! Invariants of the model on random scenarios (proptest): after every
//! step the xarray is structurally valid, folios are naturally aligned,
//! never overlap and never reach past EOF, `mmap_miss` stays within
//! [0, 10 × MMAP_LOTSAMISS], and no read is left in flight. The fast paths
//! change nothing: a run with them off emits the same events access by
//! access and ends in the same state with the same lookup counts, and a
//! patch toggle that claims no change in behaviour ends in the same state. A timeline jump lands on the same state as a straight run.
//!
//! These tests live inside the crate because they read what its public
//! surface does not show: the xarray's own check, the fingerprints, and
//! the switch that turns the fast paths off.

use crate::fault::MMAP_LOTSAMISS;
use crate::{
    Access, Backing, Bin, ChangedPages, Config, Event, Indexing, KFunc, Kernel, LeafBins, Lockstep,
    Machine, Madvise, NoEvents, Patch, Pattern, Picture, Scenario, Simulation, Span, Summary,
    Timeline, TimelineBuilder, TmpfsFile,
};
use proptest::prelude::*;

fn pattern() -> impl Strategy<Value = Pattern> {
    prop_oneof![
        Just(Pattern::Fwd),
        Just(Pattern::Rev),
        (1u64..300).prop_map(Pattern::Stride),
        (1u64..300).prop_map(Pattern::RStride),
        (1u64..100_000, any::<u64>())
            .prop_map(|(milli_pct, seed)| Pattern::Random { milli_pct, seed }),
        (1u64..(2 << 20)).prop_map(|bs| Pattern::Read { bs }),
        (1u64..(2 << 20)).prop_map(|bs| Pattern::PreadRev { bs }),
        proptest::collection::vec(
            prop_oneof![
                (0u64..4096).prop_map(|page| Access::Touch { page }),
                (0u64..(16 << 20), 1u64..(1 << 20))
                    .prop_map(|(offset, len)| Access::Read { offset, len }),
            ],
            1..200
        )
        .prop_map(Pattern::Trace),
    ]
}

/// Mostly disk files; tmpfs files of each kind, some with a poisoned page.
fn backing() -> impl Strategy<Value = (Backing, Option<u64>)> {
    prop_oneof![
        3 => Just((Backing::Disk, None)),
        2 => (
            any::<bool>(),
            proptest::sample::select(TmpfsFile::ALL.to_vec()),
            prop_oneof![Just(None), any::<u64>().prop_map(Some)],
        )
            .prop_map(|(huge, file, poison)| (Backing::Tmpfs { huge, file }, poison)),
    ]
}

fn config() -> impl Strategy<Value = Config> {
    (
        pattern(),
        prop_oneof![Just(4096u64), Just(16384), Just(65536)],
        1u64..(8 << 20),
        prop_oneof![Just(0u64), Just(128), Just(512), Just(8192)],
        prop_oneof![Just(4096u64), Just(16384), Just(65536), Just(1 << 20)],
        prop_oneof![
            Just(Madvise::Normal),
            Just(Madvise::Hugepage),
            Just(Madvise::Sequential),
            Just(Madvise::Random)
        ],
        any::<bool>(),
        prop_oneof![Just(None), (1u64..8).prop_map(|m| Some(m << 20))],
        any::<bool>(),
        proptest::sample::select(crate::Variant::ALL.to_vec()),
        backing(),
    )
        .prop_filter_map(
            "valid configurations",
            |(
                pattern,
                page,
                file_size,
                ra_kb,
                fa,
                madvise,
                thp,
                memory_limit,
                exec,
                variant,
                (backing, poison),
            )| {
                let hwpoison = poison.map(|p| p % file_size.div_ceil(page));
                Config::new(Scenario {
                    kernel: Kernel::from_variant(variant),
                    file_size,
                    page_size: page,
                    read_ahead_kb: ra_kb,
                    fault_around_bytes: fa,
                    madvise,
                    thp,
                    memory_limit,
                    exec,
                    pattern,
                    backing,
                    hwpoison,
                })
                .ok()
            },
        )
}

/// Checks every invariant of a machine; returns what is broken.
fn broken(m: &Machine) -> Option<String> {
    if let Err(e) = m.cache.xa.check() {
        return Some(e.to_string());
    }
    let nr_pages = m.geo.nr_pages;
    // huge=always gives a tmpfs file whole PMDs, past i_size too.
    let last_page = match m.backing {
        Backing::Tmpfs { huge: true, .. } => nr_pages.next_multiple_of(1 << m.geo.pmd_order),
        _ => nr_pages,
    };
    let mut next_free = 0u64;
    let mut pages = 0u64;
    let mut bad = None;
    m.cache.for_each_folio(|f| {
        if bad.is_some() {
            return;
        }
        if f.index % f.nr_pages() != 0 {
            bad = Some(format!(
                "folio {} of order {} is not aligned",
                f.index, f.order
            ));
        } else if f.index < next_free {
            bad = Some(format!("folio {} overlaps the one before", f.index));
        } else if f.next_index() > last_page {
            bad = Some(format!(
                "folio {} (order {}) reaches past EOF page {}",
                f.index, f.order, nr_pages
            ));
        }
        next_free = f.next_index();
        pages += f.nr_pages();
    });
    if bad.is_some() {
        return bad;
    }
    // The runs that figures count by are the folios, one by one.
    let mut one_by_one = Vec::new();
    m.cache
        .for_each_folio(|f| one_by_one.push((f.index, f.order, f.flags)));
    let mut from_runs = Vec::new();
    m.cache.for_each_folio_run(|f, n| {
        from_runs.extend((0..n).map(|i| (f.index + (i << f.order), f.order, f.flags)))
    });
    if from_runs != one_by_one {
        return Some("the folio runs are not the folios".into());
    }
    if pages != m.cache.nrpages {
        return Some(format!(
            "nrpages {} but folios hold {pages}",
            m.cache.nrpages
        ));
    }
    if m.ra.mmap_miss > 10 * MMAP_LOTSAMISS {
        return Some(format!("mmap_miss {}", m.ra.mmap_miss));
    }
    if m.cache.fingerprint != m.cache.recompute_fingerprint() {
        return Some("the page cache fingerprint drifted from its entries".into());
    }
    if m.mm.fingerprint != m.mm.recompute_fingerprint() {
        return Some("the mapping fingerprint drifted from the page tables".into());
    }
    if !m.mm.pmd_ptes_agree() {
        return Some("the PTEs counted per PMD drifted from the page tables".into());
    }
    if m.io_in_flight() {
        return Some("a read is still in flight between steps".into());
    }
    None
}

/// What a picture shows of a page's covering: the folio's state flags
/// (events tell those), not the LRU's bookkeeping (no event tells it).
fn shown(c: crate::Covering) -> crate::Covering {
    match c {
        crate::Covering::Folio(mut f) => {
            f.flags = crate::FolioFlags::from_bits(
                f.flags.bits()
                    & (crate::FolioFlags::UPTODATE.bits()
                        | crate::FolioFlags::LOCKED.bits()
                        | crate::FolioFlags::READAHEAD.bits()),
            );
            f.lru_stamp = 0;
            crate::Covering::Folio(f)
        }
        c => c,
    }
}

/// Steps `sim` to its end (or `max_steps`), folding each access's events
/// into pictures of the machine before it over `spans`, and returns what
/// differs first from the pictures of the machine after it.
///
/// On every other step, a span's picture starts from the bins a seeker
/// would keep (`Machine::rebin` over the pages the events changed), as
/// the web app's strip does when stepping through an access.
fn fold_mismatch(sim: &mut Simulation, spans: &[Option<Span>], max_steps: u64) -> Option<String> {
    let mut steps = 0;
    let mut kept: Vec<Vec<Bin>> = spans
        .iter()
        .map(|s| s.map_or(Vec::new(), |s| sim.machine().bins(s)))
        .collect();
    let mut leaves: Vec<LeafBins> = spans.iter().map(|_| LeafBins::default()).collect();
    let mut changed = ChangedPages::new(sim.config());
    while steps < max_steps {
        let before = sim.machine().clone();
        let mut events = Vec::new();
        if !sim.step(&mut events) {
            break;
        }
        steps += 1;
        for (k, &span) in spans.iter().enumerate() {
            let mut folded = match span {
                Some(span) if steps % 2 == 0 => Picture::over_bins(&before, span, kept[k].clone()),
                _ => Picture::new(&before, span),
            };
            for e in &events {
                folded.apply(e);
            }
            let after = Picture::new(sim.machine(), span);
            if let Some(span) = span {
                // What covers each page (at most 256 of them): the same.
                let stride = (span.pages() / 256).max(1) as usize;
                for p in (span.first..span.end).step_by(stride) {
                    if shown(folded.covering(p)) != shown(after.covering(p)) {
                        return Some(format!(
                            "after step {steps}, page {p}: folded {:?}, machine {:?}",
                            folded.covering(p),
                            after.covering(p)
                        ));
                    }
                }
            }
            if let Some(x) = (0..after.bins().len()).find(|&x| folded.bins()[x] != after.bins()[x])
            {
                return Some(format!(
                    "after step {steps} in {span:?}, bin {x}: folded {:?}, machine {:?}",
                    folded.bins()[x],
                    after.bins()[x]
                ));
            }
            if folded.ra() != after.ra() || folded.figures() != after.figures() {
                return Some(format!(
                    "after step {steps}: folded {:?} {:?}, machine {:?} {:?}",
                    folded.ra(),
                    folded.figures(),
                    after.ra(),
                    after.figures()
                ));
            }
        }
        for e in &events {
            changed.note(e);
        }
        for (k, span) in spans.iter().enumerate() {
            if let Some(span) = *span {
                sim.machine()
                    .rebin(span, &mut kept[k], &changed, &mut leaves[k]);
            }
        }
        changed.clear();
    }
    None
}

/// Moves a simulation of `timeline` as a seeker does, from `sim`: each
/// move steps `n` accesses forward noting the pages their events changed,
/// after a jump to a checkpoint's machine when its second number is 0.
/// After every move, each span's bins brought up to date by
/// `Machine::rebin` must equal a fresh count; the kept leaf counts serve
/// every machine of the run.
fn rebins_match_fresh(
    timeline: &Timeline,
    mut sim: Simulation,
    spans: &[Span],
    moves: &[(u64, u8)],
) -> Result<(), TestCaseError> {
    let len = timeline.len();
    let mut kept: Vec<Vec<Bin>> = spans.iter().map(|&s| sim.machine().bins(s)).collect();
    let mut leaves: Vec<LeafBins> = spans.iter().map(|_| LeafBins::default()).collect();
    let mut changed = ChangedPages::new(timeline.config());
    let mut events = Vec::new();
    for &(n, jump) in moves {
        if jump == 0 {
            let to = (sim.step_count() * 7 + n * 131) % (len + 1);
            sim = timeline.simulation_at(to);
            changed.set_everything();
        }
        for _ in 0..n {
            if !sim.step(&mut events) {
                break;
            }
            for e in events.drain(..) {
                changed.note(&e);
            }
        }
        for (k, &span) in spans.iter().enumerate() {
            sim.machine()
                .rebin(span, &mut kept[k], &changed, &mut leaves[k]);
            let fresh = sim.machine().bins(span);
            if let Some(x) = (0..fresh.len()).find(|&x| kept[k][x] != fresh[x]) {
                prop_assert!(
                    false,
                    "after step {} in {:?}, bin {}: rebinned {:?}, fresh {:?}",
                    sim.step_count(),
                    span,
                    x,
                    kept[k][x],
                    fresh[x]
                );
            }
        }
        changed.clear();
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn invariants_hold_after_every_step(cfg in config()) {
        let mut sim = Simulation::new(cfg);
        let mut steps = 0;
        while sim.step(&mut NoEvents) {
            steps += 1;
            if let Some(b) = broken(sim.machine()) {
                prop_assert!(false, "after step {}: {}", steps, b);
            }
            if steps > 5_000 {
                break;
            }
        }
    }

    #[test]
    fn a_picture_folded_over_an_access_is_the_picture_after_it(
        cfg in config(),
        first in 0.0f64..1.0,
        pages_shown in 1u64..3000,
        bins in 1u32..1500,
    ) {
        let mut sim = Simulation::new(cfg);
        let pages = sim.machine().geo.nr_pages;
        let from = ((pages as f64 * first) as u64).min(pages - 1);
        let spans = [
            None,
            Some(Span { first: 0, end: pages, bins: 97 }),
            Some(Span { first: from, end: (from + pages_shown).min(pages), bins }),
        ];
        if let Some(m) = fold_mismatch(&mut sim, &spans, 400) {
            prop_assert!(false, "{}", m);
        }
    }

    #[test]
    fn bins_rebinned_over_the_pages_events_changed_are_the_bins_after(
        cfg in config(),
        first in 0.0f64..1.0,
        pages_shown in 1u64..3000,
        bins in 1u32..1500,
        moves in proptest::collection::vec((1u64..40, 0u8..8), 1..30),
    ) {
        // Steps forward noting the changed pages, and now and then jumps
        // to a checkpoint's machine, as a seeker does; the kept leaf
        // counts serve every machine of the run.
        let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
        prop_assume!(len <= 20_000);
        let timeline = Timeline::build(cfg.clone(), 1 << 16);
        let sim = timeline.simulation_at(0);
        let pages = sim.machine().geo.nr_pages;
        let from = ((pages as f64 * first) as u64).min(pages - 1);
        let spans = [
            Span { first: 0, end: pages, bins: 97 },
            Span { first: 0, end: pages, bins: 1500 },
            // Bins of several leaves each, whose counts are kept.
            Span { first: 0, end: pages, bins: (pages / 300).max(1) as u32 },
            Span { first: from, end: (from + pages_shown).min(pages), bins },
        ];
        rebins_match_fresh(&timeline, sim, &spans, &moves)?;
    }

    #[test]
    fn bins_rebinned_over_large_files_are_the_bins_after(
        mib in prop_oneof![Just(64u64), Just(320), Just(1100)],
        pattern in prop_oneof![
            (100u64..1500, any::<u64>()).prop_map(|(milli_pct, seed)| Pattern::Random { milli_pct, seed }),
            (64u64..700).prop_map(Pattern::Stride),
            (64u64..700).prop_map(Pattern::RStride),
        ],
        madvise in prop_oneof![Just(Madvise::Normal), Just(Madvise::Hugepage), Just(Madvise::Random)],
        variant in proptest::sample::select(crate::Variant::ALL.to_vec()),
        moves in proptest::collection::vec((1u64..300, 0u8..6), 1..20),
    ) {
        // The test above keeps files under 2,048 pages; these have 16,384
        // and more, with nodes above the leaves' parents, bins of
        // thousands of pages (two and seven over the file) and leaves
        // kept across jumps: every rebin, after steps or a jump to a
        // checkpoint, must equal a fresh count.
        let cfg = Config::new(Scenario {
            kernel: Kernel::from_variant(variant),
            file_size: mib << 20,
            madvise,
            pattern,
            ..Scenario::default()
        });
        prop_assume!(cfg.is_ok());
        let cfg = cfg.unwrap();
        let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
        prop_assume!(len <= 20_000);
        let timeline = Timeline::build(cfg.clone(), 1 << 20);
        let sim = timeline.simulation_at(0);
        let pages = sim.machine().geo.nr_pages;
        let spans = [
            Span { first: 0, end: pages, bins: 2 },
            Span { first: 0, end: pages, bins: 7 },
            Span { first: 0, end: pages, bins: 1102 },
            Span { first: pages / 3, end: pages, bins: 97 },
        ];
        rebins_match_fresh(&timeline, sim, &spans, &moves)?;
    }

    #[test]
    fn a_timeline_names_the_access_that_added_each_folio(cfg in config(), frac in 0.0f64..1.0) {
        let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
        prop_assume!(len <= 3_000);
        let timeline = Timeline::build(cfg.clone(), 1 << 20);
        let target = (len as f64 * frac) as u64;
        // The last access that added a folio at each index, as the events
        // of a straight run tell it.
        let mut sim = Simulation::new(cfg);
        let mut last_add = std::collections::BTreeMap::new();
        while sim.step_count() < target {
            let mut events = Vec::new();
            sim.step(&mut events);
            for e in events {
                if let crate::Event::FolioAdded { index, .. } = e {
                    last_add.insert(index, sim.step_count());
                }
            }
        }
        let mut folios = 0;
        let mut wrong = None;
        sim.machine().cache.for_each_folio(|f| {
            folios += 1;
            let got = timeline.added_at(f.index, target);
            if got != last_add.get(&f.index).copied() && wrong.is_none() {
                wrong = Some((f.index, got));
            }
        });
        prop_assert!(wrong.is_none(), "folio {:?} at step {}", wrong, target);
        prop_assert_eq!(timeline.added_at(u32::MAX as u64 + 7, target), None);
    }

    #[test]
    fn fast_paths_change_nothing(cfg in config()) {
        let mut fast = Simulation::new(cfg.clone());
        let mut slow = Simulation::new(cfg);
        slow.machine_mut().fast_paths = false;
        let target = fast.len().min(20_000);
        // With a listening sink, every event of every access is the same,
        // in the same order, as are the state and the lookups counted.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for step in 1..=target.min(2_000) {
            a.clear();
            b.clear();
            fast.step(&mut a);
            slow.step(&mut b);
            if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
                prop_assert!(
                    false,
                    "access {}, event {}: fast {:?}, step by step {:?}",
                    step, i, a.get(i), b.get(i)
                );
            }
            prop_assert_eq!(fast.machine().lookups(), slow.machine().lookups(), "access {}", step);
        }
        // With none, the model may skip building events; the rest is the same.
        fast.run_to(target, &mut NoEvents);
        slow.run_to(target, &mut NoEvents);
        prop_assert!(fast.machine().same_state(slow.machine()));
        prop_assert_eq!(Summary::of(fast.machine()), Summary::of(slow.machine()));
    }

    #[test]
    fn a_patch_that_changes_no_behaviour_changes_nothing(cfg in config()) {
        for patch in Patch::ALL.into_iter().filter(|p| !p.changes_behaviour()) {
            let mut with = cfg.scenario();
            with.kernel.patches = with.kernel.patches.with(patch);
            let mut without = cfg.scenario();
            without.kernel.patches = without.kernel.patches.without(patch);
            let mut a = Simulation::new(Config::new(with).unwrap());
            let mut b = Simulation::new(Config::new(without).unwrap());
            let target = a.len().min(20_000);
            a.run_to(target, &mut NoEvents);
            b.run_to(target, &mut NoEvents);
            prop_assert!(a.machine().same_state(b.machine()), "{}", patch.name());
            prop_assert_eq!(Summary::of(a.machine()), Summary::of(b.machine()), "{}", patch.name());
        }
    }

    #[test]
    fn first_difference_finds_where_two_runs_part(cfg in config(), ra_kb in prop_oneof![Just(0u64), Just(64), Just(4096)]) {
        let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
        prop_assume!(len <= 5_000);
        let mut other = cfg.scenario();
        other.read_ahead_kb = ra_kb;
        let other = Config::new(other).unwrap();
        let a = Timeline::build(cfg.clone(), 1 << 20);
        let b = Timeline::build(other.clone(), 1 << 20);
        let found = a.first_difference(&b);
        // Built in lockstep, a slice at a time, with the first run only
        // replayed: the same difference, and the same timeline for the
        // run that was built.
        let mut lockstep = Lockstep::new(vec![(cfg, false), (other, true)], Indexing::AsItRuns { budget_bytes: 1 << 20 });
        while !lockstep.advance(97) {}
        let (built, diffs) = lockstep.finish();
        prop_assert_eq!(diffs, vec![found]);
        prop_assert!(built[0].is_none());
        let built_b = built[1].as_ref().unwrap();
        prop_assert_eq!(built_b.samples(), b.samples());
        prop_assert_eq!(built_b.density(), b.density());
        for mark in crate::Mark::ALL {
            prop_assert_eq!(built_b.marks(mark), b.marks(mark));
        }
        prop_assert_eq!(Summary::of(built_b.take_end().machine()), Summary::of(b.take_end().machine()));
        // Check against a step-by-step full comparison.
        let mut sa = a.simulation_at(0);
        let mut sb = b.simulation_at(0);
        let mut want = None;
        for step in 0..=len {
            if step > 0 {
                sa.step(&mut NoEvents);
                sb.step(&mut NoEvents);
            }
            if !sa.machine().same_state(sb.machine()) {
                want = Some(step);
                break;
            }
        }
        prop_assert_eq!(found, want);
    }

    #[test]
    fn a_timelines_density_marks_samples_and_origins_are_its_events(cfg in config()) {
        // The build notes each access's events as they go by and keeps
        // none (EventLog::notes_only); held here to the events kept one
        // access at a time and read back.
        let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
        prop_assume!(len <= 5_000);
        let timeline = Timeline::build(cfg.clone(), 1 << 20);
        let (density, bucket) = timeline.density();
        let mut want_density = vec![0u32; density.len()];
        let mut want_marks: [Vec<u64>; 3] = Default::default();
        let mut sim = Simulation::new(cfg);
        let sample_every = len.div_ceil(crate::timeline::MAX_SAMPLES).max(1);
        let mut want_samples = vec![crate::timeline::Sample::of(0, sim.machine())];
        let mut log = crate::EventLog::new();
        for k in 0..len {
            log.clear();
            sim.step(&mut log);
            if (k + 1) % sample_every == 0 || k + 1 == len {
                want_samples.push(crate::timeline::Sample::of(k + 1, sim.machine()));
            }
            let events = log.events();
            want_density[(k / bucket) as usize] += events.len() as u32;
            let major = events.iter().any(|e| matches!(e, Event::FaultAccounted { major: true, .. }));
            let readahead = events.iter().any(|e| matches!(e, Event::Window {
                func: KFunc::PageCacheSyncRa | KFunc::PageCacheAsyncRa | KFunc::DoSyncMmapReadahead, ..
            }));
            let crossing = events.iter().any(|e| matches!(e, Event::MmapMiss { old, new, .. }
                if (*old <= MMAP_LOTSAMISS) != (*new <= MMAP_LOTSAMISS)));
            for (i, hit) in [major, readahead, crossing].into_iter().enumerate() {
                if hit {
                    want_marks[i].push(k + 1);
                }
            }
            for e in events {
                if let Event::FolioAdded { index, .. } = *e {
                    prop_assert_eq!(timeline.added_at(index, k + 1), Some(k + 1));
                }
            }
        }
        prop_assert_eq!(density, &want_density[..]);
        prop_assert_eq!(timeline.samples(), &want_samples[..]);
        for (i, mark) in crate::Mark::ALL.into_iter().enumerate() {
            prop_assert_eq!(timeline.marks(mark), &want_marks[i][..], "{:?}", mark);
        }
    }

    #[test]
    fn a_timeline_jump_lands_where_a_straight_run_does(cfg in config(), frac in 0.0f64..1.0) {
        let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
        prop_assume!(len <= 20_000);
        let timeline = Timeline::build(cfg.clone(), 1 << 20);
        let target = (len as f64 * frac) as u64;
        let mut straight = Simulation::new(cfg);
        straight.run_to(target, &mut NoEvents);
        let jumped = timeline.machine_at(target);
        prop_assert_eq!(Summary::of(&jumped), Summary::of(straight.machine()));
        // And moving an existing simulation there, from wherever it is.
        let mut sim = timeline.simulation_at(len / 3);
        timeline.seek(&mut sim, target);
        prop_assert_eq!(Summary::of(sim.machine()), Summary::of(straight.machine()));
        // Moved back and forth, restored in its own memory over chunks it
        // holds, written or not, it holds each step's state.
        let mut moved = timeline.simulation_at(len);
        for to in [target, len / 2, target / 3, len, target, 0, len * 2 / 3, target] {
            timeline.seek(&mut moved, to);
            prop_assert!(moved.machine().same_state(&timeline.machine_at(to)), "seeking to {}", to);
            if let Some(b) = broken(moved.machine()) {
                prop_assert!(false, "seeking to {}: {}", to, b);
            }
        }
        // A logged seek hands over the events of the last accesses it ran,
        // numbered, as `events_of` tells them.
        for (from, tail) in [(len / 3, 5u64), (0, 3), (target.saturating_sub(2), 40)] {
            let mut sim = timeline.simulation_at(from);
            let mut logged: Vec<(u64, crate::Event)> = Vec::new();
            timeline.seek_logged(&mut sim, target, tail, |a, e| logged.push((a, e)));
            prop_assert_eq!(Summary::of(sim.machine()), Summary::of(straight.machine()));
            let first = logged.first().map_or(target + 1, |l| l.0);
            prop_assert!(first > target.saturating_sub(tail), "logged access {} of tail {}", first, tail);
            let want: Vec<(u64, crate::Event)> = (first..=target)
                .flat_map(|a| timeline.events_of(a).into_iter().map(move |e| (a, e)))
                .collect();
            prop_assert_eq!(&logged, &want);
            if from > target || target - from > timeline.interval() {
                // Restored from a checkpoint: every access of the tail.
                let runs_all = (target.saturating_sub(tail) + 1..=target).all(|a| timeline.events_of(a).is_empty() || logged.iter().any(|l| l.0 == a));
                prop_assert!(runs_all);
            }
        }
        // The events kept of the run's end are those a straight run's
        // last accesses make, and `events_of` tells them, as it tells
        // the access before them, which it runs again; the end is the
        // straight run's.
        let end_from = len.saturating_sub(crate::END_LOG_ACCESSES) + 1;
        let first = end_from.saturating_sub(1).max(1);
        let mut whole = Simulation::new(timeline.config().clone());
        whole.run_to(first - 1, &mut NoEvents);
        let mut log = crate::event_log::EventLog::new();
        let mut want: Vec<(u64, crate::Event)> = Vec::new();
        for a in first..=len {
            whole.step(&mut log);
            let events = log.take();
            prop_assert_eq!(&timeline.events_of(a), &events, "access {}", a);
            want.extend(events.into_iter().map(|e| (a, e)));
        }
        want.retain(|&(a, _)| a >= end_from);
        prop_assert_eq!(timeline.end_events(), &want[..]);
        prop_assert_eq!(timeline.end_counters(), whole.machine().counters());
        prop_assert_eq!(timeline.end_lookups(), whole.machine().lookups());
        // The end lent, then made again from the checkpoints, and a seek
        // to the end after that.
        for _ in 0..2 {
            let end = timeline.take_end();
            prop_assert_eq!(end.step_count(), len);
            prop_assert!(end.machine().same_state(whole.machine()));
        }
        let mut back = timeline.simulation_at(0);
        timeline.seek(&mut back, len);
        prop_assert!(back.machine().same_state(whole.machine()));
        // Those runs wrote to chunks they shared with the checkpoints;
        // the checkpoints must not have seen it.
        sim.run(&mut NoEvents);
        prop_assert_eq!(Summary::of(&timeline.machine_at(target)), Summary::of(straight.machine()));
    }

    /// A timeline whose checkpoints are left for later seeks from the
    /// start until an index builder's run sets them; then it holds what a
    /// timeline indexed as it ran holds, with checkpoints as close or
    /// closer, and a simulation moved before still lands right.
    #[test]
    fn a_timeline_indexed_later_seeks_as_one_indexed_as_it_runs(cfg in config(), frac in 0.0f64..1.0, slice in 1u64..5000) {
        let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
        prop_assume!(len <= 20_000);
        let budget = 1 << 20;
        let now = Timeline::build(cfg.clone(), budget);
        let later = TimelineBuilder::indexing(cfg, Indexing::Later).finish();
        prop_assert!(now.is_indexed() && now.index_builder(budget).is_none());
        prop_assert!(!later.is_indexed());
        prop_assert!(later.interval() > len, "unindexed, seeks replay from the start");
        let target = (len as f64 * frac) as u64;
        prop_assert!(later.machine_at(target).same_state(&now.machine_at(target)));
        let mut moved = later.simulation_at(len);
        later.seek(&mut moved, target);
        prop_assert!(moved.machine().same_state(&now.machine_at(target)));
        prop_assert_eq!(later.samples(), now.samples());
        prop_assert_eq!(later.density(), now.density());
        prop_assert_eq!(later.end_events(), now.end_events());
        for mark in crate::Mark::ALL {
            prop_assert_eq!(later.marks(mark), now.marks(mark), "{:?}", mark);
        }
        // As the app does: the end lent, then the index taken, whose
        // run's end is held in its place for the spare made next, moved
        // to the start.
        let lent = later.take_end();
        prop_assert!(lent.machine().same_state(&now.machine_at(len)));
        let mut builder = later.index_builder(budget).expect("not indexed yet");
        while !builder.advance(slice) {
            prop_assert!(builder.done() < builder.len());
        }
        later.set_index(builder);
        prop_assert!(later.is_indexed() && later.index_builder(budget).is_none());
        let mut spare = later.simulation_at_start_with_room();
        prop_assert_eq!(spare.step_count(), 0);
        prop_assert!(spare.machine().same_state(&now.machine_at(0)));
        for to in [target, len] {
            later.seek(&mut spare, to);
            prop_assert!(spare.machine().same_state(&now.machine_at(to)), "the spare seeking to {}", to);
        }
        prop_assert!(later.take_end().machine().same_state(&now.machine_at(len)));
        // The second run may take closer checkpoints than a build does
        // (`MIN_INTERVAL_LATER`), never fewer.
        prop_assert!(later.interval() <= now.interval(), "{} > {}", later.interval(), now.interval());
        if later.interval() == now.interval() {
            // The same checkpoints, then, in the same chunks.
            prop_assert_eq!(later.checkpoint_bytes(), now.checkpoint_bytes());
        }
        for to in [target, len / 2, 0, len, target / 3, len * 2 / 3, target] {
            later.seek(&mut moved, to);
            let want = now.machine_at(to);
            prop_assert!(moved.machine().same_state(&want), "seeking to {}", to);
            prop_assert!(later.machine_at(to).same_state(&want), "step {}", to);
        }
    }
}

/// The random scenarios above rarely reach a patch's code, so a patch
/// that claims no change in behaviour also runs, on every kernel, the
/// walks the seeds are about: backward and forward, random and strided,
/// under each madvise that the patches treat differently.
#[test]
fn a_patch_that_changes_no_behaviour_changes_nothing_on_the_seed_walks() {
    let walks = [
        (Pattern::Rev, Madvise::Hugepage),
        (Pattern::Rev, Madvise::Sequential),
        (Pattern::Fwd, Madvise::Normal),
        (
            Pattern::Random {
                milli_pct: 20_000,
                seed: 1,
            },
            Madvise::Hugepage,
        ),
        (Pattern::Stride(7), Madvise::Normal),
    ];
    for patch in Patch::ALL.into_iter().filter(|p| !p.changes_behaviour()) {
        for variant in crate::Variant::ALL {
            for (pattern, madvise) in &walks {
                let run = |on: bool| {
                    let mut kernel = Kernel::from_variant(variant);
                    kernel.patches = if on {
                        kernel.patches.with(patch)
                    } else {
                        kernel.patches.without(patch)
                    };
                    let mut sim = Simulation::new(
                        Config::new(Scenario {
                            kernel,
                            file_size: 64 << 20,
                            madvise: *madvise,
                            pattern: pattern.clone(),
                            ..Scenario::default()
                        })
                        .unwrap(),
                    );
                    sim.run(&mut NoEvents);
                    sim
                };
                let (a, b) = (run(true), run(false));
                let what = format!(
                    "{} on {} {pattern:?} {madvise:?}",
                    patch.name(),
                    variant.name()
                );
                assert!(a.machine().same_state(b.machine()), "{what}");
                assert_eq!(Summary::of(a.machine()), Summary::of(b.machine()), "{what}");
            }
        }
    }
}

/// The fast paths pay off on long walks, which the random scenarios above
/// are not: the seeds' walks of a 64 MiB file on every kernel, with and
/// without a memory limit, give the same events access by access, the same
/// lookups and the same state with the fast paths on and off.
#[test]
fn fast_paths_change_nothing_on_the_seed_walks() {
    let walks = [
        (Pattern::Rev, Madvise::Sequential),
        (Pattern::Rev, Madvise::Hugepage),
        (Pattern::Rev, Madvise::Normal),
        (Pattern::Fwd, Madvise::Normal),
        (
            Pattern::Random {
                milli_pct: 20_000,
                seed: 1,
            },
            Madvise::Hugepage,
        ),
        (Pattern::RStride(3), Madvise::Sequential),
        (Pattern::Read { bs: 4096 }, Madvise::Normal),
    ];
    for variant in crate::Variant::ALL {
        for (pattern, madvise) in &walks {
            for memory_limit in [None, Some(24 << 20)] {
                let cfg = Config::new(Scenario {
                    kernel: Kernel::from_variant(variant),
                    file_size: 64 << 20,
                    madvise: *madvise,
                    memory_limit,
                    pattern: pattern.clone(),
                    ..Scenario::default()
                })
                .unwrap();
                let what = format!(
                    "{} {pattern:?} {madvise:?} limit {memory_limit:?}",
                    variant.name()
                );
                let mut fast = Simulation::new(cfg.clone());
                let mut slow = Simulation::new(cfg);
                slow.machine_mut().fast_paths = false;
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let mut step = 0;
                loop {
                    a.clear();
                    b.clear();
                    let more = fast.step(&mut a);
                    assert_eq!(more, slow.step(&mut b));
                    if !more {
                        break;
                    }
                    step += 1;
                    assert!(a == b, "{what}: the events of access {step} differ");
                    assert_eq!(
                        fast.machine().lookups(),
                        slow.machine().lookups(),
                        "{what}: access {step}"
                    );
                }
                assert!(fast.machine().same_state(slow.machine()), "{what}");
                assert_eq!(
                    Summary::of(fast.machine()),
                    Summary::of(slow.machine()),
                    "{what}"
                );
            }
        }
    }
}

/// The random scenarios above are short; these walks run long enough to
/// evict PMD-mapped and PTE-mapped folios under a memory limit, and to read
/// a tmpfs file with holes, so that the folding of those events is held to
/// the machine too.
#[test]
fn a_picture_folds_evictions_pmd_mappings_and_reads() {
    let walks = [
        (
            Pattern::Rev,
            Madvise::Hugepage,
            Some(16 << 20),
            Backing::Disk,
        ),
        (Pattern::Fwd, Madvise::Normal, Some(4 << 20), Backing::Disk),
        (
            Pattern::Random {
                milli_pct: 20_000,
                seed: 7,
            },
            Madvise::Hugepage,
            None,
            Backing::Disk,
        ),
        (
            Pattern::Read { bs: 65536 },
            Madvise::Normal,
            None,
            Backing::Tmpfs {
                huge: true,
                file: TmpfsFile::Sparse,
            },
        ),
    ];
    let (mut evictions, mut pmd_maps) = (0, 0);
    for (pattern, madvise, memory_limit, backing) in walks {
        let cfg = Config::new(Scenario {
            file_size: 64 << 20,
            pattern: pattern.clone(),
            madvise,
            memory_limit,
            backing,
            ..Scenario::default()
        })
        .unwrap();
        let mut sim = Simulation::new(cfg);
        let pages = sim.machine().geo.nr_pages;
        let spans = [
            None,
            Some(Span {
                first: 0,
                end: pages,
                bins: 300,
            }),
            Some(Span {
                first: 1000,
                end: 1700,
                bins: 1400,
            }),
        ];
        if let Some(m) = fold_mismatch(&mut sim, &spans, 20_000) {
            panic!("{pattern:?} {madvise:?}: {m}");
        }
        evictions += sim.machine().counters.evictions;
        pmd_maps += sim.machine().mm.pmd_mapped;
    }
    assert!(
        evictions > 0 && pmd_maps > 0,
        "the walks evict and map PMDs"
    );
}

/// A recorded program's accesses switch the open file and the mapping in
/// use, which a picture keeps as they were when the access started; the
/// figures still follow every event, and folding never fails.
#[test]
fn a_picture_of_a_recorded_program_follows_its_figures() {
    use Access::*;
    let program = vec![
        Open { ofd: 0 },
        ReadAt {
            ofd: 0,
            offset: 0,
            len: 65536,
        },
        Open { ofd: 1 },
        ReadAt {
            ofd: 1,
            offset: 1 << 20,
            len: 65536,
        },
        Mmap {
            mm: 0,
            vpn: 0x10000,
            pages: 2048,
            ofd: 0,
            pgoff: 0,
            exec: false,
        },
        Fault {
            mm: 0,
            vpn: 0x10010,
            write: false,
        },
        Mmap {
            mm: 1,
            vpn: 0x20000,
            pages: 1024,
            ofd: 1,
            pgoff: 512,
            exec: false,
        },
        Fault {
            mm: 1,
            vpn: 0x20010,
            write: false,
        },
        Fault {
            mm: 0,
            vpn: 0x10400,
            write: false,
        },
        Munmap {
            mm: 0,
            vpn: 0x10000,
            pages: 512,
        },
        Fadvise {
            ofd: 0,
            offset: 0,
            len: 0,
            advice: crate::Fadvice::DontNeed,
        },
        SpliceRead {
            ofd: 1,
            offset: 0,
            len: 65536,
        },
    ];
    let cfg = Config::new(Scenario {
        file_size: 16 << 20,
        pattern: Pattern::Trace(program),
        ..Scenario::default()
    })
    .unwrap();
    let mut sim = Simulation::new(cfg);
    let span = Some(Span {
        first: 0,
        end: 4096,
        bins: 300,
    });
    loop {
        let before = sim.machine().clone();
        let mut events = Vec::new();
        if !sim.step(&mut events) {
            break;
        }
        let mut folded = Picture::new(&before, span);
        for e in &events {
            folded.apply(e);
        }
        assert_eq!(
            folded.figures(),
            Picture::new(sim.machine(), span).figures()
        );
    }
    assert!(sim.machine().counters.major_faults > 0);
}

/// A walk of 256 MiB with MADV_RANDOM: order-0 folios fill a thousand
/// leaves, and each checkpoint interval writes a few of them.
fn random_order0_walk() -> Config {
    Config::new(Scenario {
        file_size: 256 << 20,
        madvise: Madvise::Random,
        ..Scenario::default()
    })
    .unwrap()
}

/// A simulation moved along its timeline thaws checkpoints into its node
/// arena, which keeps room for the most nodes the run held from its first
/// thaw of any node: moving forward and back never reallocates it.
#[test]
fn seeks_never_grow_the_node_arena() {
    let cfg = random_order0_walk();
    let timeline = Timeline::build(cfg, usize::MAX);
    let len = timeline.len();
    let mut sim = timeline.simulation_at(len / 8);
    let room = sim.machine().cache.xa.arena_bytes();
    for step in [len / 4, len / 2, len / 2 + 300, len - 1, 1, len * 3 / 4] {
        timeline.seek(&mut sim, step);
        assert_eq!(
            sim.machine().cache.xa.arena_bytes(),
            room,
            "the arena grew on the way to step {step}"
        );
    }
}

/// Random accesses to one page in 200 of 64 MiB, with MADV_RANDOM: a few
/// dozen leaves of the 256 the file could need.
fn sparse_random_64m() -> Config {
    Config::new(Scenario {
        file_size: 64 << 20,
        madvise: Madvise::Random,
        pattern: Pattern::Random {
            milli_pct: 500,
            seed: 3,
        },
        ..Scenario::default()
    })
    .unwrap()
}

/// A run keeps room for the nodes of its whole file; its timeline's end
/// gives back what the run did not use, for the machines seeks make.
#[test]
fn a_timelines_end_keeps_no_room_past_its_nodes() {
    let cfg = sparse_random_64m();
    let mut run = Simulation::new(cfg.clone());
    run.run(&mut NoEvents);
    let reserved = run.machine().cache.xa.arena_bytes();
    let timeline = Timeline::build(cfg, usize::MAX);
    let end = timeline.take_end();
    let end = &end.machine().cache.xa;
    assert!(
        end.clone().arena_bytes() < reserved,
        "the run used all the room it reserved"
    );
    assert_eq!(
        end.arena_bytes(),
        end.clone().arena_bytes(),
        "the end's arena kept room past its nodes (a clone keeps none)"
    );
}

#[test]
fn a_simulation_made_ahead_at_the_start_has_room_for_the_runs_nodes() {
    let cfg = sparse_random_64m();
    let timeline = Timeline::build(cfg, usize::MAX);
    let end = timeline.take_end().machine().cache.xa.clone().arena_bytes();
    let bare = timeline.simulation_at(0);
    let ahead = timeline.simulation_at_start_with_room();
    assert_eq!(ahead.step_count(), 0);
    assert!(
        bare.machine().cache.xa.arena_bytes() < end,
        "a bare start already had the run's room"
    );
    assert!(
        ahead.machine().cache.xa.arena_bytes() >= end,
        "{} bytes of room at the start, the run's nodes take {end}",
        ahead.machine().cache.xa.arena_bytes()
    );
    assert!(!ahead.machine().differs_quickly(bare.machine()));
}

#[test]
fn checkpoints_share_what_did_not_change() {
    // A walk of 256 MiB with MADV_RANDOM, so order-0 folios fill a
    // thousand leaves: each checkpoint adds the few leaves and page-table
    // words the walk wrote since the last one, far less than a full copy.
    let cfg = random_order0_walk();
    let timeline = Timeline::build(cfg.clone(), usize::MAX);
    let mut sim = Simulation::new(cfg);
    let mut full_copies = 0;
    for k in (0..timeline.len()).step_by(timeline.interval() as usize) {
        sim.run_to(k, &mut NoEvents);
        // A copy's size: the live machine has room reserved for nodes.
        full_copies += sim.machine().clone().memory_bytes();
    }
    assert!(
        timeline.checkpoint_bytes() * 4 < full_copies,
        "checkpoints take {} bytes, full copies would take {full_copies}",
        timeline.checkpoint_bytes()
    );
}

/// A budget the checkpoints outgrow several times: each time every other
/// one is dropped and the chunks no kept one reaches are freed for reuse.
/// The checkpoints left, restored from chunks written over freed ones,
/// still hold what a straight run holds.
#[test]
fn checkpoints_kept_after_their_chunks_were_freed_and_reused_hold_the_run() {
    let cfg = random_order0_walk();
    let unbounded = Timeline::build(cfg.clone(), usize::MAX);
    let budget = unbounded.checkpoint_bytes() / 6;
    let timeline = Timeline::build(cfg.clone(), budget);
    assert!(
        timeline.interval() >= unbounded.interval() * 4,
        "the interval widened at least twice: {} from {}",
        timeline.interval(),
        unbounded.interval()
    );
    // The budget is checked as each checkpoint is taken, so the end can
    // pass it by the checkpoints taken since the last halving; what the
    // sweeps freed is still most of the unbounded build's.
    assert!(
        timeline.checkpoint_bytes() < unbounded.checkpoint_bytes() / 2,
        "{} bytes kept, {} unbounded",
        timeline.checkpoint_bytes(),
        unbounded.checkpoint_bytes()
    );
    let mut straight = Simulation::new(cfg);
    let mut moved = timeline.simulation_at(timeline.len());
    for k in (0..timeline.len()).step_by(timeline.interval() as usize / 2) {
        straight.run_to(k, &mut NoEvents);
        assert!(
            timeline.machine_at(k).same_state(straight.machine()),
            "step {k}"
        );
        // And by a seeker that moves back, thawing over its own chunks.
        timeline.seek(&mut moved, k);
        assert!(
            moved.machine().same_state(straight.machine()),
            "seek to {k}"
        );
    }
}

/// A program's start: files 0 and 1 opened, process 0 mapping `pages`
/// pages of file 0 at virtual page 0x10000, and process 1 mapping 4096
/// pages of file 1 from its page 1024 at 0x40000.
fn two_mappings(pages: u64) -> Vec<Access> {
    use Access::*;
    vec![
        Open { ofd: 0 },
        Open { ofd: 1 },
        Mmap {
            mm: 0,
            vpn: 0x10000,
            pages,
            ofd: 0,
            pgoff: 0,
            exec: false,
        },
        Mmap {
            mm: 1,
            vpn: 0x40000,
            pages: 4096,
            ofd: 1,
            pgoff: 1024,
            exec: false,
        },
    ]
}

/// The configuration of such a program on a 64 MiB file, MADV_RANDOM.
fn two_mappings_config(program: Vec<Access>) -> Config {
    Config::new(Scenario {
        file_size: 64 << 20,
        madvise: crate::Madvise::Random,
        pattern: Pattern::Trace(program),
        ..Scenario::default()
    })
    .unwrap()
}

/// A program that faults through two mappings by turns: the one not in
/// use is parked whole in each checkpoint, and a seek's thaw leaves the
/// chunks it shares with the checkpoint it last thawed. Moved back and
/// forth, a simulation still holds what a straight run holds at each step.
#[test]
fn a_program_of_two_mappings_seeks_to_what_a_straight_run_holds() {
    use Access::*;
    let mut program = two_mappings(8192);
    for k in 0..3000u64 {
        let (mm, vpn, pages) = if k % 3 == 0 {
            (1, 0x40000, 4096)
        } else {
            (0, 0x10000, 8192)
        };
        let page = crate::splitmix64(k) % pages;
        program.push(Fault {
            mm,
            vpn: vpn + page,
            write: k % 7 == 0,
        });
        if k % 500 == 499 {
            program.push(Fadvise {
                ofd: 0,
                offset: 0,
                len: 1 << 24,
                advice: crate::Fadvice::DontNeed,
            });
        }
    }
    let cfg = two_mappings_config(program);
    let timeline = Timeline::build(cfg.clone(), usize::MAX);
    let len = timeline.len();
    let stops = [
        len / 2,
        len / 9,
        len - 1,
        len * 3 / 4,
        0,
        len / 2 + 300,
        len / 9,
        len * 3 / 4,
    ];
    let mut sorted = stops.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut straight = Simulation::new(cfg);
    let mut at = std::collections::HashMap::new();
    for &to in &sorted {
        straight.run_to(to, &mut NoEvents);
        at.insert(to, straight.machine().clone());
    }
    let mut moved = timeline.simulation_at(len / 3);
    for to in stops {
        timeline.seek(&mut moved, to);
        let want = &at[&to];
        assert!(moved.machine().same_state(want), "seeking to {to}");
        assert_eq!(
            Summary::of(moved.machine()),
            Summary::of(want),
            "seeking to {to}"
        );
        assert!(broken(moved.machine()).is_none(), "seeking to {to}");
    }
}

/// A mapping parked by a `munmap` of another, after a checkpoint froze
/// it, forgets the frozen copy: the build frees the chunks of copies no
/// checkpoint keeps, and a parked mapping put back in use and frozen
/// against a copy whose chunks went would share chunks that hold
/// something else by then.
#[test]
fn a_mapping_parked_after_a_checkpoint_remembers_no_frozen_copy() {
    use Access::*;
    let mut program = two_mappings(16384);
    // Longer than a checkpoint interval on process 0's mapping alone.
    for k in 0..2500u64 {
        program.push(Fault {
            mm: 0,
            vpn: 0x10000 + crate::splitmix64(k) % 16384,
            write: false,
        });
    }
    program.push(Munmap {
        mm: 1,
        vpn: 0x40000 + 2048,
        pages: 1024,
    });
    let cfg = two_mappings_config(program);
    let timeline = Timeline::build(cfg, usize::MAX);
    assert!(timeline.interval() < 2500);
    let end = timeline.take_end();
    let end = end.machine();
    assert!(end.program.vmas.len() >= 2);
    for v in &end.program.vmas {
        assert!(
            v.mapping.pte_origin().is_none(),
            "a parked mapping of process {} remembers a frozen copy",
            v.mm
        );
    }
}

#[test]
fn the_invariant_check_can_fail() {
    // A machine whose mmap_miss is out of range must be reported.
    let cfg = Config::defaults(Pattern::Fwd, 1 << 20).unwrap();
    let mut sim = Simulation::new(cfg);
    sim.run(&mut NoEvents);
    assert!(broken(sim.machine()).is_none());
    let mut m = sim.machine().clone();
    m.ra.mmap_miss = 10 * MMAP_LOTSAMISS + 1;
    assert!(broken(&m).is_some());
}
