//! The recording file, version 1: gzipped UTF-8 text, one record a line,
//! small enough to attach to a bug (`zcat` shows it). [`parse`] also reads
//! the text unzipped, so a recording can be written by hand.
//!
//! ```text
//! folioscope-recording 1
//! machine release=6.18.44 arch=x86_64 page_size=4096 thp_enabled=madvise thp_defrag=madvise fault_around_bytes=65536
//! arg cat
//! arg /data/f
//! file 0 dev=254:0 ino=5141ae size=67108864 fs=ext4 read_ahead_kb=8192 path=/data/f
//! o 0
//! r 0 0 131072
//! S 0 32 0 0 0 2048 0 x
//! + 0 2
//! + 0 2
//! end 0 resident=0+2048 folios=0:2:512
//! total 4
//! ```
//!
//! - `machine`: `uname -r` and `-m`, the page size, the selected THP
//!   `enabled` and `defrag` values (`none` without THP), fault_around_bytes
//!   (`unknown` when debugfs could not be read).
//! - `arg`: the command, one argument a line.
//! - `file N`: the device and inode (hex) the tracepoints name, the size in
//!   bytes, the file system, read_ahead_kb of its device, and the path,
//!   which runs to the end of the line. In `arg` and `path`, `\n` and `\\`
//!   stand for a newline and a backslash.
//! - Items, in the kernel's log order, of file 0 until a line `@N`
//!   switches to file N. Accesses, lower case:
//!   `o OFD` open; `r OFD DELTA LEN` read and `s OFD DELTA LEN` splice,
//!   sendfile or copy_file_range of LEN bytes at the previous read's end
//!   plus DELTA; `f OFD OFFSET LEN ADVICE` posix_fadvise
//!   (advice number); `m MM VPN PAGES OFD PGOFF [x]` mmap (`x` for
//!   PROT_EXEC); `u MM VPN PAGES`
//!   munmap; `a MM VPN PAGES ADVICE` madvise (advice number);
//!   `t DELTA [MM]` a read fault and `w DELTA [MM]` a write fault at
//!   virtual page previous-fault's + DELTA, in process MM (left out when it
//!   is the previous fault's). Kernel events, upper case or sign:
//!   `S`/`A DELTA REQ_COUNT ORDER SIZE ASYNC_SIZE RA_PAGES MMAP_MISS
//!   PREV` page_cache_sync_ra / page_cache_async_ra, where PREV is
//!   prev_pos less the index's byte offset, or `x` for a prev_pos of -1;
//!   `O DELTA ORDER SIZE ASYNC_SIZE RA_PAGES` page_cache_ra_order;
//!   `U DELTA NR_TO_READ LOOKAHEAD_SIZE` page_cache_ra_unbounded; each at
//!   index previous-readahead-event's index + DELTA;
//!   `+ DELTA ORDER` and `- DELTA ORDER` a folio added to or deleted from
//!   the page cache at index previous-add-or-delete's end + DELTA;
//!   `F DELTA` mm_filemap_fault, `M DELTA PAGES` mm_filemap_map_pages and
//!   `G DELTA PAGES` mm_filemap_get_pages, at index previous-F/M/G's index
//!   plus DELTA, over PAGES pages; `P ADDRESS WRITE` page_fault_user.
//!   Deltas make a walk's lines repeat, which gzip shrinks to almost
//!   nothing.
//! - `end N`: file N's end state, `resident=START+LEN,...` and
//!   `folios=START:ORDER:COUNT,...` (either may be empty).
//! - `total N`: the number of item lines; a file without it is truncated.

#[cfg(feature = "gzip")]
use std::io::{Read, Write};

#[cfg(feature = "gzip")]
use flate2::{read::GzDecoder, write::GzEncoder, Compression};
use folioscope_core::{Access, Fadvice, Madvice, RaFields, Tracepoint};

use super::{EndState, Item, RecordedFile, RecordedMachine, Recording, RecordingError};
use crate::tracepoint_text::TraceInode;

/// The first line of every recording.
pub const MAGIC: &str = "folioscope-recording";
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;

/// The recording as gzipped text (with the `gzip` feature).
#[cfg(feature = "gzip")]
pub fn write_gz(rec: &Recording) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    enc.write_all(write_text(rec).as_bytes())
        .expect("writing to a Vec cannot fail");
    enc.finish().expect("writing to a Vec cannot fail")
}

