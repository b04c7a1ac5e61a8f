//! A machine kept for the timeline: everything but the xarray's nodes and
//! the PTE bits as a plain clone, and those two frozen in chunks shared
//! with the previous checkpoint, kept in the timeline's [`Stores`] (see
//! [`crate::cow`]). Not a kernel structure.

use crate::cow::Store;
use crate::machine::Machine;
use crate::mapping::{FrozenPte, PtePool};
use crate::xarray::{FrozenNodes, NodePool};

#[derive(Debug)]
pub struct Checkpoint {
    /// The machine with no nodes and no PTE bits.
    shell: Machine,
    nodes: FrozenNodes,
    pte: FrozenPte,
}

/// Where one timeline's checkpoints keep their nodes and PTE bits.
#[derive(Debug, Default)]
pub struct Stores {
    nodes: NodePool,
    pte: PtePool,
    /// The most nodes a machine of this timeline holds at once (the run's
    /// arena at its end; zero while the run is built): a restored machine
    /// keeps room for them, so that no later step or thaw grows its arena.
    /// As much as the run needs, not the whole file's room the run itself
    /// reserved: every machine the app moves along a timeline has it.
    pub(crate) node_room: usize,
}

impl Stores {
    /// Frees the chunks that neither `kept` nor `live`'s next freeze
    /// needs: call it after dropping checkpoints.
    pub fn sweep(&mut self, kept: &[std::rc::Rc<Checkpoint>], live: &Machine) {
        // Only the mapping in use remembers a frozen copy: parked ones
        // forget theirs, so none but `live.mm` needs keeping.
        debug_assert!(
            live.program
                .vmas
                .iter()
                .all(|v| v.mapping.pte_origin().is_none()),
            "a parked mapping remembers a frozen copy"
        );
        self.nodes.sweep(
            kept.iter()
                .map(|c| &c.nodes)
                .chain(live.cache.xa.nodes_origin()),
        );
        self.pte
            .sweep(kept.iter().map(|c| &c.pte).chain(live.mm.pte_origin()));
    }

    /// Bytes of the chunks and segments the checkpoints hold.
    pub fn bytes(&self) -> usize {
        Store::bytes(&self.nodes) + Store::bytes(&self.pte)
    }
}

impl Checkpoint {
    /// Places in the arena of the machine taken, free ones too.
    pub(crate) fn arena_len(&self) -> usize {
        self.nodes.len()
    }

    /// Freezes `m` into `stores`, sharing what did not change since its
    /// last checkpoint was taken or restored.
    pub fn take(m: &mut Machine, stores: &mut Stores) -> Checkpoint {
        let nodes = m.cache.xa.freeze_nodes(&mut stores.nodes);
        let pte = m.mm.freeze_pte(&mut stores.pte);
        let (live_nodes, live_pte) = (m.cache.xa.take_nodes(), m.mm.take_pte());
        // The LRU's leaves are shared with the shell until written; those
        // the shell holds beside the checkpoint before are counted once,
        // in its figure (`Checkpoint::new_bytes`).
        let shell = m.clone();
        m.cache.xa.put_nodes(live_nodes);
        m.mm.put_pte(live_pte);
        Checkpoint { shell, nodes, pte }
    }

    /// The machine as it was taken, from the stores it was taken into.
    pub fn restore(&self, stores: &Stores) -> Machine {
        let mut m = self.shell.clone();
        m.cache
            .xa
            .thaw_nodes(&self.nodes, &stores.nodes, stores.node_room);
        m.mm.thaw_pte(&self.pte, &stores.pte);
        m
    }

    /// Makes `m` the machine as it was taken, reusing the memory of its
    /// nodes and PTE bits, the bulk of a large page cache.
    pub fn restore_into(&self, m: &mut Machine, stores: &Stores) {
        let (nodes, pte) = (m.cache.xa.take_nodes(), m.mm.take_pte());
        *m = self.shell.clone();
        m.cache.xa.put_nodes(nodes);
        m.mm.put_pte(pte);
        m.cache
            .xa
            .thaw_nodes(&self.nodes, &stores.nodes, stores.node_room);
        m.mm.thaw_pte(&self.pte, &stores.pte);
    }

    /// Bytes of the shell beside `prev`, the checkpoint kept before it,
    /// if any: the machine's clone and the LRU leaves it does not share
    /// with `prev`'s. Out of line, as both figures below add it.
    #[inline(never)]
    fn shell_bytes(&self, prev: Option<&Checkpoint>) -> usize {
        let before = prev.and_then(|p| p.shell.cache.lru.as_ref());
        let lru = self.shell.cache.lru.as_ref();
        self.shell.memory_bytes() + lru.map_or(0, |l| l.bytes_beside(before))
    }

    /// Bytes this checkpoint added beside what it shares with `prev`, the
    /// checkpoint taken before it, if any: new chunks and LRU leaves.
    pub fn new_bytes(&self, prev: Option<&Checkpoint>) -> usize {
        self.shell_bytes(prev) + self.nodes.new_bytes() + self.pte.new_bytes()
    }

    /// Bytes of its own, beside the chunks in the stores: the shell (see
    /// [`Checkpoint::shell_bytes`]) and the lists of its chunks.
    pub fn own_bytes(&self, prev: Option<&Checkpoint>) -> usize {
        self.shell_bytes(prev) + self.nodes.own_bytes() + self.pte.own_bytes()
    }
}
