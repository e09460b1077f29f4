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
//! (suppression can fall as nodes rise).
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
            _ => Err(AnonError::Config(format!(
                "unknown metric {s:?}; expected one of \"loss\", \"height\", \"precision\", \
                 \"discernibility\", \"aecs\""
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
        }
    }

    /// Monotone under generalization with this much suppression allowed: a
    /// generalization of an anonymous node can then never do better.
    pub fn monotone(self, max_suppression: u64) -> bool {
        self == Objective::Height || max_suppression == 0
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
    /// every record released.
    cost: Vec<Vec<f64>>,
    /// The loss's attribute weights (`None`: each 1).
    weights: Option<Vec<f64>>,
    /// `domain[a][g]`: attribute a's distinct values at level g.
    domain: Vec<Vec<f64>>,
    rows: f64,
}

impl Bounds {
    pub fn new(problem: &Problem, objective: Objective) -> Result<Self> {
        let heights = problem.heights();
        let mut cost = Vec::with_capacity(heights.len());
        if objective == Objective::Loss {
            let counts = problem.base.counts()?;
            let rows = problem.rows.max(1) as f64;
            for (a, h) in problem.hierarchies.iter().enumerate() {
                // records per leaf
                let mut per_leaf = vec![0u64; h.domain_size(0)];
                for (&code, &c) in problem.base.codes(a)?.iter().zip(counts.iter()) {
                    per_leaf[code as usize] += c;
                }
                let leaves = h.domain_size(0);
                let mut by_level = Vec::with_capacity(h.height() as usize + 1);
                for g in 0..=h.height() {
                    let under = h.leaves_under(g);
                    let map = h.leaf_map(g);
                    let extra: u128 = per_leaf
                        .iter()
                        .zip(map)
                        .map(|(&n, &code)| n as u128 * (under[code as usize] as u128 - 1))
                        .sum();
                    by_level.push(loss::attribute_loss(&[extra], &[leaves], 0, rows as u64)[0]);
                }
                cost.push(by_level);
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
            weights: None,
            domain,
            rows: problem.rows as f64,
        })
    }

    /// The bounds of the loss weighted by `weights` (one per attribute); the
    /// other objectives take no weights.
    pub fn weighted(mut self, weights: Vec<f64>) -> Self {
        if self.objective == Objective::Loss {
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

    /// The objective of an evaluated node (`attribute_loss`: its
    /// attributes' mean costs, which the weighted loss combines).
    pub fn value(&self, node: &[u8], m: &crate::metrics::Metrics, attribute_loss: &[f64]) -> f64 {
        match self.objective {
            Objective::Loss => match &self.weights {
                None => m.loss,
                Some(w) => loss::loss(attribute_loss, Some(w)),
            },
            Objective::Height => node.iter().map(|&l| l as f64).sum(),
            Objective::Precision => 1.0 - m.precision,
            Objective::Discernibility => m.discernibility,
            Objective::Aecs => aecs(m, self.rows),
        }
    }
}
