//! The play loop: at each animation frame, the accesses owed since the
//! frame before ([`PlayClock`]), and the speed reached when it falls short
//! of the speed shown.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::render::{request_animation_frame, AnimationFrame};
use yew::prelude::*;

use crate::context::Dispatch;
use crate::play_clock::PlayClock;
use crate::slices::now_ms;
use crate::state::Action;

/// Ticks while `playing`, at 2^`speed_log2` accesses a second.
#[hook]
pub fn use_play(playing: bool, speed_log2: u32, dispatch: Dispatch) {
    use_effect_with((playing, speed_log2), move |&(playing, speed)| {
        let frame: Rc<RefCell<Option<AnimationFrame>>> = Default::default();
        if playing {
            fn schedule(
                frame: Rc<RefCell<Option<AnimationFrame>>>,
                d: Dispatch,
                mut clock: PlayClock,
                told: Option<u64>,
            ) {
                let next = frame.clone();
                *frame.borrow_mut() = Some(request_animation_frame(move |now| {
                    let n = clock.frame(now);
                    if n > 0 {
                        d.dispatch(Action::Tick(n));
                    }
                    let short = clock.shortfall();
                    if short != told {
                        d.dispatch(Action::Reached(short));
                    }
                    schedule(next, d, clock, short);
                }));
            }
            let clock = PlayClock::new(1 << speed, now_ms());
            schedule(frame.clone(), dispatch, clock, None);
        }
        move || {
            frame.borrow_mut().take();
        }
    });
}
