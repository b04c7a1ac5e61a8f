//! The tools the app and its tests need, each checked and installed when
//! missing: the wasm32 target, trunk, wasm-bindgen-cli, wasm-opt (npm
//! `binaryen`), `playwright-core`, and Debian's Chromium with its driver.
//!
//! Versions are pinned here and in `Trunk.toml`; `check_trunk_pins` keeps
//! the two and `Cargo.lock` in agreement.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::proc::{output, run, run_with_progress, shown, step};
use crate::root;

pub const TRUNK_REQ: &str = "~0.21";
pub const TRUNK_PREFIX: &str = "trunk 0.21.";
pub const BINARYEN: &str = "132.0.0";
pub const PLAYWRIGHT: &str = "1.65.1";
/// Minifies wasm-bindgen's glue in `cargo xtask dist` (Trunk minifies only
/// the css and html).
pub const TERSER: &str = "5.51.4";

/// Where npm tools live: a folder that git ignores.
pub fn tools_dir() -> PathBuf {
    root().join(".tools")
}

fn cargo_bin() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"));
    home.join("bin")
}

/// PATH with cargo's bin folder and the npm tools' bin folder in front.
pub fn tool_path() -> std::ffi::OsString {
    let mut dirs = vec![tools_dir().join("node_modules/.bin"), cargo_bin()];
    if let Some(p) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&p));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// A command with the tool PATH set.
pub fn tool(program: &str) -> Command {
    let mut c = Command::new(program);
    c.env("PATH", tool_path());
    c
}

/// The wasm-bindgen version that Cargo.lock resolved.
pub fn locked_wasm_bindgen() -> Result<String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).context("reading Cargo.lock")?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines.next() {
                if let Some(rest) = v.trim().strip_prefix("version = \"") {
                    return Ok(rest.trim_end_matches('"').to_string());
                }
            }
        }
    }
    bail!("Cargo.lock has no wasm-bindgen entry")
}

/// Trunk.toml must pin the same wasm-bindgen as Cargo.lock and the same wasm-opt as here.
pub fn check_trunk_pins() -> Result<()> {
    let want = locked_wasm_bindgen()?;
    let trunk = std::fs::read_to_string(root().join("Trunk.toml")).context("reading Trunk.toml")?;
    let pinned = trunk
        .lines()
        .find_map(|l| {
            let l = l.trim();
            l.strip_prefix("wasm_bindgen")
                .and_then(|r| r.split('"').nth(1))
                .map(str::to_string)
        })
        .unwrap_or_default();
    if pinned != want {
        bail!("Trunk.toml [tools] wasm_bindgen is \"{pinned}\" but Cargo.lock has wasm-bindgen {want}; set wasm_bindgen = \"{want}\" in Trunk.toml");
    }
    let opt = format!("version_{}", BINARYEN.split('.').next().unwrap_or("132"));
    if !trunk.contains(&format!("wasm_opt = \"{opt}\"")) {
        bail!("Trunk.toml [tools] must say wasm_opt = \"{opt}\" to match npm binaryen@{BINARYEN}");
    }
    Ok(())
}

fn fail_install(tool: &str, version: &str, cmd: &Command, err: anyhow::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "installing {tool} {version} failed ({err}); run by hand: {}",
        shown(cmd)
    )
}

pub fn ensure_wasm_target() -> Result<()> {
    let installed =
        output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if installed
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        step("wasm32-unknown-unknown target: present");
        return Ok(());
    }
    step("wasm32-unknown-unknown target: installing");
    let mut cmd = Command::new("rustup");
    cmd.args(["target", "add", "wasm32-unknown-unknown"]);
    run(&mut cmd)
        .map_err(|e| fail_install("the wasm32-unknown-unknown target", "(rustup)", &cmd, e))
}

