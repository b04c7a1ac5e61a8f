//! Access patterns: the sequence of accesses a scenario makes, one step each.
//!
//! A touch reads one byte of one page through the mapping; a read is one
//! `read()` or `pread()` call. Every pattern answers "what is access number
//! k" in O(1) (a trace by indexing), so the simulation can jump anywhere.
//!
//! `random:PCT:SEED` draws `ceil(pages × PCT / 100)` pages independently and
//! uniformly, with replacement. Draw k uses SplitMix64 (Steele, Lea and
//! Flood, 2014) as a counter-based generator: `z = SEED + (k + 1) ×
//! 0x9E3779B97F4A7C15`, mixed by SplitMix64's finaliser, then mapped to
//! `[0, pages)` by Lemire's multiply-shift `(z × pages) >> 64`. The same
//! seed gives the same pages on every platform.

use crate::config::ConfigError;

/// One access.
///
/// `Touch` and `Read` are the synthetic patterns' accesses: they go through
/// the one mapping and the one open file that a synthetic scenario starts
/// with. The others are what a recorded program asked of the file, in the
/// kernel's own terms: each open file description (`ofd`) has its own
/// `file_ra_state`, and each process (`mm`) its own mappings, placed at
/// the virtual page (`vpn`) where the program's `mmap` put them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read one byte of page `page` through the mapping.
    Touch { page: u64 },
    /// `pread(fd, buf, len, offset)`; sequential `read()` is the same call
    /// at the running file position.
    Read { offset: u64, len: u64 },
    /// `open(2)` of the file: a new open file description with a fresh
    /// `file_ra_state` (`file_ra_state_init`).
    Open { ofd: u32 },
    /// `read`, `pread64`, `readv`, `preadv` or `preadv2` of `len` bytes at
    /// `offset` through `ofd`: `filemap_read`.
    ReadAt { ofd: u32, offset: u64, len: u64 },
    /// `sendfile`, `splice` or `copy_file_range` reading `len` bytes at
    /// `offset` from `ofd` into a pipe: `splice_direct_to_actor` and
    /// `filemap_splice_read`.
    SpliceRead { ofd: u32, offset: u64, len: u64 },
    /// `posix_fadvise(fd, offset, len, advice)`; `readahead(2)` is
    /// POSIX_FADV_WILLNEED. A `len` of 0 means "to the end of the file".
    Fadvise {
        ofd: u32,
        offset: u64,
        len: u64,
        advice: Fadvice,
    },
    /// `mmap` of `pages` pages of the file from page `pgoff`, opened as
    /// `ofd`, at virtual page `vpn` of process `mm`; `exec` for PROT_EXEC
    /// (VM_EXEC).
    Mmap {
        mm: u32,
        vpn: u64,
        pages: u64,
        ofd: u32,
        pgoff: u64,
        exec: bool,
    },
    /// `munmap` of `pages` pages from virtual page `vpn` of process `mm`
    /// (also what `exit` and `exec` do to every mapping).
    Munmap { mm: u32, vpn: u64, pages: u64 },
    /// `madvise` of `pages` pages from virtual page `vpn` of process `mm`.
    Madvise {
        mm: u32,
        vpn: u64,
        pages: u64,
        advice: Madvice,
    },
    /// A user page fault at virtual page `vpn` of process `mm`
    /// (`exceptions:page_fault_user`), a write fault when `write`.
    Fault { mm: u32, vpn: u64, write: bool },
}

impl Access {
    /// Whether this is a program-level access (anything but the synthetic
    /// patterns' `Touch` and `Read`).
    pub fn is_program(&self) -> bool {
        !matches!(self, Access::Touch { .. } | Access::Read { .. })
    }
}

