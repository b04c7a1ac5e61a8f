//! A whole scenario, run once, kept so that any step can be reached fast:
//! checkpoints of the machine every `interval` steps (its index), sampled
//! counters for plots, the steps where notable events happened, and event
//! density.
//!
//! Reaching step N restores the checkpoint at or before N and runs the few
//! steps after it, so a jump costs one copy of the state plus at most
//! `interval` steps, wherever N is. Checkpoints share the xarray's node
//! chunks and the page tables' chunks that did not change between them
//! ([`crate::checkpoint`]), so they can sit a few hundred accesses apart.

mod index;
mod marks;
mod origins;

use std::cell::{OnceCell, RefCell};

use index::{Checkpointer, Index};
pub use index::{IndexBuilder, Indexing, CHECKPOINT_BUDGET, INDEX_LATER_MAX_ACCESSES};
use marks::MarkRuns;
use origins::Origins;

use crate::config::Config;
use crate::counters::Counters;
use crate::event::{Event, EventKind, NoEvents};
use crate::event_log::{AccessNotes, EventLog};
use crate::machine::Machine;
use crate::sim::Simulation;
use crate::xarray::XaStats;

/// Counters at one sampled step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    pub step: u64,
    pub major_faults: u64,
    pub minor_faults: u64,
    pub bytes_read: u64,
    pub read_ios: u64,
    pub mmap_miss: u16,
    pub xa_node_visits: u64,
}

impl Sample {
    pub(crate) fn of(step: u64, m: &Machine) -> Self {
        Sample {
            step,
            major_faults: m.counters.major_faults,
            minor_faults: m.counters.minor_faults,
            bytes_read: m.counters.bytes_read,
            read_ios: m.counters.read_ios,
            mmap_miss: m.ra.mmap_miss,
            xa_node_visits: m.cache.xa.stats().node_visits,
        }
    }
}

/// What "jump to the next ..." can look for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    MajorFault,
    /// A readahead window was set up (sync or async).
    Readahead,
    /// `mmap_miss` went over MMAP_LOTSAMISS, or came back under it.
    LotsaMissCrossing,
}

impl Mark {
    pub const ALL: [Mark; 3] = [Mark::MajorFault, Mark::Readahead, Mark::LotsaMissCrossing];
}

/// The finished run of a scenario.
#[derive(Clone, Debug)]
pub struct Timeline {
    cfg: Config,
    len: u64,
    /// The checkpoint at the start alone: what seeks use until `index` is
    /// set.
    start: Index,
    /// The checkpoints, once taken: by the build, or later by an
    /// [`IndexBuilder`]. Set once; a seek's result is the same either
    /// way, only its cost differs.
    index: OnceCell<Index>,
    samples: Vec<Sample>,
    /// For each [`Mark`], the 1-based steps (accesses done) after which it happened.
    marks: [MarkRuns; 3],
    /// Events per bucket of `bucket` steps.
    density: Vec<u32>,
    bucket: u64,
    /// The run at its end: the build's own simulation, moved, until
    /// [`Timeline::take_end`] lends it to the one caller that draws it
    /// and moves it on (the app's seeker of this kernel). Kept here as
    /// well, it was a second copy of the nodes for as long as the view
    /// stood: on the 16 GiB comparison, 19 MB a kernel of the app's
    /// wasm memory. Once lent, the end is made again from the last
    /// checkpoint when asked for.
    end: RefCell<Option<Simulation>>,
    /// The end's counters and lookups, which outlive the lending.
    end_counters: Counters,
    end_lookups: XaStats,
    /// The places in the end's xarray arena, which outlive the lending
    /// too.
    end_arena: usize,
    /// The events of the last [`END_LOG_ACCESSES`] accesses, each with
    /// its access number (1-based), in order.
    end_events: Vec<(u64, Event)>,
    origins: Origins,
}

/// The accesses at the end of a run whose events a timeline keeps: a view
/// that opens at the end (the app's default) draws the run's own machine
/// and shows these in its log, with no replay. Before, each kernel's
/// first draw thawed the whole xarray from the last checkpoint and ran
/// the last accesses again: on the 16 GiB link, 9 ms a kernel natively,
/// and a second copy of its 19 MB of nodes.
pub const END_LOG_ACCESSES: u64 = 64;

