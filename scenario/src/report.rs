//! The figures of a run in the JSON shape `folioscope run` and `folioscope
//! probe` share, and as a plain-text table for mailing lists.
//!
//! JSON fields:
//! - `source`: `model` or `probe`;
//! - `kernel`, `file_size`, `page_size`, `read_ahead_kb`,
//!   `fault_around_bytes`, `pattern`, `madvise`, `thp`, `memory_limit`;
//! - `step` and `steps`: accesses done, of how many;
//! - `major_faults`, `minor_faults`: getrusage's counts;
//! - `bytes_read`: bytes submitted for reading (`read_bytes` of /proc/self/io);
//! - `read_ios`: block requests (the model's count; the probe's is the
//!   device's completed reads, when it can read them);
//! - `resident_pages`, and `resident`: runs of resident pages as
//!   `[start_page, length]`;
//! - `folios`: runs of adjacent equal-order folios as `[start_page, order, count]`;
//! - `file_pmd_mapped_kb`: FilePmdMapped of smaps;
//! - `mmap_miss`, `xa_node_visits`, `xa_loads`, `ra`: model state (absent
//!   from a probe);
//! - `tmpfs`: how a tmpfs file was made (absent for a disk file);
//! - `read_path`: the `read()` path's operation counts, for read patterns:
//!   loop turns, lookups, xarray calls, folio references and locks, and
//!   bytes by where they came from.

use folioscope_core::Counters;
use folioscope_core::XaStats;
use folioscope_core::{Backing, Config, Summary};
use serde::{Deserialize, Serialize};

use crate::parse::format_pattern;

/// `file_ra_state` in a report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaReport {
    pub start: u64,
    pub size: u64,
    pub async_size: u64,
    pub ra_pages: u64,
    pub order: u16,
    pub prev_pos: i64,
}

/// A tmpfs file in a report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TmpfsReport {
    pub huge: bool,
    pub file: String,
    #[serde(default)]
    pub hwpoison: Option<u64>,
}

/// The operation counts of the `read()` path.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadPathReport {
    pub read_calls: u64,
    pub iterations: u64,
    pub shmem_get_folio: u64,
    pub get_folios_contig: u64,
    pub xas_load: u64,
    pub xas_next: u64,
    pub xas_advance: u64,
    pub node_visits: u64,
    pub folio_get: u64,
    pub folio_put: u64,
    pub folio_lock: u64,
    pub folio_unlock: u64,
    pub mark_accessed: u64,
    pub bytes_copied: u64,
    pub copy_chunks: u64,
    pub bytes_zero_copied: u64,
    pub zero_chunks: u64,
    pub bytes_cleared: u64,
    pub clear_calls: u64,
    pub read_errors: u64,
}

impl ReadPathReport {
    pub fn of(s: &Summary) -> Self {
        Self::from_counts(&s.counters, &s.xa)
    }

    pub fn from_counts(c: &Counters, xa: &XaStats) -> Self {
        ReadPathReport {
            read_calls: c.accesses,
            iterations: c.read_iterations,
            shmem_get_folio: c.shmem_get_folio,
            get_folios_contig: c.get_folios_contig,
            xas_load: xa.xas_load,
            xas_next: xa.xas_next,
            xas_advance: xa.xas_advance,
            node_visits: xa.node_visits,
            folio_get: c.folio_get,
            folio_put: c.folio_put,
            folio_lock: c.folio_lock,
            folio_unlock: c.folio_unlock,
            mark_accessed: c.mark_accessed,
            bytes_copied: c.bytes_copied,
            copy_chunks: c.copy_chunks,
            bytes_zero_copied: c.bytes_zero_copied,
            zero_chunks: c.zero_chunks,
            bytes_cleared: c.bytes_cleared,
            clear_calls: c.clear_calls,
            read_errors: c.read_errors,
        }
    }
}

/// One run's figures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub source: String,
    pub kernel: String,
    pub file_size: u64,
    pub page_size: u64,
    pub read_ahead_kb: u64,
    pub fault_around_bytes: u64,
    pub pattern: String,
    pub madvise: String,
    pub thp: bool,
    #[serde(default)]
    pub memory_limit: Option<u64>,
    pub step: u64,
    pub steps: u64,
    pub major_faults: u64,
    pub minor_faults: u64,
    pub bytes_read: u64,
    #[serde(default)]
    pub read_ios: Option<u64>,
    pub resident_pages: u64,
    pub resident: Vec<[u64; 2]>,
    pub folios: Vec<[u64; 3]>,
    #[serde(default)]
    pub file_pmd_mapped_kb: Option<u64>,
    #[serde(default)]
    pub mmap_miss: Option<u16>,
    #[serde(default)]
    pub xa_node_visits: Option<u64>,
    #[serde(default)]
    pub xa_loads: Option<u64>,
    #[serde(default)]
    pub ra: Option<RaReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmpfs: Option<TmpfsReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_path: Option<ReadPathReport>,
    /// Microseconds the accesses took on the real kernel, wall clock, from
    /// the first access to the last (the probe's only; the model keeps no
    /// time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_us: Option<u64>,
}

