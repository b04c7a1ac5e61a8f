//! `folioscope check`: the scenario on the model and on the kernel, and the
//! differences. Major faults, bytes read, residency and folio layout must
//! match exactly; minor faults within 1% (the kernel's vary by a few
//! between runs, and a probe adds a fault or two of its own).

use std::process::ExitCode;

use folioscope_core::{NoEvents, Simulation, Summary};
use folioscope_scenario::Report;

use crate::probe::{probe, ProbeArgs};
use crate::run::config_of;
use crate::CliError;

pub fn check(args: &ProbeArgs) -> Result<ExitCode, CliError> {
    let cfg = config_of(&args.scenario)?;
    let real = probe(args)?;
    let mut sim = Simulation::new(cfg.clone());
    sim.run(&mut NoEvents);
    let model = Report::from_model(
        &cfg,
        &Summary::of(sim.machine()),
        sim.step_count(),
        sim.len(),
    );
    let diffs = model.differences(&real);
    if args.json {
        println!(
            "{{\"model\":{},\"kernel\":{},\"differences\":{}}}",
            model.to_json(),
            real.to_json(),
            serde_json::to_string(&diffs).unwrap_or_default()
        );
    } else {
        println!("{:<16}{:>14}{:>14}", "", "model", "kernel");
        let row = |k: &str, a: String, b: String| println!("{k:<16}{a:>14}{b:>14}");
        row(
            "major faults",
            model.major_faults.to_string(),
            real.major_faults.to_string(),
        );
        row(
            "minor faults",
            model.minor_faults.to_string(),
            real.minor_faults.to_string(),
        );
        row(
            "MB read",
            format!("{:.1}", model.bytes_read as f64 / 1048576.0),
            format!("{:.1}", real.bytes_read as f64 / 1048576.0),
        );
        row(
            "resident pages",
            model.resident_pages.to_string(),
            real.resident_pages.to_string(),
        );
        row(
            "folio runs",
            model.folios.len().to_string(),
            real.folios.len().to_string(),
        );
        if diffs.is_empty() {
            println!("\nthe model matches the kernel");
        } else {
            println!("\ndifferences:");
            for d in &diffs {
                println!("  {d}");
            }
        }
    }
    Ok(if diffs.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