/// How many samples plots get at most.
pub const MAX_SAMPLES: u64 = 4096;
/// How many density buckets the scrubber gets.
pub const DENSITY_BUCKETS: u64 = 1024;

/// A timeline being built: the scenario runs a slice of steps at a time,
/// so that a caller with a frame to keep (the web app) can build one
/// between frames and show how far it has come.
#[derive(Debug)]
pub struct TimelineBuilder {
    cfg: Config,
    sim: Simulation,
    len: u64,
    indexing: Indexing,
    sample_every: u64,
    bucket: u64,
    /// The access count of the next sample; the density bucket the next
    /// access falls in, and the access that starts the bucket after it.
    /// The builder counts towards these instead of dividing at every
    /// access: those divisions took 5% of the default view's build
    /// (perf, native).
    next_sample: u64,
    bucket_at: usize,
    next_bucket: u64,
    checkpointer: Checkpointer,
    samples: Vec<Sample>,
    marks: [MarkRuns; 3],
    density: Vec<u32>,
    origins: Origins,
    /// What the last access did, kept from call to call: a build in
    /// lockstep advances one access at a time, and a fresh buffer of
    /// added folios for each costs more allocation than the access's
    /// model.
    log: EventLog,
    /// For the last [`END_LOG_ACCESSES`] accesses: a log that keeps their
    /// events, and those events.
    end_log: EventLog,
    end_events: Vec<(u64, Event)>,
}

impl TimelineBuilder {
    /// Starts the build of `cfg`'s timeline, keeping checkpoints within
    /// `budget_bytes` of memory (at least two are always kept).
    pub fn new(cfg: Config, budget_bytes: usize) -> Self {
        Self::indexing(cfg, Indexing::AsItRuns { budget_bytes })
    }

    /// Starts the build of `cfg`'s timeline, taking its checkpoints as
    /// `indexing` says.
    pub fn indexing(cfg: Config, indexing: Indexing) -> Self {
        let mut sim = Simulation::new(cfg.clone());
        let len = sim.len();
        let bucket = len.div_ceil(DENSITY_BUCKETS).max(1);
        let sample_every = len.div_ceil(MAX_SAMPLES).max(1);
        let checkpointer = Checkpointer::new(sim.machine_mut(), len, indexing);
        let samples = vec![Sample::of(0, sim.machine())];
        TimelineBuilder {
            cfg,
            len,
            indexing,
            sample_every,
            bucket,
            next_sample: sample_every,
            bucket_at: 0,
            next_bucket: bucket,
            checkpointer,
            samples,
            marks: Default::default(),
            density: vec![0u32; len.div_ceil(bucket) as usize],
            origins: Origins::default(),
            sim,
            log: EventLog::notes_only(),
            end_log: EventLog::new(),
            end_events: Vec::new(),
        }
    }

    /// Accesses in the scenario.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Accesses run so far.
    pub fn done(&self) -> u64 {
        self.sim.step_count()
    }

    pub fn is_done(&self) -> bool {
        self.sim.is_done()
    }

    /// The machine after the accesses run so far.
    pub fn machine(&self) -> &Machine {
        self.sim.machine()
    }

    /// Runs up to `steps` more accesses; returns whether the scenario is
    /// over. Call it until it returns true, then [`TimelineBuilder::finish`].
    pub fn advance(&mut self, steps: u64) -> bool {
        let mut log = std::mem::take(&mut self.log);
        let from = self.done();
        let to = from.saturating_add(steps).min(self.len);
        let end_from = self.len.saturating_sub(END_LOG_ACCESSES);
        for k in from..to.min(end_from) {
            log.clear();
            self.sim.step(&mut log);
            self.record(k, log.notes());
        }
        self.log = log;
        if to > end_from {
            self.advance_end(from.max(end_from)..to);
        }
        self.sim.is_done()
    }

