//! Floors: F0 grouped at each attribute's lowest useful level instead of its
//! leaves, to keep it small where the table lives elsewhere (Spark, DuckDB).
//!
//! Rule: an attribute `a` at level `g` leaves at least as many tuples in
//! groups smaller than k in any node as it does alone (a node's group is a
//! subset of its one-attribute group), so where `a` alone at `g` leaves more
//! than the suppression budget, no node with `a` at `g` is k-anonymous. The
//! lowest level where it does not is its floor. F0 whose rows stand for
//! their floor-level values (each by one leaf under it) rolls up to exactly
//! the true set of every node at or above the floors; a node below is known
//! to fail, and is answered so without reading it. The proof holds for the
//! model the floors were found for and any stricter one (a larger k, a
//! smaller budget, more criteria); a search under a weaker one is refused,
//! and so is any question about a node below the floors.

use crate::error::{counted, AnonError, Result};
use crate::freq::Problem;

/// Each attribute's floor for a search of `k` with at most `max_suppressed`
/// tuples suppressed (the rule above), from its records per leaf: the lowest
/// level at which its values held by fewer than k records hold at most
/// `max_suppressed` in all; never below F0's own floors. The top level (one
/// value, every record) always qualifies once k is at most the rows.
pub fn lowest(problem: &Problem, k: u64, max_suppressed: u64) -> Result<Vec<u8>> {
    let own = problem.floors.as_ref().map(|f| f.levels.as_slice());
    (0..problem.n_attrs())
        .map(|a| {
            let h = &problem.hierarchies[a];
            let held: Vec<(usize, u64)> = (problem.leaf_counts(a)?.into_iter().enumerate())
                .filter(|&(_, n)| n > 0)
                .collect();
            let from = own.and_then(|f| f.get(a)).copied().unwrap_or(0);
            let fits = |g: u8| {
                let map = h.leaf_map(g);
                let mut per_value = vec![0u64; h.domain_size(g)];
                for &(leaf, n) in &held {
                    per_value[map[leaf] as usize] += n;
                }
                let small: u64 = per_value.iter().filter(|&&n| n < k).sum();
                small <= max_suppressed
            };
            Ok((from..h.height()).find(|&g| fits(g)).unwrap_or(h.height()))
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Floors {
    /// Each attribute's floor level.
    pub levels: Vec<u8>,
    /// The k the floors were found for.
    pub k: u64,
    /// The tuples that may be suppressed under which they were found.
    pub max_suppressed: u64,
}

/// Is a full-lattice node below `floors` (some attribute under its floor,
/// so it fails)?
pub fn under(node: &[u8], floors: &[u8]) -> bool {
    node.iter().zip(floors).any(|(l, f)| l < f)
}

impl Floors {
    /// Is a node over `attrs` at `levels` below the floors (so it fails)?
    pub fn below(&self, attrs: &[usize], levels: &[u8]) -> bool {
        attrs
            .iter()
            .zip(levels)
            .any(|(&a, &l)| a < self.levels.len() && l < self.levels[a])
    }

    /// Refuse a search under a model the floors do not hold for.
    pub fn allow(&self, k: u64, max_suppressed: u64) -> Result<()> {
        if k < self.k || max_suppressed > self.max_suppressed {
            return Err(AnonError::Config(format!(
                "this frequency set was grouped at the floor levels {:?}, found for k = {} \
                 with at most {} suppressed; it cannot answer a search with k = {k} \
                 and {} suppressed (prepare the data again for it)",
                self.levels,
                self.k,
                counted(self.max_suppressed, "tuple"),
                counted(max_suppressed, "tuple"),
            )));
        }
        Ok(())
    }

    /// Refuse a question about a full-lattice node below the floors: its
    /// groups are not in this frequency set, and it is not k-anonymous.
    pub fn check_levels(&self, names: &[String], levels: &[u8]) -> Result<()> {
        for (a, (&l, &f)) in levels.iter().zip(&self.levels).enumerate() {
            if l < f {
                return Err(AnonError::NotAnonymous(format!(
                    "level {l} of '{}' is below level {f}, the lowest at which '{}' alone \
                     leaves at most {} in groups smaller than k = {}: no node with it \
                     there is {}-anonymous, and this table's frequency set was grouped at \
                     those levels to keep it small",
                    names[a],
                    names[a],
                    counted(self.max_suppressed, "tuple"),
                    self.k,
                    self.k
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::Hierarchy;

    #[test]
    fn each_floor_is_the_lowest_level_whose_rare_values_fit_the_budget() {
        // a: leaves 0..4 held by 5, 1, 1 and 3 records; 0 and 1 under p0
        // (6 records), 2 and 3 under p1 (4); b: every leaf held by 5
        let a = Hierarchy::from_rows(
            (0..4)
                .map(|v| vec![format!("{v}"), format!("p{}", v / 2), "*".into()])
                .collect(),
            "a",
        )
        .unwrap();
        let b = Hierarchy::from_rows(
            (0..2).map(|v| vec![format!("{v}"), "*".into()]).collect(),
            "b",
        )
        .unwrap();
        let leaves = [0u32, 1, 2, 3];
        let counts = [5u64, 1, 1, 3];
        let col_a: Vec<u32> = leaves.to_vec();
        let col_b: Vec<u32> = vec![0, 1, 0, 1];
        let p = Problem::from_codes(
            vec!["a".into(), "b".into()],
            vec![a, b],
            vec![col_a, col_b],
            counts.to_vec(),
        )
        .unwrap();
        // k = 2: leaves 1 and 2 (2 records) are rare at the leaves, none
        // under p0 and p1; b's leaves hold 6 and 4
        assert_eq!(lowest(&p, 2, 0).unwrap(), vec![1, 0]);
        assert_eq!(lowest(&p, 2, 2).unwrap(), vec![0, 0]);
        // k = 5: at the leaves 1 + 1 + 3 rare, p1's 4 above; b's 4 too
        assert_eq!(lowest(&p, 5, 0).unwrap(), vec![2, 1]);
        assert_eq!(lowest(&p, 5, 4).unwrap(), vec![1, 0]);
        assert_eq!(lowest(&p, 5, 5).unwrap(), vec![0, 0]);
        // never below F0's own floors
        let mut q = p.clone();
        q.set_floors(Floors {
            levels: vec![0, 1],
            k: 2,
            max_suppressed: 0,
        })
        .unwrap();
        assert_eq!(lowest(&q, 2, 2).unwrap(), vec![0, 1]);
    }
}
