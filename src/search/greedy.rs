//! Datafly's path on groups of its own, for the model of k alone: the
//! node's classes as (a row of F0 standing for the class, its size), each
//! with two 64-bit hashes of its codes, the sum over the attributes of a
//! mixed (attribute, code). Raising one attribute changes one term of each
//! class's sums (looked up by the row's leaf: one read a class), and classes
//! whose sums now agree merge: a step costs the classes, not the classes
//! times the attributes, so the path is linear in the attributes where
//! rolling every column up at each step made it quadratic.
//!
//! Equal classes always hash equal, so a merge is never missed: a node that
//! fails here fails. Two different classes could only merge if both 64-bit
//! sums collided, which would make a node look anonymous; the caller checks
//! the node the path ends at exactly (`Searcher::datafly`).

use std::borrow::Cow;

use crate::error::Result;
use crate::freq::{code_col, values, Problem, SetData};

/// Seeds of the two hashes.
const SEEDS: [u64; 2] = [0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344];

/// SplitMix64's finalizer: a bijection of 64 bits whose every output bit
/// depends on every input bit.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The term of attribute `a` at code `code` in hash `h`.
fn term(h: usize, a: usize, code: u32) -> u64 {
    splitmix(SEEDS[h] ^ ((a as u64) << 32 | code as u64))
}

/// The classes of one node, rolled up one attribute at a time.
pub(super) struct Groups<'p> {
    problem: &'p Problem,
    /// F0's leaf codes, a column per attribute.
    leaves: Vec<Cow<'p, [u32]>>,
    levels: Vec<u8>,
    /// Per class: a row of F0 in it, its size and its two hashes.
    row: Vec<u32>,
    size: Vec<u64>,
    hash: [Vec<u64>; 2],
    /// Each attribute's distinct values among the classes.
    distinct: Vec<usize>,
}

impl<'p> Groups<'p> {
    /// Whether the path can run here: F0 at the leaves of every attribute
    /// (no floors), rows few enough to be named by u32.
    pub fn applies(problem: &Problem) -> bool {
        let n = problem.n_attrs();
        problem.floors.is_none()
            && problem.base.attrs == (0..n).collect::<Vec<_>>()
            && problem.base.levels.iter().all(|&l| l == 0)
            && problem.base.rows() < u32::MAX as usize
    }

