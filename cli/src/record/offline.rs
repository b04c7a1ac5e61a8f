//! `folioscope record --from-trace TEXT`: the recording built from trace
//! text that tracefs or `trace-cmd report` printed, on a machine without
//! folioscope. The text carries the program's calls and the kernel's
//! events but not the machine, so the facts a replay needs come from
//! options: `--release` is required; the files are `--file PATH` (when
//! the trace was made on this machine) or `--inode MAJ:MIN:INO` with
//! `--file-size`, and by default the inode with the most page-cache adds;
//! read_ahead_kb defaults to the `ra_pages` the file's readahead events
//! print; the rest have the defaults their help gives.

use std::collections::BTreeMap;
use std::path::Path;

use clap::Args;
use folioscope_core::Tracepoint;
use folioscope_scenario::parse::parse_size;
use folioscope_scenario::recording::from_trace::{
    from_trace, trace_records, FromTrace, TracedFile,
};
use folioscope_scenario::recording::{RecordedFile, RecordedMachine, Recording};
use folioscope_scenario::trace_line::TraceEvent;
use folioscope_scenario::tracepoint_text::TraceInode;

use super::RecordArgs;
use crate::CliError;

#[derive(Args, Clone, Debug)]
pub struct OfflineArgs {
    /// With --from-trace: a traced file by its device and inode as the
    /// trace prints them (`254:0:5141ae`); repeatable.
    #[arg(long = "inode", value_name = "MAJ:MIN:INO", value_parser = parse_inode)]
    pub inodes: Vec<TraceInode>,

    /// With --from-trace: the size of each --inode file, in order (e.g. 2G).
    #[arg(long = "file-size", value_name = "SIZE", value_parser = size)]
    pub file_sizes: Vec<u64>,

    /// With --from-trace: a name for each --inode file, in order.
    #[arg(long = "path", value_name = "NAME")]
    pub paths: Vec<String>,

    /// With --from-trace: `uname -r` of the traced machine (required).
    #[arg(long, value_name = "RELEASE")]
    pub release: Option<String>,

    /// With --from-trace: `uname -m` of the traced machine.
    #[arg(long, default_value = "x86_64")]
    pub arch: String,

    /// With --from-trace: the traced machine's page size.
    #[arg(long, default_value = "4k", value_parser = size)]
    pub page_size: u64,

    /// With --from-trace: read_ahead_kb of the files' device [default: the
    /// ra_pages of the file's first readahead event].
    #[arg(long)]
    pub read_ahead_kb: Option<u64>,

    /// With --from-trace: transparent_hugepage/enabled (always, madvise,
    /// never, or none for a kernel without THP).
    #[arg(long, default_value = "madvise")]
    pub thp_enabled: String,

    /// With --from-trace: transparent_hugepage/defrag.
    #[arg(long, default_value = "madvise")]
    pub thp_defrag: String,

    /// With --from-trace: debugfs fault_around_bytes [default: unknown,
    /// replayed as the kernel's 65536].
    #[arg(long, value_parser = size)]
    pub fault_around_bytes: Option<u64>,

    /// With --from-trace: the files' file system.
    #[arg(long = "fs-type", default_value = "ext4", value_name = "FS")]
    pub fs_type: String,
}

fn size(s: &str) -> Result<u64, String> {
    parse_size(s)
}

