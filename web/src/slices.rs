//! The model's long work (a view's build, a timeline's index) run in
//! slices of accesses, each slice in a task of at most some tens of
//! milliseconds, so that the page stays responsive.

/// Accesses between the first two looks at the clock; after that, as
/// many as the last ones ran in about [`CHUNK_MS`]. A fixed 1024 ran
/// 7 to 17 ms on the 16 GiB link (60 to 150 accesses a millisecond, each
/// reading large folios), so its tasks overran the budget to 50-61 ms;
/// the default view runs about 1,400 a millisecond. Few, since a view's
/// first accesses run in code the browser has not optimised yet, into
/// memory first touched: with 256, the seed000-random1-normal preset's
/// first slice, due to stop after 4 ms, took a task of 63 to 95 ms
/// (2026-12-07).
const FIRST_CHUNK: u64 = 16;
/// Milliseconds between looks at the clock: a task overruns its budget
/// by about this much.
const CHUNK_MS: f64 = 1.0;
/// Milliseconds of work per task: the longest the page waits on it, kept
/// under the 50 ms of a long task with room for a chunk that runs slow
/// (code being compiled, memory first touched, the host busy). Each
/// break costs the progress's render and, when one is due, a frame:
/// with 12 ms tasks the default view's build took about 90 ms longer
/// from its first paint (12 loads each, median paint-to-built 443
/// against 355 ms). At 30 rather than 40 ms, eight loads of each
/// alternated (2026-12-07): first render median 425 against 471 ms (the
/// default view), 415 against 412 (the 16 GiB comparison) and 1426
/// against 1435 (the 16 GiB backward sequential link); tasks over 50 ms
/// after the first paint none against one (63 ms).
pub const FRAME_WORK_MS: f64 = 30.0;

/// How many accesses a slice runs between looks at the clock, learnt as
/// it goes.
pub struct Slices {
    chunk: u64,
}

impl Default for Slices {
    fn default() -> Self {
        Slices { chunk: FIRST_CHUNK }
    }
}

impl Slices {
    /// Calls `advance` with a number of accesses to run until it returns
    /// true (the work is done) or `budget_ms` have passed; returns
    /// whether the work is done.
    pub fn run_for(&mut self, budget_ms: f64, mut advance: impl FnMut(u64) -> bool) -> bool {
        let t0 = now_ms();
        let mut now = t0;
        while now - t0 < budget_ms {
            let done = advance(self.chunk);
            let then = now;
            now = now_ms();
            self.chunk = next_chunk(self.chunk, now - then);
            if done {
                return true;
            }
        }
        false
    }
}

/// Runs `advance` (as [`Slices::run_for`] calls it) in slices of
/// [`FRAME_WORK_MS`], each a task of its own, with a task's break before
/// the first slice and after the last, so that the work before and after
/// it (a build's last slice, a first draw, the next kernel's run) is not
/// in their tasks. Returns true once the work is done and the last break
/// taken, whatever `still_wanted` says then; false as soon as
/// `still_wanted` says no before that. Its arguments are `dyn`, so that
/// the app's wasm holds one copy of it, not one per caller.
pub async fn run_in_tasks(
    advance: &mut dyn FnMut(u64) -> bool,
    still_wanted: &dyn Fn() -> bool,
) -> bool {
    let mut slices = Slices::default();
    loop {
        crate::hooks::next_task().await;
        if !still_wanted() {
            return false;
        }
        if slices.run_for(FRAME_WORK_MS, &mut *advance) {
            crate::hooks::next_task().await;
            return true;
        }
    }
}

/// The accesses to run before the next look at the clock, after `chunk`
/// of them took `ms`: about [`CHUNK_MS`]'s worth, moving by at most a
/// factor of two (or four down) a step, so that one slow access does not
/// shrink it to nothing, nor a clock that did not tick grow it past all.
fn next_chunk(chunk: u64, ms: f64) -> u64 {
    let aim = if ms > 0.0 {
        (chunk as f64 * CHUNK_MS / ms) as u64
    } else {
        chunk * 2
    };
    aim.clamp(chunk / 4, chunk * 2).clamp(16, 1 << 16)
}

/// `performance.now()`: the page's clock, which animation frames are
/// timed by too.
pub fn now_ms() -> f64 {
    gloo::utils::window()
        .performance()
        .map(|p| p.now())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs chunks of accesses that cost `per_access` ms each, as a
    /// slice does, and returns the chunk sizes.
    fn chunks(per_access: f64, n: usize) -> Vec<u64> {
        let mut chunk = FIRST_CHUNK;
        let mut out = vec![];
        for _ in 0..n {
            let ms = chunk as f64 * per_access;
            chunk = next_chunk(chunk, ms);
            out.push(chunk);
        }
        out
    }

    #[test]
    fn a_chunk_comes_to_take_about_a_millisecond() {
        // The 16 GiB link's slowest accesses, and the default view's.
        for per_ms in [60.0, 150.0, 1_400.0] {
            let c = *chunks(1.0 / per_ms, 12).last().unwrap();
            let ms = c as f64 / per_ms;
            assert!(
                (0.5..=2.0).contains(&ms),
                "{per_ms}/ms: {c} accesses, {ms} ms"
            );
        }
    }

    #[test]
    fn a_chunk_stays_within_its_bounds() {
        // A clock that never ticks, and accesses of a second each.
        assert_eq!(*chunks(0.0, 40).last().unwrap(), 1 << 16);
        assert_eq!(*chunks(1000.0, 40).last().unwrap(), 16);
        // One slow chunk shrinks it by four at most.
        assert_eq!(next_chunk(1024, 1e6), 256);
    }
}
