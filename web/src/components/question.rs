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
    let next_button = use_node_ref();
    // The focus goes where a clicker's next PageDown acts: the answer
    // field while asking, the next question's button once revealed.
    {
        let (input, next_button) = (input.clone(), next_button.clone());
        let asked = question.as_ref().map(|q| (q.ask_at, q.mark, q.revealed));
        use_effect_with(asked, move |asked| {
            let target = match asked {
                Some((_, _, false)) => input.cast::<web_sys::HtmlElement>(),
                Some((_, _, true)) => next_button.cast::<web_sys::HtmlElement>(),
                None => None,
            };
            if let Some(t) = target {
                let _ = t.focus();
            }
        });
    }
    let Some(q) = question else {
        return html! {};
    };
    let guess = {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            let i: web_sys::HtmlInputElement = e.target_unchecked_into();
            d.dispatch(Action::Guess(i.value().trim().parse::<u64>().ok()));
        })
    };
    let reveal = {
        let d = d.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            d.dispatch(Action::Reveal);
        })
    };
    let close = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::CloseQuestion))
    };
    let next = { Callback::from(move |_| d.dispatch(Action::Ask)) };
    html! {
        <div class="question" role="dialog" aria-labelledby="question-title" data-testid="question">
            <h2 id="question-title">{ format!("Predict: next {}", describe::mark(q.mark)) }</h2>
            <p data-testid="question-prompt">{ q.prompt.clone() }</p>
            if !q.revealed {
                <form onsubmit={reveal}>
                    <input ref={input} type="number" min="0" data-testid="answer" placeholder={q.unit}
                        aria-label={format!("your answer ({})", q.unit)} oninput={guess} />
                    <button type="submit" data-testid="reveal">{ "Reveal" }</button>
                </form>
                <p class="muted question-keys">{ "PageDown: reveal \u{b7} Esc: close" }</p>
            } else {
                <div>
                    <p class="reveal" data-testid="revealed">
                        { format!("Answer: {} ({}", q.answer, q.unit) }
                        { match q.given {
                            Some(given) if given == q.answer => format!("; you said {given}, exactly right)"),
                            Some(given) => format!("; you said {given}, off by {})", given.abs_diff(q.answer)),
                            None => ")".to_string(),
                        } }
                    </p>
                    <button ref={next_button} onclick={next} data-testid="ask-next">{ "Ask about the next one" }</button>
                    <button onclick={close}>{ "Close" }</button>
                    <p class="muted question-keys">{ "PageDown: the next one \u{b7} Esc: close" }</p>
                </div>
            }
        </div>
    }
}
