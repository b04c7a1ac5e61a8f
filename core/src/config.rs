//! The parameters of a scenario, validated once in [`Config::new`]. After
//! that the model cannot meet bad input: every field is in range, and the
//! derived [`Geometry`] holds the kernel constants that follow from them.

use crate::backing::{Backing, TmpfsFile};
use crate::kernel::Kernel;
use crate::pattern::Pattern;

/// The largest file the model accepts. 64 GiB of order-0 folios still fits
/// the memory budget of a browser tab.
pub const MAX_FILE_SIZE: u64 = 64 << 30;

/// A bad parameter, naming the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: &'static str,
    pub message: String,
}

impl ConfigError {
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        ConfigError {
            field,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// The base page size: 4 KiB (x86-64, arm64), 16 KiB or 64 KiB (arm64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PageSize(u64);

impl PageSize {
    pub fn new(bytes: u64) -> Result<Self, ConfigError> {
        if !bytes.is_power_of_two() {
            return Err(ConfigError::new(
                "page_size",
                format!("{bytes} is not a power of two"),
            ));
        }
        match bytes {
            4096 | 16384 | 65536 => Ok(PageSize(bytes)),
            b if b < 4096 => Err(ConfigError::new("page_size", format!("{b} is under 4 KiB"))),
            b => Err(ConfigError::new(
                "page_size",
                format!("{b} is not one of 4 KiB, 16 KiB, 64 KiB"),
            )),
        }
    }

    pub fn bytes(self) -> u64 {
        self.0
    }

    /// PAGE_SHIFT.
    pub fn shift(self) -> u32 {
        self.0.trailing_zeros()
    }

    /// PTRS_PER_PTE: one page of 8-byte entries.
    pub fn ptrs_per_pte(self) -> u64 {
        self.0 / 8
    }

    /// HPAGE_PMD_ORDER: one page table's worth of pages.
    pub fn pmd_order(self) -> u8 {
        (self.shift() - 3) as u8
    }
}

/// The madvise() advice on the mapping (or, for `read()`, the fadvise advice).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Madvise {
    Normal,
    /// MADV_HUGEPAGE: VM_HUGEPAGE.
    Hugepage,
    /// MADV_SEQUENTIAL: VM_SEQ_READ; for read(), POSIX_FADV_SEQUENTIAL.
    Sequential,
    /// MADV_RANDOM: VM_RAND_READ; for read(), POSIX_FADV_RANDOM.
    Random,
}

impl Madvise {
    pub const ALL: [Madvise; 4] = [
        Madvise::Normal,
        Madvise::Hugepage,
        Madvise::Sequential,
        Madvise::Random,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Madvise::Normal => "normal",
            Madvise::Hugepage => "hugepage",
            Madvise::Sequential => "sequential",
            Madvise::Random => "random",
        }
    }
}

/// The architecture, which the page size implies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    X86_64,
    Arm64,
}

/// Everything a scenario needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub kernel: Kernel,
    pub file_size: u64,
    pub page_size: PageSize,
    pub read_ahead_kb: u64,
    pub fault_around_bytes: u64,
    pub madvise: Madvise,
    /// CONFIG_TRANSPARENT_HUGEPAGE: with it off there is no VM_HUGEPAGE
    /// path, no PMD mapping, and the page cache's largest folio is order 8.
    pub thp: bool,
    /// A memory cgroup limit on the file's page cache, in bytes.
    pub memory_limit: Option<u64>,
    /// The mapping is executable (VM_EXEC), as for a program's text.
    pub exec: bool,
    pub pattern: Pattern,
    /// The file system the file lives on.
    pub backing: Backing,
    /// A page marked hardware-poisoned (PG_hwpoison) before the reads.
    pub hwpoison: Option<u64>,
    geometry: Geometry,
}

