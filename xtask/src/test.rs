//! `cargo xtask test`: the whole suite, in the order CI runs it.

use anyhow::Result;

use crate::proc::{run, step};
use crate::root;
use crate::tools::{ensure_chromium, setup_build, tool};

pub fn test() -> Result<()> {
    setup_build()?;
    ensure_chromium()?;

    step("[1/8] the architecture invariants (xtask/src/boundary.rs)");
    crate::boundary::check()?;

    step("[2/8] cargo fmt --check");
    run(cargo().args(["fmt", "--all", "--check"]))?;

    step("[3/8] cargo clippy --workspace --all-targets -- -D warnings");
    run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;

    step("[4/8] cargo test --workspace");
    run(cargo().args(["test", "--workspace"]))?;

    step("[5/8] the core's tests on wasm32, under Node (wasm-bindgen-test)");
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

    step("[6/8] the model against the running kernel, event by event");
    crate::kernel::kernel()?;

    step("[7/8] dist/");
    let dist = crate::dist::build()?;

    step("[8/8] end-to-end tests");
    crate::e2e::run_e2e(&dist)?;

    step("all tests passed");
    Ok(())
}

fn cargo() -> std::process::Command {
    let mut c = tool("cargo");
    c.current_dir(root());
    c
}
