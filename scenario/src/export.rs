//! Plain text for mailing lists, which take no HTML: a view as a summary
//! of at most 78 columns, with its permalink, and back again ([`read`]).
//!
//! The text holds the permalink, the scenario's parameters, a table of the
//! figures of each kernel at the step (laid out like the seeds' tables),
//! and optionally the event lines of the accesses around the step. The
//! permalink is never wrapped, as kernel mail never wraps lore links: a
//! wrapped link cannot be clicked, and a reply's quote marks land inside
//! it. It is kept short instead: parameters at their defaults (or at the
//! preset's) are left out.

use folioscope_core::{EventLog, NoEvents, Simulation, Summary, Timeline};

use crate::link::{to_link, View};
use crate::params::PARAMS;
use crate::report::ReadPathReport;
use crate::story::{numbered_lines, seed_story, Stop, Story};
use crate::text::{event_line, wrap};
use folioscope_core::Scenario;

mod read;

pub use read::parse_text;

/// The widest line of an export, but for the permalink, which is never
/// wrapped.
pub const WIDTH: usize = 78;

/// One kernel's figures at the step, and the event lines around it.
struct Side {
    label: String,
    summary: Summary,
    read_path: Option<ReadPathReport>,
    events: Vec<String>,
}

/// Runs one access and adds its events to `out` as `#access line`
/// strings. The events go through the core's `EventLog`, a sink the
/// app's wasm has anyway, rather than a sink of this crate's own: each
/// sink type is another copy of the model there.
fn step_lines(sim: &mut Simulation, out: &mut Vec<String>) {
    let access = sim.step_count() + 1;
    let mut events = EventLog::new();
    sim.step(&mut events);
    out.extend(
        events
            .events()
            .iter()
            .map(|e| format!("#{access} {}", event_line(e))),
    );
}

fn run_side(scenario: &Scenario, step: u64, around: u64) -> Result<Side, String> {
    let cfg = scenario.config().map_err(|e| e.to_string())?;
    let label = cfg.kernel.label();
    let uses_read = cfg.pattern.uses_read();
    let mut sim = Simulation::new(cfg);
    let len = sim.len();
    sim.run_to(step.saturating_sub(around), &mut NoEvents);
    let mut events = Vec::new();
    while sim.step_count() < step {
        step_lines(&mut sim, &mut events);
    }
    let summary = Summary::of(sim.machine());
    if around > 0 && sim.step_count() < len {
        events.push(format!("---- step {step} ----"));
    }
    while sim.step_count() < (step + around).min(len) {
        step_lines(&mut sim, &mut events);
    }
    let read_path = uses_read.then(|| ReadPathReport::of(&summary));
    Ok(Side {
        label,
        summary,
        read_path,
        events,
    })
}

/// The view's story as stops: its own, or the seed preset's placed by
/// the model's runs of its kernels.
fn story_stops(view: &View) -> Result<Vec<Stop>, String> {
    Ok(match &view.story {
        Story::None => Vec::new(),
        Story::Own(stops) => stops.clone(),
        Story::Seed => {
            let timelines = view
                .scenarios()
                .iter()
                .map(|s| {
                    s.config()
                        .map(|c| Timeline::build(c, TIMELINE_BYTES))
                        .map_err(|e| e.to_string())
                })
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Timeline> = timelines.iter().collect();
            view.preset
                .as_deref()
                .and_then(|p| seed_story(p, refs.as_slice()))
                .unwrap_or_default()
        }
    })
}

/// The checkpoints' budget of the timelines a seed story is placed by.
const TIMELINE_BYTES: usize = 64 << 20;

