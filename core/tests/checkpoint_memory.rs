//! A timeline's checkpoints take no more memory than they count. The
//! checkpoint budget bounds them only if `Timeline::checkpoint_bytes`
//! sees all of it: a memory cgroup's LRU, once cloned whole into every
//! checkpoint and not counted, took 3.2 GB in the seed000-memcg preset's
//! build. The bytes are counted by this test binary's allocator.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use folioscope_core::{Config, Madvise, Scenario, Timeline};

/// Bytes allocated and not freed yet.
static LIVE: AtomicUsize = AtomicUsize::new(0);

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Relaxed);
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Bytes `cfg`'s timeline holds once built with every checkpoint kept,
/// and the bytes its checkpoints count.
fn held_and_counted(cfg: Config) -> (usize, usize) {
    let before = LIVE.load(Relaxed);
    let timeline = Timeline::build(cfg, usize::MAX);
    let held = LIVE.load(Relaxed) - before;
    (held, timeline.checkpoint_bytes())
}

#[test]
fn checkpoints_take_no_more_than_they_count() {
    // A 256 MiB file touched page by page under MADV_RANDOM: a fault and
    // an order-0 folio an access, and with a 64 MiB limit an eviction an
    // access too, from an LRU of 16,384 folios.
    let walk = |memory_limit| {
        Config::new(Scenario {
            file_size: 256 << 20,
            madvise: Madvise::Random,
            memory_limit,
            ..Scenario::default()
        })
        .unwrap()
    };
    let (held_free, counted_free) = held_and_counted(walk(None));
    let (held, counted) = held_and_counted(walk(Some(64 << 20)));
    // What a timeline holds beside its checkpoints (its end machine,
    // samples, marks and folio origins) is about the same with the limit
    // as without it: the end machine's LRU (16,384 entries of 16 bytes)
    // and shadows are what the limit adds. So the uncounted rest may grow
    // by that and a margin, not by a copy of the LRU a checkpoint.
    let rest_free = held_free.saturating_sub(counted_free);
    let rest = held.saturating_sub(counted);
    assert!(
        rest <= rest_free + (2 << 20),
        "with a memory cgroup the checkpoints count {counted} bytes and the \
         timeline holds {held}; without, {counted_free} and {held_free}"
    );
}
