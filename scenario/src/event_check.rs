//! The model's tracepoints against the real kernel's, event by event: the
//! folio adds (index and order), the readahead calls (every field the
//! tracepoint prints) and the folios that left the page cache, each stream
//! in its own order. The fault, map and lookup tracepoints are not compared:
//! whether a fault happens at all can depend on whether a read was still in
//! flight, which is timing, while what the kernel adds and reads ahead does
//! not.
//!
//! A folio that leaves the real page cache where the model keeps it is the
//! background eviction these machines do with no memory pressure: the run
//! was disturbed, and the check says so instead of reporting a divergence.

use folioscope_core::Tracepoint;

use crate::tracepoint_text::{format_tracepoint, TraceInode};

/// Events shown on each side of a divergence.
pub const CONTEXT: usize = 3;

/// The outcome of comparing two streams.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The same adds and readahead calls, in the same order.
    Identical,
    /// The streams part at `position` (0-based, among compared events).
    Diverged {
        position: usize,
        /// Up to [`CONTEXT`] events before the divergence and the one
        /// there, per side, as tracefs prints them; a side that ended
        /// early shows "(end of stream)".
        model: Vec<String>,
        real: Vec<String>,
    },
    /// The real kernel dropped a folio the program did not drop: the run
    /// must be recorded again.
    Disturbed { position: usize, line: String },
}

/// What was compared and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventCheck {
    pub adds: usize,
    pub readahead_calls: usize,
    pub removals: usize,
    pub verdict: Verdict,
}

impl EventCheck {
    pub fn is_identical(&self) -> bool {
        self.verdict == Verdict::Identical
    }

    /// The check as lines of text: one line when identical, the first
    /// divergence with its context otherwise.
    pub fn lines(&self) -> Vec<String> {
        let counts = format!(
            "{} folio adds, {} readahead calls, {} removals",
            self.adds, self.readahead_calls, self.removals
        );
        match &self.verdict {
            Verdict::Identical => vec![format!("identical: {counts}")],
            Verdict::Disturbed { position, line } => vec![
                format!("disturbed at compared event {}: the kernel dropped a folio the program did not (background eviction); record the run again", position + 1),
                format!("  kernel: {line}"),
            ],
            Verdict::Diverged {
                position,
                model,
                real,
            } => {
                let mut out = vec![format!(
                    "diverged at compared event {} (after {} identical)",
                    position + 1,
                    position
                )];
                out.push("  model:".into());
                out.extend(model.iter().map(|l| format!("    {l}")));
                out.push("  kernel:".into());
                out.extend(real.iter().map(|l| format!("    {l}")));
                out
            }
        }
    }
}

/// Whether the check compares this tracepoint.
pub fn is_compared(tp: &Tracepoint) -> bool {
    tp.is_readahead()
        || matches!(
            tp,
            Tracepoint::AddToPageCache { .. } | Tracepoint::DeleteFromPageCache { .. }
        )
}

/// Compares the model's tracepoints with the kernel's for one file, which
/// the lines of a divergence name by `file` and print with `page_shift`.
pub fn check_events(
    model: &[Tracepoint],
    real: &[Tracepoint],
    file: TraceInode,
    page_shift: u32,
) -> EventCheck {
    let line = |t: &Tracepoint| format_tracepoint(t, file, page_shift);
    let model: Vec<&Tracepoint> = model.iter().filter(|t| is_compared(t)).collect();
    let real: Vec<&Tracepoint> = real.iter().filter(|t| is_compared(t)).collect();
    let mut check = EventCheck {
        adds: 0,
        readahead_calls: 0,
        removals: 0,
        verdict: Verdict::Identical,
    };
    let n = model.len().max(real.len());
    for i in 0..n {
        match (model.get(i), real.get(i)) {
            (Some(a), Some(b)) if a == b => match a {
                Tracepoint::AddToPageCache { .. } => check.adds += 1,
                Tracepoint::DeleteFromPageCache { .. } => check.removals += 1,
                _ => check.readahead_calls += 1,
            },
            (_, Some(b @ Tracepoint::DeleteFromPageCache { .. })) => {
                check.verdict = Verdict::Disturbed {
                    position: i,
                    line: line(b),
                };
                return check;
            }
            _ => {
                let side = |s: &[&Tracepoint]| -> Vec<String> {
                    let from = i.saturating_sub(CONTEXT);
                    let mut v: Vec<String> = s[from.min(s.len())..(i + 1).min(s.len())]
                        .iter()
                        .map(|t| line(t))
                        .collect();
                    if s.len() <= i {
                        v.push("(end of stream)".into());
                    }
                    v
                };
                check.verdict = Verdict::Diverged {
                    position: i,
                    model: side(&model),
                    real: side(&real),
                };
                return check;
            }
        }
    }
    check
}

/// An event check of a replay, with where it parted in accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepCheck {
    pub check: EventCheck,
    /// The first step (accesses done) after which the compared streams
    /// differ: the access during which the first differing event came, on
    /// whichever side it came first. None when they are identical.
    pub step: Option<u64>,
}

