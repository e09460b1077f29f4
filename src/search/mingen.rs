//! MinGen (Sweeney): every node of the lattice checked from the table; exact
//! for any criterion, monotone or not.

use super::context::minimal_of_complete;
use super::{Algorithm, Outcome, Searcher, Stats};
use crate::error::Result;
use crate::lattice::{Lattice, Node};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinGen;

impl Algorithm for MinGen {
    fn infers(&self) -> bool {
        false
    }
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome> {
        s.exhaustive()
    }
}

impl<'p> Searcher<'p> {
    /// Every node from the table (MinGen's exhaustive enumeration).
    pub(super) fn exhaustive(&mut self) -> Result<Outcome> {
        let lat = Lattice::new(self.problem().heights());
        let nodes: Vec<Node> = lat.all().collect();
        let mut anonymous = Vec::new();
        let mut rejected = Vec::new();
        self.check_from_table(&nodes, &mut anonymous, &mut rejected)?;
        let minimal = minimal_of_complete(&lat, &anonymous);
        Ok(Outcome {
            anonymous,
            rejected,
            minimal,
            complete: true,
            stats: Stats::default(),
            trace: Vec::new(),
        })
    }
}
