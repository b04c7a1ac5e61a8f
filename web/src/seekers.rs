//! The simulations the components draw, one per kernel of the view,
//! standing outside the app's state: a component that draws a machine asks
//! for it at the state's step, and the first to ask moves the simulation
//! there with the core's one seek policy (`Timeline::seek_logged`),
//! recording the events of the last accesses for the event log. The state
//! stays a value; this is a cache of what its step means.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use folioscope_core::{Event, Simulation};

use crate::state::{Built, Kept};

/// How many accesses of history the log shows.
pub const LOG_ACCESSES: u64 = 40;
/// How many lines the log keeps at most.
pub const LOG_LINES: usize = 4000;

/// One line of the event log: an event, the access that made it (1-based)
/// and its place among that access's events.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogLine {
    pub access: u64,
    pub index: usize,
    pub event: Event,
}

/// The events of the last [`LOG_ACCESSES`] accesses before the step.
#[derive(Default)]
pub struct Log {
    pub lines: VecDeque<LogLine>,
}

/// A simulation of one kernel of the view, with its log.
struct Seeker {
    sim: Simulation,
    log: Log,
}

impl Seeker {
    /// Moves to `step` with the timeline's seek, keeping the log to the
    /// events of the accesses in `(step - LOG_ACCESSES, step]`.
    fn seek(&mut self, built: &Built, side: usize, step: u64) {
        if self.sim.step_count() == step {
            return;
        }
        let timeline = &built.sides[side].timeline;
        let lines = &mut self.log.lines;
        let mut current: Option<(u64, usize)> = None;
        timeline.seek_logged(&mut self.sim, step, LOG_ACCESSES, |access, event| {
            let index = match current {
                Some((a, i)) if a == access => i + 1,
                _ => {
                    if current.is_none() {
                        // The accesses from here on are logged anew.
                        lines.retain(|l| l.access < access);
                    }
                    0
                }
            };
            current = Some((access, index));
            if lines.len() == LOG_LINES {
                lines.pop_front();
            }
            lines.push_back(LogLine {
                access,
                index,
                event,
            });
        });
        let from = step.saturating_sub(LOG_ACCESSES);
        lines.retain(|l| l.access > from && l.access <= step);
    }
}

/// The simulations of the view on screen.
#[derive(Default)]
pub struct Seekers {
    current: RefCell<Option<(Kept<Built>, Vec<Seeker>)>>,
}

impl Seekers {
    /// Calls `f` with side `side`'s simulation moved to `step`, and its log.
    pub fn with<R>(
        &self,
        built: &Kept<Built>,
        side: usize,
        step: u64,
        f: impl FnOnce(&Simulation, &Log) -> R,
    ) -> R {
        let mut current = self.current.borrow_mut();
        if current.as_ref().is_none_or(|(b, _)| b != built) {
            let seekers = built
                .sides
                .iter()
                .map(|s| Seeker {
                    sim: s.timeline.simulation_at(0),
                    log: Log::default(),
                })
                .collect();
            *current = Some((built.clone(), seekers));
        }
        let (_, seekers) = current.as_mut().expect("just set");
        let seeker = &mut seekers[side];
        seeker.seek(built, side, step);
        f(&seeker.sim, &seeker.log)
    }
}

/// The seekers, shared by every component through a context; one for the
/// app's life, so it never asks anyone to render again.
#[derive(Clone, Default)]
pub struct SeekersHandle(pub Rc<Seekers>);

impl PartialEq for SeekersHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::BuiltSide;
    use folioscope_core::{Pattern, Scenario, Timeline};

    /// The log after moving through `steps` in order is, each time, the
    /// events of the accesses in `(step - LOG_ACCESSES, step]`, numbered,
    /// the newest [`LOG_LINES`] of them.
    #[test]
    fn the_log_holds_the_events_of_the_last_accesses_after_any_move() {
        let scenario = Scenario {
            file_size: 16 << 20,
            pattern: Pattern::Stride(3),
            ..Scenario::default()
        };
        let timeline = Rc::new(Timeline::build(scenario.config().unwrap(), 1 << 20));
        let built = Kept::new(Built {
            sides: vec![BuiltSide {
                kernel: scenario.kernel.clone(),
                timeline: timeline.clone(),
                first_diff: None,
            }],
            scenario,
        });
        let seekers = Seekers::default();
        let len = timeline.len();
        for step in [0, 1, 2, 50, 51, 60, 400, 399, 1200, 1210, 20, len, len - 3] {
            let (at, lines) = seekers.with(&built, 0, step, |sim, log| {
                (
                    sim.step_count(),
                    log.lines.iter().copied().collect::<Vec<_>>(),
                )
            });
            assert_eq!(at, step);
            let mut want: Vec<LogLine> =
                (step.saturating_sub(LOG_ACCESSES) + 1..=step)
                    .flat_map(|access| {
                        timeline.events_of(access).into_iter().enumerate().map(
                            move |(index, event)| LogLine {
                                access,
                                index,
                                event,
                            },
                        )
                    })
                    .collect();
            want.drain(..want.len().saturating_sub(LOG_LINES));
            assert_eq!(lines.len(), want.len(), "at step {step}");
            if let Some(k) = (0..want.len()).find(|&k| lines[k] != want[k]) {
                panic!(
                    "at step {step}, line {k}: {:?}, want {:?}",
                    lines[k], want[k]
                );
            }
        }
    }
}
