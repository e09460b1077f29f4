//! Privacy models on sensitive attributes, checked per QI-group on top of k.
//!
//! Each criterion sees, for one group, the histogram of one sensitive attribute
//! (value code -> tuples). A group smaller than k, or failing any criterion, is
//! suppressed; a node is anonymous when the suppressed tuples are within the limit.
//!
//! Monotonicity (what lets Incognito prune and mark): merging groups never breaks
//! any of these criteria when nothing is suppressed, except delta-disclosure,
//! which is monotone in neither case (ARX), so only an exhaustive search is
//! exact for it; beta-likeness is monotone without suppression only (LeFevre et al.'s
//! generalization property; Machanavajjhala et al. for entropy and recursive
//! l-diversity; Li et al. for t-closeness with EMD). With suppression, the
//! "at least p distinct" family (p-sensitive, p+-sensitive, (p, alpha)-sensitive,
//! distinct l-diversity) stays monotone: a merged group passes as soon as one of
//! its parts passed. Entropy and recursive l-diversity and t-closeness do not:
//! a failing part can drag a passing one below the bar, so with suppression only
//! an exhaustive search is exact for them.

use std::sync::Arc;

use crate::error::{AnonError, Result};

pub mod dataset;
mod l_diversity;
mod likeness;
mod p_sensitive;
pub mod population;
mod t_closeness;

pub use dataset::{
    AverageRisk, DatasetCriterion, DatasetRef, Estimator, KMap, PopulationUniqueness,
    SampleUniqueness,
};
pub use l_diversity::{DistinctL, EntropyL, RecursiveCL};
pub use likeness::{BetaLikeness, DeltaDisclosure};
pub use p_sensitive::{PAlphaSensitive, PPlusSensitive, PSensitive};
pub use population::{Population, PopulationCriterion, PopulationRef, Rule};
pub use t_closeness::{emd, Distance, TCloseness};

/// A requirement on the sensitive values of every QI group, on top of k.
pub trait Criterion: std::fmt::Debug + Send + Sync {
    /// The name users know it by (the Python class).
    fn name(&self) -> &'static str;

    /// The sensitive attribute it reads (index among the problem's sensitive
    /// attributes).
    fn attr(&self) -> usize;

    /// Does a group with this histogram (value code -> tuples, non-zero
    /// entries) pass? `global` is the table's distribution of the attribute.
    fn holds(&self, hist: &[(u32, u64)], global: &[f64]) -> bool;

    /// A group made by merging groups that pass passes too, when nothing is
    /// suppressed: what lets a search mark generalizations of an anonymous
    /// node and prune specializations of a failing one.
    fn monotone(&self) -> bool;

    /// Still monotone when the groups that fail it are suppressed (see the
    /// module docs).
    fn monotone_with_suppression(&self) -> bool;

    /// Whatever it holds per value (categories, ranks, leaves) covers the
    /// attribute's `values` distinct values.
    fn check_values(&self, _values: usize) -> Result<()> {
        Ok(())
    }
}

/// Criteria are shared by the model, the checker and the searches' threads.
pub type CriterionRef = Arc<dyn Criterion>;

/// Every criterion reads a sensitive attribute the problem has
/// (`values[j]`: the distinct values of the j-th), and covers its values.
pub fn validate(criteria: &[CriterionRef], values: &[usize]) -> Result<()> {
    for c in criteria {
        let Some(&n) = values.get(c.attr()) else {
            return Err(AnonError::Config(format!(
                "{} refers to sensitive attribute #{} but only {} are known",
                c.name(),
                c.attr(),
                values.len()
            )));
        };
        c.check_values(n)?;
    }
    Ok(())
}

/// A per-value table of a criterion must have one entry per value, each
/// below `bound`.
pub(crate) fn check_table(
    criterion: &str,
    table: &str,
    entries: &[u32],
    values: usize,
    bound: usize,
) -> Result<()> {
    if entries.len() != values {
        return Err(AnonError::Config(format!(
            "{criterion}: {table} has {} entries for {values} values",
            entries.len()
        )));
    }
    if let Some(e) = entries.iter().find(|&&e| e as usize >= bound) {
        return Err(AnonError::Config(format!(
            "{criterion}: {table} holds {e}, outside 0..{bound}"
        )));
    }
    Ok(())
}

/// An error for a parameter outside its range, naming both.
pub(crate) fn bad_parameter(
    criterion: &str,
    name: &str,
    value: impl std::fmt::Display,
    valid: &str,
) -> AnonError {
    AnonError::Config(format!(
        "{criterion}: {name} = {value} is out of range; {name} must be {valid}"
    ))
}

#[cfg(test)]
mod tests;
