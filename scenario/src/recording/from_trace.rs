//! Trace text to a recording's items: the program's accesses to the named
//! files, placed among the kernel's events for those files in the order
//! the kernel logged them.
//!
//! The trace holds syscall enters and exits, user and kernel page faults,
//! task creation, exec and exit, and the readahead and filemap tracepoints.
//! [`from_trace`] follows the program as the kernel sees it:
//! - tasks: `task_newtask` tells a thread (CLONE_VM, CLONE_FILES) from a
//!   process, which gets a copy of the fd table and of the mappings (each
//!   copied mapping of a named file is an `Mmap` in the child's address
//!   space); `sched_process_exec` replaces the address space and closes
//!   close-on-exec fds; the last task of an address space to exit unmaps
//!   it;
//! - fd tables: `open`, `openat`, `openat2` and `creat` make a new open
//!   file description (each with its own `file_ra_state`); `dup`, `dup2`,
//!   `dup3` and `fcntl(F_DUPFD[_CLOEXEC])` share one; `close` and
//!   `close_range` drop fds; fds inherited from outside are opened when
//!   first used;
//! - the file position of each open file description, so that `read` and
//!   `readv` get their offsets (`lseek` sets it);
//! - mappings per address space: `mmap` (MAP_FIXED replaces what was
//!   there), `munmap`, and `madvise` over the pieces it covers.
//!
//! The syscalls name fds, not files, so which open file description is
//! which named file is learnt from the kernel's events: a readahead or
//! `mm_filemap_get_pages` event of a named inode inside a task's read
//! (between its enter and exit) names the file of the fd it read, and a
//! `mm_filemap_fault` or `mm_filemap_map_pages` event after a page fault
//! names the file of the mapping it hit. Accesses are kept for the open
//! file descriptions so named, found after the whole trace is read.
//!
//! Each access is placed where its call entered (or its fault was logged),
//! before the events it caused. A `mm_filemap_delete_from_page_cache` of a
//! named file after its first add, outside the program's own
//! `posix_fadvise` and `madvise` calls, or a page-cache change made by a
//! task outside the program, means the run was disturbed; it is reported,
//! and the event is kept.

use std::collections::{BTreeMap, HashMap};

use folioscope_core::{Access, Fadvice, Madvice, Tracepoint};

use super::{Item, RecordingError};
use crate::trace_line::{parse_line, Line, TraceEvent, TraceLine};
use crate::tracepoint_text::TraceInode;

/// A file to follow: the inode the tracepoints name, and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracedFile {
    pub inode: TraceInode,
    pub size: u64,
}

/// One event line of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// The line number in the text it came from, for messages.
    pub line_no: usize,
    pub line: TraceLine,
    /// Logged for a task outside the traced program (an unfiltered
    /// watch of the files' page cache): its page-cache changes disturb
    /// the run and are never the program's.
    pub outside: bool,
}

/// What [`from_trace`] built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FromTrace {
    pub items: Vec<Item>,
    /// Why the run does not show the program's own behaviour, one line
    /// each (empty for an undisturbed run).
    pub disturbed: Vec<String>,
    /// Things the replay should know, one line each.
    pub notes: Vec<String>,
    /// Event lines read.
    pub lines: usize,
}

/// Reads trace text (tracefs `trace` or `trace-cmd report` output).
pub fn trace_records(text: &str, page_shift: u32) -> Result<Vec<TraceRecord>, RecordingError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        match parse_line(raw, page_shift) {
            Ok(Line::Event(line)) => out.push(TraceRecord {
                line_no,
                line,
                outside: false,
            }),
            Ok(Line::Lost { cpu }) => {
                return Err(RecordingError::at(
                    line_no,
                    "trace",
                    format!(
                    "the ring buffer lost events on CPU {cpu}; record again with a larger buffer"
                ),
                ))
            }
            Ok(Line::Other) => {}
            Err(e) => {
                let (field, message) = e.split_once(": ").unwrap_or(("trace", e.as_str()));
                return Err(RecordingError::at(line_no, field, message));
            }
        }
    }
    Ok(out)
}

/// Builds the items of a recording of `files` from trace text.
pub fn from_trace_text(
    text: &str,
    files: &[TracedFile],
    page_shift: u32,
) -> Result<FromTrace, RecordingError> {
    from_trace(&trace_records(text, page_shift)?, files, page_shift)
}

/// Builds the items of a recording of `files` from trace records in the
/// kernel's log order.
pub fn from_trace(
    records: &[TraceRecord],
    files: &[TracedFile],
    page_shift: u32,
) -> Result<FromTrace, RecordingError> {
    let mut f = Follower::new(files, page_shift);
    for r in records {
        f.record(r);
    }
    f.finish(records.len())
}

type OfdId = usize;
type MmId = usize;
type TableId = usize;

