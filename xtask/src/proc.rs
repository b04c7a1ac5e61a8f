//! Running child processes with a visible step line and a one-line failure.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// Prints a step header, the way every xtask step announces itself.
pub fn step(text: &str) {
    eprintln!("==> {text}");
}

/// Renders a command the way a user would type it.
pub fn shown(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        let a = arg.to_string_lossy();
        if a.contains(' ') || a.contains('~') {
            s.push_str(&format!(" '{a}'"));
        } else {
            s.push(' ');
            s.push_str(&a);
        }
    }
    s
}

/// Runs a command with inherited output; fails with the command line in the message.
pub fn run(cmd: &mut Command) -> Result<()> {
    let line = shown(cmd);
    let status = cmd
        .status()
        .with_context(|| format!("could not start `{line}`"))?;
    if !status.success() {
        bail!("`{line}` failed ({status})");
    }
    Ok(())
}

/// Runs a long command and streams its stderr with the elapsed time in front
/// of each line, so that a ten-minute install shows it is alive.
pub fn run_with_progress(cmd: &mut Command) -> Result<()> {
    let line = shown(cmd);
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start `{line}`"))?;
    if let Some(err) = child.stderr.take() {
        let mut count = 0u32;
        for l in BufReader::new(err).lines().map_while(|l| l.ok()) {
            let t = start.elapsed().as_secs();
            if l.trim_start().starts_with("Compiling") {
                count += 1;
                eprintln!("    [{:02}:{:02}] #{count} {}", t / 60, t % 60, l.trim());
            } else {
                eprintln!("    [{:02}:{:02}] {}", t / 60, t % 60, l.trim_end());
            }
        }
    }
    let status = child.wait().context("waiting for a child process")?;
    if !status.success() {
        bail!("`{line}` failed ({status})");
    }
    Ok(())
}

/// Captures a command's stdout, or None when it cannot run or fails.
pub fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A command's stdout; its last line of stderr when it fails.
pub fn captured(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .output()
        .with_context(|| format!("could not start `{}`", shown(cmd)))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        bail!(
            "`{}` failed ({}): {}",
            shown(cmd),
            out.status,
            err.lines().last().unwrap_or("no message")
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
