//! Section 3.1.2 of the Incognito paper: the graph of size i + 1 from S_i,
//! the anonymous nodes of size i (join, prune, edge generation).

use std::collections::{HashMap, HashSet};

use super::Graph;
use crate::hash::FxBuild;

const ABSENT: u8 = u8::MAX;

/// A node of a subset graph as a full-length level vector (`ABSENT` for the
/// attributes it does not have), as a hash key: packed into a `u128` (a byte
/// per attribute) when there are at most 16 attributes, else a byte vector:
/// the join and prune hash and compare these keys for every candidate.
trait FullKey: std::hash::Hash + Eq + Clone + Send + Sync {
    fn absent(n: usize) -> Self;
    fn set(&mut self, attr: usize, level: u8);
    fn of(n: usize, attrs: &[usize], levels: &[u8]) -> Self {
        let mut k = Self::absent(n);
        for (&a, &l) in attrs.iter().zip(levels) {
            k.set(a, l);
        }
        k
    }
}

impl FullKey for u128 {
    fn absent(_: usize) -> Self {
        u128::MAX
    }
    #[inline]
    fn set(&mut self, attr: usize, level: u8) {
        let at = 8 * attr as u32;
        *self = (*self & !(0xffu128 << at)) | ((level as u128) << at);
    }
}

impl FullKey for Vec<u8> {
    fn absent(n: usize) -> Self {
        vec![ABSENT; n]
    }
    fn set(&mut self, attr: usize, level: u8) {
        self[attr] = level;
    }
}

/// Section 3.1.2: join, prune and edge generation from S_i (the nodes of `g`
/// still flagged in `in_s`) to the graph of size i + 1.
pub fn generate_graph(g: &Graph, in_s: &[bool], n: usize) -> Graph {
    let mut next = if n <= 16 {
        join_prune::<u128>(g, in_s, n)
    } else {
        join_prune::<Vec<u8>>(g, in_s, n)
    };
    add_edges(g, &mut next);
    next
}

/// An upper bound on the nodes `generate_graph` makes from S_i: the pairs of
/// its nodes that share all but their last (attribute, level), before the
/// prune. Cheap to count, so a search can refuse a graph before building it.
pub fn join_bound(g: &Graph, in_s: &[bool]) -> u128 {
    let w = g.width;
    let mut groups: HashMap<(&[usize], &[u8]), u64, FxBuild> = HashMap::default();
    for v in (0..g.len()).filter(|&v| in_s[v]) {
        *groups
            .entry((&g.attrs(v)[..w - 1], &g.levels(v)[..w - 1]))
            .or_default() += 1;
    }
    groups
        .values()
        .map(|&m| m as u128 * m.saturating_sub(1) as u128 / 2)
        .sum()
}

/// Join: nodes of S_i sharing their first i - 1 (attribute, level) pairs,
/// p's last attribute before q's; prune: keep a candidate when every i-subset
/// is in S_i (the two parents are).
fn join_prune<K: FullKey>(g: &Graph, in_s: &[bool], n: usize) -> Graph {
    let s: Vec<usize> = (0..g.len()).filter(|&v| in_s[v]).collect();
    let s_keys: HashSet<K, FxBuild> = s
        .iter()
        .map(|&v| K::of(n, g.attrs(v), g.levels(v)))
        .collect();
    let mut by_prefix: HashMap<K, Vec<usize>, FxBuild> = HashMap::default();
    for &v in &s {
        let mut k = K::of(n, g.attrs(v), g.levels(v));
        k.set(*g.attrs(v).last().expect("non-empty"), ABSENT);
        by_prefix.entry(k).or_default().push(v);
    }
    let mut groups: Vec<&Vec<usize>> = by_prefix.values().collect();
    groups.sort(); // deterministic ids
                   // groups are independent: join and prune them on the pool, then number
                   // the candidates in group order
    let width = g.width + 1;
    let one_group = |members: &&Vec<usize>| -> Graph {
        let mut part = Graph::new(width);
        let (mut attrs, mut levels) = (Vec::with_capacity(width), Vec::with_capacity(width));
        for &p in members.iter() {
            // the candidate's key: p's, plus q's last attribute below
            let mut key = K::of(n, g.attrs(p), g.levels(p));
            let prefix = &g.attrs(p)[..g.width - 1];
            let pa = *g.attrs(p).last().expect("non-empty");
            for &q in members.iter() {
                let qa = *g.attrs(q).last().expect("non-empty");
                if pa >= qa {
                    continue;
                }
                let lq = *g.levels(q).last().expect("non-empty");
                key.set(qa, lq);
                let ok = prefix.iter().zip(g.levels(p)).all(|(&a, &l)| {
                    key.set(a, ABSENT);
                    let found = s_keys.contains(&key);
                    key.set(a, l);
                    found
                });
                if ok {
                    attrs.clear();
                    attrs.extend_from_slice(g.attrs(p));
                    attrs.push(qa);
                    levels.clear();
                    levels.extend_from_slice(g.levels(p));
                    levels.push(lq);
                    part.push(&attrs, &levels, (p, q));
                }
                key.set(qa, ABSENT);
            }
        }
        part
    };
    let parallel = s.len() >= PARALLEL_GRAPH_MIN;
    let parts = map_indices(groups.len(), parallel, |i| one_group(&groups[i]));
    let mut next = Graph::new(width);
    for part in parts {
        next.attrs.extend_from_slice(&part.attrs);
        next.levels.extend_from_slice(&part.levels);
        next.parents.extend_from_slice(&part.parents);
        next.succ.extend(part.succ);
    }
    next
}