/// An open file description: `struct file`.
#[derive(Clone, Debug, Default)]
struct Ofd {
    pos: u64,
    direct: bool,
    /// The named file it is, once an event has said so.
    file: Option<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Mapping {
    /// One past the last virtual page.
    end: u64,
    ofd: OfdId,
    pgoff: u64,
    /// PROT_EXEC: VM_EXEC.
    exec: bool,
    /// The `vm_flags` advice given to it: MADV_SEQUENTIAL or MADV_RANDOM,
    /// and MADV_HUGEPAGE or MADV_NOHUGEPAGE; a forked copy inherits them.
    ra_advice: Option<Madvice>,
    thp_advice: Option<Madvice>,
}

#[derive(Clone, Debug, Default)]
struct Mm {
    maps: BTreeMap<u64, Mapping>,
    users: u32,
}

#[derive(Clone, Copy, Debug)]
struct Fd {
    ofd: OfdId,
    cloexec: bool,
}

#[derive(Clone, Debug, Default)]
struct FdTable {
    fds: BTreeMap<i32, Fd>,
    users: u32,
}

/// Which events name the file of a call's fd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CallKind {
    /// read, pread64, readv, preadv, preadv2.
    Read,
    /// sendfile64, splice, copy_file_range: reads of the in fd.
    Splice,
    /// fadvise64 and readahead.
    Fadvise,
    /// mmap (MAP_POPULATE) and madvise (MADV_WILLNEED, MADV_POPULATE_READ).
    Map,
    /// Calls whose events name no fd.
    Other,
}

#[derive(Clone, Debug)]
struct Call {
    name: String,
    args: Vec<u64>,
    slot: usize,
    kind: CallKind,
    /// The open file description the call reads or advises.
    ofd: Option<OfdId>,
    /// The offset a read starts at (the position when it entered).
    offset: u64,
    /// A kernel fault in this call hit a mapping of this open file.
    kernel_fault: Option<OfdId>,
    /// The first `mm_filemap_get_pages` of the call's file: its last index.
    get_pages_last: Option<u64>,
    /// The first index a readahead or get_pages event of the call's file named.
    first_index: Option<u64>,
}

#[derive(Clone, Debug)]
struct Task {
    mm: MmId,
    table: TableId,
    call: Option<Call>,
    /// The open file of the mapping the last user fault hit, until the
    /// task's next fault or syscall.
    fault: Option<OfdId>,
    /// A protection fault in a file mapping, kept (in its slot) only if
    /// the kernel's page-cache events show it reached the file's fault
    /// path: a write to a private mapping of a PMD-mapped folio splits
    /// the PMD and faults the page in again through `filemap_fault`.
    pending: Option<(usize, RawAccess)>,
}

/// An access before the open files are named: global ids.
#[derive(Clone, Copy, Debug)]
enum RawAccess {
    Open {
        ofd: OfdId,
    },
    Read {
        ofd: OfdId,
        offset: u64,
        len: u64,
    },
    Splice {
        ofd: OfdId,
        offset: u64,
        len: u64,
    },
    Fadvise {
        ofd: OfdId,
        offset: u64,
        len: u64,
        advice: Fadvice,
    },
    Mmap {
        mm: MmId,
        vpn: u64,
        pages: u64,
        ofd: OfdId,
        pgoff: u64,
        exec: bool,
    },
    Munmap {
        mm: MmId,
        vpn: u64,
        pages: u64,
        ofd: OfdId,
    },
    Madvise {
        mm: MmId,
        vpn: u64,
        pages: u64,
        ofd: OfdId,
        advice: Madvice,
    },
    Fault {
        mm: MmId,
        vpn: u64,
        write: bool,
        ofd: OfdId,
    },
}

impl RawAccess {
    fn ofd(&self) -> OfdId {
        match *self {
            RawAccess::Open { ofd }
            | RawAccess::Read { ofd, .. }
            | RawAccess::Splice { ofd, .. }
            | RawAccess::Fadvise { ofd, .. }
            | RawAccess::Mmap { ofd, .. }
            | RawAccess::Munmap { ofd, .. }
            | RawAccess::Madvise { ofd, .. }
            | RawAccess::Fault { ofd, .. } => ofd,
        }
    }
}

enum Raw {
    /// The accesses of one call or fault, filled in when it returns.
    Slot(Vec<RawAccess>),
    Event {
        file: u32,
        tp: Tracepoint,
    },
}

const O_DIRECT: u64 = 0o40000;
const O_CLOEXEC: u64 = 0o2000000;
const CLONE_VM: u64 = 0x100;
const CLONE_FILES: u64 = 0x400;
const MAP_ANONYMOUS: u64 = 0x20;
/// PROT_EXEC of `mmap`: the mapping gets VM_EXEC.
const PROT_EXEC: u64 = 0x4;
const F_DUPFD: u64 = 0;
const F_SETFD: u64 = 2;
const F_SETFL: u64 = 4;
const F_DUPFD_CLOEXEC: u64 = 1030;
const CLOSE_RANGE_UNSHARE: u64 = 2;
const CLOSE_RANGE_CLOEXEC: u64 = 4;
/// The x86-64 error-code bit of a fault on a present page (a protection
/// fault): the page is in the page cache and mapped already.
const PF_PROT: u64 = 1;
const PF_WRITE: u64 = 2;

struct Follower<'a> {
    files: &'a [TracedFile],
    page_shift: u32,
    tasks: HashMap<u32, Task>,
    mms: Vec<Mm>,
    tables: Vec<FdTable>,
    ofds: Vec<Ofd>,
    raws: Vec<Raw>,
    /// The next offset of a splice-family call that passed this offset
    /// pointer for this open file.
    offset_ptrs: HashMap<(OfdId, u64), u64>,
    /// Open files whose mappings were moved by mremap, with the line.
    mremapped: Vec<(OfdId, usize)>,
    added: Vec<bool>,
    disturbed: Vec<String>,
    derived_offsets: usize,
    /// Per file: events logged outside any call or fault of the program.
    stray: Vec<usize>,
}

