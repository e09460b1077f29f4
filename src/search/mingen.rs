//! MinGen (Sweeney): every node of the lattice checked from the table; exact
//! for any criterion, monotone or not.

use super::budget::listed_node_bytes;
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
        // the criteria need not be monotone here: a node's predecessors may
        // all fail while a node further below passes
        let minimal = minimal_of_any(&lat, &anonymous);
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

/// The nodes of `anonymous` (any set of `lat`'s nodes) with no node of the
/// set anywhere below them. One pass over the lattice in id order, which
/// puts every node after its predecessors (ids are mixed-radix numbers of
/// the levels): whether a node of the set lies at or below each node.
fn minimal_of_any(lat: &Lattice, anonymous: &[Node]) -> Vec<Node> {
    let size = lat.size() as usize;
    // ids below `size` (a node count that fits in memory) fit usize
    let radix: Vec<usize> = lat.radix().iter().map(|&r| r as usize).collect();
    let mut member = vec![false; size];
    for n in anonymous {
        member[lat.id(n) as usize] = true;
    }
    // below[id]: a member at or below node id
    let mut below = vec![false; size];
    let mut strictly = vec![false; size];
    for id in 0..size {
        let node = lat.node(id as u128);
        strictly[id] = node
            .iter()
            .zip(&radix)
            .any(|(&l, &r)| l > 0 && below[id - r]);
        below[id] = member[id] || strictly[id];
    }
    anonymous
        .iter()
        .filter(|n| !strictly[lat.id(n) as usize])
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_nodes_have_no_node_of_the_set_anywhere_below() {
        let line = Lattice::new(vec![2]);
        // a set that is not closed upwards (a criterion that is not
        // monotone): level 1 fails between two that pass
        assert_eq!(minimal_of_any(&line, &[vec![0], vec![2]]), vec![vec![0]]);
        let square = Lattice::new(vec![1, 1, 2]);
        let set = vec![vec![1, 0, 0], vec![0, 1, 1], vec![1, 1, 2], vec![0, 0, 2]];
        // (1,1,2) lies above (1,0,0), two steps away; (0,0,2) above nothing
        assert_eq!(
            minimal_of_any(&square, &set),
            vec![vec![1, 0, 0], vec![0, 1, 1], vec![0, 0, 2]]
        );
        // on a set closed upwards it is the predecessors' rule
        let closed: Vec<Node> = square.all().filter(|n| n[0] + n[1] >= 1).collect();
        assert_eq!(
            minimal_of_any(&square, &closed),
            super::super::context::minimal_of_complete(&closed)
        );
    }
}
