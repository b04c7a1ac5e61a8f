//! The xarray of the zoomed range, level by level: each node with its
//! shift, offset and 64 slots. Pointer entries take their folio's colour,
//! sibling slots a paler hatched one, shadows a dashed outline, child
//! nodes grey; marks show as dots. Hovering a slot names its folio.

use folioscope_core::folio::Folio;
use folioscope_core::xarray::{Entry, NodeView};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::app::AppContext;
use crate::palette;

/// Nodes shown at most.
const MAX_NODES: usize = 12;

/// What a slot holds, in words, for the hover line.
fn describe(n: &NodeView, off: usize) -> String {
    slot_parts(n, off).2
}

fn slot_parts(n: &NodeView, off: usize) -> (&'static str, String, String) {
    let index = n.base + ((off as u64) << n.shift);
    match n.slots[off] {
        Entry::Empty => (
            "slot empty",
            String::new(),
            format!("slot {off}: empty (index {index})"),
        ),
        Entry::Pointer(p) => {
            let f = Folio::decode_at(index, p);
            (
                "slot folio",
                format!("background:{}", palette::order_css(f.order)),
                format!(
                    "slot {off}: folio at index {}, order {} ({} pages), flags: {}",
                    f.index,
                    f.order,
                    f.nr_pages(),
                    f.flags.names().join(", ")
                ),
            )
        }
        Entry::Sibling(c) => {
            let canonical = match n.slots[c as usize] {
                Entry::Pointer(p) => Some(Folio::decode_at(n.base + ((c as u64) << n.shift), p)),
                _ => None,
            };
            let colour = canonical
                .map(|f| palette::order_css(f.order))
                .unwrap_or_default();
            (
                "slot sibling",
                format!("--sib:{colour}"),
                format!(
                    "slot {off}: sibling of slot {c}{}",
                    canonical
                        .map(|f| format!(" (folio at index {}, order {})", f.index, f.order))
                        .unwrap_or_default()
                ),
            )
        }
        Entry::Value(v) => (
            "slot shadow",
            String::new(),
            format!("slot {off}: shadow entry (value {v}) at index {index}"),
        ),
        Entry::Node(id) => (
            "slot node",
            String::new(),
            format!("slot {off}: node {id} (indices from {index})"),
        ),
        Entry::Retry => (
            "slot empty",
            String::new(),
            format!("slot {off}: retry entry"),
        ),
    }
}

/// Slots per row of a node's drawing, and the size of a slot in canvas
/// pixels (the canvas scales with its box).
const PER_ROW: usize = 32;
const CELL_W: f64 = 20.0;
const CELL_H: f64 = 14.0;

#[derive(Properties, PartialEq)]
struct NodeSlotsProps {
    node: Rc<NodeView>,
    /// The node's place in the list, for the hover callback.
    index: usize,
    onhover: Callback<Option<(usize, usize)>>,
}

/// A node's 64 slots, drawn on one canvas: hundreds of slot elements per
/// node would cost a frame's worth of layout and paint on every step.
#[component]
fn NodeSlots(props: &NodeSlotsProps) -> Html {
    let canvas_ref = use_node_ref();
    {
        let canvas_ref = canvas_ref.clone();
        let node = props.node.clone();
        use_effect_with(node, move |node| draw_slots(&canvas_ref, node));
    }
    let onmousemove = {
        let (i, cb) = (props.index, props.onhover.clone());
        Callback::from(move |e: MouseEvent| {
            let Some(c) = e.target_dyn_into::<web_sys::HtmlElement>() else {
                return;
            };
            let (w, h) = (
                c.client_width().max(1) as f64,
                c.client_height().max(1) as f64,
            );
            let col = ((e.offset_x() as f64 / w) * PER_ROW as f64) as usize;
            let row = ((e.offset_y() as f64 / h) * 2.0) as usize;
            cb.emit(Some((
                i,
                (row.min(1) * PER_ROW + col.min(PER_ROW - 1)).min(63),
            )));
        })
    };
    let onmouseleave = {
        let cb = props.onhover.clone();
        Callback::from(move |_| cb.emit(None))
    };
    let w = (CELL_W * PER_ROW as f64) as u32;
    let h = (CELL_H * 2.0) as u32;
    html! {
        <canvas ref={canvas_ref} class="xa-slots" width={w.to_string()} height={h.to_string()}
            {onmousemove} {onmouseleave} data-testid={format!("xa-slots-{}", props.index)} />
    }
}

