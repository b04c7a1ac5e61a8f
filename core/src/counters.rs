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
    /// Bytes `read()` copied to the user out of folios.
    pub bytes_copied: u64,
    /// The pieces of at most one page those copies are made in
    /// (`copy_page_to_iter` copies a folio one subpage at a time).
    pub copy_chunks: u64,
    /// Bytes of holes `read()` filled by copying the zero page (or zero folio).
    pub bytes_zero_copied: u64,
    /// The pieces of at most one page the zero-page copies are made in.
    pub zero_chunks: u64,
    /// Bytes of holes `read()` filled with `clear_user()`.
    pub bytes_cleared: u64,
    /// `clear_user()` calls.
    pub clear_calls: u64,
    /// Turns of the read loop (`shmem_file_read_iter`'s `for (;;)`).
    pub read_iterations: u64,
    /// `shmem_get_folio` calls.
    pub shmem_get_folio: u64,
    /// `filemap_get_folios_contig` calls.
    pub get_folios_contig: u64,
    /// Folio references taken (`folio_try_get`) and dropped (`folio_put`).
    pub folio_get: u64,
    pub folio_put: u64,
    /// `folio_lock` and `folio_unlock` calls.
    pub folio_lock: u64,
    pub folio_unlock: u64,
    /// `folio_mark_accessed` calls.
    pub mark_accessed: u64,
    /// `read()` calls that ended in an error (-EFAULT, -EIO).
    pub read_errors: u64,
    /// Folios reclaimed under the memory limit.
    pub evictions: u64,
    /// Folios read back soon enough after eviction to count as workingset.
    pub refaults: u64,
    /// Accesses done.
    pub accesses: u64,
}
