//! The modified bottom-up breadth-first search of the Incognito paper's
//! Figure 8 over one graph: Incognito runs it once per iteration, bottom-up
//! search once over the whole lattice.

use std::collections::{BTreeMap, HashMap};

use super::cube::Cube;
use super::root_tree::RootTree;
use super::{IterationTrace, Searcher};
use crate::error::Result;
use crate::freq::{FreqSet, Problem, RollupJob};
use crate::hash::FxBuild;
use crate::lattice::Graph;

pub(super) enum RootSource<'a> {
    /// each root from the table
    Table,
    /// one set per family at the roots' meet, then each root rolled up from it
    SuperRoots,
    /// each root from its attribute set's cuboid, through a `RootTree`
    Cube(&'a Cube),
}

impl<'p> Searcher<'p> {
    /// The modified bottom-up breadth-first search of Figure 8 over one graph.
    /// Returns which nodes stay in S (anonymous). With `from_table`, every node
    /// is computed from the table (bottom-up without rollup).
    pub(super) fn bfs(
        &mut self,
        g: &Graph,
        roots: RootSource,
        from_table: bool,
    ) -> Result<Vec<bool>> {
        let n = g.len();
        let mut indeg = vec![0u32; n];
        let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (v, s) in g.succ.iter().enumerate() {
            for &t in s {
                indeg[t] += 1;
                pred[t].push(v);
            }
        }
        // a failed node's set is held until all its successors were popped, so
        // each node rolls up from its smallest failed direct specialization
        let mut pending: Vec<usize> = g.succ.iter().map(|s| s.len()).collect();
        let mut in_s = vec![true; n];
        let mut marked = vec![false; n];
        let mut queued = vec![false; n];
        let mut sets: Vec<Option<FreqSet>> = vec![None; n];
        let mut queue: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        let is_root: Vec<bool> = indeg.iter().map(|&d| d == 0).collect();
        // families of roots, for super-roots: attrs -> (meet, roots left)
        let mut families: HashMap<Vec<usize>, (Vec<u8>, usize), FxBuild> = HashMap::default();
        let mut super_sets: HashMap<Vec<usize>, FreqSet, FxBuild> = HashMap::default();
        for v in 0..n {
            if is_root[v] {
                queued[v] = true;
                queue.entry(g.height(v)).or_default().push(v);
                let e = families
                    .entry(g.attrs(v).to_vec())
                    .or_insert_with(|| (g.levels(v).to_vec(), 0));
                for (m, &l) in e.0.iter_mut().zip(g.levels(v)) {
                    *m = (*m).min(l);
                }
                e.1 += 1;
            }
        }
        let mut tree = match (&roots, from_table) {
            (RootSource::Cube(cube), false) => {
                Some(RootTree::new(g, &is_root, cube, self.problem()))
            }
            _ => None,
        };
        let mut marked_count = 0u64;
        // nodes of the full lattice found anonymous are the answer so far,
        // should the search stop at its time limit
        let full = self.config.time_limit.is_some() && g.width == self.problem().n_attrs();
        let mut was_checked = vec![false; n];
        while let Some((_, batch)) = queue.pop_first() {
            let todo: Vec<usize> = batch.iter().copied().filter(|&v| !marked[v]).collect();
            // super-root sets needed by roots of this batch
            if let RootSource::SuperRoots = roots {
                let mut need = Vec::new();
                for &v in &todo {
                    if is_root[v] && !from_table && !super_sets.contains_key(g.attrs(v)) {
                        let (meet, _) = &families[g.attrs(v)];
                        if !need
                            .iter()
                            .any(|(a, _): &(Vec<usize>, Vec<u8>)| a == g.attrs(v))
                        {
                            need.push((g.attrs(v).to_vec(), meet.clone()));
                        }
                    }
                }
                if !need.is_empty() {
                    let base: &'p FreqSet = &self.problem().base;
                    let jobs = need
                        .iter()
                        .map(|(a, l)| RollupJob::new(base, a.clone(), l.clone()))
                        .collect();
                    let computed = self.compute(jobs)?;
                    for ((a, _), fs) in need.into_iter().zip(computed) {
                        super_sets.insert(a, fs);
                    }
                }
            }
            if let (Some(tree), RootSource::Cube(cube)) = (&mut tree, &roots) {
                let batch_roots: Vec<usize> =
                    todo.iter().copied().filter(|&v| is_root[v]).collect();
                tree.materialize(self, cube, &batch_roots)?;
            }
            let results = {
                let problem: &'p Problem = self.problem();
                let mut jobs = Vec::with_capacity(todo.len());
                for &v in &todo {
                    let src: &FreqSet = if from_table {
                        &problem.base
                    } else if is_root[v] {
                        match &roots {
                            RootSource::Table => &problem.base,
                            RootSource::SuperRoots => &super_sets[g.attrs(v)],
                            RootSource::Cube(cube) => match &tree {
                                Some(tree) => tree.source(cube, g, v),
                                None => &cube[g.attrs(v)],
                            },
                        }
                    } else {
                        pred[v]
                            .iter()
                            .filter_map(|&p| sets[p].as_ref())
                            .min_by_key(|fs| fs.rows())
                            .expect("a queued non-root has a failed specialization")
                    };
                    jobs.push(RollupJob::new(
                        src,
                        g.attrs(v).to_vec(),
                        g.levels(v).to_vec(),
                    ));
                }
                // a failing node's set is kept for its successors to read
                let keep: Vec<bool> = todo.iter().map(|&v| pending[v] > 0).collect();
                self.check(jobs, &keep)?
            };
            for &v in &batch {
                for &p in &pred[v] {
                    pending[p] -= 1;
                    if pending[p] == 0 {
                        sets[p] = None;
                    }
                }
            }
            for (&v, (suppressed, fs)) in todo.iter().zip(results) {
                if let (Some(tree), true) = (&mut tree, is_root[v]) {
                    tree.release(tree.root_src[&v]);
                }
                if is_root[v] {
                    if let Some(e) = families.get_mut(g.attrs(v)) {
                        e.1 -= 1;
                        if e.1 == 0 {
                            super_sets.remove(g.attrs(v));
                        }
                    }
                }
                self.stats.nodes_checked += 1;
                was_checked[v] = true;
                if self.anonymous(suppressed) {
                    if full {
                        self.confirmed.push(g.levels(v).to_vec());
                    }
                    for &s in &g.succ[v] {
                        if !marked[s] {
                            marked[s] = true;
                            marked_count += 1;
                            if full {
                                self.confirmed.push(g.levels(s).to_vec());
                            }
                        }
                    }
                } else {
                    in_s[v] = false;
                    for &s in &g.succ[v] {
                        if !queued[s] {
                            queued[s] = true;
                            queue.entry(g.height(s)).or_default().push(s);
                        }
                    }
                    sets[v] = fs;
                }
            }
        }
        self.stats.nodes_marked += marked_count;
        if !self.config.trace {
            return Ok(in_s);
        }
        self.trace.push(IterationTrace {
            attrs: (0..n).map(|v| g.attrs(v).to_vec()).collect(),
            levels: (0..n).map(|v| g.levels(v).to_vec()).collect(),
            root: is_root,
            checked: was_checked,
            marked,
            anonymous: in_s.clone(),
            edges: (0..n)
                .flat_map(|v| g.succ[v].iter().map(move |&t| (v, t)))
                .collect(),
        });
        Ok(in_s)
    }
}
