//! The folio inspector under a strip: what the column under the pointer
//! (or, until the pointer comes, the current access's page) holds, by
//! state and order with their shares; then the page's folio (index,
//! order, flags, how it is mapped), the xarray path `xas_load` walks to
//! its entry, and the event that added the folio. All of it comes from
//! the core's views: the column's [`Bin`], the page's [`PageView`](folioscope_core::PageView), and
//! the timeline's record of where folios came from.

use folioscope_core::{Bin, Covering, Event, Picture, Span, XaPath};
use folioscope_scenario::text::event_line;
use yew::prelude::*;

use crate::components::file_strip::Side;
use crate::context::{use_handles, use_moment, use_setup, use_ui};
use crate::hooks::use_still;

/// How long the view must stand still before the folio's origin is
/// looked up.
const ORIGIN_DELAY_MS: u32 = 120;

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub side: Side,
    /// The pages of the column inspected, `[first, end)`, and the page
    /// named in it; none: the current access's page.
    pub at: Option<(u64, u64, u64)>,
}

/// What identifies a folio's origin: the side, the folio's index, the
/// step and the events applied inside the next access.
type OriginKey = (Side, u64, u64, Option<usize>);

#[component]
pub fn Inspector(props: &InspectorProps) -> Html {
    let setup = use_setup();
    let moment = use_moment();
    let seekers = use_handles().seekers;
    // Play changes the lines on every frame: a screen reader would be
    // asked to read them all, so the region is quiet until play stops.
    let live = if use_ui().playing { "off" } else { "polite" };
    let found = use_state(|| None::<(OriginKey, String)>);
    let side = props.side;
    let id = format!("inspector{}", side.suffix());
    let step = moment.step;
    let overlay: Vec<Event> = if side == Side::A {
        moment.applied_events().to_vec()
    } else {
        Vec::new()
    };
    let built = setup.built.clone().filter(|b| side.index() < b.sides.len());
    // The lines drawn now, and which folio the page holds, for the search
    // of where it came from.
    let (mut lines, folio_index) = match &built {
        Some(built) => seekers.0.with(built, side.index(), step, |sim, _| {
            describe(sim, step, &overlay, props.at)
        }),
        None => (vec!["\u{a0}".to_string()], None),
    };
    // Where the folio came from takes a replay of one access, so it is
    // looked up once the view has stood still for a moment, not on every
    // step of a jump or of playing.
    let key: Option<OriginKey> =
        folio_index.map(|i| (side, i, step, moment.cursor.as_ref().map(|c| c.applied)));
    let still = use_still(&key, ORIGIN_DELAY_MS);
    {
        let found = found.clone();
        use_effect_with(still, move |still| {
            if let Some((key, built)) = still.zip(built) {
                let timeline = &built.sides[side.index()].timeline;
                // Run again on a machine of their own, an access's events
                // would take a machine made from a checkpoint, 18.7 MB a
                // kernel on the 16 GiB comparison, which the wasm memory
                // grew by for the moment: the seekers find them instead.
                let events_of = |access| seekers.0.events_of(&built, side.index(), access);
                let text = origin(timeline, events_of, &overlay, key.2, key.1);
                found.set(Some((key, text)));
            }
        });
    }
    match (&*found, key) {
        (Some((k, text)), Some(key)) if *k == key => lines.push(text.clone()),
        (_, Some(_)) => lines.push("added by: looking it up\u{2026}".into()),
        _ => {}
    }
    html! {
        <div class="inspector" data-testid={id} aria-live={live}>
            { for lines.into_iter().enumerate().map(|(k, l)| html! { <div data-line={k.to_string()}>{ l }</div> }) }
        </div>
    }
}

/// The inspector's lines for a simulation at `step` with `overlay`
/// applied, and the index of the page's folio if it has one.
fn describe(
    sim: &folioscope_core::Simulation,
    step: u64,
    overlay: &[Event],
    at: Option<(u64, u64, u64)>,
) -> (Vec<String>, Option<u64>) {
    let m = sim.machine();
    let cfg = sim.config();
    let (first, end, page) = match at {
        Some(at) => at,
        None => {
            let Some(page) = (step > 0)
                .then(|| {
                    cfg.pattern
                        .access(step - 1, cfg.file_size, cfg.page_size.bytes())
                })
                .and_then(|a| m.page_of(&a))
            else {
                return (
                    vec![
                        "No access yet. Hover over the strip, or focus it and use \u{2190} \u{2192}, to inspect a page.".into(),
                    ],
                    None,
                );
            };
            (page, page + 1, page)
        }
    };
    let mut picture = Picture::new(
        m,
        Some(Span {
            first,
            end,
            bins: 1,
        }),
    );
    for e in overlay {
        picture.apply(e);
    }
    let bin = picture.bins().first().copied().unwrap_or_default();
    let view = m.page_view(page);
    let covering = picture.covering(page);
    let mut lines = Vec::new();
    if end - first > 1 {
        lines.push(column_line(first, end, &bin));
    }
    let mut line = page_line(page, covering, view.pte_mappings, view.pmd_mappings);
    if at.is_none() {
        line = line.replacen(':', " (the current access):", 1);
    }
    lines.push(line);
    let path = path_line(&view.path, covering);
    lines.push(if covering == view.covering {
        path
    } else {
        format!("{path} (as it stood before this access)")
    });
    let folio = match covering {
        Covering::Folio(f) => Some(f.index),
        _ => None,
    };
    (lines, folio)
}

