//! Bottom-up breadth-first search over the whole lattice (the baseline the
//! Incognito paper measures against), with each node rolled up from a failed
//! specialization, or without rollup, each from the table.

use super::bfs::RootSource;
use super::{Algorithm, Outcome, Register, Searcher};
use crate::error::Result;
use crate::lattice::Graph;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BottomUp {
    pub rollup: bool,
}

impl Register for BottomUp {
    const NAME: &'static str = "bottom_up";
    const VARIANTS: &'static [&'static str] = &["rollup", "no_rollup"];
    fn with_variant(v: &str) -> Self {
        BottomUp {
            rollup: v != "no_rollup",
        }
    }
    fn variant(&self) -> Option<&'static str> {
        Some(if self.rollup { "rollup" } else { "no_rollup" })
    }
}

impl Algorithm for BottomUp {
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome> {
        let g = Graph::full_lattice(&s.problem().heights());
        let in_s = s.bfs(&g, RootSource::Table, !self.rollup)?;
        Ok(s.finish_complete(&g, &in_s))
    }
}
