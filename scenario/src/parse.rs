//! Parsing the text forms of scenario parameters: sizes (`2G`, `64k`),
//! patterns (`stride:64`, `random:1:42`), madvise modes, kernels and trace
//! files. Every error names what was wrong in one line.

use folioscope_core::{Access, Backing, Kernel, Madvise, Patch, Pattern, TmpfsFile, Variant};

/// Parses a byte size: a whole number with an optional binary suffix
/// (`k`, `M`, `G`, `T`, optionally followed by `iB` or `B`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, suffix) = t.split_at(digits_end);
    if num.is_empty() {
        return Err(format!("'{text}' is not a size (try 4k, 64K, 2G)"));
    }
    let n: u64 = num.parse().map_err(|_| format!("'{text}' is too large"))?;
    let unit = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1u64,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => {
            return Err(format!(
                "'{text}' has an unknown unit '{other}' (use k, M, G or T)"
            ))
        }
    };
    n.checked_mul(unit)
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// Formats a byte size the way [`parse_size`] reads it back, exactly.
pub fn format_size(bytes: u64) -> String {
    for (unit, s) in [
        (1u64 << 40, "T"),
        (1 << 30, "G"),
        (1 << 20, "M"),
        (1 << 10, "k"),
    ] {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{}{s}", bytes / unit);
        }
    }
    bytes.to_string()
}

/// Parses a madvise mode.
pub fn parse_madvise(text: &str) -> Result<Madvise, String> {
    Madvise::ALL
        .into_iter()
        .find(|m| m.name() == text.trim())
        .ok_or_else(|| format!("'{text}' is not one of normal, hugepage, sequential, random"))
}

/// Parses a switch: on, off, and their usual spellings.
pub fn parse_on_off(text: &str) -> Result<bool, String> {
    match text.trim() {
        "on" | "1" | "yes" | "true" => Ok(true),
        "off" | "0" | "no" | "false" => Ok(false),
        t => Err(format!("'{t}' is not on or off")),
    }
}

/// Parses how a tmpfs file was made: written, fallocated or sparse.
pub fn parse_tmpfs_file(text: &str) -> Result<TmpfsFile, String> {
    TmpfsFile::ALL
        .into_iter()
        .find(|f| f.name() == text.trim())
        .ok_or_else(|| format!("'{text}' is not one of written, fallocated, sparse"))
}

/// The file system a scenario's file lives on, as the `fs` parameter
/// names it; [`Backing`] holds the tmpfs file's details besides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileSystem {
    /// ext4 on the machines' virtio disk.
    Disk,
    Tmpfs,
}

impl FileSystem {
    pub const ALL: [FileSystem; 2] = [FileSystem::Disk, FileSystem::Tmpfs];

    pub fn of(b: Backing) -> FileSystem {
        match b {
            Backing::Disk => FileSystem::Disk,
            Backing::Tmpfs { .. } => FileSystem::Tmpfs,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FileSystem::Disk => "disk",
            FileSystem::Tmpfs => "tmpfs",
        }
    }
}

/// Parses a file system name: `disk` or `tmpfs`.
pub fn parse_fs(text: &str) -> Result<FileSystem, String> {
    FileSystem::ALL
        .into_iter()
        .find(|f| f.name() == text.trim())
        .ok_or_else(|| format!("'{text}' is not disk or tmpfs"))
}

/// Parses tmpfs's `huge=` mount option: `always` or `never`, the names
/// the mount option has, or the on/off of [`parse_on_off`].
pub fn parse_tmpfs_huge(text: &str) -> Result<bool, String> {
    match text.trim() {
        "always" => Ok(true),
        "never" => Ok(false),
        t => parse_on_off(t).map_err(|_| format!("'{t}' is not always or never (or on, off)")),
    }
}

/// The `huge=` mount option's value, as [`parse_tmpfs_huge`] reads it.
pub fn tmpfs_huge_name(huge: bool) -> &'static str {
    if huge {
        "always"
    } else {
        "never"
    }
}

