//! Compare mode's summary: for each kernel compared with the first, the
//! first step where their states part, with a button that jumps there.

use yew::prelude::*;

use crate::context::{use_handles, use_setup};
use crate::state::Action;

#[component]
pub fn CompareBar() -> Html {
    let d = use_handles().dispatch;
    let setup = use_setup();
    let Some(built) = setup.built.filter(|_| !setup.compare.is_empty()) else {
        return html! {};
    };
    let a = setup.scenario.kernel.label();
    let lines = built.sides[1..].iter().map(|c| {
        let b = c.kernel.label();
        match c.first_diff {
            Some(step) => {
                let d = d.clone();
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
