//! The what-if table of a recorded program: its accesses replayed on every
//! kernel variant, with major and minor faults, MB read, I/Os, and the time
//! seed 000's device model gives them. The device model's latency is
//! fitted on seed 000's calibration row, never on the program, so the
//! times compare the kernels under one stated device and no more.
//!
//! A program's reads are known call by call, but its loads through a
//! mapping only by the faults the recorded kernel took: the table says so
//! when the program mapped the file.

use folioscope_core::{Access, Config, Kernel, NoEvents, Pattern, Scenario, Simulation, Variant};
use serde::Serialize;

use crate::compare::{Device, Figures};
use crate::text::wrap;

/// One kernel's line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WhatIfLine {
    pub kernel: String,
    pub figures: Figures,
    /// Seconds under the device model.
    pub seconds: f64,
}

/// The table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WhatIf {
    /// What was replayed, in a few words.
    pub title: String,
    /// Whether the program read through mappings: then only the faults the
    /// recorded kernel took are known, not every load.
    pub mapped: bool,
    pub device: Device,
    /// The kernel the program ran on first, then every other variant.
    pub lines: Vec<WhatIfLine>,
}

/// The kernels of the table: `first`, then every variant that is not it.
pub fn kernels(first: &Kernel) -> Vec<Kernel> {
    std::iter::once(first.clone())
        .chain(
            Variant::ALL
                .into_iter()
                .map(Kernel::from_variant)
                .filter(|k| k != first),
        )
        .collect()
}

/// Runs `scenario` on each of `kernels`.
pub fn what_if(title: &str, scenario: &Scenario, kernels: &[Kernel]) -> Result<WhatIf, String> {
    let mut run = WhatIfRun::new(title, scenario, kernels)?;
    while !run.advance(u64::MAX) {}
    Ok(run.finish())
}

/// The what-if table made a piece at a time, for a caller that must keep
/// a frame (the app): seed 000's calibration run, which fits the device
/// model, then the program on each kernel, advanced so many accesses at a
/// call. [`what_if`] runs it to the end at once, so the CLI and the app
/// print the same table.
#[derive(Debug)]
pub struct WhatIfRun {
    title: String,
    mapped: bool,
    /// The calibration's configuration and published time.
    calibration: (Config, f64),
    /// Each kernel's configuration.
    runs: Vec<Config>,
    device: Option<Device>,
    lines: Vec<WhatIfLine>,
    /// The run under way: the calibration's until the device is known,
    /// then kernel `lines.len()`'s.
    sim: Option<Simulation>,
    /// Accesses of every run, and those made so far.
    len: u64,
    done: u64,
}

impl WhatIfRun {
    /// Checks the scenario on every kernel; nothing runs yet.
    pub fn new(title: &str, scenario: &Scenario, kernels: &[Kernel]) -> Result<Self, String> {
        let (calibration, seconds) = crate::compare::calibration_run()?;
        let calibration = calibration.config().map_err(|e| e.to_string())?;
        let runs = kernels
            .iter()
            .map(|k| {
                let mut s = scenario.clone();
                s.kernel = k.clone();
                s.config().map_err(|e| format!("{}: {}", k.label(), e))
            })
            .collect::<Result<Vec<Config>, String>>()?;
        let len_of = |c: &Config| c.pattern.len(c.file_size, c.page_size.bytes());
        let len = len_of(&calibration) + runs.iter().map(len_of).sum::<u64>();
        let mapped = match &scenario.pattern {
            Pattern::Trace(list) => list.iter().any(|a| matches!(a, Access::Fault { .. })),
            _ => false,
        };
        Ok(WhatIfRun {
            title: title.to_string(),
            mapped,
            calibration: (calibration, seconds),
            runs,
            device: None,
            lines: Vec::new(),
            sim: None,
            len,
            done: 0,
        })
    }

    /// Makes up to `steps` accesses; true once every run is made.
    pub fn advance(&mut self, mut steps: u64) -> bool {
        while steps > 0 && !self.is_done() {
            let sim = self.sim.get_or_insert_with(|| {
                Simulation::new(match self.device {
                    None => self.calibration.0.clone(),
                    Some(_) => self.runs[self.lines.len()].clone(),
                })
            });
            let before = sim.step_count();
            sim.run_to(before.saturating_add(steps).min(sim.len()), &mut NoEvents);
            let made = sim.step_count() - before;
            self.done += made;
            steps -= made.min(steps);
            if !sim.is_done() {
                continue;
            }
            let figures = Figures::of(sim.machine());
            match self.device {
                None => self.device = Some(Device::fit(&figures, self.calibration.1)),
                Some(device) => self.lines.push(WhatIfLine {
                    kernel: sim.config().kernel.label(),
                    seconds: device.seconds(&figures),
                    figures,
                }),
            }
            self.sim = None;
        }
        self.is_done()
    }

