//! A block of panels that stays at the step it shows as long as it is out
//! of sight and the view moves: the ra panels, the plots, the logs and
//! the xarray views below the timeline cost a jump or a frame of play
//! more than the strips above them (a default jump's median work went
//! from 15 ms to 9.5 ms with them held), and work spent on a panel
//! nobody sees is work the strips wait for. It catches up on the frame it
//! comes into sight, and once the view has stood still for
//! [`SETTLE_MS`]: after play stops, or after the last of a run of jumps
//! (a drag of the scrubber, keys held down). So what a screen reader or
//! a find in the page reads is the step on screen whenever the view
//! stands still. A new view (other timelines) always reaches it at once.

use yew::prelude::*;

use crate::context::{use_moment, use_setup, Moment};
use crate::hooks::{use_in_sight, use_still};
use crate::state::{Built, Kept};

/// How long the view stands still before a block out of sight catches
/// up: longer than a frame or two between the jumps of a drag, short
/// enough that a reader who stops finds the block there.
pub const SETTLE_MS: u32 = 120;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The block's class, as the element it replaces had it.
    #[prop_or_default]
    pub class: Classes,
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    pub children: Html,
}

/// What a block shows: the view's timelines and the moment it passes on.
type Shown = (Option<Kept<Built>>, Moment);

/// Its children read the [`Moment`] it provides: the app's, or while
/// held, the one it last passed on.
#[component]
pub fn HeldOutOfSight(props: &Props) -> Html {
    let moment = use_moment();
    let built = use_setup().built;
    let node = use_node_ref();
    let in_sight = use_in_sight(&node, "0px");
    let still = use_still(&moment, SETTLE_MS);
    let shown = use_mut_ref::<Shown, _>(|| (built.clone(), moment.clone()));
    let same_view = shown.borrow().0 == built;
    if in_sight || !same_view || still == moment {
        *shown.borrow_mut() = (built, moment.clone());
    }
    let shown: Moment = shown.borrow().1.clone();
    // For tests and curious readers: the block shows another step.
    let held = shown != moment;
    html! {
        <div ref={node} class={classes!("held", props.class.clone())} data-testid={props.testid.clone()} data-held={held.then_some("1")}>
            <ContextProvider<Moment> context={shown}>
                { props.children.clone() }
            </ContextProvider<Moment>>
        </div>
    }
}
