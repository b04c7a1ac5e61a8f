//! The probe proper. It measures one scenario on the running kernel:
//! 1. starts cold: `POSIX_FADV_DONTNEED`, checked with `mincore()`;
//! 2. maps the file and applies madvise (or opens it afresh and applies
//!    posix_fadvise for `read()` patterns);
//! 3. makes the accesses, between two readings of `getrusage()` and the
//!    `read_bytes` of /proc/self/io;
//! 4. waits for reads in flight to finish, then takes the residency map,
//!    trusting it only when bytes read equal the resident pages (this VM
//!    evicts idle page cache in the background, so it retries otherwise);
//! 5. maps the resident pages in a MADV_RANDOM inspection mapping (no
//!    readahead can start there) and reads folio orders from
//!    /proc/self/pagemap and /proc/kpageflags.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use folioscope_core::splitmix64;
use folioscope_core::{Access, Config, Madvise};
use folioscope_scenario::Report;

use super::sysfs::{device_reads, fault_around_path, queue_dir, Knob, MemCgroup};
use super::trace::SelfTrace;
pub use super::trace::Traced;
use crate::pagecache::{fadvise, folio_layout, kernel_release, make_cold, runs, Map};
use crate::CliError;

/// The kernel's default fault_around_bytes.
const DEFAULT_FAULT_AROUND_BYTES: u64 = 65536;

/// Measures the scenario; with `trace`, also records the file's
/// tracepoints while the accesses run (a run another task disturbed is
/// measured again).
pub fn probe(
    cfg: &Config,
    path: &Path,
    create: bool,
    trace: bool,
) -> Result<(Report, Option<Traced>), CliError> {
    check_supported(cfg)?;
    ensure_file(cfg, path, create)?;
    let queue = queue_dir(path).map_err(|e| CliError::Failed(format!("{e:#}")))?;
    // Knobs are restored when these guards drop, however the probe ends.
    let _ra = Knob::set(&queue.join("read_ahead_kb"), &cfg.read_ahead_kb.to_string())
        .map_err(|e| CliError::Failed(format!("--read-ahead-kb: {e:#}")))?;
    // debugfs may be locked down (these machines refuse even reads); the
    // kernel's default of 64 KiB is then the only value a probe can use.
    let _fa = match fault_around_path().and_then(|p| Knob::set(&p, &cfg.fault_around_bytes.to_string())) {
        Ok(k) => k,
        Err(_) if cfg.fault_around_bytes == DEFAULT_FAULT_AROUND_BYTES => None,
        Err(e) => {
            return Err(CliError::Usage(format!(
                "--fault-around-bytes: this machine's debugfs refuses changes ({e:#}); only the default 65536 can be probed"
            )))
        }
    };
    let _cg = match cfg.memory_limit {
        Some(l) => Some(MemCgroup::enter(l).map_err(|e| CliError::Failed(format!("{e:#}")))?),
        None => None,
    };
    let mut last_err = None;
    for _attempt in 0..3 {
        match measure(cfg, path, &queue, trace) {
            Ok((
                _,
                Some(Traced {
                    disturbed: Some(why),
                    ..
                }),
            )) => last_err = Some(anyhow!("the run was disturbed: {why}")),
            Ok(r) => return Ok(r),
            Err(e) => last_err = Some(e),
        }
    }
    Err(CliError::Failed(format!(
        "{:#}",
        last_err.unwrap_or_else(|| anyhow!("no attempt ran"))
    )))
}

fn check_supported(cfg: &Config) -> Result<(), CliError> {
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64;
    if cfg.page_size.bytes() != page {
        return Err(CliError::Usage(format!(
            "--page-size: this machine's pages are {page} bytes"
        )));
    }
    if cfg.kernel.variant != folioscope_core::Variant::V6_18
        || cfg.kernel.patches.iter().next().is_some()
    {
        return Err(CliError::Usage(format!(
            "--kernel: the probe measures this machine's own kernel ({}); leave --kernel at v6.18 with no patches",
            kernel_release()
        )));
    }
    if !cfg.thp {
        return Err(CliError::Usage(
            "--thp: this kernel is built with CONFIG_TRANSPARENT_HUGEPAGE; the probe cannot turn it off".into(),
        ));
    }
    if cfg.backing.is_tmpfs() {
        return Err(CliError::Usage(
            "--fs: the probe measures disk files; tmpfs reads are compared through `folioscope compare seed-004`".into(),
        ));
    }
    if cfg.pattern.is_program() {
        return Err(CliError::Usage(
            "--pattern: a recorded program is checked with `folioscope check --recording`".into(),
        ));
    }
    Ok(())
}