fn draw_slots(canvas_ref: &NodeRef, n: &NodeView) {
    let Some(ctx) = canvas_ref
        .cast::<web_sys::HtmlCanvasElement>()
        .and_then(|c| c.get_context("2d").ok().flatten())
        .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, CELL_W * PER_ROW as f64, CELL_H * 2.0);
    let order_of = |slot: Entry| match slot {
        Entry::Pointer(p) => Some(Folio::decode_at(n.base, p).order),
        _ => None,
    };
    for off in 0..64 {
        let (x, y) = (
            (off % PER_ROW) as f64 * CELL_W + 1.0,
            (off / PER_ROW) as f64 * CELL_H + 1.0,
        );
        let (w, h) = (CELL_W - 2.0, CELL_H - 2.0);
        match n.slots[off] {
            Entry::Pointer(p) => {
                ctx.set_fill_style_str(&palette::order_css(Folio::decode_at(n.base, p).order));
                ctx.fill_rect(x, y, w, h);
            }
            Entry::Sibling(c) => {
                // Hatched in the colour of the entry it belongs to.
                let colour = order_of(n.slots[c as usize])
                    .map(palette::order_css)
                    .unwrap_or_else(|| "#999999".into());
                ctx.save();
                ctx.begin_path();
                ctx.rect(x, y, w, h);
                ctx.clip();
                ctx.set_stroke_style_str(&colour);
                ctx.set_line_width(2.0);
                ctx.begin_path();
                let mut k = -h;
                while k < w {
                    ctx.move_to(x + k, y + h);
                    ctx.line_to(x + k + h, y);
                    k += 5.0;
                }
                ctx.stroke();
                ctx.restore();
                ctx.set_stroke_style_str(&colour);
                ctx.set_line_width(1.0);
                ctx.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
            }
            Entry::Node(_) => {
                ctx.set_fill_style_str("#b9bec5");
                ctx.fill_rect(x, y, w, h);
            }
            Entry::Value(_) => {
                ctx.set_stroke_style_str("#5d6670");
                ctx.set_line_width(1.0);
                let _ = ctx.set_line_dash(&js_sys_dash());
                ctx.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
                let _ = ctx.set_line_dash(&js_sys_no_dash());
            }
            Entry::Empty | Entry::Retry => {
                ctx.set_stroke_style_str("rgba(0,0,0,0.15)");
                ctx.set_line_width(1.0);
                ctx.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
            }
        }
        let marks = (0..3).any(|k| (n.marks[k] >> off) & 1 == 1);
        if marks {
            ctx.set_fill_style_str("#d55e00");
            ctx.fill_rect(x + w - 5.0, y, 5.0, 5.0);
        }
    }
}

fn js_sys_dash() -> wasm_bindgen::JsValue {
    let a = js_sys::Array::new();
    a.push(&2.0.into());
    a.push(&2.0.into());
    a.into()
}

fn js_sys_no_dash() -> wasm_bindgen::JsValue {
    js_sys::Array::new().into()
}

#[component]
pub fn XarrayView() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let run = state.run.clone();
    let sim = run.sim.borrow();
    let xa = &sim.machine().cache.xa;
    let (first, end) = state.zoom;
    let nodes = xa.nodes_in_range(first, end.saturating_sub(1), MAX_NODES + 1);
    let more = nodes.len() > MAX_NODES;
    let height = xa.height();
    let hovered = use_state(|| None::<(usize, usize)>);
    let onhover = {
        let hovered = hovered.clone();
        Callback::from(move |h: Option<(usize, usize)>| {
            if *hovered != h {
                hovered.set(h)
            }
        })
    };
    let rows = nodes.iter().take(MAX_NODES).enumerate().map(|(i, n)| {
        let hover_line = match *hovered {
            Some((node, off)) if node == i => {
                let marks: u8 = (0..3).fold(0, |m, k| m | ((((n.marks[k] >> off) & 1) as u8) << k));
                let mut t = describe(n, off);
                if marks != 0 {
                    t.push_str(&format!("; marks {marks:03b}"));
                }
                t
            }
            _ => String::new(),
        };
        html! {
            <div class="xa-node" style={format!("margin-left:{}px", (n.depth as u32 - 1) * 14)}>
                <div class="xa-head">
                    { format!("node {} · shift {} · offset {} · indices {}.. · count {} · nr_values {}", n.id, n.shift, n.offset, n.base, n.count, n.nr_values) }
                </div>
                <NodeSlots node={Rc::new(n.clone())} index={i} onhover={onhover.clone()} />
                <div class="xa-hover" data-testid={format!("xa-hover-{i}")}>{ hover_line }</div>
            </div>
        }
    });
    html! {
        <section class="panel xarray" data-testid="xarray">
            <h2>{ format!("i_pages: {} nodes, height {}, {} pages cached", xa.node_count(), height, sim.machine().cache.nrpages) }</h2>
            if nodes.is_empty() {
                <p class="muted">{ "No nodes: the tree is empty or holds a single entry at its head." }</p>
            }
            { for rows }
            if more { <p class="muted">{ format!("… more nodes; zoom in to see the leaves of a range.") }</p> }
            <div class="legend xa-legend">
                <span class="swatch"><i class="slot folio" style={format!("background:{}", palette::order_css(0))}></i>{ "folio" }</span>
                <span class="swatch"><i class="slot sibling" style={format!("--sib:{}", palette::order_css(9))}></i>{ "sibling slot" }</span>
                <span class="swatch"><i class="slot shadow"></i>{ "shadow (value entry)" }</span>
                <span class="swatch"><i class="slot node"></i>{ "child node" }</span>
                <span class="swatch"><i class="slot empty"></i>{ "empty" }</span>
            </div>
        </section>
    }
}
