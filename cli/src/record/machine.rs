//! The facts of this machine and of each named file that a replay needs:
//! the kernel release and architecture (`uname`), the page size, the THP
//! settings, debugfs fault_around_bytes when it can be read, and per file
//! its device and inode (as the tracepoints print them), size, file system
//! type (`statfs`) and its device's read_ahead_kb.

use std::ffi::CStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use folioscope_scenario::recording::{RecordedFile, RecordedMachine};
use folioscope_scenario::tracepoint_text::TraceInode;

use crate::pagecache::kernel_release;
use crate::probe::sysfs::{libc_major, libc_minor, queue_dir};

pub fn machine_facts() -> RecordedMachine {
    RecordedMachine {
        release: kernel_release(),
        arch: uname_machine(),
        page_size: unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64,
        thp_enabled: selected("/sys/kernel/mm/transparent_hugepage/enabled"),
        thp_defrag: selected("/sys/kernel/mm/transparent_hugepage/defrag"),
        // Reading needs debugfs mounted and not locked down; these
        // machines refuse, and the replay then assumes the default.
        fault_around_bytes: std::fs::read_to_string("/sys/kernel/debug/fault_around_bytes")
            .ok()
            .and_then(|s| s.trim().parse().ok()),
    }
}

fn uname_machine() -> String {
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return "unknown".into();
    }
    unsafe { CStr::from_ptr(u.machine.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// The bracketed choice of a sysfs selector (`always [madvise] never`).
fn selected(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let start = text.find('[')?;
    let end = start + text[start..].find(']')?;
    Some(text[start + 1..end].to_string())
}

/// The file's facts; an error names the option and the file.
pub fn file_facts(path: &Path) -> Result<RecordedFile, String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("--file: cannot open {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("--file: {} is not a regular file", path.display()));
    }
    let dev = meta.dev();
    let (major, minor) = (libc_major(dev) as u32, libc_minor(dev) as u32);
    let read_ahead_kb = read_ahead_kb(path, major, minor).ok_or_else(|| {
        format!(
            "--file: cannot find the read_ahead_kb of {}'s device {major}:{minor}",
            path.display()
        )
    })?;
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    Ok(RecordedFile {
        path: abs.to_string_lossy().into_owned(),
        inode: TraceInode {
            major,
            minor,
            ino: meta.ino(),
        },
        size: meta.len(),
        fs: fs_type(path),
        read_ahead_kb,
    })
}

/// The block queue's read_ahead_kb, or the backing device's for file
/// systems on no block device of their own.
fn read_ahead_kb(path: &Path, major: u32, minor: u32) -> Option<u64> {
    let from = |p: &Path| -> Option<u64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    if let Ok(q) = queue_dir(path) {
        if let Some(kb) = from(&q.join("read_ahead_kb")) {
            return Some(kb);
        }
    }
    from(Path::new(&format!(
        "/sys/class/bdi/{major}:{minor}/read_ahead_kb"
    )))
}

/// The file system type, by the magic number statfs reports.
fn fs_type(path: &Path) -> String {
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return "unknown".into();
    };
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return "unknown".into();
    }
    let name = match st.f_type as u64 {
        0xEF53 => "ext4",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0x0102_1994 => "tmpfs",
        0x2FC1_2FC1 => "zfs",
        0xF2F5_2010 => "f2fs",
        0x6969 => "nfs",
        0x794C_7630 => "overlayfs",
        0x6573_5546 => "fuse",
        0x4d44 => "vfat",
        0x2011_BAB0 => "exfat",
        0xE0F5_E1E2 => "erofs",
        0x7371_7368 => "squashfs",
        m => return format!("0x{m:x}"),
    };
    name.to_string()
}
