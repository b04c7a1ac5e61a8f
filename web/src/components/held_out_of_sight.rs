//! A block of panels that, while play runs, stays at the step it shows
//! as long as it is out of sight: the ra panels, the plots, the logs and
//! the xarray views below the timeline cost a frame more than the strips
//! above them, and a frame spent on a panel nobody sees is one the strips
//! do not get. It catches up on the frame it comes into sight, and when
//! play stops. A jump, or a step by hand, always reaches it: only play is
//! held, so what a screen reader or a find in the page reads is the step
//! on screen whenever the view stands still.

use yew::prelude::*;

use crate::context::{use_moment, use_ui, Moment};
use crate::hooks::use_in_sight;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The block's class, as the element it replaces had it.
    #[prop_or_default]
    pub class: Classes,
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    pub children: Html,
}

/// Its children read the [`Moment`] it provides: the app's, or while
/// held, the one it last passed on.
#[component]
pub fn HeldOutOfSight(props: &Props) -> Html {
    let moment = use_moment();
    let playing = use_ui().playing;
    let node = use_node_ref();
    let in_sight = use_in_sight(&node, "0px");
    let shown = use_mut_ref(|| moment.clone());
    if in_sight || !playing {
        *shown.borrow_mut() = moment;
    }
    let shown: Moment = shown.borrow().clone();
    html! {
        <div ref={node} class={classes!("held", props.class.clone())} data-testid={props.testid.clone()}>
            <ContextProvider<Moment> context={shown}>
                { props.children.clone() }
            </ContextProvider<Moment>>
        </div>
    }
}
