//! Cube Incognito's cuboids: the zero-generalization frequency sets of every
//! subset of the attributes, each rolled up from a larger one.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use super::Searcher;
use crate::error::Result;
use crate::freq::{Engine, FreqSet, RollupJob};

/// Cuboids by attribute set. A cuboid with nearly as many rows as the full
/// one is not kept: its attribute set maps to the full cuboid, which serves
/// its roots (a projection) for at most `ALIAS` times the rows read. Where
/// some columns are nearly unique every large cuboid is one of these
/// (census, 12 QIs, 1%: 1,522 cuboids of ~100,000 rows held at once, 2.2 GB).
pub(super) type Cube = HashMap<Vec<usize>, Arc<FreqSet>>;

/// A cuboid with at least this share of the full cuboid's rows is not kept.
const ALIAS: (usize, usize) = (7, 8);

impl<'p> Searcher<'p> {
    /// The zero-generalization cuboids of single attributes: the marginals
    /// counted with F0 in the table's one pass (else one rollup of F0 each).
    pub(super) fn single_cuboids(&mut self) -> Result<Cube> {
        let n = self.problem().n_attrs();
        let base: &'p FreqSet = &self.problem().base;
        let sets = match (self.config.engine, &self.problem().marginals) {
            (Engine::Polars, _) | (_, None) => {
                let jobs = (0..n)
                    .map(|a| RollupJob::new(base, vec![a], vec![0]))
                    .collect();
                self.compute(jobs)?
            }
            (_, Some(sets)) => sets.clone(),
        };
        self.stats.cuboids += n as u64;
        Ok((0..n)
            .map(|a| vec![a])
            .zip(sets.into_iter().map(Arc::new))
            .collect())
    }

    /// Cube Incognito's full cuboid, every attribute at `levels` (iteration
    /// 1's floor): rolled up from F0 (the one read of the table Cube makes),
    /// or F0 itself when the levels are its own.
    pub(super) fn full_cuboid(&mut self, levels: &[u8]) -> Result<FreqSet> {
        let base: &'p FreqSet = &self.problem().base;
        self.stats.cuboids += 1;
        if levels == base.levels.as_slice() {
            return Ok(base.clone());
        }
        let all: Vec<usize> = (0..self.problem().n_attrs()).collect();
        Ok(self
            .compute(vec![RollupJob::new(base, all, levels.to_vec())])?
            .pop()
            .expect("one job"))
    }

    /// Every cuboid of two to n - 1 attributes at `levels`, each from the
    /// smallest cuboid one attribute larger (`cube` holds the full one), as
    /// the paper builds them up front.
    pub(super) fn build_cube(&mut self, cube: &mut Cube, levels: &[u8]) -> Result<()> {
        let n = self.problem().n_attrs();
        for size in (2..n).rev() {
            let subsets = subsets_of_size(n, size);
            let mut jobs_spec = Vec::with_capacity(subsets.len());
            for s in subsets {
                let parent = (0..n)
                    .filter(|a| !s.contains(a))
                    .map(|a| {
                        let mut p = s.clone();
                        p.push(a);
                        p.sort_unstable();
                        p
                    })
                    .min_by_key(|p| cube[p].rows())
                    .expect("a proper subset has a superset");
                jobs_spec.push((s, parent));
            }
            self.roll_cuboids(cube, levels, jobs_spec)?;
        }
        Ok(())
    }

    /// Roll each (cuboid, parent) pair's cuboid up from its parent, which
    /// `cube` holds, at `levels`, in one batch, and add them to `cube`.
    pub(super) fn roll_cuboids(
        &mut self,
        cube: &mut Cube,
        levels: &[u8],
        todo: Vec<(Vec<usize>, Vec<usize>)>,
    ) -> Result<()> {
        let computed = {
            let jobs = todo
                .iter()
                .map(|(x, p)| {
                    let lv = x.iter().map(|&a| levels[a]).collect();
                    RollupJob::new(&cube[p], x.clone(), lv)
                })
                .collect();
            self.compute(jobs)?
        };
        let all: Vec<usize> = (0..self.problem().n_attrs()).collect();
        let full = cube[&all].clone();
        for ((x, _), fs) in todo.into_iter().zip(computed) {
            self.stats.cuboids += 1;
            let large = fs.rows() * ALIAS.1 >= full.rows() * ALIAS.0;
            cube.insert(x, if large { full.clone() } else { Arc::new(fs) });
        }
        Ok(())
    }

    /// Build the cuboids of `families` (at `levels`) that are not in `cube`
    /// yet, each from a cuboid one attribute larger, down from the full one.
    /// The paper builds every cuboid up front; built on demand, a search
    /// whose graphs run out early (most searches without suppression, once
    /// the one-value candidates are left out) skips the large cuboids no
    /// family reads. A missing parent is planned too: the built or planned
    /// one with the fewest rows if there is one, else the family plus the
    /// attribute with the fewest values at its level (which grows the set
    /// least), so that the chains of many families meet.
    pub(super) fn ensure_cuboids(
        &mut self,
        cube: &mut Cube,
        levels: &[u8],
        families: BTreeSet<Vec<usize>>,
    ) -> Result<()> {
        let n = self.problem().n_attrs();
        let doms: Vec<usize> = (0..n)
            .map(|a| self.problem().hierarchies[a].domain_size(levels[a]))
            .collect();
        // planned cuboid -> its parent
        let mut plan: BTreeMap<Vec<usize>, Vec<usize>> = BTreeMap::new();
        for family in families {
            let mut x = family;
            while !cube.contains_key(&x) && !plan.contains_key(&x) {
                let supersets = (0..n).filter(|a| !x.contains(a)).map(|a| {
                    let mut p = x.clone();
                    p.push(a);
                    p.sort_unstable();
                    (a, p)
                });
                let built = supersets
                    .clone()
                    .filter_map(|(_, p)| cube.get(&p).map(|fs| (fs.rows(), p)))
                    .min();
                let parent = match built {
                    Some((_, p)) => p,
                    None => supersets
                        .min_by_key(|(a, p)| (!plan.contains_key(p), doms[*a], *a))
                        .map(|(_, p)| p)
                        .expect("the full cuboid is built, so a proper subset has a superset"),
                };
                plan.insert(x.clone(), parent.clone());
                x = parent;
            }
        }
        for size in (2..n).rev() {
            let todo: Vec<(Vec<usize>, Vec<usize>)> = plan
                .iter()
                .filter(|(x, _)| x.len() == size)
                .map(|(x, p)| (x.clone(), p.clone()))
                .collect();
            if !todo.is_empty() {
                self.roll_cuboids(cube, levels, todo)?;
            }
        }
        Ok(())
    }
}

fn subsets_of_size(n: usize, size: usize) -> Vec<Vec<usize>> {
    (0u32..(1 << n))
        .filter(|m| m.count_ones() as usize == size)
        .map(|m| (0..n).filter(|a| m & (1 << a) != 0).collect())
        .collect()
}
