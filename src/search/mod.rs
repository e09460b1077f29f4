//! Searches of the generalization lattice. They only walk graphs of nodes and ask
//! the checker about them; every frequency set is a rollup of F0 (a "table
//! scan": F0 stands for the table, see DESIGN.md), of a parent's set, of a
//! super-root's set or of a cube cuboid.
//!
//! [`context`] holds what every search shares (batching, progress and
//! interruption, statistics); each algorithm is one file, listed once in
//! [`registry`], which alone knows their names, variants and defaults.

use crate::criteria::{CriterionRef, DatasetRef, PopulationRef};
use crate::freq::Engine;
use crate::lattice::Node;

pub mod best;
mod bfs;
mod bottom_up;
pub mod budget;
pub mod context;
mod cube;
mod datafly;
mod early;
mod explorer;
mod greedy;
mod heuristic;
mod incognito;
mod mingen;
pub mod objective;
mod optimal;
pub mod registry;
mod root_tree;
mod samarati;

pub use bottom_up::BottomUp;
pub use context::{Progress, Searcher};
pub use datafly::Datafly;
pub use heuristic::Heuristic;
pub use incognito::{Incognito, Variant};
pub use mingen::MinGen;
pub use objective::{Bounds, Objective};
pub use optimal::Optimal;
pub use registry::{algorithm, Algorithm, Entry, Label, Register, ALGORITHMS};
pub use samarati::Samarati;

#[derive(Clone, Debug)]
pub struct Config {
    pub k: u64,
    /// Sensitive-attribute criteria checked on every QI group besides k.
    pub criteria: Vec<CriterionRef>,
    /// Criteria on the whole release, checked after the groups' (their
    /// failures suppress the smallest classes).
    pub dataset: Vec<DatasetRef>,
    /// Criteria on each class against a population table.
    pub population: Vec<PopulationRef>,
    pub max_suppression: u64,
    pub engine: Engine,
    /// Record every graph searched in `Outcome::trace` (costly on large lattices).
    pub trace: bool,
    /// Incognito: leave out of the graphs of iteration 2 on every candidate
    /// in which some attribute is generalized to a level of one value (such as
    /// `*`). That attribute splits no group, so the node's frequency set and
    /// answer are those of its projection without it, a node of an earlier
    /// iteration; the answer lists them from there. Same answers, same checks
    /// of the other nodes; `false` builds and checks them as the paper does.
    pub infer_projections: bool,
    /// Stop after this long with the anonymous nodes confirmed so far
    /// (`Outcome::stopped` says so).
    pub time_limit: Option<std::time::Duration>,
    /// Bytes the search may hold (see `budget`); past it, it is refused.
    pub memory_budget: u64,
    /// What the optimal and heuristic searches minimise.
    pub objective: Objective,
    /// The heuristic's random choices.
    pub seed: u64,
}

impl Config {
    /// k-anonymity with up to `max_suppression` suppressed tuples, every
    /// other setting at its default.
    pub fn new(k: u64, max_suppression: u64) -> Self {
        Config {
            k,
            criteria: Vec::new(),
            dataset: Vec::new(),
            population: Vec::new(),
            max_suppression,
            engine: Engine::Auto,
            trace: false,
            infer_projections: true,
            time_limit: None,
            memory_budget: budget::DEFAULT_BYTES,
            objective: Objective::Loss,
            seed: 0,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Nodes whose frequency set was computed and tested.
    pub nodes_checked: u64,
    /// Nodes found anonymous without a check (generalization property).
    pub nodes_marked: u64,
    /// Anonymous nodes of the answer taken from an earlier Incognito
    /// iteration, as their projection (`Config::infer_projections`).
    pub nodes_projected: u64,
    /// Frequency sets computed from F0, the stand-in for the table.
    pub table_scans: u64,
    /// F0's rows for each of those scans (a check that stops early, once
    /// the node is known to fail, reads fewer: `freq/blocks.rs`).
    pub rows_scanned: u64,
    /// Rows of parent, super-root and cuboid sets read by rollups.
    pub rows_rolled_up: u64,
    /// Zero-generalization cuboids built (Cube Incognito).
    pub cuboids: u64,
    /// Sets below Cube Incognito's roots rolled up to feed them (RootTree).
    pub intermediate_sets: u64,
    /// Nodes per Incognito iteration (candidates after pruning).
    pub candidates_per_iteration: Vec<u64>,
    /// (phase, milliseconds)
    pub phase_ms: Vec<(String, f64)>,
}

/// One Incognito iteration (or the bottom-up search's single graph): its nodes
/// and what the search learnt of each.
#[derive(Clone, Debug, Default)]
pub struct IterationTrace {
    pub attrs: Vec<Vec<usize>>,
    pub levels: Vec<Vec<u8>>,
    pub root: Vec<bool>,
    pub checked: Vec<bool>,
    pub marked: Vec<bool>,
    pub anonymous: Vec<bool>,
    pub edges: Vec<(usize, usize)>,
}

#[derive(Clone, Debug)]
pub struct Outcome {
    /// Anonymous full-lattice nodes found (all of them when `complete`).
    pub anonymous: Vec<Node>,
    /// Why the search stopped before its end (its time limit), if it did:
    /// then `anonymous` holds the nodes confirmed so far, `minimal` the
    /// minimal ones among those, and `complete` is false.
    pub stopped: Option<String>,
    /// Nodes tested and found not anonymous (Samarati reports what it evaluated).
    pub rejected: Vec<Node>,
    pub minimal: Vec<Node>,
    pub complete: bool,
    /// The answer holds a node of the best value of `Config::objective` in
    /// the whole lattice: a complete search that ran to its end, or an
    /// optimal search whose bound closed.
    pub proven_optimal: bool,
    pub stats: Stats,
    /// The graphs searched, in order (Incognito: one per iteration).
    pub trace: Vec<IterationTrace>,
}

#[cfg(test)]
mod tests;