    pub fn is_done(&self) -> bool {
        self.device.is_some() && self.lines.len() == self.runs.len()
    }

    /// Accesses made so far, of [`WhatIfRun::len`].
    pub fn done(&self) -> u64 {
        self.done
    }

    /// Accesses of every run: the calibration's and each kernel's.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// What is being run: the calibration, or a kernel's label.
    pub fn running(&self) -> String {
        match (self.device, self.runs.get(self.lines.len())) {
            (None, _) => "seed 000's calibration row".into(),
            (Some(_), Some(cfg)) => cfg.kernel.label(),
            (Some(_), None) => "done".into(),
        }
    }

    /// The table, once every run is made (lines of the runs not made are
    /// left out).
    pub fn finish(self) -> WhatIf {
        WhatIf {
            title: self.title,
            mapped: self.mapped,
            device: self.device.unwrap_or(Device {
                latency_us: 0.0,
                bandwidth_gbs: Device::BANDWIDTH_GBS,
            }),
            lines: self.lines,
        }
    }
}

impl WhatIf {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The table in 78 columns, as a patch email would carry it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for l in wrap(&format!("what if: {}", self.title), 78, "  ") {
            out.push_str(&l);
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&format!(
            "  {:<30}{:>9}{:>9}{:>9}{:>9}{:>10}\n",
            "kernel", "majors", "minors", "MB read", "I/Os", "est s"
        ));
        for l in &self.lines {
            let f = &l.figures;
            let name = if l.kernel.len() > 29 {
                format!("{}~", &l.kernel[..28])
            } else {
                l.kernel.clone()
            };
            out.push_str(&format!(
                "  {:<30}{:>9}{:>9}{:>9.1}{:>9}{:>10.3}\n",
                name,
                f.major_faults,
                f.minor_faults,
                f.bytes_read as f64 / 1048576.0,
                f.read_ios,
                l.seconds
            ));
        }
        out.push('\n');
        let note = format!(
            "est s: seed 000's device model, {:.1} us per I/O + bytes at {:.1} GB/s, \
             its latency fitted on seed 000's calibration row, not on this program.",
            self.device.latency_us, self.device.bandwidth_gbs
        );
        for l in wrap(&note, 78, "") {
            out.push_str(&l);
            out.push('\n');
        }
        if self.mapped {
            let note = "The program read through mappings. A recording knows the faults \
                        the recorded kernel took, not every load, so each kernel replays \
                        those faults: a kernel that maps less at a fault would take more \
                        faults than it shows here.";
            for l in wrap(note, 78, "") {
                out.push_str(&l);
                out.push('\n');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::device_model;
    use crate::recording::Recording;

    const LOADER: &[u8] =
        include_bytes!("../../cli/tests/fixtures/replay/loader-hugepage-512m.rec.gz");

    /// Made a few accesses at a time, the table is the one each kernel's
    /// whole run and the device model give.
    #[test]
    fn a_table_made_in_pieces_is_the_whole_runs_table() {
        let rec = Recording::parse(LOADER).unwrap();
        let scenario = rec.scenario(0).unwrap();
        let ks = kernels(&scenario.kernel);
        let mut run = WhatIfRun::new("loader", &scenario, &ks).unwrap();
        let mut calls = 0;
        while !run.advance(5000) {
            calls += 1;
            assert!(run.done() < run.len());
        }
        assert!(calls > ks.len(), "{calls} calls");
        assert_eq!(run.done(), run.len());
        let table = run.finish();
        let device = device_model().unwrap();
        assert_eq!(table.device, device);
        assert!(table.mapped);
        assert_eq!(table.lines.len(), ks.len());
        for (line, k) in table.lines.iter().zip(&ks) {
            let mut s = scenario.clone();
            s.kernel = k.clone();
            let mut sim = Simulation::new(s.config().unwrap());
            sim.run(&mut NoEvents);
            let figures = Figures::of(sim.machine());
            assert_eq!(line.kernel, k.label());
            assert_eq!(line.seconds, device.seconds(&figures));
            assert_eq!(line.figures, figures);
        }
        assert_eq!(table, what_if("loader", &scenario, &ks).unwrap());
    }
}
