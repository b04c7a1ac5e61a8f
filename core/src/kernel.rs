//! Kernel variants: a base kernel plus a set of patches, each a named
//! switch on the one model. A variant is never a copy of the model; the
//! code tests `kernel.has(Patch::X)` where the patch changes behaviour.
//!
//! The base is Linux 6.18 as measured on these machines. Later kernels and
//! patch series are the base with patches switched on.

/// One patch (or one hunk of a series) that changes the model's behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Patch {}

impl Patch {
    pub const ALL: [Patch; 0] = [];

    fn bit(self) -> u64 {
        match self {}
    }

    /// The name used on command lines and in links.
    pub fn name(self) -> &'static str {
        match self {}
    }

    /// What the patch changes, in one line.
    pub fn summary(self) -> &'static str {
        match self {}
    }

    /// Where it comes from: a lore link, a commit, or a seed file.
    pub fn source(self) -> &'static str {
        match self {}
    }
}

/// A set of patches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PatchSet(u64);

impl PatchSet {
    pub fn with(mut self, p: Patch) -> Self {
        self.0 |= p.bit();
        self
    }
    pub fn without(mut self, p: Patch) -> Self {
        self.0 &= !p.bit();
        self
    }
    pub fn contains(&self, p: Patch) -> bool {
        self.0 & p.bit() != 0
    }
    pub fn iter(&self) -> impl Iterator<Item = Patch> + '_ {
        Patch::ALL.into_iter().filter(|p| self.contains(*p))
    }
}

/// A kernel: a named variant and the patches it carries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// The variant it started from.
    pub variant: Variant,
    pub patches: PatchSet,
}

/// The named kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Linux 6.18, the kernel of these machines.
    V6_18,
}

impl Variant {
    pub const ALL: [Variant; 1] = [Variant::V6_18];

    pub fn name(self) -> &'static str {
        match self {
            Variant::V6_18 => "v6.18",
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            Variant::V6_18 => "Linux 6.18 as measured on these machines (reference source 6.18.35)",
        }
    }

    /// The patches the variant carries on top of the 6.18 model.
    pub fn patches(self) -> PatchSet {
        match self {
            Variant::V6_18 => PatchSet::default(),
        }
    }

    pub fn by_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }
}

impl Kernel {
    pub fn v6_18() -> Self {
        Kernel::from_variant(Variant::V6_18)
    }

    pub fn from_variant(variant: Variant) -> Self {
        Kernel {
            variant,
            patches: variant.patches(),
        }
    }

    #[inline]
    pub fn has(&self, p: Patch) -> bool {
        self.patches.contains(p)
    }

    /// The variant's name, with `+patch` or `-patch` for each difference.
    pub fn label(&self) -> String {
        let mut s = self.variant.name().to_string();
        let base = self.variant.patches();
        for p in Patch::ALL {
            match (base.contains(p), self.patches.contains(p)) {
                (false, true) => s.push_str(&format!("+{}", p.name())),
                (true, false) => s.push_str(&format!("-{}", p.name())),
                _ => {}
            }
        }
        s
    }
}
