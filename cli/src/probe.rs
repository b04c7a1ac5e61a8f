//! `folioscope probe`: the scenario on this machine's kernel, measured the
//! way the model reports it. Linux only; the work is in [`linux`].

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
#[cfg(target_os = "linux")]
use folioscope_scenario::tracepoint_text::format_tracepoint;
use folioscope_scenario::Report;

use crate::args::ScenarioArgs;
use crate::run::validate;
use crate::CliError;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub(crate) mod sysfs;
#[cfg(target_os = "linux")]
mod trace;

#[derive(Args, Clone, Debug)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,

    /// The file to read. Unless --file-size is given, the scenario is as
    /// large as the file.
    #[arg(long)]
    pub file: PathBuf,

    /// Create the file, filled with pseudo-random data, if it is missing
    /// (as large as --file-size).
    #[arg(long)]
    pub create: bool,

    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,

    /// Also record the file's readahead and filemap tracepoints during the
    /// accesses, and print them as tracefs does before the figures.
    #[arg(long)]
    pub events: bool,
}

/// What a probe measured, and of what.
pub struct Probed {
    pub cfg: folioscope_core::Config,
    pub report: Report,
    /// The file's tracepoints, when asked for.
    #[cfg(target_os = "linux")]
    pub traced: Option<linux::Traced>,
}

/// The scenario of a probe: as given, and as large as the file when no
/// --file-size is given and the file is there.
pub fn probe_config(
    scenario: &ScenarioArgs,
    file: &std::path::Path,
) -> Result<folioscope_core::Config, CliError> {
    let mut s = scenario.scenario().map_err(CliError::Usage)?;
    if !scenario.gives("size") {
        if let Ok(meta) = std::fs::metadata(file) {
            s.file_size = meta.len();
        }
    }
    validate(s)
}

/// Measures the scenario on the running kernel, recording the file's
/// tracepoints too when `trace`.
pub fn probe(args: &ProbeArgs, trace: bool) -> Result<Probed, CliError> {
    let cfg = probe_config(&args.scenario, &args.file)?;
    #[cfg(target_os = "linux")]
    {
        let (report, traced) = linux::probe(&cfg, &args.file, args.create, trace)?;
        Ok(Probed {
            cfg,
            report,
            traced,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (cfg, trace);
        Err(CliError::Failed(
            "probe measures the Linux page cache and runs only on Linux".into(),
        ))
    }
}

pub fn probe_command(args: &ProbeArgs) -> Result<ExitCode, CliError> {
    let probed = probe(args, args.events)?;
    #[cfg(target_os = "linux")]
    if let Some(t) = &probed.traced {
        let shift = probed.cfg.page_size.shift();
        for tp in &t.events {
            println!("{}", format_tracepoint(tp, t.inode, shift));
        }
    }
    if args.json {
        println!("{}", probed.report.to_json());
    } else {
        print!("{}", probed.report.to_text());
    }
    Ok(ExitCode::SUCCESS)
}
