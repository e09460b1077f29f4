//! An optimal search for one optimum (in the spirit of ARX's FLASH and
//! El Emam's OLA): it never enumerates the complete set of anonymous nodes.
//! Seeded greedy dives through the lattice first (a good best value, and
//! failing nodes high up that tag the nodes below them without a check),
//! then a best-first walk in order of the objective's lower bound
//! (`objective`), evaluating each node it pops unless tagged and, when the
//! objective is monotone, never going above an anonymous node; it stops when
//! the lowest bound left exceeds the best value found (`explorer`). The nodes of the best value
//! are `minimal`; `anonymous` lists every anonymous node it evaluated.
//! Exact for the loss, the height and Prec, with or without suppression.

use super::explorer::Explorer;
use super::{Algorithm, Outcome, Register, Searcher, Stats};
use crate::error::Result;
use crate::lattice::Lattice;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Optimal;

impl Register for Optimal {
    const NAME: &'static str = "optimal";
    fn with_variant(_: &str) -> Self {
        Optimal
    }
}

impl Algorithm for Optimal {
    fn complete(&self) -> bool {
        false
    }
    /// It holds only the nodes it touches, checked against the budget as it
    /// goes.
    fn estimate(&self, _s: &Searcher<'_>) -> Result<()> {
        Ok(())
    }
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome> {
        let mut ex = Explorer::new(s)?;
        ex.dives(s)?;
        let proven = ex.best_first(s)?;
        Ok(outcome(ex, proven))
    }
}

/// The outcome of an explorer's work.
pub(super) fn outcome(ex: Explorer, proven: bool) -> Outcome {
    let minimal = ex.best_nodes();
    let mut anonymous = ex.anonymous;
    Lattice::sort(&mut anonymous);
    let mut rejected = ex.rejected;
    Lattice::sort(&mut rejected);
    Outcome {
        anonymous,
        stopped: None,
        rejected,
        minimal,
        complete: false,
        proven_optimal: proven,
        stats: Stats::default(),
        trace: Vec::new(),
    }
}
