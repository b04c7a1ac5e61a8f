//! `folioscope run`: a scenario on the model.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use folioscope_core::{Config, Event, NoEvents, Simulation, Summary};
use folioscope_scenario::tracepoint_text::{format_tracepoint, TraceInode};
use folioscope_scenario::{text::event_line, Report};

use crate::args::ScenarioArgs;
use crate::recorded::RecordingArgs;
use crate::CliError;
use folioscope_scenario::params::option_of;

#[derive(Args, Clone, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,

    #[command(flatten)]
    pub recorded: RecordingArgs,

    /// Print one JSON object instead of a table (fields: see the README).
    #[arg(long)]
    pub json: bool,

    /// Stop after N accesses instead of at the end.
    #[arg(long, value_name = "N")]
    pub step: Option<u64>,

    /// Print every event, one line each, before the figures: the model's
    /// own in its wording, and the kernel's tracepoints as tracefs prints
    /// them, for the recorded file's device and inode (0:0 and 0 for a
    /// synthetic scenario), so that `diff` can hold them to a real trace.
    #[arg(long)]
    pub events: bool,
}

/// Receives the events of each chunk of steps.
pub type EventsFn<'a> = &'a mut dyn FnMut(&[Event]);

/// Validates the scenario options into a model configuration.
pub fn config_of(args: &ScenarioArgs) -> Result<Config, CliError> {
    validate(args.scenario().map_err(CliError::Usage)?)
}

/// Runs the model to `target` (or the end), with a progress bar on a
/// terminal once the run has taken more than a second.
pub fn run_model(
    cfg: Config,
    target: Option<u64>,
    mut on_events: Option<EventsFn>,
) -> Result<(Simulation, u64), CliError> {
    let mut sim = Simulation::new(cfg);
    let len = sim.len();
    let target = match target {
        Some(t) if t > len => {
            return Err(CliError::Usage(format!(
                "--step: {t} is past the end of the scenario ({len} accesses)"
            )))
        }
        Some(t) => t,
        None => len,
    };
    let start = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let chunk = 16384;
    let mut events = Vec::new();
    while sim.step_count() < target {
        let to = (sim.step_count() + chunk).min(target);
        match on_events.as_mut() {
            Some(f) => {
                events.clear();
                sim.run_to(to, &mut events);
                f(&events);
            }
            None => sim.run_to(to, &mut NoEvents),
        }
        if bar.is_none()
            && start.elapsed() > Duration::from_secs(1)
            && std::io::stderr().is_terminal()
        {
            let b = indicatif::ProgressBar::new(target);
            b.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} accesses ({eta})")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(sim.step_count());
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok((sim, target))
}

pub fn run(args: &RunArgs) -> Result<ExitCode, CliError> {
    let opened = args.recorded.open()?;
    let (cfg, inode) = match &opened {
        Some(o) => (validate(o.scenario(&args.scenario)?)?, o.inode()),
        None => (config_of(&args.scenario)?, TraceInode::MODEL),
    };
    let page_shift = cfg.page_size.shift();
    let mut print = |evs: &[Event]| {
        for e in evs {
            match e {
                Event::Tracepoint(tp) => println!("{}", format_tracepoint(tp, inode, page_shift)),
                _ => println!("{}", event_line(e)),
            }
        }
    };
    let (sim, step) = run_model(
        cfg,
        args.step,
        if args.events { Some(&mut print) } else { None },
    )?;
    let summary = Summary::of(sim.machine());
    let mut report = Report::from_model(sim.config(), &summary, step, sim.len());
    if let Some(o) = &opened {
        report.pattern = format!("recording of {}", o.path());
    }
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(ExitCode::SUCCESS)
}

/// Validates a scenario into a model configuration, naming the option.
pub fn validate(scenario: folioscope_core::Scenario) -> Result<Config, CliError> {
    scenario
        .config()
        .map_err(|e| CliError::Usage(format!("{}: {}", option_of(e.field), e.message)))
}
