//! What the optimal and heuristic searches minimise, and its lower bound.
//!
//! Each objective is a value of an evaluated node (lower is better) and a
//! lower bound that holds for the node and every generalization of it, so a
//! best-first search in order of the bound can stop once the bound passes
//! the best value found. The bound is the objective as if nothing were
//! suppressed, which needs no table scan: ARX's loss from each attribute's
//! marginal (a suppressed record costs 1, at least what its generalized value
//! costs), 1 - Prec from the levels alone (a suppressed record counts as fully
//! generalized), the height itself. Without suppression each objective is
//! monotone under generalization; with suppression only the height is
//! (suppression can fall as nodes rise). The loss's bound also takes, over
//! a range of nodes below one known to suppress S records, those S: no node
//! of the range suppresses fewer, and each costs 1 where released it would
//! cost at most the largest cost of a record at the range's top levels
//! (`Bounds::lower_suppressing`).
//!
//! Discernibility (DM: a released record costs its class's size, a
//! suppressed one the table's N) and ARX's AECS (N over the classes, the
//! suppressed records counted as one class) are bounded through the most
//! classes a node and any generalization of it can have, C = min(N, the
//! product of the domains' sizes at its levels): every record costs at least
//! its class's size (a suppressed one N, at least any), and the sum of the
//! sizes' squares is at least N^2 over the classes, so DM >= N^2 / C; when
//! anything is suppressed at least one class is, so the classes AECS counts
//! are at most C, and AECS >= N / C.
//!
//! ARX's non-uniform entropy (`createEntropyMetric()`'s default,
//! MetricMDNUNMEntropy) sums over the attributes, for each record, -log2 of
//! the share its value has among the records sharing its generalized value
//! (each attribute's value rounded down to 1e-10, as ARX rounds it); the
//! suppressed records add S times the entropy of their values at the node's
//! levels (S of them). Its bound is the first part alone, which rises as a
//! generalized value gathers more records; without suppression it is the
//! value.
//!
//! ARX's ambiguity (a record costs the product over the attributes of the
//! leaves under its value; a suppressed one, of all the leaves) is bounded
//! by the geometric mean: the sum over N records of a product is at least N
//! times the product over the attributes of exp(the mean over records of
//! ln(leaves under the record's value)), which the marginals give and which
//! rises with every level. ARX's KL divergence (`check::figures`) has no
//! bound and is monotone in no case: its bound is 0, so the optimal search
//! values every node it reaches.

use crate::check::Evaluated;
use crate::error::{AnonError, Result};
use crate::freq::Problem;
use crate::metrics::loss;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Objective {
    /// ARX's loss (`metrics::loss`), unweighted.
    #[default]
    Loss,
    /// The sum of the levels.
    Height,
    /// 1 - Sweeney's Prec.
    Precision,
    /// Bayardo and Agrawal's discernibility (`metrics::discernibility`).
    Discernibility,
    /// ARX's AECS: records over classes, the suppressed ones one class.
    Aecs,
    /// ARX's non-uniform entropy, suppressed records counted.
    Entropy,
    /// ARX's ambiguity.
    Ambiguity,
    /// ARX's KL divergence.
    KlDivergence,
}

impl std::str::FromStr for Objective {
    type Err = AnonError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "loss" => Ok(Objective::Loss),
            "height" => Ok(Objective::Height),
            "precision" => Ok(Objective::Precision),
            "discernibility" => Ok(Objective::Discernibility),
            "aecs" => Ok(Objective::Aecs),
            "entropy" => Ok(Objective::Entropy),
            "ambiguity" => Ok(Objective::Ambiguity),
            "kl_divergence" => Ok(Objective::KlDivergence),
            _ => Err(AnonError::Config(format!(
                "unknown metric {s:?}; expected one of \"loss\", \"height\", \"precision\", \
                 \"discernibility\", \"aecs\", \"entropy\", \"ambiguity\", \"kl_divergence\""
            ))),
        }
    }
}

