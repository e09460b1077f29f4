//! Building a hierarchy's tree one row at a time, as a file is read: each
//! row's cells are coded level by level and checked (ragged rows, empty
//! values, a leaf with two different rows), then the whole is checked as a
//! tree with one top. Only the distinct labels are copied; no row is kept.

use std::sync::Arc;

use super::encode::{LeafIndex, MAX_LEAVES};
use super::labels::{self, Labels};
use super::{Hierarchy, Tree, MAX_LEVELS};
use crate::error::{show_values, AnonError, Result};

pub(super) struct Builder<'s> {
    source: &'s str,
    /// Rows pushed so far (the number of the last, counted from 1).
    rows: usize,
    labels: Vec<Labels>,
    /// Leaf code -> code at each level.
    leaf_to: Vec<Vec<u32>>,
    /// Label -> code at each level; the leaves' index is kept for encoding.
    index: Vec<LeafIndex>,
    /// The row each leaf came from (its number among the rows pushed).
    line: Vec<usize>,
    hint: usize,
}

/// Whether two labels are equal: short ones by overlapping word loads (a
/// call to `memcmp` for each cell of a ZIP hierarchy was an eighth of its
/// load).
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let u32_at = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().expect("4"));
    let u64_at = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8"));
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, n - 4) == u32_at(b, n - 4),
        9..=16 => u64_at(a, 0) == u64_at(b, 0) && u64_at(a, n - 8) == u64_at(b, n - 8),
        _ => a == b,
    }
}

impl<'s> Builder<'s> {
    /// `source` names the origin (a file path, or "rows") in error messages;
    /// `hint` is about how many rows will come.
    pub(super) fn new(source: &'s str, hint: usize) -> Self {
        Builder {
            source,
            rows: 0,
            labels: Vec::new(),
            leaf_to: Vec::new(),
            index: Vec::new(),
            line: Vec::new(),
            hint,
        }
    }

    fn err(&self, msg: String) -> AnonError {
        AnonError::Hierarchy(format!("{}: {msg}", self.source))
    }

    /// Levels per row (0 before the first row).
    pub(super) fn width(&self) -> usize {
        self.labels.len()
    }

    pub(super) fn leaves(&self) -> &Labels {
        &self.labels[0]
    }

    /// A hint that a row with this leaf comes next.
    #[inline]
    pub(super) fn prefetch(&self, leaf: &str) {
        if let Some(index) = self.index.first() {
            index.prefetch(leaf.as_bytes());
        }
    }

    /// One row, leaf first, most general last. A row repeated exactly (ARX
    /// writes such files, and users keep them) is taken once; a leaf with two
    /// different rows is an error naming both.
    pub(super) fn push<S: AsRef<str>>(&mut self, row: &[S]) -> Result<()> {
        self.rows += 1;
        let r = self.rows;
        if r == 1 {
            self.start(row.len())?;
        }
        let width = self.width();
        if row.len() != width {
            return Err(self.err(format!(
                "row {r} has {}, expected {width} like row 1 (ragged rows: every leaf needs a value at every level): {}",
                crate::error::counted(row.len() as u64, "value"),
                show_values(row, 8)
            )));
        }
        if let Some(l) = row.iter().position(|v| v.as_ref().is_empty()) {
            let why = match l {
                0 => {
                    ": a leaf cannot be the empty string (if the column holds empty strings, \
                      give them a value of their own, e.g. pl.col(c).replace('', '(empty)'), \
                      or make them nulls and search with nulls='value')"
                }
                _ => "",
            };
            return Err(self.err(format!("row {r} has an empty value at level {l}{why}")));
        }
        let leaf = row[0].as_ref();
        let next = self.labels[0].len() as u32;
        if next as usize >= MAX_LEAVES {
            return Err(self.err(format!(
                "more than {MAX_LEAVES} leaves: a hierarchy may have at most {MAX_LEAVES}"
            )));
        }
        if let Some(f) = self.index[0].insert(leaf.as_bytes(), next) {
            return self.repeated(f as usize, row);
        }
        self.label(0, leaf)?;
        self.leaf_to[0].push(next);
        self.line.push(r);
        for (l, value) in row.iter().enumerate().skip(1) {
            let value = value.as_ref();
            // files list the leaves of a group together: a label the row
            // above had is taken without a lookup
            let code = match self.leaf_to[l].last() {
                Some(&c) if same(self.labels[l][c as usize].as_bytes(), value.as_bytes()) => c,
                _ => {
                    let code = self.labels[l].len() as u32;
                    match self.index[l].insert(value.as_bytes(), code) {
                        Some(c) => c,
                        None => {
                            self.label(l, value)?;
                            code
                        }
                    }
                }
            };
            self.leaf_to[l].push(code);
        }
        Ok(())
    }

