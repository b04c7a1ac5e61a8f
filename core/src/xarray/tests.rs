//! Ports of lib/test_xarray.c (read in the 6.12 source), written for this
//! model, plus a property test against a `BTreeMap`.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// `xa_mk_index`: the test suite's stand-in entry for an index.
fn mk(i: u64) -> Entry {
    Entry::Value(i & MAX_PAYLOAD)
}

fn store_index(xa: &mut XArray, i: u64) -> Entry {
    let old = xa.store(i, mk(i));
    xa.check().unwrap();
    old
}

fn erase_index(xa: &mut XArray, i: u64) {
    assert_eq!(xa.erase(i), mk(i), "erasing {i}");
    xa.check().unwrap();
}

#[test]
fn check_xa_load() {
    let mut xa = XArray::new();
    let n = 256;
    for i in 0..n {
        for j in 0..n {
            let e = xa.load(j);
            if j < i {
                assert_eq!(e, mk(j));
            } else {
                assert_eq!(e, Entry::Empty);
            }
        }
        assert_eq!(store_index(&mut xa, i), Entry::Empty);
    }
    for i in 0..n {
        for j in 0..n {
            let e = xa.load(j);
            if j >= i {
                assert_eq!(e, mk(j));
            } else {
                assert_eq!(e, Entry::Empty);
            }
        }
        erase_index(&mut xa, i);
    }
    assert!(xa.is_empty());
    assert_eq!(xa.node_count(), 0);
}

fn check_xa_mark_1(xa: &mut XArray, index: u64) {
    // NULL entries have no marks, and setting one on NULL does nothing.
    assert!(!xa.get_mark(index, XaMark::Mark0));
    xa.set_mark(index, XaMark::Mark0);
    assert!(!xa.get_mark(index, XaMark::Mark0));

    // Storing a pointer does not make a mark appear.
    assert_eq!(store_index(xa, index), Entry::Empty);
    assert!(!xa.get_mark(index, XaMark::Mark0));
    xa.set_mark(index, XaMark::Mark0);
    assert!(xa.get_mark(index, XaMark::Mark0));
    xa.check().unwrap();

    // One mark does not set another.
    assert!(!xa.get_mark(index + 1, XaMark::Mark0));
    assert!(!xa.get_mark(index, XaMark::Mark1));

    // Storing NULL clears marks, and they cannot be set again.
    erase_index(xa, index);
    assert!(xa.is_empty());
    assert!(!xa.get_mark(index, XaMark::Mark0));
    xa.set_mark(index, XaMark::Mark0);
    assert!(!xa.get_mark(index, XaMark::Mark0));

    // A multi-index store over marked entries takes the union of their marks.
    assert_eq!(index % 4, 0);
    for order in 2..8u8 {
        let base = index & !((1u64 << order) - 1);
        let next = base + (1u64 << order);
        assert_eq!(store_index(xa, index + 1), Entry::Empty);
        xa.set_mark(index + 1, XaMark::Mark0);
        assert_eq!(store_index(xa, index + 2), Entry::Empty);
        xa.set_mark(index + 2, XaMark::Mark2);
        assert_eq!(store_index(xa, next), Entry::Empty);
        xa.store_order(index, order, mk(index));
        xa.check().unwrap();
        for i in base..next {
            assert!(xa.get_mark(i, XaMark::Mark0), "order {order} index {i}");
            assert!(!xa.get_mark(i, XaMark::Mark1));
            assert!(xa.get_mark(i, XaMark::Mark2));

            // Two entries in the array...
            let mut xas = XaState::new(i);
            let mut seen = 0;
            let mut e = xas.find(xa, u64::MAX);
            while !e.is_empty() {
                seen += 1;
                e = xas.find(xa, u64::MAX);
            }
            assert_eq!(seen, 2);

            // ...one of which is marked.
            let mut xas = XaState::new(0);
            let mut seen = 0;
            let mut e = xas.find_marked(xa, u64::MAX, XaMark::Mark0);
            while !e.is_empty() {
                seen += 1;
                e = xas.find_marked(xa, u64::MAX, XaMark::Mark0);
            }
            assert_eq!(seen, 1);
        }
        assert!(!xa.get_mark(next, XaMark::Mark0));
        assert!(!xa.get_mark(next, XaMark::Mark1));
        assert!(!xa.get_mark(next, XaMark::Mark2));
        erase_index(xa, index);
        erase_index(xa, next);
        assert!(xa.is_empty());
    }
}

