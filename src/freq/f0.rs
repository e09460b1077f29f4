//! F0, the zero-generalization frequency set: the one pass over the rows,
//! which also counts each attribute's marginal (Cube Incognito's one-attribute
//! cuboids).

use std::sync::Arc;

use polars::prelude::*;
use rayon::prelude::*;

use super::aggregate::{own_table, with_table, Aggregator};
use super::{code_col, Batches, FreqSet, Layout, Problem, Sensitive, SetData, COUNT};
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
        Self::build(names, hierarchies, codes, sensitive, counts, false)
    }

    /// As `with_sensitive`, from rows known to be distinct (`Batches`): keys
    /// wider than 64 bits are not grouped again (Polars' group-by of a wide
    /// F0 cost more than the batches that made it).
    pub fn from_distinct(
        names: Vec<String>,
        hierarchies: Vec<Hierarchy>,
        codes: Vec<Vec<u32>>,
        sensitive: Vec<(String, Vec<String>, Vec<u32>)>,
        counts: Vec<u64>,
    ) -> Result<Self> {
        Self::build(names, hierarchies, codes, sensitive, counts, true)
    }

    fn build(
        names: Vec<String>,
        hierarchies: Vec<Hierarchy>,
        codes: Vec<Vec<u32>>,
        sensitive: Vec<(String, Vec<String>, Vec<u32>)>,
        counts: Vec<u64>,
        distinct: bool,
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
            // codes outside the hierarchy are refused while the keys are
            // packed (one pass), or below when they are not
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
        let mut marginal_sets = None;
        let data = match &layout {
            Some(layout) => {
                let keys = pack(&columns, &sizes, layout).map_err(|a| {
                    let name = names.get(a).unwrap_or_else(|| &sens[a - n].name);
                    outside(name, &columns[a], sizes[a])
                })?;
                // the group-by of the rows on one core while the other counts
                // each attribute's marginal (grouping in two hash partitions
                // at once, each reading every key, was slower)
                let ((f0_keys, f0_counts), margins) = rayon::join(
                    || group(&keys, &counts, &sizes, layout, rows),
                    || marginals(&keys, &columns, &counts, &sizes, &carry, layout),
                );
                marginal_sets = Some(margins);
                SetData::Packed {
                    layout: layout.clone(),
                    keys: f0_keys,
                    counts: f0_counts,
                }
            }
            None => {
                for (a, name) in names.iter().enumerate() {
                    if columns[a].iter().any(|&c| c as usize >= sizes[a]) {
                        return Err(outside(name, &columns[a], sizes[a]));
                    }
                }
                // keys wider than 64 bits: grouped in a table of multi-word
                // keys (Polars' group-by of the code columns held several
                // times F0 on 100 columns)
                let (columns, counts) = if distinct {
                    (columns, counts)
                } else {
                    let all = names.iter().chain(sens.iter().map(|s| &s.name));
                    let mut rows = Batches::new(all.cloned().collect(), sizes.clone());
                    rows.add_all(&columns, &counts)?;
                    drop(columns);
                    rows.finish()
                };
                let height = counts.len();
                let mut frame: Vec<Column> = columns
                    .into_iter()
                    .enumerate()
                    .map(|(a, c)| UInt32Chunked::from_vec(code_col(a).into(), c).into_column())
                    .collect();
                frame.push(UInt64Chunked::from_vec(COUNT.into(), counts).into_column());
                SetData::Frame(DataFrame::new(height, frame)?)
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
            marginals: marginal_sets,
            narrow_base: Default::default(),
            floors: None,
        })
    }
}

/// The error for a column of codes with one outside its hierarchy's leaves.
fn outside(name: &str, codes: &[u32], size: usize) -> AnonError {
    let bad = codes
        .iter()
        .find(|&&c| c as usize >= size)
        .copied()
        .unwrap_or(0);
    AnonError::Config(format!(
        "column '{name}': code {bad} is outside its hierarchy's {size} leaves"
    ))
}

/// Rows a task packs (`pack`).
const PACK_CHUNK: usize = 1 << 14;
/// Rows packed one column after another (their keys stay in the first-level
/// cache while every column is added).
const PACK_BLOCK: usize = 1 << 11;
/// Rows from which packing is spread over the pool from outside it: below,
/// waking it costs more than the work (Adult's 30,162 rows: 104 us on the
/// pool, 42 here). On the pool already (a preparation from Python: the
/// other worker has just encoded columns) from two chunks.
const PACK_PARALLEL: usize = 1 << 17;
const PACK_PARALLEL_ON_POOL: usize = PACK_CHUNK + 1;

