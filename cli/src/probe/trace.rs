//! The probe's own page-cache events: while the probe makes a synthetic
//! pattern's accesses, the file's readahead and filemap tracepoints are
//! recorded for this process alone, in a tracefs instance of its own, and
//! a second instance watches every other task for adds and deletes of the
//! file's folios (background eviction disturbs a run). Both instances go
//! when this is dropped, however the probe ends.

use std::path::Path;

use anyhow::{anyhow, Result};
use folioscope_core::Tracepoint;
use folioscope_scenario::recording::from_trace::trace_records;
use folioscope_scenario::trace_line::TraceEvent;
use folioscope_scenario::tracepoint_text::TraceInode;

use crate::record::live::{inode_filter, merge};
use crate::record::machine::file_facts;
use crate::record::tracefs::{self, Instance, PipeReader, FILE_EVENTS};

/// The file's events while the probe ran.
pub struct Traced {
    pub inode: TraceInode,
    /// The file's tracepoints fired for the probe, in the kernel's order.
    pub events: Vec<Tracepoint>,
    /// Why the run is disturbed: another task added or deleted a folio.
    pub disturbed: Option<String>,
}

impl Traced {
    /// The folio layout the traced adds and deletes leave, as runs of
    /// equal-order folios `[start_page, order, count]` (the probe's shape).
    pub fn folio_runs(&self) -> Vec<[u64; 3]> {
        let mut cache = std::collections::BTreeMap::new();
        for tp in &self.events {
            match *tp {
                Tracepoint::AddToPageCache { index, order } => {
                    cache.insert(index, order);
                }
                Tracepoint::DeleteFromPageCache { index, .. } => {
                    cache.remove(&index);
                }
                _ => {}
            }
        }
        crate::pagecache::folio_runs(&cache)
    }
}

/// Tracing in progress. The readers are declared first so that they
/// close trace_pipe before the instances are removed (an instance with a
/// reader is busy).
pub struct SelfTrace {
    readers: Option<(PipeReader, PipeReader)>,
    inode: TraceInode,
    prog: Instance,
    watch: Instance,
}

impl SelfTrace {
    /// Starts tracing the file's events for this process.
    pub fn start(path: &Path) -> Result<SelfTrace> {
        let root = tracefs::root().map_err(|e| anyhow!(e))?;
        let file = file_facts(path).map_err(|e| anyhow!(e))?;
        let filter = inode_filter(std::slice::from_ref(&file));
        let me = std::process::id();
        let prog = Instance::create(&root, &format!("folioscope-{me}-probe"))?;
        let watch = Instance::create(&root, &format!("folioscope-{me}-watch"))?;
        for inst in [&prog, &watch] {
            if inst.has_clock("mono") {
                inst.write("trace_clock", "mono")?;
            }
        }
        prog.write("buffer_size_kb", "65536")?;
        watch.write("buffer_size_kb", "4096")?;
        for e in FILE_EVENTS {
            prog.enable(e)?;
            prog.filter(e, &filter)?;
        }
        tracefs::watch_files(&watch, &filter)?;
        prog.write("set_event_pid", &me.to_string())?;
        watch.write("set_event_notrace_pid", &me.to_string())?;
        let readers = (prog.reader()?, watch.reader()?);
        watch.write("tracing_on", "1")?;
        prog.write("tracing_on", "1")?;
        Ok(SelfTrace {
            readers: Some(readers),
            inode: file.inode,
            prog,
            watch,
        })
    }

    /// Stops tracing and reads what was recorded.
    pub fn finish(mut self, page_shift: u32) -> Result<Traced> {
        self.prog.write("tracing_on", "0")?;
        self.watch.write("tracing_on", "0")?;
        let (p, w) = self
            .readers
            .take()
            .ok_or_else(|| anyhow!("the trace was read already"))?;
        let (prog_text, watch_text) = (p.finish()?, w.finish()?);
        let lost = self.prog.lost() + self.watch.lost();
        if lost > 0 {
            return Err(anyhow!("the trace buffer lost {lost} events"));
        }
        let read = |text: &[u8]| {
            trace_records(&String::from_utf8_lossy(text), page_shift).map_err(|e| anyhow!("{e}"))
        };
        let mut outside = read(&watch_text)?;
        for r in &mut outside {
            r.outside = true;
        }
        let mut traced = Traced {
            inode: self.inode,
            events: Vec::new(),
            disturbed: None,
        };
        for r in merge(read(&prog_text)?, outside) {
            let TraceEvent::File { inode, tp } = r.line.event else {
                continue;
            };
            if inode != self.inode {
                continue;
            }
            if r.outside {
                traced.disturbed.get_or_insert_with(|| {
                    format!(
                        "{} ({}) changed the file's page cache during the run",
                        r.line.task,
                        tp.name()
                    )
                });
            } else {
                traced.events.push(tp);
            }
        }
        Ok(traced)
    }
}