/// The test file must exist at the scenario's size; `--create` writes it.
fn ensure_file(cfg: &Config, path: &Path, create: bool) -> Result<(), CliError> {
    match std::fs::metadata(path) {
        Ok(m) if m.len() == cfg.file_size => Ok(()),
        Ok(m) => Err(CliError::Usage(format!(
            "--file-size: {} is {} bytes, not {}",
            path.display(),
            m.len(),
            cfg.file_size
        ))),
        Err(_) if create => write_random_file(path, cfg.file_size)
            .map_err(|e| CliError::Failed(format!("creating {}: {e:#}", path.display()))),
        Err(e) => Err(CliError::Usage(format!(
            "--file: cannot open {}: {e} (add --create to make it)",
            path.display()
        ))),
    }
}

fn write_random_file(path: &Path, size: u64) -> Result<()> {
    let mut f = OpenOptions::new().write(true).create_new(true).open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut written = 0u64;
    let mut k = 0u64;
    while written < size {
        for chunk in buf.chunks_mut(8) {
            k += 1;
            let v = splitmix64(k).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        let n = (size - written).min(buf.len() as u64) as usize;
        f.write_all(&buf[..n])?;
        written += n as u64;
    }
    f.sync_all()?;
    Ok(())
}

/// This thread's fault counts: the accesses run on it, while the threads
/// that drain a trace fault on their own.
fn rusage() -> (u64, u64) {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    (ru.ru_majflt as u64, ru.ru_minflt as u64)
}

/// `read_bytes` of /proc/self/io, read into a buffer allocated up front.
struct ProcIo {
    file: File,
    buf: Vec<u8>,
}

impl ProcIo {
    fn open() -> Result<Self> {
        Ok(ProcIo {
            file: File::open("/proc/self/io").context("opening /proc/self/io")?,
            buf: vec![0u8; 4096],
        })
    }

    fn read_bytes(&mut self) -> Result<u64> {
        let n = self.file.read_at(&mut self.buf, 0)?;
        let text = std::str::from_utf8(&self.buf[..n])?;
        text.lines()
            .find_map(|l| l.strip_prefix("read_bytes:"))
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| anyhow!("/proc/self/io has no read_bytes"))
    }
}

fn madvise_flag(m: Madvise) -> libc::c_int {
    match m {
        Madvise::Normal => libc::MADV_NORMAL,
        Madvise::Hugepage => libc::MADV_HUGEPAGE,
        Madvise::Sequential => libc::MADV_SEQUENTIAL,
        Madvise::Random => libc::MADV_RANDOM,
    }
}

fn fadvise_flag(m: Madvise) -> libc::c_int {
    match m {
        Madvise::Sequential => libc::POSIX_FADV_SEQUENTIAL,
        Madvise::Random => libc::POSIX_FADV_RANDOM,
        Madvise::Normal | Madvise::Hugepage => libc::POSIX_FADV_NORMAL,
    }
}