impl<'a> Follower<'a> {
    fn new(files: &'a [TracedFile], page_shift: u32) -> Self {
        Follower {
            files,
            page_shift,
            tasks: HashMap::new(),
            mms: Vec::new(),
            tables: Vec::new(),
            ofds: Vec::new(),
            raws: Vec::new(),
            offset_ptrs: HashMap::new(),
            mremapped: Vec::new(),
            added: vec![false; files.len()],
            disturbed: Vec::new(),
            derived_offsets: 0,
            stray: vec![0; files.len()],
        }
    }

    fn page(&self) -> u64 {
        1u64 << self.page_shift
    }

    fn slot(&mut self) -> usize {
        self.raws.push(Raw::Slot(Vec::new()));
        self.raws.len() - 1
    }

    fn push(&mut self, slot: usize, a: RawAccess) {
        if let Raw::Slot(v) = &mut self.raws[slot] {
            v.push(a);
        }
    }

    fn new_mm(&mut self) -> MmId {
        self.mms.push(Mm {
            maps: BTreeMap::new(),
            users: 1,
        });
        self.mms.len() - 1
    }

    fn new_table(&mut self) -> TableId {
        self.tables.push(FdTable {
            fds: BTreeMap::new(),
            users: 1,
        });
        self.tables.len() - 1
    }

    fn new_ofd(&mut self, direct: bool) -> OfdId {
        self.ofds.push(Ofd {
            direct,
            ..Ofd::default()
        });
        self.ofds.len() - 1
    }

    /// The task, met for the first time when it has no state yet (the
    /// program itself, or a task whose creation the trace missed).
    fn task(&mut self, tid: u32) -> &mut Task {
        if !self.tasks.contains_key(&tid) {
            let mm = self.new_mm();
            let table = self.new_table();
            self.tasks.insert(
                tid,
                Task {
                    mm,
                    table,
                    call: None,
                    fault: None,
                    pending: None,
                },
            );
        }
        self.tasks.get_mut(&tid).expect("inserted above")
    }

    /// The open file of `fd` in the task's table; an fd the trace never saw
    /// opened was inherited, and is opened here, into `slot`.
    fn fd_ofd(&mut self, tid: u32, fd: u64, slot: usize) -> Option<OfdId> {
        let fd = fd as u32 as i32;
        if fd < 0 {
            return None;
        }
        let table = self.task(tid).table;
        if let Some(e) = self.tables[table].fds.get(&fd) {
            return Some(e.ofd);
        }
        let ofd = self.new_ofd(false);
        self.tables[table].fds.insert(
            fd,
            Fd {
                ofd,
                cloexec: false,
            },
        );
        self.push(slot, RawAccess::Open { ofd });
        Some(ofd)
    }

    fn record(&mut self, r: &TraceRecord) {
        let tid = r.line.tid;
        match &r.line.event {
            TraceEvent::File { inode, tp } => self.file_event(r, *inode, tp),
            TraceEvent::UserFault {
                address,
                error_code,
            } => {
                if r.outside {
                    return;
                }
                let slot = self.slot();
                let (hit, pending) = match self.fault(tid, *address, *error_code) {
                    Some((ofd, a)) if error_code & PF_PROT != 0 => (Some(ofd), Some((slot, a))),
                    Some((ofd, a)) => {
                        self.push(slot, a);
                        (Some(ofd), None)
                    }
                    None => (None, None),
                };
                let t = self.task(tid);
                t.fault = hit;
                t.pending = pending;
            }
            TraceEvent::KernelFault {
                address,
                error_code,
            } => {
                if r.outside {
                    return;
                }
                let Some(address) = *address else { return };
                if self.task(tid).call.is_none() {
                    return;
                }
                if error_code & PF_PROT != 0 {
                    return;
                }
                let slot = self.slot();
                let Some((ofd, a)) = self.fault(tid, address, *error_code) else {
                    return;
                };
                self.push(slot, a);
                if let Some(call) = self.task(tid).call.as_mut() {
                    call.kernel_fault = Some(ofd);
                }
            }
            TraceEvent::SysEnter { call, args } => {
                if !r.outside {
                    self.enter(tid, call, args);
                }
            }
            TraceEvent::SysExit { call, ret } => {
                if !r.outside {
                    self.exit(tid, call, *ret, r.line_no);
                }
            }
            TraceEvent::NewTask { pid, clone_flags } => {
                if !r.outside {
                    self.new_task(tid, *pid, *clone_flags);
                }
            }
            TraceEvent::Exec { pid, old_pid } => {
                if !r.outside {
                    self.exec(*pid, *old_pid);
                }
            }
            TraceEvent::Exit { pid } => {
                if !r.outside {
                    self.task_exit(*pid);
                }
            }
        }
    }

    /// A user or kernel fault at `address`: a `Fault` access when it lands
    /// in a file mapping, with the mapping's open file.
    fn fault(&mut self, tid: u32, address: u64, error_code: u64) -> Option<(OfdId, RawAccess)> {
        let mm = self.task(tid).mm;
        let vpn = address >> self.page_shift;
        let (_, m) = self.mms[mm].maps.range(..=vpn).next_back()?;
        if m.end <= vpn {
            return None;
        }
        let ofd = m.ofd;
        Some((
            ofd,
            RawAccess::Fault {
                mm,
                vpn,
                write: error_code & PF_WRITE != 0,
                ofd,
            },
        ))
    }

