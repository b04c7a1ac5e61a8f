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
/// the walk example that stand for the app's timelines use it too.
pub const CHECKPOINT_BUDGET: usize = 96 << 20;

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
            bytes: first.new_bytes(),
            checkpoints: vec![first],
            stores: full.stores.clone(),
        }
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
        let (interval, budget_bytes) = match indexing {
            // Checkpoints share unchanged xarray and page-table chunks, so
            // they can be close: a seek replays at most `interval`
            // accesses. At least 1024, not 256 as before 2026-12-04: a
            // short run of random accesses over a large file writes new
            // nodes and PTE chunks at almost every access, so its
            // checkpoints copy most of what they hold, and the first
            // touches of that memory were a large part of a build in the
            // browser. On the 16 GiB link (41,944 accesses) its
            // checkpoints take 59.7 MB a kernel instead of 86.5, and in
            // Chromium its first render took 489 against 533 ms (median
            // of 12 loads each, alternated). Its seeks replay more:
            // natively, the timing test's jumps take 0.50 against 0.35 ms
            // on average, and in e2e 06 its jump median rose by about half
            // a millisecond. A run of costlier accesses (16 GiB read in
            // 1 MiB blocks) seeks in 0.07 ms. Runs of 512K accesses or
            // more keep their interval.
            Indexing::AsItRuns { budget_bytes } => {
                ((len / 512).max(1024).next_power_of_two(), budget_bytes)
            }
            Indexing::Later => (beyond(len), usize::MAX),
        };
        let mut stores = Stores::default();
        let first = Rc::new(Checkpoint::take(m, &mut stores));
        Checkpointer {
            budget_bytes,
            interval,
            bytes: first.new_bytes(),
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
        self.bytes += cp.new_bytes();
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
            self.bytes = self.stores.bytes()
                + self
                    .checkpoints
                    .iter()
                    .map(|c| c.own_bytes())
                    .sum::<usize>();
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
    pub(crate) fn new(cfg: Config, budget_bytes: usize) -> Self {
        let mut sim = Simulation::new(cfg);
        let len = sim.len();
        let checkpointer =
            Checkpointer::new(sim.machine_mut(), len, Indexing::AsItRuns { budget_bytes });
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
