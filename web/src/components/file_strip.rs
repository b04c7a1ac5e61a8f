//! The file strip: the whole file, or the zoomed range, as one canvas row
//! (`strip.rs` says what it draws), with the folio inspector under it.
//! The wheel zooms around the pointer, by a factor that follows the
//! wheel's travel; a drag selects a range to zoom to; a double click zooms
//! back out. Hovering inspects the column under the pointer; focused, ←
//! and → move the inspected page. At single-page zoom, page indices show.
//! A strip reads the view's setup, the moment and the zoom, and draws the
//! machine the seekers hold at that moment.

use std::cell::RefCell;
use std::rc::Rc;

use folioscope_core::{Event, Span};
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};
use yew::prelude::*;

use crate::components::counter_line::CounterLine;
use crate::components::inspector::Inspector;
use crate::components::strip_legend::StripLegend;
use crate::context::{use_building, use_handles, use_moment, use_setup, use_zoom, Moment, Zoom};
use crate::palette;
use crate::seekers::SeekersHandle;
use crate::state::{Action, Built, Kept};
use crate::strip;

/// How far, in CSS pixels, a press must move before its release zooms to
/// the range it swept: less is a click, a tap or a double click's jitter.
const DRAG_PX: f64 = 6.0;

/// Wheel travel, in pixels, that halves or doubles the pages in view: one
/// notch of a mouse wheel (100 px in Chromium and Firefox). A trackpad's
/// flick sends many small deltas that add up the same way, instead of
/// each halving the view.
const WHEEL_PX_PER_DOUBLING: f64 = 100.0;
/// The most one wheel event may zoom by, either way.
const WHEEL_MAX_FACTOR: f64 = 4.0;

/// The factor one wheel event scales the pages in view by: more than one
/// zooms out, less zooms in.
fn wheel_factor(e: &WheelEvent) -> f64 {
    let px = match e.delta_mode() {
        WheelEvent::DOM_DELTA_LINE => e.delta_y() * 33.0,
        WheelEvent::DOM_DELTA_PAGE => e.delta_y() * 800.0,
        _ => e.delta_y(),
    };
    2f64.powf(px / WHEEL_PX_PER_DOUBLING)
        .clamp(1.0 / WHEEL_MAX_FACTOR, WHEEL_MAX_FACTOR)
}

/// The strip's pixels, kept from frame to frame.
#[derive(Default)]
struct Buffers {
    raster: strip::Raster,
    /// The canvas the raster's columns were last put on: only there are
    /// the columns not painted since already drawn.
    canvas: Option<HtmlCanvasElement>,
    /// The painted columns' pixels, row by row, for a partial put.
    patch: Vec<u8>,
}

fn canvas_width(canvas: &HtmlCanvasElement) -> u32 {
    canvas
        .parent_element()
        .map(|p| p.client_width().max(200) as u32)
        .unwrap_or(1000)
}

/// Which kernel a strip or panel shows: the first, or one of those
/// compared with it (B is `Compared(0)`, C `Compared(1)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    A,
    Compared(usize),
}

impl Side {
    /// The suffix of the side's test ids: none for A, then `-b`, `-c`.
    pub fn suffix(self) -> String {
        match self {
            Side::A => String::new(),
            Side::Compared(i) => format!("-{}", (b'b' + i as u8) as char),
        }
    }