/// The rows' packed keys, built in chunks (on the pool when there are many);
/// `Err(attribute)` when a column holds a code outside its domain (`sizes`),
/// found in the same pass.
fn pack(
    columns: &[Vec<u32>],
    sizes: &[usize],
    layout: &Layout,
) -> std::result::Result<Vec<u64>, usize> {
    let height = columns.first().map_or(0, Vec::len);
    let mut keys = crate::alloc::filled(height, 0u64);
    let one = |(c, chunk): (usize, &mut [u64])| -> std::result::Result<(), usize> {
        for (b, block) in chunk.chunks_mut(PACK_BLOCK).enumerate() {
            let start = c * PACK_CHUNK + b * PACK_BLOCK;
            for (a, column) in columns.iter().enumerate() {
                let (shift, size) = (layout.shift[a], sizes[a] as u32);
                let mut outside = false;
                for (k, &v) in block.iter_mut().zip(&column[start..]) {
                    *k |= (v as u64) << shift;
                    outside |= v >= size;
                }
                if outside {
                    return Err(a);
                }
            }
        }
        Ok(())
    };
    let from = match rayon::current_thread_index() {
        Some(_) => PACK_PARALLEL_ON_POOL,
        None => PACK_PARALLEL,
    };
    if height < from {
        keys.chunks_mut(PACK_CHUNK).enumerate().try_for_each(one)?;
    } else {
        keys.par_chunks_mut(PACK_CHUNK)
            .enumerate()
            .try_for_each(one)?;
    }
    Ok(keys)
}

/// The groups of the rows, in the thread's warm table (a fresh one of this
/// size costs page faults that outweigh the rows); a table whose rows are
/// nearly all distinct in parts (`by_parts`).
fn group(
    keys: &[u64],
    counts: &[u64],
    sizes: &[usize],
    layout: &Arc<Layout>,
    rows: u64,
) -> (Vec<u64>, Vec<u64>) {
    // at most one group per combination of codes: few columns with few
    // values need a small table, not one per row
    let groups = sizes
        .iter()
        .fold(1usize, |g, &d| g.saturating_mul(d.max(1)));
    let start = keys.len().min(groups);
    let probe = keys.len().min(PROBE_ROWS);
    let grouped = with_table!(layout, rows, |tables| {
        own_table(tables, |agg| {
            agg.start(start);
            agg.feed(&keys[..probe], &counts[..probe], |k| k);
            if probe < keys.len() && agg.len() * 20 >= probe * 19 {
                // nearly every row its own group so far (a table of distinct
                // rows): one table of them all outgrows the caches. Not for
                // fewer: cup drawn to 3M rows has 62% of its first rows
                // distinct, 2% of all
                agg.clear();
                return None;
            }
            agg.feed(&keys[probe..], &counts[probe..], |k| k);
            Some(agg.finish())
        })
    });
    grouped.unwrap_or_else(|| by_parts(keys, counts, layout, rows))
}

/// The rows F0's group-by reads before it tells a table of distinct rows
/// (`group`).
const PROBE_ROWS: usize = 1 << 16;

/// Rows a part of `by_parts` holds about: its table (twice as many slots)
/// within the second-level cache.
const PART_ROWS: usize = 1 << 14;

