//! The simulations the components draw, one per kernel of the view,
//! standing outside the app's state: a component that draws a machine asks
//! for it at the state's step, and the first to ask moves the simulation
//! there with the core's one seek policy (`Timeline::seek_logged`),
//! recording the events of the last accesses for the event log. Each also
//! keeps the bins of the span a strip last asked for: moving a short way
//! forward (a frame of play) notes the pages the accesses' events changed,
//! and only the bins of those pages are counted again
//! (`Machine::rebin`), instead of walking the whole xarray every frame;
//! and what each xarray leaf adds to a bin is kept by the leaf's stamp
//! (`LeafBins`), so that a leaf unchanged since it was last counted, in
//! this run, is not read again, even after a jump. Each of a seeker's
//! two positions keeps its own bins and counts.
//! The state stays a value; this is a cache of what its step means.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use folioscope_core::{
    Bin, ChangedPages, Event, LeafBins, Simulation, Span, Timeline, END_LOG_ACCESSES,
};

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

impl Log {
    /// The events of `access`, when the log holds them all (the oldest
    /// lines go first once there are [`LOG_LINES`]); none otherwise.
    pub fn events_of(&self, access: u64) -> Vec<Event> {
        if !self.holds(access) {
            return Vec::new();
        }
        let lines = self.lines.iter().filter(|l| l.access == access);
        lines.map(|l| l.event).collect()
    }

    /// Whether the log holds every event of `access`.
    fn holds(&self, access: u64) -> bool {
        self.lines
            .front()
            .is_some_and(|f| f.access < access || (f.access == access && f.index == 0))
    }

    /// Adds `event` of `access`, numbered after the events of that access
    /// added before it, dropping the oldest line past [`LOG_LINES`].
    /// `current` is the access last added to and its last line's index.
    fn push(&mut self, access: u64, event: Event, current: &mut Option<(u64, usize)>) {
        let index = match *current {
            Some((a, i)) if a == access => i + 1,
            _ => 0,
        };
        *current = Some((access, index));
        if self.lines.len() == LOG_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(LogLine {
            access,
            index,
            event,
        });
    }
}

/// Past this many accesses, a move forward does not note the pages they
/// change: the bins are counted afresh instead.
const NOTE_ACCESSES: u64 = 4096;

/// A simulation of one kernel of the view at one step, with its log, and
/// the bins of the span last asked for there, with the pages changed
/// since they were made.
struct Position {
    /// A view opens at the end, so the first position of each kernel
    /// takes the timeline's own run there (`Timeline::take_end`): no
    /// copy to draw it, and none kept beside the machines that move.
    /// Copying the run there for each kernel (a thaw of every node, and
    /// the last accesses run again) was the bulk of the 16 GiB link's
    /// first draw after its build.
    sim: Simulation,
    log: Log,
    /// The bins of the span last asked for here, and the pages changed
    /// since: going back to a position finds its bins as they were. With
    /// one set for both positions, a view that went back and forth
    /// between two far steps of the 16 GiB link counted its columns
    /// afresh on every move, though the seek only swapped the positions:
    /// 24 such moves between 1/10 and 9/10 of its run, in Chromium on
    /// 2026-12-05, took 11.4-20.6 ms each before, 4.3-7.3 ms after the
    /// first few.
    bins: Option<(Span, Rc<Vec<Bin>>)>,
    changed: ChangedPages,
    /// Whether its machine has room for a share of the run's nodes only
    /// (see [`Seeker`]).
    narrow: bool,
    /// What each leaf of this position's machine adds to a bin, by its
    /// stamp (about 3 MB a kernel at 16 GiB): the counts of the states
    /// this position stood at, most of which its next move keeps.
    leaves: LeafBins,
}

// The log at the end comes from the accesses whose events the timeline
// keeps.
const _: () = assert!(LOG_ACCESSES <= END_LOG_ACCESSES);

impl Position {
    /// Standing at `sim`, with `log`, and no bins made.
    fn new(timeline: &Timeline, sim: Simulation, log: Log) -> Self {
        Position {
            sim,
            log,
            bins: None,
            changed: ChangedPages::new(timeline.config()),
            narrow: false,
            leaves: LeafBins::default(),
        }
    }

    fn at_start(timeline: &Timeline) -> Self {
        Position::new(timeline, timeline.simulation_at(0), Log::default())
    }

    /// At the start, with room made for the run's nodes, or for `narrow`
    /// nodes only (a narrow position, see [`Seeker`]): a position made
    /// ahead of time, which then grows no memory when it first moves.
    fn at_start_with_room(timeline: &Timeline, narrow: Option<usize>) -> Self {
        let sim = match narrow {
            None => timeline.simulation_at_start_with_room(),
            Some(nodes) => timeline.simulation_at_start_with_room_for(nodes),
        };
        Position {
            narrow: narrow.is_some(),
            ..Position::new(timeline, sim, Log::default())
        }
    }

