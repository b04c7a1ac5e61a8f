//! folioscope-core: a deterministic model of the Linux page cache.
//!
//! The model follows Linux 6.18 as measured on these machines (6.18.44),
//! function by function. The sources read for it were older: Debian's
//! 6.12 source, and the 6.18.35 source for what changed by 6.18. Each
//! module says which it read, and where a source and the measured kernel
//! differ, the measurement wins. Each module is named after the kernel
//! file it models: `xarray` (lib/xarray.c, the tree that indexes a file's
//! folios); `page_cache` and `folio` (the `address_space` and its folios);
//! `readahead` (mm/readahead.c, `file_ra_state` and its windows); `fault`,
//! `fault_around` and `memory` (the mmap fault path of mm/filemap.c and
//! mm/memory.c); `filemap_read` (buffered `read()`) and `filemap_contig`
//! (`filemap_get_folios_contig`); `shmem` (mm/shmem.c's
//! `shmem_file_read_iter` on a tmpfs file) and `iov_iter` (the copy-out it
//! ends in); `lru` and `reclaim` (the memory cgroup limit and its shadows).
//!
//! The crate does no I/O, reads no clock and knows nothing of browsers or
//! terminals: accesses go in, events and state come out. It keeps to
//! integers and ordered containers, so the same inputs give the same state
//! on x86-64 and wasm32.
//!
//! # The public surface
//!
//! The modules are private. What callers may use is re-exported here, in
//! four groups:
//!
//! - **What to run.** A [`Scenario`] is the parameters as a user states
//!   them; [`Scenario::config`] validates it into a [`Config`], or names
//!   the field at fault in a [`ConfigError`]. A [`Pattern`] yields the
//!   [`Access`]es; a [`Kernel`] is a [`Variant`] with [`Patch`] toggles.
//! - **Running it.** [`Simulation`] makes one access at a time;
//!   [`Timeline`] runs a scenario once and reaches any step from
//!   checkpoints. Their contracts follow.
//! - **What comes out.** Each change is an [`Event`], handed to an
//!   [`EventSink`] as it happens. Between accesses the [`Machine`] can be
//!   read, never written: getters ([`Machine::counters`],
//!   [`Machine::lookups`], [`Machine::ra`]) and views computed from its
//!   state ([`Machine::bins`] for the folios and mappings of a page range
//!   at any zoom, [`Machine::mapped`], [`Machine::xa_tree`]). Part way
//!   through an access, a [`Picture`] shows the machine with the access's
//!   first events folded in: the one place events become displayed state.
//! - **Figures.** [`Summary`] reads out what `folioscope probe` measures on
//!   the real kernel; a timeline keeps [`Sample`]s and [`Mark`]s.
//!
//! # `Simulation`: what to call, and in what order
//!
//! A simulation has two kinds of methods:
//!
//! - A. Getters, taking `&self`: [`Simulation::config`],
//!   [`Simulation::machine`], [`Simulation::step_count`],
//!   [`Simulation::len`], [`Simulation::is_done`],
//!   [`Simulation::next_access`]. They may be called at any time.
//! - B. One mutator, [`Simulation::step`], which makes the next access of
//!   the pattern, and its loops [`Simulation::run_to`] and
//!   [`Simulation::run`].
//!
//! Create a simulation with [`Simulation::new`] from a [`Config`], then
//! call `step` until it returns `false`. Each call makes exactly one
//! access, the one `next_access` named, and hands the sink every change it
//! makes, in the order the kernel makes them, before it returns. When
//! `step` returns, the access is over: no read is left in flight, every
//! lock taken is released, and the getters read the state after the
//! access. A sink whose [`EventSink::enabled`] is false (such as
//! [`NoEvents`]) lets the model take fast paths that emit nothing; the
//! state and counters they leave are the same. The same `Config` gives the
//! same events and the same state, step for step, on every platform.
//!
//! # `Timeline`: what to call, and in what order
//!
//! [`Timeline::build`] runs a scenario to its end once, keeping
//! checkpoints within a memory budget. A caller that must keep a frame
//! (the web app) builds in slices instead: [`TimelineBuilder::new`], then
//! [`TimelineBuilder::advance`] with a number of accesses until it returns
//! true ([`TimelineBuilder::done`] says how far it is), then
//! [`TimelineBuilder::finish`]. [`Lockstep`] does the same for one pattern
//! under several kernels side by side, building each timeline or only
//! replaying one built before, and returns with them where each kernel's
//! state first parts from the first's.
//!
//! A timeline never changes once built: every method takes `&self` and
//! may be called in any order.
//!
//! - [`Timeline::simulation_at`] returns a new simulation standing after
//!   `step` accesses, and [`Timeline::machine_at`] its machine.
//!   [`Timeline::take_end`] returns one at the end, the first time the
//!   build's own (the timeline keeps no second copy of it once lent);
//!   [`Timeline::end_counters`] and [`Timeline::end_lookups`] read the
//!   end's figures at any time.
//! - [`Timeline::seek`] moves a simulation made by this timeline to any
//!   step, and [`Timeline::seek_logged`] does the same while handing the
//!   events of the last accesses it runs to a closure, each with its
//!   access number. They are the one seek policy: forward in place when
//!   the target is within a checkpoint interval, otherwise from the
//!   checkpoint at or before the target (less the logged accesses).
//!   Afterwards the simulation reads exactly as one run straight to that
//!   step.
//! - [`Timeline::events_of`] returns the events access `step` made
//!   (1-based: the access that leads to the state after `step`).
//! - [`Timeline::samples`], [`Timeline::mark_count`],
//!   [`Timeline::mark_steps`], [`Timeline::next_mark`],
//!   [`Timeline::prev_mark`] and [`Timeline::density`] read what the build
//!   recorded ([`Timeline::marks`] too, but it keeps a slice of every mark
//!   once asked); [`Timeline::first_difference`] runs two timelines of one
//!   pattern in lockstep and returns the first step after which their
//!   states differ.
//!
//! # `Picture`: what to call, and in what order
//!
//! [`Picture::new`] takes a machine between two accesses (a simulation's,
//! or a timeline's at a step) and, with a [`Span`], bins its page range;
//! [`Picture::over_bins`] takes those bins counted already (by
//! [`Machine::bins`], or kept up to date by [`Machine::rebin`]).
//! Hand [`Picture::apply`] the events of the next access in the order the
//! access emitted them, as many as the reader has stepped through; then
//! read [`Picture::bins`], [`Picture::ra`] and [`Picture::figures`]. After
//! all of an access's events they read as a new picture of the machine
//! after the access.

