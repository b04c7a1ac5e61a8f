//! The what-if table of a recorded program: its accesses replayed on every
//! kernel variant, with major and minor faults, MB read, I/Os, and the time
//! seed 000's device model gives them. The device model's latency is
//! fitted on seed 000's calibration row, never on the program, so the
//! times compare the kernels under one stated device and no more.
//!
//! A program's reads are known call by call, but its loads through a
//! mapping only by the faults the recorded kernel took: the table says so
//! when the program mapped the file.

use folioscope_core::{Access, Kernel, NoEvents, Pattern, Scenario, Simulation, Variant};
use serde::Serialize;

use crate::compare::{device_model, Device, Figures};
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
    let device = device_model()?;
    let mut lines = Vec::new();
    for k in kernels {
        let mut s = scenario.clone();
        s.kernel = k.clone();
        let cfg = s.config().map_err(|e| format!("{}: {}", k.label(), e))?;
        let mut sim = Simulation::new(cfg);
        sim.run(&mut NoEvents);
        let figures = Figures::of(sim.machine());
        lines.push(WhatIfLine {
            kernel: k.label(),
            seconds: device.seconds(&figures),
            figures,
        });
    }
    let mapped = match &scenario.pattern {
        Pattern::Trace(list) => list.iter().any(|a| matches!(a, Access::Fault { .. })),
        _ => false,
    };
    Ok(WhatIf {
        title: title.to_string(),
        mapped,
        device,
        lines,
    })
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
