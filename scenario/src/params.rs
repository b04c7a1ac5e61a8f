//! The scenario's parameters, each defined once, as ripgrep's
//! `flags/defs.rs` defines each flag once: its field, command-line
//! option, link key, the web panel's label and control, parser,
//! formatter, default and help text. `folioscope`'s options, links, the
//! web app's scenario panel and the mail text read [`PARAMS`]; nothing
//! else lists the parameters.
//!
//! A parser sets its field on a [`Scenario`] and checks only the text:
//! whether the whole holds together is [`Scenario::config`]'s business,
//! and the errors it returns name a field that [`by_field`] finds here.
//! The defaults are the core's [`Scenario::default`]; a test holds this
//! table's default texts to it.

use folioscope_core::{Backing, Kernel, Madvise, Pattern, Scenario, TmpfsFile, Variant};

use crate::parse::{
    format_pattern, format_size, on_off, parse_fs, parse_kernel_label, parse_madvise, parse_on_off,
    parse_pattern, parse_size, parse_tmpfs_file, parse_tmpfs_huge, tmpfs_huge_name, with_variant,
    FileSystem,
};

/// How the web app's scenario panel edits a parameter.
#[derive(Clone, Copy)]
pub enum Control {
    /// A text field.
    Text,
    /// A select; the function lists its `(value, label)` options.
    Choice(fn() -> Vec<(String, String)>),
    /// A select of kernel variants whose options keep the kernel's patch
    /// toggles (see [`kernel_choices`]), with a checkbox for each patch.
    Kernel,
}

/// The scenarios a parameter means something in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    All,
    /// Only a tmpfs file has it: links leave it out and the panel hides
    /// it for a file on disk.
    Tmpfs,
}

/// One scenario parameter.
pub struct Param {
    /// The name [`folioscope_core::ConfigError`] gives the field.
    pub field: &'static str,
    /// The command-line option, without its `--`.
    pub flag: &'static str,
    /// The link's key.
    pub key: &'static str,
    /// The web panel's label, which banners name too.
    pub label: &'static str,
    pub control: Control,
    /// What `--help` shows as the option's value.
    pub value_name: &'static str,
    /// The default, as [`Param::format`] writes [`Scenario::default`]'s.
    pub default: &'static str,
    /// One sentence for `--help` and the panel's tooltip.
    pub help: &'static str,
    pub scope: Scope,
    /// Sets the field from its text.
    pub parse: fn(&mut Scenario, &str) -> Result<(), String>,
    /// The field as text that `parse` reads back.
    pub format: fn(&Scenario) -> String,
}

impl Param {
    /// Whether the parameter is the kernel, of which links carry a list.
    pub fn is_kernel(&self) -> bool {
        matches!(self.control, Control::Kernel)
    }

    /// The `--flag` spelling, for errors.
    pub fn option(&self) -> String {
        format!("--{}", self.flag)
    }

    /// Whether the parameter applies to this scenario.
    pub fn applies_to(&self, s: &Scenario) -> bool {
        self.scope == Scope::All || s.backing.is_tmpfs()
    }
}

