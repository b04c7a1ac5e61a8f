//! "Open recording…" and "Open probe report…": real buttons, reached by
//! keyboard, for what can also be dropped on the page. Each opens the
//! browser's file picker; the file is read by `recording::open_file`,
//! which tells a recording from a probe report by its content.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::context::use_handles;

#[component]
pub fn OpenButtons() -> Html {
    let d = use_handles().dispatch;
    let inputs = [use_node_ref(), use_node_ref()];
    let onchange = Callback::from(move |e: Event| {
        let i: HtmlInputElement = e.target_unchecked_into();
        if let Some(f) = i.files().and_then(|l| l.get(0)) {
            crate::recording::open_file(f, d.clone());
        }
        // The same file chosen again is a change again.
        i.set_value("");
    });
    let pickers = [
        ("Open recording…", "open-recording", ".gz,.rec,.txt,application/gzip,text/plain",
            "Replay a real program recorded with `folioscope record` (.rec.gz, or its text), with the real kernel's page cache under the model's; or drop the file on the page."),
        ("Open probe report…", "open-probe", ".json,application/json",
            "Show a `folioscope probe --json` report under the model at its step; or drop the file on the page."),
    ];
    html! {
        <div class="open-file">
            { for pickers.into_iter().zip(inputs).map(|((label, id, accept, help), input)| {
                let onclick = {
                    let input = input.clone();
                    Callback::from(move |_: MouseEvent| {
                        if let Some(i) = input.cast::<HtmlInputElement>() {
                            i.click();
                        }
                    })
                };
                html! {
                    <>
                        <button {onclick} data-testid={id} title={help}>{ label }</button>
                        <input ref={input} type="file" class="file-input" {accept} onchange={onchange.clone()}
                            tabindex="-1" aria-hidden="true" data-testid={format!("{id}-input")} />
                    </>
                }
            }) }
        </div>
    }
}