mod backing;
mod changed;
mod checkpoint;
mod config;
mod counters;
mod cow;
mod event;
mod event_log;
mod fadvise;
mod fault;
mod fault_around;
mod filemap_contig;
mod filemap_read;
mod folio;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod invariants;
mod iov_iter;
mod kernel;
mod lru;
mod machine;
mod mapping;
mod memory;
mod mmap;
mod page_cache;
mod page_map;
mod pattern;
mod picture;
mod readahead;
mod reclaim;
mod shmem;
mod sim;
mod splice;
mod summary;
mod timeline;
mod tracepoint;
mod view;
mod xarray;

pub use backing::{Backing, TmpfsFile};
pub use changed::ChangedPages;
pub use config::{Arch, Config, ConfigError, Geometry, Madvise, PageSize, Scenario, MAX_FILE_SIZE};
pub use counters::Counters;
pub use event::{
    CopySource, Event, EventKind, EventSink, FaultOutcome, KFunc, KindSet, MissCause, NoEvents,
    NoRaReason, RaWindow, ReadErrno,
};
pub use event_log::EventLog;
pub use fault::MMAP_LOTSAMISS;
pub use folio::{Folio, FolioFlags};
pub use kernel::{Kernel, Patch, PatchSet, Variant};
pub use machine::Machine;
pub use pattern::{random_page, splitmix64, Access, Fadvice, Madvice, Pattern, MAX_RW_COUNT};
pub use picture::{Figures, Picture};
pub use readahead::FileRaState;
pub use sim::Simulation;
pub use summary::{FolioRun, Summary};
pub use timeline::{
    IndexBuilder, Indexing, Lockstep, Mark, Sample, Timeline, TimelineBuilder, CHECKPOINT_BUDGET,
    END_LOG_ACCESSES, INDEX_LATER_MAX_ACCESSES,
};
pub use tracepoint::{RaFields, Tracepoint};
pub use view::{
    Bin, Covering, LeafBins, Mapped, NodeView, PageView, PathNode, Slot, Span, XaPath, XaTree,
    ORDERS,
};
pub use xarray::XaStats;
