//! Seed 003's time model: a phase's time as a sum of non-negative costs,
//! one for each count the model makes, fitted on the baseline column only.
//!
//! The counts are the calls, the faults (major and minor), the read I/Os,
//! the megabytes read and the iTLB misses. In a phase that starts with an
//! empty cache and calls in order, every translation misses once, when it
//! is first used. In a warm phase of calls at random pages, a call misses
//! when its translation is outside the reach of a [`TLB_ENTRIES`]-entry L2
//! TLB (a Neoverse V2 core's, the seed's CPU), with the chance
//! 1 - entries / translations.
//!
//! The thread publishes one baseline figure per phase, and one figure fixes
//! one cost, not five. So a patched kernel's time is predicted only when
//! every count changes in the same ratio: then every split of the
//! baseline's time between the costs gives the same answer. Otherwise the
//! model gives the range that the splits allow, from all of the time on the
//! count that falls most to all of it on the count that falls least, and
//! says which counts it could not weigh against each other.

use serde::Serialize;

use crate::compare::Figures;

/// Entries of a Neoverse V2 core's second-level TLB.
pub const TLB_ENTRIES: u64 = 2048;

/// How a phase starts, which decides how its iTLB misses are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// From an empty page cache, calls in order: a miss per translation.
    Cold,
    /// After an untimed sweep, calls at random pages: capacity misses.
    Warm,
}

/// One count a phase's time grows with, on the baseline and on another
/// kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Term {
    pub name: &'static str,
    pub baseline: f64,
    pub other: f64,
}

/// The times another kernel can take, given the baseline's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bounds {
    pub low_ms: f64,
    /// `None` when a count the baseline never made could cost anything.
    pub high_ms: Option<f64>,
}

/// What the baseline's one figure says of another kernel's time.
#[derive(Clone, Debug, PartialEq)]
pub enum Prediction {
    /// Every count changes in one ratio, so every split gives this time.
    Exact(f64),
    /// Only a range, with the reason in words.
    Range(Bounds, String),
    /// The baseline made none of the counts, so nothing can be fitted.
    Unfounded(String),
}

/// The counts of a phase, on the baseline and on another kernel; counts
/// that are zero on both are left out.
pub fn terms(phase: Phase, baseline: &Figures, other: &Figures) -> Vec<Term> {
    let counts = |f: &Figures| {
        [
            ("calls", f.accesses as f64),
            ("faults", (f.major_faults + f.minor_faults) as f64),
            ("I/Os", f.read_ios as f64),
            ("MB read", f.bytes_read as f64 / (1u64 << 20) as f64),
            ("iTLB misses", itlb_misses(phase, f)),
        ]
    };
    counts(baseline)
        .into_iter()
        .zip(counts(other))
        .filter(|((_, b), (_, o))| *b > 0.0 || *o > 0.0)
        .map(|((name, b), (_, o))| Term {
            name,
            baseline: b,
            other: o,
        })
        .collect()
}

fn itlb_misses(phase: Phase, f: &Figures) -> f64 {
    match phase {
        Phase::Cold => f.translations as f64,
        Phase::Warm if f.translations == 0 => 0.0,
        Phase::Warm => {
            let outside = 1.0 - TLB_ENTRIES as f64 / f.translations as f64;
            f.accesses as f64 * outside.max(0.0)
        }
    }
}

/// Fits the costs on the baseline's `baseline_ms` and predicts the other
/// kernel's time, or the range of it that every fit allows.
pub fn predict(baseline_ms: f64, terms: &[Term]) -> Prediction {
    let paid: Vec<&Term> = terms.iter().filter(|t| t.baseline > 0.0).collect();
    if paid.is_empty() {
        return Prediction::Unfounded(
            "the model counts nothing that the baseline's time could be spent on".into(),
        );
    }
    let ratio = |t: &Term| t.other / t.baseline;
    let low = paid.iter().map(|t| ratio(t)).fold(f64::INFINITY, f64::min);
    let high = paid.iter().map(|t| ratio(t)).fold(0.0, f64::max);
    let unpaid: Vec<&str> = terms
        .iter()
        .filter(|t| t.baseline == 0.0 && t.other > 0.0)
        .map(|t| t.name)
        .collect();
    if unpaid.is_empty() && same(low, high) {
        return Prediction::Exact(baseline_ms * low);
    }
    let bounds = Bounds {
        low_ms: baseline_ms * low,
        high_ms: unpaid.is_empty().then_some(baseline_ms * high),
    };
    let mut reason = format!(
        "{}: every split of the baseline's {baseline_ms:.1} ms between them gives ",
        ratios_text(&paid)
    );
    match bounds.high_ms {
        Some(h) => reason.push_str(&format!("{:.1} to {h:.1} ms", bounds.low_ms)),
        None => reason.push_str(&format!(
            "at least {:.1} ms, and {} cost what the baseline never paid",
            bounds.low_ms,
            and_list(&unpaid)
        )),
    }
    Prediction::Range(bounds, reason)
}

