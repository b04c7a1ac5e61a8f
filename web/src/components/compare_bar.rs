//! Compare mode's summary: for each kernel compared with the first, the
//! first step where their states part, with a button that jumps there.

use yew::prelude::*;

use crate::app::AppContext;
use crate::state::Action;

#[component]
pub fn CompareBar() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    if state.compare.is_empty() {
        return html! {};
    }
    let a = state.run.scenario.kernel.label();
    let lines = state.compare.iter().map(|c| {
        let b = c.run.scenario.kernel.label();
        match c.first_diff {
            Some(step) => {
                let d = state.dispatcher();
                html! {
                    <div>
                        { format!("{a} and {b} first differ after access {step}. ") }
                        <button data-testid="jump-diff" onclick={Callback::from(move |_| d.dispatch(Action::Seek(step)))}>
                            { "jump there" }
                        </button>
                    </div>
                }
            }
            None => html! { <div>{ format!("{a} and {b} stay in the same state for the whole run.") }</div> },
        }
    });
    html! { <div class="compare-bar" data-testid="compare-bar">{ for lines }</div> }
}
