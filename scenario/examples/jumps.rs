//! The model's part of the web app's jumps, timed: `jumps [--cold]
//! [ROUNDS] [LINK] [COLUMNS]`.
//!
//! It builds a view's timelines as the app does before and after its
//! first render (its kernels side by side in the core's `Lockstep`, then
//! the checkpoints a short run leaves for later), for a link's query or,
//! when none is given, the timing test's 16 GiB comparison. Then, in each
//! of `ROUNDS` rounds (3 when none is given), it makes the jumps of that
//! test (`e2e/tests/06-timing.mjs`): two cold ones, to the step before
//! the last access and back to the start, then forty over the run, each
//! kernel's simulation sought
//! from where the jump before left it, and the bins of a strip of
//! `COLUMNS` columns (1102, the test's window 1400 pixels wide) counted
//! afresh from the counts it kept. It prints the median of the timed
//! jumps of the rounds after the first (in wasm, the first is when the
//! engine optimises the model's code): the seeks' milliseconds and the
//! bins', for all kernels together, and the first kernel's major faults
//! at the end, as one JSON line.
//!
//! Unlike the app it keeps one simulation a kernel, not two (the spare
//! the app seeks from when that is nearer: `web/src/seekers.rs`): what
//! it times is the model's own work in a jump as the app asks for it, the
//! checkpoint restored, the accesses replayed (the events of the last
//! ones handed over, for the app's log) and the strip's bins. The
//! same source runs native and as wasm (wasm32-wasip1 under Node), which
//! is how `cargo xtask bench` compares the two in one run.
//!
//! With `--cold`, [`COLD_BYTES`] of other memory are written before each
//! kernel's seek, as the rendering of the frames between two jumps does in
//! the browser: the model's work in a jump there is bound by what misses
//! the caches, which a loop of jumps alone keeps warm.

use std::time::Instant;

use folioscope_core::{Bin, ChangedPages, Indexing, LeafBins, Lockstep, Span, CHECKPOINT_BUDGET};
use folioscope_scenario::link::parse_link;

/// The timing test's 16 GiB comparison (`e2e/lib/trace.mjs`).
const BIG: &str =
    "?v=1&kernel=v7.4-rc2,v7.4-rc2+desc-ra&size=16G&madvise=hugepage&pattern=random:1:1";

/// As the app's seekers (`web/src/seekers.rs`): a move forward in place
/// of at most this many accesses notes the pages their events changed,
/// and any other move counts every page as changed; and the events of the
/// last this many accesses are logged.
const NOTE_ACCESSES: u64 = 4096;
const LOG_ACCESSES: u64 = 40;

/// Bytes written before each kernel's seek with `--cold`, outside the
/// time taken: as large as the host's last-level cache (32 MiB on these
/// machines). In Chromium, the 16 GiB
/// comparison's jumps took the model 1.3-1.6 ms of seeks and 1.1-1.5 ms
/// of bins (`performance.now` around the app's calls, 40 jumps three
/// times, in the morning of 2026-12-07); this example took 0.8 and 0.6
/// ms natively without `--cold` and 1.3-1.4 and 1.1-1.2 ms with it, and
/// in wasm under Node 1.2 and 0.9 ms without, 1.4-1.5 and 1.0-1.1 ms
/// with it (later that day, a quiet spell). The host's other machines
/// share that cache: in a busy spell an hour later, the figures without
/// `--cold` came near those with it (1.57 and 1.19 ms against 1.62 and
/// 1.42, natively, `cargo xtask bench`).
const COLD_BYTES: usize = 32 << 20;

/// Memory written to evict the model's from the caches, and how many
/// times it was.
struct Evictor(Vec<u64>, u64);

impl Evictor {
    fn new() -> Self {
        Evictor(vec![0; COLD_BYTES / 8], 0)
    }

    /// Writes every word, a different value each time, so that no pass
    /// can be left out.
    fn evict(&mut self) {
        self.1 += 1;
        for (i, w) in self.0.iter_mut().enumerate() {
            *w = self.1 ^ i as u64;
        }
        std::hint::black_box(&self.0);
    }
}

