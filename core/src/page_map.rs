//! A small map from page index to a value, kept as a sorted list.
//!
//! [`crate::Picture`] keeps what one access changed (a few entries, or a
//! few thousand for a large readahead or reclaim), mostly added in page
//! order, where an insert is a push. One out of order moves the entries
//! after it, which for one access's entries costs little. A `BTreeMap`
//! would do too, but its code is large for what it is, and the web app's
//! wasm carries one copy of it per key and value type; a sorted `Vec` and
//! a binary search are a few hundred bytes.

/// Values by page index, in index order.
#[derive(Clone, Debug)]
pub(crate) struct PageMap<V> {
    entries: Vec<(u64, V)>,
}

impl<V> Default for PageMap<V> {
    fn default() -> Self {
        PageMap {
            entries: Vec::new(),
        }
    }
}

impl<V: Copy> PageMap<V> {
    /// Where `k` is (Ok) or would go (Err).
    fn find(&self, k: u64) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&k, |&(key, _)| key)
    }

    pub(crate) fn get(&self, k: u64) -> Option<V> {
        self.find(k).ok().map(|i| self.entries[i].1)
    }

    /// Sets `k` to `v`, over any value it had.
    pub(crate) fn insert(&mut self, k: u64, v: V) {
        match self.find(k) {
            Ok(i) => self.entries[i].1 = v,
            Err(i) => self.entries.insert(i, (k, v)),
        }
    }

    /// The entry with the largest key at or below `k`.
    pub(crate) fn at_or_below(&self, k: u64) -> Option<(u64, V)> {
        let i = match self.find(k) {
            Ok(i) => i,
            Err(i) => i.checked_sub(1)?,
        };
        Some(self.entries[i])
    }

    /// Removes every key in `[from, to)`.
    pub(crate) fn remove_range(&mut self, from: u64, to: u64) {
        let lo = self.find(from).unwrap_or_else(|i| i);
        let hi = lo + self.entries[lo..].partition_point(|&(key, _)| key < to);
        self.entries.drain(lo..hi);
    }
}

#[cfg(test)]
mod tests {
    use super::PageMap;
    use std::collections::BTreeMap;

    /// Random operations, the same on a `PageMap` and a `BTreeMap`.
    #[test]
    fn a_page_map_answers_as_a_btreemap_does() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            x = crate::splitmix64(x);
            x % n
        };
        for _ in 0..50 {
            let (mut m, mut b) = (PageMap::default(), BTreeMap::new());
            for _ in 0..200 {
                let k = next(64);
                match next(4) {
                    0 | 1 => {
                        let v = next(1000);
                        m.insert(k, v);
                        b.insert(k, v);
                    }
                    2 => {
                        let to = k + next(8);
                        m.remove_range(k, to);
                        b.retain(|&key, _| !(k..to).contains(&key));
                    }
                    _ => {}
                }
                assert_eq!(m.get(k), b.get(&k).copied());
                let below = b.range(..=k).next_back().map(|(&key, &v)| (key, v));
                assert_eq!(m.at_or_below(k), below);
            }
            let all: Vec<(u64, u64)> = b.into_iter().collect();
            assert_eq!(m.entries, all);
        }
    }
}
