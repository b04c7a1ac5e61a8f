//! The kernel's tracepoints as text, exactly as tracefs prints them after
//! the task and timestamp columns: `mm_filemap_add_to_page_cache: dev
//! 254:0 ino 51218d pfn=0x0 ofs=4096 order=0`, `page_cache_sync_ra:
//! dev=254:0 ino=51218d index=0 req_count=32 ...`. The formats are the
//! `print fmt` lines of /sys/kernel/tracing/events/{readahead,filemap,
//! exceptions}/*/format on Linux 6.18; [`format_tracepoint`] writes them
//! and [`parse_tracepoint`] reads them back (from tracefs's `trace` file or
//! from `trace-cmd report`, which pads the event name with spaces but
//! prints the same fields).
//!
//! The model knows neither the device and inode of its file nor the pfn of
//! a folio: a [`TraceInode`] supplies the first two, and the pfn prints as
//! `0x0`. The kernel prints byte offsets as `index << PAGE_SHIFT`, so both
//! directions take the page shift.

use folioscope_core::{RaFields, Tracepoint};

/// The device and inode a tracepoint names: `dev=MAJOR:MINOR ino=HEX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TraceInode {
    pub major: u32,
    pub minor: u32,
    pub ino: u64,
}

impl TraceInode {
    /// The inode the model's own events name: a file on no device.
    pub const MODEL: TraceInode = TraceInode {
        major: 0,
        minor: 0,
        ino: 0,
    };

    /// The kernel's dev_t encoding (`MKDEV`: major << 20 | minor), as event
    /// filters compare `s_dev`.
    pub fn kernel_dev(&self) -> u64 {
        ((self.major as u64) << 20) | self.minor as u64
    }
}

impl std::fmt::Display for TraceInode {
    /// `254:0:51218d`: the device and the inode in hex, as tracefs prints it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{:x}", self.major, self.minor, self.ino)
    }
}

/// A tracepoint read from text: the inode it names (none for
/// `page_fault_user`), and its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedTracepoint {
    pub inode: Option<TraceInode>,
    pub tp: Tracepoint,
    /// The raw `error_code` of a page fault (bit 0: protection fault,
    /// bit 1: write, bit 2: user mode); zero for other tracepoints.
    pub error_code: u64,
}

/// The names [`parse_tracepoint`] reads.
pub const NAMES: [&str; 10] = [
    "page_cache_sync_ra",
    "page_cache_async_ra",
    "page_cache_ra_order",
    "page_cache_ra_unbounded",
    "mm_filemap_add_to_page_cache",
    "mm_filemap_delete_from_page_cache",
    "mm_filemap_fault",
    "mm_filemap_map_pages",
    "mm_filemap_get_pages",
    "page_fault_user",
];

/// The tracepoint as tracefs prints it, `name: fields`, for `file` and a
/// page of `1 << page_shift` bytes.
pub fn format_tracepoint(tp: &Tracepoint, file: TraceInode, page_shift: u32) -> String {
    let name = tp.name();
    let dev = format!("dev={}:{} ino={:x}", file.major, file.minor, file.ino);
    let ra = |index: u64, req_count: u64, ra: &RaFields| {
        format!(
            "{name}: {dev} index={index} req_count={req_count} order={} size={} async_size={} ra_pages={} mmap_miss={} prev_pos={}",
            ra.order, ra.size, ra.async_size, ra.ra_pages, ra.mmap_miss, ra.prev_pos
        )
    };
    let range = |index: u64, last: u64| {
        format!(
            "{name}: {dev} ofs={}-{}",
            index << page_shift,
            ((last + 1) << page_shift) - 1
        )
    };
    match tp {
        Tracepoint::SyncRa {
            index,
            req_count,
            ra: f,
        }
        | Tracepoint::AsyncRa {
            index,
            req_count,
            ra: f,
        } => ra(*index, *req_count, f),
        Tracepoint::RaOrder { index, ra: f } => format!(
            "{name}: {dev} index={index} order={} size={} async_size={} ra_pages={}",
            f.order, f.size, f.async_size, f.ra_pages
        ),
        Tracepoint::RaUnbounded {
            index,
            nr_to_read,
            lookahead_size,
        } => format!(
            "{name}: {dev} index={index} nr_to_read={nr_to_read} lookahead_size={lookahead_size}"
        ),
        Tracepoint::AddToPageCache { index, order }
        | Tracepoint::DeleteFromPageCache { index, order } => format!(
            "{name}: dev {}:{} ino {:x} pfn=0x0 ofs={} order={order}",
            file.major,
            file.minor,
            file.ino,
            index << page_shift
        ),
        Tracepoint::FilemapFault { index } => {
            format!("{name}: {dev} ofs={}", index << page_shift)
        }
        Tracepoint::MapPages { index, last_index } | Tracepoint::GetPages { index, last_index } => {
            range(*index, *last_index)
        }
        Tracepoint::PageFaultUser { address, write } => format!(
            "{name}: address=0x{address:x} ip=0x0 error_code=0x{:x}",
            fault_error_code(*write)
        ),
    }
}

