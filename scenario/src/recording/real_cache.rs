//! The real kernel's page cache of a recorded file at any step, rebuilt
//! from its `mm_filemap_add_to_page_cache` and
//! `mm_filemap_delete_from_page_cache` events: what the app's real-kernel
//! lane draws under the model's strip, step by step.
//!
//! [`Recording::real_cache_at`] replays the log up to a step, which costs
//! the whole log at every step. A [`RealCache`] reads the log once into
//! the life of each folio (added after so many accesses, deleted after so
//! many), sorted by index, so that the folios of a page range at any step
//! are found without replaying anything.

use folioscope_core::Tracepoint;

use super::Recording;

/// One folio's stay in the page cache: present after `from` accesses and
/// up to, not including, `to` (`u64::MAX` when it never left).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FolioLife {
    pub index: u64,
    pub order: u8,
    pub from: u64,
    pub to: u64,
}

impl FolioLife {
    /// One past the folio's last page.
    pub fn end(&self) -> u64 {
        self.index.saturating_add(1u64 << self.order.min(63))
    }

    /// Whether the folio is in the page cache after `step` accesses.
    pub fn present_at(&self, step: u64) -> bool {
        self.from <= step && step < self.to
    }
}

/// Every folio life of one file, by index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RealCache {
    lives: Vec<FolioLife>,
    /// The largest folio, in pages: how far before a range a folio that
    /// overlaps it can start.
    max_pages: u64,
}

impl RealCache {
    /// File `file`'s folio lives, read from the recording's events.
    pub fn of(rec: &Recording, file: u32) -> RealCache {
        // The open life at each index, as `real_cache_at`'s map holds it:
        // an add replaces what the index held, a delete ends it.
        let mut open: std::collections::HashMap<u64, usize> = Default::default();
        let mut lives: Vec<FolioLife> = Vec::new();
        for (step, tp) in rec.numbered_events(file) {
            match tp {
                Tracepoint::AddToPageCache { index, order } => {
                    if let Some(k) = open.insert(index, lives.len()) {
                        lives[k].to = step;
                    }
                    lives.push(FolioLife {
                        index,
                        order,
                        from: step,
                        to: u64::MAX,
                    });
                }
                Tracepoint::DeleteFromPageCache { index, .. } => {
                    if let Some(k) = open.remove(&index) {
                        lives[k].to = step;
                    }
                }
                _ => {}
            }
        }
        // A folio added and deleted between the same two accesses was
        // never in the cache at a step.
        lives.retain(|l| l.from < l.to);
        // By index, and by start within an index: two stable passes.
        crate::sort::sort_by_u64_key(&mut lives, |l| l.from);
        crate::sort::sort_by_u64_key(&mut lives, |l| l.index);
        let max_pages = lives.iter().map(|l| 1u64 << l.order).max().unwrap_or(1);
        RealCache { lives, max_pages }
    }

    /// The folios present after `step` accesses that overlap pages
    /// `[first, end)`, in index order, as `(index, order)`.
    pub fn folios_at(&self, step: u64, first: u64, end: u64) -> Vec<(u64, u8)> {
        let from = first.saturating_sub(self.max_pages - 1);
        let start = self.lives.partition_point(|l| l.index < from);
        self.lives[start..]
            .iter()
            .take_while(|l| l.index < end)
            .filter(|l| l.end() > first && l.present_at(step))
            .map(|l| (l.index, l.order))
            .collect()
    }

    /// Every folio life, by index.
    pub fn lives(&self) -> &[FolioLife] {
        &self.lives
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAC: &[u8] = include_bytes!("../../../cli/tests/fixtures/replay/tac-64m.rec.gz");
    const SQLITE: &[u8] = include_bytes!("../../../cli/tests/fixtures/replay/sqlite-60m.rec.gz");

    /// At every step, the lives give the cache the log replayed to that
    /// step gives, over the whole file and over a range in it.
    #[test]
    fn lives_give_the_replayed_cache_at_every_step() {
        for bytes in [TAC, SQLITE] {
            let rec = Recording::parse(bytes).unwrap();
            let cache = RealCache::of(&rec, 0);
            let steps = rec.accesses(0).len();
            let mut seen_changes = 0;
            let mut last = Vec::new();
            for step in (0..=steps).step_by(97).chain([steps]) {
                let want: Vec<(u64, u8)> = rec.real_cache_at(0, step).into_iter().collect();
                let got = cache.folios_at(step as u64, 0, u64::MAX);
                assert_eq!(got, want, "step {step}");
                seen_changes += (got != last) as u32;
                let (a, b) = (1000, 1700);
                let part: Vec<(u64, u8)> = want
                    .iter()
                    .copied()
                    .filter(|&(i, o)| i < b && i + (1 << o) > a)
                    .collect();
                assert_eq!(cache.folios_at(step as u64, a, b), part, "step {step}");
                last = got;
            }
            assert!(seen_changes > 10, "the cache grows as the program runs");
        }
    }

    #[test]
    fn a_delete_ends_a_life_and_a_re_add_starts_another() {
        let text = "folioscope-recording 1\n\
            machine release=6.18.44 arch=x86_64 page_size=4096 thp_enabled=madvise thp_defrag=madvise fault_around_bytes=65536\n\
            arg x\n\
            file 0 dev=254:0 ino=1 size=1048576 fs=ext4 read_ahead_kb=128 path=/f\n\
            o 0\n\
            r 0 0 16384\n\
            + 0 2\n\
            f 0 0 0 4\n\
            - -4 2\n\
            r 0 0 4096\n\
            + -4 0\n\
            total 7\n";
        let rec = Recording::parse(text.as_bytes()).unwrap();
        let cache = RealCache::of(&rec, 0);
        assert_eq!(cache.folios_at(1, 0, 100), vec![]);
        assert_eq!(cache.folios_at(2, 0, 100), vec![(0, 2)]);
        assert_eq!(
            cache.folios_at(2, 3, 4),
            vec![(0, 2)],
            "overlapping the range"
        );
        assert_eq!(cache.folios_at(3, 0, 100), vec![]);
        assert_eq!(cache.folios_at(4, 0, 100), vec![(0, 0)]);
        assert_eq!(cache.lives().len(), 2);
    }
}
