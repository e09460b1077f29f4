//! Searches of the generalization lattice. They only walk graphs of nodes and ask
//! the problem (the checker) for frequency sets; every set is a rollup of F0 (a
//! "table scan": F0 stands for the table, see DESIGN.md), of a parent's set, of a
//! super-root's set or of a cube cuboid.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Instant;

use crate::error::{AnonError, Result};
use crate::freq::{Engine, FreqSet, Model, Problem};
use crate::fx::FxBuild;
use crate::lattice::{node_height, Lattice, Node};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Basic,
    SuperRoots,
    Cube,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Incognito(Variant),
    Samarati,
    BottomUp { rollup: bool },
    MinGen,
}

impl Algorithm {
    pub fn parse(algorithm: &str, variant: Option<&str>) -> Result<Self> {
        let bad_variant = |v: &str, allowed: &str| {
            AnonError::Config(format!(
                "algorithm {algorithm:?} has no variant {v:?}; expected one of {allowed}"
            ))
        };
        Ok(match algorithm {
            "incognito" => Algorithm::Incognito(match variant.unwrap_or("cube") {
                "basic" => Variant::Basic,
                "super_roots" => Variant::SuperRoots,
                "cube" => Variant::Cube,
                v => return Err(bad_variant(v, "\"basic\", \"super_roots\", \"cube\"")),
            }),
            "bottom_up" => Algorithm::BottomUp {
                rollup: match variant.unwrap_or("rollup") {
                    "rollup" => true,
                    "no_rollup" => false,
                    v => return Err(bad_variant(v, "\"rollup\", \"no_rollup\"")),
                },
            },
            "samarati" | "mingen" => {
                if let Some(v) = variant {
                    return Err(bad_variant(v, "none"));
                }
                if algorithm == "samarati" {
                    Algorithm::Samarati
                } else {
                    Algorithm::MinGen
                }
            }
            a => {
                return Err(AnonError::Config(format!(
                    "unknown algorithm {a:?}; expected one of \"incognito\", \"samarati\", \"bottom_up\", \"mingen\""
                )))
            }
        })
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub k: u64,
    /// Sensitive-attribute criteria checked on every QI group besides k.
    pub criteria: Vec<crate::criteria::Criterion>,
    pub max_suppression: u64,
    pub engine: Engine,
    /// Record every graph searched in `Outcome::trace` (costly on large lattices).
    pub trace: bool,
    /// Incognito: leave out of the graphs of iteration 2 on every candidate
    /// in which some attribute is generalized to a level of one value (such as
    /// `*`). That attribute splits no group, so the node's frequency set and
    /// answer are those of its projection without it, a node of an earlier
    /// iteration; the answer lists them from there. Same answers, same checks
    /// of the other nodes; `false` builds and checks them as the paper does.
    pub infer_projections: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Nodes whose frequency set was computed and tested.
    pub nodes_checked: u64,
    /// Nodes found anonymous without a check (generalization property).
    pub nodes_marked: u64,
    /// Anonymous nodes of the answer taken from an earlier Incognito
    /// iteration, as their projection (`Config::infer_projections`).
    pub nodes_projected: u64,
    /// Frequency sets computed from F0, the stand-in for the table.
    pub table_scans: u64,
    /// F0 rows read by those scans.
    pub rows_scanned: u64,
    /// Rows of parent, super-root and cuboid sets read by rollups.
    pub rows_rolled_up: u64,
    /// Zero-generalization cuboids built (Cube Incognito).
    pub cuboids: u64,
    /// Sets below Cube Incognito's roots rolled up to feed them (RootTree).
    pub intermediate_sets: u64,
    /// Nodes per Incognito iteration (candidates after pruning).
    pub candidates_per_iteration: Vec<u64>,
    /// (phase, milliseconds)
    pub phase_ms: Vec<(String, f64)>,
}

/// One Incognito iteration (or the bottom-up search's single graph): its nodes
/// and what the search learnt of each.
#[derive(Clone, Debug, Default)]
pub struct IterationTrace {
    pub attrs: Vec<Vec<usize>>,
    pub levels: Vec<Vec<u8>>,
    pub root: Vec<bool>,
    pub checked: Vec<bool>,
    pub marked: Vec<bool>,
    pub anonymous: Vec<bool>,
    pub edges: Vec<(usize, usize)>,
}

#[derive(Clone, Debug)]
pub struct Outcome {
    /// Anonymous full-lattice nodes found (all of them when `complete`).
    pub anonymous: Vec<Node>,
    /// Nodes tested and found not anonymous (Samarati reports what it evaluated).
    pub rejected: Vec<Node>,
    pub minimal: Vec<Node>,
    pub complete: bool,
    pub stats: Stats,
    /// The graphs searched, in order (Incognito: one per iteration).
    pub trace: Vec<IterationTrace>,
}

/// A graph of candidate generalizations over subsets of the attributes, all
/// of the same size (`width`). Attributes and levels are stored flat, `width`
/// per node: an Incognito iteration at 5% suppression on Adult makes 40,000
/// nodes, and two small vectors each cost more to allocate and free than the
/// rest of graph generation.
#[derive(Clone, Debug, Default)]
struct Graph {
    width: usize,
    attrs: Vec<usize>,
    levels: Vec<u8>,
    parents: Vec<(usize, usize)>,
    succ: Vec<Vec<usize>>,
}

impl Graph {
    fn new(width: usize) -> Self {
        Graph {
            width,
            ..Default::default()
        }
    }
    fn len(&self) -> usize {
        self.parents.len()
    }
    fn attrs(&self, v: usize) -> &[usize] {
        &self.attrs[v * self.width..(v + 1) * self.width]
    }
    fn levels(&self, v: usize) -> &[u8] {
        &self.levels[v * self.width..(v + 1) * self.width]
    }
    fn push(&mut self, attrs: &[usize], levels: &[u8], parents: (usize, usize)) -> usize {
        debug_assert!(attrs.len() == self.width && levels.len() == self.width);
        self.attrs.extend_from_slice(attrs);
        self.levels.extend_from_slice(levels);
        self.parents.push(parents);
        self.succ.push(Vec::new());
        self.len() - 1
    }
    fn height(&self, v: usize) -> u32 {
        node_height(self.levels(v))
    }
    /// Incognito's first graph: each attribute's levels as a chain.
    fn singletons(heights: &[u8]) -> Self {
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
}

enum RootSource<'a> {
    /// each root from the table
    Table,
    /// one set per family at the roots' meet, then each root rolled up from it
    SuperRoots,
    /// each root from its attribute set's cuboid, through a `RootTree`
    Cube(&'a HashMap<Vec<usize>, FreqSet>),
}

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
struct RootTree {
    /// Intermediate sets: attribute set, levels, source (`None`: the cuboid),
    /// dependents not yet rolled up, and the set while it is needed.
    inner: Vec<Intermediate>,
    /// Source of each root of the graph (by graph index).
    root_src: HashMap<usize, Option<usize>>,
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
    fn new(
        g: &Graph,
        is_root: &[bool],
        cube: &HashMap<Vec<usize>, FreqSet>,
        problem: &Problem,
    ) -> Self {
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
            tree.split(g, attrs, roots, &cube[attrs].levels, None);
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
        // times how much the raised attribute shrinks its domain (measured on
        // Adult against the most even split: 19-30% fewer rows rolled up).
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
    fn release(&mut self, src: Option<usize>) {
        if let Some(s) = src {
            self.inner[s].users -= 1;
            if self.inner[s].users == 0 {
                self.inner[s].set = None;
            }
        }
    }

    /// Roll up the intermediates that `roots` read from and that are not held
    /// yet, sources before the sets read from them.
    fn materialize(
        &mut self,
        searcher: &mut Searcher<'_>,
        cube: &HashMap<Vec<usize>, FreqSet>,
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
                        (from, it.attrs.clone(), it.levels.clone())
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
    fn source<'a>(
        &'a self,
        cube: &'a HashMap<Vec<usize>, FreqSet>,
        g: &Graph,
        v: usize,
    ) -> &'a FreqSet {
        match self.root_src[&v] {
            Some(i) => self.inner[i]
                .set
                .as_ref()
                .expect("materialized for this batch"),
            None => &cube[g.attrs(v)],
        }
    }
}

const BATCH: usize = 256;

/// Called between batches of rollups with the number of nodes checked so far;
/// returning `false` stops the search with `AnonError::Interrupted`.
pub type Progress<'p> = Box<dyn FnMut(u64) -> bool + Send + 'p>;

pub struct Searcher<'p> {
    problem: &'p Problem,
    config: Config,
    model: Model,
    stats: Stats,
    trace: Vec<IterationTrace>,
    progress: Option<Progress<'p>>,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

impl<'p> Searcher<'p> {
    pub fn new(problem: &'p Problem, config: Config) -> Result<Self> {
        if config.k == 0 {
            return Err(AnonError::Config("k must be at least 1".into()));
        }
        if config.k > problem.rows {
            return Err(AnonError::Config(format!(
                "k = {} is larger than the table ({} rows): no generalization can be {}-anonymous",
                config.k, problem.rows, config.k
            )));
        }
        crate::criteria::validate(&config.criteria, problem.sensitive.len())?;
        let model = Model {
            k: config.k,
            criteria: config.criteria.clone(),
        };
        Ok(Searcher {
            problem,
            config,
            model,
            stats: Stats::default(),
            trace: Vec::new(),
            progress: None,
        })
    }

