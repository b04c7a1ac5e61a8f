//! The event log: one line per event of the last accesses, naming the
//! kernel function and what changed. Filter by kind or text; a click jumps
//! to just after that event.

use folioscope_core::EventKind;
use folioscope_scenario::text::event_line;
use yew::prelude::*;

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

#[component]
pub fn EventLog() -> Html {
    let d = use_handles().dispatch;
    let setup = use_setup();
    let moment = use_moment();
    let ui = use_ui();
    let seekers = use_handles().seekers;
    let text = ui.log_text.to_lowercase();
    // The log's lines: the recorded history, then the events applied so
    // far inside the current access.
    let mut lines: Vec<LogLine> = match &setup.built {
        Some(built) => seekers.0.with(built, 0, moment.step, |_, log| {
            log.lines.iter().copied().collect()
        }),
        None => Vec::new(),
    };
    if let Some(c) = &moment.cursor {
        for (i, e) in c.applied_events().iter().enumerate() {
            lines.push(LogLine {
                access: moment.step + 1,
                index: i,
                event: *e,
            });
        }
    }
    // Newest first, so the latest change is always in sight. Lines are
    // formatted only to filter by text or to be drawn.
    let listed: Vec<(LogLine, Option<String>)> = lines
        .into_iter()
        .rev()
        .filter(|l| !ui.hidden_kinds.contains(&l.event.kind()))
        .filter_map(|l| {
            if text.is_empty() {
                return Some((l, None));
            }
            let t = event_line(&l.event);
            t.to_lowercase().contains(&text).then_some((l, Some(t)))
        })
        .take(SHOWN)
        .collect();
    let empty = setup.built.is_some()
        && listed.is_empty()
        && ui.log_text.is_empty()
        && ui.hidden_kinds.is_empty();
    let current = moment
        .cursor
        .as_ref()
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
        let l = *l;
        let t = t.clone().unwrap_or_else(|| event_line(&l.event));
        let d = d.clone();
        let onclick = Callback::from(move |_| d.dispatch(Action::JumpToEvent(l.access - 1, l.index)));
        let here = current == Some((l.access, l.index));
        html! {
            <li class={classes!("log-line", here.then_some("current"), format!("k-{}", l.event.kind().name()))} {onclick}
                title="jump to just after this event">
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
        let on = !ui.hidden_kinds.contains(&k);
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
    html! {
        <section class="panel log" data-testid="log">
            <h2>{ "events" }</h2>
            <div class="log-filters">
                { for kinds }
                <input type="search" placeholder="filter text" value={ui.log_text.clone()} oninput={ontext} data-testid="log-filter" />
            </div>
            if empty {
                <p class="muted" data-testid="log-empty">{ format!("No events in the last {} accesses: every page they touched was mapped already.", LOG_ACCESSES) }</p>
            }
            <ol ref={list_ref} class="log-lines" data-testid="log-lines" data-lines={listed.len().to_string()} {onscroll}>
                <li class="log-spacer" style={format!("height:{above}px")} aria-hidden="true"></li>
                { for rows }
                <li class="log-spacer" style={format!("height:{below}px")} aria-hidden="true"></li>
            </ol>
        </section>
    }
}
