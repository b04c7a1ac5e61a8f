//! The model against the real kernel: every fixture in `tests/fixtures/`
//! was captured by `folioscope probe` on Linux 6.18; the model must give
//! the same major faults, bytes read, residency, folio layout and
//! FilePmdMapped, and minor faults within 1%.

use std::path::Path;

use folioscope_core::{NoEvents, Simulation, Summary};
use folioscope_scenario::{parse, Report, Scenario};

fn scenario_of(r: &Report) -> Scenario {
    Scenario {
        file_size: r.file_size,
        page_size: r.page_size,
        read_ahead_kb: r.read_ahead_kb,
        fault_around_bytes: r.fault_around_bytes,
        madvise: parse::parse_madvise(&r.madvise).expect("fixture madvise"),
        thp: r.thp,
        memory_limit: r.memory_limit,
        pattern: parse::parse_pattern(&r.pattern, None).expect("fixture pattern"),
        ..Scenario::default()
    }
}

fn model_of(real: &Report) -> Report {
    let cfg = scenario_of(real)
        .config()
        .expect("fixture scenario is valid");
    let mut sim = Simulation::new(cfg.clone());
    sim.run(&mut NoEvents);
    Report::from_model(
        &cfg,
        &Summary::of(sim.machine()),
        sim.step_count(),
        sim.len(),
    )
}

fn fixtures() -> Vec<(String, Report)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("fixtures directory") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("fixture text");
        let report = Report::from_json(&text).expect("fixture is a report");
        assert_eq!(report.source, "probe", "{}", path.display());
        out.push((
            path.file_name().unwrap().to_string_lossy().into_owned(),
            report,
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn the_fixtures_cover_what_the_model_issue_asks_for() {
    let names: Vec<String> = fixtures().into_iter().map(|(n, _)| n).collect();
    for p in ["rev", "fwd"] {
        for m in ["normal", "hugepage", "sequential", "random"] {
            assert!(
                names.contains(&format!("2g-{p}-{m}.json")),
                "missing 2g-{p}-{m}"
            );
        }
    }
    for n in [
        "2g-stride-64-normal.json",
        "2g-read-4096-normal.json",
        "2g-read-1048576-normal.json",
    ] {
        assert!(names.contains(&n.to_string()), "missing {n}");
    }
}

#[test]
fn the_model_matches_every_fixture() {
    let mut failures = Vec::new();
    for (name, real) in fixtures() {
        let model = model_of(&real);
        for d in model.differences(&real) {
            failures.push(format!("{name}: {d}"));
        }
    }
    assert!(
        failures.is_empty(),
        "model vs kernel:\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_wrong_model_would_be_caught() {
    // The comparison itself must be able to fail: shift one figure.
    let (_, real) = fixtures().into_iter().next().expect("a fixture");
    let mut model = model_of(&real);
    model.major_faults += 1;
    assert!(!model.differences(&real).is_empty());
    let mut model = model_of(&real);
    if let Some(r) = model.folios.last_mut() {
        r[2] += 1;
    }
    assert!(!model.differences(&real).is_empty());
}
