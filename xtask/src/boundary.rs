//! The architecture invariants of ARCHITECTURE.md that a file search can
//! check, checked: the core's modules are private behind the surface its
//! lib.rs re-exports, the core depends on no crate and touches neither
//! the file system, the clock nor the environment, only the web crate
//! depends on the DOM's crates, and only the CLI on libc and the file
//! system. `cargo xtask test` runs this first, and so does
//! `cargo test --workspace`.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::root;

/// Crates that reach the browser's DOM and JavaScript.
const DOM_CRATES: [&str; 6] = [
    "yew",
    "web-sys",
    "js-sys",
    "wasm-bindgen",
    "wasm-bindgen-futures",
    "gloo",
];

/// What in the core's source would be I/O, a clock or the environment.
const NO_IO: [&str; 9] = [
    "std::fs",
    "std::io",
    "std::net",
    "std::env",
    "std::time",
    "std::process",
    "std::thread",
    "Instant",
    "SystemTime",
];

/// Checks every invariant; the error names the first broken one.
pub fn check() -> Result<()> {
    let root = root();
    for file in rust_files(&root.join("core/src"))? {
        let text = read(&file)?;
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if code.starts_with("pub mod ") {
                bail!(
                    "{}:{}: the core's modules are private; re-export what callers need from core/src/lib.rs",
                    shown(&file),
                    n + 1
                );
            }
            if let Some(word) = NO_IO.iter().find(|w| code.contains(*w)) {
                bail!(
                    "{}:{}: the core does no I/O and reads no clock or environment ({word})",
                    shown(&file),
                    n + 1
                );
            }
        }
    }
    let core_deps = dependencies(&root.join("core/Cargo.toml"))?;
    if let Some(d) = core_deps.first() {
        bail!("core/Cargo.toml: the core depends on no crate, but lists {d}");
    }
    for krate in ["scenario", "cli", "xtask"] {
        let deps = dependencies(&root.join(krate).join("Cargo.toml"))?;
        if let Some(d) = deps.iter().find(|d| DOM_CRATES.contains(&d.as_str())) {
            bail!("{krate}/Cargo.toml: only the web crate knows the DOM, but {krate} lists {d}");
        }
    }
    for krate in ["core", "scenario", "web"] {
        let deps = dependencies(&root.join(krate).join("Cargo.toml"))?;
        if deps.iter().any(|d| d == "libc") {
            bail!(
                "{krate}/Cargo.toml: only the CLI touches the real kernel, but {krate} lists libc"
            );
        }
        for file in rust_files(&root.join(krate).join("src"))? {
            let text = read(&file)?;
            if let Some((n, _)) = text
                .lines()
                .enumerate()
                .find(|(_, l)| l.contains("std::fs") || l.contains("std::process"))
            {
                bail!(
                    "{}:{}: only the CLI touches the file system and the real kernel",
                    shown(&file),
                    n + 1
                );
            }
        }
    }
    Ok(())
}

/// The names under `[dependencies]` (not dev- or target-specific ones).
fn dependencies(manifest: &Path) -> Result<Vec<String>> {
    let text = read(manifest)?;
    let mut inside = false;
    let mut deps = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            if let Some((name, _)) = line.split_once('=') {
                deps.push(name.trim().to_string());
            }
        }
    }
    Ok(deps)
}

fn rust_files(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_architecture_invariants_hold() {
        if let Err(e) = super::check() {
            panic!("{e}");
        }
    }

    #[test]
    fn dependencies_reads_only_the_dependencies_table() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[package]\nname = \"x\"\n\n[dependencies]\nyew = \"0.23\"\nserde = { version = \"1\" }\n\n[dev-dependencies]\nproptest = \"1\"\n",
        )
        .unwrap();
        let deps = super::dependencies(&manifest).unwrap();
        assert_eq!(deps, ["yew", "serde"]);
    }
}
