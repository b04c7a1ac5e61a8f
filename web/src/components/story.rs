//! The story bar: a talk's stops walked with PageDown and PageUp (or the
//! ◀ ▶ buttons here), the stop's caption large above the strip, "stop N
//! of M", and the controls that make a story: play a seed preset's own
//! story, add a stop here with a caption, drop one, leave the story.
//! The story travels in the view's link (`story=seed` or
//! `story1=STEP~ZOOM~HIDE~CAPTION`..., and `stop=N`).

use folioscope_scenario::link::Mode;
use folioscope_scenario::story::{MAX_CAPTION, MAX_STOPS};
use yew::prelude::*;

use crate::context::{use_handles, use_ui};
use crate::state::Action;

#[component]
pub fn StoryBar() -> Html {
    let d = use_handles().dispatch;
    let ui = use_ui();
    let story = ui.story;
    let editing = ui.mode != Mode::Presenter;
    let adding = use_state(|| false);
    let caption = use_node_ref();
    let act = |a: fn() -> Action| {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(a()))
    };
    let add_form = (*adding).then(|| {
        let save = {
            let (d, caption, adding) = (d.clone(), caption.clone(), adding.clone());
            Callback::from(move |e: SubmitEvent| {
                e.prevent_default();
                let text = caption
                    .cast::<web_sys::HtmlTextAreaElement>()
                    .map(|a| a.value())
                    .unwrap_or_default();
                d.dispatch(Action::AddStop(text));
                adding.set(false);
            })
        };
        let cancel = {
            let adding = adding.clone();
            Callback::from(move |_: MouseEvent| adding.set(false))
        };
        // Esc closes the form as it closes every overlay.
        let escape = {
            let adding = adding.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Escape" {
                    adding.set(false);
                }
            })
        };
        html! {
            <form class="story-add" onsubmit={save} onkeydown={escape}>
                <textarea ref={caption.clone()} rows="2" maxlength={MAX_CAPTION.to_string()}
                    aria-label="the stop's caption, one or two lines"
                    placeholder="The stop's caption: one or two lines, what the audience should see here."
                    data-testid="story-caption-input" />
                <button type="submit" data-testid="story-save">{ "Save stop" }</button>
                <button type="button" onclick={cancel}>{ "Cancel" }</button>
            </form>
        }
    });
    let open_add = {
        let adding = adding.clone();
        Callback::from(move |_: MouseEvent| adding.set(true))
    };
    let full = story.stops.as_ref().is_some_and(|s| s.len() >= MAX_STOPS);
    let add_button = (editing && !*adding).then(|| {
        html! {
            <button onclick={open_add} disabled={full || (story.seed && story.stops.is_none())}
                title="a stop at this step, with these pages and panels" data-testid="story-add">{ "Add stop" }</button>
        }
    });
    if !story.on {
        if !editing {
            return html! {};
        }
        return html! {
            <div class="story-bar off" data-testid="story-bar">
                <span class="story-label">{ "Story" }</span>
                if story.seed_preset {
                    <button onclick={act(|| Action::PlaySeedStory)} data-testid="story-play-seed">{ "Play this preset's story" }</button>
                }
                { for add_button }
                <span class="muted story-hint">{ "A story is a list of stops a speaker walks with PageDown; it travels in the link." }</span>
                { for add_form }
            </div>
        };
    }
    let Some(stops) = story.stops.as_ref() else {
        return html! {
            <div class="story-bar" data-testid="story-bar">
                <span class="story-label">{ "Story" }</span>
                <span class="muted" data-testid="story-placing">{ "placing the story\u{2026}" }</span>
            </div>
        };
    };
    let n = stops.len();
    let shown = story.stop.and_then(|i| stops.get(i).map(|s| (i, s)));
    let count = match shown {
        Some((i, _)) => format!("stop {} of {n}", i + 1),
        None => format!("{n} stops \u{b7} PageDown: the first"),
    };
    let lines = shown.map(|(_, s)| {
        html! {
            <div class={classes!("story-caption", (!story.at_stop).then_some("away"))} data-testid="story-caption">
                { for s.caption.lines().map(|l| html! { <span class="caption-line">{ l.to_string() }</span> }) }
            </div>
        }
    });
    let at_first = story.stop.is_none_or(|i| i == 0 && story.at_stop);
    let at_last = story.stop.is_some_and(|i| i + 1 >= n);
    html! {
        <div class="story-bar on" data-testid="story-bar">
            <div class="story-head">
                <span class="story-label">{ if story.seed { "The preset's story" } else { "Story" } }</span>
                <button onclick={act(|| Action::NextStop(false))} disabled={at_first} aria-label="previous stop (PageUp)" data-testid="story-prev">{ "◀" }</button>
                <span class="story-count" data-testid="story-count">{ count }</span>
                <button onclick={act(|| Action::NextStop(true))} disabled={at_last} aria-label="next stop (PageDown)" data-testid="story-next">{ "▶" }</button>
                if shown.is_some() && !story.at_stop {
                    <span class="muted">{ " the view has moved on from this stop" }</span>
                }
                if editing {
                    <span class="story-edit">
                        { for add_button }
                        if shown.is_some() {
                            <button onclick={act(|| Action::DropStop)} data-testid="story-drop">{ "Drop this stop" }</button>
                        }
                        <button onclick={act(|| Action::LeaveStory)} data-testid="story-leave">{ "Leave the story" }</button>
                    </span>
                }
            </div>
            { for lines }
            { for add_form }
        </div>
    }
}
