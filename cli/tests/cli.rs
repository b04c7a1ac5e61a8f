//! The binary's behaviour on good and bad input: bad input gets one line
//! naming the option and exit status 2, never a panic.

use std::process::Command;

#[path = "cli/record.rs"]
mod record;

fn folioscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_folioscope"))
        .args(args)
        .output()
        .expect("run folioscope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_input_is_one_line_naming_the_option_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--file-size", "0"], "--file-size"),
        (&["run", "--file-size", "lots"], "--file-size"),
        (&["run", "--file-size", "99999T"], "--file-size"),
        (&["run", "--page-size", "3000"], "--page-size"),
        (&["run", "--page-size", "2k"], "--page-size"),
        (&["run", "--pattern", "stride:0"], "--pattern"),
        (&["run", "--pattern", "random:0:1"], "--pattern"),
        (&["run", "--pattern", "random:100.5:1"], "--pattern"),
        (&["run", "--kernel", "v1.0"], "--kernel"),
        (&["run", "--madvise", "sometimes"], "--madvise"),
        (&["run", "--patch", "+nothing"], "--patch"),
        (
            &["run", "--pattern", "trace:/nonexistent/trace"],
            "--pattern",
        ),
        (
            &["run", "--step", "99999999", "--file-size", "1M"],
            "--step",
        ),
        (
            &["run", "--fault-around-bytes", "64M"],
            "--fault-around-bytes",
        ),
        (&["run", "--no-such-option"], "--no-such-option"),
        (&["run", "--fs", "zfs"], "--fs"),
        (&["run", "--tmpfs-huge", "on"], "--tmpfs-huge"),
        (&["run", "--fs", "tmpfs", "--pattern", "fwd"], "--pattern"),
        (
            &[
                "run",
                "--fs",
                "tmpfs",
                "--tmpfs-file",
                "sparse",
                "--hwpoison",
                "3",
                "--pattern",
                "read:4k",
            ],
            "--hwpoison",
        ),
        (
            &[
                "run",
                "--kernel",
                "v7.1-rc5+fbatch",
                "--patch",
                "fbatch-3-willy-shmem",
            ],
            "--kernel",
        ),
        (&["compare", "seed-9"], "seed"),
        (&["link", "--preset", "nope"], "--preset"),
        (&["link", "--compare", "v0"], "--compare"),
        (&["link", "--step", "99999999"], "--step"),
        (&["link", "--base-url", "http://x/?a=1"], "--base-url"),
        (&["export", "--file-size", "0"], "--file-size"),
    ];
    for (args, name) in cases {
        let (code, stdout, stderr) = folioscope(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(name), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_malformed_trace_line_is_named_by_number() {
    let dir = std::env::temp_dir().join(format!("folioscope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.trace");
    std::fs::write(&trace, "touch 1\n# fine\nread 0 4k\ntuch 3\n").unwrap();
    let arg = format!("trace:{}", trace.display());
    let (code, _, stderr) = folioscope(&["run", "--file-size", "1M", "--pattern", &arg]);
    assert_eq!(code, 2);
    assert!(stderr.contains("trace line 4"), "{stderr}");
}

#[test]
fn run_prints_json_with_the_documented_fields() {
    let (code, stdout, stderr) = folioscope(&[
        "run",
        "--file-size",
        "64M",
        "--pattern",
        "rev",
        "--madvise",
        "hugepage",
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    for f in [
        "kernel",
        "file_size",
        "page_size",
        "pattern",
        "madvise",
        "major_faults",
        "minor_faults",
        "bytes_read",
        "read_ios",
        "resident_pages",
        "resident",
        "folios",
        "mmap_miss",
        "xa_node_visits",
    ] {
        assert!(v.get(f).is_some(), "missing {f}");
    }
    // 64 MiB walked backwards under MADV_HUGEPAGE: one major fault per PMD.
    assert_eq!(v["major_faults"], 32);
    assert_eq!(v["folios"], serde_json::json!([[0, 9, 32]]));
}

#[test]
fn step_stops_early_and_events_name_kernel_functions() {
    let (code, stdout, _) = folioscope(&[
        "run",
        "--file-size",
        "16M",
        "--pattern",
        "rev",
        "--step",
        "1",
        "--events",
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("do_sync_mmap_readahead: window start 3071 size 2048 async_size 512"));
    assert!(stdout.contains("mm_account_fault: page 4095: major fault"));
    assert!(stdout.contains("step 1 of 4096"));
}

#[test]
fn link_and_export_write_what_the_app_opens() {
    let (code, out, err) = folioscope(&[
        "link",
        "--preset",
        "seed000-rev-huge",
        "--step",
        "51234",
        "--base-url",
        "https://f.example/x/",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.trim(),
        "https://f.example/x/?v=1&preset=seed000-rev-huge&step=51234"
    );
    // Options given with a preset change it; defaults do not.
    let (_, out, _) = folioscope(&[
        "link",
        "--preset",
        "seed000-rev-huge",
        "--madvise",
        "sequential",
        "--base-url",
        "",
    ]);
    assert_eq!(
        out.trim(),
        "?v=1&preset=seed000-rev-huge&madvise=sequential"
    );
    let (code, out, err) = folioscope(&[
        "export",
        "--kernel",
        "v6.18",
        "--compare",
        "v7.4-rc2",
        "--file-size",
        "64M",
        "--pattern",
        "rev",
        "--madvise",
        "hugepage",
        "--step",
        "100",
        "--events",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().all(|l| l.chars().count() <= 78), "{out}");
    // The link is longer than a line: wrapped in <...>, and joined again.
    assert!(
        out.contains("<http://127.0.0.1:8080/?v=1&kernel=v6.18,v7.4-rc2&size=64M"),
        "{out}"
    );
    let parsed = folioscope_scenario::export::parse_text(&out).unwrap();
    assert_eq!(parsed.ignored, vec![]);
    assert_eq!(parsed.view.step, Some(100));
    assert_eq!(
        parsed.view.compare.map(|k| k.label()),
        Some("v7.4-rc2".into())
    );
}
