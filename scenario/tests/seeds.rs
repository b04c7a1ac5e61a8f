//! The seeds' tables from the model: the "done when" conditions of the
//! patch-series issue, and snapshots that pin every figure of every row.
//! Set UPDATE_SNAPSHOTS=1 to rewrite the snapshots after a deliberate
//! change, and read the diff.

use std::path::PathBuf;

use folioscope_scenario::compare::{compare, Comparison, Line};
use folioscope_scenario::seeds::{rows, Seed};

fn run(seed: Seed) -> Comparison {
    compare(seed, &rows()).expect("the seed's rows run")
}

fn line<'a>(c: &'a Comparison, row: &str, kernel: &str) -> &'a Line {
    c.rows
        .iter()
        .find(|r| r.id == row)
        .unwrap_or_else(|| panic!("no row {row}"))
        .lines
        .iter()
        .find(|l| l.kernel == kernel)
        .unwrap_or_else(|| panic!("no kernel {kernel} in {row}"))
}

fn snapshot(name: &str, text: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, text).expect("write snapshot");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == text,
        "{name} changed; if that is intended, run with UPDATE_SNAPSHOTS=1 and read the diff.\n--- want\n{want}\n--- got\n{text}"
    );
}

#[test]
fn seed_000_as_the_issue_asks() {
    let c = run(Seed::S000);
    let rc2 = "v7.4-rc2";
    let desc = "v7.4-rc2+desc-ra";
    // The backward MADV_HUGEPAGE walk: at least 100x the major faults.
    let a = line(&c, "seed000-rev-huge", rc2).model.major_faults;
    let b = line(&c, "seed000-rev-huge", desc).model.major_faults;
    assert!(a >= 100 * b, "{a} vs {b}");
    // MADV_SEQUENTIAL on v7.4-rc2 reads page by page.
    assert_eq!(line(&c, "seed000-rev-seq", rc2).model.major_faults, 524_288);
    // The patched walks take at most 1,100 major faults.
    for row in ["seed000-rev-huge", "seed000-rev-seq"] {
        let m = line(&c, row, desc).model.major_faults;
        assert!(m <= 1100, "{row}: {m}");
    }
    // Forward walks are the same on both kernels.
    for row in ["seed000-fwd-huge", "seed000-fwd-seq"] {
        assert_eq!(line(&c, row, rc2).model, line(&c, row, desc).model, "{row}");
    }
    // The hole between two cached ranges: PMD-mapped 300 out of 300 times.
    for k in [rc2, desc] {
        assert_eq!(line(&c, "seed000-hole", k).model.holes, Some((300, 300)));
    }
    // The 16 GiB rows: patched and unpatched within 2% of each other.
    for row in [
        "seed000-random1-normal",
        "seed000-random1-huge",
        "seed000-stride64",
        "seed000-memcg",
    ] {
        let (x, y) = (&line(&c, row, rc2).model, &line(&c, row, desc).model);
        let close = |p: u64, q: u64| (p as f64 - q as f64).abs() <= 0.02 * p.max(q).max(1) as f64;
        assert!(
            close(x.bytes_read, y.bytes_read),
            "{row}: bytes {x:?} {y:?}"
        );
        assert!(
            close(x.major_faults, y.major_faults),
            "{row}: majors {x:?} {y:?}"
        );
    }
    // Every estimated time within 25% of the published one, but the
    // calibration row.
    for r in &c.rows {
        for l in &r.lines {
            if let (Some(e), Some(p), false, true) = (
                l.estimate,
                l.published_value,
                l.calibration,
                l.published.ends_with(" s"),
            ) {
                assert!(
                    (e - p).abs() <= 0.25 * p,
                    "{} {}: estimated {e:.2} s, published {p:.2} s",
                    r.id,
                    l.kernel
                );
            }
        }
    }
    snapshot("seed-000.txt", &c.to_text());
}

