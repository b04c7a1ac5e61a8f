//! `cargo xtask bench`: every speed and memory figure of issue 12, measured
//! and printed in one table, each next to its target with "met" or
//! "MISSED", and as a ratio where two things are compared in one run:
//! - the model's 2 GiB backward MADV_SEQUENTIAL walk, native, and the same
//!   walk compiled to wasm (wasm32-wasip1 under Node) and passed through
//!   wasm-opt as the app's release build passes its wasm, alternating,
//!   with the median of the rounds' wasm/native ratios (target: at most
//!   1.5×; "NOT JUDGED" when the rounds' ratios lie more than
//!   `STEADY_SPREAD` apart, the host's speed having swung). Node stands for the browser here: on 2026-12-05 headless
//!   Chromium 148 (V8 14.8) ran the same wasm walk in 123-129 ms, and
//!   Node 20 (V8 11.3) in 123-141 ms, four runs each, alternated;
//! - the web app's first build of its default view (its three kernels in
//!   lockstep, `scenario/examples/first_build.rs`), native and in wasm the
//!   same way: each process's first run (in wasm, what a page's first
//!   load pays before the engine has optimised the model's code) and its
//!   best of three, with no target of its own: it is the most of the
//!   first render that the model takes;
//! - the model's part of the timing test's 40 jumps on the 16 GiB
//!   comparison (`scenario/examples/jumps.rs`), native and in wasm the
//!   same way: the median jump's seeks and its strip's bins, both kernels
//!   together, with no target of its own either; once with the caches as
//!   a loop of jumps leaves them, and once cold (`--cold`), as the frames
//!   between two jumps leave them in the browser, where the model's part
//!   of a jump takes about the cold figures;
//! - with `--real` (as root), the running kernel doing the same walk on a
//!   2 GiB file that the bench makes, through `folioscope probe`, and the
//!   model's speed-up over it (target: at least 500×);
//! - the peak memory of 16 GiB scenarios with the web app's
//!   checkpointed timeline, one kernel's each: the backward sequential
//!   walk, the 1% random walk under three kernels, and the memory cgroup
//!   preset's first kernel (target: under 128 MB), and the app's own
//!   wasm memory on the timing test's 16 GiB links (the same bound);
//! - criterion's benchmarks (`core/benches/model.rs`), their medians;
//! - the web app's figures, which `e2e/tests/06-timing.mjs` writes to
//!   `target/e2e/timing.json`, and the gzipped size of `dist/`, read when
//!   they exist and "not measured" otherwise (the timing too when it is
//!   older than `dist/`, which it then does not measure). The keys read are
//!   `jump_work_ms` and `play_frame_work_ms` (each `median`, `p95`, `max`),
//!   `catch_up_ms` (the blocks out of sight following a jump once the view
//!   stood still; no target, shown so that no work goes unreported),
//!   `back_and_forth_ms` and `far_jump_ms` (far jumps the 40 never make:
//!   between two places, and round three; `median` and `max`, no target),
//!   `event_step_ms` (steps through one access's events, shift+arrow, the
//!   first into each access left out; `median` and `max`, no target),
//!   `play_speed` (`reached_per_s` against `shown`: at least 97%),
//!   `play_fps` and `first_render_ms` (navigation to the view drawn with
//!   its timelines, the median of `first_render_loads_ms`, five loads,
//!   whose range is shown beside it) for the default view, and the same
//!   under `16gib` for
//!   the 16 GiB comparison's link, and its play (no jumps) at 1920×1080
//!   under `16gib_1920`, with `host_loop_ms` of each of these three, the
//!   time of a fixed loop of JavaScript in the page just before that
//!   measure, the machine's own speed then; and the first render of a
//!   link whose build is long (16 GiB read backward under
//!   MADV_SEQUENTIAL, 4,194,304 accesses) under `16gib_seq`, and of the
//!   memory cgroup preset (seed000-memcg) under `16gib_memcg`, three
//!   loads each, with their wasm memory; and `presets`, every preset of
//!   the app's menu loaded once (the five slowest three times), its
//!   first render, its wasm memory once warm and its file size
//!   (`bench/presets.rs` names those over 500 ms, and the 16 GiB ones
//!   over 128 MB); and with every load's figures, its tasks of over 50
//!   ms until the view was warm (`long_tasks`; `bench/long_tasks.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::proc::{captured, output, run, step};
use crate::root;
use crate::tools::{is_root, tool};

mod long_tasks;
mod presets;

/// The walk every speed figure times: 2 GiB, backward, MADV_SEQUENTIAL,
/// the best of five runs in one process (the wasm engine optimises the
/// model's functions during the first).
const WALK: [&str; 4] = ["rev", "sequential", "2", "5"];