/// The scenario in one line (wrapped like any text): every parameter
/// that applies to it besides the kernel, by its link key, so that a
/// reader can find each in the link and change it there.
pub fn describe(s: &Scenario) -> String {
    PARAMS
        .iter()
        .filter(|p| !p.is_kernel() && p.applies_to(s))
        .map(|p| format!("{} {}", p.key, (p.format)(s)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The view as text for a mail: `base` is the app's address for the
/// permalink, `around` the accesses of events to list before and after
/// the step (0 for none).
pub fn export(view: &View, title: &str, base: &str, around: u64) -> Result<String, String> {
    let cfg = view.scenario.config().map_err(|e| e.to_string())?;
    let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
    let step = view.step.unwrap_or(len).min(len);
    let sides = view
        .scenarios()
        .iter()
        .map(|s| run_side(s, step, around))
        .collect::<Result<Vec<_>, _>>()?;

    let mut out: Vec<String> = Vec::new();
    out.extend(wrap(&format!("folioscope: {title}"), WIDTH, "  "));
    // Whole, however long: see the module's comment.
    out.push(to_link(view, base));
    out.push(String::new());
    out.extend(wrap(&describe(&view.scenario), WIDTH, "  "));
    out.push(format!("step {step} of {len}"));
    out.push(String::new());
    let stops = story_stops(view)?;
    if !stops.is_empty() {
        out.push("story:".into());
        for line in numbered_lines(&stops, len) {
            out.extend(wrap(&format!("  {line}"), WIDTH, "     "));
        }
        out.push(String::new());
    }

    // The kernels share 52 columns: 26 each for two, 17 for three.
    let col = 52 / sides.len().max(1);
    let name_w = WIDTH - 2 - col * sides.len();
    let fit = |s: &str, w: usize| {
        if s.len() > w - 1 {
            format!("{}~", &s[..s.floor_char_boundary(w - 2)])
        } else {
            s.to_string()
        }
    };
    let mut header = format!("  {:<name_w$}", "");
    for s in &sides {
        header.push_str(&format!("{:>col$}", fit(&s.label, col)));
    }
    out.push(header);
    let mut row = |name: &str, value: &dyn Fn(&Side) -> String| {
        let mut line = format!("  {:<name_w$}", name);
        for s in &sides {
            line.push_str(&format!("{:>col$}", value(s)));
        }
        out.push(line.trim_end().to_string());
    };
    let mb = |b: u64| format!("{:.1}", b as f64 / 1048576.0);
    // A tmpfs file does no I/O, faults nothing and reads no ahead.
    if !view.scenario.backing.is_tmpfs() {
        row("major faults", &|s| s.summary.major_faults.to_string());
        row("minor faults", &|s| s.summary.minor_faults.to_string());
        row("MB read", &|s| mb(s.summary.bytes_read));
        row("read I/Os", &|s| s.summary.read_ios.to_string());
        row("mmap_miss", &|s| s.summary.mmap_miss.to_string());
        row("ra start+size/async", &|s| {
            let r = &s.summary.ra;
            format!("{}+{}/{}", r.start, r.size, r.async_size)
        });
    }
    row("resident pages", &|s| s.summary.resident_pages.to_string());
    row("xarray node visits", &|s| {
        s.summary.xa.node_visits.to_string()
    });
    if sides.iter().any(|s| s.read_path.is_some()) {
        let rp = |f: fn(&ReadPathReport) -> u64| {
            move |s: &Side| s.read_path.as_ref().map(f).unwrap_or(0).to_string()
        };
        row("read loop turns", &rp(|r| r.iterations));
        row("shmem_get_folio", &rp(|r| r.shmem_get_folio));
        row("get_folios_contig", &rp(|r| r.get_folios_contig));
        row("xas_load", &rp(|r| r.xas_load));
        row("xas_next", &rp(|r| r.xas_next));
        row("folio refs (get+put)", &rp(|r| r.folio_get + r.folio_put));
        row(
            "folio locks (+unlock)",
            &rp(|r| r.folio_lock + r.folio_unlock),
        );
        row("MB from folios", &|s| {
            mb(s.read_path.as_ref().map_or(0, |r| r.bytes_copied))
        });
        row("MB zero-page copy", &|s| {
            mb(s.read_path.as_ref().map_or(0, |r| r.bytes_zero_copied))
        });
        row("MB clear_user", &|s| {
            mb(s.read_path.as_ref().map_or(0, |r| r.bytes_cleared))
        });
    }
    if around > 0 {
        for s in &sides {
            out.push(String::new());
            out.extend(wrap(
                &format!(
                    "events of {}, accesses {}..{}:",
                    s.label,
                    step.saturating_sub(around) + 1,
                    (step + around).min(len)
                ),
                WIDTH,
                "  ",
            ));
            if s.events.iter().all(|l| l.starts_with("----")) {
                out.push("  (none: every page was mapped already)".into());
                continue;
            }
            for e in &s.events {
                out.extend(wrap(&format!("  {e}"), WIDTH, "        "));
            }
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::parse_link;

    #[test]
    fn an_export_fits_a_mail_and_opens_again() {
        let view = parse_link(
            "?v=1&kernel=v6.18,v7.4-rc2&size=64M&pattern=rev&madvise=hugepage&step=1000",
        )
        .view;
        let base = "https://folioscope.example/app/";
        let text = export(&view, "a test", base, 3).unwrap();
        for l in text.lines().filter(|l| !l.starts_with(base)) {
            assert!(l.chars().count() <= WIDTH, "{l}");
        }
        assert!(text.contains("major faults"));
        assert!(text.contains("events of v6.18, accesses 998..1003"));
        assert_eq!(parse_text(&text).unwrap().view, view);
    }

    #[test]
    fn a_long_link_stays_whole_on_its_line() {
        let mut view = parse_link(
            "?v=1&preset=seed000-rev-huge&step=1234&zoom=100-5000&hide=xarray,log&mark=readahead",
        )
        .view;
        view.scenario.file_size = 64 << 20;
        view.compare = vec![crate::parse::parse_kernel_label(
            "v7.4-rc2-before-0b9c0aeba938+desc-ra-2-hugepage+desc-ra-3-seq-read",
        )
        .unwrap()];
        let base = "https://folioscope.example/a/very/long/path/";
        let link = to_link(&view, base);
        assert!(link.len() > WIDTH);
        let text = export(&view, "a test", base, 0).unwrap();
        assert!(text.lines().any(|l| l == link), "{text}");
        assert_eq!(parse_text(&text).unwrap().view, view);
    }

    #[test]
    fn the_scenario_line_names_every_parameter_that_applies() {
        let view = parse_link("?v=1&preset=seed004-thpon-64k-falloc").view;
        assert_eq!(
            describe(&view.scenario),
            "size 1G, page 4k, ra_kb 8192, fa 64k, madvise normal, thp on, memcg none, \
             exec off, pattern read:65536, fs tmpfs, tmpfs_huge always, \
             tmpfs_file fallocated, hwpoison none"
        );
        assert!(!describe(&Scenario::default()).contains("tmpfs_"));
    }

    #[test]
    fn text_without_a_link_names_the_field() {
        assert!(parse_text("hello").unwrap_err().starts_with("text:"));
    }
}
