//! What the model tells the outside world: one [`Event`] per change, each
//! naming the kernel function that made it.
//!
//! Events are small `Copy` values so that emitting them is cheap; a run
//! that needs none passes [`NoEvents`] and the compiler drops them.

/// The kernel functions the model is made of, by their kernel names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KFunc {
    HandleMmFault,
    DoReadFault,
    DoFaultAround,
    FilemapMapPages,
    FilemapMapPmd,
    DoSetPmd,
    FinishFault,
    FilemapFault,
    DoSyncMmapReadahead,
    DoAsyncMmapReadahead,
    PageCacheSyncRa,
    PageCacheAsyncRa,
    PageCacheRaOrder,
    PageCacheRaUnbounded,
    ForcePageCacheRa,
    ReadPages,
    FilemapAddFolio,
    FilemapGetFolio,
    FilemapReadFolio,
    FilemapRead,
    FilemapGetPages,
    FilemapCreateFolio,
    FilemapReadahead,
    ShrinkFolioList,
    WorkingsetRefault,
    MmAccountFault,
    ShmemFileReadIter,
    ShmemGetFolio,
    FilemapGetFoliosContig,
    CopyFolioToIter,
    CopyPageToIter,
    CopyZeroToIter,
    CopyPagesToIter,
    IovIterZero,
    Madvise,
    /// `__filemap_remove_folio`, where a folio leaves the page cache.
    FilemapRemoveFolio,
    /// `exc_page_fault`, the architecture's entry for a page fault.
    ExcPageFault,
    /// `generic_fadvise` (mm/fadvise.c).
    GenericFadvise,
    /// `filemap_splice_read`, the page-cache side of splice and sendfile.
    FilemapSpliceRead,
}

impl KFunc {
    pub const fn name(self) -> &'static str {
        match self {
            KFunc::HandleMmFault => "handle_mm_fault",
            KFunc::DoReadFault => "do_read_fault",
            KFunc::DoFaultAround => "do_fault_around",
            KFunc::FilemapMapPages => "filemap_map_pages",
            KFunc::FilemapMapPmd => "filemap_map_pmd",
            KFunc::DoSetPmd => "do_set_pmd",
            KFunc::FinishFault => "finish_fault",
            KFunc::FilemapFault => "filemap_fault",
            KFunc::DoSyncMmapReadahead => "do_sync_mmap_readahead",
            KFunc::DoAsyncMmapReadahead => "do_async_mmap_readahead",
            KFunc::PageCacheSyncRa => "page_cache_sync_ra",
            KFunc::PageCacheAsyncRa => "page_cache_async_ra",
            KFunc::PageCacheRaOrder => "page_cache_ra_order",
            KFunc::PageCacheRaUnbounded => "page_cache_ra_unbounded",
            KFunc::ForcePageCacheRa => "force_page_cache_ra",
            KFunc::ReadPages => "read_pages",
            KFunc::FilemapAddFolio => "filemap_add_folio",
            KFunc::FilemapGetFolio => "filemap_get_folio",
            KFunc::FilemapReadFolio => "filemap_read_folio",
            KFunc::FilemapRead => "filemap_read",
            KFunc::FilemapGetPages => "filemap_get_pages",
            KFunc::FilemapCreateFolio => "filemap_create_folio",
            KFunc::FilemapReadahead => "filemap_readahead",
            KFunc::ShrinkFolioList => "shrink_folio_list",
            KFunc::WorkingsetRefault => "workingset_refault",
            KFunc::MmAccountFault => "mm_account_fault",
            KFunc::ShmemFileReadIter => "shmem_file_read_iter",
            KFunc::ShmemGetFolio => "shmem_get_folio",
            KFunc::FilemapGetFoliosContig => "filemap_get_folios_contig",
            KFunc::CopyFolioToIter => "copy_folio_to_iter",
            KFunc::CopyPageToIter => "copy_page_to_iter",
            KFunc::CopyZeroToIter => "copy_zero_to_iter",
            KFunc::CopyPagesToIter => "copy_pages_to_iter",
            KFunc::IovIterZero => "iov_iter_zero",
            KFunc::Madvise => "madvise",
            KFunc::FilemapRemoveFolio => "__filemap_remove_folio",
            KFunc::ExcPageFault => "exc_page_fault",
            KFunc::GenericFadvise => "generic_fadvise",
            KFunc::FilemapSpliceRead => "filemap_splice_read",
        }
    }
}

