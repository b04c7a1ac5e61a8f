//! Opening a recording for `run`, `check` and `compare`: the file read and
//! parsed at this edge, and one of its files chosen as the scenario.

use std::path::PathBuf;

use clap::Args;
use folioscope_core::Scenario;
use folioscope_scenario::recording::Recording;
use folioscope_scenario::tracepoint_text::TraceInode;

use crate::args::ScenarioArgs;
use crate::CliError;

#[derive(Args, Clone, Debug, Default)]
pub struct RecordingArgs {
    /// Replay a recorded program (from `folioscope record`) instead of a
    /// synthetic pattern; scenario options given as well change it (a
    /// what-if: --kernel, --read-ahead-kb, ...).
    #[arg(long, value_name = "FILE")]
    pub recording: Option<PathBuf>,

    /// Which of the recording's files to replay: its path or its number
    /// (from 0). The default is the first file the program used.
    #[arg(long, value_name = "PATH|N", requires = "recording")]
    pub recorded_file: Option<String>,
}

/// A recording and the file of it being replayed.
pub struct Opened {
    pub rec: Recording,
    pub file: u32,
}

impl Opened {
    /// The device and inode the file's tracepoints name.
    pub fn inode(&self) -> TraceInode {
        self.rec.files[self.file as usize].inode
    }

    /// The recorded file's path.
    pub fn path(&self) -> &str {
        &self.rec.files[self.file as usize].path
    }

    /// The recorded scenario with the options given on the command line.
    pub fn scenario(&self, given: &ScenarioArgs) -> Result<Scenario, CliError> {
        let mut s = self
            .rec
            .scenario(self.file)
            .map_err(|e| CliError::Usage(format!("--recording: {e}")))?;
        given.apply(&mut s).map_err(CliError::Usage)?;
        Ok(s)
    }
}

impl RecordingArgs {
    /// The recording named by `--recording`, if any, with its file chosen.
    pub fn open(&self) -> Result<Option<Opened>, CliError> {
        let Some(path) = &self.recording else {
            return Ok(None);
        };
        let bytes = std::fs::read(path).map_err(|e| {
            CliError::Usage(format!("--recording: cannot read {}: {e}", path.display()))
        })?;
        let rec = Recording::parse(&bytes)
            .map_err(|e| CliError::Usage(format!("--recording: {}: {e}", path.display())))?;
        let file = match &self.recorded_file {
            Some(which) => chosen_file(&rec, which)?,
            None => rec
                .first_accessed_file()
                .map_err(|e| CliError::Usage(format!("--recording: {}: {e}", path.display())))?,
        };
        Ok(Some(Opened { rec, file }))
    }
}

/// The file `which` names: a number, or a path as recorded.
fn chosen_file(rec: &Recording, which: &str) -> Result<u32, CliError> {
    let by_number = which
        .parse::<u32>()
        .ok()
        .filter(|&k| (k as usize) < rec.files.len());
    by_number
        .or_else(|| {
            rec.files
                .iter()
                .position(|f| f.path == which)
                .map(|k| k as u32)
        })
        .ok_or_else(|| {
            let names: Vec<String> = rec
                .files
                .iter()
                .enumerate()
                .map(|(k, f)| format!("{k}: {}", f.path))
                .collect();
            CliError::Usage(format!(
                "--recorded-file: '{which}' is none of the recording's files ({})",
                names.join(", ")
            ))
        })
}
