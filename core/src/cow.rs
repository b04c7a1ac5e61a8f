//! A vector in fixed-size chunks that clones share until one of them
//! writes. Not a kernel structure: it holds the xarray's nodes and the page
//! tables, so that a timeline checkpoint (a clone of the machine) costs the
//! chunks that changed since the last one, not the whole page cache. That
//! is what lets checkpoints sit a few hundred accesses apart.

use std::collections::HashSet;
use std::ops::{Index, IndexMut};
use std::rc::Rc;

/// `N` elements per chunk, `N` a power of two. A chunk is one allocation
/// holding its elements inline, so a read costs one pointer more than a
/// flat vector's.
#[derive(Clone, Debug)]
pub struct CowChunks<T: Clone, const N: usize> {
    chunks: Vec<Rc<[T; N]>>,
    len: usize,
}

impl<T: Clone, const N: usize> Default for CowChunks<T, N> {
    fn default() -> Self {
        CowChunks {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Clone, const N: usize> CowChunks<T, N> {
    const SHIFT: u32 = {
        assert!(N.is_power_of_two());
        N.trailing_zeros()
    };
    const MASK: usize = N - 1;

    fn chunk_of(value: &T) -> Rc<[T; N]> {
        Rc::new(std::array::from_fn(|_| value.clone()))
    }

    /// `n` copies of `value`; untouched chunks are not copied on a clone.
    pub fn filled(value: T, n: usize) -> Self {
        let chunks = (0..n.div_ceil(N)).map(|_| Self::chunk_of(&value)).collect();
        CowChunks { chunks, len: n }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self[i])
    }

    pub fn push(&mut self, value: T) {
        let i = self.len;
        self.len += 1;
        if i & Self::MASK == 0 {
            // The rest of a new chunk is filler until pushed over.
            self.chunks.push(Self::chunk_of(&value));
        } else {
            self[i] = value;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flat_map(|c| c.iter()).take(self.len)
    }

    fn chunk_bytes() -> usize {
        N * std::mem::size_of::<T>()
    }

    fn spine_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Rc<[T; N]>>()
    }

    /// Bytes held, counting shared chunks in full.
    pub fn memory_bytes(&self) -> usize {
        self.spine_bytes() + self.chunks.len() * Self::chunk_bytes()
    }

    /// Bytes no clone shares: what one more clone, kept, would cost once
    /// this vector writes to every chunk it shares.
    pub fn unshared_bytes(&self) -> usize {
        let own = self
            .chunks
            .iter()
            .filter(|c| Rc::strong_count(c) == 1)
            .count();
        self.spine_bytes() + own * Self::chunk_bytes()
    }

    /// Bytes of the chunks not in `seen`, which then holds them all: the
    /// memory of several clones together.
    pub fn distinct_bytes(&self, seen: &mut HashSet<usize>) -> usize {
        let new = self
            .chunks
            .iter()
            .filter(|c| seen.insert(Rc::as_ptr(c) as usize))
            .count();
        self.spine_bytes() + new * Self::chunk_bytes()
    }
}

impl<T: Clone, const N: usize> Index<usize> for CowChunks<T, N> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        debug_assert!(i < self.len);
        &self.chunks[i >> Self::SHIFT][i & Self::MASK]
    }
}

impl<T: Clone, const N: usize> IndexMut<usize> for CowChunks<T, N> {
    /// Copies the chunk first if a clone shares it.
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len);
        let chunk = &mut self.chunks[i >> Self::SHIFT];
        if Rc::get_mut(chunk).is_none() {
            unshare(chunk);
        }
        match Rc::get_mut(chunk) {
            Some(c) => &mut c[i & Self::MASK],
            None => unreachable!("a chunk just copied has no other owner"),
        }
    }
}

/// The first write to a chunk a clone shares: out of the hot path.
#[cold]
#[inline(never)]
fn unshare<T: Clone, const N: usize>(chunk: &mut Rc<[T; N]>) {
    *chunk = Rc::new((**chunk).clone());
}

impl<T: Clone + PartialEq, const N: usize> PartialEq for CowChunks<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self
                .chunks
                .iter()
                .zip(&other.chunks)
                .enumerate()
                .all(|(k, (a, b))| {
                    let used = (self.len - k * N).min(N);
                    Rc::ptr_eq(a, b) || a[..used] == b[..used]
                })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_until_written() {
        let mut a: CowChunks<u64, 4> = CowChunks::filled(7, 10);
        assert_eq!(a.len(), 10);
        let b = a.clone();
        assert_eq!(a.unshared_bytes(), a.spine_bytes());
        a[5] = 1;
        assert_eq!((a[5], b[5]), (1, 7), "the clone keeps its value");
        assert_eq!(
            a.unshared_bytes(),
            a.spine_bytes() + 4 * 8,
            "one chunk copied"
        );
        let mut seen = HashSet::new();
        let both = a.distinct_bytes(&mut seen) + b.distinct_bytes(&mut seen);
        assert_eq!(both, a.spine_bytes() + b.spine_bytes() + 4 * 4 * 8);
        assert!(a != b);
        a[5] = 7;
        assert!(a == b);
    }

    #[test]
    fn push_fills_chunks_in_order() {
        let mut a: CowChunks<u32, 8> = CowChunks::default();
        for i in 0..20 {
            a.push(i);
        }
        let b = a.clone();
        a.push(20);
        assert_eq!(a.len(), 21);
        assert_eq!(b.len(), 20);
        assert_eq!(
            a.iter().copied().collect::<Vec<_>>(),
            (0..21).collect::<Vec<_>>()
        );
        assert_eq!(a.get(20), Some(&20));
        assert_eq!(b.get(20), None);
    }
}