/// The recording as plain text.
pub fn write_text(rec: &Recording) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let m = &rec.machine;
    let _ = writeln!(s, "{MAGIC} {VERSION}");
    let _ = writeln!(
        s,
        "machine release={} arch={} page_size={} thp_enabled={} thp_defrag={} fault_around_bytes={}",
        m.release,
        m.arch,
        m.page_size,
        m.thp_enabled.as_deref().unwrap_or("none"),
        m.thp_defrag.as_deref().unwrap_or("none"),
        m.fault_around_bytes
            .map_or("unknown".to_string(), |b| b.to_string())
    );
    for a in &rec.command {
        let _ = writeln!(s, "arg {}", escape(a));
    }
    for (i, f) in rec.files.iter().enumerate() {
        let _ = writeln!(
            s,
            "file {i} dev={}:{} ino={:x} size={} fs={} read_ahead_kb={} path={}",
            f.inode.major,
            f.inode.minor,
            f.inode.ino,
            f.size,
            f.fs,
            f.read_ahead_kb,
            escape(&f.path)
        );
    }
    let cursor = Cursor {
        page_shift: m.page_size.trailing_zeros(),
        ..Cursor::default()
    };
    let mut cur = vec![cursor; rec.files.len().max(1)];
    let mut file = 0u32;
    for item in &rec.items {
        if item.file() != file {
            file = item.file();
            let _ = writeln!(s, "@{file}");
        }
        let c = &mut cur[file as usize];
        let _ = writeln!(s, "{}", item_line(item, c));
    }
    for (i, e) in rec.end.iter().enumerate() {
        if let Some(e) = e {
            let resident: Vec<String> = e
                .resident
                .iter()
                .map(|r| format!("{}+{}", r[0], r[1]))
                .collect();
            let folios: Vec<String> = e
                .folios
                .iter()
                .map(|r| format!("{}:{}:{}", r[0], r[1], r[2]))
                .collect();
            let _ = writeln!(
                s,
                "end {i} resident={} folios={}",
                resident.join(","),
                folios.join(",")
            );
        }
    }
    let _ = writeln!(s, "total {}", rec.items.len());
    s
}

/// What the delta-encoded lines of one file are relative to.
#[derive(Clone, Copy, Debug, Default)]
struct Cursor {
    fault_vpn: u64,
    fault_mm: u32,
    /// The end of the previous add or delete: its index plus its pages.
    cache_end: u64,
    /// The index of the previous fault, map_pages or get_pages event.
    lookup: u64,
    /// The index of the previous readahead event.
    ra: u64,
    /// The end (offset plus length) of the previous read or splice.
    read_end: u64,
    /// PAGE_SHIFT, to write `prev_pos` relative to the event's index.
    page_shift: u32,
}

impl Cursor {
    /// `index` as a delta from the previous readahead event's.
    fn ra_delta(&mut self, index: u64) -> i64 {
        let d = index.wrapping_sub(self.ra) as i64;
        self.ra = index;
        d
    }

    fn ra_index(&mut self, delta: i64) -> u64 {
        self.ra = self.ra.wrapping_add(delta as u64);
        self.ra
    }
}

fn item_line(item: &Item, c: &mut Cursor) -> String {
    match *item {
        Item::Access { access, .. } => match access {
            Access::Open { ofd } => format!("o {ofd}"),
            Access::ReadAt { ofd, offset, len } | Access::SpliceRead { ofd, offset, len } => {
                let tag = if matches!(access, Access::ReadAt { .. }) {
                    'r'
                } else {
                    's'
                };
                let delta = offset.wrapping_sub(c.read_end) as i64;
                c.read_end = offset.wrapping_add(len);
                format!("{tag} {ofd} {delta} {len}")
            }
            Access::Fadvise {
                ofd,
                offset,
                len,
                advice,
            } => format!("f {ofd} {offset} {len} {}", advice.number()),
            Access::Mmap {
                mm,
                vpn,
                pages,
                ofd,
                pgoff,
                exec,
            } => {
                let x = if exec { " x" } else { "" };
                format!("m {mm} {vpn} {pages} {ofd} {pgoff}{x}")
            }
            Access::Munmap { mm, vpn, pages } => format!("u {mm} {vpn} {pages}"),
            Access::Madvise {
                mm,
                vpn,
                pages,
                advice,
            } => format!("a {mm} {vpn} {pages} {}", advice.number()),
            Access::Fault { mm, vpn, write } => {
                let delta = vpn.wrapping_sub(c.fault_vpn) as i64;
                let tag = if write { 'w' } else { 't' };
                let line = if mm == c.fault_mm {
                    format!("{tag} {delta}")
                } else {
                    format!("{tag} {delta} {mm}")
                };
                c.fault_vpn = vpn;
                c.fault_mm = mm;
                line
            }
            // The synthetic patterns' accesses are written as the program
            // accesses they stand for, on open file 0 and process 0.
            Access::Touch { page } => {
                let line = format!("t {}", page.wrapping_sub(c.fault_vpn) as i64);
                c.fault_vpn = page;
                line
            }
            Access::Read { offset, len } => {
                let delta = offset.wrapping_sub(c.read_end) as i64;
                c.read_end = offset.wrapping_add(len);
                format!("r 0 {delta} {len}")
            }
        },
        Item::Event { tp, .. } => match tp {
            Tracepoint::SyncRa {
                index,
                req_count,
                ra,
            } => format!(
                "S {} {req_count} {}",
                c.ra_delta(index),
                ra_text(&ra, index, c.page_shift)
            ),
            Tracepoint::AsyncRa {
                index,
                req_count,
                ra,
            } => format!(
                "A {} {req_count} {}",
                c.ra_delta(index),
                ra_text(&ra, index, c.page_shift)
            ),
            Tracepoint::RaOrder { index, ra } => format!(
                "O {} {} {} {} {}",
                c.ra_delta(index),
                ra.order,
                ra.size,
                ra.async_size,
                ra.ra_pages
            ),
            Tracepoint::RaUnbounded {
                index,
                nr_to_read,
                lookahead_size,
            } => format!("U {} {nr_to_read} {lookahead_size}", c.ra_delta(index)),
            Tracepoint::AddToPageCache { index, order }
            | Tracepoint::DeleteFromPageCache { index, order } => {
                let sign = if matches!(tp, Tracepoint::AddToPageCache { .. }) {
                    '+'
                } else {
                    '-'
                };
                let delta = index.wrapping_sub(c.cache_end) as i64;
                c.cache_end = index + (1u64 << order);
                format!("{sign} {delta} {order}")
            }
            Tracepoint::FilemapFault { index } => {
                let delta = index.wrapping_sub(c.lookup) as i64;
                c.lookup = index;
                format!("F {delta}")
            }
            Tracepoint::MapPages { index, last_index }
            | Tracepoint::GetPages { index, last_index } => {
                let tag = if matches!(tp, Tracepoint::MapPages { .. }) {
                    'M'
                } else {
                    'G'
                };
                let delta = index.wrapping_sub(c.lookup) as i64;
                c.lookup = index;
                format!(
                    "{tag} {delta} {}",
                    last_index.wrapping_sub(index).wrapping_add(1)
                )
            }
            Tracepoint::PageFaultUser { address, write } => {
                format!("P {address:#x} {}", write as u8)
            }
        },
    }
}

