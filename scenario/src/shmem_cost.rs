//! Seed 004's cost model: the time of a run of `read()` calls on tmpfs as a
//! sum of per-operation and per-byte costs, with the counts from the model
//! and the costs fitted on the seed's published v7.1-rc5 columns only. The
//! patched columns are then predictions.
//!
//! The terms, each a count the model makes times a cost in ns:
//! - every `read()` call: the syscall, VFS and `file_accessed`;
//! - every turn of the read loop, and every lookup (`shmem_get_folio` or
//!   `filemap_get_folios_contig`). The baseline makes exactly one lookup
//!   per turn in every row, so no fit can tell the two apart; the model
//!   splits their joint cost evenly (the minimum-norm split);
//! - every xarray node a walk enters, and every `xas_next`, which the
//!   baseline never calls: it is priced as one more slot read;
//! - every folio atomic: `folio_try_get`, `folio_put`, `folio_lock`,
//!   `folio_unlock`;
//! - every `folio_mark_accessed`;
//! - every page-sized piece copied from a folio (user copies of data that
//!   streams from memory), and every piece copied from the zero page
//!   (which stays in the cache);
//! - every piece written into a user buffer larger than 512 KiB, which
//!   does not stay in the CPU's L2: the 1M rows run 25 to 40 ns per page
//!   slower than the 64k rows in every column of the baseline.
//!
//! `clear_user()` appears in no baseline row, so it cannot be fitted: a
//! cleared page is priced as a zero-page copy, after Mateusz Guzik's point
//! in the thread that `rep stosb` on FSRS CPUs is no slower than copying.
//!
//! The fit is non-negative least squares on relative error, so every row
//! weighs the same whatever its bandwidth.

use serde::Serialize;

use crate::nnls::nnls;
use crate::report::ReadPathReport;

/// User buffers above this size are assumed to spill out of L2.
pub const SPILL_ABOVE: u64 = 512 << 10;

/// The fitted costs, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ShmemCost {
    pub read_call_ns: f64,
    pub loop_turn_ns: f64,
    pub lookup_ns: f64,
    pub node_ns: f64,
    pub atomic_ns: f64,
    pub mark_accessed_ns: f64,
    pub data_page_ns: f64,
    pub zero_page_ns: f64,
    pub spill_page_ns: f64,
    /// The largest relative error on the rows it was fitted on.
    pub worst_fit_error: f64,
    pub rows_fitted: usize,
}

/// One run to fit on: its counts, block size and published MiB/s.
pub struct FitRow<'a> {
    pub counts: &'a ReadPathReport,
    pub bs: u64,
    pub mib_s: f64,
}

const PAGE: u64 = 4096;

/// The count each cost multiplies, in the order of [`ShmemCost::costs`].
fn features(r: &ReadPathReport, bs: u64) -> [f64; 8] {
    let cleared_pages = r.bytes_cleared.div_ceil(PAGE);
    let pieces = r.copy_chunks + r.zero_chunks + cleared_pages;
    [
        r.read_calls as f64,
        (r.iterations + r.shmem_get_folio + r.get_folios_contig) as f64 / 2.0,
        (r.node_visits + r.xas_next) as f64,
        (r.folio_get + r.folio_put + r.folio_lock + r.folio_unlock) as f64,
        r.mark_accessed as f64,
        r.copy_chunks as f64,
        (r.zero_chunks + cleared_pages) as f64,
        if bs > SPILL_ABOVE { pieces as f64 } else { 0.0 },
    ]
}

fn bytes_returned(r: &ReadPathReport) -> u64 {
    r.bytes_copied + r.bytes_zero_copied + r.bytes_cleared
}

impl ShmemCost {
    fn costs(&self) -> [f64; 8] {
        [
            self.read_call_ns,
            self.loop_turn_ns + self.lookup_ns,
            self.node_ns,
            self.atomic_ns,
            self.mark_accessed_ns,
            self.data_page_ns,
            self.zero_page_ns,
            self.spill_page_ns,
        ]
    }

    /// Fits the costs on baseline runs.
    pub fn fit(rows: &[FitRow]) -> ShmemCost {
        let mut a = Vec::new();
        let mut b = Vec::new();
        for row in rows {
            let t = published_ns(bytes_returned(row.counts), row.mib_s);
            a.push(features(row.counts, row.bs).map(|f| f / t).to_vec());
            b.push(1.0);
        }
        let x = nnls(&a, &b);
        let mut cost = ShmemCost {
            read_call_ns: x[0],
            loop_turn_ns: x[1] / 2.0,
            lookup_ns: x[1] / 2.0,
            node_ns: x[2],
            atomic_ns: x[3],
            mark_accessed_ns: x[4],
            data_page_ns: x[5],
            zero_page_ns: x[6],
            spill_page_ns: x[7],
            worst_fit_error: 0.0,
            rows_fitted: rows.len(),
        };
        cost.worst_fit_error = rows
            .iter()
            .map(|r| (cost.mib_s(r.counts, r.bs) / r.mib_s - 1.0).abs())
            .fold(0.0, f64::max);
        cost
    }

    /// The run's time in ns.
    pub fn ns(&self, r: &ReadPathReport, bs: u64) -> f64 {
        features(r, bs)
            .iter()
            .zip(self.costs())
            .map(|(f, c)| f * c)
            .sum()
    }

    /// The run's bandwidth in MiB/s.
    pub fn mib_s(&self, r: &ReadPathReport, bs: u64) -> f64 {
        let ns = self.ns(r, bs);
        if ns <= 0.0 {
            return 0.0;
        }
        bytes_returned(r) as f64 / (1u64 << 20) as f64 / (ns / 1e9)
    }

    /// The costs as one line for a table's notes.
    pub fn describe(&self) -> String {
        format!(
            "cost model (ns): read() {:.0}; loop turn {:.1}; lookup {:.1}; node or xas_next {:.1}; \
             folio atomic {:.1}; mark_accessed {:.1}; a byte from a folio {:.4} ({:.1} per 4K), \
             from the zero page {:.4} ({:.1} per 4K); into a buffer over 512K +{:.4} ({:.1} per 4K). \
             Fitted on the {} v7.1-rc5 rows, worst error {:.1}%.",
            self.read_call_ns,
            self.loop_turn_ns,
            self.lookup_ns,
            self.node_ns,
            self.atomic_ns,
            self.mark_accessed_ns,
            self.data_page_ns / PAGE as f64,
            self.data_page_ns,
            self.zero_page_ns / PAGE as f64,
            self.zero_page_ns,
            self.spill_page_ns / PAGE as f64,
            self.spill_page_ns,
            self.rows_fitted,
            self.worst_fit_error * 100.0
        )
    }
}

/// The time a published bandwidth implies for so many bytes, in ns.
fn published_ns(bytes: u64, mib_s: f64) -> f64 {
    bytes as f64 / (mib_s * (1u64 << 20) as f64) * 1e9
}