/// A switch's value, as [`parse_on_off`] reads it.
pub fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// Parses a percentage like `1`, `0.5` or `12.345` into thousandths of a per cent.
fn parse_milli_pct(text: &str) -> Result<u64, String> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.is_empty() && frac.is_empty()
        || !int.chars().all(|c| c.is_ascii_digit())
        || !frac.chars().all(|c| c.is_ascii_digit())
        || frac.len() > 3
    {
        return Err(format!(
            "'{text}' is not a percentage with at most three decimals"
        ));
    }
    let i: u64 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| format!("'{text}' is too large"))?
    };
    let mut f: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().unwrap_or(0)
    };
    for _ in frac.len()..3 {
        f *= 10;
    }
    let v = i
        .checked_mul(1000)
        .and_then(|v| v.checked_add(f))
        .ok_or_else(|| format!("'{text}' is too large"))?;
    if v == 0 || v > 100_000 {
        return Err(format!("percentage {text} is outside (0, 100]"));
    }
    Ok(v)
}

/// Formats thousandths of a per cent as the shortest exact decimal.
pub fn format_milli_pct(v: u64) -> String {
    let (i, f) = (v / 1000, v % 1000);
    if f == 0 {
        i.to_string()
    } else {
        format!("{i}.{:03}", f).trim_end_matches('0').to_string()
    }
}

/// Parses a pattern. `trace:FILE` needs the file's text, which the caller
/// reads and passes in `trace_text` (the CLI reads a file; the web app
/// takes pasted text); a trace without it is an error.
pub fn parse_pattern(text: &str, trace_text: Option<&str>) -> Result<Pattern, String> {
    let t = text.trim();
    let (name, arg) = t.split_once(':').unwrap_or((t, ""));
    match name {
        "fwd" if arg.is_empty() => Ok(Pattern::Fwd),
        "rev" if arg.is_empty() => Ok(Pattern::Rev),
        "stride" | "rstride" => {
            let (n_text, pct) = match arg.split_once(':') {
                Some((n, p)) if name == "stride" => (n, Some(p)),
                _ => (arg, None),
            };
            let n = n_text
                .parse::<u64>()
                .map_err(|_| format!("{t}: the stride must be a whole number"))?;
            if n == 0 {
                return Err(format!("{t}: the stride must be at least 1"));
            }
            Ok(match (name, pct) {
                ("stride", Some(p)) => Pattern::StridePct { n, milli_pct: parse_milli_pct(p)? },
                ("stride", None) => Pattern::Stride(n),
                _ => Pattern::RStride(n),
            })
        }
        "random" => {
            let (pct, seed) = arg
                .split_once(':')
                .ok_or_else(|| format!("{t}: write random:PCT:SEED, for example random:1:42"))?;
            let milli_pct = parse_milli_pct(pct)?;
            let seed = seed
                .parse::<u64>()
                .map_err(|_| format!("{t}: the seed must be a whole number"))?;
            Ok(Pattern::Random { milli_pct, seed })
        }
        "read" | "pread-rev" => {
            let bs = parse_size(arg).map_err(|e| format!("{t}: block size {e}"))?;
            if bs == 0 {
                return Err(format!("{t}: the block size must be at least 1 byte"));
            }
            if bs > 1 << 30 {
                return Err(format!("{t}: the block size must be at most 1G"));
            }
            Ok(if name == "read" { Pattern::Read { bs } } else { Pattern::PreadRev { bs } })
        }
        "trace" => {
            let Some(text) = trace_text else {
                return Err(format!("{t}: the trace file was not read"));
            };
            parse_trace(text).map(Pattern::Trace)
        }
        _ => Err(format!(
            "'{t}' is not a pattern (fwd, rev, stride:N[:PCT], rstride:N, random:PCT:SEED, read:BS, pread-rev:BS, trace:FILE)"
        )),
    }
}

