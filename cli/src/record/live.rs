//! The live recording, as root on Linux:
//! 1. checks: root, tracefs mounted, every event present, the files there;
//! 2. each file starts cold (fdatasync, POSIX_FADV_DONTNEED, checked with
//!    mincore);
//! 3. two tracefs instances of this process: "prog" records the program's
//!    syscalls, faults and task events and the files' page-cache events,
//!    following the program's pid and its children (`set_event_pid` and
//!    `event-fork`); "watch" records the files' page-cache adds and deletes
//!    by every task outside the program (`set_event_notrace_pid`), which
//!    is how background eviction shows;
//! 4. the program is forked first and waits on a pipe; its pid goes into
//!    both filters, tracing starts, and only then does it exec, so no
//!    event of it is missed;
//! 5. once it exits, tracing stops, the trace becomes the recording's
//!    items, and each file's end state is measured as `folioscope probe`
//!    measures it (after the reads in flight have landed);
//! 6. a run in which a folio of a named file left the cache (or another
//!    task touched it) is disturbed: it is recorded again from cold.
//!
//! Ctrl-C stops the program and removes the instances on the way out.

use std::ffi::CString;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use folioscope_scenario::recording::from_trace::{
    from_trace, trace_records, FromTrace, TraceRecord, TracedFile,
};
use folioscope_scenario::recording::{EndState, RecordedFile, Recording};

use super::machine::{file_facts, machine_facts};
use super::signals::Guard;
use super::tracefs::{self, Instance, FILE_EVENTS, OPTIONAL_EVENTS, PROGRAM_EVENTS, SYSCALLS};
use super::RecordArgs;
use crate::pagecache::{folio_layout, folio_runs, make_cold, runs, Map};
use crate::CliError;

pub fn record_live(args: &RecordArgs) -> Result<(Recording, FromTrace, u32), CliError> {
    if unsafe { libc::geteuid() } != 0 {
        return Err(CliError::Usage(
            "record needs root: it uses tracefs and /proc/kpageflags".into(),
        ));
    }
    let root = tracefs::root().map_err(CliError::Usage)?;
    tracefs::check_events(&root).map_err(CliError::Usage)?;
    let files: Vec<RecordedFile> = args
        .files
        .iter()
        .map(|p| file_facts(p))
        .collect::<Result<_, _>>()
        .map_err(CliError::Usage)?;
    let program = find_program(&args.command[0]).map_err(CliError::Usage)?;
    let machine = machine_facts();
    let page_shift = machine.page_size.trailing_zeros();
    let traced: Vec<TracedFile> = files
        .iter()
        .map(|f| TracedFile {
            inode: f.inode,
            size: f.size,
        })
        .collect();
    let signals = Guard::install();
    let mut attempt = 1;
    loop {
        let run = run_once(args, &root, &program, &files, &signals);
        if let Some(sig) = signals.stopped() {
            return Err(CliError::Failed(format!(
                "interrupted by signal {sig}: the program was stopped, the tracefs instances removed, nothing written"
            )));
        }
        let run = run.map_err(|e| CliError::Failed(format!("{e:#}")))?;
        let built = from_trace(&run.records, &traced, page_shift)
            .map_err(|e| CliError::Failed(format!("reading the trace: {e}")))?;
        let mut rec = Recording {
            machine: machine.clone(),
            command: args.command.clone(),
            files: files.clone(),
            items: built.items.clone(),
            end: Vec::new(),
        };
        // A folio that left the cache while the program ran or while its
        // end state was read disturbs the run; so does an end state that
        // is not what the kernel's events built.
        let mut disturbed = built.disturbed.first().cloned();
        // Another user of the machine may retune the device meanwhile.
        for f in &files {
            let now = file_facts(Path::new(&f.path)).map_err(CliError::Failed)?;
            if disturbed.is_none() && now.read_ahead_kb != f.read_ahead_kb {
                disturbed = Some(format!(
                    "read_ahead_kb of {}'s device went from {} to {} during the run",
                    f.path, f.read_ahead_kb, now.read_ahead_kb
                ));
            }
        }
        for (k, (f, end)) in files.iter().zip(run.end).enumerate() {
            let built = rec.real_cache_at(k as u32, usize::MAX);
            let expect: u64 = built.values().map(|o| 1u64 << o).sum();
            let resident: u64 = end.resident.iter().map(|r| r[1]).sum();
            let in_folios: u64 = end.folios.iter().map(|r| r[2] << r[1]).sum();
            if disturbed.is_none() && in_folios != resident {
                disturbed = Some(format!(
                    "{}: the folio layout covers {in_folios} pages but {resident} were resident",
                    f.path
                ));
            }
            if disturbed.is_none() && resident != expect {
                disturbed = Some(format!(
                    "{}: {resident} pages resident at the end, but the kernel's events leave {expect}",
                    f.path
                ));
            }
            // The same pages in other folios: a large folio split (or
            // folios merged) with no page leaving the cache, which the
            // background reclaim of these VMs does, as the probe checks
            // too. Seen once in CI (2026-12-06): python3 read() at
            // read_ahead_kb 128, every event identical to the model's,
            // and the layout from page 512, where the events had added
            // 16 order-4 folios, began with 32 order-0 pages.
            if disturbed.is_none() && end.folios != folio_runs(&built) {
                disturbed = Some(format!(
                    "{}: the folio layout at the end is not what the kernel's events built (a folio split off the program's path?)",
                    f.path
                ));
            }
            rec.end.push(Some(end));
        }
        if let Some(first) = disturbed {
            if attempt > args.retries {
                return Err(CliError::Failed(format!(
                    "every one of {attempt} runs was disturbed; the last: {first}"
                )));
            }
            eprintln!(
                "folioscope: run {attempt} was disturbed ({first}); recording again from cold"
            );
            attempt += 1;
            continue;
        }
        if let Some(path) = &args.keep_trace {
            std::fs::write(path, &run.text).map_err(|e| {
                CliError::Failed(format!("--keep-trace: writing {}: {e}", path.display()))
            })?;
        }
        if let Some(status) = run.status.filter(|&s| s != 0) {
            eprintln!("note: {} exited with status {status}", args.command[0]);
        }
        return Ok((rec, built, attempt));
    }
}