fn measure(
    cfg: &Config,
    path: &Path,
    queue: &Path,
    trace: bool,
) -> Result<(Report, Option<Traced>)> {
    let page = cfg.page_size.bytes() as usize;
    let len = cfg.file_size;
    make_cold(path, len, page)?;

    // A fresh open file: fresh file_ra_state.
    let file = File::open(path)?;
    let uses_read = cfg.pattern.uses_read();
    let map = Map::new(&file, len, cfg.exec)?;
    if uses_read {
        fadvise(&file, fadvise_flag(cfg.madvise))?;
    } else {
        map.madvise(madvise_flag(cfg.madvise))?;
    }
    let steps = cfg.pattern.len(len, page as u64);
    let max_read = (0..steps)
        .map(|k| match cfg.pattern.access(k, len, page as u64) {
            Access::Read { len, .. } => len as usize,
            _ => 0,
        })
        .max()
        .unwrap_or(0);
    // Everything the loop touches is allocated and faulted in beforehand.
    let mut buf = vec![1u8; max_read.max(1)];
    let mut io = ProcIo::open()?;
    let tracer = trace.then(|| SelfTrace::start(path)).transpose()?;
    let reads_before = device_reads(queue);
    let bytes_before = io.read_bytes()?;
    let (maj0, min0) = rusage();
    let started = Instant::now();
    let mut sink = 0u8;
    for k in 0..steps {
        match cfg.pattern.access(k, len, page as u64) {
            Access::Touch { page: p } => sink ^= map.touch(p as usize * page),
            Access::Read { offset, len } => {
                let n = file.read_at(&mut buf[..len as usize], offset)?;
                sink ^= buf[n.saturating_sub(1)];
            }
            // A recorded program's accesses are replayed by the program
            // itself under `folioscope record`, not by the probe.
            other => bail!("the probe makes a synthetic pattern's accesses, not {other:?}"),
        }
    }
    let access_us = started.elapsed().as_micros() as u64;
    let (maj1, min1) = rusage();
    let bytes_read = io.read_bytes()? - bytes_before;
    std::hint::black_box(sink);

    // Let reads in flight finish; mincore() does not show them yet.
    let expect = bytes_read / page as u64;
    let deadline = Instant::now() + Duration::from_secs(10);
    let (resident_map, resident_pages) = loop {
        let m = map.mincore(page)?;
        let n = m.iter().filter(|&&b| b & 1 != 0).count() as u64;
        if n == expect {
            break (m, n);
        }
        if n > expect || Instant::now() > deadline {
            bail!("residency did not settle: {n} pages resident, {expect} pages read (background eviction?)");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let reads_after = device_reads(queue);
    let traced = match tracer {
        Some(t) => Some(t.finish(cfg.page_size.shift())?),
        None => None,
    };
    let pmd_kb = file_pmd_mapped_kb(map.addr as usize)?;
    drop(map);

    let folios = folio_layout(&file, len, page, &resident_map)?;
    // The layout was read while the pages were mapped again; check that
    // nothing was evicted meanwhile.
    let resident: Vec<[u64; 2]> = runs(&resident_map);
    let folio_pages: u64 = folios.iter().map(|r| r[2] << r[1]).sum();
    if folio_pages != resident_pages {
        bail!("the folio layout covers {folio_pages} pages but {resident_pages} were resident");
    }
    // The layout must be what the kernel's own adds built: a large folio
    // split after the run (by the background reclaim these VMs run) shows
    // as smaller folios over the same pages, and disturbs the run.
    if let Some(t) = &traced {
        let built = t.folio_runs();
        if built != folios {
            bail!("disturbed: the folio layout is not what the kernel's adds built (a folio split after the run?)");
        }
    }
    let report = Report {
        source: "probe".into(),
        kernel: kernel_release(),
        file_size: len,
        page_size: page as u64,
        read_ahead_kb: cfg.read_ahead_kb,
        fault_around_bytes: cfg.fault_around_bytes,
        pattern: folioscope_scenario::parse::format_pattern(&cfg.pattern),
        madvise: cfg.madvise.name().into(),
        thp: cfg.thp,
        memory_limit: cfg.memory_limit,
        step: steps,
        steps,
        major_faults: maj1 - maj0,
        minor_faults: min1 - min0,
        bytes_read,
        read_ios: match (reads_before, reads_after) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        },
        resident_pages,
        resident,
        folios,
        file_pmd_mapped_kb: Some(pmd_kb),
        mmap_miss: None,
        xa_node_visits: None,
        xa_loads: None,
        ra: None,
        tmpfs: None,
        read_path: None,
        access_us: Some(access_us),
    };
    Ok((report, traced))
}

/// FilePmdMapped of the mapping that starts at `addr`, from /proc/self/smaps.
fn file_pmd_mapped_kb(addr: usize) -> Result<u64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").context("reading /proc/self/smaps")?;
    let want = format!("{addr:x}");
    let mut inside = false;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((start, end)) = first.split_once('-') {
            if !first.ends_with(':') && u64::from_str_radix(end, 16).is_ok() {
                inside = start == want;
                continue;
            }
        }
        if inside {
            if let Some(v) = line.strip_prefix("FilePmdMapped:") {
                return Ok(v.trim().trim_end_matches("kB").trim().parse().unwrap_or(0));
            }
        }
    }
    Ok(0)
}
