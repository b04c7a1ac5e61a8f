//! `run`, `check` and `compare` on recordings of real programs made with
//! `folioscope record` on a machine of this project's kind (Linux 6.18.44,
//! ext4 on virtio, read_ahead_kb 8192), kept in tests/fixtures/replay:
//! `tac` of a 64 MiB file, `cp` of a 512 MiB file (copy_file_range), the C
//! loader of xtask/kernel/loader.c moving a 512 MiB file up a page under
//! MADV_HUGEPAGE (a backward reader with write faults on PMD-mapped
//! folios), seed 000's own `revwalk` (xtask/kernel/revwalk.c) under
//! MADV_HUGEPAGE on a 512 MiB file, and `sqlite3` scanning a 60 MB table.
//! Each was checked identical to the kernel when recorded; the model must
//! stay so.

use std::path::PathBuf;

use folioscope_scenario::recording::{Item, Recording};

use super::folioscope;

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/replay/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

const RECORDINGS: [&str; 5] = [
    "tac-64m.rec.gz",
    "cp-512m.rec.gz",
    "loader-hugepage-512m.rec.gz",
    "revwalk-hugepage-512m.rec.gz",
    "sqlite-60m.rec.gz",
];

#[test]
fn each_recording_checks_identical() {
    for name in RECORDINGS {
        let (code, out, err) = folioscope(&["check", "--recording", &fixture(name)]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.contains("events: identical:"), "{name}: {out}");
        assert!(out.contains("end state: identical:"), "{name}: {out}");
    }
}

#[test]
fn run_events_print_the_recorded_stream() {
    // The model's tracepoint lines, filtered as a user would with grep,
    // equal the recording's own events in tracefs's form.
    let path = fixture("loader-hugepage-512m.rec.gz");
    let (code, out, err) = folioscope(&["run", "--recording", &path, "--events"]);
    assert_eq!(code, 0, "{err}");
    // As `grep -E '^(page_cache_[a-z_]+|mm_filemap_add_to_page_cache): dev'`.
    let keep = |l: &&str| {
        l.split_once(": dev").is_some_and(|(name, _)| {
            name.starts_with("page_cache_") || name == "mm_filemap_add_to_page_cache"
        })
    };
    let model: Vec<&str> = out.lines().filter(keep).collect();
    let rec = Recording::parse(&std::fs::read(&path).expect("fixture")).expect("parses");
    let inode = rec.files[0].inode;
    let real: Vec<String> = rec
        .events(0)
        .iter()
        .map(|tp| folioscope_scenario::tracepoint_text::format_tracepoint(tp, inode, 12))
        .filter(|l| keep(&l.as_str()))
        .collect();
    assert!(real.len() > 500, "{} events", real.len());
    assert_eq!(model, real);
}

#[test]
fn the_what_if_table_replays_the_program_on_every_kernel() {
    let path = fixture("revwalk-hugepage-512m.rec.gz");
    let (code, out, err) = folioscope(&["compare", "--recording", &path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().all(|l| l.len() <= 78), "{out}");
    let figures = |kernel: &str| -> Vec<String> {
        let line = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(kernel))
            .unwrap_or_else(|| panic!("no line for {kernel} in {out}"));
        line.split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect()
    };
    // The recorded kernel's line is what `run --recording` reports.
    let (_, run, _) = folioscope(&["run", "--recording", &path, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&run).expect("json");
    assert_eq!(figures("v6.18")[0], v["major_faults"].to_string(), "{out}");
    // The series reads the PMD below a descending fault with the faulting
    // one: half the major faults of the recorded kernel.
    let majors = |k: &str| figures(k)[0].parse::<u64>().expect("majors");
    assert_eq!(majors("v6.18"), 256, "{out}");
    assert!(majors("v7.4-rc2+desc-ra") < majors("v6.18"), "{out}");
    // Mapped accesses are replayed as the faults the recorded kernel took,
    // and the table says so.
    assert!(out.contains("A recording knows the faults"), "{out}");
    let (code, json, _) = folioscope(&["compare", "--recording", &path, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["lines"].as_array().map(Vec::len), Some(9));
}

/// A recording rewritten by `edit` as plain text (which `parse` reads too).
fn edited(name: &str, out: &str, edit: impl Fn(Recording) -> String) -> PathBuf {
    let bytes = std::fs::read(fixture(name)).expect("fixture");
    let rec = Recording::parse(&bytes).expect("parses");
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(out);
    std::fs::write(&path, edit(rec)).expect("written");
    path
}

#[test]
fn bad_recordings_get_one_line_naming_what_is_wrong() {
    let text = |rec: &Recording| folioscope_scenario::recording::format::write_text(rec);
    // A damaged line.
    let bad = edited("tac-64m.rec.gz", "bad-line.rec", |r| {
        text(&r).replacen("\nr 0 ", "\nr zero ", 1)
    });
    let (code, _, err) = folioscope(&["check", "--recording", bad.to_str().unwrap_or("")]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("line ") && err.contains("'zero'"), "{err}");
    // One made on a kernel the model has no variant for.
    let other = edited("tac-64m.rec.gz", "other-kernel.rec", |mut r| {
        r.machine.release = "6.19.2".into();
        text(&r)
    });
    let (code, _, err) = folioscope(&["run", "--recording", other.to_str().unwrap_or("")]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("6.19.2"), "{err}");
    // One in which the program never used the file.
    let none = edited("tac-64m.rec.gz", "no-access.rec", |mut r| {
        r.items.retain(|i| matches!(i, Item::Event { .. }));
        text(&r)
    });
    let (code, _, err) = folioscope(&["check", "--recording", none.to_str().unwrap_or("")]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("accessed none"), "{err}");
}
