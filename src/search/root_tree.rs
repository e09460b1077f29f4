//! Cube Incognito's roots of one graph, read through a tree of intermediate
//! sets.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::cube::Cube;
use super::Searcher;
use crate::error::Result;
use crate::freq::{FreqSet, Problem, RollupJob};
use crate::lattice::Graph;

/// Cube Incognito's roots of one graph, rolled up through a tree of
/// intermediate sets instead of each straight from its family's cuboid.
///
/// Roots of a family are pairwise incomparable (a root below another would be
/// its predecessor), so none can feed another; but a root's set is typically a
/// few dozen to a thousand rows while the cuboid it would be read from has
/// thousands to tens of thousands (Adult, 9 QIs: 97% of the rows rolled up were
/// roots read from cuboids). The tree splits a family's
/// roots on one attribute's level at a time; wherever a group of two or more
/// roots has a meet above what its source holds, the set at that meet (a node
/// below the roots, not in the graph) is rolled up once and the group is read
/// from it. Every set is still a rollup of a cuboid; only the sources shrink.
#[derive(Default)]
pub(super) struct RootTree {
    /// Intermediate sets: attribute set, levels, source (`None`: the cuboid),
    /// dependents not yet rolled up, and the set while it is needed.
    inner: Vec<Intermediate>,
    /// Source of each root of the graph (by graph index).
    pub(super) root_src: HashMap<usize, Option<usize>>,
    /// Domain size of each attribute at each level.
    doms: Vec<Vec<f64>>,
}

struct Intermediate {
    attrs: Vec<usize>,
    levels: Vec<u8>,
    src: Option<usize>,
    users: usize,
    set: Option<FreqSet>,
}

impl RootTree {
    /// `cube`: the cuboid each family's roots are read from (its levels are
    /// the tree's starting point).
    pub(super) fn new(g: &Graph, is_root: &[bool], cube: &Cube, problem: &Problem) -> Self {
        let mut families: BTreeMap<&[usize], Vec<usize>> = BTreeMap::new();
        for v in (0..g.len()).filter(|&v| is_root[v]) {
            families.entry(g.attrs(v)).or_default().push(v);
        }
        let mut tree = RootTree {
            doms: problem
                .hierarchies
                .iter()
                .map(|h| (0..=h.height()).map(|l| h.domain_size(l) as f64).collect())
                .collect(),
            ..Default::default()
        };
        for (attrs, roots) in families {
            // the cuboid's levels of the family's attributes (it may be the
            // full cuboid, which has them all)
            let fs = &cube[attrs];
            let levels: Vec<u8> = attrs
                .iter()
                .map(|a| fs.levels[fs.attrs.iter().position(|x| x == a).expect("in the cuboid")])
                .collect();
            tree.split(g, attrs, roots, &levels, None);
        }
        tree
    }

    fn split(
        &mut self,
        g: &Graph,
        attrs: &[usize],
        roots: Vec<usize>,
        base: &[u8],
        src: Option<usize>,
    ) {
        if roots.len() < 2 {
            for r in roots {
                self.use_src(src);
                self.root_src.insert(r, src);
            }
            return;
        }
        let meet: Vec<u8> = (0..attrs.len())
            .map(|a| roots.iter().map(|&r| g.levels(r)[a]).min().unwrap_or(0))
            .collect();
        if meet.as_slice() != base {
            self.use_src(src);
            self.inner.push(Intermediate {
                attrs: attrs.to_vec(),
                levels: meet.clone(),
                src,
                users: 0,
                set: None,
            });
            let at = self.inner.len() - 1;
            return self.split(g, attrs, roots, &meet, Some(at));
        }
        // The meet is the source: part off the roots at or above level t of
        // attribute a (their meet is higher, so they get an intermediate set).
        // The part is chosen for the rows it saves: as many roots as possible
        // times how much the raised attribute shrinks its domain (fewer rows
        // rolled up than the most even split).
        let mut best = (0.0, 0, 0);
        for (a, &b) in base.iter().enumerate() {
            let top = roots.iter().map(|&r| g.levels(r)[a]).max().unwrap_or(0);
            let dom = &self.doms[attrs[a]];
            for t in b + 1..=top {
                let hi = roots.iter().filter(|&&r| g.levels(r)[a] >= t).count();
                if hi == roots.len() {
                    continue; // cannot happen while the meet is the base
                }
                let score = hi as f64 * (1.0 + (dom[b as usize] / dom[t as usize]).ln());
                if score > best.0 {
                    best = (score, a, t);
                }
            }
        }
        let (score, a, t) = best;
        if score <= 0.0 {
            // identical level vectors cannot both be roots; read them directly
            for r in roots {
                self.use_src(src);
                self.root_src.insert(r, src);
            }
            return;
        }
        let (hi, lo): (Vec<usize>, Vec<usize>) =
            roots.into_iter().partition(|&r| g.levels(r)[a] >= t);
        self.split(g, attrs, hi, base, src);
        self.split(g, attrs, lo, base, src);
    }

    fn use_src(&mut self, src: Option<usize>) {
        if let Some(s) = src {
            self.inner[s].users += 1;
        }
    }

    /// One dependent of `src` was rolled up; drop its set once none is left.
    pub(super) fn release(&mut self, src: Option<usize>) {
        if let Some(s) = src {
            self.inner[s].users -= 1;
            if self.inner[s].users == 0 {
                self.inner[s].set = None;
            }
        }
    }

    /// Roll up the intermediates that `roots` read from and that are not held
    /// yet, sources before the sets read from them.
    pub(super) fn materialize(
        &mut self,
        searcher: &mut Searcher<'_>,
        cube: &Cube,
        roots: &[usize],
    ) -> Result<()> {
        let mut need = Vec::new();
        let mut seen = HashSet::new();
        for r in roots {
            let mut s = self.root_src[r];
            while let Some(i) = s {
                if self.inner[i].set.is_some() || !seen.insert(i) {
                    break;
                }
                need.push(i);
                s = self.inner[i].src;
            }
        }
        while !need.is_empty() {
            let (ready, rest): (Vec<usize>, Vec<usize>) = need.into_iter().partition(|&i| {
                self.inner[i]
                    .src
                    .is_none_or(|s| self.inner[s].set.is_some())
            });
            let sets = {
                let jobs = ready
                    .iter()
                    .map(|&i| {
                        let it = &self.inner[i];
                        let from = match it.src {
                            Some(s) => self.inner[s].set.as_ref().expect("source rolled up first"),
                            None => &cube[&it.attrs],
                        };
                        RollupJob::new(from, it.attrs.clone(), it.levels.clone())
                    })
                    .collect();
                searcher.compute(jobs)?
            };
            searcher.stats.intermediate_sets += ready.len() as u64;
            for (&i, fs) in ready.iter().zip(sets) {
                self.inner[i].set = Some(fs);
                self.release(self.inner[i].src);
            }
            need = rest;
        }
        Ok(())
    }

    /// The set a root reads from.
    pub(super) fn source<'a>(&'a self, cube: &'a Cube, g: &Graph, v: usize) -> &'a FreqSet {
        match self.root_src[&v] {
            Some(i) => self.inner[i]
                .set
                .as_ref()
                .expect("materialized for this batch"),
            None => &cube[g.attrs(v)],
        }
    }
}
