//! The binary's behaviour on good and bad input: bad input gets one line
//! naming the option and exit status 2, never a panic.

use std::process::Command;

use folioscope_scenario::link::{site_url, LOCAL_URL};

#[path = "cli/record.rs"]
mod record;
#[path = "cli/replay.rs"]
mod replay;

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
        (&["link", "--story"], "--story"),
        // A value that starts with '-' is a bad value, not an unknown option.
        (&["run", "--file-size", "-5"], "--file-size"),
        (&["run", "--read-ahead-kb", "-1"], "--read-ahead-kb"),
        (&["run", "--thp", "maybe"], "--thp"),
        (&["run", "--exec", "sometimes"], "--exec"),
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
                "fbatch-3-shmem-iov-iter-zero",
            ],
            "--kernel",
        ),
        (&["compare", "seed-9"], "seed"),
        (&["link", "--preset", "nope"], "--preset"),
        (&["link", "--compare", "v0"], "--compare"),
        (
            &[
                "link",
                "--compare",
                "v6.18",
                "--compare",
                "v6.18",
                "--compare",
                "v6.18",
            ],
            "--compare",
        ),
        (
            &["link", "--preset", "seed000-rev-huge", "--patch", "+x"],
            "--patch",
        ),
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
fn help_shows_every_scenario_options_value_and_default() {
    let (code, out, _) = folioscope(&["run", "--help"]);
    assert_eq!(code, 0);
    for p in &folioscope_scenario::params::PARAMS {
        let option = format!("--{}", p.flag);
        let at = out
            .find(&option)
            .unwrap_or_else(|| panic!("{option} missing"));
        let entry = &out[at..];
        let entry = &entry[..entry[2..].find("\n      --").map_or(entry.len(), |e| e + 2)];
        assert!(entry.contains(p.value_name), "{entry}");
        assert!(
            entry.contains(&format!("[default: {}]", p.default)),
            "{entry}"
        );
    }
    assert!(out.contains("--thp <on|off>"), "{out}");
}

#[test]
fn base_url_help_says_where_the_default_points() {
    let (code, out, _) = folioscope(&["link", "--help"]);
    assert_eq!(code, 0);
    let base = site_url().unwrap_or(LOCAL_URL);
    assert!(out.contains(&format!("[default: {base}]")), "{out}");
    assert!(out.contains("FOLIOSCOPE_SITE_URL"), "{out}");
    let (_, out, _) = folioscope(&["link"]);
    assert_eq!(out.trim(), format!("{base}?v=1"));
}

#[test]
fn exec_alone_switches_it_on() {
    for args in [
        &["--exec"][..],
        &["--exec", "on"],
        &["--exec", "--thp", "on"],
    ] {
        let (code, out, err) = folioscope(&[&["link", "--base-url", ""], args].concat());
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.trim(), "?v=1&exec=on", "{args:?}");
    }
    let (_, out, _) = folioscope(&["link", "--base-url", "", "--exec", "off"]);
    assert_eq!(out.trim(), "?v=1");
}

#[test]
fn a_malformed_trace_line_is_named_by_number() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace");
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
    // --patch acts on the preset's kernels, every one of them, and keeps
    // the preset.
    let (code, out, err) = folioscope(&[
        "link",
        "--preset",
        "seed000-rev-huge",
        "--patch",
        "+desc-ra-2-hugepage",
        "--base-url",
        "",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.trim(),
        "?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2+desc-ra-2-hugepage,\
         v7.4-rc2+desc-ra,v7.4-rc2-before-0b9c0aeba938+desc-ra-2-hugepage"
    );
    // --compare replaces the preset's other kernels.
    let (_, out, _) = folioscope(&[
        "link",
        "--preset",
        "seed000-rev-huge",
        "--compare",
        "v7.4-rc2+desc-ra",
        "--base-url",
        "",
    ]);
    assert_eq!(
        out.trim(),
        "?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2,v7.4-rc2+desc-ra"
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
    // The link, however long, is one line that starts with the default
    // base; every other line fits 78 columns.
    let base = site_url().unwrap_or(LOCAL_URL);
    let link =
        format!("{base}?v=1&kernel=v6.18,v7.4-rc2&size=64M&madvise=hugepage&pattern=rev&step=100");
    assert!(out.lines().any(|l| l == link), "{out}");
    assert!(
        out.lines()
            .filter(|l| *l != link)
            .all(|l| l.chars().count() <= 78),
        "{out}"
    );
    let parsed = folioscope_scenario::export::parse_text(&out).unwrap();
    assert_eq!(parsed.ignored, vec![]);
    assert_eq!(parsed.view.step, Some(100));
    assert_eq!(
        parsed
            .view
            .compare
            .iter()
            .map(|k| k.label())
            .collect::<Vec<_>>(),
        ["v7.4-rc2"]
    );
}

#[test]
fn a_seed_story_is_listed_in_the_mail_text_by_the_model() {
    let (code, out, err) = folioscope(&[
        "export",
        "--preset",
        "seed000-rev-huge",
        "--story",
        "--file-size",
        "256M",
        "--base-url",
        "https://f.example/x/",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("&story=seed"), "{out}");
    let stops: Vec<&str> = out
        .lines()
        .skip_while(|l| *l != "story:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(stops.len(), 6, "{out}");
    // The first stop shows the end of the file, which the backward walk
    // has cached: pages up to the last of 65536.
    assert!(stops[0].starts_with("  1. step 1, pages "), "{out}");
    assert!(stops[0].contains("-65535: Backward walk"), "{out}");
    assert!(out.contains("passes MMAP_LOTSAMISS at access"), "{out}");
}

#[test]
fn kernels_says_which_patch_changes_no_behaviour() {
    let (code, stdout, _) = folioscope(&["kernels"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = stdout.lines().collect();
    let noted: Vec<&str> = lines
        .windows(2)
        .filter(|w| w[1].contains("no change in behaviour"))
        .filter_map(|w| w[0].split_whitespace().next())
        .collect();
    assert_eq!(noted, ["desc-ra-1-helpers"]);
    // Patch names are written in their new form only.
    assert!(!stdout.contains("willy"), "{stdout}");
}

#[test]
fn former_patch_names_still_parse() {
    let (code, stdout, stderr) = folioscope(&[
        "link",
        "--kernel",
        "v7.4-rc2-fbatch-1-willy",
        "--base-url",
        "http://h/",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("fbatch-1-exit-after-advance"), "{stdout}");
}