    /// Runs accesses `ks` among the last [`END_LOG_ACCESSES`], keeping
    /// their events. Out of line: in the loop above, this second copy of
    /// an access's recording made the default view's build 2-3% slower.
    #[inline(never)]
    fn advance_end(&mut self, ks: std::ops::Range<u64>) {
        let mut log = std::mem::take(&mut self.end_log);
        for k in ks {
            log.clear();
            self.sim.step(&mut log);
            log.note_kept();
            self.record(k, log.notes());
            self.end_events
                .extend(log.drain().map(|event| (k + 1, event)));
        }
        self.end_log = log;
    }

    /// Notes what access `k` (0-based) did, and takes a checkpoint after
    /// it when one is due.
    #[inline]
    fn record(&mut self, k: u64, rec: &AccessNotes) {
        let done = k + 1;
        let len = self.len;
        self.origins.note(done, &rec.added);
        if k == self.next_bucket {
            self.bucket_at += 1;
            self.next_bucket += self.bucket;
        }
        debug_assert_eq!(self.bucket_at as u64, k / self.bucket);
        let b = self.bucket_at;
        self.density[b] = self.density[b].saturating_add(rec.events);
        for (i, hit) in [rec.major, rec.readahead, rec.crossing]
            .into_iter()
            .enumerate()
        {
            if hit {
                self.marks[i].push(done);
            }
        }
        if done == self.next_sample || done == len {
            self.next_sample += self.sample_every;
            self.samples.push(Sample::of(done, self.sim.machine()));
        }
        self.checkpointer.after(done, len, self.sim.machine_mut());
    }

    /// The timeline, once [`TimelineBuilder::advance`] returned true; a
    /// build stopped early is run to its end first.
    pub fn finish(mut self) -> Timeline {
        while !self.advance(crate::sim::RUN_CHUNK) {}
        // The run's own machine is the end state: moved, not copied, so
        // the build never holds two whole machines at once. Its xarray
        // kept room for the nodes of the whole file and will not grow
        // again: the room goes back to the allocator, for the machines
        // that seeks make. On the 16 GiB link that is 20 MB a kernel, which
        // the app's wasm memory otherwise grew by again when its seekers
        // reserved their own.
        let taken = self.checkpointer.finish(self.sim.machine());
        self.sim.machine_mut().cache.xa.shrink_arena();
        let (start, index) = match self.indexing {
            Indexing::AsItRuns { .. } => (Index::start_of(&taken, self.len), taken.into()),
            Indexing::Later => (taken, OnceCell::new()),
        };
        Timeline {
            end_counters: *self.sim.machine().counters(),
            end_lookups: self.sim.machine().lookups(),
            end_arena: self.sim.machine().cache.xa.arena_len(),
            end: RefCell::new(Some(self.sim)),
            end_events: self.end_events,
            cfg: self.cfg,
            len: self.len,
            start,
            index,
            samples: self.samples,
            marks: self.marks,
            density: self.density,
            bucket: self.bucket,
            origins: self.origins.finished(),
        }
    }
}

/// One pattern under several configurations (kernels), run side by side
/// from the first access: each run builds its timeline, or only replays
/// one its caller built before, and after every access each run's state
/// is compared with the first's, so that where they part is found on the
/// way ([`Timeline::first_difference`] finds the same step).
#[derive(Debug)]
pub struct Lockstep {
    runs: Vec<LockstepRun>,
    /// For each run after the first: the first step after which its state
    /// and the first run's differ, once found.
    first_diff: Vec<Option<u64>>,
    /// Steps run in lockstep so far, and how many the comparison takes.
    step: u64,
    common: u64,
}

#[derive(Debug)]
enum LockstepRun {
    Build(Box<TimelineBuilder>),
    Replay(Box<Simulation>),
}

impl LockstepRun {
    fn machine(&self) -> &Machine {
        match self {
            LockstepRun::Build(b) => b.machine(),
            LockstepRun::Replay(s) => s.machine(),
        }
    }

    fn len(&self) -> u64 {
        match self {
            LockstepRun::Build(b) => b.len(),
            LockstepRun::Replay(s) => s.len(),
        }
    }

    fn done(&self) -> u64 {
        match self {
            LockstepRun::Build(b) => b.done(),
            LockstepRun::Replay(s) => s.step_count(),
        }
    }