/// One run's trace and how the program ended.
struct Run {
    records: Vec<TraceRecord>,
    /// The program's trace as tracefs printed it.
    text: Vec<u8>,
    /// Each file's page cache once the program had exited.
    end: Vec<EndState>,
    /// The exit status, or None when a signal ended it.
    status: Option<i32>,
}

fn run_once(
    args: &RecordArgs,
    root: &Path,
    program: &CString,
    files: &[RecordedFile],
    signals: &Guard,
) -> Result<Run> {
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    for f in files {
        if f.size > 0 {
            make_cold(Path::new(&f.path), f.size, page)?;
        }
    }
    let me = std::process::id();
    let prog = Instance::create(root, &format!("folioscope-{me}-prog"))?;
    let watch = Instance::create(root, &format!("folioscope-{me}-watch"))?;
    let filter = inode_filter(files);
    // One clock for every CPU and both instances, so that the merged
    // stream is in the order the kernel logged it even when a task moves
    // between CPUs.
    for inst in [&prog, &watch] {
        if inst.has_clock("mono") {
            inst.write("trace_clock", "mono")?;
        }
    }
    prog.write("buffer_size_kb", &(args.buffer_mb * 1024).to_string())?;
    watch.write("buffer_size_kb", "4096")?;
    for e in PROGRAM_EVENTS {
        prog.enable(e)?;
    }
    for e in OPTIONAL_EVENTS {
        if prog.has(e) {
            prog.enable(e)?;
        }
    }
    for s in SYSCALLS {
        prog.enable(&format!("syscalls/sys_enter_{s}"))?;
        prog.enable(&format!("syscalls/sys_exit_{s}"))?;
    }
    for e in FILE_EVENTS {
        prog.filter(e, &filter)?;
    }
    tracefs::watch_files(&watch, &filter)?;

    let child = Child::fork(program, &args.command)?;
    // The pid filters are set before tracing starts and before the child
    // may exec; event-fork adds its children as they are forked.
    prog.write("options/event-fork", "1")?;
    prog.write("set_event_pid", &child.pid.to_string())?;
    watch.write("options/event-fork", "1")?;
    watch.write("set_event_notrace_pid", &format!("{} {}", child.pid, me))?;
    let prog_reader = prog.reader()?;
    let watch_reader = watch.reader()?;
    watch.write("tracing_on", "1")?;
    // Nothing of the files may have come back between the cold start and
    // the watch starting.
    for f in files {
        if f.size > 0 && resident_pages(Path::new(&f.path), f.size, page)? != 0 {
            bail!(
                "{} was read by another task right after the cold start",
                f.path
            );
        }
    }
    prog.write("tracing_on", "1")?;
    // A signal during the cold start stops here: the child, never
    // released, is killed as it drops.
    if signals.stopped().is_some() {
        bail!("interrupted");
    }
    let status = child.release_and_wait(signals)?;
    prog.write("tracing_on", "0")?;
    // The end state is read at once, while the watch still runs: an
    // eviction now would go unseen otherwise.
    let mut end = Vec::new();
    for f in files {
        end.push(end_state(Path::new(&f.path), f.size, page as u64)?);
    }
    watch.write("tracing_on", "0")?;
    let prog_text = prog_reader.finish()?;
    let watch_text = watch_reader.finish()?;
    let lost = prog.lost() + watch.lost();
    if lost > 0 && signals.stopped().is_none() {
        bail!(
            "the trace buffer lost {lost} events; record again with a larger --buffer-mb (now {})",
            args.buffer_mb
        );
    }
    drop(prog);
    drop(watch);
    let page_shift = page.trailing_zeros();
    let mut records = trace_records(&String::from_utf8_lossy(&prog_text), page_shift)
        .map_err(|e| anyhow!("the program's trace: {e}"))?;
    let mut outside = trace_records(&String::from_utf8_lossy(&watch_text), page_shift)
        .map_err(|e| anyhow!("the watch trace: {e}"))?;
    for r in &mut outside {
        r.outside = true;
    }
    records = merge(records, outside);
    Ok(Run {
        records,
        text: prog_text,
        end,
        status,
    })
}