pub fn ensure_trunk() -> Result<()> {
    let have = output(tool("trunk").arg("--version")).unwrap_or_default();
    if have.trim().starts_with(TRUNK_PREFIX) {
        step(&format!("trunk: {} present", have.trim()));
        return Ok(());
    }
    step(&format!(
        "trunk {TRUNK_REQ}: installing with cargo (about 10 minutes; progress below)"
    ));
    let mut cmd = tool("cargo");
    cmd.args(["install", "trunk", "--version", TRUNK_REQ, "--locked"]);
    run_with_progress(&mut cmd).map_err(|e| fail_install("trunk", TRUNK_REQ, &cmd, e))
}

pub fn ensure_wasm_bindgen() -> Result<()> {
    let want = locked_wasm_bindgen()?;
    let have = output(tool("wasm-bindgen").arg("--version")).unwrap_or_default();
    if have.split_whitespace().nth(1) == Some(want.as_str()) {
        step(&format!("wasm-bindgen-cli {want}: present"));
        return Ok(());
    }
    step(&format!(
        "wasm-bindgen-cli {want} (the version in Cargo.lock): installing with cargo (a few minutes)"
    ));
    // Not --locked: one of its locked dependencies is gone from the registry.
    let mut cmd = tool("cargo");
    cmd.args(["install", "wasm-bindgen-cli", "--version", &want, "--force"]);
    run_with_progress(&mut cmd).map_err(|e| fail_install("wasm-bindgen-cli", &want, &cmd, e))
}

fn npm_package_version(name: &str) -> Option<String> {
    let p = tools_dir()
        .join("node_modules")
        .join(name)
        .join("package.json");
    let text = std::fs::read_to_string(p).ok()?;
    let i = text.find("\"version\"")?;
    text[i..].split('"').nth(3).map(str::to_string)
}

/// wasm-opt (npm binaryen), terser and playwright-core, into `.tools/`.
/// All three in one `npm install`: one run with `--no-save` removes the
/// packages it was not given.
pub fn ensure_npm_tools() -> Result<()> {
    let wanted = [
        ("binaryen", BINARYEN),
        ("terser", TERSER),
        ("playwright-core", PLAYWRIGHT),
    ];
    let specs: Vec<String> = wanted.iter().map(|(n, v)| format!("{n}@{v}")).collect();
    let list = specs.join(", ");
    if wanted
        .iter()
        .all(|(n, v)| npm_package_version(n).as_deref() == Some(*v))
    {
        step(&format!("npm {list}: present in .tools/"));
        return Ok(());
    }
    step(&format!("npm {list}: installing into .tools/"));
    std::fs::create_dir_all(tools_dir()).context("creating .tools/")?;
    let mut cmd = tool("npm");
    cmd.arg("install")
        .arg("--prefix")
        .arg(tools_dir())
        .args(["--no-audit", "--no-fund", "--no-save"])
        .args(&specs);
    run_with_progress(&mut cmd).map_err(|e| fail_install("npm tools", &list, &cmd, e))
}

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Debian's chromium and chromium-driver, for the browser tests.
pub fn ensure_chromium() -> Result<()> {
    if std::path::Path::new(CHROMIUM).exists() && std::path::Path::new(CHROMEDRIVER).exists() {
        let v = output(Command::new(CHROMIUM).arg("--version")).unwrap_or_default();
        step(&format!("chromium: {} present", v.trim()));
        return Ok(());
    }
    step("chromium and chromium-driver: installing with apt-get (a few minutes)");
    apt_install(&["chromium", "chromium-driver"], "(Debian)")
}