/// Compares two streams whose events carry the number of the access they
/// came in (1-based; 0 before the first), as [`check_events`] does, and
/// finds the access after which they part.
pub fn check_steps(
    model: &[(u64, Tracepoint)],
    real: &[(u64, Tracepoint)],
    file: TraceInode,
    page_shift: u32,
) -> StepCheck {
    let compared = |s: &[(u64, Tracepoint)]| -> (Vec<u64>, Vec<Tracepoint>) {
        s.iter().filter(|(_, t)| is_compared(t)).copied().unzip()
    };
    let (model_at, model) = compared(model);
    let (real_at, real) = compared(real);
    let check = check_events(&model, &real, file, page_shift);
    let step = match &check.verdict {
        Verdict::Identical => None,
        Verdict::Diverged { position, .. } | Verdict::Disturbed { position, .. } => {
            match (model_at.get(*position), real_at.get(*position)) {
                (Some(&a), Some(&b)) => Some(a.min(b)),
                (Some(&a), None) | (None, Some(&a)) => Some(a),
                (None, None) => None,
            }
        }
    };
    StepCheck { check, step }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folioscope_core::RaFields;

    fn add(index: u64) -> Tracepoint {
        Tracepoint::AddToPageCache { index, order: 0 }
    }

    fn unbounded(index: u64) -> Tracepoint {
        Tracepoint::RaUnbounded {
            index,
            nr_to_read: 4,
            lookahead_size: 0,
        }
    }

    #[test]
    fn identical_streams_are_counted() {
        let s = vec![
            unbounded(0),
            add(0),
            Tracepoint::FilemapFault { index: 9 },
            add(1),
        ];
        let mut r = s.clone();
        // Faults are not compared: one more on the kernel's side is fine.
        r.insert(0, Tracepoint::FilemapFault { index: 3 });
        let c = check_events(&s, &r, TraceInode::MODEL, 12);
        assert!(c.is_identical());
        assert_eq!((c.adds, c.readahead_calls), (2, 1));
        assert_eq!(
            c.lines()[0],
            "identical: 2 folio adds, 1 readahead calls, 0 removals"
        );
    }

    #[test]
    fn a_divergence_shows_both_sides() {
        let s = vec![unbounded(0), add(0), add(1), add(2), add(3)];
        let mut r = s.clone();
        r[4] = add(7);
        let c = check_events(&s, &r, TraceInode::MODEL, 12);
        let Verdict::Diverged {
            position,
            model,
            real,
        } = &c.verdict
        else {
            panic!("expected a divergence, got {:?}", c.verdict);
        };
        assert_eq!(*position, 4);
        assert_eq!(model.len(), 4);
        assert!(model[3].ends_with("ofs=12288 order=0"));
        assert!(real[3].ends_with("ofs=28672 order=0"));
        // A field the tracepoint prints differs: a divergence too.
        let ra = |mmap_miss| Tracepoint::SyncRa {
            index: 0,
            req_count: 1,
            ra: RaFields {
                order: 0,
                size: 0,
                async_size: 0,
                ra_pages: 32,
                mmap_miss,
                prev_pos: -1,
            },
        };
        let c = check_events(&[ra(0)], &[ra(1)], TraceInode::MODEL, 12);
        assert!(!c.is_identical());
        // One stream ending early.
        let c = check_events(&s[..3], &s, TraceInode::MODEL, 12);
        let Verdict::Diverged { model, .. } = &c.verdict else {
            panic!("expected a divergence");
        };
        assert_eq!(model.last().map(String::as_str), Some("(end of stream)"));
    }

    #[test]
    fn a_divergence_is_placed_at_the_access_it_came_in() {
        let s = vec![(1, unbounded(0)), (1, add(0)), (2, add(1)), (3, add(2))];
        let c = check_steps(&s, &s, TraceInode::MODEL, 12);
        assert_eq!(c.step, None);
        assert!(c.check.is_identical());
        // The same events, logged an access apart, and a fault more: the
        // check compares what was added and read ahead, not when.
        let mut r = s.clone();
        r[2] = (3, add(1));
        r.push((3, Tracepoint::FilemapFault { index: 4 }));
        assert_eq!(check_steps(&s, &r, TraceInode::MODEL, 12).step, None);
        // The kernel adds another page in access 3 where the model added
        // page 1 in access 2: they part after access 2.
        let mut r = s.clone();
        r[2] = (3, add(7));
        assert_eq!(check_steps(&s, &r, TraceInode::MODEL, 12).step, Some(2));
        // The model stops early: the kernel's next event places it.
        assert_eq!(
            check_steps(&s[..2], &s, TraceInode::MODEL, 12).step,
            Some(2)
        );
    }

    #[test]
    fn a_removal_only_the_kernel_made_is_a_disturbance() {
        let s = vec![add(0), add(1)];
        let r = vec![
            add(0),
            Tracepoint::DeleteFromPageCache { index: 0, order: 0 },
            add(1),
        ];
        let c = check_events(&s, &r, TraceInode::MODEL, 12);
        assert!(matches!(c.verdict, Verdict::Disturbed { position: 1, .. }));
        // The same removal on both sides (a POSIX_FADV_DONTNEED) compares.
        let c = check_events(&r, &r, TraceInode::MODEL, 12);
        assert!(c.is_identical());
        assert_eq!(c.removals, 1);
    }
}
