//! One line of trace text, from tracefs's `trace` or `trace_pipe` file or
//! from `trace-cmd report`, read into the task, thread id, CPU, timestamp
//! and event it records.
//!
//! Both print `TASK-TID [CPU] FLAGS TIMESTAMP: EVENT: FIELDS`, with
//! differences this parser absorbs: trace-cmd may prefix the buffer's name
//! (`inst: `), leaves out the flags column by default and pads the event
//! name; tracefs with `record-tgid` adds a `(TGID)` column. Syscall events
//! differ most: tracefs prints `sys_read(fd: 3, buf: 0x7ffc, count: 0x340)`
//! and `sys_read -> 0x340`, trace-cmd `sys_enter_read: fd: 0x00000003, ...`
//! and `sys_exit_read: 0x340`. A task name may hold spaces and dashes; the
//! thread id is the number before ` [CPU]`.

use folioscope_core::Tracepoint;

use crate::tracepoint_text::{parse_tracepoint, Fields, TraceInode};

/// A line that records an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceLine {
    /// The task's name as the trace prints it (`comm`).
    pub task: String,
    /// The thread id (the kernel's `pid` of the task).
    pub tid: u32,
    pub cpu: u32,
    /// The timestamp in nanoseconds.
    pub ts_ns: u64,
    pub event: TraceEvent,
}

/// The events a recording reads; every other event is [`Line::Other`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// A readahead or filemap tracepoint of one file.
    File { inode: TraceInode, tp: Tracepoint },
    /// `exceptions:page_fault_user`.
    UserFault { address: u64, error_code: u64 },
    /// `exceptions:page_fault_kernel`: the kernel touched a user address,
    /// as `read()` does when it copies into a buffer. `address` is None
    /// when it printed as a kernel symbol.
    KernelFault {
        address: Option<u64>,
        error_code: u64,
    },
    /// `syscalls:sys_enter_NAME`, with the arguments in order.
    SysEnter { call: String, args: Vec<u64> },
    /// `syscalls:sys_exit_NAME`, with the return value.
    SysExit { call: String, ret: i64 },
    /// `task:task_newtask`, in the parent's context.
    NewTask { pid: u32, clone_flags: u64 },
    /// `sched:sched_process_exec`; a thread other than the leader that
    /// calls exec takes the leader's pid (`old_pid` becomes `pid`).
    Exec { pid: u32, old_pid: u32 },
    /// `sched:sched_process_exit`: the thread `pid` exits.
    Exit { pid: u32 },
}

/// What one line of trace text holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Event(TraceLine),
    /// The ring buffer overflowed on `cpu`: events are missing.
    Lost {
        cpu: u32,
    },
    /// A header, comment or blank line, or an event a recording does not use.
    Other,
}

/// Reads one line. An error names the field that could not be read.
pub fn parse_line(line: &str, page_shift: u32) -> Result<Line, String> {
    let text = line.trim_end();
    let trimmed = text.trim_start();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(Line::Other);
    }
    if let Some(cpu) = lost_cpu(trimmed) {
        return Ok(Line::Lost { cpu });
    }
    let Some(anchor) = find_anchor(text) else {
        // trace-cmd's headers ("cpus=2", "CPU 1 is empty", version lines).
        return Ok(Line::Other);
    };
    let task = task_name(&text[..anchor.task_end]);
    let rest = &text[anchor.after_cpu..];
    let (ts_ns, rest) = timestamp(rest)?;
    let rest = rest.trim_start();
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (name, tail) = rest.split_at(name_len);
    let event = if let Some(args) = tail.strip_prefix('(') {
        // tracefs: sys_read(fd: 3, ...)
        let call = syscall_name(name, "sys_")?;
        let args = args
            .strip_suffix(')')
            .ok_or_else(|| format!("{name}: arguments not closed by ')'"))?;
        Some(TraceEvent::SysEnter {
            call,
            args: syscall_args(name, args)?,
        })
    } else if let Some(ret) = tail.strip_prefix(" -> ") {
        // tracefs: sys_read -> 0x340
        Some(TraceEvent::SysExit {
            call: syscall_name(name, "sys_")?,
            ret: syscall_ret(name, ret)?,
        })
    } else if let Some(fields) = tail.strip_prefix(':') {
        event(name, fields.trim(), page_shift)?
    } else {
        return Err(format!("event '{name}': no ':' after its name"));
    };
    Ok(match event {
        Some(event) => Line::Event(TraceLine {
            task,
            tid: anchor.tid,
            cpu: anchor.cpu,
            ts_ns,
            event,
        }),
        None => Line::Other,
    })
}