/// The readahead fields; `prev_pos` as its distance from the event's
/// index in bytes (a read's previous position is near where it reads), or
/// `x` for -1, the position of a file not yet read.
fn ra_text(ra: &RaFields, index: u64, page_shift: u32) -> String {
    let prev = if ra.prev_pos == -1 {
        "x".to_string()
    } else {
        ra.prev_pos
            .wrapping_sub((index << page_shift) as i64)
            .to_string()
    };
    format!(
        "{} {} {} {} {} {prev}",
        ra.order, ra.size, ra.async_size, ra.ra_pages, ra.mmap_miss
    )
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `bytes` start as a gzip stream does.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Reads a recording, gzipped (with the `gzip` feature) or plain text.
pub fn parse(bytes: &[u8]) -> Result<Recording, RecordingError> {
    let text = if is_gzip(bytes) {
        gunzip(bytes)?
    } else {
        String::from_utf8(bytes.to_vec()).map_err(|e| {
            RecordingError::new(
                "file",
                format!(
                    "not a recording: neither gzip nor UTF-8 text (byte {})",
                    e.utf8_error().valid_up_to()
                ),
            )
        })?
    };
    parse_text(&text)
}

#[cfg(feature = "gzip")]
fn gunzip(bytes: &[u8]) -> Result<String, RecordingError> {
    let mut s = String::new();
    GzDecoder::new(bytes).read_to_string(&mut s).map_err(|e| {
        RecordingError::new(
            "gzip",
            format!("the recording is truncated or damaged ({e})"),
        )
    })?;
    Ok(s)
}

/// Without an inflater (the web app's build, which unzips with the
/// browser's own before it parses), gzip is refused by name.
#[cfg(not(feature = "gzip"))]
fn gunzip(_: &[u8]) -> Result<String, RecordingError> {
    Err(RecordingError::new(
        "gzip",
        "this build reads recordings as text; unzip it first",
    ))
}

/// Reads the plain text of a recording.
pub fn parse_text(text: &str) -> Result<Recording, RecordingError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (n, first) = lines
        .next()
        .ok_or_else(|| RecordingError::new("file", "empty; not a recording"))?;
    let version = first
        .strip_prefix(MAGIC)
        .map(str::trim)
        .ok_or_else(|| RecordingError::at(n, "header", format!("does not start with '{MAGIC}'")))?;
    match version.parse::<u32>() {
        Ok(VERSION) => {}
        Ok(v) => {
            return Err(RecordingError::at(
                n,
                "version",
                format!("version {v} is not one this folioscope reads (it reads {VERSION})"),
            ))
        }
        Err(_) => {
            return Err(RecordingError::at(
                n,
                "version",
                format!("'{version}' is not a version number"),
            ))
        }
    }
    let mut machine: Option<RecordedMachine> = None;
    let mut command = Vec::new();
    let mut files: Vec<RecordedFile> = Vec::new();
    let mut items: Vec<Item> = Vec::new();
    let mut end: Vec<Option<EndState>> = Vec::new();
    let mut cur: Vec<Cursor> = Vec::new();
    let mut file = 0u32;
    let mut total: Option<usize> = None;
    for (n, line) in lines {
        if total.is_some() {
            return Err(RecordingError::at(
                n,
                "total",
                "lines after the closing total",
            ));
        }
        let (tag, rest) = line.split_once(' ').unwrap_or((line, ""));
        match tag {
            "" => continue,
            "machine" => machine = Some(parse_machine(n, rest)?),
            "arg" => command.push(unescape(rest)),
            "file" => {
                let f = parse_file(n, rest, files.len())?;
                let page_size = machine.as_ref().map(|m| m.page_size).ok_or_else(|| {
                    RecordingError::at(n, "file", "a file before the machine line")
                })?;
                files.push(f);
                cur.push(Cursor {
                    page_shift: page_size.trailing_zeros(),
                    ..Cursor::default()
                });
                end.push(None);
            }
            "end" => {
                let (i, e) = parse_end(n, rest, files.len())?;
                end[i] = Some(e);
            }
            "total" => {
                let t: usize = rest.trim().parse().map_err(|_| {
                    RecordingError::at(n, "total", format!("'{rest}' is not a count"))
                })?;
                if t != items.len() {
                    return Err(RecordingError::at(
                        n,
                        "total",
                        format!("says {t} items but the recording has {}", items.len()),
                    ));
                }
                total = Some(t);
            }
            t if t.starts_with('@') => {
                let f: u32 = t[1..]
                    .parse()
                    .map_err(|_| RecordingError::at(n, "@", format!("'{t}' is not @FILE")))?;
                if f as usize >= files.len() {
                    return Err(RecordingError::at(
                        n,
                        "@",
                        format!(
                            "file {f} is not declared (the recording has {})",
                            files.len()
                        ),
                    ));
                }
                file = f;
            }
            _ => {
                if files.is_empty() {
                    return Err(RecordingError::at(n, tag, "an item before any 'file' line"));
                }
                let item = parse_item(n, tag, rest, file, &mut cur[file as usize])?;
                items.push(item);
            }
        }
    }
    if total.is_none() {
        return Err(RecordingError::new(
            "total",
            "the recording is truncated: it has no closing 'total' line",
        ));
    }
    let machine = machine
        .ok_or_else(|| RecordingError::new("machine", "the recording has no machine line"))?;
    if files.is_empty() {
        return Err(RecordingError::new("file", "the recording names no file"));
    }
    Ok(Recording {
        machine,
        command,
        files,
        items,
        end,
    })
}

