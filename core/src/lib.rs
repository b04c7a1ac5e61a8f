//! folioscope-core: a deterministic model of the Linux page cache.
//!
//! The model follows Linux 6.18 as measured on these machines (6.18.44),
//! function by function. The sources read for it were older: Debian's
//! 6.12 source, and the 6.18.35 source for what changed by 6.18. Each
//! module says which it read, and where a source and the measured kernel
//! differ, the measurement wins. Each module is named after the kernel
//! file it models:
//! - [`xarray`]: lib/xarray.c, the tree that indexes a file's folios;
//! - [`page_cache`], [`folio`]: the `address_space` and its folios;
//! - [`readahead`]: mm/readahead.c, `file_ra_state` and its windows;
//! - [`fault`], [`fault_around`], [`memory`]: the mmap fault path of
//!   mm/filemap.c and mm/memory.c;
//! - [`filemap_read`]: buffered `read()`; [`filemap_contig`]:
//!   `filemap_get_folios_contig`;
//! - [`shmem`]: mm/shmem.c's `shmem_file_read_iter` on a tmpfs file,
//!   and [`iov_iter`], the copy-out it ends in;
//! - [`lru`], [`reclaim`]: the memory cgroup limit and its shadows.
//!
//! A [`Simulation`] takes accesses from a [`Pattern`] one step at a time and
//! hands [`Event`]s to a sink; [`Summary`] reads the figures out, and
//! [`Timeline`] jumps to any step from checkpoints.
//!
//! The crate does no I/O, reads no clock and knows nothing of browsers or
//! terminals: accesses go in, events and state come out. It keeps to
//! integers and ordered containers, so the same inputs give the same state
//! on x86-64 and wasm32.

pub mod backing;
pub mod checkpoint;
pub mod config;
pub mod counters;
pub mod cow;
pub mod event;
pub mod fadvise;
pub mod fault;
pub mod fault_around;
pub mod filemap_contig;
pub mod filemap_read;
pub mod folio;
pub mod iov_iter;
pub mod kernel;
pub mod lru;
pub mod machine;
pub mod mapping;
pub mod memory;
pub mod mmap;
pub mod page_cache;
pub mod pattern;
pub mod readahead;
pub mod reclaim;
pub mod shmem;
pub mod sim;
pub mod splice;
pub mod summary;
pub mod timeline;
pub mod tracepoint;
pub mod xarray;

pub use backing::{Backing, TmpfsFile};
pub use config::{Config, ConfigError, Madvise, PageSize, Scenario};
pub use event::{CopySource, Event, EventKind, EventSink, KFunc, NoEvents, ReadErrno};
pub use kernel::{Kernel, Patch, Variant};
pub use machine::Machine;
pub use pattern::{Access, Fadvice, Madvice, Pattern};
pub use sim::Simulation;
pub use summary::{FolioRun, Summary};
pub use timeline::{Mark, Sample, Timeline};
pub use tracepoint::{RaFields, Tracepoint};
