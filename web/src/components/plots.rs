//! Plots of the run: cumulative major faults, MB read and `mmap_miss`
//! against the access number, with the MMAP_LOTSAMISS line and a marker
//! at the current step. In compare mode the second kernel is dashed.

use folioscope_core::Sample;
use folioscope_core::MMAP_LOTSAMISS;
use yew::prelude::*;

use crate::app::AppContext;
use crate::components::svg_paths::{Paths, SvgPaths};

const W: f64 = 320.0;
const H: f64 = 140.0;
const LEFT: f64 = 46.0;
const BOTTOM: f64 = 24.0;
const TOP: f64 = 8.0;
const RIGHT: f64 = 8.0;

fn fmt(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if v >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn path(samples: &[Sample], len: f64, ymax: f64, value: &dyn Fn(&Sample) -> f64) -> String {
    let mut d = String::new();
    for (i, s) in samples.iter().enumerate() {
        let x = LEFT + s.step as f64 / len * (W - LEFT - RIGHT);
        let y = H - BOTTOM - value(s) / ymax * (H - BOTTOM - TOP);
        d.push_str(&format!("{}{x:.1},{y:.1} ", if i == 0 { "M" } else { "L" }));
    }
    d
}

#[derive(Properties, PartialEq)]
struct PlotProps {
    title: AttrValue,
    id: AttrValue,
    /// Which figure of a sample to plot.
    which: u8,
}

fn value_of(which: u8) -> fn(&Sample) -> f64 {
    match which {
        0 => |s: &Sample| s.major_faults as f64,
        1 => |s: &Sample| s.bytes_read as f64 / 1048576.0,
        _ => |s: &Sample| s.mmap_miss as f64,
    }
}

#[component]
fn Plot(props: &PlotProps) -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let value = value_of(props.which);
    let a = state.run.timeline.samples();
    let len = state.len().max(1) as f64;
    let mut ymax = a.iter().map(value).fold(0.0, f64::max);
    for c in &state.compare {
        ymax = c
            .run
            .timeline
            .samples()
            .iter()
            .map(value)
            .fold(ymax, f64::max);
    }
    if props.which == 2 {
        ymax = ymax.max(MMAP_LOTSAMISS as f64 * 1.25);
    }
    let ymax = ymax.max(1.0);
    // The curves change only with the runs; the cursor moves every step.
    let key = (
        std::rc::Rc::as_ptr(&state.run) as usize,
        state
            .compare
            .iter()
            .map(|c| std::rc::Rc::as_ptr(&c.run) as usize)
            .collect::<Vec<_>>(),
        props.which,
    );
    let curves = {
        let run_a = state.run.clone();
        let others: Vec<_> = state.compare.iter().map(|c| c.run.clone()).collect();
        use_memo(key, move |_| {
            let mut paths: Paths = vec![(
                AttrValue::from(path(run_a.timeline.samples(), len, ymax, &value)),
                "series-a",
            )];
            for (run, class) in others.iter().zip(["series-b", "series-c"]) {
                paths.push((
                    AttrValue::from(path(run.timeline.samples(), len, ymax, &value)),
                    class,
                ));
            }
            paths
        })
    };
    let x_of = |step: f64| LEFT + step / len * (W - LEFT - RIGHT);
    let y_of = |v: f64| H - BOTTOM - v / ymax * (H - BOTTOM - TOP);
    let cursor = x_of(state.step as f64);
    let lotsamiss = (props.which == 2).then(|| {
        let y = y_of(MMAP_LOTSAMISS as f64);
        html! {
            <g>
                <line x1={format!("{LEFT}")} x2={format!("{}", W - RIGHT)} y1={format!("{y:.1}")} y2={format!("{y:.1}")} class="lotsamiss" />
                <text x={format!("{}", W - RIGHT - 2.0)} y={format!("{:.1}", y - 3.0)} class="axis-label" text-anchor="end">{ "MMAP_LOTSAMISS" }</text>
            </g>
        }
    });
    // The curves sit on their own layer; only the thin cursor layer above
    // them repaints as the step moves.
    html! {
        <figure class="plot">
            <div class="plot-box">
                <svg class="plot-static" viewBox={format!("0 0 {W} {H}")} data-testid={props.id.clone()} role="img" aria-label={props.title.clone()}>
                    <line x1={format!("{LEFT}")} x2={format!("{LEFT}")} y1={format!("{TOP}")} y2={format!("{}", H - BOTTOM)} class="axis" />
                    <line x1={format!("{LEFT}")} x2={format!("{}", W - RIGHT)} y1={format!("{}", H - BOTTOM)} y2={format!("{}", H - BOTTOM)} class="axis" />
                    <text x={format!("{}", LEFT - 4.0)} y={format!("{}", TOP + 8.0)} class="axis-label" text-anchor="end">{ fmt(ymax) }</text>
                    <text x={format!("{}", LEFT - 4.0)} y={format!("{}", H - BOTTOM)} class="axis-label" text-anchor="end">{ "0" }</text>
                    <text x={format!("{LEFT}")} y={format!("{}", H - 8.0)} class="axis-label">{ "0" }</text>
                    <text x={format!("{}", W - RIGHT)} y={format!("{}", H - 8.0)} class="axis-label" text-anchor="end">{ format!("{} accesses", fmt(len)) }</text>
                    { for lotsamiss }
                    <SvgPaths paths={curves} />
                </svg>
                <svg class="plot-cursor" viewBox={format!("0 0 {W} {H}")} aria-hidden="true">
                    <line x1={format!("{cursor:.1}")} x2={format!("{cursor:.1}")} y1={format!("{TOP}")} y2={format!("{}", H - BOTTOM)} class="cursor-line" />
                </svg>
            </div>
            <figcaption>{ props.title.clone() }</figcaption>
        </figure>
    }
}

#[component]
pub fn Plots() -> Html {
    html! {
        <section class="panel plots" data-testid="plots">
            <h2>{ "against the access number" }</h2>
            <div class="plot-row">
                <Plot title="major faults (cumulative)" id="plot-major" which={0} />
                <Plot title="MB read (cumulative)" id="plot-mb" which={1} />
                <Plot title="mmap_miss" id="plot-miss" which={2} />
            </div>
        </section>
    }
}
