//! A value once it has stood still: what the view shows only when the
//! user stops moving waits for it (the blocks out of sight, a folio's
//! origin). Each waiter has one timer, set when a wait starts. A timer
//! that rings while the value still moves sets itself again for the rest
//! of the wait without a render: a move costs a clock read, not a timer
//! set and cleared, nor a render of the waiter, on every frame of play.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

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
    let wait = use_mut_ref(|| Wait {
        still: value.clone(),
        seen: value.clone(),
        seen_at: 0.0,
        timer: None,
    });
    let now = js_sys::Date::now();
    let mut w = wait.borrow_mut();
    if w.seen != *value {
        w.seen = value.clone();
        w.seen_at = now;
    }
    if w.still != w.seen {
        let left = left_of(ms, w.seen_at, now);
        if left <= 1.0 {
            w.still = w.seen.clone();
            w.timer = None;
        } else if w.timer.is_none() {
            w.timer = Some(ring_after(Rc::downgrade(&wait), ms, left, redraw));
        }
    }
    w.still.clone()
}

/// Milliseconds of a wait of `ms` left at `now` for a value seen since
/// `seen_at`. A timer rings no sooner than asked, but the clock reads
/// whole milliseconds: a wait with a millisecond or less left is over.
fn left_of(ms: u32, seen_at: f64, now: f64) -> f64 {
    ms as f64 - (now - seen_at)
}

/// A timer for the rest of a wait. When it rings, the waiter renders if
/// the value has stood still since; otherwise it is set again for what
/// is left. During play it used to render the waiter each time it rang
/// (every 120 ms, a held block and what it holds, 1 to 1.5 ms of the
/// frame it rang in at 1920×1080 on the 16 GiB comparison).
fn ring_after<T: 'static>(
    wait: Weak<RefCell<Wait<T>>>,
    ms: u32,
    left: f64,
    redraw: UseForceUpdateHandle,
) -> Timeout {
    Timeout::new(left.ceil() as u32, move || {
        // A waiter gone (its component unmounted) is not waited for.
        let Some(rc) = wait.upgrade() else {
            return;
        };
        let left = left_of(ms, rc.borrow().seen_at, js_sys::Date::now());
        // Replacing the timer that rings is safe: a closure dropped while
        // it runs is freed once it returns.
        if left <= 1.0 {
            rc.borrow_mut().timer = None;
            redraw.force_update();
        } else {
            rc.borrow_mut().timer = Some(ring_after(wait, ms, left, redraw));
        }
    })
}
