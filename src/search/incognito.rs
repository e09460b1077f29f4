//! Incognito (LeFevre, DeWitt and Ramakrishnan 2005): every anonymous node,
//! found over graphs of growing subsets of the attributes (Basic, Super-roots
//! and Cube differ in where each graph's roots read their sets).

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use super::bfs::RootSource;
use super::budget::{answer_node_bytes, graph_node_bytes};
use super::context::ms;
use super::{Algorithm, Outcome, Register, Searcher};
use crate::error::Result;
use crate::lattice::{generate_graph, join_bound, Graph, Node};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Basic,
    SuperRoots,
    Cube,
}

/// Incognito with one of its variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Incognito(pub Variant);

impl Register for Incognito {
    const NAME: &'static str = "incognito";
    const VARIANTS: &'static [&'static str] = &["cube", "super_roots", "basic"];
    fn with_variant(v: &str) -> Self {
        Incognito(match v {
            "basic" => Variant::Basic,
            "super_roots" => Variant::SuperRoots,
            _ => Variant::Cube,
        })
    }
    fn variant(&self) -> Option<&'static str> {
        Some(match self.0 {
            Variant::Basic => "basic",
            Variant::SuperRoots => "super_roots",
            Variant::Cube => "cube",
        })
    }
}

impl Algorithm for Incognito {
    /// Each graph is estimated before it is built (`incognito`); the first,
    /// each attribute's levels, is small.
    fn estimate(&self, _s: &Searcher<'_>) -> Result<()> {
        Ok(())
    }
    fn run(&self, s: &mut Searcher<'_>) -> Result<Outcome> {
        s.incognito(self.0)
    }
}

impl<'p> Searcher<'p> {
    pub(super) fn incognito(&mut self, variant: Variant) -> Result<Outcome> {
        let problem = self.problem();
        let n = problem.n_attrs();
        let heights = problem.heights();
        let infer = self.config.infer_projections;
        let one = self.one_value_levels();
        let mut cube = HashMap::new();
        if variant == Variant::Cube {
            // The one-attribute cuboids first, from one pass over F0; the
            // larger ones once iteration 1 tells how far up they can start.
            let t = Instant::now();
            cube = self.single_cuboids()?;
            self.stats.phase_ms.push(("cube".into(), ms(t)));
        }
        let t = Instant::now();
        let mut g = Graph::singletons(&heights);
        let mut graph_ms = 0.0;
        // time spent on cuboids after iteration 1 (up front or on demand)
        let mut cube_ms = 0.0;
        // with `infer`: the anonymous nodes of every iteration (none has an
        // attribute at a one-value level), and whether the empty projection
        // (the whole table as one group) is anonymous
        let mut found: Vec<(Vec<usize>, Vec<u8>)> = Vec::new();
        let mut empty_ok = false;
        let mut floor = heights.clone();
        for i in 1..=n {
            self.stats.candidates_per_iteration.push(g.len() as u64);
            if i > 1 && variant == Variant::Cube {
                // the cuboids of this graph's families, built when first needed
                let tc = Instant::now();
                let families: BTreeSet<Vec<usize>> =
                    (0..g.len()).map(|v| g.attrs(v).to_vec()).collect();
                self.ensure_cuboids(&mut cube, &floor, families)?;
                cube_ms += ms(tc);
            }
            let roots = match variant {
                Variant::Basic => RootSource::Table,
                Variant::SuperRoots => RootSource::SuperRoots,
                Variant::Cube => RootSource::Cube(&cube),
            };
            let mut in_s = self.bfs(&g, roots, false)?;
            // No later iteration reads a cuboid of i attributes or fewer:
            // its families are larger, and so are the cuboids theirs are
            // rolled up from (census, 12 QIs, 1%: 2,562 cuboids held to the
            // end, 3.8 GB).
            cube.retain(|attrs, _| attrs.len() > i);
            if infer {
                // Iteration 1 is searched whole, as the paper does (its
                // one-value nodes are the empty projection, found nowhere
                // else); from here on no graph holds a one-value node.
                for (v, in_s) in in_s.iter_mut().enumerate() {
                    let lifted = g
                        .attrs(v)
                        .iter()
                        .zip(g.levels(v))
                        .any(|(&a, &l)| l >= one[a]);
                    if lifted {
                        empty_ok |= *in_s;
                        *in_s = false;
                    } else if *in_s {
                        found.push((g.attrs(v).to_vec(), g.levels(v).to_vec()));
                    }
                }
            }
            if infer && self.config.time_limit.is_some() {
                // what a stop at the time limit would answer
                self.confirmed = self.projected_nodes(&found, empty_ok, &one)?.0;
            }
            let last = i == n || (infer && !in_s.iter().any(|&x| x));
            if last {
                if let Some(c) = self.stats.phase_ms.iter_mut().find(|p| p.0 == "cube") {
                    c.1 += cube_ms;
                }
                self.stats
                    .phase_ms
                    .push(("graph generation".into(), graph_ms));
                self.stats
                    .phase_ms
                    .push(("search".into(), ms(t) - graph_ms - cube_ms));
                if infer {
                    return self.finish_projected(&found, empty_ok, &one);
                }
                return Ok(self.finish_complete(&g, &in_s));
            }
            if i == 1 && variant == Variant::Cube {
                // Every later candidate generalizes each attribute at least to
                // its lowest anonymous level of iteration 1 (its one-attribute
                // projections are in S_1), so the larger cuboids are built at
                // those levels: same answers, far fewer rows where a
                // column's leaves are too rare (0% suppression).
                for v in (0..g.len()).filter(|&v| in_s[v]) {
                    let a = g.attrs(v)[0];
                    floor[a] = floor[a].min(g.levels(v)[0]);
                }
                let tc = Instant::now();
                let full = self.full_cuboid(&floor)?;
                cube.insert((0..n).collect(), std::sync::Arc::new(full));
                // Under suppression, where every attribute's leaves pass on
                // their own, the graphs grow and nearly every cuboid is
                // read: built up front, each from its smallest parent, in
                // batches of a size. Elsewhere they are built as graphs need
                // them (Adult, 9 QIs: up front was 5-10% faster at 5%;
                // on demand 3.5x faster at 0%, where no graph has more than
                // four attributes once the one-value candidates are gone;
                // at 0% with every leaf frequent, as in the census table,
                // the graphs still end before most cuboids are read).
                // The whole cube has 2^n cuboids: up front only while they fit
                // the memory budget, each at most F0's size.
                let cuboids = 1u128.checked_shl(n as u32).unwrap_or(u128::MAX);
                let per_cuboid = 128 + 16 * problem.base.rows() as u128;
                let fits = cuboids.saturating_mul(per_cuboid) <= self.config.memory_budget as u128;
                let suppressing = self.config.max_suppression > 0;
                if floor == problem.base.levels && fits && suppressing {
                    self.build_cube(&mut cube, &floor)?;
                }
                cube_ms += ms(tc);
            }
            let tg = Instant::now();
            self.tick()?;
            let bound = join_bound(&g, &in_s);
            let what = format!("Incognito's graph of {} attributes", i + 1);
            self.within_budget(&what, bound, graph_node_bytes(i + 1))?;
            g = generate_graph(&g, &in_s, n);
            graph_ms += ms(tg);
        }
        unreachable!("the loop returns at i == n")
    }

