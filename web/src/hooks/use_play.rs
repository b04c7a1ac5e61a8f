//! The play loop: one animation frame, one tick of speed/60 accesses.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::render::{request_animation_frame, AnimationFrame};
use yew::prelude::*;

use crate::context::Dispatch;
use crate::state::Action;

/// Ticks while `playing`, at 2^`speed_log2` accesses a second.
#[hook]
pub fn use_play(playing: bool, speed_log2: u32, dispatch: Dispatch) {
    use_effect_with((playing, speed_log2), move |&(playing, speed)| {
        let frame: Rc<RefCell<Option<AnimationFrame>>> = Default::default();
        if playing {
            fn schedule(frame: Rc<RefCell<Option<AnimationFrame>>>, d: Dispatch, speed: u32) {
                let next = frame.clone();
                *frame.borrow_mut() = Some(request_animation_frame(move |_| {
                    let per_frame = ((1u64 << speed) / 60).max(1);
                    d.dispatch(Action::Tick(per_frame));
                    schedule(next, d, speed);
                }));
            }
            schedule(frame.clone(), dispatch, speed);
        }
        move || {
            frame.borrow_mut().take();
        }
    });
}
