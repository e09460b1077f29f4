//! Bottom-up breadth-first search over the whole lattice (the baseline the
//! Incognito paper measures against), with each node rolled up from a failed
//! specialization, or without rollup, each from the table.

use super::bfs::RootSource;
use super::{Algorithm, Outcome, Searcher};
use crate::error::Result;
use crate::lattice::Graph;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BottomUp {
    pub rollup: bool,
}

impl Algorithm for BottomUp {
    fn label(&self) -> String {
        let v = if self.rollup { "rollup" } else { "no_rollup" };
        format!("bottom_up ({v})")
    }
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome> {
        let g = Graph::full_lattice(&s.problem().heights());
        let in_s = s.bfs(&g, RootSource::Table, !self.rollup)?;
        Ok(s.finish_complete(&g, &in_s))
    }
}