/// `(s_dev == D && i_ino == I) || ...` over the files.
pub(crate) fn inode_filter(files: &[RecordedFile]) -> String {
    files
        .iter()
        .map(|f| {
            format!(
                "(s_dev == {} && i_ino == {})",
                f.inode.kernel_dev(),
                f.inode.ino
            )
        })
        .collect::<Vec<_>>()
        .join(" || ")
}

/// Both streams in timestamp order; the program's first on a tie.
pub(crate) fn merge(a: Vec<TraceRecord>, b: Vec<TraceRecord>) -> Vec<TraceRecord> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut b = b.into_iter().peekable();
    for r in a {
        while b.peek().is_some_and(|x| x.line.ts_ns < r.line.ts_ns) {
            out.extend(b.next());
        }
        out.push(r);
    }
    out.extend(b);
    out
}

fn resident_pages(path: &Path, size: u64, page: usize) -> Result<u64> {
    let f = File::open(path)?;
    let map = Map::new(&f, size, false)?;
    Ok(map.mincore(page)?.iter().filter(|&&b| b & 1 != 0).count() as u64)
}

/// The file's residency and folio layout once reads in flight have
/// landed (mincore() counts a page only once it is uptodate): when the
/// count has held for 100 ms.
fn end_state(path: &Path, size: u64, page_size: u64) -> Result<EndState> {
    if size == 0 {
        return Ok(EndState::default());
    }
    let page = page_size as usize;
    let file = File::open(path)?;
    let map = Map::new(&file, size, false)?;
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = (u64::MAX, Instant::now());
    let resident = loop {
        let m = map.mincore(page)?;
        let n = m.iter().filter(|&&b| b & 1 != 0).count() as u64;
        if n != last.0 {
            last = (n, Instant::now());
        } else if last.1.elapsed() >= Duration::from_millis(100) || Instant::now() > deadline {
            break m;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(map);
    let folios = folio_layout(&file, size, page, &resident)?;
    Ok(EndState {
        resident: runs(&resident),
        folios,
    })
}

/// The program's path as exec will find it: as given when it holds a
/// slash, else the first executable of that name on PATH.
fn find_program(name: &str) -> Result<CString, String> {
    let found = if name.contains('/') {
        Some(PathBuf::from(name))
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| is_executable(p))
        })
    };
    let path = found
        .filter(|p| is_executable(p))
        .ok_or_else(|| format!("{name}: no such program (not an executable file, nor on PATH)"))?;
    CString::new(path.as_os_str().as_bytes()).map_err(|_| format!("{name}: a NUL in the path"))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The program, forked and waiting for the word to exec.
struct Child {
    pid: libc::pid_t,
    go: libc::c_int,
    exec_error: libc::c_int,
    reaped: bool,
}

