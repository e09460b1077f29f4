//! DM (Bayardo-Agrawal): sum over released groups of |G|^2, plus N for each
//! suppressed tuple (indistinguishable from the whole table).

use super::Node;

pub fn discernibility(node: &Node<'_>) -> f64 {
    node.stats.kept_sum_sq as f64 + node.stats.suppressed as f64 * node.rows as f64
}