    /// The side's place among the view's kernels.
    pub fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::Compared(i) => i + 1,
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct StripProps {
    pub side: Side,
    /// The embedded frame's strip: its head holds the kernel and its
    /// counters on one line, without the mouse hints; the inspector and
    /// the legend follow only when it is the one kernel on screen.
    #[prop_or_default]
    pub compact: bool,
}

#[component]
pub fn FileStrip(props: &StripProps) -> Html {
    let d = use_handles().dispatch;
    let setup = use_setup();
    let moment = use_moment();
    let zoom = use_zoom();
    let seekers = use_handles().seekers;
    let side = props.side;
    let canvas_ref = use_node_ref();
    let buffers = use_mut_ref(Buffers::default);
    let drag = use_state(|| None::<(f64, f64)>);
    let width = use_state(|| 0u32);
    // The page the inspector names: under the pointer, or moved to with
    // the keyboard; none, the current access's.
    let inspect = use_state(|| None::<u64>);

    // Track the container's width.
    {
        let canvas_ref = canvas_ref.clone();
        let width = width.clone();
        use_effect_with((), move |_| {
            let measure = {
                let canvas_ref = canvas_ref.clone();
                let width = width.clone();
                move || {
                    if let Some(c) = canvas_ref.cast::<HtmlCanvasElement>() {
                        width.set(canvas_width(&c));
                    }
                }
            };
            let listener = crate::canvas::measure_on_resize(measure);
            move || drop(listener)
        });
    }

    // A canvas whose context was lost comes back blank: the next draw
    // puts the whole raster, not only the columns it paints.
    {
        let canvas_ref = canvas_ref.clone();
        let buffers = buffers.clone();
        use_effect_with((), move |_| {
            let listener = canvas_ref.get().map(|c| {
                gloo::events::EventListener::new(&c, "contextrestored", move |_| {
                    buffers.borrow_mut().raster.forget()
                })
            });
            move || drop(listener)
        });
    }

    // Draw after every change of what the strip shows, or of its size.
    {
        let canvas_ref = canvas_ref.clone();
        let buffers = buffers.clone();
        let seekers = seekers.clone();
        let w = *width;
        let shown = (setup.built.clone(), moment.clone(), zoom, w);
        use_effect_with(shown, move |(built, moment, zoom, w)| match built {
            Some(built) => draw(
                &canvas_ref,
                &seekers,
                built,
                moment,
                *zoom,
                &buffers,
                *w,
                side,
            ),
            None => {
                buffers.borrow_mut().raster.forget();
                draw_waiting(&canvas_ref, *w)
            }
        });
    }

    let view_of = {
        let width = *width;
        move || Span {
            first: zoom.first,
            end: zoom.end,
            bins: width.max(1),
        }
    };

    // The wheel zooms around the pointer. Yew's own wheel listener is
    // passive, so this one is added by hand to be allowed to prevent the
    // page from scrolling.
    {
        let canvas_ref = canvas_ref.clone();
        let d = d.clone();
        use_effect_with((zoom, *width), move |_| {
            let listener = canvas_ref.cast::<HtmlCanvasElement>().map(|canvas| {
                let options = gloo::events::EventListenerOptions::enable_prevent_default();
                gloo::events::EventListener::new_with_options(&canvas, "wheel", options, move |e| {
                    let Some(e) = e.dyn_ref::<WheelEvent>() else {
                        return;
                    };
                    e.prevent_default();
                    let v = view_of();
                    let x = e.offset_x().max(0) as u32;
                    let at = v.page_at(x.min(v.bins - 1));
                    let pages = v.pages();
                    let new_pages = ((pages as f64 * wheel_factor(e)).round() as u64).max(8);
                    let left = ((at - v.first) as f64 / pages as f64 * new_pages as f64) as u64;
                    let first = at.saturating_sub(left);
                    d.dispatch(Action::Zoom(first, first + new_pages));
                })
            });
            move || drop(listener)
        });
    }
    // A press starts a selection; a release more than DRAG_PX away zooms
    // to it, a shorter one (a click or a tap) leaves the view as it is.
    // The pointer is captured, so a release outside the strip ends the
    // drag too.
    let onpointerdown = {
        let drag = drag.clone();
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            if let Some(t) = e.target_dyn_into::<web_sys::Element>() {
                let _ = t.set_pointer_capture(e.pointer_id());
            }
            let x = e.offset_x() as f64;
            drag.set(Some((x, x)))
        })
    };
    let onpointermove = {
        let drag = drag.clone();
        let inspect = inspect.clone();
        Callback::from(move |e: PointerEvent| {
            if let Some((a, _)) = *drag {
                drag.set(Some((a, e.offset_x() as f64)));
            }
            let v = view_of();
            let x = (e.offset_x().max(0) as u32).min(v.bins.saturating_sub(1));
            let page = v.page_at(x);
            if v.pages() > 0 && *inspect != Some(page) {
                inspect.set(Some(page));
            }
        })
    };
    let onpointerleave = {
        let inspect = inspect.clone();
        Callback::from(move |_: PointerEvent| inspect.set(None))
    };
    // Focused, ← and → move the inspected page a column (or, zoomed in
    // past a page a column, a page) and keep the keys from the timeline.
    let onkeydown = {
        let inspect = inspect.clone();
        Callback::from(move |e: KeyboardEvent| {
            let v = view_of();
            let by = (v.pages() / v.bins.max(1) as u64).max(1);
            let from = (*inspect).unwrap_or((v.first + v.end) / 2);
            let to = match e.key().as_str() {
                "ArrowLeft" => from.saturating_sub(by).max(v.first),
                "ArrowRight" => (from + by).min(v.end.saturating_sub(1)),
                "Escape" => {
                    inspect.set(None);
                    return;
                }
                _ => return,
            };
            e.prevent_default();
            e.stop_propagation();
            inspect.set(Some(to));
        })
    };
    let onpointerup = {
        let drag = drag.clone();
        let d = d.clone();
        Callback::from(move |e: PointerEvent| {
            if let Some((a, _)) = *drag {
                let b = e.offset_x() as f64;
                let (x0, x1) = if a < b { (a, b) } else { (b, a) };
                if x1 - x0 > DRAG_PX {
                    let v = view_of();
                    let first = v.page_at(x0.max(0.0) as u32);
                    let end = v.page_at((x1 as u32).min(v.bins)).max(first + 1);
                    d.dispatch(Action::Zoom(first, end));
                }
            }
            drag.set(None);
        })
    };
    let onpointercancel = {
        let drag = drag.clone();
        Callback::from(move |_: PointerEvent| drag.set(None))
    };
    let ondblclick = Callback::from(move |_| d.dispatch(Action::ZoomReset));
    // The selection's element is always there, hidden between drags: a
    // child that comes and goes would make Yew's unkeyed diff replace the
    // canvas before it, leaving a blank, default-sized canvas.
    let selection = match *drag {
        Some((a, b)) if (a - b).abs() > DRAG_PX => {
            let (x0, x1) = if a < b { (a, b) } else { (b, a) };
            format!("left:{x0}px;width:{}px", x1 - x0)
        }
        _ => "display:none".to_string(),
    };
    let v = view_of();
    let label = match side {
        Side::A => Some(setup.scenario.kernel.label()),
        Side::Compared(i) => setup.compare.get(i).map(|k| k.label()),
    }
    .unwrap_or_default();
    let (done, of) = use_building().map_or((0, 0), |p| (p.done, p.of));
    let pct = (done * 100).checked_div(of);
    let building = pct.map_or(String::new(), |pct| {
        format!(" · building the model: {pct}%")
    });
    // Written only while building: the strip renders at every frame of play.
    let (progress_max, progress_done, progress_text): (AttrValue, AttrValue, AttrValue) = match pct
    {
        _ if setup.built.is_some() => ("1".into(), "0".into(), "".into()),
        Some(pct) => (
            of.to_string().into(),
            done.to_string().into(),
            format!("building the model: {pct}% · {done} of {of} accesses").into(),
        ),
        None => ("1".into(), "0".into(), "building the model".into()),
    };
    let id = format!("strip{}", side.suffix());
    let at = (*inspect).and_then(|page| {
        let x = v.bin_of(page)?;
        let r = v.bin_pages(x);
        Some((r.start, r.end, page))
    });
    let compact = props.compact;
    let details = !compact || setup.compare.is_empty();
    html! {
        <div class={classes!("strip-wrap", compact.then_some("compact"))}>
            <div class="strip-head">
                <strong class="strip-kernel">{ label.clone() }</strong>
                if compact {
                    <CounterLine {side} />
                } else {
                    <span data-testid={format!("zoom-{id}")}>{ format!("pages {}..{} of {}", v.first, v.end.saturating_sub(1), zoom.pages) }</span>
                }
                if setup.built.is_none() {
                    <span class="muted" data-testid={format!("building{}", side.suffix())}>{ if building.is_empty() { " · building the model".to_string() } else { building } }</span>
                } else if !compact {
                    <span class="muted strip-hint">{ " wheel: zoom · drag: select · double-click: whole file · hover: inspect" }</span>
                }
            </div>
            <div class="strip-canvas">
                <canvas ref={canvas_ref} data-testid={id} height={strip::HEIGHT.to_string()}
                    style={format!("height:{}px", strip::HEIGHT)} role="img"
                    tabindex={details.then_some("0")}
                    aria-label={if details {
                        format!("file strip of {label}: pages by state and folio order; arrow keys inspect a page")
                    } else {
                        format!("file strip of {label}: pages by state and folio order")
                    }}
                    {onpointerdown} {onpointermove} {onpointerup} {onpointercancel} {onpointerleave} {ondblclick} {onkeydown} />
                <div class="selection" style={selection} />
                // Over the blank strip while the model is built: how far
                // the build has come, as a bar and in accesses (the
                // heading's percentage alone was easy to miss on a link
                // whose build takes seconds). Hidden, not removed, once
                // built, so that the canvas keeps its place in Yew's
                // unkeyed diff.
                <div class="strip-building" hidden={setup.built.is_some()} aria-hidden="true"
                    data-testid={format!("build-progress{}", side.suffix())}>
                    <progress max={progress_max} value={progress_done} />
                    <span>{ progress_text }</span>
                </div>
            </div>
            if details {
                <Inspector {side} {at} />
                if side == Side::A { <StripLegend /> }
            }
        </div>
    }
}