/// The `posix_fadvise` advice values the page cache acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fadvice {
    /// POSIX_FADV_NORMAL (0): `ra_pages` back to the device's, FMODE_RANDOM off.
    Normal,
    /// POSIX_FADV_RANDOM (1): FMODE_RANDOM.
    Random,
    /// POSIX_FADV_SEQUENTIAL (2): twice the device's `ra_pages`.
    Sequential,
    /// POSIX_FADV_WILLNEED (3): `force_page_cache_ra` over the range.
    WillNeed,
    /// POSIX_FADV_DONTNEED (4): clean, unmapped folios inside the range leave.
    DontNeed,
    /// POSIX_FADV_NOREUSE (5): FMODE_NOREUSE, which only the LRU reads.
    NoReuse,
}

impl Fadvice {
    /// The advice from its `posix_fadvise` number.
    pub fn from_number(n: u64) -> Option<Fadvice> {
        Some(match n {
            0 => Fadvice::Normal,
            1 => Fadvice::Random,
            2 => Fadvice::Sequential,
            3 => Fadvice::WillNeed,
            4 => Fadvice::DontNeed,
            5 => Fadvice::NoReuse,
            _ => return None,
        })
    }

    pub fn number(self) -> u64 {
        self as u64
    }
}

/// The `madvise` advice values that change how a file mapping is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Madvice {
    /// MADV_NORMAL (0): clears VM_SEQ_READ and VM_RAND_READ.
    Normal,
    /// MADV_RANDOM (1): VM_RAND_READ.
    Random,
    /// MADV_SEQUENTIAL (2): VM_SEQ_READ.
    Sequential,
    /// MADV_WILLNEED (3): POSIX_FADV_WILLNEED over the mapped file range.
    WillNeed,
    /// MADV_DONTNEED (4): the range's page table entries are zapped.
    DontNeed,
    /// MADV_HUGEPAGE (14): VM_HUGEPAGE.
    Hugepage,
    /// MADV_NOHUGEPAGE (15): VM_NOHUGEPAGE, clears VM_HUGEPAGE.
    NoHugepage,
}

impl Madvice {
    /// The advice from its `madvise` number; None for advice that leaves
    /// a file mapping's page cache alone.
    pub fn from_number(n: u64) -> Option<Madvice> {
        Some(match n {
            0 => Madvice::Normal,
            1 => Madvice::Random,
            2 => Madvice::Sequential,
            3 => Madvice::WillNeed,
            4 => Madvice::DontNeed,
            14 => Madvice::Hugepage,
            15 => Madvice::NoHugepage,
            _ => return None,
        })
    }

    pub fn number(self) -> u64 {
        match self {
            Madvice::Normal => 0,
            Madvice::Random => 1,
            Madvice::Sequential => 2,
            Madvice::WillNeed => 3,
            Madvice::DontNeed => 4,
            Madvice::Hugepage => 14,
            Madvice::NoHugepage => 15,
        }
    }
}

/// A pattern of accesses over a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Every page, first to last.
    Fwd,
    /// Every page, last to first.
    Rev,
    /// Pages 0, N, 2N, ...
    Stride(u64),
    /// The pages of `Stride(N)`, last to first.
    RStride(u64),
    /// Pages 0, N, 2N, ... for PCT per cent of the file's pages (in
    /// thousandths of a per cent), so the walk spans N × PCT% of the file.
    StridePct { n: u64, milli_pct: u64 },
    /// PCT per cent of the pages, at random; the percentage is held in
    /// thousandths of a per cent so that the pattern stays exact.
    Random { milli_pct: u64, seed: u64 },
    /// Sequential `read()` of BS bytes until EOF.
    Read { bs: u64 },
    /// `pread()` of BS-byte chunks from the last chunk to the first.
    PreadRev { bs: u64 },
    /// An explicit list of accesses.
    Trace(Vec<Access>),
}