/// Kernel constants derived from a [`Config`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub arch: Arch,
    pub page_shift: u32,
    /// i_size in pages, rounded up.
    pub nr_pages: u64,
    /// `ra_pages` from read_ahead_kb.
    pub ra_pages: u64,
    /// `bdi->io_pages`, the device's largest request.
    pub io_pages: u64,
    /// `fault_around_pages` as the debugfs setter rounds it.
    pub fault_around_pages: u64,
    pub ptrs_per_pte: u64,
    /// HPAGE_PMD_ORDER.
    pub pmd_order: u8,
    /// MAX_PAGECACHE_ORDER.
    pub max_pagecache_order: u8,
    /// `mapping_max_folio_order()` of the file.
    pub mapping_max_order: u8,
    /// `mapping_min_folio_order()` of the file.
    pub mapping_min_order: u8,
    /// `exec_folio_order()` of the architecture.
    pub exec_folio_order: u8,
    /// `get_order(SZ_2M)`.
    pub order_2m: u8,
    pub memory_limit_pages: Option<u64>,
}

/// The largest I/O the virtio disk of these machines takes (max_sectors_kb).
pub const DEFAULT_IO_KB: u64 = 4096;

/// MAX_XAS_ORDER: an entry may not span more than one node's worth of slots
/// below the top level.
pub const MAX_XAS_ORDER: u8 = 11;

impl Config {
    /// The defaults of these machines (see [`Scenario::default`]) with
    /// `pattern` over a file of `file_size` bytes.
    pub fn defaults(pattern: Pattern, file_size: u64) -> Result<Self, ConfigError> {
        Config::new(Scenario {
            pattern,
            file_size,
            ..Scenario::default()
        })
    }

