//! tracefs, shared politely: `folioscope record` works only in instances
//! of its own under /sys/kernel/tracing/instances/, never in the top-level
//! buffer or anyone else's instance, and removes them on every way out
//! (the [`Instance`] guard turns tracing off and removes the directory
//! when dropped). Events are streamed out of `trace_pipe` while the
//! program runs ([`PipeReader`]), so the ring buffer only has to absorb
//! bursts.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};

/// Where tracefs is mounted.
pub const TRACEFS: &str = "/sys/kernel/tracing";

/// The events the program's instance records.
pub const PROGRAM_EVENTS: &[&str] = &[
    "readahead/page_cache_sync_ra",
    "readahead/page_cache_async_ra",
    "readahead/page_cache_ra_order",
    "readahead/page_cache_ra_unbounded",
    "filemap/mm_filemap_add_to_page_cache",
    "filemap/mm_filemap_delete_from_page_cache",
    "filemap/mm_filemap_fault",
    "filemap/mm_filemap_map_pages",
    "filemap/mm_filemap_get_pages",
    "exceptions/page_fault_user",
    "task/task_newtask",
    "sched/sched_process_exec",
    "sched/sched_process_exit",
];

/// Recorded when the kernel has it: faults the kernel takes on user
/// memory (a `write()` from a mapped buffer).
pub const OPTIONAL_EVENTS: &[&str] = &["exceptions/page_fault_kernel"];

/// The syscalls whose enter and exit events the program's instance
/// records.
pub const SYSCALLS: &[&str] = &[
    "read",
    "pread64",
    "readv",
    "preadv",
    "preadv2",
    "lseek",
    "fadvise64",
    "readahead",
    "madvise",
    "mmap",
    "munmap",
    "mremap",
    "dup",
    "dup2",
    "dup3",
    "fcntl",
    "sendfile64",
    "splice",
    "copy_file_range",
    "open",
    "openat",
    "openat2",
    "creat",
    "close",
    "close_range",
];

/// The events whose `s_dev` and `i_ino` fields an inode filter can test.
pub const FILE_EVENTS: &[&str] = &[
    "readahead/page_cache_sync_ra",
    "readahead/page_cache_async_ra",
    "readahead/page_cache_ra_order",
    "readahead/page_cache_ra_unbounded",
    "filemap/mm_filemap_add_to_page_cache",
    "filemap/mm_filemap_delete_from_page_cache",
    "filemap/mm_filemap_fault",
    "filemap/mm_filemap_map_pages",
    "filemap/mm_filemap_get_pages",
];

/// The page-cache events a watch of the files records: a folio of theirs
/// added or deleted by a task outside the traced one disturbs a run.
pub const WATCH_EVENTS: &[&str] = &[
    "filemap/mm_filemap_add_to_page_cache",
    "filemap/mm_filemap_delete_from_page_cache",
];

/// Makes `watch` record [`WATCH_EVENTS`] of the files `filter` names.
pub fn watch_files(watch: &Instance, filter: &str) -> Result<()> {
    for e in WATCH_EVENTS {
        watch.enable(e)?;
        watch.filter(e, filter)?;
    }
    Ok(())
}

/// tracefs's root, or a one-line error saying how to mount it.
pub fn root() -> Result<PathBuf, String> {
    root_at(Path::new(TRACEFS))
}

fn root_at(root: &Path) -> Result<PathBuf, String> {
    if root.join("instances").is_dir() {
        Ok(root.to_path_buf())
    } else {
        Err(format!(
            "tracefs is not mounted at {0}; mount it with: mount -t tracefs nodev {0}",
            root.display()
        ))
    }
}

/// Every event a recording needs, or the first this kernel lacks.
pub fn check_events(root: &Path) -> Result<(), String> {
    let syscalls: Vec<String> = SYSCALLS
        .iter()
        .flat_map(|s| {
            [
                format!("syscalls/sys_enter_{s}"),
                format!("syscalls/sys_exit_{s}"),
            ]
        })
        .collect();
    for e in PROGRAM_EVENTS.iter().map(|s| s.to_string()).chain(syscalls) {
        if !root.join("events").join(&e).join("enable").exists() {
            return Err(format!(
                "this kernel has no tracepoint {} (needed to record)",
                e.replace('/', ":")
            ));
        }
    }
    Ok(())
}

/// A tracefs instance of this process, removed when dropped.
pub struct Instance {
    dir: PathBuf,
}

impl Instance {
    /// Creates `instances/NAME`, with tracing off.
    pub fn create(root: &Path, name: &str) -> Result<Instance> {
        let dir = root.join("instances").join(name);
        std::fs::create_dir(&dir)
            .with_context(|| format!("creating the tracefs instance {}", dir.display()))?;
        let inst = Instance { dir };
        inst.write("tracing_on", "0")?;
        Ok(inst)
    }

