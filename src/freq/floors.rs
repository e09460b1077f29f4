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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Floors {
    /// Each attribute's floor level.
    pub levels: Vec<u8>,
    /// The k the floors were found for.
    pub k: u64,
    /// The tuples that may be suppressed under which they were found.
    pub max_suppressed: u64,
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