    pub fn with_progress(mut self, progress: Progress<'p>) -> Self {
        self.progress = Some(progress);
        self
    }

    fn anonymous(&self, suppressed: u64) -> bool {
        suppressed <= self.config.max_suppression
    }

    /// Roll many jobs up, batching, and account rows read.
    fn compute(&mut self, jobs: Vec<(&FreqSet, Vec<usize>, Vec<u8>)>) -> Result<Vec<FreqSet>> {
        let mut out = Vec::with_capacity(jobs.len());
        for chunk in jobs.chunks(BATCH) {
            self.tick_and_account(chunk)?;
            out.extend(self.problem.rollup_many(chunk, self.config.engine)?);
        }
        Ok(out)
    }

    /// Roll nodes up and check them: statistics of each, and the set of each
    /// failing node that `keep` marks (one a later node will read).
    #[allow(clippy::type_complexity)]
    fn check(
        &mut self,
        jobs: Vec<(&FreqSet, Vec<usize>, Vec<u8>)>,
        keep: &[bool],
    ) -> Result<Vec<(u64, Option<FreqSet>)>> {
        let mut out = Vec::with_capacity(jobs.len());
        for (chunk, keep) in jobs.chunks(BATCH).zip(keep.chunks(BATCH)) {
            self.tick_and_account(chunk)?;
            out.extend(self.problem.check_many(
                chunk,
                keep,
                &self.model,
                self.config.max_suppression,
                self.config.engine,
            )?);
        }
        Ok(out)
    }

