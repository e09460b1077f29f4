//! t-closeness (Li et al.): the Earth Mover's Distance between each group's
//! distribution of the sensitive attribute and the table's is at most t.
//! Monotone without suppression for these ground distances; not with it.

use super::{bad_parameter, check_table, Criterion};
use crate::error::AnonError;
use crate::error::Result;

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

/// Each group within `t` of the table's distribution under `distance`.
#[derive(Clone, Debug, PartialEq)]
pub struct TCloseness {
    pub t: f64,
    pub attr: usize,
    pub distance: Distance,
}

impl TCloseness {
    pub fn new(t: f64, attr: usize, distance: Distance) -> Result<Self> {
        if !(0.0..=1.0).contains(&t) {
            return Err(bad_parameter("TCloseness", "t", t, "in [0, 1]"));
        }
        Ok(TCloseness { t, attr, distance })
    }
}

impl Criterion for TCloseness {
    fn name(&self) -> &'static str {
        "TCloseness"
    }
    fn attr(&self) -> usize {
        self.attr
    }
    fn holds(&self, hist: &[(u32, u64)], global: &[f64]) -> bool {
        let total: u64 = hist.iter().map(|&(_, c)| c).sum();
        emd(hist, total, global, &self.distance) <= self.t + 1e-12
    }
    fn check_values(&self, values: usize) -> Result<()> {
        match &self.distance {
            Distance::Equal => Ok(()),
            Distance::Ordered { rank } => {
                check_table(self.name(), "rank", rank, values, values)?;
                let mut seen = vec![false; values];
                for &r in rank {
                    if std::mem::replace(&mut seen[r as usize], true) {
                        return Err(AnonError::Config(format!(
                            "TCloseness: rank {r} is given to two values"
                        )));
                    }
                }
                Ok(())
            }
            Distance::Hierarchical {
                leaf_of,
                parents,
                height,
            } => {
                if parents.len() != *height as usize {
                    return Err(AnonError::Config(format!(
                        "TCloseness: {} parent maps for a hierarchy of height {height}",
                        parents.len()
                    )));
                }
                let leaves = parents.first().map_or(values, Vec::len);
                check_table(self.name(), "leaf_of", leaf_of, values, leaves)?;
                for (l, up) in parents.iter().enumerate() {
                    let above = parents.get(l + 1).map_or(1, Vec::len);
                    check_table(self.name(), "a parent map", up, up.len(), above)?;
                }
                Ok(())
            }
        }
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        false
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
}
