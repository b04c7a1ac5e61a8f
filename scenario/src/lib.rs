//! folioscope-scenario: the text forms of folioscope's scenarios, shared by
//! the CLI and the web app.
//!
//! - [`parse`]: sizes, patterns, madvise modes, kernels and trace files;
//! - [`Scenario`]: the parameters with the machine's defaults, validated
//!   into a core `Config`;
//! - [`report`]: the figures of a run as JSON (the shape `folioscope run`
//!   and `folioscope probe` print) and as a plain-text table;
//! - [`text`]: one line per model event, naming the kernel function;
//! - [`tracepoint_text`]: the kernel's tracepoints as tracefs prints them;
//!   [`trace_line`]: one line of tracefs or `trace-cmd report` text;
//! - [`link`]: the whole view as a permalink, and back; [`export`]: the
//!   view as plain text for a mailing list, and back;
//! - [`recording`]: a real program's run (its accesses, the kernel's
//!   events, the machine and the end state) in its versioned file format,
//!   and built from trace text;
//! - [`seeds`]: the rows of the seed threads' tables, and [`compare`]:
//!   the model's figures for them next to the published ones, with seed
//!   004's fitted [`shmem_cost`] model (and the [`nnls`] fit under it).

pub mod compare;
pub mod export;
pub mod link;
pub mod nnls;
pub mod parse;
pub mod recording;
pub mod report;
pub mod seeds;
pub mod shmem_cost;
pub mod text;
pub mod trace_line;
pub mod tracepoint_text;

/// The scenario is the model's own unvalidated parameters.
pub use folioscope_core::Scenario;
pub use report::Report;