fn parse_inode(s: &str) -> Result<TraceInode, String> {
    let bad = || format!("'{s}' is not MAJOR:MINOR:INO (the inode in hex, as tracefs prints it)");
    let mut parts = s.split(':');
    let (Some(major), Some(minor), Some(ino), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    Ok(TraceInode {
        major: major.parse().map_err(|_| bad())?,
        minor: minor.parse().map_err(|_| bad())?,
        ino: u64::from_str_radix(ino.trim_start_matches("0x"), 16).map_err(|_| bad())?,
    })
}

pub fn record_from_trace(
    args: &RecordArgs,
    text_path: &Path,
) -> Result<(Recording, FromTrace), CliError> {
    let o = &args.offline;
    let release = o.release.clone().ok_or_else(|| {
        CliError::Usage(
            "--release: give the traced machine's `uname -r`; the trace does not carry it".into(),
        )
    })?;
    if !o.page_size.is_power_of_two() || o.page_size < 4096 {
        return Err(CliError::Usage(format!(
            "--page-size: {} is not a page size",
            o.page_size
        )));
    }
    let page_shift = o.page_size.trailing_zeros();
    let text = std::fs::read_to_string(text_path).map_err(|e| {
        CliError::Usage(format!(
            "--from-trace: cannot read {}: {e}",
            text_path.display()
        ))
    })?;
    let records = trace_records(&text, page_shift)
        .map_err(|e| CliError::Usage(format!("--from-trace {}: {e}", text_path.display())))?;

    let mut files: Vec<RecordedFile> = Vec::new();
    #[cfg(target_os = "linux")]
    for path in &args.files {
        files.push(super::machine::file_facts(path).map_err(CliError::Usage)?);
    }
    #[cfg(not(target_os = "linux"))]
    if !args.files.is_empty() {
        return Err(CliError::Usage(
            "--file: with --from-trace off Linux, name the files with --inode and --file-size"
                .into(),
        ));
    }
    let mut inodes = o.inodes.clone();
    if files.is_empty() && inodes.is_empty() {
        inodes.push(most_added(&records).ok_or_else(|| {
            CliError::Usage(
                "--inode: the trace adds no page to any page cache; name the file with --inode"
                    .into(),
            )
        })?);
    }
    if o.file_sizes.len() != inodes.len() {
        return Err(CliError::Usage(format!(
            "--file-size: give one size for each of the {} traced inode{} ({})",
            inodes.len(),
            if inodes.len() == 1 { "" } else { "s" },
            inodes
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    for (k, (inode, size)) in inodes.iter().zip(&o.file_sizes).enumerate() {
        let read_ahead_kb = match o.read_ahead_kb {
            Some(kb) => kb,
            None => first_ra_pages(&records, *inode)
                .map(|p| p * o.page_size / 1024)
                .ok_or_else(|| {
                    CliError::Usage(format!(
                        "--read-ahead-kb: inode {inode} has no readahead event to read ra_pages from; give it"
                    ))
                })?,
        };
        files.push(RecordedFile {
            path: o
                .paths
                .get(k)
                .cloned()
                .unwrap_or_else(|| format!("inode {inode}")),
            inode: *inode,
            size: *size,
            fs: o.fs_type.clone(),
            read_ahead_kb,
        });
    }
    let traced: Vec<TracedFile> = files
        .iter()
        .map(|f| TracedFile {
            inode: f.inode,
            size: f.size,
        })
        .collect();
    let built = from_trace(&records, &traced, page_shift)
        .map_err(|e| CliError::Usage(format!("--from-trace {}: {e}", text_path.display())))?;
    for d in &built.disturbed {
        eprintln!("warning: disturbed: {d}");
    }
    let none = |v: &str| (v != "none").then(|| v.to_string());
    let rec = Recording {
        machine: RecordedMachine {
            release,
            arch: o.arch.clone(),
            page_size: o.page_size,
            thp_enabled: none(&o.thp_enabled),
            thp_defrag: none(&o.thp_defrag),
            fault_around_bytes: o.fault_around_bytes,
        },
        command: args.command.clone(),
        end: vec![None; files.len()],
        files,
        items: built.items.clone(),
    };
    Ok((rec, built))
}

/// The inode with the most page-cache adds in the trace.
fn most_added(
    records: &[folioscope_scenario::recording::from_trace::TraceRecord],
) -> Option<TraceInode> {
    let mut counts: BTreeMap<TraceInode, u64> = BTreeMap::new();
    for r in records {
        if let TraceEvent::File {
            inode,
            tp: Tracepoint::AddToPageCache { order, .. },
        } = r.line.event
        {
            *counts.entry(inode).or_default() += 1 << order;
        }
    }
    counts
        .into_iter()
        .max_by_key(|(i, n)| (*n, std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
}

fn first_ra_pages(
    records: &[folioscope_scenario::recording::from_trace::TraceRecord],
    want: TraceInode,
) -> Option<u64> {
    records.iter().find_map(|r| match r.line.event {
        TraceEvent::File {
            inode,
            tp: Tracepoint::SyncRa { ra, .. } | Tracepoint::AsyncRa { ra, .. },
        } if inode == want => Some(ra.ra_pages as u64),
        _ => None,
    })
}
