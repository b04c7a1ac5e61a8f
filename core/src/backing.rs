//! What the file lives on. A disk file fills its page cache by reading
//! (readahead, `read_folio`); a tmpfs file *is* its page cache, set up
//! before the scenario starts the way the seed-004 tests made their files:
//! written, fallocated, or left sparse.

/// How a tmpfs file was made before the reads start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmpfsFile {
    /// Written in full: every folio present and uptodate.
    Written,
    /// `fallocate()`d: folios present but not uptodate (SGP_FALLOC leaves
    /// them unzeroed), so a read sees zeroes without touching them.
    Fallocated,
    /// `truncate -s`: no folios at all, an empty xarray.
    Sparse,
}

impl TmpfsFile {
    pub const ALL: [TmpfsFile; 3] = [TmpfsFile::Written, TmpfsFile::Fallocated, TmpfsFile::Sparse];

    pub fn name(self) -> &'static str {
        match self {
            TmpfsFile::Written => "written",
            TmpfsFile::Fallocated => "fallocated",
            TmpfsFile::Sparse => "sparse",
        }
    }
}

/// The file system under the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backing {
    /// A block-device file system (ext4 on the virtio disk of these machines).
    Disk,
    /// tmpfs. `huge` is the mount's `huge=always` (else `huge=never`): with
    /// it every write or fallocate allocates PMD-sized folios.
    Tmpfs { huge: bool, file: TmpfsFile },
}

impl Backing {
    pub fn is_tmpfs(self) -> bool {
        matches!(self, Backing::Tmpfs { .. })
    }
}
