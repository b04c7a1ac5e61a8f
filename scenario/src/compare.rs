//! `folioscope compare`: every row of a seed's tables run on the model for
//! each kernel, next to the published figures, with the cost models that
//! turn the model's counts into time.
//!
//! Seed 000's device model is per-I/O latency plus bytes over bandwidth.
//! The bandwidth is an assumption, 4 GB/s, a round figure for an NVMe-backed
//! virtio disk; the latency is fitted once, on the v7.4-rc2 MADV_SEQUENTIAL
//! row, where the model makes one 4 KiB read per fault.
//!
//! Seed 003's time model is in [`crate::exec_cost`]: one cost per count,
//! fitted on the baseline column only. The thread publishes one baseline
//! figure per phase, so a patched time is predicted only where every count
//! changes in one ratio; elsewhere the table prints `-` and, under the row,
//! the range of times every fit allows and why it is not narrower.
//!
//! Seed 004's cost model is in [`crate::shmem_cost`]: per-operation and
//! per-page costs fitted on the v7.1-rc5 columns, applied to the model's
//! counts for both kernels.

use folioscope_core::{Machine, NoEvents, Pattern, Scenario, Simulation};
use serde::Serialize;

use crate::exec_cost::{self, Bounds, Phase, Prediction};
use crate::report::ReadPathReport;
use crate::seeds::{hole_trace, Column, Measure, Published, Row, Seed};
use crate::shmem_cost::{FitRow, ShmemCost};
use crate::text::wrap;

/// What the model gives for one kernel of one row.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Figures {
    pub major_faults: u64,
    pub minor_faults: u64,
    pub bytes_read: u64,
    pub read_ios: u64,
    /// TLB entries the mappings need at the end.
    pub translations: u64,
    /// For the hole test: holes mapped with a PMD, and tries.
    pub holes: Option<(u32, u32)>,
    pub accesses: u64,
    /// The read path's operation counts, for tmpfs rows.
    pub read_path: Option<ReadPathReport>,
}

impl Figures {
    /// The figures of a machine at its current step.
    pub fn of(m: &Machine) -> Figures {
        counts(m)
    }
}

fn counts(m: &Machine) -> Figures {
    let c = m.counters();
    Figures {
        major_faults: c.major_faults,
        minor_faults: c.minor_faults,
        bytes_read: c.bytes_read,
        read_ios: c.read_ios,
        translations: m.translations(),
        holes: None,
        accesses: c.accesses,
        read_path: m
            .backing()
            .is_tmpfs()
            .then(|| ReadPathReport::from_counts(c, &m.lookups())),
    }
}

/// Runs one kernel of a row.
pub fn measure(row: &Row, column: &Column) -> Result<Figures, String> {
    let mut run = Measuring::new(row, column)?;
    while !run.advance(u64::MAX)? {}
    Ok(run.finish())
}

/// One kernel of a row being measured a slice of accesses at a time, so
/// that a caller with a frame to keep (the web app) can run a seed's table
/// between frames. [`measure`] runs one to its end.
#[derive(Debug)]
pub struct Measuring {
    scenario: folioscope_core::Scenario,
    how: Measure,
    sim: Simulation,
    /// For [`Measure::After`]: the figures once the warm-up is over.
    before: Option<Figures>,
    /// For [`Measure::Holes`]: the try being run, the holes a PMD mapped,
    /// and the figures summed over the tries so far.
    try_k: u64,
    mapped: u32,
    total: Figures,
}

impl Measuring {
    pub fn new(row: &Row, column: &Column) -> Result<Measuring, String> {
        let mut scenario = row.scenario.clone();
        scenario.kernel = column.kernel.clone();
        if let Measure::Holes(_) = row.measure {
            scenario.pattern = Self::hole(&scenario, 0);
        }
        let cfg = scenario.config().map_err(|e| e.to_string())?;
        Ok(Measuring {
            sim: Simulation::new(cfg),
            scenario,
            how: row.measure,
            before: None,
            try_k: 0,
            mapped: 0,
            total: Figures::default(),
        })
    }

    /// The hole test's try `k`: a fresh run with its hole somewhere else;
    /// never next to the start of the file, where a read opens the file's
    /// first readahead window, nor at its end.
    fn hole(s: &folioscope_core::Scenario, k: u64) -> Pattern {
        let (page, h) = Self::hole_at(s, k);
        hole_trace(h, page / 8, page)
    }