/// The text form of a pattern (a trace prints as `trace:<N accesses>`).
pub fn format_pattern(p: &Pattern) -> String {
    match p {
        Pattern::Fwd => "fwd".into(),
        Pattern::Rev => "rev".into(),
        Pattern::Stride(n) => format!("stride:{n}"),
        Pattern::RStride(n) => format!("rstride:{n}"),
        Pattern::StridePct { n, milli_pct } => {
            format!("stride:{n}:{}", format_milli_pct(*milli_pct))
        }
        Pattern::Random { milli_pct, seed } => {
            format!("random:{}:{seed}", format_milli_pct(*milli_pct))
        }
        Pattern::Read { bs } => format!("read:{bs}"),
        Pattern::PreadRev { bs } => format!("pread-rev:{bs}"),
        Pattern::Trace(list) => format!("trace:<{} accesses>", list.len()),
    }
}

/// Parses a trace: one access a line, `touch PAGE` or `read OFFSET LEN`.
/// Blank lines and lines starting with `#` are skipped. Errors carry the
/// line number.
pub fn parse_trace(text: &str) -> Result<Vec<Access>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        let bad = |why: &str| format!("trace line {line_no}: {why}: '{l}'");
        match words.as_slice() {
            ["touch", page] => {
                let page = page
                    .parse::<u64>()
                    .map_err(|_| bad("the page must be a whole number"))?;
                out.push(Access::Touch { page });
            }
            ["read", offset, len] => {
                let offset = parse_size(offset).map_err(|_| bad("the offset must be a size"))?;
                let len = parse_size(len).map_err(|_| bad("the length must be a size"))?;
                if len == 0 {
                    return Err(bad("a read of 0 bytes"));
                }
                out.push(Access::Read { offset, len });
            }
            _ => return Err(bad("expected 'touch PAGE' or 'read OFFSET LEN'")),
        }
    }
    if out.is_empty() {
        return Err("the trace has no accesses".into());
    }
    Ok(out)
}

/// Parses a kernel variant name.
pub fn parse_variant(text: &str) -> Result<Variant, String> {
    Variant::by_name(text.trim()).ok_or_else(|| {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        format!(
            "'{text}' is not a known kernel (known: {})",
            names.join(", ")
        )
    })
}

/// Names that command lines and links of schema v1 gave patches before
/// every patch was named for what it does. They still parse; nothing
/// writes them.
const FORMER_PATCH_NAMES: [(&str, Patch); 4] = [
    ("fbatch-1-willy", Patch::ReadBatchExitAfterAdvance),
    ("fbatch-2-willy", Patch::ContigExitAfterAdvance),
    ("fbatch-3-willy-shmem", Patch::ShmemIovIterZero),
    ("fbatch-3-willy-iov-iter", Patch::IovIterZeroPage),
];

/// Every name a patch parses from: its own, then its former ones.
pub fn patch_spellings() -> impl Iterator<Item = (&'static str, Patch)> {
    Patch::ALL
        .into_iter()
        .map(|p| (p.name(), p))
        .chain(FORMER_PATCH_NAMES)
}

/// Parses a patch name.
pub fn parse_patch(text: &str) -> Result<Patch, String> {
    patch_spellings()
        .find(|(name, _)| *name == text.trim())
        .map(|(_, p)| p)
        .ok_or_else(|| format!("'{text}' is not a known patch (see `folioscope kernels`)"))
}

/// A patch switched on (`true`) or off (`false`) against a variant.
pub type Toggle = (Patch, bool);

/// Parses a toggle: `+name` or `name` switches a patch on, `-name` off.
pub fn parse_toggle(text: &str) -> Result<Toggle, String> {
    let t = text.trim();
    match t.strip_prefix('-') {
        Some(name) => Ok((parse_patch(name)?, false)),
        None => Ok((parse_patch(t.strip_prefix('+').unwrap_or(t))?, true)),
    }
}

