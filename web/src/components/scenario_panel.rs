//! The scenario's parameters. Any change re-runs the model at once; a bad
//! value shows a banner naming the field and keeps the last good state.

use folioscope_core::{Backing, Pattern, TmpfsFile};
use folioscope_scenario::{parse, Scenario};
use yew::prelude::*;

use crate::app::AppContext;
use crate::state::Action;

/// Which parameter an input edits.
#[derive(Clone, Copy, PartialEq)]
enum Field {
    FileSize,
    PageSize,
    ReadAheadKb,
    FaultAround,
    Madvise,
    Pattern,
    Thp,
    MemoryLimit,
    Kernel,
    Fs,
    TmpfsHuge,
    TmpfsFile,
    Hwpoison,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::FileSize => "file size",
            Field::PageSize => "page size",
            Field::ReadAheadKb => "read_ahead_kb",
            Field::FaultAround => "fault_around_bytes",
            Field::Madvise => "madvise",
            Field::Pattern => "pattern",
            Field::Thp => "THP",
            Field::MemoryLimit => "memory limit",
            Field::Kernel => "kernel",
            Field::Fs => "file system",
            Field::TmpfsHuge => "tmpfs huge=",
            Field::TmpfsFile => "tmpfs file",
            Field::Hwpoison => "hwpoison page",
        }
    }
}

/// The scenario with one field changed, or why not.
fn edit(s: &Scenario, field: Field, text: &str) -> Result<Scenario, String> {
    let mut s = s.clone();
    match field {
        Field::FileSize => s.file_size = parse::parse_size(text)?,
        Field::PageSize => s.page_size = parse::parse_size(text)?,
        Field::ReadAheadKb => {
            s.read_ahead_kb = text
                .trim()
                .parse()
                .map_err(|_| format!("'{text}' is not a whole number"))?
        }
        Field::FaultAround => s.fault_around_bytes = parse::parse_size(text)?,
        Field::Madvise => s.madvise = parse::parse_madvise(text)?,
        Field::Pattern => s.pattern = parse::parse_pattern(text, None)?,
        Field::Thp => s.thp = text == "on",
        Field::MemoryLimit => {
            s.memory_limit = if text.trim().is_empty() || text.trim() == "none" {
                None
            } else {
                Some(parse::parse_size(text)?)
            }
        }
        Field::Kernel => s.kernel = parse::parse_kernel_label(text)?,
        Field::Fs => {
            s.backing = if parse::parse_fs(text)? == parse::FileSystem::Tmpfs {
                // A tmpfs file is read with read(): keep a read pattern,
                // or start with the seed's 1M reads.
                if !s.pattern.uses_read() {
                    s.pattern = Pattern::Read { bs: 1 << 20 };
                }
                Backing::Tmpfs {
                    huge: false,
                    file: TmpfsFile::Written,
                }
            } else {
                s.hwpoison = None;
                Backing::Disk
            }
        }
        Field::TmpfsHuge | Field::TmpfsFile => {
            if let Backing::Tmpfs { huge, file } = &mut s.backing {
                match field {
                    Field::TmpfsHuge => *huge = text == "always",
                    _ => *file = parse::parse_tmpfs_file(text)?,
                }
            }
        }
        Field::Hwpoison => {
            s.hwpoison = if text.trim().is_empty() || text.trim() == "none" {
                None
            } else {
                Some(
                    text.trim()
                        .parse()
                        .map_err(|_| format!("'{text}' is not a page number"))?,
                )
            }
        }
    }
    Ok(s)
}

