//! `folioscope record`: bad input, `--from-trace` on saved traces of
//! `dd if=F bs=64k skip=10` (a 1 MiB file, inode 254:0:51473d) in both
//! tracefs's and trace-cmd's forms, and, as root with tracefs, real
//! programs recorded on this machine.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use folioscope_core::Access;
use folioscope_scenario::recording::Recording;

use super::folioscope;

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/record/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn read(path: &Path) -> Recording {
    Recording::parse(&std::fs::read(path).expect("the recording was written")).expect("it parses")
}

#[test]
fn record_refuses_bad_input_in_one_line() {
    let bad = tmp("bad.trace");
    std::fs::write(
        &bad,
        "  dd-1 [000] ..... 1.000001: sys_read(fd: 3, buf: 0x1, count: many)\n",
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    let dd = fixture("dd-skip-tracefs.txt");
    let cases: &[(&[&str], &str)] = &[
        (&["record", "--", "true"], "--file"),
        (&["record", "--file", "/etc/hostname"], "no program"),
        (
            &[
                "record",
                "--from-trace",
                "/nonexistent",
                "--release",
                "6.18.1",
            ],
            "--from-trace",
        ),
        (&["record", "--from-trace", &dd], "--release"),
        (
            &[
                "record",
                "--from-trace",
                bad,
                "--release",
                "6.18.1",
                "--file-size",
                "1M",
            ],
            "line 1: sys_read: count: 'many' is not a number",
        ),
        (
            &["record", "--from-trace", &dd, "--release", "6.18.1"],
            "--file-size",
        ),
        (
            &[
                "record",
                "--from-trace",
                &dd,
                "--release",
                "6.18.1",
                "--inode",
                "254:0",
                "--file-size",
                "1M",
            ],
            "--inode",
        ),
    ];
    for (args, want) in cases {
        let (code, out, err) = folioscope(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn from_trace_reads_tracefs_and_trace_cmd_alike() {
    let mut recs = Vec::new();
    for (name, out) in [
        ("dd-skip-tracefs.txt", "ft-tracefs.rec.gz"),
        ("dd-skip-trace-cmd.txt", "ft-trace-cmd.rec.gz"),
    ] {
        let out = tmp(out);
        // The inode is found (most pages added) and read_ahead_kb read
        // from the events.
        let (code, _, err) = folioscope(&[
            "record",
            "--from-trace",
            &fixture(name),
            "--release",
            "6.18.44",
            "--file-size",
            "1M",
            "-o",
            out.to_str().unwrap(),
            "--",
            "dd",
            "if=f1m",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(err.starts_with("wrote "), "{err}");
        recs.push(read(&out));
    }
    assert_eq!(recs[0], recs[1]);
    let rec = &recs[0];
    assert_eq!(rec.files[0].inode.to_string(), "254:0:51473d");
    assert_eq!(rec.files[0].read_ahead_kb, 8192);
    assert_eq!(rec.command, ["dd", "if=f1m"]);
    // dd opens the file, dup2s it onto fd 0 and skips 10 blocks of 64 KiB.
    let want: Vec<Access> = std::iter::once(Access::Open { ofd: 0 })
        .chain((10..=16).map(|k| Access::ReadAt {
            ofd: 0,
            offset: k * 65536,
            len: 65536,
        }))
        .collect();
    assert_eq!(rec.accesses(0), want);
    assert!(rec.scenario(0).is_ok());
    assert_eq!(rec.events(0).len(), 99);
}

/// Why real-kernel tests cannot run here, if they cannot.
fn cannot_trace() -> Option<String> {
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root".into());
    }
    if !Path::new("/sys/kernel/tracing/instances").is_dir() {
        return Some("tracefs is not mounted at /sys/kernel/tracing".into());
    }
    None
}

fn test_file(name: &str, size: usize) -> PathBuf {
    let p = tmp(name);
    if std::fs::metadata(&p).map(|m| m.len() as usize).ok() != Some(size) {
        let mut data = vec![0u8; size];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for b in data.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = (x >> 32) as u8 | 1;
        }
        std::fs::write(&p, &data).unwrap();
    }
    p
}

fn record(file: &Path, out: &str, cmd: &[String], extra: &[&str]) -> Recording {
    let out = tmp(out);
    let mut args: Vec<&str> = vec!["record", "--file", file.to_str().unwrap()];
    args.extend_from_slice(&["-o", out.to_str().unwrap()]);
    args.extend_from_slice(extra);
    args.push("--");
    args.extend(cmd.iter().map(String::as_str));
    let (code, _, err) = folioscope(&args);
    assert_eq!(code, 0, "{cmd:?}: {err}");
    assert!(
        err.lines().any(|l| l.starts_with("wrote ")),
        "{cmd:?}: {err}"
    );
    read(&out)
}

fn reads(rec: &Recording) -> Vec<(u64, u64)> {
    rec.accesses(0)
        .into_iter()
        .filter_map(|a| match a {
            Access::ReadAt { offset, len, .. } | Access::SpliceRead { offset, len, .. } => {
                Some((offset, len))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn records_real_programs() {
    if let Some(why) = cannot_trace() {
        println!("skipped: records_real_programs: {why}");
        return;
    }
    let size = 64u64 << 20;
    let f = test_file("rec-64m", size as usize);
    let fs = f.to_str().unwrap().to_string();
    let copy = tmp("rec-64m.copy").to_str().unwrap().to_string();
    let cmd = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    let cases: Vec<(&str, Vec<String>)> = vec![
        ("cat", cmd(&["cat", &fs])),
        ("tac", cmd(&["tac", &fs])),
        ("tail", cmd(&["tail", "-c", "100000", &fs])),
        (
            "dd",
            cmd(&[
                "dd",
                &format!("if={fs}"),
                "of=/dev/null",
                "bs=64k",
                "skip=10",
            ]),
        ),
        // cp reads with copy_file_range.
        (
            "cp",
            cmd(&["sh", "-c", &format!("rm -f {copy}; exec cp {fs} {copy}")]),
        ),
    ];
    for (name, cmd) in &cases {
        let a = record(&f, &format!("rec-{name}-1.rec.gz"), cmd, &[]);
        let b = record(&f, &format!("rec-{name}-2.rec.gz"), cmd, &[]);
        assert!(a.scenario(0).is_ok(), "{name}");
        // The program asked the same of its file both times.
        assert_eq!(a.accesses(0), b.accesses(0), "{name}");
        assert!(
            a.end[0].as_ref().is_some_and(|e| !e.resident.is_empty()),
            "{name}"
        );
        let r = reads(&a);
        let first = *r.first().unwrap_or_else(|| panic!("{name}: no reads"));
        match *name {
            "cat" => assert_eq!(first.0, 0, "{name}"),
            "tac" => assert!(first.0 > size / 2, "{name}: {first:?}"),
            "tail" => assert!(first.0 >= size - 100_000 - 8192, "{name}: {first:?}"),
            "dd" => assert_eq!(first, (10 * 65536, 65536), "{name}"),
            _ => assert!(
                a.accesses(0)
                    .iter()
                    .any(|x| matches!(x, Access::SpliceRead { offset: 0, .. })),
                "{name}: {:?}",
                a.accesses(0)
            ),
        }
    }
}

#[test]
fn a_kept_trace_gives_the_same_recording_from_trace() {
    if let Some(why) = cannot_trace() {
        println!("skipped: a_kept_trace_gives_the_same_recording_from_trace: {why}");
        return;
    }
    let f = test_file("keep-1m", 1 << 20);
    let trace = tmp("keep-1m.trace");
    let cmd: Vec<String> = [
        "dd",
        &format!("if={}", f.display()),
        "of=/dev/null",
        "bs=16k",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let live = record(
        &f,
        "keep-live.rec.gz",
        &cmd,
        &["--keep-trace", trace.to_str().unwrap()],
    );
    let out = tmp("keep-offline.rec.gz");
    let (code, _, err) = folioscope(&[
        "record",
        "--from-trace",
        trace.to_str().unwrap(),
        "--file",
        f.to_str().unwrap(),
        "--release",
        &live.machine.release,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let offline = read(&out);
    assert_eq!(offline.items, live.items);
    assert_eq!(offline.files, live.files);
}

#[test]
fn ctrl_c_stops_the_program_and_leaves_no_instance() {
    if let Some(why) = cannot_trace() {
        println!("skipped: ctrl_c_stops_the_program_and_leaves_no_instance: {why}");
        return;
    }
    let f = test_file("sigint-4k", 4096);
    let child = Command::new(env!("CARGO_BIN_EXE_folioscope"))
        .args(["record", "--file", f.to_str().unwrap(), "-o"])
        .arg(tmp("sigint.rec.gz"))
        .args(["--", "sleep", "30"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let instance = PathBuf::from(format!(
        "/sys/kernel/tracing/instances/folioscope-{}-prog",
        child.id()
    ));
    let deadline = Instant::now() + Duration::from_secs(20);
    while !instance.exists() {
        assert!(Instant::now() < deadline, "the instance never appeared");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Give the program time to be released and running.
    std::thread::sleep(Duration::from_millis(300));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("interrupted by signal 2"), "{err}");
    assert!(!instance.exists());
    let watch = PathBuf::from(instance.to_str().unwrap().replace("-prog", "-watch"));
    assert!(!watch.exists());
}

/// The kernel's `print fmt` with `values` put in, as tracefs renders it.
fn render(fmt: &str, values: &[u64]) -> String {
    let mut out = String::new();
    let mut vals = values.iter();
    let mut rest = fmt;
    while let Some(p) = rest.find('%') {
        out.push_str(&rest[..p]);
        let spec_len = rest[p + 1..]
            .find(['d', 'u', 'x', 's'])
            .expect("a conversion")
            + 2;
        let spec = &rest[p..p + spec_len];
        let v = *vals.next().expect("a value for each conversion");
        out.push_str(&match spec {
            "%lx" => format!("{v:x}"),
            "%ps" => format!("0x{v:x}"),
            "%lld" => format!("{}", v as i64),
            _ => v.to_string(),
        });
        rest = &rest[p + spec_len..];
    }
    out.push_str(rest);
    out
}

#[test]
fn tracepoint_text_is_this_kernels_print_fmt() {
    use folioscope_core::{RaFields, Tracepoint};
    use folioscope_scenario::tracepoint_text::{format_tracepoint, TraceInode};
    let events = Path::new("/sys/kernel/tracing/events");
    if !events.join("filemap").is_dir() {
        println!("skipped: tracepoint_text_is_this_kernels_print_fmt: no tracefs events here");
        return;
    }
    let f = TraceInode {
        major: 254,
        minor: 0,
        ino: 0x51218d,
    };
    let ra = RaFields {
        order: 2,
        size: 2048,
        async_size: 512,
        ra_pages: 2048,
        mmap_miss: 7,
        prev_pos: -1,
    };
    let cases: Vec<(&str, Tracepoint, Vec<u64>)> = vec![
        (
            "readahead/page_cache_sync_ra",
            Tracepoint::SyncRa {
                index: 5,
                req_count: 32,
                ra,
            },
            vec![254, 0, 0x51218d, 5, 32, 2, 2048, 512, 2048, 7, u64::MAX],
        ),
        (
            "readahead/page_cache_async_ra",
            Tracepoint::AsyncRa {
                index: 5,
                req_count: 32,
                ra,
            },
            vec![254, 0, 0x51218d, 5, 32, 2, 2048, 512, 2048, 7, u64::MAX],
        ),
        (
            "readahead/page_cache_ra_order",
            Tracepoint::RaOrder { index: 5, ra },
            vec![254, 0, 0x51218d, 5, 2, 2048, 512, 2048],
        ),
        (
            "readahead/page_cache_ra_unbounded",
            Tracepoint::RaUnbounded {
                index: 5,
                nr_to_read: 16,
                lookahead_size: 4,
            },
            vec![254, 0, 0x51218d, 5, 16, 4],
        ),
        (
            "filemap/mm_filemap_add_to_page_cache",
            Tracepoint::AddToPageCache { index: 3, order: 9 },
            vec![254, 0, 0x51218d, 0, 3 << 12, 9],
        ),
        (
            "filemap/mm_filemap_delete_from_page_cache",
            Tracepoint::DeleteFromPageCache { index: 3, order: 9 },
            vec![254, 0, 0x51218d, 0, 3 << 12, 9],
        ),
        (
            "filemap/mm_filemap_fault",
            Tracepoint::FilemapFault { index: 3 },
            vec![254, 0, 0x51218d, 3 << 12],
        ),
        (
            "filemap/mm_filemap_map_pages",
            Tracepoint::MapPages {
                index: 3,
                last_index: 18,
            },
            vec![254, 0, 0x51218d, 3 << 12, (19 << 12) - 1],
        ),
        (
            "filemap/mm_filemap_get_pages",
            Tracepoint::GetPages {
                index: 3,
                last_index: 18,
            },
            vec![254, 0, 0x51218d, 3 << 12, (19 << 12) - 1],
        ),
        (
            "exceptions/page_fault_user",
            Tracepoint::PageFaultUser {
                address: 0x7f0000001000,
                write: true,
            },
            vec![0x7f0000001000, 0, 6],
        ),
    ];
    for (event, tp, values) in cases {
        let Ok(format) = std::fs::read_to_string(events.join(event).join("format")) else {
            println!("skipped: {event}: its format is not readable here");
            continue;
        };
        let fmt = format
            .lines()
            .find_map(|l| l.strip_prefix("print fmt: \""))
            .and_then(|l| l.split('"').next())
            .expect("a print fmt line");
        let name = event.rsplit('/').next().unwrap();
        assert_eq!(
            format_tracepoint(&tp, f, 12),
            format!("{name}: {}", render(fmt, &values)),
            "{event}"
        );
    }
}
