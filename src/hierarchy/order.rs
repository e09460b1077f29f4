//! A hierarchy's leaves in top-down order: by their value at the top level,
//! then at the level below, down to the leaves' own codes, so that the leaves
//! under one value at any level are consecutive (`freq/blocks.rs` sorts F0's
//! rows along it). Made once per hierarchy: sorting ZIP's 100,000 leaves for
//! every copy of F0 cost a sixth of making the copy.

use super::Hierarchy;

#[derive(Debug)]
pub struct TopDown {
    /// Leaf codes in order.
    pub leaves: Vec<u32>,
    /// `rank[leaf]`: the leaf's place in `leaves`.
    pub rank: Vec<u32>,
    /// `split[r]`: the highest level at which `leaves[r - 1]` and
    /// `leaves[r]` differ. They differ at every level up to it and at none
    /// above (a value has one parent), so two leaves have one value at level
    /// l exactly when no `split` between them reaches l. `split[0]` is the
    /// height: the first leaf starts every level's first value.
    pub split: Vec<u8>,
}

impl TopDown {
    pub(super) fn of(h: &Hierarchy) -> Self {
        let height = h.height();
        let maps: Vec<&[u32]> = (0..=height).map(|l| h.leaf_map(l)).collect();
        let mut leaves: Vec<u32> = (0..h.domain_size(0) as u32).collect();
        leaves.sort_unstable_by(|&a, &b| {
            (1..=height as usize)
                .rev()
                .map(|l| maps[l][a as usize].cmp(&maps[l][b as usize]))
                .find(|o| o.is_ne())
                .unwrap_or_else(|| a.cmp(&b))
        });
        let mut rank = vec![0u32; leaves.len()];
        for (r, &leaf) in leaves.iter().enumerate() {
            rank[leaf as usize] = r as u32;
        }
        let mut split = Vec::with_capacity(leaves.len());
        split.extend(leaves.first().map(|_| height));
        split.extend(leaves.windows(2).map(|w| {
            let differ =
                |l: &u8| maps[*l as usize][w[0] as usize] != maps[*l as usize][w[1] as usize];
            (0..=height).rev().find(differ).unwrap_or(0)
        }));
        TopDown {
            leaves,
            rank,
            split,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_under_one_value_are_consecutive_and_splits_say_where_values_change() {
        // leaves listed out of their tree's order: a, c under x; b, d under y
        let rows = [
            ["a", "x", "*"],
            ["b", "y", "*"],
            ["c", "x", "*"],
            ["d", "y", "*"],
        ];
        let rows = rows.iter().map(|r| r.map(String::from).to_vec()).collect();
        let h = Hierarchy::from_rows(rows, "rows").unwrap();
        let t = h.top_down();
        let labels: Vec<&str> = t.leaves.iter().map(|&l| &h.leaves()[l as usize]).collect();
        assert_eq!(labels, ["a", "c", "b", "d"]);
        for (r, &leaf) in t.leaves.iter().enumerate() {
            assert_eq!(t.rank[leaf as usize] as usize, r);
        }
        // a|c differ at the leaves only, c|b at level 1, b|d at the leaves
        assert_eq!(t.split, [2, 0, 1, 0]);
        // made once: the same order again
        assert!(std::sync::Arc::ptr_eq(&t, &h.top_down()));
    }
}