/// The `error_code` of a user fault on a page that is not present:
/// X86_PF_USER, and X86_PF_WRITE for a write.
pub fn fault_error_code(write: bool) -> u64 {
    4 | if write { 2 } else { 0 }
}

/// Reads the fields of tracepoint `name` as tracefs prints them. `Ok(None)`
/// when `name` is not one of [`NAMES`]; an error names the field.
pub fn parse_tracepoint(
    name: &str,
    fields: &str,
    page_shift: u32,
) -> Result<Option<ParsedTracepoint>, String> {
    if !NAMES.contains(&name) {
        return Ok(None);
    }
    let f = Fields::new(fields);
    let page = |field: &str, bytes: u64| -> Result<u64, String> {
        if bytes & ((1u64 << page_shift) - 1) != 0 {
            return Err(format!(
                "{field}: {bytes} is not a multiple of the page size {}",
                1u64 << page_shift
            ));
        }
        Ok(bytes >> page_shift)
    };
    if name == "page_fault_user" {
        let address = f.hex("address")?;
        let error_code = f.hex("error_code")?;
        return Ok(Some(ParsedTracepoint {
            inode: None,
            tp: Tracepoint::PageFaultUser {
                address,
                write: error_code & 2 != 0,
            },
            error_code,
        }));
    }
    let inode = f.inode()?;
    let ra_fields = |with_miss: bool| -> Result<RaFields, String> {
        Ok(RaFields {
            order: f.dec_u32("order")?,
            size: f.dec_u32("size")?,
            async_size: f.dec_u32("async_size")?,
            ra_pages: f.dec_u32("ra_pages")?,
            mmap_miss: if with_miss {
                f.dec_u32("mmap_miss")?
            } else {
                0
            },
            prev_pos: if with_miss { f.dec_i64("prev_pos")? } else { 0 },
        })
    };
    let range = || -> Result<(u64, u64), String> {
        let ofs = f.get("ofs")?;
        let (a, b) = ofs
            .split_once('-')
            .ok_or_else(|| format!("ofs: '{ofs}' is not FIRST-LAST"))?;
        let first = page("ofs", num("ofs", a)?)?;
        let end = num("ofs", b)?
            .checked_add(1)
            .ok_or_else(|| format!("ofs: '{ofs}' overflows"))?;
        let end = page("ofs", end)?;
        if end <= first {
            return Err(format!("ofs: '{ofs}' ends before it starts"));
        }
        Ok((first, end - 1))
    };
    let tp = match name {
        "page_cache_sync_ra" => Tracepoint::SyncRa {
            index: f.dec("index")?,
            req_count: f.dec("req_count")?,
            ra: ra_fields(true)?,
        },
        "page_cache_async_ra" => Tracepoint::AsyncRa {
            index: f.dec("index")?,
            req_count: f.dec("req_count")?,
            ra: ra_fields(true)?,
        },
        "page_cache_ra_order" => Tracepoint::RaOrder {
            index: f.dec("index")?,
            ra: ra_fields(false)?,
        },
        "page_cache_ra_unbounded" => Tracepoint::RaUnbounded {
            index: f.dec("index")?,
            nr_to_read: f.dec("nr_to_read")?,
            lookahead_size: f.dec("lookahead_size")?,
        },
        "mm_filemap_add_to_page_cache" | "mm_filemap_delete_from_page_cache" => {
            let index = page("ofs", f.dec("ofs")?)?;
            let order = f.dec("order")?;
            let order = u8::try_from(order).map_err(|_| format!("order: {order} is too large"))?;
            if name == "mm_filemap_add_to_page_cache" {
                Tracepoint::AddToPageCache { index, order }
            } else {
                Tracepoint::DeleteFromPageCache { index, order }
            }
        }
        "mm_filemap_fault" => Tracepoint::FilemapFault {
            index: page("ofs", f.dec("ofs")?)?,
        },
        "mm_filemap_map_pages" => {
            let (index, last_index) = range()?;
            Tracepoint::MapPages { index, last_index }
        }
        _ => {
            let (index, last_index) = range()?;
            Tracepoint::GetPages { index, last_index }
        }
    };
    Ok(Some(ParsedTracepoint {
        inode: Some(inode),
        tp,
        error_code: 0,
    }))
}