impl Objective {
    pub fn name(self) -> &'static str {
        match self {
            Objective::Loss => "loss",
            Objective::Height => "height",
            Objective::Precision => "precision",
            Objective::Discernibility => "discernibility",
            Objective::Aecs => "aecs",
            Objective::Entropy => "entropy",
            Objective::Ambiguity => "ambiguity",
            Objective::KlDivergence => "kl_divergence",
        }
    }

    /// The figures an evaluation must work out for this objective's value
    /// (`Bounds::value` reads them; the others come with every evaluation).
    pub fn figures(self) -> crate::check::Figures {
        crate::check::Figures {
            entropy: self == Objective::Entropy,
            ambiguity: self == Objective::Ambiguity,
            kl_divergence: self == Objective::KlDivergence,
        }
    }

    /// `Bounds::lower` is the value itself for a node that suppresses no
    /// record: the loss, Prec and the entropy count each attribute's cost
    /// over every record, which is exactly the bound with nothing suppressed.
    pub fn exact_unsuppressed(self) -> bool {
        matches!(
            self,
            Objective::Loss | Objective::Precision | Objective::Entropy | Objective::Height
        )
    }

    /// Monotone under generalization with this much suppression allowed: a
    /// generalization of an anonymous node can then never do better.
    pub fn monotone(self, max_suppression: u64) -> bool {
        match self {
            Objective::Height => true,
            Objective::KlDivergence => false,
            _ => max_suppression == 0,
        }
    }
}

/// ARX's AECS of a node: its records over its classes, the suppressed
/// records one class (0 for an empty table).
pub fn aecs(m: &crate::metrics::Metrics, rows: f64) -> f64 {
    let classes = m.groups as f64 + if m.suppressed > 0 { 1.0 } else { 0.0 };
    if classes == 0.0 {
        0.0
    } else {
        rows / classes
    }
}

/// The objective's lower bounds, from the problem's hierarchies and F0.
#[derive(Clone, Debug)]
pub struct Bounds {
    objective: Objective,
    heights: Vec<u8>,
    /// `cost[a][g]`: attribute a's mean loss per record at level g with
    /// every record released (the loss), or its non-uniform entropy with
    /// nothing suppressed (the entropy).
    cost: Vec<Vec<f64>>,
    /// `most[a][g]`: the loss's largest cost of one released record in
    /// attribute a at level g (what a suppressed record, costing 1, saves
    /// at most: `lower_suppressing`).
    most: Vec<Vec<f64>>,
    /// The loss's or the entropy's attribute weights (`None`: each 1).
    weights: Option<Vec<f64>>,
    /// `domain[a][g]`: attribute a's distinct values at level g.
    domain: Vec<Vec<f64>>,
    rows: f64,
}

impl Bounds {
    pub fn new(problem: &Problem, objective: Objective) -> Result<Self> {
        let heights = problem.heights();
        let mut cost = Vec::with_capacity(heights.len());
        let mut most = Vec::new();
        if objective == Objective::Loss {
            let rows = problem.rows.max(1) as f64;
            for (a, h) in problem.hierarchies.iter().enumerate() {
                let held = held_leaves(problem, a)?;
                let leaves = h.domain_size(0);
                let mut by_level = Vec::with_capacity(h.height() as usize + 1);
                let mut most_by_level = Vec::with_capacity(h.height() as usize + 1);
                for g in 0..=h.height() {
                    let under = h.leaves_under(g);
                    let map = h.leaf_map(g);
                    let extra: u128 = held
                        .iter()
                        .map(|&(leaf, n)| n as u128 * (under[map[leaf] as usize] as u128 - 1))
                        .sum();
                    by_level.push(loss::attribute_loss(&[extra], &[leaves], 0, rows as u64)[0]);
                    // a released record costs (leaves under its value - 1)
                    // / (leaves - 1); nothing with one leaf
                    let widest = held
                        .iter()
                        .map(|&(leaf, _)| under[map[leaf] as usize])
                        .max();
                    most_by_level.push(match (widest, leaves) {
                        (Some(w), l) if l > 1 => (w as f64 - 1.0) / (l - 1) as f64,
                        _ => 0.0,
                    });
                }
                cost.push(by_level);
                most.push(most_by_level);
            }
        }
        if objective == Objective::Entropy {
            for a in 0..heights.len() {
                cost.push(generalization_entropy(problem, a)?);
            }
        }
        if objective == Objective::Ambiguity {
            for a in 0..heights.len() {
                cost.push(mean_log_leaves(problem, a)?);
            }
        }
        let domain = problem
            .hierarchies
            .iter()
            .map(|h| (0..=h.height()).map(|g| h.domain_size(g) as f64).collect())
            .collect();
        Ok(Bounds {
            objective,
            heights,
            cost,
            most,
            weights: None,
            domain,
            rows: problem.rows as f64,
        })
    }