/// `key=value` words; the value of `last` runs to the end of the line.
fn keys<'a>(
    n: usize,
    text: &'a str,
    last: Option<&str>,
) -> Result<Vec<(&'a str, &'a str)>, RecordingError> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let (k, after) = rest.split_once('=').ok_or_else(|| {
            RecordingError::at(
                n,
                rest.split(' ').next().unwrap_or(rest),
                "is not KEY=VALUE",
            )
        })?;
        if Some(k) == last {
            out.push((k, after));
            break;
        }
        let (v, next) = after.split_once(' ').unwrap_or((after, ""));
        out.push((k, v));
        rest = next.trim_start();
    }
    Ok(out)
}

fn key<'a>(n: usize, kv: &[(&str, &'a str)], k: &str) -> Result<&'a str, RecordingError> {
    kv.iter()
        .find(|(key, _)| *key == k)
        .map(|(_, v)| *v)
        .ok_or_else(|| RecordingError::at(n, k, "missing"))
}

fn key_num(n: usize, kv: &[(&str, &str)], k: &str) -> Result<u64, RecordingError> {
    let v = key(n, kv, k)?;
    v.parse()
        .map_err(|_| RecordingError::at(n, k, format!("'{v}' is not a number")))
}

fn parse_machine(n: usize, rest: &str) -> Result<RecordedMachine, RecordingError> {
    let kv = keys(n, rest, None)?;
    let page_size = key_num(n, &kv, "page_size")?;
    if !page_size.is_power_of_two() || page_size < 4096 {
        return Err(RecordingError::at(
            n,
            "page_size",
            format!("{page_size} is not a page size"),
        ));
    }
    let opt = |v: &str| (v != "none").then(|| v.to_string());
    let fab = key(n, &kv, "fault_around_bytes")?;
    Ok(RecordedMachine {
        release: key(n, &kv, "release")?.to_string(),
        arch: key(n, &kv, "arch")?.to_string(),
        page_size,
        thp_enabled: opt(key(n, &kv, "thp_enabled")?),
        thp_defrag: opt(key(n, &kv, "thp_defrag")?),
        fault_around_bytes: if fab == "unknown" {
            None
        } else {
            Some(fab.parse().map_err(|_| {
                RecordingError::at(n, "fault_around_bytes", format!("'{fab}' is not a number"))
            })?)
        },
    })
}