/// The kernel's differences from its variant, as [`Kernel::label`] lists them.
pub fn toggles_of(k: &Kernel) -> Vec<Toggle> {
    let base = k.variant.patches();
    Patch::ALL
        .into_iter()
        .filter(|p| base.contains(*p) != k.has(*p))
        .map(|p| (p, k.has(p)))
        .collect()
}

/// The kernel with these patches switched on or off.
pub fn with_toggles(k: &Kernel, toggles: &[Toggle]) -> Kernel {
    let mut k = k.clone();
    for &(p, on) in toggles {
        k.patches = if on {
            k.patches.with(p)
        } else {
            k.patches.without(p)
        };
    }
    k
}

/// Another variant with the same toggles: what choosing a variant in a
/// select does to a kernel that has patches switched by hand.
pub fn with_variant(k: &Kernel, v: Variant) -> Kernel {
    with_toggles(&Kernel::from_variant(v), &toggles_of(k))
}

/// Parses a kernel as [`Kernel::label`] writes it: a variant name, then
/// `+patch` or `-patch` for each difference from it. Variant and patch
/// names hold `+` and `-` themselves (`v7.1-rc5+fbatch`,
/// `fbatch-5-folio-batch`), so every way of reading the label is tried,
/// longest names first.
pub fn parse_kernel_label(label: &str) -> Result<Kernel, String> {
    // Form encoding turns '+' into a space; labels never hold spaces.
    let label = label.trim().replace(' ', "+");
    let mut variants: Vec<Variant> = Variant::ALL
        .into_iter()
        .filter(|v| label.starts_with(v.name()))
        .collect();
    crate::sort::sort_by_u64_key(&mut variants, |v| u64::MAX - v.name().len() as u64);
    if variants.is_empty() {
        return Err(format!("'{label}' does not start with a known kernel"));
    }
    for v in variants {
        let mut kernel = Kernel::from_variant(v);
        if label_toggles(&label[v.name().len()..], &mut kernel) {
            return Ok(kernel);
        }
    }
    Err(format!(
        "'{label}' is a kernel followed by something other than +patch or -patch"
    ))
}

