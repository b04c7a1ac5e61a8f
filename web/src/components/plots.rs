//! Plots of the run: cumulative major faults, MB read and `mmap_miss`
//! against the access number, with the MMAP_LOTSAMISS line and a marker
//! at the current step. Each kernel has its line (the second dashed, the
//! third dotted), and the legend names them.

use std::rc::Rc;

use folioscope_core::{Sample, Timeline, MMAP_LOTSAMISS};
use yew::prelude::*;

use crate::components::svg_paths::{push_fixed, Paths, SvgPaths};
use crate::context::{use_moment, use_setup};

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
    let mut d = String::with_capacity(samples.len() * 13);
    for (i, s) in samples.iter().enumerate() {
        let x = LEFT + s.step as f64 / len * (W - LEFT - RIGHT);
        let y = H - BOTTOM - value(s) / ymax * (H - BOTTOM - TOP);
        d.push(if i == 0 { 'M' } else { 'L' });
        push_fixed(&mut d, x, 1);
        d.push(',');
        push_fixed(&mut d, y, 1);
        d.push(' ');
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

/// One plot: axes and curves, which change only with the view's
/// timelines, under a cursor that moves with the step.
#[component]
fn Plot(props: &PlotProps) -> Html {
    let setup = use_setup();
    let value = value_of(props.which);
    let len = setup.len.max(1) as f64;
    let timelines: Vec<Rc<Timeline>> = setup
        .built
        .as_ref()
        .map(|b| b.sides.iter().map(|s| s.timeline.clone()).collect())
        .unwrap_or_default();
    let mut ymax = timelines
        .iter()
        .flat_map(|t| t.samples().iter().map(value))
        .fold(0.0, f64::max);
    if props.which == 2 {
        ymax = ymax.max(MMAP_LOTSAMISS as f64 * 1.25);
    }
    let ymax = ymax.max(1.0);
    let curves = {
        let key = (setup.built.clone(), props.which);
        use_memo(key, move |_| {
            timelines
                .iter()
                .zip(["series-a", "series-b", "series-c"])
                .map(|(t, class)| (AttrValue::from(path(t.samples(), len, ymax, &value)), class))
                .collect::<Paths>()
        })
    };
    let y_of = |v: f64| H - BOTTOM - v / ymax * (H - BOTTOM - TOP);
    let lotsamiss = (props.which == 2).then(|| {
        let y = y_of(MMAP_LOTSAMISS as f64);
        html! {
            <g>
                <line x1={format!("{LEFT}")} x2={format!("{}", W - RIGHT)} y1={format!("{y:.1}")} y2={format!("{y:.1}")} class="lotsamiss" />
                <text x={format!("{}", W - RIGHT - 2.0)} y={format!("{:.1}", y - 3.0)} class="axis-label" text-anchor="end">{ "MMAP_LOTSAMISS" }</text>
            </g>
        }
    });
    // The curves and the cursor are two SVGs: a move of the step changes
    // only the cursor's, and the browser keeps the curves' painting. The
    // curves are not promoted to a layer of their own: measured on 40
    // jumps, a layer per plot cost more to layerize on every jump than it
    // saved in paint, with the plots in sight or out of it.
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
                <PlotCursor {len} />
            </div>
            <figcaption>{ props.title.clone() }</figcaption>
        </figure>
    }
}

#[derive(Properties, PartialEq)]
struct PlotCursorProps {
    /// Accesses in the run (at least one).
    len: f64,
}

/// The step's line over a plot: the one part of it that reads the step.
#[component]
fn PlotCursor(props: &PlotCursorProps) -> Html {
    let step = use_moment().step;
    let x = LEFT + step as f64 / props.len * (W - LEFT - RIGHT);
    html! {
        <svg class="plot-cursor" viewBox={format!("0 0 {W} {H}")} aria-hidden="true">
            <line x1={format!("{x:.1}")} x2={format!("{x:.1}")} y1={format!("{TOP}")} y2={format!("{}", H - BOTTOM)} class="cursor-line" />
        </svg>
    }
}

/// The lines' kernels: a sample of each line's style, and its label.
#[component]
fn PlotLegend() -> Html {
    let setup = use_setup();
    let labels = std::iter::once(setup.scenario.kernel.label())
        .chain(setup.compare.iter().map(|k| k.label()));
    html! {
        <div class="legend plot-legend" data-testid="plot-legend">
            { for labels.zip(["series-a", "series-b", "series-c"]).map(|(label, class)| html! {
                <span class="swatch">
                    <svg width="28" height="10" aria-hidden="true"><line x1="1" x2="27" y1="5" y2="5" class={class} /></svg>
                    { label }
                </span>
            }) }
        </div>
    }
}

#[component]
pub fn Plots() -> Html {
    html! {
        <section class="panel plots" data-testid="plots">
            <h2>{ "against the access number" }</h2>
            <PlotLegend />
            <div class="plot-row">
                <Plot title="major faults (cumulative)" id="plot-major" which={0} />
                <Plot title="MB read (cumulative)" id="plot-mb" which={1} />
                <Plot title="mmap_miss" id="plot-miss" which={2} />
            </div>
        </section>
    }
}
