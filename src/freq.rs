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
use std::hash::{BuildHasherDefault, Hasher};

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

/// The frequency set of the table w.r.t. `attrs` generalized to `levels`.
#[derive(Clone, Debug)]
pub struct FreqSet {
    pub attrs: Vec<usize>,
    pub levels: Vec<u8>,
    pub df: DataFrame,
}

impl FreqSet {
    pub fn rows(&self) -> usize {
        self.df.height()
    }
    pub fn counts(&self) -> Result<Vec<u64>> {
        Ok(self.df.column(COUNT)?.u64()?.into_no_null_iter().collect())
    }
    pub fn codes(&self, attr: usize) -> Result<Vec<u32>> {
        Ok(self
            .df
            .column(&code_col(attr))?
            .u32()?
            .into_no_null_iter()
            .collect())
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
        let mut s = GroupStats {
            groups: counts.len() as u64,
            min_group: counts.iter().copied().min().unwrap_or(0),
            ..Default::default()
        };
        for &c in counts {
            if c < k {
                s.suppressed += c;
            } else {
                s.kept_groups += 1;
                s.kept_sum_sq += (c as u128) * (c as u128);
            }
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
            columns.push(UInt32Chunked::from_vec(code_col(a).into(), col).into_column());
        }
        let rows: u64 = counts.iter().sum();
        columns.push(UInt64Chunked::from_vec(COUNT.into(), counts).into_column());
        let df = DataFrame::new(height, columns)?;
        let keys: Vec<Expr> = (0..names.len()).map(|a| col(code_col(a))).collect();
        let df = df.lazy().group_by(keys).agg([col(COUNT).sum()]).collect()?;
        let n = names.len();
        Ok(Problem {
            names,
            hierarchies,
            base: FreqSet {
                attrs: (0..n).collect(),
                levels: vec![0; n],
                df,
            },
            rows,
        })
    }