    /// Up to `steps` more accesses.
    fn advance(&mut self, steps: u64) {
        match self {
            LockstepRun::Build(b) => {
                b.advance(steps);
            }
            LockstepRun::Replay(s) => {
                let to = s.step_count().saturating_add(steps).min(s.len());
                s.run_to(to, &mut NoEvents);
            }
        }
    }

    /// One access; false when the run was over.
    fn step(&mut self) -> bool {
        match self {
            LockstepRun::Build(b) => {
                if b.is_done() {
                    return false;
                }
                b.advance(1);
                true
            }
            LockstepRun::Replay(s) => s.step(&mut NoEvents),
        }
    }
}

impl Lockstep {
    /// Runs `runs` side by side: a timeline is built for each run whose
    /// flag is true, its checkpoints taken as `indexing` says, and the
    /// others are only replayed, to compare them. The first run is the
    /// one the others are compared with.
    pub fn new(runs: Vec<(Config, bool)>, indexing: Indexing) -> Self {
        let runs: Vec<LockstepRun> = runs
            .into_iter()
            .map(|(cfg, build)| {
                if build {
                    LockstepRun::Build(Box::new(TimelineBuilder::indexing(cfg, indexing)))
                } else {
                    LockstepRun::Replay(Box::new(Simulation::new(cfg)))
                }
            })
            .collect();
        let common = runs.iter().map(LockstepRun::len).min().unwrap_or(0);
        let mut lockstep = Lockstep {
            first_diff: vec![None; runs.len().saturating_sub(1)],
            runs,
            step: 0,
            common,
        };
        lockstep.compare();
        lockstep
    }

