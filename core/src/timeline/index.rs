//! A timeline's seek index: checkpoints of the machine every `interval`
//! accesses, so that a seek restores the one at or before its step and
//! replays at most an interval. Not a kernel structure.
//!
//! The index is taken as the run is built ([`Indexing::AsItRuns`]), or by
//! a second run of the scenario once the timeline is drawn
//! ([`Indexing::Later`], then [`IndexBuilder`]). The web app takes the
//! second way for short runs ([`INDEX_LATER_MAX_ACCESSES`] says why).
//! Until its index is set, a timeline seeks from the start.

use std::rc::Rc;

use crate::checkpoint::{Checkpoint, Stores};
use crate::config::Config;
use crate::event::NoEvents;
use crate::machine::Machine;
use crate::sim::Simulation;

/// When a timeline's checkpoints are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Indexing {
    /// As the run is built, within this many bytes (at least two are
    /// always kept).
    AsItRuns { budget_bytes: usize },
    /// By an [`IndexBuilder`], after the build: the build takes only the
    /// checkpoint at the start.
    Later,
}

/// Checkpoint memory the web app allows one timeline; the benchmarks and
/// the walk example that stand for the app's timelines use it too. Of the
/// presets and the timing test's 16 GiB links, only the memory cgroup
/// preset's timelines reach it: they thin to a checkpoint every 4096
/// accesses, 78.5 MB a kernel. It was 96 MB until nodes were packed
/// without the head words that hold what unpacking assumes (2026-12-08),
/// when that preset's checkpoints came to 93.8 MB at the same interval.
/// A run's stores keep the blocks they filled up to the budget, so the
/// room above what it ends with is held all the same: at 84 MB every
/// timeline keeps the interval it had at 96 (all presets and both links,
/// natively), and the preset's build holds 295.2 instead of 326.1 MB.
pub const CHECKPOINT_BUDGET: usize = 84 << 20;

/// Runs of at most this many accesses are indexed later by
/// [`Indexing::by_length`]: their second run is at most a quarter of the
/// default view's accesses. A short run over a large file copies most of
/// its nodes at each checkpoint: the 16 GiB link's (41,944 accesses,
/// 60 MB of checkpoints a kernel) took about 70 ms of its first render in
/// Chromium, median 483 against 410 ms without them (10 loads each,
/// alternated). The default view's (524,288 accesses) take about 5 ms of
/// a kernel's 120 ms build natively, less than a second run would cost.
pub const INDEX_LATER_MAX_ACCESSES: u64 = 1 << 17;

impl Indexing {
    /// How the web app indexes `cfg`'s timeline: later when its run is
    /// short ([`INDEX_LATER_MAX_ACCESSES`]), within `budget_bytes` as it
    /// runs otherwise.
    pub fn by_length(cfg: &Config, budget_bytes: usize) -> Indexing {
        if cfg.pattern.len(cfg.file_size, cfg.page_size.bytes()) <= INDEX_LATER_MAX_ACCESSES {
            Indexing::Later
        } else {
            Indexing::AsItRuns { budget_bytes }
        }
    }
}

/// Checkpoints, the interval between them, and the stores they keep their
/// nodes and PTE bits in.
#[derive(Clone, Debug)]
pub(crate) struct Index {
    /// A power of two, so that the test for a checkpoint is a mask.
    pub interval: u64,
    pub checkpoints: Vec<Rc<Checkpoint>>,
    pub stores: Rc<Stores>,
    pub bytes: usize,
}

impl Index {
    /// The index of the start alone: a seek replays from step 0.
    pub fn start_of(full: &Index, len: u64) -> Index {
        let first = full.checkpoints[0].clone();
        Index {
            interval: beyond(len),
            bytes: first.new_bytes(None),
            checkpoints: vec![first],
            stores: full.stores.clone(),
        }
    }

    /// The checkpoint at or after `step`, if one is.
    pub fn after(&self, step: u64) -> Option<&Checkpoint> {
        self.checkpoints
            .get(step.div_ceil(self.interval) as usize)
            .map(|c| c.as_ref())
    }