    /// Between batches: the progress callback (which may stop the search) and
    /// the rows the batch reads.
    fn tick_and_account(&mut self, chunk: &[(&FreqSet, Vec<usize>, Vec<u8>)]) -> Result<()> {
        if let Some(tick) = &mut self.progress {
            if !tick(self.stats.nodes_checked) {
                return Err(AnonError::Interrupted);
            }
        }
        for (from, _, _) in chunk {
            if std::ptr::eq(*from, &self.problem.base) {
                self.stats.table_scans += 1;
                self.stats.rows_scanned += from.rows() as u64;
            } else {
                self.stats.rows_rolled_up += from.rows() as u64;
            }
        }
        Ok(())
    }

    pub fn run(mut self, algorithm: Algorithm) -> Result<Outcome> {
        if algorithm != Algorithm::MinGen && self.config.max_suppression > 0 {
            if let Some(c) = self
                .config
                .criteria
                .iter()
                .find(|c| !c.monotone_with_suppression())
            {
                return Err(AnonError::Config(format!(
                    "{} is not monotone when failing groups are suppressed, so {:?} could miss \
                     or wrongly infer nodes; use algorithm=\"mingen\" (every node checked) or \
                     max_suppression=0",
                    c.name(),
                    algorithm
                )));
            }
        }
        let t = Instant::now();
        let mut out = match algorithm {
            Algorithm::Incognito(v) => self.incognito(v)?,
            Algorithm::BottomUp { rollup } => {
                let g = full_lattice_graph(&self.problem.heights());
                let in_s = self.bfs(&g, RootSource::Table, !rollup)?;
                self.finish_complete(&g, &in_s)
            }
            Algorithm::MinGen => self.exhaustive()?,
            Algorithm::Samarati => self.samarati()?,
        };
        self.stats.phase_ms.push(("total".into(), ms(t)));
        out.stats = self.stats;
        out.trace = self.trace;
        Ok(out)
    }

