//! What the optimal and heuristic searches share: nodes evaluated once (their
//! anonymity and objective value, kept only for the nodes touched, by id),
//! nodes below a failing node tagged failing without a check, greedy dives,
//! descents, and a best-first walk in order of the objective's lower bound.
//!
//! A dive is a chain from the bottom to the top that generalizes, at each
//! step, the attribute whose step raises the bound least (scaled by a random
//! factor in [1, 2) drawn from `Config::seed`); its first anonymous node is
//! found by bisection (anonymity is monotone along a chain), a handful of
//! evaluations for any height, and the failing nodes it meets high in the
//! lattice tag everything below them; the failing node next to it is raised
//! to a maximal failing node first. A descent moves from an anonymous node
//! to its best anonymous direct specialization while that improves.
//!
//! The walk is a branch and bound over boxes of the lattice (a range of
//! levels per attribute), starting from the whole lattice and taken in order
//! of the bound at their lowest node, which bounds every node of the box
//! (bounds only rise with generalization); once the box's top is known to
//! suppress records, every node of the box suppresses at least as many, and
//! the bound counts them (`Bounds::lower_suppressing`): the box is dropped
//! when that passes the best value. A box whose top node fails holds
//! no anonymous node and is dropped (anonymity is monotone); when its lowest
//! node is known anonymous and the objective monotone, that node is the
//! box's best and the box is done; otherwise it is split in two where it is
//! widest. A box's lowest node is not rolled up for this: below the best
//! value it almost always fails, and a failure there tags nothing else in
//! the box, so checking it doubled the rollups for nothing; it is reached as
//! a box of its own when it matters. The walk ends when the lowest bound
//! left exceeds the best value found: every node better than the answer was
//! in a box that would have been taken, so the answer is optimal. Boxes
//! whose bound equals the best are taken too, so every node of the best
//! value is found (ties are the caller's).
//!
//! Both start from the search's floors (`freq/floors.rs`: a node with an
//! attribute below its floor fails, known without a check), not the
//! bottom: the first box is the floors up to the top, and reads of F0 read
//! it grouped at them (`early.rs`).

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap, VecDeque};

use super::{Bounds, Searcher};
use crate::error::Result;
use crate::freq::{FreqSet, RollupJob};
use crate::lattice::{generalizes, node_height, Lattice, Node};
use crate::metrics::metrics;

/// A small seeded generator (SplitMix64): the dives' random factors.
struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Dives made before a best-first walk: each costs a few evaluations.
const DIVES: usize = 8;

/// Failing nodes remembered for tagging: past this many, tagging uses the
/// first ones only (a bound on the cost of each test, not on correctness).
const MAX_FAILING: usize = 4096;

/// Bytes of frequency sets kept to roll up from (a set of more than a
/// quarter of this is not kept): a node above none of them reads F0.
const CACHED_BYTES: usize = 128 << 20;

/// Bytes a touched node costs: its id in the seen set, a heap entry, and an
/// evaluation in the map.
const BYTES_PER_NODE: u128 = 96;

