//! The page's address follows the view: the first settled view replaces
//! the loaded address, later ones become history entries; going back or
//! forward restores the view of that entry without adding one. While
//! playing the view changes every frame and never settles, so no link is
//! written until it stops.

use std::cell::RefCell;
use std::rc::Rc;

use folioscope_scenario::link::parse_link;
use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use yew::prelude::*;

use crate::context::Dispatch;
use crate::state::Action;
use crate::url;

/// How long the view must stay still before it becomes a history entry,
/// so that playing does not flood the history.
const HISTORY_DEBOUNCE_MS: u32 = 500;

/// Keeps the address at `link`, the view's permalink (none while playing).
#[hook]
pub fn use_history(link: Option<String>, dispatch: Dispatch) {
    let timer: Rc<RefCell<Option<Timeout>>> = use_mut_ref(|| None);
    let first = use_mut_ref(|| true);
    let restoring = use_mut_ref(|| false);
    {
        let restoring = restoring.clone();
        use_effect_with((), move |_| {
            let listener = EventListener::new(&gloo::utils::window(), "popstate", move |_| {
                *restoring.borrow_mut() = true;
                let query = url::query();
                if !crate::recording::open_link(query.clone(), dispatch.clone()) {
                    let p = parse_link(&query);
                    dispatch.dispatch(Action::OpenView(Box::new(p.view), p.ignored));
                }
            });
            move || drop(listener)
        });
    }
    use_effect_with(link, move |link| {
        let Some(link) = link.clone() else {
            timer.borrow_mut().take();
            return;
        };
        let t = Timeout::new(HISTORY_DEBOUNCE_MS, move || {
            if link != url::href() {
                let push = !*first.borrow() && !*restoring.borrow();
                url::set(&link, push);
            }
            *first.borrow_mut() = false;
            *restoring.borrow_mut() = false;
        });
        *timer.borrow_mut() = Some(t);
    });
}