    /// The classes of the bottom node.
    pub fn new(problem: &'p Problem) -> Result<Self> {
        let base = &problem.base;
        let n = problem.n_attrs();
        let leaves: Vec<Cow<'p, [u32]>> = match &base.data {
            SetData::Frame(df) => (0..n)
                .map(|a| Ok(values(df.column(&code_col(a))?.u32()?)))
                .collect::<Result<_>>()?,
            SetData::Packed { .. } => (0..n)
                .map(|a| Ok(Cow::Owned(base.codes(a)?)))
                .collect::<Result<_>>()?,
        };
        let rows = base.rows();
        let mut hash = [vec![0u64; rows], vec![0u64; rows]];
        let mut distinct = Vec::with_capacity(n);
        for (a, col) in leaves.iter().enumerate() {
            let domain = problem.hierarchies[a].domain_size(0);
            for (h, sums) in hash.iter_mut().enumerate() {
                let terms: Vec<u64> = (0..domain as u32).map(|c| term(h, a, c)).collect();
                for (s, &leaf) in sums.iter_mut().zip(col.iter()) {
                    *s = s.wrapping_add(terms[leaf as usize]);
                }
            }
            distinct.push(count_distinct(domain, col.iter().copied()));
        }
        let mut groups = Groups {
            problem,
            leaves,
            levels: vec![0; n],
            row: (0..rows as u32).collect(),
            size: base.counts()?.into_owned(),
            hash,
            distinct,
        };
        // F0's rows differ in their sensitive values too: one class each
        // QI tuple
        groups.merge();
        Ok(groups)
    }

    pub fn len(&self) -> usize {
        self.row.len()
    }

    /// Tuples in classes smaller than `k`.
    pub fn suppressed(&self, k: u64) -> u64 {
        self.size.iter().filter(|&&s| s < k).sum()
    }

    /// Datafly's choice: the attribute with the most distinct values that
    /// can still go up (the lowest-numbered on a tie), if any.
    pub fn widest(&self) -> Option<usize> {
        let heights = self.problem.heights();
        let mut best: Option<(usize, usize)> = None;
        for (a, &d) in self.distinct.iter().enumerate() {
            if self.levels[a] < heights[a] && best.is_none_or(|(_, b)| d > b) {
                best = Some((a, d));
            }
        }
        best.map(|(a, _)| a)
    }

    /// The classes with attribute `a` one level up.
    pub fn raise(&mut self, a: usize) {
        let h = &self.problem.hierarchies[a];
        let (from, to) = (h.leaf_map(self.levels[a]), h.leaf_map(self.levels[a] + 1));
        let col = &self.leaves[a];
        for (k, sums) in self.hash.iter_mut().enumerate() {
            // what each leaf's class changes by: its term at the new level
            // less its term at the old
            let delta: Vec<u64> = from
                .iter()
                .zip(to)
                .map(|(&f, &t)| term(k, a, t).wrapping_sub(term(k, a, f)))
                .collect();
            for (s, &r) in sums.iter_mut().zip(&self.row) {
                *s = s.wrapping_add(delta[col[r as usize] as usize]);
            }
        }
        self.levels[a] += 1;
        self.merge();
        let domain = h.domain_size(self.levels[a]);
        let col = &self.leaves[a];
        let codes = self.row.iter().map(|&r| to[col[r as usize] as usize]);
        self.distinct[a] = count_distinct(domain, codes);
    }

    /// Merge the classes whose hashes agree into the first of them, keeping
    /// the classes' order.
    fn merge(&mut self) {
        let n = self.row.len();
        let bits = (2 * n).next_power_of_two().trailing_zeros().max(4);
        let mask = (1usize << bits) - 1;
        let mut table = vec![u32::MAX; 1 << bits];
        let [h0, h1] = &mut self.hash;
        let mut kept = 0;
        for g in 0..n {
            let mut s = (h0[g] >> (64 - bits)) as usize;
            loop {
                let j = table[s] as usize;
                if j == u32::MAX as usize {
                    table[s] = kept as u32;
                    self.row[kept] = self.row[g];
                    self.size[kept] = self.size[g];
                    h0[kept] = h0[g];
                    h1[kept] = h1[g];
                    kept += 1;
                    break;
                }
                if h0[j] == h0[g] && h1[j] == h1[g] {
                    self.size[j] += self.size[g];
                    break;
                }
                s = (s + 1) & mask;
            }
        }
        self.row.truncate(kept);
        self.size.truncate(kept);
        h0.truncate(kept);
        h1.truncate(kept);
    }
}

/// Distinct values among `codes`, each below `domain`.
fn count_distinct(domain: usize, codes: impl Iterator<Item = u32>) -> usize {
    let mut seen = vec![false; domain];
    let mut n = 0;
    for c in codes {
        let s = &mut seen[c as usize];
        n += usize::from(!*s);
        *s = true;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Checker, Model};
    use crate::freq::Engine;
    use crate::testing::{chain_in_turn, Fixture};

    /// Along a path of raises on Adult, the classes are the node's set's
    /// groups: as many, the same tuples suppressed for several k, and each
    /// attribute's distinct values as in the set.
    #[test]
    fn the_classes_are_the_nodes_groups() {
        let f = Fixture::adult();
        let qis = [
            "sex",
            "age",
            "race",
            "marital-status",
            "education",
            "workclass",
        ];
        let p = f.problem(&qis);
        assert!(Groups::applies(&p));
        let mut g = Groups::new(&p).unwrap();
        let chain = chain_in_turn(&p.heights());
        for (i, node) in chain.iter().enumerate() {
            if i > 0 {
                let a = (0..node.len()).find(|&a| node[a] != chain[i - 1][a]);
                g.raise(a.expect("one attribute raised"));
            }
            let fs = p.node_set(node, Engine::Auto).unwrap();
            assert_eq!(g.len(), fs.rows(), "{node:?}");
            for k in [2, 5, 11] {
                let checker = Checker::new(&p, Model::k(k), Engine::Auto).unwrap();
                let want = checker.group_stats(&fs).unwrap().suppressed;
                assert_eq!(g.suppressed(k), want, "{node:?} k={k}");
            }
            for (a, &d) in g.distinct.iter().enumerate() {
                let mut codes = fs.codes(a).unwrap();
                codes.sort_unstable();
                codes.dedup();
                assert_eq!(d, codes.len(), "{node:?} attribute {a}");
            }
        }
        assert_eq!(g.len(), 1);
    }
}