    pub fn write(&self, rel: &str, value: &str) -> Result<()> {
        let p = self.dir.join(rel);
        std::fs::write(&p, value)
            .with_context(|| format!("writing '{}' to {}", value.trim(), p.display()))
    }

    pub fn enable(&self, event: &str) -> Result<()> {
        self.write(&format!("events/{event}/enable"), "1")
    }

    pub fn filter(&self, event: &str, expr: &str) -> Result<()> {
        self.write(&format!("events/{event}/filter"), expr)
    }

    /// Whether the instance offers this trace clock.
    pub fn has_clock(&self, clock: &str) -> bool {
        std::fs::read_to_string(self.dir.join("trace_clock")).is_ok_and(|c| {
            c.split_whitespace()
                .any(|w| w.trim_matches(|ch| ch == '[' || ch == ']') == clock)
        })
    }

    /// Whether this instance has the event.
    pub fn has(&self, event: &str) -> bool {
        self.dir.join("events").join(event).join("enable").exists()
    }

    /// Streams `trace_pipe` into memory until [`PipeReader::finish`].
    pub fn reader(&self) -> Result<PipeReader> {
        let p = self.dir.join("trace_pipe");
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&p)
            .with_context(|| format!("opening {}", p.display()))?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || drain(file, &flag));
        Ok(PipeReader {
            stop,
            handle: Some(handle),
        })
    }

    /// Events the ring buffer lost (overruns and drops), over all CPUs.
    pub fn lost(&self) -> u64 {
        let Ok(dirs) = std::fs::read_dir(self.dir.join("per_cpu")) else {
            return 0;
        };
        let mut lost = 0;
        for d in dirs.flatten() {
            let Ok(stats) = std::fs::read_to_string(d.path().join("stats")) else {
                continue;
            };
            for line in stats.lines() {
                for key in ["overrun:", "dropped events:"] {
                    if let Some(v) = line.strip_prefix(key) {
                        lost += v.trim().parse::<u64>().unwrap_or(0);
                    }
                }
            }
        }
        lost
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = std::fs::write(self.dir.join("tracing_on"), "0");
        // A reader that has just closed trace_pipe can keep the instance
        // busy for a moment.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!(
            "warning: could not remove the tracefs instance {}; remove it with rmdir",
            self.dir.display()
        );
    }
}

/// A thread reading one instance's `trace_pipe`.
pub struct PipeReader {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Result<Vec<u8>>>>,
}

impl PipeReader {
    /// Reads what is left (tracing must be off by now) and returns the text.
    pub fn finish(mut self) -> Result<Vec<u8>> {
        self.stop.store(true, Ordering::SeqCst);
        self.handle
            .take()
            .expect("finish is called once")
            .join()
            .map_err(|_| anyhow!("the trace_pipe reader failed"))?
    }
}

impl Drop for PipeReader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn drain(mut file: File, stop: &AtomicBool) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        // Read the flag before the read: once it is set and the pipe is
        // empty, nothing more can come.
        let stopping = stop.load(Ordering::SeqCst);
        match file.read(&mut buf) {
            Ok(0) => {
                if stopping {
                    return Ok(out);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {
                if stopping {
                    return Ok(out);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(e).context("reading trace_pipe"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_mount_or_event_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        // A path that does not exist yet: tracefs not mounted.
        let dir = tmp.path().join("tracing");
        assert_eq!(
            root_at(&dir).unwrap_err(),
            format!(
                "tracefs is not mounted at {0}; mount it with: mount -t tracefs nodev {0}",
                dir.display()
            )
        );
        // A kernel with every event but page_fault_user.
        std::fs::create_dir_all(dir.join("instances")).unwrap();
        let syscalls = SYSCALLS.iter().flat_map(|s| {
            [
                format!("syscalls/sys_enter_{s}"),
                format!("syscalls/sys_exit_{s}"),
            ]
        });
        for e in PROGRAM_EVENTS.iter().map(|e| e.to_string()).chain(syscalls) {
            if e != "exceptions/page_fault_user" {
                let d = dir.join("events").join(e);
                std::fs::create_dir_all(&d).unwrap();
                std::fs::write(d.join("enable"), "0").unwrap();
            }
        }
        assert_eq!(root_at(&dir).unwrap(), dir);
        assert_eq!(
            check_events(&dir).unwrap_err(),
            "this kernel has no tracepoint exceptions:page_fault_user (needed to record)"
        );
    }
}