/// Processes of each kind, alternating, whose medians are compared.
const ROUNDS: usize = 7;

/// The model's speed-up over the real kernel, at least.
const SPEEDUP_TARGET: f64 = 500.0;
/// What the speed-up is aimed at: machines of this kind differ by 2×.
const SPEEDUP_AIM: f64 = 1000.0;
/// wasm time as a multiple of native time, at most.
const WASM_TARGET: f64 = 1.5;
/// The share of the speed shown that play must reach: its two seconds
/// begin and end with a frame that plays less than a frame's worth.
const PLAY_SPEED_SHARE: f64 = 0.97;
/// The gzipped size of `dist/` issue 12 asks for, in KB.
const BUNDLE_GOAL_KB: u64 = 300;

/// Peak memory of a 16 GiB scenario with the app's timeline, below.
const PEAK_MB_TARGET: f64 = 128.0;

/// Whether a figure meets its target.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Met,
    Missed,
    /// No file or no run gave this figure.
    NotMeasured,
    /// A figure shown for reference, with no target.
    Shown,
    /// A comparison whose rounds disagreed too much to judge it: the
    /// host's speed swung while they ran.
    Unsteady,
}

struct Row {
    figure: String,
    target: String,
    measured: String,
    status: Status,
}

impl Row {
    fn new(figure: &str, target: &str, measured: String, met: Option<bool>) -> Row {
        Row {
            figure: figure.into(),
            target: target.into(),
            measured,
            status: match met {
                Some(true) => Status::Met,
                Some(false) => Status::Missed,
                None => Status::Shown,
            },
        }
    }

    fn not_measured(figure: &str, target: &str, why: &str) -> Row {
        Row {
            figure: figure.into(),
            target: target.into(),
            measured: format!("not measured ({why})"),
            status: Status::NotMeasured,
        }
    }
}

pub fn bench(real: bool) -> Result<()> {
    if real && !is_root() {
        bail!("--real measures the running kernel (read_ahead_kb, cold page cache): run as root");
    }
    let mut rows = Vec::new();

    step("criterion benchmarks (cargo bench -p folioscope-core)");
    run(tool("cargo").current_dir(root()).args([
        "bench",
        "-p",
        "folioscope-core",
        "--bench",
        "model",
    ]))?;

    let (walks, native_bin) = alternated(
        WALK_EXAMPLE,
        "the 2 GiB backward MADV_SEQUENTIAL walk",
        &WALK,
        &["ms"],
    )?;
    let (n, w, ratio) = (
        walks.median(NATIVE, 0),
        walks.median(WASM, 0),
        walks.ratio(0),
    );
    rows.push(Row::new(
        "model: 2 GiB rev sequential walk, native",
        "-",
        format!("{n:.1} ms (median of {ROUNDS})"),
        None,
    ));
    let mut row = Row::new(
        "model: the same walk in wasm, Node",
        &format!("<= {WASM_TARGET}x native"),
        format!("{ratio:.2}x (median of {ROUNDS} rounds; wasm {w:.1} ms)"),
        Some(ratio <= WASM_TARGET),
    );
    let (low, high) = walks.ratio_range(0);
    if high > low * STEADY_SPREAD {
        row.measured += &format!("; rounds {low:.2}x to {high:.2}x");
        row.status = Status::Unsteady;
    }
    rows.push(row);

    rows.extend(first_build_rows()?);
    rows.extend(jump_rows()?);

    if real {
        let (kernel, real_ms) = real_walk()?;
        rows.push(Row::new(
            &format!("real kernel {kernel}: the same walk"),
            "-",
            format!("{:.1} s", real_ms / 1000.0),
            None,
        ));
        rows.push(Row::new(
            "model speed-up over the real kernel",
            &format!(">= {SPEEDUP_TARGET:.0}x (aim {SPEEDUP_AIM:.0}x)"),
            format!(
                "{:.0}x ({:.1} s / {n:.1} ms)",
                real_ms / n,
                real_ms / 1000.0
            ),
            Some(real_ms / n >= SPEEDUP_TARGET),
        ));
    } else {
        rows.push(Row::not_measured(
            "model speed-up over the real kernel",
            &format!(">= {SPEEDUP_TARGET:.0}x (aim {SPEEDUP_AIM:.0}x)"),
            "cargo xtask bench --real, as root",
        ));
    }

    step("peak memory of the 16 GiB scenarios with the app's timeline");
    // Under 6.18, and under the two kernels of the timing test's 16 GiB
    // comparison. Under 6.18 the random walk's readahead soon covers the
    // whole file in large folios (3,435 faults, 1,597 xarray nodes at the
    // end); under those two it takes 38,521 faults and ends with 32,496
    // nodes, whose changes the timeline's checkpoints copy. The last is
    // the seed000-memcg preset's first kernel: 5% random in a 2 GiB
    // memory cgroup, whose reclaim leaves shadows all over the tree.
    for (pattern, madvise, kernel, memcg) in [
        ("rev", "sequential", "v6.18", None),
        ("random1", "hugepage", "v6.18", None),
        ("random1", "hugepage", "v7.4-rc2", None),
        ("random1", "hugepage", "v7.4-rc2+desc-ra", None),
        ("random5", "hugepage", "v7.4-rc2", Some("2")),
    ] {
        let mut args = vec![pattern, madvise, "16", "1", "timeline", kernel];
        args.extend(memcg);
        let out = run_native(&native_bin, &args)?;
        let mb = field(&out, "peak_rss_kb")? / 1024.0;
        let memcg = memcg.map_or(String::new(), |g| format!(" in a {g} GiB memcg"));
        rows.push(Row::new(
            &format!("model: 16 GiB {pattern} {madvise} {kernel}{memcg} + timeline, peak"),
            &format!("< {PEAK_MB_TARGET:.0} MB"),
            format!("{mb:.1} MB"),
            Some(mb < PEAK_MB_TARGET),
        ));
    }

    rows.extend(criterion_rows());
    rows.extend(web_rows());
    print_table(&rows);
    if rows.iter().any(|r| r.status == Status::Missed) {
        eprintln!("some targets were missed: see the table above");
    }
    if rows.iter().any(|r| r.status == Status::Unsteady) {
        eprintln!(
            "some comparisons were not judged: their rounds' ratios differed by more than \
             {STEADY_SPREAD}x, the host's speed swinging while they ran; run the bench again"
        );
    }
    Ok(())
}

