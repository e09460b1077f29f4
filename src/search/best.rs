//! The best of a list of anonymous nodes by an objective, valuing as few as
//! it can: the nodes are taken in order of the objective's lower bound
//! (`objective::Bounds`, which no node's value goes below, with or without
//! suppression), in batches that double, until the lowest bound left
//! exceeds the best value found. Every node whose value ties the best has a
//! bound at most the best, so all of them are valued: the caller breaks the
//! ties as it would over the whole list.
//!
//! This is how `best("min_loss")` and `best("max_precision")` answer on a
//! complete search's thousands of anonymous nodes: on Adult and cup the
//! bound is close to the value, and a few dozen nodes are valued. With no
//! suppression allowed an anonymous node suppresses nothing, and for the
//! objectives whose bound is then the value (`exact_unsuppressed`) the best
//! value is the least bound: only the nodes that reach it are valued.

use super::Bounds;
use crate::check::{Checker, Evaluated};
use crate::error::Result;
use crate::lattice::Node;
use crate::metrics::metrics;

/// The first batch: enough to keep both cores busy on small sets.
const FIRST_BATCH: usize = 16;

/// Whether a node of bound `lower` may still tie or beat `best`: with room
/// for the rounding a caller ranks by (values equal to 12 decimals tie).
fn may_reach(lower: f64, best: f64) -> bool {
    lower <= best + 1e-9 * best.abs().max(1.0)
}

/// The nodes valued (indices into `nodes`, in the order valued), their
/// evaluations and their values; among them, every node of the best value.
/// `max_suppression`: the records the search that found `nodes` (anonymous
/// ones) could suppress.
pub fn best_of(
    checker: &Checker<'_>,
    bounds: &Bounds,
    nodes: &[Node],
    max_suppression: u64,
) -> Result<(Vec<usize>, Vec<Evaluated>, Vec<f64>)> {
    // the figures the objective reads, whatever the caller's checker asks
    let checker = &Checker {
        figures: bounds.objective().figures(),
        ..checker.clone()
    };
    let (problem, k) = (checker.problem, checker.model.k);
    let heights = problem.heights();
    let lower: Vec<f64> = nodes.iter().map(|n| bounds.lower(n)).collect();
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by(|&a, &b| lower[a].total_cmp(&lower[b]).then(a.cmp(&b)));
    let (mut valued, mut evaluated, mut values) = (Vec::new(), Vec::new(), Vec::new());
    let exact = max_suppression == 0 && bounds.objective().exact_unsuppressed();
    let mut best = match order.first() {
        // no value below its bound, and the least bound a value
        Some(&i) if exact => lower[i],
        _ => f64::INFINITY,
    };
    let (mut next, mut batch) = (0, FIRST_BATCH);
    while next < order.len() && may_reach(lower[order[next]], best) {
        let take: Vec<usize> = order[next..]
            .iter()
            .take(batch)
            .take_while(|&&i| may_reach(lower[i], best))
            .copied()
            .collect();
        next += take.len();
        batch *= 2;
        let these: Vec<Node> = take.iter().map(|&i| nodes[i].clone()).collect();
        for (&i, e) in take.iter().zip(checker.evaluate_many(&these)?) {
            let m = metrics(
                &nodes[i],
                &heights,
                &e.stats,
                problem.rows,
                k,
                &e.attribute_loss,
            );
            let value = bounds.value(&nodes[i], &m, &e);
            best = best.min(value);
            valued.push(i);
            evaluated.push(e);
            values.push(value);
        }
    }
    Ok((valued, evaluated, values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Figures, Model};
    use crate::freq::Engine;
    use crate::search::Objective;
    use crate::testing::Fixture;

    /// On Adult, with and without suppression, weighted or not: the best
    /// value among the nodes valued is the best over every anonymous node,
    /// every node of that value is among them, and far fewer are valued.
    #[test]
    fn the_best_of_the_brute_force_set_valuing_few_nodes() {
        let f = Fixture::adult();
        let qis = ["sex", "age", "race", "marital-status", "education"];
        let p = f.problem(&qis);
        for (k, sup) in [(2u64, 0u64), (5, 300), (10, 1500)] {
            let nodes = f.brute_anonymous(&qis, k, sup);
            let mut checker = Checker::new(&p, Model::k(k), Engine::Auto).unwrap();
            let plain = checker.clone();
            checker.figures = Figures {
                entropy: true,
                ambiguity: true,
                kl_divergence: true,
            };
            let all = checker.evaluate_many(&nodes).unwrap();
            // the entropy's and ambiguity's bounds are looser under
            // suppression: every node of the best value is found, not
            // necessarily valuing few
            for (objective, weights, few) in [
                (Objective::Loss, None, true),
                (Objective::Loss, Some(vec![3.0, 1.0, 0.5, 1.0, 2.0]), true),
                (Objective::Precision, None, true),
                (Objective::Entropy, None, sup == 0),
                (
                    Objective::Entropy,
                    Some(vec![3.0, 1.0, 0.5, 1.0, 2.0]),
                    sup == 0,
                ),
                (Objective::Ambiguity, None, false),
            ] {
                let mut bounds = Bounds::new(&p, objective).unwrap();
                if let Some(w) = weights.clone() {
                    bounds = bounds.weighted(w);
                }
                let value = |i: usize, e: &Evaluated| {
                    let m = metrics(
                        &nodes[i],
                        &p.heights(),
                        &e.stats,
                        p.rows,
                        k,
                        &e.attribute_loss,
                    );
                    bounds.value(&nodes[i], &m, e)
                };
                let values: Vec<f64> = all.iter().enumerate().map(|(i, e)| value(i, e)).collect();
                let want = values.iter().copied().fold(f64::INFINITY, f64::min);
                // best_of asks for the figures its objective reads
                let (valued, evaluated, _) = best_of(&plain, &bounds, &nodes, sup).unwrap();
                let got = valued
                    .iter()
                    .zip(&evaluated)
                    .map(|(&i, e)| value(i, e))
                    .fold(f64::INFINITY, f64::min);
                assert_eq!(got, want, "k={k} sup={sup} {objective:?} {weights:?}");
                for (i, &v) in values.iter().enumerate() {
                    if v == want {
                        assert!(valued.contains(&i), "a node of the best value was left out");
                    }
                }
                assert!(
                    !few || valued.len() <= FIRST_BATCH || valued.len() * 4 < nodes.len(),
                    "{} of {}",
                    valued.len(),
                    nodes.len()
                );
                if sup == 0 && objective.exact_unsuppressed() {
                    // only the nodes of the best value
                    for &i in &valued {
                        assert!(
                            values[i] <= want + 1e-9,
                            "{objective:?}: valued {i} beyond the best"
                        );
                    }
                }
            }
        }
    }
}
