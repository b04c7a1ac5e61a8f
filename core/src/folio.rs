//! `struct folio` as the page cache model needs it: an order, the flags
//! that drive readahead and faults, and an LRU stamp. The folio's index is
//! where it sits in the xarray, and its natural alignment is an invariant
//! of that placement.
//!
//! A folio packs into the payload of an xarray pointer entry, so the page
//! cache needs no second table and a checkpoint is one copy of the tree.

/// The page flags the model uses (include/linux/page-flags.h).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FolioFlags(u16);

impl FolioFlags {
    /// PG_uptodate: the contents are valid.
    pub const UPTODATE: FolioFlags = FolioFlags(1 << 0);
    /// PG_locked: held while the read is in flight.
    pub const LOCKED: FolioFlags = FolioFlags(1 << 1);
    /// PG_readahead: reaching this folio starts async readahead.
    pub const READAHEAD: FolioFlags = FolioFlags(1 << 2);
    /// PG_workingset: the folio came back soon after eviction.
    pub const WORKINGSET: FolioFlags = FolioFlags(1 << 3);
    /// PG_hwpoison: a memory error hit the (first) page.
    pub const HWPOISON: FolioFlags = FolioFlags(1 << 4);
    /// PG_has_hwpoisoned: some page of this large folio is poisoned.
    pub const HAS_HWPOISONED: FolioFlags = FolioFlags(1 << 5);
    /// PG_referenced: accessed once since it was last on the LRU tail.
    pub const REFERENCED: FolioFlags = FolioFlags(1 << 6);
    /// PG_active: on the active LRU list.
    pub const ACTIVE: FolioFlags = FolioFlags(1 << 7);
    /// The model's summary of the PTE accessed bits: some mapping of the
    /// folio was used since reclaim last looked (`folio_referenced`).
    pub const YOUNG: FolioFlags = FolioFlags(1 << 8);

    pub const fn empty() -> Self {
        FolioFlags(0)
    }
    pub const fn from_bits(bits: u16) -> Self {
        FolioFlags(bits)
    }
    pub const fn bits(self) -> u16 {
        self.0
    }
    pub const fn contains(self, other: FolioFlags) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn insert(&mut self, other: FolioFlags) {
        self.0 |= other.0;
    }
    pub fn remove(&mut self, other: FolioFlags) {
        self.0 &= !other.0;
    }
    pub const fn union(self, other: FolioFlags) -> FolioFlags {
        FolioFlags(self.0 | other.0)
    }

    /// The flag names as /proc/kpageflags tools print them.
    pub fn names(self) -> Vec<&'static str> {
        let all = [
            (FolioFlags::UPTODATE, "uptodate"),
            (FolioFlags::LOCKED, "locked"),
            (FolioFlags::READAHEAD, "readahead"),
            (FolioFlags::WORKINGSET, "workingset"),
            (FolioFlags::HWPOISON, "hwpoison"),
            (FolioFlags::HAS_HWPOISONED, "has_hwpoisoned"),
            (FolioFlags::REFERENCED, "referenced"),
            (FolioFlags::ACTIVE, "active"),
            (FolioFlags::YOUNG, "young"),
        ];
        all.iter()
            .filter(|(f, _)| self.contains(*f))
            .map(|(_, n)| *n)
            .collect()
    }
}

/// A folio: its first page index, its order and its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Folio {
    pub index: u64,
    pub order: u8,
    pub flags: FolioFlags,
    /// When the folio last moved on the LRU; orders eviction.
    pub(crate) lru_stamp: u64,
}

const ORDER_BITS: u32 = 6;
const FLAG_BITS: u32 = 10;
const STAMP_SHIFT: u32 = ORDER_BITS + FLAG_BITS + 1;
/// Room left for the stamp in a 61-bit xarray payload.
pub const MAX_LRU_STAMP: u64 = (1u64 << (61 - STAMP_SHIFT)) - 1;

impl Folio {
    pub fn new(index: u64, order: u8, flags: FolioFlags) -> Self {
        Folio {
            index,
            order,
            flags,
            lru_stamp: 0,
        }
    }

    pub fn nr_pages(&self) -> u64 {
        1u64 << self.order
    }

    /// `folio_next_index`.
    pub fn next_index(&self) -> u64 {
        self.index + self.nr_pages()
    }

    /// `folio_contains`.
    pub fn contains(&self, index: u64) -> bool {
        index >= self.index && index < self.next_index()
    }

    pub fn test(&self, f: FolioFlags) -> bool {
        self.flags.contains(f)
    }

    /// Packs into an xarray pointer payload. Bit 0 is always set, so a
    /// payload is never zero.
    pub(crate) fn encode(&self) -> u64 {
        1 | ((self.order as u64) << 1)
            | ((self.flags.bits() as u64) << (1 + ORDER_BITS))
            | (self.lru_stamp.min(MAX_LRU_STAMP) << STAMP_SHIFT)
    }

    /// Unpacks a payload found at any index the folio covers: folios are
    /// naturally aligned, so the order gives the first index.
    pub(crate) fn decode_at(any_index: u64, payload: u64) -> Self {
        let order = ((payload >> 1) & ((1 << ORDER_BITS) - 1)) as u32;
        let index = any_index & !((1u64 << order) - 1);
        Folio::decode(index, payload)
    }

    /// The bits `flags` take in a payload: for tests of many payloads at
    /// once.
    #[inline]
    pub(crate) fn payload_bits(flags: FolioFlags) -> u64 {
        (flags.bits() as u64) << (1 + ORDER_BITS)
    }

    /// The bits a payload's order takes: for tests of many payloads at
    /// once.
    #[inline]
    pub(crate) fn payload_order_bits() -> u64 {
        ((1 << ORDER_BITS) - 1) << 1
    }

    /// The flags packed in a payload (none in a zero payload).
    #[inline]
    pub fn flags_of(payload: u64) -> FolioFlags {
        FolioFlags(((payload >> (1 + ORDER_BITS)) & ((1 << FLAG_BITS) - 1)) as u16)
    }

    /// Unpacks a payload stored at `index`.
    pub(crate) fn decode(index: u64, payload: u64) -> Self {
        Folio {
            index,
            order: ((payload >> 1) & ((1 << ORDER_BITS) - 1)) as u8,
            flags: FolioFlags(((payload >> (1 + ORDER_BITS)) & ((1 << FLAG_BITS) - 1)) as u16),
            lru_stamp: payload >> STAMP_SHIFT,
        }
    }
}

/// The shadow entry a reclaimed folio leaves behind: when it was evicted,
/// on the LRU clock, and whether it was part of the workingset then.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shadow {
    pub eviction: u64,
    pub workingset: bool,
}

impl Shadow {
    pub(crate) fn encode(&self) -> u64 {
        (self.eviction << 1) | self.workingset as u64
    }
    pub fn decode(v: u64) -> Self {
        Shadow {
            eviction: v >> 1,
            workingset: v & 1 != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn folio_round_trips_through_a_payload() {
        let mut f = Folio::new(512, 9, FolioFlags::UPTODATE.union(FolioFlags::READAHEAD));
        f.lru_stamp = 123_456_789;
        let back = Folio::decode(512, f.encode());
        assert_eq!(back, f);
        assert!(back.test(FolioFlags::READAHEAD));
        assert!(!back.test(FolioFlags::LOCKED));
        assert_eq!(back.next_index(), 1024);
        assert!(f.encode() <= crate::xarray::MAX_PAYLOAD);
    }
}
