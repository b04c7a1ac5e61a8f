//! A value once it has stood still: what the view shows only when the
//! user stops moving waits for it (the blocks out of sight, a folio's
//! origin). Each waiter has one timer, set when a wait starts and set
//! again for the rest of the wait when it rings early, so a move costs a
//! clock read, not a timer set and cleared on every frame of play.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::timers::callback::Timeout;
use yew::prelude::*;

struct Wait<T> {
    /// What is returned: the last value seen unchanged for the wait.
    still: T,
    /// The value of the last render, and since when it has been so.
    seen: T,
    seen_at: f64,
    timer: Option<Timeout>,
}

/// `value` once it has been the same for `ms` milliseconds, as the
/// renders of the component saw it; at first, the first value. The
/// component renders again when a wait ends.
#[hook]
pub fn use_still<T: Clone + PartialEq + 'static>(value: &T, ms: u32) -> T {
    let redraw = use_force_update();
    let rang: Rc<RefCell<bool>> = use_mut_ref(|| false);
    let wait = use_mut_ref(|| Wait {
        still: value.clone(),
        seen: value.clone(),
        seen_at: 0.0,
        timer: None,
    });
    let mut w = wait.borrow_mut();
    let now = js_sys::Date::now();
    if w.seen != *value {
        w.seen = value.clone();
        w.seen_at = now;
    }
    if std::mem::take(&mut *rang.borrow_mut()) {
        w.timer = None;
    }
    if w.still != w.seen {
        // A timer rings no sooner than asked, but the clock reads whole
        // milliseconds.
        let left = ms as f64 - (now - w.seen_at);
        if left <= 1.0 {
            w.still = w.seen.clone();
            w.timer = None;
        } else if w.timer.is_none() {
            let rang = rang.clone();
            w.timer = Some(Timeout::new(left.ceil() as u32, move || {
                *rang.borrow_mut() = true;
                redraw.force_update();
            }));
        }
    }
    w.still.clone()
}
