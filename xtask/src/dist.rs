//! `cargo xtask dist`: a release build of the static site in `dist/`, with
//! wasm-opt, relative asset URLs and a size budget.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::proc::{run, step};
use crate::root;
use crate::tools::{setup_build, trunk_cmd};

/// The budget for wasm + js + css, gzipped. Raised from 400 KB for issue
/// 13's folio inspector, truthful strip, side-by-side compare and the
/// seeds' tables, which the app now computes itself; then held to what
/// the app measures with a little room, so that growth has to be paid
/// for: 424.4 KB before the embed, phone and accessibility work and the
/// stories for talks, 443.3 KB after; 449.0 KB, then 434.6 KB once the
/// scenario crate was built for size (2026-12-02); 422.4 KB once case
/// folding was ASCII only (Unicode's case tables out); 426.4 KB (from
/// 429.0) once Trunk minified the css and html (2026-12-03); lowered to
/// 425 KB at 420.9 once the glue was minified and the names it shares
/// with the wasm made short (`glue.rs`, 2026-12-04); 420 KB at 418.3
/// (from 423.6) once wasm-opt no longer inlined every function with one
/// caller and took the lowest 1 KB of memory as unused (index.html,
/// 2026-12-05); 405 KB at 402.3 (from 419.8) once the app carried one
/// sort instead of seven and four B-trees fewer (2026-12-05); 406 KB at
/// 405.3 (from 404.9) for the narrow spare positions of the 16 GiB
/// views, which brought the 16 GiB comparison's wasm memory from 146.4
/// to 120.6 MB, under issue 12's 128 MB (2026-12-06); 407 KB at 406.6
/// (from 405.9) for a view's build, first draw and warm-up in tasks of
/// under 50 ms, the 16 GiB views' leaves counted in slices ahead of the
/// first draw (`Seekers::count_leaves`, 2026-12-07); 408 KB at 407.2
/// (from 406.8) for a tmpfs file of page-sized folios made a leaf at a
/// time (`Machine::populate_rest_of_leaf`), which took the first render
/// of two of seed 004's presets with THP off from 345 to 318 ms and
/// from 436 to 340 ms (medians of six loads each, alternated,
/// 2026-12-07). Issue 12's goal is 300 KB.
pub const GZIP_BUDGET: u64 = 408 * 1024;

pub fn dist() -> Result<PathBuf> {
    setup_build()?;
    build()
}

/// Builds `dist/` assuming the tools are present.
pub fn build() -> Result<PathBuf> {
    let dist = root().join("dist");
    step(&site_url_note()?);
    step("building dist/ (release, wasm-opt, relative URLs)");
    let mut cmd = trunk_cmd()?;
    cmd.args(["build", "--release", "--public-url", "./", "--dist"])
        .arg(&dist);
    run(&mut cmd)?;
    crate::glue::shrink(&dist)?;
    check_relative_urls(&dist)?;
    let gz = gzipped_size(&dist)?;
    step(&format!(
        "dist/: wasm + js + css are {:.1} KB gzipped (budget {} KB)",
        gz as f64 / 1024.0,
        GZIP_BUDGET / 1024
    ));
    if gz > GZIP_BUDGET {
        bail!(
            "dist/ is {} KB gzipped, over the {} KB budget",
            gz / 1024,
            GZIP_BUDGET / 1024
        );
    }
    Ok(dist)
}

/// The debug build `cargo xtask serve` serves (Yew's checks on hooks,
/// Rust's on overflow), built as trunk serve builds it, into
/// target/debug-dist/.
pub fn build_debug() -> Result<PathBuf> {
    let dist = root().join("target/debug-dist");
    step("building target/debug-dist/ (debug, as cargo xtask serve builds it)");
    let mut cmd = trunk_cmd()?;
    cmd.args(["build", "--public-url", "./", "--dist"])
        .arg(&dist);
    run(&mut cmd)?;
    Ok(dist)
}

/// The environment variable that names the published site; the build
/// bakes it into the app (and the CLI) as the base of shared links.
const SITE_URL_VAR: &str = "FOLIOSCOPE_SITE_URL";

/// Checks the site's address, if one is set, and says where the links
/// the site shares will point.
fn site_url_note() -> Result<String> {
    match std::env::var(SITE_URL_VAR) {
        Ok(url) if !url.trim().is_empty() => {
            if url.contains(['?', '#']) || !url.contains("://") {
                bail!("{SITE_URL_VAR}={url}: give the site's address, up to and without a '?'");
            }
            Ok(format!(
                "links copied from the app will point to {url} ({SITE_URL_VAR})"
            ))
        }
        _ => Ok(format!(
            "links copied from the app will point to wherever it is served \
             (set {SITE_URL_VAR} to the published site's address to fix one)"
        )),
    }
}

/// A page served from a sub-path breaks on any root-relative or absolute
/// asset URL. The minified page leaves attribute values unquoted.
fn check_relative_urls(dist: &Path) -> Result<()> {
    let html =
        std::fs::read_to_string(dist.join("index.html")).context("reading dist/index.html")?;
    for bad in [
        "src=\"/", "href=\"/", "src=/", "href=/", "from '/", "from \"/", "http://", "https://",
    ] {
        if let Some(i) = html.find(bad) {
            let end = (i + 60).min(html.len());
            bail!(
                "dist/index.html has a non-relative URL: {}",
                html[i..end].replace('\n', " ")
            );
        }
    }
    Ok(())
}

/// The gzipped size of the wasm, js and css in `dist`.
pub(crate) fn gzipped_size(dist: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dist).context("listing dist/")? {
        let path = entry?.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !matches!(ext, "wasm" | "js" | "css") {
            continue;
        }
        let bytes = std::fs::read(&path)?;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&bytes)?;
        total += enc.finish()?.len() as u64;
    }
    Ok(total)
}
