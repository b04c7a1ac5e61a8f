//! The scenario's parameters, one control each, drawn from the one table
//! of parameters (`folioscope_scenario::params`): its label, control,
//! formatter and parser. Any change re-runs the model at once; a bad
//! value shows a banner naming the field and keeps the last good state.

use folioscope_scenario::link::MAX_KERNELS;
use folioscope_scenario::params::{self, kernel_choices, Control, Param, PARAMS};
use folioscope_scenario::{describe, parse};
use yew::prelude::*;

use crate::context::{use_handles, use_setup};
use crate::state::Action;

/// A labelled select of `(value, label)` options.
fn select(
    label: &'static str,
    help: &'static str,
    id: String,
    value: &str,
    options: Vec<(String, String)>,
    onchange: Callback<String>,
) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let sel: web_sys::HtmlSelectElement = e.target_unchecked_into();
        onchange.emit(sel.value());
    });
    html! {
        <label class="param" title={help}><span>{ label }</span>
            <select data-testid={id} {onchange}>
                { for options.into_iter().map(|(v, l)| html! { <option value={v.clone()} selected={v == value}>{ l }</option> }) }
            </select>
        </label>
    }
}

#[component]
pub fn ScenarioPanel() -> Html {
    let d = use_handles().dispatch;
    let setup = use_setup();
    let s = setup.scenario.clone();
    let apply = |p: &'static Param| {
        let (d, s) = (d.clone(), s.clone());
        Callback::from(move |text: String| match params::edit(&s, p, &text) {
            Ok(next) => d.dispatch(Action::Apply(next)),
            Err(message) => d.dispatch(Action::Reject(p.label.into(), message)),
        })
    };
    let patches = || {
        folioscope_core::Patch::ALL.iter().map(|p| {
            let p = *p;
            let on = s.kernel.has(p);
            let (d, s) = (d.clone(), s.clone());
            let onchange = Callback::from(move |_| {
                let mut next = s.clone();
                next.kernel = parse::with_toggles(&next.kernel, &[(p, !on)]);
                d.dispatch(Action::Apply(next));
            });
            html! {
                <label class="patch" title={format!("{} ({})", describe::patch(p), describe::patch_source(p))}>
                    <input type="checkbox" checked={on} {onchange} data-testid={format!("patch-{}", p.name())} />{ p.name() }
                </label>
            }
        })
    };
    // One select for each kernel compared with the first, and one more
    // to add a kernel while there is room.
    let compared = setup.compare.clone();
    let room = compared.len() + 1 < MAX_KERNELS;
    let compare = compared
        .into_iter()
        .map(Some)
        .chain(room.then_some(None))
        .enumerate()
        .map(|(place, current)| {
            let value = current.as_ref().map(|k| k.label()).unwrap_or_default();
            let base = current.unwrap_or_else(folioscope_core::Kernel::v6_18);
            let options = std::iter::once((String::new(), "no".to_string()))
                .chain(kernel_choices(&base))
                .collect();
            let d = d.clone();
            let onchange = Callback::from(move |label: String| {
                let kernel = parse::parse_kernel_label(&label).ok();
                d.dispatch(Action::CompareWith(place, kernel))
            });
            let id = match place {
                0 => "p-compare".to_string(),
                n => format!("p-compare-{}", n + 1),
            };
            select(
                "compare with",
                "Another kernel, run on the same scenario side by side.",
                id,
                &value,
                options,
                onchange,
            )
        })
        .collect::<Html>();
    let control = |p: &'static Param| {
        let id = format!("p-{}", p.flag);
        let value = (p.format)(&s);
        match p.control {
            Control::Text => {
                let cb = apply(p);
                let onchange = Callback::from(move |e: Event| {
                    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                    cb.emit(input.value());
                });
                html! {
                    <label class="param" title={p.help}><span>{ p.label }</span>
                        <input type="text" data-testid={id} {value} {onchange} />
                    </label>
                }
            }
            Control::Choice(options) => select(p.label, p.help, id, &value, options(), apply(p)),
            Control::Kernel => html! {
                <>
                    { select(p.label, p.help, id, &value, kernel_choices(&s.kernel), apply(p)) }
                    <div class="patches"><span class="label">{ "patches" }</span>{ for patches() }</div>
                    { compare.clone() }
                </>
            },
        }
    };
    html! {
        <aside class="scenario">
            <h2>{ "scenario" }</h2>
            <crate::components::presets::Presets />
            { for PARAMS.iter().filter(|p| p.applies_to(&s)).map(control) }
        </aside>
    }
}
