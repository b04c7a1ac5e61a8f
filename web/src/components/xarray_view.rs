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

fn slot_html(n: &NodeView, off: usize) -> Html {
    let index = n.base + ((off as u64) << n.shift);
    let marks: u8 = (0..3).fold(0, |m, k| m | ((((n.marks[k] >> off) & 1) as u8) << k));
    let (class, style, title) = match n.slots[off] {
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
    };
    html! {
        <span class={class} style={style} title={title}>
            if marks != 0 { <i class="mark-dot" title={format!("marks {marks:03b}")}></i> }
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
    let rows = nodes.iter().take(MAX_NODES).map(|n| {
        html! {
            <div class="xa-node" style={format!("margin-left:{}px", (n.depth as u32 - 1) * 14)}>
                <div class="xa-head">
                    { format!("node {} · shift {} · offset {} · indices {}.. · count {} · nr_values {}", n.id, n.shift, n.offset, n.base, n.count, n.nr_values) }
                </div>
                <div class="xa-slots">{ for (0..64).map(|o| slot_html(n, o)) }</div>
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