#[test]
fn check_xa_mark() {
    let mut xa = XArray::new();
    let mut index = 0;
    while index < 16384 {
        check_xa_mark_1(&mut xa, index);
        index += 4;
    }
}

#[test]
fn check_xa_shrink() {
    let mut xa = XArray::new();
    store_index(&mut xa, 0);
    store_index(&mut xa, 1);
    // Erasing 1 shrinks the tree back to a head-only array.
    let mut xas = XaState::new(1);
    assert_eq!(xas.load(&xa), mk(1));
    assert_eq!(xas.store(&mut xa, Entry::Empty), mk(1));
    assert_eq!(xa.load(1), Entry::Empty);
    assert_eq!(xas.node, XasNode::Bounds);
    assert_eq!(xa.node_count(), 0);
    assert_eq!(xa.load(0), mk(0));
    erase_index(&mut xa, 0);
    assert!(xa.is_empty());

    for order in 0..15u8 {
        let max = (1u64 << order) - 1;
        xa.store_order(0, order, Entry::Value(0));
        xa.check().unwrap();
        assert_eq!(xa.load(max), Entry::Value(0));
        assert_eq!(xa.load(max + 1), Entry::Empty);
        let head = xa.head;
        store_index(&mut xa, u64::MAX);
        assert_ne!(xa.head, head);
        assert_eq!(xa.load(max + 1), Entry::Empty);
        erase_index(&mut xa, u64::MAX);
        // The tree shrinks back to the very node it had.
        assert_eq!(xa.head, head);
        assert_eq!(xa.erase(0), Entry::Value(0));
        xa.check().unwrap();
        assert!(xa.is_empty());
    }
}

fn check_multi_store_1(xa: &mut XArray, index: u64, order: u8) {
    let min = index & !((1u64 << order) - 1);
    let max = min + (1u64 << order);
    xa.store_order(index, order, mk(index));
    xa.check().unwrap();
    assert_eq!(xa.load(min), mk(index));
    assert_eq!(xa.load(max - 1), mk(index));
    assert_eq!(xa.load(max), Entry::Empty);
    if min > 0 {
        assert_eq!(xa.load(min - 1), Entry::Empty);
    }
    let mut xas = XaState::new(index);
    assert_eq!(xas.store(xa, mk(min)), mk(index));
    xa.check().unwrap();
    assert_eq!(xa.load(min), mk(min));
    assert_eq!(xa.load(max - 1), mk(min));
    assert_eq!(xa.load(max), Entry::Empty);
    if min > 0 {
        assert_eq!(xa.load(min - 1), Entry::Empty);
    }
    erase_index(xa, min);
    assert!(xa.is_empty());
}

fn check_multi_store_2(xa: &mut XArray, index: u64, order: u8) {
    xa.store_order(index, order, Entry::Value(0));
    let mut xas = XaState::new(index);
    assert_eq!(xas.store(xa, Entry::Value(1)), Entry::Value(0));
    assert_eq!(xas.index, index);
    assert_eq!(xas.store(xa, Entry::Empty), Entry::Value(1));
    xa.check().unwrap();
    assert!(xa.is_empty());
}

fn check_multi_store_3(xa: &mut XArray, index: u64, order: u8) {
    xa.store_order(index, order, mk(index));
    let mut xas = XaState::new(0);
    let mut n = 0;
    let mut e = xas.find(xa, u64::MAX);
    while !e.is_empty() {
        assert_eq!(e, mk(index));
        n += 1;
        e = xas.find(xa, u64::MAX);
    }
    assert_eq!(n, 1);
    xas.set(index + 1);
    let mut e = xas.find(xa, u64::MAX);
    while !e.is_empty() {
        assert_eq!(e, mk(index));
        n += 1;
        e = xas.find(xa, u64::MAX);
    }
    assert_eq!(n, 2);
    *xa = XArray::new();
}

