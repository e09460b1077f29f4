//! The solution space: full-domain generalizations as vectors of levels, one per
//! quasi-identifier, with a packed integer id (mixed radix over `height + 1`).
//! Incognito's graphs over subsets of the attributes are in [`graph`], and the
//! join, prune and edge steps that make the next one in [`generate`].

pub mod generate;
pub mod graph;

pub use generate::generate_graph;
pub use graph::Graph;

#[derive(Clone, Debug)]
pub struct Lattice {
    heights: Vec<u8>,
    radix: Vec<u64>,
    size: u64,
}

pub type Node = Vec<u8>;

impl Lattice {
    pub fn new(heights: Vec<u8>) -> Self {
        let mut radix = Vec::with_capacity(heights.len());
        let mut size: u64 = 1;
        for &h in &heights {
            radix.push(size);
            size = size.saturating_mul(h as u64 + 1);
        }
        Lattice {
            heights,
            radix,
            size,
        }
    }
    pub fn heights(&self) -> &[u8] {
        &self.heights
    }
    /// Number of nodes.
    pub fn size(&self) -> u64 {
        self.size
    }
    pub fn max_height(&self) -> u32 {
        self.heights.iter().map(|&h| h as u32).sum()
    }
    pub fn id(&self, node: &[u8]) -> u64 {
        node.iter()
            .zip(&self.radix)
            .map(|(&l, &r)| l as u64 * r)
            .sum()
    }
    pub fn node(&self, mut id: u64) -> Node {
        self.heights
            .iter()
            .map(|&h| {
                let l = (id % (h as u64 + 1)) as u8;
                id /= h as u64 + 1;
                l
            })
            .collect()
    }
    pub fn contains(&self, node: &[u8]) -> bool {
        node.len() == self.heights.len() && node.iter().zip(&self.heights).all(|(l, h)| l <= h)
    }
    /// Direct generalizations: one level up on one attribute.
    pub fn successors(&self, node: &[u8]) -> Vec<Node> {
        (0..node.len())
            .filter(|&i| node[i] < self.heights[i])
            .map(|i| {
                let mut n = node.to_vec();
                n[i] += 1;
                n
            })
            .collect()
    }
    /// Direct specializations: one level down on one attribute.
    pub fn predecessors(&self, node: &[u8]) -> Vec<Node> {
        (0..node.len())
            .filter(|&i| node[i] > 0)
            .map(|i| {
                let mut n = node.to_vec();
                n[i] -= 1;
                n
            })
            .collect()
    }
    /// Every node, in id order.
    pub fn all(&self) -> impl Iterator<Item = Node> + '_ {
        (0..self.size).map(|id| self.node(id))
    }
    pub fn at_height(&self, height: u32) -> Vec<Node> {
        self.all().filter(|n| node_height(n) == height).collect()
    }
}

pub fn node_height(node: &[u8]) -> u32 {
    node.iter().map(|&l| l as u32).sum()
}

/// `a` is a (direct or implied) generalization of `b`, or equal to it.
pub fn generalizes(a: &[u8], b: &[u8]) -> bool {
    a.iter().zip(b).all(|(x, y)| x >= y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_neighbours() {
        let lat = Lattice::new(vec![1, 2]); // Sex, Zipcode of the Incognito paper
        assert_eq!(lat.size(), 6);
        for id in 0..lat.size() {
            assert_eq!(lat.id(&lat.node(id)), id);
        }
        assert_eq!(lat.successors(&[0, 1]), vec![vec![1, 1], vec![0, 2]]);
        assert_eq!(lat.predecessors(&[1, 2]), vec![vec![0, 2], vec![1, 1]]);
        assert_eq!(lat.at_height(2), vec![vec![1, 1], vec![0, 2]]);
        assert!(generalizes(&[1, 2], &[0, 2]) && !generalizes(&[1, 0], &[0, 2]));
    }
}
