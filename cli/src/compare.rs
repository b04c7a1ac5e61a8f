//! `folioscope compare seed-000|seed-003|seed-004`: a seed's tables from
//! the model, next to the published figures, in 78 columns; and
//! `folioscope compare --recording FILE`: a recorded program's what-if
//! table, its accesses on every kernel variant.

use std::process::ExitCode;

use clap::Args;
use folioscope_scenario::{compare, seeds, whatif};

use crate::args::ScenarioArgs;
use crate::recorded::RecordingArgs;
use crate::CliError;

#[derive(Args, Clone, Debug)]
pub struct CompareArgs {
    /// seed-000, seed-003 or seed-004.
    #[arg(required_unless_present = "recording")]
    pub seed: Option<String>,

    #[command(flatten)]
    pub recorded: RecordingArgs,

    #[command(flatten)]
    pub scenario: ScenarioArgs,

    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn compare(args: &CompareArgs) -> Result<ExitCode, CliError> {
    if let Some(o) = args.recorded.open()? {
        let scenario = o.scenario(&args.scenario)?;
        let title = format!("{} reading {}", o.rec.command.join(" "), o.path());
        let table = whatif::what_if(&title, &scenario, &whatif::kernels(&scenario.kernel))
            .map_err(CliError::Failed)?;
        if args.json {
            println!("{}", table.to_json());
        } else {
            print!("{}", table.to_text());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = args.seed.as_deref().unwrap_or_default();
    let seed = seeds::Seed::by_name(name).ok_or_else(|| {
        CliError::Usage(format!(
            "seed: '{name}' is not one of seed-000, seed-003, seed-004"
        ))
    })?;
    let rows = seeds::rows();
    let cmp = compare::compare(seed, &rows).map_err(CliError::Failed)?;
    if args.json {
        println!("{}", cmp.to_json());
    } else {
        print!("{}", cmp.to_text());
    }
    Ok(ExitCode::SUCCESS)
}
