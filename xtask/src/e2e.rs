//! End-to-end tests: `e2e/run.mjs` serves `dist/` from a sub-path and drives
//! Debian's Chromium through playwright-core. Screenshots land in
//! `target/e2e/`.

use std::path::Path;

use anyhow::Result;

use crate::proc::{run, step};
use crate::root;
use crate::tools::{ensure_chromium, setup_build, tool, tools_dir, CHROMIUM};

/// `cargo xtask e2e`: tools, a fresh dist/, then the browser tests.
pub fn e2e_with_setup() -> Result<()> {
    setup_build()?;
    ensure_chromium()?;
    let dist = crate::dist::build()?;
    run_e2e(&dist)
}

/// Runs the browser tests against an already built `dist/`.
pub fn run_e2e(dist: &Path) -> Result<()> {
    run_e2e_in(dist, &root().join("target/e2e"), &[])
}

/// Runs the browser tests against the app in `dist`, but those whose file
/// names contain any of `skip`, with their screenshots and figures in
/// `out`.
pub fn run_e2e_in(dist: &Path, out: &Path, skip: &[&str]) -> Result<()> {
    step("building the folioscope CLI for the e2e cross-checks");
    let mut build = tool("cargo");
    build
        .current_dir(root())
        .args(["build", "--release", "--quiet", "-p", "folioscope-cli"]);
    run(&mut build)?;
    let cli = root().join("target/release/folioscope");
    std::fs::create_dir_all(out)?;
    step("end-to-end tests in headless Chromium");
    let mut cmd = tool("node");
    cmd.current_dir(root())
        .arg(root().join("e2e/run.mjs"))
        .env("FOLIOSCOPE_DIST", dist)
        .env("FOLIOSCOPE_TOOLS", tools_dir())
        .env("FOLIOSCOPE_CHROMIUM", CHROMIUM)
        .env("FOLIOSCOPE_CLI", &cli)
        .env("FOLIOSCOPE_OUT", out)
        .env("FOLIOSCOPE_SKIP", skip.join(","));
    run(&mut cmd)
}
