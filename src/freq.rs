//! Frequency sets and rollups.
//!
//! A frequency set holds one `u32` code column per attribute (`q{index}`, codes of
//! that attribute's hierarchy at the set's level) and a `count` column (`u64`).
//! The base set `F0` is the table grouped by all quasi-identifiers at level 0;
//! it is the only thing built from the raw rows. Every other set is a rollup of
//! an existing one: map codes up through the hierarchy, group by, sum counts.
//!
//! Two engines do a rollup and must agree exactly (tested): lazy Polars plans
//! (`Engine::Polars`, many plans per `collect_all`) and a tight kernel over the
//! code buffers (`Engine::Native`, dense array or hash on a packed key), which is
//! what `Engine::Auto` picks whenever the packed key fits in 64 bits.

use std::collections::HashMap;

use std::sync::Arc;

use polars::prelude::*;

use crate::error::{AnonError, Result};
use crate::hierarchy::Hierarchy;

pub const COUNT: &str = "count";

pub fn code_col(attr: usize) -> String {
    format!("q{attr}")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    #[default]
    Auto,
    Polars,
    Native,
}

impl std::str::FromStr for Engine {
    type Err = AnonError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Engine::Auto),
            "polars" => Ok(Engine::Polars),
            "native" => Ok(Engine::Native),
            _ => Err(AnonError::Config(format!(
                "unknown engine {s:?}; expected one of \"auto\", \"polars\", \"native\""
            ))),
        }
    }
}

/// Where each attribute's code sits in a packed 64-bit group key: a fixed bit
/// field wide enough for its leaf codes (codes at every level are smaller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    shift: Vec<u32>,
    mask: Vec<u64>,
    /// Every key fits in 32 bits and none is all ones (the field of a domain
    /// that is not a power of two never is): keys can sit in 32-bit slots.
    narrow: bool,
}