/// The default view's first build, native and in wasm over `ROUNDS`
/// alternating rounds: the first run of each process (in wasm, what a
/// page's first load pays, before the engine has optimised the model's
/// code) and its best of three. No target: the first render's target is
/// the e2e timing test's, and this is the most of it the model takes.
fn first_build_rows() -> Result<Vec<Row>> {
    // Figure 0: the first run; 1: the best of three.
    let (builds, _) = alternated(
        FIRST_BUILD_EXAMPLE,
        "the default view's first build (its kernels in lockstep, as the app builds it)",
        &["3"],
        &["first_ms", "best_ms"],
    )?;
    Ok(vec![
        Row::new(
            "model: the default view's first build, native",
            "-",
            format!(
                "{:.1} ms (first run; best of 3 {:.1} ms; medians of {ROUNDS})",
                builds.median(NATIVE, 0),
                builds.median(NATIVE, 1)
            ),
            None,
        ),
        Row::new(
            "model: the same build in wasm, first run (a first load)",
            "-",
            format!(
                "{:.1} ms, {:.2}x native",
                builds.median(WASM, 0),
                builds.ratio(0)
            ),
            None,
        ),
        Row::new(
            "model: the same build in wasm, best of 3 (optimised)",
            "-",
            format!(
                "{:.1} ms, {:.2}x native",
                builds.median(WASM, 1),
                builds.ratio(1)
            ),
            None,
        ),
    ])
}

/// The model's part of the timing test's jumps on the 16 GiB comparison
/// (`scenario/examples/jumps.rs`: each kernel's seek, then its strip's
/// bins), native and in wasm over `ROUNDS` alternating rounds, with the
/// caches as a loop of jumps leaves them and cold, as the frames between
/// two jumps leave them in the browser (`--cold`). No target: the jumps'
/// targets are the e2e timing test's, and this is the part of each that
/// the model takes, measured outside the browser.
fn jump_rows() -> Result<Vec<Row>> {
    // Built and passed through wasm-opt once, for both ways of timing.
    let (native_bin, wasm_file) = both_ways(JUMPS_EXAMPLE)?;
    let mut rows = Vec::new();
    for (args, caches) in [(&[][..], "warm"), (&["--cold"][..], "cold")] {
        step(&format!(
            "the 16 GiB comparison's 40 jumps, both kernels, caches {caches}, native and wasm, {ROUNDS} rounds alternating"
        ));
        let jumps = Rounds::run(&native_bin, &wasm_file, args, &["seek_ms", "bins_ms"])?;
        rows.push(Row::new(
            &format!("model: a 16 GiB jump's seeks and bins, native, caches {caches}"),
            "-",
            format!(
                "seek {:.2} ms, bins {:.2} ms (medians of {ROUNDS})",
                jumps.median(NATIVE, 0),
                jumps.median(NATIVE, 1)
            ),
            None,
        ));
        rows.push(Row::new(
            &format!("model: the same jump in wasm, caches {caches}"),
            "-",
            format!(
                "seek {:.2} ms ({:.2}x), bins {:.2} ms ({:.2}x)",
                jumps.median(WASM, 0),
                jumps.ratio(0),
                jumps.median(WASM, 1),
                jumps.ratio(1)
            ),
            None,
        ));
    }
    Ok(rows)
}