#[test]
fn check_multi_store() {
    let mut xa = XArray::new();
    // Loading from any position returns the same value.
    xa.store_order(0, 1, Entry::Value(0));
    assert_eq!(xa.load(0), Entry::Value(0));
    assert_eq!(xa.load(1), Entry::Value(0));
    assert_eq!(xa.load(2), Entry::Empty);
    let root = xa.nodes_in_range(0, 0, 1)[0].clone();
    assert_eq!((root.count, root.nr_values), (2, 2));

    // Storing next to it leaves it alone.
    xa.store(3, Entry::Pointer(7));
    assert_eq!(xa.load(0), Entry::Value(0));
    assert_eq!(xa.load(1), Entry::Value(0));
    assert_eq!(xa.load(2), Entry::Empty);
    let root = xa.nodes_in_range(0, 0, 1)[0].clone();
    assert_eq!((root.count, root.nr_values), (3, 2));

    // Overwriting several indices at once.
    xa.store_order(0, 2, Entry::Value(1));
    for i in 0..4 {
        assert_eq!(xa.load(i), Entry::Value(1));
    }
    assert_eq!(xa.load(4), Entry::Empty);
    let root = xa.nodes_in_range(0, 0, 1)[0].clone();
    assert_eq!((root.count, root.nr_values), (4, 4));
    xa.check().unwrap();

    // One store erases many values...
    xa.store_order(0, 63, Entry::Empty);
    assert!(xa.is_empty());
    // ...even when the first slot is empty and the others are not.
    store_index(&mut xa, 1);
    store_index(&mut xa, 2);
    xa.store_order(0, 2, Entry::Empty);
    assert!(xa.is_empty());

    let max_order = 30u8;
    for i in 0..max_order {
        for j in 0..max_order {
            xa.store_order(0, i, mk(i as u64));
            xa.store_order(0, j, mk(j as u64));
            xa.check().unwrap();
            for k in 0..max_order {
                let e = xa.load((1u64 << k) - 1);
                if i < k && j < k {
                    assert_eq!(e, Entry::Empty, "i {i} j {j} k {k}");
                } else {
                    assert_eq!(e, mk(j as u64), "i {i} j {j} k {k}");
                }
            }
            xa.erase(0);
            xa.check().unwrap();
            assert!(xa.is_empty(), "i {i} j {j}");
        }
    }

    for i in 0..20u8 {
        check_multi_store_1(&mut xa, 200, i);
        check_multi_store_1(&mut xa, 0, i);
        check_multi_store_1(&mut xa, (1u64 << i) + 1, i);
    }
    check_multi_store_2(&mut xa, 4095, 9);
    for i in 1..20u8 {
        check_multi_store_3(&mut xa, 0, i);
        check_multi_store_3(&mut xa, 1u64 << i, i);
    }
}

/// Orders 6 and up live in the node one level up, with no leaf below.
#[test]
fn multi_index_entries_of_order_six_and_more_live_higher() {
    let mut xa = XArray::new();
    xa.store_order(512, 9, Entry::Pointer(9));
    xa.store_order(64, 6, Entry::Pointer(6));
    xa.store(5, Entry::Pointer(1));
    xa.check().unwrap();
    let nodes = xa.nodes_in_range(0, 1023, 16);
    // The root (shift 6) and one leaf for index 5.
    assert_eq!(nodes.len(), 2);
    let root = &nodes[0];
    assert_eq!(root.shift, 6);
    assert_eq!(root.slots[1], Entry::Pointer(6));
    assert_eq!(root.slots[8], Entry::Pointer(9));
    for s in 9..16 {
        assert_eq!(root.slots[s], Entry::Sibling(8));
    }
    assert_eq!(xa.get_order(600), 9);
    assert_eq!(xa.get_order(100), 6);
    assert_eq!(xa.peek_depth(600), 1);
    assert_eq!(xa.peek_depth(5), 2);
    // A load inside the PMD-sized entry visits one node, at index 5 two.
    xa.reset_stats();
    assert_eq!(xa.load(1000), Entry::Pointer(9));
    assert_eq!(xa.stats().node_visits, 1);
    xa.reset_stats();
    assert_eq!(xa.load(5), Entry::Pointer(1));
    assert_eq!(xa.stats().node_visits, 2);
}