    pub fn objective(&self) -> Objective {
        self.objective
    }

    /// The bounds of the loss or the entropy weighted by `weights` (one per
    /// attribute); the other objectives take no weights.
    pub fn weighted(mut self, weights: Vec<f64>) -> Self {
        if matches!(self.objective, Objective::Loss | Objective::Entropy) {
            self.weights = Some(weights);
        }
        self
    }

    /// A value no generalization of `node` (nor `node` itself) goes below.
    pub fn lower(&self, node: &[u8]) -> f64 {
        match self.objective {
            Objective::Height => node.iter().map(|&l| l as f64).sum(),
            Objective::Precision => {
                let n = node.len().max(1) as f64;
                node.iter()
                    .zip(&self.heights)
                    .map(|(&l, &h)| if h == 0 { 0.0 } else { l as f64 / h as f64 })
                    .sum::<f64>()
                    / n
            }
            Objective::Loss => {
                let per: Vec<f64> = node
                    .iter()
                    .enumerate()
                    .map(|(a, &l)| self.cost[a][l as usize])
                    .collect();
                loss::loss(&per, self.weights.as_deref())
            }
            Objective::Entropy => self.entropy(node, None),
            Objective::Ambiguity => {
                let mean_log: f64 = node
                    .iter()
                    .enumerate()
                    .map(|(a, &l)| self.cost[a][l as usize])
                    .sum();
                // a hair below, for the rounding of the sums it bounds
                self.rows * mean_log.exp() * (1.0 - 1e-12)
            }
            Objective::KlDivergence => 0.0,
            Objective::Discernibility | Objective::Aecs => {
                if self.rows == 0.0 {
                    return 0.0;
                }
                let cells = node
                    .iter()
                    .enumerate()
                    .map(|(a, &l)| self.domain[a][l as usize])
                    .product::<f64>();
                let classes = cells.min(self.rows).max(1.0);
                if self.objective == Objective::Aecs {
                    self.rows / classes
                } else {
                    self.rows * self.rows / classes
                }
            }
        }
    }

    /// A value no node between `lo` and `hi` (levels at least `lo`'s and at
    /// most `hi`'s) goes below when `hi` suppresses `suppressed` records:
    /// `lower(lo)`, and for the loss more. A node below `hi` suppresses at
    /// least as many records (its groups only split), and each suppressed
    /// record costs 1 in every attribute where released it would cost at
    /// most `most` at `hi`'s level: each attribute's mean cost rises by at
    /// least suppressed x (1 - most) / rows over its cost at `lo` with
    /// everything released. (A hair less, so that float rounding never puts
    /// the bound above a node's value computed from its groups.)
    pub fn lower_suppressing(&self, lo: &[u8], hi: &[u8], suppressed: u64) -> f64 {
        if self.objective != Objective::Loss || suppressed == 0 || self.rows == 0.0 {
            return self.lower(lo);
        }
        let share = suppressed as f64 / self.rows * (1.0 - 1e-9);
        let per: Vec<f64> = (0..lo.len())
            .map(|a| {
                let most = self.most[a][hi[a] as usize];
                self.cost[a][lo[a] as usize] + share * (1.0 - most).max(0.0)
            })
            .collect();
        loss::loss(&per, self.weights.as_deref())
    }

