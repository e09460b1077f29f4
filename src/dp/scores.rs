//! SafePub's score functions (Bild, Kuhn and Prasser 2018, as ARX 3.9
//! computes them): a node's utility on the sample, higher is better,
//! already divided by its sensitivity (the most one record changes it).
//!
//! At a node a class is kept when at least k sampled records fall in it;
//! `sup` counts the sampled records of the other classes and the
//! `unsampled` records (scored as suppressed), and n is the sample's rows
//! plus the unsampled. With d quasi-identifiers:
//!
//! - loss (granularity): -(sum over attributes of [sum over kept records of
//!   the share of the hierarchy's leaves under the record's value, plus
//!   sup]) / d / (k - 1);
//! - precision (intensity): -(sum over attributes of [kept records * level
//!   / height, plus sup]) / d / (k - 1);
//! - entropy (non-uniform): -(sum over attributes a of [n * (sup + kept
//!   records whose value at a is the hierarchy's single root) + sum over the
//!   other values v of (kept records with v at a)^2]) / (n d) / (k^2 / (k -
//!   1) + 1);
//! - discernibility: -(n sup + sum over kept classes of size^2) / n / (k^2 /
//!   (k - 1) + 1);
//! - aecs (group size): the kept classes, plus one when anything is
//!   suppressed; sensitivity 1.
//!
//! For k = 1 the sensitivities are 1 (loss, precision) and 5 (entropy,
//! discernibility). Sums are kept in integers until the last division, so a
//! score does not depend on the order of the classes.

use std::str::FromStr;

use crate::error::{AnonError, Result};
use crate::freq::{Engine, Problem};
use crate::hierarchy::Hierarchy;

/// A score function, by the names the Python side uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Loss,
    Precision,
    Entropy,
    Discernibility,
    Aecs,
}

impl FromStr for Score {
    type Err = AnonError;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "loss" => Score::Loss,
            "precision" => Score::Precision,
            "entropy" => Score::Entropy,
            "discernibility" => Score::Discernibility,
            "aecs" => Score::Aecs,
            _ => {
                return Err(AnonError::Config(format!(
                    "unknown score '{s}': one of loss, precision, entropy, discernibility, aecs"
                )))
            }
        })
    }
}

impl Score {
    /// What one record can change the raw score by (ARX's).
    pub fn sensitivity(self, k: u64) -> f64 {
        let k = k as f64;
        match self {
            Score::Loss | Score::Precision if k > 1.0 => k - 1.0,
            Score::Loss | Score::Precision => 1.0,
            Score::Entropy | Score::Discernibility if k > 1.0 => k * k / (k - 1.0) + 1.0,
            Score::Entropy | Score::Discernibility => 5.0,
            Score::Aecs => 1.0,
        }
    }
}

/// The scores of `nodes` of `problem`'s lattice (its F0 is the sample's).
pub fn score_nodes(
    problem: &Problem,
    nodes: &[Vec<u8>],
    k: u64,
    score: Score,
    unsampled: u64,
) -> Result<Vec<f64>> {
    nodes
        .iter()
        .map(|node| score_node(problem, node, k, score, unsampled))
        .collect()
}

fn score_node(problem: &Problem, node: &[u8], k: u64, score: Score, unsampled: u64) -> Result<f64> {
    let set = problem.node_set(node, Engine::Auto)?;
    let counts = set.counts()?;
    let n = problem.rows + unsampled;
    let (mut kept_records, mut kept_classes, mut squares) = (0u64, 0u64, 0u128);
    for &c in counts.iter().filter(|&&c| c >= k) {
        kept_records += c;
        kept_classes += 1;
        squares += u128::from(c) * u128::from(c);
    }
    let sup = n - kept_records;
    let sens = score.sensitivity(k);
    let d = node.len() as f64;
    Ok(match score {
        Score::Aecs => kept_classes as f64 + if sup > 0 { 1.0 } else { 0.0 },
        Score::Discernibility => {
            -((u128::from(n) * u128::from(sup) + squares) as f64) / (n as f64 * sens)
        }
        Score::Precision => {
            let mut total = 0.0;
            for (a, &level) in node.iter().enumerate() {
                let h = problem.hierarchies[a].height();
                if h > 0 {
                    total += kept_records as f64 * f64::from(level) / f64::from(h);
                }
                total += sup as f64;
            }
            -total / d / sens
        }
        Score::Loss | Score::Entropy => {
            let mut total = 0.0;
            for (a, &level) in node.iter().enumerate() {
                let codes = set.codes(set.attrs[a])?;
                let kept = codes.iter().zip(counts.iter()).filter(|(_, &c)| c >= k);
                let h = &problem.hierarchies[a];
                total += if score == Score::Loss {
                    let under = h.leaves_under(level);
                    let sum: u128 = kept
                        .map(|(&code, &c)| u128::from(c) * u128::from(under[code as usize]))
                        .sum();
                    sum as f64 / h.leaves().len() as f64 + sup as f64
                } else {
                    let mut per_value = vec![0u64; h.domain_size(level)];
                    for (&code, &c) in kept {
                        per_value[code as usize] += c;
                    }
                    let root = root_code(h, level);
                    let mut square_sum = 0u128;
                    let mut at_root = 0u64;
                    for (v, &c) in per_value.iter().enumerate() {
                        if Some(v) == root {
                            at_root += c;
                        } else {
                            square_sum += u128::from(c) * u128::from(c);
                        }
                    }
                    (u128::from(n) * u128::from(sup + at_root) + square_sum) as f64
                };
            }
            if score == Score::Loss {
                -total / d / sens
            } else {
                -total / (n as f64 * d) / sens
            }
        }
    })
}

/// The code at `level` whose label is the hierarchy's single root, if its
/// top level holds one value (ARX compares the labels: a lower level's
/// value that reads as the root counts as generalized to it).
fn root_code(h: &Hierarchy, level: u8) -> Option<usize> {
    let top = &h.levels()[h.height() as usize];
    if top.len() != 1 {
        return None;
    }
    let root = top.get(0);
    h.levels()[level as usize].iter().position(|l| l == root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensitivities_are_arxs() {
        assert_eq!(Score::Loss.sensitivity(62), 61.0);
        assert_eq!(Score::Precision.sensitivity(1), 1.0);
        assert_eq!(Score::Discernibility.sensitivity(2), 5.0);
        assert_eq!(Score::Entropy.sensitivity(1), 5.0);
        assert_eq!(Score::Aecs.sensitivity(100), 1.0);
        assert!("height".parse::<Score>().is_err());
    }
}