fn check_move_small(xa: &mut XArray, idx: u64) {
    store_index(xa, 0);
    store_index(xa, idx);
    let mut xas = XaState::new(0);
    let mut i = 0;
    while i < idx * 4 {
        let e = xas.next(xa);
        if i <= idx {
            assert_ne!(xas.node, XasNode::Restart);
        }
        assert_eq!(xas.index, i);
        if i == 0 || i == idx {
            assert_eq!(e, mk(i));
        } else {
            assert_eq!(e, Entry::Empty, "idx {idx} i {i}");
        }
        i += 1;
    }
    xas.next(xa);
    assert_eq!(xas.index, i);
    loop {
        let e = xas.prev(xa);
        i -= 1;
        if i <= idx {
            assert_ne!(xas.node, XasNode::Restart);
        }
        assert_eq!(xas.index, i);
        if i == 0 || i == idx {
            assert_eq!(e, mk(i));
        } else {
            assert_eq!(e, Entry::Empty);
        }
        if i == 0 {
            break;
        }
    }
    xas.set(u64::MAX);
    assert_eq!(xas.next(xa), Entry::Empty);
    assert_eq!(xas.index, u64::MAX);
    assert_eq!(xas.next(xa), Entry::Value(0));
    assert_eq!(xas.index, 0);
    assert_eq!(xas.prev(xa), Entry::Empty);
    assert_eq!(xas.index, u64::MAX);
    erase_index(xa, 0);
    erase_index(xa, idx);
    assert!(xa.is_empty());
}

#[test]
fn check_move() {
    let mut xa = XArray::new();
    for i in 0..16 {
        check_move_small(&mut xa, 1u64 << i);
    }
    for i in 2..16 {
        check_move_small(&mut xa, (1u64 << i) - 1);
    }
}

/// `xas_next` across node boundaries counts one visit per node entered.
#[test]
fn xas_next_crosses_nodes_and_counts_visits() {
    let mut xa = XArray::new();
    for i in 0..200 {
        xa.store(i, Entry::Pointer(i + 1));
    }
    xa.reset_stats();
    let mut xas = XaState::new(0);
    assert_eq!(xas.load(&xa), Entry::Pointer(1));
    let after_load = xa.stats();
    assert_eq!(after_load.node_visits, 2); // root, then leaf 0
    for i in 1..200 {
        assert_eq!(xas.next(&xa), Entry::Pointer(i + 1));
        assert_eq!(xas.index, i);
    }
    let s = xa.stats();
    assert_eq!(s.xas_next, 199);
    // Three more leaves, each entered after climbing to the root.
    assert_eq!(s.node_visits - after_load.node_visits, 6);
}

#[test]
fn check_multi_find_1() {
    for order in 2..9u8 {
        let mut xa = XArray::new();
        let multi = 3u64 << order;
        let next = 4u64 << order;
        xa.store_order(multi, order, Entry::Value(multi));
        assert_eq!(store_index(&mut xa, next), Entry::Empty);
        assert_eq!(store_index(&mut xa, next + 1), Entry::Empty);
        let mut index = 0;
        assert_eq!(xa.find(&mut index, u64::MAX, None), Entry::Value(multi));
        assert_eq!(index, multi);
        index = multi + 1;
        assert_eq!(xa.find(&mut index, u64::MAX, None), Entry::Value(multi));
        assert!(index >= multi && index < next);
        assert_eq!(xa.find_after(&mut index, u64::MAX, None), mk(next));
        assert_eq!(index, next);
        assert_eq!(xa.find_after(&mut index, next, None), Entry::Empty);
        assert_eq!(index, next);
        xa.erase(multi);
        erase_index(&mut xa, next);
        erase_index(&mut xa, next + 1);
        assert!(xa.is_empty());
    }
}

#[test]
fn check_find_1() {
    let mut xa = XArray::new();
    for i in 0..64u64 {
        store_index(&mut xa, i);
        xa.set_mark(i, XaMark::Mark0);
        for j in 0..i {
            store_index(&mut xa, j);
            xa.set_mark(j, XaMark::Mark0);
            xa.check().unwrap();
            for k in 0..64u64 {
                for mark in [None, Some(XaMark::Mark0)] {
                    let mut index = k;
                    let e = xa.find(&mut index, u64::MAX, mark);
                    if k <= j {
                        assert_eq!(index, j);
                    } else if k <= i {
                        assert_eq!(index, i);
                    } else {
                        assert_eq!(e, Entry::Empty);
                    }
                }
            }
            erase_index(&mut xa, j);
            assert!(!xa.get_mark(j, XaMark::Mark0));
            assert!(xa.get_mark(i, XaMark::Mark0));
        }
        erase_index(&mut xa, i);
        assert!(!xa.get_mark(i, XaMark::Mark0));
    }
    assert!(xa.is_empty());
}