    /// Accesses in the longest run.
    pub fn len(&self) -> u64 {
        self.runs.iter().map(LockstepRun::len).max().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Accesses every run has made.
    pub fn done(&self) -> u64 {
        self.runs.iter().map(LockstepRun::done).min().unwrap_or(0)
    }

    /// Runs up to `steps` more accesses of each run; returns whether every
    /// run is over. Call it until it returns true, then
    /// [`Lockstep::finish`].
    pub fn advance(&mut self, steps: u64) -> bool {
        if self.compared() {
            // Nothing left to compare: each run goes on by itself, its
            // state staying in the caches for the whole block.
            for r in &mut self.runs {
                r.advance(steps);
            }
            return self.runs.iter().all(|r| r.done() >= r.len());
        }
        for k in 0..steps {
            if self.compared() {
                return self.advance(steps - k);
            }
            let mut any = false;
            for r in &mut self.runs {
                any |= r.step();
            }
            if !any {
                return true;
            }
            self.step += 1;
            if self.step <= self.common {
                self.compare();
            }
        }
        self.runs.iter().all(|r| r.done() >= r.len())
    }

    /// Whether every comparison is over: each run parted from the first,
    /// or the shortest run ended.
    fn compared(&self) -> bool {
        self.step >= self.common || self.first_diff.iter().all(Option::is_some)
    }

    /// Notes the runs whose state now differs from the first's.
    fn compare(&mut self) {
        let Some((first, rest)) = self.runs.split_first() else {
            return;
        };
        for (d, r) in self.first_diff.iter_mut().zip(rest) {
            if d.is_none() && first.machine().differs_quickly(r.machine()) {
                *d = Some(self.step);
            }
        }
    }

    /// Each run's timeline (none for a replayed run), and for each run
    /// after the first, the first step after which it and the first part.
    pub fn finish(mut self) -> (Vec<Option<Timeline>>, Vec<Option<u64>>) {
        while !self.advance(crate::sim::RUN_CHUNK) {}
        let timelines = self
            .runs
            .into_iter()
            .map(|r| match r {
                LockstepRun::Build(b) => Some(b.finish()),
                LockstepRun::Replay(_) => None,
            })
            .collect();
        (timelines, self.first_diff)
    }
}

impl Timeline {
    /// Runs the scenario to its end, keeping checkpoints within
    /// `budget_bytes` of memory (at least two are always kept).
    pub fn build(cfg: Config, budget_bytes: usize) -> Self {
        TimelineBuilder::new(cfg, budget_bytes).finish()
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Accesses in the scenario.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The checkpoints seeks use: the index once set, the start alone
    /// before.
    fn index(&self) -> &Index {
        self.index.get().unwrap_or(&self.start)
    }

    /// Whether the checkpoints are taken ([`Indexing::Later`] leaves them
    /// to an [`IndexBuilder`]).
    pub fn is_indexed(&self) -> bool {
        self.index.get().is_some()
    }

    /// A second run of the scenario that takes the checkpoints, within
    /// `budget_bytes` of memory; none when they are taken already.
    pub fn index_builder(&self, budget_bytes: usize) -> Option<IndexBuilder> {
        (!self.is_indexed()).then(|| {
            IndexBuilder::new(
                self.cfg.clone(),
                budget_bytes,
                self.index().stores.node_room,
            )
        })
    }

    /// Sets the checkpoints `builder` took, running it to its end first.
    /// A timeline indexed already keeps its own. The builder's run at its
    /// end is held as the end again when the build's was lent, for the
    /// next [`Timeline::take_end`] or
    /// [`Timeline::simulation_at_start_with_room`] to have.
    pub fn set_index(&self, builder: IndexBuilder) {
        let (index, end) = builder.finish();
        debug_assert!(
            end.machine().counters() == &self.end_counters
                && self
                    .end
                    .borrow()
                    .as_ref()
                    .is_none_or(|e| !end.machine().differs_quickly(e.machine())),
            "the index's run ended elsewhere than the build"
        );
        let _ = self.index.set(index);
        self.end.borrow_mut().get_or_insert(end);
    }

    /// Steps between checkpoints.
    pub fn interval(&self) -> u64 {
        self.index().interval
    }

    pub fn checkpoint_bytes(&self) -> usize {
        self.index().bytes
    }

    /// The machine after `step` accesses.
    pub fn machine_at(&self, step: u64) -> Machine {
        self.simulation_at(step).into_parts().1
    }

    /// A simulation positioned after `step` accesses, ready to go on.
    pub fn simulation_at(&self, step: u64) -> Simulation {
        let step = step.min(self.len);
        if step == self.len {
            if let Some(end) = self.end.borrow().as_ref() {
                return end.clone();
            }
        }
        let index = self.index();
        let (checkpoint, from) = index.before(step);
        let mut sim = Simulation::resume(self.cfg.clone(), checkpoint.restore(&index.stores), from);
        sim.run_to(step, &mut NoEvents);
        sim
    }

    /// A simulation at the start that already has room for as many nodes
    /// as the run holds, its pages in memory: one made ahead of time, to
    /// keep in reserve, which then takes no more memory on its first seek
    /// and faults in no page as its nodes are added. In Chromium, the
    /// first writes to that room were the most page faults of two seconds
    /// of the 16 GiB link's play from the start (`perf record -e
    /// page-faults` on the renderer: 28% of them, in `XArray::alloc`).
    /// [`Timeline::simulation_at`] at the start reserves none, for the
    /// reason `XArray::thaw_nodes` gives.
    ///
    /// An end held here is moved back to the start for it, in its own
    /// memory, which has that room already: an index builder's run, held
    /// once the build's end was lent, would otherwise be freed just before
    /// this makes as much again, and the app's wasm memory grew by all of
    /// it on the 16 GiB comparison, not reusing the memory freed.
    pub fn simulation_at_start_with_room(&self) -> Simulation {
        let held = self.end.borrow_mut().take();
        if let Some(mut sim) = held {
            self.restore_at(&mut sim, 0);
            return sim;
        }
        self.simulation_at_start_with_room_for(self.index().stores.node_room)
    }

    /// The run at its start, with room made for `nodes` nodes, written
    /// once as [`Timeline::simulation_at_start_with_room`] writes it: a
    /// simulation its caller moves only to steps whose machines hold at
    /// most that many ([`Timeline::arena_by`]), which then never grows
    /// its arena, and no seek gives it the room of the whole run.
    pub fn simulation_at_start_with_room_for(&self, nodes: usize) -> Simulation {
        let mut sim = self.simulation_at(0);
        let xa = &mut sim.machine_mut().cache.xa;
        xa.reserve_arena(nodes);
        xa.touch_arena_room();
        sim
    }

    /// Moves `sim`, a simulation of this timeline, to `step` from the
    /// checkpoint before it, in the memory `sim` has.
    fn restore_at(&self, sim: &mut Simulation, step: u64) {
        let step = step.min(self.len);
        let index = self.index();
        let (checkpoint, from) = index.before(step);
        checkpoint.restore_into(sim.machine_mut(), &index.stores);
        sim.set_step(from);
        sim.run_to(step, &mut NoEvents);
    }

    /// Moves `sim` to `step`: forward in place when that is close, from a
    /// checkpoint otherwise. The one seek policy; see
    /// [`Timeline::seek_logged`].
    pub fn seek(&self, sim: &mut Simulation, step: u64) {
        self.seek_logged(sim, step, 0, |_, _| {});
    }

    /// Whether a seek from step `here` to `step` runs forward in place
    /// (`step` is ahead, within a checkpoint interval) rather than from a
    /// checkpoint.
    pub fn seeks_in_place(&self, here: u64, step: u64) -> bool {
        let step = step.min(self.len);
        let interval = self.interval();
        let next_checkpoint = (here / interval + 1) * interval;
        // Not two intervals: the 16 GiB link's frames of play (273
        // accesses, when its interval was 256) then ran in place, noting
        // their pages; natively stepping and binning fell from 0.605 to
        // 0.510 ms a frame, but in Chromium (2 s of play, six runs each
        // in both orders) the script did not fall, 493 against 485 ms on
        // average: binning took 116 against 135 ms, but stepping with the
        // events of all 273 accesses logged took 111 against 85. At its
        // interval of 1024 its frames run in place, and its play's p95 in
        // e2e 06 stayed where it was.
        step >= here && (step < next_checkpoint || step - here <= interval)
    }

    /// Moves `sim` to `step` as [`Timeline::seek`] does, and hands `log`
    /// the events of the accesses among the last `tail` before `step` that
    /// the move runs, each with its access number (1-based), in order.
    /// Forward in place when `step` is within a checkpoint interval ahead:
    /// then the accesses before `sim`'s step are not run again, and `log`
    /// gets only the ones after it. Otherwise from the checkpoint at or
    /// before `step - tail`, and `log` gets all `tail`.
    pub fn seek_logged(
        &self,
        sim: &mut Simulation,
        step: u64,
        tail: u64,
        mut log: impl FnMut(u64, Event),
    ) {
        let step = step.min(self.len);
        let here = sim.step_count();
        let quiet_to = step.saturating_sub(tail);
        if !self.seeks_in_place(here, step) {
            self.restore_at(sim, quiet_to);
        }
        sim.run_to(quiet_to, &mut NoEvents);
        // The logged accesses collect into one reused `EventLog` rather
        // than a sink per caller's closure: every sink type is another
        // copy of the whole model in the app's wasm, and a few accesses'
        // events cost nothing to buffer.
        let mut events = EventLog::new();
        while sim.step_count() < step {
            let access = sim.step_count() + 1;
            sim.step(&mut events);
            for e in events.drain() {
                log(access, e);
            }
        }
    }

    /// The events that access number `step` (1-based: the one that leads
    /// to the state after `step` accesses) emitted, run again from the
    /// machine before it, made from a checkpoint: a whole machine for a
    /// moment (38 MB on the 16 GiB backward walk), which a caller that
    /// logged the access's events can spare (the app's inspector reads
    /// its seeker's log first).
    pub fn events_of(&self, step: u64) -> Vec<Event> {
        if step == 0 || step > self.len {
            return Vec::new();
        }
        let mut sim = self.simulation_at(step - 1);
        let mut events = EventLog::new();
        sim.step(&mut events);
        events.take()
    }

    /// The access (1-based) at or before `step` that added the folio at
    /// `index`: the last `filemap_add_folio` there, so the folio standing
    /// at `index` after `step` accesses came from it. None when no access
    /// up to `step` added one there.
    pub fn added_at(&self, index: u64, step: u64) -> Option<u64> {
        self.origins.added_at(index, step.min(self.len))
    }

    /// Bytes the record of added folios takes.
    pub fn origins_bytes(&self) -> usize {
        self.origins.bytes()
    }

    /// Counters sampled across the run, for plots.
    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// The 1-based steps after which `mark` happened, ascending. The
    /// timeline keeps them as runs of consecutive steps; this slice of
    /// every step is made on the first call for each kind and kept (8
    /// bytes a mark: 32 MiB for a 16 GiB walk that faults on every page).
    /// [`Timeline::mark_count`] and [`Timeline::mark_steps`] read the runs.
    pub fn marks(&self, mark: Mark) -> &[u64] {
        self.marks[mark as usize].as_slice()
    }

    /// How many steps `mark` happened after.
    pub fn mark_count(&self, mark: Mark) -> u64 {
        self.marks[mark as usize].count()
    }

    /// The 1-based steps after which `mark` happened, ascending, read
    /// from the runs without keeping them.
    pub fn mark_steps(&self, mark: Mark) -> impl Iterator<Item = u64> + '_ {
        self.marks[mark as usize].iter()
    }

