//! A recording: what a real program asked of its files, what the real
//! kernel did for it, and the machine it ran on, as `folioscope record`
//! writes it and `run`, `check` and `compare --recording` and the app read
//! it.
//!
//! [`Recording`] holds the machine's settings ([`RecordedMachine`]), the
//! command, the named files ([`RecordedFile`]: device, inode, size, file
//! system, read_ahead_kb), the program's accesses and the kernel's
//! tracepoint events interleaved in the order the kernel logged them
//! ([`Item`]), and each file's end state as `folioscope probe` measures it
//! ([`EndState`]). Accesses use the core's program-level [`Access`]
//! variants: each open file description (`ofd`) and each address space
//! (`mm`) is a small number, counted from 0 per file in order of first
//! appearance.
//!
//! [`format`] writes and reads the file (version 1, described there and
//! in docs/recording.md); [`from_trace`] builds the items from trace text.
//! [`Recording::scenario`] turns one file's accesses into the core's
//! [`Scenario`] on the recorded kernel; [`real_cache`] is the real
//! kernel's page cache of a file at any step, rebuilt from its events.

pub mod format;
pub mod from_trace;
pub mod real_cache;

use std::collections::BTreeMap;

use folioscope_core::{Access, Kernel, Madvise, Pattern, Scenario, Tracepoint};

use crate::tracepoint_text::TraceInode;

/// The kernel's default fault_around_bytes, assumed when the recording
/// machine's debugfs could not be read.
pub const DEFAULT_FAULT_AROUND_BYTES: u64 = 65536;

/// A recorded run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recording {
    pub machine: RecordedMachine,
    /// The program and its arguments, as given to `folioscope record`.
    pub command: Vec<String>,
    pub files: Vec<RecordedFile>,
    /// Accesses and kernel events, in the kernel's log order.
    pub items: Vec<Item>,
    /// Each file's end state, where it was measured.
    pub end: Vec<Option<EndState>>,
}

/// The settings of the machine the recording was made on that a replay
/// needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedMachine {
    /// `uname -r`.
    pub release: String,
    /// `uname -m`.
    pub arch: String,
    pub page_size: u64,
    /// The selected value of /sys/kernel/mm/transparent_hugepage/enabled
    /// (`always`, `madvise`, `never`); None when the kernel has no THP.
    pub thp_enabled: Option<String>,
    /// The selected value of .../transparent_hugepage/defrag.
    pub thp_defrag: Option<String>,
    /// debugfs fault_around_bytes; None when debugfs could not be read, in
    /// which case the kernel's default is assumed.
    pub fault_around_bytes: Option<u64>,
}

/// A file the recording follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedFile {
    pub path: String,
    /// The device and inode the kernel's tracepoints name.
    pub inode: TraceInode,
    pub size: u64,
    /// The file system type (`ext4`, `xfs`, `btrfs`, `tmpfs`, ...).
    pub fs: String,
    /// read_ahead_kb of the file's block device.
    pub read_ahead_kb: u64,
}

/// One entry of the recording, in the kernel's log order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// The program asked this of file `file`.
    Access { file: u32, access: Access },
    /// The kernel fired this tracepoint for file `file`.
    Event { file: u32, tp: Tracepoint },
}

impl Item {
    pub fn file(&self) -> u32 {
        match self {
            Item::Access { file, .. } | Item::Event { file, .. } => *file,
        }
    }
}

/// A file's page cache when the program had exited: resident pages as
/// runs `[start_page, length]` and folios as runs `[start_page, order,
/// count]`, the shapes of `folioscope probe`'s report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndState {
    pub resident: Vec<[u64; 2]>,
    pub folios: Vec<[u64; 3]>,
}

/// A recording that cannot be read or used: the line (where there is one),
/// the field and what is wrong, printed on one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordingError {
    pub line: Option<usize>,
    pub field: String,
    pub message: String,
}

