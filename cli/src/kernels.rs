//! `folioscope kernels`: every kernel variant and patch toggle.

use std::process::ExitCode;

use folioscope_core::{Patch, Variant};
use folioscope_scenario::describe;

use crate::CliError;

pub fn kernels() -> Result<ExitCode, CliError> {
    let w = Variant::ALL
        .iter()
        .map(|v| v.name().len())
        .chain(Patch::ALL.iter().map(|p| p.name().len()))
        .max()
        .unwrap_or(0);
    println!("Kernel variants (--kernel NAME):");
    for v in Variant::ALL {
        let patches: Vec<&str> = v.patches().iter().map(|p| p.name()).collect();
        println!("  {:<w$} {}", v.name(), describe::variant(v));
        if !patches.is_empty() {
            println!("  {:<w$} patches: {}", "", patches.join(", "));
        }
    }
    println!();
    println!("Patch toggles (--patch +NAME / --patch -NAME):");
    for p in Patch::ALL {
        println!("  {:<w$} {}", p.name(), describe::patch(p));
        if let Some(note) = describe::patch_behaviour(p) {
            println!("  {:<w$} {note}", "");
        }
        println!("  {:<w$} from {}", "", describe::patch_source(p));
    }
    println!();
    println!("Alternatives for one hunk (apply at most one of each pair):");
    for (a, b) in Patch::EXCLUSIVE {
        println!("  {} / {}", a.name(), b.name());
    }
    Ok(ExitCode::SUCCESS)
}
