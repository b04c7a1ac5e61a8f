//! Compare mode's summary: for each kernel compared with the first, where
//! their states first part, with a button that goes there and zooms to the
//! pages they hold differently; or, for kernels whose page cache never
//! parts, that it stays the same and which of their work differs.

use folioscope_core::{Machine, Timeline};
use folioscope_scenario::link::Mode;
use yew::prelude::*;

use crate::context::{use_handles, use_setup, use_ui};
use crate::state::Action;

/// Pages shown around the differing ones, at least, when zooming to them.
const CONTEXT_PAGES: u64 = 64;

#[component]
pub fn CompareBar() -> Html {
    let handles = use_handles();
    let (d, seekers) = (handles.dispatch, handles.seekers);
    let setup = use_setup();
    let found = use_state(|| None::<(usize, String)>);
    // Embedded, there is no room for the note: the zoom the button sets
    // and the marks under the strips say where. Read before the return
    // below: a hook called only once the view is built broke Yew's rule
    // that every render calls the same hooks, and the debug build that
    // `cargo xtask serve` makes panicked on the default view.
    let embed = use_ui().mode == Mode::Embed;
    let Some(built) = setup.built.filter(|_| !setup.compare.is_empty()) else {
        return html! {};
    };
    let a = setup.scenario.kernel.label();
    let first = &built.sides[0].timeline;
    let pages = setup.pages;
    let lines = built.sides[1..].iter().enumerate().map(|(i, c)| {
        let b = c.kernel.label();
        match c.first_diff {
            Some(step) => {
                let shown = found
                    .as_ref()
                    .filter(|(k, _)| *k == i && !embed)
                    .map(|(_, t)| t.clone());
                let (d, found, seekers, built) = (d.clone(), found.clone(), seekers.clone(), built.clone());
                // The two kernels' seekers go there, as the view then
                // does: machines made from the timelines instead are two
                // whole ones more in memory, where the kernels part late.
                let onclick = Callback::from(move |_| {
                    let (runs, what) = seekers.0.with_pair(&built, (0, i + 1), step, |a, b| {
                        let (ma, mb) = (a.machine(), b.machine());
                        let runs = ma.differing_pages(mb, 0, pages);
                        let what = where_they_differ(&runs, ma, mb);
                        (runs, what)
                    });
                    let (lo, hi) = zoom_around(&runs, pages);
                    found.set(Some((i, what)));
                    d.dispatch(Action::Diverge(step, lo, hi));
                });
                html! {
                    <div data-testid={format!("compare-line-{}", i + 1)}>
                        { format!("{a} and {b} first differ after access {step}. ") }
                        <button data-testid="jump-diff" {onclick}>{ "show where" }</button>
                        if let Some(t) = shown { <span class="diverge-note" data-testid={format!("diverge-note-{}", i + 1)}>{ format!(" {t}") }</span> }
                    </div>
                }
            }
            None => html! {
                <div data-testid={format!("compare-line-{}", i + 1)}>
                    { same_cache_line(&a, &b, first, &c.timeline) }
                </div>
            },
        }
    });
    html! { <div class="compare-bar" data-testid="compare-bar">{ for lines }</div> }
}

/// The pages two machines hold differently, in words.
fn where_they_differ(runs: &[(u64, u64)], a: &Machine, b: &Machine) -> String {
    let n: u64 = runs.iter().map(|(s, e)| e - s).sum();
    let mut s = match (runs.first(), runs.last()) {
        (Some(f), Some(l)) => format!(
            "{n} page{} differ, in {} run{} from page {} to {}",
            if n == 1 { "" } else { "s" },
            runs.len(),
            if runs.len() == 1 { "" } else { "s" },
            f.0,
            l.1 - 1
        ),
        _ => "The pages are the same".into(),
    };
    if a.ra() != b.ra() {
        s.push_str("; file_ra_state differs");
    }
    s.push_str(" (marked in red under its strip).");
    s
}

/// A zoom that shows the differing runs with some pages around them.
fn zoom_around(runs: &[(u64, u64)], pages: u64) -> (u64, u64) {
    let (Some(f), Some(l)) = (runs.first(), runs.last()) else {
        return (0, pages);
    };
    let span = (l.1 - f.0).max(CONTEXT_PAGES);
    let lo = f.0.saturating_sub(span / 4);
    (lo, (l.1 + span / 4).max(lo + span).min(pages))
}

/// For two kernels whose states never part: the page cache is the same
/// at every step, and the work that differs by the end, if any.
fn same_cache_line(a: &str, b: &str, ta: &Timeline, tb: &Timeline) -> String {
    let (ca, cb) = (ta.end_counters(), tb.end_counters());
    let (la, lb) = (ta.end_lookups(), tb.end_lookups());
    let work = [
        ("major faults", ca.major_faults, cb.major_faults),
        ("minor faults", ca.minor_faults, cb.minor_faults),
        ("read I/Os", ca.read_ios, cb.read_ios),
        ("read loop turns", ca.read_iterations, cb.read_iterations),
        ("shmem_get_folio", ca.shmem_get_folio, cb.shmem_get_folio),
        (
            "get_folios_contig",
            ca.get_folios_contig,
            cb.get_folios_contig,
        ),
        ("xas_load", la.xas_load, lb.xas_load),
        ("xas_next", la.xas_next, lb.xas_next),
        ("node visits", la.node_visits, lb.node_visits),
        (
            "folio refs",
            ca.folio_get + ca.folio_put,
            cb.folio_get + cb.folio_put,
        ),
        (
            "folio locks",
            ca.folio_lock + ca.folio_unlock,
            cb.folio_lock + cb.folio_unlock,
        ),
        (
            "bytes zero-filled",
            ca.bytes_zero_copied + ca.bytes_cleared,
            cb.bytes_zero_copied + cb.bytes_cleared,
        ),
    ];
    let differ: Vec<String> = work
        .iter()
        .filter(|(_, x, y)| x != y)
        .map(|(n, x, y)| format!("{n} {x} against {y}"))
        .collect();
    let same = format!(
        "{a} and {b} hold the same page cache at every step: the same folios, mappings and file_ra_state."
    );
    if differ.is_empty() {
        format!("{same} Their work is the same too.")
    } else {
        format!(
            "{same} The work of getting there differs; by the end of the run: {}.",
            differ.join(", ")
        )
    }
}