/// Puts columns `x0..=x1` of the raster, `w` columns wide, on the canvas.
/// Past half the width (a frame of play over a file of random accesses
/// dirties columns from end to end), the raster goes over whole and only
/// the painted columns are drawn: gathered into a patch first, its rows
/// were copied twice, by the patch and by the `ImageData`, and at
/// 1920×1080 on the 16 GiB link the patch's copy was 12 ms of each second
/// of play (a Chromium CPU profile).
fn put_columns(ctx: &CanvasRenderingContext2d, b: &mut Buffers, w: u32, x0: u32, x1: u32) {
    let cols = x1 - x0 + 1;
    if cols * 2 > w {
        if let Ok(img) =
            ImageData::new_with_u8_clamped_array_and_sh(Clamped(b.raster.rgba()), w, strip::HEIGHT)
        {
            let _ = ctx.put_image_data_with_dirty_x_and_dirty_y_and_dirty_width_and_dirty_height(
                &img,
                0.0,
                0.0,
                x0 as f64,
                0.0,
                cols as f64,
                strip::HEIGHT as f64,
            );
        }
        return;
    }
    let (from, to) = (x0 as usize * 4, (x1 as usize + 1) * 4);
    b.patch.clear();
    for row in b.raster.rgba().chunks_exact(w as usize * 4) {
        b.patch.extend_from_slice(&row[from..to]);
    }
    if let Ok(img) =
        ImageData::new_with_u8_clamped_array_and_sh(Clamped(&b.patch), cols, strip::HEIGHT)
    {
        let _ = ctx.put_image_data(&img, x0 as f64, 0.0);
    }
}

