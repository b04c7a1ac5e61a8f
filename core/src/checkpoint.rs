//! A machine kept for the timeline: everything but the xarray's nodes and
//! the PTE bits as a plain clone, and those two frozen in chunks shared
//! with the previous checkpoint (see [`crate::cow`]). Not a kernel
//! structure.

use std::collections::HashSet;

use crate::machine::Machine;
use crate::mapping::FrozenPte;
use crate::xarray::FrozenNodes;

#[derive(Debug)]
pub struct Checkpoint {
    /// The machine with no nodes and no PTE bits.
    shell: Machine,
    nodes: FrozenNodes,
    pte: FrozenPte,
}

impl Checkpoint {
    /// Freezes `m`, sharing what did not change since its last
    /// checkpoint was taken or restored.
    pub fn take(m: &mut Machine) -> Checkpoint {
        let nodes = m.cache.xa.freeze_nodes();
        let pte = m.mm.freeze_pte();
        let (live_nodes, live_pte) = (m.cache.xa.take_nodes(), m.mm.take_pte());
        let shell = m.clone();
        m.cache.xa.put_nodes(live_nodes);
        m.mm.put_pte(live_pte);
        Checkpoint { shell, nodes, pte }
    }

    /// The machine as it was taken.
    pub fn restore(&self) -> Machine {
        let mut m = self.shell.clone();
        m.cache.xa.thaw_nodes(&self.nodes);
        m.mm.thaw_pte(&self.pte);
        m
    }

    /// Makes `m` the machine as it was taken, reusing the memory of its
    /// nodes and PTE bits, the bulk of a large page cache.
    pub fn restore_into(&self, m: &mut Machine) {
        let (nodes, pte) = (m.cache.xa.take_nodes(), m.mm.take_pte());
        *m = self.shell.clone();
        m.cache.xa.put_nodes(nodes);
        m.mm.put_pte(pte);
        m.cache.xa.thaw_nodes(&self.nodes);
        m.mm.thaw_pte(&self.pte);
    }

    /// Bytes this checkpoint added beside what it shares.
    pub fn new_bytes(&self) -> usize {
        self.shell.memory_bytes() + self.nodes.new_bytes() + self.pte.new_bytes()
    }

    /// Bytes not yet in `seen` (see [`crate::cow::Frozen::distinct_bytes`]).
    pub fn distinct_bytes(&self, seen: &mut HashSet<usize>) -> usize {
        self.shell.memory_bytes() + self.nodes.distinct_bytes(seen) + self.pte.distinct_bytes(seen)
    }
}