    /// The modified bottom-up breadth-first search of Figure 8 over one graph.
    /// Returns which nodes stay in S (anonymous). With `from_table`, every node
    /// is computed from the table (bottom-up without rollup).
    fn bfs(&mut self, g: &Graph, roots: RootSource, from_table: bool) -> Result<Vec<bool>> {
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
            (RootSource::Cube(cube), false) => Some(RootTree::new(g, &is_root, cube, self.problem)),
            _ => None,
        };
        let mut marked_count = 0u64;
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
                    let base: &'p FreqSet = &self.problem.base;
                    let jobs = need
                        .iter()
                        .map(|(a, l)| (base, a.clone(), l.clone()))
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
                let problem: &'p Problem = self.problem;
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
                    jobs.push((src, g.attrs(v).to_vec(), g.levels(v).to_vec()));
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
                    for &s in &g.succ[v] {
                        if !marked[s] {
                            marked[s] = true;
                            marked_count += 1;
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

    fn finish_complete(&self, g: &Graph, in_s: &[bool]) -> Outcome {
        let anonymous: Vec<Node> = (0..g.len())
            .filter(|&v| in_s[v])
            .map(|v| g.levels(v).to_vec())
            .collect();
        self.complete_outcome(anonymous)
    }

    /// The outcome of a complete search: every anonymous node, in lattice
    /// order, and the minimal ones among them.
    fn complete_outcome(&self, mut anonymous: Vec<Node>) -> Outcome {
        let lat = Lattice::new(self.problem.heights());
        anonymous.sort_by_key(|n| lat.id(n));
        let minimal = minimal_of_complete(&lat, &anonymous);
        Outcome {
            anonymous,
            rejected: Vec::new(),
            minimal,
            complete: true,
            stats: Stats::default(),
            trace: Vec::new(),
        }
    }

    fn incognito(&mut self, variant: Variant) -> Result<Outcome> {
        let problem = self.problem;
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
                    return Ok(self.finish_projected(&found, empty_ok, &one));
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
                cube.insert((0..n).collect(), full);
                // Where every attribute's leaves pass on their own (as with
                // suppression) the graphs grow and nearly every cuboid is
                // read: built up front, each from its smallest parent, in
                // batches of a size. Elsewhere they are built as graphs need
                // them (Adult, 9 QIs: up front was 5-10% faster at 5%;
                // on demand 3.5x faster at 0%, where no graph has more than
                // four attributes once the one-value candidates are gone).
                if floor == problem.base.levels {
                    self.build_cube(&mut cube, &floor)?;
                }
                cube_ms += ms(tc);
            }
            let tg = Instant::now();
            g = generate_graph(&g, &in_s, n);
            graph_ms += ms(tg);
        }
        unreachable!("the loop returns at i == n")
    }

