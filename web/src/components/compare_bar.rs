//! Compare mode's summary: the two kernels, and the first step where their
//! states part, with a button that jumps there.

use yew::prelude::*;

use crate::app::AppContext;
use crate::state::Action;

#[component]
pub fn CompareBar() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let Some(c) = &state.compare else {
        return html! {};
    };
    let a = state.run.scenario.kernel.label();
    let b = c.run.scenario.kernel.label();
    let body = match c.first_diff {
        Some(step) => {
            let d = state.dispatcher();
            html! {
                <>
                    { format!("{a} and {b} first differ after access {step}. ") }
                    <button data-testid="jump-diff" onclick={Callback::from(move |_| d.dispatch(Action::Seek(step)))}>
                        { "jump there" }
                    </button>
                </>
            }
        }
        None => html! { { format!("{a} and {b} stay in the same state for the whole run.") } },
    };
    html! { <div class="compare-bar" data-testid="compare-bar">{ body }</div> }
}
