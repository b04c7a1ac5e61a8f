//! The colours of the strips and the xarray view. They are chosen in one
//! place, the style sheet (`assets/style.css`, custom properties on
//! `:root`): the legends' swatches name them there, and the canvases read
//! them once from the page's computed style. `e2e/tests/12-palette.mjs`
//! holds every pair of colours that meet on the strip to a difference that
//! survives protanopia, deuteranopia and tritanopia, and order 9 against
//! "not cached" to WCAG's 3:1 for graphics.

use std::rc::Rc;

/// Folio orders the palette tells apart: up to MAX_PAGECACHE_ORDER's
/// largest, MAX_XAS_ORDER (11), which 16 KiB and 64 KiB pages reach.
pub const ORDERS: usize = 12;

/// The strip's colours, as RGB.
#[derive(Clone, Debug, PartialEq)]
pub struct Palette {
    /// Resident folios, by order.
    pub orders: [[u8; 3]; ORDERS],
    /// Pages with no entry: never cached, or forgotten.
    pub uncached: [u8; 3],
    /// Pages under a shadow entry: evicted.
    pub shadow: [u8; 3],
    /// Folios under I/O (locked, not yet uptodate).
    pub under_io: [u8; 3],
    /// Folios present but not uptodate and not under I/O (fallocated).
    pub not_uptodate: [u8; 3],
    /// The line where one folio ends and the next begins, zoomed in.
    pub folio_edge: [u8; 3],
    /// PG_readahead marks.
    pub readahead: [u8; 3],
    pub pte: [u8; 3],
    pub pmd: [u8; 3],
    /// The readahead window and its async part.
    pub window: [u8; 3],
    pub window_async: [u8; 3],
    /// The current access, and the edges that set it off.
    pub cursor: [u8; 3],
    pub cursor_edge: [u8; 3],
    /// Pages where the real kernel and the model differ.
    pub differs: [u8; 3],
    /// The scrubber's track and thumb (`hooks/use_step_canvas.rs`).
    pub scrubber_track: [u8; 3],
    pub scrubber_thumb: [u8; 3],
}

impl Palette {
    /// Reads each colour with `get`, which returns a custom property's
    /// value (`--order-0`, ...) as the style sheet gives it; names the
    /// first one missing or unreadable.
    pub fn read(get: impl Fn(&str) -> String) -> Result<Palette, String> {
        let colour = |name: &str| {
            let v = get(name);
            parse(&v).ok_or_else(|| {
                format!(
                    "style sheet colour {name}: '{}' is not #rrggbb or #rgb",
                    v.trim()
                )
            })
        };
        let mut orders = [[0; 3]; ORDERS];
        for (o, c) in orders.iter_mut().enumerate() {
            *c = colour(&format!("--order-{o}"))?;
        }
        Ok(Palette {
            orders,
            uncached: colour("--uncached")?,
            shadow: colour("--shadow")?,
            under_io: colour("--under-io")?,
            not_uptodate: colour("--not-uptodate")?,
            folio_edge: colour("--folio-edge")?,
            readahead: colour("--readahead")?,
            pte: colour("--pte")?,
            pmd: colour("--pmd")?,
            window: colour("--ra-window")?,
            window_async: colour("--ra-async")?,
            cursor: colour("--cursor")?,
            cursor_edge: colour("--cursor-edge")?,
            differs: colour("--differs")?,
            scrubber_track: colour("--scrubber-track")?,
            scrubber_thumb: colour("--scrubber-thumb")?,
        })
    }

    /// Every colour `c`.
    #[cfg(target_arch = "wasm32")]
    fn uniform(c: [u8; 3]) -> Palette {
        Palette {
            orders: [c; ORDERS],
            uncached: c,
            shadow: c,
            under_io: c,
            not_uptodate: c,
            folio_edge: c,
            readahead: c,
            pte: c,
            pmd: c,
            window: c,
            window_async: c,
            cursor: c,
            cursor_edge: c,
            differs: c,
            scrubber_track: c,
            scrubber_thumb: c,
        }
    }

