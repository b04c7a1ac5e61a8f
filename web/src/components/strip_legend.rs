//! The strip's legend: what each colour is, named by the style sheet's
//! custom properties (the colours' one home, see `palette.rs`), and how to
//! read a column's heights.

use yew::prelude::*;

use crate::context::use_setup;

#[component]
pub fn StripLegend() -> Html {
    let setup = use_setup();
    // The orders this scenario's geometry can make: up to
    // MAX_PAGECACHE_ORDER.
    let max_order = setup
        .scenario
        .config()
        .map(|c| c.geometry().max_pagecache_order)
        .unwrap_or(9)
        .min(crate::palette::ORDERS as u8 - 1);
    let swatch = |var: &str, label: String| {
        html! { <span class="swatch"><i style={format!("background:var({var})")}></i>{ label }</span> }
    };
    html! {
        <div class="legend" data-testid="legend">
            <span class="legend-note">{ "Each column's height is shared out by its pages: cached at the foot (by folio order, the largest share first), evicted (shadow) at the top, never cached between." }</span>
            { for (0..=max_order).map(|o| swatch(&format!("--order-{o}"), format!("order {o}"))) }
            { swatch("--uncached", "not cached".into()) }
            { swatch("--shadow", "shadow (evicted)".into()) }
            { swatch("--under-io", "under I/O".into()) }
            { swatch("--not-uptodate", "not uptodate (fallocated)".into()) }
            { swatch("--folio-edge", "folio edge (zoomed in)".into()) }
            { swatch("--readahead", "PG_readahead".into()) }
            { swatch("--pte", "PTE-mapped".into()) }
            { swatch("--pmd", "PMD-mapped".into()) }
            { swatch("--ra-window", "ra window".into()) }
            { swatch("--ra-async", "async part".into()) }
            { swatch("--cursor", "current access".into()) }
        </div>
    }
}