impl Layout {
    /// One field per domain (the QIs' leaves, then the sensitive attributes'
    /// values); `None` when the fields need more than 63 bits.
    pub fn new(domain_sizes: &[usize]) -> Option<Self> {
        let mut shift = Vec::with_capacity(domain_sizes.len());
        let mut mask = Vec::with_capacity(domain_sizes.len());
        let mut at = 0u32;
        for &size in domain_sizes {
            let size = size.max(1) as u64;
            let bits = 64 - (size - 1).leading_zeros();
            shift.push(at);
            mask.push(if bits == 0 { 0 } else { (1u64 << bits) - 1 });
            at += bits;
        }
        let never_all_ones = domain_sizes.iter().any(|&d| !d.max(1).is_power_of_two());
        let narrow = at < 32 || (at == 32 && never_all_ones);
        (at <= 63).then_some(Layout {
            shift,
            mask,
            narrow,
        })
    }
    #[inline]
    pub fn get(&self, key: u64, attr: usize) -> u32 {
        ((key >> self.shift[attr]) & self.mask[attr]) as u32
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
    pub fn counts(&self) -> Result<std::borrow::Cow<'_, [u64]>> {
        Ok(match &self.data {
            SetData::Frame(df) => {
                std::borrow::Cow::Owned(df.column(COUNT)?.u64()?.into_no_null_iter().collect())
            }
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
                let mut columns = Vec::with_capacity(self.attrs.len() + 1);
                for &a in &self.attrs {
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

/// Statistics of one node's groups under k (tuples of groups smaller than k are
/// the ones suppression would remove).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GroupStats {
    pub groups: u64,
    pub min_group: u64,
    pub suppressed: u64,
    pub kept_groups: u64,
    pub kept_sum_sq: u128,
}

impl GroupStats {
    pub fn of_counts(counts: &[u64], k: u64) -> Self {
        Self::of_counts_iter(counts.iter().copied(), k)
    }

    pub fn of_counts_iter(counts: impl Iterator<Item = u64>, k: u64) -> Self {
        let mut s = GroupStats {
            min_group: u64::MAX,
            ..Default::default()
        };
        for c in counts {
            s.groups += 1;
            s.min_group = s.min_group.min(c);
            if c < k {
                s.suppressed += c;
            } else {
                s.kept_groups += 1;
                s.kept_sum_sq += (c as u128) * (c as u128);
            }
        }
        if s.groups == 0 {
            s.min_group = 0;
        }
        s
    }
}

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
                fn group<W: Word>(
                    tables: &'static std::thread::LocalKey<std::cell::RefCell<Aggregator<W>>>,
                    keys: &[u64],
                    counts: &[u64],
                    start: usize,
                ) -> (Vec<u64>, Vec<u64>) {
                    tables.with(|agg| {
                        let mut agg = agg.borrow_mut();
                        agg.start(start);
                        agg.feed(keys, counts, |k| k);
                        agg.finish()
                    })
                }
                let start = height.min(groups);
                let (f0_keys, f0_counts) = if narrow(layout, rows) {
                    group(&NARROW, &keys, &counts, start)
                } else {
                    group(&AGGREGATOR, &keys, &counts, start)
                };
                // each attribute's marginal in tables sized by its leaves
                // (times the carried values); without carried values, counted
                // first in an array by leaf code, which is cheaper per row
                // than a table
                let carry_bits = carry
                    .iter()
                    .fold(0u64, |m, &c| m | (layout.mask[c] << layout.shift[c]));
                let carry_size = sens
                    .iter()
                    .fold(1usize, |p, s| p.saturating_mul(s.values.len().max(1)));
                let mut margins: Vec<(u64, Aggregator)> = (0..n)
                    .map(|a| {
                        let mut m = Aggregator::new();
                        m.start(height.min(sizes[a].max(1).saturating_mul(carry_size)));
                        (carry_bits | (layout.mask[a] << layout.shift[a]), m)
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

    /// From a frame of raw values: group by the quasi-identifiers (cast to
    /// strings) and count, then encode each distinct value through its
    /// hierarchy. A missing hierarchy means "no generalization" (height 0).
    pub fn from_frame(
        data: LazyFrame,
        names: &[&str],
        hierarchies: Vec<Option<Hierarchy>>,
        sensitive: &[&str],
    ) -> Result<Self> {
        let all: Vec<&str> = names.iter().chain(sensitive).copied().collect();
        let keys: Vec<Expr> = all.iter().map(|&n| col(n).cast(DataType::String)).collect();
        let grouped = data
            .select(keys)
            .group_by(all.iter().map(|&n| col(n)).collect::<Vec<_>>())
            .agg([len().alias(COUNT)])
            .collect()?;
        let mut codes = Vec::with_capacity(names.len());
        let mut hs = Vec::with_capacity(names.len());
        for (name, h) in names.iter().zip(hierarchies) {
            let values: Vec<Option<&str>> = grouped.column(name)?.str()?.iter().collect();
            let h = match h {
                Some(h) => h,
                None => Hierarchy::identity(&distinct(&values))?,
            };
            codes.push(h.encode(name, &values)?);
            hs.push(h);
        }
        let mut sens = Vec::with_capacity(sensitive.len());
        for name in sensitive {
            let values: Vec<Option<&str>> = grouped.column(name)?.str()?.iter().collect();
            let domain = distinct(&values);
            let h = Hierarchy::identity(&domain)?;
            sens.push((
                name.to_string(),
                h.leaves().to_vec(),
                h.encode(name, &values)?,
            ));
        }
        let counts: Vec<u64> = grouped
            .column(COUNT)?
            .cast(&DataType::UInt64)?
            .u64()?
            .into_no_null_iter()
            .collect();
        Self::with_sensitive(
            names.iter().map(|s| s.to_string()).collect(),
            hs,
            codes,
            sens,
            counts,
        )
    }

    pub fn n_attrs(&self) -> usize {
        self.names.len()
    }
    pub fn heights(&self) -> Vec<u8> {
        self.hierarchies.iter().map(|h| h.height()).collect()
    }

    fn check_target(&self, from: &FreqSet, attrs: &[usize], levels: &[u8]) {
        debug_assert_eq!(attrs.len(), levels.len());
        for (a, l) in attrs.iter().zip(levels) {
            let pos = from
                .attrs
                .iter()
                .position(|x| x == a)
                .expect("rollup target attribute must be in the source set");
            assert!(
                from.levels[pos] <= *l,
                "rollup goes up the hierarchy, never down"
            );
        }
    }

    /// Rollups of many (source, attrs, levels) jobs at once; with the Polars
    /// engine they run as one `collect_all`.
    pub fn rollup_many(
        &self,
        jobs: &[(&FreqSet, Vec<usize>, Vec<u8>)],
        engine: Engine,
    ) -> Result<Vec<FreqSet>> {
        for (from, attrs, levels) in jobs {
            self.check_target(from, attrs, levels);
        }
        let Some(layout) = self.layout.as_ref().filter(|_| engine != Engine::Polars) else {
            if engine == Engine::Native {
                return Err(AnonError::Config(
                    "the codes of these hierarchies do not pack into 63 bits; use engine=\"polars\""
                        .into(),
                ));
            }
            return self.rollup_polars(jobs);
        };
        if narrow(layout, self.rows) {
            self.native_jobs(jobs, &NARROW, |_, j, agg| {
                self.aggregate(j.0, &j.1, &j.2, agg, layout)?;
                Ok(agg.take_set(&j.1, &j.2, &j.0.carry, layout))
            })
        } else {
            self.native_jobs(jobs, &AGGREGATOR, |_, j, agg| {
                self.aggregate(j.0, &j.1, &j.2, agg, layout)?;
                Ok(agg.take_set(&j.1, &j.2, &j.0.carry, layout))
            })
        }
    }

    /// Runs `f` on every job (with its index) and the native kernel's table of
    /// the thread it lands on: independent rollups spread over rayon's pool one
    /// job at a time (they differ wildly in size: a root from a cuboid against a
    /// small child), each pool thread keeping its own table between rollups and
    /// batches; small batches stay on the calling thread.
    fn native_jobs<W: Word, T: Send>(
        &self,
        jobs: &[(&FreqSet, Vec<usize>, Vec<u8>)],
        tables: &'static std::thread::LocalKey<std::cell::RefCell<Aggregator<W>>>,
        f: impl Fn(usize, &(&FreqSet, Vec<usize>, Vec<u8>), &mut Aggregator<W>) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let one = |(i, j): (usize, &(&FreqSet, Vec<usize>, Vec<u8>))| {
            tables.with(|agg| f(i, j, &mut agg.borrow_mut()))
        };
        if serial(jobs) {
            return jobs.iter().enumerate().map(one).collect();
        }
        use rayon::prelude::*;
        jobs.par_iter()
            .enumerate()
            .with_max_len(1)
            .map(one)
            .collect()
    }

    pub fn rollup(
        &self,
        from: &FreqSet,
        attrs: &[usize],
        levels: &[u8],
        engine: Engine,
    ) -> Result<FreqSet> {
        let mut v = self.rollup_many(&[(from, attrs.to_vec(), levels.to_vec())], engine)?;
        Ok(v.pop().expect("one job, one result"))
    }

    /// The map taking `attr`'s codes in `from` up to level `to`, or `None`
    /// when they are at that level already (no identity map is built: most
    /// attributes of a rollup do not change).
    fn level_map(&self, from: &FreqSet, attr: usize, to: u8) -> Option<Vec<u32>> {
        let pos = from
            .attrs
            .iter()
            .position(|&x| x == attr)
            .expect("attr in source");
        let src = from.levels[pos];
        (src != to).then(|| self.hierarchies[attr].map_between(src, to))
    }

    fn rollup_polars(&self, jobs: &[(&FreqSet, Vec<usize>, Vec<u8>)]) -> Result<Vec<FreqSet>> {
        let mut plans = Vec::with_capacity(jobs.len());
        for (from, attrs, levels) in jobs {
            let frame = from.frame()?;
            let mut columns = Vec::with_capacity(attrs.len() + 1);
            for (&a, &l) in attrs.iter().zip(levels) {
                let name = code_col(a);
                let c = frame.column(&name)?;
                match self.level_map(from, a, l) {
                    None => columns.push(c.clone()),
                    Some(map) => {
                        let mapped = c.u32()?.apply_values(|v| map[v as usize]);
                        columns.push(mapped.into_column());
                    }
                }
            }
            for &c in &from.carry {
                columns.push(frame.column(&code_col(c))?.clone());
            }
            columns.push(frame.column(COUNT)?.clone());
            let df = DataFrame::new(frame.height(), columns)?;
            let keys: Vec<Expr> = attrs
                .iter()
                .chain(&from.carry)
                .map(|&a| col(code_col(a)))
                .collect();
            plans.push(
                df.lazy()
                    .group_by(keys)
                    .agg([col(COUNT).sum()])
                    .logical_plan,
            );
        }
        let frames = LazyFrame::collect_all_with_engine(
            plans,
            polars::prelude::Engine::InMemory,
            OptFlags::default(),
        )?;
        Ok(frames
            .into_iter()
            .zip(jobs)
            .map(|(df, (from, attrs, levels))| FreqSet {
                attrs: attrs.clone(),
                levels: levels.clone(),
                carry: from.carry.clone(),
                data: SetData::Frame(df),
            })
            .collect())
    }

    /// The tight kernel: rewrite the packed key of each row of `from` (map the
    /// fields of the attributes that go up, clear those dropped) and sum counts
    /// in `agg`'s open-addressing table, where the groups are left.
    fn aggregate<W: Word>(
        &self,
        from: &FreqSet,
        attrs: &[usize],
        levels: &[u8],
        agg: &mut Aggregator<W>,
        layout: &Arc<Layout>,
    ) -> Result<()> {
        let mut clear = 0u64;
        for &a in &from.attrs {
            if !attrs.contains(&a) {
                clear |= layout.mask[a] << layout.shift[a];
            }
        }
        let mut maps: Vec<(u32, u64, Vec<u64>)> = Vec::new();
        for (&a, &l) in attrs.iter().zip(levels) {
            if let Some(map) = self.level_map(from, a, l) {
                let shifted = map.iter().map(|&c| (c as u64) << layout.shift[a]).collect();
                maps.push((layout.shift[a], layout.mask[a], shifted));
            }
        }
        let keep = !clear & !maps.iter().fold(0u64, |m, (sh, mk, _)| m | (mk << sh));
        let (src, counts) = from.packed(layout)?;
        // One pass: rewrite each key and add its count into the table.
        // The product of the target domains bounds the groups exactly: for
        // general nodes it keeps the table small enough to stay in L1.
        let n = self.names.len();
        let bound = attrs
            .iter()
            .zip(levels)
            .map(|(&a, &l)| self.hierarchies[a].domain_size(l))
            .chain(
                from.carry
                    .iter()
                    .map(|&c| self.sensitive[c - n].values.len()),
            )
            .try_fold(1usize, |acc, d| acc.checked_mul(d.max(1)))
            .unwrap_or(usize::MAX);
        agg.start(src.len().min(bound));
        match maps.as_slice() {
            [] => agg.feed(&src, &counts, |k| k & keep),
            [(sh, mk, map)] => agg.feed(&src, &counts, |k| {
                (k & keep) | map[((k >> sh) & mk) as usize]
            }),
            _ => {
                // Many fields change: when the source is large enough to pay
                // for it, remap whole runs of adjacent fields with one lookup.
                let (keep, maps) = chunk_maps(&maps, keep, src.len()).unwrap_or((keep, maps));
                agg.feed(&src, &counts, |k| {
                    maps.iter().fold(k & keep, |v, (sh, mk, map)| {
                        v | map[((k >> sh) & mk) as usize]
                    })
                })
            }
        }
        Ok(())
    }

    /// Roll many jobs up and check each under `model`: the tuples it would
    /// suppress, and its set only when `keep` says so and it is not anonymous
    /// (more than `max_suppressed` tuples to suppress), the only sets a search
    /// reads again. With the native kernel and no sensitive criteria the
    /// count is kept while the rows go into the table (a pass over the groups
    /// afterwards cost ~8% of a search at 5% suppression on Adult) and the
    /// other sets never leave the table.
    pub fn check_many(
        &self,
        jobs: &[(&FreqSet, Vec<usize>, Vec<u8>)],
        keep: &[bool],
        model: &Model,
        max_suppressed: u64,
        engine: Engine,
    ) -> Result<Vec<(u64, Option<FreqSet>)>> {
        let fast = engine != Engine::Polars
            && model.criteria.is_empty()
            && jobs.iter().all(|j| j.0.carry.is_empty());
        let Some(layout) = self.layout.as_ref().filter(|_| fast) else {
            let sets = self.rollup_many(jobs, engine)?;
            return sets
                .into_iter()
                .zip(keep)
                .map(|(fs, &keep)| {
                    let suppressed = self.group_stats(&fs, model)?.suppressed;
                    let keep = keep && suppressed > max_suppressed;
                    Ok((suppressed, keep.then_some(fs)))
                })
                .collect();
        };
        for (from, attrs, levels) in jobs {
            self.check_target(from, attrs, levels);
        }
        if narrow(layout, self.rows) {
            self.native_jobs(jobs, &NARROW, |i, j, agg| {
                self.check_one(j, keep[i], model.k, max_suppressed, agg, layout)
            })
        } else {
            self.native_jobs(jobs, &AGGREGATOR, |i, j, agg| {
                self.check_one(j, keep[i], model.k, max_suppressed, agg, layout)
            })
        }
    }

    /// One job of `check_many` in the native kernel.
    fn check_one<W: Word>(
        &self,
        j: &(&FreqSet, Vec<usize>, Vec<u8>),
        keep: bool,
        k: u64,
        max_suppressed: u64,
        agg: &mut Aggregator<W>,
        layout: &Arc<Layout>,
    ) -> Result<(u64, Option<FreqSet>)> {
        agg.below = k;
        self.aggregate(j.0, &j.1, &j.2, agg, layout)?;
        agg.below = 0;
        let suppressed = agg.suppressed;
        if keep && suppressed > max_suppressed {
            Ok((
                suppressed,
                Some(agg.take_set(&j.1, &j.2, &j.0.carry, layout)),
            ))
        } else {
            agg.clear();
            Ok((suppressed, None))
        }
    }

    /// The frequency set of a full-lattice node, rolled up from F0.
    pub fn node_set(&self, node: &[u8], engine: Engine) -> Result<FreqSet> {
        self.rollup(&self.base, &self.base.attrs, node, engine)
    }

    /// Group statistics of a full-lattice node under the model.
    pub fn node_stats(&self, node: &[u8], model: &Model, engine: Engine) -> Result<GroupStats> {
        self.group_stats(&self.node_set(node, engine)?, model)
    }

    /// The QI groups of a set (rows sharing the quasi-identifier part of the
    /// key), as runs of row indices, with the packed keys.
    #[allow(clippy::type_complexity)]
    fn qi_groups<'a>(
        &self,
        fs: &'a FreqSet,
    ) -> Result<(std::borrow::Cow<'a, [u64]>, Vec<u32>, Vec<usize>)> {
        let layout = self.layout.as_ref().ok_or_else(|| {
            AnonError::Config(
                "the codes of these attributes do not pack into 63 bits, which sensitive-attribute models need"
                    .into(),
            )
        })?;
        let (keys, _) = fs.packed(layout)?;
        let qi_mask = fs
            .attrs
            .iter()
            .fold(0u64, |m, &a| m | (layout.mask[a] << layout.shift[a]));
        let mut order: Vec<u32> = (0..keys.len() as u32).collect();
        order.sort_unstable_by_key(|&r| keys[r as usize] & qi_mask);
        let mut starts = Vec::new();
        for (i, &r) in order.iter().enumerate() {
            if i == 0 || keys[r as usize] & qi_mask != keys[order[i - 1] as usize] & qi_mask {
                starts.push(i);
            }
        }
        starts.push(order.len());
        Ok((keys, order, starts))
    }

    /// Does one QI group (rows `rows` of a set) pass the model? Its size first.
    fn group_passes(&self, model: &Model, keys: &[u64], counts: &[u64], rows: &[u32]) -> bool {
        let size: u64 = rows.iter().map(|&r| counts[r as usize]).sum();
        if size < model.k {
            return false;
        }
        let layout = self.layout.as_ref().expect("checked by qi_groups");
        let n = self.names.len();
        model.criteria.iter().all(|c| {
            let j = c.attr();
            let mut hist: Vec<(u32, u64)> = rows
                .iter()
                .map(|&r| (layout.get(keys[r as usize], n + j), counts[r as usize]))
                .collect();
            hist.sort_unstable();
            hist.dedup_by(|b, a| {
                if a.0 == b.0 {
                    a.1 += b.1;
                    true
                } else {
                    false
                }
            });
            c.holds(&hist, &self.sensitive[j].global)
        })
    }

    /// Group statistics of a frequency set under the model: tuples of groups
    /// smaller than k or failing a criterion are the suppressed ones.
    pub fn group_stats(&self, fs: &FreqSet, model: &Model) -> Result<GroupStats> {
        if fs.carry.is_empty() {
            return Ok(GroupStats::of_counts(&fs.counts()?, model.k));
        }
        let counts = fs.counts()?;
        let (keys, order, starts) = self.qi_groups(fs)?;
        let mut s = GroupStats {
            min_group: u64::MAX,
            ..Default::default()
        };
        for w in starts.windows(2) {
            let rows = &order[w[0]..w[1]];
            let size: u64 = rows.iter().map(|&r| counts[r as usize]).sum();
            s.groups += 1;
            s.min_group = s.min_group.min(size);
            if self.group_passes(model, &keys, &counts, rows) {
                s.kept_groups += 1;
                s.kept_sum_sq += (size as u128) * (size as u128);
            } else {
                s.suppressed += size;
            }
        }
        if s.groups == 0 {
            s.min_group = 0;
        }
        Ok(s)
    }

    /// The QI codes (at the node's levels) of the groups the model suppresses.
    pub fn suppressed_groups(&self, node: &[u8], model: &Model) -> Result<Vec<Vec<u32>>> {
        let fs = self.node_set(node, Engine::Auto)?;
        let counts = fs.counts()?;
        let mut out = Vec::new();
        if fs.carry.is_empty() {
            let cols: Vec<Vec<u32>> = fs
                .attrs
                .iter()
                .map(|&a| fs.codes(a))
                .collect::<Result<_>>()?;
            for (r, &c) in counts.iter().enumerate() {
                if c < model.k {
                    out.push(cols.iter().map(|col| col[r]).collect());
                }
            }
            return Ok(out);
        }
        let layout = self
            .layout
            .as_ref()
            .expect("sets with sensitive columns are packed");
        let (keys, order, starts) = self.qi_groups(&fs)?;
        for w in starts.windows(2) {
            let rows = &order[w[0]..w[1]];
            if !self.group_passes(model, &keys, &counts, rows) {
                let key = keys[rows[0] as usize];
                out.push(fs.attrs.iter().map(|&a| layout.get(key, a)).collect());
            }
        }
        Ok(out)
    }
}

/// What a release must satisfy: k-anonymity and the sensitive-attribute criteria.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub k: u64,
    pub criteria: Vec<crate::criteria::Criterion>,
}

impl Model {
    pub fn k(k: u64) -> Self {
        Model {
            k,
            criteria: Vec::new(),
        }
    }
}

fn distinct<'a>(values: &[Option<&'a str>]) -> Vec<&'a str> {
    let mut d: Vec<&str> = values.iter().flatten().copied().collect();
    d.sort_unstable();
    d.dedup();
    d
}

