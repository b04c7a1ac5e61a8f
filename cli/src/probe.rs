//! `folioscope probe`: the scenario on this machine's kernel, measured the
//! way the model reports it. Linux only; the work is in [`linux`].

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use folioscope_scenario::Report;

use crate::args::ScenarioArgs;
use crate::run::config_of;
use crate::CliError;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub(crate) mod sysfs;

#[derive(Args, Clone, Debug)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,

    /// The file to read. It must have the scenario's size.
    #[arg(long)]
    pub file: PathBuf,

    /// Create the file, filled with pseudo-random data, if it is missing.
    #[arg(long)]
    pub create: bool,

    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Measures the scenario on the running kernel.
pub fn probe(args: &ProbeArgs) -> Result<Report, CliError> {
    let cfg = config_of(&args.scenario)?;
    #[cfg(target_os = "linux")]
    {
        linux::probe(&cfg, &args.file, args.create)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cfg;
        Err(CliError::Failed(
            "probe measures the Linux page cache and runs only on Linux".into(),
        ))
    }
}

pub fn probe_command(args: &ProbeArgs) -> Result<ExitCode, CliError> {
    let report = probe(args)?;
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(ExitCode::SUCCESS)
}