fn pct(n: u32, of: u64) -> String {
    format!("{:.1}%", n as f64 * 100.0 / of.max(1) as f64)
}

/// A column's pages by state and by order, with their shares.
fn column_line(first: u64, end: u64, b: &Bin) -> String {
    let n = end - first;
    // By share, as the strip stacks them (its insertion, not a sort:
    // fourteen entries at most, and no sort's code in the bundle).
    let mut orders: Vec<(u32, usize)> = Vec::new();
    for o in (0..b.by_order.len()).filter(|&o| b.by_order[o] > 0) {
        let k = b.by_order[o];
        let at = orders
            .iter()
            .position(|&(n, _)| n <= k)
            .unwrap_or(orders.len());
        orders.insert(at, (k, o));
    }
    let mut s = format!(
        "pages {first}..{} ({n}): {} cached ({})",
        end - 1,
        b.cached(),
        pct(b.cached(), n)
    );
    if !orders.is_empty() {
        let by: Vec<String> = orders
            .iter()
            .map(|&(k, o)| format!("order {o} {}", pct(k, b.resident as u64)))
            .collect();
        s.push_str(&format!(", resident by order: {}", by.join(", ")));
    }
    for (k, what) in [
        (b.locked, "under I/O"),
        (b.not_uptodate, "not uptodate"),
        (b.shadows, "shadows (evicted)"),
    ] {
        if k > 0 {
            s.push_str(&format!(" · {k} {what} ({})", pct(k, n)));
        }
    }
    if b.readahead > 0 {
        s.push_str(&format!(" · {} PG_readahead", b.readahead));
    }
    if b.pmd_mapped + b.pte_mapped > 0 {
        s.push_str(&format!(
            " · mapped: {} by PMD, {} by PTE",
            b.pmd_mapped, b.pte_mapped
        ));
    }
    s
}

/// The page's folio, shadow or hole, and how it is mapped.
fn page_line(page: u64, c: Covering, pte: u32, pmd: u32) -> String {
    let mapped = match (pmd, pte) {
        (0, 0) => "not mapped".to_string(),
        (0, n) => format!(
            "mapped by a PTE in {n} mapping{}",
            if n == 1 { "" } else { "s" }
        ),
        (n, _) => format!(
            "mapped by a PMD in {n} mapping{}",
            if n == 1 { "" } else { "s" }
        ),
    };
    match c {
        Covering::Folio(f) => {
            let flags = f.flags.names();
            format!(
                "page {page}: folio {}..{}, order {} ({}), flags {}; {mapped}",
                f.index,
                f.next_index() - 1,
                f.order,
                folioscope_scenario::text::page_count(f.nr_pages()),
                if flags.is_empty() {
                    "none".to_string()
                } else {
                    flags.join(", ")
                }
            )
        }
        Covering::Shadow { index, order } => format!(
            "page {page}: not cached; a shadow entry of order {order} ({index}..{}) remembers its eviction",
            index + (1u64 << order) - 1
        ),
        Covering::Nothing => format!("page {page}: not cached, no entry"),
    }
}

/// The walk from the xarray's head to the page's slot.
fn path_line(p: &XaPath, c: Covering) -> String {
    if p.nodes.is_empty() {
        return match c {
            Covering::Nothing => "xarray: the tree holds no node for this index".into(),
            _ => "xarray: the entry sits in the head itself (xa_head), no node".into(),
        };
    }
    let hops: Vec<String> = p
        .nodes
        .iter()
        .map(|n| {
            format!(
                "node {} (shift {}, offset {}) slot {}",
                n.id, n.shift, n.offset, n.slot
            )
        })
        .collect();
    let held = match (c, p.siblings) {
        (Covering::Nothing, _) => "empty".to_string(),
        (_, 0) => format!("entry in slot {}", p.slot),
        (_, s) => format!(
            "entry in slot {}, sibling slots {}..{}",
            p.slot,
            p.slot as u32 + 1,
            p.slot as u32 + s as u32
        ),
    };
    format!("xarray: head → {}: {held}", hops.join(" → "))
}

/// Where the folio at `index` came from: the event of this access that
/// added it, or the last access up to `step` that did, whose events
/// `events_of` gives.
fn origin(
    timeline: &folioscope_core::Timeline,
    events_of: impl Fn(u64) -> Vec<Event>,
    overlay: &[Event],
    step: u64,
    index: u64,
) -> String {
    let added = |e: &Event| matches!(*e, Event::FolioAdded { index: i, .. } if i == index);
    if let Some(k) = overlay.iter().rposition(added) {
        return format!(
            "added by this access (#{}), event {}: {}",
            step + 1,
            k + 1,
            event_line(&overlay[k])
        );
    }
    match timeline.added_at(index, step) {
        Some(access) => {
            let events = events_of(access);
            match events.iter().rposition(added) {
                Some(k) => format!(
                    "added by access #{access}, event {} of {}: {}",
                    k + 1,
                    events.len(),
                    event_line(&events[k])
                ),
                None => format!("added by access #{access}"),
            }
        }
        None => "in the page cache before the run's first access".into(),
    }
}
