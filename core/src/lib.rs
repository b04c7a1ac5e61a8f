//! folioscope-core: a deterministic model of the Linux page cache.
//!
//! The crate does no I/O, reads no clock and knows nothing of browsers or
//! terminals. Accesses go in, events and state come out.

pub mod xarray;
