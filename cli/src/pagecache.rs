//! The page cache of one file as the running kernel holds it: a mapping
//! to ask `mincore()` which pages are resident, the cold start
//! (`POSIX_FADV_DONTNEED`, checked with `mincore()`), and the folio layout
//! read from /proc/self/pagemap and /proc/kpageflags. `folioscope probe`
//! and `folioscope record` both measure with these. Linux only.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};

/// KPF_COMPOUND_HEAD and KPF_COMPOUND_TAIL of /proc/kpageflags.
const KPF_COMPOUND_HEAD: u64 = 1 << 15;
const KPF_COMPOUND_TAIL: u64 = 1 << 16;

pub fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// A read-only mapping of the whole file.
pub struct Map {
    pub addr: *mut u8,
    len: usize,
}

impl Map {
    pub fn new(file: &File, len: u64, exec: bool) -> Result<Self> {
        let prot = libc::PROT_READ | if exec { libc::PROT_EXEC } else { 0 };
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len as usize,
                prot,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            bail!("mmap failed: {}", std::io::Error::last_os_error());
        }
        Ok(Map {
            addr: addr as *mut u8,
            len: len as usize,
        })
    }

    pub fn madvise(&self, advice: libc::c_int) -> Result<()> {
        let r = unsafe { libc::madvise(self.addr as *mut libc::c_void, self.len, advice) };
        if r != 0 {
            bail!("madvise failed: {}", std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// One byte per page: bit 0 set where the page is resident.
    pub fn mincore(&self, page: usize) -> Result<Vec<u8>> {
        let mut vec = vec![0u8; self.len.div_ceil(page)];
        let r = unsafe {
            libc::mincore(
                self.addr as *mut libc::c_void,
                self.len,
                vec.as_mut_ptr() as *mut libc::c_uchar,
            )
        };
        if r != 0 {
            bail!("mincore failed: {}", std::io::Error::last_os_error());
        }
        Ok(vec)
    }

    pub fn touch(&self, offset: usize) -> u8 {
        // A volatile load: exactly one read of one byte of that page.
        unsafe { std::ptr::read_volatile(self.addr.add(offset)) }
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        unsafe {
            libc::munmap(self.addr as *mut libc::c_void, self.len);
        }
    }
}

pub fn fadvise(file: &File, advice: libc::c_int) -> Result<()> {
    let r = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, advice) };
    if r != 0 {
        bail!(
            "posix_fadvise failed: {}",
            std::io::Error::from_raw_os_error(r)
        );
    }
    Ok(())
}

pub fn make_cold(path: &Path, len: u64, page: usize) -> Result<()> {
    let f = File::open(path)?;
    f.sync_all().ok();
    let map = Map::new(&f, len, false)?;
    for _ in 0..50 {
        fadvise(&f, libc::POSIX_FADV_DONTNEED)?;
        let resident = map.mincore(page)?.iter().filter(|&&b| b & 1 != 0).count();
        if resident == 0 {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    bail!(
        "the page cache of {} would not empty (is it in use?)",
        path.display()
    )
}

/// Runs of resident pages from a mincore vector.
pub fn runs(map: &[u8]) -> Vec<[u64; 2]> {
    let mut out: Vec<[u64; 2]> = Vec::new();
    for (i, &b) in map.iter().enumerate() {
        if b & 1 == 0 {
            continue;
        }
        let i = i as u64;
        match out.last_mut() {
            Some(r) if r[0] + r[1] == i => r[1] += 1,
            _ => out.push([i, 1]),
        }
    }
    out
}

/// Adds the folio of order `order` at page `index` to `runs` of
/// equal-order folios `[start, order, count]`, after the last one.
pub fn push_folio(runs: &mut Vec<[u64; 3]>, index: u64, order: u64) {
    match runs.last_mut() {
        Some(r) if r[1] == order && r[0] + (r[2] << r[1]) == index => r[2] += 1,
        _ => runs.push([index, order, 1]),
    }
}

/// The folio layout of a page cache given as folio index to order (what
/// the kernel's add and delete events leave), as runs `[start, order,
/// count]`: the shape [`folio_layout`] reads from the kernel.
pub fn folio_runs(cache: &BTreeMap<u64, u8>) -> Vec<[u64; 3]> {
    let mut out = Vec::new();
    for (&index, &order) in cache {
        push_folio(&mut out, index, order as u64);
    }
    out
}

/// Folio orders of the resident pages, as runs `[start, order, count]`.
pub fn folio_layout(file: &File, len: u64, page: usize, resident: &[u8]) -> Result<Vec<[u64; 3]>> {
    // A second mapping with MADV_RANDOM: touching resident pages here maps
    // them without starting any readahead.
    let map = Map::new(file, len, false)?;
    map.madvise(libc::MADV_RANDOM)?;
    let mut sink = 0u8;
    for (i, &b) in resident.iter().enumerate() {
        if b & 1 != 0 {
            sink ^= map.touch(i * page);
        }
    }
    std::hint::black_box(sink);
    let pagemap = File::open("/proc/self/pagemap").context("opening /proc/self/pagemap")?;
    let kpageflags =
        File::open("/proc/kpageflags").context("opening /proc/kpageflags (needs root)")?;
    let n = resident.len();
    let mut pm = vec![0u8; n * 8];
    pagemap
        .read_exact_at(&mut pm, (map.addr as usize / page * 8) as u64)
        .context("reading /proc/self/pagemap")?;
    let entry = |i: usize| u64::from_le_bytes(pm[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
    let mut flags = vec![0u64; n];
    // kpageflags in runs of consecutive PFNs.
    let mut i = 0;
    while i < n {
        let e = entry(i);
        if resident[i] & 1 == 0 || e & (1 << 63) == 0 {
            i += 1;
            continue;
        }
        let pfn = e & ((1 << 55) - 1);
        if pfn == 0 {
            bail!("/proc/self/pagemap hides PFNs (needs CAP_SYS_ADMIN)");
        }
        let mut j = i + 1;
        while j < n && resident[j] & 1 != 0 && entry(j) & ((1 << 55) - 1) == pfn + (j - i) as u64 {
            j += 1;
        }
        let mut kb = vec![0u8; (j - i) * 8];
        kpageflags
            .read_exact_at(&mut kb, pfn * 8)
            .context("reading /proc/kpageflags")?;
        for k in 0..(j - i) {
            flags[i + k] = u64::from_le_bytes(kb[k * 8..k * 8 + 8].try_into().expect("8 bytes"));
        }
        i = j;
    }
    drop(map);
    // Walk the pages: a compound head starts a folio, tails extend it.
    let mut out: Vec<[u64; 3]> = Vec::new();
    let mut i = 0;
    while i < n {
        if resident[i] & 1 == 0 {
            i += 1;
            continue;
        }
        let mut size = 1;
        if flags[i] & KPF_COMPOUND_HEAD != 0 {
            while i + size < n && flags[i + size] & KPF_COMPOUND_TAIL != 0 {
                size += 1;
            }
        }
        if !size.is_power_of_two() || i % size != 0 {
            bail!("page {i} heads a folio of {size} pages, which is not a natural folio");
        }
        push_folio(&mut out, i as u64, size.trailing_zeros() as u64);
        i += size;
    }
    Ok(out)
}