pub use crate::tracepoint::Tracepoint;

/// Why `mmap_miss` moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MissCause {
    /// A page-cache miss in `do_sync_mmap_readahead`.
    CacheMiss,
    /// A cache hit in `do_async_mmap_readahead`.
    CacheHit,
    /// Pages mapped by fault-around, counted as hits.
    FaultAroundHits { pages: u32 },
    /// A PMD mapping counted as a hit (a variant toggle).
    PmdHit,
}

/// Why a fault read no readahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoRaReason {
    /// `mmap_miss > MMAP_LOTSAMISS`.
    LotsaMiss,
    /// VM_RAND_READ on the mapping (or FMODE_RANDOM on the file).
    RandRead,
    /// `ra_pages` is zero.
    NoRaPages,
}

/// How a fault attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultOutcome {
    /// Fault-around mapped the address: VM_FAULT_NOPAGE.
    NoPage,
    /// `filemap_fault` found or read the folio and `finish_fault` mapped it.
    Locked,
    /// The mmap lock was dropped for I/O: VM_FAULT_RETRY.
    Retry,
    /// The page is past the end of the file: VM_FAULT_SIGBUS.
    Sigbus,
}

/// Where the bytes a `read()` copied came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopySource {
    /// A folio's data.
    Folio,
    /// The shared zero page (or the huge zero folio), copied.
    ZeroPage,
    /// No source: `clear_user()` wrote the zeroes.
    ClearUser,
}

/// Why a `read()` stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadErrno {
    /// A copy returned short: -EFAULT.
    Efault,
    /// A hardware-poisoned page: -EIO.
    Eio,
}

impl ReadErrno {
    pub fn name(self) -> &'static str {
        match self {
            ReadErrno::Efault => "EFAULT",
            ReadErrno::Eio => "EIO",
        }
    }
}

/// The window `page_cache_ra_order` or `page_cache_ra_unbounded` was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RaWindow {
    pub start: u64,
    pub size: u64,
    pub async_size: u64,
    pub order: u8,
}

/// One change the model made, with the kernel function that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// A process touched a page through the mapping and faulted.
    FaultStart { page: u64, tried: bool },
    /// One attempt of the fault ended.
    FaultAttempt {
        func: KFunc,
        page: u64,
        outcome: FaultOutcome,
        major: bool,
    },
    /// `mm_account_fault` counted the fault.
    FaultAccounted { page: u64, major: bool },
    /// A folio entered the page cache, locked and not yet uptodate.
    FolioAdded { func: KFunc, index: u64, order: u8 },
    /// A folio's read completed: uptodate, unlocked.
    FolioUptodate { index: u64, order: u8 },
    /// PG_readahead set or cleared.
    ReadaheadFlag { func: KFunc, index: u64, set: bool },
    /// The readahead window in `file_ra_state` changed.
    Window { func: KFunc, window: RaWindow },
    /// `mmap_miss` changed.
    MmapMiss {
        func: KFunc,
        old: u16,
        new: u16,
        cause: MissCause,
    },
    /// The fault path decided to read no readahead.
    NoReadahead {
        func: KFunc,
        reason: NoRaReason,
        mmap_miss: u16,
    },
    /// PTEs mapped for `nr` pages from `first`.
    PtesMapped { func: KFunc, first: u64, nr: u32 },
    /// A PMD mapping of the PMD-sized folio at `index`.
    PmdMapped { func: KFunc, index: u64 },
    /// I/O submitted for `nr` pages from `first` (`read_pages` or
    /// `read_folio`), in `requests` block requests.
    IoSubmitted {
        func: KFunc,
        first: u64,
        nr: u32,
        requests: u32,
    },
    /// `ra->prev_pos` set: where the last read ended (-1 for none).
    PrevPos { func: KFunc, pos: i64 },
    /// A `read()` call of `len` bytes at `offset`, served by `func`.
    ReadCall { func: KFunc, offset: u64, len: u64 },
    /// Bytes copied to the user at file offset `offset`.
    Copied {
        func: KFunc,
        offset: u64,
        len: u64,
        source: CopySource,
    },
    /// A page-cache lookup for a read: `folios` handed back from `index`.
    /// For `shmem_get_folio` that is 0 for a hole and for a folio that is
    /// not uptodate (fallocated), which SGP_READ does not return.
    Lookup {
        func: KFunc,
        index: u64,
        folios: u32,
    },
    /// A `read()` stopped with an error at `offset`.
    ReadError {
        func: KFunc,
        offset: u64,
        errno: ReadErrno,
    },
    /// Reclaim evicted a folio and left a shadow entry.
    Evicted { index: u64, order: u8 },
    /// A refault of a recently evicted folio: it comes back as workingset.
    Refault { index: u64, order: u8 },
    /// A folio left the page cache with no shadow: it was invalidated
    /// (POSIX_FADV_DONTNEED).
    Removed { func: KFunc, index: u64, order: u8 },
    /// A shadow entry left the page cache: invalidation cleared it
    /// (`clear_shadow_entries`), so a later read of its pages is no
    /// refault.
    ShadowCleared { func: KFunc, index: u64, order: u8 },
    /// One of the kernel's tracepoints fired, with the fields it records.
    Tracepoint(Tracepoint),
}

