//! `file_ra_state` and the running counters, with `mmap_miss` as a gauge
//! against MMAP_LOTSAMISS.

use folioscope_core::fault::MMAP_LOTSAMISS;
use yew::prelude::*;

use crate::app::AppContext;

#[component]
pub fn RaPanel() -> Html {
    let state = use_context::<AppContext>().expect("app context");
    let run = state.run.clone();
    let sim = run.sim.borrow();
    let m = sim.machine();
    let ra = m.ra;
    let c = m.counters;
    let stats = m.cache.xa.stats();
    // The gauge spans 0..=2×MMAP_LOTSAMISS, the line sits in the middle.
    let full = 2.0 * MMAP_LOTSAMISS as f64;
    let pct = (ra.mmap_miss as f64 / full * 100.0).min(100.0);
    let over = ra.mmap_miss > MMAP_LOTSAMISS;
    let field = |name: &'static str, id: &'static str, v: String| {
        html! { <div class="field"><span class="name">{ name }</span><span class="value" data-testid={id}>{ v }</span></div> }
    };
    html! {
        <div class="panels">
            <section class="panel">
                <h2>{ "file_ra_state" }</h2>
                { field("start", "ra-start", ra.start.to_string()) }
                { field("size", "ra-size", ra.size.to_string()) }
                { field("async_size", "ra-async", ra.async_size.to_string()) }
                { field("ra_pages", "ra-pages", ra.ra_pages.to_string()) }
                { field("order", "ra-order", ra.order.to_string()) }
                { field("prev_pos", "ra-prev", ra.prev_pos.to_string()) }
                <div class="gauge" title="mmap_miss against MMAP_LOTSAMISS (100)">
                    <span class="name">{ "mmap_miss" }</span>
                    <div class="gauge-bar">
                        <div class={classes!("gauge-fill", over.then_some("over"))} style={format!("width:{pct:.1}%")} />
                        <div class="gauge-line" />
                    </div>
                    <span class="value" data-testid="mmap-miss">{ ra.mmap_miss }</span>
                </div>
            </section>
            <section class="panel">
                <h2>{ "counters" }</h2>
                { field("accesses", "step", format!("{} / {}", state.step, state.len())) }
                { field("major faults", "major", c.major_faults.to_string()) }
                { field("minor faults", "minor", c.minor_faults.to_string()) }
                { field("MB read", "mb-read", format!("{:.1}", c.bytes_read as f64 / 1048576.0)) }
                { field("read I/Os", "ios", c.read_ios.to_string()) }
                { field("xarray node visits", "visits", stats.node_visits.to_string()) }
            </section>
        </div>
    }
}
