//! The steps of one kind of [`crate::Mark`], kept as runs of consecutive
//! steps. Not a kernel structure: a timeline's index of where notable
//! events happened. A backward walk that faults on every page of a 16 GiB
//! file marks four million steps in a row, which as one run costs 16
//! bytes instead of 32 MiB.

use std::cell::OnceCell;

/// Ascending steps, as runs `starts[i]..ends[i]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct MarkRuns {
    starts: Vec<u64>,
    /// The end of each run, exclusive.
    ends: Vec<u64>,
    count: u64,
    /// Every step one by one, made the first time a caller asks for them
    /// as a slice.
    flat: OnceCell<Vec<u64>>,
}

impl MarkRuns {
    /// Adds `step`, which must be above every step added before.
    pub fn push(&mut self, step: u64) {
        debug_assert!(self.ends.last().is_none_or(|&e| e <= step));
        match self.ends.last_mut() {
            Some(end) if *end == step => *end += 1,
            _ => {
                self.starts.push(step);
                self.ends.push(step + 1);
            }
        }
        self.count += 1;
        self.flat = OnceCell::new();
    }

    /// How many steps are marked.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Every marked step, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.starts.iter().zip(&self.ends).flat_map(|(&s, &e)| s..e)
    }

    /// Every marked step as a slice, made on the first call and kept.
    pub fn as_slice(&self) -> &[u64] {
        self.flat.get_or_init(|| self.iter().collect())
    }

    /// The first marked step after `step`.
    pub fn next_after(&self, step: u64) -> Option<u64> {
        // The first run that holds a step above `step`.
        let i = self.ends.partition_point(|&e| e <= step.saturating_add(1));
        self.starts.get(i).map(|&s| s.max(step + 1))
    }

    /// The last marked step before `step`.
    pub fn prev_before(&self, step: u64) -> Option<u64> {
        // The last run that starts below `step`.
        let i = self.starts.partition_point(|&s| s < step);
        i.checked_sub(1).map(|i| (self.ends[i] - 1).min(step - 1))
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::MarkRuns;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn runs_answer_as_the_steps_one_by_one_do(
            steps in proptest::collection::btree_set(1u64..400, 0..200),
            probes in proptest::collection::vec(0u64..420, 1..40),
        ) {
            let want: Vec<u64> = steps.iter().copied().collect();
            let mut runs = MarkRuns::default();
            for &s in &want {
                runs.push(s);
            }
            prop_assert_eq!(runs.count(), want.len() as u64);
            prop_assert_eq!(runs.iter().collect::<Vec<_>>(), want.clone());
            prop_assert_eq!(runs.as_slice(), &want[..]);
            for p in probes {
                let next = want.iter().copied().find(|&s| s > p);
                let prev = want.iter().copied().rev().find(|&s| s < p);
                prop_assert_eq!(runs.next_after(p), next, "next after {}", p);
                prop_assert_eq!(runs.prev_before(p), prev, "prev before {}", p);
            }
        }
    }
}