    /// The page size and the PMD of try `k`'s hole.
    fn hole_at(s: &folioscope_core::Scenario, k: u64) -> (u64, u64) {
        let page = s.page_size;
        let pmds = s.file_size / (page / 8 * page);
        (page, 2 + (k * 7) % (pmds - 4))
    }

    /// Runs up to `accesses` more (at least one try of the hole test);
    /// returns whether the measuring is over.
    pub fn advance(&mut self, accesses: u64) -> Result<bool, String> {
        match self.how {
            Measure::Whole => {
                let to = self.sim.step_count().saturating_add(accesses);
                self.sim.run_to(to, &mut NoEvents);
                Ok(self.sim.is_done())
            }
            Measure::After(warmup) => {
                let mut to = self.sim.step_count().saturating_add(accesses);
                if self.before.is_none() {
                    to = to.min(warmup);
                }
                self.sim.run_to(to, &mut NoEvents);
                if self.before.is_none() && self.sim.step_count() >= warmup.min(self.sim.len()) {
                    self.before = Some(counts(self.sim.machine()));
                }
                Ok(self.before.is_some() && self.sim.is_done())
            }
            Measure::Holes(tries) => {
                self.sim.run(&mut NoEvents);
                let (page, h) = Self::hole_at(&self.scenario, self.try_k);
                let pmd_pages = page / 8;
                let m = self.sim.machine();
                if m.mapped(h * pmd_pages, h * pmd_pages + 1).pmd_pages > 0 {
                    self.mapped += 1;
                }
                let c = counts(m);
                self.total.major_faults += c.major_faults;
                self.total.minor_faults += c.minor_faults;
                self.total.bytes_read += c.bytes_read;
                self.total.read_ios += c.read_ios;
                self.total.accesses += c.accesses;
                self.try_k += 1;
                if self.try_k == tries as u64 {
                    self.total.holes = Some((self.mapped, tries));
                    return Ok(true);
                }
                self.scenario.pattern = Self::hole(&self.scenario, self.try_k);
                let cfg = self.scenario.config().map_err(|e| e.to_string())?;
                self.sim = Simulation::new(cfg);
                Ok(false)
            }
        }
    }

    /// The figures, once [`Measuring::advance`] returned true.
    pub fn finish(self) -> Figures {
        match self.how {
            Measure::Whole => counts(self.sim.machine()),
            Measure::After(_) => {
                let after = counts(self.sim.machine());
                let before = self.before.unwrap_or_default();
                Figures {
                    major_faults: after.major_faults - before.major_faults,
                    minor_faults: after.minor_faults - before.minor_faults,
                    bytes_read: after.bytes_read - before.bytes_read,
                    read_ios: after.read_ios - before.read_ios,
                    translations: after.translations,
                    holes: None,
                    accesses: after.accesses - before.accesses,
                    read_path: None,
                }
            }
            Measure::Holes(_) => self.total,
        }
    }

    /// Accesses made so far, and how many the measuring makes in all.
    pub fn progress(&self) -> (u64, u64) {
        match self.how {
            Measure::Holes(tries) => (self.try_k, tries as u64),
            _ => (self.sim.step_count(), self.sim.len()),
        }
    }
}

/// A seed's whole table being measured, one kernel of one row at a time,
/// a slice of accesses at a time; [`compare`] runs one to its end.
#[derive(Debug)]
pub struct TableRun {
    seed: Seed,
    rows: Vec<Row>,
    /// The cells measured, row by row, and the one being measured.
    measured: Vec<Vec<Figures>>,
    current: Option<Measuring>,
    cell: usize,
    cells: usize,
}

impl TableRun {
    /// Starts measuring every row of `seed` among `rows`.
    pub fn new(seed: Seed, rows: &[Row]) -> Result<TableRun, String> {
        let rows: Vec<Row> = rows.iter().filter(|r| r.seed == seed).cloned().collect();
        let cells = rows.iter().map(|r| r.columns.len()).sum();
        let mut run = TableRun {
            seed,
            measured: vec![Vec::new(); rows.len()],
            rows,
            current: None,
            cell: 0,
            cells,
        };
        run.current = run.next_cell()?;
        Ok(run)
    }