/// The `key=value` fields of a line, and the `dev 254:0 ino 1a2b` pairs of
/// the filemap add and delete events.
pub(crate) struct Fields<'a> {
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut pairs = Vec::new();
        let mut words = text.split_whitespace().peekable();
        while let Some(w) = words.next() {
            if let Some((k, v)) = w.split_once('=') {
                pairs.push((k, v));
            } else if matches!(w, "dev" | "ino") {
                if let Some(v) = words.next() {
                    pairs.push((w, v));
                }
            }
        }
        Fields { pairs }
    }

    pub(crate) fn get(&self, key: &str) -> Result<&'a str, String> {
        self.pairs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .ok_or_else(|| format!("{key}: missing"))
    }

    pub(crate) fn dec(&self, key: &str) -> Result<u64, String> {
        num(key, self.get(key)?)
    }

    fn dec_u32(&self, key: &str) -> Result<u32, String> {
        let v = self.dec(key)?;
        u32::try_from(v).map_err(|_| format!("{key}: {v} is over 32 bits"))
    }

    fn dec_i64(&self, key: &str) -> Result<i64, String> {
        let v = self.get(key)?;
        v.parse()
            .map_err(|_| format!("{key}: '{v}' is not a signed number"))
    }

    pub(crate) fn hex(&self, key: &str) -> Result<u64, String> {
        let v = self.get(key)?;
        let digits = v
            .strip_prefix("0x")
            .ok_or_else(|| format!("{key}: '{v}' is not a 0x number"))?;
        u64::from_str_radix(digits, 16).map_err(|_| format!("{key}: '{v}' is not a 0x number"))
    }

    fn inode(&self) -> Result<TraceInode, String> {
        let dev = self.get("dev")?;
        let (major, minor) = dev
            .split_once(':')
            .ok_or_else(|| format!("dev: '{dev}' is not MAJOR:MINOR"))?;
        let major = major
            .parse()
            .map_err(|_| format!("dev: '{dev}' is not MAJOR:MINOR"))?;
        let minor = minor
            .parse()
            .map_err(|_| format!("dev: '{dev}' is not MAJOR:MINOR"))?;
        let ino = self.get("ino")?;
        let ino = u64::from_str_radix(ino, 16).map_err(|_| format!("ino: '{ino}' is not hex"))?;
        Ok(TraceInode { major, minor, ino })
    }
}

