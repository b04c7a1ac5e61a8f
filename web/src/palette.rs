//! Colours. Folio orders use viridis, a sequential scale that stays
//! readable for the common kinds of colour blindness and in greyscale:
//! small folios are dark, PMD-sized ones bright.

/// RGB of folio order `order`, for orders 0 to 13.
pub fn order_rgb(order: u8) -> [u8; 3] {
    const VIRIDIS: [[u8; 3]; 14] = [
        [68, 1, 84],
        [72, 26, 108],
        [71, 47, 125],
        [65, 68, 135],
        [57, 86, 140],
        [49, 104, 142],
        [42, 120, 142],
        [35, 136, 142],
        [31, 152, 139],
        [34, 168, 132],
        [53, 183, 121],
        [84, 197, 104],
        [122, 209, 81],
        [165, 219, 54],
    ];
    VIRIDIS[(order as usize).min(13)]
}

pub fn order_css(order: u8) -> String {
    let [r, g, b] = order_rgb(order);
    format!("rgb({r},{g},{b})")
}

/// Uncached pages.
pub const UNCACHED: [u8; 3] = [236, 236, 232];
/// Folios under I/O.
pub const LOCKED: [u8; 3] = [230, 159, 0];
/// Folios in the cache but not uptodate and not under I/O (fallocated).
pub const NOT_UPTODATE: [u8; 3] = [120, 120, 120];
/// Pages where the real kernel and the model differ.
pub const DIFF: [u8; 3] = [204, 0, 0];
/// PG_readahead ticks.
pub const READAHEAD: [u8; 3] = [213, 94, 0];
/// PTE-mapped band.
pub const PTE: [u8; 3] = [86, 180, 233];
/// PMD-mapped band.
pub const PMD: [u8; 3] = [0, 114, 178];
/// The readahead window.
pub const WINDOW: [u8; 3] = [0, 158, 115];
/// The async part of the window.
pub const WINDOW_ASYNC: [u8; 3] = [204, 121, 167];
/// The cursor.
pub const CURSOR: [u8; 3] = [0, 0, 0];
