//! A node's figures that need its released and suppressed rows, beyond the
//! group statistics: what the searches' objectives read (`search::objective`),
//! as ARX's metrics define them.
//!
//! - What suppression adds to ARX's non-uniform entropy
//!   (MetricMDNUNMEntropy), per attribute: S times the entropy (bits) of the
//!   suppressed records' values at the node's levels, S the suppressed records.
//! - ARX's ambiguity (MetricSDNMAmbiguity): the sum over records of the
//!   product over attributes of the leaves under the record's value (a
//!   suppressed record: all the hierarchy's leaves).
//! - ARX's KL divergence (MetricSDNMKLDivergence): the input's distribution
//!   of quasi-identifier tuples, p, against the release's read as uniform over
//!   each class's area (its records over N, over the leaf combinations under
//!   its values; the suppressed records one class over every combination),
//!   q; summed as ARX sums it, over records rather than distinct tuples: the
//!   sum over tuples t of n_t p_t log2(p_t / q_t).

use std::collections::HashMap;

use crate::error::{AnonError, Result};
use crate::freq::{FreqSet, Problem};

/// Per attribute of `fs`, -sum over its values v of c_v log2(c_v / S), c_v
/// the suppressed records (rows not `kept`) holding v.
pub fn suppressed_entropy(
    problem: &Problem,
    fs: &FreqSet,
    kept: &[bool],
    suppressed: u64,
) -> Result<Vec<f64>> {
    if suppressed == 0 {
        return Ok(vec![0.0; fs.attrs.len()]);
    }
    let counts = fs.counts()?;
    let total = suppressed as f64;
    fs.attrs
        .iter()
        .zip(&fs.levels)
        .map(|(&a, &level)| {
            let mut per_value = vec![0u64; problem.hierarchies[a].domain_size(level)];
            for ((&code, &c), &k) in fs.codes(a)?.iter().zip(counts.iter()).zip(kept) {
                if !k {
                    per_value[code as usize] += c;
                }
            }
            Ok(per_value
                .iter()
                .filter(|&&c| c > 0)
                .map(|&c| -(c as f64) * (c as f64 / total).log2())
                .sum())
        })
        .collect()
}

/// ARX's ambiguity of a node whose set is `fs` (rows `kept` released).
pub fn ambiguity(problem: &Problem, fs: &FreqSet, kept: &[bool]) -> Result<f64> {
    let counts = fs.counts()?;
    let mut product: Vec<f64> = vec![1.0; counts.len()];
    for (&a, &level) in fs.attrs.iter().zip(&fs.levels) {
        let h = &problem.hierarchies[a];
        let under = h.leaves_under(level);
        let all = h.domain_size(0) as f64;
        for ((p, &code), &k) in product.iter_mut().zip(fs.codes(a)?.iter()).zip(kept) {
            *p *= if k {
                f64::from(under[code as usize])
            } else {
                all
            };
        }
    }
    Ok(product
        .iter()
        .zip(counts.iter())
        .map(|(p, &c)| p * c as f64)
        .sum())
}

/// ARX's KL divergence of a full-lattice node whose set is `fs` (rows
/// `kept` released, `suppressed` records not).
pub fn kl_divergence(
    problem: &Problem,
    fs: &FreqSet,
    kept: &[bool],
    suppressed: u64,
) -> Result<f64> {
    let n = problem.rows as f64;
    if problem.rows == 0 {
        return Ok(0.0);
    }
    // the node's classes (a class spans several rows with sensitive columns)
    let counts = fs.counts()?;
    let cols: Vec<Vec<u32>> = fs
        .attrs
        .iter()
        .map(|&a| fs.codes(a))
        .collect::<Result<_>>()?;
    let mut classes: HashMap<Vec<u32>, (u64, bool)> = HashMap::with_capacity(counts.len());
    for (r, (&c, &k)) in counts.iter().zip(kept).enumerate() {
        let e = classes
            .entry(cols.iter().map(|col| col[r]).collect())
            .or_insert((0, k));
        e.0 += c;
    }
    // the input's distinct tuples, each mapped to its class
    let base = &problem.base;
    let base_counts = base.counts()?;
    let leaves: Vec<Vec<u32>> = fs
        .attrs
        .iter()
        .map(|&a| base.codes(a))
        .collect::<Result<_>>()?;
    // in F0's order, not a hash map's: the sum's order is then the same in
    // every run, and the same for two nodes whose classes differ only in
    // their labels, so ties stay ties
    let mut index: HashMap<Vec<u32>, usize> = HashMap::with_capacity(base_counts.len());
    let mut tuples: Vec<(Vec<u32>, u64)> = Vec::with_capacity(base_counts.len());
    for (r, &c) in base_counts.iter().enumerate() {
        let tuple: Vec<u32> = leaves.iter().map(|col| col[r]).collect();
        match index.get(&tuple) {
            Some(&i) => tuples[i].1 += c,
            None => {
                index.insert(tuple.clone(), tuples.len());
                tuples.push((tuple, c));
            }
        }
    }
    let maps: Vec<&[u32]> = (fs.attrs.iter().zip(&fs.levels))
        .map(|(&a, &l)| problem.hierarchies[a].leaf_map(l))
        .collect();
    let under: Vec<&[u32]> = (fs.attrs.iter().zip(&fs.levels))
        .map(|(&a, &l)| problem.hierarchies[a].leaves_under(l))
        .collect();
    let everything: f64 = (fs.attrs.iter())
        .map(|&a| problem.hierarchies[a].domain_size(0) as f64)
        .product();
    let mut kl = 0.0;
    for (tuple, c) in &tuples {
        let c = *c;
        let key: Vec<u32> = tuple
            .iter()
            .zip(&maps)
            .map(|(&v, m)| m[v as usize])
            .collect();
        let &(size, released) = classes.get(&key).ok_or_else(|| {
            AnonError::Config("a tuple of the input falls in no class of the node".into())
        })?;
        let q = if released {
            let area: f64 = key
                .iter()
                .zip(&under)
                .map(|(&g, u)| f64::from(u[g as usize]))
                .product();
            size as f64 / n / area
        } else {
            suppressed as f64 / n / everything
        };
        let p = c as f64 / n;
        kl += c as f64 * p * (p / q).log2();
    }
    Ok(kl)
}