/// Nodes of S_i below which graph generation stays on the calling thread.
const PARALLEL_GRAPH_MIN: usize = 2_000;

/// `f` of 0..n, in order, on the pool when `parallel`.
fn map_indices<T: Send>(n: usize, parallel: bool, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    if parallel {
        use rayon::prelude::*;
        (0..n).into_par_iter().map(f).collect()
    } else {
        (0..n).map(f).collect()
    }
}

fn add_edges(g: &Graph, next: &mut Graph) {
    // edges: from the parents' edges in E_i, then drop implied (two-step) ones.
    // The join emits each first parent's candidates together, second parents
    // ascending, so (p1, p2) -> candidate is a binary search in p1's run (a
    // hash map of every pair was the hot spot of graph generation).
    let mut runs: Vec<(usize, usize)> = vec![(0, 0); g.len()];
    let mut at = 0;
    while at < next.len() {
        let p1 = next.parents[at].0;
        let start = at;
        while at < next.len() && next.parents[at].0 == p1 {
            at += 1;
        }
        runs[p1] = (start, at);
        debug_assert!(next.parents[start..at].windows(2).all(|w| w[0].1 < w[1].1));
    }
    let find = |q1: usize, q2: usize| -> Option<usize> {
        let (s, e) = runs[q1];
        next.parents[s..e]
            .binary_search_by_key(&q2, |&(_, p2)| p2)
            .ok()
            .map(|i| s + i)
    };
    let candidates = |v: usize| -> Vec<usize> {
        let mut targets = Vec::new();
        let (p1, p2) = next.parents[v];
        for q1 in std::iter::once(p1).chain(g.succ[p1].iter().copied()) {
            for q2 in std::iter::once(p2).chain(g.succ[p2].iter().copied()) {
                if q1 == p1 && q2 == p2 {
                    continue;
                }
                if let Some(w) = find(q1, q2) {
                    targets.push(w);
                }
            }
        }
        targets.sort_unstable();
        targets.dedup();
        targets
    };
    let parallel = next.len() >= PARALLEL_GRAPH_MIN;
    let cand = map_indices(next.len(), parallel, candidates);
    let reduce = |v: usize| -> Vec<usize> {
        cand[v]
            .iter()
            .copied()
            .filter(|&c| !cand[v].iter().any(|&b| cand[b].binary_search(&c).is_ok()))
            .collect()
    };
    next.succ = map_indices(next.len(), parallel, reduce);
}

#[cfg(test)]
mod key_tests {
    use super::*;

    /// Both key types give the same graphs: every singleton anonymous but one
    /// level, then every pair but one, over attributes of several heights.
    #[test]
    fn packed_and_vector_keys_join_and_prune_alike() {
        let heights = [2u8, 1, 3, 0, 2];
        let n = heights.len();
        let mut g = Graph::singletons(&heights);
        let mut in_s = vec![true; g.len()];
        in_s[0] = false; // attribute 0 at level 0 fails
        for round in 0..3 {
            let packed = join_prune::<u128>(&g, &in_s, n);
            let vector = join_prune::<Vec<u8>>(&g, &in_s, n);
            assert_eq!(packed.attrs, vector.attrs, "round {round}");
            assert_eq!(packed.levels, vector.levels, "round {round}");
            assert_eq!(packed.parents, vector.parents, "round {round}");
            assert!(!packed.attrs.is_empty());
            g = generate_graph(&g, &in_s, n);
            in_s = (0..g.len()).map(|v| v % 7 != 3).collect();
        }
    }
}