impl Event {
    /// The kernel function that made the change.
    pub fn func(&self) -> KFunc {
        match *self {
            Event::FaultStart { .. } => KFunc::HandleMmFault,
            Event::FaultAttempt { func, .. } => func,
            Event::FaultAccounted { .. } => KFunc::MmAccountFault,
            Event::FolioAdded { func, .. } => func,
            Event::FolioUptodate { .. } => KFunc::ReadPages,
            Event::ReadaheadFlag { func, .. } => func,
            Event::Window { func, .. } => func,
            Event::MmapMiss { func, .. } => func,
            Event::NoReadahead { func, .. } => func,
            Event::PtesMapped { func, .. } => func,
            Event::PmdMapped { func, .. } => func,
            Event::IoSubmitted { func, .. } => func,
            Event::PrevPos { func, .. } => func,
            Event::ReadCall { func, .. } => func,
            Event::Copied { func, .. } => func,
            Event::Lookup { func, .. } => func,
            Event::ReadError { func, .. } => func,
            Event::Evicted { .. } => KFunc::ShrinkFolioList,
            Event::Refault { .. } => KFunc::WorkingsetRefault,
            Event::Removed { func, .. } | Event::ShadowCleared { func, .. } => func,
            Event::Tracepoint(tp) => match tp {
                Tracepoint::SyncRa { .. } => KFunc::PageCacheSyncRa,
                Tracepoint::AsyncRa { .. } => KFunc::PageCacheAsyncRa,
                Tracepoint::RaOrder { .. } => KFunc::PageCacheRaOrder,
                Tracepoint::RaUnbounded { .. } => KFunc::PageCacheRaUnbounded,
                Tracepoint::AddToPageCache { .. } => KFunc::FilemapAddFolio,
                Tracepoint::DeleteFromPageCache { .. } => KFunc::FilemapRemoveFolio,
                Tracepoint::FilemapFault { .. } => KFunc::FilemapFault,
                Tracepoint::MapPages { .. } => KFunc::FilemapMapPages,
                Tracepoint::GetPages { .. } => KFunc::FilemapGetPages,
                Tracepoint::PageFaultUser { .. } => KFunc::ExcPageFault,
            },
        }
    }

    /// A coarse kind, for filters and "jump to next" in the timeline.
    pub fn kind(&self) -> EventKind {
        match *self {
            Event::FaultStart { .. } | Event::FaultAttempt { .. } => EventKind::Fault,
            Event::FaultAccounted { major: true, .. } => EventKind::MajorFault,
            Event::FaultAccounted { major: false, .. } => EventKind::MinorFault,
            Event::FolioAdded { .. } | Event::FolioUptodate { .. } => EventKind::Folio,
            Event::ReadaheadFlag { .. }
            | Event::Window { .. }
            | Event::NoReadahead { .. }
            | Event::PrevPos { .. } => EventKind::Readahead,
            Event::MmapMiss { .. } => EventKind::MmapMiss,
            Event::PtesMapped { .. } | Event::PmdMapped { .. } => EventKind::Map,
            Event::IoSubmitted { .. } => EventKind::Io,
            Event::ReadCall { .. }
            | Event::Copied { .. }
            | Event::Lookup { .. }
            | Event::ReadError { .. } => EventKind::Read,
            Event::Evicted { .. }
            | Event::Refault { .. }
            | Event::Removed { .. }
            | Event::ShadowCleared { .. } => EventKind::Reclaim,
            Event::Tracepoint(_) => EventKind::Tracepoint,
        }
    }
}

