//! One component per file.

pub mod banner;
pub mod compare_bar;
pub mod controls;
pub mod counter_line;
pub mod embed_bar;
pub mod event_log;
pub mod file_strip;
pub mod header;
pub mod help;
pub mod inspector;
pub mod intro;
pub mod open_file;
pub mod plots;
pub mod presets;
pub mod probe_strip;
pub mod question;
pub mod ra_panel;
pub mod real_strip;
pub mod scenario_panel;
pub mod seed_table;
pub mod share;
pub mod story;
pub mod strip_legend;
pub mod svg_paths;
pub mod what_if;
pub mod xarray_view;