/// The one timing rule of the figures. The model completes every read
/// before the next access, so its fault-around never meets a folio still
/// under I/O. The kernel's does when a reader outruns its readahead: it
/// skips the folio, and the reader takes a minor fault there that the
/// model does not. So the kernel may take more minor faults than the model,
/// by as many as its readers met reads in flight, and never fewer.
pub const MINOR_FAULT_TIMING: &str =
    "faults on folios still under I/O, which fault-around skips (timing)";

/// The kernel's minor faults beyond the model's, if any: what
/// [`MINOR_FAULT_TIMING`] allows.
pub fn minor_fault_excess(model: u64, kernel: u64) -> u64 {
    kernel.saturating_sub(model)
}

impl Report {
    /// The model's figures after `step` of `steps` accesses.
    pub fn from_model(cfg: &Config, summary: &Summary, step: u64, steps: u64) -> Self {
        Report {
            source: "model".into(),
            kernel: cfg.kernel.label(),
            file_size: cfg.file_size,
            page_size: cfg.page_size.bytes(),
            read_ahead_kb: cfg.read_ahead_kb,
            fault_around_bytes: cfg.fault_around_bytes,
            pattern: format_pattern(&cfg.pattern),
            madvise: cfg.madvise.name().into(),
            thp: cfg.thp,
            memory_limit: cfg.memory_limit,
            step,
            steps,
            major_faults: summary.major_faults,
            minor_faults: summary.minor_faults,
            bytes_read: summary.bytes_read,
            read_ios: Some(summary.read_ios),
            resident_pages: summary.resident_pages,
            resident: summary.resident.iter().map(|&(s, l)| [s, l]).collect(),
            folios: summary
                .folios
                .iter()
                .map(|r| [r.start, r.order as u64, r.count])
                .collect(),
            file_pmd_mapped_kb: Some(summary.file_pmd_mapped_kb),
            mmap_miss: Some(summary.mmap_miss),
            xa_node_visits: Some(summary.xa.node_visits),
            xa_loads: Some(summary.xa.xas_load),
            ra: Some(RaReport {
                start: summary.ra.start,
                size: summary.ra.size,
                async_size: summary.ra.async_size,
                ra_pages: summary.ra.ra_pages,
                order: summary.ra.order,
                prev_pos: summary.ra.prev_pos,
            }),
            tmpfs: match cfg.backing {
                Backing::Disk => None,
                Backing::Tmpfs { huge, file } => Some(TmpfsReport {
                    huge,
                    file: file.name().into(),
                    hwpoison: cfg.hwpoison,
                }),
            },
            read_path: cfg.pattern.uses_read().then(|| ReadPathReport::of(summary)),
            access_us: None,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report always serialises")
    }

    pub fn from_json(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("not a folioscope report: {e}"))
    }

    /// Folios by order, summed from the runs.
    pub fn folios_by_order(&self) -> Vec<(u64, u64)> {
        let mut by: std::collections::BTreeMap<u64, u64> = Default::default();
        for r in &self.folios {
            *by.entry(r[1]).or_default() += r[2];
        }
        by.into_iter().collect()
    }

