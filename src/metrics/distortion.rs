//! Distortion ratio (Sun et al.): (sum over released tuples of sum_i l_i +
//! S * sum_i H_i) / (N * sum_i H_i); 0 when every height is 0 or the table
//! is empty. A suppressed tuple counts as generalized to every top.

use super::Node;

pub fn distortion(node: &Node<'_>) -> f64 {
    let sum_l: f64 = node.levels.iter().map(|&l| l as f64).sum();
    let sum_h: f64 = node.heights.iter().map(|&h| h as f64).sum();
    if sum_h == 0.0 || node.rows == 0 {
        return 0.0;
    }
    let supp = node.stats.suppressed as f64;
    (node.released() as f64 * sum_l + supp * sum_h) / (node.rows as f64 * sum_h)
}
