//! The problem a search works on: the quasi-identifiers, their hierarchies, the
//! sensitive attributes and F0 (built in `f0.rs`).

use std::sync::Arc;

use super::{Engine, FreqSet, Layout, RollupJob};
use crate::error::Result;
use crate::hierarchy::Hierarchy;

/// The problem: quasi-identifier names, their hierarchies and the base set F0.
#[derive(Clone, Debug)]
pub struct Problem {
    pub names: Vec<String>,
    pub hierarchies: Vec<Hierarchy>,
    pub base: FreqSet,
    pub rows: u64,
    /// Packed-key layout for the native kernel, when the codes fit 63 bits.
    pub layout: Option<Arc<Layout>>,
    /// Sensitive attributes carried by every frequency set (attribute index
    /// `names.len() + j` for the j-th).
    pub sensitive: Vec<Sensitive>,
    /// Each attribute's own frequency set at level 0 (with the carried
    /// columns), counted in the same pass over the rows as F0 (native kernel
    /// only): Cube Incognito's one-attribute cuboids.
    pub marginals: Option<Vec<FreqSet>>,
    /// F0's code columns in the narrowest integers that hold them, made
    /// when a rollup of a problem without a layout first reads F0
    /// (`wide.rs`).
    pub(crate) narrow_base: std::sync::OnceLock<Vec<super::wide::Codes>>,
}

/// A sensitive attribute: its values (codes index them) and their distribution
/// over the whole table.
#[derive(Clone, Debug)]
pub struct Sensitive {
    pub name: String,
    pub values: Vec<String>,
    pub global: Vec<f64>,
}

impl Problem {
    pub fn n_attrs(&self) -> usize {
        self.names.len()
    }
    pub fn heights(&self) -> Vec<u8> {
        self.hierarchies.iter().map(|h| h.height()).collect()
    }

    /// The frequency set of a full-lattice node, rolled up from F0.
    pub fn node_set(&self, node: &[u8], engine: Engine) -> Result<FreqSet> {
        self.rollup(
            RollupJob::new(&self.base, self.base.attrs.clone(), node.to_vec()),
            engine,
        )
    }
}
