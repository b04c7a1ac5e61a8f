//! The rows of the seeds' tables: each a scenario, the kernels it was
//! measured on, and the figures the thread published. `folioscope compare`
//! prints the model's figures next to these, and the web app offers every
//! row as a preset.

use folioscope_core::{Access, Backing, Kernel, Madvise, Pattern, TmpfsFile, Variant};

use folioscope_core::Scenario;

/// The three seed threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seed {
    /// 000: read ahead for mmap readers that move backwards.
    S000,
    /// 003: large folio readahead for exec memory.
    S003,
    /// 004: shmem read with folio batching.
    S004,
}

impl Seed {
    pub const ALL: [Seed; 3] = [Seed::S000, Seed::S003, Seed::S004];

    pub fn name(self) -> &'static str {
        match self {
            Seed::S000 => "seed-000",
            Seed::S003 => "seed-003",
            Seed::S004 => "seed-004",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Seed::S000 => "[PATCH v2 0/3] mm/filemap: read ahead for mmap readers that move backwards",
            Seed::S003 => "[PATCH v7 0/2] mm: improve large folio readahead for exec memory",
            Seed::S004 => "[PATCH v2 0/5] mm/shmem: optimize read with reduced xarray lookups and folio batching",
        }
    }

    pub fn file(self) -> &'static str {
        match self {
            Seed::S000 => "000_f39f93ff61fd38a9.txt",
            Seed::S003 => "003_a4c409d76b7fdaa2.txt",
            Seed::S004 => "004_025df3dcdb2ef7bd.txt",
        }
    }

    /// The thread on lore.kernel.org: a search for its subject (the
    /// seed files keep no Message-ID of the posting itself).
    pub fn lore(self) -> String {
        let subject = self.title().split("] ").nth(1).unwrap_or(self.title());
        let mut q = String::from("https://lore.kernel.org/all/?q=s%3A%22");
        for b in subject.bytes() {
            if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
                q.push(b as char);
            } else {
                q.push_str(&format!("%{b:02X}"));
            }
        }
        q.push_str("%22");
        q
    }

    pub fn by_name(name: &str) -> Option<Seed> {
        Seed::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// A figure the thread published for one kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Published {
    /// Wall time in seconds.
    Seconds(f64),
    /// Milliseconds.
    Ms(f64),
    /// Megabytes read and major faults.
    MbMajors(f64, u64),
    /// Holes mapped with a PMD, out of so many tries.
    Holes(u32, u32),
    /// Read bandwidth in MiB/s (the seed's GiB/s figures times 1024).
    Bandwidth(f64),
    /// "The same" as another column, with no figure.
    Same,
}

/// One kernel of a row.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub kernel: Kernel,
    pub published: Published,
    /// This column calibrates the row's cost model.
    pub calibration: bool,
}

/// How a row is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// The whole scenario.
    Whole,
    /// Only the accesses after the first `warmup` (a benchmark phase).
    After(u64),
    /// Seed 000's hole test: so many fresh runs, each faulting on an
    /// uncached PMD between two cached ones.
    Holes(u32),
}

/// One row of a seed's table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub seed: Seed,
    /// The preset's and the link's name.
    pub id: String,
    pub title: String,
    pub scenario: Scenario,
    pub measure: Measure,
    pub columns: Vec<Column>,
}

fn col(v: Variant, published: Published) -> Column {
    Column {
        kernel: Kernel::from_variant(v),
        published,
        calibration: false,
    }
}

fn base(pattern: Pattern, madvise: Madvise, size: u64) -> Scenario {
    Scenario {
        pattern,
        madvise,
        file_size: size,
        ..Scenario::default()
    }
}

const GIB: u64 = 1 << 30;

