//! polars-anon: k-anonymity by full-domain generalization on Polars.
//!
//! The core knows nothing of Python. Its folders follow the data flow (see
//! ARCHITECTURE.md): [`hierarchy`] (the trees, their files, encoding values),
//! [`freq`] (F0 in one pass over the rows, rollups on either engine),
//! [`check`] (a node's groups under k and the [`criteria`]), [`lattice`] (the
//! solution space and Incognito's graphs), [`search`] (one file per
//! algorithm), [`metrics`] and [`local`] recoding. Bindings live in
//! `src/python/`, behind the `python` feature.

mod alloc;
pub mod check;
pub mod criteria;
pub mod dp;
pub mod error;
pub mod freq;
mod hash;
pub mod hierarchy;
pub mod lattice;
pub mod local;
pub mod metrics;
pub mod mondrian;
pub mod pseudonym;
pub mod risk;
pub mod search;

#[cfg(feature = "python")]
mod python;

pub use check::{Checker, Model};
pub use criteria::{Criterion, CriterionRef, Distance};
pub use error::{AnonError, Result};
pub use freq::{Engine, FreqSet, Problem, RollupJob, Sensitive};
pub use hierarchy::Hierarchy;
pub use lattice::{Lattice, Node};
pub use metrics::{metrics, GroupStats, Metrics};
pub use search::{
    algorithm, Algorithm, Config, IterationTrace, Outcome, Progress, Searcher, Stats, Variant,
};

#[cfg(test)]
mod testing;
