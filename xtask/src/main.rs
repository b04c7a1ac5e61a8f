//! `cargo xtask`: the project's two commands, `serve` and `test`, plus the
//! steps they are made of (`setup`, `dist`, `e2e`, `kernel`, `bench`).
//!
//! Every subcommand installs what it needs on a fresh machine, prints each
//! step as it goes, and fails with one line that says what went wrong and
//! what to run by hand.

mod app_wasm_opt;
mod bench;
mod boundary;
mod dist;
mod e2e;
mod glue;
mod kernel;
mod proc;
mod serve;
mod test;
mod tools;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "folioscope's build, serve and test helper"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Install the tools, build the app and serve it at http://127.0.0.1:8080.
    Serve {
        /// Port to listen on.
        #[arg(long, default_value_t = 8080)]
        port: u16,
    },
    /// Write a release build of the static site to dist/. Set
    /// FOLIOSCOPE_SITE_URL to the address it will be published at, and
    /// "Copy link" writes links to that address.
    Dist,
    /// The whole test suite, exactly what CI runs.
    Test,
    /// Only the end-to-end tests in headless Chromium, against dist/.
    E2e,
    /// Only the model held to the running kernel, event by event (as root).
    Kernel,
    /// Install every tool the other commands need, and nothing else.
    Setup,
    /// Every speed and memory figure in one table, next to its target:
    /// the model native and in wasm, 16 GiB peak memory, criterion, and
    /// the web app's timing and size where they were measured.
    Bench {
        /// Also time the running kernel doing the same 2 GiB walk (as
        /// root), and print the model's speed-up over it.
        #[arg(long)]
        real: bool,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            use clap::error::ErrorKind;
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                let _ = err.print();
                return ExitCode::SUCCESS;
            }
            if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                eprintln!(
                    "error: a subcommand is needed: serve, dist, test, e2e, kernel, setup or bench"
                );
                return ExitCode::from(2);
            }
            // Clap's own message spans several lines; the first one names the problem.
            let text = err.render().to_string();
            let first = text.lines().next().unwrap_or("error: bad arguments");
            eprintln!("{first} (try `cargo xtask --help`)");
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Serve { port } => serve::serve(port),
        Command::Dist => dist::dist().map(|_| ()),
        Command::Test => test::test(),
        Command::E2e => e2e::e2e_with_setup(),
        Command::Kernel => kernel::kernel(),
        Command::Setup => tools::setup_all(),
        Command::Bench { real } => bench::bench(real),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One line: the outermost context, then its causes, joined.
            let line = err
                .chain()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(": ");
            eprintln!("error: {}", line.replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}

/// The repository root, found from this crate's manifest directory.
pub fn root() -> std::path::PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_else(|| manifest.to_path_buf())
}
