//! Permalinks and mail texts: round trips for random views (proptest),
//! the pinned links of schema version 1, and a million random and
//! mutated inputs that must neither panic nor reject without a name.

use std::path::PathBuf;

use folioscope_core::{
    Backing, EventKind, Kernel, Madvise, Mark, Patch, Pattern, TmpfsFile, Variant,
};
use folioscope_scenario::export::parse_text;
use folioscope_scenario::link::{parse_link, to_link, LogFilter, Mode, Panels, View, MAX_KERNELS};
use folioscope_scenario::seeds::rows;
use proptest::prelude::*;

fn kernel() -> impl Strategy<Value = Kernel> {
    (
        proptest::sample::select(Variant::ALL.to_vec()),
        proptest::collection::vec(proptest::sample::select(Patch::ALL.to_vec()), 0..4),
    )
        .prop_map(|(v, flips)| {
            let mut k = Kernel::from_variant(v);
            for p in flips {
                k.patches = if k.has(p) {
                    k.patches.without(p)
                } else {
                    k.patches.with(p)
                };
            }
            k
        })
}

fn pattern(tmpfs: bool) -> BoxedStrategy<Pattern> {
    let reads = prop_oneof![
        (1u64..(2 << 20)).prop_map(|bs| Pattern::Read { bs }),
        (1u64..(2 << 20)).prop_map(|bs| Pattern::PreadRev { bs }),
    ];
    if tmpfs {
        return reads.boxed();
    }
    prop_oneof![
        Just(Pattern::Fwd),
        Just(Pattern::Rev),
        (1u64..300).prop_map(Pattern::Stride),
        (1u64..300).prop_map(Pattern::RStride),
        (1u64..100_000, any::<u64>())
            .prop_map(|(milli_pct, seed)| Pattern::Random { milli_pct, seed }),
        reads,
    ]
    .boxed()
}

/// A valid view: from a preset or the defaults, with random changes.
fn view() -> impl Strategy<Value = View> {
    view_with(256 << 20, true)
}

/// Views of files up to `max_size`, from presets or not.
fn view_with(max_size: u64, presets: bool) -> impl Strategy<Value = View> {
    let ids: Vec<Option<String>> = std::iter::once(None)
        .chain(rows().into_iter().filter(|_| presets).map(|r| Some(r.id)))
        .collect();
    (
        proptest::sample::select(ids),
        any::<bool>(),
        (
            kernel(),
            proptest::collection::vec(kernel(), 0..MAX_KERNELS),
        ),
        (
            any::<bool>(),
            any::<bool>(),
            proptest::sample::select(TmpfsFile::ALL.to_vec()),
        ),
        (
            1u64..max_size,
            proptest::sample::select(vec![4096u64, 16384, 65536]),
        ),
        (
            0u64..4096,
            proptest::sample::select(vec![4096u64, 65536, 1 << 20]),
            any::<bool>(),
        ),
        proptest::sample::select(Madvise::ALL.to_vec()),
        (any::<u64>(), any::<u64>(), any::<u64>(), any::<u32>()),
        (
            any::<[bool; 3]>(),
            proptest::sample::select(Mark::ALL.to_vec()),
            proptest::sample::subsequence(EventKind::ALL.to_vec(), 0..4),
            "[a-z0-9 &=%#+:é]{0,12}",
        ),
        (
            0u8..3,
            proptest::option::of(proptest::sample::select(Mark::ALL.to_vec())),
        ),
        prop_oneof![Just(None), (0u64..1 << 20).prop_map(Some)],
    )
        .prop_flat_map(
            |(preset, change, kernels, tmpfs, size, tuning, madvise, pos, panels, mode, memcg)| {
                let tmpfs_on = tmpfs.0;
                (
                    Just((
                        preset, change, kernels, tmpfs, size, tuning, madvise, pos, panels, mode,
                        memcg,
                    )),
                    pattern(tmpfs_on),
                )
            },
        )
        .prop_filter_map(
            "a valid view",
            |(
                (
                    preset,
                    change,
                    (ka, kb),
                    (tmpfs, huge, file),
                    (size, page),
                    (ra, fa, exec),
                    madvise,
                    (s, e, z, ev),
                    (p, mark, hidden_kinds, log_text),
                    (mode, predict),
                    memcg,
                ),
                pattern,
            )| {
                let mut v = parse_link(&match &preset {
                    Some(id) => format!("?v=1&preset={id}"),
                    None => "?v=1".into(),
                })
                .view;
                if change || preset.is_none() {
                    v.scenario.kernel = ka;
                    v.compare = kb;
                    v.scenario.file_size = size;
                    v.scenario.page_size = page;
                    v.scenario.read_ahead_kb = ra;
                    v.scenario.fault_around_bytes = fa;
                    v.scenario.exec = exec;
                    v.scenario.madvise = madvise;
                    v.scenario.pattern = pattern;
                    v.scenario.backing = if tmpfs {
                        Backing::Tmpfs { huge, file }
                    } else {
                        Backing::Disk
                    };
                    v.scenario.memory_limit = memcg.filter(|_| !tmpfs).map(|m| (m + 16) * page);
                }
                let cfg = v.scenario.config().ok()?;
                for o in v.scenarios() {
                    o.config().ok()?;
                }
                let len = cfg.pattern.len(cfg.file_size, cfg.page_size.bytes());
                let pages = cfg.geometry().nr_pages;
                v.step = (len > 0 && s % 3 != 0).then(|| s % len);
                v.event = v.step.and((ev % 3 == 0).then_some(ev % 50));
                let (a, b) = (e % pages, z % pages + 1);
                v.zoom = (a < b && (a, b) != (0, pages)).then_some((a, b));
                v.panels = Panels {
                    xarray: p[0],
                    log: p[1],
                    plots: p[2],
                };
                v.log = LogFilter {
                    hidden: hidden_kinds.into_iter().collect(),
                    text: log_text,
                };
                v.mark = mark;
                v.mode = [Mode::Full, Mode::Embed, Mode::Presenter][mode as usize];
                v.predict = predict;
                Some(v)
            },
        )
}

