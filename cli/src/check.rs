//! `folioscope check`: the model against the real kernel.
//!
//! For a synthetic pattern it probes the kernel, recording the file's
//! tracepoints as it goes, and runs the model on the same scenario. Major
//! faults, bytes read, residency and folio layout must match exactly;
//! minor faults may be more in the kernel only by what the one timing rule
//! (`report::MINOR_FAULT_TIMING`) allows, and the output names it; the
//! folio adds and readahead calls must match event by event
//! (`folioscope_scenario::event_check`).
//!
//! For a recording it replays the program's accesses on the model of the
//! recorded kernel and holds the model to the recorded events and end
//! state. No timing of the real run reaches the check.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use folioscope_core::{Config, Event, EventSink, Simulation, Summary, Tracepoint};
use folioscope_scenario::event_check::{
    check_events, check_steps, is_compared, EventCheck, StepCheck,
};
use folioscope_scenario::Report;

use crate::args::ScenarioArgs;
use crate::probe::ProbeArgs;
use crate::recorded::{Opened, RecordingArgs};
use crate::run::validate;
use crate::CliError;

#[derive(Args, Clone, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,

    #[command(flatten)]
    pub recorded: RecordingArgs,

    /// The file to probe for a synthetic pattern. Unless --file-size is
    /// given, the scenario is as large as the file.
    #[arg(long, conflicts_with = "recording")]
    pub file: Option<PathBuf>,

    /// Create the file, filled with pseudo-random data, if it is missing.
    #[arg(long)]
    pub create: bool,

    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// A sink that keeps the tracepoints the check compares, each with the
/// number of the access it came in (1-based).
#[derive(Default)]
struct Compared {
    access: u64,
    events: Vec<(u64, Tracepoint)>,
}

impl EventSink for Compared {
    fn emit(&mut self, e: Event) {
        if let Event::Tracepoint(tp) = e {
            if is_compared(&tp) {
                self.events.push((self.access, tp));
            }
        }
    }
}

/// Runs the model to the end, keeping its compared tracepoints with their
/// accesses.
fn model_run(cfg: &Config) -> (Report, Vec<(u64, Tracepoint)>) {
    let mut sim = Simulation::new(cfg.clone());
    let mut sink = Compared::default();
    while !sim.is_done() {
        sink.access = sim.step_count() + 1;
        sim.step(&mut sink);
    }
    let report = Report::from_model(
        cfg,
        &Summary::of(sim.machine()),
        sim.step_count(),
        sim.len(),
    );
    (report, sink.events)
}

pub fn check(args: &CheckArgs) -> Result<ExitCode, CliError> {
    if let Some(opened) = args.recorded.open()? {
        return check_recording(args, &opened);
    }
    let Some(file) = &args.file else {
        return Err(CliError::Usage(
            "--file: name the file to probe (or give --recording)".into(),
        ));
    };
    let probe_args = ProbeArgs {
        scenario: args.scenario.clone(),
        file: file.clone(),
        create: args.create,
        json: args.json,
        events: true,
    };
    let probed = crate::probe::probe(&probe_args, true)?;
    let (model, model_events) = model_run(&probed.cfg);
    let real = &probed.report;
    let diffs = model.differences(real);
    #[cfg(target_os = "linux")]
    let model_events: Vec<Tracepoint> = model_events.into_iter().map(|(_, t)| t).collect();
    let events = probed.traced.as_ref().map(|t| {
        check_events(
            &model_events,
            &t.events,
            t.inode,
            probed.cfg.page_size.shift(),
        )
    });
    #[cfg(not(target_os = "linux"))]
    let events: Option<EventCheck> = {
        let _ = model_events;
        None
    };
    let same_events = events.as_ref().is_none_or(EventCheck::is_identical);
    if args.json {
        println!(
            "{{\"model\":{},\"kernel\":{},\"differences\":{},\"timing\":{},\"events\":{}}}",
            model.to_json(),
            real.to_json(),
            serde_json::to_string(&diffs).unwrap_or_default(),
            serde_json::to_string(&model.timing(real)).unwrap_or_default(),
            serde_json::to_string(&events.as_ref().map(EventCheck::lines)).unwrap_or_default()
        );
    } else {
        print_figures(&model, real);
        for t in model.timing(real) {
            println!("\ntiming: {t}");
        }
        if diffs.is_empty() {
            println!("\nthe model's figures match the kernel's");
        } else {
            println!("\ndifferences:");
            for d in &diffs {
                println!("  {d}");
            }
        }
        if let Some(e) = &events {
            println!();
            for line in e.lines() {
                println!("events: {line}");
            }
        }
    }
    Ok(if diffs.is_empty() && same_events {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_figures(model: &Report, real: &Report) {
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
}

fn check_recording(args: &CheckArgs, o: &Opened) -> Result<ExitCode, CliError> {
    let cfg = validate(o.scenario(&args.scenario)?)?;
    let (model, model_events) = model_run(&cfg);
    let real = o.rec.numbered_events(o.file);
    let StepCheck {
        check: events,
        step: parted,
    } = check_steps(&model_events, &real, o.inode(), cfg.page_size.shift());
    let end = o.rec.end.get(o.file as usize).and_then(Option::as_ref);
    let end_diffs = end.map(|e| model.end_state_differences(&e.resident, &e.folios));
    if args.json {
        println!(
            "{{\"file\":{},\"events\":{},\"parted_after\":{},\"end_state\":{}}}",
            serde_json::to_string(o.path()).unwrap_or_default(),
            serde_json::to_string(&events.lines()).unwrap_or_default(),
            serde_json::to_string(&parted).unwrap_or_default(),
            serde_json::to_string(&end_diffs).unwrap_or_default()
        );
    } else {
        println!(
            "{}: {} accesses replayed on the model of {}",
            o.path(),
            model.steps,
            cfg.kernel.label()
        );
        for line in events.lines() {
            println!("events: {line}");
        }
        if let Some(step) = parted {
            println!("events: the model and the kernel part after access {step}");
        }
        match &end_diffs {
            None => println!("end state: not recorded (a recording made from trace text)"),
            Some(d) if d.is_empty() => println!(
                "end state: identical: {} pages resident in {} runs, {} folio runs",
                model.resident_pages,
                model.resident.len(),
                model.folios.len()
            ),
            Some(d) => {
                for line in d {
                    println!("end state: {line}");
                }
            }
        }
    }
    let ok = events.is_identical() && end_diffs.as_ref().is_none_or(Vec::is_empty);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