/// Where the `-TID [CPU]` columns are.
struct Anchor {
    task_end: usize,
    tid: u32,
    cpu: u32,
    after_cpu: usize,
}

fn find_anchor(text: &str) -> Option<Anchor> {
    let bytes = text.as_bytes();
    for (open, _) in text.match_indices('[') {
        let close = open + 1 + text[open + 1..].find(']')?;
        let cpu: u32 = match text[open + 1..close].parse() {
            Ok(c) => c,
            Err(_) => continue,
        };
        let mut before = text[..open].trim_end();
        // record-tgid's "(  1234)" column.
        if before.ends_with(')') {
            if let Some(p) = before.rfind('(') {
                if before[p + 1..before.len() - 1]
                    .trim()
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '-')
                {
                    before = before[..p].trim_end();
                }
            }
        }
        let digits = before.len()
            - before
                .bytes()
                .rev()
                .take_while(|b| b.is_ascii_digit())
                .count();
        if digits == before.len() || digits == 0 || bytes[digits - 1] != b'-' {
            continue;
        }
        let Ok(tid) = before[digits..].parse() else {
            continue;
        };
        return Some(Anchor {
            task_end: digits - 1,
            tid,
            cpu,
            after_cpu: close + 1,
        });
    }
    None
}

/// The task's name: what precedes `-TID`, less a trace-cmd buffer prefix
/// (`inst:` followed by the padding of the name column).
fn task_name(text: &str) -> String {
    let t = text.trim_start();
    match t.find(":  ") {
        Some(p) => t[p + 1..].trim().to_string(),
        None => t.trim().to_string(),
    }
}

/// `[FLAGS] SECONDS.FRACTION:` at the start of `rest`.
fn timestamp(rest: &str) -> Result<(u64, &str), String> {
    let mut s = rest.trim_start();
    for _ in 0..2 {
        let end = s.find(char::is_whitespace).unwrap_or(s.len());
        let word = &s[..end];
        if let Some(ts) = word.strip_suffix(':') {
            if let Some((secs, frac)) = ts.split_once('.') {
                if let (Ok(secs), true) = (
                    secs.parse::<u64>(),
                    !frac.is_empty() && frac.len() <= 9 && frac.bytes().all(|b| b.is_ascii_digit()),
                ) {
                    let nanos: u64 = format!("{frac:0<9}").parse().unwrap_or(0);
                    return Ok((secs * 1_000_000_000 + nanos, &s[end..]));
                }
            }
        }
        // The first word may be the flags column ("d....").
        s = s[end..].trim_start();
    }
    Err("timestamp: no SECONDS.FRACTION: after the CPU column".into())
}

fn lost_cpu(text: &str) -> Option<u32> {
    // tracefs: "CPU:1 [LOST 123 EVENTS]"; trace-cmd: "CPU:1 [123 EVENTS DROPPED]".
    if !(text.contains("[LOST ") || text.contains("EVENTS DROPPED]")) {
        return None;
    }
    let cpu = text.strip_prefix("CPU:")?;
    let end = cpu.find(|c: char| !c.is_ascii_digit()).unwrap_or(cpu.len());
    cpu[..end].parse().ok()
}

fn syscall_name(name: &str, prefix: &str) -> Result<String, String> {
    name.strip_prefix(prefix)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .ok_or_else(|| format!("event '{name}': not a syscall event"))
}

/// `fd: 3, buf: 0x7ffc0ac7b8f8, count: 0x340`: the values in order. The
/// kernel prints values under ten in decimal and the rest in hex; verbose
/// mode puts the type before the name, so the value is what follows the
/// last ": ".
fn syscall_args(name: &str, text: &str) -> Result<Vec<u64>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(", ")
        .map(|arg| {
            let (arg_name, v) = arg
                .rsplit_once(": ")
                .ok_or_else(|| format!("{name}: argument '{arg}' is not NAME: VALUE"))?;
            let arg_name = arg_name.rsplit(' ').next().unwrap_or(arg_name);
            number(v.trim()).ok_or_else(|| format!("{name}: {arg_name}: '{v}' is not a number"))
        })
        .collect()
}

