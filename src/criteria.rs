//! Privacy models on sensitive attributes, checked per QI-group on top of k.
//!
//! Each criterion sees, for one group, the histogram of one sensitive attribute
//! (value code -> tuples). A group smaller than k, or failing any criterion, is
//! suppressed; a node is anonymous when the suppressed tuples are within the limit.
//!
//! Monotonicity (what lets Incognito prune and mark): merging groups never breaks
//! any of these criteria when nothing is suppressed (LeFevre et al.'s
//! generalization property; Machanavajjhala et al. for entropy and recursive
//! l-diversity; Li et al. for t-closeness with EMD). With suppression, the
//! "at least p distinct" family (p-sensitive, p+-sensitive, (p, alpha)-sensitive,
//! distinct l-diversity) stays monotone: a merged group passes as soon as one of
//! its parts passed. Entropy and recursive l-diversity and t-closeness do not:
//! a failing part can drag a passing one below the bar, so with suppression only
//! an exhaustive search is exact for them.

use crate::error::{AnonError, Result};

/// Ground distance of t-closeness's Earth Mover's Distance.
#[derive(Clone, Debug, PartialEq)]
pub enum Distance {
    /// Every two values at distance 1 (EMD = total variation).
    Equal,
    /// Values ranked by `rank[code]`; distance |i - j| / (m - 1).
    Ordered { rank: Vec<u32> },
    /// Values are leaves of a hierarchy: `parents[l][c]` maps a level-l code one
    /// level up; `leaf_of[code]` is the value's leaf code. Li et al.'s formula.
    Hierarchical {
        leaf_of: Vec<u32>,
        parents: Vec<Vec<u32>>,
        height: u32,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Criterion {
    PSensitive {
        p: usize,
        attr: usize,
    },
    PPlusSensitive {
        p: usize,
        attr: usize,
        category: Vec<u32>,
    },
    PAlphaSensitive {
        p: usize,
        alpha: f64,
        attr: usize,
        category: Vec<u32>,
        categories: usize,
    },
    DistinctL {
        l: usize,
        attr: usize,
    },
    EntropyL {
        l: f64,
        attr: usize,
    },
    RecursiveCL {
        c: f64,
        l: usize,
        attr: usize,
    },
    TCloseness {
        t: f64,
        attr: usize,
        distance: Distance,
    },
}

impl Criterion {
    pub fn attr(&self) -> usize {
        match self {
            Criterion::PSensitive { attr, .. }
            | Criterion::PPlusSensitive { attr, .. }
            | Criterion::PAlphaSensitive { attr, .. }
            | Criterion::DistinctL { attr, .. }
            | Criterion::EntropyL { attr, .. }
            | Criterion::RecursiveCL { attr, .. }
            | Criterion::TCloseness { attr, .. } => *attr,
        }
    }

    /// Monotone under generalization when nothing is suppressed: all of them.
    pub fn monotone(&self) -> bool {
        true
    }

    /// Monotone when groups that fail are suppressed (see the module docs).
    pub fn monotone_with_suppression(&self) -> bool {
        matches!(
            self,
            Criterion::PSensitive { .. }
                | Criterion::PPlusSensitive { .. }
                | Criterion::PAlphaSensitive { .. }
                | Criterion::DistinctL { .. }
        )
    }

    pub fn name(&self) -> &'static str {
        match self {
            Criterion::PSensitive { .. } => "PSensitive",
            Criterion::PPlusSensitive { .. } => "PPlusSensitive",
            Criterion::PAlphaSensitive { .. } => "PAlphaSensitive",
            Criterion::DistinctL { .. } => "DistinctLDiversity",
            Criterion::EntropyL { .. } => "EntropyLDiversity",
            Criterion::RecursiveCL { .. } => "RecursiveCLDiversity",
            Criterion::TCloseness { .. } => "TCloseness",
        }
    }

    /// Does a group with this histogram (value code -> tuples, non-zero entries)
    /// pass? `global` is the table's distribution of the attribute (t-closeness).
    pub fn holds(&self, hist: &[(u32, u64)], global: &[f64]) -> bool {
        let total: u64 = hist.iter().map(|&(_, c)| c).sum();
        match self {
            Criterion::PSensitive { p, .. } | Criterion::DistinctL { l: p, .. } => hist.len() >= *p,
            Criterion::PPlusSensitive { p, category, .. } => {
                let mut cats: Vec<u32> = hist.iter().map(|&(v, _)| category[v as usize]).collect();
                cats.sort_unstable();
                cats.dedup();
                cats.len() >= *p
            }
            Criterion::PAlphaSensitive {
                p,
                alpha,
                category,
                categories,
                ..
            } => {
                let m = *categories;
                let weight = |cat: u32| -> f64 {
                    let i = cat as usize + 1; // categories numbered from 1, most sensitive first
                    if i >= m {
                        1.0
                    } else {
                        (i - 1) as f64 / (m - 1) as f64
                    }
                };
                let total_weight: f64 = hist
                    .iter()
                    .map(|&(v, c)| weight(category[v as usize]) * c as f64)
                    .sum();
                hist.len() >= *p && total_weight >= *alpha - 1e-9
            }
            Criterion::EntropyL { l, .. } => {
                let n = total as f64;
                let entropy: f64 = hist
                    .iter()
                    .map(|&(_, c)| {
                        let q = c as f64 / n;
                        -q * q.ln()
                    })
                    .sum();
                entropy >= l.ln() - 1e-12
            }
            Criterion::RecursiveCL { c, l, .. } => {
                let mut counts: Vec<u64> = hist.iter().map(|&(_, n)| n).collect();
                counts.sort_unstable_by(|a, b| b.cmp(a));
                if counts.len() < *l {
                    return false;
                }
                let tail: u64 = counts[l - 1..].iter().sum();
                (counts[0] as f64) < c * tail as f64
            }
            Criterion::TCloseness { t, distance, .. } => {
                emd(hist, total, global, distance) <= *t + 1e-12
            }
        }
    }
}

/// Earth Mover's Distance between a group's distribution and the global one.
pub fn emd(hist: &[(u32, u64)], total: u64, global: &[f64], distance: &Distance) -> f64 {
    let m = global.len();
    let mut diff = global.iter().map(|&g| -g).collect::<Vec<f64>>();
    for &(v, c) in hist {
        diff[v as usize] += c as f64 / total as f64;
    }
    // diff[v] = p_v - q_v (group minus table)
    match distance {
        Distance::Equal => 0.5 * diff.iter().map(|d| d.abs()).sum::<f64>(),
        Distance::Ordered { rank } => {
            if m <= 1 {
                return 0.0;
            }
            let mut by_rank = vec![0.0; m];
            for (v, d) in diff.iter().enumerate() {
                by_rank[rank[v] as usize] += d;
            }
            let mut acc = 0.0;
            let mut sum = 0.0;
            for d in by_rank.iter().take(m - 1) {
                acc += d;
                sum += acc.abs();
            }
            sum / (m - 1) as f64
        }
        Distance::Hierarchical {
            leaf_of,
            parents,
            height,
        } => {
            if *height == 0 {
                return 0.0;
            }
            // extra(N) = sum of (p - q) over the leaves below N; the cost of an
            // inner node N at level h is h / H * min(pos_extra, neg_extra), where
            // pos/neg_extra sum the positive/negative extras of N's children.
            let mut extra: Vec<f64> = vec![0.0; parents.first().map_or(m, |p| p.len())];
            for (v, d) in diff.iter().enumerate() {
                extra[leaf_of[v] as usize] += d;
            }
            let mut cost = 0.0;
            for (level, up) in parents.iter().enumerate() {
                let size = up.iter().map(|&p| p as usize + 1).max().unwrap_or(0);
                let mut pos = vec![0.0; size];
                let mut neg = vec![0.0; size];
                let mut next = vec![0.0; size];
                for (c, &e) in extra.iter().enumerate() {
                    let p = up[c] as usize;
                    if e > 0.0 {
                        pos[p] += e;
                    } else {
                        neg[p] -= e;
                    }
                    next[p] += e;
                }
                let h = (level + 1) as f64 / *height as f64;
                cost += (0..size).map(|p| h * pos[p].min(neg[p])).sum::<f64>();
                extra = next;
            }
            cost
        }
    }
}

pub fn validate(criteria: &[Criterion], n_sensitive: usize) -> Result<()> {
    for c in criteria {
        if c.attr() >= n_sensitive {
            return Err(AnonError::Config(format!(
                "{} refers to sensitive attribute #{} but only {} are known",
                c.name(),
                c.attr(),
                n_sensitive
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emd_distances_by_hand() {
        // table: 1/3 each of three values; group: all on value 0
        let global = [1.0 / 3.0; 3];
        let hist = [(0u32, 3u64)];
        let eq = emd(&hist, 3, &global, &Distance::Equal);
        assert!((eq - 2.0 / 3.0).abs() < 1e-12);
        // ordered: cumulative diffs 2/3, 1/3 -> (2/3 + 1/3) / 2 = 1/2
        let ord = emd(
            &hist,
            3,
            &global,
            &Distance::Ordered {
                rank: vec![0, 1, 2],
            },
        );
        assert!((ord - 0.5).abs() < 1e-12);
        // hierarchy: {0, 1} under A, {2} under B, both under *; height 2
        let hier = Distance::Hierarchical {
            leaf_of: vec![0, 1, 2],
            parents: vec![vec![0, 0, 1], vec![0, 0]],
            height: 2,
        };
        // level 1 node A: extras +2/3 (v0), -1/3 (v1) -> min = 1/3, cost 1/2 * 1/3
        // root: A has +1/3, B has -1/3 -> min = 1/3, cost 1 * 1/3
        let h = emd(&hist, 3, &global, &hier);
        assert!((h - (1.0 / 6.0 + 1.0 / 3.0)).abs() < 1e-12, "{h}");
    }

    #[test]
    fn recursive_and_entropy() {
        let hist = [(0u32, 5u64), (1, 3), (2, 2)];
        // (c, l) = (2, 2): r1 = 5 < 2 * (3 + 2) = 10
        assert!(Criterion::RecursiveCL {
            c: 2.0,
            l: 2,
            attr: 0
        }
        .holds(&hist, &[]));
        assert!(!Criterion::RecursiveCL {
            c: 1.0,
            l: 2,
            attr: 0
        }
        .holds(&hist, &[]));
        assert!(Criterion::EntropyL { l: 2.0, attr: 0 }.holds(&hist, &[]));
        assert!(!Criterion::EntropyL { l: 3.0, attr: 0 }.holds(&hist, &[]));
    }
}