    /// Validates every field and derives the geometry.
    pub fn new(p: Scenario) -> Result<Self, ConfigError> {
        if p.file_size == 0 {
            return Err(ConfigError::new("file_size", "must be larger than 0"));
        }
        if p.file_size > MAX_FILE_SIZE {
            return Err(ConfigError::new(
                "file_size",
                format!(
                    "{} bytes is over the model's limit of {} GiB",
                    p.file_size,
                    MAX_FILE_SIZE >> 30
                ),
            ));
        }
        let ps = PageSize::new(p.page_size)?;
        let page = ps.bytes();
        if p.read_ahead_kb > 1 << 20 {
            return Err(ConfigError::new(
                "read_ahead_kb",
                format!("{} is over 1048576 (1 GiB)", p.read_ahead_kb),
            ));
        }
        if p.fault_around_bytes / page > ps.ptrs_per_pte() {
            return Err(ConfigError::new(
                "fault_around_bytes",
                format!(
                    "{} is more than one page table ({} bytes)",
                    p.fault_around_bytes,
                    ps.ptrs_per_pte() * page
                ),
            ));
        }
        if let Some(limit) = p.memory_limit {
            if limit < 16 * page {
                return Err(ConfigError::new(
                    "memory_limit",
                    format!("{limit} bytes is under 16 pages"),
                ));
            }
        }
        let nr_pages = p.file_size.div_ceil(page);
        p.pattern.validate(p.file_size, page)?;
        if let Some((a, b)) = p.kernel.patches.conflict() {
            return Err(ConfigError::new(
                "kernel",
                format!(
                    "{} and {} rewrite the same hunk; apply one",
                    a.name(),
                    b.name()
                ),
            ));
        }
        if let Backing::Tmpfs { huge, file } = p.backing {
            if p.pattern.is_program() {
                return Err(ConfigError::new(
                    "fs",
                    "a recorded program's accesses are replayed on disk files only",
                ));
            }
            if !p.pattern.uses_read() {
                return Err(ConfigError::new(
                    "pattern",
                    "a tmpfs file is read with read(); faults on shmem mappings are not modelled",
                ));
            }
            if p.memory_limit.is_some() {
                return Err(ConfigError::new(
                    "memory_limit",
                    "tmpfs pages are swap-backed; a memory cgroup limit on them is not modelled",
                ));
            }
            if huge && !p.thp {
                return Err(ConfigError::new(
                    "tmpfs_huge",
                    "huge=always needs CONFIG_TRANSPARENT_HUGEPAGE (thp on)",
                ));
            }
            if let Some(pg) = p.hwpoison {
                if file == TmpfsFile::Sparse {
                    return Err(ConfigError::new(
                        "hwpoison",
                        "a sparse file has no page to poison",
                    ));
                }
                if pg >= nr_pages {
                    return Err(ConfigError::new(
                        "hwpoison",
                        format!("page {pg} is past the file's last page {}", nr_pages - 1),
                    ));
                }
            }
        } else if p.hwpoison.is_some() {
            return Err(ConfigError::new(
                "hwpoison",
                "poisoned pages are modelled on tmpfs files only",
            ));
        }

        let arch = if page == 4096 {
            Arch::X86_64
        } else {
            Arch::Arm64
        };
        let pmd_order = ps.pmd_order();
        // PREFERRED_MAX_PAGECACHE_ORDER is the PMD order with THP, 8 without.
        let preferred = if p.thp { pmd_order } else { 8 };
        let max_pagecache_order = preferred.min(MAX_XAS_ORDER);
        let kb_per_page = page / 1024;
        // The debugfs setter: at least a page, rounded down to a power of two.
        let fa = p.fault_around_bytes.max(page);
        let fault_around_pages = (1u64 << (63 - fa.leading_zeros())) / page;
        let exec_folio_order = match arch {
            // arm64 asks for 64K folios so that contpte can map them.
            Arch::Arm64 if page < 65536 => (65536u64 / page).trailing_zeros() as u8,
            _ => 0,
        };
        let geometry = Geometry {
            arch,
            page_shift: ps.shift(),
            nr_pages,
            ra_pages: p.read_ahead_kb / kb_per_page,
            io_pages: (DEFAULT_IO_KB / kb_per_page).max(1),
            fault_around_pages,
            ptrs_per_pte: ps.ptrs_per_pte(),
            pmd_order,
            max_pagecache_order,
            mapping_max_order: max_pagecache_order,
            mapping_min_order: 0,
            exec_folio_order,
            order_2m: ((2u64 << 20) / page).trailing_zeros() as u8,
            memory_limit_pages: p.memory_limit.map(|l| l / page),
        };
        Ok(Config {
            kernel: p.kernel,
            file_size: p.file_size,
            page_size: ps,
            read_ahead_kb: p.read_ahead_kb,
            fault_around_bytes: p.fault_around_bytes,
            madvise: p.madvise,
            thp: p.thp,
            memory_limit: p.memory_limit,
            exec: p.exec,
            pattern: p.pattern,
            backing: p.backing,
            hwpoison: p.hwpoison,
            geometry,
        })
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The scenario again, to change a field and validate anew.
    pub fn scenario(&self) -> Scenario {
        Scenario {
            kernel: self.kernel.clone(),
            file_size: self.file_size,
            page_size: self.page_size.bytes(),
            read_ahead_kb: self.read_ahead_kb,
            fault_around_bytes: self.fault_around_bytes,
            madvise: self.madvise,
            thp: self.thp,
            memory_limit: self.memory_limit,
            exec: self.exec,
            pattern: self.pattern.clone(),
            backing: self.backing,
            hwpoison: self.hwpoison,
        }
    }
}

/// A scenario as a user states it: the unvalidated fields of a [`Config`],
/// which the CLI, links and the app's panel edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    pub kernel: Kernel,
    pub file_size: u64,
    /// In bytes; [`Config::new`] checks it is a [`PageSize`].
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
    /// read_ahead_kb 8192, fault_around_bytes 64 KiB, THP built in, no
    /// memory limit, a forward walk of a 2 GiB file on disk.
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

impl Scenario {
    /// Validates the scenario into a model configuration.
    pub fn config(&self) -> Result<Config, ConfigError> {
        Config::new(self.clone())
    }
}
