//! `folioscope compare seed-000|seed-003|seed-004`: a seed's tables from
//! the model, next to the published figures, in 78 columns.

use std::process::ExitCode;

use clap::Args;
use folioscope_scenario::{compare, seeds};

use crate::CliError;

#[derive(Args, Clone, Debug)]
pub struct CompareArgs {
    /// seed-000, seed-003 or seed-004.
    pub seed: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn compare(args: &CompareArgs) -> Result<ExitCode, CliError> {
    let seed = seeds::Seed::by_name(&args.seed).ok_or_else(|| {
        CliError::Usage(format!(
            "seed: '{}' is not one of seed-000, seed-003, seed-004",
            args.seed
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
