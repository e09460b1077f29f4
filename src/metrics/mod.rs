//! Utility metrics of a full-domain generalization with tuple suppression, one
//! file each; [`Metrics`] gathers them for a node.
//!
//! Conventions (the seeds define the metrics for released tuples; each file
//! says what a suppressed tuple costs): N = rows of the table, S = suppressed
//! tuples (in groups smaller than k or failing a criterion), n = number of
//! quasi-identifiers, l_i the level and H_i the height of attribute i.

mod cavg;
mod discernibility;
mod distortion;
mod groups;
pub mod loss;
mod precision;

pub use groups::GroupStats;

/// What a metric sees of a node: its levels, the hierarchies' heights, its
/// groups under the model, the table's rows and k.
#[derive(Clone, Copy, Debug)]
pub struct Node<'a> {
    pub levels: &'a [u8],
    pub heights: &'a [u8],
    pub stats: &'a GroupStats,
    pub rows: u64,
    pub k: u64,
}

impl Node<'_> {
    /// Tuples released (not suppressed).
    pub fn released(&self) -> u64 {
        self.rows - self.stats.suppressed
    }
}

/// A node's group statistics and metrics: the columns of a search's answer.
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
    /// ARX's loss (see `loss`), unweighted.
    pub loss: f64,
}

/// A node's metrics; `attribute_loss` is each attribute's mean cost under
/// ARX's loss (`check::Evaluated`).
pub fn metrics(
    node: &[u8],
    heights: &[u8],
    stats: &GroupStats,
    rows: u64,
    k: u64,
    attribute_loss: &[f64],
) -> Metrics {
    let n = Node {
        levels: node,
        heights,
        stats,
        rows,
        k,
    };
    Metrics {
        height: crate::lattice::node_height(node),
        suppressed: stats.suppressed,
        groups: stats.kept_groups,
        min_group: stats.min_group,
        precision: precision::precision(&n),
        discernibility: discernibility::discernibility(&n),
        cavg: cavg::cavg(&n),
        distortion: distortion::distortion(&n),
        loss: loss::loss(attribute_loss, None),
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
        let m = metrics(&[1, 0], &[2, 1], &s, 10, 3, &[0.5, 0.2]);
        // Prec = 1 - (8 * (1/2 + 0) + 2 * 2) / (10 * 2) = 1 - 8/20
        assert!((m.precision - 0.6).abs() < 1e-12);
        assert_eq!(m.discernibility, 25.0 + 9.0 + 2.0 * 10.0);
        assert!((m.cavg - (8.0 / 2.0 / 3.0)).abs() < 1e-12);
        // distortion = (8 * 1 + 2 * 3) / (10 * 3)
        assert!((m.distortion - 14.0 / 30.0).abs() < 1e-12);
        assert_eq!(m.height, 1);
        assert!((m.loss - (1.5f64 * 1.2).sqrt() + 1.0).abs() < 1e-12);
    }
}
