//! The scenario's parameters, one control each, drawn from the one table
//! of parameters (`folioscope_scenario::params`): its label, control,
//! formatter and parser. Any change re-runs the model at once; a bad
//! value shows a banner naming the field and keeps the last good state.
//! Every kernel on screen has its variant's description and its patch
//! toggles, each with what it changes and where it comes from.

use folioscope_core::{Kernel, Patch};
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

/// A kernel's variant in words, and its patch toggles, each with what it
/// changes and where it comes from; `suffix` tells a compared kernel's
/// test ids (`b-`, `c-`) apart, and `onchange` gets the kernel with a
/// patch toggled. The toggles fold away under their count, since the
/// descriptions are long, and their rows are made once `unfolded` (a
/// kernel's list was opened; `ontoggle` hears it open): 86 elements a
/// kernel, 258 of the 970 on the default view's first paint, which nobody
/// sees until they open a list.
fn patch_toggles(
    k: &Kernel,
    suffix: &str,
    onchange: Callback<Kernel>,
    unfolded: bool,
    ontoggle: Callback<Event>,
) -> Html {
    let on = Patch::ALL.iter().filter(|p| k.has(**p)).count();
    let toggles = Patch::ALL.iter().map(|&p| {
        let has = k.has(p);
        let (k, onchange) = (k.clone(), onchange.clone());
        let toggle = Callback::from(move |_| onchange.emit(parse::with_toggles(&k, &[(p, !has)])));
        html! {
            <div class="patch-row">
                <label class="patch">
                    <input type="checkbox" checked={has} onchange={toggle} data-testid={format!("patch-{suffix}{}", p.name())} />{ p.name() }
                </label>
                <div class="patch-desc">
                    { describe::patch(p) }
                    if let Some(b) = describe::patch_behaviour(p) { { format!("; {b}") } }
                    { " \u{2014} " }{ source(describe::patch_source(p)) }
                </div>
            </div>
        }
    });
    // The side's test id suffix: none for the first kernel, `-b`, `-c`.
    let side = suffix
        .strip_suffix('-')
        .map(|c| format!("-{c}"))
        .unwrap_or_default();
    html! {
        <>
            <p class="kernel-desc" data-testid={format!("variant-desc{side}")}>
                { describe::variant(k.variant) }
            </p>
            // The browser opens and closes it; the rows are made once it opened.
            <details class="patches" data-testid={format!("patches{side}")} {ontoggle}>
                <summary>{ format!("patches of {} ({on} on)", k.label()) }</summary>
                if unfolded { { for toggles } }
            </details>
        </>
    }
}

/// A patch's source, with its links as links.
fn source(text: &'static str) -> Html {
    text.split(", ")
        .enumerate()
        .map(|(i, part)| {
            let sep = if i > 0 { ", " } else { "" };
            let url = part.find("https://").map(|at| &part[at..]);
            match url {
                Some(u) => html! { <>{ sep }{ &part[..part.len() - u.len()] }<a href={u} target="_blank" rel="noopener">{ u }</a></> },
                None => html! { <>{ sep }{ part }</> },
            }
        })
        .collect()
}

#[component]
pub fn ScenarioPanel() -> Html {
    let d = use_handles().dispatch;
    let setup = use_setup();
    let s = setup.scenario.clone();
    // Whether a patch list was opened: from then on every kernel's has
    // its rows.
    let unfolded = use_state(|| false);
    let ontoggle = {
        let unfolded = unfolded.clone();
        Callback::from(move |e: Event| {
            let details: web_sys::Element = e.target_unchecked_into();
            // A state set, even to the same value, draws the panel again.
            if !*unfolded && details.has_attribute("open") {
                unfolded.set(true);
            }
        })
    };
    let apply = |p: &'static Param| {
        let (d, s) = (d.clone(), s.clone());
        Callback::from(move |text: String| match params::edit(&s, p, &text) {
            Ok(next) => d.dispatch(Action::Apply(next)),
            Err(message) => d.dispatch(Action::Reject(p.label.into(), message)),
        })
    };
    // The first kernel's patches change the scenario; a compared
    // kernel's, that kernel.
    let first_patches = {
        let (d, s) = (d.clone(), s.clone());
        patch_toggles(
            &s.kernel.clone(),
            "",
            Callback::from(move |k: Kernel| {
                let mut next = s.clone();
                next.kernel = k;
                d.dispatch(Action::Apply(next));
            }),
            *unfolded,
            ontoggle.clone(),
        )
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
            let onchange = {
                let d = d.clone();
                Callback::from(move |label: String| {
                    let kernel = parse::parse_kernel_label(&label).ok();
                    d.dispatch(Action::CompareWith(place, kernel))
                })
            };
            let id = match place {
                0 => "p-compare".to_string(),
                n => format!("p-compare-{}", n + 1),
            };
            let chosen = (!value.is_empty()).then(|| {
                let suffix = format!("{}-", (b'b' + place as u8) as char);
                patch_toggles(
                    &base,
                    &suffix,
                    Callback::from(move |k: Kernel| {
                        d.dispatch(Action::CompareWith(place, Some(k)))
                    }),
                    *unfolded,
                    ontoggle.clone(),
                )
            });
            html! {
                <>
                    { select(
                        "compare with",
                        "Another kernel, run on the same scenario side by side.",
                        id,
                        &value,
                        options,
                        onchange,
                    ) }
                    { chosen.unwrap_or_default() }
                </>
            }
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
                    { first_patches.clone() }
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
