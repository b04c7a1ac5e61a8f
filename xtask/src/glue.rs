//! What `cargo xtask dist` does to Trunk's output to make it smaller: the
//! names the wasm and wasm-bindgen's glue share made short, the glue
//! minified, and the page given the new files' integrity hashes.
//!
//! wasm-bindgen names each import after what it calls and a hash
//! (`__wbg_getBoundingClientRect_329ca748ec918b0c`), and both files hold
//! every name; the hashes do not compress. Binaryen's
//! `--minify-imports-and-exports-and-modules` renames them in the wasm and
//! prints what it renamed, and the glue is rewritten to match. On
//! 2026-12-04 terser took the gzipped glue from 9.8 to 7.7 KB, and the
//! short names took 3.0 KB off the wasm and 2.9 KB more off the glue:
//! `cargo xtask dist` measured 429.9, then 427.9, then 420.9 KB.
//!
//! The same wasm-opt call runs the app's optimisation pipeline again
//! (the level and options of index.html's rust link): over Trunk's
//! output it still finds about 1 KB gzipped to take off (405.4 -> 404.4
//! KB on 2026-12-06), where a second `-Oz` in Trunk's own call, or
//! `--converge`, found a third of that.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::proc::{captured, run};
use crate::tools::{tool, tools_dir};

/// Shortens the names, minifies the glue and writes the hashes again, for
/// the one wasm and the one glue file in `dist`.
pub fn shrink(dist: &Path) -> Result<()> {
    let wasm = only_file(dist, "wasm")?;
    let js = only_file(dist, "js")?;
    let index = dist.join("index.html");
    let html = std::fs::read_to_string(&index).context("reading dist/index.html")?;
    let old = [sri(&std::fs::read(&wasm)?), sri(&std::fs::read(&js)?)];
    for o in &old {
        if !html.contains(o.as_str()) {
            bail!("dist/index.html has no integrity {o}: Trunk's page changed");
        }
    }
    shorten_names(&wasm, &js)?;
    minify(&js)?;
    let new = [sri(&std::fs::read(&wasm)?), sri(&std::fs::read(&js)?)];
    let html = old
        .iter()
        .zip(&new)
        .fold(html, |h, (o, n)| h.replace(o.as_str(), n));
    std::fs::write(&index, html).context("writing dist/index.html")
}

/// The one file of `dist` whose name ends in `.ext`.
fn only_file(dist: &Path, ext: &str) -> Result<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dist).context("listing dist/")? {
        let path = entry?.path();
        if path.extension().and_then(|e| e.to_str()) == Some(ext) {
            found.push(path);
        }
    }
    match found.as_slice() {
        [one] => Ok(one.clone()),
        _ => bail!(
            "dist/ has {} .{ext} files, where one was expected",
            found.len()
        ),
    }
}

/// What binaryen printed it renamed: each import as (module, name, new
/// name), each export as (name, new name).
#[derive(Deserialize)]
struct Renamed {
    imports: Vec<(String, String, String)>,
    exports: Vec<(String, String)>,
}

/// Runs the app's wasm-opt pipeline over the wasm once more, gives its
/// imports, their module and its exports short names, and the glue's
/// names for them the same.
fn shorten_names(wasm: &Path, js: &Path) -> Result<()> {
    let mut cmd = tool("wasm-opt");
    cmd.arg(wasm)
        .args(crate::app_wasm_opt::of_index()?)
        .arg("--minify-imports-and-exports-and-modules")
        .arg("-o")
        .arg(wasm);
    let renamed: Renamed = serde_json::from_str(&captured(&mut cmd)?)
        .context("reading the names wasm-opt printed it renamed")?;
    let module = import_module(&std::fs::read(wasm)?)?;
    let glue = std::fs::read_to_string(js).context("reading the glue")?;
    let glue = rename_in_glue(glue, &renamed, &module)?;
    std::fs::write(js, glue).context("writing the glue")
}

/// The module every import of `wasm` comes from: one, once renamed.
fn import_module(wasm: &[u8]) -> Result<String> {
    let mut modules = std::collections::BTreeSet::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let wasmparser::Payload::ImportSection(imports) = payload? {
            for import in imports.into_imports() {
                modules.insert(import?.module.to_string());
            }
        }
    }
    match modules.len() {
        1 => Ok(modules.into_iter().next().expect("one")),
        n => bail!("the wasm imports from {n} modules, where one was expected"),
    }
}

