//! polars-anon: k-anonymity by full-domain generalization on Polars.
//!
//! The core knows nothing of Python: hierarchies ([`hierarchy`]), the solution
//! space ([`lattice`]), frequency sets and rollups ([`freq`]), utility metrics
//! ([`metrics`]) and the searches ([`search`]). Bindings live in `src/python/`.

pub mod criteria;
pub mod error;
pub mod freq;
mod fx;
pub mod hierarchy;
pub mod lattice;
pub mod local;
pub mod metrics;
pub mod search;

#[cfg(feature = "python")]
mod python;

pub use criteria::{Criterion, Distance};
pub use error::{AnonError, Result};
pub use freq::{Engine, FreqSet, GroupStats, Model, Problem, Sensitive};
pub use hierarchy::Hierarchy;
pub use lattice::{Lattice, Node};
pub use metrics::{metrics, Metrics};
pub use search::{Algorithm, Config, IterationTrace, Outcome, Progress, Searcher, Stats, Variant};

#[cfg(test)]
mod tests;
