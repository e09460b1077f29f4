//! MinGen (Sweeney): every node of the lattice checked from the table; exact
//! for any criterion, monotone or not.

use super::budget::listed_node_bytes;
use super::context::minimal_of_complete;
use super::{Algorithm, Outcome, Register, Searcher, Stats};
use crate::error::Result;
use crate::lattice::{Lattice, Node};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinGen;

/// Nodes made at once while walking the whole lattice.
const LATTICE_BATCH: usize = 4096;

impl Register for MinGen {
    const NAME: &'static str = "mingen";
    fn with_variant(_: &str) -> Self {
        MinGen
    }
}

impl Algorithm for MinGen {
    fn infers(&self) -> bool {
        false
    }
    /// Every node ends in the answer or the rejected list.
    fn estimate(&self, s: &Searcher<'_>) -> Result<()> {
        let heights = s.problem().heights();
        let nodes = Lattice::new(heights.clone()).size();
        s.within_budget(Self::NAME, nodes, listed_node_bytes(heights.len()))
    }
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome> {
        s.exhaustive()
    }
}

impl<'p> Searcher<'p> {
    /// Every node from the table (MinGen's exhaustive enumeration), made a
    /// batch at a time.
    pub(super) fn exhaustive(&mut self) -> Result<Outcome> {
        let lat = Lattice::new(self.problem().heights());
        let mut anonymous = Vec::new();
        let mut rejected = Vec::new();
        let mut ids = 0..lat.size();
        loop {
            let batch: Vec<Node> = ids
                .by_ref()
                .take(LATTICE_BATCH)
                .map(|id| lat.node(id))
                .collect();
            if batch.is_empty() {
                break;
            }
            self.check_from_table(&batch, &mut anonymous, &mut rejected)?;
        }
        let minimal = minimal_of_complete(&anonymous);
        Ok(Outcome {
            anonymous,
            stopped: None,
            rejected,
            minimal,
            complete: true,
            proven_optimal: false,
            stats: Stats::default(),
            trace: Vec::new(),
        })
    }
}