fn syscall_ret(name: &str, text: &str) -> Result<i64, String> {
    number(text.trim())
        .map(|v| v as i64)
        .ok_or_else(|| format!("{name}: return value '{}' is not a number", text.trim()))
}

fn number(v: &str) -> Option<u64> {
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v
            .parse::<u64>()
            .ok()
            .or_else(|| v.parse::<i64>().ok().map(|n| n as u64)),
    }
}

fn event(name: &str, fields: &str, page_shift: u32) -> Result<Option<TraceEvent>, String> {
    let named = |e: String| format!("{name}: {e}");
    if let Some(call) = name.strip_prefix("sys_enter_") {
        return Ok(Some(TraceEvent::SysEnter {
            call: call.to_string(),
            args: syscall_args(name, fields)?,
        }));
    }
    if let Some(call) = name.strip_prefix("sys_exit_") {
        return Ok(Some(TraceEvent::SysExit {
            call: call.to_string(),
            ret: syscall_ret(name, fields)?,
        }));
    }
    let f = Fields::new(fields);
    let pid = |key: &str| -> Result<u32, String> {
        let v = f.get(key).map_err(named)?;
        v.parse()
            .map_err(|_| named(format!("{key}: '{v}' is not a pid")))
    };
    Ok(Some(match name {
        "task_newtask" => {
            let flags = f.get("clone_flags").map_err(named)?;
            let clone_flags = u64::from_str_radix(flags.trim_start_matches("0x"), 16)
                .map_err(|_| named(format!("clone_flags: '{flags}' is not hex")))?;
            TraceEvent::NewTask {
                pid: pid("pid")?,
                clone_flags,
            }
        }
        "sched_process_exec" => TraceEvent::Exec {
            pid: pid("pid")?,
            old_pid: pid("old_pid")?,
        },
        "sched_process_exit" => TraceEvent::Exit { pid: pid("pid")? },
        "page_fault_kernel" => TraceEvent::KernelFault {
            address: f.hex("address").ok(),
            error_code: f.hex("error_code").map_err(named)?,
        },
        _ => match parse_tracepoint(name, fields, page_shift).map_err(named)? {
            Some(p) => match (p.inode, p.tp) {
                (None, Tracepoint::PageFaultUser { address, .. }) => TraceEvent::UserFault {
                    address,
                    error_code: p.error_code,
                },
                (Some(inode), tp) => TraceEvent::File { inode, tp },
                (None, _) => return Ok(None),
            },
            None => return Ok(None),
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(line: &str) -> TraceLine {
        match parse_line(line, 12).unwrap() {
            Line::Event(e) => e,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn tracefs_lines() {
        let l = ev("              dd-15577   [000] .....   475.188822: sys_read(fd: 0, buf: 0x7f2bbe255000, count: 0x100000)");
        assert_eq!((l.task.as_str(), l.tid, l.cpu), ("dd", 15577, 0));
        assert_eq!(l.ts_ns, 475_188_822_000);
        assert_eq!(
            l.event,
            TraceEvent::SysEnter {
                call: "read".into(),
                args: vec![0, 0x7f2bbe255000, 0x100000]
            }
        );
        let l = ev(
            "              dd-15577   [000] .....   475.188537: sys_openat -> 0xfffffffffffffffe",
        );
        assert_eq!(
            l.event,
            TraceEvent::SysExit {
                call: "openat".into(),
                ret: -2
            }
        );
        let l = ev("       lto cgu.0-5697    [000] d....   145.107165: page_fault_user: address=0x7f35ba7a3000 ip=0x7f35d0d2ef8b error_code=0x6");
        assert_eq!((l.task.as_str(), l.tid), ("lto cgu.0", 5697));
        assert_eq!(
            l.event,
            TraceEvent::UserFault {
                address: 0x7f35ba7a3000,
                error_code: 6
            }
        );
        let l = ev("              dd-15577   [000] d....   475.190505: page_fault_kernel: address=0x7f2bbe255000 ip=_copy_to_iter error_code=0x2");
        assert_eq!(
            l.event,
            TraceEvent::KernelFault {
                address: Some(0x7f2bbe255000),
                error_code: 2
            }
        );
        let l = ev("              dd-15577   [000] .....   475.188823: page_cache_sync_ra: dev=254:0 ino=5141ae index=2560 req_count=256 order=0 size=0 async_size=0 ra_pages=2048 mmap_miss=0 prev_pos=-1");
        assert!(matches!(
            l.event,
            TraceEvent::File {
                tp: Tracepoint::SyncRa { index: 2560, .. },
                ..
            }
        ));
        let l = ev("            bash-15578   [001] .....   475.1: task_newtask: pid=15579 comm=bash clone_flags=1200000 oom_score_adj=0");
        assert_eq!(
            l.event,
            TraceEvent::NewTask {
                pid: 15579,
                clone_flags: 0x1200000
            }
        );
        assert_eq!(l.ts_ns, 475_100_000_000);
        let l = ev("              dd-15577   [000] .....   475.188029: sched_process_exec: filename=/usr/bin/dd pid=15577 old_pid=15577");
        assert_eq!(
            l.event,
            TraceEvent::Exec {
                pid: 15577,
                old_pid: 15577
            }
        );
        let l = ev("              dd-15577   [000] .....   475.194517: sched_process_exit: comm=dd pid=15577 prio=120 group_dead=true");
        assert_eq!(l.event, TraceEvent::Exit { pid: 15577 });
    }

    #[test]
    fn trace_cmd_lines() {
        let l = ev("h3scratch15575:               dd-15577 [000]   475.188300: sys_enter_read:       fd: 0x00000003, buf: 0x7ffc0ac7b8f8, count: 0x00000340");
        assert_eq!((l.task.as_str(), l.tid), ("dd", 15577));
        assert_eq!(
            l.event,
            TraceEvent::SysEnter {
                call: "read".into(),
                args: vec![3, 0x7ffc0ac7b8f8, 0x340]
            }
        );
        let l = ev("               dd-15577 [000]   475.188302: sys_exit_read:        0x340");
        assert_eq!(
            l.event,
            TraceEvent::SysExit {
                call: "read".into(),
                ret: 0x340
            }
        );
        let l = ev("h3scratch15575:               dd-15577 [000]   475.187995: mm_filemap_fault:     dev=254:0 ino=3c52d ofs=86016");
        assert!(matches!(
            l.event,
            TraceEvent::File {
                tp: Tracepoint::FilemapFault { index: 21 },
                ..
            }
        ));
        // record-tgid's column.
        let l = ev("             cat-1234    (   1230) [001] .....   10.5: sys_close(fd: 3)");
        assert_eq!((l.tid, l.cpu), (1234, 1));
    }

    #[test]
    fn headers_and_other_events_are_skipped() {
        for l in [
            "# tracer: nop",
            "",
            "cpus=2",
            "CPU 1 is empty",
            "  <idle>-0 [001] d..2. 1.000001: sched_switch: prev_comm=swapper/1 prev_pid=0",
        ] {
            assert_eq!(parse_line(l, 12), Ok(Line::Other), "{l}");
        }
        assert_eq!(
            parse_line("CPU:1 [LOST 1234 EVENTS]", 12),
            Ok(Line::Lost { cpu: 1 })
        );
    }

    #[test]
    fn bad_fields_are_named() {
        let e = parse_line(
            "  cat-1 [000] ..... 1.0: mm_filemap_fault: dev=254:0 ino=3c52d ofs=x",
            12,
        )
        .unwrap_err();
        assert_eq!(e, "mm_filemap_fault: ofs: 'x' is not a number");
        let e = parse_line("  cat-1 [000] ..... 1.0: sys_read(fd: x)", 12).unwrap_err();
        assert_eq!(e, "sys_read: fd: 'x' is not a number");
        let e = parse_line("  cat-1 [000] ..... oops: sys_read(fd: 1)", 12).unwrap_err();
        assert!(e.starts_with("timestamp:"), "{e}");
    }
}
