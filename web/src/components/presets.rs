//! Presets: one for every row of every seed table, grouped by seed. A
//! preset opens the view `folioscope_scenario::link::preset` makes of it:
//! the row's scenario, compared across every kernel of the row.

use folioscope_scenario::link::preset;
use folioscope_scenario::seeds::{rows, Seed};
use yew::prelude::*;

use crate::context::{use_handles, use_setup};
use crate::state::Action;

#[component]
pub fn Presets() -> Html {
    let d = use_handles().dispatch;
    let setup = use_setup();
    let all = use_memo((), |_| rows());
    let onchange = {
        Callback::from(move |e: Event| {
            let sel: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let id = sel.value();
            if let Some(view) = preset(&id) {
                d.dispatch(Action::Preset(Box::new(view)));
            }
        })
    };
    let current = setup.preset.clone().unwrap_or_default();
    let groups = Seed::ALL.iter().map(|seed| {
        let options = all.iter().filter(|r| r.seed == *seed).map(|r| {
            let kernels: Vec<String> = r.columns.iter().map(|c| c.kernel.label()).collect();
            let vs = format!(" ({})", kernels.join(" vs "));
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