/// Two values equal within float noise: the bound and the value of a node
/// without suppression are the same sum computed two ways.
pub(super) fn at_most(a: f64, b: f64) -> bool {
    a <= b + 1e-12 * b.abs().max(1e-12)
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Bound(f64);
impl Eq for Bound {}
impl PartialOrd for Bound {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Bound {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

pub(super) struct Explorer {
    pub lattice: Lattice,
    pub bounds: Bounds,
    /// id -> objective value if anonymous, None if not.
    evaluated: HashMap<u128, Option<f64>>,
    /// id -> records suppressed, of the anonymous nodes evaluated that
    /// suppress any (`Bounds::lower_suppressing` of the boxes below them).
    suppressing: HashMap<u128, u64>,
    failing: Vec<Node>,
    /// Minimal anonymous nodes found: every node above one is anonymous.
    minimal: Vec<Node>,
    /// Recent nodes' frequency sets, to roll nodes above them up from.
    sets: VecDeque<(Node, FreqSet)>,
    /// Their bytes at most: `CACHED_BYTES`, or a quarter of a smaller
    /// memory budget, so that the cache alone never stops the search.
    cache_cap: usize,
    /// Anonymity is monotone under generalization (the searcher refuses
    /// criteria that are not), so a node below a failing one fails.
    pub monotone_objective: bool,
    /// The search's floors: below them every node fails.
    floors: Node,
    /// Nothing may be suppressed and the objective's bound is then the value
    /// (`Objective::exact_unsuppressed`): an anonymous node is valued by its
    /// bound, so a node above a known anonymous one needs no read, and a
    /// node read needs no pass over its groups for the value.
    exact: bool,
    pub best: f64,
    pub anonymous: Vec<Node>,
    pub rejected: Vec<Node>,
}

impl Explorer {
    pub fn new(s: &mut Searcher<'_>) -> Result<Self> {
        let problem = s.problem();
        let objective = s.config.objective;
        // the rule holds for any criteria on the groups besides k (they
        // only suppress more), not for those on the whole release. Only
        // where F0 packs: a wider table has no marginals to count each
        // attribute's leaves from, and a pass over F0 per attribute (of
        // hundreds) is no saving, nor can F0 be read in blocks at floors
        let floors = match s.checker.model.beyond_groups() || problem.layout.is_none() {
            true => problem.base.levels.clone(),
            false => crate::freq::floors::lowest(problem, s.config.k, s.config.max_suppression)?,
        };
        if let Some(rows) = s.early.at_floors(&s.checker, &floors)? {
            s.stats.table_scans += 1;
            s.stats.rows_scanned += rows as u64;
        }
        Ok(Explorer {
            lattice: Lattice::new(problem.heights()),
            bounds: Bounds::new(problem, objective)?,
            evaluated: HashMap::new(),
            suppressing: HashMap::new(),
            failing: Vec::new(),
            minimal: Vec::new(),
            sets: VecDeque::new(),
            cache_cap: CACHED_BYTES.min((s.config.memory_budget / 4) as usize),
            monotone_objective: objective.monotone(s.config.max_suppression),
            floors,
            exact: s.config.max_suppression == 0 && objective.exact_unsuppressed(),
            best: f64::INFINITY,
            anonymous: Vec::new(),
            rejected: Vec::new(),
        })
    }

    /// Whether the node is anonymous, without its value: tagged from a
    /// failing generalization or an anonymous specialization when one is
    /// known, else evaluated.
    pub fn is_anonymous(&mut self, s: &mut Searcher<'_>, node: &[u8]) -> Result<bool> {
        if let Some(&v) = self.evaluated.get(&self.lattice.id(node)) {
            return Ok(v.is_some());
        }
        if self.above_anonymous(node) {
            s.stats.nodes_marked += 1;
            return Ok(true);
        }
        Ok(self.eval(s, node)?.is_some())
    }

    /// Whether a minimal anonymous node found lies below `node` (which is
    /// then anonymous).
    fn above_anonymous(&self, node: &[u8]) -> bool {
        self.minimal.iter().any(|a| generalizes(node, a))
    }

    /// The node's objective value if it is anonymous, None if it is not:
    /// from the nodes evaluated before, from a failing generalization, by
    /// its bound above an anonymous node where that is the value (`exact`),
    /// or evaluated now (`evaluate`).
    pub fn eval(&mut self, s: &mut Searcher<'_>, node: &[u8]) -> Result<Option<f64>> {
        s.in_time()?;
        if let Some(v) = self.known(s, node) {
            return Ok(v);
        }
        if self.exact && self.above_anonymous(node) {
            s.stats.nodes_marked += 1;
            let v = self.bounds.lower(node);
            self.passed(s, self.lattice.id(node), node, v, 0)?;
            return Ok(Some(v));
        }
        self.evaluate(s, node)
    }

    /// What is known of a node without a rollup: evaluated before, below
    /// the floors or below a failing node.
    fn known(&mut self, s: &mut Searcher<'_>, node: &[u8]) -> Option<Option<f64>> {
        let id = self.lattice.id(node);
        if let Some(&v) = self.evaluated.get(&id) {
            return Some(v);
        }
        if crate::freq::floors::under(node, &self.floors)
            || self.failing.iter().any(|f| generalizes(f, node))
        {
            s.stats.nodes_marked += 1;
            self.evaluated.insert(id, None);
            return Some(None);
        }
        None
    }

    /// Evaluate a node not known yet: roll it up from the smallest cached set
    /// below it and check it; or read F0 (at the floors) in blocks, stopping
    /// once the node is known to fail (it then leaves no set to cache), or
    /// all of it.
    fn evaluate(&mut self, s: &mut Searcher<'_>, node: &[u8]) -> Result<Option<f64>> {
        let id = self.lattice.id(node);
        s.tick()?;
        let problem = s.problem();
        let from = self
            .sets
            .iter()
            .filter(|(n, _)| generalizes(node, n))
            .map(|(_, fs)| fs)
            .min_by_key(|fs| fs.rows());
        let source = s.early.source(&problem.base);
        let read = from.map_or(source.rows(), |src| src.rows());
        s.affords(read)?;
        let started = std::time::Instant::now();
        // `None`: read from F0 in blocks and known to fail before its end
        let fs = match from {
            Some(src) => {
                s.stats.rows_rolled_up += src.rows() as u64;
                let all = (0..node.len()).collect();
                let job = RollupJob::new(src, all, node.to_vec());
                Some(problem.rollup(job, s.config.engine)?)
            }
            None => {
                s.stats.table_scans += 1;
                s.stats.rows_scanned += read as u64;
                match s.early.check(&s.checker, node, s.config.max_suppression)? {
                    Some(fs) => fs,
                    None => {
                        let source = s.early.source(&problem.base);
                        let job = RollupJob::new(source, source.attrs.clone(), node.to_vec());
                        Some(problem.rollup(job, s.config.engine)?)
                    }
                }
            }
        };
        s.paced(read, started.elapsed().as_secs_f64());
        s.stats.nodes_checked += 1;
        // the loss pass only for a node that passes
        let mut suppressed = 0;
        let passing = match &fs {
            Some(fs) => {
                suppressed = s.checker.group_stats(fs)?.suppressed;
                s.anonymous(suppressed).then_some(fs)
            }
            None => None,
        };
        let value = match passing {
            Some(fs) => {
                let v = match self.exact {
                    true => self.bounds.lower(node),
                    false => {
                        let ev = s.checker.evaluate_set(fs)?;
                        let m = metrics(
                            node,
                            &problem.heights(),
                            &ev.stats,
                            problem.rows,
                            s.config.k,
                            &ev.attribute_loss,
                        );
                        self.bounds.value(node, &m, &ev)
                    }
                };
                if self.minimal.len() < MAX_FAILING {
                    self.minimal.retain(|a| !generalizes(a, node));
                    self.minimal.push(node.to_vec());
                }
                self.passed(s, id, node, v, suppressed)?;
                Some(v)
            }
            None => {
                self.rejected.push(node.to_vec());
                if self.failing.len() < MAX_FAILING {
                    self.failing.retain(|f| !generalizes(node, f));
                    self.failing.push(node.to_vec());
                }
                self.evaluated.insert(id, None);
                self.counted(s, node)?;
                None
            }
        };
        if let Some(fs) = fs {
            self.cache(node, fs, s.early.source(&problem.base).rows());
        }
        Ok(value)
    }

    /// Record an anonymous node (of id `id`) of value `v` that suppresses
    /// `suppressed` records.
    fn passed(
        &mut self,
        s: &mut Searcher<'_>,
        id: u128,
        node: &[u8],
        v: f64,
        suppressed: u64,
    ) -> Result<()> {
        if suppressed > 0 {
            self.suppressing.insert(id, suppressed);
        }
        self.anonymous.push(node.to_vec());
        s.confirmed.push(node.to_vec());
        self.best = self.best.min(v);
        s.best = Some(self.best);
        self.evaluated.insert(id, Some(v));
        self.counted(s, node)
    }

    /// The nodes valued so far against the memory budget.
    fn counted(&self, s: &Searcher<'_>, node: &[u8]) -> Result<()> {
        s.within_budget(
            "this search",
            self.evaluated.len() as u128,
            BYTES_PER_NODE + node.len() as u128,
        )
    }

    /// Keep a node's set to roll others up from, the most recent first,
    /// within `cache_cap` in all; not one with more than half the rows of
    /// F0 at the floors (`f0_rows`: rolling up from it costs about as much).
    fn cache(&mut self, node: &[u8], fs: FreqSet, f0_rows: usize) {
        if fs.bytes() > self.cache_cap / 4 || 2 * fs.rows() > f0_rows {
            return;
        }
        self.sets.push_front((node.to_vec(), fs));
        let mut total = 0;
        let keep = self
            .sets
            .iter()
            .take_while(|(_, fs)| {
                total += fs.bytes();
                total <= self.cache_cap
            })
            .count();
        self.sets.truncate(keep);
    }

    /// The branch and bound over boxes of the lattice (see the module doc);
    /// true when it ran to its end, proving the best value found optimal.
    pub fn best_first(&mut self, s: &mut Searcher<'_>) -> Result<bool> {
        let top = self.lattice.heights().to_vec();
        let bottom = self.floors.clone();
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((
            Bound(self.bounds.lower(&bottom)),
            0u32,
            bottom,
            top,
        )));
        while let Some(Reverse((Bound(lb), _, lo, hi))) = heap.pop() {
            if !at_most(lb, self.best) {
                break;
            }
            // boxes settled by what is known, without a rollup, can take
            // longer than the limit's slack between two rollups
            s.in_time()?;
            // a box whose top fails fails everywhere
            if !self.is_anonymous(s, &hi)? {
                continue;
            }
            // every node of the box suppresses at least what its top does
            let top = self.suppressing.get(&self.lattice.id(&hi));
            let top_suppressed = top.copied().unwrap_or(0);
            if top_suppressed > 0
                && !at_most(
                    self.bounds.lower_suppressing(&lo, &hi, top_suppressed),
                    self.best,
                )
            {
                continue;
            }
            // a single node is evaluated now; a larger box's lowest node is
            // looked at only if something is known of it without a rollup:
            // below the optimum it almost always fails, and its failure
            // tags nothing inside the box
            if lo == hi {
                // known anonymous is not enough when the objective is not
                // monotone: a node above an anonymous one (tagged, never
                // evaluated) may suppress fewer tuples and do better, so
                // its value is needed
                if !self.monotone_objective {
                    self.eval(s, &hi)?;
                }
                continue;
            }
            if self.known(s, &lo).is_some_and(|v| v.is_some()) && self.monotone_objective {
                continue;
            }
            // else split it where it is widest
            let a = (0..lo.len())
                .filter(|&a| hi[a] > lo[a])
                .max_by_key(|&a| (hi[a] - lo[a], std::cmp::Reverse(a)))
                .expect("a box of two nodes or more is wider than one level somewhere");
            let mid = lo[a] + (hi[a] - lo[a] - 1) / 2;
            let (mut low_hi, mut high_lo) = (hi.clone(), lo.clone());
            low_hi[a] = mid;
            high_lo[a] = mid + 1;
            for (l, h) in [(lo, low_hi), (high_lo, hi)] {
                let b = self.bounds.lower_suppressing(&l, &h, top_suppressed);
                if at_most(b, self.best) {
                    // ties by height: lower boxes first
                    heap.push(Reverse((Bound(b), node_height(&l), l, h)));
                }
            }
            s.within_budget(
                "this search",
                (2 * heap.len() + self.evaluated.len()) as u128,
                BYTES_PER_NODE + self.lattice.heights().len() as u128,
            )?;
        }
        Ok(true)
    }

    /// `DIVES` seeded dives, each followed by a descent: a good best value,
    /// and failing nodes high in the lattice that tag those below them.
    pub fn dives(&mut self, s: &mut Searcher<'_>) -> Result<()> {
        let mut rng = Rng(s.config.seed);
        for _ in 0..DIVES {
            if let Some(node) = self.dive(s, &mut rng)? {
                self.descend(s, node)?;
            }
        }
        Ok(())
    }

    /// The first anonymous node of a randomised cheapest-bound chain.
    fn dive(&mut self, s: &mut Searcher<'_>, rng: &mut Rng) -> Result<Option<Node>> {
        let heights = self.lattice.heights().to_vec();
        let mut node = self.floors.clone();
        let mut chain = vec![node.clone()];
        while node != heights {
            s.in_time()?;
            let here = self.bounds.lower(&node);
            let mut best: Option<(f64, usize)> = None;
            for (a, up) in self.bounds.raised(&node).into_iter().enumerate() {
                if let Some(up) = up {
                    let rise = (up - here).max(1e-12) * (1.0 + rng.unit());
                    if best.is_none_or(|(r, _)| rise < r) {
                        best = Some((rise, a));
                    }
                }
            }
            let (_, a) = best.expect("a step below the top");
            node[a] += 1;
            chain.push(node.clone());
        }
        // the first anonymous node, by bisection: the top decides if any is
        let (mut lo, mut hi) = (0usize, chain.len() - 1);
        if self.eval(s, &chain[hi])?.is_none() {
            return Ok(None);
        }
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.eval(s, &chain[mid])?.is_some() {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if lo > 0 {
            self.raise_failing(s, chain[lo - 1].clone())?;
        }
        Ok(Some(chain[lo].clone()))
    }

    /// From a failing node, raise each attribute in turn as far as the node
    /// still fails (by bisection on its level): a maximal failing node, which
    /// tags every node below it. Each raise is final: an attribute that
    /// could not go one level higher then cannot once others are higher.
    fn raise_failing(&mut self, s: &mut Searcher<'_>, mut node: Node) -> Result<()> {
        let heights = self.lattice.heights().to_vec();
        for a in 0..node.len() {
            let (mut lo, mut hi) = (node[a], heights[a]);
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                let mut up = node.clone();
                up[a] = mid;
                if self.eval(s, &up)?.is_none() {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            node[a] = lo;
        }
        Ok(())
    }

    /// Move to the best anonymous direct specialization while it improves.
    pub fn descend(&mut self, s: &mut Searcher<'_>, node: Node) -> Result<()> {
        self.improve(s, node, false)
    }

    /// Move to the best anonymous neighbour while it improves: direct
    /// specializations, and with `swaps` also the nodes one level lower in
    /// one attribute and one higher in another (a lateral move, which a
    /// suppression budget often rewards).
    pub fn improve(&mut self, s: &mut Searcher<'_>, mut node: Node, swaps: bool) -> Result<()> {
        let mut value = match self.eval(s, &node)? {
            Some(v) => v,
            None => return Ok(()),
        };
        let heights = self.lattice.heights().to_vec();
        loop {
            let mut best: Option<(f64, Node)> = None;
            let mut near = self.lattice.predecessors(&node);
            if swaps {
                for a in 0..node.len() {
                    for b in 0..node.len() {
                        if a != b && node[a] > 0 && node[b] < heights[b] {
                            let mut n = node.clone();
                            n[a] -= 1;
                            n[b] += 1;
                            near.push(n);
                        }
                    }
                }
            }
            for down in near {
                if let Some(v) = self.eval(s, &down)? {
                    if v < value && best.as_ref().is_none_or(|(b, _)| v < *b) {
                        best = Some((v, down));
                    }
                }
            }
            match best {
                Some((v, down)) => (value, node) = (v, down),
                None => return Ok(()),
            }
        }
    }

    /// The anonymous nodes of the best value found.
    pub fn best_nodes(&self) -> Vec<Node> {
        let mut out: Vec<Node> = self
            .anonymous
            .iter()
            .filter(|n| {
                let v = self.evaluated[&self.lattice.id(n)].expect("anonymous");
                at_most(v, self.best)
            })
            .cloned()
            .collect();
        Lattice::sort(&mut out);
        out
    }
}
