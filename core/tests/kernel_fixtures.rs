//! The model against the real kernel, on native and on wasm32: every
//! fixture in `cli/tests/fixtures/` was captured by `folioscope probe` on
//! Linux 6.18.44. The model must give the same major faults, bytes read,
//! residency, folio layout and FilePmdMapped; the kernel's minor faults at
//! least the model's (more only by faults on folios under I/O, a timing).
//! The fixtures are compiled in, so the wasm build checks the same figures.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use folioscope_core::{Config, Madvise, NoEvents, Pattern, Simulation, Summary};
use serde_json::Value;

const FIXTURES: &[(&str, &str)] = &[
    (
        "2g-rev-normal",
        include_str!("../../cli/tests/fixtures/2g-rev-normal.json"),
    ),
    (
        "2g-rev-hugepage",
        include_str!("../../cli/tests/fixtures/2g-rev-hugepage.json"),
    ),
    (
        "2g-rev-sequential",
        include_str!("../../cli/tests/fixtures/2g-rev-sequential.json"),
    ),
    (
        "2g-rev-random",
        include_str!("../../cli/tests/fixtures/2g-rev-random.json"),
    ),
    (
        "2g-fwd-normal",
        include_str!("../../cli/tests/fixtures/2g-fwd-normal.json"),
    ),
    (
        "2g-fwd-hugepage",
        include_str!("../../cli/tests/fixtures/2g-fwd-hugepage.json"),
    ),
    (
        "2g-fwd-sequential",
        include_str!("../../cli/tests/fixtures/2g-fwd-sequential.json"),
    ),
    (
        "2g-fwd-random",
        include_str!("../../cli/tests/fixtures/2g-fwd-random.json"),
    ),
    (
        "2g-stride-64-normal",
        include_str!("../../cli/tests/fixtures/2g-stride-64-normal.json"),
    ),
    (
        "2g-stride-64-hugepage",
        include_str!("../../cli/tests/fixtures/2g-stride-64-hugepage.json"),
    ),
    (
        "2g-read-4096-normal",
        include_str!("../../cli/tests/fixtures/2g-read-4096-normal.json"),
    ),
    (
        "2g-read-1048576-normal",
        include_str!("../../cli/tests/fixtures/2g-read-1048576-normal.json"),
    ),
];

fn pattern(text: &str) -> Pattern {
    let (name, arg) = text.split_once(':').unwrap_or((text, ""));
    match name {
        "fwd" => Pattern::Fwd,
        "rev" => Pattern::Rev,
        "stride" => Pattern::Stride(arg.parse().unwrap()),
        "read" => Pattern::Read {
            bs: arg.parse().unwrap(),
        },
        other => panic!("fixture pattern {other} not handled here"),
    }
}

fn madvise(text: &str) -> Madvise {
    Madvise::ALL.into_iter().find(|m| m.name() == text).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

/// Compares one fixture; returns the differences.
fn check(name: &str, text: &str) -> Vec<String> {
    let real: Value = serde_json::from_str(text).unwrap();
    let mut parts = Config::defaults(
        pattern(real["pattern"].as_str().unwrap()),
        u(&real["file_size"]),
    )
    .unwrap()
    .scenario();
    parts.madvise = madvise(real["madvise"].as_str().unwrap());
    parts.page_size = u(&real["page_size"]);
    parts.read_ahead_kb = u(&real["read_ahead_kb"]);
    parts.fault_around_bytes = u(&real["fault_around_bytes"]);
    let cfg = Config::new(parts).unwrap();
    let mut sim = Simulation::new(cfg);
    sim.run(&mut NoEvents);
    let s = Summary::of(sim.machine());
    let mut out = Vec::new();
    let mut eq = |what: &str, model: Value, kernel: &Value| {
        if &model != kernel {
            out.push(format!("{name}: {what}: model {model} kernel {kernel}"));
        }
    };
    eq("major faults", s.major_faults.into(), &real["major_faults"]);
    eq("bytes read", s.bytes_read.into(), &real["bytes_read"]);
    eq(
        "resident pages",
        s.resident_pages.into(),
        &real["resident_pages"],
    );
    let resident: Vec<[u64; 2]> = s.resident.iter().map(|&(a, b)| [a, b]).collect();
    eq(
        "resident runs",
        serde_json::to_value(resident).unwrap(),
        &real["resident"],
    );
    let folios: Vec<[u64; 3]> = s
        .folios
        .iter()
        .map(|r| [r.start, r.order as u64, r.count])
        .collect();
    eq(
        "folio runs",
        serde_json::to_value(folios).unwrap(),
        &real["folios"],
    );
    eq(
        "FilePmdMapped",
        s.file_pmd_mapped_kb.into(),
        &real["file_pmd_mapped_kb"],
    );
    // The one timing rule (scenario's report::MINOR_FAULT_TIMING): the
    // kernel may take more minor faults than the model, on folios still
    // under I/O, never fewer.
    let kernel_minor = u(&real["minor_faults"]);
    if kernel_minor < s.minor_faults {
        out.push(format!(
            "{name}: minor faults: model {} kernel {kernel_minor} (fewer in the kernel)",
            s.minor_faults
        ));
    }
    out
}

#[test]
fn the_fixtures_cover_what_the_model_issue_asks_for() {
    for p in ["rev", "fwd"] {
        for m in ["normal", "hugepage", "sequential", "random"] {
            let name = format!("2g-{p}-{m}");
            assert!(FIXTURES.iter().any(|(n, _)| *n == name), "missing {name}");
        }
    }
}

#[test]
fn the_model_matches_every_kernel_fixture() {
    let failures: Vec<String> = FIXTURES.iter().flat_map(|(n, t)| check(n, t)).collect();
    assert!(
        failures.is_empty(),
        "model vs kernel:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_comparison_can_fail() {
    // Change one figure of a fixture: the check must see it.
    let (name, text) = FIXTURES[1];
    let bumped = text.replacen("\"major_faults\": 1024", "\"major_faults\": 1025", 1);
    assert_ne!(bumped, text, "the fixture layout changed");
    assert!(!check(name, &bumped).is_empty());
    // Fewer minor faults in the kernel than in the model: no timing
    // explains that.
    let (name, text) = FIXTURES
        .iter()
        .find(|(n, _)| *n == "2g-fwd-normal")
        .copied()
        .expect("the forward walk's fixture");
    let fewer = text.replacen("\"minor_faults\": 1433", "\"minor_faults\": 1400", 1);
    assert_ne!(fewer, text, "the fixture layout changed");
    assert!(!check(name, &fewer).is_empty());
    assert!(check(name, text).is_empty());
}
