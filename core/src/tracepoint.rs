//! The kernel's own tracepoints, as the model fires them: the fields of
//! `include/trace/events/readahead.h` (`page_cache_sync_ra`,
//! `page_cache_async_ra`, `page_cache_ra_order`,
//! `page_cache_ra_unbounded`), `include/trace/events/filemap.h`
//! (`mm_filemap_add_to_page_cache`, `mm_filemap_delete_from_page_cache`,
//! `mm_filemap_fault`, `mm_filemap_map_pages`, `mm_filemap_get_pages`) and
//! `arch/x86/include/asm/trace/exceptions.h` (`page_fault_user`), Linux
//! 6.18.
//!
//! Each is fired where the kernel fires it, with the values the kernel
//! records there, so that the model's stream and a real one can be
//! compared field by field. The device and inode numbers and the folio's
//! pfn are not the model's to know: the text form adds them.

/// The `file_ra_state` fields the readahead tracepoints record, read when
/// the tracepoint fires (on entry to the function, before it changes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RaFields {
    pub order: u32,
    pub size: u32,
    pub async_size: u32,
    pub ra_pages: u32,
    pub mmap_miss: u32,
    pub prev_pos: i64,
}

/// One tracepoint hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tracepoint {
    /// `readahead:page_cache_sync_ra`, on entry: the read missed at `index`.
    SyncRa {
        index: u64,
        req_count: u64,
        ra: RaFields,
    },
    /// `readahead:page_cache_async_ra`, once the marker folio is known not
    /// to be under writeback.
    AsyncRa {
        index: u64,
        req_count: u64,
        ra: RaFields,
    },
    /// `readahead:page_cache_ra_order`, on entry: `index` is the readahead
    /// control's index, which is not always `ra->start`. It records no
    /// `mmap_miss` or `prev_pos`: both are 0 here, so that equal events
    /// compare equal.
    RaOrder { index: u64, ra: RaFields },
    /// `readahead:page_cache_ra_unbounded`, on entry, before the index is
    /// aligned to the mapping's minimum order.
    RaUnbounded {
        index: u64,
        nr_to_read: u64,
        lookahead_size: u64,
    },
    /// `filemap:mm_filemap_add_to_page_cache`: a folio entered the cache.
    AddToPageCache { index: u64, order: u8 },
    /// `filemap:mm_filemap_delete_from_page_cache`: a folio left it.
    DeleteFromPageCache { index: u64, order: u8 },
    /// `filemap:mm_filemap_fault`, once the index is known to be inside
    /// i_size.
    FilemapFault { index: u64 },
    /// `filemap:mm_filemap_map_pages`, when fault-around mapped with PTEs
    /// over `[index, last_index]` (the window, clipped at EOF).
    MapPages { index: u64, last_index: u64 },
    /// `filemap:mm_filemap_get_pages`, when `filemap_get_pages` returns
    /// folios for `[index, last_index]`.
    GetPages { index: u64, last_index: u64 },
    /// `exceptions:page_fault_user`: a fault at user address `address`.
    PageFaultUser { address: u64, write: bool },
}

impl Tracepoint {
    /// The tracepoint's name, as tracefs prints it.
    pub fn name(&self) -> &'static str {
        match self {
            Tracepoint::SyncRa { .. } => "page_cache_sync_ra",
            Tracepoint::AsyncRa { .. } => "page_cache_async_ra",
            Tracepoint::RaOrder { .. } => "page_cache_ra_order",
            Tracepoint::RaUnbounded { .. } => "page_cache_ra_unbounded",
            Tracepoint::AddToPageCache { .. } => "mm_filemap_add_to_page_cache",
            Tracepoint::DeleteFromPageCache { .. } => "mm_filemap_delete_from_page_cache",
            Tracepoint::FilemapFault { .. } => "mm_filemap_fault",
            Tracepoint::MapPages { .. } => "mm_filemap_map_pages",
            Tracepoint::GetPages { .. } => "mm_filemap_get_pages",
            Tracepoint::PageFaultUser { .. } => "page_fault_user",
        }
    }

    /// Whether this is one of the four readahead tracepoints.
    pub fn is_readahead(&self) -> bool {
        matches!(
            self,
            Tracepoint::SyncRa { .. }
                | Tracepoint::AsyncRa { .. }
                | Tracepoint::RaOrder { .. }
                | Tracepoint::RaUnbounded { .. }
        )
    }
}
