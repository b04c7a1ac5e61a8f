//! The event log of one kernel: one line per event of the last accesses,
//! naming the kernel function and what changed. Filter by kind or text
//! (the filters are the first kernel's log's, and hold for every log); a
//! click jumps to just after that event. In compare mode each kernel on
//! screen has its log, side by side; inside an access, the events applied
//! are the first kernel's.

use folioscope_core::EventKind;
use folioscope_scenario::text::{event_line, faithful_note};
use yew::prelude::*;

use crate::components::file_strip::Side;
use crate::context::{use_handles, use_moment, use_setup, use_ui};
use crate::seekers::{LogLine, LOG_ACCESSES};
use crate::state::Action;

/// Lines listed at most; the newest are kept.
const SHOWN: usize = 60;
/// Every line is this tall (CSS `.log-line`), so that only the lines in
/// sight need elements: a jump rewrites every line.
const LINE_PX: usize = 19;
/// The scroller's height (CSS `.log-lines`).
const VIEW_PX: usize = 320;

/// The notes of the lines in sight, once each, above the list (a dagger
/// marks their lines: a glyph every font has).
fn notes_above(
    listed: &[(LogLine, Option<String>)],
    notes: &[Option<&'static str>],
    first: usize,
    end: usize,
) -> Html {
    let mut shown: Vec<(u64, &'static str)> = Vec::new();
    for k in first..end {
        if let (Some((l, _)), Some(Some(n))) = (listed.get(k), notes.get(k)) {
            if !shown.iter().any(|(_, m)| m == n) {
                shown.push((l.access, n));
            }
        }
    }
    html! {
        <div class="log-notes" data-testid="log-notes">
            { for shown.into_iter().map(|(access, n)| html! { <p>{ format!("\u{2020} #{access}: {n}") }</p> }) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct LogProps {
    pub side: Side,
}

#[component]
pub fn EventLog(props: &LogProps) -> Html {
    let side = props.side;
    let suffix = side.suffix();
    let d = use_handles().dispatch;
    let setup = use_setup();
    let moment = use_moment();
    let ui = use_ui();
    let seekers = use_handles().seekers;
    // Event lines are ASCII; folding only ASCII case keeps Unicode's case
    // tables (15 KB of the gzipped app) out of the wasm.
    let text = ui.log_text.to_ascii_lowercase();
    // The events applied so far inside the current access (the first
    // kernel's), then the recorded history, newest first, so that the
    // latest change is always in sight. Lines are formatted only to
    // filter by text or to be drawn, and only the newest SHOWN of the
    // history's thousands are looked at.
    let applied: Vec<LogLine> = match moment.cursor.as_ref().filter(|_| side == Side::A) {
        Some(c) => c
            .applied_events()
            .iter()
            .enumerate()
            .rev()
            .map(|(i, e)| LogLine {
                access: moment.step + 1,
                index: i,
                event: *e,
            })
            .collect(),
        None => Vec::new(),
    };
    let pick = |lines: &mut dyn Iterator<Item = LogLine>| -> Vec<(LogLine, Option<String>)> {
        lines
            .filter(|l| !ui.hidden_kinds.contains(l.event.kind()))
            .filter_map(|l| {
                if text.is_empty() {
                    return Some((l, None));
                }
                let t = event_line(&l.event);
                t.to_ascii_lowercase()
                    .contains(&text)
                    .then_some((l, Some(t)))
            })
            .take(SHOWN)
            .collect()
    };
    // The earlier events of a line's access, for the notes on events
    // that look wrong but are faithful.
    let note_of = |l: &LogLine, log: &mut dyn Iterator<Item = LogLine>| {
        // Only windows can carry one, so the log is read for them alone.
        matches!(l.event, folioscope_core::Event::Window { .. })
            .then(|| {
                let earlier: Vec<folioscope_core::Event> = log
                    .filter(|m| m.access == l.access && m.index < l.index)
                    .map(|m| m.event)
                    .collect();
                faithful_note(&l.event, &earlier)
            })
            .flatten()
    };
    type Listed = Vec<(LogLine, Option<String>)>;
    let (listed, notes): (Listed, Vec<Option<&'static str>>) = match setup
        .built
        .as_ref()
        .filter(|b| side.index() < b.sides.len())
    {
        Some(built) => seekers.0.with(built, side.index(), moment.step, |_, log| {
            let listed = pick(
                &mut applied
                    .iter()
                    .copied()
                    .chain(log.lines.iter().rev().copied()),
            );
            let notes = listed
                .iter()
                .map(|(l, _)| {
                    note_of(
                        l,
                        &mut log.lines.iter().copied().chain(applied.iter().copied()),
                    )
                })
                .collect();
            (listed, notes)
        }),
        None => (pick(&mut applied.iter().copied()), Vec::new()),
    };
    let empty = setup.built.is_some()
        && listed.is_empty()
        && ui.log_text.is_empty()
        && ui.hidden_kinds.is_empty();
    let current = moment
        .cursor
        .as_ref()
        .filter(|_| side == Side::A)
        .map(|c| (moment.step + 1, c.applied - 1));
    // A move in time brings the newest line back into sight: the scroll
    // offset counts only while the log shows the same moment.
    let anchor = (moment.step, moment.cursor.as_ref().map(|c| c.applied));
    let scroll = use_state(|| (anchor, 0usize));
    // The list's offset as of its last scroll event: reading scrollTop
    // back in the effect would force a layout in the middle of a jump.
    let offset = use_mut_ref(|| 0i32);
    let list_ref = use_node_ref();
    {
        let (list_ref, offset) = (list_ref.clone(), offset.clone());
        use_effect_with(anchor, move |_| {
            if *offset.borrow() != 0 {
                if let Some(list) = list_ref.cast::<web_sys::Element>() {
                    list.set_scroll_top(0);
                }
            }
        });
    }
    let top = if scroll.0 == anchor { scroll.1 } else { 0 };
    let first = (top / LINE_PX).min(listed.len());
    let places = VIEW_PX.div_ceil(LINE_PX) + 1;
    let end = (first + places).min(listed.len());
    // A fixed number of places, the unused ones hidden, so that a jump
    // from an empty log to a full one rewrites lines but creates none.
    let rows = (first..first + places).map(|k| {
        let Some((l, t)) = listed.get(k) else {
            return html! { <li class="log-line" hidden=true><span class="log-step"></span>{ "" }</li> };
        };
        let note = notes.get(k).copied().flatten();
        let l = *l;
        let t = t.clone().unwrap_or_else(|| event_line(&l.event));
        let d = d.clone();
        // A click on the first kernel's line steps to just after it; on
        // another kernel's, to the end of its access.
        let onclick = Callback::from(move |_| {
            d.dispatch(if side == Side::A {
                Action::JumpToEvent(l.access - 1, l.index)
            } else {
                Action::Seek(l.access)
            })
        });
        let here = current == Some((l.access, l.index));
        // The whole line (a narrow log, in compare mode, cuts it short),
        // then its note or what a click does.
        let action = if side == Side::A {
            "click: to just after this event"
        } else {
            "click: to the end of this access"
        };
        let title = format!("{t}\n{}", note.unwrap_or(action));
        html! {
            <li class={classes!("log-line", here.then_some("current"), note.is_some().then_some("noted"), format!("k-{}", l.event.kind().name()))} {onclick}
                title={title}>
                <span class="log-step">{ format!("#{}", l.access) }</span>{ t }
            </li>
        }
    });
    let onscroll = {
        let (scroll, offset) = (scroll.clone(), offset.clone());
        Callback::from(move |e: Event| {
            let list: web_sys::Element = e.target_unchecked_into();
            *offset.borrow_mut() = list.scroll_top();
            let now = list.scroll_top().max(0) as usize;
            if now / LINE_PX != top / LINE_PX {
                scroll.set((anchor, now));
            }
        })
    };
    // Spacers stand in for the lines out of sight, so the scrollbar
    // measures the whole list.
    let above = first * LINE_PX;
    let below = (listed.len() - end) * LINE_PX;
    let kinds = EventKind::ALL.iter().map(|k| {
        let d = d.clone();
        let k = *k;
        let on = !ui.hidden_kinds.contains(k);
        html! {
            <label class="kind">
                <input type="checkbox" checked={on} data-testid={format!("kind-{}", k.name())}
                    onchange={Callback::from(move |_| d.dispatch(Action::ToggleKind(k)))} />{ k.name() }
            </label>
        }
    });
    let ontext = {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            d.dispatch(Action::LogText(input.value()));
        })
    };
    let kernel = match (&setup.built, setup.compare.is_empty()) {
        (Some(b), false) => b
            .sides
            .get(side.index())
            .map(|s| format!(" \u{b7} {}", s.kernel.label())),
        _ => None,
    };
    html! {
        <section class="panel log" data-testid={format!("log{suffix}")}>
            <h2>{ "events" }{ kernel.unwrap_or_default() }</h2>
            if side == Side::A {
                <div class="log-filters">
                    { for kinds }
                    <input type="search" placeholder="filter text" value={ui.log_text.clone()} oninput={ontext} data-testid="log-filter"
                        aria-label="show only the events whose text contains" />
                </div>
            } else {
                <p class="log-filters muted">{ "Filtered as the first kernel's log." }</p>
            }
            if empty {
                <p class="muted" data-testid={format!("log-empty{suffix}")}>{ format!("No events in the last {} accesses: every page they touched was mapped already.", LOG_ACCESSES) }</p>
            }
            { notes_above(&listed, &notes, first, end) }
            <ol ref={list_ref} class="log-lines" data-testid={format!("log-lines{suffix}")} data-lines={listed.len().to_string()} {onscroll}>
                <li class="log-spacer" style={format!("height:{above}px")} aria-hidden="true"></li>
                { for rows }
                <li class="log-spacer" style={format!("height:{below}px")} aria-hidden="true"></li>
            </ol>
        </section>
    }
}
