//! The one list of search algorithms, read by the bindings and the Python
//! package. An algorithm's name and variants live on its type (`Register`,
//! in its own file); adding one is that file and one line in `ALGORITHMS`.

use std::fmt::Debug;

use super::{
    BottomUp, Datafly, Heuristic, Incognito, MinGen, Optimal, Outcome, Samarati, Searcher,
};
use crate::error::{AnonError, Result};

/// A search: walks the lattice and asks the searcher's checker about nodes.
pub trait Algorithm: Label + Debug + Send + Sync {
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

/// What registers an algorithm: its name (the one place it is written), its
/// variants and how to make each. `ALGORITHMS` lists the types, a line each.
pub trait Register: Sized {
    const NAME: &'static str;
    /// The variants, the default first (none: one form).
    const VARIANTS: &'static [&'static str] = &[];
    /// The algorithm in `variant` (one of `VARIANTS`, or "" when there are
    /// none).
    fn with_variant(variant: &str) -> Self;
    /// The variant this value is.
    fn variant(&self) -> Option<&'static str> {
        None
    }
}

/// The name users know a search by, with its variant: "incognito (cube)".
pub trait Label {
    fn label(&self) -> String;
}

impl<T: Register> Label for T {
    fn label(&self) -> String {
        match self.variant() {
            Some(v) => format!("{} ({v})", T::NAME),
            None => T::NAME.into(),
        }
    }
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

fn build<T: Register + Algorithm + 'static>(variant: &str) -> Box<dyn Algorithm> {
    Box::new(T::with_variant(variant))
}

const fn entry<T: Register + Algorithm + 'static>() -> Entry {
    Entry {
        name: T::NAME,
        variants: T::VARIANTS,
        build: build::<T>,
    }
}

pub const ALGORITHMS: &[Entry] = &[
    entry::<Incognito>(),
    entry::<Samarati>(),
    entry::<BottomUp>(),
    entry::<MinGen>(),
    entry::<Datafly>(),
    entry::<Optimal>(),
    entry::<Heuristic>(),
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