    /// The row whose next cell is to be measured, if any is left.
    fn row_being_measured(&self) -> Option<usize> {
        (0..self.rows.len()).find(|&r| self.measured[r].len() < self.rows[r].columns.len())
    }

    /// The measuring of the next cell not yet measured, if any.
    fn next_cell(&self) -> Result<Option<Measuring>, String> {
        let Some(r) = self.row_being_measured() else {
            return Ok(None);
        };
        let row = &self.rows[r];
        Measuring::new(row, &row.columns[self.measured[r].len()]).map(Some)
    }

    /// Runs up to about `accesses` more; returns whether every cell is
    /// measured.
    pub fn advance(&mut self, accesses: u64) -> Result<bool, String> {
        let Some(run) = self.current.as_mut() else {
            return Ok(true);
        };
        if run.advance(accesses)? {
            if let (Some(done), Some(r)) = (self.current.take(), self.row_being_measured()) {
                self.measured[r].push(done.finish());
            }
            self.cell += 1;
            self.current = self.next_cell()?;
        }
        Ok(self.current.is_none())
    }

    /// Cells measured, and in all; and how far the one being measured
    /// has come, as (done, of).
    pub fn progress(&self) -> (usize, usize, (u64, u64)) {
        (
            self.cell,
            self.cells,
            self.current.as_ref().map_or((0, 0), Measuring::progress),
        )
    }

    /// The table, once every cell is measured.
    pub fn finish(mut self) -> Result<Comparison, String> {
        while !self.advance(u64::MAX)? {}
        let rows: Vec<&Row> = self.rows.iter().collect();
        assemble(self.seed, &rows, self.measured)
    }
}

/// Seed 000's device model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Device {
    pub latency_us: f64,
    pub bandwidth_gbs: f64,
}

impl Device {
    pub const BANDWIDTH_GBS: f64 = 4.0;

    /// Fits the latency so that `f` takes `seconds`.
    pub fn fit(f: &Figures, seconds: f64) -> Device {
        let transfer = f.bytes_read as f64 / (Self::BANDWIDTH_GBS * 1e9);
        Device {
            latency_us: (seconds - transfer) / f.read_ios.max(1) as f64 * 1e6,
            bandwidth_gbs: Self::BANDWIDTH_GBS,
        }
    }

    pub fn seconds(&self, f: &Figures) -> f64 {
        f.read_ios as f64 * self.latency_us / 1e6 + f.bytes_read as f64 / (self.bandwidth_gbs * 1e9)
    }
}

/// One kernel's line in a compare table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    pub kernel: String,
    pub model: Figures,
    /// Time estimated by the row's cost model, in the unit of `published`.
    pub estimate: Option<f64>,
    pub published: String,
    pub published_value: Option<f64>,
    pub calibration: bool,
    /// Where no time is predicted, the range of times the fit allows.
    pub bounds: Option<Bounds>,
}

/// One row of a compare table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RowResult {
    pub id: String,
    pub title: String,
    pub lines: Vec<Line>,
    /// Why some of the row's lines have no estimate.
    pub no_estimate: Option<String>,
}

/// The whole comparison for a seed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub seed: String,
    pub title: String,
    pub notes: Vec<String>,
    /// The unit of the estimates in the text table: "s" or "ms".
    pub time_unit: String,
    pub device: Option<Device>,
    pub shmem_cost: Option<ShmemCost>,
    pub rows: Vec<RowResult>,
}

fn published_text(p: &Published) -> (String, Option<f64>) {
    match *p {
        Published::Seconds(s) => (format!("{s:.2} s"), Some(s)),
        Published::Ms(ms) => (format!("{ms:.1} ms"), Some(ms)),
        Published::MbMajors(mb, m) => (format!("{mb:.0} MB, {m}"), Some(mb)),
        Published::Holes(a, b) => (format!("{a}/{b}"), Some(a as f64)),
        Published::Bandwidth(b) => (format!("{b:.0}"), Some(b)),
        Published::Same => ("same".into(), None),
    }
}

/// The row and column seed 000's device model is fitted on.
fn calibration_of(rows: &[&Row]) -> Result<(usize, usize), String> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.seed == Seed::S000)
        .find_map(|(i, r)| r.columns.iter().position(|c| c.calibration).map(|c| (i, c)))
        .ok_or_else(|| "seed 000 has no calibration row".into())
}