    /// The lowest level of each attribute at which its hierarchy has a single
    /// value (`u8::MAX` where none has).
    fn one_value_levels(&self) -> Vec<u8> {
        self.problem()
            .hierarchies
            .iter()
            .map(|h| {
                (0..=h.height())
                    .find(|&l| h.domain_size(l) == 1)
                    .unwrap_or(u8::MAX)
            })
            .collect()
    }

    /// The complete answer from the anonymous nodes of every iteration
    /// (`Config::infer_projections`): each is the full-lattice node with the
    /// attributes it lacks at any of their one-value levels.
    fn finish_projected(
        &mut self,
        found: &[(Vec<usize>, Vec<u8>)],
        empty_ok: bool,
        one: &[u8],
    ) -> Result<Outcome> {
        let (anonymous, projected) = self.projected_nodes(found, empty_ok, one)?;
        self.stats.nodes_projected += projected;
        Ok(self.complete_outcome(anonymous))
    }

    /// The full-lattice nodes the anonymous nodes of the iterations so far
    /// stand for, and how many of them are projections (lack an attribute).
    /// Refused past the memory budget before any is listed: a projection
    /// stands for every combination of its lacking attributes' one-value
    /// levels, so a few thousand found nodes can stand for billions
    /// (100,000 rows x 20 QIs with two-value columns under tall hierarchies
    /// listed past 6 GiB with no check in between).
    fn projected_nodes(
        &self,
        found: &[(Vec<usize>, Vec<u8>)],
        empty_ok: bool,
        one: &[u8],
    ) -> Result<(Vec<Node>, u64)> {
        let mut projected = 0;
        let heights = self.problem().heights();
        let n = heights.len();
        let empty = (Vec::new(), Vec::new());
        let count = found
            .iter()
            .chain(empty_ok.then_some(&empty))
            .map(|(attrs, _)| projections(attrs, &heights, one))
            .fold(0u128, u128::saturating_add);
        self.within_budget("Incognito's answer", count, answer_node_bytes(n))?;
        let mut anonymous: Vec<Node> = Vec::with_capacity(count as usize);
        let all = found.iter().chain(empty_ok.then_some(&empty));
        for (attrs, levels) in all {
            let mut node = vec![0u8; n];
            let mut free = Vec::new();
            for a in 0..n {
                match attrs.iter().position(|&x| x == a) {
                    Some(j) => node[a] = levels[j],
                    None if one[a] <= heights[a] => {
                        node[a] = one[a];
                        free.push(a);
                    }
                    None => {
                        free.clear();
                        node.clear();
                        break;
                    }
                }
            }
            if node.is_empty() {
                continue; // a lacking attribute has no one-value level
            }
            // every combination of the free attributes' one-value levels
            loop {
                if attrs.len() < n {
                    projected += 1;
                }
                anonymous.push(node.clone());
                let Some(p) = free.iter().position(|&a| node[a] < heights[a]) else {
                    break;
                };
                node[free[p]] += 1;
                for &a in &free[..p] {
                    node[a] = one[a];
                }
            }
        }
        Ok((anonymous, projected))
    }
}

/// How many full-lattice nodes a node of the attributes `attrs` stands for:
/// every combination of the lacking attributes' one-value levels (none when
/// a lacking attribute has no one-value level).
fn projections(attrs: &[usize], heights: &[u8], one: &[u8]) -> u128 {
    (0..heights.len())
        .filter(|a| !attrs.contains(a))
        .map(|a| match one[a] <= heights[a] {
            true => u128::from(heights[a] - one[a]) + 1,
            false => 0,
        })
        .fold(1u128, u128::saturating_mul)
}
