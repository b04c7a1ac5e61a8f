//! A whole scenario, run once, kept so that any step can be reached fast:
//! checkpoints of the machine every `interval` steps, sampled counters for
//! plots, the steps where notable events happened, and event density.
//!
//! Reaching step N restores the checkpoint at or before N and runs the few
//! steps after it, so a jump costs one copy of the state plus at most
//! `interval` steps, wherever N is. Checkpoints share the xarray's node
//! chunks and the page tables' chunks that did not change between them
//! ([`crate::checkpoint`]), so they can sit a few hundred accesses apart.

mod marks;

use std::collections::HashSet;
use std::rc::Rc;

use marks::MarkRuns;

use crate::checkpoint::Checkpoint;
use crate::config::Config;
use crate::event::{Event, EventKind, EventSink, KFunc, NoEvents};
use crate::fault::MMAP_LOTSAMISS;
use crate::machine::Machine;
use crate::sim::Simulation;

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
    fn of(step: u64, m: &Machine) -> Self {
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
    interval: u64,
    /// Shared so that the build can keep the last one it took.
    checkpoints: Vec<Rc<Checkpoint>>,
    samples: Vec<Sample>,
    /// For each [`Mark`], the 1-based steps (accesses done) after which it happened.
    marks: [MarkRuns; 3],
    /// Events per bucket of `bucket` steps.
    density: Vec<u32>,
    bucket: u64,
    end: Machine,
    checkpoint_bytes: usize,
}

/// The sink used while building: counts, and notes marks.
struct Recorder {
    events: u32,
    major: bool,
    readahead: bool,
    crossing: bool,
}

impl EventSink for Recorder {
    fn emit(&mut self, e: Event) {
        self.events += 1;
        match e {
            Event::FaultAccounted { major, .. } => self.major |= major,
            Event::Window {
                func: KFunc::PageCacheSyncRa | KFunc::PageCacheAsyncRa | KFunc::DoSyncMmapReadahead,
                ..
            } => self.readahead = true,
            Event::MmapMiss { old, new, .. } => {
                self.crossing |= (old <= MMAP_LOTSAMISS) != (new <= MMAP_LOTSAMISS);
            }
            _ => {}
        }
    }
}

/// How many samples plots get at most.
pub const MAX_SAMPLES: u64 = 4096;
/// How many density buckets the scrubber gets.
pub const DENSITY_BUCKETS: u64 = 1024;

impl Timeline {
    /// Runs the scenario to its end, keeping checkpoints within
    /// `budget_bytes` of memory (at least two are always kept).
    pub fn build(cfg: Config, budget_bytes: usize) -> Self {
        let mut sim = Simulation::new(cfg.clone());
        let len = sim.len();
        // Checkpoints share unchanged xarray and page-table chunks, so they
        // can be close: a seek replays at most `interval` accesses.
        let mut interval = (len / 512).max(256).next_power_of_two();
        let sample_every = len.div_ceil(MAX_SAMPLES).max(1);
        let bucket = len.div_ceil(DENSITY_BUCKETS).max(1);
        let first = Rc::new(Checkpoint::take(sim.machine_mut(), None));
        let mut checkpoint_bytes = first.new_bytes();
        // The last checkpoint taken, kept even when thinning drops it: the
        // next one shares with it.
        let mut last = first.clone();
        let mut checkpoints = vec![first];
        let mut samples = vec![Sample::of(0, sim.machine())];
        let mut marks: [MarkRuns; 3] = Default::default();
        let mut density = vec![0u32; len.div_ceil(bucket) as usize];
        let mut rec = Recorder {
            events: 0,
            major: false,
            readahead: false,
            crossing: false,
        };
        while !sim.is_done() {
            let k = sim.step_count();
            rec.events = 0;
            rec.major = false;
            rec.readahead = false;
            rec.crossing = false;
            sim.step(&mut rec);
            let done = k + 1;
            density[(k / bucket) as usize] =
                density[(k / bucket) as usize].saturating_add(rec.events);
            for (i, hit) in [rec.major, rec.readahead, rec.crossing]
                .into_iter()
                .enumerate()
            {
                if hit {
                    marks[i].push(done);
                }
            }
            if done.is_multiple_of(sample_every) || done == len {
                samples.push(Sample::of(done, sim.machine()));
            }
            if done.is_multiple_of(interval) && done < len {
                let cp = Rc::new(Checkpoint::take(sim.machine_mut(), Some(&last)));
                checkpoint_bytes += cp.new_bytes();
                last = cp.clone();
                checkpoints.push(cp);
                if checkpoint_bytes > budget_bytes && checkpoints.len() > 2 {
                    // Keep every other checkpoint: twice the interval.
                    let kept: Vec<Rc<Checkpoint>> = checkpoints.into_iter().step_by(2).collect();
                    checkpoints = kept;
                    interval *= 2;
                    let mut seen = HashSet::new();
                    checkpoint_bytes = checkpoints
                        .iter()
                        .map(|c| c.distinct_bytes(&mut seen))
                        .sum();
                }
            }
        }
        // The run's own machine is the end state: moved, not copied, so
        // the build never holds two whole machines at once.
        let (_, end, _) = sim.into_parts();
        Timeline {
            cfg,
            len,
            interval,
            checkpoints,
            samples,
            marks,
            density,
            bucket,
            end,
            checkpoint_bytes,
        }
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

    /// Steps between checkpoints.
    pub fn interval(&self) -> u64 {
        self.interval
    }

    pub fn checkpoint_bytes(&self) -> usize {
        self.checkpoint_bytes
    }

    /// The machine after `step` accesses.
    pub fn machine_at(&self, step: u64) -> Machine {
        self.simulation_at(step).into_parts().1
    }

    /// A simulation positioned after `step` accesses, ready to go on.
    pub fn simulation_at(&self, step: u64) -> Simulation {
        let step = step.min(self.len);
        if step == self.len {
            return Simulation::resume(self.cfg.clone(), self.end.clone(), self.len);
        }
        let i = ((step / self.interval) as usize).min(self.checkpoints.len() - 1);
        let from = i as u64 * self.interval;
        let mut sim = Simulation::resume(self.cfg.clone(), self.checkpoints[i].restore(), from);
        sim.run_to(step, &mut NoEvents);
        sim
    }

    /// Moves `sim` to `step`: forward in place when that is close, from a
    /// checkpoint otherwise.
    pub fn seek(&self, sim: &mut Simulation, step: u64) {
        let step = step.min(self.len);
        let here = sim.step_count();
        let next_checkpoint = (here / self.interval + 1) * self.interval;
        if step >= here && (step < next_checkpoint || step - here <= self.interval) {
            sim.run_to(step, &mut NoEvents);
        } else {
            *sim = self.simulation_at(step);
        }
    }

    /// The events that access number `step` (1-based: the one that leads
    /// to the state after `step` accesses) emitted.
    pub fn events_of(&self, step: u64) -> Vec<Event> {
        if step == 0 || step > self.len {
            return Vec::new();
        }
        let mut sim = self.simulation_at(step - 1);
        let mut events = Vec::new();
        sim.step(&mut events);
        events
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

    /// The machine at the end.
    pub fn end(&self) -> &Machine {
        &self.end
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
