//! The scenario options every command takes. They come from the one table
//! of parameters, `folioscope_scenario::params`: each option's name,
//! value, default and help are the table's, and so is its parser. Only
//! the options given on the command line change a scenario, so that they
//! act on a preset as they act on the defaults.

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use folioscope_scenario::params::{by_key, Param, PARAMS};
use folioscope_scenario::{parse, Scenario};

/// The scenario options as given: each a parameter's link key and text.
#[derive(Clone, Debug, Default)]
pub struct ScenarioArgs {
    given: Vec<(&'static str, String)>,
    /// `--patch` toggles, in order.
    patches: Vec<String>,
}

/// The id of `--patch`, which is not a parameter of its own but toggles
/// patches in the kernel.
const PATCH_ID: &str = "patch";

fn option(p: &Param) -> Arg {
    let arg = Arg::new(p.field)
        .long(p.flag)
        .value_name(p.value_name)
        .help(p.help)
        // Shown in --help; a value clap fills in is never applied.
        .default_value(p.default)
        .action(ArgAction::Set);
    if p.key == "exec" {
        // `--exec` alone switches it on, as the option always did.
        arg.num_args(0..=1).default_missing_value("on")
    } else {
        // `--file-size -5` is a bad size, not an unknown option `-5`.
        arg.allow_hyphen_values(true)
    }
}

impl Args for ScenarioArgs {
    fn augment_args(cmd: Command) -> Command {
        let cmd = PARAMS.iter().fold(cmd, |cmd, p| cmd.arg(option(p)));
        cmd.arg(
            Arg::new(PATCH_ID)
                .long("patch")
                .value_name("[+|-]NAME")
                .help("Switch a patch on (+NAME or NAME) or off (-NAME) in the kernel, and in every kernel compared with it; repeatable.")
                .action(ArgAction::Append)
                .allow_hyphen_values(true),
        )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for ScenarioArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let given = PARAMS
            .iter()
            .filter(|p| m.value_source(p.field) == Some(ValueSource::CommandLine))
            .filter_map(|p| m.get_one::<String>(p.field).map(|v| (p.key, v.clone())))
            .collect();
        let patches = m
            .get_many::<String>(PATCH_ID)
            .map(|v| v.cloned().collect())
            .unwrap_or_default();
        Ok(ScenarioArgs { given, patches })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

/// Reads a trace file here, at the edge, so that the parser stays pure.
fn trace_pattern(s: &mut Scenario, text: &str) -> Result<(), String> {
    let path = text.trim().trim_start_matches("trace:");
    let trace = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read trace file '{path}': {e}"))?;
    s.pattern = parse::parse_pattern(text, Some(&trace))?;
    Ok(())
}

impl ScenarioArgs {
    /// Whether the option of the parameter with link key `key` was given.
    pub fn gives(&self, key: &str) -> bool {
        self.given.iter().any(|(k, _)| *k == key)
    }

    /// The default scenario with the options given.
    pub fn scenario(&self) -> Result<Scenario, String> {
        let mut s = Scenario::default();
        self.apply(&mut s)?;
        Ok(s)
    }

    /// The `--patch` toggles.
    pub fn toggles(&self) -> Result<Vec<parse::Toggle>, String> {
        self.patches
            .iter()
            .map(|t| parse::parse_toggle(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("--patch: {e}"))
    }

    /// Sets the options given on `s`, in the table's order, then switches
    /// the `--patch` toggles in its kernel. An error names the option.
    pub fn apply(&self, s: &mut Scenario) -> Result<(), String> {
        for (key, text) in &self.given {
            let Some(p) = by_key(key) else { continue };
            let result = if p.key == "pattern" && text.trim().starts_with("trace:") {
                trace_pattern(s, text)
            } else {
                (p.parse)(s, text)
            };
            result.map_err(|e| format!("{}: {e}", p.option()))?;
        }
        s.kernel = parse::with_toggles(&s.kernel, &self.toggles()?);
        Ok(())
    }
}
