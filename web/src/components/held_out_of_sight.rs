//! A block of panels that stays at the step it shows as long as it is out
//! of sight and the view moves: the ra panels, the plots, the logs and
//! the xarray views below the timeline cost a jump or a frame of play
//! more than the strips above them (a default jump's median work went
//! from 15 ms to 9.5 ms with them held), and work spent on a panel
//! nobody sees is work the strips wait for. It catches up on the frame it
//! comes into sight, as play stops, and once the view has stood still
//! for [`SETTLE_MS`] after the last of a run of jumps (a drag of the
//! scrubber, keys held down). So what a screen reader or a find in the
//! page reads is the step on screen whenever the view stands still. A
//! new view (other timelines) always reaches it at once.
//!
//! A block whose top shows the same at every step (the kernels' names
//! over the ra panels) names its first element that follows the step:
//! while that is still below the viewport, the block is out of sight
//! even if its heading shows. At 1400×900 and 1440×900 the 16 GiB
//! comparison's panels show just their heading; following them took
//! about 10 ms of each frame of play (a traced frame's median, 28.6
//! against 17.3 ms).

use yew::prelude::*;

use crate::context::{use_moment, use_setup, use_ui, Moment, Setup};
use crate::hooks::{use_below_sight, use_in_sight, use_still};
use crate::state::Kept;

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
    /// The selector of the block's first element whose content follows
    /// the step; everything above it is the same at every step.
    #[prop_or_default]
    pub live: Option<&'static str>,
    /// Whether the block draws nothing until it first shows a built view:
    /// for the panels at the foot of the page, whose drawing of the view
    /// being built (346 of the 715 elements of the default view's first
    /// paint, at 1400×900 all below the fold) would cost the first paint
    /// for panels that say nothing yet. Once drawn, a block keeps its
    /// place through later builds.
    #[prop_or_default]
    pub after_first_build: bool,
    pub children: Html,
}

/// Its children read the [`Setup`] and [`Moment`] it provides: the
/// app's, or while held, the ones it last passed on. It holds a view
/// being built too: out of sight, the blocks show their places until the
/// view has stood still, so the first view on screen is drawn sooner.
/// From one built view to another it follows at once, as the seekers
/// serve one view at a time.
#[component]
pub fn HeldOutOfSight(props: &Props) -> Html {
    let moment = use_moment();
    let setup = use_setup();
    let node = use_node_ref();
    let in_sight = use_in_sight(&node, "0px");
    let live_below = use_below_sight(&node, props.live);
    let in_sight = in_sight && !live_below;
    // The view's identity, not the view: a wait keeps the last value it
    // saw, and the last view's timelines then stayed in memory through
    // the next view's build (48.8 MB of the 16 GiB comparison's, as the
    // 16 GiB backward sequential link's build began).
    let now = (setup.built.as_ref().map(Kept::id), moment.clone());
    let still = use_still(&now, SETTLE_MS);
    // Play stopping re-renders the blocks' controls: held, they drew the
    // step they hold, which moved every kernel's seeker back to it and
    // then forward again for the strips (a log: 20748 -> 0 -> 20748).
    // They catch up then instead, as they would SETTLE_MS later.
    let playing = use_ui().playing;
    let was_playing = use_mut_ref(|| playing);
    let stopped = std::mem::replace(&mut *was_playing.borrow_mut(), playing) && !playing;
    let shown = use_mut_ref(|| (setup.clone(), moment.clone()));
    let other_view = {
        let s = shown.borrow();
        s.0.built.is_some() && s.0.built != setup.built
    };
    if in_sight || other_view || stopped || still == now {
        *shown.borrow_mut() = (setup.clone(), moment.clone());
    }
    let (shown_setup, shown_moment) = shown.borrow().clone();
    let drawn_built = use_mut_ref(|| false);
    if shown_setup.built.is_some() {
        *drawn_built.borrow_mut() = true;
    }
    let blank = props.after_first_build && !*drawn_built.borrow();
    // For tests and curious readers: the block shows another step.
    let held = shown_moment != moment || shown_setup.built != setup.built;
    html! {
        <div ref={node} class={classes!("held", props.class.clone())} data-testid={props.testid.clone()} data-held={held.then_some("1")}>
            if !blank {
                <ContextProvider<Setup> context={shown_setup}>
                    <ContextProvider<Moment> context={shown_moment}>
                        { props.children.clone() }
                    </ContextProvider<Moment>>
                </ContextProvider<Setup>>
            }
        </div>
    }
}