    fn file_event(&mut self, r: &TraceRecord, inode: TraceInode, tp: &Tracepoint) {
        let Some(file) = self.files.iter().position(|f| f.inode == inode) else {
            return;
        };
        let file = file as u32;
        self.raws.push(Raw::Event { file, tp: *tp });
        let at = format!(
            "at {}.{:06}: {}-{}",
            r.line.ts_ns / 1_000_000_000,
            r.line.ts_ns % 1_000_000_000 / 1000,
            r.line.task,
            r.line.tid
        );
        let own_drop = !r.outside
            && self
                .tasks
                .get(&r.line.tid)
                .and_then(|t| t.call.as_ref())
                .is_some_and(|c| matches!(c.name.as_str(), "fadvise64" | "madvise"));
        match tp {
            Tracepoint::AddToPageCache { index, .. } => {
                if r.outside {
                    self.disturbed.push(format!(
                        "{at}, outside the program, added page {index} of file {file} to the page cache"
                    ));
                }
                self.added[file as usize] = true;
            }
            Tracepoint::DeleteFromPageCache { index, .. }
                if self.added[file as usize] && !own_drop =>
            {
                self.disturbed.push(format!(
                    "{at} deleted page {index} of file {file} from the page cache after its first add (background eviction?)"
                ));
            }
            _ => {}
        }
        if r.outside {
            return;
        }
        if !self.identify(r.line.tid, file, tp) {
            self.stray[file as usize] += 1;
        }
    }

    /// Names the open file an event of `file` came through; false when the
    /// event came outside any call or fault of the program.
    fn identify(&mut self, tid: u32, file: u32, tp: &Tracepoint) -> bool {
        let Some(t) = self.tasks.get(&tid) else {
            return false;
        };
        let fault_path = matches!(
            tp,
            Tracepoint::FilemapFault { .. } | Tracepoint::MapPages { .. }
        );
        if let Some(call) = t.call.clone() {
            let named_by_call = match call.kind {
                CallKind::Read | CallKind::Splice => matches!(
                    tp,
                    Tracepoint::GetPages { .. }
                        | Tracepoint::SyncRa { .. }
                        | Tracepoint::AsyncRa { .. }
                        | Tracepoint::RaOrder { .. }
                        | Tracepoint::RaUnbounded { .. }
                ),
                CallKind::Fadvise => matches!(
                    tp,
                    Tracepoint::RaUnbounded { .. }
                        | Tracepoint::AddToPageCache { .. }
                        | Tracepoint::DeleteFromPageCache { .. }
                ),
                CallKind::Map => !matches!(tp, Tracepoint::GetPages { .. }),
                CallKind::Other => false,
            };
            // A fault the kernel took inside the call (copying to or from
            // a mapped buffer) names its mapping's file; the call's own
            // reads name the call's fd.
            let mut candidates = [(call.ofd, true), (call.kernel_fault, false)];
            if fault_path {
                candidates.swap(0, 1);
            }
            let mut named = false;
            for (ofd, by_call) in candidates {
                let Some(ofd) = ofd else { continue };
                if by_call && !named_by_call {
                    continue;
                }
                if self.name(ofd, file) {
                    named = true;
                    break;
                }
            }
            if named && call.ofd.is_some_and(|o| self.ofds[o].file == Some(file)) {
                let c = self
                    .tasks
                    .get_mut(&tid)
                    .and_then(|t| t.call.as_mut())
                    .expect("the call is there");
                match tp {
                    Tracepoint::GetPages { index, last_index } => {
                        c.get_pages_last.get_or_insert(*last_index);
                        c.first_index.get_or_insert(*index);
                    }
                    Tracepoint::SyncRa { index, .. } | Tracepoint::RaUnbounded { index, .. } => {
                        c.first_index.get_or_insert(*index);
                    }
                    _ => {}
                }
            }
            return named || call.kind != CallKind::Other;
        }
        match t.fault {
            Some(ofd) if !matches!(tp, Tracepoint::GetPages { .. }) => {
                if let Some((slot, a)) = self.tasks.get_mut(&tid).and_then(|t| t.pending.take()) {
                    self.push(slot, a);
                }
                self.name(ofd, file);
                true
            }
            _ => false,
        }
    }

    /// Says that open file `ofd` is `file`; false if it is another.
    fn name(&mut self, ofd: OfdId, file: u32) -> bool {
        match self.ofds[ofd].file {
            None => {
                self.ofds[ofd].file = Some(file);
                true
            }
            Some(f) => f == file,
        }
    }

