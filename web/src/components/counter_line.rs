//! One kernel's counters on one line, for the embedded frame, where the
//! full panels of `ra_panel.rs` do not fit: the faults, the bytes read
//! and `mmap_miss`; with one kernel on screen, the read I/Os and its
//! `file_ra_state` window too. In compare mode a figure that differs
//! from the first kernel's is marked. The line is a live region, so that
//! a screen reader reads it out after a step (not while playing).

use folioscope_core::{Event, Picture, Simulation};
use yew::prelude::*;

use crate::components::file_strip::Side;
use crate::context::{use_handles, use_moment, use_setup, use_ui};

#[derive(Properties, PartialEq)]
pub struct CounterLineProps {
    pub side: Side,
}

/// One figure: its short name, the test id of its value, the value.
type Figure = (&'static str, &'static str, String);

/// The figures every kernel's line has; the others (one kernel's) go on
/// a line of their own.
const MAIN_FIGURES: usize = 4;

/// The figures of a simulation, with `overlay`, the events applied inside
/// the next access, added in; with `ra`, the I/Os and the readahead
/// window too.
fn figures(sim: &Simulation, overlay: &[Event], ra: bool) -> Vec<Figure> {
    let mut picture = Picture::new(sim.machine(), None);
    for e in overlay {
        picture.apply(e);
    }
    let f = picture.figures();
    let r = picture.ra();
    let mut v = vec![
        ("major", "line-major", f.major_faults.to_string()),
        ("minor", "line-minor", f.minor_faults.to_string()),
        (
            "MB read",
            "line-mb-read",
            format!("{:.1}", f.bytes_read as f64 / 1048576.0),
        ),
        ("mmap_miss", "line-mmap-miss", r.mmap_miss.to_string()),
    ];
    if ra {
        v.extend([
            ("I/Os", "line-ios", f.read_ios.to_string()),
            ("ra start", "line-ra-start", r.start.to_string()),
            ("size", "line-ra-size", r.size.to_string()),
            ("async_size", "line-ra-async", r.async_size.to_string()),
        ]);
    }
    v
}

#[component]
pub fn CounterLine(props: &CounterLineProps) -> Html {
    let setup = use_setup();
    let moment = use_moment();
    let playing = use_ui().playing;
    let seekers = use_handles().seekers;
    let side = props.side;
    let suffix = side.suffix();
    let Some(built) = setup.built.clone().filter(|b| side.index() < b.sides.len()) else {
        return html! { <span class="counter-line muted">{ "building the model" }</span> };
    };
    let step = moment.step;
    let ra = setup.compare.is_empty();
    let of = |i: usize| {
        // Inside an access, the first kernel's events are applied.
        let overlay: &[Event] = if i == 0 { moment.applied_events() } else { &[] };
        seekers
            .0
            .with(&built, i, step, |sim, _| figures(sim, overlay, ra))
    };
    let mine = of(side.index());
    let first = (side != Side::A).then(|| of(0));
    let items = mine.iter().enumerate().map(|(k, (name, id, value))| {
        let theirs = first.as_ref().and_then(|f| f.get(k)).map(|f| &f.2);
        let differs = theirs.is_some_and(|t| t != value);
        let title = differs
            .then(|| theirs.map(|t| format!("differs from the first kernel's {t}")))
            .flatten();
        html! {
            <>
                if k == MAIN_FIGURES { <br /> }
                <span class={classes!("figure", differs.then_some("differs"))} {title}>
                    { format!("{name} ") }<b data-testid={format!("{id}{suffix}")}>{ value.clone() }</b>
                </span>
            </>
        }
    });
    html! {
        <span class="counter-line" data-testid={format!("counter-line{suffix}")}
            aria-live={if playing { "off" } else { "polite" }} aria-atomic="true">
            { for items }
        </span>
    }
}