    /// The lowest level of each attribute at which its hierarchy has a single
    /// value (`u8::MAX` where none has).
    fn one_value_levels(&self) -> Vec<u8> {
        self.problem
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
    ) -> Outcome {
        let heights = self.problem.heights();
        let n = heights.len();
        let mut anonymous: Vec<Node> = Vec::new();
        let empty = (Vec::new(), Vec::new());
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
                    self.stats.nodes_projected += 1;
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
        self.complete_outcome(anonymous)
    }

    /// The zero-generalization cuboids of single attributes: the marginals
    /// counted with F0 in the table's one pass (else one rollup of F0 each).
    fn single_cuboids(&mut self) -> Result<HashMap<Vec<usize>, FreqSet>> {
        let n = self.problem.n_attrs();
        let base: &'p FreqSet = &self.problem.base;
        let sets = match (self.config.engine, &self.problem.marginals) {
            (Engine::Polars, _) | (_, None) => {
                let jobs = (0..n).map(|a| (base, vec![a], vec![0])).collect();
                self.compute(jobs)?
            }
            (_, Some(sets)) => sets.clone(),
        };
        self.stats.cuboids += n as u64;
        Ok((0..n).map(|a| vec![a]).zip(sets).collect())
    }

    /// Cube Incognito's full cuboid, every attribute at `levels` (iteration
    /// 1's floor): rolled up from F0 (the one read of the table Cube makes),
    /// or F0 itself when the levels are its own.
    fn full_cuboid(&mut self, levels: &[u8]) -> Result<FreqSet> {
        let base: &'p FreqSet = &self.problem.base;
        self.stats.cuboids += 1;
        if levels == base.levels.as_slice() {
            return Ok(base.clone());
        }
        let all: Vec<usize> = (0..self.problem.n_attrs()).collect();
        Ok(self
            .compute(vec![(base, all, levels.to_vec())])?
            .pop()
            .expect("one job"))
    }

