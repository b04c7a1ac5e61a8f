//! Sharing: "Copy link" and "Copy as text" (the same permalink and mail
//! text as `folioscope link` and `folioscope export`), "Open from text",
//! and the switch to presenter mode. The last thing copied stays on screen
//! in a field, for browsers that refuse the clipboard.

use folioscope_scenario::export::{export, parse_text};
use folioscope_scenario::link::{recording_param, to_link, Mode};
use folioscope_scenario::seeds;
use folioscope_scenario::story::Story;
use yew::prelude::*;

use crate::context::{use_handles, use_setup, use_ui};
use crate::state::{Action, BannerMsg};
use crate::url;

/// Accesses of events around the step that "Copy as text" lists.
const TEXT_EVENTS: u64 = 2;

#[component]
pub fn ShareButtons() -> Html {
    let d = use_handles().dispatch;
    let latest = use_handles().latest;
    let mode = use_ui().mode;
    let copy_link = {
        let (d, latest) = (d.clone(), latest.clone());
        Callback::from(move |_| {
            let link = latest.get().link(&url::share_base());
            url::copy(&link);
            d.dispatch(Action::Shared(Some(link)));
        })
    };
    let copy_text = {
        let d = d.clone();
        Callback::from(move |_| {
            let state = latest.get();
            let mut view = state.view();
            // A seed story's stops as placed on screen: the text lists
            // them without building the timelines again.
            if let (Story::Seed, Some(stops)) = (&view.story, state.stops()) {
                view.story = Story::Own(stops.to_vec());
            }
            let title = match &state.recording {
                Some(r) => format!("a recording: {}", r.title),
                None => view
                    .preset
                    .as_deref()
                    .and_then(seeds::row)
                    .map(|r| r.title)
                    .unwrap_or_else(|| "a scenario".into()),
            };
            // The mail's link line is the view's own link, which for a
            // recording carries the recording or names what it lacks.
            let base = url::share_base();
            let exported = export(&view, &title, &base, TEXT_EVENTS)
                .map(|text| text.replacen(&to_link(&view, &base), &state.link(&base), 1));
            match exported {
                Ok(text) => {
                    url::copy(&text);
                    d.dispatch(Action::Shared(Some(text)));
                }
                Err(e) => d.dispatch(Action::Reject("text".into(), e)),
            }
        })
    };
    let open_text = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::ShowOpenText(true)))
    };
    let presenter = mode == Mode::Presenter;
    let toggle_presenter = {
        Callback::from(move |_| {
            d.dispatch(Action::SetMode(if presenter {
                Mode::Full
            } else {
                Mode::Presenter
            }))
        })
    };
    html! {
        <div class="share">
            <button onclick={copy_link} data-testid="copy-link">{ "Copy link" }</button>
            <button onclick={copy_text} data-testid="copy-text">{ "Copy as text" }</button>
            <button onclick={open_text} data-testid="open-text">{ "Open from text" }</button>
            <button onclick={toggle_presenter} data-testid="presenter" aria-pressed={presenter.to_string()}>
                { if presenter { "Leave presenter mode" } else { "Presenter mode" } }
            </button>
        </div>
    }
}

/// The last link or text copied, selectable.
#[component]
pub fn Shared() -> Html {
    let d = use_handles().dispatch;
    let recording = use_setup().recording;
    let Some(text) = use_ui().shared else {
        return html! {};
    };
    // A recording too large for a link is left out of it, in one line.
    let left_out = recording.filter(|r| r.link.is_none()).map(|r| {
        html! {
            <span class="shared-note" data-testid="shared-note">
                { format!("The recording ({:.1} KB gzipped, over {} KB) is not in the link: send the file with it.",
                    r.gz_len as f64 / 1024.0, crate::recording::LINK_MAX_GZ / 1024) }
            </span>
        }
    });
    let close = { Callback::from(move |_| d.dispatch(Action::Shared(None))) };
    let rows = text.lines().count().clamp(1, 14);
    html! {
        <div class="shared" data-testid="shared">
            <span class="muted">{ "Copied to the clipboard:" }</span>
            if rows == 1 {
                <input readonly=true value={text} data-testid="shared-text" aria-label="copied to the clipboard" />
            } else {
                <textarea readonly=true rows={rows.to_string()} value={text} data-testid="shared-text" aria-label="copied to the clipboard" />
            }
            <button onclick={close} aria-label="close">{ "×" }</button>
            { for left_out }
        </div>
    }
}

/// Paste a mail's text or a bare permalink, and open it.
#[component]
pub fn OpenText() -> Html {
    let d = use_handles().dispatch;
    let open_text = use_ui().open_text;
    let area = use_node_ref();
    let error = use_state(|| None::<String>);
    if !open_text {
        return html! {};
    }
    let open = {
        let area = area.clone();
        let error = error.clone();
        let d = d.clone();
        Callback::from(move |_| {
            let text = area
                .cast::<web_sys::HtmlTextAreaElement>()
                .map(|a| a.value())
                .unwrap_or_default();
            // A link that carries a recording opens it, with its view.
            let carried = text
                .lines()
                .map(|l| l.trim_start_matches(['>', ' ']).trim_end())
                .find(|l| recording_param(l).is_some());
            if let Some(link) = carried {
                error.set(None);
                crate::recording::open_link(link.to_string(), d.clone());
                return;
            }
            match parse_text(&text) {
                Ok(p) => {
                    error.set(None);
                    d.dispatch(Action::OpenView(Box::new(p.view), p.ignored));
                }
                Err(e) => error.set(Some(e)),
            }
        })
    };
    let cancel = { Callback::from(move |_| d.dispatch(Action::ShowOpenText(false))) };
    let banner = error.as_ref().map(|e| {
        let (field, message) = e.split_once(": ").unwrap_or(("text", e));
        BannerMsg {
            field: field.into(),
            message: message.into(),
            note: "nothing was opened",
        }
    });
    html! {
        <div class="overlay" data-testid="open-text-dialog">
            <div class="dialog">
                <h2>{ "Open from text" }</h2>
                <p class="muted">{ "Paste a folioscope text from a mail (a quoted reply, or one a mail client re-wrapped, opens too), or just its link." }</p>
                <textarea ref={area} rows="10" data-testid="open-text-input" />
                if let Some(b) = banner {
                    <div class="banner" role="alert" data-testid="open-text-error">
                        <strong>{ format!("{}: ", b.field) }</strong>{ b.message }
                        <span class="banner-note">{ format!(" ({})", b.note) }</span>
                    </div>
                }
                <div class="dialog-buttons">
                    <button onclick={open} data-testid="open-text-go">{ "Open" }</button>
                    <button onclick={cancel}>{ "Cancel" }</button>
                </div>
            </div>
        </div>
    }
}