    fn enter(&mut self, tid: u32, name: &str, args: &[u64]) {
        let slot = self.slot();
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        let (kind, fd) = match name {
            "read" | "pread64" | "readv" | "preadv" | "preadv2" => (CallKind::Read, Some(arg(0))),
            "sendfile64" => (CallKind::Splice, Some(arg(1))),
            "splice" | "copy_file_range" => (CallKind::Splice, Some(arg(0))),
            "fadvise64" | "readahead" => (CallKind::Fadvise, Some(arg(0))),
            "mmap" if arg(3) & MAP_ANONYMOUS == 0 => (CallKind::Map, Some(arg(4))),
            "madvise" => (CallKind::Map, None),
            _ => (CallKind::Other, None),
        };
        let ofd = match fd {
            Some(fd) => self.fd_ofd(tid, fd, slot),
            None => None,
        };
        let ofd = if name == "madvise" {
            // The one file mapping the advice covers, if it is one.
            let mm = self.task(tid).mm;
            let pieces = self.pieces(mm, arg(0) >> self.page_shift, self.pages(arg(1)));
            match pieces.as_slice() {
                [(_, _, m)] => Some(m.ofd),
                _ => None,
            }
        } else {
            ofd
        };
        let mut offset = ofd.map_or(0, |o| self.ofds[o].pos);
        match name {
            "pread64" => offset = arg(3),
            "preadv" | "preadv2" if arg(3) != u64::MAX => offset = arg(3),
            _ => {}
        }
        if name == "close" {
            let table = self.task(tid).table;
            self.tables[table].fds.remove(&(arg(0) as u32 as i32));
        }
        let t = self.task(tid);
        t.fault = None;
        t.pending = None;
        t.call = Some(Call {
            name: name.to_string(),
            args: args.to_vec(),
            slot,
            kind,
            ofd,
            offset,
            kernel_fault: None,
            get_pages_last: None,
            first_index: None,
        });
    }

