//! folioscope-web: the Yew app that animates the page-cache model.
//!
//! The app's state is a value ([`state::State`]), changed only by its
//! reducer; components read the slice of it they draw through contexts
//! ([`context`]) and send actions; the effects are hooks ([`hooks`]). The
//! timelines are built outside the reducer (`hooks::use_build`) and the
//! simulations stand outside the state ([`seekers`]). The model itself is
//! `folioscope-core`, the same code `folioscope run` uses.

mod app;
mod canvas;
mod components;
mod context;
mod gzip;
mod hooks;
mod indexing;
mod palette;
mod panic;
mod play_clock;
mod predict;
mod probe;
mod real_lane;
mod recording;
mod seekers;
mod slices;
mod state;
mod strip;
mod url;
mod warm;
mod xa_pixels;

/// The heap taken from the browser before the first render, in one step.
/// The default view's wasm memory was 34 MB once its timelines were built
/// (2026-12-05); the allocator grew it there in about 194 steps of a few
/// pages, which V8 charged 2 to 17 ms of the first render in all
/// (`wasm.GrowMemory` in traces of six loads; one grow took up to 5 ms).
/// With this reserve the same build grew the memory 3 times, in 0.2 ms.
/// Untouched, the reserve costs no resident memory: the renderer's
/// resident set after the default view's load was 218 to 219 MB with it
/// and without.
const HEAP_RESERVE: usize = 32 << 20;

fn main() {
    panic::install();
    reserve_heap(HEAP_RESERVE, HEAP_RESERVE);
    yew::Renderer::<app::App>::new().render();
}

/// Blocks [`reserve_heap`] takes of the heap kept free once a view is
/// warm: larger than the counts a jump makes at once, the largest of
/// which are a strip's twig tables (half a megabyte at 16 GiB).
const FREE_PIECE: usize = 1 << 20;

/// Makes sure the allocator holds `bytes` of free heap in blocks of
/// `piece` bytes, growing the wasm memory only by what its free blocks
/// lack: it takes them and gives them back, and keeps them for the
/// allocations to come (wasm memory never shrinks). Before the first
/// render, one block (the heap is empty); once warm, [`FREE_PIECE`]s,
/// so that the holes already there count: on the 16 GiB comparison, one
/// free block of 8 MB grew the memory from 119.5 to 127.6 MB, with 9.9 MB
/// free in smaller blocks (a counting allocator's figures, 2026-12-06).
fn reserve_heap(bytes: usize, piece: usize) {
    let blocks: Vec<Vec<u8>> = (0..bytes.div_ceil(piece))
        .map(|_| Vec::with_capacity(piece))
        .collect();
    // Kept from being optimised away with the allocations it frees.
    drop(std::hint::black_box(blocks));
}