/// Every parameter, in the order links write them and every reader
/// applies them: `fs` comes before the tmpfs file's own parameters.
pub static PARAMS: [Param; 14] = [
    Param {
        field: "kernel",
        flag: "kernel",
        key: "kernel",
        label: "kernel",
        control: Control::Kernel,
        value_name: "KERNEL",
        default: "v6.18",
        help: "Kernel variant (see `folioscope kernels`), optionally with +patch/-patch toggles written after it, as links write kernels.",
        scope: Scope::All,
        parse: |s, t| {
            s.kernel = parse_kernel_label(t)?;
            Ok(())
        },
        format: |s| s.kernel.label(),
    },
    Param {
        field: "file_size",
        flag: "file-size",
        key: "size",
        label: "file size",
        control: Control::Text,
        value_name: "SIZE",
        default: "2G",
        help: "File size, e.g. 2G, 512M.",
        scope: Scope::All,
        parse: |s, t| {
            s.file_size = parse_size(t)?;
            Ok(())
        },
        format: |s| format_size(s.file_size),
    },
    Param {
        field: "page_size",
        flag: "page-size",
        key: "page",
        label: "page size",
        control: Control::Choice(|| choices(["4k", "16k", "64k"])),
        value_name: "4k|16k|64k",
        default: "4k",
        help: "Base page size: 4k (x86-64, arm64), 16k or 64k (arm64).",
        scope: Scope::All,
        parse: |s, t| {
            s.page_size = parse_size(t)?;
            Ok(())
        },
        format: |s| format_size(s.page_size),
    },
    Param {
        field: "read_ahead_kb",
        flag: "read-ahead-kb",
        key: "ra_kb",
        label: "read_ahead_kb",
        control: Control::Text,
        value_name: "KB",
        default: "8192",
        help: "read_ahead_kb of the device.",
        scope: Scope::All,
        parse: |s, t| {
            s.read_ahead_kb = t
                .trim()
                .parse()
                .map_err(|_| format!("'{t}' is not a whole number"))?;
            Ok(())
        },
        format: |s| s.read_ahead_kb.to_string(),
    },
    Param {
        field: "fault_around_bytes",
        flag: "fault-around-bytes",
        key: "fa",
        label: "fault_around_bytes",
        control: Control::Text,
        value_name: "SIZE",
        default: "64k",
        help: "fault_around_bytes (debugfs).",
        scope: Scope::All,
        parse: |s, t| {
            s.fault_around_bytes = parse_size(t)?;
            Ok(())
        },
        format: |s| format_size(s.fault_around_bytes),
    },
    Param {
        field: "madvise",
        flag: "madvise",
        key: "madvise",
        label: "madvise",
        control: Control::Choice(|| choices(Madvise::ALL.map(Madvise::name))),
        value_name: "normal|hugepage|sequential|random",
        default: "normal",
        help: "madvise() advice on the mapping; for read patterns, the posix_fadvise() advice.",
        scope: Scope::All,
        parse: |s, t| {
            s.madvise = parse_madvise(t)?;
            Ok(())
        },
        format: |s| s.madvise.name().into(),
    },
    Param {
        field: "thp",
        flag: "thp",
        key: "thp",
        label: "THP",
        control: Control::Choice(|| choices(["on", "off"])),
        value_name: "on|off",
        default: "on",
        help: "CONFIG_TRANSPARENT_HUGEPAGE: built in (on) or not (off).",
        scope: Scope::All,
        parse: |s, t| {
            s.thp = parse_on_off(t)?;
            Ok(())
        },
        format: |s| on_off(s.thp).into(),
    },
    Param {
        field: "memory_limit",
        flag: "memory-limit",
        key: "memcg",
        label: "memory limit",
        control: Control::Text,
        value_name: "SIZE|none",
        default: "none",
        help: "Memory cgroup limit on the file's page cache, e.g. 2G, or none.",
        scope: Scope::All,
        parse: |s, t| {
            s.memory_limit = match t.trim() {
                "" | "none" => None,
                v => Some(parse_size(v)?),
            };
            Ok(())
        },
        format: |s| {
            s.memory_limit
                .map(format_size)
                .unwrap_or_else(|| "none".into())
        },
    },
    Param {
        field: "exec",
        flag: "exec",
        key: "exec",
        label: "VM_EXEC",
        control: Control::Choice(|| choices(["off", "on"])),
        value_name: "on|off",
        default: "off",
        help: "Map the file executable (VM_EXEC), as a program's text is; --exec alone means on.",
        scope: Scope::All,
        parse: |s, t| {
            s.exec = parse_on_off(t)?;
            Ok(())
        },
        format: |s| on_off(s.exec).into(),
    },
    Param {
        field: "pattern",
        flag: "pattern",
        key: "pattern",
        label: "pattern",
        control: Control::Text,
        value_name: "PATTERN",
        default: "fwd",
        help: "Access pattern: fwd, rev, stride:N[:PCT], rstride:N, random:PCT:SEED, read:BS, pread-rev:BS, or (on the command line) trace:FILE.",
        scope: Scope::All,
        parse: |s, t| {
            s.pattern = parse_pattern(t, None)?;
            Ok(())
        },
        format: |s| format_pattern(&s.pattern),
    },
    Param {
        field: "fs",
        flag: "fs",
        key: "fs",
        label: "file system",
        control: Control::Choice(|| {
            vec![
                ("disk".into(), "disk (ext4)".into()),
                ("tmpfs".into(), "tmpfs".into()),
            ]
        }),
        value_name: "disk|tmpfs",
        default: "disk",
        help: "File system: disk (ext4 on the virtio disk) or tmpfs (a file made before the reads, read with read()).",
        scope: Scope::All,
        parse: |s, t| {
            s.backing = match (parse_fs(t)?, s.backing) {
                (FileSystem::Disk, _) => Backing::Disk,
                (FileSystem::Tmpfs, b @ Backing::Tmpfs { .. }) => b,
                (FileSystem::Tmpfs, Backing::Disk) => Backing::Tmpfs {
                    huge: false,
                    file: TmpfsFile::Written,
                },
            };
            Ok(())
        },
        format: |s| FileSystem::of(s.backing).name().into(),
    },
    Param {
        field: "tmpfs_huge",
        flag: "tmpfs-huge",
        key: "tmpfs_huge",
        label: "tmpfs huge=",
        control: Control::Choice(|| choices(["never", "always"])),
        value_name: "always|never",
        default: "never",
        help: "tmpfs's huge= mount option: always or never (on and off read the same).",
        scope: Scope::Tmpfs,
        parse: |s, t| {
            let value = parse_tmpfs_huge(t)?;
            match &mut s.backing {
                Backing::Tmpfs { huge, .. } => *huge = value,
                Backing::Disk => return Err(ONLY_TMPFS.into()),
            }
            Ok(())
        },
        format: |s| {
            let huge = matches!(s.backing, Backing::Tmpfs { huge: true, .. });
            tmpfs_huge_name(huge).into()
        },
    },
    Param {
        field: "tmpfs_file",
        flag: "tmpfs-file",
        key: "tmpfs_file",
        label: "tmpfs file",
        control: Control::Choice(|| choices(TmpfsFile::ALL.map(TmpfsFile::name))),
        value_name: "written|fallocated|sparse",
        default: "written",
        help: "How the tmpfs file was made: written, fallocated or sparse.",
        scope: Scope::Tmpfs,
        parse: |s, t| {
            let value = parse_tmpfs_file(t)?;
            match &mut s.backing {
                Backing::Tmpfs { file, .. } => *file = value,
                Backing::Disk => return Err(ONLY_TMPFS.into()),
            }
            Ok(())
        },
        format: |s| match s.backing {
            Backing::Tmpfs { file, .. } => file.name().into(),
            Backing::Disk => TmpfsFile::Written.name().into(),
        },
    },
    Param {
        field: "hwpoison",
        flag: "hwpoison",
        key: "hwpoison",
        label: "hwpoison page",
        control: Control::Text,
        value_name: "PAGE|none",
        default: "none",
        help: "Mark this page hardware-poisoned (PG_hwpoison) before the reads; tmpfs only.",
        scope: Scope::Tmpfs,
        parse: |s, t| {
            s.hwpoison = match t.trim() {
                "" | "none" => None,
                v => Some(
                    v.parse()
                        .map_err(|_| format!("'{v}' is not a page number"))?,
                ),
            };
            Ok(())
        },
        format: |s| {
            s.hwpoison
                .map(|p| p.to_string())
                .unwrap_or_else(|| "none".into())
        },
    },
];