#[test]
fn check_get_order() {
    let mut xa = XArray::new();
    for i in 0..3 {
        assert_eq!(xa.get_order(i), 0);
    }
    for order in 0..20u8 {
        for i in 0..10u64 {
            xa.store_order(i << order, order, mk(i << order));
            for j in (i << order)..((i + 1) << order) {
                assert_eq!(xa.get_order(j), order, "order {order} i {i} j {j}");
            }
            xa.erase(i << order);
            xa.check().unwrap();
        }
    }
}

#[test]
fn present_run_counts_the_visits_of_page_by_page_loads() {
    let mut xa = XArray::new();
    for i in 0..300u64 {
        xa.store(i, Entry::Pointer(1));
    }
    xa.store_order(512, 9, Entry::Pointer(2));
    xa.store(310, Entry::Value(3));
    // Loads of 0..299 each visit root and leaf.
    let run = xa.peek_present_run(0, 1024);
    assert_eq!(run.end, 300);
    assert_eq!(run.visits, 300 * 2);
    assert_eq!(run.miss_visits, 2);
    let run = xa.peek_present_run(512, 2000);
    assert_eq!(run.end, 1024);
    assert_eq!(run.visits, 512);
    assert_eq!(run.miss_visits, 1, "1024 is an empty slot of the root");
    let run = xa.peek_present_run(310, 400);
    assert_eq!(run.end, 310, "a shadow is not a cached folio");
    let mut counted = 0;
    xa.reset_stats();
    for i in 100..300 {
        assert_ne!(xa.load(i), Entry::Empty);
    }
    counted += xa.stats().node_visits;
    assert_eq!(xa.peek_present_run(100, 300).visits, counted);
}

