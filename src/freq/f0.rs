//! F0, the zero-generalization frequency set: the one pass over the rows,
//! which also counts each attribute's marginal (Cube Incognito's one-attribute
//! cuboids).

use std::sync::Arc;

use polars::prelude::*;

use super::aggregate::{with_table, Aggregator};
use super::{code_col, FreqSet, Layout, Problem, Sensitive, SetData, COUNT};
use crate::error::{AnonError, Result};
use crate::hierarchy::Hierarchy;

impl Problem {
    /// From leaf codes per attribute and a count per row (rows need not be
    /// distinct: they are grouped here, which is the one pass over them).
    pub fn from_codes(
        names: Vec<String>,
        hierarchies: Vec<Hierarchy>,
        codes: Vec<Vec<u32>>,
        counts: Vec<u64>,
    ) -> Result<Self> {
        Self::with_sensitive(names, hierarchies, codes, Vec::new(), counts)
    }

    /// As `from_codes`, with sensitive attributes: (name, values, code per row).
    pub fn with_sensitive(
        names: Vec<String>,
        hierarchies: Vec<Hierarchy>,
        codes: Vec<Vec<u32>>,
        sensitive: Vec<(String, Vec<String>, Vec<u32>)>,
        counts: Vec<u64>,
    ) -> Result<Self> {
        if names.is_empty() {
            return Err(AnonError::Config(
                "at least one quasi-identifier is needed".into(),
            ));
        }
        if names.len() != hierarchies.len() || names.len() != codes.len() {
            return Err(AnonError::Config(format!(
                "{} names, {} hierarchies and {} code columns: they must match",
                names.len(),
                hierarchies.len(),
                codes.len()
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for n in &names {
            if !seen.insert(n) {
                return Err(AnonError::Config(format!(
                    "quasi-identifier {n:?} is named twice"
                )));
            }
        }
        let height = counts.len();
        let mut columns = Vec::with_capacity(names.len() + 1);
        for (a, col) in codes.into_iter().enumerate() {
            if col.len() != height {
                return Err(AnonError::Config(format!(
                    "column '{}' has {} codes for {} counts",
                    names[a],
                    col.len(),
                    height
                )));
            }
            let size = hierarchies[a].domain_size(0) as u32;
            if let Some(bad) = col.iter().find(|&&c| c >= size) {
                return Err(AnonError::Config(format!(
                    "column '{}': code {bad} is outside its hierarchy's {size} leaves",
                    names[a]
                )));
            }
            columns.push(col);
        }
        let n = names.len();
        let rows: u64 = counts.iter().sum();
        let mut sens = Vec::with_capacity(sensitive.len());
        for (name, values, col) in sensitive {
            if names.contains(&name) {
                return Err(AnonError::Config(format!(
                    "column '{name}' is both a quasi-identifier and sensitive"
                )));
            }
            if col.len() != height {
                return Err(AnonError::Config(format!(
                    "sensitive column '{name}' has {} codes for {height} counts",
                    col.len()
                )));
            }
            let mut global = vec![0.0; values.len()];
            for (&c, &k) in col.iter().zip(&counts) {
                match global.get_mut(c as usize) {
                    Some(g) => *g += k as f64 / rows.max(1) as f64,
                    None => {
                        return Err(AnonError::Config(format!(
                            "sensitive column '{name}': code {c} is outside its {} values",
                            values.len()
                        )))
                    }
                }
            }
            columns.push(col);
            sens.push(Sensitive {
                name,
                values,
                global,
            });
        }
        let carry: Vec<usize> = (n..n + sens.len()).collect();
        let sizes: Vec<usize> = hierarchies
            .iter()
            .map(|h| h.domain_size(0))
            .chain(sens.iter().map(|s| s.values.len()))
            .collect();
        let layout = Layout::new(&sizes).map(Arc::new);
        // Group the rows (the one pass over them): in the native kernel when the
        // codes pack into 64 bits, else as a Polars group-by.
        let mut marginals = None;
        let data = match &layout {
            Some(layout) => {
                let mut keys = vec![0u64; height];
                for (a, column) in columns.iter().enumerate() {
                    let shift = layout.shift[a];
                    for (k, &c) in keys.iter_mut().zip(column) {
                        *k |= (c as u64) << shift;
                    }
                }
                // at most one group per combination of codes: few columns
                // with few values need a small table, not one per row
                let groups = sizes
                    .iter()
                    .fold(1usize, |p, &d| p.saturating_mul(d.max(1)));
                // the thread's warm table: a fresh one of this size costs
                // page faults that outweigh the rows
                let start = height.min(groups);
                let (f0_keys, f0_counts) = with_table!(layout, rows, |tables| {
                    tables.with(|agg| {
                        let mut agg = agg.borrow_mut();
                        agg.start(start);
                        agg.feed(&keys, &counts, |k| k);
                        agg.finish()
                    })
                });
                // each attribute's marginal in tables sized by its leaves
                // (times the carried values); without carried values, counted
                // first in an array by leaf code, which is cheaper per row
                // than a table
                let carry_bits = carry.iter().fold(0u64, |m, &c| m | layout.field(c));
                let carry_size = sens
                    .iter()
                    .fold(1usize, |p, s| p.saturating_mul(s.values.len().max(1)));
                let mut margins: Vec<(u64, Aggregator)> = (0..n)
                    .map(|a| {
                        let mut m = Aggregator::new();
                        m.start(height.min(sizes[a].max(1).saturating_mul(carry_size)));
                        (carry_bits | layout.field(a), m)
                    })
                    .collect();
                if carry.is_empty() {
                    for (a, (_, m)) in margins.iter_mut().enumerate() {
                        // four counters per code, taken in turn: a column of
                        // few values would otherwise wait on the same counter
                        // row after row
                        let mut lanes = vec![[0u64; 4]; sizes[a]];
                        let mut rows = columns[a].chunks_exact(4).zip(counts.chunks_exact(4));
                        for (codes, cs) in &mut rows {
                            for l in 0..4 {
                                lanes[codes[l] as usize][l] += cs[l];
                            }
                        }
                        let tail = columns[a].len() / 4 * 4;
                        for (&code, &c) in columns[a][tail..].iter().zip(&counts[tail..]) {
                            lanes[code as usize][0] += c;
                        }
                        let (codes, sums): (Vec<u64>, Vec<u64>) = (0u64..)
                            .zip(lanes.iter().map(|l| l.iter().sum::<u64>()))
                            .filter(|&(_, c)| c > 0)
                            .map(|(code, c)| (code << layout.shift[a], c))
                            .unzip();
                        m.feed(&codes, &sums, |k| k);
                    }
                } else {
                    for (&k, &c) in keys.iter().zip(&counts) {
                        for (mask, m) in margins.iter_mut() {
                            m.add(k & *mask, c);
                        }
                    }
                }
                marginals = Some(
                    margins
                        .iter_mut()
                        .enumerate()
                        .map(|(a, (_, m))| m.take_set(&[a], &[0], &carry, layout))
                        .collect(),
                );
                SetData::Packed {
                    layout: layout.clone(),
                    keys: f0_keys,
                    counts: f0_counts,
                }
            }
            None => {
                let mut frame: Vec<Column> = columns
                    .into_iter()
                    .enumerate()
                    .map(|(a, c)| UInt32Chunked::from_vec(code_col(a).into(), c).into_column())
                    .collect();
                frame.push(UInt64Chunked::from_vec(COUNT.into(), counts).into_column());
                let df = DataFrame::new(height, frame)?;
                let keys: Vec<Expr> = (0..n + sens.len()).map(|a| col(code_col(a))).collect();
                SetData::Frame(df.lazy().group_by(keys).agg([col(COUNT).sum()]).collect()?)
            }
        };
        let base = FreqSet {
            attrs: (0..n).collect(),
            levels: vec![0; n],
            carry,
            data,
        };
        Ok(Problem {
            names,
            hierarchies,
            base,
            rows,
            layout,
            sensitive: sens,
            marginals,
        })
    }
}