/// Why a tmpfs file's parameter does not take on a file on disk.
const ONLY_TMPFS: &str = "only for a tmpfs file (fs tmpfs)";

/// Options whose values are also their labels.
fn choices<const N: usize>(names: [&str; N]) -> Vec<(String, String)> {
    names
        .into_iter()
        .map(|n| (n.to_string(), n.to_string()))
        .collect()
}

/// The parameter with this link key.
pub fn by_key(key: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.key == key)
}

/// The parameter a [`folioscope_core::ConfigError`] names by its field;
/// `None` for a field this table does not know, which the caller must
/// report as it is rather than blame on another parameter.
pub fn by_field(field: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.field == field)
}

/// The label banners use for a field the core names.
pub fn label_of(field: &str) -> &str {
    by_field(field).map_or(field, |p| p.label)
}

/// The option that sets a field the core names, for the CLI's errors.
pub fn option_of(field: &str) -> String {
    by_field(field).map_or_else(|| format!("--{field}"), Param::option)
}

/// The scenario with one parameter changed as an editor (the web panel)
/// changes it, or why not. Unlike a link, which states every parameter,
/// an editor changes one: moving a scenario to tmpfs keeps a read pattern
/// or starts from the seed's 1 MiB reads, since tmpfs is read with
/// read(), and moving it to disk forgets the poisoned page.
pub fn edit(s: &Scenario, p: &Param, text: &str) -> Result<Scenario, String> {
    let mut next = s.clone();
    (p.parse)(&mut next, text)?;
    if p.field == "fs" && next.backing != s.backing {
        if next.backing.is_tmpfs() && !next.pattern.uses_read() {
            next.pattern = Pattern::Read { bs: 1 << 20 };
        }
        if !next.backing.is_tmpfs() {
            next.hwpoison = None;
        }
    }
    Ok(next)
}