/// The text as a reply quotes it.
fn quote(text: &str) -> String {
    text.lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Cuts every line longer than `width` as a mail client does: at the
/// last space that fits, or where the width ends, keeping the line's
/// quote marks on the lines it makes.
fn rewrap(text: &str, width: usize) -> String {
    let mut out = Vec::new();
    for line in text.lines() {
        let quote = if line.starts_with("> ") { "> " } else { "" };
        let mut rest = line.to_string();
        while rest.chars().count() > width {
            let cut = rest[..width]
                .rfind(' ')
                .filter(|&i| i > quote.len())
                .unwrap_or(width);
            out.push(rest[..cut].to_string());
            rest = format!("{quote}{}", rest[cut..].trim_start());
        }
        out.push(rest);
    }
    out.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn view_to_link_to_view_is_the_identity(v in view()) {
        let link = to_link(&v, "https://folioscope.example/");
        let back = parse_link(&link);
        prop_assert_eq!(back.ignored, vec![], "{}", link);
        prop_assert_eq!(back.view, v, "{}", link);
    }

    #[test]
    fn view_to_text_to_view_is_the_identity(v in view_with(4 << 20, false)) {
        // The text runs the model to the step: small files keep it short.
        let base = "http://127.0.0.1:8080/";
        let text = folioscope_scenario::export::export(&v, "test", base, 2)
            .map_err(TestCaseError::fail)?;
        // Every line fits 78 columns but the link, which is never cut.
        let link = to_link(&v, base);
        prop_assert!(text.lines().any(|l| l == link), "{}", text);
        prop_assert!(
            text.lines().filter(|l| *l != link).all(|l| l.chars().count() <= 78),
            "{}",
            text
        );
        prop_assert_eq!(&parse_text(&text).unwrap().view, &v);
        // The round trip through a reply that quotes the text, and a mail
        // client that cuts its lines at 72 columns.
        let reply = rewrap(&format!("Hi,\n\n{}\nThanks.", quote(&text)), 72);
        prop_assert_eq!(&parse_text(&reply).unwrap().view, &v, "{}", reply);
    }
}

#[test]
fn links_of_schema_1_keep_opening_the_same_view() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/links");
    let links = std::fs::read_to_string(dir.join("v1.txt")).unwrap();
    let mut got = String::new();
    for l in links
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let p = parse_link(l);
        got.push_str(&format!("{l}\n  {}\n", p.view.explain()));
        for i in &p.ignored {
            got.push_str(&format!("  ignored {i}\n"));
        }
    }
    let path = dir.join("v1.expected");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == got,
        "links of schema 1 open differently now:\n--- want\n{want}\n--- got\n{got}"
    );
}

/// SplitMix64, for repeatable fuzz inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const PIECES: [&str; 40] = [
    "?",
    "&",
    "=",
    "v",
    "1",
    "2",
    "preset",
    "seed000-rev-huge",
    "kernel",
    "v7.4-rc2",
    "+",
    "-",
    ",",
    "desc-ra-2-hugepage",
    "size",
    "0",
    "64M",
    "99999999999999999999T",
    "step",
    "ev",
    "zoom",
    "5-3",
    "0-1",
    "hide",
    "xarray",
    "mark",
    "predict",
    "lotsamiss",
    "embed",
    "present",
    "pattern",
    "read:1M",
    "trace:x",
    "fs",
    "tmpfs",
    "%",
    "%2",
    "%ZZ",
    "é",
    "<",
];

fn check(text: &str) {
    let p = parse_link(text);
    for i in &p.ignored {
        assert!(
            !i.param.is_empty() && !i.reason.is_empty(),
            "{text:?}: {i:?}"
        );
    }
    assert!(
        p.view.scenario.config().is_ok(),
        "{text:?} gave a bad scenario"
    );
    match parse_text(text) {
        Ok(p) => assert!(p.ignored.iter().all(|i| !i.param.is_empty())),
        Err(e) => assert!(e.starts_with("text:"), "{e}"),
    }
}

#[test]
fn a_million_random_and_mutated_inputs() {
    let mut rng = Rng(2026);
    let seeds: Vec<String> = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/links/v1.txt"),
    )
    .unwrap()
    .lines()
    .filter(|l| !l.starts_with('#'))
    .map(str::to_string)
    .collect();
    for k in 0..1_000_000u32 {
        let text = if k % 2 == 0 {
            // Random: pieces of link syntax and random bytes.
            let mut t = String::new();
            for _ in 0..rng.below(12) {
                if rng.below(4) == 0 {
                    t.push(char::from_u32(rng.below(0x800) as u32).unwrap_or('x'));
                } else {
                    t.push_str(PIECES[rng.below(PIECES.len())]);
                }
            }
            t
        } else {
            // Mutated: a good link with bytes changed, cut or spliced.
            let mut t: Vec<char> = seeds[rng.below(seeds.len())].chars().collect();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(t.len() + 1);
                match rng.below(3) {
                    0 if at < t.len() => {
                        t[at] = PIECES[rng.below(PIECES.len())]
                            .chars()
                            .next()
                            .unwrap_or('?')
                    }
                    1 if at < t.len() => {
                        t.remove(at);
                    }
                    _ => t
                        .splice(at..at, PIECES[rng.below(PIECES.len())].chars())
                        .for_each(drop),
                }
            }
            t.into_iter().collect()
        };
        check(&text);
    }
}
