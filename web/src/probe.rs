//! A report of `folioscope probe`, dropped on the app: the real kernel's
//! residency and folio layout, page by page, next to the model's at the
//! same step of the same scenario, with the pages where they differ.

use folioscope_core::{Kernel, NoEvents, Simulation, Summary};
use folioscope_scenario::parse::{parse_madvise, parse_pattern};
use folioscope_scenario::{Report, Scenario};

/// Not resident, in the per-page order arrays.
pub const NONE: u8 = u8::MAX;

/// The real kernel's pages beside the model's.
#[derive(Debug, PartialEq)]
pub struct ProbeOverlay {
    /// What the report says it measured, for the strip's label.
    pub label: String,
    pub step: u64,
    /// Per page: the order of the real folio holding it, or [`NONE`].
    pub real: Vec<u8>,
    /// Per page: the model's, at the same step.
    pub model: Vec<u8>,
    pub differing_pages: u64,
}

impl ProbeOverlay {
    /// Whether page `p` differs.
    pub fn differs(&self, p: u64) -> bool {
        let p = p as usize;
        p < self.real.len() && self.real[p] != self.model[p]
    }
}

/// The scenario a report describes, on the 6.18 model.
fn scenario_of(r: &Report) -> Result<Scenario, (String, String)> {
    let pattern = parse_pattern(&r.pattern, None).map_err(|e| {
        (
            "pattern".to_string(),
            format!("{e} (trace reports cannot be replayed)"),
        )
    })?;
    let madvise = parse_madvise(&r.madvise).map_err(|e| ("madvise".to_string(), e))?;
    Ok(Scenario {
        kernel: Kernel::v6_18(),
        file_size: r.file_size,
        page_size: r.page_size,
        read_ahead_kb: r.read_ahead_kb,
        fault_around_bytes: r.fault_around_bytes,
        madvise,
        thp: r.thp,
        memory_limit: r.memory_limit,
        pattern,
        exec: false,
        backing: folioscope_core::Backing::Disk,
        hwpoison: None,
    })
}

/// Reads a dropped file: the overlay, the scenario to show under it, and
/// the step. Errors name the field.
pub fn load(text: &str) -> Result<(ProbeOverlay, Scenario, u64), (String, String)> {
    let report = parse_report(text).map_err(|e| ("file".to_string(), e))?;
    if report.source != "probe" {
        return Err((
            "source".into(),
            format!(
                "'{}': drop a report of `folioscope probe --json`",
                report.source
            ),
        ));
    }
    let scenario = scenario_of(&report)?;
    let cfg = scenario
        .config()
        .map_err(|e| (e.field.to_string(), e.message))?;
    let pages = cfg.geometry().nr_pages as usize;
    let step = report.step;
    let mut sim = Simulation::new(cfg);
    if step > sim.len() {
        return Err((
            "step".into(),
            format!("{step} is past the scenario's {} accesses", sim.len()),
        ));
    }
    sim.run_to(step, &mut NoEvents);
    let mut model = vec![NONE; pages];
    // The model's uptodate folios, in runs of one order, as the report
    // lists the real kernel's.
    for run in Summary::of(sim.machine()).folios {
        let n = run.count << run.order;
        for p in run.start..(run.start + n).min(pages as u64) {
            model[p as usize] = run.order;
        }
    }
    let mut real = vec![NONE; pages];
    for run in &report.folios {
        let [start, order, count] = *run;
        let n = count << order;
        for p in start..(start + n).min(pages as u64) {
            real[p as usize] = order.min(NONE as u64 - 1) as u8;
        }
    }
    // Residency runs can hold pages whose folio order the probe could not
    // read; count them as resident order 0 where no folio run says more.
    for &[start, len] in &report.resident {
        for p in start..(start + len).min(pages as u64) {
            if real[p as usize] == NONE {
                real[p as usize] = 0;
            }
        }
    }
    let differing_pages = real.iter().zip(&model).filter(|(a, b)| a != b).count() as u64;
    Ok((
        ProbeOverlay {
            label: format!("real kernel ({})", report.kernel),
            step,
            real,
            model,
            differing_pages,
        },
        scenario,
        step,
    ))
}

/// The report in `text`. In the browser, its own JSON parser reads the
/// text and serde-wasm-bindgen the values: linking serde_json's parser
/// into the app's wasm cost more than this whole module.
#[cfg(target_arch = "wasm32")]
fn parse_report(text: &str) -> Result<Report, String> {
    let value = js_sys::JSON::parse(text).map_err(|e| {
        let why = js_sys::Error::from(e).message();
        format!("not a folioscope report: {}", String::from(why))
    })?;
    serde_wasm_bindgen::from_value(value).map_err(|e| format!("not a folioscope report: {e}"))
}

/// The report in `text`, read with serde_json where there is no browser
/// (the tests).
#[cfg(not(target_arch = "wasm32"))]
fn parse_report(text: &str) -> Result<Report, String> {
    Report::from_json(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRIDE: &str = include_str!("../../cli/tests/fixtures/2g-stride-64-normal.json");

    #[test]
    fn a_real_kernel_report_the_model_matches_shows_no_difference() {
        let (o, s, step) = load(STRIDE).unwrap();
        assert_eq!(step, 8192);
        assert_eq!(s.pattern, folioscope_core::Pattern::Stride(64));
        assert_eq!(o.differing_pages, 0);
        assert_eq!(o.real[10240], 9);
    }

    #[test]
    fn a_changed_layout_is_found() {
        let tampered = STRIDE.replacen("2048,\n   2,\n   512", "2048,\n   0,\n   2048", 1);
        assert_ne!(tampered, STRIDE);
        let (o, _, _) = load(&tampered).unwrap();
        assert_eq!(o.differing_pages, 2048);
        assert!(o.differs(2048) && !o.differs(0));
    }

    #[test]
    fn bad_files_name_the_field() {
        assert_eq!(load("{").unwrap_err().0, "file");
        let model = STRIDE.replace("\"probe\"", "\"model\"");
        assert_eq!(load(&model).unwrap_err().0, "source");
        let trace = STRIDE.replace("stride:64", "trace:<3 accesses>");
        assert_eq!(load(&trace).unwrap_err().0, "pattern");
    }
}
