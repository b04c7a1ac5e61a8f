//! The event log: one line per event of the last accesses, naming the
//! kernel function and what changed. Filter by kind or text; a click jumps
//! to just after that event.

use folioscope_core::EventKind;
use folioscope_scenario::text::event_line;
use yew::prelude::*;

use crate::app::AppContext;
use crate::state::{Action, LogLine};

/// Lines shown at most; the newest are kept.
const SHOWN: usize = 60;

#[component]
pub fn EventLog() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let d = state.dispatcher();
    let text = state.log_text.to_lowercase();
    // The log's lines: the recorded history, then the events applied so
    // far inside the current access.
    let mut lines: Vec<LogLine> = state.run.recent.borrow().lines.iter().copied().collect();
    if let Some(c) = &state.cursor {
        for (i, e) in c.events.iter().enumerate().take(c.applied) {
            lines.push(LogLine {
                access: state.step + 1,
                index: i,
                event: *e,
            });
        }
    }
    // Newest first, so the latest change is always in sight; only the
    // lines shown are formatted.
    let mut shown: Vec<(LogLine, String)> = Vec::new();
    for l in lines.into_iter().rev() {
        if shown.len() == SHOWN {
            break;
        }
        if state.hidden_kinds.contains(&l.event.kind()) {
            continue;
        }
        let t = event_line(&l.event);
        if text.is_empty() || t.to_lowercase().contains(&text) {
            shown.push((l, t));
        }
    }
    let empty = shown.is_empty() && state.log_text.is_empty() && state.hidden_kinds.is_empty();
    let current = state
        .cursor
        .as_ref()
        .map(|c| (state.step + 1, c.applied - 1));
    let rows = shown.into_iter().map(|(l, t)| {
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
    let kinds = EventKind::ALL.iter().map(|k| {
        let d = d.clone();
        let k = *k;
        let on = !state.hidden_kinds.contains(&k);
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
                <input type="search" placeholder="filter text" value={state.log_text.clone()} oninput={ontext} data-testid="log-filter" />
            </div>
            if empty {
                <p class="muted" data-testid="log-empty">{ format!("No events in the last {} accesses: every page they touched was mapped already.", crate::state::LOG_ACCESSES) }</p>
            }
            <ol class="log-lines" data-testid="log-lines">{ for rows }</ol>
        </section>
    }
}
