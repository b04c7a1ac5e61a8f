//! Predict mode, for teaching: before the next event of a chosen kind the
//! app stops and asks the audience about it, then reveals the answer.
//!
//! - next readahead: where does the window start?
//! - next major fault: how many pages does its I/O read?
//! - next MMAP_LOTSAMISS crossing: at which access does it happen?

use folioscope_core::{Event, Mark, Timeline};

use crate::state::Question;

/// The question about the next `mark` after `step`, with its answer from
/// the run; none if the run has no such event left.
pub fn question(t: &Timeline, mark: Mark, step: u64) -> Option<Question> {
    let access = t.next_mark(mark, step)?;
    let events = t.events_of(access);
    let (prompt, answer, unit) = match mark {
        Mark::Readahead => {
            let start = events.iter().find_map(|e| match e {
                Event::Window { window, .. } => Some(window.start),
                _ => None,
            })?;
            (
                format!("Access {access} sets up a readahead window. At which page does it start?"),
                start,
                "page index",
            )
        }
        Mark::MajorFault => {
            let pages: u64 = events
                .iter()
                .map(|e| match e {
                    Event::IoSubmitted { nr, .. } => *nr as u64,
                    _ => 0,
                })
                .sum();
            (
                format!("Access {access} is a major fault. How many pages does it read?"),
                pages,
                "pages read",
            )
        }
        Mark::LotsaMissCrossing => (
            format!("mmap_miss will cross MMAP_LOTSAMISS soon after step {step}. At which access?"),
            access,
            "access number",
        ),
    };
    Some(Question {
        mark,
        // The crossing is asked about from where the audience stands; the
        // others just before the access that makes them.
        ask_at: if mark == Mark::LotsaMissCrossing {
            step
        } else {
            access - 1
        },
        reveal_at: access,
        prompt,
        answer,
        unit,
        given: None,
    })
}
