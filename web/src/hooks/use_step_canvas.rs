//! Where the step stands on the scrubber, drawn on canvases: the density
//! plot's cursor line, and the range input's track and thumb under the
//! input, whose own are transparent (the input still takes the pointer,
//! the keys and the screen reader's questions).
//!
//! Why not an SVG line and the native thumb: in Chromium a painted thing
//! that moves changes the bounds of its paint chunk, and that sends the
//! compositor through a full layerization of the page on that frame,
//! about 0.8 ms of each jump and of each frame of play on the default
//! view. A canvas drawn again in place keeps its bounds. Moving a
//! composited element by a transform did not avoid it (measured on
//! 2026-12-04 with Debian's Chromium).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::canvas::{context_2d, measure_on_resize};
use crate::palette;

/// What a canvas shows of the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepMark {
    /// A line across the density plot.
    DensityCursor,
    /// The range input's track and thumb.
    RangeThumb,
}

/// The range thumb's width, which the style sheet gives the input's own
/// (transparent) thumb too, so that the pointer takes the thumb where it
/// is drawn: `.scrubber::-webkit-slider-thumb` and `::-moz-range-thumb`.
const THUMB_PX: f64 = 14.0;
/// The track's height, centred in the input's 16 px.
const TRACK_PX: f64 = 4.0;
/// The cursor line's width (the SVG's stroke was 1.5).
const LINE_PX: f64 = 1.5;

/// What was last drawn: the canvas's size in CSS pixels, and where along
/// the run (0 to 1) the step stands.
#[derive(Clone, Copy, Default)]
struct Drawn {
    w: f64,
    h: f64,
    at: f64,
}

/// The canvas for `mark` at `step` of `len`, drawn whenever either
/// changes. Its size is measured when it is mounted or `shown`, and on
/// resize, not at each draw, where reading it would force a layout.
#[hook]
pub fn use_step_canvas(mark: StepMark, step: u64, len: u64, shown: bool) -> NodeRef {
    let canvas_ref = use_node_ref();
    let drawn = use_mut_ref(Drawn::default);
    {
        let canvas_ref = canvas_ref.clone();
        let drawn = drawn.clone();
        use_effect_with(shown, move |_| {
            let listener = measure_on_resize(move || measure_and_draw(&canvas_ref, &drawn, mark));
            move || drop(listener)
        });
    }
    {
        let canvas_ref = canvas_ref.clone();
        use_effect_with((step, len), move |&(step, len)| {
            let d = {
                let mut d = drawn.borrow_mut();
                d.at = step as f64 / len.max(1) as f64;
                *d
            };
            if let Some(c) = canvas_ref.cast::<HtmlCanvasElement>() {
                draw(&c, mark, d);
            }
        });
    }
    canvas_ref
}

fn measure_and_draw(canvas_ref: &NodeRef, drawn: &Rc<RefCell<Drawn>>, mark: StepMark) {
    if let Some(c) = canvas_ref.cast::<HtmlCanvasElement>() {
        let d = {
            let mut d = drawn.borrow_mut();
            d.w = c.client_width() as f64;
            d.h = c.client_height() as f64;
            *d
        };
        draw(&c, mark, d);
    }
}

/// Draws `mark` on `c` at the device's pixel ratio.
fn draw(c: &HtmlCanvasElement, mark: StepMark, Drawn { w, h, at }: Drawn) {
    if w <= 0.0 || h <= 0.0 {
        return;
    }
    let dpr = gloo::utils::window().device_pixel_ratio().max(1.0);
    let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if c.width() != pw || c.height() != ph {
        c.set_width(pw);
        c.set_height(ph);
    }
    let Some(ctx) = context_2d(c) else {
        return;
    };
    let p = palette::current();
    let at = at.clamp(0.0, 1.0);
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, w, h);
    match mark {
        StepMark::DensityCursor => {
            ctx.set_fill_style_str(&palette::css(p.cursor));
            let x = (at * w - LINE_PX / 2.0).clamp(0.0, (w - LINE_PX).max(0.0));
            ctx.fill_rect(x, 0.0, LINE_PX, h);
        }
        StepMark::RangeThumb => {
            // The input puts its thumb's left edge at `at` of its width
            // less the thumb's; the track is filled in the thumb's colour
            // up to it, as the browsers draw their own.
            let x = at * (w - THUMB_PX).max(0.0);
            let y = (h - TRACK_PX) / 2.0;
            ctx.set_fill_style_str(&palette::css(p.scrubber_track));
            ctx.fill_rect(x, y, w - x, TRACK_PX);
            ctx.set_fill_style_str(&palette::css(p.scrubber_thumb));
            ctx.fill_rect(0.0, y, x, TRACK_PX);
            ctx.fill_rect(x, 0.0, THUMB_PX, h);
        }
    }
}
