//! `cargo xtask bench`: the model's speed and memory targets, measured in
//! one run and reported as figures and ratios:
//! - criterion's benchmarks of whole scenarios (`core/benches/model.rs`);
//! - the 2 GiB MADV_SEQUENTIAL backward walk, native and compiled to wasm
//!   (wasm32-wasip1 under Node), and their ratio (target: within 2×);
//! - the peak memory of a 16 GiB scenario with the web app's checkpointed
//!   timeline (target: under 256 MB).

use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::proc::{output, run, step};
use crate::root;
use crate::tools::tool;

/// `cargo` arguments that name the walk example, built for release.
const WALK_EXAMPLE: [&str; 6] = [
    "--quiet",
    "--release",
    "-p",
    "folioscope-core",
    "--example",
    "walk",
];

fn walk_native(args: &[&str]) -> Result<String> {
    let mut cmd = tool("cargo");
    cmd.current_dir(root())
        .arg("run")
        .args(WALK_EXAMPLE)
        .arg("--")
        .args(args);
    output(&mut cmd).with_context(|| format!("running the walk example natively with {args:?}"))
}

/// A number from the walk example's one-line JSON.
fn field(json: &str, name: &str) -> Result<f64> {
    let v: serde_json::Value =
        serde_json::from_str(json.trim()).with_context(|| format!("not JSON: {json}"))?;
    v[name]
        .as_f64()
        .with_context(|| format!("no number {name} in {json}"))
}

pub fn bench() -> Result<()> {
    step("criterion benchmarks (cargo bench -p folioscope-core)");
    run(tool("cargo").current_dir(root()).args([
        "bench",
        "-p",
        "folioscope-core",
        "--bench",
        "model",
    ]))?;

    step("the 2 GiB backward MADV_SEQUENTIAL walk, native and wasm");
    let native = walk_native(&["rev", "sequential", "2", "5"])?;
    let installed =
        output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if !installed.lines().any(|l| l.trim() == "wasm32-wasip1") {
        step("installing the wasm32-wasip1 target for the wasm timing");
        run(Command::new("rustup").args(["target", "add", "wasm32-wasip1"]))?;
    }
    run(tool("cargo")
        .current_dir(root())
        .arg("build")
        .args(WALK_EXAMPLE)
        .args(["--target", "wasm32-wasip1"]))?;
    let wasm_file = root().join("target/wasm32-wasip1/release/examples/walk.wasm");
    let mut node = tool("node");
    node.arg("--no-warnings")
        .arg(root().join("xtask/wasi-run.mjs"))
        .arg(&wasm_file)
        .args(["rev", "sequential", "2", "5"]);
    let wasm = output(&mut node).context("running the walk under Node's WASI")?;
    let (n, w) = (field(&native, "ms")?, field(&wasm, "ms")?);
    if field(&native, "major_faults")? != field(&wasm, "major_faults")? {
        bail!("native and wasm disagree: {native} vs {wasm}");
    }
    println!(
        "  native: {n:.1} ms   wasm: {w:.1} ms   wasm/native: {:.2}x (target: at most 2x)",
        w / n
    );
    println!(
        "  native target: at most 100 ms: {}",
        if n <= 100.0 { "met" } else { "MISSED" }
    );

    step("peak memory of a 16 GiB scenario with the app's timeline");
    for (pattern, madvise) in [("rev", "sequential"), ("random1", "hugepage")] {
        let out = walk_native(&[pattern, madvise, "16", "1", "timeline"])?;
        let kb = field(&out, "peak_rss_kb")?;
        println!(
            "  16 GiB {pattern} {madvise}: peak {:.0} MB (target: under 256 MB): {}",
            kb / 1024.0,
            if kb < 256.0 * 1024.0 { "met" } else { "MISSED" }
        );
    }
    Ok(())
}
