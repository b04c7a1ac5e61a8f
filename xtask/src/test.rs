//! `cargo xtask test`: the whole suite, in the order CI runs it.

use anyhow::Result;

use crate::proc::{run, step};
use crate::root;
use crate::tools::{ensure_chromium, setup_build, tool};

pub fn test() -> Result<()> {
    setup_build()?;
    ensure_chromium()?;

    step("[1/9] the architecture invariants (xtask/src/boundary.rs)");
    crate::boundary::check()?;

    step("[2/9] cargo fmt --check");
    run(cargo().args(["fmt", "--all", "--check"]))?;

    step("[3/9] cargo clippy --workspace --all-targets -- -D warnings");
    run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;

    step("[4/9] cargo test --workspace");
    run(cargo().args(["test", "--workspace"]))?;

    step("[5/9] the core's tests on wasm32, under Node (wasm-bindgen-test)");
    run(cargo()
        .args([
            "test",
            "-p",
            "folioscope-core",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        ))?;

    step("[6/9] the model against the running kernel, event by event");
    crate::kernel::kernel()?;

    step("[7/9] dist/");
    let dist = crate::dist::build()?;

    step("[8/9] end-to-end tests");
    crate::e2e::run_e2e(&dist)?;

    // The README's first command serves a debug build, where Yew checks
    // that a component calls the same hooks on every render and Rust
    // checks arithmetic for overflow; neither runs in the release build
    // above. The timing test's figures are the release build's.
    step("[9/9] end-to-end tests on the debug build cargo xtask serve serves");
    let debug = crate::dist::build_debug()?;
    crate::e2e::run_e2e_in(&debug, &root().join("target/e2e-debug"), &["06-timing"])?;

    step("all tests passed");
    Ok(())
}

fn cargo() -> std::process::Command {
    let mut c = tool("cargo");
    c.current_dir(root());
    c
}