    /// The first step after `step` where `mark` happened.
    pub fn next_mark(&self, mark: Mark, step: u64) -> Option<u64> {
        self.marks[mark as usize].next_after(step)
    }

    /// The last step before `step` where `mark` happened.
    pub fn prev_mark(&self, mark: Mark, step: u64) -> Option<u64> {
        self.marks[mark as usize].prev_before(step)
    }

    /// Events per bucket, and the bucket's width in steps.
    pub fn density(&self) -> (&[u32], u64) {
        (&self.density, self.bucket)
    }

    /// The counters at the end of the run.
    pub fn end_counters(&self) -> &Counters {
        &self.end_counters
    }

    /// The xarray lookups at the end of the run.
    pub fn end_lookups(&self) -> XaStats {
        self.end_lookups
    }

    /// The places a machine's xarray arena holds (nodes, free ones too)
    /// at the first checkpoint at or after `step`, or at the end when
    /// none is: what a machine moved to `step` holds at most, give or
    /// take the nodes one checkpoint interval adds, since a read-only
    /// run's arena only grows. Before the checkpoints are taken, the end's
    /// for any step but the start.
    pub fn arena_by(&self, step: u64) -> usize {
        self.index()
            .after(step)
            .map_or(self.end_arena, |c| c.arena_len())
    }

