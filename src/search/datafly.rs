//! Datafly (Sweeney 2002): one greedy path up the lattice. From the leaves,
//! while the tuples in groups smaller than k (or failing a criterion) are more
//! than the suppression budget, generalize the attribute with the most
//! distinct values in the current frequency set (the lowest-numbered one on a
//! tie); then those groups are suppressed. The seeds' budget is k tuples; here
//! it is `max_suppression`. Each node on the path is checked exactly and
//! rolled up from the one before it, so the answer meets the model whatever
//! the criteria; it is one node, not proven optimal. At the top every tuple
//! is in one group, so the path ends anonymous unless the whole table fails.
//!
//! Under k alone the path runs on classes of its own (`greedy`), a step
//! costing the classes whatever the attributes; the node it ends at is
//! checked exactly. Otherwise (criteria, floors) each step rolls the last
//! set up.

use super::greedy::Groups;
use super::{Algorithm, Outcome, Register, Searcher, Stats};
use crate::error::Result;
use crate::freq::RollupJob;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datafly;

impl Register for Datafly {
    const NAME: &'static str = "datafly";
    fn with_variant(_: &str) -> Self {
        Datafly
    }
}

impl Algorithm for Datafly {
    fn complete(&self) -> bool {
        false
    }
    /// It checks every node it answers with: no monotonicity is assumed.
    fn infers(&self) -> bool {
        false
    }
    /// A path of at most the lattice's height: nothing to refuse.
    fn estimate(&self, _s: &Searcher<'_>) -> Result<()> {
        Ok(())
    }
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome> {
        s.datafly(true)
    }
}

impl<'p> Searcher<'p> {
    /// Datafly's path; with `exact` false the node a path on classes ends
    /// at is not checked again (for a caller that checks it itself: it is
    /// anonymous unless two classes' hashes collided).
    pub(super) fn datafly(&mut self, exact: bool) -> Result<Outcome> {
        let problem = self.problem();
        let heights = problem.heights();
        let all: Vec<usize> = (0..problem.n_attrs()).collect();
        let mut node = vec![0u8; all.len()];
        let mut rejected = Vec::new();
        let mut anonymous = Vec::new();
        if self.checker.model.only_k() && Groups::applies(problem) {
            if let Some(end) = self.datafly_on_groups(&mut node, &mut rejected, exact)? {
                anonymous.extend(end);
                return Ok(path_outcome(anonymous, rejected));
            }
            // two classes' hashes collided: on with sets from this node
        }
        let mut from = None;
        // each attribute's distinct values in the current set: generalizing
        // one attribute merges rows but keeps every other attribute's
        // values, so only the attribute raised last is counted again (a
        // step reads one column, not every column: linear in the
        // attributes, where counting them all made the path quadratic)
        let mut counts: Vec<usize> = Vec::new();
        let mut raised: Option<usize> = None;
        loop {
            let src = from.as_ref().unwrap_or(&problem.base);
            let job = RollupJob::new(src, all.clone(), node.clone());
            let (suppressed, set) = self
                .check(vec![job], &[true])?
                .pop()
                .expect("one job, one answer");
            self.stats.nodes_checked += 1;
            if self.anonymous(suppressed) {
                anonymous.push(node.clone());
                self.confirmed.push(node.clone());
                break;
            }
            let set = set.expect("a failing node's set is kept");
            let distinct = |a: usize| -> Result<usize> {
                let mut codes = set.codes(a)?;
                codes.sort_unstable();
                codes.dedup();
                Ok(codes.len())
            };
            match raised {
                None => counts = all.iter().map(|&a| distinct(a)).collect::<Result<_>>()?,
                Some(a) => counts[a] = distinct(a)?,
            }
            // the attribute with the most distinct values that can still go up
            let mut best: Option<(usize, usize)> = None;
            for &a in &all {
                if node[a] == heights[a] {
                    continue;
                }
                if best.is_none_or(|(_, d)| counts[a] > d) {
                    best = Some((a, counts[a]));
                }
            }
            rejected.push(node.clone());
            let Some((a, _)) = best else {
                break; // every attribute at its top, and still not anonymous
            };
            node[a] += 1;
            raised = Some(a);
            from = Some(set);
        }
        Ok(path_outcome(anonymous, rejected))
    }

    /// The path on `Groups` from `node` (the bottom), pushing each failing
    /// node to `rejected`: `Some` of the node it ends at (none when even
    /// the top fails), checked exactly when `exact`; `None` when that check
    /// disagrees
    /// (a collision of both hashes merged two classes), `node` then being
    /// where the path stood.
    fn datafly_on_groups(
        &mut self,
        node: &mut [u8],
        rejected: &mut Vec<Vec<u8>>,
        exact: bool,
    ) -> Result<Option<Option<Vec<u8>>>> {
        let problem = self.problem();
        let k = self.checker.model.k;
        let mut groups = Groups::new(problem)?;
        self.stats.table_scans += 1;
        self.stats.rows_scanned += problem.base.rows() as u64;
        loop {
            self.tick()?;
            self.stats.nodes_checked += 1;
            if self.anonymous(groups.suppressed(k)) {
                if !exact {
                    return Ok(Some(Some(node.to_vec())));
                }
                let all: Vec<usize> = (0..node.len()).collect();
                let job = RollupJob::new(&problem.base, all, node.to_vec());
                let (exact, _) = self.check(vec![job], &[false])?.pop().expect("one job");
                if !self.anonymous(exact) {
                    return Ok(None);
                }
                self.confirmed.push(node.to_vec());
                return Ok(Some(Some(node.to_vec())));
            }
            rejected.push(node.to_vec());
            let Some(a) = groups.widest() else {
                return Ok(Some(None)); // the top fails too
            };
            self.stats.rows_rolled_up += groups.len() as u64;
            groups.raise(a);
            node[a] += 1;
        }
    }
}

/// Datafly's answer: the node its path ends at (if anonymous) and the
/// failing nodes on the way.
fn path_outcome(anonymous: Vec<Vec<u8>>, rejected: Vec<Vec<u8>>) -> Outcome {
    Outcome {
        minimal: anonymous.clone(),
        anonymous,
        stopped: None,
        rejected,
        complete: false,
        proven_optimal: false,
        stats: Stats::default(),
        trace: Vec::new(),
    }
}