/// The device model whose latency makes `measured` take the column's
/// published time.
fn fit_calibration(column: &Column, measured: &Figures) -> Result<Device, String> {
    let Published::Seconds(s) = column.published else {
        return Err("the calibration row publishes no time".into());
    };
    Ok(Device::fit(measured, s))
}

/// Seed 000's device model, fitted on its calibration row alone (one run
/// of the model), for tables that are not seed 000's.
pub fn device_model() -> Result<Device, String> {
    let all = crate::seeds::rows();
    let rows: Vec<&Row> = all.iter().collect();
    let (ri, ci) = calibration_of(&rows)?;
    let column = &rows[ri].columns[ci];
    fit_calibration(column, &measure(rows[ri], column)?)
}

/// What [`device_model`] runs, for a caller that runs it a piece at a
/// time: the calibration row's scenario on its kernel, measured whole,
/// and the time published for it, which [`Device::fit`] fits on.
pub fn calibration_run() -> Result<(Scenario, f64), String> {
    let all = crate::seeds::rows();
    let rows: Vec<&Row> = all.iter().collect();
    let (ri, ci) = calibration_of(&rows)?;
    let (row, column) = (rows[ri], &rows[ri].columns[ci]);
    let Published::Seconds(seconds) = column.published else {
        return Err("the calibration row publishes no time".into());
    };
    if row.measure != Measure::Whole {
        return Err("the calibration row is not measured whole".into());
    }
    let mut scenario = row.scenario.clone();
    scenario.kernel = column.kernel.clone();
    Ok((scenario, seconds))
}

/// Runs every row of `seed` and applies its cost model.
pub fn compare(seed: Seed, rows: &[Row]) -> Result<Comparison, String> {
    TableRun::new(seed, rows)?.finish()
}

/// The table of `seed` from its rows' `measured` figures (a row's, one
/// per column): the cost model fitted and applied.
fn assemble(seed: Seed, rows: &[&Row], measured: Vec<Vec<Figures>>) -> Result<Comparison, String> {
    let rows = rows.to_vec();
    let mut device = None;
    let mut shmem_cost = None;
    let mut notes = Vec::new();
    match seed {
        Seed::S000 => {
            let (ri, ci) = calibration_of(&rows)?;
            let d = fit_calibration(&rows[ri].columns[ci], &measured[ri][ci])?;
            notes.push(format!(
                "device model: {:.1} us per I/O + bytes at {:.1} GB/s (latency fitted on {}, {})",
                d.latency_us,
                d.bandwidth_gbs,
                rows[ri].columns[ci].kernel.label(),
                rows[ri].title
            ));
            device = Some(d);
        }
        Seed::S003 => notes.push(exec_cost::describe()),
        Seed::S004 => {
            let mut fit = Vec::new();
            for (r, figs) in rows.iter().zip(&measured) {
                for (c, f) in r.columns.iter().zip(figs) {
                    if let (true, Published::Bandwidth(mib_s), Some(counts)) =
                        (c.calibration, c.published, f.read_path.as_ref())
                    {
                        fit.push(FitRow {
                            counts,
                            bs: block_size(r),
                            mib_s,
                        });
                    }
                }
            }
            let cost = ShmemCost::fit(&fit);
            notes.push(cost.describe());
            notes.push(
                "Counts are per 4 KiB read: lookups (shmem_get_folio, \
                 filemap_get_folios_contig), xas_load, node visits, xas_next, folio \
                 refs (get+put) and locks (lock+unlock). The v2 cover letter's hole \
                 rows run on a fallocated file: its holes \"were not successfully \
                 created\"."
                    .into(),
            );
            shmem_cost = Some(cost);
        }
    }
    let mut out = Vec::new();
    for (r, figs) in rows.iter().zip(&measured) {
        // Seed 003 fits each row on its baseline column.
        let baseline = match seed {
            Seed::S003 => Some(baseline_ms(r, figs)?),
            _ => None,
        };
        let mut lines = Vec::new();
        let mut reasons: Vec<(String, String)> = Vec::new();
        for (c, f) in r.columns.iter().zip(figs) {
            let (published, published_value) = published_text(&c.published);
            let mut bounds = None;
            let mut reason = None;
            let estimate = match (seed, baseline) {
                (Seed::S000, _) => device.map(|d| d.seconds(f)),
                (Seed::S003, Some((ms, _))) if c.calibration => Some(ms),
                (Seed::S003, Some((ms, base))) => {
                    let phase = match r.measure {
                        Measure::After(_) => Phase::Warm,
                        Measure::Whole | Measure::Holes(_) => Phase::Cold,
                    };
                    match exec_cost::predict(ms, &exec_cost::terms(phase, base, f)) {
                        Prediction::Exact(v) => Some(v),
                        Prediction::Range(b, why) => {
                            bounds = Some(b);
                            reason = Some(why);
                            None
                        }
                        Prediction::Unfounded(why) => {
                            reason = Some(why);
                            None
                        }
                    }
                }
                (Seed::S003, None) => None,
                (Seed::S004, _) => match (shmem_cost, &f.read_path) {
                    (Some(c), Some(counts)) => Some(c.mib_s(counts, block_size(r))),
                    _ => None,
                },
            };
            let estimate = match c.published {
                Published::Seconds(_)
                | Published::Ms(_)
                | Published::Same
                | Published::Bandwidth(_) => estimate,
                Published::MbMajors(..) => {
                    reason = Some(
                        "the thread published MB read and major faults here, not a time".into(),
                    );
                    None
                }
                Published::Holes(..) => None,
            };
            if let Some(why) = reason {
                reasons.push((c.kernel.label(), why));
            }
            lines.push(Line {
                kernel: c.kernel.label(),
                model: f.clone(),
                estimate,
                published,
                published_value,
                calibration: c.calibration,
                bounds,
            });
        }
        out.push(RowResult {
            id: r.id.clone(),
            title: r.title.clone(),
            lines,
            no_estimate: joined_reasons(&reasons),
        });
    }
    Ok(Comparison {
        seed: seed.name().into(),
        title: seed.title().into(),
        notes,
        time_unit: match seed {
            Seed::S003 => "ms",
            Seed::S000 | Seed::S004 => "s",
        }
        .into(),
        device,
        shmem_cost,
        rows: out,
    })
}