impl RecordingError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        RecordingError {
            line: None,
            field: field.into(),
            message: message.into(),
        }
    }

    pub fn at(line: usize, field: impl Into<String>, message: impl Into<String>) -> Self {
        RecordingError {
            line: Some(line),
            field: field.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for RecordingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for RecordingError {}

impl Recording {
    /// Reads a recording, gzipped or plain text.
    pub fn parse(bytes: &[u8]) -> Result<Recording, RecordingError> {
        format::parse(bytes)
    }

    /// The recording as its file: format version 1, gzipped.
    #[cfg(feature = "gzip")]
    pub fn write(&self) -> Vec<u8> {
        format::write_gz(self)
    }

    /// The accesses of file `file`, in order.
    pub fn accesses(&self, file: u32) -> Vec<Access> {
        self.items
            .iter()
            .filter_map(|i| match *i {
                Item::Access { file: f, access } if f == file => Some(access),
                _ => None,
            })
            .collect()
    }

    /// The kernel's events for file `file`, in order.
    pub fn events(&self, file: u32) -> Vec<Tracepoint> {
        self.items
            .iter()
            .filter_map(|i| match *i {
                Item::Event { file: f, tp } if f == file => Some(tp),
                _ => None,
            })
            .collect()
    }

    /// For each access of file `file`, the kernel events that followed it
    /// up to the next access of that file: the events it caused, as far as
    /// the log tells.
    pub fn steps(&self, file: u32) -> Vec<(Access, Vec<Tracepoint>)> {
        let mut out: Vec<(Access, Vec<Tracepoint>)> = Vec::new();
        for item in &self.items {
            match *item {
                Item::Access { file: f, access } if f == file => out.push((access, Vec::new())),
                Item::Event { file: f, tp } if f == file => {
                    if let Some(last) = out.last_mut() {
                        last.1.push(tp);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// File `file`'s kernel events, each with the number of accesses to
    /// the file logged before it: an event numbered `n` followed access
    /// `n` (1-based) and came before access `n + 1`, and counts in the
    /// page cache after `n` accesses, as [`Recording::real_cache_at`]
    /// counts it.
    pub fn numbered_events(&self, file: u32) -> Vec<(u64, Tracepoint)> {
        let mut done = 0;
        let mut out = Vec::new();
        for item in &self.items {
            match *item {
                Item::Access { file: f, .. } if f == file => done += 1,
                Item::Event { file: f, tp } if f == file => out.push((done, tp)),
                _ => {}
            }
        }
        out
    }

    /// The file a replay shows unless told otherwise: the first of the
    /// recording's files the program accessed at all.
    pub fn first_accessed_file(&self) -> Result<u32, RecordingError> {
        (0..self.files.len() as u32)
            .find(|&k| {
                self.items
                    .iter()
                    .any(|i| matches!(i, Item::Access { file, .. } if *file == k))
            })
            .ok_or_else(|| {
                RecordingError::new("file", "the program accessed none of the recorded files")
            })
    }

    /// The page-cache deletes of file `file` that came after its first add:
    /// a folio left the cache while the program ran, which on these
    /// machines means background eviction disturbed the run (or the
    /// program dropped pages itself).
    pub fn deletes_after_first_add(&self, file: u32) -> Vec<(u64, u8)> {
        let mut added = false;
        let mut out = Vec::new();
        for tp in self.events(file) {
            match tp {
                Tracepoint::AddToPageCache { .. } => added = true,
                Tracepoint::DeleteFromPageCache { index, order } if added => {
                    out.push((index, order))
                }
                _ => {}
            }
        }
        out
    }

    /// File `file`'s page cache as the kernel's add and delete events left
    /// it once `step` of its accesses were done (every event logged before
    /// its access number `step`): folio index to order. With `step` past
    /// the last access, every event counts.
    pub fn real_cache_at(&self, file: u32, step: usize) -> BTreeMap<u64, u8> {
        let mut cache = BTreeMap::new();
        let mut done = 0;
        for item in &self.items {
            match *item {
                Item::Access { file: f, .. } if f == file => {
                    if done == step {
                        break;
                    }
                    done += 1;
                }
                Item::Event {
                    file: f,
                    tp: Tracepoint::AddToPageCache { index, order },
                } if f == file => {
                    cache.insert(index, order);
                }
                Item::Event {
                    file: f,
                    tp: Tracepoint::DeleteFromPageCache { index, .. },
                } if f == file => {
                    cache.remove(&index);
                }
                _ => {}
            }
        }
        cache
    }

    /// The kernel variant that models the recorded release.
    pub fn kernel(&self) -> Result<Kernel, RecordingError> {
        kernel_of_release(&self.machine.release)
    }

    /// File `file`'s accesses as a scenario on the recorded kernel and
    /// machine.
    pub fn scenario(&self, file: u32) -> Result<Scenario, RecordingError> {
        let f = self.files.get(file as usize).ok_or_else(|| {
            RecordingError::new(
                "file",
                format!(
                    "file {file} is not in the recording, which has {}",
                    self.files.len()
                ),
            )
        })?;
        if f.fs == "tmpfs" || f.fs == "shmem" {
            return Err(RecordingError::new(
                "file",
                format!(
                    "file {file} ({}) is on tmpfs; the model replays recordings of disk files",
                    f.path
                ),
            ));
        }
        let accesses = self.accesses(file);
        if accesses.is_empty() {
            return Err(RecordingError::new(
                "file",
                format!(
                    "file {file} ({}): the recording has no access to it",
                    f.path
                ),
            ));
        }
        Ok(Scenario {
            kernel: self.kernel()?,
            file_size: f.size,
            page_size: self.machine.page_size,
            read_ahead_kb: f.read_ahead_kb,
            fault_around_bytes: self
                .machine
                .fault_around_bytes
                .unwrap_or(DEFAULT_FAULT_AROUND_BYTES),
            madvise: Madvise::Normal,
            thp: self.machine.thp_enabled.is_some(),
            memory_limit: None,
            exec: false,
            pattern: Pattern::Trace(accesses),
            ..Scenario::default()
        })
    }
}

/// The variant for a `uname -r` release: v6.18 for any 6.18.x.
pub fn kernel_of_release(release: &str) -> Result<Kernel, RecordingError> {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major = parts.next().unwrap_or("");
    let minor = parts.next().unwrap_or("");
    if major == "6" && minor == "18" {
        return Ok(Kernel::v6_18());
    }
    Err(RecordingError::new(
        "release",
        format!(
            "the recording was made on Linux {release}, and no kernel variant models it (the model follows 6.18; record on a 6.18 kernel)"
        ),
    ))
}
