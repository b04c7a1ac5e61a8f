//! The real kernel's strip under the model's, from a dropped `folioscope
//! probe` report: its folio orders and residency, with the pages where the
//! model differs ticked in red.

use wasm_bindgen::Clamped;
use web_sys::{HtmlCanvasElement, ImageData};
use yew::prelude::*;

use crate::context::{use_handles, use_ui, use_zoom, Zoom};
use crate::palette;
use crate::probe::{ProbeOverlay, NONE};
use crate::state::{Action, Kept};
use folioscope_core::Span;

const HEIGHT: u32 = 40;

#[component]
pub fn ProbeStrip() -> Html {
    let d = use_handles().dispatch;
    let probe = use_ui().probe;
    let zoom = use_zoom();
    let canvas_ref = use_node_ref();
    {
        let canvas_ref = canvas_ref.clone();
        use_effect_with((probe.clone(), zoom), move |(probe, zoom)| {
            if let Some(p) = probe {
                draw(&canvas_ref, p, *zoom)
            }
        });
    }
    let Some(p) = probe else {
        return html! {};
    };
    let close = { Callback::from(move |_| d.dispatch(Action::CloseProbe)) };
    html! {
        <div class="strip-wrap probe-strip" data-testid="probe-overlay">
            <div class="strip-head">
                <strong class="strip-kernel">{ p.label.clone() }</strong>
                <span data-testid="probe-diff">
                    { if p.differing_pages == 0 {
                        format!("same residency and folio layout as the model at step {}", p.step)
                    } else {
                        format!("{} pages differ from the model at step {} (red)", p.differing_pages, p.step)
                    } }
                </span>
                <button onclick={close} aria-label="remove the probe strip">{ "×" }</button>
            </div>
            <div class="strip-canvas">
                <canvas ref={canvas_ref} height={HEIGHT.to_string()} data-testid="probe-strip"
                    role="img" aria-label="the probed kernel's page cache, by residency and folio order" />
            </div>
        </div>
    }
}

fn draw(canvas_ref: &NodeRef, p: &Kept<ProbeOverlay>, zoom: Zoom) {
    let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else {
        return;
    };
    let w = canvas
        .parent_element()
        .map(|e| e.client_width().max(200) as u32)
        .unwrap_or(1000);
    if canvas.width() != w {
        canvas.set_width(w);
    }
    let Some(ctx) = crate::canvas::context_2d(&canvas) else {
        return;
    };
    let view = Span {
        first: zoom.first,
        end: zoom.end.min(p.real.len() as u64),
        bins: w,
    };
    let palette = palette::current();
    let mut rgba = vec![255u8; (w * HEIGHT * 4) as usize];
    let mut put = |x: u32, y0: u32, y1: u32, rgb: [u8; 3]| {
        for y in y0..y1 {
            let i = ((y * w + x) * 4) as usize;
            rgba[i..i + 3].copy_from_slice(&rgb);
        }
    };
    for x in 0..w {
        let p0 = view.page_at(x);
        let p1 = view.page_at(x + 1).max(p0 + 1).min(view.end);
        let mut by_order = [0u32; 14];
        let mut differs = false;
        for pg in p0..p1 {
            let o = p.real[pg as usize];
            if o != NONE {
                by_order[(o as usize).min(13)] += 1;
            }
            differs |= p.differs(pg);
        }
        let rgb = match by_order
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .max_by_key(|(o, n)| (**n, *o))
        {
            Some((o, _)) => palette.order(o as u8),
            None => palette.uncached,
        };
        put(x, 4, 30, rgb);
        if differs {
            put(x, 32, 40, palette.differs);
        }
    }
    if let Ok(img) = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&rgba), w, HEIGHT) {
        let _ = ctx.put_image_data(&img, 0.0, 0.0);
    }
}
