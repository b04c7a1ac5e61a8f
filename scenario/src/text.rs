//! One line of text per model event, naming the kernel function and what
//! it changed, as the event log and `folioscope run --events` print them;
//! and the word wrap of the plain-text tables.

use folioscope_core::MMAP_LOTSAMISS;
use folioscope_core::{CopySource, Event};
use folioscope_core::{FaultOutcome, MissCause, NoRaReason};

/// The event as one line; tracepoints in tracefs's form, for a file the
/// model made up (see [`crate::tracepoint_text`]).
pub fn event_line(e: &Event) -> String {
    let f = e.func().name();
    match *e {
        // A tracepoint prints in the kernel's own form. The model's file
        // has no device or inode, and this line knows no page size: the
        // caller that knows them uses `tracepoint_text` directly.
        Event::Tracepoint(tp) => crate::tracepoint_text::format_tracepoint(
            &tp,
            crate::tracepoint_text::TraceInode::MODEL,
            12,
        ),
        Event::FaultStart { page, .. } => format!("{f}: read fault at page {page}"),
        Event::FaultAttempt {
            page,
            outcome,
            major,
            ..
        } => {
            let what = match outcome {
                FaultOutcome::NoPage => "mapped by fault-around (VM_FAULT_NOPAGE)",
                FaultOutcome::Locked => "folio locked and mapped",
                FaultOutcome::Retry => "mmap lock dropped for I/O (VM_FAULT_RETRY)",
                FaultOutcome::Sigbus => "past the end of the file (VM_FAULT_SIGBUS)",
            };
            format!(
                "{f}: page {page}: {what}{}",
                if major { ", VM_FAULT_MAJOR" } else { "" }
            )
        }
        Event::FaultAccounted { page, major } => {
            format!(
                "{f}: page {page}: {} fault",
                if major { "major" } else { "minor" }
            )
        }
        Event::FolioAdded { index, order, .. } => {
            format!(
                "{f}: folio added at {index}, order {order} ({})",
                page_count(1u64 << order)
            )
        }
        Event::FolioUptodate { index, order } => {
            format!("{f}: read done, folio {index} (order {order}) uptodate and unlocked")
        }
        Event::ReadaheadFlag { index, set, .. } => {
            format!(
                "{f}: PG_readahead {} on folio {index}",
                if set { "set" } else { "cleared" }
            )
        }
        Event::Window { window: w, .. } => format!(
            "{f}: window start {} size {} async_size {} order {}",
            w.start, w.size, w.async_size, w.order
        ),
        Event::MmapMiss {
            old, new, cause, ..
        } => {
            let why = match cause {
                MissCause::CacheMiss => "page-cache miss".to_string(),
                MissCause::CacheHit => "page-cache hit".to_string(),
                MissCause::FaultAroundHits { pages } => {
                    format!("{pages} pages mapped around the fault")
                }
                MissCause::PmdHit => "PMD mapping counted as a hit".to_string(),
            };
            let over = if new > MMAP_LOTSAMISS && old <= MMAP_LOTSAMISS {
                " > MMAP_LOTSAMISS"
            } else if old > MMAP_LOTSAMISS && new <= MMAP_LOTSAMISS {
                " <= MMAP_LOTSAMISS again"
            } else {
                ""
            };
            format!("{f}: mmap_miss {old}\u{2192}{new}{over} ({why})")
        }
        Event::NoReadahead {
            reason, mmap_miss, ..
        } => match reason {
            NoRaReason::LotsaMiss => {
                format!("{f}: mmap_miss {mmap_miss} > MMAP_LOTSAMISS, no readahead")
            }
            NoRaReason::RandRead => format!("{f}: VM_RAND_READ, no readahead"),
            NoRaReason::NoRaPages => format!("{f}: ra_pages is 0, no readahead"),
        },
        Event::PtesMapped { first, nr, .. } => {
            if nr == 1 {
                format!("{f}: PTE mapped for page {first}")
            } else {
                format!(
                    "{f}: {nr} PTEs mapped, pages {first}..{}",
                    first + nr as u64 - 1
                )
            }
        }
        Event::PmdMapped { index, .. } => format!("{f}: PMD mapped for folio {index}"),
        Event::IoSubmitted {
            first,
            nr,
            requests,
            ..
        } => {
            let r = if requests == 1 { "request" } else { "requests" };
            format!("{f}: read submitted, {nr} pages from {first} in {requests} block {r}")
        }
        Event::PrevPos { pos, .. } => format!("{f}: ra->prev_pos = {pos}"),
        Event::ReadCall { offset, len, .. } => format!("{f}: read({len} bytes at {offset})"),
        Event::Copied {
            offset,
            len,
            source,
            ..
        } => match source {
            CopySource::Folio => format!("{f}: copied {len} bytes at {offset} from the folio"),
            CopySource::ZeroPage => {
                format!("{f}: {len} bytes at {offset} copied from the zero page")
            }
            CopySource::ClearUser => format!("{f}: {len} bytes at {offset} cleared (clear_user)"),
        },
        Event::Lookup { index, folios, .. } => match folios {
            0 => format!("{f}: nothing uptodate at index {index} (a hole, or never written)"),
            1 => format!("{f}: index {index}: a folio"),
            n => format!("{f}: index {index}: {n} folios in the batch"),
        },
        Event::ReadError { offset, errno, .. } => {
            format!("{f}: read stops at {offset} with -{}", errno.name())
        }
        Event::Evicted { index, order } => {
            format!("{f}: folio {index} (order {order}) evicted, shadow left")
        }
        Event::Refault { index, order } => {
            format!("{f}: folio {index} (order {order}) refaulted, activated as workingset")
        }
        Event::Removed { index, order, .. } => {
            format!("{f}: folio {index} (order {order}) invalidated, no shadow left")
        }
        Event::ShadowCleared { index, order, .. } => {
            format!("{f}: shadow {index} (order {order}) cleared")
        }
    }
}