    /// From a frame of raw values: group by the quasi-identifiers (cast to
    /// strings) and count, then encode each distinct value through its
    /// hierarchy. A missing hierarchy means "no generalization" (height 0).
    pub fn from_frame(
        data: LazyFrame,
        names: &[&str],
        hierarchies: Vec<Option<Hierarchy>>,
    ) -> Result<Self> {
        let keys: Vec<Expr> = names
            .iter()
            .map(|&n| col(n).cast(DataType::String))
            .collect();
        let grouped = data
            .select(keys)
            .group_by(names.iter().map(|&n| col(n)).collect::<Vec<_>>())
            .agg([len().alias(COUNT)])
            .collect()?;
        let mut codes = Vec::with_capacity(names.len());
        let mut hs = Vec::with_capacity(names.len());
        for (name, h) in names.iter().zip(hierarchies) {
            let values: Vec<Option<&str>> = grouped.column(name)?.str()?.iter().collect();
            let h = match h {
                Some(h) => h,
                None => {
                    let mut distinct: Vec<&str> = values.iter().flatten().copied().collect();
                    distinct.sort_unstable();
                    distinct.dedup();
                    Hierarchy::identity(&distinct)?
                }
            };
            codes.push(h.encode(name, &values)?);
            hs.push(h);
        }
        let counts: Vec<u64> = grouped
            .column(COUNT)?
            .cast(&DataType::UInt64)?
            .u64()?
            .into_no_null_iter()
            .collect();
        Self::from_codes(
            names.iter().map(|s| s.to_string()).collect(),
            hs,
            codes,
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
        let native =
            |job: &(&FreqSet, Vec<usize>, Vec<u8>)| self.rollup_native(job.0, &job.1, &job.2);
        match engine {
            Engine::Native => jobs
                .iter()
                .map(|j| native(j)?.ok_or_else(|| AnonError::Config(
                    "the packed key of this rollup does not fit 64 bits; use engine=\"polars\"".into(),
                )))
                .collect(),
            Engine::Auto => {
                let mut out = Vec::with_capacity(jobs.len());
                for j in jobs {
                    match native(j)? {
                        Some(fs) => out.push(fs),
                        None => out.extend(self.rollup_polars(std::slice::from_ref(j))?),
                    }
                }
                Ok(out)
            }
            Engine::Polars => self.rollup_polars(jobs),
        }
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

    fn level_map(&self, from: &FreqSet, attr: usize, to: u8) -> (Vec<u32>, u8) {
        let pos = from
            .attrs
            .iter()
            .position(|&x| x == attr)
            .expect("attr in source");
        let src = from.levels[pos];
        (self.hierarchies[attr].map_between(src, to), src)
    }

    fn rollup_polars(&self, jobs: &[(&FreqSet, Vec<usize>, Vec<u8>)]) -> Result<Vec<FreqSet>> {
        let mut plans = Vec::with_capacity(jobs.len());
        for (from, attrs, levels) in jobs {
            let mut columns = Vec::with_capacity(attrs.len() + 1);
            for (&a, &l) in attrs.iter().zip(levels) {
                let (map, src) = self.level_map(from, a, l);
                let name = code_col(a);
                let c = from.df.column(&name)?;
                if src == l {
                    columns.push(c.clone());
                } else {
                    let mapped = c.u32()?.apply_values(|v| map[v as usize]);
                    columns.push(mapped.into_column());
                }
            }
            columns.push(from.df.column(COUNT)?.clone());
            let df = DataFrame::new(from.df.height(), columns)?;
            let keys: Vec<Expr> = attrs.iter().map(|&a| col(code_col(a))).collect();
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
            .map(|(df, (_, attrs, levels))| FreqSet {
                attrs: attrs.clone(),
                levels: levels.clone(),
                df,
            })
            .collect())
    }

    /// The tight kernel: pack the target codes of each row into one u64 key and
    /// sum counts in a dense array (small key spaces) or a hash map. `None` when
    /// the key space does not fit in 64 bits.
    fn rollup_native(
        &self,
        from: &FreqSet,
        attrs: &[usize],
        levels: &[u8],
    ) -> Result<Option<FreqSet>> {
        let mut radix = Vec::with_capacity(attrs.len());
        let mut space: u64 = 1;
        for (&a, &l) in attrs.iter().zip(levels) {
            radix.push(space);
            let size = self.hierarchies[a].domain_size(l) as u64;
            space = match space.checked_mul(size.max(1)) {
                Some(s) => s,
                None => return Ok(None),
            };
        }
        let n = from.df.height();
        let mut keys = vec![0u64; n];
        for (i, (&a, &l)) in attrs.iter().zip(levels).enumerate() {
            let (map, src) = self.level_map(from, a, l);
            let ca = from.df.column(&code_col(a))?.u32()?;
            let r = radix[i];
            let mut row = 0;
            for arr in ca.downcast_iter() {
                for &v in arr.values().iter() {
                    let c = if src == l { v } else { map[v as usize] };
                    keys[row] += c as u64 * r;
                    row += 1;
                }
            }
        }
        let counts_ca = from.df.column(COUNT)?.u64()?;
        let mut counts = Vec::with_capacity(n);
        for arr in counts_ca.downcast_iter() {
            counts.extend_from_slice(arr.values());
        }
        let (out_keys, out_counts) = if space <= (1 << 22).max(4 * n as u64) && space <= (1 << 26) {
            let mut dense = vec![0u64; space as usize];
            for (k, c) in keys.iter().zip(&counts) {
                dense[*k as usize] += c;
            }
            let mut ok = Vec::new();
            let mut oc = Vec::new();
            for (k, &c) in dense.iter().enumerate() {
                if c > 0 {
                    ok.push(k as u64);
                    oc.push(c);
                }
            }
            (ok, oc)
        } else {
            let mut map: HashMap<u64, u64, BuildHasherDefault<KeyHasher>> =
                HashMap::with_capacity_and_hasher(n / 2 + 1, Default::default());
            for (k, c) in keys.iter().zip(&counts) {
                *map.entry(*k).or_insert(0) += c;
            }
            let mut pairs: Vec<(u64, u64)> = map.into_iter().collect();
            pairs.sort_unstable();
            pairs.into_iter().unzip()
        };
        let mut columns = Vec::with_capacity(attrs.len() + 1);
        for (i, (&a, &l)) in attrs.iter().zip(levels).enumerate() {
            let size = self.hierarchies[a].domain_size(l) as u64;
            let col: Vec<u32> = out_keys
                .iter()
                .map(|k| ((k / radix[i]) % size.max(1)) as u32)
                .collect();
            columns.push(UInt32Chunked::from_vec(code_col(a).into(), col).into_column());
        }
        let height = out_counts.len();
        columns.push(UInt64Chunked::from_vec(COUNT.into(), out_counts).into_column());
        Ok(Some(FreqSet {
            attrs: attrs.to_vec(),
            levels: levels.to_vec(),
            df: DataFrame::new(height, columns)?,
        }))
    }

    /// The frequency set of a full-lattice node, rolled up from F0.
    pub fn node_set(&self, node: &[u8], engine: Engine) -> Result<FreqSet> {
        self.rollup(&self.base, &self.base.attrs, node, engine)
    }

    /// Group statistics of a full-lattice node under k.
    pub fn node_stats(&self, node: &[u8], k: u64, engine: Engine) -> Result<GroupStats> {
        Ok(GroupStats::of_counts(
            &self.node_set(node, engine)?.counts()?,
            k,
        ))
    }
}

/// Multiplicative hashing for u64 keys (keys are already well spread codes).
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ (k >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Problem {
    /// Group statistics of many full-lattice nodes. Nodes are taken in order of
    /// height and each is rolled up from a direct specialization computed in the
    /// previous layer when there is one (else from F0), so the sets read shrink as
    /// the nodes grow more general.
    pub fn stats_many(&self, nodes: &[Vec<u8>], k: u64, engine: Engine) -> Result<Vec<GroupStats>> {
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
            out[i] = GroupStats::of_counts(&fs.counts()?, k);
            cur.insert(node.clone(), fs);
        }
        Ok(out)
    }
}