/// The seed-000 hole test, one try: read the PMD-sized ranges below and
/// above PMD `h` with `pread()` (a lone read is read as is, no readahead),
/// then touch the middle of PMD `h` through the MADV_HUGEPAGE mapping.
pub fn hole_trace(h: u64, pmd_pages: u64, page: u64) -> Pattern {
    let pmd_bytes = pmd_pages * page;
    Pattern::Trace(vec![
        Access::Read {
            offset: (h - 1) * pmd_bytes,
            len: pmd_bytes,
        },
        Access::Read {
            offset: (h + 1) * pmd_bytes,
            len: pmd_bytes,
        },
        Access::Touch {
            page: h * pmd_pages + pmd_pages / 2,
        },
    ])
}

/// The seed-003 benchmark's random phase: an untimed sweep over every page
/// in order, then as many calls at random pages (SplitMix64, seed 3).
pub fn exec_random_trace(pages: u64) -> Pattern {
    let mut list: Vec<Access> = (0..pages).map(|p| Access::Touch { page: p }).collect();
    list.extend((0..pages).map(|k| Access::Touch {
        page: folioscope_core::random_page(3, k, pages),
    }));
    Pattern::Trace(list)
}

/// The preset the web app shows at load: the first row of the first seed,
/// a backward walk of a 2 GiB file under MADV_HUGEPAGE, with every kernel
/// of its row.
pub const DEFAULT_PRESET: &str = "seed000-rev-huge";

thread_local! {
    /// The rows, made once: the app asks for a preset's row on every
    /// render (whether it has a seed story), and making them all is a few
    /// hundred allocations.
    static ROWS: Vec<Row> = make_rows();
}

/// Every row of every seed table.
pub fn rows() -> Vec<Row> {
    ROWS.with(Vec::clone)
}