/// The strip while the model is built: its size, in the colour of
/// uncached pages.
fn draw_waiting(canvas_ref: &NodeRef, width: u32) {
    let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else {
        return;
    };
    let w = if width == 0 {
        canvas_width(&canvas)
    } else {
        width
    };
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if let Some(ctx) = crate::canvas::context_2d(&canvas) {
        ctx.set_fill_style_str(&palette::css(palette::current().uncached));
        ctx.fill_rect(
            0.0,
            strip::FOLIO_TOP as f64,
            w as f64,
            (strip::FOLIO_BOTTOM - strip::FOLIO_TOP) as f64,
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn draw(
    canvas_ref: &NodeRef,
    seekers: &SeekersHandle,
    built: &Kept<Built>,
    moment: &Moment,
    zoom: Zoom,
    buffers: &Rc<RefCell<Buffers>>,
    width: u32,
    side: Side,
) {
    let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else {
        return;
    };
    if side.index() >= built.sides.len() {
        return;
    }
    let w = if width == 0 {
        canvas_width(&canvas)
    } else {
        width
    };
    if canvas.width() != w {
        canvas.set_width(w);
    }
    let Some(ctx) = crate::canvas::context_2d(&canvas) else {
        return;
    };
    let view = Span {
        first: zoom.first,
        end: zoom.end,
        bins: w,
    };
    let step = moment.step;
    let overlay: &[Event] = if side == Side::A {
        moment.applied_events()
    } else {
        &[]
    };
    let palette = palette::current();
    let mut b = buffers.borrow_mut();
    // This side's bins at this step, and for a compared kernel the first
    // kernel's, to mark the columns it holds differently against. The
    // seekers keep each side's bins from step to step and count again
    // only what the accesses in between changed. Part way through an
    // access (the first kernel's strip alone), the access's events so
    // far are folded over them.
    let own = seekers.0.bins(built, side.index(), step, view);
    let reference = (side != Side::A).then(|| seekers.0.bins(built, 0, step, view));
    seekers.0.with(built, side.index(), step, |sim, _log| {
        // The page the last access touched, where the cursor stands.
        let cfg = sim.config();
        let cursor = (step > 0)
            .then(|| {
                cfg.pattern
                    .access(step - 1, cfg.file_size, cfg.page_size.bytes())
            })
            .and_then(|a| sim.machine().page_of(&a));
        let ra = Some(sim.machine().ra());
        let marks = strip::Marks {
            cursor,
            reference: reference.as_deref().map(Vec::as_slice),
        };
        if overlay.is_empty() {
            b.raster.paint(&own, view, ra, marks, &palette);
        } else {
            strip::render(
                sim.machine(),
                view,
                &own,
                overlay,
                marks,
                &palette,
                &mut b.raster,
            );
        }
    });
    // Page indices once single pages are wide enough to hold the longest
    // (about 6 px a digit at 10 px), at the foot of the folio band, in
    // black or white after what is under them.
    let pages = view.pages();
    let digits = view.end.max(1).ilog10() as u64 + 1;
    let labels = pages > 0 && (w as u64) / pages >= 6 * digits + 6;
    // Only the columns painted since the last put go to the canvas: a
    // frame of play changes a few of a thousand. The whole raster goes on
    // a new canvas and under page indices, which span columns. (Indices
    // written last time and not now mean another span, which the raster
    // paints whole.)
    let dirty = b.raster.take_dirty();
    let same = b.canvas.as_ref().is_some_and(|c| c == &canvas);
    let put = if same && !labels {
        dirty
    } else {
        Some((0, w - 1))
    };
    b.canvas = Some(canvas.clone());
    if let Some((x0, x1)) = put {
        put_columns(&ctx, &mut b, w, x0, x1);
    }
    if labels {
        ctx.set_font("10px sans-serif");
        let y = strip::FOLIO_BOTTOM - 3;
        for p in view.first..view.end {
            if let Some(x) = view.bin_of(p) {
                let i = ((y * w + (x + 3).min(w - 1)) * 4) as usize;
                let rgba = b.raster.rgba();
                let under = [rgba[i], rgba[i + 1], rgba[i + 2]];
                ctx.set_fill_style_str(strip::label_colour(under));
                let _ = ctx.fill_text(&p.to_string(), x as f64 + 3.0, y as f64);
            }
        }
    }
}