    /// The checkpoint at or before `step` (short of the end), and its step.
    pub fn before(&self, step: u64) -> (&Checkpoint, u64) {
        let i = ((step / self.interval) as usize).min(self.checkpoints.len() - 1);
        (&self.checkpoints[i], i as u64 * self.interval)
    }
}

/// An interval no step of a run of `len` accesses reaches.
fn beyond(len: u64) -> u64 {
    (len + 1).next_power_of_two()
}

/// The interval a run of `len` accesses starts with: about 512
/// checkpoints over the run, and no closer than `min` accesses. The
/// budget doubles it as the run goes when the checkpoints outgrow it.
fn first_interval(len: u64, min: u64) -> u64 {
    (len / 512).max(min).next_power_of_two()
}

/// The least interval of checkpoints taken as a run is built. Checkpoints
/// share unchanged xarray and page-table chunks, so they can be close: a
/// seek replays at most an interval. At least 1024, not 256 as before
/// 2026-12-04: a short run of random accesses over a large file writes
/// new nodes and PTE chunks at almost every access, so its checkpoints
/// copy most of what they hold, and the first touches of that memory
/// were a large part of a build in the browser. On the 16 GiB link
/// (41,944 accesses, then indexed as it ran) its checkpoints took 59.7
/// MB a kernel instead of 86.5, and in Chromium its first render took
/// 489 against 533 ms
/// (median of 12 loads each, alternated); its seeks replayed more
/// (natively, the timing test's jumps 0.50 against 0.35 ms on average).
/// A run of costlier accesses (16 GiB read in 1 MiB blocks) seeks in
/// 0.07 ms. Runs of 512K accesses or more start at len / 512.
const MIN_INTERVAL_AS_IT_RUNS: u64 = 1024;

/// The least interval of checkpoints taken by a second run, after the
/// timeline is drawn ([`Indexing::Later`]): that run is not part of the
/// first render, so its checkpoints can be closer, for shorter seeks.
/// The 16 GiB link, natively (both kernels, the timing test's 40 jumps,
/// 2026-12-06): seeks replay 86 instead of 145 M instructions (callgrind),
/// median 0.83 against 1.10 ms a jump, and in wasm under Node 1.51
/// against 2.08 ms; its checkpoints take 74.1 MB a kernel instead of
/// 59.7, and the second run 135 against 119 ms. In Chromium, five
/// alternated rounds of those jumps: median work 10.9 against 11.3 ms,
/// p95 12.6 against 14.2; the link's `folioscope-warm` mark came at 732
/// against 680 ms (8 loads each; 688 against 664 once freezes walked only
/// the chunks they copy), its first render unchanged. A 16 GiB
/// random timeline's peak (`cargo xtask bench`) is 111.6 MB instead of
/// 97.7. At 256 its checkpoints took 86.5 MB a kernel, which left that
/// peak too close to its 128 MB bound.
const MIN_INTERVAL_LATER: u64 = 512;

/// Takes a run's checkpoints as it goes.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    budget_bytes: usize,
    interval: u64,
    checkpoints: Vec<Rc<Checkpoint>>,
    stores: Stores,
    bytes: usize,
}

impl Checkpointer {
    /// Takes the checkpoint of `m` at the start of a run of `len`
    /// accesses, and plans the others as `indexing` says.
    pub fn new(m: &mut Machine, len: u64, indexing: Indexing) -> Self {
        match indexing {
            Indexing::AsItRuns { budget_bytes } => Self::every(
                m,
                first_interval(len, MIN_INTERVAL_AS_IT_RUNS),
                budget_bytes,
            ),
            Indexing::Later => Self::every(m, beyond(len), usize::MAX),
        }
    }

    /// The checkpointer of a second run ([`IndexBuilder`]), which indexes
    /// a timeline after it was drawn: its checkpoints may be closer than
    /// a build's ([`MIN_INTERVAL_LATER`]).
    fn for_second_run(m: &mut Machine, len: u64, budget_bytes: usize) -> Self {
        Self::every(m, first_interval(len, MIN_INTERVAL_LATER), budget_bytes)
    }