/// Reads `+name` / `-name` toggles into `kernel`; false if `rest` is not
/// a sequence of them.
fn label_toggles(rest: &str, kernel: &mut Kernel) -> bool {
    if rest.is_empty() {
        return true;
    }
    let on = match rest.as_bytes()[0] {
        b'+' => true,
        b'-' => false,
        _ => return false,
    };
    let after = &rest[1..];
    let mut candidates: Vec<(&str, Patch)> = patch_spellings()
        .filter(|(name, _)| after.starts_with(name))
        .collect();
    crate::sort::sort_by_u64_key(&mut candidates, |(name, _)| u64::MAX - name.len() as u64);
    for (name, p) in candidates {
        let mut k = with_toggles(kernel, &[(p, on)]);
        if label_toggles(&after[name.len()..], &mut k) {
            *kernel = k;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn former_patch_names_parse_and_no_name_is_taken_twice() {
        assert_eq!(
            parse_patch("fbatch-1-willy"),
            Ok(Patch::ReadBatchExitAfterAdvance)
        );
        assert_eq!(
            parse_patch("fbatch-3-willy-iov-iter"),
            Ok(Patch::IovIterZeroPage)
        );
        let mut names: Vec<&str> = patch_spellings().map(|(n, _)| n).collect();
        let all = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("64k"), Ok(65536));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("8192"), Ok(8192));
        assert!(parse_size("").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("2X").unwrap_err().contains("unknown unit"));
        assert!(parse_size("99999999999999999999")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_size("99999999T").unwrap_err().contains("too large"));
        for s in [1u64, 4096, 65536, 2 << 30, 3 << 40, 12345] {
            assert_eq!(parse_size(&format_size(s)), Ok(s));
        }
    }

    #[test]
    fn patterns() {
        assert_eq!(parse_pattern("stride:64", None), Ok(Pattern::Stride(64)));
        assert_eq!(
            parse_pattern("random:1:42", None),
            Ok(Pattern::Random {
                milli_pct: 1000,
                seed: 42
            })
        );
        assert_eq!(
            parse_pattern("random:0.5:7", None),
            Ok(Pattern::Random {
                milli_pct: 500,
                seed: 7
            })
        );
        assert_eq!(
            parse_pattern("read:1M", None),
            Ok(Pattern::Read { bs: 1 << 20 })
        );
        assert!(parse_pattern("stride:0", None)
            .unwrap_err()
            .contains("at least 1"));
        assert!(parse_pattern("random:0:1", None)
            .unwrap_err()
            .contains("(0, 100]"));
        assert!(parse_pattern("random:101:1", None)
            .unwrap_err()
            .contains("(0, 100]"));
        assert!(parse_pattern("zigzag", None).is_err());
        for p in [
            "fwd",
            "rev",
            "stride:3",
            "rstride:64",
            "random:12.5:9",
            "read:4096",
            "pread-rev:65536",
        ] {
            assert_eq!(format_pattern(&parse_pattern(p, None).unwrap()), p);
        }
    }

    #[test]
    fn traces_report_the_line() {
        let t = "# a comment\ntouch 3\n\nread 0 4k\nbogus 1\n";
        let e = parse_trace(t).unwrap_err();
        assert!(e.starts_with("trace line 5:"), "{e}");
        assert_eq!(
            parse_trace("touch 3\nread 4096 8k").unwrap(),
            vec![
                Access::Touch { page: 3 },
                Access::Read {
                    offset: 4096,
                    len: 8192
                }
            ]
        );
    }

    #[test]
    fn kernels() {
        assert!(parse_variant("v9.9")
            .unwrap_err()
            .contains("not a known kernel"));
        assert!(parse_madvise("huge").is_err());
        assert_eq!(
            parse_toggle("-desc-ra-2-hugepage"),
            Ok((Patch::DescRaHugepage, false))
        );
        assert_eq!(
            parse_toggle("desc-ra-2-hugepage"),
            parse_toggle("+desc-ra-2-hugepage")
        );
        assert!(parse_toggle("+nothing").is_err());
    }

    #[test]
    fn labels_with_toggles_parse_back() {
        let mut k = Kernel::from_variant(Variant::V7_4Rc2DescRa);
        k.patches = k
            .patches
            .without(Patch::MmapHitFaultAddress)
            .with(Patch::ShmemFolioBatch);
        assert_eq!(parse_kernel_label(&k.label()), Ok(k.clone()));
        // A space is what '+' becomes in form encoding.
        assert_eq!(parse_kernel_label(&k.label().replace('+', " ")), Ok(k));
        assert!(parse_kernel_label("v9").is_err());
        assert!(parse_kernel_label("v6.18+nonsense").is_err());
    }

    #[test]
    fn another_variant_keeps_the_toggles() {
        let k = parse_kernel_label("v7.4-rc2+desc-ra-2-hugepage").unwrap();
        let other = with_variant(&k, Variant::V7_4Rc2Before0b9c);
        assert_eq!(other.variant, Variant::V7_4Rc2Before0b9c);
        assert!(other.has(Patch::DescRaHugepage));
        assert_eq!(toggles_of(&other), vec![(Patch::DescRaHugepage, true)]);
        // Back to the first variant: the same kernel.
        assert_eq!(with_variant(&other, Variant::V7_4Rc2), k);
    }

    #[test]
    fn tmpfs_huge_reads_the_mount_option_and_on_off_alike() {
        for (t, v) in [
            ("always", true),
            ("on", true),
            ("never", false),
            ("off", false),
        ] {
            assert_eq!(parse_tmpfs_huge(t), Ok(v), "{t}");
        }
        assert_eq!(parse_tmpfs_huge(tmpfs_huge_name(true)), Ok(true));
        assert!(parse_tmpfs_huge("within_size").is_err());
    }
}