    /// The timeline's run at its end, with the events of its last
    /// accesses as the log.
    fn at_end(timeline: &Timeline) -> Self {
        let sim = timeline.take_end();
        let from = timeline.len().saturating_sub(LOG_ACCESSES);
        let mut log = Log::default();
        let mut current = None;
        for &(access, event) in timeline.end_events() {
            if access > from {
                log.push(access, event, &mut current);
            }
        }
        Position::new(timeline, sim, log)
    }

    fn step(&self) -> u64 {
        self.sim.step_count()
    }
}

/// One kernel of the view: its simulation at the step on screen, and
/// another left where the view stood before a long jump.
///
/// Why two: a seek thaws the checkpoint before the step over the machine,
/// copying every node that differs, so a jump from the start to the end
/// of the 16 GiB link copies its whole xarray, 17.5 MB a kernel (natively
/// 3.3 ms, against 0.35 ms for a jump back by a fortieth of the run). A
/// view that goes back to where it came from, or jumps far and back,
/// seeks whichever of the two stands nearer. The price is a second
/// machine, which views within [`SPARE_NODES`] pay whole. Larger views
/// keep a narrow one instead, with room for a share of the run's nodes
/// ([`NARROW_SHARE`]), which takes only steps whose machines fit that
/// room: near the start of the run, where a jump would otherwise empty
/// the wide machine, and the next jump far on thaw all of it again.
/// The view then never holds two wide machines, nor allocates one after
/// its warm-up.
struct Seeker {
    at: Position,
    /// Where the view stood before the jump that took the other; at the
    /// start once made ahead (`Seekers::make_spares`); none until then,
    /// or until a jump lands nearer the start than where the view stood
    /// (in a view with a narrow spare, on a step that fits its room).
    spare: Option<Position>,
    /// In a view over [`SPARE_NODES`], the nodes a narrow position has
    /// room for; none in a view whose spare is a whole machine.
    narrow_room: Option<usize>,
    /// The pages whose leaves `Seekers::count_leaves` has counted, from
    /// the first.
    leaves_counted_to: u64,
}

impl Seeker {
    fn new(timeline: &Timeline, narrow_room: Option<usize>) -> Self {
        Seeker {
            at: Position::at_end(timeline),
            spare: None,
            narrow_room,
            leaves_counted_to: 0,
        }
    }

    /// Takes the spare position instead when it seeks to `step` more
    /// cheaply: forward in place where this one cannot, or from nearer.
    /// A position at the start stands in for a spare not made yet. A
    /// narrow position takes only the steps whose machines fit its room:
    /// a move past them, a jump or play, takes the wide one wherever it
    /// stands. That one's thaw then copies at most the nodes of the step's
    /// checkpoint, which are few there. Widening the narrow one in place
    /// instead took a whole arena's allocation in the middle of play, in
    /// the hole the wide one left as it went; in one of six loads of the
    /// 16 GiB comparison the wasm memory grew by about that much after
    /// its warm-up (114.4 -> 132.5 MB), which I did not see again.
    fn take_nearer(&mut self, timeline: &Timeline, step: u64) {
        let here = self.at.step();
        let in_place = timeline.seeks_in_place(here, step);
        let fits = self
            .narrow_room
            .is_some_and(|room| timeline.arena_by(step) <= room);
        if self.at.narrow && !fits {
            if let Some(wide) = self.spare.as_mut() {
                std::mem::swap(&mut self.at, wide);
            }
            return;
        }
        if in_place {
            return;
        }
        let there = self.spare.as_ref().map_or(0, |p| p.step());
        let takes = self
            .spare
            .as_ref()
            .map_or(self.narrow_room.is_none(), |p| !p.narrow)
            || fits;
        if !takes
            || !timeline.seeks_in_place(there, step) && there.abs_diff(step) >= here.abs_diff(step)
        {
            return;
        }
        let spare = self.spare.get_or_insert_with(|| match self.narrow_room {
            None => Position::at_start(timeline),
            room => Position::at_start_with_room(timeline, room),
        });
        std::mem::swap(&mut self.at, spare);
    }

    /// Moves to `step` with the timeline's seek, keeping the log to the
    /// events of the accesses in `(step - LOG_ACCESSES, step]`, and noting
    /// the pages a short move forward changes (any other move changes
    /// them all). A change of position changes none: each keeps its own
    /// bins.
    fn seek(&mut self, built: &Built, side: usize, step: u64) {
        let timeline = &built.sides[side].timeline;
        if self.at.step() == step {
            return;
        }
        self.take_nearer(timeline, step);
        self.move_at(timeline, step);
    }

