//! A scenario as a user states it: typed parameters with the machine's
//! defaults, turned into a validated core [`Config`].

use folioscope_core::{Backing, Config, ConfigParts, Kernel, Madvise, PageSize, Pattern};

/// The parameters of a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    pub kernel: Kernel,
    pub file_size: u64,
    pub page_size: u64,
    pub read_ahead_kb: u64,
    pub fault_around_bytes: u64,
    pub madvise: Madvise,
    pub thp: bool,
    pub memory_limit: Option<u64>,
    pub exec: bool,
    pub pattern: Pattern,
    /// The file system: a disk file, or a tmpfs file made before the reads.
    pub backing: Backing,
    /// A page marked hardware-poisoned (tmpfs only).
    pub hwpoison: Option<u64>,
}

impl Default for Scenario {
    /// The machines of this project: Linux 6.18, 4 KiB pages,
    /// read_ahead_kb 8192, fault_around_bytes 64 KiB, THP, a 2 GiB file.
    fn default() -> Self {
        Scenario {
            kernel: Kernel::v6_18(),
            file_size: 2 << 30,
            page_size: 4096,
            read_ahead_kb: 8192,
            fault_around_bytes: 65536,
            madvise: Madvise::Normal,
            thp: true,
            memory_limit: None,
            exec: false,
            pattern: Pattern::Fwd,
            backing: Backing::Disk,
            hwpoison: None,
        }
    }
}

/// A rejected parameter: the field's name and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: &'static str,
    pub message: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl Scenario {
    /// Validates the scenario into a model configuration.
    pub fn config(&self) -> Result<Config, FieldError> {
        let page_size = PageSize::new(self.page_size).map_err(|e| FieldError {
            field: e.field,
            message: e.message,
        })?;
        Config::new(ConfigParts {
            kernel: self.kernel.clone(),
            file_size: self.file_size,
            page_size,
            read_ahead_kb: self.read_ahead_kb,
            fault_around_bytes: self.fault_around_bytes,
            madvise: self.madvise,
            thp: self.thp,
            memory_limit: self.memory_limit,
            exec: self.exec,
            pattern: self.pattern.clone(),
            backing: self.backing,
            hwpoison: self.hwpoison,
        })
        .map_err(|e| FieldError {
            field: e.field,
            message: e.message,
        })
    }
}
