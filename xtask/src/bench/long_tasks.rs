//! The tasks of over 50 ms that a view's loads met (the timing test's
//! `long_tasks`, from navigation to the `folioscope-warm` mark, each as
//! [start, ms], with each load's first paint in `first_paint_loads_ms`):
//! a task that long keeps the page from answering input. The issue asks a
//! long build to yield to the browser and show its progress; the build,
//! the first draw and the warm-up run after the first paint, in tasks of
//! at most some 30 ms, and the row holds them to none over 50. A task
//! before the first paint is the app's start (the wasm's first calls and
//! the first render's DOM), shown beside them.

use serde_json::Value;

use super::Row;

/// A task over this is a long task, as the browser reports them.
pub(super) const LONG_TASK_MS: f64 = 50.0;

/// The long tasks of some loads, parted by their load's first paint.
pub(super) struct LongTasks {
    /// Those that started once their load had painted: (start, ms).
    pub after: Vec<(f64, f64)>,
    /// The durations of those before.
    pub before: Vec<f64>,
}

/// The long tasks of the loads in `v` (a view's scope of timing.json, or
/// one preset of its survey); none when the loads were not measured.
pub(super) fn after_first_paint(v: &Value) -> Option<LongTasks> {
    let loads = v["long_tasks"].as_array()?;
    let paints = v["first_paint_loads_ms"].as_array()?;
    let (mut after, mut before) = (Vec::new(), Vec::new());
    for (tasks, paint) in loads.iter().zip(paints) {
        for t in tasks.as_array().into_iter().flatten() {
            let (Some(at), Some(ms)) = (t[0].as_f64(), t[1].as_f64()) else {
                continue;
            };
            match paint.as_f64() {
                Some(p) if at < p => before.push(ms),
                _ => after.push((at, ms)),
            }
        }
    }
    Some(LongTasks { after, before })
}

/// The row of the loads in `v` (one view's scope of timing.json): the
/// tasks over 50 ms that started once a load had painted, the longest and
/// when it started; and those before.
pub(super) fn row(v: Option<&Value>, label: &str, why: &str) -> Row {
    let figure =
        format!("web: tasks over {LONG_TASK_MS:.0} ms after the first paint, to warm, {label}");
    let target = "none";
    let (Some(LongTasks { after, before }), Some(n)) = (
        v.and_then(after_first_paint),
        v.and_then(|v| v["long_tasks"].as_array()).map(Vec::len),
    ) else {
        return Row::not_measured(&figure, target, why);
    };
    let start = match before.iter().copied().reduce(f64::max) {
        Some(ms) => format!("; before it {}, longest {ms:.0} ms", before.len()),
        None => String::new(),
    };
    match after.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        None => Row::new(
            &figure,
            target,
            format!("none in {n} loads{start}"),
            Some(true),
        ),
        Some(&(at, ms)) => Row::new(
            &figure,
            target,
            format!(
                "{} in {n} loads, longest {ms:.0} ms at {at:.0} ms{start}",
                after.len()
            ),
            Some(false),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_counts_the_tasks_after_each_loads_first_paint() {
        let v = serde_json::json!({
            "first_paint_loads_ms": [200.0, 210.0, 190.0],
            "long_tasks": [[[60, 55]], [], [[60, 52], [1400, 68], [900, 51]]],
        });
        let row = row(Some(&v), "x", "-");
        assert_eq!(
            row.measured,
            "2 in 3 loads, longest 68 ms at 1400 ms; before it 2, longest 55 ms"
        );
        assert!(matches!(row.status, super::super::Status::Missed));
        let calm = serde_json::json!({
            "first_paint_loads_ms": [200.0, 200.0],
            "long_tasks": [[[70, 61]], []],
        });
        let row = super::row(Some(&calm), "x", "-");
        assert_eq!(row.measured, "none in 2 loads; before it 1, longest 61 ms");
        assert!(matches!(row.status, super::super::Status::Met));
        assert!(matches!(
            super::row(None, "x", "-").status,
            super::super::Status::NotMeasured
        ));
    }
}
