//! The xarray of the zoomed range, level by level: each node with its
//! shift, offset and 64 slots. Pointer entries take their folio's colour,
//! sibling slots a paler hatched one, shadows a dashed outline, child
//! nodes grey; a mark the model set shows as a square in the slot's
//! corner. The page cache's marks (PAGECACHE_TAG_DIRTY, _WRITEBACK,
//! _TOWRITE) come from writes and writeback, so a read-only workload sets
//! none, and the legend says so. Hovering a slot names its folio. In
//! compare mode each kernel has its view, and a node whose slots differ
//! from the first kernel's node at the same place is marked.

use folioscope_core::{NodeView, Slot};
use std::rc::Rc;

use yew::prelude::*;

use crate::components::file_strip::Side;
use crate::context::{use_handles, use_moment, use_setup, use_zoom};
use crate::hooks::use_in_sight;
use crate::palette;
use crate::xa_pixels;

/// Nodes shown at most.
const MAX_NODES: usize = 12;

/// A tree's key: the view's timelines (by address), the kernel, the step
/// and the range.
type TreeKey = (usize, usize, u64, u64, u64);

/// A view's tree, and the first kernel's to mark differences against.
type Trees = (
    Option<Rc<folioscope_core::XaTree>>,
    Option<Rc<folioscope_core::XaTree>>,
);

thread_local! {
    /// The trees made for the step on screen, one per kernel.
    static TREES: std::cell::RefCell<Vec<(TreeKey, Rc<folioscope_core::XaTree>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// What a slot holds, in words, for the hover line.
fn describe(n: &NodeView, off: usize) -> String {
    let index = n.base + ((off as u64) << n.shift);
    match n.slots[off] {
        Slot::Empty => format!("slot {off}: empty (index {index})"),
        Slot::Folio(f) => format!(
            "slot {off}: folio at index {}, order {} ({}), flags: {}",
            f.index,
            f.order,
            folioscope_scenario::text::page_count(f.nr_pages()),
            f.flags.names().join(", ")
        ),
        Slot::Sibling { canonical } => {
            let of = match n.slots[canonical as usize] {
                Slot::Folio(f) => format!(" (folio at index {}, order {})", f.index, f.order),
                _ => String::new(),
            };
            format!("slot {off}: sibling of slot {canonical}{of}")
        }
        Slot::Shadow(v) => format!("slot {off}: shadow entry (value {v}) at index {index}"),
        Slot::Node(id) => format!("slot {off}: node {id} (indices from {index})"),
    }
}

/// A node's slots counted by what they hold, the canvas's name for
/// those who cannot see it.
fn slots_in_words(n: &NodeView) -> String {
    let count = |f: fn(&Slot) -> bool| n.slots.iter().filter(|s| f(s)).count();
    format!(
        "the slots of node {}: {} folios, {} sibling slots, {} shadow entries, {} child nodes, {} empty",
        n.id,
        count(|s| matches!(s, Slot::Folio(_))),
        count(|s| matches!(s, Slot::Sibling { .. })),
        count(|s| matches!(s, Slot::Shadow(_))),
        count(|s| matches!(s, Slot::Node(_))),
        count(|s| matches!(s, Slot::Empty)),
    )
}

#[derive(Properties, PartialEq)]
struct NodeSlotsProps {
    /// None while the list has fewer nodes than places: the canvas stays,
    /// hidden, so that a jump from an empty tree to a full one creates no
    /// canvases.
    node: Option<Rc<NodeView>>,
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
        use_effect_with(node, move |node| {
            if let Some(node) = node {
                draw_slots(&canvas_ref, node)
            }
        });
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
            let x = e.offset_x() as f64 / w * xa_pixels::WIDTH as f64;
            let y = e.offset_y() as f64 / h * xa_pixels::HEIGHT as f64;
            cb.emit(Some((i, xa_pixels::slot_at(x, y))));
        })
    };
    let onmouseleave = {
        let cb = props.onhover.clone();
        Callback::from(move |_| cb.emit(None))
    };
    let (w, h) = (xa_pixels::WIDTH, xa_pixels::HEIGHT);
    let label = props
        .node
        .as_deref()
        .map_or_else(String::new, slots_in_words);
    html! {
        <canvas ref={canvas_ref} class="xa-slots" width={w.to_string()} height={h.to_string()}
            role="img" aria-label={label}
            {onmousemove} {onmouseleave} data-testid={format!("xa-slots-{}", props.index)} />
    }
}

