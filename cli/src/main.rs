//! `folioscope`: runs page-cache scenarios on the model, prints tables shaped
//! like the ones in patch emails, and probes the real kernel to check the
//! model against it.
//!
//! The binary is thin: `folioscope-core` is the model, and
//! `folioscope-scenario` parses and renders. Bad input exits with status 2
//! and one line naming the option; a failure exits with status 1.

mod args;
mod check;
mod compare;
mod kernels;
mod link;
#[cfg(target_os = "linux")]
mod pagecache;
mod probe;
mod record;
mod recorded;
mod run;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "folioscope",
    version,
    about = "A model of the Linux page cache: run scenarios, probe the real kernel, compare."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario on the model and print its figures.
    Run(run::RunArgs),
    /// Run a scenario on this machine's kernel and print the same figures.
    Probe(probe::ProbeArgs),
    /// Run a scenario on both and print where they differ.
    Check(Box<check::CheckArgs>),
    /// Run a program under the kernel's tracepoints and record what it
    /// asked of its files and what the page cache did.
    Record(Box<record::RecordArgs>),
    /// Print a seed's tables from the model, next to the published figures.
    Compare(compare::CompareArgs),
    /// List the kernel variants and patch toggles.
    Kernels,
    /// Print the app's permalink for a scenario at a step.
    Link(link::LinkArgs),
    /// Print a plain-text summary for a mailing list, with its permalink.
    Export(link::ExportArgs),
}

/// How a command failed.
pub enum CliError {
    /// Bad input: exit status 2.
    Usage(String),
    /// The command could not do its work: exit status 1.
    Failed(String),
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::Failed(format!("{e:#}"))
    }
}

fn main() -> ExitCode {
    // Piping into `head` must end the program quietly, as for any Unix tool.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("error: bad arguments");
            eprintln!("{first}");
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Run(a) => run::run(&a),
        Command::Probe(a) => probe::probe_command(&a),
        Command::Check(a) => check::check(&a),
        Command::Record(a) => record::record(&a),
        Command::Compare(a) => compare::compare(&a),
        Command::Kernels => kernels::kernels(),
        Command::Link(a) => link::link(&a),
        Command::Export(a) => link::export_command(&a),
    };
    match result {
        Ok(code) => code,
        Err(CliError::Usage(m)) => {
            eprintln!("error: {}", m.replace('\n', " "));
            ExitCode::from(2)
        }
        Err(CliError::Failed(m)) => {
            eprintln!("error: {}", m.replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