/// Installs Debian packages with apt-get, refreshing the package lists
/// once if the first attempt fails.
pub fn apt_install(packages: &[&str], what: &str) -> Result<()> {
    let sudo = !is_root();
    let apt = |args: &[&str]| {
        let mut c = if sudo {
            let mut c = Command::new("sudo");
            c.arg("-n").arg("apt-get");
            c
        } else {
            Command::new("apt-get")
        };
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    let install_args: Vec<&str> = ["install", "-y", "--no-install-recommends"]
        .into_iter()
        .chain(packages.iter().copied())
        .collect();
    let mut install = apt(&install_args);
    if run_with_progress(&mut install).is_ok() {
        return Ok(());
    }
    let mut update = apt(&["update"]);
    run_with_progress(&mut update)
        .map_err(|e| fail_install("apt package lists", "", &update, e))?;
    let mut install = apt(&install_args);
    run_with_progress(&mut install)
        .map_err(|e| fail_install(&packages.join(" and "), what, &install, e))
}

/// Installs the Debian packages whose programs are missing from PATH.
pub fn ensure_programs(wanted: &[(&str, &str)]) -> Result<()> {
    let missing: Vec<&str> = wanted
        .iter()
        .filter(|(program, _)| {
            output(Command::new("sh").args(["-c", &format!("command -v {program}")])).is_none()
        })
        .map(|(_, package)| *package)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    step(&format!("{}: installing with apt-get", missing.join(", ")));
    apt_install(&missing, "(Debian)")
}

pub fn is_root() -> bool {
    output(Command::new("id").arg("-u"))
        .map(|s| s.trim() == "0")
        .unwrap_or(false)
}

/// Everything `serve` and `dist` need.
pub fn setup_build() -> Result<()> {
    check_trunk_pins()?;
    ensure_wasm_target()?;
    ensure_npm_tools()?;
    ensure_wasm_bindgen()?;
    ensure_trunk()?;
    Ok(())
}

/// Everything any command needs.
pub fn setup_all() -> Result<()> {
    setup_build()?;
    ensure_chromium()?;
    step("all tools present");
    Ok(())
}

/// Environment for trunk: no update check (it cannot reach out from
/// here), and the registry's folders cut from the source paths the wasm
/// keeps for its panic messages (`registry_remaps`).
pub fn trunk_cmd() -> Result<Command> {
    let mut c = tool("trunk");
    c.current_dir(root())
        .env("TRUNK_SKIP_VERSION_CHECK", "true")
        .env("NO_COLOR", "true");
    let var = "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS";
    let mut flags = std::env::var(var).unwrap_or_default();
    for dir in registry_remaps()? {
        flags.push_str(&format!(" --remap-path-prefix={dir}/="));
    }
    c.env(var, flags.trim_start());
    Ok(c)
}

/// The folders of the registries the workspace's crates come from (such
/// as `~/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f`), as cargo
/// metadata names them, which also fetches and unpacks the crates on a
/// fresh machine. Every panic location in the app's wasm names its source
/// file; those of the crates it uses began with this 59-byte folder, 141
/// paths in all. Cut to the crate's own folder (`yew-0.23.0/src/...`),
/// the app's dist/ is 0.2 KB smaller gzipped (2026-12-07). A folder
/// whose path holds a space is left as it is: the flags are split at
/// spaces. A RUSTFLAGS of the caller's own takes precedence over these
/// flags, and the paths then stay whole.
fn registry_remaps() -> Result<Vec<String>> {
    let out = crate::proc::captured(
        tool("cargo")
            .current_dir(root())
            .args(["metadata", "--format-version", "1", "--locked"])
            .args(["--filter-platform", "wasm32-unknown-unknown"]),
    )?;
    let meta: serde_json::Value =
        serde_json::from_str(&out).context("reading `cargo metadata`'s output")?;
    let mut dirs: Vec<String> = Vec::new();
    for p in meta["packages"].as_array().into_iter().flatten() {
        let from_registry = p["source"]
            .as_str()
            .is_some_and(|s| s.starts_with("registry+") || s.starts_with("sparse+"));
        let manifest = p["manifest_path"].as_str().map(std::path::Path::new);
        // The manifest is <registry folder>/<crate>-<version>/Cargo.toml.
        let dir = manifest.and_then(|m| m.parent()?.parent()?.to_str());
        if let (true, Some(dir)) = (from_registry, dir) {
            if !dir.contains(char::is_whitespace) && !dirs.iter().any(|d| d == dir) {
                dirs.push(dir.to_string());
            }
        }
    }
    Ok(dirs)
}

pub fn check_port_free(port: u16) -> Result<()> {
    match std::net::TcpListener::bind(("127.0.0.1", port)) {
        Ok(_) => Ok(()),
        Err(e) => bail!(
            "port {port} on 127.0.0.1 is already in use ({e}); stop whatever holds it or pass --port N"
        ),
    }
}
