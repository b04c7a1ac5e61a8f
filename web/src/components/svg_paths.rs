//! SVG paths built once and drawn many times: the plots' curves and the
//! scrubber's density. The props compare by pointer, so a render that
//! keeps the same memoised paths skips them; comparing path strings of
//! hundreds of kilobytes took milliseconds on every step.

use std::rc::Rc;

use yew::prelude::*;

/// Paths with their CSS classes.
pub type Paths = Vec<(AttrValue, &'static str)>;

#[derive(Properties)]
pub struct SvgPathsProps {
    pub paths: Rc<Paths>,
}

impl PartialEq for SvgPathsProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.paths, &other.paths)
    }
}

#[component]
pub fn SvgPaths(props: &SvgPathsProps) -> Html {
    props
        .paths
        .iter()
        .map(|(d, class)| html! { <path d={d.clone()} class={*class} /> })
        .collect()
}