    /// Moves the position on screen to `step`, as [`Seeker::seek`] says,
    /// whichever of the two it is.
    fn move_at(&mut self, timeline: &Timeline, step: u64) {
        let here = self.at.step();
        if here == step {
            return;
        }
        let noted = timeline.seeks_in_place(here, step) && step - here <= NOTE_ACCESSES;
        let Position {
            sim, log, changed, ..
        } = &mut self.at;
        if !noted {
            // The kept bins are of a step this seek does not run forward
            // from.
            changed.set_everything();
        }
        // Each position keeps its own log: one run forward in place
        // logs only the accesses it runs.
        let tail = if noted { step - here } else { LOG_ACCESSES };
        let log_from = step.saturating_sub(LOG_ACCESSES);
        let mut current: Option<(u64, usize)> = None;
        timeline.seek_logged(sim, step, tail, |access, event| {
            changed.note(&event);
            if access <= log_from {
                return;
            }
            if current.is_none() {
                // The accesses from here on are logged anew.
                log.lines.retain(|l| l.access < access);
            }
            log.push(access, event, &mut current);
        });
        log.lines
            .retain(|l| l.access > log_from && l.access <= step);
    }

    /// The events of `access` (1-based): from the log of a position that
    /// holds them, or else by moving one there. The spare goes when it can
    /// take the step, so that the position on screen stays where the view
    /// stands, and a narrow one goes only to a step that fits its room: the
    /// seekers allocate no machine. Asked for the next access while the
    /// view steps through events, the spare then runs one access forward
    /// in place each time. Made on a machine of its own instead, as the
    /// timeline does, the events cost the 16 GiB comparison a whole
    /// machine (19 MB), which grew its wasm memory to 132.5 MB once warm.
    fn events_of(&mut self, timeline: &Timeline, access: u64) -> Vec<Event> {
        let held = std::iter::once(&self.at)
            .chain(&self.spare)
            .find(|p| p.step() >= access && p.log.holds(access));
        if let Some(p) = held {
            return p.log.events_of(access);
        }
        let fits = |p: &Position| {
            !p.narrow
                || self
                    .narrow_room
                    .is_some_and(|room| timeline.arena_by(access) <= room)
        };
        let spare_goes = self.spare.as_ref().is_some_and(fits);
        if !spare_goes && !fits(&self.at) {
            // Not reached while one of the two positions is wide, as
            // `take_nearer` keeps them; should that change, a narrow
            // position still never goes past its room.
            return timeline.events_of(access);
        }
        let swap = |s: &mut Self| {
            if let Some(spare) = s.spare.as_mut().filter(|_| spare_goes) {
                std::mem::swap(&mut s.at, spare);
            }
        };
        swap(self);
        self.move_at(timeline, access);
        let events = self.at.log.events_of(access);
        swap(self);
        events
    }

    /// The bins of `span` at the seeker's step: those its position kept,
    /// brought up to date over the pages changed since.
    fn bins(&mut self, span: Span) -> Rc<Vec<Bin>> {
        let Position {
            sim,
            bins: kept,
            changed,
            leaves,
            ..
        } = &mut self.at;
        let mut bins = match kept.take() {
            Some((s, bins)) if s == span => bins,
            // None kept for this span: all are counted.
            _ => Rc::new(Vec::new()),
        };
        sim.machine()
            .rebin(span, Rc::make_mut(&mut bins), changed, leaves);
        changed.clear();
        *kept = Some((span, bins.clone()));
        bins
    }
}

/// The most nodes a view's whole spare positions may hold, all kernels
/// together, each as many as its run's machine at the end: 32,768 nodes
/// are 19 MB at 584 bytes a node, about a seventh of the 128 MB the
/// app's wasm memory is held to on a 16 GiB view. The default view's
/// three hold 24,969 (14.6 MB). The 16 GiB comparison's two held 64,992
/// (38 MB), and the view took 146 MB in all once warm; the 16 GiB
/// backward sequential link's one held 66,577, and the view took 123 MB.
const SPARE_NODES: usize = 1 << 15;

/// The share of its run's nodes a view over [`SPARE_NODES`] gives its
/// narrow spares room for: a quarter. On the 16 GiB comparison, 8,124 of
/// 32,496 nodes (4.7 MB a kernel), which the run holds until about a
/// sixth of its accesses.
const NARROW_SHARE: usize = 4;

/// The most nodes side `t`'s run holds, at its end.
fn end_nodes(t: &Timeline) -> usize {
    t.arena_by(t.len())
}

