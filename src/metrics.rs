//! Utility metrics of a full-domain generalization with tuple suppression.
//!
//! Conventions (the seeds define the metrics for released tuples; these say what a
//! suppressed tuple costs): N = rows of the table, S = suppressed tuples (in
//! groups smaller than k), n = number of quasi-identifiers, l_i the level and
//! H_i the height of attribute i.
//! - Prec (Sweeney): 1 - (sum over released tuples of sum_i l_i/H_i + S * n) / (N * n);
//!   a suppressed tuple counts as fully generalized; an attribute with H_i = 0 adds 0.
//! - DM (Bayardo-Agrawal): sum over released groups of |G|^2, plus N for each
//!   suppressed tuple.
//! - CAVG (LeFevre et al.): (released tuples / released groups) / k; NaN if nothing
//!   is released.
//! - Distortion ratio (Sun et al.): (sum over released tuples of sum_i l_i + S * sum_i H_i)
//!   / (N * sum_i H_i); 0 when every height is 0.

use crate::freq::GroupStats;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metrics {
    pub height: u32,
    pub suppressed: u64,
    pub groups: u64,
    pub min_group: u64,
    pub precision: f64,
    pub discernibility: f64,
    pub cavg: f64,
    pub distortion: f64,
}

pub fn metrics(node: &[u8], heights: &[u8], stats: &GroupStats, rows: u64, k: u64) -> Metrics {
    let n_attrs = node.len() as f64;
    let released = (rows - stats.suppressed) as f64;
    let supp = stats.suppressed as f64;
    let n = rows as f64;
    let rel: f64 = node
        .iter()
        .zip(heights)
        .map(|(&l, &h)| if h == 0 { 0.0 } else { l as f64 / h as f64 })
        .sum();
    let precision = if rows == 0 {
        1.0
    } else {
        1.0 - (released * rel + supp * n_attrs) / (n * n_attrs)
    };
    let discernibility = stats.kept_sum_sq as f64 + supp * n;
    let cavg = if stats.kept_groups == 0 {
        f64::NAN
    } else {
        released / stats.kept_groups as f64 / k as f64
    };
    let sum_l: f64 = node.iter().map(|&l| l as f64).sum();
    let sum_h: f64 = heights.iter().map(|&h| h as f64).sum();
    let distortion = if sum_h == 0.0 || rows == 0 {
        0.0
    } else {
        (released * sum_l + supp * sum_h) / (n * sum_h)
    };
    Metrics {
        height: node.iter().map(|&l| l as u32).sum(),
        suppressed: stats.suppressed,
        groups: stats.kept_groups,
        min_group: stats.min_group,
        precision,
        discernibility,
        cavg,
        distortion,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_example() {
        // 10 rows in groups 5, 3, 2 under k = 3: the 2 are suppressed.
        let s = GroupStats::of_counts(&[5, 3, 2], 3);
        assert_eq!((s.suppressed, s.kept_groups, s.min_group), (2, 2, 2));
        let m = metrics(&[1, 0], &[2, 1], &s, 10, 3);
        // Prec = 1 - (8 * (1/2 + 0) + 2 * 2) / (10 * 2) = 1 - 8/20
        assert!((m.precision - 0.6).abs() < 1e-12);
        assert_eq!(m.discernibility, 25.0 + 9.0 + 2.0 * 10.0);
        assert!((m.cavg - (8.0 / 2.0 / 3.0)).abs() < 1e-12);
        // distortion = (8 * 1 + 2 * 3) / (10 * 3)
        assert!((m.distortion - 14.0 / 30.0).abs() < 1e-12);
        assert_eq!(m.height, 1);
    }
}
