//! Presets: one for every row of every seed table, grouped by seed. A
//! preset sets the scenario and, where the row compares kernels, turns on
//! compare mode with the second one.

use folioscope_scenario::seeds::{rows, Seed};
use yew::prelude::*;

use crate::app::AppContext;
use crate::state::Action;

#[component]
pub fn Presets() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let all = use_memo((), |_| rows());
    let onchange = {
        let state = state.clone();
        let all = all.clone();
        Callback::from(move |e: Event| {
            let sel: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let id = sel.value();
            if let Some(r) = all.iter().find(|r| r.id == id) {
                let mut scenario = r.scenario.clone();
                scenario.kernel = r.columns[0].kernel.clone();
                let other = r.columns.get(1).map(|c| c.kernel.clone());
                state.dispatch(Action::Preset(r.id.to_string(), scenario, other));
            }
        })
    };
    let current = state.preset.clone().unwrap_or_default();
    let groups = Seed::ALL.iter().map(|seed| {
        let options = all.iter().filter(|r| r.seed == *seed).map(|r| {
            let vs = match (r.columns.first(), r.columns.get(1)) {
                (Some(a), Some(b)) => format!(" ({} vs {})", a.kernel.label(), b.kernel.label()),
                (Some(a), None) => format!(" ({})", a.kernel.label()),
                _ => String::new(),
            };
            html! { <option value={r.id.clone()} selected={current == r.id}>{ format!("{}{vs}", r.title) }</option> }
        });
        html! { <optgroup label={format!("{}: {}", seed.name(), seed.title())}>{ for options }</optgroup> }
    });
    html! {
        <label class="param preset"><span>{ "preset" }</span>
            <select data-testid="preset" {onchange}>
                <option value="" selected={current.is_empty()}>{ "(custom scenario)" }</option>
                { for groups }
            </select>
        </label>
    }
}
