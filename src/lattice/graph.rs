//! A graph of candidate generalizations over subsets of the attributes (an
//! Incognito iteration's C_i and E_i, or the whole lattice for bottom-up).

use super::{node_height, Lattice};

/// A graph of candidate generalizations over subsets of the attributes, all
/// of the same size (`width`). Attributes and levels are stored flat, `width`
/// per node: an Incognito iteration at 5% suppression on Adult makes 40,000
/// nodes, and two small vectors each cost more to allocate and free than the
/// rest of graph generation.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub width: usize,
    pub attrs: Vec<usize>,
    pub levels: Vec<u8>,
    /// The two nodes of the previous graph joined into each node (none in
    /// the first graph and the full lattice).
    pub parents: Vec<(usize, usize)>,
    /// Direct generalizations of each node (the edges).
    pub succ: Vec<Vec<usize>>,
}

impl Graph {
    pub fn new(width: usize) -> Self {
        Graph {
            width,
            ..Default::default()
        }
    }
    pub fn len(&self) -> usize {
        self.parents.len()
    }
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }
    pub fn attrs(&self, v: usize) -> &[usize] {
        &self.attrs[v * self.width..(v + 1) * self.width]
    }
    pub fn levels(&self, v: usize) -> &[u8] {
        &self.levels[v * self.width..(v + 1) * self.width]
    }
    pub fn push(&mut self, attrs: &[usize], levels: &[u8], parents: (usize, usize)) -> usize {
        debug_assert!(attrs.len() == self.width && levels.len() == self.width);
        self.attrs.extend_from_slice(attrs);
        self.levels.extend_from_slice(levels);
        self.parents.push(parents);
        self.succ.push(Vec::new());
        self.len() - 1
    }
    pub fn height(&self, v: usize) -> u32 {
        node_height(self.levels(v))
    }
    /// Incognito's first graph: each attribute's levels as a chain.
    pub fn singletons(heights: &[u8]) -> Self {
        let mut g = Graph::new(1);
        for (a, &h) in heights.iter().enumerate() {
            let mut prev: Option<usize> = None;
            for l in 0..=h {
                let v = g.push(&[a], &[l], (usize::MAX, usize::MAX));
                if let Some(p) = prev {
                    g.succ[p].push(v);
                }
                prev = Some(v);
            }
        }
        g
    }

    /// The full lattice as one graph (bottom-up search).
    pub fn full_lattice(heights: &[u8]) -> Graph {
        let lat = Lattice::new(heights.to_vec());
        let attrs: Vec<usize> = (0..heights.len()).collect();
        let mut g = Graph::new(heights.len());
        for nd in lat.all() {
            g.push(&attrs, &nd, (usize::MAX, usize::MAX));
        }
        for v in 0..g.len() {
            let succ = lat
                .successors(g.levels(v))
                .iter()
                .map(|s| lat.id(s) as usize)
                .collect();
            g.succ[v] = succ;
        }
        g
    }
}
