//! Checks that read F0 and stop once the node is known to fail
//! (`freq/blocks.rs`): which copy of F0 in blocks a node is read from. Along
//! the attribute whose level in the node has the most values (the more runs,
//! the sooner a failing check meets a small group), made the `ASKS`th time
//! nodes ask for it while `BLOCKS_BYTES` (and a quarter of the search's
//! memory budget) allows, else the best one made.
//! The optimal and heuristic searches' walks, Samarati and MinGen use it;
//! the others roll their nodes up from sets below them, not from F0. The
//! walks read F0 grouped at the search's floors (`freq/floors.rs`) where
//! some floor is above the leaves: every node they may ask about that can
//! be anonymous is at or above them, and the set is smaller than F0 (Adult's
//! 9 quasi-identifiers at k = 2: 12,636 rows for 19,502).

use std::cmp::Reverse;

use crate::check::Checker;
use crate::error::Result;
use crate::freq::{Blocks, FreqSet};

/// Bytes of F0 copies sorted into blocks (one per attribute chosen): past
/// this, checks use the copies made.
const BLOCKS_BYTES: usize = 64 << 20;

/// Nodes that ask for a copy before it is made. Making one (a counting sort
/// of F0 and a copy of its rows) costs about what reading F0 whole three
/// times does, and a node no copy serves reads F0 whole: so a copy is made
/// once the reads it would have shortened cost about what it costs (the
/// rent-or-buy rule: never more than twice the better choice in hindsight).
/// Made at the first ask, cup's searches made a copy for every attribute
/// (seven) to serve 13 failing nodes, which cost more than it saved.
const ASKS: u32 = 3;

pub(super) struct Early {
    blocks: Vec<Blocks>,
    /// Nodes that asked for a copy along each attribute, not yet made.
    asked: Vec<u32>,
    /// The model cannot stop early (criteria beyond k, or Polars plans).
    off: bool,
    /// Bytes of copies made at most.
    cap: usize,
    /// F0 grouped at the search's floors, read instead of F0 (`at_floors`).
    source: Option<FreqSet>,
}

impl Early {
    /// For a search whose memory budget is `budget` bytes.
    pub fn new(budget: u64) -> Self {
        Early {
            blocks: Vec::new(),
            asked: Vec::new(),
            off: false,
            cap: BLOCKS_BYTES.min((budget / 4).try_into().unwrap_or(usize::MAX)),
            source: None,
        }
    }

    /// Read F0 grouped at `floors` from now on (copies and whole reads),
    /// where some is above F0's levels and it can be read in blocks: the
    /// rows of F0 that grouping it read, if it did. The copies answer a
    /// node below them as failing (`freq/floors.rs`); a whole read of the
    /// `source` is for a node at or above them only (the walks know those
    /// below as failing before they read).
    pub fn at_floors(&mut self, checker: &Checker<'_>, floors: &[u8]) -> Result<Option<usize>> {
        self.source = checker.at_floors(floors)?;
        self.blocks.clear();
        Ok(self.source.as_ref().map(|_| checker.problem.base.rows()))
    }

    /// What a read of F0 reads: F0 at the floors, or `base` (F0).
    pub fn source<'a>(&'a self, base: &'a FreqSet) -> &'a FreqSet {
        self.source.as_ref().unwrap_or(base)
    }

    /// Make the copies `nodes` ask for, as the budget allows.
    pub fn ready<'n>(
        &mut self,
        checker: &Checker<'_>,
        nodes: impl IntoIterator<Item = &'n [u8]>,
    ) -> Result<()> {
        for node in nodes {
            if self.off || self.bytes() >= self.cap {
                return Ok(());
            }
            let Some(attr) = wanted(checker, node) else {
                continue;
            };
            if self.blocks.iter().any(|b| b.attr == attr) {
                continue;
            }
            if self.asked.len() <= attr {
                self.asked.resize(attr + 1, 0);
            }
            self.asked[attr] += 1;
            if self.asked[attr] < ASKS {
                continue;
            }
            let from = self.source.as_ref().unwrap_or(&checker.problem.base);
            match checker.blocks(attr, from)? {
                Some(b) => self.blocks.push(b),
                None => self.off = true,
            }
        }
        Ok(())
    }

    /// The copy to read `node` from: of those made, the one whose runs at
    /// the node's level are the most (at least two).
    pub fn pick(&self, node: &[u8]) -> Option<&Blocks> {
        self.blocks
            .iter()
            .filter(|b| b.count(node[b.attr]) > 1)
            .max_by_key(|b| b.count(node[b.attr]))
    }

    /// `node`'s set read from F0 in blocks, `Some(None)` when it fails (known
    /// before all rows are read); `None` when no copy serves it.
    pub fn check(
        &mut self,
        checker: &Checker<'_>,
        node: &[u8],
        max_suppressed: u64,
    ) -> Result<Option<Option<FreqSet>>> {
        self.ready(checker, [node])?;
        match self.pick(node) {
            Some(b) => Ok(Some(checker.fails_early(b, node, max_suppressed)?)),
            None => Ok(None),
        }
    }

    fn bytes(&self) -> usize {
        self.blocks.iter().map(Blocks::bytes).sum()
    }
}

/// The attribute whose level in `node` has the most values, if more than one.
fn wanted(checker: &Checker<'_>, node: &[u8]) -> Option<usize> {
    let h = &checker.problem.hierarchies;
    let values = |a: usize| h[a].domain_size(node[a]);
    (0..node.len())
        .max_by_key(|&a| (values(a), Reverse(a)))
        .filter(|&a| values(a) > 1)
}