    /// A plain-text table, at most 78 columns wide.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let mb = |b: u64| b as f64 / (1u64 << 20) as f64;
        s.push_str(&format!(
            "{} {}: {} file, {} pages, read_ahead_kb {}, fault_around {}\n",
            self.source,
            self.kernel,
            crate::parse::format_size(self.file_size),
            crate::parse::format_size(self.page_size),
            self.read_ahead_kb,
            crate::parse::format_size(self.fault_around_bytes)
        ));
        s.push_str(&format!(
            "pattern {}, madvise {}, THP {}{}, step {} of {}\n\n",
            self.pattern,
            self.madvise,
            if self.thp { "on" } else { "off" },
            self.memory_limit
                .map(|l| format!(", memory limit {}", crate::parse::format_size(l)))
                .unwrap_or_default(),
            self.step,
            self.steps
        ));
        if let Some(t) = &self.tmpfs {
            s.push_str(&format!(
                "tmpfs, huge={}, {} file{}\n\n",
                if t.huge { "always" } else { "never" },
                t.file,
                t.hwpoison
                    .map(|p| format!(", page {p} poisoned"))
                    .unwrap_or_default()
            ));
        }
        let row = |s: &mut String, k: &str, v: String| s.push_str(&format!("  {k:<22}{v:>14}\n"));
        row(&mut s, "major faults", self.major_faults.to_string());
        row(&mut s, "minor faults", self.minor_faults.to_string());
        row(&mut s, "MB read", format!("{:.1}", mb(self.bytes_read)));
        if let Some(ios) = self.read_ios {
            row(&mut s, "read I/Os", ios.to_string());
        }
        let total = self.file_size.div_ceil(self.page_size).max(1);
        row(
            &mut s,
            "resident pages",
            format!(
                "{} ({:.1}%)",
                self.resident_pages,
                100.0 * self.resident_pages as f64 / total as f64
            ),
        );
        if let Some(kb) = self.file_pmd_mapped_kb {
            row(&mut s, "FilePmdMapped kB", kb.to_string());
        }
        if let Some(m) = self.mmap_miss {
            row(&mut s, "mmap_miss", m.to_string());
        }
        if let Some(v) = self.xa_node_visits {
            row(&mut s, "xarray node visits", v.to_string());
        }
        if let Some(us) = self.access_us {
            row(&mut s, "accesses took", format!("{:.3} s", us as f64 / 1e6));
        }
        if let Some(ra) = &self.ra {
            row(
                &mut s,
                "ra window",
                format!("{}+{}/{}", ra.start, ra.size, ra.async_size),
            );
        }
        if let Some(r) = &self.read_path {
            let calls = r.read_calls.max(1) as f64;
            s.push_str(&format!("  read() path{:>24}{:>12}\n", "total", "per call"));
            let mut op = |k: &str, v: u64| {
                if v > 0 {
                    s.push_str(&format!("    {k:<20}{v:>16}{:>12.2}\n", v as f64 / calls));
                }
            };
            op("read() calls", r.read_calls);
            op("loop turns", r.iterations);
            op("shmem_get_folio", r.shmem_get_folio);
            op("get_folios_contig", r.get_folios_contig);
            op("xas_load", r.xas_load);
            op("xas_next", r.xas_next);
            op("xas_advance", r.xas_advance);
            op("node visits", r.node_visits);
            op("folio_try_get", r.folio_get);
            op("folio_put", r.folio_put);
            op("folio_lock", r.folio_lock);
            op("folio_unlock", r.folio_unlock);
            op("mark_accessed", r.mark_accessed);
            op("bytes from folios", r.bytes_copied);
            op("  in page pieces", r.copy_chunks);
            op("bytes zero-page copy", r.bytes_zero_copied);
            op("  in page pieces", r.zero_chunks);
            op("bytes clear_user", r.bytes_cleared);
            op("  clear_user calls", r.clear_calls);
            op("read errors", r.read_errors);
        }
        let orders: Vec<String> = self
            .folios_by_order()
            .iter()
            .map(|(o, c)| format!("{c}x{o}"))
            .collect();
        if !orders.is_empty() {
            s.push_str("  folios (count x order)\n");
            let mut line = String::from("   ");
            for o in orders {
                if line.len() + o.len() + 1 > 76 {
                    s.push_str(&line);
                    s.push('\n');
                    line = String::from("   ");
                }
                line.push(' ');
                line.push_str(&o);
            }
            s.push_str(&line);
            s.push('\n');
        }
        s
    }

    /// Where a model report and a probe report of the same scenario
    /// differ, one line each; empty when they agree within tolerance.
    /// How the kernel's residency runs and folio layout differ from these.
    pub fn end_state_differences(&self, resident: &[[u64; 2]], folios: &[[u64; 3]]) -> Vec<String> {
        let mut out = Vec::new();
        if self.resident != resident {
            let pages: u64 = resident.iter().map(|r| r[1]).sum();
            out.push(format!(
                "residency: model {} pages in {} runs, kernel {pages} pages in {} runs",
                self.resident_pages,
                self.resident.len(),
                resident.len()
            ));
        }
        if self.folios != folios {
            let first = self
                .folios
                .iter()
                .zip(folios)
                .position(|(a, b)| a != b)
                .unwrap_or(self.folios.len().min(folios.len()));
            out.push(format!(
                "folio layout differs from run {first}: model {:?} kernel {:?}",
                self.folios.get(first),
                folios.get(first)
            ));
        }
        out
    }

    /// What the figures owe to timing, named by its rule: empty when the
    /// kernel took no more minor faults than the model.
    pub fn timing(&self, real: &Report) -> Vec<String> {
        match minor_fault_excess(self.minor_faults, real.minor_faults) {
            0 => Vec::new(),
            n => vec![format!(
                "{n} more minor faults in the kernel: {MINOR_FAULT_TIMING}"
            )],
        }
    }

    pub fn differences(&self, real: &Report) -> Vec<String> {
        let model = self;
        let mut out = Vec::new();
        if model.major_faults != real.major_faults {
            out.push(format!(
                "major faults: model {} kernel {}",
                model.major_faults, real.major_faults
            ));
        }
        if real.minor_faults < model.minor_faults {
            out.push(format!(
                "minor faults: model {} kernel {} (the kernel took fewer, which no timing explains)",
                model.minor_faults, real.minor_faults
            ));
        }
        if model.bytes_read != real.bytes_read {
            out.push(format!(
                "bytes read: model {} kernel {}",
                model.bytes_read, real.bytes_read
            ));
        }
        out.extend(model.end_state_differences(&real.resident, &real.folios));
        if let (Some(a), Some(b)) = (model.file_pmd_mapped_kb, real.file_pmd_mapped_kb) {
            if a != b {
                out.push(format!("FilePmdMapped: model {a} kB kernel {b} kB"));
            }
        }
        out
    }
}
