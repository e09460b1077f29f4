//! Samarati's binary search on height: the lowest height holding an anonymous
//! node, every node of each probed height checked from the table.

use std::collections::{HashMap, HashSet};

use super::budget::listed_node_bytes;
use super::{Algorithm, Outcome, Register, Searcher, Stats};
use crate::error::Result;
use crate::lattice::{Lattice, Node};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Samarati;

impl Register for Samarati {
    const NAME: &'static str = "samarati";
    fn with_variant(_: &str) -> Self {
        Samarati
    }
}

impl Algorithm for Samarati {
    fn complete(&self) -> bool {
        false
    }
    /// The binary search evaluates whole heights, at most log2(H + 1) + 1 of
    /// them, and lists every node it evaluates: bounded by the largest layers.
    fn estimate(&self, s: &Searcher<'_>) -> Result<()> {
        let heights = s.problem().heights();
        let lat = Lattice::new(heights.clone());
        let mut layers = lat.layer_sizes();
        layers.sort_unstable_by(|a, b| b.cmp(a));
        let probes = (lat.max_height() + 1).ilog2() as usize + 2;
        let nodes = layers
            .iter()
            .take(probes)
            .fold(0u128, |a, &c| a.saturating_add(c));
        s.within_budget(Self::NAME, nodes, listed_node_bytes(heights.len()))
    }
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome> {
        s.samarati()
    }
}

impl<'p> Searcher<'p> {
    /// Samarati's binary search on height: the lowest height holding an
    /// anonymous node; every node of each probed height is evaluated.
    pub(super) fn samarati(&mut self) -> Result<Outcome> {
        let lat = Lattice::new(self.problem().heights());
        let mut anonymous = Vec::new();
        let mut rejected = Vec::new();
        let mut found_at: HashMap<u32, Vec<Node>> = HashMap::new();
        let (mut lo, mut hi) = (0u32, lat.max_height());
        let mut probe = |h: u32, this: &mut Self| -> Result<bool> {
            let before = anonymous.len();
            let any = this.check_from_table(&lat.at_height(h), &mut anonymous, &mut rejected)?;
            found_at
                .entry(h)
                .or_default()
                .extend(anonymous[before..].iter().cloned());
            Ok(any)
        };
        let mut probed = HashSet::new();
        while lo < hi {
            let mid = (lo + hi) / 2;
            probed.insert(mid);
            if probe(mid, self)? {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if !probed.contains(&lo) {
            probe(lo, self)?;
        }
        let mut minimal = found_at.remove(&lo).unwrap_or_default();
        Lattice::sort(&mut minimal);
        Lattice::sort(&mut anonymous);
        Lattice::sort(&mut rejected);
        Ok(Outcome {
            anonymous,
            stopped: None,
            rejected,
            minimal,
            complete: false,
            proven_optimal: false,
            stats: Stats::default(),
            trace: Vec::new(),
        })
    }
}