/// Coarse event kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    Fault,
    MajorFault,
    MinorFault,
    Folio,
    Readahead,
    MmapMiss,
    Map,
    Io,
    Read,
    Reclaim,
    /// The kernel's tracepoints, as the model fires them.
    Tracepoint,
}

impl EventKind {
    pub const ALL: [EventKind; 11] = [
        EventKind::Fault,
        EventKind::MajorFault,
        EventKind::MinorFault,
        EventKind::Folio,
        EventKind::Readahead,
        EventKind::MmapMiss,
        EventKind::Map,
        EventKind::Io,
        EventKind::Read,
        EventKind::Reclaim,
        EventKind::Tracepoint,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            EventKind::Fault => "fault",
            EventKind::MajorFault => "major",
            EventKind::MinorFault => "minor",
            EventKind::Folio => "folio",
            EventKind::Readahead => "readahead",
            EventKind::MmapMiss => "mmap_miss",
            EventKind::Map => "map",
            EventKind::Io => "io",
            EventKind::Read => "read",
            EventKind::Reclaim => "reclaim",
            EventKind::Tracepoint => "tracepoint",
        }
    }
}

/// A set of [`EventKind`]s, one bit each, iterated in declaration order
/// (the order of [`EventKind::ALL`], which is also their `Ord`). A bit
/// set rather than a `BTreeSet`: the app's wasm carried a whole B-tree
/// instantiation, with its sort, for a set of at most 11 kinds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KindSet(u16);

impl KindSet {
    pub const fn new() -> Self {
        KindSet(0)
    }

    const fn bit(k: EventKind) -> u16 {
        1 << k as u16
    }

    pub const fn contains(&self, k: EventKind) -> bool {
        self.0 & Self::bit(k) != 0
    }

    /// Adds `k`; whether it was new.
    pub fn insert(&mut self, k: EventKind) -> bool {
        let new = !self.contains(k);
        self.0 |= Self::bit(k);
        new
    }

    /// Takes `k` out; whether it was there.
    pub fn remove(&mut self, k: EventKind) -> bool {
        let had = self.contains(k);
        self.0 &= !Self::bit(k);
        had
    }

    pub const fn is_empty(&self) -> bool {
        self.0 == 0
    }

    pub fn len(&self) -> usize {
        self.0.count_ones() as usize
    }

    /// The kinds in the set, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = EventKind> + '_ {
        EventKind::ALL.into_iter().filter(|&k| self.contains(k))
    }
}

impl FromIterator<EventKind> for KindSet {
    fn from_iter<I: IntoIterator<Item = EventKind>>(iter: I) -> Self {
        let mut s = KindSet::new();
        for k in iter {
            s.insert(k);
        }
        s
    }
}

impl<const N: usize> From<[EventKind; N]> for KindSet {
    fn from(kinds: [EventKind; N]) -> Self {
        kinds.into_iter().collect()
    }
}

/// Where events go.
pub trait EventSink {
    fn emit(&mut self, event: Event);
    /// Whether anyone listens; lets callers skip building costly events.
    fn enabled(&self) -> bool {
        true
    }
}

/// A sink that drops everything, for fast runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    #[inline(always)]
    fn emit(&mut self, _: Event) {}
    #[inline(always)]
    fn enabled(&self) -> bool {
        false
    }
}

impl EventSink for Vec<Event> {
    #[inline]
    fn emit(&mut self, event: Event) {
        self.push(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_set_holds_each_kind_once_and_lists_them_in_declaration_order() {
        let mut s = KindSet::new();
        assert!(s.is_empty());
        for k in EventKind::ALL.into_iter().rev() {
            assert!(s.insert(k), "{k:?} was new");
            assert!(!s.insert(k), "{k:?} is there once");
        }
        assert_eq!(s.len(), EventKind::ALL.len());
        assert_eq!(s.iter().collect::<Vec<_>>(), EventKind::ALL);
        // Declaration order is also the kinds' `Ord`, which links list
        // them in.
        assert!(EventKind::ALL.windows(2).all(|w| w[0] < w[1]));
        assert!(s.remove(EventKind::Map));
        assert!(!s.remove(EventKind::Map));
        assert!(!s.contains(EventKind::Map) && s.contains(EventKind::Io));
        let two = KindSet::from([EventKind::Io, EventKind::Fault]);
        assert_eq!(
            two.iter().collect::<Vec<_>>(),
            [EventKind::Fault, EventKind::Io]
        );
    }
}