#[cfg(not(target_arch = "wasm32"))]
mod prop {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, HashMap};

    #[derive(Clone, Debug)]
    enum Op {
        Store {
            index: u64,
            order: u8,
            value: bool,
            payload: u64,
        },
        Erase(u64),
        /// Order-0 pointers over a whole leaf, to make full leaves.
        Fill(u64),
        SetMark(u64, u8),
        ClearMark(u64, u8),
        /// A new payload for the pointer covering the index, in place.
        Modify(u64, u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u64..5000, 0u8..11, any::<bool>(), 1u64..1000).prop_map(|(i, o, v, p)| Op::Store {
                index: i & !((1u64 << o) - 1),
                order: o,
                value: v,
                payload: p
            }),
            2 => (0u64..5000).prop_map(Op::Erase),
            1 => (0u64..80).prop_map(|l| Op::Fill(l * 64)),
            1 => (0u64..5000, 0u8..3).prop_map(|(i, m)| Op::SetMark(i, m)),
            1 => (0u64..5000, 0u8..3).prop_map(|(i, m)| Op::ClearMark(i, m)),
            1 => (0u64..5000, 1u64..1000).prop_map(|(i, p)| Op::Modify(i, p)),
        ]
    }

    /// The reference: start index -> (order, entry, marks).
    type Model = BTreeMap<u64, (u8, Entry, u8)>;

    fn covering(model: &Model, index: u64) -> Option<(u64, u8, Entry, u8)> {
        let (&start, &(order, e, m)) = model.range(..=index).next_back()?;
        (index < start + (1u64 << order)).then_some((start, order, e, m))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn xarray_matches_a_btreemap(ops in proptest::collection::vec(op(), 1..120)) {
            let mut xa = XArray::new();
            let mut model: Model = BTreeMap::new();
            // What each stamp a walk handed over stood for when first met.
            let mut stamped: HashMap<NodeStamp, Vec<(u64, u8, Entry)>> = HashMap::new();
            for op in ops {
                match op {
                    Op::Store { index, order, value, payload } => {
                        let e = if value { Entry::Value(payload) } else { Entry::Pointer(payload) };
                        // The page cache only stores into a free range, so erase
                        // whatever overlaps it first, on both sides. (A store
                        // inside a larger entry keeps that entry's order, as in
                        // the kernel; check_multi_store covers that.)
                        let end = index + (1u64 << order);
                        let covered: Vec<u64> = model.range(..end).filter(|(&s, &(o, _, _))| s + (1u64 << o) > index).map(|(&s, _)| s).collect();
                        for s in covered {
                            xa.erase(s);
                            model.remove(&s);
                        }
                        xa.store_order(index, order, e);
                        model.insert(index, (order, e, 0));
                    }
                    Op::Fill(start) => {
                        for i in start..start + 64 {
                            if covering(&model, i).is_none() {
                                xa.store(i, Entry::Pointer(1));
                                model.insert(i, (0, Entry::Pointer(1), 0));
                            }
                        }
                    }
                    Op::Erase(i) => {
                        let old = xa.erase(i);
                        match covering(&model, i) {
                            Some((s, _, e, _)) => { prop_assert_eq!(old, e); model.remove(&s); }
                            None => prop_assert_eq!(old, Entry::Empty),
                        }
                    }
                    Op::SetMark(i, m) => {
                        xa.set_mark(i, XaMark::ALL[m as usize]);
                        if let Some((s, o, e, marks)) = covering(&model, i) {
                            model.insert(s, (o, e, marks | (1 << m)));
                        }
                    }
                    Op::ClearMark(i, m) => {
                        xa.clear_mark(i, XaMark::ALL[m as usize]);
                        if let Some((s, o, e, marks)) = covering(&model, i) {
                            model.insert(s, (o, e, marks & !(1 << m)));
                        }
                    }
                    Op::Modify(i, p) => {
                        let new = xa.peek_modify_pointer(i, |_| p);
                        match covering(&model, i) {
                            Some((s, o, Entry::Pointer(_), marks)) => {
                                prop_assert_eq!(new, Some(p));
                                model.insert(s, (o, Entry::Pointer(p), marks));
                            }
                            _ => prop_assert_eq!(new, None),
                        }
                    }
                }
                xa.check().map_err(|e| TestCaseError::fail(e.to_string()))?;
                // Along one run, a twig's or a leaf's stamp names the
                // entries under it: met again, it stands for the same ones.
                let mut nodes: Vec<(u64, u64, NodeStamp)> = Vec::new();
                let mut visit = |v: Visit| match v {
                    Visit::Twig(base, stamp) => nodes.push((base, 4096, stamp)),
                    Visit::Leaf(base, _, stamp) => nodes.push((base, 64, stamp)),
                    Visit::Entry(..) => {}
                };
                xa.for_each_twig_in(0, u64::MAX, &mut visit);
                xa.for_each_leaf_in(0, u64::MAX, &mut visit);
                for (base, pages, stamp) in nodes {
                    let mut under = Vec::new();
                    xa.for_each_entry_in(base, base + pages - 1, |i, o, e| under.push((i, o, e)));
                    let first = stamped.entry(stamp).or_insert_with(|| under.clone());
                    prop_assert_eq!(&*first, &under, "stamp {:?} at {}", stamp, base);
                }
            }
            // Every entry, in order, with its order.
            let mut seen = Vec::new();
            xa.for_each_entry(|start, order, e| seen.push((start, order, e)));
            let want: Vec<_> = model.iter().map(|(&s, &(o, e, _))| (s, o, e)).collect();
            prop_assert_eq!(seen, want);
            // Loads and marks at every index.
            for i in 0..6000u64 {
                let want = covering(&model, i);
                prop_assert_eq!(xa.load(i), want.map(|w| w.2).unwrap_or(Entry::Empty));
                for m in 0..3u8 {
                    let w = want.map(|w| w.3 & (1 << m) != 0).unwrap_or(false);
                    prop_assert_eq!(xa.get_mark(i, XaMark::ALL[m as usize]), w);
                }
            }
            // A cursor's `xas_find` up to a bounded `max`, and the finds
            // after it, meet every entry from the one covering `from` to
            // the last one starting at or before `max`, at its first index:
            // within one leaf's range, as fault-around asks, and from 0.
            // The cursor's index is the entry's first index, or `from` for
            // an entry that covers `from`.
            let ranges = (0..6000u64)
                .step_by(89)
                .flat_map(|from| [(from, from), (from, (from + 3).min(from | 63)), (from, from | 63)])
                .chain([(0, 700), (0, 6000)]);
            for (from, max) in ranges {
                {
                    let mut xas = XaState::new(from);
                    let mut met = Vec::new();
                    let mut e = xas.find(&xa, max);
                    while !e.is_empty() {
                        met.push((xas.index & !((1u64 << xas.get_order(&xa)) - 1), e));
                        prop_assert!(xas.index == from || xas.index & ((1u64 << xas.get_order(&xa)) - 1) == 0, "index {} from {}", xas.index, from);
                        e = xas.find(&xa, max);
                    }
                    let want: Vec<_> = covering(&model, from)
                        .map(|(s, _, e, _)| (s, e))
                        .into_iter()
                        .chain(model.range(from + 1..max + 1).map(|(&s, &(_, e, _))| (s, e)))
                        .collect();
                    prop_assert_eq!(met, want, "from {} max {}", from, max);
                }
            }
            // The present-run scan agrees with loading page by page, in
            // where it stops and in the visits those loads make.
            for from in (0..6000u64).step_by(97) {
                for limit in [from + 1, from + 700, 6000] {
                    let run = xa.peek_present_run(from, limit);
                    let mut i = from;
                    let before = xa.stats().node_visits;
                    while i < limit && matches!(covering(&model, i), Some((_, _, Entry::Pointer(_), _))) {
                        xa.load(i);
                        i += 1;
                    }
                    let visits = xa.stats().node_visits - before;
                    prop_assert_eq!(run.end, i, "from {}", from);
                    prop_assert_eq!(run.visits, visits, "from {} limit {}", from, limit);
                    if i < limit {
                        let before = xa.stats().node_visits;
                        xa.load(i);
                        prop_assert_eq!(run.miss_visits, xa.stats().node_visits - before, "miss at {}", i);
                    }
                }
            }
            // Leaf-level visits expand to exactly the entries of the walk.
            for (first, last) in [(0u64, 5999u64), (63, 4097), (700, 700), (64, 127)] {
                let mut walked = Vec::new();
                xa.for_each_entry_in(first, last, |i, o, e| walked.push((i, o, e)));
                let mut visited = Vec::new();
                xa.for_each_leaf_in(first, last, |v| match v {
                    super::Visit::Entry(i, o, e) => visited.push((i, o, e)),
                    super::Visit::Leaf(base, slots, _) => {
                        for k in 0..slots.len() {
                            let e = super::decode_slot(slots[k]);
                            if matches!(e, Entry::Empty | Entry::Sibling(_)) {
                                continue;
                            }
                            let sibs = slots[k + 1..].iter().take_while(|s| matches!(super::decode_slot(**s), Entry::Sibling(_))).count();
                            visited.push((base + k as u64, (sibs + 1).trailing_zeros() as u8, e));
                        }
                    }
                    // A leaf walk hands over no twig; one would fail the comparison.
                    super::Visit::Twig(..) => visited.push((u64::MAX, 0, Entry::Empty)),
                });
                prop_assert_eq!(&visited, &walked, "range {}..={}", first, last);
                // And the walk meets only entries that overlap the range.
                for &(i, o, _) in &walked {
                    prop_assert!(i <= last && i + (1u64 << o) > first, "{} in {}..={}", i, first, last);
                }
            }
        }
    }
}

