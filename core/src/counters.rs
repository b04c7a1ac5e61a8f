//! The running counts of a scenario: what `getrusage`, `/proc/self/io` and
//! the model's own lookup accounting report.

/// Counts since the scenario started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// `ru_majflt`: faults that did I/O or were retried.
    pub major_faults: u64,
    /// `ru_minflt`.
    pub minor_faults: u64,
    /// `read_bytes` of /proc/self/io: bytes submitted for reading.
    pub bytes_read: u64,
    /// Block requests: each `read_pages` batch split at the device's
    /// largest request (max_sectors_kb), plus each `read_folio`.
    pub read_ios: u64,
    /// Bytes `read()` copied to the user.
    pub bytes_copied: u64,
    /// Folios reclaimed under the memory limit.
    pub evictions: u64,
    /// Folios read back soon enough after eviction to count as workingset.
    pub refaults: u64,
    /// Accesses done.
    pub accesses: u64,
}