/// The groups of rows that are nearly all distinct: the rows moved into
/// parts by a hash of their keys (one pass, each part written in order),
/// then each part grouped in a table of its own size, the parts on both
/// cores; the groups listed part by part. One table of every row was as
/// large as F0 and read at random (a third of preparing 1M distinct rows,
/// 14% more moving its groups each time it doubled).
fn by_parts(keys: &[u64], counts: &[u64], layout: &Arc<Layout>, rows: u64) -> (Vec<u64>, Vec<u64>) {
    let parts = (keys.len() / PART_ROWS)
        .next_power_of_two()
        .clamp(2, 1 << 12);
    let bits = parts.trailing_zeros();
    // another multiplier than the tables' (`hash::mix`), so that a part's
    // keys spread over all of its table's slots
    let part =
        |k: u64| ((k ^ (k >> 29)).wrapping_mul(0xD6E8_FEB8_6659_FD93) >> (64 - bits)) as usize;
    let mut ends = vec![0usize; parts + 1];
    for &k in keys {
        ends[part(k) + 1] += 1;
    }
    for p in 0..parts {
        ends[p + 1] += ends[p];
    }
    let mut at = ends[..parts].to_vec();
    let (mut part_keys, mut part_counts) = (vec![0u64; keys.len()], vec![0u64; keys.len()]);
    for (&k, &c) in keys.iter().zip(counts) {
        let p = part(k);
        part_keys[at[p]] = k;
        part_counts[at[p]] = c;
        at[p] += 1;
    }
    let grouped: Vec<(Vec<u64>, Vec<u64>)> = (0..parts)
        .into_par_iter()
        .map(|p| {
            let (a, b) = (ends[p], ends[p + 1]);
            with_table!(layout, rows, |tables| {
                own_table(tables, |agg| {
                    agg.start(b - a);
                    agg.feed(&part_keys[a..b], &part_counts[a..b], |k| k);
                    agg.finish()
                })
            })
        })
        .collect();
    let n = grouped.iter().map(|g| g.0.len()).sum();
    let (mut out_keys, mut out_counts) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for (k, c) in grouped {
        out_keys.extend_from_slice(&k);
        out_counts.extend_from_slice(&c);
    }
    (out_keys, out_counts)
}

/// Each attribute's frequency set at level 0 (with the carried columns).
/// Without carried values a marginal is counted in an array by leaf code
/// (cheaper per row than a table) and listed in code order.
fn marginals(
    keys: &[u64],
    columns: &[Vec<u32>],
    counts: &[u64],
    sizes: &[usize],
    carry: &[usize],
    layout: &Arc<Layout>,
) -> Vec<FreqSet> {
    let n = columns.len() - carry.len();
    if carry.is_empty() {
        return (0..n)
            .into_par_iter()
            .map(|a| {
                let shift = layout.shift[a];
                let (keys, counts): (Vec<u64>, Vec<u64>) = if sizes[a] > 1024 {
                    large_counts(&columns[a], counts, sizes[a], shift)
                } else {
                    (0u64..)
                        .zip(code_counts(&columns[a], counts, sizes[a]))
                        .filter(|&(_, c)| c > 0)
                        .map(|(code, c)| (code << shift, c))
                        .unzip()
                };
                FreqSet {
                    attrs: vec![a],
                    levels: vec![0],
                    carry: Vec::new(),
                    data: SetData::Packed {
                        layout: layout.clone(),
                        keys,
                        counts,
                    },
                }
            })
            .collect();
    }
    // tables sized by the attribute's leaves times the carried values
    let carry_bits = carry.iter().fold(0u64, |m, &c| m | layout.field(c));
    let carry_size = carry
        .iter()
        .fold(1usize, |p, &c| p.saturating_mul(sizes[c].max(1)));
    let mut margins: Vec<(u64, Aggregator)> = (0..n)
        .map(|a| {
            let mut m = Aggregator::new();
            m.start(keys.len().min(sizes[a].max(1).saturating_mul(carry_size)));
            (carry_bits | layout.field(a), m)
        })
        .collect();
    for (mask, m) in margins.iter_mut() {
        let mask = *mask;
        m.feed(keys, counts, |k| k & mask);
    }
    margins
        .iter_mut()
        .enumerate()
        .map(|(a, (_, m))| m.take_set(&[a], &[0], carry, layout))
        .collect()
}

/// The tuples with each code of a column of `size` codes. A column of few
/// values keeps four counters per code, taken in turn, since it would
/// otherwise wait on the same counter row after row.
fn code_counts(column: &[u32], counts: &[u64], size: usize) -> Vec<u64> {
    let mut lanes = vec![[0u64; 4]; size];
    let mut rows = column.chunks_exact(4).zip(counts.chunks_exact(4));
    for (codes, cs) in &mut rows {
        for l in 0..4 {
            lanes[codes[l] as usize][l] += cs[l];
        }
    }
    let tail = column.len() / 4 * 4;
    for (&code, &c) in column[tail..].iter().zip(&counts[tail..]) {
        lanes[code as usize][0] += c;
    }
    lanes.iter().map(|l| l.iter().sum()).collect()
}

