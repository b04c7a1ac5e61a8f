//! `folioscope record`: runs a program under the kernel's tracepoints and
//! writes what it asked of the named files and what the page cache did,
//! as a recording (see `folioscope_scenario::recording`). The live run is
//! in [`live`] (Linux, as root); `--from-trace` builds the same recording
//! from trace text saved on another machine, in [`offline`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use folioscope_scenario::recording::from_trace::FromTrace;
use folioscope_scenario::recording::Recording;

use crate::CliError;

#[cfg(target_os = "linux")]
pub(crate) mod live;
#[cfg(target_os = "linux")]
pub(crate) mod machine;
mod offline;
#[cfg(target_os = "linux")]
mod signals;
#[cfg(target_os = "linux")]
pub(crate) mod tracefs;

#[derive(Args, Clone, Debug)]
pub struct RecordArgs {
    /// A file whose page cache to follow; repeatable. Each starts cold.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<PathBuf>,

    /// Where to write the recording (gzipped text).
    #[arg(short = 'o', long = "output", default_value = "folioscope.rec.gz")]
    pub output: PathBuf,

    /// How many times to record again from cold when the run was disturbed
    /// (a folio of a named file left the page cache while it ran).
    #[arg(long, default_value_t = 5)]
    pub retries: u32,

    /// The trace buffer of the program's events, in MiB per CPU.
    #[arg(long, default_value_t = 64)]
    pub buffer_mb: u64,

    /// Also save the program's raw trace text here (the tracefs lines the
    /// recording was built from; `--from-trace` reads it back).
    #[arg(long, value_name = "PATH")]
    pub keep_trace: Option<PathBuf>,

    /// Build the recording from this trace text (tracefs `trace` output or
    /// `trace-cmd report`) instead of running a program.
    #[arg(long, value_name = "TEXT")]
    pub from_trace: Option<PathBuf>,

    #[command(flatten)]
    pub offline: offline::OfflineArgs,

    /// The program and its arguments.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub fn record(args: &RecordArgs) -> Result<ExitCode, CliError> {
    if let Some(text) = &args.from_trace {
        let (rec, built) = offline::record_from_trace(args, text)?;
        return finish(args, &rec, &built, 1);
    }
    if args.files.is_empty() {
        return Err(CliError::Usage(
            "--file: name at least one file whose page cache to record".into(),
        ));
    }
    if args.command.is_empty() {
        return Err(CliError::Usage(
            "no program to run: give it after --, as in `folioscope record --file F -- cat F`"
                .into(),
        ));
    }
    #[cfg(target_os = "linux")]
    {
        let (rec, built, attempts) = live::record_live(args)?;
        finish(args, &rec, &built, attempts)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(CliError::Failed(
            "record traces the Linux kernel and runs only on Linux (use --from-trace elsewhere)"
                .into(),
        ))
    }
}

/// Writes the recording and says what it holds, in one line.
fn finish(
    args: &RecordArgs,
    rec: &Recording,
    built: &FromTrace,
    attempts: u32,
) -> Result<ExitCode, CliError> {
    let bytes = rec.write();
    write_file(&args.output, &bytes)?;
    for note in &built.notes {
        eprintln!("note: {note}");
    }
    for (k, f) in rec.files.iter().enumerate() {
        if rec.accesses(k as u32).is_empty() {
            eprintln!(
                "warning: no access to {} was seen (an open file is known by the page-cache events of its reads and faults)",
                f.path
            );
        }
    }
    let events = rec
        .items
        .iter()
        .filter(|i| matches!(i, folioscope_scenario::recording::Item::Event { .. }))
        .count();
    let accesses = rec.items.len() - events;
    // On stderr, as `time` and `strace` print: the program's own output
    // keeps stdout.
    eprintln!(
        "wrote {}: {} bytes, {events} kernel events, {accesses} accesses of {} file{}{}",
        args.output.display(),
        bytes.len(),
        rec.files.len(),
        if rec.files.len() == 1 { "" } else { "s" },
        if attempts > 1 {
            format!(" (attempt {attempts})")
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    std::fs::write(path, bytes)
        .map_err(|e| CliError::Failed(format!("writing {}: {e}", path.display())))
}