/// The note that heads seed 003's table.
pub fn describe() -> String {
    format!(
        "time model: a phase's time is a sum of non-negative costs, one per \
         count the model makes (calls, faults, I/Os, MB read, iTLB misses over \
         a {TLB_ENTRIES}-entry TLB), fitted on the baseline column only. One \
         figure cannot fix costs that the patches change in different ratios; \
         where they do, the patched time is not predicted, and the line under \
         the row gives the range every fit allows."
    )
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// "faults x0.016, I/Os and iTLB misses x0.031, calls and MB read x1":
/// the counts grouped by how they change, the one that falls most first.
fn ratios_text(paid: &[&Term]) -> String {
    let mut sorted: Vec<(f64, &str)> = paid
        .iter()
        .map(|t| (t.other / t.baseline, t.name))
        .collect();
    crate::sort::sort_by_u64_key(&mut sorted, |a| crate::sort::f64_order_key(a.0));
    let mut groups: Vec<(f64, Vec<&str>)> = Vec::new();
    for (r, name) in sorted {
        match groups.last_mut() {
            Some((g, names)) if same(*g, r) => names.push(name),
            _ => groups.push((r, vec![name])),
        }
    }
    groups
        .iter()
        .map(|(r, names)| format!("{} x{}", and_list(names), ratio_text(*r)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A ratio to two significant figures, or whole when it is whole.
fn ratio_text(r: f64) -> String {
    if r == 0.0 || same(r, r.round()) {
        return format!("{}", r.round());
    }
    let digits = (1 - r.abs().log10().floor() as i32).max(0) as usize;
    format!("{r:.digits$}")
}

fn and_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(name: &'static str, baseline: f64, other: f64) -> Term {
        Term {
            name,
            baseline,
            other,
        }
    }

    #[test]
    fn one_ratio_for_every_count_is_a_prediction() {
        let t = [term("faults", 100.0, 50.0), term("I/Os", 10.0, 5.0)];
        assert_eq!(predict(80.0, &t), Prediction::Exact(40.0));
    }

    #[test]
    fn counts_that_change_unequally_give_a_range() {
        let t = [term("calls", 10.0, 10.0), term("iTLB misses", 8.0, 0.0)];
        let Prediction::Range(b, why) = predict(76.0, &t) else {
            panic!("a range");
        };
        assert_eq!((b.low_ms, b.high_ms), (0.0, Some(76.0)));
        assert!(why.starts_with("iTLB misses x0, calls x1:"), "{why}");
    }

    #[test]
    fn a_count_the_baseline_never_made_leaves_no_upper_bound() {
        let t = [term("faults", 10.0, 5.0), term("I/Os", 0.0, 3.0)];
        let Prediction::Range(b, why) = predict(10.0, &t) else {
            panic!("a range");
        };
        assert_eq!((b.low_ms, b.high_ms), (5.0, None));
        assert!(why.contains("at least 5.0 ms, and I/Os cost"), "{why}");
    }

    #[test]
    fn nothing_counted_on_the_baseline_is_unfounded() {
        let t = [term("I/Os", 0.0, 3.0)];
        assert!(matches!(predict(10.0, &t), Prediction::Unfounded(_)));
    }

    #[test]
    fn ratios_read_to_two_significant_figures() {
        assert_eq!(ratio_text(129.0 / 8192.0), "0.016");
        assert_eq!(ratio_text(128.0 / 4096.0), "0.031");
        assert_eq!(ratio_text(1.5), "1.5");
        assert_eq!(ratio_text(1.0), "1");
        assert_eq!(ratio_text(0.0), "0");
    }
}
