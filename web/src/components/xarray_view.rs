//! The xarray of the zoomed range, level by level: each node with its
//! shift, offset and 64 slots. Pointer entries take their folio's colour,
//! sibling slots a paler hatched one, shadows a dashed outline, child
//! nodes grey; marks show as dots. Hovering a slot names its folio.

use folioscope_core::folio::Folio;
use folioscope_core::xarray::{Entry, NodeView};
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

/// A slot's square. Its description is built only when hovered: twelve
/// nodes of 64 slots would otherwise format 768 strings per frame.
fn slot_html(n: &NodeView, off: usize) -> Html {
    let marks: u8 = (0..3).fold(0, |m, k| m | ((((n.marks[k] >> off) & 1) as u8) << k));
    let (class, style) = match n.slots[off] {
        Entry::Empty | Entry::Retry => ("slot empty", String::new()),
        Entry::Pointer(p) => {
            let order = Folio::decode_at(n.base, p).order;
            (
                "slot folio",
                format!("background:{}", palette::order_css(order)),
            )
        }
        Entry::Sibling(c) => match n.slots[c as usize] {
            Entry::Pointer(p) => (
                "slot sibling",
                format!(
                    "--sib:{}",
                    palette::order_css(Folio::decode_at(n.base, p).order)
                ),
            ),
            _ => ("slot sibling", String::new()),
        },
        Entry::Value(_) => ("slot shadow", String::new()),
        Entry::Node(_) => ("slot node", String::new()),
    };
    html! {
        <span class={class} style={style} data-o={off.to_string()}>
            if marks != 0 { <i class="mark-dot" data-o={off.to_string()}></i> }
        </span>
    }
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
    let rows = nodes.iter().take(MAX_NODES).enumerate().map(|(i, n)| {
        let onmouseover = {
            let hovered = hovered.clone();
            Callback::from(move |e: MouseEvent| {
                let off = e
                    .target_dyn_into::<web_sys::Element>()
                    .and_then(|t| t.get_attribute("data-o"))
                    .and_then(|o| o.parse::<usize>().ok());
                hovered.set(off.map(|o| (i, o)));
            })
        };
        let onmouseleave = {
            let hovered = hovered.clone();
            Callback::from(move |_| hovered.set(None))
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
        html! {
            <div class="xa-node" style={format!("margin-left:{}px", (n.depth as u32 - 1) * 14)}>
                <div class="xa-head">
                    { format!("node {} · shift {} · offset {} · indices {}.. · count {} · nr_values {}", n.id, n.shift, n.offset, n.base, n.count, n.nr_values) }
                </div>
                <div class="xa-slots" {onmouseover} {onmouseleave} title={hover_line.clone()}>{ for (0..64).map(|o| slot_html(n, o)) }</div>
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