/// The two sides of a round.
const NATIVE: usize = 0;
const WASM: usize = 1;

/// `ROUNDS` rounds of one program native then in wasm, back to back:
/// each round's figures of each side, `[round][side][figure]`.
struct Rounds(Vec<[Vec<f64>; 2]>);

impl Rounds {
    /// Runs the rounds with `args`, each side's `figures` read from its
    /// JSON line, after checking that the two sides agree on the major
    /// faults.
    fn run(native_bin: &Path, wasm_file: &Path, args: &[&str], figures: &[&str]) -> Result<Rounds> {
        let read =
            |out: &str| -> Result<Vec<f64>> { figures.iter().map(|f| field(out, f)).collect() };
        let mut rounds = Vec::new();
        for round in 0..ROUNDS {
            let n = run_native(native_bin, args)?;
            let w = run_wasm(wasm_file, args)?;
            if field(&n, "major_faults")? != field(&w, "major_faults")? {
                bail!("native and wasm disagree: {n} vs {w}");
            }
            let (n, w) = (read(&n)?, read(&w)?);
            let shown = |v: &[f64]| {
                figures
                    .iter()
                    .zip(v)
                    .map(|(f, x)| format!("{f} {x:.1}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            eprintln!(
                "    round {}: native {}; wasm {}",
                round + 1,
                shown(&n),
                shown(&w)
            );
            rounds.push([n, w]);
        }
        Ok(Rounds(rounds))
    }

    /// The median over the rounds of `side`'s figure `k`.
    fn median(&self, side: usize, k: usize) -> f64 {
        median(&self.0.iter().map(|r| r[side][k]).collect::<Vec<_>>())
    }

    /// The median over the rounds of wasm's figure `k` over native's. Each
    /// round's two processes ran back to back, under the same load: the
    /// median of the rounds' ratios moves less on a busy machine than the
    /// ratio of the medians.
    fn ratio(&self, k: usize) -> f64 {
        median(&self.ratios(k))
    }

    /// The least and the most of the rounds' ratios of figure `k`.
    fn ratio_range(&self, k: usize) -> (f64, f64) {
        let r = self.ratios(k);
        let low = r.iter().copied().fold(f64::INFINITY, f64::min);
        let high = r.iter().copied().fold(0.0, f64::max);
        (low, high)
    }

    fn ratios(&self, k: usize) -> Vec<f64> {
        self.0.iter().map(|r| r[WASM][k] / r[NATIVE][k]).collect()
    }
}

/// How far apart the rounds' ratios may lie for their median to judge a
/// target. On 2026-12-06 the walk's rounds went from 0.62x to 3.93x (the
/// native walk took 94.5 to 270.1 ms, the wasm one 150.9 to 386.3), and
/// their median, 1.41x, read as met. In two steady benches earlier
/// that day, the highest round was 1.13x and 1.21x the lowest; in two that
/// swung, 2.4x and 3.5x.
const STEADY_SPREAD: f64 = 1.5;

/// The examples the bench times: the model's walk (core), and the
/// app's first build of a view and its jumps (scenario, which knows the
/// presets and reads links).
const WALK_EXAMPLE: (&str, &str) = ("folioscope-core", "walk");
const FIRST_BUILD_EXAMPLE: (&str, &str) = ("folioscope-scenario", "first_build");
const JUMPS_EXAMPLE: (&str, &str) = ("folioscope-scenario", "jumps");

/// Builds `example` (its package and name) natively and for
/// wasm32-wasip1; returns the native program and the wasm, passed
/// through wasm-opt as the app's is.
fn both_ways(example: (&str, &str)) -> Result<(PathBuf, PathBuf)> {
    step(&format!(
        "building the {} example, native and wasm32-wasip1",
        example.1
    ));
    let native_bin = build_example(example, None)?;
    let wasm_file = as_the_app_optimises(&build_example(example, Some("wasm32-wasip1"))?)?;
    Ok((native_bin, wasm_file))
}

/// `example` built both ways and timed over `ROUNDS` alternating rounds
/// with `args`, reading `figures` from each run; with its native program.
fn alternated(
    example: (&str, &str),
    what: &str,
    args: &[&str],
    figures: &[&str],
) -> Result<(Rounds, PathBuf)> {
    let (native_bin, wasm_file) = both_ways(example)?;
    step(&format!(
        "{what}, native and wasm, {ROUNDS} rounds alternating"
    ));
    let rounds = Rounds::run(&native_bin, &wasm_file, args, figures)?;
    Ok((rounds, native_bin))
}

/// Builds `example` (its package and name) for `target` (the host when
/// None) and returns the program to run.
fn build_example((package, example): (&str, &str), target: Option<&str>) -> Result<PathBuf> {
    if let Some(t) = target {
        let installed = output(Command::new("rustup").args(["target", "list", "--installed"]))
            .unwrap_or_default();
        if !installed.lines().any(|l| l.trim() == t) {
            step(&format!("installing the {t} target for the wasm timing"));
            run(Command::new("rustup").args(["target", "add", t]))?;
        }
    }
    let mut cmd = tool("cargo");
    cmd.current_dir(root()).args([
        "build",
        "--quiet",
        "--release",
        "-p",
        package,
        "--example",
        example,
    ]);
    if let Some(t) = target {
        cmd.args(["--target", t]);
    }
    run(&mut cmd)?;
    Ok(match target {
        Some(t) => root().join(format!("target/{t}/release/examples/{example}.wasm")),
        None => root().join(format!("target/release/examples/{example}")),
    })
}

/// `wasm` passed through wasm-opt as the app's wasm is, by Trunk and
/// again by `cargo xtask dist` (`app_wasm_opt`, twice): the model's code
/// in the app is what binaryen made of LLVM's. Returns the file written beside `wasm`, or `wasm`
/// itself when the app's build runs no wasm-opt.
fn as_the_app_optimises(wasm: &Path) -> Result<PathBuf> {
    let args = crate::app_wasm_opt::of_index()?;
    if args.is_empty() {
        return Ok(wasm.to_path_buf());
    }
    crate::tools::ensure_npm_tools()?;
    let stem = wasm
        .file_stem()
        .context("a wasm file has a name")?
        .to_string_lossy();
    let out = wasm.with_file_name(format!("{stem}-as-the-app.wasm"));
    step(&format!(
        "wasm-opt {} on {stem}, twice, as on the app's wasm",
        args.join(" ")
    ));
    // Trunk's run, then `cargo xtask dist`'s (`glue.rs`), which renames
    // the imports and runs the pipeline again over its own output.
    for from in [wasm, &out] {
        run(tool("wasm-opt")
            .arg(format!("--output={}", out.display()))
            .arg(from)
            .args(&args))?;
    }
    Ok(out)
}

fn run_native(bin: &Path, args: &[&str]) -> Result<String> {
    captured(Command::new(bin).args(args))
        .with_context(|| format!("running {} {}", bin.display(), args.join(" ")))
}

fn run_wasm(file: &Path, args: &[&str]) -> Result<String> {
    let mut node = tool("node");
    // With the 16 GiB link's timelines in its memory (about 290 MB), Node
    // 20 crashed after the program had printed its figures and returned,
    // in the interpreter (SIGSEGV), in 6 of 9 runs of the jumps example
    // and in 1 of 3 of the walk example's 16 GiB timeline; with V8's
    // garbage collection kept to the main thread, in none of 12 and of 4
    // (2026-12-06). The wasm walk's time is the same either way (157
    // against 156 ms, a pair run in the same spell of the host).
    node.arg("--no-warnings")
        .arg("--single-threaded-gc")
        .arg(root().join("xtask/wasi-run.mjs"))
        .arg(file)
        .args(args);
    captured(&mut node).with_context(|| format!("running {} under Node's WASI", file.display()))
}

/// The running kernel's walk: `folioscope probe` on a 2 GiB file made
/// once under target/bench. Returns the kernel release and the time the
/// accesses took, in ms.
fn real_walk() -> Result<(String, f64)> {
    step("the real kernel: building folioscope (release)");
    run(tool("cargo").current_dir(root()).args([
        "build",
        "--quiet",
        "--release",
        "-p",
        "folioscope-cli",
    ]))?;
    let dir = root().join("target/bench");
    std::fs::create_dir_all(&dir).context("creating target/bench")?;
    let file = dir.join("walk-2g.bin");
    step(&format!(
        "the real kernel: the same walk on {} (made if missing; about a minute)",
        file.display()
    ));
    let bin = root().join("target/release/folioscope");
    let json = captured(Command::new(&bin).args([
        "probe",
        "--file",
        &file.to_string_lossy(),
        "--create",
        "--file-size",
        "2G",
        "--pattern",
        "rev",
        "--madvise",
        "sequential",
        "--json",
    ]))
    .context("folioscope probe of the 2 GiB backward walk")?;
    let v: Value =
        serde_json::from_str(json.trim()).with_context(|| format!("not JSON: {json}"))?;
    let us = v["access_us"]
        .as_f64()
        .with_context(|| format!("the probe gave no access_us: {json}"))?;
    let kernel = v["kernel"].as_str().unwrap_or("?").to_string();
    eprintln!(
        "    {kernel}: {:.1} s, {} major faults",
        us / 1e6,
        v["major_faults"]
    );
    Ok((kernel, us / 1000.0))
}

/// A number from the walk example's one-line JSON.
fn field(json: &str, name: &str) -> Result<f64> {
    let v: Value =
        serde_json::from_str(json.trim()).with_context(|| format!("not JSON: {json}"))?;
    v[name]
        .as_f64()
        .with_context(|| format!("no number {name} in {json}"))
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

/// criterion's medians, from its estimates under target/criterion.
fn criterion_rows() -> Vec<Row> {
    let dir = root().join("target/criterion");
    let mut found = Vec::new();
    let Ok(groups) = std::fs::read_dir(&dir) else {
        return vec![Row::not_measured("criterion", "-", "no target/criterion")];
    };
    for group in groups.flatten().filter(|g| g.path().is_dir()) {
        let Ok(benches) = std::fs::read_dir(group.path()) else {
            continue;
        };
        for bench in benches.flatten() {
            let est = bench.path().join("new/estimates.json");
            let Some(ns) = std::fs::read_to_string(&est)
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .and_then(|v| v["median"]["point_estimate"].as_f64())
            else {
                continue;
            };
            let name = format!(
                "criterion: {} / {}",
                group.file_name().to_string_lossy(),
                bench.file_name().to_string_lossy()
            );
            found.push(Row::new(&name, "-", format!("{:.2} ms", ns / 1e6), None));
        }
    }
    found.sort_by(|a, b| a.figure.cmp(&b.figure));
    found
}

/// The web app's figures: the timing test's JSON and dist/'s size.
/// The timing file's figures of one run: the default view's at the top,
/// the others under their key.
fn scoped<'a>(timing: &'a Value, scope: Option<&str>) -> &'a Value {
    match scope {
        Some(k) => &timing[k],
        None => timing,
    }
}

fn web_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    let file = root().join("target/e2e/timing.json");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    // Figures the timing test wrote before dist/ was last built measure
    // another app than the one beside them: left out, not shown as new.
    let stale = match (modified(&file), modified(&root().join("dist/index.html"))) {
        (Some(t), Some(d)) => t < d,
        _ => false,
    };
    let timing = std::fs::read_to_string(&file)
        .ok()
        .filter(|_| !stale)
        .and_then(|t| serde_json::from_str::<Value>(&t).ok());
    let why = if stale {
        "target/e2e/timing.json predates dist/: cargo xtask e2e"
    } else {
        "no target/e2e/timing.json: cargo xtask e2e"
    };
    // The machine's speed at each of the three measures: the same fixed
    // loop of JavaScript in the page just before it. The host has been
    // seen to make the same work take 1× to 2.5× as long within minutes,
    // so a figure missed beside a slow loop says less about the app.
    let loops: Vec<String> = [None, Some("16gib"), Some("16gib_1920")]
        .into_iter()
        .filter_map(|scope| {
            let v = timing.as_ref().map(|t| scoped(t, scope))?;
            v["host_loop_ms"].as_f64().map(|x| format!("{x:.1}"))
        })
        .collect();
    let figure = "web: host speed, a fixed JS loop before each measure";
    rows.push(if loops.len() == 3 {
        Row::new(
            figure,
            "-",
            format!("{} ms (default / 16 GiB / 1920x1080)", loops.join(" / ")),
            None,
        )
    } else {
        Row::not_measured(figure, "-", why)
    });
    // The 16 GiB comparison is played at 1920×1080 too, where its ra
    // panels are in sight; that run times no jumps.
    for (scope, label, jumps) in [
        (None, "2 GiB default", true),
        (Some("16gib"), "16 GiB, two kernels", true),
        (Some("16gib_1920"), "16 GiB at 1920x1080", false),
    ] {
        let v = timing.as_ref().map(|t| scoped(t, scope));
        let ms = |path: &str| v.and_then(|v| v.pointer(path)).and_then(Value::as_f64);
        // The last field: a figure of the jumps.
        for (key, what, target, of_jumps) in [
            ("/jump_work_ms/median", "jump work, median", 8.0, true),
            ("/jump_work_ms/p95", "jump work, p95", 12.0, true),
            ("/jump_work_ms/max", "jump work, max of 40", 16.0, true),
            (
                "/play_frame_work_ms/p95",
                "play frame work, p95",
                8.0,
                false,
            ),
        ] {
            if of_jumps && !jumps {
                continue;
            }
            let figure = format!("web {label}: {what}");
            let t = format!("<= {target:.0} ms");
            rows.push(match ms(key) {
                Some(x) => Row::new(&figure, &t, format!("{x:.1} ms"), Some(x <= target)),
                None => Row::not_measured(&figure, &t, why),
            });
        }
        // Not a target of its own: the work the jumps leave for later
        // (the blocks out of sight catching up once the view stands
        // still), shown beside them so no cost goes unreported.
        if jumps {
            let figure = format!("web {label}: catch-up after a jump");
            rows.push(match ms("/catch_up_ms") {
                Some(x) => Row::new(&figure, "-", format!("{x:.1} ms"), None),
                None => Row::not_measured(&figure, "-", why),
            });
            // Nor these: far jumps the 40 never make, between the two
            // places a seeker's positions stand (web/src/seekers.rs), and
            // round three; and steps through one access's events, which
            // a talk makes one by one.
            for (key, what) in [
                ("back_and_forth_ms", "back and forth between two far steps"),
                ("far_jump_ms", "jumps round three far steps"),
                ("event_step_ms", "a step through an access's events"),
            ] {
                let figure = format!("web {label}: {what}, median / max");
                rows.push(
                    match (ms(&format!("/{key}/median")), ms(&format!("/{key}/max"))) {
                        (Some(m), Some(x)) => {
                            Row::new(&figure, "-", format!("{m:.1} / {x:.1} ms"), None)
                        }
                        _ => Row::not_measured(&figure, "-", why),
                    },
                );
            }
        }
        // The speed play reached in its two seconds against the speed
        // its control showed (web/src/play_clock.rs).
        let figure = format!("web {label}: play's speed, of the speed shown");
        let t = format!(">= {:.0}%", PLAY_SPEED_SHARE * 100.0);
        rows.push(
            match (ms("/play_speed/reached_per_s"), ms("/play_speed/shown")) {
                (Some(r), Some(shown)) if shown > 0.0 => Row::new(
                    &figure,
                    &t,
                    format!(
                        "{:.1}% ({r:.0} of {shown:.0} accesses/s)",
                        100.0 * r / shown
                    ),
                    Some(r >= PLAY_SPEED_SHARE * shown),
                ),
                _ => Row::not_measured(&figure, &t, why),
            },
        );
        let figure = format!("web {label}: play frame rate");
        rows.push(match ms("/play_fps") {
            Some(fps) => Row::new(
                &figure,
                "60 fps",
                format!("{fps:.1} fps"),
                Some(fps >= 59.5),
            ),
            None => Row::not_measured(&figure, "60 fps", why),
        });
    }
    for (scope, label) in [
        (None, "default view"),
        (Some("16gib"), "16 GiB link"),
        // "Any permalink": one whose build is long, 4,194,304 accesses.
        (Some("16gib_seq"), "16 GiB backward sequential link"),
        (Some("16gib_memcg"), "16 GiB memory cgroup preset"),
    ] {
        let figure = format!("web: first render, {label}");
        let v = timing.as_ref().map(|t| scoped(t, scope));
        let ms = v.and_then(|v| v["first_render_ms"].as_f64());
        let loads: Vec<f64> = v
            .and_then(|v| v["first_render_loads_ms"].as_array())
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        // The median's loads, fastest to slowest: one load swings by half.
        let spread = match (
            loads.iter().copied().reduce(f64::min),
            loads.iter().copied().reduce(f64::max),
        ) {
            (Some(lo), Some(hi)) => format!(" (median of {}: {lo:.0}-{hi:.0})", loads.len()),
            _ => String::new(),
        };
        rows.push(match ms {
            Some(x) => Row::new(
                &figure,
                "<= 500 ms",
                format!("{x:.0} ms{spread}"),
                Some(x <= 500.0),
            ),
            None => Row::not_measured(&figure, "<= 500 ms", why),
        });
        // What the first render leaves for after it (a short run's
        // checkpoints, the rehearsal of a jump), done by then.
        let figure = format!("web: warm (ready for a first jump), {label}");
        rows.push(match v.and_then(|v| v["warm_ms"].as_f64()) {
            Some(x) => Row::new(&figure, "-", format!("{x:.0} ms (median)"), None),
            None => Row::not_measured(&figure, "-", why),
        });
        rows.push(long_tasks::row(v, label, why));
    }
    // Every preset the app offers.
    rows.extend(presets::rows(timing.as_ref(), why));
    // The app's own memory, as a user's tab holds it: the wasm heap with
    // every kernel's timeline, the seekers' machines (two a kernel once
    // jumps have made them), their kept counts and the allocator's
    // leftovers. The model rows above measure one timeline alone,
    // natively; the 16 GiB views are held to their bound here too.
    for (scope, label, target) in [
        (None, "default view, after its measures", None),
        (
            Some("16gib"),
            "16 GiB link, after its measures",
            Some(PEAK_MB_TARGET),
        ),
        (
            Some("16gib_seq"),
            "16 GiB backward sequential link, warm",
            Some(PEAK_MB_TARGET),
        ),
        (
            Some("16gib_memcg"),
            "16 GiB memory cgroup preset, warm",
            Some(PEAK_MB_TARGET),
        ),
    ] {
        let figure = format!("web: wasm memory, {label}");
        let t = target.map_or("-".to_string(), |t| format!("< {t:.0} MB"));
        let v = timing.as_ref().map(|t| scoped(t, scope));
        rows.push(match v.and_then(|v| v["wasm_memory_mb"].as_f64()) {
            Some(mb) => Row::new(&figure, &t, format!("{mb:.1} MB"), target.map(|t| mb < t)),
            None => Row::not_measured(&figure, &t, why),
        });
    }
    // Issue 12's goal; `cargo xtask dist` fails only over its own budget,
    // the size the app has now with a little room.
    let goal = BUNDLE_GOAL_KB * 1024;
    let target = format!(
        "<= {BUNDLE_GOAL_KB} KB (dist fails over {} KB)",
        crate::dist::GZIP_BUDGET / 1024
    );
    let dist = root().join("dist");
    rows.push(match crate::dist::gzipped_size(&dist) {
        Ok(gz) if dist.join("index.html").exists() => Row::new(
            "web: dist/ wasm + js + css, gzipped",
            &target,
            format!("{:.1} KB", gz as f64 / 1024.0),
            Some(gz <= goal),
        ),
        _ => Row::not_measured(
            "web: dist/ wasm + js + css, gzipped",
            &target,
            "no dist/: cargo xtask dist",
        ),
    });
    rows
}