/// Rows below which a batch of rollups runs on the calling thread: waking the
/// pool costs more than it saves for a few thousand rows (measured: thread
/// switches were ~8% of a 0%-suppression search on Adult).
const PARALLEL_MIN_ROWS: usize = 8_192;

fn serial(jobs: &[(&FreqSet, Vec<usize>, Vec<u8>)]) -> bool {
    jobs.len() < 2
        || rayon::current_num_threads() < 2
        || jobs.iter().map(|j| j.0.rows()).sum::<usize>() < PARALLEL_MIN_ROWS
}

/// Widest run of key bits remapped by one lookup table (2^12 entries, 32 KiB).
const CHUNK_BITS: u32 = 12;

/// Remap tables over runs of adjacent bit fields instead of one per field:
/// each table takes a run of up to `CHUNK_BITS` bits of the source key (the
/// changing fields and any kept or dropped ones between them) to the run's
/// bits in the new key. `None` when that saves nothing or the tables would cost more
/// to fill than the rows they serve (measured on Adult: with 9 fields changing,
/// three lookups instead of nine halve a rollup's time per row).
#[allow(clippy::type_complexity)]
fn chunk_maps(
    maps: &[(u32, u64, Vec<u64>)],
    keep: u64,
    rows: usize,
) -> Option<(u64, Vec<(u32, u64, Vec<u64>)>)> {
    let mut order: Vec<&(u32, u64, Vec<u64>)> = maps.iter().collect();
    order.sort_by_key(|m| m.0);
    let width = |m: &(u32, u64, Vec<u64>)| 64 - m.1.leading_zeros();
    let mut runs: Vec<Vec<&(u32, u64, Vec<u64>)>> = Vec::new();
    for m in order {
        match runs.last_mut() {
            Some(run) if m.0 + width(m) - run[0].0 <= CHUNK_BITS => run.push(m),
            _ => runs.push(vec![m]),
        }
    }
    let cost: usize = runs
        .iter()
        .map(|r| {
            let last = r[r.len() - 1];
            1usize << (last.0 + width(last) - r[0].0)
        })
        .sum();
    if runs.len() >= maps.len() || rows < 2 * cost {
        return None;
    }
    let unchanged = keep;
    let mut keep = keep;
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        let (lo, last) = (run[0].0, run[run.len() - 1]);
        let bits = last.0 + width(last) - lo;
        let span = ((1u64 << bits) - 1) << lo;
        keep &= !span;
        let table = (0..1u64 << bits)
            .map(|v| {
                let full = v << lo;
                // fields between the changing ones pass unchanged; fields
                // dropped from the set (cleared in `keep`) do not
                run.iter().fold(full & unchanged, |acc, (sh, mk, map)| {
                    acc | map.get(((full >> sh) & mk) as usize).copied().unwrap_or(0)
                })
            })
            .collect();
        out.push((lo, (1u64 << bits) - 1, table));
    }
    Some((keep, out))
}