/// Seed 003 publishes one baseline figure per phase, so the model's costs
/// are fitted on it alone, and the patched columns are held to what the
/// model's counts say of them: the range of times every fit allows.
#[test]
fn seed_003_patched_times_lie_where_the_counts_put_them() {
    let c = run(Seed::S003);
    let base_kernel = "mm-2026-05-28";
    for row in ["seed003-cold", "seed003-random"] {
        let base = line(&c, row, base_kernel);
        let base_ms = base.published_value.expect("a published time");
        // The baseline is fitted, and marked so.
        assert!(base.calibration, "{row}");
        assert_eq!(base.estimate, Some(base_ms), "{row}");
        for kernel in ["mm-2026-05-28+exec-v6", "mm-2026-05-28+exec-v7"] {
            let l = line(&c, row, kernel);
            assert!(
                !l.calibration,
                "{row} {kernel}: no patched figure is fitted on"
            );
            // The patches change the counts unequally, so one figure
            // predicts no single time: the table says so.
            assert_eq!(l.estimate, None, "{row} {kernel}");
            assert!(c
                .rows
                .iter()
                .any(|r| r.id == row && r.no_estimate.is_some()));
            let b = l.bounds.expect("a range");
            let high = b.high_ms.expect("an upper bound");
            let published = l.published_value.expect("a published time");
            // Every count is as low or lower: no fit makes the patched
            // kernels slower than the baseline...
            assert!(high <= base_ms + 1e-9, "{row} {kernel}: up to {high}");
            // ...and the published time lies in the range the counts allow.
            assert!(
                b.low_ms <= published && published <= high,
                "{row} {kernel}: published {published} outside {:.1}..{high:.1}",
                b.low_ms
            );
        }
    }
    // The counts behind the ranges: far fewer faults and I/Os for the same
    // bytes when cold; when warm, no faults, and a mapping that fits the
    // TLB's reach where the baseline's does not.
    let base = &line(&c, "seed003-cold", base_kernel).model;
    let v7 = &line(&c, "seed003-cold", "mm-2026-05-28+exec-v7").model;
    assert_eq!(v7.bytes_read, base.bytes_read);
    assert!(v7.major_faults + v7.minor_faults < (base.major_faults + base.minor_faults) / 10);
    assert!(v7.read_ios < base.read_ios / 10);
    let rb = &line(&c, "seed003-random", base_kernel).model;
    let rv = &line(&c, "seed003-random", "mm-2026-05-28+exec-v7").model;
    assert_eq!(
        (rb.major_faults, rv.major_faults),
        (0, 0),
        "the random phase is warm"
    );
    let entries = folioscope_scenario::exec_cost::TLB_ENTRIES;
    assert!(rb.translations > entries, "{}", rb.translations);
    assert!(rv.translations <= entries, "{}", rv.translations);
    snapshot("seed-003.txt", &c.to_text());
}

#[test]
fn seed_004_predicts_the_sign_of_every_clear_change() {
    let c = run(Seed::S004);
    let cost = c.shmem_cost.expect("seed 004 has a cost model");
    assert_eq!(cost.rows_fitted, 24);
    assert!(cost.worst_fit_error <= 0.10, "{}", cost.worst_fit_error);
    let mut checked = 0;
    for r in &c.rows {
        let base = line(&c, &r.id, "v7.1-rc5");
        let patched = line(&c, &r.id, "v7.1-rc5+fbatch");
        // The fit, row by row, on the baseline column.
        let (est, publ) = (base.estimate.unwrap(), base.published_value.unwrap());
        assert!(
            (est / publ - 1.0).abs() <= 0.10,
            "{}: fit {est:.0} vs {publ:.0}",
            r.id
        );
        let published = patched.published_value.unwrap() / publ - 1.0;
        let predicted = patched.estimate.unwrap() / est - 1.0;
        if published.abs() >= 0.05 {
            assert_eq!(
                predicted > 0.0,
                published > 0.0,
                "{}: predicted {:+.1}% published {:+.1}%",
                r.id,
                predicted * 100.0,
                published * 100.0
            );
            checked += 1;
        }
    }
    // 1M and 64k rows of normal (THP off), fallocated and both hole
    // tables: 14 rows with a change of 5% or more.
    assert_eq!(checked, 14);
    // The regression's cause: two lookups per 4 KiB of hole.
    let hole = line(&c, "seed004-thpoff-64k-hole", "v7.1-rc5+fbatch")
        .model
        .read_path
        .clone()
        .unwrap();
    assert_eq!(hole.xas_load, 2 * (1 << 18));
    assert_eq!(hole.shmem_get_folio, 1 << 18);
    snapshot("seed-004.txt", &c.to_text());
}

#[test]
fn every_line_fits_a_mail_reply() {
    for seed in Seed::ALL {
        for l in run(seed).to_text().lines() {
            assert!(l.chars().count() <= 78, "{l}");
        }
    }
}