fn make_rows() -> Vec<Row> {
    use Published::*;
    use Variant::*;
    let mut rows = Vec::new();
    let seq_cal = Column {
        calibration: true,
        ..col(V7_4Rc2, Seconds(52.42))
    };
    rows.push(Row {
        seed: Seed::S000,
        id: DEFAULT_PRESET.into(),
        title: "backward walk of a 2 GiB file, MADV_HUGEPAGE".into(),
        scenario: base(Pattern::Rev, Madvise::Hugepage, 2 * GIB),
        measure: Measure::Whole,
        columns: vec![
            col(V7_4Rc2, Seconds(42.23)),
            col(V7_4Rc2DescRa, Seconds(0.58)),
            col(V7_4Rc2Before0b9c, Seconds(0.53)),
        ],
    });
    rows.push(Row {
        seed: Seed::S000,
        id: "seed000-rev-seq".into(),
        title: "backward walk of a 2 GiB file, MADV_SEQUENTIAL".into(),
        scenario: base(Pattern::Rev, Madvise::Sequential, 2 * GIB),
        measure: Measure::Whole,
        columns: vec![seq_cal, col(V7_4Rc2DescRa, Seconds(0.96))],
    });
    for (id, title, madvise) in [
        (
            "seed000-fwd-huge",
            "forward walk of a 2 GiB file, MADV_HUGEPAGE",
            Madvise::Hugepage,
        ),
        (
            "seed000-fwd-seq",
            "forward walk of a 2 GiB file, MADV_SEQUENTIAL",
            Madvise::Sequential,
        ),
    ] {
        rows.push(Row {
            seed: Seed::S000,
            id: id.into(),
            title: title.into(),
            scenario: base(Pattern::Fwd, madvise, 2 * GIB),
            measure: Measure::Whole,
            columns: vec![col(V7_4Rc2, Same), col(V7_4Rc2DescRa, Same)],
        });
    }
    rows.push(Row {
        seed: Seed::S000,
        id: "seed000-hole".into(),
        title: "fault on an uncached 2 MiB hole between cached ranges, MADV_HUGEPAGE".into(),
        scenario: base(hole_trace(3, 512, 4096), Madvise::Hugepage, 2 * GIB),
        measure: Measure::Holes(300),
        columns: vec![
            col(V7_4Rc2, Holes(300, 300)),
            col(V7_4Rc2DescRa, Holes(300, 300)),
        ],
    });
    for (id, title, pattern, madvise, limit, a, b) in [
        (
            "seed000-random1-normal",
            "1% random over 16 GiB, MADV_NORMAL",
            Pattern::Random {
                milli_pct: 1000,
                seed: 1,
            },
            Madvise::Normal,
            None,
            MbMajors(1002.0, 39617),
            MbMajors(1013.0, 39617),
        ),
        (
            "seed000-random1-huge",
            "1% random over 16 GiB, MADV_HUGEPAGE",
            Pattern::Random {
                milli_pct: 1000,
                seed: 1,
            },
            Madvise::Hugepage,
            None,
            MbMajors(1584.0, 38760),
            MbMajors(1587.0, 38756),
        ),
        (
            "seed000-stride64",
            "1% stride 64 pages over 16 GiB",
            Pattern::StridePct {
                n: 64,
                milli_pct: 1000,
            },
            Madvise::Normal,
            None,
            MbMajors(10503.0, 2),
            MbMajors(10496.0, 2),
        ),
        (
            "seed000-memcg",
            "5% random in a 2 GiB memcg over 16 GiB, MADV_HUGEPAGE",
            Pattern::Random {
                milli_pct: 5000,
                seed: 1,
            },
            Madvise::Hugepage,
            Some(2 * GIB),
            MbMajors(2205.0, 187416),
            MbMajors(2225.0, 187402),
        ),
    ] {
        let mut scenario = base(pattern, madvise, 16 * GIB);
        scenario.memory_limit = limit;
        rows.push(Row {
            seed: Seed::S000,
            id: id.into(),
            title: title.into(),
            scenario,
            measure: Measure::Whole,
            columns: vec![col(V7_4Rc2, a), col(V7_4Rc2DescRa, b)],
        });
    }
    // Seed 003: arm64, 64 KiB pages, a 512 MB executable madvised huge.
    let exec = |pattern: Pattern| Scenario {
        pattern,
        madvise: Madvise::Hugepage,
        file_size: 512 << 20,
        page_size: 65536,
        read_ahead_kb: 128,
        fault_around_bytes: 65536,
        exec: true,
        ..Scenario::default()
    };
    let pages = (512u64 << 20) / 65536;
    rows.push(Row {
        seed: Seed::S003,
        id: "seed003-cold".into(),
        title: "cold fault: in-order calls over a 512 MB executable, 64K pages".into(),
        scenario: exec(Pattern::Fwd),
        measure: Measure::Whole,
        columns: vec![
            Column {
                calibration: true,
                ..col(Mm20260528, Ms(83.4))
            },
            col(Mm20260528ExecV6, Ms(41.3)),
            col(Mm20260528ExecV7, Ms(41.3)),
        ],
    });
    rows.push(Row {
        seed: Seed::S003,
        id: "seed003-random".into(),
        title: "random: calls at random pages after an untimed sweep, 64K pages".into(),
        scenario: exec(exec_random_trace(pages)),
        measure: Measure::After(pages),
        columns: vec![
            Column {
                calibration: true,
                ..col(Mm20260528, Ms(76.0))
            },
            col(Mm20260528ExecV6, Ms(58.3)),
            col(Mm20260528ExecV7, Ms(58.3)),
        ],
    });
    rows.extend(seed004_rows());
    rows
}