/// Whether a table of `rows` tuples can group in 32-bit slots: the keys fit
/// (`Layout::narrow`) and so does any count.
fn narrow(layout: &Layout, rows: u64) -> bool {
    layout.narrow && rows < u32::MAX as u64
}

/// Sums counts by key (keys below `W::EMPTY`) in an open-addressing table of
/// (key, count) slots of `W` (`u32` where the keys and counts fit: the table
/// is half the size, ~5% less time per row on Adult with 5% suppression).
/// One aggregator serves many rollups in turn: its slots are allocated once,
/// each rollup uses a window of them sized at twice its input rows (a rollup
/// never has more groups than input rows, so the window never fills past
/// half), and the slots it filled are listed, so emptying the table for the
/// next rollup costs its output, not the window. Measured on
/// Adult: allocating, filling and scanning a fresh table per rollup cost more
/// than the hashing once most rollups had small outputs.
struct Aggregator<W: Word = u64> {
    slots: Vec<(W, W)>,
    mask: usize,
    bits: u32,
    /// Slots filled, in order: the first `n` entries (the vector is kept
    /// longer than half the table, so `add_many` records a slot whether or
    /// not it was new and keeps the record only if it was, without a branch).
    used: Vec<u32>,
    n: usize,
    /// Groups with fewer tuples than this are suppressed (0: none are) ...
    below: u64,
    /// ... and this many tuples are in them, kept as rows arrive.
    suppressed: u64,
}

