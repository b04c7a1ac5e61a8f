//! `file_ra_state` and the running counters of one run, with `mmap_miss`
//! as a gauge against MMAP_LOTSAMISS and the cause of its last change.
//! Inside an access, the events applied so far are added in.

use folioscope_core::{Event, MissCause, Picture, MMAP_LOTSAMISS};
use yew::prelude::*;

use folioscope_core::Simulation;

use crate::components::file_strip::Side;
use crate::context::{use_handles, use_moment, use_setup};
use crate::seekers::Log;

#[derive(Properties, PartialEq)]
pub struct RaProps {
    pub side: Side,
}

fn cause_text(c: MissCause) -> String {
    match c {
        MissCause::CacheMiss => "page-cache miss in do_sync_mmap_readahead".into(),
        MissCause::CacheHit => "page-cache hit in do_async_mmap_readahead".into(),
        MissCause::FaultAroundHits { pages } => {
            format!("{pages} pages mapped by filemap_map_pages")
        }
        MissCause::PmdHit => "PMD mapping counted as a hit".into(),
    }
}

#[component]
pub fn RaPanel(props: &RaProps) -> Html {
    let setup = use_setup();
    let moment = use_moment();
    let seekers = use_handles().seekers;
    let side = props.side.index();
    let Some(built) = setup.built.clone().filter(|b| side < b.sides.len()) else {
        return html! { <div class="panels building"></div> };
    };
    let overlay: &[Event] = if side == 0 {
        moment.applied_events()
    } else {
        &[]
    };
    let (step, len, suffix) = (moment.step, setup.len, props.side.suffix());
    seekers.0.with(&built, side, step, |sim, log| {
        panels(sim, log, overlay, step, len, &suffix)
    })
}

/// The panels of a simulation standing at `step` of `len`, with `overlay`,
/// the events applied inside the next access.
fn panels(
    sim: &Simulation,
    log: &Log,
    overlay: &[Event],
    step: u64,
    len: u64,
    suffix: &str,
) -> Html {
    let m = sim.machine();
    let c = m.counters();
    // The machine before the access, and what its first events did.
    let mut picture = Picture::new(m, None);
    for e in overlay {
        picture.apply(e);
    }
    let ra = picture.ra();
    let fig = picture.figures();
    let mut last_cause = log.lines.iter().rev().find_map(|l| match l.event {
        Event::MmapMiss {
            old, new, cause, ..
        } => Some((old, new, cause)),
        _ => None,
    });
    if let Some(cause) = overlay.iter().rev().find_map(|e| match *e {
        Event::MmapMiss {
            old, new, cause, ..
        } => Some((old, new, cause)),
        _ => None,
    }) {
        last_cause = Some(cause);
    }
    let stats = m.lookups();
    // The gauge spans 0..=2×MMAP_LOTSAMISS, the line sits in the middle.
    let full = 2.0 * MMAP_LOTSAMISS as f64;
    let pct = (ra.mmap_miss as f64 / full * 100.0).min(100.0);
    let over = ra.mmap_miss > MMAP_LOTSAMISS;
    let field = |name: &'static str, id: &str, v: String| {
        html! { <div class="field"><span class="name">{ name }</span><span class="value" data-testid={format!("{id}{suffix}")}>{ v }</span></div> }
    };
    let inside = !overlay.is_empty();
    let reads = sim.config().pattern.uses_read();
    let count = |name: &'static str, id: &str, v: u64| {
        if v == 0 {
            html! {}
        } else {
            field(name, id, v.to_string())
        }
    };
    let read_path = reads.then(|| {
        html! {
            <section class="panel">
                <h2>{ if m.backing().is_tmpfs() { "shmem_file_read_iter" } else { "filemap_read" } }</h2>
                { field("loop turns", "rp-turns", c.read_iterations.to_string()) }
                { count("shmem_get_folio", "rp-sgf", c.shmem_get_folio) }
                { count("get_folios_contig", "rp-contig", c.get_folios_contig) }
                { field("xas_load", "rp-load", stats.xas_load.to_string()) }
                { field("xas_next", "rp-next", stats.xas_next.to_string()) }
                { field("folio get / put", "rp-refs", format!("{} / {}", c.folio_get, c.folio_put)) }
                { field("folio lock / unlock", "rp-locks", format!("{} / {}", c.folio_lock, c.folio_unlock)) }
                { field("MB from folios", "rp-data", format!("{:.1}", fig.bytes_copied as f64 / 1048576.0)) }
                { field("MB zero-page copy", "rp-zero", format!("{:.1}", fig.bytes_zero_copied as f64 / 1048576.0)) }
                { field("MB clear_user", "rp-clear", format!("{:.1}", fig.bytes_cleared as f64 / 1048576.0)) }
                { count("read errors", "rp-errors", fig.read_errors) }
            </section>
        }
    });
    html! {
        <div class="panels">
            <section class="panel">
                <h2>{ "file_ra_state" }{ if inside { " (inside the access)" } else { "" } }</h2>
                { field("start", "ra-start", ra.start.to_string()) }
                { field("size", "ra-size", ra.size.to_string()) }
                { field("async_size", "ra-async", ra.async_size.to_string()) }
                { field("ra_pages", "ra-pages", ra.ra_pages.to_string()) }
                { field("order", "ra-order", ra.order.to_string()) }
                { field("prev_pos", "ra-prev", ra.prev_pos.to_string()) }
                <div class="gauge" title="mmap_miss against MMAP_LOTSAMISS (100)">
                    <span class="name">{ "mmap_miss" }</span>
                    <div class="gauge-bar">
                        <div class={classes!("gauge-fill", over.then_some("over"))} style={format!("width:{pct:.1}%")} />
                        <div class="gauge-line" title="MMAP_LOTSAMISS" />
                    </div>
                    <span class="value" data-testid={format!("mmap-miss{suffix}")}>{ ra.mmap_miss }</span>
                </div>
                <div class="cause muted" data-testid={format!("miss-cause{suffix}")}>
                    { match last_cause {
                        Some((o, n, cause)) => format!("last change {o}\u{2192}{n}: {}", cause_text(cause)),
                        None => "no recent change".into(),
                    } }
                </div>
            </section>
            <section class="panel">
                <h2>{ "counters" }</h2>
                { field("accesses", "step", format!("{step} / {len}")) }
                { field("major faults", "major", fig.major_faults.to_string()) }
                { field("minor faults", "minor", fig.minor_faults.to_string()) }
                { field("MB read", "mb-read", format!("{:.1}", fig.bytes_read as f64 / 1048576.0)) }
                { field("read I/Os", "ios", fig.read_ios.to_string()) }
                { field("xarray node visits", "visits", stats.node_visits.to_string()) }
                if inside {
                    <p class="muted" data-testid={format!("lookups-note{suffix}")}>{ "Lookups, references and locks carry no events: they are the counts before this access." }</p>
                }
            </section>
            { read_path.unwrap_or_default() }
        </div>
    }
}