    /// `lower` of `node` with each attribute raised one level in turn (None
    /// for one at its top). The loss's and the entropy's bounds are sums
    /// over the attributes, so each raise changes one term: one pass in
    /// all, where `lower` of each is a pass of its own (a greedy chain on
    /// hundreds of attributes took the attributes squared a step).
    pub fn raised(&self, node: &[u8]) -> Vec<Option<f64>> {
        let open = |a: usize| node[a] < self.heights[a];
        let weight = |a: usize| self.weights.as_ref().map_or(1.0, |w| w[a]);
        let total: f64 = (0..node.len()).map(weight).sum();
        match self.objective {
            Objective::Loss => {
                let term = |a: usize, l: u8| loss::log_term(self.cost[a][l as usize], weight(a));
                let sum: f64 = (0..node.len()).map(|a| term(a, node[a])).sum();
                (0..node.len())
                    .map(|a| {
                        open(a).then(|| {
                            let s = sum - term(a, node[a]) + term(a, node[a] + 1);
                            loss::from_log_sum(s, total)
                        })
                    })
                    .collect()
            }
            Objective::Entropy => {
                let term = |a: usize, l: u8| self.entropy_term(a, l, 0.0);
                let sum: f64 = (0..node.len()).map(|a| term(a, node[a])).sum();
                (0..node.len())
                    .map(|a| open(a).then(|| sum - term(a, node[a]) + term(a, node[a] + 1)))
                    .collect()
            }
            _ => (0..node.len())
                .map(|a| {
                    open(a).then(|| {
                        let mut up = node.to_vec();
                        up[a] += 1;
                        self.lower(&up)
                    })
                })
                .collect(),
        }
    }

    /// The objective of an evaluated node (`e`: its attributes' mean costs,
    /// which the weighted loss combines, and what suppression adds to the
    /// entropy).
    pub fn value(&self, node: &[u8], m: &crate::metrics::Metrics, e: &Evaluated) -> f64 {
        match self.objective {
            Objective::Loss => match &self.weights {
                None => m.loss,
                Some(w) => loss::loss(&e.attribute_loss, Some(w)),
            },
            Objective::Height => node.iter().map(|&l| l as f64).sum(),
            Objective::Precision => 1.0 - m.precision,
            Objective::Discernibility => m.discernibility,
            Objective::Aecs => aecs(m, self.rows),
            Objective::Entropy => match &e.suppressed_entropy {
                Some(s) => self.entropy(node, Some(s)),
                None => f64::NAN,
            },
            Objective::Ambiguity => e.ambiguity.unwrap_or(f64::NAN),
            Objective::KlDivergence => e.kl_divergence.unwrap_or(f64::NAN),
        }
    }

    /// The weighted sum over the attributes of their entropy at `node`'s
    /// levels, plus what suppression adds to each (`suppressed`), each
    /// rounded down to 1e-10 as ARX rounds it.
    fn entropy(&self, node: &[u8], suppressed: Option<&[f64]>) -> f64 {
        node.iter()
            .enumerate()
            .map(|(a, &l)| {
                let plus = suppressed.and_then(|s| s.get(a)).copied().unwrap_or(0.0);
                self.entropy_term(a, l, plus)
            })
            .sum()
    }

    /// Attribute `a`'s weighted entropy at level `l`, plus what suppression
    /// adds, rounded down to 1e-10 first.
    fn entropy_term(&self, a: usize, l: u8, plus: f64) -> f64 {
        let value = ((self.cost[a][l as usize] + plus) * 1e10).floor() / 1e10;
        value * self.weights.as_ref().map_or(1.0, |w| w[a])
    }
}

/// Attribute `a`'s leaves that records hold, with their records (a ZIP
/// hierarchy has 100,000 leaves; a table holds a fraction).
fn held_leaves(problem: &Problem, a: usize) -> Result<Vec<(usize, u64)>> {
    let per_leaf = problem.leaf_counts(a)?;
    Ok(per_leaf
        .into_iter()
        .enumerate()
        .filter(|&(_, n)| n > 0)
        .collect())
}

/// Attribute `a`'s mean over records of ln(leaves under the record's value)
/// at each level (0 for an empty table).
fn mean_log_leaves(problem: &Problem, a: usize) -> Result<Vec<f64>> {
    let h = &problem.hierarchies[a];
    let held = held_leaves(problem, a)?;
    let rows = problem.rows.max(1) as f64;
    Ok((0..=h.height())
        .map(|g| {
            let (map, under) = (h.leaf_map(g), h.leaves_under(g));
            held.iter()
                .map(|&(leaf, n)| n as f64 * f64::from(under[map[leaf] as usize]).ln())
                .sum::<f64>()
                / rows
        })
        .collect())
}