/// A row's baseline: the published time of its calibration column, in ms,
/// and the model's figures for it.
fn baseline_ms<'a>(r: &Row, figs: &'a [Figures]) -> Result<(f64, &'a Figures), String> {
    let i = r
        .columns
        .iter()
        .position(|c| c.calibration)
        .ok_or_else(|| format!("{}: no baseline column to fit on", r.id))?;
    match r.columns[i].published {
        Published::Ms(ms) => Ok((ms, &figs[i])),
        _ => Err(format!(
            "{}: the baseline column publishes no time in ms",
            r.id
        )),
    }
}

/// One reason when every line gives the same, else each with its kernel.
fn joined_reasons(reasons: &[(String, String)]) -> Option<String> {
    let first = &reasons.first()?.1;
    if reasons.iter().all(|(_, why)| why == first) {
        return Some(first.clone());
    }
    Some(
        reasons
            .iter()
            .map(|(kernel, why)| format!("{kernel}: {why}"))
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// The `read()` size of a row's pattern.
fn block_size(r: &Row) -> u64 {
    match r.scenario.pattern {
        Pattern::Read { bs } | Pattern::PreadRev { bs } => bs,
        _ => 0,
    }
}

impl Comparison {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a comparison always serialises")
    }

    /// A plain-text table, at most 78 columns wide.
    pub fn to_text(&self) -> String {
        if self.shmem_cost.is_some() {
            return self.to_text_bandwidth();
        }
        let mut s = self.header();
        let time_unit = format!("est {}", self.time_unit);
        s.push_str(&format!(
            "  {:<26}{:>8}{:>9}{:>8}{:>8}  {}\n",
            "kernel", "majors", "MB read", "I/Os", time_unit, "published"
        ));
        for r in &self.rows {
            s.push_str(&format!("{}\n", r.title));
            for l in &r.lines {
                let est = match (l.model.holes, l.estimate) {
                    (Some((a, b)), _) => format!("{a}/{b}"),
                    (None, Some(e)) => format!("{e:.2}"),
                    (None, None) => "-".into(),
                };
                let mut k = l.kernel.clone();
                if k.len() > 26 {
                    k = format!("{}~", &k[..25]);
                }
                let published = if l.calibration {
                    format!("{} (cal)", l.published)
                } else {
                    l.published.clone()
                };
                s.push_str(&format!(
                    "  {:<26}{:>8}{:>9.1}{:>8}{:>8}  {}\n",
                    k,
                    l.model.major_faults,
                    l.model.bytes_read as f64 / 1048576.0,
                    l.model.read_ios,
                    est,
                    published
                ));
            }
            if let Some(why) = &r.no_estimate {
                for line in wrap(&format!("  - {why}"), 78, "    ") {
                    s.push_str(&line);
                    s.push('\n');
                }
            }
        }
        s
    }
}

impl Comparison {
    fn header(&self) -> String {
        let mut s = String::new();
        for line in wrap(&format!("{}: {}", self.seed, self.title), 78, "") {
            s.push_str(&line);
            s.push('\n');
        }
        for n in &self.notes {
            for line in wrap(n, 76, "") {
                s.push_str(&format!("  {line}\n"));
            }
        }
        s.push('\n');
        s
    }

    /// Seed 004's table: bandwidth, its change, and the counts behind it.
    fn to_text_bandwidth(&self) -> String {
        let mut s = self.header();
        s.push_str(&format!(
            "  {:<16}{:>6}{:>7}{:>7}{:>7}{:>18}\n",
            "", "model", "publ.", "model", "publ.", "per 4 KiB read:"
        ));
        s.push_str(&format!(
            "  {:<16}{:>6}{:>7}{:>7}{:>7}{:>5}{:>5}{:>5}{:>5}{:>5}{:>5}\n",
            "kernel",
            "MiB/s",
            "MiB/s",
            "chg%",
            "chg%",
            "look",
            "load",
            "node",
            "next",
            "ref",
            "lock"
        ));
        for r in &self.rows {
            s.push_str(&format!("{}\n", r.title));
            let base = r.lines.first();
            for l in &r.lines {
                let (Some(est), Some(rp)) = (l.estimate, l.model.read_path.as_ref()) else {
                    continue;
                };
                let pages = ((rp.bytes_copied + rp.bytes_zero_copied + rp.bytes_cleared) / 4096)
                    .max(1) as f64;
                let per = |v: u64| format!("{:.2}", v as f64 / pages);
                let change = |now: f64, then: Option<f64>| match then {
                    Some(t) if !std::ptr::eq(l, base.expect("a line")) && t > 0.0 => {
                        format!("{:+.1}", (now / t - 1.0) * 100.0)
                    }
                    _ => "".into(),
                };
                let model_chg = change(est, base.and_then(|b| b.estimate));
                let pub_chg = match l.published_value {
                    Some(p) => change(p, base.and_then(|b| b.published_value)),
                    None => "".into(),
                };
                let mut k = l.kernel.clone();
                if k.len() > 16 {
                    k = format!("{}~", &k[..15]);
                }
                let published = if l.calibration {
                    format!("{}*", l.published)
                } else {
                    l.published.clone()
                };
                s.push_str(&format!(
                    "  {:<16}{:>6.0}{:>7}{:>7}{:>7}{:>5}{:>5}{:>5}{:>5}{:>5}{:>5}\n",
                    k,
                    est,
                    published,
                    model_chg,
                    pub_chg,
                    per(rp.shmem_get_folio + rp.get_folios_contig),
                    per(rp.xas_load),
                    per(rp.node_visits),
                    per(rp.xas_next),
                    per(rp.folio_get + rp.folio_put),
                    per(rp.folio_lock + rp.folio_unlock),
                ));
            }
        }
        s.push_str("  * fitted: the cost model's constants come from these columns\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeds::row;

    /// Measured a slice of accesses at a time, as the web app measures
    /// between frames, a cell gives the figures of one run to its end;
    /// both for a whole run and for one measured after a warm-up, with
    /// the slices falling across the warm-up's end.
    #[test]
    fn a_cell_measured_in_slices_is_the_cell_measured_at_once() {
        for id in ["seed003-cold", "seed003-random"] {
            let r = row(id).expect("a seed-003 row");
            let column = &r.columns[1];
            let mut run = Measuring::new(&r, column).unwrap();
            let mut slices = 0;
            let mut seen = 0;
            while !run.advance(1000).unwrap() {
                let (done, of) = run.progress();
                assert!(done > seen && done <= of, "{id}: {done} of {of}");
                seen = done;
                slices += 1;
            }
            assert!(slices > 5, "{id}: {slices} slices");
            assert_eq!(run.finish(), measure(&r, column).unwrap(), "{id}");
        }
    }
}
