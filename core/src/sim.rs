//! The simulation: a [`Config`] and a [`Machine`], advanced one access at a
//! time. Each step pushes one access in and hands the resulting events to a
//! sink; the state can be read between steps.

use crate::config::Config;
use crate::event::EventSink;
use crate::machine::Machine;
use crate::pattern::Access;

/// A scenario in progress.
#[derive(Clone, Debug)]
pub struct Simulation {
    cfg: Config,
    machine: Machine,
    step: u64,
    len: u64,
}

/// Accesses per call of a loop that makes many: a wasm engine without
/// on-stack replacement (V8) runs a loop in the code of the call it is
/// in, so a run of the whole scenario in one call stays in baseline code
/// to its end. In the bench's 2 GiB walk under Node, that loop took 1.7%
/// of the time (0.3% natively); in chunks, 0.7%.
pub(crate) const RUN_CHUNK: u64 = 4096;

impl Simulation {
    pub fn new(cfg: Config) -> Self {
        Self::with_node_room(cfg, None)
    }

    /// A new simulation whose xarray has room for `node_room` nodes, or
    /// for those of the whole file when none ([`Simulation::new`]).
    pub(crate) fn with_node_room(cfg: Config, node_room: Option<usize>) -> Self {
        let machine = Machine::with_node_room(&cfg, node_room);
        let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
        Simulation {
            cfg,
            machine,
            step: 0,
            len,
        }
    }

    /// Resumes from a saved machine at `step`.
    pub(crate) fn resume(cfg: Config, machine: Machine, step: u64) -> Self {
        let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
        Simulation {
            cfg,
            machine,
            step,
            len,
        }
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The machine, for the timeline's checkpoints and the crate's tests,
    /// which turn the fast paths off.
    pub(crate) fn machine_mut(&mut self) -> &mut Machine {
        &mut self.machine
    }

    /// Says the machine, set by hand, stands after `step` accesses.
    pub(crate) fn set_step(&mut self, step: u64) {
        self.step = step;
    }

    /// Accesses done so far.
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// Accesses in the whole scenario.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn is_done(&self) -> bool {
        self.step >= self.len
    }

    /// The access the next step makes.
    pub fn next_access(&self) -> Option<Access> {
        (!self.is_done()).then(|| {
            self.cfg
                .pattern
                .access(self.step, self.cfg.file_size, self.cfg.page_size.bytes())
        })
    }

    /// Makes one access. Returns false when the scenario was already over.
    ///
    /// Never inlined into the loops that call it: a wasm engine optimises
    /// a function for its next call and never the call that is running
    /// (there is no on-stack replacement for wasm in V8), so the work of an
    /// access must be a function called once per access, not the body of
    /// one long-running loop.
    #[inline(never)]
    pub fn step<S: EventSink>(&mut self, sink: &mut S) -> bool {
        let Some(access) = self.next_access() else {
            return false;
        };
        match access {
            Access::Touch { page } => self.machine.touch(page, sink),
            Access::Read { offset, len } if self.machine.backing.is_tmpfs() => {
                self.machine.shmem_file_read_iter(offset, len, sink)
            }
            Access::Read { offset, len } => self.machine.filemap_read(offset, len, sink),
            access => self.machine.program_access(access, sink),
        }
        self.machine.counters.accesses += 1;
        self.step += 1;
        true
    }

    /// Runs to step `target` (or the end), [`RUN_CHUNK`] accesses a call
    /// of the loop that makes them.
    pub fn run_to<S: EventSink>(&mut self, target: u64, sink: &mut S) {
        let target = target.min(self.len);
        while self.step < target {
            let to = target.min(self.step.saturating_add(RUN_CHUNK));
            self.run_chunk(to, sink);
        }
    }

    /// The loop of [`Simulation::run_to`], a call of its own for the
    /// reason [`Simulation::step`] is one.
    #[inline(never)]
    fn run_chunk<S: EventSink>(&mut self, to: u64, sink: &mut S) {
        while self.step < to && self.step(sink) {}
    }

    /// Runs to the end.
    pub fn run<S: EventSink>(&mut self, sink: &mut S) {
        let len = self.len;
        self.run_to(len, sink);
    }

    /// Splits into the machine, for checkpoints.
    pub(crate) fn into_parts(self) -> (Config, Machine, u64) {
        (self.cfg, self.machine, self.step)
    }
}
