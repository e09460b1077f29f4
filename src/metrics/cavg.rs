//! CAVG (LeFevre et al.): (released tuples / released groups) / k, the
//! average group size against the ideal; NaN if nothing is released.

use super::Node;

pub fn cavg(node: &Node<'_>) -> f64 {
    if node.stats.kept_groups == 0 {
        return f64::NAN;
    }
    node.released() as f64 / node.stats.kept_groups as f64 / node.k as f64
}
