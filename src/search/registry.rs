//! The one list of search algorithms: their names, variants and defaults, read
//! by the bindings and the Python package. Adding an algorithm is a file in
//! `search/` and one line in `ALGORITHMS`.

use std::fmt::Debug;

use super::{
    BottomUp, Datafly, Heuristic, Incognito, MinGen, Optimal, Outcome, Samarati, Searcher, Variant,
};
use crate::error::{AnonError, Result};

/// A search: walks the lattice and asks the searcher's checker about nodes.
pub trait Algorithm: Debug + Send + Sync {
    /// The name users know it by, with its variant.
    fn label(&self) -> String;
    /// Finds every anonymous node (else only those it evaluated).
    fn complete(&self) -> bool {
        true
    }
    /// Infers nodes it does not check (marks generalizations of anonymous
    /// nodes, prunes specializations of failing ones), which is exact only
    /// for monotone criteria.
    fn infers(&self) -> bool {
        true
    }
    /// Refuse before starting when the search would hold more than the
    /// memory budget (see `budget`); by default, the whole lattice.
    fn estimate(&self, s: &Searcher<'_>) -> Result<()> {
        let heights = s.problem().heights();
        let nodes = crate::lattice::Lattice::new(heights.clone()).size();
        s.within_budget(
            &self.label(),
            nodes,
            super::budget::graph_node_bytes(heights.len()),
        )
    }
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome>;
}

/// A registered algorithm: its name, its variants (the default first) and
/// how to make it.
pub struct Entry {
    pub name: &'static str,
    pub variants: &'static [&'static str],
    pub build: fn(variant: &str) -> Box<dyn Algorithm>,
}

impl Entry {
    pub fn default_variant(&self) -> Option<&'static str> {
        self.variants.first().copied()
    }
}

pub const ALGORITHMS: &[Entry] = &[
    Entry {
        name: "incognito",
        variants: &["cube", "super_roots", "basic"],
        build: |v| {
            Box::new(Incognito(match v {
                "basic" => Variant::Basic,
                "super_roots" => Variant::SuperRoots,
                _ => Variant::Cube,
            }))
        },
    },
    Entry {
        name: "samarati",
        variants: &[],
        build: |_| Box::new(Samarati),
    },
    Entry {
        name: "bottom_up",
        variants: &["rollup", "no_rollup"],
        build: |v| {
            Box::new(BottomUp {
                rollup: v != "no_rollup",
            })
        },
    },
    Entry {
        name: "mingen",
        variants: &[],
        build: |_| Box::new(MinGen),
    },
    Entry {
        name: "datafly",
        variants: &[],
        build: |_| Box::new(Datafly),
    },
    Entry {
        name: "optimal",
        variants: &[],
        build: |_| Box::new(Optimal),
    },
    Entry {
        name: "heuristic",
        variants: &[],
        build: |_| Box::new(Heuristic),
    },
];

fn quoted(names: impl Iterator<Item = &'static str>) -> String {
    names
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The algorithm `name` with `variant` (`None`: its default).
pub fn algorithm(name: &str, variant: Option<&str>) -> Result<Box<dyn Algorithm>> {
    let Some(entry) = ALGORITHMS.iter().find(|e| e.name == name) else {
        return Err(AnonError::Config(format!(
            "unknown algorithm {name:?}; expected one of {}",
            quoted(ALGORITHMS.iter().map(|e| e.name))
        )));
    };
    let variant = match variant {
        None => entry.default_variant().unwrap_or(""),
        Some(v) if entry.variants.contains(&v) => v,
        Some(v) => {
            let allowed = if entry.variants.is_empty() {
                "none".to_string()
            } else {
                quoted(entry.variants.iter().copied())
            };
            return Err(AnonError::Config(format!(
                "algorithm {name:?} has no variant {v:?}; expected one of {allowed}"
            )));
        }
    };
    Ok((entry.build)(variant))
}
