//! folioscope-scenario: the text forms of folioscope's scenarios, shared by
//! the CLI and the web app.
//!
//! - [`parse`]: sizes, patterns, madvise modes, kernels and trace files;
//! - [`params`]: every scenario parameter defined once (option, link
//!   key, label, parser, formatter, default, help), which the CLI, links,
//!   the web panel and the mail text read;
//! - [`Scenario`]: the parameters with the machine's defaults, validated
//!   into a core `Config`;
//! - [`report`]: the figures of a run as JSON (the shape `folioscope run`
//!   and `folioscope probe` print) and as a plain-text table;
//! - [`text`]: one line per model event, naming the kernel function;
//!   [`describe`]: what patches, kernel variants and marks are, in words;
//! - [`tracepoint_text`]: the kernel's tracepoints as tracefs prints them;
//!   [`trace_line`]: one line of tracefs or `trace-cmd report` text;
//!   [`event_check`]: the model's tracepoints against the kernel's, event
//!   by event;
//! - [`link`]: the whole view as a permalink, and back, with a small
//!   recording in it in [`base64url`]; [`export`]: the view as plain
//!   text for a mailing list, and back; [`story`]: a speaker's stops
//!   through a view, and the story each seed preset ships with;
//! - [`recording`]: a real program's run (its accesses, the kernel's
//!   events, the machine and the end state) in its versioned file format,
//!   and built from trace text;
//! - [`seeds`]: the rows of the seed threads' tables, and [`compare`]:
//!   the model's figures for them next to the published ones, with seed
//!   003's [`exec_cost`] model and seed 004's [`shmem_cost`] model (and
//!   the [`nnls`] fit under it), each fitted on the baseline column only;
//!   [`whatif`]: a recorded program on every kernel variant;
//! - [`sort`]: stable sorting by an integer key, one sort for them all.

pub mod base64url;
pub mod compare;
pub mod describe;
pub mod event_check;
pub mod exec_cost;
pub mod export;
pub mod link;
pub mod nnls;
pub mod params;
pub mod parse;
pub mod recording;
pub mod report;
pub mod seeds;
pub mod shmem_cost;
pub mod sort;
pub mod story;
pub mod text;
pub mod trace_line;
pub mod tracepoint_text;
pub mod whatif;

/// The scenario is the model's own unvalidated parameters.
pub use folioscope_core::Scenario;
pub use report::Report;