/// The glue with the names in `renamed`: the import object's module key
/// and its keys, and the exports it reads from `wasm.`. Each import name
/// must be a key of the object once, or the glue is not what this knows.
fn rename_in_glue(mut glue: String, renamed: &Renamed, module: &str) -> Result<String> {
    let modules: std::collections::BTreeSet<&str> =
        renamed.imports.iter().map(|(m, _, _)| m.as_str()).collect();
    for m in modules {
        let key = format!("\"{m}\":");
        if glue.matches(&key).count() != 1 {
            bail!("the glue does not name import module {m} once");
        }
        glue = glue.replace(&key, &format!("\"{module}\":"));
    }
    for (_, old, new) in &renamed.imports {
        let (out, n) = replace_token(&glue, old, "", ":", new);
        if n != 1 {
            bail!("the glue has {n} keys for import {old}, where one was expected");
        }
        glue = out;
    }
    for (old, new) in &renamed.exports {
        glue = replace_token(&glue, old, "wasm.", "", new).0;
    }
    Ok(glue)
}

/// `text` with each `before` + `name` + `after` where `name` is a whole
/// identifier made `before` + `new` + `after`, and how many there were.
fn replace_token(text: &str, name: &str, before: &str, after: &str, new: &str) -> (String, usize) {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let pattern = format!("{before}{name}{after}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut n = 0;
    while let Some(i) = rest.find(&pattern) {
        let (head, tail) = rest.split_at(i);
        let starts = !before.is_empty() || !head.ends_with(ident);
        let ends = !after.is_empty() || !tail[pattern.len()..].starts_with(ident);
        out.push_str(head);
        if starts && ends {
            out.push_str(&format!("{before}{new}{after}"));
            n += 1;
        } else {
            out.push_str(&pattern);
        }
        rest = &tail[pattern.len()..];
    }
    out.push_str(rest);
    (out, n)
}

/// Minifies the glue with terser (Trunk's own minifier fails on it).
fn minify(js: &Path) -> Result<()> {
    let terser = tools_dir().join("node_modules/terser/bin/terser");
    let mut cmd = tool("node");
    cmd.arg(terser)
        .arg(js)
        .args(["--module", "--compress", "--mangle", "--output"])
        .arg(js);
    run(&mut cmd)
}

/// A subresource integrity value, as Trunk writes them.
fn sri(bytes: &[u8]) -> String {
    use base64::Engine;
    use sha2::Digest;
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha384::digest(bytes))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_names_are_renamed() {
        let glue = "{ __wbg_a_1: function() {}, __wbg_a_12: 1 }; wasm.memory; wasm.memory2;";
        let (out, n) = replace_token(glue, "__wbg_a_1", "", ":", "b");
        assert_eq!(
            (out.as_str(), n),
            (
                "{ b: function() {}, __wbg_a_12: 1 }; wasm.memory; wasm.memory2;",
                1
            )
        );
        let (out, n) = replace_token(glue, "memory", "wasm.", "", "c");
        assert_eq!(
            (out.as_str(), n),
            (
                "{ __wbg_a_1: function() {}, __wbg_a_12: 1 }; wasm.c; wasm.memory2;",
                1
            )
        );
    }

    #[test]
    fn a_glue_that_lacks_an_import_is_refused() {
        let renamed = Renamed {
            imports: vec![("./m.js".into(), "__wbg_x_1".into(), "a".into())],
            exports: vec![],
        };
        let glue =
            "const o = { \"./m.js\": import0 }; const import0 = { __wbg_y_1: 1 };".to_string();
        let err = rename_in_glue(glue, &renamed, "a").unwrap_err().to_string();
        assert!(err.contains("__wbg_x_1"), "{err}");
        let glue =
            "const o = { \"./m.js\": import0 }; const import0 = { __wbg_x_1: 1 };".to_string();
        let out = rename_in_glue(glue, &renamed, "a").unwrap();
        assert_eq!(
            out,
            "const o = { \"a\": import0 }; const import0 = { a: 1 };"
        );
    }
}