    fn start(&mut self, width: usize) -> Result<()> {
        if width == 0 {
            return Err(self.err("row 1 has no values".into()));
        }
        if width > MAX_LEVELS {
            return Err(self.err(format!(
                "{width} levels (height {}); at most {MAX_LEVELS} levels (height {}) are supported",
                width - 1,
                MAX_LEVELS - 1
            )));
        }
        self.labels = vec![Labels::default(); width];
        self.leaf_to = vec![Vec::new(); width];
        self.leaf_to[0].reserve(self.hint);
        self.index = (0..width)
            .map(|l| LeafIndex::with_capacity(if l == 0 { self.hint } else { 0 }))
            .collect();
        Ok(())
    }

    /// A new label at level `l`; a level's labels sit in one buffer
    /// addressed by u32 (`Labels`).
    fn label(&mut self, l: usize, value: &str) -> Result<()> {
        if self.labels[l].bytes() + value.len() > labels::MAX_BYTES {
            return Err(self.err(format!(
                "the labels of level {l} hold more than {} bytes",
                labels::MAX_BYTES
            )));
        }
        self.labels[l].push(value);
        Ok(())
    }

    /// A row whose leaf came before, as leaf `f`: the same row, or an error.
    fn repeated<S: AsRef<str>>(&self, f: usize, row: &[S]) -> Result<()> {
        let first: Vec<&str> = (self.labels.iter().zip(&self.leaf_to))
            .map(|(labels, to)| &labels[to[f] as usize])
            .collect();
        if (first.iter().zip(row)).all(|(a, b)| same(a.as_bytes(), b.as_ref().as_bytes())) {
            return Ok(());
        }
        Err(self.err(format!(
            "leaf value {:?} appears twice with different generalizations, in rows {} ({}) and {} ({})",
            row[0].as_ref(),
            self.line[f],
            show_values(&first, 8),
            self.rows,
            show_values(row, 8)
        )))
    }

    /// The tree, once each value on a level has exactly one parent on the
    /// level above and the top level one value.
    pub(super) fn finish(mut self) -> Result<Hierarchy> {
        if self.rows == 0 {
            return Err(self.err("empty hierarchy: it has no rows".into()));
        }
        let width = self.width();
        let (labels, leaf_to, line) = (&self.labels, &self.leaf_to, &self.line);
        let mut parent: Vec<Vec<u32>> = Vec::with_capacity(width - 1);
        for l in 0..width - 1 {
            let mut up = vec![u32::MAX; labels[l].len()];
            for (r, (&c, &p)) in leaf_to[l].iter().zip(&leaf_to[l + 1]).enumerate() {
                let c = c as usize;
                if up[c] == u32::MAX {
                    up[c] = p;
                } else if up[c] != p {
                    let seen_at = leaf_to[l].iter().position(|&x| x as usize == c);
                    return Err(self.err(format!(
                        "not a tree: value {:?} at level {} has two parents at level {}: {:?} (row {}) and {:?} (row {})",
                        &labels[l][c],
                        l,
                        l + 1,
                        &labels[l + 1][up[c] as usize],
                        line[seen_at.expect("seen before")],
                        &labels[l + 1][p as usize],
                        line[r]
                    )));
                }
            }
            parent.push(up);
        }
        let top = &labels[width - 1];
        if width > 1 && top.len() > 1 {
            return Err(self.err(format!(
                "the top level {} has {} values ({}); a hierarchy needs exactly one value at its top (ARX uses '*')",
                width - 1,
                top.len(),
                show_values(&top.to_vec(), 8)
            )));
        }
        self.index.truncate(1);
        let leaf_index = self.index.pop().expect("a first level");
        let levels = self.labels.len();
        Ok(Hierarchy {
            t: Arc::new(Tree {
                between: (0..levels * levels).map(|_| Default::default()).collect(),
                labels: self.labels,
                leaf_to: self.leaf_to,
                parent,
                leaf_index,
                under: Default::default(),
                top_down: Default::default(),
                by_value: Default::default(),
            }),
        })
    }
}