/// Seed 004: fio's sequential `read()` of a 1 GiB tmpfs file, in the v2
/// cover letter's tables and the corrected hole tables that followed.
///
/// The cover letter's own hole rows follow its fallocated rows almost
/// exactly, including the large THP gain only !uptodate large folios can
/// give, and Chi Zhiling wrote later that "the holes were not successfully
/// created in the files during testing". The model runs those rows on a
/// fallocated file, which is what they most likely measured; the corrected
/// rows run on a sparse file.
fn seed004_rows() -> Vec<Row> {
    use Published::Bandwidth;
    use TmpfsFile::*;
    const G: f64 = 1024.0;
    // (huge, file, id part, title part, [(bs, base MiB/s, fbatch MiB/s)])
    type Table = [(u64, f64, f64); 3];
    let tables: [(bool, TmpfsFile, &str, &str, Table); 8] = [
        (
            false,
            Written,
            "normal",
            "normal file",
            [
                (1 << 20, 11.5 * G, 12.7 * G),
                (64 << 10, 11.0 * G, 12.3 * G),
                (4 << 10, 3826.0, 3849.0),
            ],
        ),
        (
            false,
            Fallocated,
            "falloc",
            "fallocated file",
            [
                (1 << 20, 23.8 * G, 28.6 * G),
                (64 << 10, 22.5 * G, 27.3 * G),
                (4 << 10, 4655.0, 4680.0),
            ],
        ),
        (
            false,
            Fallocated,
            "hole-v2",
            "hole (v2 cover letter; fallocated in fact)",
            [
                (1 << 20, 24.2 * G, 28.6 * G),
                (64 << 10, 22.6 * G, 27.6 * G),
                (4 << 10, 4652.0, 4489.0),
            ],
        ),
        (
            false,
            Sparse,
            "hole",
            "hole (corrected table)",
            [
                (1 << 20, 27.3 * G, 23.4 * G),
                (64 << 10, 27.3 * G, 23.3 * G),
                (4 << 10, 4825.0, 4624.0),
            ],
        ),
        (
            true,
            Written,
            "normal",
            "normal file",
            [
                (1 << 20, 13.7 * G, 13.9 * G),
                (64 << 10, 13.5 * G, 13.5 * G),
                (4 << 10, 3833.0, 3859.0),
            ],
        ),
        (
            true,
            Fallocated,
            "falloc",
            "fallocated file",
            [
                (1 << 20, 24.9 * G, 34.2 * G),
                (64 << 10, 23.0 * G, 31.4 * G),
                (4 << 10, 4710.0, 4655.0),
            ],
        ),
        (
            true,
            Fallocated,
            "hole-v2",
            "hole (v2 cover letter; fallocated in fact)",
            [
                (1 << 20, 24.3 * G, 34.5 * G),
                (64 << 10, 23.5 * G, 31.1 * G),
                (4 << 10, 4690.0, 4647.0),
            ],
        ),
        (
            true,
            Sparse,
            "hole",
            "hole (corrected table)",
            [
                (1 << 20, 27.0 * G, 23.1 * G),
                (64 << 10, 27.5 * G, 23.3 * G),
                (4 << 10, 4777.0, 4640.0),
            ],
        ),
    ];
    let mut rows = Vec::new();
    for (huge, file, id, title, table) in tables {
        for (bs, base, fbatch) in table {
            let bs_name = if bs >= 1 << 20 {
                format!("{}M", bs >> 20)
            } else {
                format!("{}k", bs >> 10)
            };
            let thp = if huge { "on" } else { "off" };
            rows.push(Row {
                seed: Seed::S004,
                id: format!("seed004-thp{thp}-{}-{id}", bs_name.to_ascii_lowercase()),
                title: format!("THP {thp}: {bs_name} + {title}"),
                scenario: Scenario {
                    pattern: Pattern::Read { bs },
                    file_size: GIB,
                    backing: Backing::Tmpfs { huge, file },
                    ..Scenario::default()
                },
                measure: Measure::Whole,
                columns: vec![
                    Column {
                        calibration: true,
                        ..col(Variant::V7_1Rc5, Bandwidth(base))
                    },
                    col(Variant::V7_1Rc5Fbatch, Bandwidth(fbatch)),
                ],
            });
        }
    }
    rows
}

/// The row with this id.
pub fn row(id: &str) -> Option<Row> {
    ROWS.with(|rows| rows.iter().find(|r| r.id == id).cloned())
}