/// Attribute `a`'s non-uniform entropy at each level with nothing
/// suppressed: -sum over its leaves v of n_v log2(n_v / n_g), n_v the
/// records holding v and n_g those whose value generalizes to v's at that
/// level.
fn generalization_entropy(problem: &Problem, a: usize) -> Result<Vec<f64>> {
    let h = &problem.hierarchies[a];
    let held = held_leaves(problem, a)?;
    Ok((0..=h.height())
        .map(|g| {
            let map = h.leaf_map(g);
            let mut per_value = vec![0u64; h.domain_size(g)];
            for &(leaf, n) in &held {
                per_value[map[leaf] as usize] += n;
            }
            held.iter()
                .map(|&(leaf, n)| {
                    -(n as f64) * (n as f64 / per_value[map[leaf] as usize] as f64).log2()
                })
                .sum()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{chain_in_turn, Fixture};

    /// `lower_suppressing` of every range below a node, with what that node
    /// suppresses, is at most the loss of every node of the range, weighted
    /// or not, over Adult's 5-QI lattice at k = 2, 5 and 50.
    #[test]
    fn the_bound_counting_suppressed_records_holds_below_every_node() {
        use crate::check::{Checker, Model};
        use crate::freq::Engine;
        use crate::lattice::{generalizes, Lattice};
        let f = Fixture::adult();
        let qis = ["sex", "age", "race", "marital-status", "education"];
        let p = f.problem(&qis);
        let nodes: Vec<_> = Lattice::new(p.heights()).all().collect();
        for k in [2, 5, 50] {
            let checker = Checker::new(&p, Model::k(k), Engine::Auto).unwrap();
            let evaluated: Vec<_> = nodes.iter().map(|n| checker.evaluate(n).unwrap()).collect();
            for weights in [None, Some(vec![3.0, 1.0, 0.5, 1.0, 2.0])] {
                let mut bounds = Bounds::new(&p, Objective::Loss).unwrap();
                if let Some(w) = weights.clone() {
                    bounds = bounds.weighted(w);
                }
                let value = |i: usize| loss::loss(&evaluated[i].attribute_loss, weights.as_deref());
                let mut tighter = 0;
                for (top, hi) in nodes.iter().enumerate() {
                    let s = evaluated[top].stats.suppressed;
                    for (i, n) in nodes.iter().enumerate() {
                        if !generalizes(hi, n) {
                            continue;
                        }
                        let b = bounds.lower_suppressing(n, hi, s);
                        assert!(
                            b <= value(i) + 1e-12,
                            "k={k} {n:?} under {hi:?}: {b} > {}",
                            value(i)
                        );
                        tighter += usize::from(b > bounds.lower(n) + 1e-9);
                    }
                }
                assert!(tighter > 0, "the bound never rose above lower at k = {k}");
            }
        }
    }

    /// `raised` is `lower` of each raise, for every objective, weighted or
    /// not, along a chain up Adult's lattice.
    #[test]
    fn raised_is_the_bound_of_each_raise() {
        let f = Fixture::adult();
        let qis = ["sex", "age", "race", "marital-status", "education"];
        let p = f.problem(&qis);
        let heights = p.heights();
        for objective in [
            Objective::Loss,
            Objective::Entropy,
            Objective::Ambiguity,
            Objective::Precision,
            Objective::Discernibility,
            Objective::Height,
        ] {
            for weights in [None, Some(vec![3.0, 1.0, 0.5, 1.0, 2.0])] {
                let mut bounds = Bounds::new(&p, objective).unwrap();
                if let Some(w) = weights {
                    bounds = bounds.weighted(w);
                }
                for node in chain_in_turn(&heights) {
                    let raised = bounds.raised(&node);
                    for (a, got) in raised.iter().enumerate() {
                        let want = (node[a] < heights[a]).then(|| {
                            let mut up = node.clone();
                            up[a] += 1;
                            bounds.lower(&up)
                        });
                        match (got, want) {
                            (Some(g), Some(w)) => {
                                assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{objective:?}")
                            }
                            (g, w) => assert_eq!(g.is_some(), w.is_some()),
                        }
                    }
                }
            }
        }
    }
}