#[component]
pub fn ScenarioPanel() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let s = state.scenario.clone();
    let apply = |field: Field| {
        let state = state.clone();
        Callback::from(
            move |text: String| match edit(&state.scenario, field, &text) {
                Ok(next) => state.dispatch(Action::Apply(next)),
                Err(message) => state.dispatch(Action::Reject(field.name().into(), message)),
            },
        )
    };
    let text_input = |field: Field, id: &'static str, value: String| {
        let cb = apply(field);
        let onchange = Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            cb.emit(input.value());
        });
        html! {
            <label class="param"><span>{ field.name() }</span>
                <input type="text" data-testid={id} value={value} {onchange} />
            </label>
        }
    };
    let select = |field: Field, id: &'static str, value: String, options: Vec<(String, String)>| {
        let cb = apply(field);
        let onchange = Callback::from(move |e: Event| {
            let sel: web_sys::HtmlSelectElement = e.target_unchecked_into();
            cb.emit(sel.value());
        });
        html! {
            <label class="param"><span>{ field.name() }</span>
                <select data-testid={id} {onchange}>
                    { for options.into_iter().map(|(v, label)| html! { <option value={v.clone()} selected={v == value}>{ label }</option> }) }
                </select>
            </label>
        }
    };
    let kernels = folioscope_core::Variant::ALL
        .iter()
        .map(|v| (v.name().to_string(), v.name().to_string()))
        .collect();
    let madvise = folioscope_core::Madvise::ALL
        .iter()
        .map(|m| (m.name().to_string(), m.name().to_string()))
        .collect();
    let pages = ["4k", "16k", "64k"]
        .iter()
        .map(|p| (p.to_string(), p.to_string()))
        .collect();
    let compare_kernels: Vec<(String, String)> =
        std::iter::once(("".to_string(), "no".to_string()))
            .chain(
                folioscope_core::Variant::ALL
                    .iter()
                    .map(|v| (v.name().to_string(), v.name().to_string())),
            )
            .collect();
    let compare_value = state
        .compare
        .as_ref()
        .map(|c| c.run.scenario.kernel.variant.name().to_string())
        .unwrap_or_default();
    let oncompare = {
        let d = state.dispatcher();
        Callback::from(move |e: Event| {
            let sel: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let k = parse::parse_kernel_label(&sel.value()).ok();
            d.dispatch(Action::CompareWith(k));
        })
    };
    let patches = folioscope_core::Patch::ALL.iter().map(|p| {
        let p = *p;
        let on = s.kernel.has(p);
        let state = state.clone();
        let onchange = Callback::from(move |_| {
            let mut next = state.scenario.clone();
            next.kernel.patches = if on { next.kernel.patches.without(p) } else { next.kernel.patches.with(p) };
            state.dispatch(Action::Apply(next));
        });
        html! {
            <label class="patch" title={format!("{} ({})", p.summary(), p.source())}>
                <input type="checkbox" checked={on} {onchange} data-testid={format!("patch-{}", p.name())} />{ p.name() }
            </label>
        }
    });
    html! {
        <aside class="scenario">
            <h2>{ "scenario" }</h2>
            <crate::components::presets::Presets />
            { select(Field::Kernel, "p-kernel", s.kernel.variant.name().to_string(), kernels) }
            if !folioscope_core::Patch::ALL.is_empty() {
                <div class="patches"><span class="label">{ "patches" }</span>{ for patches }</div>
            }
            <label class="param"><span>{ "compare with" }</span>
                <select data-testid="p-compare" onchange={oncompare}>
                    { for compare_kernels.into_iter().map(|(v, l)| html! { <option value={v.clone()} selected={v == compare_value}>{ l }</option> }) }
                </select>
            </label>
            { text_input(Field::Pattern, "p-pattern", parse::format_pattern(&s.pattern)) }
            { select(Field::Madvise, "p-madvise", s.madvise.name().to_string(), madvise) }
            { text_input(Field::FileSize, "p-file-size", parse::format_size(s.file_size)) }
            { select(Field::PageSize, "p-page-size", parse::format_size(s.page_size), pages) }
            { text_input(Field::ReadAheadKb, "p-ra-kb", s.read_ahead_kb.to_string()) }
            { text_input(Field::FaultAround, "p-fault-around", parse::format_size(s.fault_around_bytes)) }
            { select(Field::Thp, "p-thp", if s.thp { "on".into() } else { "off".into() }, vec![("on".into(), "on".into()), ("off".into(), "off".into())]) }
            { text_input(Field::MemoryLimit, "p-memory-limit", s.memory_limit.map(parse::format_size).unwrap_or_else(|| "none".into())) }
            { select(Field::Fs, "p-fs", parse::FileSystem::of(s.backing).name().into(), vec![("disk".into(), "disk (ext4)".into()), ("tmpfs".into(), "tmpfs".into())]) }
            if let Backing::Tmpfs { huge, file } = s.backing {
                { select(Field::TmpfsHuge, "p-tmpfs-huge", if huge { "always".into() } else { "never".into() }, vec![("never".into(), "never".into()), ("always".into(), "always".into())]) }
                { select(Field::TmpfsFile, "p-tmpfs-file", file.name().into(), TmpfsFile::ALL.iter().map(|f| (f.name().to_string(), f.name().to_string())).collect()) }
                { text_input(Field::Hwpoison, "p-hwpoison", s.hwpoison.map(|p| p.to_string()).unwrap_or_else(|| "none".into())) }
            }
        </aside>
    }
}