thread_local! {
    /// A sum per code of a large domain (`large_counts`), zero between uses.
    static SUMS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The most codes whose sums a thread keeps between preparations (8 MiB).
const KEPT_SUMS: usize = 1 << 20;

/// The codes of a column of a large domain (`size` codes) that occur, in
/// code order, packed at `shift`, with their tuples. The sums are kept by a
/// thread between preparations, zero, and the codes that occur are marked
/// in a bitmap: a fresh array of the domain zeroed and scanned whole cost
/// more than its rows when the rows are few (cup's 100,000 ZIP codes
/// against 10,000 rows).
fn large_counts(column: &[u32], counts: &[u64], size: usize, shift: u32) -> (Vec<u64>, Vec<u64>) {
    let count = |sums: &mut Vec<u64>| {
        if sums.len() < size {
            sums.resize(size, 0);
        }
        let mut seen = vec![0u64; size.div_ceil(64)];
        for (&code, &c) in column.iter().zip(counts) {
            sums[code as usize] += c;
            seen[code as usize / 64] |= 1 << (code % 64);
        }
        let (mut keys, mut out) = (Vec::new(), Vec::new());
        for (w, mut bits) in seen.into_iter().enumerate() {
            while bits != 0 {
                let code = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                keys.push((code as u64) << shift);
                out.push(std::mem::take(&mut sums[code]));
            }
        }
        (keys, out)
    };
    if size > KEPT_SUMS {
        return count(&mut Vec::new());
    }
    SUMS.with(|s| match s.try_borrow_mut() {
        Ok(mut sums) => count(&mut sums),
        Err(_) => count(&mut Vec::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn the_group_by_counts_every_row_whether_few_or_most_rows_are_distinct() {
        // past PROBE_ROWS: most rows distinct (grouped in parts), the first
        // rows distinct and the later ones repeating them, a few groups, and
        // a table of as many rows as PROBE_ROWS exactly
        for (rows, distinct) in [
            (200_000u64, 150_000u64),
            (700_000, 66_000),
            (200_000, 40),
            (1 << 16, 60_000),
        ] {
            let sizes = [distinct as usize, 7];
            let layout = Arc::new(Layout::new(&sizes).unwrap());
            let keys: Vec<u64> = (0..rows)
                .map(|i| ((i * 7_919) % distinct) << layout.shift[0] | (i % 7) << layout.shift[1])
                .collect();
            let counts: Vec<u64> = (0..rows).map(|i| i % 3 + 1).collect();
            let total = counts.iter().sum();
            let (k, c) = group(&keys, &counts, &sizes, &layout, total);
            let mut want: HashMap<u64, u64> = HashMap::new();
            for (&key, &n) in keys.iter().zip(&counts) {
                *want.entry(key).or_default() += n;
            }
            let got: HashMap<u64, u64> = k.iter().copied().zip(c.iter().copied()).collect();
            assert_eq!((k.len(), got), (want.len(), want), "{rows} rows");
            assert_eq!(c.iter().sum::<u64>(), total);
        }
    }

    #[test]
    fn a_marginal_lists_the_codes_that_occur_in_order_with_their_tuples() {
        // domains of few codes (counted by lanes), of more than 1,024 (a
        // thread's kept sums, used twice: left zero), and past what a
        // thread keeps; rows fewer and more than the codes
        for (size, rows) in [
            (9usize, 1_000u64),
            (5_000, 700),
            (5_000, 40_000),
            (KEPT_SUMS + 3, 900),
        ] {
            let layout = Arc::new(Layout::new(&[3, size]).unwrap());
            let column: Vec<u32> = (0..rows)
                .map(|i| ((i * 7_919 + 3) % size as u64) as u32)
                .collect();
            let other: Vec<u32> = (0..rows).map(|i| (i % 3) as u32).collect();
            let counts: Vec<u64> = (0..rows).map(|i| i % 4 + 1).collect();
            let keys = pack(&[other.clone(), column.clone()], &[3, size], &layout).unwrap();
            let mut want: std::collections::BTreeMap<u64, u64> = Default::default();
            for (&code, &c) in column.iter().zip(&counts) {
                *want.entry((code as u64) << layout.shift[1]).or_default() += c;
            }
            for _ in 0..2 {
                let sets = marginals(
                    &keys,
                    &[other.clone(), column.clone()],
                    &counts,
                    &[3, size],
                    &[],
                    &layout,
                );
                let SetData::Packed {
                    keys: k, counts: c, ..
                } = &sets[1].data
                else {
                    panic!("a packed marginal")
                };
                let got: Vec<(u64, u64)> = k.iter().copied().zip(c.iter().copied()).collect();
                assert_eq!(
                    got,
                    want.iter().map(|(&k, &c)| (k, c)).collect::<Vec<_>>(),
                    "{size} codes"
                );
            }
        }
    }
}