    /// Every cuboid of two to n - 1 attributes at `levels`, each from the
    /// smallest cuboid one attribute larger (`cube` holds the full one), as
    /// the paper builds them up front.
    fn build_cube(&mut self, cube: &mut HashMap<Vec<usize>, FreqSet>, levels: &[u8]) -> Result<()> {
        let n = self.problem.n_attrs();
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
    fn roll_cuboids(
        &mut self,
        cube: &mut HashMap<Vec<usize>, FreqSet>,
        levels: &[u8],
        todo: Vec<(Vec<usize>, Vec<usize>)>,
    ) -> Result<()> {
        let computed = {
            let jobs = todo
                .iter()
                .map(|(x, p)| {
                    let lv = x.iter().map(|&a| levels[a]).collect();
                    (&cube[p], x.clone(), lv)
                })
                .collect();
            self.compute(jobs)?
        };
        for ((x, _), fs) in todo.into_iter().zip(computed) {
            self.stats.cuboids += 1;
            cube.insert(x, fs);
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
    fn ensure_cuboids(
        &mut self,
        cube: &mut HashMap<Vec<usize>, FreqSet>,
        levels: &[u8],
        families: BTreeSet<Vec<usize>>,
    ) -> Result<()> {
        let n = self.problem.n_attrs();
        let doms: Vec<usize> = (0..n)
            .map(|a| self.problem.hierarchies[a].domain_size(levels[a]))
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

    /// Check `nodes` of the full lattice, each from the table; sorts them into
    /// `anonymous` and `rejected`.
    fn check_from_table(
        &mut self,
        nodes: &[Node],
        anonymous: &mut Vec<Node>,
        rejected: &mut Vec<Node>,
    ) -> Result<bool> {
        let problem: &'p Problem = self.problem;
        let all: Vec<usize> = (0..problem.n_attrs()).collect();
        let mut any = false;
        for chunk in nodes.chunks(BATCH) {
            let jobs = chunk
                .iter()
                .map(|nd| (&problem.base, all.clone(), nd.clone()))
                .collect();
            let results = self.check(jobs, &vec![false; chunk.len()])?;
            for (nd, (suppressed, _)) in chunk.iter().zip(results) {
                self.stats.nodes_checked += 1;
                if self.anonymous(suppressed) {
                    any = true;
                    anonymous.push(nd.clone());
                } else {
                    rejected.push(nd.clone());
                }
            }
        }
        Ok(any)
    }

    /// Every node from the table (MinGen's exhaustive enumeration).
    fn exhaustive(&mut self) -> Result<Outcome> {
        let lat = Lattice::new(self.problem.heights());
        let nodes: Vec<Node> = lat.all().collect();
        let mut anonymous = Vec::new();
        let mut rejected = Vec::new();
        self.check_from_table(&nodes, &mut anonymous, &mut rejected)?;
        let minimal = minimal_of_complete(&lat, &anonymous);
        Ok(Outcome {
            anonymous,
            rejected,
            minimal,
            complete: true,
            stats: Stats::default(),
            trace: Vec::new(),
        })
    }

    /// Samarati's binary search on height: the lowest height holding an
    /// anonymous node; every node of each probed height is evaluated.
    fn samarati(&mut self) -> Result<Outcome> {
        let lat = Lattice::new(self.problem.heights());
        let mut anonymous = Vec::new();
        let mut rejected = Vec::new();
        let mut found_at: HashMap<u32, Vec<Node>> = HashMap::new();
        let (mut lo, mut hi) = (0u32, lat.max_height());
        let mut probe = |h: u32, this: &mut Self| -> Result<bool> {
            let before = anonymous.len();
            let any = this.check_from_table(&lat.at_height(h), &mut anonymous, &mut rejected)?;
            found_at
                .entry(h)
                .or_default()
                .extend(anonymous[before..].iter().cloned());
            Ok(any)
        };
        let mut probed = HashSet::new();
        while lo < hi {
            let mid = (lo + hi) / 2;
            probed.insert(mid);
            if probe(mid, self)? {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if !probed.contains(&lo) {
            probe(lo, self)?;
        }
        let mut minimal = found_at.remove(&lo).unwrap_or_default();
        minimal.sort_by_key(|n| lat.id(n));
        anonymous.sort_by_key(|n| lat.id(n));
        rejected.sort_by_key(|n| lat.id(n));
        Ok(Outcome {
            anonymous,
            rejected,
            minimal,
            complete: false,
            stats: Stats::default(),
            trace: Vec::new(),
        })
    }
}

/// The full lattice as one graph (bottom-up search).
fn full_lattice_graph(heights: &[u8]) -> Graph {
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

fn minimal_of_complete(lat: &Lattice, anonymous: &[Node]) -> Vec<Node> {
    let set: HashSet<&Node> = anonymous.iter().collect();
    anonymous
        .iter()
        .filter(|n| lat.predecessors(n).iter().all(|p| !set.contains(p)))
        .cloned()
        .collect()
}

fn subsets_of_size(n: usize, size: usize) -> Vec<Vec<usize>> {
    (0u32..(1 << n))
        .filter(|m| m.count_ones() as usize == size)
        .map(|m| (0..n).filter(|a| m & (1 << a) != 0).collect())
        .collect()
}

const ABSENT: u8 = u8::MAX;

/// A node of a subset graph as a full-length level vector (`ABSENT` for the
/// attributes it does not have), as a hash key: packed into a `u128` (a byte
/// per attribute) when there are at most 16 attributes, else a byte vector.
/// Measured on Adult at 5% suppression: the join and prune of graph generation
/// spent most of their time hashing and comparing byte vectors.
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
fn generate_graph(g: &Graph, in_s: &[bool], n: usize) -> Graph {
    let mut next = if n <= 16 {
        join_prune::<u128>(g, in_s, n)
    } else {
        join_prune::<Vec<u8>>(g, in_s, n)
    };
    add_edges(g, &mut next);
    next
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
