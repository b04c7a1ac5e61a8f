//! `folioscope link` and `folioscope export`: the permalink of a scenario
//! at a step, and the plain-text summary for a mailing list, the same ones
//! the app's "Copy link" and "Copy as text" make.

use std::process::ExitCode;

use clap::Args;
use folioscope_scenario::export::export;
use folioscope_scenario::link::{preset, site_url, to_link, View, LOCAL_URL, MAX_KERNELS};
use folioscope_scenario::parse::{parse_kernel_label, with_toggles};
use folioscope_scenario::seeds;
use folioscope_scenario::story::Story;

use crate::args::ScenarioArgs;
use crate::CliError;
use folioscope_scenario::params::option_of;

/// The app's address links start with: the site this build was made
/// for, or where `cargo xtask serve` serves it.
fn default_base_url() -> &'static str {
    site_url().unwrap_or(LOCAL_URL)
}

/// `--base-url`'s help, saying where the default points.
fn base_url_help() -> &'static str {
    match site_url() {
        Some(_) => {
            "The app's address, up to the `?`. The default is the site this folioscope was \
             built for (FOLIOSCOPE_SITE_URL when it was built)."
        }
        None => {
            "The app's address, up to the `?`. The default is where `cargo xtask serve` \
             serves the app on this machine, which only you can open: this folioscope was \
             built without FOLIOSCOPE_SITE_URL, the published site's address."
        }
    }
}

#[derive(Args, Clone, Debug)]
pub struct LinkArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,

    /// Start from a seed row's preset (see `folioscope compare`); scenario
    /// options given as well change it.
    #[arg(long, value_name = "ID")]
    pub preset: Option<String>,

    /// A kernel to compare with, side by side (a variant name with
    /// +patch/-patch); repeatable, and it replaces a preset's. --patch
    /// toggles apply to these too.
    #[arg(long, value_name = "KERNEL")]
    pub compare: Vec<String>,

    /// Stop after N accesses instead of at the end.
    #[arg(long, value_name = "N")]
    pub step: Option<u64>,

    /// Carry the seed preset's story for talks (story=seed): its stops,
    /// placed by the model, which the app walks with PageDown and the
    /// mail text lists. Needs --preset.
    #[arg(long)]
    pub story: bool,

    #[arg(long, default_value = default_base_url(), value_name = "URL", help = base_url_help())]
    pub base_url: String,
}

#[derive(Args, Clone, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub link: LinkArgs,

    /// Also list the events of N accesses before and after the step.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub events: u64,
}

/// The view the options describe. With a preset, only the scenario
/// options given on the command line change it.
fn view_of(args: &LinkArgs) -> Result<View, CliError> {
    let mut view = match &args.preset {
        Some(id) => preset(id).ok_or_else(|| {
            CliError::Usage(format!(
                "--preset: '{id}' is not a seed row (see `folioscope compare`)"
            ))
        })?,
        None => View::default(),
    };
    args.scenario
        .apply(&mut view.scenario)
        .map_err(CliError::Usage)?;
    if !args.compare.is_empty() {
        if args.compare.len() >= MAX_KERNELS {
            return Err(CliError::Usage(format!(
                "--compare: given {} times; at most {} kernels are compared with the first",
                args.compare.len(),
                MAX_KERNELS - 1
            )));
        }
        view.compare = args
            .compare
            .iter()
            .map(|c| parse_kernel_label(c))
            .collect::<Result<_, _>>()
            .map_err(|e| CliError::Usage(format!("--compare: {e}")))?;
    }
    // --patch toggles every kernel of the view; the first has them already.
    let toggles = args.scenario.toggles().map_err(CliError::Usage)?;
    for k in &mut view.compare {
        *k = with_toggles(k, &toggles);
    }
    let cfg = view
        .scenario
        .config()
        .map_err(|e| CliError::Usage(format!("{}: {}", option_of(e.field), e.message)))?;
    for other in view.scenarios().iter().skip(1) {
        other.config().map_err(|e| {
            CliError::Usage(format!(
                "--compare: {}: {}",
                other.kernel.label(),
                e.message
            ))
        })?;
    }
    let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
    view.step = match args.step {
        Some(s) if s > len => {
            return Err(CliError::Usage(format!(
                "--step: {s} is past the end of the scenario ({len} accesses)"
            )))
        }
        Some(s) if s < len => Some(s),
        _ => None,
    };
    if args.story {
        if view.preset.is_none() {
            return Err(CliError::Usage(
                "--story: only a seed preset has a story; give --preset".into(),
            ));
        }
        view.story = Story::Seed;
    }
    if args.base_url.contains('?') {
        return Err(CliError::Usage(
            "--base-url: give the address without a '?' query".into(),
        ));
    }
    Ok(view)
}

pub fn link(args: &LinkArgs) -> Result<ExitCode, CliError> {
    let view = view_of(args)?;
    println!("{}", to_link(&view, &args.base_url));
    Ok(ExitCode::SUCCESS)
}

pub fn export_command(args: &ExportArgs) -> Result<ExitCode, CliError> {
    let view = view_of(&args.link)?;
    let title = match &view.preset {
        Some(id) => seeds::row(id).map(|r| r.title).unwrap_or_default(),
        None => "a scenario".into(),
    };
    let text = export(&view, &title, &args.link.base_url, args.events).map_err(CliError::Failed)?;
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