/// `n` pages, in words: "1 page", "512 pages".
pub fn page_count(n: u64) -> String {
    if n == 1 {
        "1 page".into()
    } else {
        format!("{n} pages")
    }
}

/// A short note on an event that looks wrong but is what the kernel does,
/// given the events of its access before it (`earlier`, in order): the
/// event log shows it beside the line.
pub fn faithful_note(e: &Event, earlier: &[Event]) -> Option<&'static str> {
    match *e {
        // The VM_HUGEPAGE fault reads from the PMD-aligned index in the
        // readahead_control, and sets ra->size and ra->async_size but never
        // ra->start: page_cache_ra_order then reports file_ra_state with
        // whatever start it had.
        Event::Window {
            func: folioscope_core::KFunc::PageCacheRaOrder,
            window,
        } if earlier.iter().any(|x| {
            matches!(*x, Event::Window { func: folioscope_core::KFunc::DoSyncMmapReadahead, window: w }
                if w.start != window.start && w.order == window.order)
        }) =>
        {
            Some(
                "faithful: the VM_HUGEPAGE path reads from the aligned fault index but never sets ra->start, so file_ra_state keeps its old start",
            )
        }
        _ => None,
    }
}

/// Wraps `text` at spaces into lines of at most `width`; the text's own
/// leading spaces start the first line, `indent` the later ones.
pub fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    let body = text.trim_start_matches(' ');
    let lead = &text[..text.len() - body.len()];
    let mut out: Vec<String> = Vec::new();
    let mut line = String::from(lead);
    let mut fresh = true;
    for word in body.split(' ').filter(|w| !w.is_empty()) {
        if !fresh && line.len() + 1 + word.len() > width {
            out.push(std::mem::take(&mut line));
            line.push_str(indent);
            fresh = true;
        }
        if !fresh {
            line.push(' ');
        }
        // A word longer than a line is cut.
        let mut w = word;
        while line.len() + w.len() > width {
            let cut = w.floor_char_boundary(width.saturating_sub(line.len()).max(1));
            line.push_str(&w[..cut]);
            out.push(std::mem::take(&mut line));
            line.push_str(indent);
            w = &w[cut..];
        }
        line.push_str(w);
        fresh = false;
    }
    if !fresh {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use folioscope_core::{Config, Kernel, Madvise, Pattern, Scenario, Simulation, Variant};

    /// The events of the first access of a 2 GiB walk, and the notes the
    /// log puts beside them.
    fn first_access_notes(pattern: Pattern) -> Vec<(String, &'static str)> {
        let cfg = Config::new(Scenario {
            kernel: Kernel::from_variant(Variant::V7_4Rc2),
            pattern,
            madvise: Madvise::Hugepage,
            ..Scenario::default()
        })
        .unwrap();
        let mut sim = Simulation::new(cfg);
        let mut events = Vec::new();
        sim.step(&mut events);
        (0..events.len())
            .filter_map(|k| {
                faithful_note(&events[k], &events[..k]).map(|n| (event_line(&events[k]), n))
            })
            .collect()
    }

    #[test]
    fn the_hugepage_windows_start_that_is_never_set_has_its_note() {
        let notes = first_access_notes(Pattern::Rev);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0]
                .0
                .starts_with("page_cache_ra_order: window start 0 "),
            "{notes:?}"
        );
        assert!(notes[0].1.contains("ra->start"));
        // A forward walk faults at page 0: the start is what it was.
        assert_eq!(first_access_notes(Pattern::Fwd), vec![]);
    }

    #[test]
    fn a_folio_added_says_its_pages_in_words() {
        use folioscope_core::KFunc;
        let added = |order| {
            event_line(&Event::FolioAdded {
                func: KFunc::FilemapFault,
                index: 0,
                order,
            })
        };
        assert!(added(0).ends_with("order 0 (1 page)"), "{}", added(0));
        assert!(added(9).ends_with("order 9 (512 pages)"), "{}", added(9));
    }
}
