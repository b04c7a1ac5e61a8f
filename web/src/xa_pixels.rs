//! An xarray node's 64 slots as pixels: two rows of 32 cells, drawn into
//! one RGBA buffer and put on the node's canvas in one call. Drawing each
//! slot with canvas calls took thousands of calls per step.
//!
//! Cells: a folio in its order's colour; a sibling slot hatched in the
//! colour of the entry it belongs to; a child node grey; a shadow (value
//! entry) as a dashed outline; empty as a faint outline; a mark as a small
//! orange square in the corner.

use folioscope_core::{NodeView, Slot};

use crate::palette::Palette;

pub const PER_ROW: usize = 32;
pub const CELL_W: usize = 20;
pub const CELL_H: usize = 14;
pub const WIDTH: usize = CELL_W * PER_ROW;
pub const HEIGHT: usize = CELL_H * 2;

const CHILD: [u8; 3] = [185, 190, 197];
const SHADOW: [u8; 3] = [93, 102, 112];
/// rgba(0,0,0,0.15) over white.
const EMPTY_EDGE: [u8; 3] = [217, 217, 217];
const UNKNOWN_SIBLING: [u8; 3] = [153, 153, 153];
const MARK: [u8; 3] = [213, 94, 0];

/// The slot under canvas pixel `(x, y)`, in canvas pixels.
pub fn slot_at(x: f64, y: f64) -> usize {
    let col = ((x / CELL_W as f64) as usize).min(PER_ROW - 1);
    let row = ((y / CELL_H as f64) as usize).min(1);
    row * PER_ROW + col
}

/// Draws node `n` into `rgba`, which must hold WIDTH × HEIGHT pixels.
/// Cells are written a row slice at a time: compare mode draws three
/// trees of a dozen nodes on every step.
pub fn render(n: &NodeView, palette: &Palette, rgba: &mut [u8]) {
    debug_assert_eq!(rgba.len(), WIDTH * HEIGHT * 4);
    rgba.fill(255);
    let order_of = |slot: Slot| match slot {
        Slot::Folio(f) => Some(f.order),
        _ => None,
    };
    for off in 0..64 {
        let cell = Cell {
            x: (off % PER_ROW) * CELL_W + 1,
            y: (off / PER_ROW) * CELL_H + 1,
            w: CELL_W - 2,
            h: CELL_H - 2,
        };
        match n.slots[off] {
            Slot::Folio(f) => cell.fill(rgba, palette.order(f.order)),
            Slot::Sibling { canonical } => {
                let colour = order_of(n.slots[canonical as usize])
                    .map(|o| palette.order(o))
                    .unwrap_or(UNKNOWN_SIBLING);
                cell.hatch(rgba, colour);
                cell.outline(rgba, colour, false);
            }
            Slot::Node(_) => cell.fill(rgba, CHILD),
            Slot::Shadow(_) => cell.outline(rgba, SHADOW, true),
            Slot::Empty => cell.outline(rgba, EMPTY_EDGE, false),
        }
        if (0..3).any(|k| (n.marks[k] >> off) & 1 == 1) {
            Cell {
                x: cell.x + cell.w - 5,
                y: cell.y,
                w: 5,
                h: 5,
            }
            .fill(rgba, MARK);
        }
    }
}

struct Cell {
    x: usize,
    y: usize,
    w: usize,
    h: usize,
}

/// A row of `CELL_W` pixels of one colour (opaque).
fn row_of(c: [u8; 3]) -> [u8; CELL_W * 4] {
    let mut row = [255u8; CELL_W * 4];
    for px in row.chunks_exact_mut(4) {
        px[..3].copy_from_slice(&c);
    }
    row
}

impl Cell {
    fn put(rgba: &mut [u8], x: usize, y: usize, c: [u8; 3]) {
        let i = (y * WIDTH + x) * 4;
        rgba[i..i + 3].copy_from_slice(&c);
    }

    /// Row `y` of the cell, `w` pixels from its left edge.
    fn row<'a>(&self, rgba: &'a mut [u8], y: usize) -> &'a mut [u8] {
        let i = (y * WIDTH + self.x) * 4;
        &mut rgba[i..i + self.w * 4]
    }

    fn fill(&self, rgba: &mut [u8], c: [u8; 3]) {
        let row = row_of(c);
        for y in self.y..self.y + self.h {
            self.row(rgba, y).copy_from_slice(&row[..self.w * 4]);
        }
    }

    /// Diagonal stripes two pixels wide, five apart.
    fn hatch(&self, rgba: &mut [u8], c: [u8; 3]) {
        // Five rows repeat: row dy starts the pattern dy pixels along.
        let mut rows = [[255u8; CELL_W * 4]; 5];
        for (dy, row) in rows.iter_mut().enumerate() {
            for (dx, px) in row.chunks_exact_mut(4).enumerate() {
                if (dx + dy) % 5 < 2 {
                    px[..3].copy_from_slice(&c);
                }
            }
        }
        for dy in 0..self.h {
            self.row(rgba, self.y + dy)
                .copy_from_slice(&rows[dy % 5][..self.w * 4]);
        }
    }

    /// A one-pixel border, solid or in dashes of two.
    fn outline(&self, rgba: &mut [u8], c: [u8; 3], dashed: bool) {
        let (x1, y1) = (self.x + self.w - 1, self.y + self.h - 1);
        let on = |k: usize| !dashed || (k / 2).is_multiple_of(2);
        if dashed {
            for (k, x) in (self.x..=x1).enumerate() {
                if on(k) {
                    Self::put(rgba, x, self.y, c);
                    Self::put(rgba, x, y1, c);
                }
            }
        } else {
            let row = row_of(c);
            self.row(rgba, self.y).copy_from_slice(&row[..self.w * 4]);
            self.row(rgba, y1).copy_from_slice(&row[..self.w * 4]);
        }
        for (k, y) in (self.y..=y1).enumerate() {
            if on(k) {
                Self::put(rgba, self.x, y, c);
                Self::put(rgba, x1, y, c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_at_maps_cells_to_slots() {
        assert_eq!(slot_at(0.0, 0.0), 0);
        assert_eq!(slot_at(CELL_W as f64 * 31.5, 1.0), 31);
        assert_eq!(slot_at(CELL_W as f64 * 2.5, CELL_H as f64 + 1.0), 34);
        assert_eq!(slot_at(1e9, 1e9), 63);
    }

    /// The slots whose cells hold a mark-coloured pixel.
    fn marked_slots(n: &NodeView) -> Vec<usize> {
        let mut rgba = vec![0u8; WIDTH * HEIGHT * 4];
        render(n, &crate::palette::style_sheet().unwrap(), &mut rgba);
        let mut slots: Vec<usize> = rgba
            .chunks_exact(4)
            .enumerate()
            .filter(|(_, px)| px[..3] == MARK)
            .map(|(i, _)| slot_at((i % WIDTH) as f64, (i / WIDTH) as f64))
            .collect();
        slots.dedup();
        slots
    }

    #[test]
    fn marks_are_drawn_only_where_the_node_has_them() {
        let mut n = NodeView {
            id: 0,
            shift: 0,
            offset: 0,
            base: 0,
            count: 0,
            nr_values: 0,
            depth: 1,
            slots: vec![Slot::Empty; 64],
            marks: [0; 3],
        };
        assert_eq!(marked_slots(&n), Vec::<usize>::new());
        n.marks = [1 << 5, 0, 1 << 40];
        assert_eq!(marked_slots(&n), vec![5, 40]);
    }
}