/// The kernel select's `(value, label)` options: every variant, each
/// keeping the patches switched by hand in `current`. The value is the
/// kernel's label, which the kernel parameter's parser reads, so
/// choosing a variant keeps the toggles.
pub fn kernel_choices(current: &Kernel) -> Vec<(String, String)> {
    Variant::ALL
        .into_iter()
        .map(|v| {
            let label = with_variant(current, v).label();
            (label.clone(), label)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use folioscope_core::{Patch, Pattern};

    /// A scenario that differs from the default in every parameter.
    fn unlike_default() -> Scenario {
        Scenario {
            kernel: Kernel::from_variant(Variant::V7_1Rc5),
            file_size: 64 << 20,
            page_size: 16384,
            read_ahead_kb: 128,
            fault_around_bytes: 16384,
            madvise: Madvise::Sequential,
            thp: false,
            memory_limit: Some(32 << 20),
            exec: true,
            pattern: Pattern::Read { bs: 4096 },
            backing: Backing::Tmpfs {
                huge: true,
                file: TmpfsFile::Sparse,
            },
            hwpoison: Some(3),
        }
    }

    #[test]
    fn the_defaults_are_the_cores() {
        let d = Scenario::default();
        for p in &PARAMS {
            assert_eq!((p.format)(&d), p.default, "{}", p.key);
        }
        // Every default parsed onto a scenario unlike the default gives
        // the default back: the tmpfs file's own first, while it is one.
        let mut s = unlike_default();
        let (tmpfs, all): (Vec<&Param>, Vec<&Param>) =
            PARAMS.iter().partition(|p| p.scope == Scope::Tmpfs);
        for p in tmpfs.into_iter().chain(all) {
            (p.parse)(&mut s, p.default).unwrap_or_else(|e| panic!("{}: {e}", p.key));
        }
        assert_eq!(s, d);
    }

    #[test]
    fn every_value_formats_to_text_its_parser_reads_back() {
        let s = unlike_default();
        let mut back = Scenario::default();
        for p in &PARAMS {
            (p.parse)(&mut back, &(p.format)(&s)).unwrap_or_else(|e| panic!("{}: {e}", p.key));
        }
        assert_eq!(back, s);
    }

    #[test]
    fn names_keys_and_flags_are_unique() {
        for (i, a) in PARAMS.iter().enumerate() {
            for b in &PARAMS[i + 1..] {
                assert!(a.field != b.field && a.key != b.key && a.flag != b.flag);
                assert!(a.label != b.label);
            }
        }
    }

    #[test]
    fn every_choice_parses() {
        let mut s = unlike_default();
        for p in &PARAMS {
            if let Control::Choice(list) = p.control {
                for (value, _) in list() {
                    (p.parse)(&mut s, &value).unwrap_or_else(|e| panic!("{}: {e}", p.key));
                    assert_eq!((p.format)(&s), value);
                }
            }
        }
    }

    /// The drift bug: the panel read `text == "always"` and the CLI on/off.
    #[test]
    fn tmpfs_huge_is_read_one_way_everywhere() {
        let p = by_key("tmpfs_huge").unwrap();
        let mut s = unlike_default();
        for (text, huge) in [
            ("on", true),
            ("off", false),
            ("always", true),
            ("never", false),
        ] {
            (p.parse)(&mut s, text).unwrap();
            assert!(
                matches!(s.backing, Backing::Tmpfs { huge: h, .. } if h == huge),
                "{text}"
            );
        }
        let mut disk = Scenario::default();
        assert_eq!((p.parse)(&mut disk, "on"), Err(ONLY_TMPFS.into()));
    }

    /// The drift bug: `param_of_field` blamed any field it did not know on
    /// `pattern`. Every field the core names is here, and one it does not
    /// name is not found, rather than found as another.
    #[test]
    fn the_cores_fields_are_found_and_no_other() {
        let bad = |f: fn(&mut Scenario)| {
            let mut s = Scenario::default();
            f(&mut s);
            s.config().unwrap_err().field
        };
        let fields = [
            bad(|s| s.file_size = 0),
            bad(|s| s.page_size = 3000),
            bad(|s| s.read_ahead_kb = 1 << 30),
            bad(|s| s.fault_around_bytes = 1 << 30),
            bad(|s| s.memory_limit = Some(1)),
            bad(|s| s.pattern = Pattern::Stride(0)),
            bad(|s| {
                s.kernel.patches = s
                    .kernel
                    .patches
                    .with(Patch::ExecThpOrderV6)
                    .with(Patch::ExecThpOrderV7)
            }),
            bad(|s| {
                s.pattern = Pattern::Read { bs: 4096 };
                s.thp = false;
                s.backing = Backing::Tmpfs {
                    huge: true,
                    file: TmpfsFile::Written,
                }
            }),
            bad(|s| s.hwpoison = Some(1)),
        ];
        for f in fields {
            assert_eq!(by_field(f).map(|p| p.field), Some(f));
        }
        assert!(by_field("backing").is_none());
        assert_eq!(label_of("no_such_field"), "no_such_field");
        assert_eq!(option_of("file_size"), "--file-size");
    }

    /// The drift bug: the panel's kernel select parsed a bare variant name,
    /// so choosing a variant dropped the patches switched by hand.
    #[test]
    fn the_kernel_select_keeps_the_toggles() {
        let p = by_key("kernel").unwrap();
        let mut s = Scenario::default();
        (p.parse)(&mut s, "v7.4-rc2+desc-ra-2-hugepage").unwrap();
        let options = kernel_choices(&s.kernel);
        assert_eq!(options.len(), Variant::ALL.len());
        assert!(
            options.iter().any(|(v, _)| *v == (p.format)(&s)),
            "the current kernel is an option"
        );
        for (value, _) in options {
            let next = edit(&s, p, &value).unwrap();
            assert!(next.kernel.has(Patch::DescRaHugepage), "{value}");
        }
    }

    #[test]
    fn an_editor_moving_to_tmpfs_keeps_the_scenario_valid() {
        let fs = by_key("fs").unwrap();
        let s = edit(&Scenario::default(), fs, "tmpfs").unwrap();
        assert_eq!(s.pattern, Pattern::Read { bs: 1 << 20 });
        assert!(s.config().is_ok());
        let s = edit(
            &edit(&s, by_key("hwpoison").unwrap(), "3").unwrap(),
            fs,
            "disk",
        )
        .unwrap();
        assert_eq!(s.hwpoison, None);
    }
}
