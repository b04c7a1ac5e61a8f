//! Stable sorting by an integer key, through one sort in the binary.
//!
//! Each element type sorted with the standard library's `sort_by_key`
//! gets its own copy of the sort, some 3.5 KB of wasm each, and the web
//! app sorted seven kinds of things (story stops, link stops, kernel
//! names, folio lives, ratios, cut points). Here each sort is of
//! `(key, position)` pairs, which are all distinct, so an unstable sort
//! of them keeps equal keys in their order; only the moving of the
//! elements into that order is per type.

/// Sorts `v` by `key`, keeping elements with equal keys in their order.
pub fn sort_by_u64_key<T>(v: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    if v.len() < 2 {
        return;
    }
    let mut order: Vec<(u64, usize)> = v.iter().enumerate().map(|(i, x)| (key(x), i)).collect();
    order.sort_unstable();
    let mut items: Vec<Option<T>> = v.drain(..).map(Some).collect();
    v.extend(
        order
            .iter()
            .map(|&(_, i)| items[i].take().expect("each position once")),
    );
}

/// A key that orders floats as `f64::total_cmp` does.
pub fn f64_order_key(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sort_is_the_standard_stable_sort() {
        let mut x = 7u64;
        for n in [0usize, 1, 2, 3, 17, 200] {
            let v: Vec<(u64, usize)> = (0..n)
                .map(|i| {
                    x = folioscope_core::splitmix64(x);
                    (x % 5, i)
                })
                .collect();
            let mut ours = v.clone();
            sort_by_u64_key(&mut ours, |&(k, _)| k);
            let mut std = v;
            std.sort_by_key(|&(k, _)| k);
            assert_eq!(ours, std);
        }
    }

    #[test]
    fn floats_order_as_total_cmp_orders_them() {
        let xs = [
            f64::NEG_INFINITY,
            -2.5,
            -0.0,
            0.0,
            1e-300,
            0.5,
            3.0,
            f64::INFINITY,
            f64::NAN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(
                    f64_order_key(a).cmp(&f64_order_key(b)),
                    a.total_cmp(&b),
                    "{a} against {b}"
                );
            }
        }
    }
}
