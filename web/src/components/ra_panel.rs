//! `file_ra_state` and the running counters of each kernel on screen,
//! side by side, with `mmap_miss` as a gauge against MMAP_LOTSAMISS and
//! the cause of its last change. Inside an access, the events applied so
//! far are added in. In compare mode every figure that differs between
//! the kernels is marked, in each panel, with the first kernel's value.
//! Presenter mode shows the figures a room reads as one table, a row
//! for each kernel, so that a talk's view fits one screen.

use folioscope_core::{Event, MissCause, Picture, Simulation, MMAP_LOTSAMISS};
use folioscope_scenario::link::Mode;
use yew::prelude::*;

use crate::components::file_strip::Side;
use crate::context::{use_handles, use_moment, use_setup, use_ui};
use crate::seekers::Log;

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

/// One figure of a panel: its label, the test id of its value, and the
/// value as shown; `sparse` figures are left out where every kernel has
/// none.
#[derive(Clone, PartialEq)]
struct Figure {
    name: &'static str,
    id: &'static str,
    value: String,
    sparse: bool,
}

/// What one kernel's panels show.
#[derive(Clone, PartialEq)]
struct Panels {
    ra: Vec<Figure>,
    mmap_miss: u16,
    cause: String,
    counters: Vec<Figure>,
    /// The read path's section: its title and figures.
    read_path: Option<(&'static str, Vec<Figure>)>,
    inside: bool,
}

fn figure(name: &'static str, id: &'static str, value: String) -> Figure {
    Figure {
        name,
        id,
        value,
        sparse: false,
    }
}

/// A figure shown only where some kernel has one.
fn sparse(name: &'static str, id: &'static str, v: u64) -> Figure {
    Figure {
        name,
        id,
        value: v.to_string(),
        sparse: true,
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1048576.0)
}

/// The panels of a simulation standing at `step` of `len`, with `overlay`,
/// the events applied inside the next access.
fn panels(sim: &Simulation, log: &Log, overlay: &[Event], step: u64, len: u64) -> Panels {
    let m = sim.machine();
    let c = m.counters();
    // The machine before the access, and what its first events did.
    let mut picture = Picture::new(m, None);
    for e in overlay {
        picture.apply(e);
    }
    let ra = picture.ra();
    let fig = picture.figures();
    let miss_change = |e: &Event| match *e {
        Event::MmapMiss {
            old, new, cause, ..
        } => Some((old, new, cause)),
        _ => None,
    };
    let last_cause = overlay
        .iter()
        .rev()
        .find_map(miss_change)
        .or_else(|| log.lines.iter().rev().find_map(|l| miss_change(&l.event)));
    let stats = m.lookups();
    let read_path = sim.config().pattern.uses_read().then(|| {
        let title = if m.backing().is_tmpfs() {
            "shmem_file_read_iter"
        } else {
            "filemap_read"
        };
        (
            title,
            vec![
                figure("loop turns", "rp-turns", c.read_iterations.to_string()),
                sparse("shmem_get_folio", "rp-sgf", c.shmem_get_folio),
                sparse("get_folios_contig", "rp-contig", c.get_folios_contig),
                figure("xas_load", "rp-load", stats.xas_load.to_string()),
                figure("xas_next", "rp-next", stats.xas_next.to_string()),
                figure(
                    "folio get / put",
                    "rp-refs",
                    format!("{} / {}", c.folio_get, c.folio_put),
                ),
                figure(
                    "folio lock / unlock",
                    "rp-locks",
                    format!("{} / {}", c.folio_lock, c.folio_unlock),
                ),
                figure("MB from folios", "rp-data", mb(fig.bytes_copied)),
                figure("MB zero-page copy", "rp-zero", mb(fig.bytes_zero_copied)),
                figure("MB clear_user", "rp-clear", mb(fig.bytes_cleared)),
                sparse("read errors", "rp-errors", fig.read_errors),
            ],
        )
    });
    Panels {
        ra: vec![
            figure("start", "ra-start", ra.start.to_string()),
            figure("size", "ra-size", ra.size.to_string()),
            figure("async_size", "ra-async", ra.async_size.to_string()),
            figure("ra_pages", "ra-pages", ra.ra_pages.to_string()),
            figure("order", "ra-order", ra.order.to_string()),
            figure("prev_pos", "ra-prev", ra.prev_pos.to_string()),
        ],
        mmap_miss: ra.mmap_miss,
        cause: match last_cause {
            Some((o, n, cause)) => format!("last change {o}\u{2192}{n}: {}", cause_text(cause)),
            None => "no recent change".into(),
        },
        counters: vec![
            figure("accesses", "step", format!("{step} / {len}")),
            figure("major faults", "major", fig.major_faults.to_string()),
            figure("minor faults", "minor", fig.minor_faults.to_string()),
            figure("MB read", "mb-read", mb(fig.bytes_read)),
            figure("read I/Os", "ios", fig.read_ios.to_string()),
            figure(
                "xarray node visits",
                "visits",
                stats.node_visits.to_string(),
            ),
        ],
        read_path,
        inside: !overlay.is_empty(),
    }
}

/// The panels of every kernel on screen, side by side.
#[component]
pub fn RaRow() -> Html {
    let setup = use_setup();
    let moment = use_moment();
    let seekers = use_handles().seekers;
    // The counters are read out after a step, not at every frame of play.
    let live = if use_ui().playing { "off" } else { "polite" };
    let presenter = use_ui().mode == Mode::Presenter;
    let sides = setup.compare.len() + 1;
    let columns = ["one", "two", "three"].get(sides - 1).copied();
    let Some(built) = setup.built.clone() else {
        return html! {
            <div class={classes!("ra-row", columns)}>
                { for (0..sides).map(|_| html! { <div class="panels building"></div> }) }
            </div>
        };
    };
    let (step, len) = (moment.step, setup.len);
    let all: Vec<Panels> = (0..built.sides.len().min(sides))
        .map(|i| {
            // Inside an access, the first kernel's events are applied.
            let overlay: &[Event] = if i == 0 { moment.applied_events() } else { &[] };
            seekers.0.with(&built, i, step, |sim, log| {
                panels(sim, log, overlay, step, len)
            })
        })
        .collect();
    let labels: Vec<String> = built.sides.iter().map(|s| s.kernel.label()).collect();
    if presenter {
        return table_html(&all, &labels, live);
    }
    html! {
        <div class={classes!("ra-row", columns)}>
            { for all.iter().enumerate().map(|(i, p)| panel_html(i, p, &all, &labels, live)) }
        </div>
    }
}

/// The figures of presenter mode's table, by test id: the readahead
/// window (headed as the kernel spells its fields), then (after the
/// gauge) what the run has cost.
const TABLE_RA: [(&str, &str); 4] = [
    ("ra-start", "ra->start"),
    ("ra-size", "ra->size"),
    ("ra-async", "ra->async_size"),
    ("ra-order", "ra->order"),
];
const TABLE_COUNTERS: [&str; 3] = ["major", "mb-read", "ios"];

/// Every kernel's figures in one table, a row each, for presenter mode;
/// a figure that differs from the first kernel's is marked.
fn table_html(all: &[Panels], labels: &[String], live: &'static str) -> Html {
    let find = |p: &Panels, id: &str| {
        p.ra.iter()
            .chain(&p.counters)
            .find(|f| f.id == id)
            .map(|f| (f.name, f.value.clone()))
    };
    let heads = TABLE_RA
        .iter()
        .map(|(_, head)| *head)
        .chain(["mmap_miss"])
        .chain(TABLE_COUNTERS.iter().map(|id| {
            all.first()
                .and_then(|p| find(p, id))
                .map_or(*id, |(name, _)| name)
        }));
    let cell = |i: usize, p: &Panels, id: &str| {
        let Some((_, value)) = find(p, id) else {
            return html! { <td /> };
        };
        let differs = i > 0 && find(&all[0], id).is_some_and(|(_, a)| a != value);
        let suffix = side_of(i).suffix();
        html! {
            <td class={classes!(differs.then_some("differs"))} data-testid={format!("{id}{suffix}")}>{ value }</td>
        }
    };
    let rows = all.iter().enumerate().map(|(i, p)| {
        let suffix = side_of(i).suffix();
        let miss_differs = i > 0 && all[0].mmap_miss != p.mmap_miss;
        html! {
            <tr>
                <th scope="row" class="strip-kernel">{ labels.get(i).cloned().unwrap_or_default() }</th>
                { for TABLE_RA.iter().map(|(id, _)| cell(i, p, id)) }
                <td class={classes!(miss_differs.then_some("differs"))}>
                    <div class="gauge-cell">
                        { gauge(p.mmap_miss) }
                        <span class="value" data-testid={format!("mmap-miss{suffix}")}>{ p.mmap_miss }</span>
                    </div>
                </td>
                { for TABLE_COUNTERS.iter().map(|id| cell(i, p, id)) }
            </tr>
        }
    });
    html! {
        <table class="ra-table" data-testid="ra-table" aria-live={live}>
            <thead>
                <tr><th />{ for heads.map(|h| html! { <th scope="col">{ h }</th> }) }</tr>
            </thead>
            <tbody>{ for rows }</tbody>
        </table>
    }
}

fn side_of(i: usize) -> Side {
    if i == 0 {
        Side::A
    } else {
        Side::Compared(i - 1)
    }
}

/// mmap_miss against MMAP_LOTSAMISS: the bar spans 0..=2×MMAP_LOTSAMISS,
/// the line sits in the middle. The bar's background fills it
/// (assets/style.css): a filling box that grew made Chromium layerize
/// the page again at every change.
fn gauge(mmap_miss: u16) -> Html {
    let full = 2.0 * MMAP_LOTSAMISS as f64;
    let pct = (mmap_miss as f64 / full * 100.0).min(100.0);
    let over = mmap_miss > MMAP_LOTSAMISS;
    html! {
        <div class={classes!("gauge-bar", over.then_some("over"))} style={format!("--fill:{pct:.1}%")}
            title="mmap_miss against MMAP_LOTSAMISS (100)">
            <div class="gauge-line" title="MMAP_LOTSAMISS" />
        </div>
    }
}

/// Kernel `i`'s panels; a figure that differs from another kernel's is
/// marked, with the first kernel's value (or, in the first kernel's
/// panel, the others'). The counters are a live region, `live` of
/// `aria-live`.
fn panel_html(i: usize, p: &Panels, all: &[Panels], labels: &[String], live: &'static str) -> Html {
    let suffix = side_of(i).suffix();
    // The same figure in the other kernels' panels.
    let others = |pick: &dyn Fn(&Panels) -> Option<String>| -> Vec<(String, String)> {
        all.iter()
            .enumerate()
            .filter(|&(j, _)| (i == 0 && j != 0) || (i != 0 && j == 0))
            .filter_map(|(j, q)| pick(q).map(|v| (labels[j].clone(), v)))
            .collect()
    };
    let row = |f: &Figure, others: Vec<(String, String)>| {
        let differ: Vec<String> = others
            .iter()
            .filter(|(_, v)| *v != f.value)
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        let title = (!differ.is_empty()).then(|| format!("differs: {}", differ.join(", ")));
        let class = classes!("field", title.is_some().then_some("differs"));
        // Inside a live region, a changed figure is read with its name.
        html! {
            <div {class} {title} aria-atomic="true">
                <span class="name">{ f.name }</span>
                <span class="value" data-testid={format!("{}{suffix}", f.id)}>{ f.value.clone() }</span>
            </div>
        }
    };
    let section = |figs: &[Figure], pick: &dyn Fn(&Panels) -> Option<&Vec<Figure>>| {
        figs.iter()
            .enumerate()
            .filter(|(k, f)| {
                !f.sparse
                    || all.iter().any(|q| {
                        pick(q)
                            .and_then(|v| v.get(*k))
                            .is_some_and(|g| g.value != "0")
                    })
            })
            .map(|(k, f)| {
                row(
                    f,
                    others(&|q| pick(q).and_then(|v| v.get(k)).map(|g| g.value.clone())),
                )
            })
            .collect::<Html>()
    };
    let miss_others = others(&|q| Some(q.mmap_miss.to_string()));
    let miss_differs = miss_others
        .iter()
        .any(|(_, v)| *v != p.mmap_miss.to_string());
    // In compare mode the panels name their kernel: on a narrow page
    // they wrap, and their place no longer says whose they are.
    let kernel = (labels.len() > 1).then(|| labels.get(i)).flatten();
    html! {
        <div class="panels">
            if let Some(k) = kernel {
                <h2 class="panels-kernel" data-testid={format!("ra-kernel{suffix}")}>{ k }</h2>
            }
            <section class="panel">
                <h2>{ "file_ra_state" }{ if p.inside { " (inside the access)" } else { "" } }</h2>
                { section(&p.ra, &|q| Some(&q.ra)) }
                <div class={classes!("gauge", miss_differs.then_some("differs"))} title="mmap_miss against MMAP_LOTSAMISS (100)">
                    <span class="name">{ "mmap_miss" }</span>
                    { gauge(p.mmap_miss) }
                    <span class="value" data-testid={format!("mmap-miss{suffix}")}>{ p.mmap_miss }</span>
                </div>
                <div class="cause muted" data-testid={format!("miss-cause{suffix}")}>{ p.cause.clone() }</div>
            </section>
            <section class="panel" aria-live={live} data-testid={format!("counters{suffix}")}>
                <h2>{ "counters" }</h2>
                { section(&p.counters, &|q| Some(&q.counters)) }
                if p.inside {
                    <p class="muted" data-testid={format!("lookups-note{suffix}")}>{ "Lookups, references and locks carry no events: they are the counts before this access." }</p>
                }
            </section>
            if let Some((title, figs)) = &p.read_path {
                <section class="panel">
                    <h2>{ *title }</h2>
                    { section(figs, &|q| q.read_path.as_ref().map(|(_, v)| v)) }
                </section>
            }
        </div>
    }
}
