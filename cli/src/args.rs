//! The scenario options every command takes, and their conversion to a
//! [`Scenario`]. Bad values are rejected by clap with the option's name.

use clap::Args;
use folioscope_core::{Backing, Madvise, Pattern, TmpfsFile};
use folioscope_scenario::{parse, Scenario};

#[derive(Args, Clone, Debug)]
pub struct ScenarioArgs {
    /// Kernel variant (see `folioscope kernels`), optionally with
    /// +patch/-patch toggles written after it, as links write kernels.
    #[arg(long, default_value = "v6.18")]
    pub kernel: String,

    /// Switch a patch on (+NAME or NAME) or off (-NAME); repeatable.
    #[arg(long = "patch", value_name = "[+|-]NAME", allow_hyphen_values = true)]
    pub patches: Vec<String>,

    /// File size, e.g. 2G, 512M.
    #[arg(long, default_value = "2G", value_parser = size)]
    pub file_size: u64,

    /// Base page size: 4k, 16k or 64k.
    #[arg(long, default_value = "4k", value_parser = size)]
    pub page_size: u64,

    /// read_ahead_kb of the device.
    #[arg(long, default_value_t = 8192)]
    pub read_ahead_kb: u64,

    /// fault_around_bytes (debugfs).
    #[arg(long, default_value = "64k", value_parser = size)]
    pub fault_around_bytes: u64,

    /// madvise() advice: normal, hugepage, sequential or random (for read
    /// patterns, the posix_fadvise advice).
    #[arg(long, default_value = "normal", value_parser = madvise)]
    pub madvise: Madvise,

    /// Access pattern: fwd, rev, stride:N, rstride:N, random:PCT:SEED,
    /// read:BS, pread-rev:BS, trace:FILE.
    #[arg(long, default_value = "fwd", value_parser = pattern)]
    pub pattern: Pattern,

    /// CONFIG_TRANSPARENT_HUGEPAGE: on or off.
    #[arg(long, default_value = "on", value_parser = parse::parse_on_off)]
    pub thp: bool,

    /// Memory cgroup limit on the page cache, e.g. 2G.
    #[arg(long, value_parser = size)]
    pub memory_limit: Option<u64>,

    /// Map the file executable (VM_EXEC).
    #[arg(long)]
    pub exec: bool,

    /// File system: disk (ext4 on the virtio disk) or tmpfs.
    #[arg(long, default_value = "disk", value_parser = parse::parse_fs, action = clap::ArgAction::Set, value_name = "disk|tmpfs")]
    pub fs: parse::FileSystem,

    /// tmpfs huge= mount option: on (always) or off (never). Default off.
    #[arg(long, value_parser = parse::parse_on_off, value_name = "on|off")]
    pub tmpfs_huge: Option<bool>,

    /// How the tmpfs file was made: written, fallocated or sparse. Default written.
    #[arg(long, value_parser = parse::parse_tmpfs_file)]
    pub tmpfs_file: Option<TmpfsFile>,

    /// Mark this page hardware-poisoned before the reads (tmpfs only).
    #[arg(long, value_name = "PAGE")]
    pub hwpoison: Option<u64>,
}

fn size(s: &str) -> Result<u64, String> {
    parse::parse_size(s)
}

fn madvise(s: &str) -> Result<Madvise, String> {
    parse::parse_madvise(s)
}

/// Reads a trace file here, at the edge, so the parser stays pure.
fn pattern(s: &str) -> Result<Pattern, String> {
    if let Some(path) = s.strip_prefix("trace:") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read trace file '{path}': {e}"))?;
        return parse::parse_pattern(s, Some(&text));
    }
    parse::parse_pattern(s, None)
}

/// The option that sets a core config field, for error messages.
pub fn flag_of(field: &str) -> String {
    match field {
        "kernel" => "--kernel".into(),
        f => format!("--{}", f.replace('_', "-")),
    }
}

impl ScenarioArgs {
    pub fn scenario(&self) -> Result<Scenario, String> {
        let mut kernel = folioscope_scenario::link::parse_kernel_label(&self.kernel)
            .map_err(|e| format!("--kernel: {e}"))?;
        // Toggles given with --patch act on top of the label's.
        let toggles = self
            .patches
            .iter()
            .map(|t| parse::parse_toggle(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("--patch: {e}"))?;
        kernel = parse::with_toggles(&kernel, &toggles);
        let backing = if self.fs == parse::FileSystem::Tmpfs {
            Backing::Tmpfs {
                huge: self.tmpfs_huge.unwrap_or(false),
                file: self.tmpfs_file.unwrap_or(TmpfsFile::Written),
            }
        } else {
            if self.tmpfs_huge.is_some() {
                return Err("--tmpfs-huge: only for --fs tmpfs".into());
            }
            if self.tmpfs_file.is_some() {
                return Err("--tmpfs-file: only for --fs tmpfs".into());
            }
            Backing::Disk
        };
        Ok(Scenario {
            backing,
            hwpoison: self.hwpoison,
            kernel,
            file_size: self.file_size,
            page_size: self.page_size,
            read_ahead_kb: self.read_ahead_kb,
            fault_around_bytes: self.fault_around_bytes,
            madvise: self.madvise,
            thp: self.thp,
            memory_limit: self.memory_limit,
            exec: self.exec,
            pattern: self.pattern.clone(),
        })
    }
}