impl Pattern {
    /// Checks the pattern against the file; names the field on error.
    pub fn validate(&self, file_size: u64, page: u64) -> Result<(), ConfigError> {
        let pages = pages_of(file_size, page);
        match self {
            Pattern::Stride(0) | Pattern::RStride(0) | Pattern::StridePct { n: 0, .. } => {
                Err(ConfigError::new("pattern", "stride must be at least 1"))
            }
            Pattern::StridePct { milli_pct, .. } if *milli_pct == 0 || *milli_pct > 100_000 => Err(
                ConfigError::new("pattern", "stride percentage must be in (0, 100]"),
            ),
            Pattern::Random { milli_pct, .. } if *milli_pct == 0 || *milli_pct > 100_000 => Err(
                ConfigError::new("pattern", "random percentage must be in (0, 100]"),
            ),
            Pattern::Read { bs: 0 } | Pattern::PreadRev { bs: 0 } => {
                Err(ConfigError::new("pattern", "block size must be at least 1"))
            }
            Pattern::Read { bs } | Pattern::PreadRev { bs } if *bs > 1 << 30 => Err(
                ConfigError::new("pattern", "block size must be at most 1 GiB"),
            ),
            Pattern::Trace(list) => {
                if list.is_empty() {
                    return Err(ConfigError::new("pattern", "the trace has no accesses"));
                }
                if list.iter().any(Access::is_program) {
                    return validate_program(list);
                }
                for (i, a) in list.iter().enumerate() {
                    match *a {
                        Access::Touch { page: p } if p >= pages => {
                            return Err(ConfigError::new(
                                "pattern",
                                format!(
                                    "trace access {}: page {p} is past the last page {}",
                                    i + 1,
                                    pages - 1
                                ),
                            ))
                        }
                        Access::Read { len: 0, .. } => {
                            return Err(ConfigError::new(
                                "pattern",
                                format!("trace access {}: a read of 0 bytes", i + 1),
                            ))
                        }
                        Access::Read { len, .. } if len > 1 << 30 => {
                            return Err(ConfigError::new(
                                "pattern",
                                format!("trace access {}: a read over 1 GiB", i + 1),
                            ))
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// How many accesses the pattern makes over a file of `pages` pages.
    pub fn len(&self, file_size: u64, page: u64) -> u64 {
        let pages = pages_of(file_size, page);
        match self {
            Pattern::Fwd | Pattern::Rev => pages,
            Pattern::Stride(n) | Pattern::RStride(n) => pages.div_ceil(*n),
            Pattern::StridePct { n, milli_pct } => {
                let want = ((pages as u128 * *milli_pct as u128).div_ceil(100_000)) as u64;
                want.min(pages.div_ceil(*n))
            }
            Pattern::Random { milli_pct, .. } => {
                ((pages as u128 * *milli_pct as u128).div_ceil(100_000)) as u64
            }
            Pattern::Read { bs } | Pattern::PreadRev { bs } => file_size.div_ceil(*bs),
            Pattern::Trace(list) => list.len() as u64,
        }
    }

    pub fn is_empty(&self, file_size: u64, page: u64) -> bool {
        self.len(file_size, page) == 0
    }

    /// Access number `k` (0-based); `k` must be below [`Pattern::len`].
    pub fn access(&self, k: u64, file_size: u64, page: u64) -> Access {
        let pages = || pages_of(file_size, page);
        match self {
            Pattern::Fwd => Access::Touch { page: k },
            Pattern::Rev => Access::Touch {
                page: pages() - 1 - k,
            },
            Pattern::Stride(n) | Pattern::StridePct { n, .. } => Access::Touch { page: k * n },
            Pattern::RStride(n) => {
                let count = pages().div_ceil(*n);
                Access::Touch {
                    page: (count - 1 - k) * n,
                }
            }
            Pattern::Random { seed, .. } => Access::Touch {
                page: random_page(*seed, k, pages()),
            },
            Pattern::Read { bs } => {
                let offset = k * bs;
                Access::Read {
                    offset,
                    len: (*bs).min(file_size - offset),
                }
            }
            Pattern::PreadRev { bs } => {
                let count = file_size.div_ceil(*bs);
                let offset = (count - 1 - k) * bs;
                Access::Read {
                    offset,
                    len: (*bs).min(file_size - offset),
                }
            }
            Pattern::Trace(list) => list[k as usize],
        }
    }

    /// Whether the accesses are a recorded program's (opens, mappings and
    /// their faults) rather than a synthetic pattern's touches and reads.
    pub fn is_program(&self) -> bool {
        match self {
            Pattern::Trace(list) => list.iter().any(Access::is_program),
            _ => false,
        }
    }

    /// Whether the pattern reads with `read()` rather than touching a mapping.
    pub fn uses_read(&self) -> bool {
        match self {
            Pattern::Read { .. } | Pattern::PreadRev { .. } => true,
            Pattern::Trace(list) => list.iter().all(|a| matches!(a, Access::Read { .. })),
            _ => false,
        }
    }
}

/// MAX_RW_COUNT: the most one read-family call moves; a larger count is
/// cut down to it (`vfs_read`, `vfs_copy_file_range`).
pub const MAX_RW_COUNT: u64 = 0x7fff_f000;

/// Checks a recorded program's accesses: open file descriptions are
/// numbered in the order they are opened and used only once open, and
/// every fault lands in a mapping of its process.
fn validate_program(list: &[Access]) -> Result<(), ConfigError> {
    use std::collections::BTreeMap;
    let bad = |i: usize, what: String| {
        Err(ConfigError::new(
            "pattern",
            format!("trace access {}: {what}", i + 1),
        ))
    };
    let mut files = 0u32;
    // (process, first virtual page) → end of each live mapping.
    let mut maps: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    let unmap = |maps: &mut BTreeMap<(u32, u64), u64>, mm: u32, vpn: u64, end: u64| {
        let hit: Vec<(u64, u64)> = maps
            .range((mm, 0)..(mm, end))
            .filter(|(_, &e)| e > vpn)
            .map(|(&(_, s), &e)| (s, e))
            .collect();
        for (s, e) in hit {
            maps.remove(&(mm, s));
            if s < vpn {
                maps.insert((mm, s), vpn);
            }
            if e > end {
                maps.insert((mm, end), e);
            }
        }
    };
    for (i, a) in list.iter().enumerate() {
        let ofd_used = match *a {
            Access::ReadAt { ofd, .. }
            | Access::SpliceRead { ofd, .. }
            | Access::Fadvise { ofd, .. }
            | Access::Mmap { ofd, .. } => Some(ofd),
            _ => None,
        };
        if let Some(ofd) = ofd_used {
            if ofd >= files {
                return bad(i, format!("open file {ofd} was not opened before"));
            }
        }
        match *a {
            Access::Touch { .. } | Access::Read { .. } => {
                return bad(
                    i,
                    "a synthetic touch or read among a program's accesses".into(),
                )
            }
            Access::Open { ofd } if ofd != files => {
                return bad(
                    i,
                    format!("open file {ofd} opened out of order (next is {files})"),
                )
            }
            Access::Open { .. } => files += 1,
            Access::ReadAt { len: 0, .. } | Access::SpliceRead { len: 0, .. } => {
                return bad(i, "a read of 0 bytes".into())
            }
            Access::Mmap { pages: 0, .. }
            | Access::Munmap { pages: 0, .. }
            | Access::Madvise { pages: 0, .. } => return bad(i, "a range of 0 pages".into()),
            Access::Mmap { vpn, pages, .. }
            | Access::Munmap { vpn, pages, .. }
            | Access::Madvise { vpn, pages, .. }
                if vpn.checked_add(pages).is_none_or(|e| e > 1 << 52) =>
            {
                return bad(i, "a range past the end of the address space".into())
            }
            Access::Mmap { mm, vpn, pages, .. } => {
                unmap(&mut maps, mm, vpn, vpn + pages);
                maps.insert((mm, vpn), vpn + pages);
            }
            Access::Munmap { mm, vpn, pages } => unmap(&mut maps, mm, vpn, vpn + pages),
            Access::Fault { mm, vpn, .. } => {
                let inside = maps
                    .range((mm, 0)..=(mm, vpn))
                    .next_back()
                    .is_some_and(|(_, &e)| e > vpn);
                if !inside {
                    return bad(
                        i,
                        format!(
                            "a fault at 0x{:x} of process {mm} outside its mappings of the file",
                            vpn << 12
                        ),
                    );
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// SplitMix64's output function.
pub fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The pages of a file of `file_size` bytes, the last one partial. A page
/// is a power of two, so this is a shift: the division it was took 4% of
/// the default view's build (perf, native), as it runs once an access.
fn pages_of(file_size: u64, page: u64) -> u64 {
    if !page.is_power_of_two() {
        return file_size.div_ceil(page);
    }
    let shift = page.trailing_zeros();
    (file_size >> shift) + u64::from(file_size & (page - 1) != 0)
}

/// Draw `k` of the random pattern: a page in `[0, pages)`.
pub fn random_page(seed: u64, k: u64, pages: u64) -> u64 {
    let z = splitmix64(seed.wrapping_add((k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    ((z as u128 * pages as u128) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn pages_are_the_size_rounded_up_to_whole_pages() {
        for page in [4096u64, 16384, 65536, 3, 1000] {
            for size in [
                0,
                1,
                page - 1,
                page,
                page + 1,
                10 * page + 5,
                (64 << 30) + 1,
            ] {
                assert_eq!(pages_of(size, page), size.div_ceil(page), "{size} / {page}");
            }
        }
    }

    #[test]
    fn lengths_and_ends() {
        let size = 10 * 4096 + 5;
        assert_eq!(Pattern::Fwd.len(size, 4096), 11);
        assert_eq!(
            Pattern::Rev.access(0, size, 4096),
            Access::Touch { page: 10 }
        );
        assert_eq!(Pattern::Stride(4).len(size, 4096), 3);
        assert_eq!(
            Pattern::RStride(4).access(0, size, 4096),
            Access::Touch { page: 8 }
        );
        assert_eq!(
            Pattern::Read { bs: 8192 }.access(5, size, 4096),
            Access::Read {
                offset: 40960,
                len: 5
            }
        );
        assert_eq!(
            Pattern::PreadRev { bs: 8192 }.access(0, size, 4096),
            Access::Read {
                offset: 40960,
                len: 5
            }
        );
        let r = Pattern::Random {
            milli_pct: 1000,
            seed: 7,
        };
        assert_eq!(r.len(100 * 4096, 4096), 1);
        assert_eq!(r.len(1000 * 4096, 4096), 10);
    }

    #[test]
    fn random_is_fixed_by_its_seed() {
        // Pinned values: the generator is documented and must not drift.
        let pages = 1 << 22;
        let got: Vec<u64> = (0..4).map(|k| random_page(42, k, pages)).collect();
        let again: Vec<u64> = (0..4).map(|k| random_page(42, k, pages)).collect();
        assert_eq!(got, again);
        assert_eq!(splitmix64(0x9E37_79B9_7F4A_7C15), 0xE220_A839_7B1D_CDAF);
        assert!(got.iter().all(|&p| p < pages));
        assert_ne!(random_page(43, 0, pages), got[0]);
    }

    #[test]
    fn bad_patterns_name_the_field() {
        let e = Pattern::Stride(0).validate(4096, 4096).unwrap_err();
        assert_eq!(e.field, "pattern");
        let e = Pattern::Random {
            milli_pct: 0,
            seed: 1,
        }
        .validate(4096, 4096)
        .unwrap_err();
        assert!(e.message.contains("(0, 100]"));
        let e = Pattern::Trace(vec![Access::Touch { page: 3 }])
            .validate(4096, 4096)
            .unwrap_err();
        assert!(e.message.contains("access 1"));
    }
}