/// The timing test's jumps over a run of `len` accesses: the cold two,
/// then forty, the k-th to (7919 k mod 40) / 40 of the run.
fn jumps(len: u64) -> Vec<u64> {
    let timed = (0..40u64).map(|k| (k * 7919 % 40) * len / 40);
    [len - 1, 0].into_iter().chain(timed).collect()
}

fn main() {
    let mut args: Vec<String> = std::env::args().collect();
    let cold = args
        .iter()
        .position(|a| a == "--cold")
        .map(|i| args.remove(i))
        .is_some();
    let mut evictor = cold.then(Evictor::new);
    let fail = |what: &str| -> ! {
        eprintln!("jumps: {what}");
        std::process::exit(2);
    };
    let rounds: usize = match args.get(1).map(|a| a.parse()) {
        None => 3,
        Some(Ok(n)) if n >= 2 => n,
        Some(_) => fail("ROUNDS must be a whole number of at least 2"),
    };
    let query = args.get(2).map_or(BIG, |q| q.as_str());
    let columns: u32 = match args.get(3).map(|a| a.parse()) {
        None => 1102,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => fail("COLUMNS must be a whole number above 0"),
    };
    let parsed = parse_link(query);
    if let Some(ignored) = parsed.ignored.first() {
        fail(&format!("link key {ignored}"));
    }
    let cfgs = match parsed
        .view
        .scenarios()
        .iter()
        .map(|s| s.config())
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(c) => c,
        Err(e) => fail(&e.to_string()),
    };
    // As `use_build` and then `use_warm_up` index them.
    let indexing = Indexing::by_length(&cfgs[0], CHECKPOINT_BUDGET);
    let runs = cfgs.iter().map(|c| (c.clone(), true)).collect();
    let (built, _) = Lockstep::new(runs, indexing).finish();
    let timelines: Vec<_> = built.into_iter().map(|t| t.expect("built")).collect();
    for t in &timelines {
        if let Some(index) = t.index_builder(CHECKPOINT_BUDGET) {
            t.set_index(index);
        }
    }
    let len = timelines[0].len();
    if len == 0 {
        fail("the link's run has no accesses to jump between");
    }
    let span = Span {
        first: 0,
        end: cfgs[0].file_size / cfgs[0].page_size.bytes(),
        bins: columns,
    };
    let mut sims: Vec<_> = timelines.iter().map(|t| t.simulation_at(0)).collect();
    let mut changed: Vec<_> = cfgs.iter().map(ChangedPages::new).collect();
    let mut kept: Vec<LeafBins> = timelines.iter().map(|_| LeafBins::default()).collect();
    let mut bins: Vec<Vec<Bin>> = timelines.iter().map(|_| Vec::new()).collect();
    let (mut seek_ms, mut bins_ms) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        for (k, &step) in jumps(len).iter().enumerate() {
            let (mut seek, mut binning) = (0.0, 0.0);
            for (i, t) in timelines.iter().enumerate() {
                let here = sims[i].step_count();
                if here == step {
                    continue;
                }
                if let Some(e) = evictor.as_mut() {
                    e.evict();
                }
                let t0 = Instant::now();
                let noted = t.seeks_in_place(here, step) && step - here <= NOTE_ACCESSES;
                if !noted {
                    changed[i].set_everything();
                }
                let tail = if noted { step - here } else { LOG_ACCESSES };
                let c = &mut changed[i];
                t.seek_logged(&mut sims[i], step, tail, |_, e| c.note(&e));
                let t1 = Instant::now();
                sims[i]
                    .machine()
                    .rebin(span, &mut bins[i], &changed[i], &mut kept[i]);
                changed[i].clear();
                let t2 = Instant::now();
                seek += (t1 - t0).as_secs_f64() * 1000.0;
                binning += (t2 - t1).as_secs_f64() * 1000.0;
            }
            if round > 0 && k >= 2 {
                seek_ms.push(seek);
                bins_ms.push(binning);
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "{{\"seek_ms\":{:.3},\"bins_ms\":{:.3},\"kernels\":{},\"jumps\":{},\"major_faults\":{}}}",
        median(&mut seek_ms),
        median(&mut bins_ms),
        timelines.len(),
        seek_ms.len(),
        timelines[0].end_counters().major_faults
    );
}
