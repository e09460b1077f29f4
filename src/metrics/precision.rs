//! Prec (Sweeney): 1 - (sum over released tuples of sum_i l_i/H_i + S * n) / (N * n).
//! A suppressed tuple counts as fully generalized; an attribute with H_i = 0
//! adds 0; an empty table has Prec 1.

use super::Node;

pub fn precision(node: &Node<'_>) -> f64 {
    if node.rows == 0 {
        return 1.0;
    }
    let n_attrs = node.levels.len() as f64;
    let rel: f64 = node
        .levels
        .iter()
        .zip(node.heights)
        .map(|(&l, &h)| if h == 0 { 0.0 } else { l as f64 / h as f64 })
        .sum();
    let supp = node.stats.suppressed as f64;
    1.0 - (node.released() as f64 * rel + supp * n_attrs) / (node.rows as f64 * n_attrs)
}