fn draw_slots(canvas_ref: &NodeRef, n: &NodeView) {
    let Some(ctx) = canvas_ref
        .cast::<web_sys::HtmlCanvasElement>()
        .and_then(|c| crate::canvas::context_2d(&c))
    else {
        return;
    };
    // One buffer for every node's pixels, reused.
    thread_local! {
        static RGBA: std::cell::RefCell<Vec<u8>> =
            std::cell::RefCell::new(vec![0u8; xa_pixels::WIDTH * xa_pixels::HEIGHT * 4]);
    }
    RGBA.with(|rgba| {
        let mut rgba = rgba.borrow_mut();
        xa_pixels::render(n, &palette::current(), &mut rgba);
        put(&ctx, &rgba);
    });
}

fn put(ctx: &web_sys::CanvasRenderingContext2d, rgba: &[u8]) {
    if let Ok(img) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
        wasm_bindgen::Clamped(rgba),
        xa_pixels::WIDTH as u32,
        xa_pixels::HEIGHT as u32,
    ) {
        let _ = ctx.put_image_data(&img, 0.0, 0.0);
    }
}

#[derive(Properties, PartialEq)]
pub struct XarrayProps {
    pub side: Side,
}

#[component]
pub fn XarrayView(props: &XarrayProps) -> Html {
    let setup = use_setup();
    let moment = use_moment();
    let zoom = use_zoom();
    let seekers = use_handles().seekers;
    let side = props.side;
    let suffix = side.suffix();
    let built = setup
        .built
        .as_ref()
        .filter(|b| side.index() < b.sides.len());
    let tree_of = |i: usize| {
        built.map(|built| {
            // Each kernel's tree of this step and range is made once, for
            // its own view and, the first kernel's, for the others to mark
            // their differences against.
            let key = (
                Rc::as_ptr(&built.0) as usize,
                i,
                moment.step,
                zoom.first,
                zoom.end,
            );
            if let Some(t) = TREES.with(|t| {
                t.borrow()
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, t)| t.clone())
            }) {
                return t;
            }
            let t = Rc::new(seekers.0.with(built, i, moment.step, |sim, _| {
                sim.machine().xa_tree(zoom.first, zoom.end, MAX_NODES)
            }));
            TREES.with(|trees| {
                let mut trees = trees.borrow_mut();
                trees.retain(|(k, _)| k.0 == key.0 && k.2 == key.2 && (k.3, k.4) == (key.3, key.4));
                trees.push((key, t.clone()));
            });
            t
        })
    };
    // The trees are made only while the view is in sight (or about to
    // be): out of sight it keeps what it last showed, so that a jump does
    // not pay for trees nobody sees. The first kernel's nodes come too, to
    // mark where another kernel's differ.
    let section_ref = use_node_ref();
    let in_sight = use_in_sight(&section_ref, "100% 0px");
    let shown = use_mut_ref(|| None::<(usize, Trees)>);
    let view_key = built.map_or(0, |b| Rc::as_ptr(&b.0) as usize);
    let stale = shown
        .borrow()
        .as_ref()
        .filter(|(k, _)| !in_sight && *k == view_key)
        .map(|(_, t)| t.clone());
    let (tree, first) = stale.unwrap_or_else(|| {
        let trees = (
            tree_of(side.index()),
            (side != Side::A).then(|| tree_of(0)).flatten(),
        );
        *shown.borrow_mut() = Some((view_key, trees.clone()));
        trees
    });
    let differs = |n: &NodeView| {
        first.as_ref().is_some_and(|t| {
            !t.nodes
                .iter()
                .any(|m| m.base == n.base && m.shift == n.shift && m.slots == n.slots)
        })
    };
    let kernel = built
        .filter(|_| !setup.compare.is_empty())
        .and_then(|b| b.sides.get(side.index()))
        .map(|s| format!("{} \u{b7} ", s.kernel.label()));
    let tree = tree.unwrap_or_else(|| {
        Rc::new(folioscope_core::XaTree {
            nodes: Vec::new(),
            more: false,
            node_count: 0,
            height: 0,
            any_mark: false,
            nrpages: 0,
        })
    });
    let nodes = &tree.nodes;
    let hovered = use_state(|| None::<(usize, usize)>);
    let onhover = {
        let hovered = hovered.clone();
        Callback::from(move |h: Option<(usize, usize)>| {
            if *hovered != h {
                hovered.set(h)
            }
        })
    };
    // Every place is always there, hidden when unused: creating and
    // dropping node blocks as the tree grows and shrinks cost more than
    // drawing them.
    let rows = (0..MAX_NODES).map(|i| {
        let Some(n) = nodes.get(i) else {
            return html! {
                <div class="xa-node" hidden=true>
                    <div class="xa-head"></div>
                    <NodeSlots node={None::<Rc<NodeView>>} index={i} onhover={onhover.clone()} />
                    <div class="xa-hover" data-testid={format!("xa-hover{suffix}-{i}")}></div>
                </div>
            };
        };
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
        let changed = differs(n);
        html! {
            <div class={classes!("xa-node", changed.then_some("differs"))} style={format!("margin-left:{}px", (n.depth as u32 - 1) * 14)}
                data-differs={changed.then_some("1")}>
                <div class="xa-head">
                    { format!("node {} · shift {} · offset {} · indices {}.. · count {} · nr_values {}", n.id, n.shift, n.offset, n.base, n.count, n.nr_values) }
                    if changed { <span class="differs-note">{ " \u{2260} the first kernel's" }</span> }
                </div>
                <NodeSlots node={Some(Rc::new(n.clone()))} index={i} onhover={onhover.clone()} />
                <div class="xa-hover" data-testid={format!("xa-hover{suffix}-{i}")}>{ hover_line }</div>
            </div>
        }
    });
    html! {
        <section ref={section_ref} class="panel xarray" data-testid={format!("xarray{suffix}")}>
            // While the view is built there is no tree to tell of: an
            // empty one would say a cached file held no pages. Out of
            // sight, the panel may still hold the setup it last showed
            // (held_out_of_sight.rs), one from before the view was built,
            // so the heading says both what it waits for: "drawn once the
            // view is built" alone, in a full-page capture of a built
            // view, read as if the build had not ended.
            <h2 data-testid={format!("xarray-heading{suffix}")}>{ kernel.unwrap_or_default() }{
                if built.is_some() {
                    format!("i_pages: {} nodes, height {}, {} pages cached", tree.node_count, tree.height, tree.nrpages)
                } else {
                    "i_pages: drawn once the view is built and in sight".to_string()
                }
            }</h2>
            if built.is_some() && nodes.is_empty() {
                <p class="muted">{ "No nodes: the tree is empty or holds a single entry at its head." }</p>
            }
            { for rows }
            if tree.more { <p class="muted">{ format!("… more nodes; zoom in to see the leaves of a range.") }</p> }
            <div class="legend xa-legend">
                <span class="swatch"><i class="slot folio" style="background:var(--order-0)"></i>{ "folio" }</span>
                <span class="swatch"><i class="slot sibling" style="--sib:var(--order-9)"></i>{ "sibling slot" }</span>
                <span class="swatch"><i class="slot shadow"></i>{ "shadow (value entry)" }</span>
                <span class="swatch"><i class="slot node"></i>{ "child node" }</span>
                <span class="swatch"><i class="slot empty"></i>{ "empty" }</span>
                <span class="swatch" data-testid="xa-legend-mark"><i class="slot empty mark"></i>{
                    if tree.any_mark {
                        "mark (dirty, writeback, towrite)"
                    } else {
                        "mark: none set; only writes and writeback set them, and this workload only reads"
                    }
                }</span>
            </div>
        </section>
    }
}
