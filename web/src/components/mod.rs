//! One component per file.

pub mod banner;
pub mod controls;
pub mod file_strip;
pub mod header;
pub mod help;
pub mod ra_panel;
pub mod scenario_panel;