fn num(key: &str, v: &str) -> Result<u64, String> {
    v.parse()
        .map_err(|_| format!("{key}: '{v}' is not a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: TraceInode = TraceInode {
        major: 254,
        minor: 0,
        ino: 0x51218d,
    };

    fn ra() -> RaFields {
        RaFields {
            order: 2,
            size: 2048,
            async_size: 512,
            ra_pages: 2048,
            mmap_miss: 7,
            prev_pos: -1,
        }
    }

    fn all() -> Vec<Tracepoint> {
        vec![
            Tracepoint::SyncRa {
                index: 0,
                req_count: 32,
                ra: ra(),
            },
            Tracepoint::AsyncRa {
                index: 1536,
                req_count: 1,
                ra: RaFields {
                    prev_pos: 6291456,
                    ..ra()
                },
            },
            Tracepoint::RaOrder {
                index: 0,
                ra: RaFields {
                    mmap_miss: 0,
                    prev_pos: 0,
                    ..ra()
                },
            },
            Tracepoint::RaUnbounded {
                index: 2560,
                nr_to_read: 256,
                lookahead_size: 0,
            },
            Tracepoint::AddToPageCache { index: 1, order: 0 },
            Tracepoint::DeleteFromPageCache {
                index: 512,
                order: 9,
            },
            Tracepoint::FilemapFault { index: 303 },
            Tracepoint::MapPages {
                index: 208,
                last_index: 223,
            },
            Tracepoint::GetPages {
                index: 2560,
                last_index: 2815,
            },
            Tracepoint::PageFaultUser {
                address: 0x7f5db6e72e06,
                write: true,
            },
        ]
    }

    #[test]
    fn every_tracepoint_round_trips() {
        for tp in all() {
            let line = format_tracepoint(&tp, F, 12);
            let (name, fields) = line.split_once(": ").unwrap();
            assert_eq!(name, tp.name());
            let back = parse_tracepoint(name, fields, 12).unwrap().unwrap();
            assert_eq!(back.tp, tp, "{line}");
            if name != "page_fault_user" {
                assert_eq!(back.inode, Some(F), "{line}");
            }
        }
    }

    #[test]
    fn the_formats_are_the_kernels() {
        let lines: Vec<String> = all().iter().map(|t| format_tracepoint(t, F, 12)).collect();
        assert_eq!(
            lines,
            [
                "page_cache_sync_ra: dev=254:0 ino=51218d index=0 req_count=32 order=2 size=2048 async_size=512 ra_pages=2048 mmap_miss=7 prev_pos=-1",
                "page_cache_async_ra: dev=254:0 ino=51218d index=1536 req_count=1 order=2 size=2048 async_size=512 ra_pages=2048 mmap_miss=7 prev_pos=6291456",
                "page_cache_ra_order: dev=254:0 ino=51218d index=0 order=2 size=2048 async_size=512 ra_pages=2048",
                "page_cache_ra_unbounded: dev=254:0 ino=51218d index=2560 nr_to_read=256 lookahead_size=0",
                "mm_filemap_add_to_page_cache: dev 254:0 ino 51218d pfn=0x0 ofs=4096 order=0",
                "mm_filemap_delete_from_page_cache: dev 254:0 ino 51218d pfn=0x0 ofs=2097152 order=9",
                "mm_filemap_fault: dev=254:0 ino=51218d ofs=1241088",
                "mm_filemap_map_pages: dev=254:0 ino=51218d ofs=851968-917503",
                "mm_filemap_get_pages: dev=254:0 ino=51218d ofs=10485760-11534335",
                "page_fault_user: address=0x7f5db6e72e06 ip=0x0 error_code=0x6",
            ]
        );
    }

    #[test]
    fn real_lines_parse() {
        // Copied from this machine's tracefs and from `trace-cmd report`.
        let p = parse_tracepoint(
            "mm_filemap_add_to_page_cache",
            "dev 254:0 ino 5141ae pfn=0x228710 ofs=10485760 order=0",
            12,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            p.tp,
            Tracepoint::AddToPageCache {
                index: 2560,
                order: 0
            }
        );
        let p = parse_tracepoint(
            "page_fault_user",
            "address=0x7f2bbe356000 ip=0x7f2bbe3ec09d error_code=0x15",
            12,
        )
        .unwrap()
        .unwrap();
        assert_eq!(p.error_code, 0x15);
        let p = parse_tracepoint("mm_filemap_fault", "    dev=254:0 ino=3c52d ofs=86016", 12)
            .unwrap()
            .unwrap();
        assert_eq!(p.tp, Tracepoint::FilemapFault { index: 21 });
        assert_eq!(parse_tracepoint("sched_switch", "x=1", 12), Ok(None));
    }

    #[test]
    fn bad_fields_are_named() {
        let e = parse_tracepoint(
            "page_cache_sync_ra",
            "dev=254:0 ino=1 index=x req_count=1",
            12,
        )
        .unwrap_err();
        assert_eq!(e, "index: 'x' is not a number");
        let e = parse_tracepoint("mm_filemap_fault", "dev=254:0 ino=zz ofs=0", 12).unwrap_err();
        assert_eq!(e, "ino: 'zz' is not hex");
        let e = parse_tracepoint("mm_filemap_fault", "dev=254:0 ino=1 ofs=5", 12).unwrap_err();
        assert_eq!(e, "ofs: 5 is not a multiple of the page size 4096");
        let e = parse_tracepoint("mm_filemap_map_pages", "dev=254:0 ino=1", 12).unwrap_err();
        assert_eq!(e, "ofs: missing");
    }
}