    fn pages(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.page())
    }

    /// The file mappings of `mm` that overlap `[vpn, vpn + pages)`, as
    /// (start, pages, mapping) of the overlap.
    fn pieces(&self, mm: MmId, vpn: u64, pages: u64) -> Vec<(u64, u64, Mapping)> {
        let end = vpn.saturating_add(pages);
        let mut out = Vec::new();
        let first = self.mms[mm]
            .maps
            .range(..=vpn)
            .next_back()
            .map_or(vpn, |(s, _)| *s);
        for (&s, m) in self.mms[mm].maps.range(first..end) {
            if m.end <= vpn {
                continue;
            }
            let a = s.max(vpn);
            let b = m.end.min(end);
            out.push((a, b - a, *m));
        }
        out
    }

    /// Notes a `vm_flags` advice on `[vpn, vpn + pages)` of `mm`, splitting
    /// the mappings at its edges as the kernel splits VMAs, so that a fork
    /// copies each piece with its own flags.
    fn remember_advice(&mut self, mm: MmId, vpn: u64, pages: u64, advice: Madvice) {
        let end = vpn.saturating_add(pages);
        let (ra, thp) = match advice {
            Madvice::Normal => (Some(None), None),
            Madvice::Random | Madvice::Sequential => (Some(Some(advice)), None),
            Madvice::Hugepage | Madvice::NoHugepage => (None, Some(Some(advice))),
            Madvice::WillNeed | Madvice::DontNeed => return,
        };
        self.split_mapping(mm, vpn);
        self.split_mapping(mm, end);
        for (_, m) in self.mms[mm].maps.range_mut(vpn..end) {
            if let Some(r) = ra {
                m.ra_advice = r;
            }
            if let Some(t) = thp {
                m.thp_advice = t;
            }
        }
    }

    /// Cuts the mapping of `mm` that holds `vpn` inside it in two there.
    fn split_mapping(&mut self, mm: MmId, vpn: u64) {
        let Some((&s, &m)) = self.mms[mm].maps.range(..vpn).next_back() else {
            return;
        };
        if m.end <= vpn {
            return;
        }
        self.mms[mm].maps.insert(s, Mapping { end: vpn, ..m });
        self.mms[mm].maps.insert(
            vpn,
            Mapping {
                pgoff: m.pgoff + (vpn - s),
                ..m
            },
        );
    }

    /// Unmaps `[vpn, vpn + pages)` of `mm`, splitting mappings at the
    /// edges, with a `Munmap` for each file mapping piece.
    fn unmap(&mut self, mm: MmId, vpn: u64, pages: u64, slot: usize) {
        let end = vpn.saturating_add(pages);
        for (a, n, m) in self.pieces(mm, vpn, pages) {
            self.push(
                slot,
                RawAccess::Munmap {
                    mm,
                    vpn: a,
                    pages: n,
                    ofd: m.ofd,
                },
            );
            // Each mapping overlaps the range in one piece: cut it out,
            // keeping what lies on either side.
            let (&s, &whole) = self.mms[mm]
                .maps
                .range(..=a)
                .next_back()
                .expect("a piece lies in a mapping");
            self.mms[mm].maps.remove(&s);
            if s < a {
                self.mms[mm].maps.insert(s, Mapping { end: a, ..whole });
            }
            if whole.end > end {
                self.mms[mm].maps.insert(
                    end,
                    Mapping {
                        pgoff: whole.pgoff + (end - s),
                        ..whole
                    },
                );
            }
        }
    }

    fn exit(&mut self, tid: u32, name: &str, ret: i64, line_no: usize) {
        let Some(t) = self.tasks.get_mut(&tid) else {
            return;
        };
        let Some(call) = t.call.take() else { return };
        if call.name != name {
            return;
        }
        let (mm, table) = (t.mm, t.table);
        let slot = call.slot;
        let arg = |i: usize| call.args.get(i).copied().unwrap_or(0);
        let ok = ret >= 0;
        let ret_u = ret.max(0) as u64;
        match name {
            "read" | "pread64" | "readv" | "preadv" | "preadv2" => {
                let Some(ofd) = call.ofd else { return };
                if !ok || self.ofds[ofd].direct {
                    return;
                }
                let len = match name {
                    "read" | "pread64" => arg(2),
                    _ => self.vector_len(&call, ofd, ret_u),
                };
                let uses_pos = matches!(name, "read" | "readv")
                    || (matches!(name, "preadv2") && arg(3) == u64::MAX);
                if uses_pos {
                    self.ofds[ofd].pos = call.offset + ret_u;
                }
                self.push(
                    slot,
                    RawAccess::Read {
                        ofd,
                        offset: call.offset,
                        len,
                    },
                );
            }
            "sendfile64" | "splice" | "copy_file_range" => {
                let Some(ofd) = call.ofd else { return };
                if !ok {
                    return;
                }
                let (ptr, len) = match name {
                    "sendfile64" => (arg(2), arg(3)),
                    _ => (arg(1), arg(4)),
                };
                let offset = if ptr == 0 {
                    self.ofds[ofd].pos += ret_u;
                    call.offset
                } else {
                    // The offset is in the program's memory, which the
                    // trace does not show: continue from the last call
                    // with this pointer, or take the first page the
                    // kernel's events name.
                    let o = match self.offset_ptrs.get(&(ofd, ptr)) {
                        Some(&o) => o,
                        None => {
                            self.derived_offsets += 1;
                            call.first_index.unwrap_or(0) << self.page_shift
                        }
                    };
                    self.offset_ptrs.insert((ofd, ptr), o + ret_u);
                    o
                };
                self.push(slot, RawAccess::Splice { ofd, offset, len });
            }
            "fadvise64" | "readahead" => {
                let Some(ofd) = call.ofd else { return };
                if ret != 0 {
                    return;
                }
                let advice = if name == "readahead" {
                    Some(Fadvice::WillNeed)
                } else {
                    Fadvice::from_number(arg(3))
                };
                if let Some(advice) = advice {
                    self.push(
                        slot,
                        RawAccess::Fadvise {
                            ofd,
                            offset: arg(1),
                            len: arg(2),
                            advice,
                        },
                    );
                }
            }
            "lseek" => {
                if let (true, Some(ofd)) = (ok, self.lookup(table, arg(0))) {
                    self.ofds[ofd].pos = ret_u;
                }
            }
            "open" | "openat" | "openat2" | "creat" => {
                if !ok {
                    return;
                }
                let flags = match name {
                    "open" => arg(1),
                    "openat" => arg(2),
                    _ => 0,
                };
                let ofd = self.new_ofd(flags & O_DIRECT != 0);
                self.tables[table].fds.insert(
                    ret as i32,
                    Fd {
                        ofd,
                        cloexec: flags & O_CLOEXEC != 0,
                    },
                );
                self.push(slot, RawAccess::Open { ofd });
            }
            "dup" | "dup2" | "dup3" => {
                if !ok || (name != "dup" && arg(0) == arg(1)) {
                    return;
                }
                if let Some(ofd) = self.fd_ofd(tid, arg(0), slot) {
                    let cloexec = name == "dup3" && arg(2) & O_CLOEXEC != 0;
                    self.tables[table]
                        .fds
                        .insert(ret as i32, Fd { ofd, cloexec });
                }
            }
            "fcntl" => {
                if !ok {
                    return;
                }
                let fd = arg(0) as u32 as i32;
                match arg(1) {
                    F_DUPFD | F_DUPFD_CLOEXEC => {
                        if let Some(ofd) = self.fd_ofd(tid, arg(0), slot) {
                            let cloexec = arg(1) == F_DUPFD_CLOEXEC;
                            self.tables[table]
                                .fds
                                .insert(ret as i32, Fd { ofd, cloexec });
                        }
                    }
                    F_SETFD => {
                        if let Some(e) = self.tables[table].fds.get_mut(&fd) {
                            e.cloexec = arg(2) & 1 != 0;
                        }
                    }
                    F_SETFL => {
                        if let Some(ofd) = self.lookup(table, arg(0)) {
                            self.ofds[ofd].direct = arg(2) & O_DIRECT != 0;
                        }
                    }
                    _ => {}
                }
            }
            "close_range" => {
                if ret != 0 {
                    return;
                }
                let table = if arg(2) & CLOSE_RANGE_UNSHARE != 0 {
                    self.unshare_table(tid)
                } else {
                    table
                };
                let (lo, hi) = (arg(0) as u32 as i32, arg(1).min(i32::MAX as u64) as i32);
                if arg(2) & CLOSE_RANGE_CLOEXEC != 0 {
                    for (_, e) in self.tables[table].fds.range_mut(lo..=hi) {
                        e.cloexec = true;
                    }
                } else {
                    let gone: Vec<i32> = self.tables[table]
                        .fds
                        .range(lo..=hi)
                        .map(|(k, _)| *k)
                        .collect();
                    for k in gone {
                        self.tables[table].fds.remove(&k);
                    }
                }
            }
            "mmap" => {
                let addr = ret as u64;
                if ret < 0 && ret > -4096 {
                    return;
                }
                let vpn = addr >> self.page_shift;
                let pages = self.pages(arg(1));
                self.unmap(mm, vpn, pages, slot);
                if let Some(ofd) = call.ofd {
                    let pgoff = arg(5) >> self.page_shift;
                    let exec = arg(2) & PROT_EXEC != 0;
                    self.mms[mm].maps.insert(
                        vpn,
                        Mapping {
                            end: vpn + pages,
                            ofd,
                            pgoff,
                            exec,
                            ra_advice: None,
                            thp_advice: None,
                        },
                    );
                    self.push(
                        slot,
                        RawAccess::Mmap {
                            mm,
                            vpn,
                            pages,
                            ofd,
                            pgoff,
                            exec,
                        },
                    );
                }
            }
            "munmap" if ret == 0 => {
                let pages = self.pages(arg(1));
                self.unmap(mm, arg(0) >> self.page_shift, pages, slot);
            }
            "madvise" => {
                let Some(advice) = Madvice::from_number(arg(2)) else {
                    return;
                };
                if ret != 0 {
                    return;
                }
                let pages = self.pages(arg(1));
                let start = arg(0) >> self.page_shift;
                for (vpn, n, m) in self.pieces(mm, start, pages) {
                    self.push(
                        slot,
                        RawAccess::Madvise {
                            mm,
                            vpn,
                            pages: n,
                            ofd: m.ofd,
                            advice,
                        },
                    );
                }
                self.remember_advice(mm, start, pages, advice);
            }
            "mremap" => {
                if ret < 0 && ret > -4096 {
                    return;
                }
                let pages = self.pages(arg(1));
                let vpn = arg(0) >> self.page_shift;
                for (_, _, m) in self.pieces(mm, vpn, pages) {
                    self.mremapped.push((m.ofd, line_no));
                }
                // The old range is gone; its new place is not followed.
                let scratch = self.slot();
                self.unmap(mm, vpn, pages, scratch);
                self.raws[scratch] = Raw::Slot(Vec::new());
            }
            _ => {}
        }
    }

    /// The length of a `readv`-family read: its return value, or, when it
    /// stopped at the end of the file, the end of the range the kernel's
    /// first `mm_filemap_get_pages` saw (the length it was asked for,
    /// rounded to a page).
    fn vector_len(&self, call: &Call, ofd: OfdId, ret: u64) -> u64 {
        let (Some(file), Some(last)) = (self.ofds[ofd].file, call.get_pages_last) else {
            return ret;
        };
        let size = self.files[file as usize].size;
        if call.offset + ret < size {
            return ret;
        }
        ((last + 1) << self.page_shift)
            .saturating_sub(call.offset)
            .max(ret)
    }

    fn lookup(&self, table: TableId, fd: u64) -> Option<OfdId> {
        self.tables[table]
            .fds
            .get(&(fd as u32 as i32))
            .map(|e| e.ofd)
    }

    fn unshare_table(&mut self, tid: u32) -> TableId {
        let table = self.task(tid).table;
        if self.tables[table].users <= 1 {
            return table;
        }
        self.tables[table].users -= 1;
        let fds = self.tables[table].fds.clone();
        self.tables.push(FdTable { fds, users: 1 });
        let new = self.tables.len() - 1;
        self.task(tid).table = new;
        new
    }

    fn new_task(&mut self, parent: u32, child: u32, flags: u64) {
        let (pmm, ptable) = {
            let t = self.task(parent);
            (t.mm, t.table)
        };
        let mm = if flags & CLONE_VM != 0 {
            self.mms[pmm].users += 1;
            pmm
        } else {
            let maps = self.mms[pmm].maps.clone();
            let mm = self.new_mm();
            let slot = self.slot();
            for (&vpn, m) in &maps {
                let pages = m.end - vpn;
                self.push(
                    slot,
                    RawAccess::Mmap {
                        mm,
                        vpn,
                        pages,
                        ofd: m.ofd,
                        pgoff: m.pgoff,
                        exec: m.exec,
                    },
                );
                // The copy keeps the parent's vm_flags.
                for advice in [m.ra_advice, m.thp_advice].into_iter().flatten() {
                    self.push(
                        slot,
                        RawAccess::Madvise {
                            mm,
                            vpn,
                            pages,
                            ofd: m.ofd,
                            advice,
                        },
                    );
                }
            }
            self.mms[mm].maps = maps;
            mm
        };
        let table = if flags & CLONE_FILES != 0 {
            self.tables[ptable].users += 1;
            ptable
        } else {
            let fds = self.tables[ptable].fds.clone();
            self.tables.push(FdTable { fds, users: 1 });
            self.tables.len() - 1
        };
        if let Some(old) = self.tasks.insert(
            child,
            Task {
                mm,
                table,
                call: None,
                fault: None,
                pending: None,
            },
        ) {
            self.release(old);
        }
    }

    /// Drops a task's hold on its address space and fd table; the last
    /// holder of an address space unmaps it.
    fn release(&mut self, t: Task) {
        self.drop_mm(t.mm);
        let table = &mut self.tables[t.table];
        table.users = table.users.saturating_sub(1);
        if table.users == 0 {
            table.fds.clear();
        }
    }

    fn drop_mm(&mut self, id: MmId) {
        let mm = &mut self.mms[id];
        mm.users = mm.users.saturating_sub(1);
        if mm.users > 0 {
            return;
        }
        let maps = std::mem::take(&mut mm.maps);
        let slot = self.slot();
        for (vpn, m) in maps {
            self.push(
                slot,
                RawAccess::Munmap {
                    mm: id,
                    vpn,
                    pages: m.end - vpn,
                    ofd: m.ofd,
                },
            );
        }
    }

    fn exec(&mut self, pid: u32, old_pid: u32) {
        if old_pid != pid {
            // A thread other than the leader exec'd: it takes the leader's
            // pid; the leader has exited already.
            if let Some(t) = self.tasks.remove(&old_pid) {
                if let Some(leader) = self.tasks.insert(pid, t) {
                    self.release(leader);
                }
            }
        }
        // The old address space goes (unmapped if no vfork parent shares
        // it); the fd table is unshared and loses its close-on-exec fds.
        let old = self.task(pid).mm;
        self.drop_mm(old);
        let new = self.new_mm();
        let table = self.unshare_table(pid);
        self.tables[table].fds.retain(|_, e| !e.cloexec);
        let t = self.task(pid);
        t.mm = new;
        t.call = None;
        t.fault = None;
        t.pending = None;
    }

    fn task_exit(&mut self, pid: u32) {
        if let Some(t) = self.tasks.remove(&pid) {
            self.release(t);
        }
    }

    fn finish(self, lines: usize) -> Result<FromTrace, RecordingError> {
        for &(ofd, line) in &self.mremapped {
            if let Some(f) = self.ofds[ofd].file {
                return Err(RecordingError::at(
                    line,
                    "mremap",
                    format!("the program moved a mapping of file {f} with mremap, which a recording cannot follow"),
                ));
            }
        }
        let mut ofd_ids: HashMap<(u32, OfdId), u32> = HashMap::new();
        let mut mm_ids: HashMap<(u32, MmId), u32> = HashMap::new();
        let mut next_ofd = vec![0u32; self.files.len()];
        let mut next_mm = vec![0u32; self.files.len()];
        let mut items = Vec::new();
        for raw in &self.raws {
            match raw {
                Raw::Event { file, tp } => items.push(Item::Event {
                    file: *file,
                    tp: *tp,
                }),
                Raw::Slot(accesses) => {
                    for a in accesses {
                        let Some(file) = self.ofds[a.ofd()].file else {
                            continue;
                        };
                        let mut ofd = |o: OfdId| {
                            *ofd_ids.entry((file, o)).or_insert_with(|| {
                                next_ofd[file as usize] += 1;
                                next_ofd[file as usize] - 1
                            })
                        };
                        let access = match *a {
                            RawAccess::Open { ofd: o } => Access::Open { ofd: ofd(o) },
                            RawAccess::Read {
                                ofd: o,
                                offset,
                                len,
                            } => Access::ReadAt {
                                ofd: ofd(o),
                                offset,
                                len,
                            },
                            RawAccess::Splice {
                                ofd: o,
                                offset,
                                len,
                            } => Access::SpliceRead {
                                ofd: ofd(o),
                                offset,
                                len,
                            },
                            RawAccess::Fadvise {
                                ofd: o,
                                offset,
                                len,
                                advice,
                            } => Access::Fadvise {
                                ofd: ofd(o),
                                offset,
                                len,
                                advice,
                            },
                            RawAccess::Mmap {
                                mm,
                                vpn,
                                pages,
                                ofd: o,
                                pgoff,
                                exec,
                            } => {
                                let ofd = ofd(o);
                                Access::Mmap {
                                    mm: mm_id(&mut mm_ids, &mut next_mm, file, mm),
                                    vpn,
                                    pages,
                                    ofd,
                                    pgoff,
                                    exec,
                                }
                            }
                            RawAccess::Munmap { mm, vpn, pages, .. } => Access::Munmap {
                                mm: mm_id(&mut mm_ids, &mut next_mm, file, mm),
                                vpn,
                                pages,
                            },
                            RawAccess::Madvise {
                                mm,
                                vpn,
                                pages,
                                advice,
                                ..
                            } => Access::Madvise {
                                mm: mm_id(&mut mm_ids, &mut next_mm, file, mm),
                                vpn,
                                pages,
                                advice,
                            },
                            RawAccess::Fault { mm, vpn, write, .. } => Access::Fault {
                                mm: mm_id(&mut mm_ids, &mut next_mm, file, mm),
                                vpn,
                                write,
                            },
                        };
                        items.push(Item::Access { file, access });
                    }
                }
            }
        }
        let mut notes = Vec::new();
        if self.derived_offsets > 0 {
            notes.push(format!(
                "{} sendfile/splice/copy_file_range calls passed their offset by pointer; their offsets were taken from the kernel's events",
                self.derived_offsets
            ));
        }
        for (f, &n) in self.stray.iter().enumerate() {
            if n > 0 {
                notes.push(format!(
                    "{n} kernel events of file {f} came outside any read, advice or fault of the program (exec, io_uring or a write?)"
                ));
            }
        }
        Ok(FromTrace {
            items,
            disturbed: self.disturbed,
            notes,
            lines,
        })
    }
}

fn mm_id(ids: &mut HashMap<(u32, MmId), u32>, next: &mut [u32], file: u32, mm: MmId) -> u32 {
    *ids.entry((file, mm)).or_insert_with(|| {
        next[file as usize] += 1;
        next[file as usize] - 1
    })
}

#[cfg(test)]
mod tests;
