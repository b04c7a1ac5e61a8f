//! Where each folio came from: every `filemap_add_folio` of a run, as
//! (access, index) in the order they happened, so that the access that
//! made the folio standing at an index at any step is found by looking
//! back from that step. Not a kernel structure: the timeline's record for
//! the inspector's "added by".
//!
//! The pairs are kept as differences from the pair before, in LEB128
//! varints (the access never goes back; the index does, so it is
//! zigzagged), cut into blocks of [`BLOCK`] adds that each start afresh
//! and know the range of indices they hold. A backward walk of a 16 GiB
//! file adds four million folios one page apart, one an access: two bytes
//! each instead of eight, 8 MiB instead of 32. A lookup decodes, newest
//! first, only the blocks up to the step whose range holds the index.

/// Adds per block.
const BLOCK: usize = 4096;

/// Where a block starts in the byte stream, what its first add is (its
/// adds are differences from it, the first one from itself), and the
/// indices its adds fall in.
#[derive(Clone, Copy, Debug)]
struct Block {
    offset: usize,
    first_access: u64,
    first_index: u64,
    min_index: u64,
    max_index: u64,
    len: usize,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Origins {
    bytes: Vec<u8>,
    blocks: Vec<Block>,
    /// The last add written, which the next one is a difference from.
    last: (u64, u64),
    /// Accesses recorded: adds after this are not known.
    known_to: u64,
}

impl Origins {
    /// Notes the folios that access `access` (1-based) added, at their
    /// indices; accesses must come one by one, in order.
    pub(crate) fn note(&mut self, access: u64, added: &[u64]) {
        if self.known_to + 1 != access {
            return;
        }
        for &index in added {
            self.push(access, index);
        }
        self.known_to = access;
    }

    fn push(&mut self, access: u64, index: u64) {
        let fresh = self.blocks.last().is_none_or(|b| b.len == BLOCK);
        if fresh {
            self.blocks.push(Block {
                offset: self.bytes.len(),
                first_access: access,
                first_index: index,
                min_index: index,
                max_index: index,
                len: 0,
            });
            self.last = (access, index);
        }
        let (a0, i0) = self.last;
        write_varint(&mut self.bytes, access - a0);
        write_varint(&mut self.bytes, zigzag(index.wrapping_sub(i0) as i64));
        self.last = (access, index);
        let b = self.blocks.last_mut().expect("a block was pushed");
        b.min_index = b.min_index.min(index);
        b.max_index = b.max_index.max(index);
        b.len += 1;
    }

    /// The last access at or before `step` that added a folio at `index`.
    pub(crate) fn added_at(&self, index: u64, step: u64) -> Option<u64> {
        if step > self.known_to {
            return None;
        }
        let upto = self.blocks.partition_point(|b| b.first_access <= step);
        self.blocks[..upto]
            .iter()
            .rev()
            .filter(|b| (b.min_index..=b.max_index).contains(&index))
            .find_map(|b| {
                let mut found = None;
                for (a, i) in self.decode(b) {
                    if a > step {
                        break;
                    }
                    if i == index {
                        found = Some(a);
                    }
                }
                found
            })
    }

    /// The adds of block `b`, in order.
    fn decode(&self, b: &Block) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut at = b.offset;
        let (mut a, mut i) = (b.first_access, b.first_index);
        (0..b.len).map(move |_| {
            a += read_varint(&self.bytes, &mut at);
            i = i.wrapping_add(unzigzag(read_varint(&self.bytes, &mut at)) as u64);
            (a, i)
        })
    }

    /// The record once the run is over, without the room kept for more.
    pub(crate) fn finished(mut self) -> Self {
        self.bytes.shrink_to_fit();
        self.blocks.shrink_to_fit();
        self
    }

    /// Bytes the record takes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes.capacity() + self.blocks.capacity() * std::mem::size_of::<Block>()
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return v;
        }
        shift += 7;
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Across many blocks, with indices near and far, going up and
        /// down, the record answers what a plain list of every add does.
        #[test]
        fn the_blocks_answer_as_a_list_of_every_add_does(
            seed in any::<u64>(),
            accesses in 1u64..6_000,
            spread in prop_oneof![Just(16u64), Just(70_000), Just(u64::MAX >> 8)],
        ) {
            let mut rng = seed | 1;
            let mut next = move |n: u64| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng % n.max(1)
            };
            let mut origins = Origins::default();
            let mut all = Vec::new();
            let mut walk = spread / 2;
            for access in 1..=accesses {
                let added: Vec<u64> = (0..next(4))
                    .map(|_| {
                        walk = if next(3) == 0 { next(spread) } else { walk.wrapping_sub(1) % spread };
                        walk
                    })
                    .collect();
                all.extend(added.iter().map(|&i| (access, i)));
                origins.note(access, &added);
            }
            for _ in 0..200 {
                let step = next(accesses + 2);
                let index = if all.is_empty() || next(4) == 0 { next(spread) } else { all[next(all.len() as u64) as usize].1 };
                let want = (step <= accesses)
                    .then(|| all.iter().rev().find(|&&(a, i)| a <= step && i == index).map(|&(a, _)| a))
                    .flatten();
                prop_assert_eq!(origins.added_at(index, step), want, "index {} step {}", index, step);
            }
        }
    }

    /// A backward walk, one page an access, costs two bytes an add.
    #[test]
    fn a_backward_walk_costs_two_bytes_an_add() {
        let mut origins = Origins::default();
        let n = 1u64 << 20;
        for access in 1..=n {
            origins.note(access, &[n - access]);
        }
        assert!(
            origins.bytes() <= 2 * n as usize + (n as usize / BLOCK + 1) * 64 + 64,
            "{}",
            origins.bytes()
        );
        assert_eq!(origins.added_at(n - 5, n), Some(5));
        assert_eq!(origins.added_at(n - 5, 4), None);
    }
}
