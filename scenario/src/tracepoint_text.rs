//! The kernel's tracepoints in the text form tracefs prints after the task
//! and timestamp columns (the `print fmt` of each event's format file on
//! Linux 6.18), so that the model's stream and a real one can be compared
//! with `diff`. The model knows no device, inode or pfn: the caller gives
//! the device and inode, and the pfn is printed as 0.

use std::fmt::Write;

use folioscope_core::Tracepoint;

/// What tracepoints print that the model does not know: the file's device
/// and inode, and PAGE_SHIFT, by which byte offsets are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    pub major: u32,
    pub minor: u32,
    pub ino: u64,
    pub page_shift: u32,
}

impl Default for FileId {
    /// A file the model made up: device 0:0, inode 0, 4 KiB pages.
    fn default() -> Self {
        FileId {
            major: 0,
            minor: 0,
            ino: 0,
            page_shift: 12,
        }
    }
}

/// One tracepoint line, as tracefs prints it after the timestamp.
pub fn tracepoint_line(tp: &Tracepoint, file: FileId) -> String {
    let FileId {
        major,
        minor,
        ino,
        page_shift,
    } = file;
    let mut s = format!("{}: ", tp.name());
    let _ = match *tp {
        Tracepoint::SyncRa {
            index,
            req_count,
            ra,
        }
        | Tracepoint::AsyncRa {
            index,
            req_count,
            ra,
        } => write!(
            s,
            "dev={major}:{minor} ino={ino:x} index={index} req_count={req_count} order={} \
             size={} async_size={} ra_pages={} mmap_miss={} prev_pos={}",
            ra.order, ra.size, ra.async_size, ra.ra_pages, ra.mmap_miss, ra.prev_pos
        ),
        Tracepoint::RaOrder { index, ra } => write!(
            s,
            "dev={major}:{minor} ino={ino:x} index={index} order={} size={} async_size={} \
             ra_pages={}",
            ra.order, ra.size, ra.async_size, ra.ra_pages
        ),
        Tracepoint::RaUnbounded {
            index,
            nr_to_read,
            lookahead_size,
        } => write!(
            s,
            "dev={major}:{minor} ino={ino:x} index={index} nr_to_read={nr_to_read} \
             lookahead_size={lookahead_size}"
        ),
        Tracepoint::AddToPageCache { index, order }
        | Tracepoint::DeleteFromPageCache { index, order } => write!(
            s,
            "dev {major}:{minor} ino {ino:x} pfn=0x0 ofs={} order={order}",
            index << page_shift
        ),
        Tracepoint::FilemapFault { index } => {
            write!(
                s,
                "dev={major}:{minor} ino={ino:x} ofs={}",
                index << page_shift
            )
        }
        Tracepoint::MapPages { index, last_index } | Tracepoint::GetPages { index, last_index } => {
            write!(
                s,
                "dev={major}:{minor} ino={ino:x} ofs={}-{}",
                index << page_shift,
                ((last_index + 1) << page_shift) - 1
            )
        }
        Tracepoint::PageFaultUser { address, write } => write!(
            s,
            "address=0x{address:x} ip=0x0 error_code=0x{:x}",
            if write { 6 } else { 4 }
        ),
    };
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use folioscope_core::RaFields;

    #[test]
    fn lines_read_as_tracefs_prints_them() {
        let id = FileId {
            major: 254,
            minor: 0,
            ino: 0x51218d,
            page_shift: 12,
        };
        let ra = RaFields {
            order: 0,
            size: 0,
            async_size: 0,
            ra_pages: 4096,
            mmap_miss: 0,
            prev_pos: -1,
        };
        assert_eq!(
            tracepoint_line(
                &Tracepoint::SyncRa {
                    index: 0,
                    req_count: 32,
                    ra
                },
                id
            ),
            "page_cache_sync_ra: dev=254:0 ino=51218d index=0 req_count=32 order=0 size=0 \
             async_size=0 ra_pages=4096 mmap_miss=0 prev_pos=-1"
        );
        let ra = RaFields {
            order: 2,
            size: 512,
            async_size: 512,
            ..ra
        };
        assert_eq!(
            tracepoint_line(&Tracepoint::RaOrder { index: 128, ra }, id),
            "page_cache_ra_order: dev=254:0 ino=51218d index=128 order=2 size=512 \
             async_size=512 ra_pages=4096"
        );
        assert_eq!(
            tracepoint_line(&Tracepoint::AddToPageCache { index: 1, order: 0 }, id),
            "mm_filemap_add_to_page_cache: dev 254:0 ino 51218d pfn=0x0 ofs=4096 order=0"
        );
        assert_eq!(
            tracepoint_line(
                &Tracepoint::GetPages {
                    index: 0,
                    last_index: 31
                },
                id
            ),
            "mm_filemap_get_pages: dev=254:0 ino=51218d ofs=0-131071"
        );
    }
}
