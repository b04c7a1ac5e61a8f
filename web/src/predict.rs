//! Predict mode, for teaching: before the next event of a chosen kind the
//! app stops and asks the audience about it, then reveals the answer.
//!
//! - next readahead: where does the window start?
//! - next major fault: how many pages does its I/O read?
//! - next MMAP_LOTSAMISS crossing: at which access does it happen?

use folioscope_core::{Event, Mark, Timeline};

use crate::state::Question;

/// The question about the next `mark` after `step`, with its answer from
/// the run; none if the run has no such event left. The prompt names the
/// kernel and how far ahead the event is: exactly, unless the distance is
/// the answer (the crossing), where it gives the order of magnitude.
/// `events_of` gives an access's events.
pub fn question(
    t: &Timeline,
    mark: Mark,
    step: u64,
    events_of: impl FnOnce(u64) -> Vec<Event>,
) -> Option<Question> {
    let access = t.next_mark(mark, step)?;
    let events = events_of(access);
    let kernel = t.config().kernel.label();
    let ahead = access - step;
    let (prompt, answer, unit) = match mark {
        Mark::Readahead => {
            let start = events.iter().find_map(|e| match e {
                Event::Window { window, .. } => Some(window.start),
                _ => None,
            })?;
            (
                format!(
                    "{kernel}: access {access}, {ahead} {} after step {step}, sets up a readahead window. At which page does it start?",
                    accesses(ahead)
                ),
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
                format!(
                    "{kernel}: access {access}, {ahead} {} after step {step}, is a major fault. How many pages does it read?",
                    accesses(ahead)
                ),
                pages,
                "pages read",
            )
        }
        Mark::LotsaMissCrossing => {
            let bound = round_up(ahead);
            (
                format!(
                    "{kernel}: mmap_miss will cross MMAP_LOTSAMISS within {bound} {} after step {step}. At which access?",
                    accesses(bound)
                ),
                access,
                "access number",
            )
        }
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
        revealed: false,
    })
}

fn accesses(n: u64) -> &'static str {
    if n == 1 {
        "access"
    } else {
        "accesses"
    }
}

/// The smallest of 1, 2, 5, 10, 20, 50, ... that is at least `n`: how
/// far ahead an event is, without giving its place away.
fn round_up(n: u64) -> u64 {
    let mut decade = 1u64;
    loop {
        for m in [1, 2, 5] {
            let bound = decade.saturating_mul(m);
            if bound >= n || bound == u64::MAX {
                return bound;
            }
        }
        decade = decade.saturating_mul(10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_the_next_round_number() {
        let cases = [
            (0, 1),
            (1, 1),
            (2, 2),
            (3, 5),
            (51201, 100000),
            (100000, 100000),
            (100001, 200000),
        ];
        for (n, bound) in cases {
            assert_eq!(round_up(n), bound, "{n}");
        }
    }

    #[test]
    fn the_crossing_question_names_the_kernel_and_how_far_it_is() {
        // seed 000's v7.4-rc2 crosses on a backward MADV_HUGEPAGE walk.
        let mut scenario = folioscope_scenario::link::preset("seed000-rev-huge")
            .unwrap()
            .scenario;
        scenario.file_size = 256 << 20;
        let t = Timeline::build(scenario.config().unwrap(), 16 << 20);
        let crossing = t.next_mark(Mark::LotsaMissCrossing, 0).unwrap();
        let q = question(&t, Mark::LotsaMissCrossing, 0, |a| t.events_of(a)).unwrap();
        assert_eq!((q.answer, q.ask_at, q.reveal_at), (crossing, 0, crossing));
        let bound = round_up(crossing);
        assert!(bound >= crossing && bound < crossing * 5, "{bound}");
        assert_eq!(
            q.prompt,
            format!(
                "{}: mmap_miss will cross MMAP_LOTSAMISS within {bound} accesses after step 0. At which access?",
                scenario.kernel.label()
            )
        );
        let q = question(&t, Mark::MajorFault, 10, |a| t.events_of(a)).unwrap();
        let ahead = q.reveal_at - 10;
        assert!(
            q.prompt
                .contains(&format!("access {}, {ahead} access", q.reveal_at)),
            "{}",
            q.prompt
        );
    }
}
