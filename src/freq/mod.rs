//! Frequency sets and rollups.
//!
//! A frequency set holds one `u32` code column per attribute (`q{index}`, codes of
//! that attribute's hierarchy at the set's level) and a `count` column (`u64`).
//! The base set `F0` is the table grouped by all quasi-identifiers at level 0
//! ([`f0`]); it is the only thing built from the raw rows. Every other set is a
//! rollup of an existing one ([`rollup`]): map codes up through the hierarchy,
//! group by, sum counts.
//!
//! Two engines do a rollup and must agree exactly (tested): lazy Polars plans
//! ([`polars_plan`], many plans per `collect_all`) and a tight kernel over
//! packed code buffers ([`aggregate`]); [`engine`] says which runs.

use std::sync::Arc;

use polars::prelude::*;

use crate::error::Result;

pub(crate) mod aggregate;
pub mod batches;
pub mod blocks;
pub mod engine;
mod f0;
pub mod floors;
pub mod layout;
mod polars_plan;
pub mod problem;
pub mod rollup;
mod wide;

pub use batches::Batches;
pub use blocks::Blocks;
pub use engine::Engine;
pub use floors::Floors;
pub use layout::Layout;
pub use problem::{Problem, Sensitive};
pub use rollup::RollupJob;

pub const COUNT: &str = "count";

pub fn code_col(attr: usize) -> String {
    format!("q{attr}")
}

/// A column's values without nulls: borrowed when they sit in one chunk,
/// copied otherwise (a search reads F0's counts thousands of times).
pub(crate) fn values<T: PolarsNumericType>(
    col: &ChunkedArray<T>,
) -> std::borrow::Cow<'_, [T::Native]> {
    match col.cont_slice() {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(col.into_no_null_iter().collect()),
    }
}

/// Rows of a frequency set: a Polars frame (`q{attr}` code columns and `count`),
/// or packed keys and counts for the native kernel.
#[derive(Clone, Debug)]
pub enum SetData {
    Frame(DataFrame),
    Packed {
        layout: Arc<Layout>,
        keys: Vec<u64>,
        counts: Vec<u64>,
    },
}

/// The frequency set of the table w.r.t. `attrs` generalized to `levels`.
#[derive(Clone, Debug)]
pub struct FreqSet {
    pub attrs: Vec<usize>,
    pub levels: Vec<u8>,
    /// Columns carried unchanged through every rollup: the sensitive
    /// attributes (indices after the quasi-identifiers).
    pub carry: Vec<usize>,
    pub data: SetData,
}

impl FreqSet {
    pub fn rows(&self) -> usize {
        match &self.data {
            SetData::Frame(df) => df.height(),
            SetData::Packed { keys, .. } => keys.len(),
        }
    }
    /// Its size in memory: a packed key and a count a row, or a code per
    /// attribute and a count as a Polars frame.
    pub fn bytes(&self) -> usize {
        let per_row = match self.data {
            SetData::Packed { .. } => 16,
            SetData::Frame(_) => 8 + 4 * (self.attrs.len() + self.carry.len()),
        };
        self.rows() * per_row
    }
    pub fn counts(&self) -> Result<std::borrow::Cow<'_, [u64]>> {
        Ok(match &self.data {
            SetData::Frame(df) => values(df.column(COUNT)?.u64()?),
            SetData::Packed { counts, .. } => std::borrow::Cow::Borrowed(counts),
        })
    }
    pub fn codes(&self, attr: usize) -> Result<Vec<u32>> {
        Ok(match &self.data {
            SetData::Frame(df) => df
                .column(&code_col(attr))?
                .u32()?
                .into_no_null_iter()
                .collect(),
            SetData::Packed { layout, keys, .. } => {
                keys.iter().map(|&k| layout.get(k, attr)).collect()
            }
        })
    }
    /// As a Polars frame (unpacking packed keys).
    pub fn frame(&self) -> Result<DataFrame> {
        match &self.data {
            SetData::Frame(df) => Ok(df.clone()),
            SetData::Packed { counts, .. } => {
                // the carried (sensitive) columns too: a rollup keys on them
                let mut columns = Vec::with_capacity(self.attrs.len() + self.carry.len() + 1);
                for &a in self.attrs.iter().chain(&self.carry) {
                    columns.push(
                        UInt32Chunked::from_vec(code_col(a).into(), self.codes(a)?).into_column(),
                    );
                }
                columns.push(UInt64Chunked::from_vec(COUNT.into(), counts.clone()).into_column());
                Ok(DataFrame::new(counts.len(), columns)?)
            }
        }
    }
    /// Packed keys and counts: borrowed when the set is packed, built otherwise.
    #[allow(clippy::type_complexity)]
    pub fn packed(
        &self,
        layout: &Arc<Layout>,
    ) -> Result<(std::borrow::Cow<'_, [u64]>, std::borrow::Cow<'_, [u64]>)> {
        if let SetData::Packed { keys, counts, .. } = &self.data {
            return Ok((
                std::borrow::Cow::Borrowed(keys),
                std::borrow::Cow::Borrowed(counts),
            ));
        }
        let mut keys = vec![0u64; self.rows()];
        for &a in self.attrs.iter().chain(&self.carry) {
            for (k, c) in keys.iter_mut().zip(self.codes(a)?) {
                *k |= (c as u64) << layout.shift[a];
            }
        }
        Ok((std::borrow::Cow::Owned(keys), self.counts()?))
    }
    /// Rows as (codes in attribute order, count), sorted: for comparisons in tests.
    pub fn sorted_rows(&self) -> Result<Vec<(Vec<u32>, u64)>> {
        let cols: Vec<Vec<u32>> = self
            .attrs
            .iter()
            .map(|&a| self.codes(a))
            .collect::<Result<_>>()?;
        let counts = self.counts()?;
        let mut rows: Vec<(Vec<u32>, u64)> = (0..counts.len())
            .map(|r| (cols.iter().map(|c| c[r]).collect(), counts[r]))
            .collect();
        rows.sort();
        Ok(rows)
    }
}

#[cfg(test)]
mod tests;