/// A range that starts past the end of a one-leaf tree holds nothing; the
/// walk once clamped its start to the leaf's last slot and handed that
/// entry over.
#[test]
fn a_range_past_a_short_tree_holds_nothing() {
    let mut xa = XArray::new();
    for i in 0..64 {
        store_index(&mut xa, i);
    }
    let mut walked = Vec::new();
    xa.for_each_entry_in(65, 65, |i, _, _| walked.push(i));
    xa.for_each_leaf_in(65, 200, |v| {
        if let Visit::Entry(i, _, _) = v {
            walked.push(i)
        }
    });
    assert_eq!(walked, Vec::<u64>::new());
    xa.for_each_entry_in(63, 65, |i, _, _| walked.push(i));
    assert_eq!(walked, vec![63]);
}

#[test]
fn room_is_reserved_for_a_whole_file() {
    // A leaf per 64 indices and the nodes above them: a 2 GiB file of
    // 4 KiB pages read whole has 8,192 leaves, 128 nodes above, 2 above
    // those and a head (the 2 GiB walk's 8,323 nodes).
    assert_eq!(super::nodes_to_hold(524_288), 8_192 + 128 + 2 + 1);
    assert_eq!(super::nodes_to_hold(1), 1);
    assert_eq!(super::nodes_to_hold(64), 1);
    assert_eq!(super::nodes_to_hold(65), 3);
    let mut xa = XArray::with_room_for(4096);
    let before = xa.arena_bytes();
    for i in 0..4096 {
        xa.store(i, mk(i));
    }
    assert_eq!(
        xa.arena_bytes(),
        before,
        "storing every index grew the arena"
    );
}