/// A key or count in a slot: stored narrowed, read and added as `u64`.
trait Word: Copy + Eq + 'static {
    const EMPTY: Self;
    const ZERO: Self;
    /// `v`, which fits (the layout and the table's tuples were checked).
    fn of(v: u64) -> Self;
    fn get(self) -> u64;
}

impl Word for u64 {
    const EMPTY: Self = u64::MAX;
    const ZERO: Self = 0;
    #[inline(always)]
    fn of(v: u64) -> Self {
        v
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self
    }
}

impl Word for u32 {
    const EMPTY: Self = u32::MAX;
    const ZERO: Self = 0;
    #[inline(always)]
    fn of(v: u64) -> Self {
        v as u32
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self as u64
    }
}

/// Keys hashed and prefetched ahead of their inserts (`Aggregator::add_many`).
const PROBES: usize = 32;

/// Tables from this many slots up (32 KiB) are fed in prefetched batches.
const PREFETCH_SLOTS: usize = 2048;

/// Ask for the cache line holding `slot` (a hint: no effect on results).
#[inline(always)]
fn prefetch<T>(slot: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults, and the pointer comes
    // from a reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((slot as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

thread_local! {
    /// The rollup tables of this thread (see `Aggregator`).
    static AGGREGATOR: std::cell::RefCell<Aggregator<u64>> = std::cell::RefCell::new(Aggregator::new());
    static NARROW: std::cell::RefCell<Aggregator<u32>> = std::cell::RefCell::new(Aggregator::new());
}

impl<W: Word> Aggregator<W> {
    fn new() -> Self {
        Aggregator {
            slots: Vec::new(),
            mask: 0,
            bits: 1,
            used: Vec::new(),
            n: 0,
            below: 0,
            suppressed: 0,
        }
    }

    /// Start a rollup of `input` rows (at most `1 << 22` slots up front; a
    /// larger one grows as it fills).
    fn start(&mut self, input: usize) {
        debug_assert!(self.n == 0, "finish the previous rollup first");
        self.suppressed = 0;
        let cap = (2 * input).clamp(64, 1 << 22).next_power_of_two();
        if self.slots.len() > (1 << 20).max(8 * cap) {
            // do not hold a large table (16 MiB and up) for small rollups
            self.slots = Vec::new();
            self.used = Vec::new();
        }
        self.size_to(cap);
    }

    /// Use the first `cap` slots (a power of two), growing the vectors when
    /// they are shorter; `used` is kept longer than half of them.
    fn size_to(&mut self, cap: usize) {
        if self.slots.len() < cap {
            self.slots.resize(cap, (W::EMPTY, W::ZERO));
        }
        if self.used.len() < cap / 2 + 1 {
            self.used.resize(cap / 2 + 1, 0);
        }
        self.mask = cap - 1;
        self.bits = cap.trailing_zeros();
    }

    /// Multiplicative hashing; the slot is taken from the product's top bits,
    /// which depend on every bit of the key (the middle bits used before
    /// ignored the fields packed highest and made long probe chains).
    #[inline(always)]
    fn slot(k: u64, bits: u32, mask: usize) -> usize {
        let h = (k ^ (k >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - bits)) as usize & mask
    }

    /// Keep `suppressed` up to date when a group's count goes from `old` to
    /// `new` (adding `c`): without branches, as it runs for every row.
    #[inline(always)]
    fn track(&mut self, old: u64, new: u64, c: u64) {
        let k = self.below;
        self.suppressed = self
            .suppressed
            .wrapping_add((new < k) as u64 * c)
            .wrapping_sub(((old < k) & (new >= k)) as u64 * old);
    }

    /// Add `c` to key `k`'s count.
    #[inline(always)]
    fn add(&mut self, k: u64, c: u64) {
        let mut i = Self::slot(k, self.bits, self.mask);
        let key = W::of(k);
        loop {
            let s = &mut self.slots[i];
            if s.0 == key {
                let old = s.1.get();
                s.1 = W::of(old + c);
                self.track(old, old + c, c);
                return;
            }
            if s.0 == W::EMPTY {
                *s = (key, W::of(c));
                self.track(0, c, c);
                self.used[self.n] = i as u32;
                self.n += 1;
                if self.n * 2 > self.mask {
                    self.grow_cold();
                }
                return;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Add every source row under `remap`. A table that fits in the first
    /// level cache takes rows one by one; a larger one takes them in batches
    /// whose slots are prefetched (`add_many`): measured on Adult with 5%
    /// suppression, where most rollups read and fill tables of thousands of
    /// groups, ~10% less time, and none gained on small tables.
    #[inline(always)]
    fn feed(&mut self, src: &[u64], counts: &[u64], remap: impl Fn(u64) -> u64) {
        if self.mask < PREFETCH_SLOTS {
            for (&k, &c) in src.iter().zip(counts) {
                self.add(remap(k), c);
            }
            return;
        }
        let mut out = [0u64; PROBES];
        for (keys, counts) in src.chunks(PROBES).zip(counts.chunks(PROBES)) {
            for (o, &k) in out.iter_mut().zip(keys) {
                *o = remap(k);
            }
            self.add_many(&out[..keys.len()], counts);
        }
    }

    /// Add a batch of (key, count) pairs, at most `PROBES`.
    #[inline(always)]
    fn add_many(&mut self, keys: &[u64], counts: &[u64]) {
        debug_assert!(keys.len() <= PROBES && counts.len() == keys.len());
        // room for every key of the batch at most half full, so the slots
        // found first stay valid through the batch
        while (self.n + keys.len()) * 2 > self.mask + 1 {
            self.grow_cold();
        }
        // find every slot first and ask for its cache line, then insert:
        // the loads of a batch overlap instead of waiting one by one
        let mut at = [0usize; PROBES];
        for (a, &k) in at.iter_mut().zip(keys) {
            *a = Self::slot(k, self.bits, self.mask);
            prefetch(&self.slots[*a]);
        }
        for ((&a, &k), &c) in at.iter().zip(keys).zip(counts) {
            let k = W::of(k);
            let mut i = a;
            while self.slots[i].0 != k && self.slots[i].0 != W::EMPTY {
                i = (i + 1) & self.mask;
            }
            let s = &mut self.slots[i];
            let new = s.0 == W::EMPTY;
            let old = s.1.get();
            *s = (k, W::of(old + c));
            self.track(old, old + c, c);
            self.used[self.n] = i as u32;
            self.n += new as usize;
        }
    }

    #[cold]
    #[inline(never)]
    fn grow_cold(&mut self) {
        let cap = (self.mask + 1) * 2;
        let entries: Vec<(W, W)> = self.used[..self.n]
            .iter()
            .map(|&i| std::mem::replace(&mut self.slots[i as usize], (W::EMPTY, W::ZERO)))
            .collect();
        self.size_to(cap);
        self.n = 0;
        for (k, c) in entries {
            let mut i = Self::slot(k.get(), self.bits, self.mask);
            while self.slots[i].0 != W::EMPTY {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = (k, c);
            self.used[self.n] = i as u32;
            self.n += 1;
        }
    }

    /// Empty the table without reading it out.
    fn clear(&mut self) {
        for &i in &self.used[..self.n] {
            self.slots[i as usize] = (W::EMPTY, W::ZERO);
        }
        self.n = 0;
    }

    /// The groups in the table as a packed frequency set; leaves it empty.
    fn take_set(
        &mut self,
        attrs: &[usize],
        levels: &[u8],
        carry: &[usize],
        layout: &Arc<Layout>,
    ) -> FreqSet {
        let (keys, counts) = self.finish();
        FreqSet {
            attrs: attrs.to_vec(),
            levels: levels.to_vec(),
            carry: carry.to_vec(),
            data: SetData::Packed {
                layout: layout.clone(),
                keys,
                counts,
            },
        }
    }

    /// The groups in the order they first appeared; leaves the table empty.
    fn finish(&mut self) -> (Vec<u64>, Vec<u64>) {
        let mut keys = Vec::with_capacity(self.n);
        let mut counts = Vec::with_capacity(self.n);
        for &i in &self.used[..self.n] {
            let (k, c) = std::mem::replace(&mut self.slots[i as usize], (W::EMPTY, W::ZERO));
            keys.push(k.get());
            counts.push(c.get());
        }
        self.n = 0;
        (keys, counts)
    }
}

impl Problem {
    /// Group statistics of many full-lattice nodes. Nodes are taken in order of
    /// height and each is rolled up from a direct specialization computed in the
    /// previous layer when there is one (else from F0), so the sets read shrink as
    /// the nodes grow more general.
    pub fn stats_many(
        &self,
        nodes: &[Vec<u8>],
        model: &Model,
        engine: Engine,
    ) -> Result<Vec<GroupStats>> {
        let mut order: Vec<usize> = (0..nodes.len()).collect();
        order.sort_by_key(|&i| crate::lattice::node_height(&nodes[i]));
        let all: Vec<usize> = (0..self.n_attrs()).collect();
        let mut out = vec![GroupStats::default(); nodes.len()];
        let mut prev: HashMap<Vec<u8>, FreqSet> = HashMap::new();
        let mut cur: HashMap<Vec<u8>, FreqSet> = HashMap::new();
        let mut cur_h = None;
        for i in order {
            let node = &nodes[i];
            let h = crate::lattice::node_height(node);
            if cur_h != Some(h) {
                prev = std::mem::take(&mut cur);
                if cur_h.map(|c| c + 1) != Some(h) {
                    prev.clear();
                }
                cur_h = Some(h);
            }
            let src = (0..node.len())
                .filter(|&a| node[a] > 0)
                .filter_map(|a| {
                    let mut p = node.clone();
                    p[a] -= 1;
                    prev.get(&p)
                })
                .min_by_key(|fs| fs.rows())
                .unwrap_or(&self.base);
            let fs = self.rollup(src, &all, node, engine)?;
            out[i] = self.group_stats(&fs, model)?;
            cur.insert(node.clone(), fs);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod aggregator_tests {
    use super::*;
    use std::collections::HashMap;

    /// Keys with repeats, drawn by a fixed linear congruential generator.
    fn rows(n: usize, distinct: u64) -> (Vec<u64>, Vec<u64>) {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                ((x >> 20) % distinct * 0x9e37, (x >> 8) % 5 + 1)
            })
            .unzip()
    }

    fn expected(keys: &[u64], counts: &[u64]) -> Vec<(u64, u64)> {
        let mut m: HashMap<u64, u64> = HashMap::new();
        for (&k, &c) in keys.iter().zip(counts) {
            *m.entry(k).or_default() += c;
        }
        let mut v: Vec<_> = m.into_iter().collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn both_feeds_and_growth_count_every_row_and_the_suppressed() {
        // keys below 2^32: the same rows through 64- and 32-bit slots
        feeds_and_growth::<u64>();
        feeds_and_growth::<u32>();
    }

    #[test]
    fn layouts_narrow_only_where_no_key_reaches_the_empty_slot() {
        // 31 bits; 32 bits with a field that is never all ones (5 values);
        // 32 bits of powers of two (a key may be all ones); 33 bits
        assert!(Layout::new(&[1 << 31]).unwrap().narrow);
        assert!(Layout::new(&[5, 1 << 29]).unwrap().narrow);
        assert!(!Layout::new(&[8, 1 << 29]).unwrap().narrow);
        assert!(!Layout::new(&[1 << 30, 8]).unwrap().narrow);
    }

    fn feeds_and_growth<W: Word>() {
        // (rows, distinct keys, size the table is started for): a table in
        // the first-level cache, a prefetched one, and tables started too
        // small so that each path grows while it is fed
        for (n, distinct, start) in [
            (5_000, 300, 5_000),
            (50_000, 20_000, 50_000),
            (50_000, 20_000, 10),
            (50_000, 20_000, 1_500),
            (3_000, 900, 10),
        ] {
            let (keys, counts) = rows(n, distinct);
            let mut agg = Aggregator::<W>::new();
            // the tuples in groups under a threshold, counted as rows arrive
            for below in [1u64, 10, 60, 200] {
                agg.below = below;
                agg.start(start);
                agg.feed(&keys, &counts, |k| k ^ 1);
                let want: u64 = expected(&keys, &counts)
                    .iter()
                    .filter(|g| g.1 < below)
                    .map(|g| g.1)
                    .sum();
                assert_eq!(
                    agg.suppressed, want,
                    "{n} rows, {distinct} keys, below {below}"
                );
                agg.clear();
            }
            agg.below = 0;
            agg.start(start);
            agg.feed(&keys, &counts, |k| k ^ 1);
            assert_eq!(agg.suppressed, 0);
            let (got_k, got_c) = agg.finish();
            let mut got: Vec<(u64, u64)> = got_k.into_iter().map(|k| k ^ 1).zip(got_c).collect();
            got.sort_unstable();
            assert_eq!(got, expected(&keys, &counts), "{n} rows, {distinct} keys");
            // the table is left empty for the next rollup
            agg.start(10);
            agg.feed(&keys[..100], &counts[..100], |k| k);
            assert_eq!(
                agg.finish().0.len(),
                expected(&keys[..100], &counts[..100]).len()
            );
        }
    }
}