impl Child {
    /// Forks; the child waits on a pipe before it execs `program`. All it
    /// does between fork and exec is async-signal-safe.
    fn fork(program: &CString, command: &[String]) -> Result<Child> {
        let argv: Vec<CString> = command
            .iter()
            .map(|a| CString::new(a.as_bytes()))
            .collect::<Result<_, _>>()
            .context("an argument holds a NUL byte")?;
        let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        argv_ptrs.push(std::ptr::null());
        let (go_r, go_w) = pipe()?;
        let (err_r, err_w) = pipe()?;
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            bail!("fork failed: {}", std::io::Error::last_os_error());
        }
        if pid == 0 {
            unsafe {
                libc::close(go_w);
                libc::close(err_r);
                let mut b = 0u8;
                loop {
                    let n = libc::read(go_r, &mut b as *mut u8 as *mut libc::c_void, 1);
                    if n == 1 {
                        break;
                    }
                    if n == 0 || *libc::__errno_location() != libc::EINTR {
                        libc::_exit(126);
                    }
                }
                libc::execv(program.as_ptr(), argv_ptrs.as_ptr());
                let errno = *libc::__errno_location();
                libc::write(
                    err_w,
                    &errno as *const libc::c_int as *const libc::c_void,
                    std::mem::size_of::<libc::c_int>(),
                );
                libc::_exit(127);
            }
        }
        unsafe {
            libc::close(go_r);
            libc::close(err_w);
        }
        Ok(Child {
            pid,
            go: go_w,
            exec_error: err_r,
            reaped: false,
        })
    }

    /// Lets the child exec and waits for it, stopping it when a signal
    /// asks the recording to stop. Returns the exit status (None when a
    /// signal ended the program).
    fn release_and_wait(mut self, signals: &Guard) -> Result<Option<i32>> {
        let b = 1u8;
        unsafe {
            libc::write(self.go, &b as *const u8 as *const libc::c_void, 1);
            libc::close(self.go);
        }
        self.go = -1;
        // The error pipe closes on a successful exec; an errno comes
        // through it when exec failed.
        let mut errno: libc::c_int = 0;
        let n = unsafe {
            libc::read(
                self.exec_error,
                &mut errno as *mut libc::c_int as *mut libc::c_void,
                std::mem::size_of::<libc::c_int>(),
            )
        };
        if n as usize == std::mem::size_of::<libc::c_int>() {
            let _ = self.wait(false);
            bail!(
                "cannot run the program: {}",
                std::io::Error::from_raw_os_error(errno)
            );
        }
        let mut stop_sent: Option<Instant> = None;
        loop {
            if let Some(status) = self.wait(true)? {
                return Ok(status);
            }
            if signals.stopped().is_some() {
                match stop_sent {
                    None => {
                        unsafe { libc::kill(self.pid, libc::SIGTERM) };
                        stop_sent = Some(Instant::now());
                    }
                    Some(t) if t.elapsed() > Duration::from_secs(2) => unsafe {
                        libc::kill(self.pid, libc::SIGKILL);
                    },
                    Some(_) => {}
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// waitpid; Some once the child has ended.
    fn wait(&mut self, nohang: bool) -> Result<Option<Option<i32>>> {
        let mut status = 0;
        let r = unsafe {
            libc::waitpid(
                self.pid,
                &mut status,
                if nohang { libc::WNOHANG } else { 0 },
            )
        };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                return Ok(None);
            }
            return Err(e).context("waiting for the program");
        }
        if r == 0 {
            return Ok(None);
        }
        self.reaped = true;
        Ok(Some(if libc::WIFEXITED(status) {
            Some(libc::WEXITSTATUS(status))
        } else {
            None
        }))
    }
}

impl Drop for Child {
    /// A child never released (an error on the way) is killed and reaped.
    fn drop(&mut self) {
        unsafe {
            if self.go >= 0 {
                libc::close(self.go);
            }
            libc::close(self.exec_error);
            if !self.reaped {
                libc::kill(self.pid, libc::SIGKILL);
                let mut status = 0;
                libc::waitpid(self.pid, &mut status, 0);
            }
        }
    }
}

fn pipe() -> Result<(libc::c_int, libc::c_int)> {
    let mut fds = [0; 2];
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        bail!("pipe2 failed: {}", std::io::Error::last_os_error());
    }
    Ok((fds[0], fds[1]))
}
