//! The problem a search works on: the quasi-identifiers, their hierarchies, the
//! sensitive attributes and F0 (built in `f0.rs`).

use std::sync::Arc;

use super::{Engine, FreqSet, Layout, RollupJob, SetData};
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
    /// Set when F0 was grouped at floor levels (`floors.rs`): nodes below
    /// them fail without a check, and no question is answered about them.
    pub floors: Option<super::Floors>,
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

    /// The leaf codes of attribute `a` that F0 holds, in code order: read off
    /// its marginal when it was counted with F0 into packed keys (a few
    /// rows), else off F0 itself, marked in a bitmap of the domain (a
    /// release then need not find a large hierarchy's present values in the
    /// rows: for cup's 13,294 ZIP codes, a unique over every row cost 11 MiB
    /// kept by Polars' allocator). None when F0 was grouped at floors, whose
    /// codes are not leaves'.
    pub fn present_leaves(&self, a: usize) -> Option<Vec<u32>> {
        if self.floors.is_some() {
            return None;
        }
        let data = match self.marginals.as_ref().and_then(|m| m.get(a)) {
            Some(marginal) => &marginal.data,
            None => &self.base.data,
        };
        let mut seen = vec![false; self.hierarchies[a].domain_size(0)];
        let mut mark = |c: u32| {
            if let Some(s) = seen.get_mut(c as usize) {
                *s = true;
            }
        };
        match data {
            SetData::Packed { layout, keys, .. } => {
                keys.iter().for_each(|&k| mark(layout.get(k, a)));
            }
            SetData::Frame(df) => {
                let column = df.column(&super::code_col(a)).ok()?.u32().ok()?;
                column.into_no_null_iter().for_each(&mut mark);
            }
        }
        Some(
            (0..seen.len() as u32)
                .filter(|&c| seen[c as usize])
                .collect(),
        )
    }

    /// Attribute `a`'s records per leaf code: from its marginal when it was
    /// counted with F0 (a few rows), else from F0.
    pub fn leaf_counts(&self, a: usize) -> Result<Vec<u64>> {
        let mut per_leaf = vec![0u64; self.hierarchies[a].domain_size(0)];
        let marginal = self.marginals.as_ref().and_then(|m| m.get(a));
        if let (
            None,
            Some(SetData::Packed {
                layout,
                keys,
                counts,
            }),
        ) = (&self.floors, marginal.map(|m| &m.data))
        {
            for (&k, &c) in keys.iter().zip(counts) {
                per_leaf[layout.get(k, a) as usize] += c;
            }
            return Ok(per_leaf);
        }
        let counts = self.base.counts()?;
        for (&code, &c) in self.base.codes(a)?.iter().zip(counts.iter()) {
            per_leaf[code as usize] += c;
        }
        Ok(per_leaf)
    }

    /// Group F0's rows as standing for their values at `floors` (see
    /// `floors.rs`); each floor at most its attribute's height.
    pub fn set_floors(&mut self, floors: super::Floors) -> Result<()> {
        let heights = self.heights();
        if floors.levels.len() != heights.len()
            || floors.levels.iter().zip(&heights).any(|(f, h)| f > h)
        {
            return Err(crate::error::AnonError::Config(format!(
                "floor levels {:?} do not fit the hierarchies' heights {heights:?}",
                floors.levels
            )));
        }
        self.floors = Some(floors);
        Ok(())
    }

    /// Refuse a full-lattice node below the floors.
    pub fn check_floors(&self, node: &[u8]) -> Result<()> {
        match &self.floors {
            Some(f) => f.check_levels(&self.names, node),
            None => Ok(()),
        }
    }

    /// The frequency set of a full-lattice node, rolled up from F0.
    pub fn node_set(&self, node: &[u8], engine: Engine) -> Result<FreqSet> {
        self.rollup(
            RollupJob::new(&self.base, self.base.attrs.clone(), node.to_vec()),
            engine,
        )
    }
}