    /// The colour of resident folios of `order`; larger orders than the
    /// palette knows take its last.
    pub fn order(&self, order: u8) -> [u8; 3] {
        self.orders[(order as usize).min(ORDERS - 1)]
    }
}

/// `#rrggbb`, or its short form `#rgb` (the built style sheet is
/// minified, which writes `#ffffff` as `#fff`), as RGB.
fn parse(css: &str) -> Option<[u8; 3]> {
    let hex = css.trim().strip_prefix('#')?;
    let digits = match hex.len() {
        3 => 1,
        6 => 2,
        _ => return None,
    };
    let channel = |i: usize| {
        let v = u8::from_str_radix(hex.get(i * digits..(i + 1) * digits)?, 16).ok()?;
        Some(if digits == 1 { v * 17 } else { v })
    };
    Some([channel(0)?, channel(1)?, channel(2)?])
}

/// `rgb(r,g,b)` for an inline style.
pub fn css(c: [u8; 3]) -> String {
    format!("rgb({},{},{})", c[0], c[1], c[2])
}

thread_local! {
    static CURRENT: Rc<Palette> = Rc::new(from_page());
}

/// The page's palette, read from its style sheet on first use.
pub fn current() -> Rc<Palette> {
    CURRENT.with(Rc::clone)
}

#[cfg(target_arch = "wasm32")]
fn from_page() -> Palette {
    let root = gloo::utils::document().document_element();
    let style = root.and_then(|r| gloo::utils::window().get_computed_style(&r).ok().flatten());
    let get = |name: &str| {
        style
            .as_ref()
            .and_then(|s| s.get_property_value(name).ok())
            .unwrap_or_default()
    };
    Palette::read(get).unwrap_or_else(|e| {
        // A page without its style sheet: say so, and draw in one colour
        // that cannot pass for a state. Made directly, not read and
        // unwrapped: an unwrapped `Result<_, String>` kept `String`'s
        // Debug in the wasm, the only use of it (2.4 KB before gzip).
        gloo::console::error!(e);
        Palette::uniform([0xff, 0, 0xff])
    })
}

/// Outside a browser (the crate's tests), the style sheet's own values.
#[cfg(not(target_arch = "wasm32"))]
fn from_page() -> Palette {
    style_sheet().expect("assets/style.css names every colour")
}

/// The palette as `assets/style.css` declares it.
#[cfg(not(target_arch = "wasm32"))]
pub fn style_sheet() -> Result<Palette, String> {
    let css = include_str!("../../assets/style.css");
    Palette::read(|name| {
        css.lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix(name)
                    .and_then(|r| r.trim_start().strip_prefix(':'))
            })
            .map(|v| v.trim().trim_end_matches(';').to_string())
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_style_sheet_names_every_colour_and_no_two_states_alike() {
        let p = style_sheet().unwrap();
        let states = [p.uncached, p.shadow, p.under_io, p.not_uptodate];
        for (i, a) in p.orders.iter().chain(&states).enumerate() {
            for b in p.orders.iter().chain(&states).skip(i + 1) {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn a_missing_or_bad_colour_is_named() {
        let e = Palette::read(|n| {
            if n == "--shadow" {
                "red".into()
            } else {
                "#102030".into()
            }
        });
        assert_eq!(
            e.unwrap_err(),
            "style sheet colour --shadow: 'red' is not #rrggbb or #rgb"
        );
        assert_eq!(parse(" #0a0B0c "), Some([10, 11, 12]));
        assert_eq!(parse("#0a0b0"), None);
        assert_eq!(parse("#c0F"), Some([204, 0, 255]));
        assert_eq!(parse("#0a0b"), None);
        assert_eq!(parse("#g00"), None);
    }
}
