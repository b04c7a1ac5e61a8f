//! The kernel knobs a probe sets for the scenario and puts back afterwards:
//! the device's read_ahead_kb, debugfs fault_around_bytes, and a memory
//! cgroup (v1) for a memory limit.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};

/// A sysfs or debugfs file set for the probe, restored when dropped.
pub struct Knob {
    path: PathBuf,
    old: String,
}

impl Knob {
    /// Sets `path` to `value` unless it already reads so.
    pub fn set(path: &Path, value: &str) -> Result<Option<Knob>> {
        let old = fs::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()))?
            .trim()
            .to_string();
        if old == value {
            return Ok(None);
        }
        fs::write(path, value).with_context(|| format!("writing {value} to {}", path.display()))?;
        Ok(Some(Knob {
            path: path.to_path_buf(),
            old,
        }))
    }
}

impl Drop for Knob {
    fn drop(&mut self) {
        let _ = fs::write(&self.path, &self.old);
    }
}

/// The queue directory of the block device holding `file`.
pub fn queue_dir(file: &Path) -> Result<PathBuf> {
    let meta = fs::metadata(file).with_context(|| format!("stat {}", file.display()))?;
    let dev = meta.dev();
    let (major, minor) = (libc_major(dev), libc_minor(dev));
    let base = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    for q in [base.join("queue"), base.join("../queue")] {
        if q.join("read_ahead_kb").exists() {
            return Ok(q);
        }
    }
    bail!(
        "cannot find the block queue of {} (device {major}:{minor}); is it on a block device?",
        file.display()
    )
}

pub fn libc_major(dev: u64) -> u64 {
    ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0x0000_0fff)
}

pub fn libc_minor(dev: u64) -> u64 {
    ((dev >> 12) & 0xffff_ff00) | (dev & 0x0000_00ff)
}

/// The device's reads completed so far (field 1 of the queue's stat file).
pub fn device_reads(queue: &Path) -> Option<u64> {
    let stat = fs::read_to_string(queue.join("../stat")).ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// debugfs fault_around_bytes, mounting debugfs if needed.
pub fn fault_around_path() -> Result<PathBuf> {
    let p = PathBuf::from("/sys/kernel/debug/fault_around_bytes");
    if p.exists() {
        return Ok(p);
    }
    let status = std::process::Command::new("mount")
        .args(["-t", "debugfs", "none", "/sys/kernel/debug"])
        .status();
    if p.exists() {
        return Ok(p);
    }
    Err(anyhow!(
        "--fault-around-bytes: cannot reach /sys/kernel/debug/fault_around_bytes (mount debugfs as root; mount said {status:?})"
    ))
}

/// A memory cgroup (v1) this process runs in while it exists.
pub struct MemCgroup {
    dir: PathBuf,
    parent_procs: PathBuf,
}

impl MemCgroup {
    pub fn enter(limit_bytes: u64) -> Result<Self> {
        let root = PathBuf::from("/sys/fs/cgroup/memory");
        if !root.join("cgroup.procs").exists() {
            bail!("--memory-limit: needs the cgroup v1 memory controller at /sys/fs/cgroup/memory");
        }
        let dir = root.join(format!("folioscope-probe-{}", std::process::id()));
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        fs::write(dir.join("memory.limit_in_bytes"), limit_bytes.to_string())
            .context("--memory-limit: setting memory.limit_in_bytes")?;
        fs::write(dir.join("cgroup.procs"), std::process::id().to_string())
            .context("--memory-limit: entering the cgroup")?;
        Ok(MemCgroup {
            dir,
            parent_procs: root.join("cgroup.procs"),
        })
    }
}

impl Drop for MemCgroup {
    fn drop(&mut self) {
        let _ = fs::write(&self.parent_procs, std::process::id().to_string());
        let _ = fs::write(self.dir.join("memory.force_empty"), "0");
        let _ = fs::remove_dir(&self.dir);
    }
}
