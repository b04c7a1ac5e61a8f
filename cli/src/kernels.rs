//! `folioscope kernels`: every kernel variant and patch toggle.

use std::process::ExitCode;

use folioscope_core::{Patch, Variant};

use crate::CliError;

pub fn kernels() -> Result<ExitCode, CliError> {
    println!("Kernel variants (--kernel NAME):");
    for v in Variant::ALL {
        let patches: Vec<&str> = v.patches().iter().map(|p| p.name()).collect();
        println!("  {:<22} {}", v.name(), v.summary());
        if !patches.is_empty() {
            println!("  {:<22} patches: {}", "", patches.join(", "));
        }
    }
    println!();
    println!("Patch toggles (--patch +NAME / --patch -NAME):");
    if Patch::ALL.is_empty() {
        println!("  (none yet)");
    }
    for p in Patch::ALL {
        println!("  {:<22} {}", p.name(), p.summary());
        println!("  {:<22} from {}", "", p.source());
    }
    Ok(ExitCode::SUCCESS)
}
