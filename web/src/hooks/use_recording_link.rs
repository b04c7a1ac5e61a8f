//! A recording carried in the page's link (`rec`), opened once at load:
//! it is unzipped by the browser, which answers later, so the app starts
//! on its default view and `State::opening` keeps the address as it was
//! until the recording's view replaces it.

use yew::prelude::*;

use crate::context::Dispatch;
use crate::url;

#[hook]
pub fn use_recording_link(dispatch: Dispatch) {
    use_effect_with((), move |_| {
        crate::recording::open_link(url::query(), dispatch);
    });
}