    /// The run at its end, for a caller that will draw it and move it on
    /// with [`Timeline::seek`]: the build's own simulation the first time,
    /// with no copy, and after that one made from the checkpoints, as
    /// [`Timeline::simulation_at`] makes it. What either gives is the
    /// same; only the cost differs.
    pub fn take_end(&self) -> Simulation {
        let lent = self.end.borrow_mut().take();
        lent.unwrap_or_else(|| self.simulation_at(self.len))
    }

    /// Drops the run at the end held here, if any, for a caller that will
    /// ask for none: an index builder's run, held for a spare that a jump
    /// made before the checkpoints were taken. Made again from the
    /// checkpoints if asked for after all.
    pub fn release_end(&self) {
        self.end.take();
    }

    /// Whether the run at its end is held here: the build's until lent,
    /// or an index builder's after that.
    pub fn holds_end(&self) -> bool {
        self.end.borrow().is_some()
    }

    /// The events of the last [`END_LOG_ACCESSES`] accesses (or all, in a
    /// shorter run), each with its access number (1-based), in order.
    pub fn end_events(&self) -> &[(u64, Event)] {
        &self.end_events
    }

    /// The first step after which two runs of the same pattern hold
    /// different states (see [`Machine::same_state`]), found by running
    /// both in lockstep and comparing their fingerprints after each step.
    pub fn first_difference(&self, other: &Timeline) -> Option<u64> {
        let len = self.len.min(other.len);
        let mut a = self.simulation_at(0);
        let mut b = other.simulation_at(0);
        for step in 0..=len {
            if step > 0 {
                a.step(&mut NoEvents);
                b.step(&mut NoEvents);
            }
            if a.machine().differs_quickly(b.machine()) {
                return Some(step);
            }
        }
        None
    }

    /// Counts kinds among a step's events (for filters and legends).
    pub fn kinds(events: &[Event]) -> Vec<(EventKind, usize)> {
        EventKind::ALL
            .iter()
            .map(|k| (*k, events.iter().filter(|e| e.kind() == *k).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }
}