/// Whether `built`'s seekers keep whole spare positions: whether their
/// machines at the end fit [`SPARE_NODES`].
pub fn whole_spares(built: &Built) -> bool {
    let nodes: usize = built.sides.iter().map(|s| end_nodes(&s.timeline)).sum();
    nodes <= SPARE_NODES
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
        let seeker = Self::seeker(&mut current, built, side, step);
        f(&seeker.at.sim, &seeker.at.log)
    }

    /// Calls `f` with the simulations of sides `a` and `b` (`a < b`), both
    /// moved to `step`.
    pub fn with_pair<R>(
        &self,
        built: &Kept<Built>,
        (a, b): (usize, usize),
        step: u64,
        f: impl FnOnce(&Simulation, &Simulation) -> R,
    ) -> R {
        debug_assert!(a < b, "sides {a} and {b}");
        let mut current = self.current.borrow_mut();
        let (left, right) = Self::seekers_of(&mut current, built).split_at_mut(b);
        left[a].seek(built, a, step);
        right[0].seek(built, b, step);
        f(&left[a].at.sim, &right[0].at.sim)
    }

    /// Drops the simulations of the view they were made for, and with them
    /// its timelines: a view being built draws none.
    pub fn forget(&self) {
        if let Ok(mut current) = self.current.try_borrow_mut() {
            *current = None;
        }
    }

    /// Side `side`'s bins of `span` at `step`. Asked for the same span
    /// step after step (a strip while play runs), only the bins whose
    /// pages the accesses in between changed are counted again.
    pub fn bins(&self, built: &Kept<Built>, side: usize, step: u64, span: Span) -> Rc<Vec<Bin>> {
        let mut current = self.current.borrow_mut();
        Self::seeker(&mut current, built, side, step).bins(span)
    }

    /// Counts what the xarray leaves of `built`'s positions add to a
    /// strip's bins, ahead of the first binning (`Machine::count_leaves`):
    /// at most `pages` pages of their files more, side after side, from
    /// where the last call stopped. Returns whether all are counted.
    /// `use_build` calls it in slices before it hands a view over, so that
    /// drawing the view does not count them.
    pub fn count_leaves(&self, built: &Kept<Built>, mut pages: u64) -> bool {
        let mut current = self.current.borrow_mut();
        let seekers = Self::seekers_of(&mut current, built);
        let last = seekers.len() - 1;
        for (k, (seeker, side)) in seekers.iter_mut().zip(&built.sides).enumerate() {
            let cfg = side.timeline.config();
            let end = cfg.file_size.div_ceil(cfg.page_size.bytes());
            let first = seeker.leaves_counted_to;
            let to = first.saturating_add(pages).min(end);
            let at = &mut seeker.at;
            at.sim.machine().count_leaves(first, to, &mut at.leaves);
            seeker.leaves_counted_to = to;
            pages -= to - first;
            if pages == 0 {
                return k == last && to == end;
            }
        }
        true
    }

    /// Makes each side's spare position of `built`, the view on screen,
    /// where none was made yet: at the start, with room for the run's
    /// nodes. Made on the first jump that needs it instead, the 16 GiB
    /// link's spares took 18 MB a kernel there, and that jump grew the
    /// wasm memory past V8's global allocation limit, which started a
    /// major collection: its finalisation took 2.4-5.1 ms of a later jump.
    /// A spare that a jump made already (one before the view was warm)
    /// leaves the run the timeline holds for one unused: it goes, rather
    /// than stay a third machine (18.7 MB a kernel on the 16 GiB
    /// comparison). In a view over [`SPARE_NODES`], the spare is a
    /// narrow one, and the run held goes too.
    /// Does nothing for a view no longer on screen, or not drawn yet.
    pub fn make_spares(&self, built: &Kept<Built>) {
        let mut current = self.current.borrow_mut();
        let Some((b, seekers)) = current.as_mut().filter(|(b, _)| b == built) else {
            return;
        };
        for (seeker, side) in seekers.iter_mut().zip(&b.sides) {
            if seeker.spare.is_some() || seeker.narrow_room.is_some() {
                side.timeline.release_end();
            }
            if seeker.spare.is_none() {
                let room = seeker.narrow_room;
                seeker.spare = Some(Position::at_start_with_room(&side.timeline, room));
            }
        }
    }

    /// The events of access `access` (1-based) of side `side`, found by its
    /// seeker (`Seeker::events_of`) without a machine of their own. Asked
    /// while a component holds the seekers (from inside [`Seekers::with`]),
    /// the timeline runs the access again instead.
    pub fn events_of(&self, built: &Kept<Built>, side: usize, access: u64) -> Vec<Event> {
        let timeline = &built.sides[side].timeline;
        if access == 0 || access > timeline.len() {
            return Vec::new();
        }
        let Ok(mut current) = self.current.try_borrow_mut() else {
            return timeline.events_of(access);
        };
        Self::seekers_of(&mut current, built)[side].events_of(timeline, access)
    }

    /// Side `side`'s seeker, moved to `step`; all made anew for a view
    /// built anew.
    fn seeker<'a>(
        current: &'a mut Option<(Kept<Built>, Vec<Seeker>)>,
        built: &Kept<Built>,
        side: usize,
        step: u64,
    ) -> &'a mut Seeker {
        let seeker = &mut Self::seekers_of(current, built)[side];
        seeker.seek(built, side, step);
        seeker
    }

    /// The seekers of `built`, made anew when they are another view's.
    fn seekers_of<'a>(
        current: &'a mut Option<(Kept<Built>, Vec<Seeker>)>,
        built: &Kept<Built>,
    ) -> &'a mut [Seeker] {
        if current.as_ref().is_none_or(|(b, _)| b != built) {
            let whole = whole_spares(built);
            let seekers = built
                .sides
                .iter()
                .map(|s| {
                    let t = &s.timeline;
                    let narrow_room = (!whole).then(|| end_nodes(t) / NARROW_SHARE);
                    Seeker::new(t, narrow_room)
                })
                .collect();
            *current = Some((built.clone(), seekers));
        }
        let (_, seekers) = current.as_mut().expect("just set");
        seekers
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
    use folioscope_core::{
        Indexing, Kernel, Madvise, Pattern, Scenario, Timeline, TimelineBuilder, Variant,
    };

    /// The timeline of `scenario`, and a view of it alone.
    fn one_kernel(scenario: Scenario) -> (Rc<Timeline>, Kept<Built>) {
        let timeline = Rc::new(Timeline::build(scenario.config().unwrap(), 1 << 20));
        let built = Kept::new(Built {
            sides: vec![BuiltSide {
                kernel: scenario.kernel.clone(),
                timeline: timeline.clone(),
                first_diff: None,
            }],
            scenario,
        });
        (timeline, built)
    }

    /// What the log holds at `step`: the events of the accesses in
    /// `(step - LOG_ACCESSES, step]`, numbered, the newest [`LOG_LINES`].
    fn log_at(timeline: &Timeline, step: u64) -> Vec<LogLine> {
        let mut want: Vec<LogLine> = (step.saturating_sub(LOG_ACCESSES) + 1..=step)
            .flat_map(|access| {
                timeline
                    .events_of(access)
                    .into_iter()
                    .enumerate()
                    .map(move |(index, event)| LogLine {
                        access,
                        index,
                        event,
                    })
            })
            .collect();
        want.drain(..want.len().saturating_sub(LOG_LINES));
        want
    }

    /// The log after moving through `steps` in order is, each time, the
    /// events of the accesses in `(step - LOG_ACCESSES, step]`, numbered,
    /// the newest [`LOG_LINES`] of them: at the end as the timeline keeps
    /// it, after moves in place, from checkpoints, and back to a spare
    /// position (20 from 1210, then 1215 from the spare at 1210, in
    /// place; the end from the spare left there).
    #[test]
    fn the_log_holds_the_events_of_the_last_accesses_after_any_move() {
        let scenario = Scenario {
            file_size: 16 << 20,
            pattern: Pattern::Stride(3),
            ..Scenario::default()
        };
        let (timeline, built) = one_kernel(scenario);
        let seekers = Seekers::default();
        let len = timeline.len();
        // First the end, where a view opens and the timeline's own run
        // is drawn, then away from it and back.
        let mut steps = vec![
            len,
            len - 1,
            0,
            1,
            2,
            50,
            51,
            60,
            400,
            399,
            1200,
            1210,
            20,
            1215,
        ];
        steps.extend([len, len - 3, len]);
        for step in steps {
            let (at, lines) = seekers.with(&built, 0, step, |sim, log| {
                (
                    sim.step_count(),
                    log.lines.iter().copied().collect::<Vec<_>>(),
                )
            });
            assert_eq!(at, step);
            let want = log_at(&timeline, step);
            assert_eq!(lines.len(), want.len(), "at step {step}");
            if let Some(k) = (0..want.len()).find(|&k| lines[k] != want[k]) {
                panic!(
                    "at step {step}, line {k}: {:?}, want {:?}",
                    lines[k], want[k]
                );
            }
            // What the log tells of an access is what the timeline does,
            // for the accesses it holds whole; of no other.
            for access in step.saturating_sub(LOG_ACCESSES + 2)..=step {
                let told = seekers.with(&built, 0, step, |_, log| log.events_of(access));
                let whole = access + LOG_ACCESSES > step
                    && want
                        .first()
                        .is_none_or(|l| l.access < access || (l.access == access && l.index == 0));
                let want = if whole {
                    timeline.events_of(access)
                } else {
                    Vec::new()
                };
                assert_eq!(told, want, "access {access} at step {step}");
            }
        }
    }

    /// At the end, where a view opens, the log is the events of the last
    /// accesses as the timeline kept them: in a run where every access
    /// makes events (a backward walk faults on each page), and in one
    /// shorter than the log.
    #[test]
    fn the_log_at_the_end_is_the_last_accesses_events() {
        for (file_size, pattern, madvise) in [
            (8 << 20, Pattern::Rev, Madvise::Sequential),
            (64 << 10, Pattern::Fwd, Madvise::Normal),
        ] {
            let (timeline, built) = one_kernel(Scenario {
                file_size,
                pattern,
                madvise,
                ..Scenario::default()
            });
            let len = timeline.len();
            let lines = Seekers::default().with(&built, 0, len, |_, log| {
                log.lines.iter().copied().collect::<Vec<_>>()
            });
            // The access before those makes events too, and is not shown.
            if len > LOG_ACCESSES {
                assert!(!timeline.events_of(len - LOG_ACCESSES).is_empty());
            }
            assert_eq!(lines, log_at(&timeline, len), "{len} accesses");
        }
    }

    /// Random accesses to 30% of the pages of 64 MiB.
    fn random_64m() -> Scenario {
        Scenario {
            file_size: 64 << 20,
            pattern: Pattern::Random {
                milli_pct: 30_000,
                seed: 7,
            },
            ..Scenario::default()
        }
    }

    /// In a view over [`SPARE_NODES`], with a narrow spare: after any
    /// move (jumps far and near, then play from the start to the end and
    /// jumps again), the position on screen holds the timeline's state at
    /// the step, the seeker holds one wide machine and at most one narrow
    /// one, and the narrow one keeps to its room, a quarter of the run's
    /// nodes: less than half the memory of a machine with room for them
    /// all.
    /// A view whose seeker keeps a narrow spare: read backwards a page at
    /// a time (the 16 GiB backward link's walk), so that the xarray grows
    /// all along the run, and the machines of its first tenth fit a
    /// quarter of its nodes. With the narrow room, and the memory of a
    /// machine with room for all of them.
    fn narrow_view() -> (Rc<Timeline>, Kept<Built>, usize, usize) {
        let (timeline, built) = one_kernel(Scenario {
            file_size: 64 << 20,
            pattern: Pattern::Rev,
            madvise: Madvise::Sequential,
            ..Scenario::default()
        });
        let room = end_nodes(&timeline) / NARROW_SHARE;
        let wide = timeline.machine_at(timeline.len()).memory_bytes();
        (timeline, built, room, wide)
    }

    /// Whether `seeker` holds one wide machine, and narrow ones under half
    /// of `wide` bytes; how many narrow ones.
    fn one_wide_and_narrow(seeker: &Seeker, wide: usize, at: u64) -> usize {
        let positions: Vec<&Position> = std::iter::once(&seeker.at).chain(&seeker.spare).collect();
        assert_eq!(positions.iter().filter(|p| !p.narrow).count(), 1, "at {at}");
        let narrow: Vec<&&Position> = positions.iter().filter(|p| p.narrow).collect();
        for p in &narrow {
            let bytes = p.sim.machine().memory_bytes();
            assert!(
                bytes * 2 < wide,
                "narrow at {}: {bytes} of {wide} bytes",
                p.step()
            );
        }
        narrow.len()
    }

    #[test]
    fn a_narrow_spare_keeps_to_its_room() {
        let (timeline, built, room, wide) = narrow_view();
        let len = timeline.len();
        let mut seeker = Seeker::new(&timeline, Some(room));
        let frame = timeline.interval() / 4;
        let mut steps = vec![len - 1, 0, len * 39 / 40, len / 40, len / 10, len * 9 / 10];
        steps.extend([len / 10, 0]);
        steps.extend((1..=len / frame).map(|k| k * frame));
        steps.extend([0, len / 2, 1, len, len / 10, len, len / 4]);
        let mut narrow_seen = false;
        for step in steps {
            seeker.seek(&built, 0, step);
            let sim = &seeker.at.sim;
            assert_eq!(sim.step_count(), step);
            assert!(
                !sim.machine().differs_quickly(&timeline.machine_at(step)),
                "at {step}"
            );
            narrow_seen |= one_wide_and_narrow(&seeker, wide, step) > 0;
        }
        assert!(narrow_seen);
    }

    /// The events of any access, asked of a seeker whose spare is narrow,
    /// are the timeline's; the position on screen stays where it stood
    /// whenever the spare can take the access, and the seeker still holds
    /// one wide machine and a narrow one. Asked while a component holds
    /// the seekers, the timeline answers.
    #[test]
    fn events_of_any_access_are_the_timelines() {
        let (timeline, built, room, wide) = narrow_view();
        let len = timeline.len();
        let mut seeker = Seeker::new(&timeline, Some(room));
        seeker.spare = Some(Position::at_start_with_room(&timeline, Some(room)));
        let mid = len / 2;
        // Stepping into the next access, back into the last one, far back,
        // near the start (the narrow spare's room), the run's last access,
        // and from a view near the start, far ahead.
        let asked = [
            (mid, mid + 1),
            (mid, mid),
            (mid, mid + 2),
            (mid + 1, mid + 2),
            (mid, 3),
            (mid, len),
            (10, 11),
            (10, len * 9 / 10),
            (len, len / 3),
            (len, 1),
        ];
        let mut spare_took = 0;
        for (step, access) in asked {
            seeker.seek(&built, 0, step);
            let spare_fits = seeker
                .spare
                .as_ref()
                .is_some_and(|p| !p.narrow || timeline.arena_by(access) <= room);
            let got = seeker.events_of(&timeline, access);
            assert_eq!(got, timeline.events_of(access), "access {access} at {step}");
            assert!(!got.is_empty());
            if spare_fits {
                spare_took += 1;
                assert_eq!(seeker.at.step(), step, "access {access} at {step}");
            }
            one_wide_and_narrow(&seeker, wide, step);
        }
        // Both ways were taken.
        assert!(spare_took > 0 && spare_took < asked.len());

        let seekers = Seekers::default();
        let inside = seekers.with(&built, 0, mid, |_, _| seekers.events_of(&built, 0, mid + 1));
        assert_eq!(inside, timeline.events_of(mid + 1));
        assert_eq!(
            seekers.events_of(&built, 0, mid + 7),
            timeline.events_of(mid + 7)
        );
        assert_eq!(seekers.events_of(&built, 0, 0), Vec::new());
        assert_eq!(seekers.events_of(&built, 0, len + 1), Vec::new());
    }

    /// Two kernels' simulations asked for together stand at the step, each
    /// its own kernel's: the compare bar reads where they part so.
    #[test]
    fn a_pair_stands_at_the_step_each_its_own() {
        let sides: Vec<BuiltSide> = [Variant::ALL[0], Variant::ALL[Variant::ALL.len() - 1]]
            .into_iter()
            .map(|v| {
                let scenario = Scenario {
                    kernel: Kernel::from_variant(v),
                    ..random_64m()
                };
                BuiltSide {
                    kernel: scenario.kernel.clone(),
                    timeline: Rc::new(Timeline::build(scenario.config().unwrap(), 1 << 20)),
                    first_diff: None,
                }
            })
            .collect();
        let len = sides[0].timeline.len();
        let built = Kept::new(Built {
            scenario: random_64m(),
            sides,
        });
        let seekers = Seekers::default();
        for step in [len, len / 3, len / 3 + 1, 7] {
            let (a, b) = seekers.with_pair(&built, (0, 1), step, |a, b| {
                let same = |sim: &Simulation, side: usize| {
                    sim.step_count() == step
                        && !sim
                            .machine()
                            .differs_quickly(&built.sides[side].timeline.machine_at(step))
                };
                (same(a, 0), same(b, 1))
            });
            assert!(a && b, "at {step}");
        }
    }

    /// Spares made ahead stand at the start, for the view on screen only,
    /// and a jump near the start then moves the spare, to the machine
    /// the timeline has there.
    #[test]
    fn spares_made_ahead_stand_at_the_start_of_the_view_on_screen() {
        let scenario = random_64m();
        let (timeline, built) = one_kernel(scenario.clone());
        let (_, other) = one_kernel(scenario);
        let len = timeline.len();
        let seekers = Seekers::default();
        let spare = |seekers: &Seekers| {
            let current = seekers.current.borrow();
            current
                .as_ref()
                .map(|(_, s)| s[0].spare.as_ref().map(|p| p.step()))
        };
        // Nothing is drawn yet: nothing to make them for.
        seekers.make_spares(&built);
        assert_eq!(spare(&seekers), None);
        seekers.with(&built, 0, len, |_, _| ());
        // Another view than the one on screen.
        seekers.make_spares(&other);
        assert_eq!(spare(&seekers), Some(None));
        seekers.make_spares(&built);
        assert_eq!(spare(&seekers), Some(Some(0)));
        let near_start = len / 16;
        let (at, same) = seekers.with(&built, 0, near_start, |sim, _| {
            (
                sim.step_count(),
                !sim.machine()
                    .differs_quickly(&timeline.machine_at(near_start)),
            )
        });
        assert_eq!((at, same), (near_start, true));
        // The position at the end is the spare now.
        assert_eq!(spare(&seekers), Some(Some(len)));
    }

    /// As the app indexes a short run once its view is drawn: the run
    /// the index builder took its checkpoints with, which the timeline
    /// holds as the end, becomes the spare made after it; when a jump
    /// before the index made a spare already, it goes. Either way the
    /// timeline holds no machine beside the seeker's two.
    #[test]
    fn the_run_the_index_took_is_the_spare_or_goes() {
        let scenario = random_64m();
        for jump_first in [false, true] {
            let timeline = Rc::new(
                TimelineBuilder::indexing(scenario.config().unwrap(), Indexing::Later).finish(),
            );
            let built = Kept::new(Built {
                sides: vec![BuiltSide {
                    kernel: scenario.kernel.clone(),
                    timeline: timeline.clone(),
                    first_diff: None,
                }],
                scenario: scenario.clone(),
            });
            let len = timeline.len();
            let seekers = Seekers::default();
            seekers.with(&built, 0, len, |_, _| ());
            assert!(!timeline.holds_end(), "the seeker took the end");
            if jump_first {
                seekers.with(&built, 0, len / 16, |_, _| ());
            }
            let mut builder = timeline.index_builder(1 << 20).expect("not indexed yet");
            while !builder.advance(1000) {}
            timeline.set_index(builder);
            assert!(timeline.holds_end(), "the index's run is held");
            seekers.make_spares(&built);
            assert!(!timeline.holds_end(), "jump first: {jump_first}");
            let at = seekers.with(&built, 0, len / 2, |sim, _| {
                !sim.machine().differs_quickly(&timeline.machine_at(len / 2))
            });
            assert!(at, "jump first: {jump_first}");
        }
    }

    /// The bins a seeker keeps and brings up to date are the machine's
    /// bins at every step, through short moves forward (noted), long ones
    /// and moves back (counted afresh), a change of span, and moves
    /// between its two positions, each with its own bins.
    #[test]
    fn kept_bins_are_the_bins_of_the_machine_at_each_step() {
        let scenario = random_64m();
        let (timeline, built) = one_kernel(scenario);
        let seekers = Seekers::default();
        let pages = timeline.config().geometry().nr_pages;
        let wide = Span {
            first: 0,
            end: pages,
            bins: 300,
        };
        // Bins of many leaves each: their counts are kept by stamp.
        let few = Span {
            first: 0,
            end: pages,
            bins: 20,
        };
        let near = Span {
            first: 1000,
            end: 3000,
            bins: 500,
        };
        let len = timeline.len();
        let moves = [
            (len, wide),
            (len, near),
            (0, wide),
            (1, wide),
            (2, wide),
            (40, wide),
            (41, near),
            (90, near),
            (90, wide),
            (3000, wide),
            (3001, wide),
            (200, wide),
            (len, wide),
            (5, few),
            (6, few),
            (2000, few),
            (2001, few),
            (len, few),
            // Back to the position left at 2001, whose bins are kept as
            // they were, then on from it in place, and back to the end.
            (2001, few),
            (2002, few),
            (len, few),
            (len, wide),
            (2002, wide),
        ];
        for (step, span) in moves {
            let kept = seekers.bins(&built, 0, step, span);
            assert_eq!(
                *kept,
                timeline.machine_at(step).bins(span),
                "at step {step}, {span:?}"
            );
        }
    }

    /// Counting the leaves ahead goes on from where the last call stopped
    /// and says when the file is done, and the bins drawn after it are
    /// the machine's, at the end and after moves.
    #[test]
    fn leaves_counted_ahead_leave_the_bins_as_they_are() {
        let (timeline, built) = one_kernel(random_64m());
        let seekers = Seekers::default();
        let pages = timeline.config().geometry().nr_pages;
        let mut calls = 0;
        while !seekers.count_leaves(&built, 4096) {
            calls += 1;
        }
        assert_eq!(calls, pages / 4096 - 1, "one call a 4096 pages");
        assert!(seekers.count_leaves(&built, 4096), "done stays done");
        let span = Span {
            first: 0,
            end: pages,
            bins: 20,
        };
        for step in [timeline.len(), 100, timeline.len()] {
            assert_eq!(
                *seekers.bins(&built, 0, step, span),
                timeline.machine_at(step).bins(span),
                "at step {step}"
            );
        }
    }
}
