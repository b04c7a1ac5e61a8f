//! Predict mode's question, over the view: the audience answers, then the
//! app steps to the event and shows how close they were.

use folioscope_core::Mark;
use folioscope_scenario::describe;
use yew::prelude::*;

use crate::context::{use_handles, use_ui};
use crate::state::Action;

/// The select and button that start predict mode, for the controls.
#[component]
pub fn PredictControls() -> Html {
    let d = use_handles().dispatch;
    let predict = use_ui().predict;
    let onchange = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let sel: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let m = Mark::ALL
                .into_iter()
                .find(|m| describe::mark(*m) == sel.value());
            d.dispatch(Action::SetPredict(m));
        })
    };
    let ask = { Callback::from(move |_| d.dispatch(Action::Ask)) };
    let current = predict.map(describe::mark).unwrap_or("");
    html! {
        <label class="predict">{ "predict " }
            <select {onchange} data-testid="predict">
                <option value="" selected={current.is_empty()}>{ "off" }</option>
                { for Mark::ALL.iter().map(|m| html! {
                    <option value={describe::mark(*m)} selected={current == describe::mark(*m)}>{ format!("next {}", describe::mark(*m)) }</option>
                }) }
            </select>
            if predict.is_some() {
                <button onclick={ask} data-testid="ask">{ "ask" }</button>
            }
        </label>
    }
}

#[component]
pub fn QuestionOverlay() -> Html {
    let d = use_handles().dispatch;
    let question = use_ui().question;
    let input = use_node_ref();
    let Some(q) = question else {
        return html! {};
    };
    let reveal = {
        let input = input.clone();
        let d = d.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let v = input
                .cast::<web_sys::HtmlInputElement>()
                .and_then(|i| i.value().trim().parse::<u64>().ok());
            if let Some(v) = v {
                d.dispatch(Action::Answer(v));
            }
        })
    };
    let close = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::CloseQuestion))
    };
    let next = { Callback::from(move |_| d.dispatch(Action::Ask)) };
    html! {
        <div class="question" role="dialog" data-testid="question">
            <h2>{ format!("Predict: next {}", describe::mark(q.mark)) }</h2>
            <p data-testid="question-prompt">{ q.prompt.clone() }</p>
            { match q.given {
                None => html! {
                    <form onsubmit={reveal}>
                        <input ref={input} type="number" min="0" data-testid="answer" placeholder={q.unit} />
                        <button type="submit" data-testid="reveal">{ "Reveal" }</button>
                    </form>
                },
                Some(given) => {
                    let off = given.abs_diff(q.answer);
                    html! {
                        <div>
                            <p class="reveal" data-testid="revealed">
                                { format!("Answer: {} ({}; you said {given}", q.answer, q.unit) }
                                { if off == 0 { ", exactly right)".to_string() } else { format!(", off by {off})") } }
                            </p>
                            <button onclick={next} data-testid="ask-next">{ "Ask about the next one" }</button>
                            <button onclick={close.clone()}>{ "Close" }</button>
                        </div>
                    }
                }
            } }
        </div>
    }
}