fn parse_file(n: usize, rest: &str, expect: usize) -> Result<RecordedFile, RecordingError> {
    let (idx, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    if idx.parse::<usize>().ok() != Some(expect) {
        return Err(RecordingError::at(
            n,
            "file",
            format!("'{idx}' should be file {expect}, the next in order"),
        ));
    }
    let kv = keys(n, rest, Some("path"))?;
    let dev = key(n, &kv, "dev")?;
    let bad_dev = || RecordingError::at(n, "dev", format!("'{dev}' is not MAJOR:MINOR"));
    let (major, minor) = dev.split_once(':').ok_or_else(bad_dev)?;
    let ino = key(n, &kv, "ino")?;
    Ok(RecordedFile {
        path: unescape(key(n, &kv, "path")?),
        inode: TraceInode {
            major: major.parse().map_err(|_| bad_dev())?,
            minor: minor.parse().map_err(|_| bad_dev())?,
            ino: u64::from_str_radix(ino, 16)
                .map_err(|_| RecordingError::at(n, "ino", format!("'{ino}' is not hex")))?,
        },
        size: key_num(n, &kv, "size")?,
        fs: key(n, &kv, "fs")?.to_string(),
        read_ahead_kb: key_num(n, &kv, "read_ahead_kb")?,
    })
}

fn parse_end(n: usize, rest: &str, files: usize) -> Result<(usize, EndState), RecordingError> {
    let (idx, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    let i: usize =
        idx.parse().ok().filter(|&i| i < files).ok_or_else(|| {
            RecordingError::at(n, "end", format!("'{idx}' is not a declared file"))
        })?;
    let kv = keys(n, rest, None)?;
    let list = |k: &str, sep: char, width: usize| -> Result<Vec<Vec<u64>>, RecordingError> {
        let v = key(n, &kv, k)?;
        if v.is_empty() {
            return Ok(Vec::new());
        }
        v.split(',')
            .map(|run| {
                let parts: Result<Vec<u64>, _> = run.split(sep).map(str::parse).collect();
                match parts {
                    Ok(p) if p.len() == width => Ok(p),
                    _ => Err(RecordingError::at(n, k, format!("'{run}' is not a run"))),
                }
            })
            .collect()
    };
    Ok((
        i,
        EndState {
            resident: list("resident", '+', 2)?
                .into_iter()
                .map(|p| [p[0], p[1]])
                .collect(),
            folios: list("folios", ':', 3)?
                .into_iter()
                .map(|p| [p[0], p[1], p[2]])
                .collect(),
        },
    ))
}

fn parse_item(
    n: usize,
    tag: &str,
    rest: &str,
    file: u32,
    c: &mut Cursor,
) -> Result<Item, RecordingError> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize, name: &str| -> Result<&str, RecordingError> {
        words
            .get(i)
            .copied()
            .ok_or_else(|| RecordingError::at(n, format!("{tag}: {name}"), "missing"))
    };
    let u = |i: usize, name: &str| -> Result<u64, RecordingError> {
        let w = field(i, name)?;
        w.parse().map_err(|_| {
            RecordingError::at(
                n,
                format!("{tag}: {name}"),
                format!("'{w}' is not a number"),
            )
        })
    };
    let i = |i: usize, name: &str| -> Result<i64, RecordingError> {
        let w = field(i, name)?;
        w.parse().map_err(|_| {
            RecordingError::at(
                n,
                format!("{tag}: {name}"),
                format!("'{w}' is not a signed number"),
            )
        })
    };
    let u32_ = |k: usize, name: &str| -> Result<u32, RecordingError> {
        let v = u(k, name)?;
        u32::try_from(v).map_err(|_| {
            RecordingError::at(n, format!("{tag}: {name}"), format!("{v} is too large"))
        })
    };
    let arity = |want: &[usize]| -> Result<(), RecordingError> {
        if want.contains(&words.len()) {
            Ok(())
        } else {
            Err(RecordingError::at(
                n,
                tag,
                format!("has {} fields, not {}", words.len(), want[0]),
            ))
        }
    };
    let page_shift = c.page_shift;
    let ra = |k: usize, index: u64| -> Result<RaFields, RecordingError> {
        let prev_pos = if field(k + 5, "prev_pos")? == "x" {
            -1
        } else {
            i(k + 5, "prev_pos")?.wrapping_add((index << page_shift) as i64)
        };
        Ok(RaFields {
            order: u32_(k, "order")?,
            size: u32_(k + 1, "size")?,
            async_size: u32_(k + 2, "async_size")?,
            ra_pages: u32_(k + 3, "ra_pages")?,
            mmap_miss: u32_(k + 4, "mmap_miss")?,
            prev_pos,
        })
    };
    let access = |a: Access| Ok(Item::Access { file, access: a });
    let event = |tp: Tracepoint| Ok(Item::Event { file, tp });
    match tag {
        "o" => {
            arity(&[1])?;
            access(Access::Open {
                ofd: u32_(0, "ofd")?,
            })
        }
        "r" | "s" => {
            arity(&[3])?;
            let (ofd, delta, len) = (u32_(0, "ofd")?, i(1, "delta")?, u(2, "len")?);
            let offset = c.read_end.wrapping_add(delta as u64);
            c.read_end = offset.wrapping_add(len);
            access(if tag == "r" {
                Access::ReadAt { ofd, offset, len }
            } else {
                Access::SpliceRead { ofd, offset, len }
            })
        }
        "f" => {
            arity(&[4])?;
            let a = u(3, "advice")?;
            let advice = Fadvice::from_number(a).ok_or_else(|| {
                RecordingError::at(n, "f: advice", format!("{a} is not a posix_fadvise advice"))
            })?;
            access(Access::Fadvise {
                ofd: u32_(0, "ofd")?,
                offset: u(1, "offset")?,
                len: u(2, "len")?,
                advice,
            })
        }
        "m" => {
            arity(&[5, 6])?;
            let exec = match words.get(5) {
                None => false,
                Some(&"x") => true,
                Some(other) => {
                    return Err(RecordingError::at(
                        n,
                        "m: exec",
                        format!("'{other}' is not x (PROT_EXEC)"),
                    ))
                }
            };
            access(Access::Mmap {
                mm: u32_(0, "mm")?,
                vpn: u(1, "vpn")?,
                pages: u(2, "pages")?,
                ofd: u32_(3, "ofd")?,
                pgoff: u(4, "pgoff")?,
                exec,
            })
        }
        "u" => {
            arity(&[3])?;
            access(Access::Munmap {
                mm: u32_(0, "mm")?,
                vpn: u(1, "vpn")?,
                pages: u(2, "pages")?,
            })
        }
        "a" => {
            arity(&[4])?;
            let a = u(3, "advice")?;
            let advice = Madvice::from_number(a).ok_or_else(|| {
                RecordingError::at(
                    n,
                    "a: advice",
                    format!("{a} is not a madvise advice the page cache acts on"),
                )
            })?;
            access(Access::Madvise {
                mm: u32_(0, "mm")?,
                vpn: u(1, "vpn")?,
                pages: u(2, "pages")?,
                advice,
            })
        }
        "t" | "w" => {
            arity(&[1, 2])?;
            let delta = i(0, "delta")?;
            let mm = if words.len() == 2 {
                u32_(1, "mm")?
            } else {
                c.fault_mm
            };
            let vpn = c.fault_vpn.wrapping_add(delta as u64);
            c.fault_vpn = vpn;
            c.fault_mm = mm;
            access(Access::Fault {
                mm,
                vpn,
                write: tag == "w",
            })
        }
        "S" | "A" => {
            arity(&[8])?;
            let (delta, req_count) = (i(0, "delta")?, u(1, "req_count")?);
            let index = c.ra.wrapping_add(delta as u64);
            let ra = ra(2, index)?;
            c.ra = index;
            event(if tag == "S" {
                Tracepoint::SyncRa {
                    index,
                    req_count,
                    ra,
                }
            } else {
                Tracepoint::AsyncRa {
                    index,
                    req_count,
                    ra,
                }
            })
        }
        "O" => {
            arity(&[5])?;
            let index = c.ra_index(i(0, "delta")?);
            event(Tracepoint::RaOrder {
                index,
                ra: RaFields {
                    order: u32_(1, "order")?,
                    size: u32_(2, "size")?,
                    async_size: u32_(3, "async_size")?,
                    ra_pages: u32_(4, "ra_pages")?,
                    mmap_miss: 0,
                    prev_pos: 0,
                },
            })
        }
        "U" => {
            arity(&[3])?;
            let index = c.ra_index(i(0, "delta")?);
            event(Tracepoint::RaUnbounded {
                index,
                nr_to_read: u(1, "nr_to_read")?,
                lookahead_size: u(2, "lookahead_size")?,
            })
        }
        "+" | "-" => {
            arity(&[2])?;
            let delta = i(0, "delta")?;
            let order = u(1, "order")?;
            if order > 20 {
                return Err(RecordingError::at(
                    n,
                    format!("{tag}: order"),
                    format!("{order} is not a folio order"),
                ));
            }
            let order = order as u8;
            let index = c.cache_end.wrapping_add(delta as u64);
            c.cache_end = index.wrapping_add(1u64 << order);
            event(if tag == "+" {
                Tracepoint::AddToPageCache { index, order }
            } else {
                Tracepoint::DeleteFromPageCache { index, order }
            })
        }
        "F" => {
            arity(&[1])?;
            let index = c.lookup.wrapping_add(i(0, "delta")? as u64);
            c.lookup = index;
            event(Tracepoint::FilemapFault { index })
        }
        "M" | "G" => {
            arity(&[2])?;
            let index = c.lookup.wrapping_add(i(0, "delta")? as u64);
            let pages = u(1, "pages")?;
            if pages == 0 {
                return Err(RecordingError::at(
                    n,
                    format!("{tag}: pages"),
                    "a range of no pages",
                ));
            }
            c.lookup = index;
            let last_index = index.wrapping_add(pages - 1);
            event(if tag == "M" {
                Tracepoint::MapPages { index, last_index }
            } else {
                Tracepoint::GetPages { index, last_index }
            })
        }
        "P" => {
            arity(&[2])?;
            let a = field(0, "address")?;
            let address = a
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    RecordingError::at(n, "P: address", format!("'{a}' is not a 0x number"))
                })?;
            event(Tracepoint::PageFaultUser {
                address,
                write: u(1, "write")? != 0,
            })
        }
        other => Err(RecordingError::at(
            n,
            "item",
            format!("'{other}' is not a recording line"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> Recording {
        let ra = RaFields {
            order: 0,
            size: 0,
            async_size: 0,
            ra_pages: 2048,
            mmap_miss: 0,
            prev_pos: -1,
        };
        let f = |access| Item::Access { file: 0, access };
        let e = |tp| Item::Event { file: 0, tp };
        Recording {
            machine: RecordedMachine {
                release: "6.18.44-fc-v857".into(),
                arch: "x86_64".into(),
                page_size: 4096,
                thp_enabled: Some("madvise".into()),
                thp_defrag: Some("madvise".into()),
                fault_around_bytes: None,
            },
            command: vec!["sh".into(), "-c".into(), "cat f\\x\nnext".into()],
            files: vec![
                RecordedFile {
                    path: "/data/a file".into(),
                    inode: TraceInode {
                        major: 254,
                        minor: 0,
                        ino: 0x5141ae,
                    },
                    size: 64 << 20,
                    fs: "ext4".into(),
                    read_ahead_kb: 8192,
                },
                RecordedFile {
                    path: "/data/b".into(),
                    inode: TraceInode {
                        major: 254,
                        minor: 0,
                        ino: 0x12,
                    },
                    size: 5000,
                    fs: "ext4".into(),
                    read_ahead_kb: 128,
                },
            ],
            items: vec![
                f(Access::Open { ofd: 0 }),
                f(Access::Fadvise {
                    ofd: 0,
                    offset: 0,
                    len: 0,
                    advice: Fadvice::Sequential,
                }),
                f(Access::ReadAt {
                    ofd: 0,
                    offset: 10 << 20,
                    len: 1 << 20,
                }),
                e(Tracepoint::SyncRa {
                    index: 2560,
                    req_count: 256,
                    ra,
                }),
                e(Tracepoint::RaUnbounded {
                    index: 2560,
                    nr_to_read: 256,
                    lookahead_size: 0,
                }),
                e(Tracepoint::AddToPageCache {
                    index: 2560,
                    order: 0,
                }),
                e(Tracepoint::AddToPageCache {
                    index: 2561,
                    order: 2,
                }),
                e(Tracepoint::GetPages {
                    index: 2560,
                    last_index: 2815,
                }),
                f(Access::Mmap {
                    mm: 0,
                    vpn: 0x7f2bbe254,
                    pages: 16384,
                    ofd: 0,
                    pgoff: 0,
                    exec: false,
                }),
                f(Access::Madvise {
                    mm: 0,
                    vpn: 0x7f2bbe254,
                    pages: 16384,
                    advice: Madvice::Hugepage,
                }),
                f(Access::Fault {
                    mm: 0,
                    vpn: 0x7f2bbe254 + 16383,
                    write: false,
                }),
                e(Tracepoint::FilemapFault { index: 16383 }),
                e(Tracepoint::RaOrder {
                    index: 15872,
                    ra: RaFields {
                        order: 9,
                        size: 512,
                        async_size: 0,
                        ra_pages: 2048,
                        mmap_miss: 0,
                        prev_pos: 0,
                    },
                }),
                e(Tracepoint::AsyncRa {
                    index: 5,
                    req_count: 1,
                    ra: RaFields {
                        mmap_miss: 3,
                        prev_pos: 40960,
                        ..ra
                    },
                }),
                e(Tracepoint::DeleteFromPageCache {
                    index: 15872,
                    order: 9,
                }),
                e(Tracepoint::MapPages {
                    index: 0,
                    last_index: 15,
                }),
                e(Tracepoint::PageFaultUser {
                    address: 0x7f2bbe254000,
                    write: true,
                }),
                Item::Access {
                    file: 1,
                    access: Access::Open { ofd: 0 },
                },
                Item::Access {
                    file: 1,
                    access: Access::Fault {
                        mm: 2,
                        vpn: 7,
                        write: true,
                    },
                },
                Item::Access {
                    file: 1,
                    access: Access::SpliceRead {
                        ofd: 0,
                        offset: 0,
                        len: 5000,
                    },
                },
                f(Access::Fault {
                    mm: 1,
                    vpn: 0x7f2bbe254,
                    write: true,
                }),
                f(Access::Munmap {
                    mm: 0,
                    vpn: 0x7f2bbe254,
                    pages: 16384,
                }),
            ],
            end: vec![
                Some(EndState {
                    resident: vec![[2560, 256], [15872, 512]],
                    folios: vec![[2560, 0, 1], [2561, 2, 63]],
                }),
                Some(EndState::default()),
            ],
        }
    }

    #[test]
    fn round_trip_gzip_and_text() {
        let rec = sample();
        let bytes = rec.write();
        assert_eq!(&bytes[..2], &[0x1f, 0x8b]);
        assert_eq!(Recording::parse(&bytes).unwrap(), rec);
        let text = write_text(&rec);
        assert_eq!(Recording::parse(text.as_bytes()).unwrap(), rec);
    }

    #[test]
    fn a_walk_is_small() {
        // A backward walk of 2 GiB faulting every 16th page, each fault
        // adding one order-2 folio group: deltas repeat, gzip shrinks them.
        let mut rec = sample();
        rec.items.clear();
        for k in (0..(524288u64 / 16)).rev() {
            rec.items.push(Item::Access {
                file: 0,
                access: Access::Fault {
                    mm: 0,
                    vpn: 0x7f0000000 + k * 16,
                    write: false,
                },
            });
            for j in 0..4 {
                rec.items.push(Item::Event {
                    file: 0,
                    tp: Tracepoint::AddToPageCache {
                        index: k * 16 + j * 4,
                        order: 2,
                    },
                });
            }
        }
        let bytes = rec.write();
        assert!(bytes.len() < 20_000, "{} bytes", bytes.len());
        assert_eq!(Recording::parse(&bytes).unwrap(), rec);
    }

    fn err(text: &str) -> String {
        Recording::parse(text.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn bad_recordings_name_line_and_field() {
        let good = write_text(&sample());
        let lines: Vec<&str> = good.lines().collect();
        // A bad number on the read line (line 8: header, machine, 3 args,
        // 2 files, o, f, r).
        let bad = good.replace("r 0 10485760 1048576", "r 0 ten 1048576");
        assert_eq!(err(&bad), "line 10: r: delta: 'ten' is not a signed number");
        let bad = good.replace("r 0 10485760 1048576", "q 1 2");
        assert_eq!(err(&bad), "line 10: item: 'q' is not a recording line");
        // Truncated: the closing line is gone, or the gzip stream is cut.
        let cut = lines[..lines.len() - 3].join("\n");
        assert_eq!(
            err(&cut),
            "total: the recording is truncated: it has no closing 'total' line"
        );
        let gz = sample().write();
        let e = Recording::parse(&gz[..gz.len() / 2])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("gzip: the recording is truncated or damaged"),
            "{e}"
        );
        assert_eq!(
            err(&good.replace("folioscope-recording 1", "folioscope-recording 2")),
            "line 1: version: version 2 is not one this folioscope reads (it reads 1)"
        );
        assert_eq!(
            err("hello"),
            "line 1: header: does not start with 'folioscope-recording'"
        );
        let bad = good.replace("page_size=4096", "page_size=100");
        assert_eq!(err(&bad), "line 2: page_size: 100 is not a page size");
        let bad = good.replace("@1\n", "@7\n");
        assert!(err(&bad).ends_with("@: file 7 is not declared (the recording has 2)"));
    }

    #[test]
    fn the_documented_example_parses() {
        let doc = include_str!("../../../docs/recording.md");
        let start = doc.find("```text\n").expect("an example") + 8;
        let end = start + doc[start..].find("```").expect("closed");
        let rec = Recording::parse(&doc.as_bytes()[start..end]).unwrap();
        assert_eq!(
            rec.events(0)[2],
            Tracepoint::AddToPageCache {
                index: 160,
                order: 0
            }
        );
        assert_eq!(
            rec.events(0)[4],
            Tracepoint::GetPages {
                index: 160,
                last_index: 175
            }
        );
        assert!(rec.scenario(0).is_ok());
    }

    #[test]
    fn another_kernel_and_no_access_are_named() {
        let mut rec = sample();
        assert!(rec.scenario(0).is_ok());
        rec.machine.release = "6.9.12-arch1".into();
        let e = rec.scenario(0).unwrap_err().to_string();
        assert_eq!(
            e,
            "release: the recording was made on Linux 6.9.12-arch1, and no kernel variant models it (the model follows 6.18; record on a 6.18 kernel)"
        );
        let mut rec = sample();
        rec.items
            .retain(|i| i.file() == 0 || matches!(i, Item::Event { .. }));
        assert_eq!(
            rec.scenario(1).unwrap_err().to_string(),
            "file: file 1 (/data/b): the recording has no access to it"
        );
    }

    #[test]
    fn scenario_takes_the_recorded_machine() {
        let rec = sample();
        let s = rec.scenario(1).unwrap();
        assert_eq!(
            (s.file_size, s.read_ahead_kb, s.page_size),
            (5000, 128, 4096)
        );
        assert_eq!(s.fault_around_bytes, 65536);
        match s.pattern {
            folioscope_core::Pattern::Trace(a) => assert_eq!(a.len(), 3),
            p => panic!("{p:?}"),
        }
        assert_eq!(rec.deletes_after_first_add(0), vec![(15872, 9)]);
        assert_eq!(rec.steps(0)[2].1.len(), 5);
        // After the open and the fadvise nothing is cached; after the read,
        // its two folios; at the end the huge folio has left again.
        assert!(rec.real_cache_at(0, 2).is_empty());
        let after_read: Vec<(u64, u8)> = rec.real_cache_at(0, 3).into_iter().collect();
        assert_eq!(after_read, [(2560, 0), (2561, 2)]);
        assert_eq!(rec.real_cache_at(0, usize::MAX).len(), 2);
    }
}
