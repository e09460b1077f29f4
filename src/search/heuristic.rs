//! A time-bounded heuristic for wide tables (15 to 40 quasi-identifiers),
//! after ARX's Lightning: greedy dives, then a best-first walk.
//!
//! 0. The top node, valued whatever the time limit: from then on the
//!    search holds an answer, which the steps below only improve.
//! 1. Datafly's path (the attribute with the most distinct values first) to
//!    an anonymous node: the answer is never worse than Datafly's.
//! 2. From it, moves to better anonymous neighbours (direct
//!    specializations, and one attribute down with another up) while they
//!    improve; then the optimal search's seeded dives and descents
//!    (`explorer`), and the same moves from the best node found.
//! 3. The optimal search's best-first walk with the best value so far as
//!    its bound, until the time limit: if it ends, the answer is proven
//!    optimal.
//!
//! Nodes are evaluated once each. With the same seed, data and parameters
//! the work and the answer are the same, unless the time limit cuts it
//! short (then the answer is the best found by then).

use super::explorer::Explorer;
use super::optimal::outcome;
use super::{Algorithm, Outcome, Register, Searcher};
use crate::error::{AnonError, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heuristic;

impl Register for Heuristic {
    const NAME: &'static str = "heuristic";
    fn with_variant(_: &str) -> Self {
        Heuristic
    }
}

impl Algorithm for Heuristic {
    fn complete(&self) -> bool {
        false
    }
    fn estimate(&self, _s: &Searcher<'_>) -> Result<()> {
        Ok(())
    }
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome> {
        let mut ex = Explorer::new(s)?;
        match greedy_then_best_first(s, &mut ex) {
            Ok(proven) => Ok(outcome(ex, proven)),
            Err(AnonError::TimeLimit) => {
                let limit = s.config.time_limit.unwrap_or_default().as_secs_f64();
                let mut out = outcome(ex, false);
                out.stopped = Some(format!("time limit of {limit} s reached"));
                Ok(out)
            }
            Err(e) => Err(e),
        }
    }
}

fn greedy_then_best_first(s: &mut Searcher<'_>, ex: &mut Explorer) -> Result<bool> {
    // an answer from the first moment: the top node, valued whatever the
    // time limit (one group of every row, or the criteria's verdict on it),
    // so that a search the limit cuts short, even inside Datafly's path on
    // a hundred columns, still answers unless the top itself fails
    let top = ex.lattice.heights().to_vec();
    s.untimed(|s| ex.eval(s, &top))?;
    // Datafly's answer is checked by the explorer's evaluation below
    let datafly = s.datafly(false)?;
    s.confirmed.clear(); // the explorer records what it evaluates
    if let Some(node) = datafly.anonymous.first() {
        if ex.eval(s, node)?.is_some() {
            ex.improve(s, node.to_vec(), true)?;
        }
    }
    ex.dives(s)?;
    // lateral moves from the best node found
    if let Some(best) = ex.best_nodes().into_iter().next() {
        ex.improve(s, best, true)?;
    }
    ex.best_first(s)
}