fn print_table(rows: &[Row]) {
    let w0 = rows.iter().map(|r| r.figure.len()).max().unwrap_or(0);
    let w1 = rows
        .iter()
        .map(|r| r.target.len())
        .max()
        .unwrap_or(0)
        .max(6);
    println!();
    println!("{:<w0$}  {:<w1$}  measured", "figure", "target");
    for r in rows {
        let status = match r.status {
            Status::Met => "  met",
            Status::Missed => "  MISSED",
            Status::Unsteady => "  NOT JUDGED (the host's speed swung)",
            Status::NotMeasured | Status::Shown => "",
        };
        println!(
            "{:<w0$}  {:<w1$}  {}{status}",
            r.figure, r.target, r.measured
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{Rounds, STEADY_SPREAD};

    /// Native and wasm figures of each round, as `Rounds` holds them.
    fn rounds(pairs: &[(f64, f64)]) -> Rounds {
        Rounds(pairs.iter().map(|&(n, w)| [vec![n], vec![w]]).collect())
    }

    #[test]
    fn rounds_that_swung_are_told_from_steady_ones() {
        // The walk's rounds of 2026-12-06 19:44, native then wasm ms.
        let swung = rounds(&[
            (236.6, 150.9),
            (98.8, 157.6),
            (234.8, 154.7),
            (262.9, 162.4),
            (94.5, 371.2),
            (253.3, 386.3),
            (270.1, 379.6),
        ]);
        let (low, high) = swung.ratio_range(0);
        assert!((low - 0.618).abs() < 0.001 && (high - 3.928).abs() < 0.001);
        assert!(high > low * STEADY_SPREAD);
        // One of the steady benches earlier that day, in ratios.
        let steady =
            rounds(&[1.61, 1.78, 1.60, 1.64, 1.63, 1.57, 1.62].map(|r| (100.0, 100.0 * r)));
        let (low, high) = steady.ratio_range(0);
        assert!(high <= low * STEADY_SPREAD);
        assert!((steady.ratio(0) - 1.62).abs() < 1e-9);
    }
}