    /// Takes the checkpoint of `m` at the start, and plans one every
    /// `interval` accesses within `budget_bytes`.
    fn every(m: &mut Machine, interval: u64, budget_bytes: usize) -> Self {
        let mut stores = Stores::default();
        let first = Rc::new(Checkpoint::take(m, &mut stores));
        Checkpointer {
            budget_bytes,
            interval,
            bytes: first.new_bytes(None),
            checkpoints: vec![first],
            stores,
        }
    }

    /// After access number `done` (1-based) of a run of `len`: takes a
    /// checkpoint of `m` when one is due, and keeps every other one when
    /// they grew past the budget.
    #[inline]
    pub fn after(&mut self, done: u64, len: u64, m: &mut Machine) {
        debug_assert!(self.interval.is_power_of_two());
        if done & (self.interval - 1) != 0 || done >= len {
            return;
        }
        let cp = Rc::new(Checkpoint::take(m, &mut self.stores));
        self.bytes += cp.new_bytes(self.checkpoints.last().map(Rc::as_ref));
        self.checkpoints.push(cp);
        if self.bytes > self.budget_bytes && self.checkpoints.len() > 2 {
            // Keep every other checkpoint: twice the interval.
            let kept: Vec<Rc<Checkpoint>> = std::mem::take(&mut self.checkpoints)
                .into_iter()
                .step_by(2)
                .collect();
            self.checkpoints = kept;
            self.interval *= 2;
            self.stores.sweep(&self.checkpoints, m);
            let mut bytes = self.stores.bytes();
            let mut prev = None;
            for c in &self.checkpoints {
                bytes += c.own_bytes(prev);
                prev = Some(c.as_ref());
            }
            self.bytes = bytes;
        }
    }

    /// The index, once the run is over; `end` is its machine at the end,
    /// whose nodes are as many as any machine of the run holds.
    pub fn finish(mut self, end: &Machine) -> Index {
        self.stores.node_room = end.cache.xa.arena_len();
        Index {
            interval: self.interval,
            checkpoints: self.checkpoints,
            stores: Rc::new(self.stores),
            bytes: self.bytes,
        }
    }
}

/// A second run of a timeline's scenario, taking the checkpoints that its
/// build left for later, a slice of accesses at a time; then
/// [`crate::Timeline::set_index`].
#[derive(Debug)]
pub struct IndexBuilder {
    sim: Simulation,
    checkpointer: Checkpointer,
}

impl IndexBuilder {
    /// The second run of `cfg`, whose xarray's arena holds `node_room`
    /// nodes at most (the first run's): room for them all from the start,
    /// and none for the whole file's. The 16 GiB comparison's first runs
    /// held 32,496 nodes a kernel, the file's room is 66,577 (20 MB more).
    pub(crate) fn new(cfg: Config, budget_bytes: usize, node_room: usize) -> Self {
        let mut sim = Simulation::with_node_room(cfg, Some(node_room));
        let len = sim.len();
        let checkpointer = Checkpointer::for_second_run(sim.machine_mut(), len, budget_bytes);
        IndexBuilder { sim, checkpointer }
    }

    /// Accesses in the run.
    pub fn len(&self) -> u64 {
        self.sim.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Accesses run so far.
    pub fn done(&self) -> u64 {
        self.sim.step_count()
    }

    /// Runs up to `steps` more accesses; returns whether the run is over.
    pub fn advance(&mut self, steps: u64) -> bool {
        let len = self.sim.len();
        let to = self.done().saturating_add(steps).min(len);
        while self.sim.step_count() < to {
            self.sim.step(&mut NoEvents);
            let done = self.sim.step_count();
            self.checkpointer.after(done, len, self.sim.machine_mut());
        }
        self.sim.is_done()
    }

    /// The index and the run's machine at its end, the run finished first
    /// if it was stopped early.
    pub(crate) fn finish(mut self) -> (Index, Simulation) {
        while !self.advance(crate::sim::RUN_CHUNK) {}
        let index = self.checkpointer.finish(self.sim.machine());
        (index, self.sim)
    }
}
